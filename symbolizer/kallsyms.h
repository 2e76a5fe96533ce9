/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel symbols from a /proc/kallsyms snapshot (text, as stored in zt.data):
 * "ADDR TYPE NAME [MODULE]" lines, sorted for lookup. Only text symbols
 * (t, T, w, W) are kept; zero addresses (kptr_restrict) make the table empty.
 */
#ifndef ZT_KALLSYMS_H
#define ZT_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct kallsyms;

/* Parse text (not NUL-terminated; len bytes). Bad lines are skipped.
 * Returns 0 or -ENOMEM. */
int kallsyms_parse(const char *text, size_t len, struct kallsyms **out);
void kallsyms_free(struct kallsyms *k);
size_t kallsyms_count(const struct kallsyms *k);

/* The symbol containing addr: name (borrowed), *off from its start, and
 * *module ("[kernel.kallsyms]" or "[name]" of a module, borrowed). NULL when
 * addr is below the first symbol or past the end of its module/kernel text. */
const char *kallsyms_lookup(const struct kallsyms *k, uint64_t addr, uint64_t *off,
			    const char **module);

/* The same by position: the index (in address order, from 0 to
 * kallsyms_count() - 1) of the symbol containing addr and *off from its
 * start, or -1; and the name and module of symbol i (borrowed). */
long kallsyms_find(const struct kallsyms *k, uint64_t addr, uint64_t *off);
const char *kallsyms_at(const struct kallsyms *k, size_t i, const char **module);

/* Whether module is the core kernel's, not a module's. */
int kallsyms_is_core(const char *module);

#endif
