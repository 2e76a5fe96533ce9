/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt diff: two (or more) recordings side by side, each function's share in
 * the baseline and its change in the others, as `perf diff` prints them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"
#include "cmd/symopts.h"
#include "libprof/hdiff.h"
#include "libprof/rmodel.h"

/* perf's diff columns */
enum dcol { DCOL_BASELINE, DCOL_BASE_PERIOD, DCOL_VALUE, DCOL_FORMULA, DCOL_PERIOD, DCOL_KEY };

struct column {
	enum dcol kind;
	size_t file;	   /* of the numeric columns */
	enum hist_key key; /* DCOL_KEY */
	int width;
	char title[64];
};

#define MAX_COLUMNS (4 * HDIFF_MAX_FILES + HIST_MAX_KEYS)

struct diff {
	const char *sort, *compute, *percentage;
	const char *comm, *pid, *tid, *dso, *symbols, *cpu, *time;
	int baseline_only, period, formula, quiet, force, order, demangle;
	struct symopts so;
	struct rfilter filt;
	struct rmodel_opts mo;
	struct hdiff_opts ho;
	int absolute;
	const char *paths[HDIFF_MAX_FILES];
	size_t nr_files;
	struct session ses[HDIFF_MAX_FILES];
	int opened[HDIFF_MAX_FILES];
	struct rmodel m[HDIFF_MAX_FILES];
	struct hdiff d;
	struct column cols[MAX_COLUMNS];
	size_t nr_cols;
};

/* ---- options ---- */

/* -c delta|delta-abs|ratio|wdiff:w1,w2 */
static int parse_compute(struct diff *df)
{
	const char *c = df->compute;
	char *end;

	if (!strcmp(c, "delta"))
		df->ho.compute = HDIFF_DELTA;
	else if (!strcmp(c, "delta-abs"))
		df->ho.compute = HDIFF_DELTA_ABS;
	else if (!strcmp(c, "ratio"))
		df->ho.compute = HDIFF_RATIO;
	else if (!strncmp(c, "wdiff", 5)) {
		df->ho.compute = HDIFF_WDIFF;
		if (c[5] != ':')
			goto weights;
		df->ho.w1 = strtoll(c + 6, &end, 10);
		if (end == c + 6 || *end != ',')
			goto weights;
		c = end + 1;
		df->ho.w2 = strtoll(c, &end, 10);
		if (end == c || *end || !df->ho.w1 || !df->ho.w2)
			goto weights;
	} else {
		cmd_error("-c: '%s' is not a computation: use delta, delta-abs, ratio or "
			  "wdiff:W1,W2",
			  df->compute);
		return -1;
	}
	return 0;
weights:
	cmd_error("-c: wrong weights in '%s': use wdiff:W1,W2 (two nonzero integers)", df->compute);
	return -1;
}

static int parse_sort(struct diff *df)
{
	char buf[256], *save = NULL, *tok;

	if (!df->sort) {
		df->mo.keys[0] = HIST_KEY_DSO;
		df->mo.keys[1] = HIST_KEY_SYM;
		df->mo.nr_keys = 2;
		return 0;
	}
	if (strlen(df->sort) >= sizeof(buf)) {
		cmd_error("--sort: the list is too long");
		return -1;
	}
	strcpy(buf, df->sort);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum hist_key k;

		if (hist_key_parse(tok, &k) || k == HIST_KEY_PARENT) {
			cmd_error(
				"--sort: unknown key '%s': use comm, pid, tgid, dso, sym, srcline, "
				"cpu or symq",
				tok);
			return -1;
		}
		if (df->mo.nr_keys < HIST_MAX_KEYS)
			df->mo.keys[df->mo.nr_keys++] = k;
	}
	if (!df->mo.nr_keys) {
		cmd_error("--sort: no keys given");
		return -1;
	}
	return 0;
}

/* ---- reading ---- */

static int open_all(struct diff *df)
{
	const struct cmd_filter_args a = {df->comm,    df->pid, df->tid, df->dso,
					  df->symbols, df->cpu, df->time};
	size_t i;

	if (cmd_filters(&df->filt, &a))
		return -1;
	df->mo.filter = &df->filt;
	df->mo.chain = HIST_CHAIN_NONE;
	df->mo.children = 0;
	df->mo.inline_frames = 0; /* perf diff: the address's own function */
	if (symopts_init(&df->so, "diff"))
		return -1;
	for (i = 0; i < df->nr_files; i++) {
		if (cmd_open_session_events(&df->ses[i], df->paths[i], &df->so, df->force, NULL,
					    df->demangle, 1))
			return -1;
		df->opened[i] = 1;
		if (cmd_check_cpu_filter(&df->ses[i], &df->filt))
			return -1;
	}
	return 0;
}

