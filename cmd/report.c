/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt report: a recording's functions by overhead, with perf's Children and
 * Self columns, as text like `perf report --stdio`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"
#include "cmd/symopts.h"
#include "formats/ztdata.h"
#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/hist.h"
#include "libprof/sgroup.h"
#include "libprof/proctree.h"
#include "libprof/profile.h"
#include "symbolizer/resolve.h"

#define NAME_MAX_LEN 1024 /* longest frame name shown */

/* Samples that resolve alike: same stack, process, thread name and mappings. */
struct group {
	uint32_t stack, pid;
	const char *comm;
	uint64_t epoch, ts; /* ts: of the first sample, to resolve with */
	uint64_t weight, nr;
};

struct report {
	const char *input, *sort, *event;
	int children, quiet, verbose, force, header, stdio, demangle;
	int want_srcline; /* a srcline sort key: file:line per frame */
	struct symopts so;
	double percent_limit;
	enum hist_key keys[HIST_MAX_KEYS];
	unsigned nr_keys;
	struct profile prof;
	struct proctree *pt;
	struct resolver *res;
	struct hist hist;
	struct group *groups;
	size_t nr_groups, cap_groups;
	struct sgroups sg; /* the keys of groups[] */
};

static int parse_sort(struct report *r)
{
	char *list = strdup(r->sort), *tok, *save = NULL;
	int ret = 0;

	if (!list)
		return -ENOMEM;
	r->nr_keys = 0;
	for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		enum hist_key k;

		if (hist_key_parse(tok, &k)) {
			cmd_error("unknown sort key '%s': use comm, pid, dso, sym, srcline or symq", tok);
			ret = -EINVAL;
			break;
		}
		if (k == HIST_KEY_SRCLINE)
			r->want_srcline = 1;
		if (r->nr_keys < HIST_MAX_KEYS)
			r->keys[r->nr_keys++] = k;
	}
	if (!ret && !r->nr_keys) {
		cmd_error("--sort needs at least one key: comm, pid, dso or sym");
		ret = -EINVAL;
	}
	free(list);
	return ret;
}

/* Read the input; exit code or -1 to go on. */
static int load(struct report *r)
{
	return cmd_load_profile(r->input, r->force, r->event, &r->prof) ? ZT_EXIT_FAIL : -1;
}

/* Add one sample to its group. */
static int group_add(struct report *r, const struct prof_sample *s)
{
	struct sgroup_key k = { s->stack, s->pid, 0, proctree_comm(r->pt, s->pid, s->tid, s->ts),
				proctree_epoch(r->pt, s->pid, s->ts) };
	uint32_t i;
	int is_new;

	/* JIT code replaced over time (jitdump): each sample by its own time */
	if (resolver_time_sensitive(r->res, s->pid))
		k.epoch = zt_hash_mix(k.epoch, s->ts);
	if (sgroups_find(&r->sg, &k, &i, &is_new))
		return -ENOMEM;
	if (is_new) {
		if (ZT_GROW(r->groups, r->cap_groups, r->sg.nr))
			return -ENOMEM;
		r->groups[i] = (struct group){ s->stack, s->pid, k.comm, k.epoch, s->ts, 0, 0 };
		r->nr_groups = r->sg.nr;
	}
	r->groups[i].weight += s->weight;
	r->groups[i].nr++;
	return 0;
}

static int intern_clean(struct report *r, const char *s, uint32_t *id)
{
	char buf[NAME_MAX_LEN];

	prof_sanitize(buf, sizeof(buf), s);
	return hist_intern(&r->hist, buf, id);
}

