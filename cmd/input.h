/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening a recording for a command: its session, with its symbol options and progress. */
#ifndef ZT_INPUT_H
#define ZT_INPUT_H

#include "cmd/cmd.h"
#include "cmd/symopts.h"
#include "libprof/rfilter.h"
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

/* A session opened with every event (cmd_open_session_events(), all set)
 * for a command that shows one: with several, keep the first, and say so
 * in a note naming the others and how to pick one (option: "--event"). */
void cmd_first_event(struct session *s, const char *option);

/* The recording read when no -i is given: standard input ("-") when it is
 * a pipe (perf's rule: `zt record -o - | zt report`), else zt.data. */
const char *cmd_default_input(void);

/* The filter options' values (NULL: not given), as perf report and perf
 * script take them. */
struct cmd_filter_args {
	const char *comm, *pid, *tid, *dso, *symbols, *cpu, *time;
};
/* Parse them into f (initialized here): 0, or -1 after a message. */
int cmd_filters(struct rfilter *f, const struct cmd_filter_args *a);

/* perf refuses -C on a recording whose samples have no CPU: 0, or -1
 * after a message saying so. */
int cmd_check_cpu_filter(const struct session *s, const struct rfilter *f);

/*
 * perf's header info (perf report --header-only): "# captured on : ...",
 * hostname, os release, version, arch, CPUs, CPU description, memory, the
 * command line, the event, the first and last samples' times, the
 * modules' build ids ("# build id : HEX PATH"), from s's
 * meta (zt.data: zt record's, with zt's own names where perf's do not
 * apply), then the recording's other meta data as "# key : value".
 * Between "# ========" lines, then "#".
 */
void cmd_print_header(const struct session *s);

#endif
