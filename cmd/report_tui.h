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
	const struct symmod_opts *symmod; /* symbol sources, for annotations (NULL: defaults) */
	const char *vmlinux;       /* -k: kernel code for annotations, or NULL */
};

/* Browse m (built with o->mo) until the user quits. Restores the terminal
 * on every way out, a fatal signal included. Returns an exit code (0, or 1
 * after an error message). */
int report_tui(struct rmodel *m, const struct report_tui_opts *o);

#endif
