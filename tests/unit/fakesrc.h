/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake frame source for the model tests (frametab, rmodel, toplive):
 * frames computed from the address alone, no symbolizer, each call
 * counted; and helpers that build a profile in memory.
 *
 * User addresses, by (addr & 0xffff) >> 12 (line: FAKE_LINE of the base
 * plus (addr & 0xfff) >> 8):
 *   1  "f1" in "a.so", file "/src/a/f1.c", line 10+
 *   2  "f2" in "a.so", file "f2.c" in dir "/src/a", line 20+
 *   3  "main" in "prog", file "/src/main.c", line 30+
 *   4  "leafy" inlined into "middle" inlined into "outer" ("b.so"):
 *      files "/src/inl.h" (40+, 50) and "/src/b.c" (60); srcline: the leaf's
 *   5  unresolved in "b.so": sym NULL, offset the file offset
 *   else "[unknown]": sym NULL, offset the address
 * Kernel addresses: "kfunc" (bit 12 clear) or "kfunc2" (set) in
 * "[kernel.kallsyms]", no line. FAKE_ADDR_EIO fails with -EIO,
 * FAKE_ADDR_EMPTY pushes no frame. Frames' map: proctree_map() of the
 * source's pt (the kernel's for kernel addresses) when pt is set.
 */
#ifndef ZT_TESTS_FAKESRC_H
#define ZT_TESTS_FAKESRC_H

#include <stdint.h>

#include "libprof/frametab.h"
#include "libprof/hist.h"
#include "libprof/profile.h"
#include "libprof/proctree.h"

#define FAKE_KADDR	0xffffffff81000000ull
#define FAKE_ADDR_EIO	0xe000e000ull
#define FAKE_ADDR_EMPTY 0xe000f000ull

struct fakesrc {
	unsigned resolves;		/* resolve() calls */
	unsigned follows, follow_nulls; /* follow() calls with a profile, and with NULL */
	const struct proctree *pt;	/* mappings for frames' map (set by follow() too) */
	uint32_t time_pid;		/* the one pid time_sensitive() says yes to (0: none) */
	uint32_t last_pid;		/* of the last resolve() */
	uint64_t last_addr, last_ts;
	int last_kernel;
};

void fakesrc_init(struct fakesrc *s);
/* A source calling into s (borrowed); with follow() when follow is set. */
struct frametab_source fakesrc_source(struct fakesrc *s, int follow);

/* Profile builders: 0 or a negative errno. */
int fake_task(struct profile *p, uint32_t kind, uint64_t ts, uint32_t pid, uint32_t tid,
	      const char *comm);
/* An executable mapping; bid: build id bytes (NULL: none). */
int fake_mmap(struct profile *p, uint32_t pid, uint64_t ts, uint64_t start, uint64_t len,
	      uint64_t pgoff, const char *path, const char *bid);
/* A sample of stack ips (nk kernel then nu user addresses, leaf first). */
int fake_sample(struct profile *p, uint64_t ts, uint64_t weight, uint32_t pid, uint32_t tid,
		uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu);

/* rows[0 .. n) as text into buf, a line each: the keys' texts, then Self
 * and Children as weight/samples ("prog a.so [.] f1: 210/3 210/3").
 * Returns buf. */
char *fake_rows_text(const struct hist *h, const struct hist_entry *const *rows, size_t n,
		     char *buf, size_t len);

#endif
