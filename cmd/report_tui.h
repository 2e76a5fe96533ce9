/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zt report's interactive browser (perf report's TUI) over the report model. */
#ifndef ZT_REPORT_TUI_H
#define ZT_REPORT_TUI_H

#include "libprof/rmodel.h"
#include "symbolizer/symmod.h"

struct report_tui_opts {
	struct rmodel_opts mo;     /* what m was last built with; the browser rebuilds
				      m with other keys (s) or zoom filters (t, d) */
	const struct rfilter *filter; /* the user's filters (borrowed); zooms add to a copy */
	double percent_limit;      /* --percent-limit: entries below are hidden */
	double chain_min_percent;  /* -g graph,0.5: chain branches below are hidden */
	const char *input;         /* file name, for the title and the status bar */
	const char *event;         /* the event name, or NULL */
	int event_idx;             /* with several events: the one browsed (annotations
				      count its samples only); -1: every sample */
	const struct symmod_opts *symmod; /* symbol sources, for annotations (NULL: defaults) */
	const char *vmlinux;       /* -k: kernel code for annotations, or NULL */
};

/* Browse m (built with o->mo) until the user quits. Restores the terminal
 * on every way out, a fatal signal included. Returns an exit code (0, or 1
 * after an error message). */
int report_tui(struct rmodel *m, const struct report_tui_opts *o);

/*
 * A profile with several events (perf report's TUI): first perf's menu
 * "Available samples", one line per event with its number of samples
 * ("1K cpu-clock"); Enter or Right browses that event's entries (its
 * model made then, rmodel_init_event() built with o->mo); there Esc or
 * Left (not zoomed) goes back to the menu, Tab and Shift-Tab to the next
 * and previous event, q quits. Esc in the menu asks before quitting.
 * rs is borrowed (the session's stacks). An exit code, as report_tui().
 */
int report_tui_events(const struct rstacks *rs, const struct report_tui_opts *o);

#endif
