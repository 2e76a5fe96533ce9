/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt report: a recording's functions by overhead, with perf's Children and
 * Self columns and call chains under each entry, as text like `perf report
 * --stdio`, or browsed in a TUI like perf report's.
 */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"
#include "cmd/report_gpu_tui.h"
#include "cmd/report_tui.h"
#include "libprof/rmodel.h"
#include "cmd/symopts.h"
#include "libprof/array.h"
#include "libprof/gpureport.h"
#include "libprof/histhier.h"
#include "libprof/profile.h"

/* perf's -g: how call chains print under entries. */
enum chain_mode { CHAIN_NONE, CHAIN_GRAPH, CHAIN_FLAT, CHAIN_FOLDED, CHAIN_FRACTAL };
enum chain_value { VAL_PERCENT, VAL_PERIOD, VAL_COUNT };

/* Output columns besides the sort keys (perf's -F fields). */
enum col {
	COL_OVERHEAD,
	COL_CHILDREN,
	COL_SAMPLE,
	COL_PERIOD,
	COL_KEY, /* + enum hist_key */
};
#define MAX_COLS 16

struct report {
	const char *input, *sort, *fields, *event, *callgraph;
	const char *comm, *pid, *tid, *dso, *symbols, *time, *cpu;
	int children, quiet, force, header, header_only, stdio, tui, demangle, inline_frames;
	int show_nr, show_period, inverted, gpu;
	int max_stack, hide_unresolved, threads, stats, mmaps, tasks;
	const char *ignore_callees, *parent;
	const char *symbol_filter, *percentage, *objdump;
	int ignore_vmlinux, group, hierarchy;
	int exclude_other, have_re, have_ignore;
	regex_t parent_re, ignore_re;
	struct symopts so;
	double percent_limit;
	/* call chains */
	enum chain_mode mode;
	double chain_min;     /* percent */
	unsigned print_limit; /* chain entries per level, 0: all */
	int order;	      /* HIST_CHAIN_CALLER / CALLEE, 0: perf's default */
	enum chain_value value;
	/* columns */
	int cols[MAX_COLS];
	unsigned nr_cols;
	unsigned nr_sort_keys; /* of mo.keys, those of --sort (with -F: others are -F's) */
	struct rmodel_opts mo;
	struct rfilter filt;
	struct session ses;
	struct rmodel m;
	int width[MAX_COLS];
	int elide_none; /* perf: every key column would be elided, so none is */
	uint64_t total; /* what percentages are of (--percentage) */
	char *line; /* of chain lines: scratch */
	size_t line_cap;
	/* one section per event (several events, --stdio) */
	int section;	    /* the section being printed, from 0 */
	uint32_t ev;	    /* its event */
	struct grpview *gv; /* --group of several events: their columns; NULL: none */
};

/* perf's --group of several events: one table over the entries of them
 * all (m, over every sample), each value column a column per event */
struct grpview {
	unsigned nev;
	struct rmodel *ev;		/* each event's own model */
	const struct hist_entry **lead; /* per entry of m: the first event's alike, or NULL */
	uint64_t *self, *children, *nr; /* [entry * nev + event] */
	uint64_t *tie;			/* hist.grp: the other events' Self */
	uint64_t *tot;			/* per event: its total */
	uint64_t sum_total, sum_nr;	/* of every event */
	char *name;			/* "cpu-clock, task-clock" */
};

/* ---- options ---- */

static int parse_key(const char *tok, enum hist_key *k)
{
	return hist_key_parse(tok, k);
}

static int add_key(struct report *r, enum hist_key k)
{
	unsigned i;

	for (i = 0; i < r->mo.nr_keys; i++)
		if (r->mo.keys[i] == k)
			return 0;
	if (r->mo.nr_keys >= HIST_MAX_KEYS)
		return -1;
	r->mo.keys[r->mo.nr_keys++] = k;
	return 0;
}

static int parse_sort(struct report *r)
{
	char *list = strdup(r->sort), *tok, *save = NULL;
	int ret = 0;

	if (!list)
		return -ENOMEM;
	for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		enum hist_key k;

		if (parse_key(tok, &k)) {
			cmd_error("unknown sort key '%s': use comm, pid (or tid), tgid, dso, sym, "
				  "srcline, cpu, symq or parent",
				  tok);
			ret = -EINVAL;
			break;
		}
		add_key(r, k);
	}
	if (!ret && !r->mo.nr_keys) {
		cmd_error(
			"--sort needs at least one key: comm, pid, tid, dso, sym, srcline or cpu");
		ret = -EINVAL;
	}
	free(list);
	return ret;
}

static int uses_parent(const struct report *r)
{
	unsigned i;

	for (i = 0; i < r->mo.nr_keys; i++)
		if (r->mo.keys[i] == HIST_KEY_PARENT)
			return 1;
	return 0;
}

/* -F: output fields; sort keys among them are the sort keys unless --sort. */
static int parse_fields(struct report *r)
{
	char *list = strdup(r->fields), *tok, *save = NULL;
	int ret = 0;

	if (!list)
		return -ENOMEM;
	r->nr_cols = 0;
	for (tok = strtok_r(list, ", ", &save); tok && !ret; tok = strtok_r(NULL, ", ", &save)) {
		enum hist_key k;
		int c;

		if (!strcmp(tok, "overhead"))
			c = COL_OVERHEAD;
		else if (!strcmp(tok, "overhead_children"))
			c = COL_CHILDREN;
		else if (!strcmp(tok, "sample"))
			c = COL_SAMPLE;
		else if (!strcmp(tok, "period"))
			c = COL_PERIOD;
		else if (!parse_key(tok, &k)) {
			/* perf: -F's keys are the entries' keys too (their sort list) */
			c = COL_KEY + (int)k;
			add_key(r, k);
		} else {
			cmd_error("unknown field '%s': use overhead, overhead_children, sample, "
				  "period "
				  "or a sort key (comm, pid, tid, dso, sym, srcline, cpu)",
				  tok);
			ret = -EINVAL;
			break;
		}
		if (r->nr_cols < MAX_COLS)
			r->cols[r->nr_cols++] = c;
	}
	free(list);
	if (!ret && !r->nr_cols) {
		cmd_error("-F needs at least one field");
		ret = -EINVAL;
	}
	return ret;
}

/* The columns when -F is not given: perf's. */
static void default_cols(struct report *r)
{
	unsigned i;

	r->nr_cols = 0;
	if (r->mo.children)
		r->cols[r->nr_cols++] = COL_CHILDREN;
	r->cols[r->nr_cols++] = COL_OVERHEAD;
	if (r->show_nr)
		r->cols[r->nr_cols++] = COL_SAMPLE;
	if (r->show_period)
		r->cols[r->nr_cols++] = COL_PERIOD;
	for (i = 0; i < r->mo.nr_keys && r->nr_cols < MAX_COLS; i++)
		r->cols[r->nr_cols++] = COL_KEY + (int)r->mo.keys[i];
}

/* -g / --call-graph: graph|flat|folded|fractal|none, min percent, print
 * limit, caller|callee, function, percent|period|count, in any order. */
static int parse_callgraph(struct report *r, const char *arg)
{
	char *list = strdup(arg), *tok, *save = NULL;
	int nums = 0, ret = 0;

	if (!list)
		return -ENOMEM;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double v;

		if (!strcmp(tok, "graph"))
			r->mode = CHAIN_GRAPH;
		else if (!strcmp(tok, "flat"))
			r->mode = CHAIN_FLAT;
		else if (!strcmp(tok, "folded"))
			r->mode = CHAIN_FOLDED;
		else if (!strcmp(tok, "fractal"))
			r->mode = CHAIN_FRACTAL;
		else if (!strcmp(tok, "none"))
			r->mode = CHAIN_NONE;
		else if (!strcmp(tok, "caller"))
			r->order = HIST_CHAIN_CALLER;
		else if (!strcmp(tok, "callee"))
			r->order = HIST_CHAIN_CALLEE;
		else if (!strcmp(tok, "function"))
			;
		else if (!strcmp(tok, "percent"))
			r->value = VAL_PERCENT;
		else if (!strcmp(tok, "period"))
			r->value = VAL_PERIOD;
		else if (!strcmp(tok, "count"))
			r->value = VAL_COUNT;
		else if ((v = strtod(tok, &end)), end != tok && !*end && v >= 0 && nums < 2) {
			if (!nums++)
				r->chain_min = v;
			else
				r->print_limit = (unsigned)v;
		} else {
			cmd_error(
				"bad -g/--call-graph part '%s': use graph, flat, folded, fractal "
				"or none, "
				"a minimum percent, caller or callee, and percent, period or count",
				tok);
			ret = -EINVAL;
			break;
		}
	}
	free(list);
	return ret;
}

/* perf takes `-g caller` with the value as the next argument: make that
 * "--call-graph=caller" for the parser (-g alone keeps the default). */
static int fold_g_argument(int argc, char **argv, char *buf, size_t n)
{
	int i;

	for (i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if ((!strcmp(argv[i], "-g") || !strcmp(argv[i], "--call-graph")) &&
		    argv[i + 1][0] != '-' && strlen(argv[i + 1]) + 14 < n) {
			snprintf(buf, n, "--call-graph=%s", argv[i + 1]);
			argv[i] = buf;
			memmove(&argv[i + 1], &argv[i + 2], (size_t)(argc - i - 2) * sizeof(*argv));
			argv[argc - 1] = NULL;
			return argc - 1;
		}
	}
	return argc;
}

static int setup_filters(struct report *r)
{
	const struct cmd_filter_args a = {r->comm,    r->pid, r->tid, r->dso,
					  r->symbols, r->cpu, r->time};

	r->mo.filter = &r->filt;
	rfilter_release(&r->filt);
	return cmd_filters(&r->filt, &a);
}

/* ---- the header ---- */

/* perf's convert_unit(): 1K, 2M, ... (with a space for no unit). */
static unsigned long long scaled(uint64_t v, char *unit)
{
	static const char units[] = " KMG";
	int i = 0;

	while (v > 1000 && i < 3) {
		v /= 1000;
		i++;
	}
	*unit = units[i];
	return (unsigned long long)v;
}

struct weak_ctx {
	char buf[1024];
	size_t len;
	unsigned n;
};

static void add_weak(void *ctx, const char *module, enum symq q, const char *why)
{
	struct weak_ctx *w = ctx;
	char m[256];

	if (w->len >= sizeof(w->buf) - 1)
		return;
	prof_sanitize(m, sizeof(m), module);
	w->len += (size_t)snprintf(w->buf + w->len, sizeof(w->buf) - w->len, "%s%s (%s)",
				   w->n++ ? ", " : "", m,
				   why && *why ? why : (q == SYMQ_BASIC ? "names only" : "none"));
	if (w->len >= sizeof(w->buf))
		w->len = sizeof(w->buf) - 1;
}

static void add_pclntab(void *ctx, const char *module)
{
	struct weak_ctx *w = ctx;
	char m[256];

	if (w->len >= sizeof(w->buf) - 1)
		return;
	prof_sanitize(m, sizeof(m), module);
	w->len += (size_t)snprintf(w->buf + w->len, sizeof(w->buf) - w->len, "%s%s",
				   w->n++ ? ", " : "", m);
	if (w->len >= sizeof(w->buf))
		w->len = sizeof(w->buf) - 1;
}

/* The modules the symbol database gave symbols, by where they came from
 * and whether they were asked for in this run. */
struct served_ctx {
	struct served {
		char source[256];
		int fetched;
		unsigned n;
		char names[512];
		size_t len;
	} g[4];
	unsigned nr;
};

static void add_served(void *ctx, const char *module, const char *source, int fetched)
{
	struct served_ctx *c = ctx;
	struct served *g = NULL;
	char m[256];
	unsigned i;

	for (i = 0; i < c->nr && !g; i++)
		if (c->g[i].fetched == fetched && !strcmp(c->g[i].source, source))
			g = &c->g[i];
	if (!g && c->nr == sizeof(c->g) / sizeof(c->g[0]))
		return;
	if (!g) {
		g = &c->g[c->nr++];
		prof_sanitize(g->source, sizeof(g->source), source);
		g->fetched = fetched;
	}
	prof_sanitize(m, sizeof(m), module);
	if (g->len < sizeof(g->names) - 1)
		g->len += (size_t)snprintf(g->names + g->len, sizeof(g->names) - g->len, "%s%s",
					   g->n ? ", " : "", m);
	if (g->len >= sizeof(g->names))
		g->len = sizeof(g->names) - 1;
	g->n++;
}

