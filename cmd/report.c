/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt report: a recording's functions by overhead, with perf's Children and
 * Self columns and call chains under each entry, as text like `perf report
 * --stdio`, or browsed in a TUI like perf report's.
 */
#include <ctype.h>
#include <errno.h>
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
#include "libprof/profile.h"
#include "symbolizer/demangle.h"

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
	struct rmodel_opts mo;
	struct rfilter filt;
	struct session ses;
	struct rmodel m;
	int width[MAX_COLS];
	char *line; /* of chain lines: scratch */
	size_t line_cap;
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
				  "srcline, cpu or symq",
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

/* -F: output fields; sort keys among them are the sort keys unless --sort. */
static int parse_fields(struct report *r, int sort_given)
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
			c = COL_KEY + (int)k;
			if (!sort_given)
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
	char err[256];
	int ret = 0;

	rfilter_init(&r->filt);
	if (!ret && r->comm)
		ret = rfilter_add_strs(&r->filt.comms, &r->filt.nr_comms, r->comm, err,
				       sizeof(err));
	if (!ret && r->dso)
		ret = rfilter_add_strs(&r->filt.dsos, &r->filt.nr_dsos, r->dso, err, sizeof(err));
	if (!ret && r->symbols)
		ret = rfilter_add_strs(&r->filt.syms, &r->filt.nr_syms, r->symbols, err,
				       sizeof(err));
	if (!ret && r->pid)
		ret = rfilter_add_ids(&r->filt.pids, &r->filt.nr_pids, r->pid, err, sizeof(err));
	if (!ret && r->tid)
		ret = rfilter_add_ids(&r->filt.tids, &r->filt.nr_tids, r->tid, err, sizeof(err));
	if (!ret && r->cpu)
		ret = rfilter_add_cpus(&r->filt, r->cpu, err, sizeof(err));
	if (!ret && r->time)
		ret = rfilter_set_time(&r->filt, r->time, err, sizeof(err));
	if (ret)
		cmd_error("%s", err);
	r->mo.filter = &r->filt;
	return ret;
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

/* How well the frames resolved: unique frames at each quality, and the
 * modules that had less than full symbols, and why. */
static void print_quality(const struct report *r)
{
	struct weak_ctx w = {.len = 0};
	uint64_t c[3];

	session_quality_counts(&r->ses, c);
	printf("# Symbols: %llu frames full (function, file:line), %llu basic (function), %llu "
	       "none\n",
	       (unsigned long long)c[SYMQ_FULL], (unsigned long long)c[SYMQ_BASIC],
	       (unsigned long long)c[SYMQ_NONE]);
	session_weak_modules(&r->ses, add_weak, &w);
	if (w.n)
		printf("# Without full symbols: %s\n", w.buf);
	print_served(r);
	print_list("Not read when recording", profile_get_meta(&r->ses.prof, "skipped_files"));
	printf("#\n");
}