/* The event of file f matching the baseline's event ev (perf: the same
 * type and config; without a table, the one event), or -1. */
static int match_event(const struct diff *df, size_t f, uint32_t ev)
{
	const struct profile *b = &df->ses[0].prof, *p = &df->ses[f].prof;
	const char *name = profile_event_name(b, ev);
	size_t i;

	if (!b->nr_events || !p->nr_events) {
		const char *other = profile_event_name(p, 0);

		if (profile_nr_events(p) == 1 && (!name || !other || !strcmp(name, other)))
			return 0;
		for (i = 0; i < p->nr_events; i++)
			if (name && !strcmp(name, p->events[i].name))
				return (int)i;
		return -1;
	}
	for (i = 0; i < p->nr_events; i++)
		if (p->events[i].type == b->events[ev].type &&
		    p->events[i].config == b->events[ev].config)
			return (int)i;
	return -1;
}

/* ---- the table ---- */

static void add_col(struct diff *df, enum dcol kind, size_t file, enum hist_key key)
{
	static const char *const names[] = {
		[DCOL_BASELINE] = "Baseline",
		[DCOL_BASE_PERIOD] = "Base period",
		[DCOL_FORMULA] = "Formula",
		[DCOL_PERIOD] = "Period",
	};
	static const char *const values[] = {
		[HDIFF_DELTA_ABS] = "Delta Abs",
		[HDIFF_DELTA] = "Delta",
		[HDIFF_RATIO] = "Ratio",
		[HDIFF_WDIFF] = "Weighted diff",
	};
	static const int value_width[] = {
		[HDIFF_DELTA_ABS] = 7, [HDIFF_DELTA] = 7, [HDIFF_RATIO] = 14, [HDIFF_WDIFF] = 14};
	struct column *c = &df->cols[df->nr_cols++];
	const char *name;
	int w = 0;

	c->kind = kind;
	c->file = file;
	c->key = key;
	if (kind == DCOL_KEY) {
		snprintf(c->title, sizeof(c->title), "%s", hist_key_title(key));
		c->width = (int)strlen(c->title);
		return;
	}
	name = kind == DCOL_VALUE ? values[df->ho.compute] : names[kind];
	/* perf: the width of the column or of its title, "/N" after it with more than two files */
	if (df->nr_files > 2)
		snprintf(c->title, sizeof(c->title), "%s/%zu", name, file);
	else
		snprintf(c->title, sizeof(c->title), "%s", name);
	switch (kind) {
	case DCOL_VALUE:
		w = value_width[df->ho.compute];
		break;
	case DCOL_FORMULA:
		w = 70;
		break;
	case DCOL_PERIOD:
	case DCOL_BASE_PERIOD:
		w = 14;
		break;
	default:
		break;
	}
	c->width = (int)strlen(c->title) > w ? (int)strlen(c->title) : w;
}

static void setup_columns(struct diff *df)
{
	size_t i;
	unsigned k;

	df->nr_cols = 0;
	for (i = 0; i < df->nr_files; i++) {
		add_col(df, i ? DCOL_VALUE : DCOL_BASELINE, i, 0);
		if (df->formula && i)
			add_col(df, DCOL_FORMULA, i, 0);
		if (df->period)
			add_col(df, i ? DCOL_PERIOD : DCOL_BASE_PERIOD, i, 0);
	}
	for (k = 0; k < df->mo.nr_keys; k++) {
		enum hist_key key = df->mo.keys[k];

		/* perf leaves out a column that a filter pins to one value */
		if ((key == HIST_KEY_COMM && df->filt.nr_comms == 1) ||
		    (key == HIST_KEY_DSO && df->filt.nr_dsos == 1) ||
		    (key == HIST_KEY_SYM && df->filt.nr_syms == 1))
			continue;
		add_col(df, DCOL_KEY, 0, key);
	}
}

static const char *key_text(const struct diff *df, const struct hdiff_row *r, enum hist_key k,
			    char *buf, size_t n)
{
	size_t f = 0;
	const struct hist_entry *e = hdiff_row_entry(&df->d, r, &f);

	return hist_key_text(df->d.h[f], e, k, buf, n);
}

