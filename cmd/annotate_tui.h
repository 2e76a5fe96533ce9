/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The annotate view (perf annotate's TUI browser) over the annotate model, and what zt
 * annotate's text output and the view share: percentages as perf's --percent-type. */
#ifndef ZT_ANNOTATE_TUI_H
#define ZT_ANNOTATE_TUI_H

#include "symbolizer/annotate.h"

enum ann_percent { ANN_LOCAL_PERIOD, ANN_GLOBAL_PERIOD, ANN_LOCAL_HITS, ANN_GLOBAL_HITS };

/* "local period", ...: perf's words for the header. */
const char *ann_percent_name(enum ann_percent p);
/* Parse "local-period", "global-period", "local-hits", "global-hits". 0 or -EINVAL. */
int ann_percent_parse(const char *s, enum ann_percent *p);
/* Instruction i's share in a as p asks. */
double ann_insn_percent(const struct annotation *a, size_t i, enum ann_percent p);

/* A source line as perf shows it: trimmed, tabs expanded, control
 * characters replaced; into out (n bytes). */
void ann_source_text(const char *in, char *out, size_t n);
/* The same with its indentation kept (tabs expanded to columns of 8): a
 * Python source line. */
void ann_source_line(const char *in, char *out, size_t n);

struct annotate_view_opts {
	const char *event; /* for the title, or NULL */
	enum ann_percent percent;
	int source; /* source lines shown at first */
	/* Enter on a call annotates the function it calls (perf's browser),
	 * found in ap, else in prof's module by name, built with ao; all
	 * borrowed. NULL ap: calls are not followed. */
	const struct ann_profile *ap;
	const struct profile *prof;
	const struct ann_opts *ao;
};

/*
 * Browse a in the started TUI (cmd/tui.h) until the user goes back (q,
 * Esc, Left: 0) or quits (Ctrl-C, a quit signal: 1). Enter follows a jump
 * inside the function, or opens the function a call goes to (Left comes
 * back); '/' and '?' search the lines forward and backward, 'n' again. The caller's redraw
 * function is set again by the caller afterwards. A negative errno on
 * ENOMEM.
 */
int annotate_view(struct annotation *a, const struct annotate_view_opts *o);

#endif