static void print_meta(const struct report *r)
{
	char key[128], buf[1024];
	size_t i;

	printf("# ========\n");
	for (i = 0; i < r->ses.prof.nr_meta; i++) {
		prof_sanitize(key, sizeof(key), r->ses.prof.meta[i].key);
		prof_sanitize(buf, sizeof(buf), r->ses.prof.meta[i].value);
		printf("# %s : %s\n", key, buf);
	}
	printf("# ========\n#\n");
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

static void print_header(const struct report *r)
{
	const char *ev = profile_get_meta(&r->ses.prof, "event");
	const char *cmdline = profile_get_meta(&r->ses.prof, "cmdline");
	char unit, buf[1024], t0[32], t1[32];
	unsigned long long nr = scaled(r->m.hist.total_nr, &unit);

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
	print_list("symbol", r->symbols);
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
	printf("# Samples: %llu%c", nr, unit);
	if (ev) {
		const char *freq = profile_get_meta(&r->ses.prof, "freq");

		prof_sanitize(buf, sizeof(buf), ev);
		printf(" of event '%s'", buf);
		if (freq && strcmp(freq, "0"))
			printf(" at %s Hz", freq);
	}
	if (r->time)
		printf(" (time slices: %s)", r->time);
	printf("\n# Event count (approx.): %llu\n#\n", (unsigned long long)r->m.hist.total);
	print_quality(r);
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
	return c == COL_OVERHEAD && r->mo.children ? "Self" : col_header(c);
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
static int col_elided(const struct report *r, int c)
{
	return (c == COL_KEY + HIST_KEY_COMM && r->filt.nr_comms == 1) ||
	       (c == COL_KEY + HIST_KEY_DSO && r->filt.nr_dsos == 1) ||
	       (c == COL_KEY + HIST_KEY_SYM && r->filt.nr_syms == 1);
}

/* Widths over every entry, as perf (not only the rows above --percent-limit). */
static void compute_widths(struct report *r)
{
	const struct hist *h = &r->m.hist;
	char buf[1200];
	int comm_w = 7;
	unsigned k;
	size_t i;

	for (i = 0; i < h->nr_entries; i++) {
		int l = (int)strlen(hist_str(h, h->entries[i].f.comm));

		if (l > comm_w)
			comm_w = l;
	}
	for (k = 0; k < r->nr_cols; k++) {
		int c = r->cols[k];

		r->width[k] = (int)strlen(col_title(r, c));
		if (c == COL_OVERHEAD || c == COL_CHILDREN)
			r->width[k] = 8;
		else if (c == COL_SAMPLE || c == COL_PERIOD)
			r->width[k] = 12;
		else if (c == COL_KEY + HIST_KEY_PID || c == COL_KEY + HIST_KEY_TID)
			r->width[k] = comm_w + 8;
		else if (c == COL_KEY + HIST_KEY_CPU)
			r->width[k] = 3;
		else
			for (i = 0; i < h->nr_entries; i++) {
				const struct hist_entry *e = &h->entries[i];
				int l;

				if (!r->mo.children && !e->self_nr)
					continue;
				l = (int)strlen(key_text(r, e, c, buf, sizeof(buf)));
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

static void print_row(const struct report *r, const struct hist_entry *e)
{
	const struct hist *h = &r->m.hist;
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
		switch (c) {
		case COL_OVERHEAD:
			print_pct(r->width[k], e->self, h->total);
			break;
		case COL_CHILDREN:
			print_pct(r->width[k], e->children, h->total);
			break;
		case COL_SAMPLE:
			printf("%*llu", r->width[k], (unsigned long long)e->self_nr);
			break;
		case COL_PERIOD:
			printf("%*llu", r->width[k], (unsigned long long)e->self);
			break;
		default: {
			const char *t = key_text(r, e, c, buf, sizeof(buf));

			if (k == last)
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
	uint64_t total = r->m.hist.total;
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

static int collect_paths(struct path_ctx *p, uint32_t node, uint64_t min_hit)
{
	const struct callchains *cc = &p->r->m.hist.cc;
	uint32_t i;
	int ret;

	for (i = cc_node(cc, node)->child; i != CC_NONE; i = cc_node(cc, i)->next) {
		ret = collect_paths(p, i, min_hit);
		if (ret)
			return ret;
	}
	if (cc_node(cc, node)->parent != CC_NONE && cc_node(cc, node)->hit &&
	    cc_node(cc, node)->hit >= min_hit) {
		if (ZT_GROW(p->nodes, p->cap, p->nr + 1))
			return -ENOMEM;
		p->nodes[p->nr++] = node;
	}
	return 0;
}

static const struct callchains *sort_cc;

static int path_cmp(const void *pa, const void *pb)
{
	const struct cc_node *a = cc_node(sort_cc, *(const uint32_t *)pa);
	const struct cc_node *b = cc_node(sort_cc, *(const uint32_t *)pb);

	if (a->hit != b->hit)
		return a->hit > b->hit ? -1 : 1;
	return *(const uint32_t *)pa < *(const uint32_t *)pb ? -1 : 1;
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

	ret = collect_paths(&p, e->chain, chain_min_hit(r, r->m.hist.total));
	if (!ret && p.nr) {
		sort_cc = cc;
		qsort(p.nodes, p.nr, sizeof(*p.nodes), path_cmp);
	}
	for (i = 0; !ret && i < p.nr; i++) {
		const struct cc_node *n = cc_node(cc, p.nodes[i]);
		size_t len = path_of(cc, p.nodes[i], &path, &cap);

		if (r->mode == CHAIN_FOLDED)
			chain_value(r, val, sizeof(val), n->hit, n->count, r->m.hist.total);
		else
			chain_value(r, val, sizeof(val), cc_cumul(n), cc_cumul_count(n),
				    r->m.hist.total);
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

static int print_stdio(struct report *r, const struct hist_entry *const *rows, size_t nr)
{
	size_t i;
	int ret = 0;

	if (!r->quiet)
		print_header(r);
	compute_widths(r);
	if (!r->quiet)
		print_table_header(r);
	for (i = 0; i < nr && !ret; i++) {
		print_row(r, rows[i]);
		if (r->mode != CHAIN_NONE)
			ret = print_chains(r, rows[i]);
	}
	printf("\n\n");
	return ret;
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
	r->mo.chain =
		r->mode == CHAIN_NONE && !r->tui ? HIST_CHAIN_NONE : (enum hist_chain)r->order;
	if (!has_cg)
		r->mo.chain = HIST_CHAIN_NONE;
	r->mo.inline_frames = r->inline_frames;
	/* text: an entry under the threshold shows no branch (fractal's is relative) */
	if (!r->tui && r->mode != CHAIN_FRACTAL)
		r->mo.chain_min_pct = r->chain_min;
	if (!r->fields) {
		default_cols(r);
	} else {
		unsigned k;

		r->mo.sort_self = 1;
		for (k = 0; k < r->nr_cols; k++)
			if (r->cols[k] == COL_CHILDREN)
				r->mo.sort_self = 0;
	}
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

static char *demangle_kernel(void *ctx, const char *name)
{
	const struct report *r = ctx;

	return r->demangle ? zt_demangle(name, r->so.full_signature) : NULL;
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
	printf("# GPU: %llu kernel launches of %zu kernels, %s of GPU time; %llu PC samples\n#\n",
	       (unsigned long long)gr->nr_records, gr->nr_kernels,
	       gpureport_fmt_dur(buf, sizeof(buf), gr->total_ns), (unsigned long long)gr->pc_samples);
	printf("# GPU symbols: %llu PCs with lines (function, file:line), %llu names only, %llu "
	       "none\n",
	       (unsigned long long)gr->pcs_full, (unsigned long long)gr->pcs_basic,
	       (unsigned long long)gr->pcs_none);
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

	if (!r->quiet)
		print_gpu_summary(r, gr, ft);
	print_gpu_kernels(gr);
	printf("# ======== Launch sites: the kernels' CPU call chains, by GPU time ========\n#\n");
	compute_widths(r);
	print_table_header(r);
	for (i = 0; i < nr && !ret; i++) {
		print_row(r, rows[i]);
		if (r->mode != CHAIN_NONE)
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
	const struct gpureport_opts go = {demangle_kernel, r};
	const struct prof_gpu *g = r->ses.prof.gpu;
	const struct hist_entry **rows;
	struct rmodel_input in;
	struct gpu_frametab ft;
	struct gpureport gr;
	struct gpu_view v;
	size_t nrows;
	int ret;

	if (!g || prof_gpu_empty(g)) {
		cmd_error("'%s' has no GPU records (record with zt record --gpu)", r->input);
		return ZT_EXIT_FAIL;
	}
	gpu_frametab_init(&ft);
	memset(&gr, 0, sizeof(gr));
	gpu_frametab_init(&gr.strs);
	ret = gpu_view_init(&v, g);
	if (!ret)
		ret = session_gpu_frames(&r->ses, &v, &ft);
	if (!ret)
		ret = gpureport_init(&gr, &v, &ft, &go);
	if (!ret)
		ret = gpureport_launches(&gr, &v, &r->ses.ft, &in);
	if (!ret) {
		setup_chains(r, launches_have_stacks(&in));
		ret = rmodel_init_with(&r->m, &r->ses.prof, r->ses.pt, &r->ses.ft, &in, NULL, NULL);
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
		ret = print_gpu_stdio(r, &gr, &ft, rows, nrows);
		if (ret) {
			cmd_error("cannot print the GPU report: %s", strerror(-ret));
			ret = ZT_EXIT_FAIL;
		}
	}
	/* the launch model's frames name the report's strings: it goes first */
	rmodel_release(&r->m);
	gpureport_release(&gr);
	gpu_frametab_release(&ft);
	gpu_view_release(&v);
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

static const char *const report_usage[] = {
	"zt report [<options>]",
	NULL,
};

int cmd_report(int argc, char **argv)
{
	struct report r = {.input = "zt.data",
			   .children = -1,
			   .demangle = 1,
			   .inline_frames = 1,
			   .mode = CHAIN_GRAPH,
			   .chain_min = 0.5,
			   .so = {.use_debuginfod = 1, .use_cache = 1, .use_symdb = 1}};
	const struct opt opts[] = {
		{OPT_STRING, 'i', "input", &r.input, "file",
		 "input file name: zt.data or perf.data (default: zt.data)"},
		{OPT_STRING, 0, "event", &r.event, "name",
		 "the event to report of a perf.data file with several"},
		{OPT_BOOL, 0, "stdio", &r.stdio, NULL,
		 "text output (default when stdout is not a terminal)"},
		{OPT_BOOL, 0, "tui", &r.tui, NULL,
		 "the interactive browser (default on a terminal)"},
		{OPT_BOOL, 0, "gpu", &r.gpu, NULL,
		 "the GPU side of a zt record --gpu recording: kernels, launch sites, hot lines "
		 "with stall reasons, memory copies"},
		{OPT_GROUP, 0, NULL, NULL, NULL, "What to show"},
		{OPT_STRING, 's', "sort", &r.sort, "key[,key...]",
		 "sort by keys: comm, pid (thread; or tid), tgid (process), dso, sym, srcline, "
		 "cpu, symq "
		 "(default: comm,dso,sym)"},
		{OPT_STRING, 'F', "fields", &r.fields, "field[,field...]",
		 "columns: overhead, overhead_children, sample, period and sort keys"},
		{OPT_BOOL, 0, "children", &r.children, NULL,
		 "Children (callees included) next to Self (default with call graphs); "
		 "--no-children: Self only"},
		{OPT_STRING, 'g', "call-graph", &r.callgraph,
		 "mode[,min%][,caller|callee][,percent|period|count]",
		 "call chains under entries: graph (default), flat, folded, fractal or none", NULL,
		 1},
		{OPT_BOOL, 'G', "inverted", &r.inverted, NULL,
		 "call chains from the outermost caller (caller order)"},
		{OPT_BOOL, 0, "inline", &r.inline_frames, NULL,
		 "inlined functions as frames of their own (default); --no-inline: not"},
		{OPT_DOUBLE, 0, "percent-limit", &r.percent_limit, "pct",
		 "hide entries below this overhead percentage"},
		{OPT_BOOL, 'n', "show-nr-samples", &r.show_nr, NULL, "show a Samples column"},
		{OPT_BOOL, 0, "show-total-period", &r.show_period, NULL, "show a Period column"},
		{OPT_BOOL, 0, "header", &r.header, NULL, "show the recording's header info first"},
		{OPT_BOOL, 0, "header-only", &r.header_only, NULL,
		 "show only the recording's header info"},
		{OPT_BOOL, 'q', "quiet", &r.quiet, NULL, "no header lines, no warnings"},
		{OPT_GROUP, 0, NULL, NULL, NULL, "Filters"},
		{OPT_STRING, 'c', "comms", &r.comm, "comm[,comm...]", "only these thread names"},
		{OPT_STRING, 0, "comm", &r.comm, "comm[,comm...]", "the same as --comms"},
		{OPT_STRING, 0, "pid", &r.pid, "pid[,pid...]", "only these processes"},
		{OPT_STRING, 0, "tid", &r.tid, "tid[,tid...]", "only these threads"},
		{OPT_STRING, 'd', "dsos", &r.dso, "dso[,dso...]", "only entries in these modules"},
		{OPT_STRING, 0, "dso", &r.dso, "dso[,dso...]", "the same as --dsos"},
		{OPT_STRING, 'S', "symbols", &r.symbols, "sym[,sym...]",
		 "only entries of these functions"},
		{OPT_STRING, 'C', "cpu", &r.cpu, "cpus", "only samples on these CPUs (0,2-3)"},
		{OPT_STRING, 0, "time", &r.time, "start,end",
		 "only samples in this time range: seconds as zt script shows them, or A%-B%"},
		{OPT_BOOL, 'f', "force", &r.force, NULL,
		 "report the readable part of a damaged file"},
		{OPT_BOOL, 0, "demangle", &r.demangle, NULL,
		 "demangle C++ and Rust names (default); --no-demangle: keep them raw"},
		SYMOPTS_NAME_OPTIONS(r.so),
		SYMOPTS_OPTIONS(r.so),
		SYMOPTS_SYMDB_OPTIONS(r.so),
		SYMOPTS_KERNEL_OPTIONS(r.so),
		OPT_EOL,
	};
	struct cmd_progress prog = {0};
	double t0 = now_ms(), t1, t2, t3;
	const struct hist_entry **rows;
	char gbuf[256];
	size_t nrows;
	int rest, ret;

	rfilter_init(&r.filt);
	argc = fold_g_argument(argc, argv, gbuf, sizeof(gbuf));
	ret = opts_parse("report", report_usage, opts, argc, argv, &rest);
	cmd_setup("report", r.quiet ? -1 : r.so.verbose);
	if (ret == OPTS_HELP || ret == OPTS_ERROR) {
		ret = ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
		goto out;
	}
	ret = ZT_EXIT_USAGE;
	if (rest < argc) {
		cmd_error("unexpected argument '%s': the input is given with -i", argv[rest]);
		goto out;
	}
	if (r.stdio && r.tui) {
		cmd_error("--stdio and --tui: choose one");
		goto out;
	}
	if (!r.stdio && isatty(STDOUT_FILENO))
		r.tui = 1;
	if (r.sort ? parse_sort(&r) : 0)
		goto out;
	if (r.fields && parse_fields(&r, r.sort != NULL))
		goto out;
	if (!r.mo.nr_keys) {
		r.sort = NULL;
		add_key(&r, HIST_KEY_COMM);
		add_key(&r, HIST_KEY_DSO);
		add_key(&r, HIST_KEY_SYM);
	}
	if (r.callgraph && parse_callgraph(&r, r.callgraph))
		goto out;
	if (r.percent_limit < 0 || r.percent_limit > 100) {
		cmd_error("--percent-limit must be between 0 and 100, not %g", r.percent_limit);
		goto out;
	}
	if (r.percent_limit > 0) /* perf: hides call-chain branches below it too */
		r.chain_min = r.percent_limit;
	if (setup_filters(&r))
		goto out;
	if (symopts_init(&r.so, "report")) {
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	if (cmd_open_session(&r.ses, r.input, &r.so, r.force, r.event, r.demangle)) {
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	t1 = now_ms();
	if (r.header_only) {
		print_meta(&r);
		ret = ZT_EXIT_OK;
		goto out;
	}
	if (r.gpu) {
		ret = report_gpu(&r);
		goto out;
	}
	if (!r.ses.prof.nr_samples) {
		cmd_error("'%s' has no samples", r.input);
		ret = ZT_EXIT_OK;
		goto out;
	}
	{
		setup_chains(&r, profile_has_callchains(&r.ses.prof));
		ret = rmodel_init(&r.m, &r.ses.prof, r.ses.pt, &r.ses.ft, on_progress, &prog);
		frametab_seal(&r.ses.ft); /* every frame is resolved: no more lookups */
		if (prog.what)
			cmd_progress_end(&prog);
		cmd_info("%zu samples in %zu groups; %zu addresses resolved to %zu frames",
			 r.ses.prof.nr_samples, r.m.nr_groups, r.m.nr_addrs, r.m.nr_templates);
	}
	t2 = now_ms();
	if (!ret)
		ret = rmodel_build(&r.m, &r.mo);
	if (!ret)
		ret = rmodel_sort(&r.m, r.percent_limit, &rows, &nrows);
	t3 = now_ms();
	cmd_info("read in %.0f ms, resolved in %.0f ms, %zu entries in %.0f ms", t1 - t0, t2 - t1,
		 r.m.hist.nr_entries, t3 - t2);
	if (ret) {
		cmd_error("cannot build the report: %s", strerror(-ret));
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	if (r.tui) {
		struct report_tui_opts to = {r.mo,	  &r.filt, r.percent_limit,
					     r.chain_min, r.input, NULL};

		to.event = profile_get_meta(&r.ses.prof, "event");
		to.symmod = &r.so.mo;
		to.vmlinux = r.so.vmlinux;
		ret = report_tui(&r.m, &to);
		goto out;
	}
	ret = print_stdio(&r, rows, nrows);
	cmd_info("printed in %.0f ms", now_ms() - t3);
	if (ret) {
		cmd_error("cannot print the report: %s", strerror(-ret));
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	ret = ZT_EXIT_OK;
out:
	report_release(&r);
	return ret;
}