/* Resolve a group's stack and add it to the histogram. */
static int group_to_hist(struct report *r, const struct group *g, struct hist_frame *frames)
{
	const struct prof_stack *st = &r->prof.stacks[g->stack];
	const uint64_t *ips = profile_stack_ips(&r->prof, g->stack);
	char cbuf[32], name[NAME_MAX_LEN];
	const char *comm = g->comm;
	uint32_t comm_id;
	unsigned i, n = (unsigned)st->nk + st->nu;
	int ret;

	if (!comm) {
		if (g->pid)
			snprintf(cbuf, sizeof(cbuf), ":%u", g->pid);
		else
			snprintf(cbuf, sizeof(cbuf), "swapper");
		comm = cbuf;
	}
	ret = intern_clean(r, comm, &comm_id);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		struct resolve_frame f;
		struct hist_frame *h = &frames[i];

		ret = resolver_resolve(r->res, g->pid, g->ts, ips[i], i < st->nk, &f);
		if (ret)
			return ret;
		h->comm = comm_id;
		h->pid = g->pid;
		h->kernel = (uint8_t)f.kernel;
		ret = intern_clean(r, f.module, &h->dso);
		if (!ret)
			ret = intern_clean(r, resolve_frame_name(&f, name, sizeof(name)), &h->sym);
		h->symq = (uint8_t)f.quality;
		if (!ret && r->want_srcline) {
			/* perf's srcline: the innermost frame's file (base name) and line */
			const struct fi_loc *l = f.nr_locs ? &f.locs[0] : NULL;
			const char *base = l && l->file && *l->file ? strrchr(l->file, '/') : NULL;

			if (l && l->file && *l->file && l->line)
				snprintf(name, sizeof(name), "%s:%u", base ? base + 1 : l->file, l->line);
			else
				snprintf(name, sizeof(name), "??:0");
			ret = intern_clean(r, name, &h->srcline);
		}
		if (ret)
			return ret;
	}
	return hist_add_sample(&r->hist, frames, n, g->weight, g->nr);
}

static int build_hist(struct report *r)
{
	struct cmd_progress prog;
	struct hist_frame *frames = NULL;
	size_t i;
	int ret;

	ret = proctree_new(&r->prof, &r->pt);
	{
		struct resolver_opts ro = { &r->so.mo, !r->demangle };

		if (!ret)
			ret = resolver_new_opts(&r->prof, r->pt, &ro, &r->res);
	}
	if (!ret)
		ret = hist_init(&r->hist, r->keys, r->nr_keys);
	if (ret)
		return ret;
	for (i = 0; i < r->prof.nr_samples; i++) {
		ret = group_add(r, &r->prof.samples[i]);
		if (ret)
			return ret;
	}
	cmd_info("%zu samples in %zu groups to resolve", r->prof.nr_samples, r->nr_groups);
	frames = malloc(2 * ZT_MAX_FRAMES * sizeof(*frames));
	if (!frames)
		return -ENOMEM;
	cmd_progress_start(&prog, "resolving", r->nr_groups);
	for (i = 0; i < r->nr_groups && !ret; i++) {
		ret = group_to_hist(r, &r->groups[i], frames);
		cmd_progress_update(&prog, i);
	}
	cmd_progress_end(&prog);
	free(frames);
	return ret;
}

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
				   w->n++ ? ", " : "", m, why && *why ? why : (q == SYMQ_BASIC ? "names only" : "none"));
	if (w->len >= sizeof(w->buf))
		w->len = sizeof(w->buf) - 1;
}

/* How well the frames resolved: unique frames at each quality, and the
 * modules that had less than full symbols, and why. */
static void print_quality(const struct report *r)
{
	struct weak_ctx w = { .len = 0 };
	uint64_t c[3];

	resolver_quality_counts(r->res, c);
	printf("# Symbols: %llu frames full (function, file:line), %llu basic (function), %llu none\n",
	       (unsigned long long)c[SYMQ_FULL], (unsigned long long)c[SYMQ_BASIC],
	       (unsigned long long)c[SYMQ_NONE]);
	resolver_weak_modules(r->res, add_weak, &w);
	if (w.n)
		printf("# Without full symbols: %s\n", w.buf);
	printf("#\n");
}

