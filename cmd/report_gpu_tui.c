/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt report --gpu's TUI: a list of kernels; Enter shows a kernel's hot
 * lines with their stall reasons and its device functions, l its launch
 * stacks (the launch-site model's call chains); Esc or Left goes back.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/report_gpu_tui.h"
#include "cmd/tui.h"
#include "libprof/array.h"
#include "libprof/callchain.h"
#include "libprof/log.h"

enum view { V_KERNELS, V_LINES, V_FUNCS, V_STACKS };

struct place {
	enum view view;
	size_t kernel, sel, top;
};

struct gtui {
	const struct gpureport *gr;
	struct rmodel *m;
	const struct report_gpu_tui_opts *o;
	struct place at;      /* the view shown */
	struct place back[4]; /* the views to go back to */
	unsigned nr_back;
	int stacks_built; /* m rebuilt for launch stacks */
	char **rows;
	size_t nr_rows, cap_rows;
	char header[256];
	char msg[256];
	char err[128];
};

static const char help_text[] =
	"Kernels (by GPU time):\n"
	"  Enter, Right  the kernel's hot lines, stall reasons, device functions\n"
	"  l             the kernel's launch stacks (CPU call chains)\n"
	"Hot lines, device functions:\n"
	"  Tab, f        hot lines <-> device functions\n"
	"  l             the kernel's launch stacks\n"
	"Everywhere:\n"
	"  Up/Down, j/k, PgUp/PgDn, Home/End  move\n"
	"  Esc, Left     back\n"
	"  q             quit\n"
	"  h, ?          this help";

static void clear_rows(struct gtui *t)
{
	size_t i;

	for (i = 0; i < t->nr_rows; i++)
		free(t->rows[i]);
	t->nr_rows = 0;
}

static int add_row(struct gtui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_row(struct gtui *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0 || ZT_GROW(t->rows, t->cap_rows, t->nr_rows + 1)) {
		if (n >= 0)
			free(s);
		return -ENOMEM;
	}
	t->rows[t->nr_rows++] = s;
	return 0;
}

static const char *dur(char *buf, size_t n, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, n, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, n, "%.3fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, n, "%.3fms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.3fs", (double)ns / 1e9);
	return buf;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static void stalls_text(const struct gtui *t, struct gpurep_stalls st, char *buf, size_t n)
{
	const struct gpurep_stall *s = gpureport_stalls(t->gr, st);
	size_t len = 0;
	uint32_t i;

	buf[0] = 0;
	for (i = 0; i < st.n && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s:%llu", i ? " " : "", s[i].name,
					(unsigned long long)s[i].samples);
}

static int build_kernels(struct gtui *t)
{
	char a[32], b[32], c[32], g[40], bl[40];
	size_t i;
	int ret = 0;

	snprintf(t->header, sizeof(t->header), "%7s  %10s  %8s  %10s  %10s  %-10s  %-10s  %s",
		 "Time%", "Total", "Launches", "Mean", "Max", "Grid", "Block", "Kernel");
	for (i = 0; !ret && i < t->gr->nr_kernels; i++) {
		const struct gpurep_kernel *k = &t->gr->kernels[i];

		if (k->grid_varies)
			snprintf(g, sizeof(g), "varies");
		else
			snprintf(g, sizeof(g), "%u,%u,%u", k->grid[0], k->grid[1], k->grid[2]);
		if (k->block_varies)
			snprintf(bl, sizeof(bl), "varies");
		else
			snprintf(bl, sizeof(bl), "%u,%u,%u", k->block[0], k->block[1], k->block[2]);
		ret = add_row(t, "%6.2f%%  %10s  %8llu  %10s  %10s  %-10s  %-10s  %s",
			      pct(k->total_ns, t->gr->total_ns), dur(a, sizeof(a), k->total_ns),
			      (unsigned long long)k->launches, dur(b, sizeof(b), k->mean_ns),
			      dur(c, sizeof(c), k->max_ns), g, bl, k->name);
	}
	return ret;
}

static int build_lines(struct gtui *t)
{
	const struct gpurep_kernel *k = &t->gr->kernels[t->at.kernel];
	char st[512];
	size_t i;
	int ret = 0;

	snprintf(t->header, sizeof(t->header), "%8s  %7s  %-24s  %-16s  %s", "Samples", "Percent",
		 "Line", "Function", "Stall reasons");
	if (!k->samples)
		return add_row(t, "no PC samples for %s", k->name);
	for (i = 0; !ret && i < k->nr_lines; i++) {
		const struct gpurep_line *l = &k->lines[i];

		stalls_text(t, l->stalls, st, sizeof(st));
		ret = add_row(t, "%8llu  %6.2f%%  %-24s  %-16s  %s", (unsigned long long)l->samples,
			      pct(l->samples, k->samples), l->text, l->func, st);
	}
	return ret;
}

static int build_funcs(struct gtui *t)
{
	const struct gpurep_kernel *k = &t->gr->kernels[t->at.kernel];
	char st[512];
	size_t i;
	int ret = 0;

	snprintf(t->header, sizeof(t->header), "%8s  %8s  %-33s  %s", "Self", "Total",
		 "Device function", "Stall reasons (self)");
	if (!k->samples)
		return add_row(t, "no PC samples for %s", k->name);
	for (i = 0; !ret && i < k->nr_funcs; i++) {
		const struct gpurep_func *f = &k->funcs[i];

		stalls_text(t, f->stalls, st, sizeof(st));
		ret = add_row(t, "%8llu  %8llu  %-33s  %s", (unsigned long long)f->self,
			      (unsigned long long)f->total, f->name, st);
	}
	return ret;
}

/* The chain below node, one row per frame indented by depth. */
static int add_tree(struct gtui *t, uint32_t node, uint64_t total, uint64_t skip, int depth)
{
	const struct callchains *cc = &t->m->hist.cc;
	uint32_t *kids;
	long nk, i;
	int ret = 0;

	nk = cc_sorted_children(cc, node, 0, &kids);
	if (nk < 0)
		return (int)nk;
	for (i = 0; !ret && i < nk && depth < 64; i++) {
		const struct cc_node *n = cc_node(cc, kids[i]);

		if (n->key == skip &&
		    cc_node(cc, node)->parent == CC_NONE) { /* the kernel itself */
			ret = add_tree(t, kids[i], total, skip, depth);
			continue;
		}
		ret = add_row(t, "%*s%6.2f%%  %5llu  %s", depth * 2, "", pct(cc_cumul(n), total),
			      (unsigned long long)cc_cumul_count(n), rmodel_chain_name(t->m, n));
		if (!ret)
			ret = add_tree(t, kids[i], total, skip, depth + 1);
	}
	free(kids);
	return ret;
}

static int build_stacks(struct gtui *t)
{
	const struct gpurep_kernel *k = &t->gr->kernels[t->at.kernel];
	const struct hist *h = &t->m->hist;
	size_t i;
	int ret;

	snprintf(t->header, sizeof(t->header), "%6s%%  %5s  %s", "GPU", "Launch",
		 "Launch stack (callers below)");
	if (!t->stacks_built) {
		/* each kernel's callers, below it: perf's --no-children -g callee */
		struct rmodel_opts mo = t->o->mo;

		mo.keys[0] = HIST_KEY_DSO; /* one entry per kernel, whatever --sort said */
		mo.keys[1] = HIST_KEY_SYM;
		mo.nr_keys = 2;
		mo.children = 0;
		mo.sort_self = 0;
		mo.chain = HIST_CHAIN_CALLEE;
		mo.chain_min_pct = 0;
		mo.filter = NULL;
		ret = rmodel_build(t->m, &mo);
		if (ret)
			return ret;
		t->stacks_built = 1;
	}
	for (i = 0; i < h->nr_entries; i++) {
		const struct hist_entry *e = &h->entries[i];

		if (!e->self_nr || strcmp(hist_str(h, e->f.sym), k->name) ||
		    strcmp(hist_str(h, e->f.dso), "[gpu]"))
			continue;
		if (e->chain == CC_NONE || !cc_node(&h->cc, e->chain)->nr_children)
			return add_row(t,
				       "no launch stacks for %s (record with zt record --gpu -g)",
				       k->name);
		ret = add_row(t, "%6.2f%%  %5llu  %s", pct(e->self, e->self),
			      (unsigned long long)e->self_nr, k->name);
		if (!ret)
			ret = add_tree(t, e->chain, e->self, hist_chain_key(&e->f), 1);
		if (!ret && t->nr_rows == 1) /* the kernel alone */
			ret = add_row(t, "  no launch stacks (record with zt record --gpu -g)");
		return ret;
	}
	return add_row(t, "no launches recorded for %s", k->name);
}

static int build(struct gtui *t)
{
	clear_rows(t);
	switch (t->at.view) {
	case V_KERNELS:
		return build_kernels(t);
	case V_LINES:
		return build_lines(t);
	case V_FUNCS:
		return build_funcs(t);
	case V_STACKS:
		return build_stacks(t);
	}
	return 0;
}

static int list_height(void)
{
	return tui_rows() - 3;
}

static void draw(void *ctx)
{
	struct gtui *t = ctx;
	const struct gpurep_kernel *k = t->gr->nr_kernels ? &t->gr->kernels[t->at.kernel] : NULL;
	char title[512], dbuf[32];
	int h = list_height(), y;
	size_t i;

	tui_erase();
	if (t->at.view == V_KERNELS)
		snprintf(title, sizeof(title), "GPU kernels of %s: %zu kernels, %llu launches, %s",
			 t->o->input, t->gr->nr_kernels, (unsigned long long)t->gr->nr_records,
			 dur(dbuf, sizeof(dbuf), t->gr->total_ns));
	else if (t->at.view == V_LINES)
		snprintf(title, sizeof(title), "Hot lines of %s: %llu PC samples", k->name,
			 (unsigned long long)k->samples);
	else if (t->at.view == V_FUNCS)
		snprintf(title, sizeof(title), "Device functions of %s: %llu PC samples", k->name,
			 (unsigned long long)k->samples);
	else
		snprintf(title, sizeof(title), "Launch stacks of %s: %llu launches, %s", k->name,
			 (unsigned long long)k->launches, dur(dbuf, sizeof(dbuf), k->total_ns));
	tui_title(title);
	tui_line(1, TUI_HEADER, t->header);
	for (y = 0, i = t->at.top; y < h && i < t->nr_rows; y++, i++)
		tui_line(2 + y, i == t->at.sel ? TUI_SELECTED : TUI_NORMAL, t->rows[i]);
	if (t->msg[0])
		tui_status(t->msg);
	else if (t->at.view == V_KERNELS)
		tui_status("Enter: hot lines  l: launch stacks  h: help  q: quit");
	else if (t->at.view == V_LINES)
		tui_status("Tab: device functions  l: launch stacks  Esc: back  h: help  q: quit");
	else if (t->at.view == V_FUNCS)
		tui_status("Tab: hot lines  l: launch stacks  Esc: back  h: help  q: quit");
	else
		tui_status("Esc: back  h: help  q: quit");
}

static void move_sel(struct gtui *t, long d)
{
	long s = (long)t->at.sel + d, h = list_height() > 0 ? list_height() : 1;

	if (s >= (long)t->nr_rows)
		s = (long)t->nr_rows - 1;
	if (s < 0)
		s = 0;
	t->at.sel = (size_t)s;
	if (t->at.sel < t->at.top)
		t->at.top = t->at.sel;
	if (t->at.sel >= t->at.top + (size_t)h)
		t->at.top = t->at.sel - (size_t)h + 1;
}

/* Go to view v of kernel k, remembering where we were. */
static int go(struct gtui *t, enum view v, size_t k)
{
	if (t->nr_back == sizeof(t->back) / sizeof(t->back[0]))
		return 0;
	t->back[t->nr_back++] = t->at;
	t->at = (struct place){v, k, 0, 0};
	return build(t);
}

static int go_back(struct gtui *t)
{
	if (!t->nr_back)
		return 0;
	t->at = t->back[--t->nr_back];
	return build(t);
}

static void on_log(enum zt_log_level level, const char *msg, void *ctx)
{
	struct gtui *t = ctx;

	if (level <= ZT_LOG_WARN)
		snprintf(t->msg, sizeof(t->msg), "%s", msg);
}

static int run(struct gtui *t)
{
	for (;;) {
		long h = list_height() > 0 ? list_height() : 1;
		int key, ret = 0;

		draw(t);
		key = tui_getkey(-1);
		t->msg[0] = 0;
		switch (key) {
		case TUI_KEY_QUIT:
		case 'q':
			return 0;
		case TUI_KEY_ESC:
		case TUI_KEY_LEFT:
			ret = go_back(t);
			break;
		case TUI_KEY_UP:
		case 'k':
			move_sel(t, -1);
			break;
		case TUI_KEY_DOWN:
		case 'j':
			move_sel(t, 1);
			break;
		case TUI_KEY_PGUP:
			move_sel(t, -h);
			break;
		case TUI_KEY_PGDN:
		case ' ':
			move_sel(t, h);
			break;
		case TUI_KEY_HOME:
		case 'g':
			move_sel(t, -(long)t->nr_rows);
			break;
		case TUI_KEY_END:
		case 'G':
			move_sel(t, (long)t->nr_rows);
			break;
		case TUI_KEY_ENTER:
		case TUI_KEY_RIGHT:
			if (t->at.view == V_KERNELS && t->nr_rows)
				ret = go(t, V_LINES, t->at.sel);
			break;
		case 'l':
			if (t->at.view == V_KERNELS && t->nr_rows)
				ret = go(t, V_STACKS, t->at.sel);
			else if (t->at.view == V_LINES || t->at.view == V_FUNCS)
				ret = go(t, V_STACKS, t->at.kernel);
			break;
		case TUI_KEY_TAB:
		case 'f':
			/* hot lines <-> device functions, one place to go back to */
			if (t->at.view == V_LINES || t->at.view == V_FUNCS) {
				t->at = (struct place){t->at.view == V_LINES ? V_FUNCS : V_LINES,
						       t->at.kernel, 0, 0};
				ret = build(t);
			}
			break;
		case 'h':
		case '?':
		case TUI_KEY_F1:
			if (tui_popup("zt report --gpu: keys", help_text) == TUI_KEY_QUIT)
				return 0;
			break;
		case TUI_KEY_RESIZE:
		case TUI_KEY_NONE:
			move_sel(t, 0);
			break;
		default:
			if (key > ' ' && key < 0x7f)
				snprintf(t->msg, sizeof(t->msg),
					 "'%c' does nothing: h for the keys", key);
			break;
		}
		if (ret < 0) {
			snprintf(t->err, sizeof(t->err), "%s", strerror(-ret));
			return ret;
		}
	}
}

int report_gpu_tui(const struct gpureport *gr, struct rmodel *launches,
		   const struct report_gpu_tui_opts *o)
{
	struct gtui t;
	int ret, sig;

	memset(&t, 0, sizeof(t));
	t.gr = gr;
	t.m = launches;
	t.o = o;
	ret = build(&t);
	if (ret) {
		cmd_error("cannot build the GPU report: %s", strerror(-ret));
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	ret = tui_init();
	if (ret) {
		if (ret == -ENOTTY)
			cmd_error("cannot start the browser: not a terminal (use --stdio)");
		else
			cmd_error("cannot start the browser: %s (use --stdio)", strerror(-ret));
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	zt_log_set(on_log, &t);
	tui_set_redraw(draw, &t);
	ret = run(&t);
	sig = tui_end();
	cmd_setup("report", cmd_verbosity);
	if (ret) {
		cmd_error("cannot update the GPU report: %s", t.err);
		ret = ZT_EXIT_FAIL;
	}
	if (sig && sig != SIGINT)
		tui_reraise(sig);
out:
	clear_rows(&t);
	free(t.rows);
	return ret;
}
