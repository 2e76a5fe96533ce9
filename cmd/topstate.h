/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt top's state: what its sampling loop (top.c) builds and what its views
 * (top_tui.h: the table as text, the full screen) show. The views read it
 * and change what is shown; they call nothing of top.c.
 */
#ifndef ZT_TOPSTATE_H
#define ZT_TOPSTATE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cmd/symopts.h"
#include "cmd/targetopts.h"
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

#endif