static void key_widths(struct diff *df)
{
	char buf[1200];
	size_t c, i;

	for (c = 0; c < df->nr_cols; c++) {
		struct column *col = &df->cols[c];

		if (col->kind != DCOL_KEY)
			continue;
		for (i = 0; i < df->d.nr_rows; i++) {
			const struct hdiff_row *r = &df->d.rows[i];
			size_t f = 0;
			const struct hist_entry *e = hdiff_row_entry(&df->d, r, &f);
			int l = hist_key_width(e, col->key,
					       (int)strlen(key_text(df, r, col->key, buf, sizeof(buf))),
					       df->filt.nr_dsos != 0);

			if (l > col->width)
				col->width = l;
		}
	}
}

static void print_header(const struct diff *df)
{
	size_t c;
	int i;

	fputs("# ", stdout);
	for (c = 0; c < df->nr_cols; c++) {
		const struct column *col = &df->cols[c];

		if (c)
			fputs("  ", stdout);
		printf(col->kind == DCOL_KEY ? "%-*s" : "%*s", col->width, col->title);
	}
	fputs("\n# ", stdout);
	for (c = 0; c < df->nr_cols; c++) {
		if (c)
			fputs("  ", stdout);
		for (i = 0; i < df->cols[c].width; i++)
			putchar('.');
	}
	fputs("\n#\n", stdout);
}

/* The text of a numeric column, as perf's hpp__entry_global() makes it. */
static void cell(const struct diff *df, const struct hdiff_row *r, const struct column *col,
		 char *buf, size_t n)
{
	const struct hdiff *d = &df->d;
	size_t f = col->file;
	uint64_t old = r->period[0], new = r->period[f];

	snprintf(buf, n, " ");
	switch (col->kind) {
	case DCOL_BASELINE:
		if (r->e[0])
			snprintf(buf, n, "%6.2f%%", hdiff_percent(d, r, 0));
		return;
	case DCOL_BASE_PERIOD:
		snprintf(buf, n, "%" PRIu64, old);
		return;
	default:
		break;
	}
	if (!r->e[f])
		return;
	switch (col->kind) {
	case DCOL_VALUE:
		switch (df->ho.compute) {
		case HDIFF_DELTA:
		case HDIFF_DELTA_ABS:
			snprintf(buf, n, "%+4.2F%%", r->delta[f]);
			break;
		case HDIFF_RATIO:
			if (!r->e[0])
				snprintf(buf, n, "N/A");
			else if (r->ratio[f] > 0.0)
				snprintf(buf, n, "%14.6F", r->ratio[f]);
			break;
		case HDIFF_WDIFF:
			if (!r->e[0])
				snprintf(buf, n, "N/A");
			else
				snprintf(buf, n, "%14" PRId64, r->wdiff[f]);
			break;
		}
		break;
	case DCOL_FORMULA:
		switch (df->ho.compute) {
		case HDIFF_DELTA:
		case HDIFF_DELTA_ABS:
			snprintf(buf, n,
				 "(%" PRIu64 " * 100 / %" PRIu64 ") - (%" PRIu64 " * 100 / %" PRIu64
				 ")",
				 new, d->total[f], old, d->total[0]);
			break;
		case HDIFF_RATIO:
			snprintf(buf, n, "%.0F / %.0F", (double)new, (double)old);
			break;
		case HDIFF_WDIFF:
			snprintf(buf, n,
				 "(%" PRIu64 " * %" PRId64 ") - (%" PRIu64 " * %" PRId64 ")", new,
				 df->ho.w2, old, df->ho.w1);
			break;
		}
		break;
	case DCOL_PERIOD:
		snprintf(buf, n, "%" PRIu64, new);
		break;
	default:
		break;
	}
}

static void print_row(const struct diff *df, const struct hdiff_row *r)
{
	char buf[1200];
	size_t c;

	for (c = 0; c < df->nr_cols; c++) {
		const struct column *col = &df->cols[c];

		fputs("  ", stdout);
		if (col->kind != DCOL_KEY) {
			cell(df, r, col, buf, sizeof(buf));
			/* perf: a weighted diff in 14 columns, then blanks to the
			 * title's width */
			if (col->kind == DCOL_VALUE && df->ho.compute == HDIFF_WDIFF && r->e[0] &&
			    r->e[col->file])
				printf("%-*s", col->width, buf);
			else
				printf("%*s", col->width, buf);
		} else if (c + 1 == df->nr_cols && col->key == HIST_KEY_SYM) {
			/* perf pads the last column, but for a symbol */
			fputs(key_text(df, r, col->key, buf, sizeof(buf)), stdout);
		} else {
			printf("%-*s", col->width, key_text(df, r, col->key, buf, sizeof(buf)));
		}
	}
	putchar('\n');
}

