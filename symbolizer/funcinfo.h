/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbol model of one module, as LLVM's GSYM format has it: functions
 * sorted by address, each with a name, a line table and a tree of inlined
 * calls, over one string table and one file table. Sources (ELF symbols,
 * DWARF) fill a struct fi_table; gsym.c turns it into a GSYM file and looks
 * addresses up in such files. All addresses are the module's virtual
 * addresses (ELF st_value / DW_AT_low_pc), not file offsets.
 */
#ifndef ZT_FUNCINFO_H
#define ZT_FUNCINFO_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/htab.h"
#include "libprof/profile.h"

/* An address range [start, end). */
struct fi_range {
	uint64_t start, end;
};

/* A node of the inline tree. The root of a function's tree covers the
 * function itself (name = the function's name, no call site); each child is
 * a call inlined into its parent: its code lies at ranges (inside the
 * parent's), and call_file/call_line say where in the parent it was called. */
struct fi_inline {
	struct fi_range *ranges; /* owned */
	uint32_t nr_ranges;
	uint32_t name;      /* string offset */
	uint32_t call_file; /* file index, 0: unknown */
	uint32_t call_line;
	uint32_t call_column; /* 0: unknown */
	struct fi_inline *children; /* owned array */
	uint32_t nr_children;
};

/* A row of a function's line table: from addr on (to the next row or the
 * function's end) the code comes from file:line. Sorted by addr. */
struct fi_line {
	uint64_t addr;
	uint32_t file; /* file index; 0: no line information from addr on */
	uint32_t line;
	uint32_t column, discr; /* DWARF column and discriminator, 0: none */
};

struct fi_func {
	uint64_t start;
	uint64_t size;  /* 0: extends to the next function (symbols without size) */
	uint32_t name;  /* string offset */
	struct fi_line *lines; /* owned, NULL when no line information */
	uint32_t nr_lines;
	size_t cap_lines;
	struct fi_inline *inl; /* owned root, NULL when nothing was inlined */
	/* What the other tools name the function's code (string offsets, 0:
	 * none); name is the ELF symbol, as perf names it, for reports:
	 *   dname: the DWARF subprogram (addr2line's and eu-addr2line's name:
	 *          "foo" where the symbol is "foo.cold" or "foo.isra.0")
	 *   gname: without a DWARF subprogram, the symbol addr2line (BFD) takes:
	 *          the nearest one before the address in its section, any size
	 *   lname: the symbol llvm-symbolizer takes for the outermost frame:
	 *          the last one at or before the address that covers it (a
	 *          sizeless one covers everything up to the next symbol) */
	uint32_t dname, gname, lname;
	/* the STT_FILE of gname's and lname's symbol when they are local: the
	 * file those tools print for code without line rows */
	uint32_t gfile, lfile;
	/* FI_GAP: no function, code between functions (padding, crt code
	 * without symbols) that the line table or the other tools' symbol
	 * rules still cover; reports see no function there */
	uint32_t flags;
};

#define FI_GAP 1u
#define FI_BFD_SYM 2u /* dwarfsyms.c's own, while it builds the table */
/* A C++ (or other mangling language's) function without a linkage name:
 * dname is its DW_AT_name and gname the symbol addr2line (BFD) finds for
 * this part. BFD names such a function by that symbol the first time an
 * address is found directly in it (not in code inlined into it): for good
 * when the symbol starts where the function's first DWARF range does
 * (FI_BFD_RENAME), for that one answer otherwise (FI_BFD_ONCE); after
 * that, and in any inline chain before it, by the DWARF name. */
#define FI_BFD_RENAME 4u
#define FI_BFD_ONCE 8u
/* The function's compile unit is in a language with mangled linkage names
 * (C++, Rust, ...): BFD's naming by symbol applies to the inlined
 * functions in it that have no linkage name, too */
#define FI_MANGLED_CU 16u

/* A file of the file table: index 0 is reserved (no file), as in GSYM. */
struct fi_file {
	uint32_t dir, base; /* string offsets */
};

struct fi_table {
	char *strtab;        /* string offset 0 is the empty string */
	size_t strtab_len, strtab_cap;
	struct zt_htab str_hash; /* string -> its offset */
	struct fi_file *files;
	size_t nr_files, cap_files;
	struct fi_func *funcs;
	size_t nr_funcs, cap_funcs;
	uint8_t uuid[ZT_BUILD_ID_MAX]; /* the module's build id (or file id) */
	uint8_t uuid_len;
};

void fi_table_init(struct fi_table *t);
void fi_table_release(struct fi_table *t);

/* Intern a string; returns its offset (0 for ""), or UINT32_MAX on ENOMEM. */
uint32_t fi_str(struct fi_table *t, const char *s);
/* Intern a file (dir may be NULL or ""); returns its index >= 1, or 0 on
 * ENOMEM. */
uint32_t fi_file(struct fi_table *t, const char *dir, const char *base);
static inline const char *fi_strat(const struct fi_table *t, uint32_t off)
{
	return off < t->strtab_len ? t->strtab + off : "";
}

/* Add a function (zeroed lines and inline tree); the pointer is valid until
 * the next fi_add_func. NULL on ENOMEM. */
struct fi_func *fi_add_func(struct fi_table *t, uint64_t start, uint64_t size, uint32_t name);
/* Append a line row to f (rows must come in address order: fi_finish sorts
 * and dedups anyway). Returns 0 or -ENOMEM. */
int fi_add_line(struct fi_func *f, uint64_t addr, uint32_t file, uint32_t line);
/* Free an inline tree node's contents (not the node itself). */
void fi_inline_release(struct fi_inline *n);

/* Sort functions by address and settle overlaps: of several functions at
 * one address the one with line or inline information (else the larger)
 * stays; sizeless functions end at the next one. Returns 0 or -ENOMEM. */
int fi_finish(struct fi_table *t);

/* One frame of an address's answer. */
struct fi_loc {
	const char *name;           /* function (the inlined one, for inner frames) */
	const char *dir, *file;     /* "" when unknown */
	uint32_t line;              /* 0 when unknown */
	uint32_t column;            /* 0 when unknown */
};

#define FI_MAX_INLINE 32

/* What an address resolves to: locs[0] is the innermost frame (the inlined
 * function whose code is at the address, with the address's own line),
 * locs[n-1] the outermost (the real function, with the line of the call
 * that the inlined frames came from). */
struct fi_result {
	struct fi_loc locs[FI_MAX_INLINE];
	unsigned n;
	uint64_t func_start; /* start address of the outermost function */
	uint64_t offset;     /* address - func_start */
	/* locs[n-1].name is the ELF symbol (reports); what addr2line and
	 * llvm-symbolizer print for the outermost frame instead (see fi_func;
	 * NULL: none): */
	const char *dname, *gname, *lname;
	const char *gfile, *lfile; /* see fi_func; NULL: none */
	uint32_t discr; /* the line row's discriminator, 0: none */
	int gap;        /* FI_GAP: between functions (gsym_lookup_all only) */
	uint32_t flags; /* the function's FI_* flags (FI_BFD_RENAME, FI_BFD_ONCE) */
};

#endif
