/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options of a live sampler (zt record, zt top) for its struct target
 * (record/target.h): -p -t -C -e -F in an option table, and the callbacks
 * of -e and --filter.
 */
#ifndef ZT_CMD_TARGETOPTS_H
#define ZT_CMD_TARGETOPTS_H

#include "cmd/opts.h"
#include "record/target.h"

/* -p -t -C -e -F of a command's option table, for struct target tg; verb
 * ("record", "profile") starts the help of -p and -t. -a and -c, whose help
 * differs between commands, are the command's own (&tg.all_cpus, &tg.period). */
#define TARGET_OPTIONS(tg, verb)                                                                \
	{ OPT_STRING, 'p', "pid", &(tg).pids, "pid",                                            \
	  verb " events on existing process IDs (comma separated list)" },                      \
	{ OPT_STRING, 't', "tid", &(tg).tids, "tid",                                            \
	  verb " events on existing thread IDs (comma separated list)" },                       \
	{ OPT_STRING, 'C', "cpu", &(tg).cpu_list, "cpu", "list of CPUs to monitor (0-3,5)" },   \
	{ OPT_CALLBACK, 'e', "event", &(tg), "event",                                           \
	  "event to sample: cycles (default, cpu-clock where there is no PMU), cpu-clock, "     \
	  "task-clock, software events (page-faults, context-switches, ...), hardware events, " \
	  "tracepoints (sched:sched_switch), with :u or :k; several -e or a comma list",      \
	  target_opt_event },                                                                   \
	{ OPT_STRING, 'F', "freq", &(tg).freq_str, "freq",                                      \
	  "profile at this frequency (Hz, or 'max'; default 4000)" }

/* -e's callback: keeps arg for target_parse_event(). */
int target_opt_event(const struct opt *o, const char *arg);
/* --filter's callback (o->value: the struct target): the filter of the -e
 * before it (perf's rule: of the last event that -e gives), for
 * target_parse_event(); -1 after a message when no -e came before. */
int target_opt_filter(const struct opt *o, const char *arg);

/* target_parse_ids()'s result as an exit code: ZT_EXIT_OK, ZT_EXIT_USAGE
 * (a bad list) or ZT_EXIT_FAIL. */
int target_ids_exit(int err);

#endif
