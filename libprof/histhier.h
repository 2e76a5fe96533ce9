/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf report --hierarchy over a histogram without Children: each sort key
 * a level (comm, under each its dso, under each its sym), each level's
 * entries the sums of the entries below them, ordered as perf orders them.
 */
#ifndef ZT_HISTHIER_H
#define ZT_HISTHIER_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/hist.h"

struct histhier_row {
	const struct hist_entry *e; /* the entry whose key values the row shows (borrowed
				       from the hist): the first below it in perf's tree */
	uint64_t weight, nr;	    /* the Self weight and samples below it */
	unsigned depth;		    /* its level: the key h->keys[depth] */
	int leaf;		    /* the last level: e is the entry itself (its chain) */
	int empty;		    /* not a leaf, and every row under it is below the limit */
	size_t lo, hi;		    /* the entries below it: leaves[lo .. hi) */
};

/*
 * The rows of h (built without Children) in perf's --hierarchy order, each
 * parent before its children: at every level by s's sort list (Self, with
 * h->grp the other events' Self in turn, samples, keys; the keys compared
 * on each row's entry), then in perf's tree order. Entries without Self
 * (in any event, with h->grp) or that s's sym_filter hides are left out;
 * rows under percent_limit percent of total too, with their rows below.
 * *rows and *leaves (the entries, those below a row together) are
 * malloc()ed (free() them). 0 or -ENOMEM.
 */
int histhier_build(const struct hist *h, const struct hist_sortspec *s, double percent_limit,
		   uint64_t total, struct histhier_row **rows, size_t *n,
		   const struct hist_entry ***leaves);

#endif