/* "# Symbol database URL: served 2 modules (hot, libfoo.so)" */
static void print_served(const struct report *r)
{
	struct served_ctx c = {.nr = 0};
	unsigned i;

	session_remote_modules(&r->ses, add_served, &c);
	for (i = 0; i < c.nr; i++) {
		const struct served *g = &c.g[i];

		printf("# %c%s: %s %u module%s (%s)\n", toupper((unsigned char)g->source[0]),
		       g->source + 1, g->fetched ? "served" : "cached answers for", g->n,
		       g->n == 1 ? "" : "s", g->names);
	}
}

static void print_list(const char *name, const char *v);

/* Which unwinder walked the user stacks, and with the kernel unwinder how
 * many of the recording's stacks were complete and why the others ended
 * early. */
static void print_unwinder(const struct report *r)
{
	static const char *const why[PROF_UW_NR] = {
		[PROF_UW_NO_TABLE] = "no unwind table (code without CFI, JIT) and no frame pointer",
		[PROF_UW_NOT_READY] = "table not ready yet (a new binary)",
		[PROF_UW_UNSUPPORTED] = "CFI rule not supported and no frame pointer",
		[PROF_UW_FAULT] = "stack unreadable",
		[PROF_UW_DEPTH] = "frame limit",
	};
	const struct profile *p = &r->ses.prof;
	const char *u = profile_get_meta(p, "unwinder");
	uint64_t c[PROF_UW_NR], done, early = 0;
	unsigned i, n;

	/* said by zt record -g since the kernel unwinder (not perf.data: its
	 * header stays perf's) */
	if (!u || !profile_has_callchains(p))
		return;
	if (!strcmp(u, "kernel"))
		printf("# Unwinder: kernel (unwind tables from the binaries' CFI, walked in BPF; "
		       "frame pointers where there are none)\n");
	else if (!strcmp(u, "dwarf"))
		printf("# Unwinder: dwarf (user stack copies unwound offline with the binaries' "
		       "CFI)\n");
	else
		printf("# Unwinder: frame pointers\n");
	if (strcmp(u, "kernel") || !profile_unwind_stops(p, c))
		return;
	done = c[PROF_UW_END] + c[PROF_UW_FP_END];
	for (i = PROF_UW_NO_TABLE; i < PROF_UW_NR; i++)
		early += c[i];
	printf("# User stacks: %llu complete (%llu to the outermost frame, %llu to a null frame "
	       "pointer), %llu ended early",
	       (unsigned long long)done, (unsigned long long)c[PROF_UW_END],
	       (unsigned long long)c[PROF_UW_FP_END], (unsigned long long)early);
	for (i = PROF_UW_NO_TABLE, n = 0; i < PROF_UW_NR; i++)
		if (c[i])
			printf("%s %llu %s", n++ ? "," : ":", (unsigned long long)c[i], why[i]);
	printf("\n");
}

/* meta "python" (zt record's Python frames, zt-data(5)): key KEY's value, 0
 * when it has none. */
static unsigned long long python_count(const char *m, const char *key)
{
	size_t n = strlen(key);
	const char *at;

	for (at = m; at && *at; at = strchr(at, ',') ? strchr(at, ',') + 1 : NULL)
		if (!strncmp(at, key, n) && at[n] == '=')
			return strtoull(at + n + 1, NULL, 10);
	return 0;
}

/* What zt record read of Python frames, and what it could not. */
static void print_python(const struct report *r)
{
	const char *m = profile_get_meta(&r->ses.prof, "python");

	if (!m)
		return;
	printf("# Python frames: %llu from %llu process%s; %llu code objects read, %llu could not "
	       "be (gone or replaced first: [python+0x...] frames); %llu frames below a native "
	       "stack that ended early; %llu samples whose frames could not be read\n",
	       python_count(m, "frames"), python_count(m, "procs"),
	       python_count(m, "procs") == 1 ? "" : "es", python_count(m, "codes"),
	       python_count(m, "unread"), python_count(m, "unspliced"),
	       python_count(m, "failed_samples"));
}

/* How well the frames resolved: unique frames at each quality, and the
 * modules that had less than full symbols, and why. */
static void print_quality(const struct report *r)
{
	struct weak_ctx w = {.len = 0};
	uint64_t c[3];

	print_unwinder(r);
	print_python(r);
	session_quality_counts(&r->ses, c);
	printf("# Symbols: %llu frames full (function, file:line), %llu basic (function), %llu "
	       "none\n",
	       (unsigned long long)c[SYMQ_FULL], (unsigned long long)c[SYMQ_BASIC],
	       (unsigned long long)c[SYMQ_NONE]);
	session_weak_modules(&r->ses, add_weak, &w);
	if (w.n)
		printf("# Without full symbols: %s\n", w.buf);
	memset(&w, 0, sizeof(w));
	session_pclntab_modules(&r->ses, add_pclntab, &w);
	if (w.n)
		printf("# Symbols from go pclntab (no DWARF): %s\n", w.buf);
	print_served(r);
	print_list("Not read when recording", profile_get_meta(&r->ses.prof, "skipped_files"));
	printf("#\n");
}

static void print_meta(const struct report *r)
{
	cmd_print_header(&r->ses);
}

static void print_list(const char *name, const char *v)
{
	char buf[1024];

	if (!v)
		return;
	prof_sanitize(buf, sizeof(buf), v);
	printf("# %s: %s\n", name, buf);
}

/* A recording's time as perf script shows it: seconds.microseconds. */
static void fmt_time(char *buf, size_t n, uint64_t ns)
{
	snprintf(buf, n, "%llu.%06llu", (unsigned long long)(ns / 1000000000ull),
		 (unsigned long long)(ns % 1000000000ull / 1000));
}

/* The event of the section: its name, and its rate when a frequency. */
static const char *section_event(const struct report *r, const char **freq, char *num, size_t n)
{
	const struct profile *p = &r->ses.prof;

	*freq = profile_get_meta(p, "freq");
	if (r->ev < p->nr_events) {
		const struct prof_event *e = &p->events[r->ev];

		*freq = NULL;
		if (e->flags & PROF_EV_FREQ) {
			snprintf(num, n, "%llu", (unsigned long long)e->period);
			*freq = num;
		}
	}
	return profile_event_name(p, r->ev);
}

static void print_header(const struct report *r)
{
	char evnum[32], unit, buf[1024], t0[32], t1[32];
	const char *freq, *ev = section_event(r, &freq, evnum, sizeof(evnum));
	const char *cmdline = profile_get_meta(&r->ses.prof, "cmdline");
	unsigned long long nr = scaled(r->m.hist.total_nr, &unit);

	if (r->section) /* perf: the next event's section, after two blank lines */
		goto samples;

	if (r->header)
		print_meta(r);
	else
		printf("# To display the %s header info, please use --header/--header-only "
		       "options.\n#\n",
		       profile_get_meta(&r->ses.prof, "perf_version") ? "perf.data" : "zt.data");
	print_list("comm", r->comm);
	print_list("pid", r->pid);
	print_list("tid", r->tid);
	print_list("dso", r->dso);
	/* perf (sort.c __sort__setup_elide()): the one name the column is
	 * elided for; -S's addresses are not names */
	if (r->filt.nr_syms == 1)
		print_list("symbol", r->filt.syms[0]);
	print_list("cpu", r->cpu);
	printf("#\n# Total Lost Samples: %llu\n#\n", (unsigned long long)r->ses.prof.lost_samples);
	if (cmdline) {
		prof_sanitize(buf, sizeof(buf), cmdline);
		printf("# Recorded: %s\n", buf);
	}
	fmt_time(t0, sizeof(t0), r->m.time_first);
	fmt_time(t1, sizeof(t1), r->m.time_last);
	printf("# Time: %s to %s (%.3f s)\n#\n", t0, t1,
	       (double)(r->m.time_last - r->m.time_first) / 1e9);
samples:
	if (r->gv) { /* perf: the group's samples and events together */
		prof_sanitize(buf, sizeof(buf), r->gv->name);
		nr = scaled(r->gv->sum_nr, &unit);
		printf("# Samples: %llu%c of events '%s'\n", nr, unit, buf);
		printf("# Event count (approx.): %llu\n#\n", (unsigned long long)r->gv->sum_total);
		goto quality;
	}
	printf("# Samples: %llu%c", nr, unit);
	if (ev) {
		prof_sanitize(buf, sizeof(buf), ev);
		printf(" of event '%s'", buf);
		if (freq && strcmp(freq, "0"))
			printf(" at %s Hz", freq);
	}
	if (r->time)
		printf(" (time slices: %s)", r->time);
	printf("\n# Event count (approx.): %llu\n#\n", (unsigned long long)r->total);
quality:
	if (!r->section)
		print_quality(r);
}

/* ---- --stats, --tasks, --mmaps, -T ---- */

/* perf_event__name(): record type names, by type */
static const char *record_name(unsigned t)
{
	static const char *const k[] = {
		"TOTAL",	"MMAP",
		"LOST",		"COMM",
		"EXIT",		"THROTTLE",
		"UNTHROTTLE",	"FORK",
		"READ",		"SAMPLE",
		"MMAP2",	"AUX",
		"ITRACE_START", "LOST_SAMPLES",
		"SWITCH",	"SWITCH_CPU_WIDE",
		"NAMESPACES",	"KSYMBOL",
		"BPF_EVENT",	"CGROUP",
		"TEXT_POKE",	"AUX_OUTPUT_HW_ID",
	};
	static const char *const u[] = {
		"ATTR",	     "EVENT_TYPE",    "TRACING_DATA", "BUILD_ID",	"FINISHED_ROUND",
		"ID_INDEX",  "AUXTRACE_INFO", "AUXTRACE",     "AUXTRACE_ERROR", "THREAD_MAP",
		"CPU_MAP",   "STAT_CONFIG",   "STAT",	      "STAT_ROUND",	"EVENT_UPDATE",
		"TIME_CONV", "FEATURE",	      "COMPRESSED",   "FINISHED_INIT",
	};

	if (t < sizeof(k) / sizeof(k[0]))
		return k[t];
	if (t >= 64 && t - 64 < sizeof(u) / sizeof(u[0]))
		return u[t - 64];
	return NULL;
}

/* perf report --stats: the records of the file by type. perf.data: as
 * the reader counted them; zt.data: its samples, tasks and mappings, as
 * the records perf would have written for them. */
static void print_stats(const struct report *r)
{
	const struct profile *p = &r->ses.prof;
	const char *counts = profile_get_meta(p, "perf_record_counts");
	uint64_t by[128] = {0}, total = 0;
	const char *ev = profile_get_meta(p, "event");
	char name[256];
	size_t i;

	if (counts) {
		const char *c = counts;
		unsigned t;
		unsigned long long n;
		int len;

		while (sscanf(c, "%u:%llu%n", &t, &n, &len) == 2) {
			if (t < 128)
				by[t] = n;
			c += len;
			if (*c != ',')
				break;
			c++;
		}
	} else {
		for (i = 0; i < p->nr_tasks; i++)
			by[p->tasks[i].kind == PROF_TASK_FORK	? 7
			   : p->tasks[i].kind == PROF_TASK_EXIT ? 4
								: 3]++;
		for (i = 0; i < p->nr_mmaps; i++)
			by[p->mmaps[i].pid == ZT_PID_KERNEL ? 1 : 10]++;
		by[9] = p->nr_samples;
	}
	for (i = 1; i < 128; i++)
		total += by[i];
	printf("\nAggregated stats:\n");
	printf("%16s events: %10llu\n", "TOTAL", (unsigned long long)total);
	for (i = 1; i < 128; i++)
		if (by[i] && record_name((unsigned)i))
			printf("%16s events: %10llu  (%4.1f%%)\n", record_name((unsigned)i),
			       (unsigned long long)by[i], (double)by[i] / (double)total * 100.0);
	prof_sanitize(name, sizeof(name), ev ? ev : "[unknown]");
	printf("%s stats:\n", name);
	printf("%16s events: %10llu\n", "SAMPLE", (unsigned long long)p->nr_samples);
	if (p->lost_samples)
		printf("%16s events: %10llu\n", "LOST_SAMPLES",
		       (unsigned long long)p->lost_samples);
}

