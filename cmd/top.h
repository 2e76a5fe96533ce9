/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt top's state, shared by its sampling loop and text output (top.c) and
 * its full-screen view (top_tui.c).
 */
#ifndef ZT_TOP_H
#define ZT_TOP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "cmd/symopts.h"
#include "cmd/target.h"
#include "libprof/toplive.h"

struct top {
	/* options */
	struct target tg; /* -a -p -t -C -e -F -c, and what they settle */
	int callgraph, children, hide_kernel, hide_user, zero, stdio, tui;
	int show_nr, quiet, demangle, entries;
	const char *sort;
	uint64_t count_filter;
	double delay, duration, percent_limit;
	struct symopts so;

	/* the sampling */
	struct live live;
	char event_name[64];
	char target[128];   /* "all, 2 CPUs", "pid 42", ... */
	uint64_t lost_total, lost_last; /* samples dropped: in all, in the last interval */
	uint64_t lost_events;
	uint64_t bpf_lost;  /* the BPF sampler's count at the last refresh */
	int live_err;       /* of feeding the model directly (the processes already there) */
	double secs;        /* the last interval's length */
	time_t when;        /* of the last refresh */
	int targets_gone;   /* -p/-t: every target exited */
	int epipe;          /* --stdio: the reader went away */

	/* what is shown (the TUI changes these) */
	uint32_t zoom_dso;  /* string id + 1 of the DSO zoomed into, 0: none */
	uint32_t zoom_comm; /* the same for a command */
	char filter[128];   /* only symbols containing this */
	unsigned print_n;   /* P: zt.hist.N files written */
};

/* The entries to show, best first, after the limits and filters: *rows
 * borrowed until the next refresh. 0 or -ENOMEM. */
int top_rows(struct top *t, const struct hist_entry ***rows, size_t *n);
/* The header line of a snapshot (samples/s, event, lost) into buf. */
void top_title(const struct top *t, char *buf, size_t size);
/* Print a snapshot as text: the title as a comment, then the table (at
 * most max rows, 0: all). */
void top_print(struct top *t, FILE *f, size_t max);
/* What tells entry e from the others under the sort keys, as text. */
void top_entry_id(const struct top *t, const struct hist_entry *e, char *buf, size_t size);
/* Column layout of the table for rows (widths per key, sized to fit cols,
 * 0: no limit), and the text of one row or of the header. */
struct top_cols {
	int width[HIST_MAX_KEYS];
	int comm_w;
};
void top_layout(const struct top *t, const struct hist_entry *const *rows, size_t n, int cols,
		struct top_cols *c);
void top_format_header(const struct top *t, const struct top_cols *c, char *buf, size_t size);
void top_format_row(const struct top *t, const struct top_cols *c, const struct hist_entry *e,
		    char *buf, size_t size);

/* The full-screen view. top_tui_start(): 0 or a negative errno (nothing
 * changed on the terminal). top_tui_wait(): keys for up to timeout_ms;
 * returns 1 when the user quits. top_tui_draw(): after a refresh.
 * top_tui_end(): the terminal back; returns the quit signal caught, or 0. */
int top_tui_start(struct top *t);
int top_tui_wait(struct top *t, int timeout_ms);
void top_tui_draw(struct top *t);
int top_tui_end(struct top *t);

#endif