static void print_header(const struct report *r)
{
	const char *ev = profile_get_meta(&r->prof, "event");
	char unit, buf[1024];
	unsigned long long nr = scaled(r->hist.total_nr, &unit);
	size_t i;

	if (r->header) {
		printf("# ========\n");
		for (i = 0; i < r->prof.nr_meta; i++) {
			char key[128];

			prof_sanitize(key, sizeof(key), r->prof.meta[i].key);
			prof_sanitize(buf, sizeof(buf), r->prof.meta[i].value);
			printf("# %s : %s\n", key, buf);
		}
		printf("# ========\n#\n");
	} else {
		printf("# To display the zt.data header info, please use --header.\n#\n");
	}
	printf("#\n# Total Lost Samples: %llu\n#\n", (unsigned long long)r->prof.lost_samples);
	printf("# Samples: %llu%c", nr, unit);
	if (ev) {
		prof_sanitize(buf, sizeof(buf), ev);
		printf(" of event '%s'", buf);
	}
	printf("\n# Event count (approx.): %llu\n#\n", (unsigned long long)r->hist.total);
	print_quality(r);
}

/* Column text of entry e for key k into buf. */
static const char *key_text(const struct report *r, const struct hist_entry *e, enum hist_key k,
			    int width, char *buf, size_t n)
{
	const struct hist *h = &r->hist;

	switch (k) {
	case HIST_KEY_COMM:
		return hist_str(h, e->f.comm);
	case HIST_KEY_PID:
		snprintf(buf, n, "%7u:%-*s", e->f.pid, width > 8 ? width - 8 : 0,
			 hist_str(h, e->f.comm));
		return buf;
	case HIST_KEY_DSO:
		return hist_str(h, e->f.dso);
	case HIST_KEY_SYM:
		snprintf(buf, n, "[%c] %s", e->f.kernel ? 'k' : '.', hist_str(h, e->f.sym));
		return buf;
	case HIST_KEY_SRCLINE:
		return hist_str(h, e->f.srcline);
	case HIST_KEY_SYMQ:
		return e->f.symq == SYMQ_FULL ? "full" : e->f.symq == SYMQ_BASIC ? "basic" : "none";
	}
	return "";
}

static const char *key_header(enum hist_key k)
{
	switch (k) {
	case HIST_KEY_COMM:
		return "Command";
	case HIST_KEY_PID:
		return "    Pid:Command";
	case HIST_KEY_DSO:
		return "Shared Object";
	case HIST_KEY_SYM:
		return "Symbol";
	case HIST_KEY_SRCLINE:
		return "Source:Line";
	case HIST_KEY_SYMQ:
		return "Symbols";
	}
	return "";
}

static void print_pct(uint64_t v, uint64_t total)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.2f%%", total ? 100.0 * (double)v / (double)total : 0.0);
	printf("  %8s", buf);
}

static void print_dots(int n)
{
	while (n-- > 0)
		putchar('.');
}

static void print_table(const struct report *r, const struct hist_entry *const *rows, size_t nr)
{
	const struct hist *h = &r->hist;
	int width[HIST_MAX_KEYS], comm_w = 7;
	char buf[NAME_MAX_LEN + 64];
	unsigned k;
	size_t i;

	for (i = 0; i < nr; i++) {
		int l = (int)strlen(hist_str(h, rows[i]->f.comm));

		if (l > comm_w)
			comm_w = l;
	}
	for (k = 0; k < h->nr_keys; k++) {
		width[k] = (int)strlen(key_header(h->keys[k]));
		if (h->keys[k] == HIST_KEY_PID) {
			width[k] = comm_w + 8;
			continue;
		}
		for (i = 0; i < nr; i++) {
			int l = (int)strlen(key_text(r, rows[i], h->keys[k], 0, buf, sizeof(buf)));

			if (l > width[k])
				width[k] = l;
		}
	}
	if (!r->quiet) {
		fputs(r->children ? "# Children      Self" : "# Overhead", stdout);
		for (k = 0; k < h->nr_keys; k++)
			printf("  %-*s", width[k], key_header(h->keys[k]));
		fputs(r->children ? "\n# ........  ........" : "\n# ........", stdout);
		for (k = 0; k < h->nr_keys; k++) {
			printf("  ");
			print_dots(width[k]);
		}
		printf("\n#\n");
	}
	for (i = 0; i < nr; i++) {
		const struct hist_entry *e = rows[i];

		if (r->children) {
			print_pct(e->children, h->total);
			print_pct(e->self, h->total);
		} else {
			print_pct(e->self, h->total);
		}
		for (k = 0; k < h->nr_keys; k++) {
			const char *t = key_text(r, e, h->keys[k], width[k], buf, sizeof(buf));

			if (k + 1 < h->nr_keys)
				printf("  %-*s", width[k], t);
			else
				printf("  %s", t);
		}
		putchar('\n');
	}
}

