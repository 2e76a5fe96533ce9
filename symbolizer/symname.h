/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which of several names at one address to show: perf's rule, which ELF
 * symbol tables and kallsyms share. */
#ifndef ZT_SYMNAME_H
#define ZT_SYMNAME_H

#include <stdint.h>

/* One of the symbols at an address, as perf's choose_best_symbol() and
 * symbols__fixup_duplicate() (tools/perf/util/symbol.c) see it. */
struct symname_cand {
	const char *name;
	uint32_t seq;  /* table order: perf keeps the first of equals */
	uint8_t sized; /* a non-zero extent once perf has fixed up ends (see below) */
	uint8_t bind;  /* STB_LOCAL, STB_GLOBAL, STB_WEAK, ... (kallsyms: symname_kbind()) */
};

/*
 * Negative when a is perf's choice over b, positive when b is; 0 only for
 * the same candidate. In order: sized over sizeless; non-weak over weak;
 * GLOBAL over any other binding (GNU_UNIQUE and LOCAL alike); fewer leading
 * underscores; the LONGER name ("__memmove_avx512_unaligned_erms" over
 * "__memcpy_avx512_unaligned_erms", "pthread_mutex_lock@@GLIBC_2.2.5" over
 * "pthread_mutex_lock"); the first in table order. A total order, so the
 * least of a group is what perf's pairwise elimination keeps.
 *
 * sized: perf gives a sizeless symbol the extent up to the next symbol
 * (symbols__fixup_end) before it drops aliases, one table at a time
 * (.symtab, then .dynsym): so a symbol counts as sized when its size is
 * not 0 or it is the last of its table at its address.
 */
int symname_cmp(const struct symname_cand *a, const struct symname_cand *b);

/* The ELF binding perf gives a kallsyms type letter: 'W' weak, other
 * upper case global, lower case local. */
uint8_t symname_kbind(char type);

#endif
