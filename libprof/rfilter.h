/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sample filters as perf report's and perf script's --comm, --pid, --tid,
 * --dsos, --symbols, --cpu and --time: the parsing of their values and the
 * verdict on one sample, shared by zt report (through the report model),
 * zt flame and zt script, so every command filters alike.
 */
#ifndef ZT_RFILTER_H
#define ZT_RFILTER_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"

/* One --time range: seconds (absolute ns, 0 = open), or percents of the
 * samples' time span (pct set: a and b in 0..1, resolved at each use). */
struct rtime {
	uint64_t start, end;
	double a, b;
	int pct;
};

/* Which samples to show. --comm, --pid, --tid, --dso and --symbols (by the
 * sample's own function: its innermost frame that is not inlined) hide
 * samples but keep them in the total (percentages stay of everything);
 * --cpu and --time leave them out. Empty lists select everything. Strings
 * and ranges are owned (rfilter_release). */
struct rfilter {
	char **comms;
	size_t nr_comms;
	uint32_t *pids, *tids;
	size_t nr_pids, nr_tids;
	char **dsos, **syms;
	size_t nr_dsos, nr_syms;
	/* -S entries that read as hexadecimal numbers: sample addresses
	 * (with perf script's --addr-range, 0: the address only), and as
	 * they were typed (a function "add" is still found by its name) */
	uint64_t *addrs;
	char **addr_strs;
	size_t nr_addrs;
	uint64_t addr_range;
	uint32_t *cpus;
	size_t nr_cpus;
	/* --time: every range (a sample in any of them is kept) */
	struct rtime *times;
	size_t nr_times;
	/* the first range, for display: absolute ns (0 = open), or its
	 * percents (negative = unused) */
	uint64_t time_start, time_end;
	double pct_start, pct_end;
};

void rfilter_init(struct rfilter *f);
void rfilter_release(struct rfilter *f);
/* Parse option values (comma separated lists, appended to what is there).
 * Each returns 0, or -EINVAL with a message for the user in err. */
int rfilter_add_strs(char ***list, size_t *nr, const char *arg, char *err, size_t errlen);
int rfilter_add_ids(uint32_t **list, size_t *nr, const char *arg, char *err, size_t errlen);
/* -S/--symbols as perf 6.1 takes it (util/symbol.c setup_addrlist()): an
 * entry that reads whole as a hexadecimal number ("0x" or not, spaces
 * around it allowed) is a sample address (in addrs, not in syms), any
 * other a function name. perf takes a name such as "add" or "f1" for an
 * address only; zt also finds the function of that name. */
int rfilter_add_syms(struct rfilter *f, const char *arg, char *err, size_t errlen);
/* --cpu: "0,2-3" */
int rfilter_add_cpus(struct rfilter *f, const char *arg, char *err, size_t errlen);
/*
 * --time as perf 6.1 takes it (util/time-utils.c), replacing what was set:
 *   "START,END"            seconds.nanoseconds as perf script prints them,
 *                          either may be empty (open)
 *   "A,B C,D"              several such ranges, separated by spaces, in
 *                          order and not overlapping
 *   "A%-B%[,C%-D%...]"     percents of the samples' time span
 *   "P%/N[,P%/M...]"       the Nth slice of P% of the span
 *   "P%"                   the first P% (P%/1)
 * A sample in any range is kept; a sample at time 0 always is.
 */
int rfilter_set_time(struct rfilter *f, const char *arg, char *err, size_t errlen);
/* Every --time range of f as text into buf (size n > 0; "" without):
 * "START,END" in seconds (6 to 9 decimals, an open end empty), several
 * separated by spaces, or "A%-B%", several separated by commas, as perf's
 * --time takes them. Cut to fit. */
void rfilter_time_text(const struct rfilter *f, char *buf, size_t n);
/* Whether the filter selects anything less than everything. */
int rfilter_active(const struct rfilter *f);

enum { RFILTER_SHOW = 0, RFILTER_HIDE = 1, RFILTER_DROP = 2 };

/* The time of a percent range of the span first..last, as perf rounds it. */
void rfilter_time_range(const struct rtime *t, uint64_t first, uint64_t last, uint64_t *start,
			uint64_t *end);
/* Whether something from start to end (ns; both 0: no time, it passes)
 * overlaps a range of --time over the span first..last of the samples
 * (a range of percents from 0% or to 100% goes on past the span). */
int rfilter_time_overlap(const struct rfilter *f, uint64_t start, uint64_t end, uint64_t first,
			 uint64_t last);
/* Whether time ts passes --time over the span first..last of the samples. */
int rfilter_time_pass(const struct rfilter *f, uint64_t ts, uint64_t first, uint64_t last);
/*
 * The verdict on sample s of thread name comm (NULL: unknown) by --cpu and
 * --time (RFILTER_DROP), then --pid, --tid and --comm (RFILTER_HIDE);
 * first and last: the samples' time span (for percents). --dsos and
 * --symbols are rfilter_leaf()'s.
 */
int rfilter_sample(const struct rfilter *f, const struct prof_sample *s, const char *comm,
		   uint64_t first, uint64_t last);
/* Whether a sample whose own function is sym (NULL: none) in module dso
 * (its short name, "libc.so.6"; path: its file, or NULL) passes --dsos and
 * --symbols. A name "f (inlined)" matches f. */
int rfilter_leaf(const struct rfilter *f, const char *dso, const char *path, const char *sym);
/* The same for a sample at address ip, which -S's addresses select (perf
 * machine__resolve(): the function's name is in the list, or else the
 * address is, or is within --addr-range bytes above one of the list).
 * mapped: whether ip is in a mapping (perf matches no address outside). */
int rfilter_leaf_at(const struct rfilter *f, const char *dso, const char *path, const char *sym,
		    uint64_t ip, int mapped);
/* Whether the filter has --dsos or --symbols. */
int rfilter_has_leaf(const struct rfilter *f);

#endif
