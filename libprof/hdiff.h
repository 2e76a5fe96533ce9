/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model of perf diff: the histograms of two or more recordings (the
 * first the baseline) paired entry by entry on their sort keys, with each
 * other file's change against the baseline computed as perf diff does
 * (delta of the percentages, its absolute value, ratio of the periods, or
 * a weighted difference), and the rows in perf diff's order.
 */
#ifndef ZT_HDIFF_H
#define ZT_HDIFF_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/hist.h"

#define HDIFF_MAX_FILES 16

enum hdiff_compute {
	HDIFF_DELTA_ABS, /* perf's default: new% - old%, ordered by its absolute value */
	HDIFF_DELTA,	 /* new% - old% */
	HDIFF_RATIO,	 /* new period / old period */
	HDIFF_WDIFF,	 /* new period * w2 - old period * w1 */
};

struct hdiff_opts {
	enum hdiff_compute compute;
	int64_t w1, w2;	   /* HDIFF_WDIFF's weights */
	unsigned order;	   /* perf's -o: order first by this file's value (1..n-1); 0: by the
			      baseline's share first */
	int baseline_only; /* perf's -b: only the entries the baseline has */
};

/* One entry of the table: the same sort keys in each file. */
struct hdiff_row {
	const struct hist_entry *e[HDIFF_MAX_FILES]; /* in each file's histogram (the first
							of several), or NULL; e[0] NULL: not in
							the baseline (perf's "dummy") */
	uint64_t period[HDIFF_MAX_FILES]; /* the Self of the file's entries: perf diff takes
					     the addresses without a function of a module
					     (of any, without a dso key) as one */
	double delta[HDIFF_MAX_FILES];	  /* file i's share minus the baseline's, in percent */
	double ratio[HDIFF_MAX_FILES];	  /* file i's period over the baseline's (or over 1) */
	int64_t wdiff[HDIFF_MAX_FILES];
};

struct hdiff {
	size_t nr_files;
	const struct hist *h[HDIFF_MAX_FILES]; /* borrowed */
	uint64_t total[HDIFF_MAX_FILES];       /* what each file's percentages are of */
	struct hdiff_opts opts;
	struct hdiff_row *rows; /* in perf diff's order */
	size_t nr_rows;
};

/*
 * Pair the entries with Self of n histograms (2 <= n <= HDIFF_MAX_FILES,
 * the same sort keys; h[0] the baseline; borrowed, they must outlive d)
 * by the text of their keys (a function by its name, of any module; every
 * address without a function alike, as perf diff), compute each
 * other file's value against the baseline with totals[i] as file i's 100%,
 * and order the rows as perf diff: those with an entry in file o->order
 * first, by its value (best first; for ratio and wdiff rows the baseline
 * lacks last), then by the baseline's period, each file's value, and the
 * keys' text. 0, -EINVAL (bad n, order or keys), or -ENOMEM.
 */
int hdiff_build(struct hdiff *d, const struct hist *const *h, const uint64_t *totals, size_t n,
		const struct hdiff_opts *o);
void hdiff_release(struct hdiff *d);

/* The row's entry in the first file that has one, and that file's index
 * in *file (may be NULL): whose key texts the row shows. */
const struct hist_entry *hdiff_row_entry(const struct hdiff *d, const struct hdiff_row *r,
					 size_t *file);

/* A file's share of the row in percent (its period over its total; 0 where
 * it has no entry). */
double hdiff_percent(const struct hdiff *d, const struct hdiff_row *r, size_t file);

#endif