/* A thread of the recording, for --tasks and --mmaps. */
struct rtask {
	int64_t pid, tid, ppid;
	const char *comm;
	int depth;
	uint64_t count; /* -T: the sum of its samples' weights */
};

static int rtask_cmp(const void *a, const void *b)
{
	const struct rtask *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static struct rtask *find_task(struct rtask *t, size_t n, int64_t pid, int64_t tid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].tid == tid && (pid < 0 || t[i].pid == pid))
			return &t[i];
	return NULL;
}

/* Every thread seen (in tasks, mappings or samples), with its parent
 * (from its FORK) and last name; the idle thread as perf has it. */
static struct rtask *collect_tasks(const struct report *r, size_t *nr)
{
	const struct profile *p = &r->ses.prof;
	struct rtask *t = NULL;
	size_t n = 0, cap = 0, i;

#define ADD_TASK(P, T)                                                     \
	do {                                                               \
		if (!find_task(t, n, (P), (T))) {                          \
			if (ZT_GROW(t, cap, n + 1))                        \
				goto fail;                                 \
			t[n++] = (struct rtask){(P), (T), -1, NULL, 0, 0}; \
		}                                                          \
	} while (0)
	ADD_TASK(0, 0);
	for (i = 0; i < p->nr_tasks; i++)
		ADD_TASK(p->tasks[i].pid, p->tasks[i].tid);
	for (i = 0; i < p->nr_mmaps; i++)
		if (p->mmaps[i].pid != ZT_PID_KERNEL)
			ADD_TASK(p->mmaps[i].pid, p->mmaps[i].pid);
	for (i = 0; i < p->nr_samples; i++)
		ADD_TASK(p->samples[i].pid, p->samples[i].tid);
#undef ADD_TASK
	for (i = 0; i < p->nr_tasks; i++) {
		const struct prof_task *k = &p->tasks[i];
		struct rtask *x = find_task(t, n, k->pid, k->tid);

		if (k->kind == PROF_TASK_FORK && x)
			x->ppid = k->ppid;
	}
	for (i = 0; i < n; i++)
		t[i].comm = rstacks_comm(session_stacks(&r->ses), (uint32_t)t[i].pid, (uint32_t)t[i].tid,
					  UINT64_MAX);
	qsort(t, n, sizeof(*t), rtask_cmp);
	*nr = n;
	return t;
fail:
	free(t);
	return NULL;
}