static void report_release(struct report *r)
{
	hist_release(&r->hist);
	resolver_free(r->res);
	proctree_free(r->pt);
	profile_release(&r->prof);
	free(r->groups);
	sgroups_release(&r->sg);
	symopts_release(&r->so);
}

static const char *const report_usage[] = {
	"zt report [<options>]",
	NULL,
};

int cmd_report(int argc, char **argv)
{
	struct report r = { .input = "zt.data", .sort = "comm,dso,sym", .children = -1, .demangle = 1,
			    .so = { .use_debuginfod = 1, .use_cache = 1 } };
	const struct opt opts[] = {
		{ OPT_STRING, 'i', "input", &r.input, "file", "input file name: zt.data or perf.data (default: zt.data)" },
		{ OPT_STRING, 0, "event", &r.event, "name", "the event to report of a perf.data file with several" },
		{ OPT_BOOL, 0, "stdio", &r.stdio, NULL, "text output (the only one for now)" },
		{ OPT_STRING, 's', "sort", &r.sort, "key[,key...]",
		  "sort by keys: comm, pid, dso, sym, srcline, symq (default: comm,dso,sym)" },
		{ OPT_BOOL, 0, "children", &r.children, NULL,
		  "show Children (callees included) next to Self (default with call graphs)" },
		{ OPT_DOUBLE, 0, "percent-limit", &r.percent_limit, "pct",
		  "hide entries below this overhead percentage" },
		{ OPT_BOOL, 0, "header", &r.header, NULL, "show the recording's header info first" },
		{ OPT_BOOL, 'f', "force", &r.force, NULL, "report the readable part of a damaged file" },
		{ OPT_BOOL, 0, "demangle", &r.demangle, NULL,
		  "demangle C++ and Rust names (default); --no-demangle: keep them raw" },
		{ OPT_BOOL, 'q', "quiet", &r.quiet, NULL, "no header lines, no warnings" },
		SYMOPTS_OPTIONS(r.so),
		OPT_EOL,
	};
	const struct hist_entry **rows;
	size_t nrows;
	int rest, ret;

	profile_init(&r.prof);
	ret = opts_parse("report", report_usage, opts, argc, argv, &rest);
	r.verbose = r.so.verbose;
	cmd_setup("report", r.quiet ? -1 : r.verbose);
	if (ret == OPTS_HELP || ret == OPTS_ERROR) {
		ret = ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
		goto out;
	}
	ret = ZT_EXIT_USAGE;
	if (rest < argc) {
		cmd_error("unexpected argument '%s': the input is given with -i", argv[rest]);
		goto out;
	}
	if (parse_sort(&r))
		goto out;
	if (r.percent_limit < 0 || r.percent_limit > 100) {
		cmd_error("--percent-limit must be between 0 and 100, not %g", r.percent_limit);
		goto out;
	}
	symopts_init(&r.so, "report");
	ret = load(&r);
	if (ret >= 0)
		goto out;
	if (!r.prof.nr_samples) {
		cmd_error("'%s' has no samples", r.input);
		ret = ZT_EXIT_OK;
		goto out;
	}
	if (r.children < 0)
		r.children = profile_has_callchains(&r.prof);
	ret = build_hist(&r);
	if (!ret)
		ret = hist_sort(&r.hist, r.children, r.percent_limit, &rows, &nrows);
	if (ret) {
		cmd_error("cannot build the report: %s", strerror(-ret));
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	if (!r.quiet)
		print_header(&r);
	print_table(&r, rows, nrows);
	ret = ZT_EXIT_OK;
out:
	report_release(&r);
	return ret;
}
