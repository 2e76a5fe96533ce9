// SPDX-License-Identifier: GPL-2.0-or-later
/* perf's -e syntax for software, hardware and tracepoint events (see evsel.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libprof/evsel.h"

struct known {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* tools/perf/util/parse-events.c event_symbols_hw / _sw, names and aliases */
static const struct known known[] = {
	{"cpu-cycles", EVSEL_TYPE_HARDWARE, 0},
	{"cycles", EVSEL_TYPE_HARDWARE, 0},
	{"instructions", EVSEL_TYPE_HARDWARE, 1},
	{"cache-references", EVSEL_TYPE_HARDWARE, 2},
	{"cache-misses", EVSEL_TYPE_HARDWARE, 3},
	{"branch-instructions", EVSEL_TYPE_HARDWARE, 4},
	{"branches", EVSEL_TYPE_HARDWARE, 4},
	{"branch-misses", EVSEL_TYPE_HARDWARE, 5},
	{"bus-cycles", EVSEL_TYPE_HARDWARE, 6},
	{"stalled-cycles-frontend", EVSEL_TYPE_HARDWARE, 7},
	{"idle-cycles-frontend", EVSEL_TYPE_HARDWARE, 7},
	{"stalled-cycles-backend", EVSEL_TYPE_HARDWARE, 8},
	{"idle-cycles-backend", EVSEL_TYPE_HARDWARE, 8},
	{"ref-cycles", EVSEL_TYPE_HARDWARE, 9},
	{"cpu-clock", EVSEL_TYPE_SOFTWARE, 0},
	{"task-clock", EVSEL_TYPE_SOFTWARE, 1},
	{"page-faults", EVSEL_TYPE_SOFTWARE, 2},
	{"faults", EVSEL_TYPE_SOFTWARE, 2},
	{"context-switches", EVSEL_TYPE_SOFTWARE, 3},
	{"cs", EVSEL_TYPE_SOFTWARE, 3},
	{"cpu-migrations", EVSEL_TYPE_SOFTWARE, 4},
	{"migrations", EVSEL_TYPE_SOFTWARE, 4},
	{"minor-faults", EVSEL_TYPE_SOFTWARE, 5},
	{"major-faults", EVSEL_TYPE_SOFTWARE, 6},
	{"alignment-faults", EVSEL_TYPE_SOFTWARE, 7},
	{"emulation-faults", EVSEL_TYPE_SOFTWARE, 8},
	{"dummy", EVSEL_TYPE_SOFTWARE, 9},
};

#define NR_KNOWN (sizeof(known) / sizeof(known[0]))

static const char *const sw_names[] = {
	"cpu-clock",	    "task-clock",   "page-faults",  "context-switches",
	"cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy",	    "bpf-output",   "cgroup-switches",
};
static const char *const hw_names[] = {
	"cycles",
	"instructions",
	"cache-references",
	"cache-misses",
	"branches",
	"branch-misses",
	"bus-cycles",
	"stalled-cycles-frontend",
	"stalled-cycles-backend",
	"ref-cycles",
};

const char *evsel_builtin_name(uint32_t type, uint64_t config)
{
	if (type == EVSEL_TYPE_SOFTWARE && config < sizeof(sw_names) / sizeof(*sw_names))
		return sw_names[config];
	if (type == EVSEL_TYPE_HARDWARE && config < sizeof(hw_names) / sizeof(*hw_names))
		return hw_names[config];
	return NULL;
}

const char *evsel_known(uint32_t type)
{
	return type == EVSEL_TYPE_HARDWARE
		       ? "cycles, instructions, cache-references, cache-misses, branches, "
			 "branch-misses, bus-cycles, ref-cycles"
		       : "cpu-clock, task-clock, page-faults, context-switches, cpu-migrations, "
			 "minor-faults, major-faults, alignment-faults, emulation-faults";
}

/* A tracepoint system or event name: [A-Za-z0-9_]+ (perf allows a few
 * more characters, and * globs, which zt does not expand). */
