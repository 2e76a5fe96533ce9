/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event selection: perf's -e syntax for the events zt samples. A list is
 * comma separated (several -e add to it); each item is a software or
 * hardware event name (perf's names and aliases: cpu-clock, page-faults,
 * cs, cycles, ...) or a tracepoint SYS:NAME, optionally followed by
 * modifiers after a colon: u (user only), k (kernel only), h, p, P, G, H,
 * as perf: u, k or h given excludes the levels not given. PMU syntax
 * (cpu/.../), groups ({a,b}), raw events (rNNN) and numeric type:config
 * are not supported.
 *
 * The parser knows names, not the machine: a tracepoint's id comes from
 * evsel_tracepoint_id() (tracefs), and whether the machine has the event
 * is for perf_event_open() to say.
 */
#ifndef ZT_EVSEL_H
#define ZT_EVSEL_H

#include <stddef.h>
#include <stdint.h>

#define EVSEL_NAME_MAX 128
#define EVSEL_MAX      32 /* events in one list */

/* perf_event_attr.type values (linux/perf_event.h), without the header */
#define EVSEL_TYPE_HARDWARE   0
#define EVSEL_TYPE_SOFTWARE   1
#define EVSEL_TYPE_TRACEPOINT 2

struct evsel {
	char name[EVSEL_NAME_MAX];  /* as given, modifiers included: "page-faults:u" */
	char event[EVSEL_NAME_MAX]; /* without the modifiers: "page-faults", "sched:sched_switch" */
	uint32_t type;		    /* EVSEL_TYPE_* */
	uint64_t config;	    /* PERF_COUNT_HW_* / PERF_COUNT_SW_*; a tracepoint's id
				       once evsel_tracepoint_id() set it */
	int exclude_user, exclude_kernel, exclude_hv;
	int modifiers; /* the name has modifiers */
};

/*
 * Parse spec (a comma-separated list) and append its events to ev (room
 * for EVSEL_MAX, *nr used). Returns 0, or -EINVAL with err naming the
 * item and what is wrong (unknown event, bad modifier, unsupported
 * syntax), -E2BIG past EVSEL_MAX events.
 */
int evsel_parse(const char *spec, struct evsel *ev, size_t *nr, char *err, size_t errlen);

/* Whether the item is a tracepoint (SYS:NAME). */
static inline int evsel_is_tracepoint(const struct evsel *e)
{
	return e->type == EVSEL_TYPE_TRACEPOINT;
}

/*
 * The id of tracepoint e under the tracefs directory root (NULL: the
 * first of /sys/kernel/tracing and /sys/kernel/debug/tracing that has an
 * events directory) into e->config. 0, -ENOENT (no such tracepoint),
 * -EACCES (tracefs there but not readable), or -ENODEV (no tracefs).
 */
int evsel_tracepoint_id(struct evsel *e, const char *root);

/*
 * The tracefs text that says how tracepoint e's raw records are laid out
 * (events/SYS/NAME/format), or with e NULL the ring buffer's page header
 * (events/header_page), from root as for evsel_tracepoint_id(). *text is
 * malloc'ed and NUL-terminated, *len bytes. 0 or a negative errno (as
 * evsel_tracepoint_id(); -EFBIG past 1 MiB).
 */
int evsel_tracefs_format(const struct evsel *e, const char *root, char **text, size_t *len);

/* perf's name of a software or hardware event (type, config), or NULL. */
const char *evsel_builtin_name(uint32_t type, uint64_t config);

/* The names evsel_parse() knows, for messages: "cpu-clock, task-clock, ..."
 * of type (EVSEL_TYPE_SOFTWARE or _HARDWARE). */
const char *evsel_known(uint32_t type);

#endif
