// SPDX-License-Identifier: GPL-2.0-or-later
/* The -e and --filter callbacks of a live sampler's options (see targetopts.h). */
#include <errno.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/targetopts.h"

int target_opt_event(const struct opt *o, const char *arg)
{
	struct target *t = o->value;

	if (t->nr_event_args >= EVSEL_MAX) {
		fprintf(stderr, "zt: at most %d -e options\n", EVSEL_MAX);
		return -1;
	}
	t->event_args[t->nr_event_args++] = arg;
	return 0;
}

int target_opt_filter(const struct opt *o, const char *arg)
{
	struct target *t = o->value;

	if (!t->nr_event_args) {
		fprintf(stderr, "zt record: --filter goes after the -e tracepoint it filters "
				"(-e sched:sched_switch --filter 'prev_pid != 0')\n");
		return -1;
	}
	t->filter_args[t->nr_event_args - 1] = arg;
	return 0;
}

int target_ids_exit(int err)
{
	return !err ? ZT_EXIT_OK : err == -EINVAL ? ZT_EXIT_USAGE : ZT_EXIT_FAIL;
}
