/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening a recording for a command: its session, with its symbol options and progress. */
#ifndef ZT_INPUT_H
#define ZT_INPUT_H

#include "cmd/cmd.h"
#include "cmd/symopts.h"
#include "session/session.h"

/* Open path as a session (session_open) with so's symbol options (so
 * initialized by symopts_init: sources, kernel symbol files,
 * --full-signature), -f/--force, --event (NULL: the first) and demangling
 * on or off; progress lines on a terminal. 0, or -1 after a message (s is
 * released). */
int cmd_open_session(struct session *s, const char *path, const struct symopts *so, int force,
		     const char *event, int demangle);
/* The same, with every event's samples when no event is named and all
 * is set (session_opts.all_events). */
int cmd_open_session_events(struct session *s, const char *path, const struct symopts *so,
			    int force, const char *event, int demangle, int all);

/* The recording read when no -i is given: standard input ("-") when it is
 * a pipe (perf's rule: `zt record -o - | zt report`), else zt.data. */
const char *cmd_default_input(void);

#endif
