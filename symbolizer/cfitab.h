/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Compact unwind tables from a binary's call-frame information (.eh_frame,
 * else .debug_frame), for unwinding x86-64 user stacks without frame
 * pointers: for each address range of the file's code, how to find the
 * canonical frame address (CFA: the stack pointer before the call) and
 * where the caller's frame pointer (%rbp) and %rbx were saved (the two
 * registers a CFA can be found from besides %rsp), reduced to the rules
 * compilers emit. The return address is always at CFA - 8 in a row of kind
 * CFITAB_CFA; a rule the table cannot express is a row of its own kind, so
 * that an unwinder stops there or falls back to the frame pointer.
 */
#ifndef ZT_CFITAB_H
#define ZT_CFITAB_H

#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "libprof/htab.h"

enum cfitab_kind {
	CFITAB_NONE,	    /* no CFI covers the range (or past the code) */
	CFITAB_CFA,	    /* CFA = cfa_reg + cfa_off, return address at CFA - 8 */
	CFITAB_SIGNAL,	    /* a signal frame's (the caller is the interrupted state) */
	CFITAB_UNSUPPORTED, /* CFI this table cannot express (an expression, another register) */
	CFITAB_END,	    /* the outermost frame: the return address is undefined (_start) */
	CFITAB_PLT,	    /* a lazy-binding PLT entry's expression: CFA = %rsp + cfa_off, plus 8
			       where (pc & 15) >= fp_off (after the entry's push) */
	CFITAB_NKINDS
};

enum cfitab_reg {
	CFITAB_REG_SP, /* %rsp */
	CFITAB_REG_FP, /* %rbp */
	CFITAB_REG_BX, /* %rbx (a frame that realigns its stack: glibc's lazy-binding
			  trampoline _dl_runtime_resolve) */
};

/* Where the caller's frame pointer (%rbp), or its %rbx, is. */
enum cfitab_fp {
	CFITAB_FP_SAME,	 /* unchanged: still in the register */
	CFITAB_FP_AT,	 /* saved at CFA + fp_off (bx_off) */
	CFITAB_FP_UNDEF, /* not recoverable */
};

struct cfitab_row {
	uint64_t addr;	 /* where the row starts (a virtual address of the file); it
			    holds up to the next row's */
	int32_t cfa_off; /* CFITAB_CFA */
	int32_t fp_off;	 /* CFITAB_FP_AT */
	int32_t bx_off;	 /* bx CFITAB_FP_AT */
	uint8_t kind;	 /* enum cfitab_kind */
	uint8_t cfa_reg; /* enum cfitab_reg */
	uint8_t fp;	 /* enum cfitab_fp: %rbp */
	uint8_t bx;	 /* enum cfitab_fp: %rbx */
};

struct cfitab {
	struct cfitab_row *rows; /* by address, no two in a row alike */
	size_t nr, cap;
	size_t unsupported; /* rows of kind CFITAB_UNSUPPORTED */
};

void cfitab_init(struct cfitab *t);
void cfitab_release(struct cfitab *t);

/*
 * The table of ELF file elf's code (its executable sections), from its
 * .eh_frame, or its .debug_frame when it has none. 0; -ENOENT when the
 * file has no CFI; -ENOMEM; -EINVAL for a file that is not x86-64.
 */
int cfitab_build(Elf *elf, struct cfitab *t);

/* The row that holds at addr (a virtual address of the file), or NULL
 * before the first. */
const struct cfitab_row *cfitab_lookup(const struct cfitab *t, uint64_t addr);

/*
 * The table in the shape a BPF program searches within its limits: the
 * distinct rules once, and per 64 KiB page of the file's addresses its
 * entries (the page's low 16 bits of each row's start and the rule), the
 * first at 0 (the rule in force where the page starts), so that a lookup
 * is a page, then a binary search of at most 16 steps in it. Pages in
 * which nothing but "no CFI" holds are left out.
 */
#define CFIPAGE_SHIFT 16

struct cfipage_rule {
	int32_t cfa_off, fp_off;
	uint8_t kind, cfa_reg, fp, bx;
	int32_t bx_off;
};

struct cfipage_entry {
	uint16_t lo;   /* the row's start in the page: addr & 0xffff */
	uint16_t rule; /* index in rules */
};

struct cfipage {
	uint64_t page;	    /* addr >> CFIPAGE_SHIFT */
	uint32_t first, nr; /* its entries: entries[first .. first + nr) */
};

struct cfipages {
	struct cfipage *pages; /* by page */
	size_t nr_pages, cap_pages;
	struct cfipage_entry *entries;
	size_t nr_entries, cap_entries;
	struct cfipage_rule *rules;
	size_t nr_rules, cap_rules;
	struct zt_htab rhash; /* private: rules by value */
};

/* The most pages one file's table may take (4 GiB of code). */
#define CFIPAGES_MAX (1u << 16)

void cfipages_init(struct cfipages *p);
void cfipages_release(struct cfipages *p);
/* t in pages into p. 0, -ENOMEM, -E2BIG (more than 65,536 distinct rules
 * or CFIPAGES_MAX pages). */
int cfipages_build(const struct cfitab *t, struct cfipages *p);
/* The rule in force at addr, as the BPF program finds it; NULL where no
 * CFI holds (a page left out). */
const struct cfipage_rule *cfipages_lookup(const struct cfipages *p, uint64_t addr);

#endif