static int tp_name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

/* The modifiers in m (perf's u k h p P G H, p up to three times). */
static int parse_mods(struct evsel *e, const char *m, char *err, size_t errlen)
{
	int u = 0, k = 0, h = 0, p = 0;
	const char *c;

	if (!*m) {
		snprintf(err, errlen, "empty modifier in '%s'", e->name);
		return -EINVAL;
	}
	for (c = m; *c; c++) {
		switch (*c) {
		case 'u':
			u = 1;
			break;
		case 'k':
			k = 1;
			break;
		case 'h':
			h = 1;
			break;
		case 'p':
			if (++p > 3)
				goto bad;
			break;
		case 'P':
		case 'G':
		case 'H':
			break;
		default:
			goto bad;
		}
	}
	e->modifiers = 1;
	if (u || k || h) {
		e->exclude_user = !u;
		e->exclude_kernel = !k;
		e->exclude_hv = !h;
	}
	return 0;
bad:
	snprintf(err, errlen,
		 "bad modifier '%s' in event '%s': use u (user), k (kernel), h, p, "
		 "P, G or H",
		 m, e->name);
	return -EINVAL;
}

/* One item of the list (n bytes at s). */
static int parse_one(const char *s, size_t n, struct evsel *e, char *err, size_t errlen)
{
	const char *colon, *mods = NULL;
	size_t en, i;

	memset(e, 0, sizeof(*e));
	if (n >= EVSEL_NAME_MAX) {
		snprintf(err, errlen, "event name '%.*s...' is too long", 32, s);
		return -EINVAL;
	}
	memcpy(e->name, s, n);
	e->name[n] = 0;
	if (!n) {
		snprintf(err, errlen, "empty event name");
		return -EINVAL;
	}
	if (strpbrk(e->name, "/{}=")) {
		snprintf(err, errlen,
			 "event '%s': PMU events (pmu/config/) and groups ({a,b}) are "
			 "not supported: give software events, hardware events or "
			 "tracepoints by name",
			 e->name);
		return -EINVAL;
	}
	colon = strchr(e->name, ':');
	en = colon ? (size_t)(colon - e->name) : n;
	for (i = 0; i < NR_KNOWN; i++) {
		if (strlen(known[i].name) == en && !strncmp(known[i].name, e->name, en)) {
			e->type = known[i].type;
			e->config = known[i].config;
			memcpy(e->event, e->name, en);
			e->event[en] = 0;
			if (colon)
				return parse_mods(e, colon + 1, err, errlen);
			return 0;
		}
	}
	if (colon && tp_name_ok(e->name, en)) {
		/* SYS:NAME[:mods] */
		const char *name = colon + 1, *c2 = strchr(name, ':');
		size_t nn = c2 ? (size_t)(c2 - name) : strlen(name);

		if (tp_name_ok(name, nn)) {
			e->type = EVSEL_TYPE_TRACEPOINT;
			memcpy(e->event, e->name, en + 1 + nn);
			e->event[en + 1 + nn] = 0;
			mods = c2 ? c2 + 1 : NULL;
			return mods ? parse_mods(e, mods, err, errlen) : 0;
		}
	}
	if (colon && strchr(e->name, '*')) {
		snprintf(err, errlen,
			 "tracepoint '%s': wildcards are not supported: name each "
			 "tracepoint (see 'perf list tracepoint')",
			 e->name);
		return -EINVAL;
	}
	snprintf(err, errlen,
		 "unknown event '%s': use a software event (%s), a hardware event "
		 "(%s) or a tracepoint SYS:NAME (see 'perf list')",
		 e->name, evsel_known(EVSEL_TYPE_SOFTWARE), evsel_known(EVSEL_TYPE_HARDWARE));
	return -EINVAL;
}