/* One event: its histogram in each file, paired and printed. 0 or a negative errno. */
static int diff_event(struct diff *df, uint32_t ev, int first)
{
	const struct hist *h[HDIFF_MAX_FILES];
	uint64_t totals[HDIFF_MAX_FILES];
	char name[256];
	size_t i;
	int ret = 0;

	for (i = 0; i < df->nr_files && !ret; i++) {
		int fev = i ? match_event(df, i, ev) : (int)ev;
		struct session *s = &df->ses[i];

		memset(&df->m[i], 0, sizeof(df->m[i]));
		/* a file without the event: an empty model (no samples of it) */
		ret = rmodel_init_event(&df->m[i], session_stacks(s),
					fev < 0 ? UINT32_MAX : (uint32_t)fev, NULL, NULL);
		if (!ret)
			ret = rmodel_build(&df->m[i], &df->mo);
		h[i] = &df->m[i].hist;
		totals[i] = df->absolute ? df->m[i].total : df->m[i].shown;
	}
	if (!ret)
		ret = hdiff_build(&df->d, h, totals, df->nr_files, &df->ho);
	if (ret)
		goto out;
	if (!df->quiet) {
		prof_sanitize(name, sizeof(name), profile_event_name(&df->ses[0].prof, ev) ?: "");
		printf("%s# Event '%s'\n#\n", first ? "" : "\n", name);
		if (df->nr_files > 2 || df->so.verbose) {
			printf("# Data files:\n");
			for (i = 0; i < df->nr_files; i++) {
				prof_sanitize(name, sizeof(name), df->paths[i]);
				printf("#  [%zu] %s %s\n", i, name, i ? "" : "(Baseline)");
			}
			printf("#\n");
		}
	}
	setup_columns(df);
	key_widths(df);
	if (!df->quiet)
		print_header(df);
	for (i = 0; i < df->d.nr_rows; i++)
		print_row(df, &df->d.rows[i]);
	hdiff_release(&df->d);
out:
	for (i = 0; i < df->nr_files; i++)
		rmodel_release(&df->m[i]);
	return ret;
}

static int diff_events(struct diff *df)
{
	const struct profile *b = &df->ses[0].prof;
	uint32_t ev;
	int ret = 0;

	for (ev = 0; !ret && ev < profile_nr_events(b); ev++)
		ret = diff_event(df, ev, ev == 0);
	return ret;
}

static void diff_release(struct diff *df)
{
	size_t i;

	for (i = 0; i < df->nr_files; i++)
		if (df->opened[i])
			session_close(&df->ses[i]);
	rfilter_release(&df->filt);
	symopts_release(&df->so);
}

static const char *const diff_usage[] = {
	"zt diff [<options>] [old_file] [new_file]",
	"zt diff [<options>] baseline_file file...",
	NULL,
};

