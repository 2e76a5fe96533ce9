/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The part of /proc/kallsyms a recording needs: for each kernel address
 * that was sampled, the text symbol containing it and the one after it (its
 * end), plus _text/_etext. Keeps zt.data small: the full table is ~10 MB.
 */
#ifndef ZT_KSUBSET_H
#define ZT_KSUBSET_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/zbuf.h"

/* Append to out the kallsyms lines (same text format, in their order in
 * text) needed for the n addresses in ips (any order, duplicates allowed).
 * Returns 0 or -ENOMEM. */
int kallsyms_subset(const char *text, size_t len, const uint64_t *ips, size_t n, struct zbuf *out);

/* The text symbol lines of a kallsyms text, sorted by address (stable),
 * appended to out: what kallsyms_subset_sorted() reads. */
int kallsyms_sorted_text(const char *text, size_t len, struct zbuf *out);

/* The same over text whose lines are all text symbols sorted by address
 * (the per-boot cache of kcache.c): a bisection per address instead of a
 * pass over the whole text. */
int kallsyms_subset_sorted(const char *text, size_t len, const uint64_t *ips, size_t n,
			   struct zbuf *out);

#endif