int evsel_parse(const char *spec, struct evsel *ev, size_t *nr, char *err, size_t errlen)
{
	const char *s = spec;

	if (errlen)
		err[0] = 0;
	if (!spec) {
		snprintf(err, errlen, "no event given");
		return -EINVAL;
	}
	for (;;) {
		const char *c = strchr(s, ',');
		size_t n = c ? (size_t)(c - s) : strlen(s);
		int ret;

		if (*nr >= EVSEL_MAX) {
			snprintf(err, errlen, "more than %d events", EVSEL_MAX);
			return -E2BIG;
		}
		ret = parse_one(s, n, &ev[*nr], err, errlen);
		if (ret)
			return ret;
		(*nr)++;
		if (!c)
			break;
		s = c + 1;
	}
	return 0;
}

static int read_id(const char *root, const char *sys, const char *name, uint64_t *id)
{
	char p[512], buf[32];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/events/%s/%s/id", root, sys, name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	*id = strtoull(buf, NULL, 10);
	return 0;
}

/* fn at root, or without one at the first of the usual tracefs mounts
 * that has an events directory and where fn finds what it wants. */
static int on_tracefs(const char *root, int (*fn)(const char *root, void *arg), void *arg)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	size_t i;
	int ret = -ENODEV;

	if (root)
		return fn(root, arg);
	for (i = 0; i < sizeof(roots) / sizeof(*roots); i++) {
		char p[256];

		snprintf(p, sizeof(p), "%s/events", roots[i]);
		if (access(p, F_OK)) {
			if (errno == EACCES) /* there, but not ours to read */
				ret = -EACCES;
			continue;
		}
		ret = fn(roots[i], arg);
		if (ret != -ENOENT)
			return ret;
	}
	return ret;
}

/* SYS and NAME of tracepoint e, in sys (EVSEL_NAME_MAX bytes) and *name. */
static int split_tracepoint(const struct evsel *e, char *sys, char **name)
{
	if (e->type != EVSEL_TYPE_TRACEPOINT)
		return -EINVAL;
	snprintf(sys, EVSEL_NAME_MAX, "%s", e->event);
	*name = strchr(sys, ':');
	if (!*name)
		return -EINVAL;
	*(*name)++ = 0;
	return 0;
}

struct id_arg {
	const char *sys, *name;
	uint64_t *id;
};

static int id_at(const char *root, void *arg)
{
	struct id_arg *a = arg;

	return read_id(root, a->sys, a->name, a->id);
}

int evsel_tracepoint_id(struct evsel *e, const char *root)
{
	char sys[EVSEL_NAME_MAX], *name;
	struct id_arg a;
	int ret = split_tracepoint(e, sys, &name);

	if (ret)
		return ret;
	a = (struct id_arg){sys, name, &e->config};
	return on_tracefs(root, id_at, &a);
}

#define FORMAT_MAX (1u << 20) /* a format file is a few KiB */

struct text_arg {
	const char *rel;
	char **text;
	size_t *len;
};

/* A tracefs file (its size reads as 0: read to the end). */
static int text_at(const char *root, void *arg)
{
	struct text_arg *a = arg;
	char p[512], *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd, ret = 0;

	snprintf(p, sizeof(p), "%s/%s", root, a->rel);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			if (cap > FORMAT_MAX || !(nb = realloc(buf, cap))) {
				ret = cap > FORMAT_MAX ? -EFBIG : -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (ret || !buf) {
		free(buf);
		return ret ? ret : -EIO;
	}
	buf[len] = 0;
	*a->text = buf;
	*a->len = len;
	return 0;
}

int evsel_tracefs_format(const struct evsel *e, const char *root, char **text, size_t *len)
{
	char sys[EVSEL_NAME_MAX], *name, rel[2 * EVSEL_NAME_MAX + 32];
	struct text_arg a = {rel, text, len};
	int ret;

	if (!e) {
		snprintf(rel, sizeof(rel), "events/header_page");
	} else {
		if ((ret = split_tracepoint(e, sys, &name)))
			return ret;
		snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	}
	return on_tracefs(root, text_at, &a);
}