static int diff_parse_options(struct diff *df, int argc, char **argv, int *rest)
{
	const struct opt opts[] = {
		{OPT_BOOL, 'b', "baseline-only", &df->baseline_only, NULL,
		 "show only the entries the baseline has"},
		{OPT_STRING, 'c', "compute", &df->compute, "delta,delta-abs,ratio,wdiff:w1,w2",
		 "what to compute against the baseline (default delta-abs)"},
		{OPT_BOOL, 'p', "period", &df->period, NULL, "show the period values"},
		{OPT_BOOL, 'F', "formula", &df->formula, NULL, "show the formula"},
		{OPT_INT, 'o', "order", &df->order, "n",
		 "order by the values of file n first (default 1; 0: by the baseline)"},
		{OPT_STRING, 's', "sort", &df->sort, "key[,key...]",
		 "pair and order by these keys: dso, sym, comm, pid, tgid, srcline, cpu, symq "
		 "(default dso,sym)"},
		{OPT_STRING, 0, "percentage", &df->percentage, "relative|absolute",
		 "with filters, percentages of everything (absolute, default) or of what they "
		 "let through (relative)"},
		{OPT_BOOL, 'q', "quiet", &df->quiet, NULL, "no header lines, no warnings"},
		{OPT_BOOL, 'f', "force", &df->force, NULL,
		 "read the readable part of damaged files"},
		{OPT_BOOL, 0, "demangle", &df->demangle, NULL,
		 "demangle C++ and Rust names (default); --no-demangle: keep them raw"},
		SYMOPTS_NAME_OPTIONS(df->so),
		{OPT_GROUP, 0, NULL, NULL, NULL, "Filters"},
		{OPT_STRING, 'C', "comms", &df->comm, "comm[,comm...]", "only these thread names"},
		{OPT_STRING, 'd', "dsos", &df->dso, "dso[,dso...]",
		 "only entries in these modules"},
		{OPT_STRING, 'S', "symbols", &df->symbols, "sym[,sym...]",
		 "only entries of these functions"},
		{OPT_STRING, 0, "pid", &df->pid, "pid[,pid...]", "only these processes"},
		{OPT_STRING, 0, "tid", &df->tid, "tid[,tid...]", "only these threads"},
		{OPT_STRING, 0, "cpu", &df->cpu, "cpus", "only samples on these CPUs (0,2-3)"},
		{OPT_STRING, 0, "time", &df->time, "start,end",
		 "only samples in this time range: seconds, or A%-B%"},
		SYMOPTS_OPTIONS(df->so),
		SYMOPTS_SYMDB_OPTIONS(df->so),
		SYMOPTS_KERNEL_OPTIONS(df->so),
		SYMOPTS_PYTHON_OPTIONS(df->so),
		OPT_EOL,
	};

	return opts_parse_permute("diff", diff_usage, opts, argc, argv, rest);
}

/* The files to compare (argv[rest..], or perf's defaults) and the
 * options' values: ZT_EXIT_OK or ZT_EXIT_USAGE (the message shown). */
static int diff_check_options(struct diff *df, int argc, char **argv, int rest)
{
	int n = argc - rest;

	if (n > HDIFF_MAX_FILES) {
		cmd_error("%d files: zt diff compares at most %d", n, HDIFF_MAX_FILES);
		return ZT_EXIT_USAGE;
	}
	/* perf's defaults: FILE.old and FILE (zt record keeps the old one so) */
	df->nr_files = n < 2 ? 2 : (size_t)n;
	df->paths[0] = n >= 2 ? argv[rest] : "zt.data.old";
	df->paths[1] = n >= 2 ? argv[rest + 1] : n == 1 ? argv[rest] : "zt.data";
	for (int i = 2; i < n; i++)
		df->paths[i] = argv[rest + i];
	if (df->order < 0)
		df->order = 1;
	if ((size_t)df->order >= df->nr_files) {
		cmd_error("-o %d: there are files 0 to %zu: choose one of them", df->order,
			  df->nr_files - 1);
		return ZT_EXIT_USAGE;
	}
	df->ho.order = (unsigned)df->order;
	df->ho.baseline_only = df->baseline_only;
	if (df->compute && parse_compute(df))
		return ZT_EXIT_USAGE;
	/* perf diff's default: of every sample */
	df->absolute = 1;
	if (df->percentage && strcmp(df->percentage, "absolute")) {
		if (strcmp(df->percentage, "relative")) {
			cmd_error("--percentage: '%s': use relative or absolute", df->percentage);
			return ZT_EXIT_USAGE;
		}
		df->absolute = 0;
	}
	if (parse_sort(df))
		return ZT_EXIT_USAGE;
	return ZT_EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct diff df = {.demangle = 1,
			  .order = -1,
			  .so = {.use_debuginfod = 1, .use_cache = 1, .use_symdb = 1}};
	int rest, ret;

	rfilter_init(&df.filt);
	ret = diff_parse_options(&df, argc, argv, &rest);
	cmd_setup("diff", df.quiet ? -1 : df.so.verbose);
	if (ret == OPTS_HELP || ret == OPTS_ERROR) {
		ret = ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
		goto out;
	}
	ret = diff_check_options(&df, argc, argv, rest);
	if (ret != ZT_EXIT_OK)
		goto out;
	ret = ZT_EXIT_FAIL;
	if (open_all(&df))
		goto out;
	if ((ret = diff_events(&df))) {
		cmd_error("cannot compare the recordings: %s", strerror(-ret));
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	ret = ZT_EXIT_OK;
out:
	diff_release(&df);
	return ret;
}
