/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zt evlist: the events of a recording, as `perf evlist` prints them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"

/* What zt knows of an event: the table's entry, or a recording without
 * one its meta (the event, its frequency or period). */
struct ev {
	const char *name;
	uint32_t type;
	uint64_t config, period;
	int freq, has_type;
	uint32_t flags;
};

static void print_ev(const struct ev *e, int verbose, int freq)
{
	char name[512];
	int first = 1;

	prof_sanitize(name, sizeof(name), e->name ? e->name : "");
	fputs(name, stdout);
	/* perf's comma_fprintf(): ":" before the first field, "," before the others */
#define FIELD(...)                                \
	do {                                      \
		fputs(first ? ":" : ",", stdout); \
		first = 0;                        \
		printf(__VA_ARGS__);              \
	} while (0)
	if (verbose) {
		/* perf_event_attr__fprintf()'s order, the fields zt keeps */
		if (e->has_type)
			FIELD(" type: %" PRIu32, e->type);
		if (e->config)
			FIELD(" config: %#" PRIx64, e->config);
		if (e->period)
			FIELD(" { sample_period, sample_freq }: %" PRIu64, e->period);
		if (e->flags & PROF_EV_EXCL_USER)
			FIELD(" exclude_user: 1");
		if (e->flags & PROF_EV_EXCL_KERNEL)
			FIELD(" exclude_kernel: 1");
		if (e->freq)
			FIELD(" freq: 1");
	} else if (freq) {
		FIELD(" %s=%" PRIu64, e->freq ? "sample_freq" : "sample_period", e->period);
	}
#undef FIELD
	putchar('\n');
}

static const char *const evlist_usage[] = {
	"zt evlist [<options>]",
	NULL,
};

/* Each event of the recording, a line each: perf.data's every attr (its
 * dummies too), zt.data's events, or the one event of an older zt.data. */
static void print_events(const struct profile *p, int verbose, int freq)
{
	const char *list;
	size_t i;

	if ((list = profile_get_meta(p, "evlist"))) {
		/* perf.data: every attr, perf's dummies too */
		while (*list) {
			char name[256];
			unsigned long long type, config, period;
			unsigned flags;
			const char *nl = strchr(list, '\n');
			size_t n = nl ? (size_t)(nl - list) : strlen(list);

			if (sscanf(list, "%255[^\t]\t%llu\t%llu\t%llu\t%u", name, &type, &config,
				   &period, &flags) == 5) {
				struct ev e = {name,   (uint32_t)type,		 config,
					       period, !!(flags & PROF_EV_FREQ), 1,
					       flags};

				print_ev(&e, verbose, freq);
			}
			list += n + (nl != NULL);
		}
	} else if (p->nr_events) {
		for (i = 0; i < p->nr_events; i++) {
			const struct prof_event *pe = &p->events[i];
			struct ev e = {pe->name,
				       pe->type,
				       pe->config,
				       pe->period,
				       !!(pe->flags & PROF_EV_FREQ),
				       1,
				       pe->flags};

			print_ev(&e, verbose, freq);
		}
	} else {
		const char *f = profile_get_meta(p, "freq"), *per = profile_get_meta(p, "period");
		struct ev e = {.name = profile_get_meta(p, "event")};

		e.freq = f && strcmp(f, "0");
		e.period = strtoull(e.freq ? f : per ? per : "0", NULL, 10);
		print_ev(&e, verbose, freq);
	}
}

int cmd_evlist(int argc, char **argv)
{
	const char *input = NULL;
	int verbose = 0, freq = 0, force = 0, rest, ret;
	const struct opt opts[] = {
		{OPT_STRING, 'i', "input", &input, "file",
		 "input file name: zt.data or perf.data (default: zt.data, or standard input when "
		 "it is a pipe)"},
		{OPT_COUNT, 'v', "verbose", &verbose, NULL,
		 "show the event's settings that the recording keeps"},
		{OPT_BOOL, 'F', "freq", &freq, NULL, "show the sample frequency (or period)"},
		{OPT_BOOL, 'f', "force", &force, NULL, "read the readable part of a damaged file"},
		OPT_EOL,
	};
	struct symopts so = {0};
	struct session s;

	ret = opts_parse("evlist", evlist_usage, opts, argc, argv, &rest);
	cmd_setup("evlist", 0);
	if (ret == OPTS_HELP)
		return ZT_EXIT_OK;
	if (ret == OPTS_ERROR)
		return ZT_EXIT_USAGE;
	if (rest < argc) {
		cmd_error("unexpected argument '%s': the input is given with -i", argv[rest]);
		return ZT_EXIT_USAGE;
	}
	if (!input)
		input = cmd_default_input();
	if (symopts_init(&so, "evlist"))
		return ZT_EXIT_FAIL;
	if (cmd_open_session_events(&s, input, &so, force, NULL, 1, 1)) {
		symopts_release(&so);
		return ZT_EXIT_FAIL;
	}
	print_events(&s.prof, verbose, freq);
	session_close(&s);
	symopts_release(&so);
	return ZT_EXIT_OK;
}