static int map_cmp(const void *a, const void *b)
{
	const struct prof_mmap *x = *(const struct prof_mmap *const *)a;
	const struct prof_mmap *y = *(const struct prof_mmap *const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The executable mappings of process pid at the end of the recording
 * (those since its last exec, the latest at each address), by address. */
static void print_task_maps(const struct report *r, int64_t pid, int indent)
{
	const struct profile *p = &r->ses.prof;
	const struct prof_mmap **v = NULL;
	uint64_t since = 0;
	size_t i, j, n = 0, cap = 0;
	char path[4096];

	for (i = 0; i < p->nr_tasks; i++)
		if (p->tasks[i].kind == PROF_TASK_EXEC && p->tasks[i].pid == pid &&
		    p->tasks[i].ts > since)
			since = p->tasks[i].ts;
	for (i = 0; i < p->nr_mmaps; i++) {
		const struct prof_mmap *m = &p->mmaps[i];

		if (m->pid != pid || (since && m->ts && m->ts < since))
			continue;
		for (j = 0; j < n && v[j]->start != m->start; j++)
			;
		if (j == n && ZT_GROW(v, cap, n + 1))
			break;
		v[j] = m;
		n += j == n;
	}
	if (n)
		qsort(v, n, sizeof(*v), map_cmp);
	for (i = 0; i < n; i++) {
		prof_sanitize(path, sizeof(path), v[i]->path);
		/* perf's map__fprintf_task(); zt does not keep inode numbers: 0 */
		printf("%*s  %llx-%llx %c%c%c%c %08llx %u %s\n", indent, "",
		       (unsigned long long)v[i]->start,
		       (unsigned long long)(v[i]->start + v[i]->len), v[i]->prot & 1 ? 'r' : '-',
		       v[i]->prot & 2 ? 'w' : '-', v[i]->prot & 4 ? 'x' : '-',
		       v[i]->flags & 1 ? 's' : 'p', (unsigned long long)v[i]->pgoff, 0u, path);
	}
	free(v);
}

static void print_task_level(const struct report *r, struct rtask *t, size_t n, size_t i, int depth,
			     int maps)
{
	char comm[64], cbuf[32];
	size_t k;
	int indent;

	prof_sanitize(comm, sizeof(comm),
		      prof_comm_or_pid(t[i].comm, (uint32_t)t[i].pid, cbuf, sizeof(cbuf)));
	if (!t[i].comm && !t[i].pid)
		snprintf(comm, sizeof(comm), "swapper");
	indent = printf("  %8lld %8lld %8lld |%*s", (long long)t[i].pid, (long long)t[i].tid,
			(long long)t[i].ppid, depth, "");
	printf("%s\n", comm);
	if (maps)
		print_task_maps(r, t[i].pid, indent);
	t[i].depth = -1; /* printed */
	for (k = 0; k < n && depth < 32; k++)
		if (t[k].depth != -1 && t[k].ppid == t[i].tid && k != i)
			print_task_level(r, t, n, k, depth + 1, maps);
}

/* perf report --tasks / --mmaps: the threads as a tree by parent. */
static void print_tasks(const struct report *r, int maps)
{
	struct rtask *t;
	size_t n, i;

	t = collect_tasks(r, &n);
	if (!t) {
		cmd_error("cannot list the threads: %s", strerror(ENOMEM));
		return;
	}
	printf("# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	for (i = 0; i < n; i++)
		if (t[i].depth != -1 && (t[i].ppid < 0 || !find_task(t, n, -1, t[i].ppid) ||
					 find_task(t, n, -1, t[i].ppid) == &t[i]))
			print_task_level(r, t, n, i, 0, maps);
	free(t);
}

/* -T: perf's per-thread counter table (perf_read_values_display), with
 * the event's count of each thread (the sum of its samples' periods). */
static void print_threads(const struct report *r)
{
	const struct profile *p = &r->ses.prof;
	const char *ev = profile_get_meta(p, "event");
	struct rtask *t = NULL;
	size_t n = 0, cap = 0, i;
	int pw = 3, tw = 3, cw;
	char name[256], buf[32];

	for (i = 0; i < p->nr_samples; i++) {
		const struct prof_sample *s = &p->samples[i];
		struct rtask *x = find_task(t, n, s->pid, s->tid);

		if (!rfilter_time_pass(&r->filt, s->ts, r->m.time_first, r->m.time_last))
			continue;
		if (!x) {
			if (ZT_GROW(t, cap, n + 1))
				break;
			x = &t[n++];
			*x = (struct rtask){s->pid, s->tid, -1, NULL, 0, 0};
		}
		x->count += s->weight;
	}
	prof_sanitize(name, sizeof(name), ev ? ev : "[unknown]");
	cw = (int)strlen(name);
	for (i = 0; i < n; i++) {
		int l = snprintf(buf, sizeof(buf), "%lld", (long long)t[i].pid);

		pw = l > pw ? l : pw;
		l = snprintf(buf, sizeof(buf), "%lld", (long long)t[i].tid);
		tw = l > tw ? l : tw;
		l = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t[i].count);
		cw = l > cw ? l : cw;
	}
	printf("# %*s  %*s  %*s\n", pw, "PID", tw, "TID", cw, name);
	for (i = 0; i < n; i++)
		printf("  %*lld  %*lld  %*llu\n", pw, (long long)t[i].pid, tw, (long long)t[i].tid,
		       cw, (unsigned long long)t[i].count);
	free(t);
}

/* ---- the table ---- */

static const char *col_header(int c)
{
	switch (c) {
	case COL_OVERHEAD:
		return "Overhead";
	case COL_CHILDREN:
		return "Children";
	case COL_SAMPLE:
		return "Samples";
	case COL_PERIOD:
		return "Period";
	}
	/* perf's Pid:Command title sits over the numbers */
	if (c == COL_KEY + HIST_KEY_PID)
		return "   Tgid:Command";
	if (c == COL_KEY + HIST_KEY_TID)
		return "    Pid:Command";
	return hist_key_title((enum hist_key)(c - COL_KEY));
}

/* The Self column is called Self next to Children, Overhead alone. */
static const char *col_title(const struct report *r, int c)
{
	/* perf (perf_hpp__init()): not with -F */
	return c == COL_OVERHEAD && r->mo.children && !r->fields ? "Self" : col_header(c);
}

static int col_numeric(int c)
{
	return c < COL_KEY || c == COL_KEY + HIST_KEY_CPU;
}

/* The text of column c for entry e (keys only). */
static const char *key_text(const struct report *r, const struct hist_entry *e, int c, char *buf,
			    size_t n)
{
	return hist_key_text(&r->m.hist, e, (enum hist_key)(c - COL_KEY), buf, n);
}

/* perf leaves out a column that a filter pins to one value. */
static int pinned(const struct report *r, int c)
{
	return (c == COL_KEY + HIST_KEY_COMM && r->filt.nr_comms == 1) ||
	       (c == COL_KEY + HIST_KEY_DSO && r->filt.nr_dsos == 1) ||
	       (c == COL_KEY + HIST_KEY_SYM && r->filt.nr_syms == 1);
}

static int col_elided(const struct report *r, int c)
{
	return !r->elide_none && pinned(r, c);
}

/* perf's sort__setup_elide(): eliding every key column makes no sense,
 * then none is */
static void setup_elide(struct report *r)
{
	unsigned k;

	r->elide_none = 1;
	for (k = 0; k < r->nr_cols; k++)
		if (r->cols[k] >= COL_KEY && !pinned(r, r->cols[k]))
			r->elide_none = 0;
}

/* perf's --symbol-filter: entries whose function's name has the text */
static int entry_passes(const struct report *r, const struct hist_entry *e)
{
	return hist_sortspec_shows(&r->m.hist, &r->mo.sort, e);
}

/* --group: whether an entry has Self in any event */
static int group_self(const struct report *r, const struct hist_entry *e)
{
	size_t i;
	unsigned j;

	if (!r->gv)
		return 0;
	i = (size_t)(e - r->m.hist.entries);
	for (j = 0; j < r->gv->nev; j++)
		if (r->gv->nr[i * r->gv->nev + j])
			return 1;
	return 0;
}

/* Widths over every entry, as perf (not only the rows above --percent-limit). */
static void compute_widths(struct report *r)
{
	const struct hist *h = &r->m.hist;
	char buf[1200];
	int comm_w = 7;
	enum hist_key tk = HIST_KEY_COMM;
	unsigned k;
	size_t i;

	/* the width of the pid or tgid column: its threads' names */
	for (k = 0; k < h->nr_keys; k++)
		if (h->keys[k] == HIST_KEY_TID || (h->keys[k] == HIST_KEY_PID && tk == HIST_KEY_COMM))
			tk = h->keys[k];
	for (i = 0; tk != HIST_KEY_COMM && i < h->nr_entries; i++) {
		char name[256];
		int l;

		if (!entry_passes(r, &h->entries[i]))
			continue;
		l = (int)strlen(hist_thread_name(h, &h->entries[i], tk, name, sizeof(name)));
		if (l > comm_w)
			comm_w = l;
	}
	for (k = 0; k < r->nr_cols; k++) {
		int c = r->cols[k];

		r->width[k] = (int)strlen(col_title(r, c));
		if (c == COL_OVERHEAD || c == COL_CHILDREN)
			r->width[k] = 8 * (r->gv ? (int)r->gv->nev : 1);
		else if (c == COL_SAMPLE || c == COL_PERIOD)
			r->width[k] = 12 * (r->gv ? (int)r->gv->nev : 1);
		else if (c == COL_KEY + HIST_KEY_PID || c == COL_KEY + HIST_KEY_TID)
			r->width[k] = comm_w + 8;
		else if (c == COL_KEY + HIST_KEY_CPU)
			r->width[k] = 3;
		else
			for (i = 0; i < h->nr_entries; i++) {
				const struct hist_entry *e = &h->entries[i];
				int l;

				if ((!r->mo.children && !e->self_nr && !group_self(r, e)) ||
				    !entry_passes(r, e))
					continue;
				l = (int)strlen(key_text(r, e, c, buf, sizeof(buf)));
				if (c >= COL_KEY)
					l = hist_key_width(e, (enum hist_key)(c - COL_KEY), l, r->dso != NULL);
				if (l > r->width[k])
					r->width[k] = l;
			}
	}
}

static void print_dots(int n)
{
	while (n-- > 0)
		putchar('.');
}

static void print_table_header(const struct report *r)
{
	unsigned k;
	int first = 1;

	fputs("# ", stdout);
	for (k = 0; k < r->nr_cols; k++) {
		if (col_elided(r, r->cols[k]))
			continue;
		if (!first)
			fputs("  ", stdout);
		if (col_numeric(r->cols[k]))
			printf("%*s", r->width[k], col_title(r, r->cols[k]));
		else
			printf("%-*s", r->width[k], col_title(r, r->cols[k]));
		first = 0;
	}
	fputs("\n# ", stdout);
	first = 1;
	for (k = 0; k < r->nr_cols; k++) {
		if (col_elided(r, r->cols[k]))
			continue;
		if (!first)
			fputs("  ", stdout);
		print_dots(r->width[k]);
		first = 0;
	}
	printf("\n#\n");
}

static void print_pct(int width, uint64_t v, uint64_t total)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.2f%%", total ? 100.0 * (double)v / (double)total : 0.0);
	printf("%*s", width, buf);
}

/* --group: column c's value of each event, each as wide as one alone */
static void print_group_vals(const struct report *r, int c, const struct hist_entry *e)
{
	const struct grpview *g = r->gv;
	size_t i = (size_t)(e - r->m.hist.entries);
	unsigned j;

	for (j = 0; j < g->nev; j++) {
		size_t at = i * g->nev + j;

		if (c == COL_OVERHEAD)
			print_pct(8, g->self[at], g->tot[j]);
		else if (c == COL_CHILDREN)
			print_pct(8, g->children[at], g->tot[j]);
		else if (c == COL_SAMPLE)
			printf("%12llu", (unsigned long long)g->nr[at]);
		else
			printf("%12llu", (unsigned long long)g->self[at]);
	}
}

static void print_row(const struct report *r, const struct hist_entry *e)
{
	char buf[1200];
	unsigned k, last = 0;

	for (k = 0; k < r->nr_cols; k++)
		if (!col_elided(r, r->cols[k]))
			last = k;
	for (k = 0; k < r->nr_cols; k++) {
		int c = r->cols[k];

		if (col_elided(r, c))
			continue;
		fputs("  ", stdout);
		if (r->gv && c < COL_KEY) {
			print_group_vals(r, c, e);
			continue;
		}
		switch (c) {
		case COL_OVERHEAD:
			print_pct(r->width[k], e->self, r->total);
			break;
		case COL_CHILDREN:
			print_pct(r->width[k], e->children, r->total);
			break;
		case COL_SAMPLE:
			printf("%*llu", r->width[k], (unsigned long long)e->self_nr);
			break;
		case COL_PERIOD:
			printf("%*llu", r->width[k], (unsigned long long)e->self);
			break;
		default: {
			const char *t = key_text(r, e, c, buf, sizeof(buf));

			/* perf (hist_entry__snprintf_alignment()) pads every column
			 * but the last; of the keys, only a symbol's and a source
			 * line's text is not padded to the width by itself */
			if (k == last &&
			    (c == COL_KEY + HIST_KEY_SYM || c == COL_KEY + HIST_KEY_SRCLINE ||
			     c == COL_KEY + HIST_KEY_SYMQ))
				fputs(t, stdout);
			else
				printf("%-*s", r->width[k], t);
		}
		}
	}
	putchar('\n');
}

/* ---- call chains (perf's ui/stdio/hist.c layout) ---- */

static void chain_value(const struct report *r, char *buf, size_t n, uint64_t period,
			uint64_t count, uint64_t total)
{
	switch (r->value) {
	case VAL_PERIOD:
		snprintf(buf, n, "%llu", (unsigned long long)period);
		break;
	case VAL_COUNT:
		snprintf(buf, n, "%llu", (unsigned long long)count);
		break;
	default:
		snprintf(buf, n, "%.2f%%", total ? (double)period * 100.0 / (double)total : 0.0);
	}
}

static void margin(int left)
{
	printf("%*s", 12 + left, "");
}

/* The pipes of the levels above: "|" where a level has more to come. */
static void graph_line(int depth, uint64_t mask, int left)
{
	int i;

	margin(left);
	for (i = 0; i < depth; i++)
		fputs(mask & (1ull << i) ? "|          " : "           ", stdout);
	putchar('\n');
}

static void graph_name(const struct report *r, uint32_t node, int depth, uint64_t mask, int first,
		       uint64_t total, int left)
{
	const struct cc_node *n = cc_node(&r->m.hist.cc, node);
	char val[64], name[1100];
	int i;

	margin(left);
	for (i = 0; i < depth; i++) {
		putchar(mask & (1ull << i) ? '|' : ' ');
		if (first && i == depth - 1) {
			chain_value(r, val, sizeof(val), cc_cumul(n), cc_cumul_count(n), total);
			printf("--%s--", val);
		} else {
			fputs("          ", stdout);
		}
	}
	prof_sanitize(name, sizeof(name), rmodel_chain_name(&r->m, n));
	printf("%s\n", name);
}

static void print_run(const struct report *r, uint32_t node, int depth, uint64_t mask,
		      uint64_t total, int left, uint32_t *last)
{
	const struct callchains *cc = &r->m.hist.cc;
	size_t len = cc_run(cc, node, last), i;

	for (i = 0; i < len; i++) {
		graph_name(r, node, depth, mask, i == 0, total, left);
		node = cc_node(cc, node)->child;
	}
}

static uint64_t chain_min_hit(const struct report *r, uint64_t total)
{
	return (uint64_t)((double)total * (r->chain_min / 100.0));
}

static int graph_level(const struct report *r, uint32_t parent, uint64_t total, int depth,
		       uint64_t mask, int left, uint64_t min_hit, int *printed)
{
	const struct callchains *cc = &r->m.hist.cc;
	uint64_t remaining = total;
	uint32_t *kids, last;
	long nk, i;
	int ret = 0;

	if (r->mode == CHAIN_FRACTAL) {
		/* relative: a branch's share of its parent's callees */
		min_hit = (uint64_t)((double)cc_node(cc, parent)->children_hit *
					     (r->chain_min / 100.0) +
				     0.999999);
	}
	nk = cc_sorted_children(cc, parent, min_hit, &kids);
	if (nk < 0)
		return (int)nk;
	for (i = 0; i < nk && depth < 63; i++) {
		const struct cc_node *n = cc_node(cc, kids[i]);
		uint64_t new_mask = mask, new_total;

		remaining -= cc_cumul(n);
		if (i + 1 == nk && (r->mode != CHAIN_FRACTAL || !remaining))
			new_mask &= ~(1ull << (depth - 1));
		graph_line(depth, mask, left);
		print_run(r, kids[i], depth, new_mask, total, left, &last);
		*printed = 1;
		new_total = r->mode == CHAIN_FRACTAL ? cc_node(cc, last)->children_hit : total;
		ret = graph_level(r, last, new_total, depth + 1, new_mask | (1ull << depth), left,
				  min_hit, printed);
		if (ret || (r->print_limit && (unsigned long)i + 1 == r->print_limit))
			break;
	}
	if (!ret && r->mode == CHAIN_FRACTAL && remaining && remaining != total && nk > 0) {
		char val[64];
		int d;

		mask &= ~(1ull << (depth - 1));
		margin(left);
		for (d = 0; d < depth; d++) {
			putchar(mask & (1ull << d) ? '|' : ' ');
			if (d == depth - 1) {
				chain_value(r, val, sizeof(val), remaining, 0, total);
				printf("--%s--", val);
			} else {
				fputs("          ", stdout);
			}
		}
		printf("[...]\n");
	}
	free(kids);
	return ret;
}

static int print_graph(const struct report *r, const struct hist_entry *e, uint64_t parent_total)
{
	const struct callchains *cc = &r->m.hist.cc;
	uint64_t total = r->total;
	uint64_t min_hit = r->mode == CHAIN_GRAPH ? chain_min_hit(r, total) : 0;
	uint32_t *kids, root = e->chain, last;
	int left = 0, ret, printed = 0;
	long nk;

	nk = cc_sorted_children(cc, root, r->mode == CHAIN_GRAPH ? min_hit : 0, &kids);
	if (nk < 0)
		return (int)nk;
	/* one branch with all of the entry: printed without its share */
	if (nk == 1 && cc_cumul(cc_node(cc, kids[0])) == parent_total) {
		const struct callchains *c = cc;
		size_t len = cc_run(c, kids[0], &last), i;
		uint32_t n = kids[0];
		char name[1100];
		int skip = r->sort && !r->fields && !strncmp(r->sort, "sym", 3);

		for (i = 0; i < len; i++, n = cc_node(c, n)->child) {
			if (!i && skip)
				continue;
			prof_sanitize(name, sizeof(name), rmodel_chain_name(&r->m, cc_node(c, n)));
			if (!left) {
				margin(0);
				printf("|\n");
				margin(0);
				printf("---%s\n", name);
				left = 3;
				printed = 1;
			} else {
				margin(left);
				printf("%s\n", name);
			}
		}
		root = last;
	}
	free(kids);
	if (r->mode == CHAIN_FRACTAL)
		total = parent_total;
	ret = graph_level(r, root, total, 1, 1, left, min_hit, &printed);
	if (printed) /* perf: no blank line after nothing */
		putchar('\n');
	return ret;
}

/* Flat and folded: every path that ends somewhere (has hits of its own). */
struct path_ctx {
	const struct report *r;
	uint32_t *nodes;
	size_t nr, cap;
};

static const struct callchains *sort_cc;

/* perf's order of a node's children in its tree (rb_root_in, which
 * __sort_chain_flat() walks): a module's functions by address, highest
 * first, else in order of first appearance */
static int sibling_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct cc_node *x = cc_node(sort_cc, a), *y = cc_node(sort_cc, b);

	if (x->key >> 32 == y->key >> 32 && x->order != y->order)
		return x->order > y->order ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The nodes with hits under node, in perf's order of insertion into its
 * sorted tree: after those below them, siblings in their tree's order. */
static int collect_paths(struct path_ctx *p, uint32_t node, uint64_t min_hit)
{
	const struct callchains *cc = &p->r->m.hist.cc;
	uint32_t i, *kids;
	size_t n = 0, k;
	int ret = 0;

	kids = malloc((cc_node(cc, node)->nr_children + 1) * sizeof(*kids));
	if (!kids)
		return -ENOMEM;
	for (i = cc_node(cc, node)->child; i != CC_NONE; i = cc_node(cc, i)->next)
		kids[n++] = i;
	sort_cc = cc;
	qsort(kids, n, sizeof(*kids), sibling_cmp);
	for (k = 0; k < n && !ret; k++)
		ret = collect_paths(p, kids[k], min_hit);
	free(kids);
	if (ret)
		return ret;
	if (cc_node(cc, node)->parent != CC_NONE && cc_node(cc, node)->hit &&
	    cc_node(cc, node)->hit >= min_hit) {
		if (ZT_GROW(p->nodes, p->cap, p->nr + 1))
			return -ENOMEM;
		p->nodes[p->nr++] = node;
	}
	return 0;
}

static const uint32_t *sort_nodes;

/* By hits, equal ones in the order they came (perf's tree puts an equal
 * one after); pa and pb are positions in sort_nodes */
static int path_cmp(const void *pa, const void *pb)
{
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	const struct cc_node *a = cc_node(sort_cc, sort_nodes[x]);
	const struct cc_node *b = cc_node(sort_cc, sort_nodes[y]);

	if (a->hit != b->hit)
		return a->hit > b->hit ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The frames from the root down to node, into *out (outermost-first of the chain order). */
static size_t path_of(const struct callchains *cc, uint32_t node, uint32_t **buf, size_t *cap)
{
	size_t n = 0, i;

	for (i = node; cc_node(cc, (uint32_t)i)->parent != CC_NONE;
	     i = cc_node(cc, (uint32_t)i)->parent) {
		if (ZT_GROW(*buf, *cap, n + 1))
			return 0;
		(*buf)[n++] = (uint32_t)i;
	}
	for (i = 0; i < n / 2; i++) {
		uint32_t t = (*buf)[i];

		(*buf)[i] = (*buf)[n - 1 - i];
		(*buf)[n - 1 - i] = t;
	}
	return n;
}

static int print_paths(const struct report *r, const struct hist_entry *e)
{
	const struct callchains *cc = &r->m.hist.cc;
	struct path_ctx p = {r, NULL, 0, 0};
	uint32_t *path = NULL;
	size_t i, cap = 0, k;
	char name[1100], val[64];
	int ret;

	ret = collect_paths(&p, e->chain, chain_min_hit(r, r->total));
	if (!ret && p.nr) {
		uint32_t *pos = malloc(p.nr * sizeof(*pos));

		if (!pos) {
			ret = -ENOMEM;
		} else {
			for (i = 0; i < p.nr; i++)
				pos[i] = (uint32_t)i;
			sort_cc = cc;
			sort_nodes = p.nodes;
			qsort(pos, p.nr, sizeof(*pos), path_cmp);
			for (i = 0; i < p.nr; i++)
				pos[i] = p.nodes[pos[i]];
			free(p.nodes);
			p.nodes = pos;
		}
	}
	for (i = 0; !ret && i < p.nr; i++) {
		const struct cc_node *n = cc_node(cc, p.nodes[i]);
		size_t len = path_of(cc, p.nodes[i], &path, &cap);

		if (r->mode == CHAIN_FOLDED)
			chain_value(r, val, sizeof(val), n->hit, n->count, r->total);
		else
			chain_value(r, val, sizeof(val), cc_cumul(n), cc_cumul_count(n), r->total);
		if (r->mode == CHAIN_FLAT)
			printf("           %s\n", val);
		else
			printf("%s ", val);
		for (k = 0; k < len; k++) {
			prof_sanitize(name, sizeof(name),
				      rmodel_chain_name(&r->m, cc_node(cc, path[k])));
			if (r->mode == CHAIN_FLAT)
				printf("                %s\n", name);
			else
				printf("%s%s", k ? ";" : "", name);
		}
		putchar('\n');
		if (r->print_limit && i + 1 == r->print_limit)
			break;
	}
	free(path);
	free(p.nodes);
	return ret;
}

static int print_chains(const struct report *r, const struct hist_entry *e)
{
	if (e->chain == CC_NONE)
		return 0;
	switch (r->mode) {
	case CHAIN_GRAPH:
	case CHAIN_FRACTAL:
		return print_graph(r, e, r->mo.children ? e->children : e->self);
	case CHAIN_FLAT:
	case CHAIN_FOLDED:
		return print_paths(r, e);
	case CHAIN_NONE:
		break;
	}
	return 0;
}

/* --group: the first event's call chains (perf's leader's), read-only
 * through a copy of the report over its model */
static int print_group_chains(struct report *r, const struct hist_entry *e)
{
	const struct hist_entry *l = r->gv->lead[e - r->m.hist.entries];
	struct report t;
	int ret;

	if (!l)
		return 0;
	t = *r;
	t.m = r->gv->ev[0];
	t.total = r->gv->tot[0];
	ret = print_chains(&t, l);
	r->line = t.line;
	r->line_cap = t.line_cap;
	return ret;
}

/* What percentages are of: every sample's weight, or with --percentage
 * relative and --symbol-filter, the Self of the entries it shows (perf's
 * total_non_filtered_period; the other filters hid their samples already) */
static void set_total(struct report *r)
{
	const struct hist *h = &r->m.hist;
	size_t i;

	r->total = h->total;
	if (!r->mo.relative || !r->symbol_filter)
		return;
	r->total = 0;
	for (i = 0; i < h->nr_entries; i++)
		if (entry_passes(r, &h->entries[i]))
			r->total += h->entries[i].self;
}

/* ---- --hierarchy (perf's print_hierarchy_header() and
 * hist_entry__hierarchy_fprintf()) ---- */

#define HIER_INDENT 3 /* perf's HIERARCHY_INDENT */

static void spaces(int n)
{
	if (n > 0)
		printf("%*s", n, "");
}

/* The column of sort key i (r->mo.keys[i]), or -1. */
static int key_col(const struct report *r, enum hist_key key)
{
	unsigned k;

	for (k = 0; k < r->nr_cols; k++)
		if (r->cols[k] == COL_KEY + (int)key)
			return (int)k;
	return -1;
}

static void print_hier_header(const struct report *r)
{
	const struct hist *h = &r->m.hist;
	int first = 1, hw = 0;
	unsigned k, d;

	fputs("# ", stdout);
	spaces((int)(h->nr_keys - 1) * HIER_INDENT);
	for (k = 0; k < r->nr_cols && r->cols[k] < COL_KEY; k++)
		printf("%*s  ", r->width[k], col_title(r, r->cols[k]));
	for (d = 0; d < h->nr_keys; d++) {
		const char *t = col_title(r, COL_KEY + (int)h->keys[d]);

		while (*t == ' ')
			t++;
		hw += printf("%s%s", first ? "" : " / ", t);
		first = 0;
	}
	fputs("\n# ", stdout);
	print_dots((int)(h->nr_keys - 1) * HIER_INDENT);
	for (k = 0; k < r->nr_cols && r->cols[k] < COL_KEY; k++) {
		if (k)
			fputs("..", stdout);
		print_dots(r->width[k]);
	}
	for (d = 0; d < h->nr_keys; d++) {
		int c = key_col(r, h->keys[d]);
		int w = (int)d * HIER_INDENT + (c < 0 ? 0 : r->width[c]);

		if (w > hw)
			hw = w;
	}
	fputs("  ", stdout);
	print_dots(hw);
	printf("\n#\n");
}

/* --group: a row's values of each event, the sums of its entries' */
static void print_hier_group_vals(const struct report *r, int c, const struct histhier_row *row,
				  const struct hist_entry *const *leaves)
{
	const struct grpview *g = r->gv;
	unsigned j;
	size_t i;

	for (j = 0; j < g->nev; j++) {
		uint64_t v = 0;

		for (i = row->lo; i < row->hi; i++) {
			size_t at = (size_t)(leaves[i] - r->m.hist.entries) * g->nev + j;

			v += c == COL_SAMPLE ? g->nr[at] : g->self[at];
		}
		if (c == COL_SAMPLE || c == COL_PERIOD)
			printf("%12llu", (unsigned long long)v);
		else
			print_pct(8, v, g->tot[j]);
	}
}

static void print_hier_row(const struct report *r, const struct histhier_row *row,
			   const struct hist_entry *const *leaves)
{
	enum hist_key key = r->m.hist.keys[row->depth];
	int c = key_col(r, key), w = c < 0 ? 0 : r->width[c];
	char buf[1200];
	const char *t;
	unsigned k;
	int len;

	spaces((int)row->depth * HIER_INDENT);
	for (k = 0; k < r->nr_cols && r->cols[k] < COL_KEY; k++) {
		fputs("  ", stdout);
		if (r->gv)
			print_hier_group_vals(r, r->cols[k], row, leaves);
		else if (r->cols[k] == COL_SAMPLE)
			printf("%*llu", r->width[k], (unsigned long long)row->nr);
		else if (r->cols[k] == COL_PERIOD)
			printf("%*llu", r->width[k], (unsigned long long)row->weight);
		else
			print_pct(r->width[k], row->weight, r->total);
	}
	spaces((int)(r->m.hist.nr_keys - 1) * HIER_INDENT);
	fputs("  ", stdout);
	/* perf pads the key's text to its width as the key does in its own
	 * column (not a symbol's nor a source line's), then left-trims it */
	t = hist_key_text(&r->m.hist, row->e, key, buf, sizeof(buf));
	len = (int)strlen(t);
	while (*t == ' ')
		t++;
	fputs(t, stdout);
	if (key != HIST_KEY_SYM && key != HIST_KEY_SRCLINE && key != HIST_KEY_SYMQ &&
	    key != HIST_KEY_CPU)
		spaces(w - len);
	putchar('\n');
}

/* The overhead columns' width (perf's hists__overhead_width()). */
static int overhead_width(const struct report *r)
{
	unsigned k;
	int w = 0;

	for (k = 0; k < r->nr_cols && r->cols[k] < COL_KEY; k++)
		w += (k ? 2 : 0) + r->width[k];
	return w;
}

static int print_hierarchy(struct report *r)
{
	struct histhier_row *rows;
	const struct hist_entry **leaves;
	size_t i, n;
	int ret;

	ret = histhier_build(&r->m.hist, &r->mo.sort, r->percent_limit, r->m.hist.total, &rows, &n,
			     &leaves);
	if (ret)
		return ret;
	if (!r->quiet)
		print_hier_header(r);
	for (i = 0; i < n && !ret; i++) {
		print_hier_row(r, &rows[i], leaves);
		if (rows[i].leaf && r->mode != CHAIN_NONE && r->gv)
			ret = print_group_chains(r, rows[i].e);
		else if (rows[i].leaf && r->mode != CHAIN_NONE)
			ret = print_chains(r, rows[i].e);
		if (rows[i].empty) { /* every row under it is below --percent-limit */
			spaces((int)(r->m.hist.nr_keys + rows[i].depth) * HIER_INDENT);
			printf("%*sno entry >= %.2f%%\n", overhead_width(r) + 4, "",
			       r->percent_limit);
		}
	}
	free(rows);
	free(leaves);
	return ret;
}

static int print_stdio(struct report *r, const struct hist_entry *const *rows, size_t nr)
{
	size_t i;
	int ret = 0;

	set_total(r);
	setup_elide(r);
	if (!r->quiet)
		print_header(r);
	compute_widths(r);
	if (r->hierarchy) {
		ret = print_hierarchy(r);
		nr = 0;
	} else if (!r->quiet) {
		print_table_header(r);
	}
	for (i = 0; i < nr && !ret; i++) {
		print_row(r, rows[i]);
		if (r->mode != CHAIN_NONE && r->gv)
			ret = print_group_chains(r, rows[i]);
		else if (r->mode != CHAIN_NONE)
			ret = print_chains(r, rows[i]);
	}
	printf("\n\n");
	if (r->threads)
		print_threads(r);
	return ret;
}

static int col_by(int c)
{
	switch (c) {
	case COL_OVERHEAD:
		return HIST_BY_SELF;
	case COL_CHILDREN:
		return HIST_BY_CHILDREN;
	case COL_SAMPLE:
		return HIST_BY_SAMPLES;
	case COL_PERIOD:
		return HIST_BY_PERIOD;
	}
	return HIST_BY_KEY + (c - COL_KEY);
}

static void add_by(struct hist_sortspec *s, int by)
{
	unsigned i;

	for (i = 0; i < s->nr; i++)
		if (s->by[i] == by)
			return;
	if (s->nr < HIST_MAX_BY)
		s->by[s->nr++] = by;
}

/* The columns and the order of the entries as perf's setup_sorting():
 * the columns are -F's fields (or Children, Self and the extra columns)
 * then the sort keys not among them; the entries are ordered by Children
 * and Self (unless -F), the sort keys, then the columns not yet used. */
static void setup_columns(struct report *r)
{
	struct hist_sortspec *s = &r->mo.sort;
	unsigned i, k;

	if (!r->fields) {
		default_cols(r);
	} else {
		for (i = 0; i < r->nr_sort_keys; i++) {
			for (k = 0; k < r->nr_cols && r->cols[k] != COL_KEY + (int)r->mo.keys[i];
			     k++)
				;
			if (k == r->nr_cols && r->nr_cols < MAX_COLS)
				r->cols[r->nr_cols++] = COL_KEY + (int)r->mo.keys[i];
		}
	}
	memset(s, 0, sizeof(*s));
	s->sym_filter = r->symbol_filter;
	s->all = s->limit_children = r->mo.children;
	if (!r->fields) {
		if (r->mo.children)
			add_by(s, HIST_BY_CHILDREN);
		add_by(s, HIST_BY_SELF);
	}
	for (i = 0; i < (r->fields ? r->nr_sort_keys : r->mo.nr_keys); i++)
		add_by(s, HIST_BY_KEY + (int)r->mo.keys[i]);
	for (k = 0; k < r->nr_cols; k++)
		add_by(s, col_by(r->cols[k]));
	r->mo.sort_self = 0;
}

/* Children, call-chain mode and order, and the columns, as perf picks
 * them for a recording with call chains (has_cg) or without. */
static void setup_chains(struct report *r, int has_cg)
{
	if (r->children < 0 || !has_cg) /* perf: no Children without call graphs */
		r->children = has_cg;
	r->mo.children = r->children;
	if (!has_cg)
		r->mode = CHAIN_NONE;
	if (r->inverted)
		r->order = HIST_CHAIN_CALLER;
	if (!r->order) /* perf: callers first with Children, callees first without */
		r->order = r->children ? HIST_CHAIN_CALLER : HIST_CHAIN_CALLEE;
	if (r->hierarchy) /* perf: after the order is chosen, no Children */
		r->mo.children = r->children = 0;
	/* --max-stack 0: the sample's own address only, in either order */
	r->mo.max_stack_outer = r->order == HIST_CHAIN_CALLER && r->max_stack != 0;
	r->mo.caller_order = r->order == HIST_CHAIN_CALLER;
	r->mo.chain =
		r->mode == CHAIN_NONE && !r->tui ? HIST_CHAIN_NONE : (enum hist_chain)r->order;
	if (!has_cg)
		r->mo.chain = HIST_CHAIN_NONE;
	r->mo.inline_frames = r->inline_frames;
	/* text: an entry under the threshold shows no branch (fractal's is relative) */
	if (!r->tui && r->mode != CHAIN_FRACTAL)
		r->mo.chain_min_pct = r->chain_min;
	setup_columns(r);
}

/* ---- zt report --gpu ---- */

static const char *fmt_dims(char *buf, size_t n, const uint32_t d[3], int varies)
{
	if (varies)
		snprintf(buf, n, "varies");
	else
		snprintf(buf, n, "%u,%u,%u", d[0], d[1], d[2]);
	return buf;
}

static double pct_of(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* The top stall reasons of a range, "long_scoreboard:21 wait:18 ...". */
static void print_stalls(const struct gpureport *gr, struct gpurep_stalls st, unsigned max)
{
	const struct gpurep_stall *s = gpureport_stalls(gr, st);
	uint32_t i;

	for (i = 0; i < st.n && i < max; i++)
		printf("%s%s:%llu", i ? " " : "", s[i].name, (unsigned long long)s[i].samples);
	if (st.n > max)
		printf(" ...");
}

static void print_gpu_summary(const struct report *r, const struct gpureport *gr,
			      const struct gpu_frametab *ft)
{
	const char *cmdline = profile_get_meta(&r->ses.prof, "cmdline");
	char buf[1024];
	size_t i;
	unsigned n = 0;

	if (r->header)
		print_meta(r);
	if (cmdline) {
		prof_sanitize(buf, sizeof(buf), cmdline);
		printf("# Recorded: %s\n", buf);
	}
	printf("# GPU: %llu kernel launches of %zu kernels, %s of GPU time; %llu PC samples",
	       (unsigned long long)gr->nr_records, gr->nr_kernels,
	       gpureport_fmt_dur(buf, sizeof(buf), gr->total_ns), (unsigned long long)gr->pc_samples);
	if (gr->pc_not_issued)
		printf(" (%llu of them not issued)", (unsigned long long)gr->pc_not_issued);
	printf("\n#\n");
	printf("# GPU symbols: %llu PCs with lines (function, file:line), %llu names only, %llu "
	       "none\n",
	       (unsigned long long)gr->pcs_full, (unsigned long long)gr->pcs_basic,
	       (unsigned long long)gr->pcs_none);
	if (gr->stacks_inferred)
		printf("# Launch stacks: %llu kernels' launches captured (--gpu-stack-rate per "
		       "thread), %llu shown with the stack of their kernel's captured launch "
		       "nearest in time, in their thread or else their process\n",
		       (unsigned long long)gr->stacks_captured,
		       (unsigned long long)gr->stacks_inferred);
	for (i = 0; i < ft->nr_cubins; i++) {
		const struct gpu_cubin_note *c = &ft->cubins[i];

		if (!c->why)
			continue;
		printf("%s cubin 0x%016llx (%s)",
		       n++ ? "," : "# Cubins without line info:", (unsigned long long)c->crc,
		       c->why);
	}
	if (n)
		printf("\n");
	print_quality(r); /* the launch stacks' CPU frames */
}

static void print_gpu_kernels(const struct gpureport *gr)
{
	char t[32], m[32], x[32], gb[48], bb[48];
	size_t i;

	printf("# ======== GPU kernels, by GPU time ========\n#\n");
	printf("# %7s  %12s  %8s  %12s  %12s  %-12s  %-12s  %s\n", "Time%", "Total", "Launches",
	       "Mean", "Max", "Grid", "Block", "Kernel");
	printf("# .......  ............  ........  ............  ............  ............  "
	       "............  ......\n#\n");
	for (i = 0; i < gr->nr_kernels; i++) {
		const struct gpurep_kernel *k = &gr->kernels[i];
		char pct[16];

		snprintf(pct, sizeof(pct), "%.2f%%", pct_of(k->total_ns, gr->total_ns));
		if (!k->launches) {
			printf("  %7s  %12s  %8s  %12s  %12s  %-12s  %-12s  %s\n", "-", "-", "0",
			       "-", "-", "-", "-", k->name);
			continue;
		}
		printf("  %7s  %12s  %8llu  %12s  %12s  %-12s  %-12s  %s\n", pct,
		       gpureport_fmt_dur(t, sizeof(t), k->total_ns), (unsigned long long)k->launches,
		       gpureport_fmt_dur(m, sizeof(m), k->mean_ns), gpureport_fmt_dur(x, sizeof(x), k->max_ns),
		       fmt_dims(gb, sizeof(gb), k->grid, k->grid_varies),
		       fmt_dims(bb, sizeof(bb), k->block, k->block_varies), k->name);
	}
	printf("\n");
}

#define GPU_LINES 10 /* hot lines shown per kernel */

static void print_gpu_lines(const struct gpureport *gr)
{
	size_t i, j;

	printf("# ======== Hot lines and device functions by kernel (PC samples, stall reasons) "
	       "========\n#\n");
	if (!gr->pc_samples) {
		printf("# no PC samples (record with zt record --gpu, PC sampling on)\n\n");
		return;
	}
	for (i = 0; i < gr->nr_kernels; i++) {
		const struct gpurep_kernel *k = &gr->kernels[i];

		if (!k->samples)
			continue;
		printf("# Kernel %s: %llu samples (%.2f%%), stalls: ", k->name,
		       (unsigned long long)k->samples, pct_of(k->samples, gr->pc_samples));
		print_stalls(gr, k->stalls, 8);
		printf("\n#\n# %8s  %7s  %-28s  %-20s  %s\n", "Samples", "Percent", "Line",
		       "Function", "Stalls");
		for (j = 0; j < k->nr_lines && j < GPU_LINES; j++) {
			const struct gpurep_line *l = &k->lines[j];

			printf("  %8llu  %6.2f%%  %-28s  %-20s  ", (unsigned long long)l->samples,
			       pct_of(l->samples, k->samples), l->text, l->func);
			print_stalls(gr, l->stalls, 3);
			printf("\n");
		}
		if (k->nr_lines > GPU_LINES) {
			uint64_t rest = 0;

			for (j = GPU_LINES; j < k->nr_lines; j++)
				rest += k->lines[j].samples;
			printf("# ... %zu more lines with %llu samples (%.2f%%)\n",
			       k->nr_lines - GPU_LINES, (unsigned long long)rest,
			       pct_of(rest, k->samples));
		}
		printf("#\n# %8s  %8s  %-28s  %s\n", "Self", "Total", "Device function", "Stalls");
		for (j = 0; j < k->nr_funcs; j++) {
			const struct gpurep_func *f = &k->funcs[j];
			char name[1100];

			snprintf(name, sizeof(name), "%s%s", f->name,
				 f->inlined ? " (inlined)" : "");
			printf("  %8llu  %8llu  %-28s  ", (unsigned long long)f->self,
			       (unsigned long long)f->total, name);
			print_stalls(gr, f->stalls, 3);
			printf("\n");
		}
		printf("\n");
	}
}

static void print_gpu_copies(const struct gpureport *gr)
{
	char t[32], rate[32];
	size_t i;

	printf("# ======== Memory copies and sets ========\n#\n");
	printf("# %-8s  %8s  %14s  %12s  %12s\n", "Kind", "Count", "Bytes", "Total", "Rate");
	printf("# ........  ........  ..............  ............  ............\n#\n");
	for (i = 0; i < gr->nr_copies; i++) {
		const struct gpurep_copy *c = &gr->copies[i];

		if (c->total_ns)
			snprintf(rate, sizeof(rate), "%.2fGB/s",
				 (double)c->bytes / (double)c->total_ns);
		else
			snprintf(rate, sizeof(rate), "-");
		printf("  %-8s  %8llu  %14llu  %12s  %12s\n", c->name, (unsigned long long)c->count,
		       (unsigned long long)c->bytes, gpureport_fmt_dur(t, sizeof(t), c->total_ns), rate);
	}
	if (!gr->nr_copies)
		printf("# none\n");
	printf("\n");
}

static int print_gpu_stdio(struct report *r, const struct gpureport *gr,
			   const struct gpu_frametab *ft, const struct hist_entry *const *rows,
			   size_t nr)
{
	size_t i;
	int ret = 0;

	set_total(r);
	setup_elide(r);
	if (!r->quiet)
		print_gpu_summary(r, gr, ft);
	print_gpu_kernels(gr);
	printf("# ======== Launch sites: the kernels' CPU call chains, by GPU time ========\n#\n");
	compute_widths(r);
	print_table_header(r);
	for (i = 0; i < nr && !ret; i++) {
		print_row(r, rows[i]);
		if (r->mode != CHAIN_NONE && r->gv)
			ret = print_group_chains(r, rows[i]);
		else if (r->mode != CHAIN_NONE)
			ret = print_chains(r, rows[i]);
	}
	printf("\n");
	print_gpu_lines(gr);
	print_gpu_copies(gr);
	return ret;
}

static int launches_have_stacks(const struct rmodel_input *in)
{
	size_t i;

	for (i = 0; i < in->nr; i++)
		if (in->samples[i].stack != RMODEL_NO_STACK)
			return 1;
	return 0;
}

/* zt report --gpu: the GPU model, the launch-site model, then text or the TUI. */
static int report_gpu(struct report *r)
{
	const struct prof_gpu *g = r->ses.prof.gpu;
	const struct hist_entry **rows;
	struct rfilter gfilt; /* shallow: r->filt owns */
	struct rmodel_input in;
	struct session_gpu sg = {0};
	const struct gpureport_opts go = {session_gpu_name_cb, &sg};
	struct gpureport gr;
	size_t nrows;
	int ret;

	if (!g || prof_gpu_empty(g)) {
		cmd_error("'%s' has no GPU records (record with zt record --gpu)", r->input);
		return ZT_EXIT_FAIL;
	}
	memset(&gr, 0, sizeof(gr));
	zt_strtab_init(&gr.strs);
	/* --pid, --tid, --comm and --time select the GPU records themselves;
	 * --dsos and -S the launch sites' (their CPU stacks); --cpu none */
	gfilt = r->filt;
	gfilt.nr_pids = gfilt.nr_tids = gfilt.nr_comms = gfilt.nr_cpus = gfilt.nr_times = 0;
	r->mo.filter = &gfilt;
	ret = session_gpu_open(&r->ses, &r->filt, 1, &sg);
	if (!ret)
		ret = gpureport_init(&gr, &sg.v, &sg.ft, &go);
	if (!ret)
		ret = gpureport_launches(&gr, &sg.v, session_stacks(&r->ses), &in);
	if (!ret) {
		setup_chains(r, launches_have_stacks(&in));
		ret = rmodel_init_with(&r->m, session_stacks(&r->ses), &in, NULL, NULL);
	}
	if (!ret)
		ret = rmodel_build(&r->m, &r->mo);
	if (!ret)
		ret = rmodel_sort(&r->m, r->percent_limit, &rows, &nrows);
	if (ret) {
		cmd_error("cannot build the GPU report: %s", strerror(-ret));
		ret = ZT_EXIT_FAIL;
	} else if (r->tui) {
		struct report_gpu_tui_opts to = {r->mo, r->input};

		ret = report_gpu_tui(&gr, &r->m, &to);
	} else {
		ret = print_gpu_stdio(r, &gr, &sg.ft, rows, nrows);
		if (ret) {
			cmd_error("cannot print the GPU report: %s", strerror(-ret));
			ret = ZT_EXIT_FAIL;
		}
	}
	/* the launch model's frames name the report's strings: it goes first */
	rmodel_release(&r->m);
	r->mo.filter = &r->filt;
	gpureport_release(&gr);
	session_gpu_close(&sg);
	return ret;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void report_release(struct report *r)
{
	if (r->have_re)
		regfree(&r->parent_re);
	if (r->have_ignore)
		regfree(&r->ignore_re);
	rmodel_release(&r->m);
	session_close(&r->ses);
	rfilter_release(&r->filt);
	symopts_release(&r->so);
	free(r->line);
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct cmd_progress *p = ctx;

	if (!p->what)
		cmd_progress_start(p, "resolving", total);
	cmd_progress_update(p, done);
}

/* Several events (--stdio): one section each, in event order, those
 * without samples left out (perf's default). An exit code. */
static int report_events(struct report *r)
{
	const struct profile *p = &r->ses.prof;
	const struct hist_entry **rows;
	size_t nrows;
	int ret = 0;

	for (r->ev = 0; !ret && r->ev < p->nr_events; r->ev++) {
		if (!profile_event_samples(p, r->ev, NULL))
			continue;
		ret = rmodel_init_event(&r->m, session_stacks(&r->ses), r->ev, NULL, NULL);
		if (!ret)
			ret = rmodel_build(&r->m, &r->mo);
		if (!ret)
			ret = rmodel_sort(&r->m, r->percent_limit, &rows, &nrows);
		if (!ret)
			ret = print_stdio(r, rows, nrows);
		rmodel_release(&r->m);
		memset(&r->m, 0, sizeof(r->m));
		r->section++;
	}
	if (ret) {
		cmd_error("cannot build the report: %s", strerror(-ret));
		return ZT_EXIT_FAIL;
	}
	return ZT_EXIT_OK;
}

/* The key of an entry as text, alike in every event's model: its keys'
 * texts, a function's module and address too. malloc()ed, or NULL. */
static char *entry_key(const struct hist *h, const struct hist_entry *e)
{
	char buf[1200], *s = NULL;
	size_t len = 0;
	unsigned k;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (k = 0; k < h->nr_keys; k++) {
		fprintf(f, "%s\x1f", hist_key_text(h, e, h->keys[k], buf, sizeof(buf)));
		if (h->keys[k] == HIST_KEY_SYM)
			fprintf(f, "%s\x1f%llx\x1f", hist_str(h, e->f.dso),
				(unsigned long long)(e->f.inlined ? 0 : e->f.addr));
	}
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

struct gkey {
	char *key;
	const struct hist_entry *e;
};

static int gkey_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gkey *)a)->key, ((const struct gkey *)b)->key);
}

/* Each event's values of the entries of m (of every event), the first
 * event's in m's entries themselves (what they are sorted by, as perf's
 * leader), the others' Self as its ties (hist.grp). 0 or -ENOMEM. */
static int group_match(struct report *r, struct grpview *g)
{
	struct hist *u = &r->m.hist;
	size_t n = u->nr_entries, i, m = 0;
	struct gkey *ks = NULL;
	char **uk;
	unsigned j, nev = g->nev;
	int ret = -ENOMEM;

	uk = calloc(n ? n : 1, sizeof(*uk));
	g->lead = calloc(n ? n : 1, sizeof(*g->lead));
	g->self = calloc(n * nev + 1, sizeof(uint64_t));
	g->children = calloc(n * nev + 1, sizeof(uint64_t));
	g->nr = calloc(n * nev + 1, sizeof(uint64_t));
	g->tie = calloc(n * (nev - 1) + 1, sizeof(uint64_t));
	g->tot = calloc(nev, sizeof(uint64_t));
	if (!uk || !g->lead || !g->self || !g->children || !g->nr || !g->tie || !g->tot)
		goto out;
	for (i = 0; i < n; i++)
		if (!(uk[i] = entry_key(u, &u->entries[i])))
			goto out;
	for (j = 0; j < nev; j++) {
		const struct hist *h = &g->ev[j].hist;

		m = h->nr_entries;
		ks = calloc(m ? m : 1, sizeof(*ks));
		if (!ks)
			goto out;
		for (i = 0; i < m; i++) {
			ks[i].e = &h->entries[i];
			if (!(ks[i].key = entry_key(h, &h->entries[i])))
				goto out;
		}
		qsort(ks, m, sizeof(*ks), gkey_cmp);
		for (i = 0; i < n && m; i++) {
			struct gkey q = {uk[i], NULL};
			const struct gkey *f = bsearch(&q, ks, m, sizeof(*ks), gkey_cmp);
			size_t at = i * nev + j;

			if (!f)
				continue;
			g->self[at] = f->e->self;
			g->children[at] = f->e->children;
			g->nr[at] = f->e->self_nr;
			if (j)
				g->tie[i * (nev - 1) + j - 1] = f->e->self;
			else
				g->lead[i] = f->e;
		}
		for (i = 0; i < m; i++)
			free(ks[i].key);
		free(ks);
		ks = NULL;
		g->tot[j] = h->total;
		g->sum_total += h->total;
		g->sum_nr += h->total_nr;
	}
	for (i = 0; i < n; i++) {
		struct hist_entry *e = &u->entries[i];
		const struct hist_entry *l = g->lead[i];

		e->self = l ? l->self : 0;
		e->self_nr = l ? l->self_nr : 0;
		e->children = l ? l->children : 0;
		e->children_nr = l ? l->children_nr : 0;
		e->depth = 0; /* perf's Children ties: the leader's depth (a dummy's is 0) */
		if (l) {
			e->depth = l->depth;
			e->f.first = l->f.first;
			e->f.first_tid = l->f.first_tid;
		}
	}
	u->total = g->tot[0];
	u->total_nr = g->ev[0].hist.total_nr;
	u->grp = g->tie;
	u->grp_nr = nev - 1;
	ret = 0;
out:
	if (ks) {
		for (i = 0; i < m; i++)
			free(ks[i].key);
		free(ks);
	}
	for (i = 0; uk && i < n; i++)
		free(uk[i]);
	free(uk);
	return ret;
}

static void group_release(struct grpview *g)
{
	unsigned j;

	for (j = 0; g->ev && j < g->nev; j++)
		rmodel_release(&g->ev[j]);
	free(g->ev);
	free(g->lead);
	free(g->self);
	free(g->children);
	free(g->nr);
	free(g->tie);
	free(g->tot);
	free(g->name);
}

/* --group of several events (--stdio): one table, a column per event, as
 * perf's (it groups every event of the recording). An exit code. */
static int report_group(struct report *r)
{
	const struct profile *p = &r->ses.prof;
	struct grpview g = {.nev = p->nr_events};
	const struct hist_entry **rows;
	size_t nrows = 0, len = 0;
	FILE *f = open_memstream(&g.name, &len);
	unsigned j;
	int ret = -ENOMEM;

	if (!f)
		goto out;
	for (j = 0; j < g.nev; j++)
		fprintf(f, "%s%s", j ? ", " : "", profile_event_name(p, j));
	if (fclose(f))
		goto out;
	g.ev = calloc(g.nev, sizeof(*g.ev));
	if (!g.ev)
		goto out;
	ret = rmodel_init(&r->m, session_stacks(&r->ses), NULL, NULL);
	if (!ret)
		ret = rmodel_build(&r->m, &r->mo);
	for (j = 0; !ret && j < g.nev; j++) {
		ret = rmodel_init_event(&g.ev[j], session_stacks(&r->ses), j, NULL, NULL);
		if (!ret)
			ret = rmodel_build(&g.ev[j], &r->mo);
	}
	if (!ret)
		ret = group_match(r, &g);
	if (!ret)
		ret = rmodel_sort(&r->m, r->percent_limit, &rows, &nrows);
	if (!ret) {
		r->gv = &g;
		ret = print_stdio(r, rows, nrows);
		r->gv = NULL;
	}
out:
	r->m.hist.grp = NULL;
	group_release(&g);
	if (ret) {
		cmd_error("cannot build the report: %s", strerror(-ret));
		return ZT_EXIT_FAIL;
	}
	return ZT_EXIT_OK;
}

static const char *const report_usage[] = {
	"zt report [<options>]",
	NULL,
};

static int report_parse_options(struct report *r, int argc, char **argv, int *rest)
{
	const struct opt opts[] = {
		{OPT_STRING, 'i', "input", &r->input, "file",
		 "input file name: zt.data or perf.data (default: zt.data, or standard input when "
		 "it is a pipe)"},
		{OPT_STRING, 0, "event", &r->event, "name",
		 "the event to report of a recording with several (default: --stdio a section "
		 "each, the TUI a menu of them)"},
		{OPT_BOOL, 0, "stdio", &r->stdio, NULL,
		 "text output (default when stdout is not a terminal)"},
		{OPT_BOOL, 0, "tui", &r->tui, NULL,
		 "the interactive browser (default on a terminal)"},
		{OPT_BOOL, 0, "gpu", &r->gpu, NULL,
		 "the GPU side of a zt record --gpu recording: kernels, launch sites, hot lines "
		 "with stall reasons, memory copies"},
		{OPT_GROUP, 0, NULL, NULL, NULL, "What to show"},
		{OPT_STRING, 's', "sort", &r->sort, "key[,key...]",
		 "sort by keys: comm, pid (thread; or tid), tgid (process), dso, sym, srcline, "
		 "cpu, symq, parent "
		 "(default: comm,dso,sym)"},
		{OPT_STRING, 'F', "fields", &r->fields, "field[,field...]",
		 "columns: overhead, overhead_children, sample, period and sort keys"},
		{OPT_BOOL, 0, "children", &r->children, NULL,
		 "Children (callees included) next to Self (default with call graphs); "
		 "--no-children: Self only"},
		{OPT_BOOL, 0, "hierarchy", &r->hierarchy, NULL,
		 "each sort key a level: its entries under those of the key before, "
		 "indented (--stdio; Self only, as perf)"},
		{OPT_STRING, 'g', "call-graph", &r->callgraph,
		 "mode[,min%][,caller|callee][,percent|period|count]",
		 "call chains under entries: graph (default), flat, folded, fractal or none", NULL,
		 1},
		{OPT_BOOL, 'G', "inverted", &r->inverted, NULL,
		 "call chains from the outermost caller (caller order)"},
		{OPT_BOOL, 0, "inline", &r->inline_frames, NULL,
		 "inlined functions as frames of their own (default); --no-inline: not"},
		{OPT_DOUBLE, 0, "percent-limit", &r->percent_limit, "pct",
		 "hide entries below this overhead percentage"},
		{OPT_BOOL, 'n', "show-nr-samples", &r->show_nr, NULL, "show a Samples column"},
		{OPT_BOOL, 0, "show-total-period", &r->show_period, NULL, "show a Period column"},
		{OPT_INT, 0, "max-stack", &r->max_stack, "n",
		 "use at most n frames of each call chain (default: all)"},
		{OPT_BOOL, 'U', "hide-unresolved", &r->hide_unresolved, NULL,
		 "leave out samples in code without a symbol, and such frames of call chains"},
		{OPT_BOOL, 'T', "threads", &r->threads, NULL,
		 "show the event count of each thread after the entries"},
		{OPT_STRING, 0, "ignore-callees", &r->ignore_callees, "regex",
		 "functions matching regex get the Self of the samples under them, their "
		 "callees forgotten (caller order: their callers)"},
		{OPT_STRING, 'p', "parent", &r->parent, "regex",
		 "a Parent symbol column: the innermost function of each sample's stack matching "
		 "regex, or [other]"},
		{OPT_BOOL, 'x', "exclude-other", &r->exclude_other, NULL,
		 "with -p: only the samples with a parent"},
		{OPT_BOOL, 0, "stats", &r->stats, NULL, "show the counts of records by type only"},
		{OPT_BOOL, 0, "tasks", &r->tasks, NULL, "show the threads of the recording only"},
		{OPT_BOOL, 0, "mmaps", &r->mmaps, NULL,
		 "show the threads and their executable mappings only"},
		{OPT_BOOL, 0, "header", &r->header, NULL, "show the recording's header info first"},
		{OPT_BOOL, 0, "header-only", &r->header_only, NULL,
		 "show only the recording's header info"},
		{OPT_BOOL, 'q', "quiet", &r->quiet, NULL, "no header lines, no warnings"},
		{OPT_GROUP, 0, NULL, NULL, NULL, "Filters"},
		{OPT_STRING, 'c', "comms", &r->comm, "comm[,comm...]", "only these thread names"},
		{OPT_STRING, 0, "comm", &r->comm, "comm[,comm...]", "the same as --comms"},
		{OPT_STRING, 0, "pid", &r->pid, "pid[,pid...]", "only these processes"},
		{OPT_STRING, 0, "tid", &r->tid, "tid[,tid...]", "only these threads"},
		{OPT_STRING, 'd', "dsos", &r->dso, "dso[,dso...]", "only entries in these modules"},
		{OPT_STRING, 0, "dso", &r->dso, "dso[,dso...]", "the same as --dsos"},
		{OPT_STRING, 'S', "symbols", &r->symbols, "sym[,sym...]",
		 "only entries of these functions"},
		{OPT_STRING, 'C', "cpu", &r->cpu, "cpus", "only samples on these CPUs (0,2-3)"},
		{OPT_STRING, 0, "symbol-filter", &r->symbol_filter, "text",
		 "only entries whose function's name contains text"},
		{OPT_STRING, 0, "percentage", &r->percentage, "relative|absolute",
		 "percentages of what the filters show (relative) or of every sample "
		 "(absolute, the default)"},
		{OPT_BOOL, 0, "group", &r->group, NULL,
		 "several events in one table, a column of each (--stdio, as perf); one "
		 "event: as without"},
		{OPT_STRING, 0, "time", &r->time, "start,end",
		 "only samples in this time range: seconds as zt script shows them, or A%-B%"},
		{OPT_BOOL, 'f', "force", &r->force, NULL,
		 "report the readable part of a damaged file"},
		{OPT_BOOL, 0, "demangle", &r->demangle, NULL,
		 "demangle C++ and Rust names (default); --no-demangle: keep them raw"},
		SYMOPTS_NAME_OPTIONS(r->so),
		SYMOPTS_OPTIONS(r->so),
		SYMOPTS_SYMDB_OPTIONS(r->so),
		SYMOPTS_KERNEL_OPTIONS(r->so),
		SYMOPTS_PYTHON_OPTIONS(r->so),
		{OPT_BOOL, 0, "ignore-vmlinux", &r->ignore_vmlinux, NULL,
		 "use no vmlinux file for kernel symbols (-k/--vmlinux is ignored)"},
		{OPT_STRING, 0, "objdump", &r->objdump, "path",
		 "accepted for perf's sake: zt disassembles with capstone, not objdump"},
		OPT_EOL,
	};

	return opts_parse("report", report_usage, opts, argc, argv, rest);
}

/* --ignore-callees and -p/--parent: their regular expressions compiled,
 * -x checked between them. 0 or -1 (the message shown). */
static int report_compile_patterns(struct report *r)
{
	if (r->ignore_callees) {
		int e = regcomp(&r->ignore_re, r->ignore_callees, REG_EXTENDED | REG_NOSUB);

		if (e) {
			char msg[256];

			regerror(e, &r->ignore_re, msg, sizeof(msg));
			cmd_error("--ignore-callees: bad regular expression '%s': %s",
				  r->ignore_callees, msg);
			return -1;
		}
		r->have_ignore = 1;
		r->mo.ignore_callees = &r->ignore_re;
	}
	if (r->exclude_other && !r->parent) {
		cmd_error("-x/--exclude-other keeps the samples with a parent: give its pattern "
			  "with -p/--parent REGEX (perf shows nothing without it)");
		return -1;
	}
	if (r->parent || uses_parent(r)) {
		/* perf's default pattern, for --sort parent without -p */
		const char *re = r->parent ? r->parent : "^sys_|^do_page_fault";
		int e = regcomp(&r->parent_re, re, REG_EXTENDED | REG_NOSUB);

		if (e) {
			char msg[256];

			regerror(e, &r->parent_re, msg, sizeof(msg));
			cmd_error("-p/--parent: bad regular expression '%s': %s", re, msg);
			return -1;
		}
		r->have_re = 1;
		r->mo.parent = &r->parent_re;
		r->mo.exclude_other = r->exclude_other;
		/* perf: -p adds the parent column after the sort keys */
		if (r->parent && !r->fields)
			add_key(r, HIST_KEY_PARENT);
	}
	return 0;
}

/* The options' values, what they make of the model's options, and the
 * arguments after them (argv[rest..]): ZT_EXIT_OK or ZT_EXIT_USAGE (the
 * message shown). */
static int report_check_options(struct report *r, int argc, char **argv, int rest)
{
	if (!r->input)
		r->input = cmd_default_input();
	if (rest < argc) {
		cmd_error("unexpected argument '%s': the input is given with -i", argv[rest]);
		return ZT_EXIT_USAGE;
	}
	if (r->stdio && r->tui) {
		cmd_error("--stdio and --tui: choose one");
		return ZT_EXIT_USAGE;
	}
	if (r->tui && !strcmp(r->input, "-")) {
		cmd_error("--tui reads keys from standard input, which is the recording (-i -): "
			  "save the recording to a file for the TUI, or use --stdio");
		return ZT_EXIT_USAGE;
	}
	/* a recording on standard input: as perf, the text report */
	if (!r->stdio && isatty(STDOUT_FILENO) && strcmp(r->input, "-"))
		r->tui = 1;
	if (r->sort ? parse_sort(r) : 0)
		return ZT_EXIT_USAGE;
	r->nr_sort_keys = r->mo.nr_keys;
	if (r->hierarchy && r->fields) {
		cmd_error("--hierarchy and -F/--fields cannot be used together (as in perf): "
			  "give the levels with --sort");
		return ZT_EXIT_USAGE;
	}
	if (r->fields && parse_fields(r))
		return ZT_EXIT_USAGE;
	if (!r->mo.nr_keys) {
		r->sort = NULL;
		add_key(r, HIST_KEY_COMM);
		add_key(r, HIST_KEY_DSO);
		add_key(r, HIST_KEY_SYM);
	}
	if (r->callgraph && parse_callgraph(r, r->callgraph))
		return ZT_EXIT_USAGE;
	if (r->percent_limit < 0 || r->percent_limit > 100) {
		cmd_error("--percent-limit must be between 0 and 100, not %g", r->percent_limit);
		return ZT_EXIT_USAGE;
	}
	if (r->percent_limit > 0) /* perf: hides call-chain branches below it too */
		r->chain_min = r->percent_limit;
	if (r->max_stack < -1) {
		cmd_error("--max-stack: %d is not a number of frames (0 or more)", r->max_stack);
		return ZT_EXIT_USAGE;
	}
	/* perf's --max-stack 0 still has the sampled address: the entry */
	r->mo.max_stack = r->max_stack < 0 ? 0 : r->max_stack ? (unsigned)r->max_stack : 1;
	if (!r->max_stack) /* and no call chain to show */
		r->mode = CHAIN_NONE;
	r->mo.hide_unresolved = r->hide_unresolved;
	if (report_compile_patterns(r) || setup_filters(r))
		return ZT_EXIT_USAGE;
	if (r->percentage && strcmp(r->percentage, "relative") &&
	    strcmp(r->percentage, "absolute")) {
		cmd_error("--percentage '%s': use relative or absolute", r->percentage);
		return ZT_EXIT_USAGE;
	}
	r->mo.relative = r->percentage && !strcmp(r->percentage, "relative");
	if (r->objdump)
		cmd_warn("--objdump has no effect: zt disassembles with capstone, not objdump");
	if (r->ignore_vmlinux)
		r->so.vmlinux = NULL;
	return ZT_EXIT_OK;
}

/* One event: the model built, sorted and shown (TUI or --stdio). t0: when
 * the command started, t1: when the recording was read. An exit code. */
static int report_one(struct report *r, struct report_tui_opts *tui_opts, double t0, double t1)
{
	struct cmd_progress prog = {0};
	const struct hist_entry **rows;
	size_t nrows;
	double t2, t3;
	int ret;

	ret = rmodel_init(&r->m, session_stacks(&r->ses), on_progress, &prog);
	rstacks_seal(session_stacks(&r->ses)); /* every frame is resolved: no more lookups */
	if (prog.what)
		cmd_progress_end(&prog);
	cmd_info("%zu samples in %zu groups; %zu addresses resolved to %zu frames",
		 r->ses.prof.nr_samples, r->m.nr_groups, r->m.nr_addrs, r->m.nr_templates);
	t2 = now_ms();
	if (!ret)
		ret = rmodel_build(&r->m, &r->mo);
	if (!ret)
		ret = rmodel_sort(&r->m, r->percent_limit, &rows, &nrows);
	t3 = now_ms();
	cmd_info("read in %.0f ms, resolved in %.0f ms, %zu entries in %.0f ms", t1 - t0, t2 - t1,
		 r->m.hist.nr_entries, t3 - t2);
	if (ret) {
		cmd_error("cannot build the report: %s", strerror(-ret));
		return ZT_EXIT_FAIL;
	}
	if (r->tui) {
		tui_opts->event = profile_get_meta(&r->ses.prof, "event");
		return report_tui(&r->m, tui_opts);
	}
	ret = print_stdio(r, rows, nrows);
	cmd_info("printed in %.0f ms", now_ms() - t3);
	if (ret) {
		cmd_error("cannot print the report: %s", strerror(-ret));
		return ZT_EXIT_FAIL;
	}
	return ZT_EXIT_OK;
}

/* The view the options ask for of the recording read: --stats, --tasks,
 * --mmaps, --header-only, --gpu, or the report of one or several events.
 * An exit code. */
static int report_show(struct report *r, double t0, double t1)
{
	struct report_tui_opts tui_opts;

	if (r->stats || r->tasks || r->mmaps) {
		if (r->stats)
			print_stats(r);
		else
			print_tasks(r, r->mmaps);
		return ZT_EXIT_OK;
	}
	if (r->header_only) {
		print_meta(r);
		return ZT_EXIT_OK;
	}
	if (r->gpu)
		return report_gpu(r);
	if (!r->ses.prof.nr_samples) {
		cmd_error("'%s' has no samples", r->input);
		return ZT_EXIT_OK;
	}
	setup_chains(r, profile_has_callchains(&r->ses.prof));
	if (r->tui && r->hierarchy)
		cmd_warn("--hierarchy: the TUI shows the flat layout; use --stdio for levels");
	/* perf: no call chains read, nothing to ignore */
	if (r->mode == CHAIN_NONE && !r->mo.children)
		r->mo.ignore_callees = NULL;
	tui_opts = (struct report_tui_opts){.mo = r->mo,
					    .filter = &r->filt,
					    .percent_limit = r->percent_limit,
					    .chain_min_percent = r->chain_min,
					    .input = r->input,
					    .event_idx = -1,
					    .symmod = &r->so.mo,
					    .vmlinux = r->so.vmlinux};
	if (profile_nr_events(&r->ses.prof) > 1) {
		if (r->group && r->tui)
			cmd_warn("--group: the TUI shows each event on its own (a menu of them); "
				 "use --stdio for their columns in one table");
		if (r->group && !r->tui)
			return report_group(r);
		return r->tui ? report_tui_events(session_stacks(&r->ses), &tui_opts)
			      : report_events(r);
	}
	return report_one(r, &tui_opts, t0, t1);
}

int cmd_report(int argc, char **argv)
{
	struct report r = {.children = -1,
			   .max_stack = -1,
			   .demangle = 1,
			   .inline_frames = 1,
			   .mode = CHAIN_GRAPH,
			   .chain_min = 0.5,
			   .so = {.use_debuginfod = 1, .use_cache = 1, .use_symdb = 1}};
	double t0 = now_ms(), t1;
	char gbuf[256];
	int rest, ret;

	rfilter_init(&r.filt);
	argc = fold_g_argument(argc, argv, gbuf, sizeof(gbuf));
	ret = report_parse_options(&r, argc, argv, &rest);
	cmd_setup("report", r.quiet ? -1 : r.so.verbose);
	if (ret == OPTS_HELP || ret == OPTS_ERROR) {
		ret = ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
		goto out;
	}
	ret = report_check_options(&r, argc, argv, rest);
	if (ret != ZT_EXIT_OK)
		goto out;
	ret = ZT_EXIT_FAIL;
	if (symopts_init(&r.so, "report"))
		goto out;
	/* every event: --stdio has one section each, the TUI a menu of them, as perf */
	if (cmd_open_session_events(&r.ses, r.input, &r.so, r.force, r.event, r.demangle, !r.gpu))
		goto out;
	t1 = now_ms();
	if (cmd_check_cpu_filter(&r.ses, &r.filt))
		goto out;
	ret = report_show(&r, t0, t1);
out:
	report_release(&r);
	return ret;
}
