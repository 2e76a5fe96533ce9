/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt report's interactive browser (perf report's TUI): entries with their
 * call chains folded and unfolded, search, sort keys, zooms, annotation and
 * printing, as a thin view over the report model, drawn through cmd/tui.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/annotate_tui.h"
#include "cmd/cmd.h"
#include "cmd/outfile.h"
#include "cmd/report_tui.h"
#include "cmd/tui.h"
#include "libprof/array.h"
#include "libprof/callchain.h"
#include "libprof/hist.h"
#include "libprof/log.h"
#include "libprof/profile.h"
#include "symbolizer/annotate.h"

#define LINE_MAX_LEN 2048 /* longest line built for the screen or zt.hist.N */
#define KEY_COL_MAX 32    /* widest key column before the last one */
#define KEY_COL_MIN 8     /* narrowest, when the screen is narrow */
#define ANNOTATE_CONTEXT 40 /* lines searched around samples for the function's ends */
#define ANNOTATE_MAX_LINES 20000 /* longest function shown with its source */

/* One line of the browser: an entry, or one frame of a call chain. */
struct row {
	uint32_t entry; /* index into b->ents */
	uint32_t node;  /* the chain node shown; CC_NONE on the entry's line */
	uint32_t head;  /* the first node of node's run (perf's callchain node) */
	uint32_t last;  /* the last node of that run: its children are the next level */
	uint32_t depth; /* chain level, 1 for the entry's first level */
};

enum zoom { ZOOM_THREAD = 1, ZOOM_DSO = 2 };

/* How a browser of one event among several ends: the user quits, goes
 * back to the menu of events, or to the next or previous event. */
enum leave { LEAVE_QUIT, LEAVE_BACK, LEAVE_NEXT, LEAVE_PREV };

struct browser {
	struct rmodel *m;
	const struct report_tui_opts *o;
	struct rmodel_opts mo; /* of the current build */
	struct rfilter zf;     /* user filter + thread zoom: shallow copy, not released */
	uint32_t zid;          /* the zoomed thread's tid (zoom_tid) or pid */
	int zoom_tid;          /* the thread zoom is on a tid (tids are sort keys), else a pid */
	char *zdso;            /* the zoomed module: its entries only (perf's zoom) */
	char zlabel_thread[192], zlabel_dso[192];
	int zooms[2], nr_zooms; /* in the order they were made, for Esc */
	char search[256];
	double percent_limit;
	uint64_t min_hit;
	const struct hist_entry **all; /* from rmodel_sort(), borrowed */
	size_t nr_all;
	const struct hist_entry **ents; /* all, less what the search hides */
	size_t nr_ents, cap_ents;
	unsigned char *unfolded_e; /* by entry index in m->hist.entries */
	size_t nr_unfolded_e;
	unsigned char *unfolded_n; /* by chain node, for run heads */
	size_t nr_unfolded_n;
	struct row *rows;
	size_t nr_rows, cap_rows;
	size_t sel, top;
	int width[HIST_MAX_KEYS];
	int widths_cols; /* the screen width the widths are for */
	char msg[512]; /* one-time status message */
	unsigned print_seq;
	char err[256]; /* fatal error, printed after the screen is given back */
	struct ann_profile ap; /* the annotate model's functions, made on the first annotation */
	int have_ap;
	struct ann_sym byname; /* a function without samples of its own (a caller) */
	int multi;	       /* one event of several: Esc, Left, Tab leave to the menu */
	enum leave leave;      /* how run() ended */
};

/* ---- text of lines ------------------------------------------------------ */

static double pct(const struct browser *b, uint64_t v)
{
	uint64_t total = b->m->hist.total;

	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* Append text to buf (of size n, used *len), padded with spaces to width
 * columns, or cut there (at a character boundary) when width > 0. */
static void put(char *buf, size_t n, size_t *len, const char *text, int width)
{
	size_t l = strlen(text);
	int w = 0;

	if (*len + 1 >= n)
		return;
	if (width > 0) {
		/* bytes of at most width characters */
		size_t i = 0;

		while (i < l && w < width) {
			i++;
			while (i < l && ((unsigned char)text[i] & 0xc0) == 0x80)
				i++;
			w++;
		}
		l = i;
	}
	if (l > n - 1 - *len)
		l = n - 1 - *len;
	memcpy(buf + *len, text, l);
	*len += l;
	while (width > 0 && w < width && *len + 1 < n) {
		buf[(*len)++] = ' ';
		w++;
	}
	buf[*len] = 0;
}

static int utf8_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* The percentage columns: where they are in an entry's line. */
struct span {
	int start, end;
	double value;
};

static void entry_text(const struct browser *b, const struct hist_entry *e, char mark, char *buf,
		       size_t n, struct span sp[2], int *nsp)
{
	const struct hist *h = &b->m->hist;
	char tmp[LINE_MAX_LEN], num[32];
	size_t len = 0;
	unsigned k;

	buf[0] = 0;
	*nsp = 0;
	snprintf(num, sizeof(num), "%c ", mark);
	put(buf, n, &len, num, 0);
	if (b->mo.children) {
		snprintf(num, sizeof(num), "%7.2f%%", pct(b, e->children));
		sp[(*nsp)++] = (struct span){ (int)len, (int)len + 8, pct(b, e->children) };
		put(buf, n, &len, num, 8);
		put(buf, n, &len, "  ", 0);
	}
	snprintf(num, sizeof(num), "%7.2f%%", pct(b, e->self));
	sp[(*nsp)++] = (struct span){ (int)len, (int)len + 8, pct(b, e->self) };
	put(buf, n, &len, num, 8);
	for (k = 0; k < h->nr_keys; k++) {
		put(buf, n, &len, "  ", 0);
		put(buf, n, &len, hist_key_text(&b->m->hist, e, h->keys[k], tmp, sizeof(tmp)),
		    k + 1 < h->nr_keys ? b->width[k] : 0);
	}
}

static void header_text(const struct browser *b, char *buf, size_t n)
{
	const struct hist *h = &b->m->hist;
	size_t len = 0;
	unsigned k;

	buf[0] = 0;
	put(buf, n, &len, b->mo.children ? "  Children      Self" : "  Overhead", 0);
	for (k = 0; k < h->nr_keys; k++) {
		put(buf, n, &len, "  ", 0);
		put(buf, n, &len, hist_key_title(h->keys[k]), k + 1 < h->nr_keys ? b->width[k] : 0);
	}
}

/* Key column widths: the widest text of each (at most KEY_COL_MAX), then
 * narrower (down to KEY_COL_MIN) while the last column has no room on the
 * screen. */
static void compute_widths(struct browser *b)
{
	const struct hist *h = &b->m->hist;
	char tmp[LINE_MAX_LEN];
	int cols = tui_cols(), need = b->mo.children ? 20 : 10, last = 0;
	unsigned k;
	size_t i;

	for (k = 0; k < h->nr_keys; k++) {
		int w = utf8_width(hist_key_title(h->keys[k]));

		for (i = 0; i < b->nr_ents; i++) {
			int l = utf8_width(hist_key_text(&b->m->hist, b->ents[i], h->keys[k], tmp, sizeof(tmp)));

			if (l > w)
				w = l;
		}
		if (k + 1 < h->nr_keys) {
			b->width[k] = w > KEY_COL_MAX ? KEY_COL_MAX : w;
			need += 2 + b->width[k];
		} else {
			last = w > KEY_COL_MAX ? KEY_COL_MAX : w;
			need += 2 + last;
		}
	}
	b->widths_cols = cols;
	while (cols > 0 && need > cols) {
		int widest = -1;

		for (k = 0; k + 1 < h->nr_keys; k++)
			if (b->width[k] > KEY_COL_MIN &&
			    (widest < 0 || b->width[k] > b->width[widest]))
				widest = (int)k;
		if (widest < 0)
			break;
		b->width[widest]--;
		need--;
	}
}

/* Whether a run ending at node last has children to show. */
static int has_kids(const struct browser *b, uint32_t last)
{
	const struct callchains *cc = &b->m->hist.cc;
	uint32_t c;

	for (c = cc_node(cc, last)->child; c != CC_NONE; c = cc_node(cc, c)->next)
		if (cc_cumul(cc_node(cc, c)) >= b->min_hit && cc_cumul(cc_node(cc, c)))
			return 1;
	return 0;
}

static int entry_unfolded(const struct browser *b, const struct hist_entry *e)
{
	size_t i = (size_t)(e - b->m->hist.entries);

	return i < b->nr_unfolded_e && b->unfolded_e[i];
}

static char fold_mark(const struct browser *b, const struct row *r)
{
	const struct hist_entry *e = b->ents[r->entry];

	if (r->node == CC_NONE) {
		if (e->chain == CC_NONE || !has_kids(b, e->chain))
			return ' ';
		return entry_unfolded(b, e) ? '-' : '+';
	}
	if (!has_kids(b, r->last))
		return ' ';
	return b->unfolded_n[r->head] ? '-' : '+';
}

/* The text of row r; sp/nsp: where its percentages are. */
static void row_text(const struct browser *b, const struct row *r, char *buf, size_t n,
		     struct span sp[2], int *nsp)
{
	const struct callchains *cc = &b->m->hist.cc;
	char num[32], name[LINE_MAX_LEN];
	size_t len = 0;
	int indent = (int)r->depth * 3;
	double p;

	if (r->node == CC_NONE) {
		entry_text(b, b->ents[r->entry], fold_mark(b, r), buf, n, sp, nsp);
		return;
	}
	*nsp = 0;
	buf[0] = 0;
	p = pct(b, cc_cumul(cc_node(cc, r->head)));
	snprintf(num, sizeof(num), "%.2f%%", p);
	prof_sanitize(name, sizeof(name), rmodel_chain_name(b->m, cc_node(cc, r->node)));
	if (r->node == r->head) {
		char mark[4] = { fold_mark(b, r), ' ', 0 };

		put(buf, n, &len, "", indent);
		put(buf, n, &len, mark, 0);
		sp[(*nsp)++] = (struct span){ (int)len, (int)len + (int)strlen(num), p };
		put(buf, n, &len, num, 0);
		put(buf, n, &len, " ", 0);
	} else {
		put(buf, n, &len, "", indent + 2 + (int)strlen(num) + 1);
	}
	put(buf, n, &len, name, 0);
}

static const char no_chains[] = "no call chains in this recording (record with -g)";

/* ---- rows ------------------------------------------------------------------ */

static int add_row(struct browser *b, uint32_t entry, uint32_t node, uint32_t head, uint32_t last,
		   uint32_t depth)
{
	if (ZT_GROW(b->rows, b->cap_rows, b->nr_rows + 1))
		return -ENOMEM;
	b->rows[b->nr_rows++] = (struct row){ entry, node, head, last, depth };
	return 0;
}

static int add_level(struct browser *b, uint32_t entry, uint32_t parent, uint32_t depth)
{
	const struct callchains *cc = &b->m->hist.cc;
	uint32_t *kids = NULL;
	long nk = cc_sorted_children(cc, parent, b->min_hit, &kids), i;
	int ret = 0;

	if (nk < 0)
		return (int)nk;
	for (i = 0; i < nk && !ret; i++) {
		uint32_t last, node = kids[i];
		size_t len = cc_run(cc, node, &last), j;

		if (!cc_cumul(cc_node(cc, node)))
			continue;
		for (j = 0; j < len && !ret; j++, node = cc_node(cc, node)->child)
			ret = add_row(b, entry, node, kids[i], last, depth);
		if (!ret && b->unfolded_n[kids[i]])
			ret = add_level(b, entry, last, depth + 1);
	}
	free(kids);
	return ret;
}

/* Lay the rows out again after folding changed; keeps the selection on the
 * same line when it is still there. */
static int layout(struct browser *b)
{
	struct row keep = { 0, CC_NONE, 0, 0, 0 };
	int have = b->sel < b->nr_rows;
	size_t i;
	int ret = 0;

	if (have)
		keep = b->rows[b->sel];
	b->nr_rows = 0;
	for (i = 0; i < b->nr_ents && !ret; i++) {
		const struct hist_entry *e = b->ents[i];

		ret = add_row(b, (uint32_t)i, CC_NONE, CC_NONE, CC_NONE, 0);
		if (!ret && e->chain != CC_NONE && entry_unfolded(b, e))
			ret = add_level(b, (uint32_t)i, e->chain, 1);
	}
	if (ret)
		return ret;
	if (have) {
		size_t best = 0;

		for (i = 0; i < b->nr_rows; i++) {
			if (b->rows[i].entry != keep.entry)
				continue;
			if (b->rows[i].node == keep.node) {
				best = i;
				break;
			}
			if (b->rows[i].node == CC_NONE)
				best = i; /* the line folded away: its entry */
		}
		b->sel = best;
	}
	if (b->sel >= b->nr_rows)
		b->sel = b->nr_rows ? b->nr_rows - 1 : 0;
	return 0;
}

/* Whether the search and the module zoom let entry e through. */
static int entry_passes(const struct browser *b, const struct hist_entry *e)
{
	const struct hist *h = &b->m->hist;

	return (!b->search[0] || strstr(hist_str(h, e->f.sym), b->search)) &&
	       (!b->zdso || !strcmp(hist_str(h, e->f.dso), b->zdso));
}

/* The entries the search and the module zoom let through, then the rows. */
static int refilter(struct browser *b)
{
	size_t i;

	if (ZT_GROW(b->ents, b->cap_ents, b->nr_all ? b->nr_all : 1))
		return -ENOMEM;
	b->nr_ents = 0;
	for (i = 0; i < b->nr_all; i++)
		if (entry_passes(b, b->all[i]))
			b->ents[b->nr_ents++] = b->all[i];
	compute_widths(b);
	b->sel = b->top = 0;
	b->nr_rows = 0;
	return layout(b);
}

/* Sort again (after a build, or a new percent limit): folding starts over. */
static int resort(struct browser *b)
{
	const struct hist *h = &b->m->hist;
	int ret = rmodel_sort(b->m, b->percent_limit, &b->all, &b->nr_all);

	if (ret)
		return ret;
	free(b->unfolded_e);
	free(b->unfolded_n);
	b->nr_unfolded_e = h->nr_entries;
	b->nr_unfolded_n = h->cc.nr;
	b->unfolded_e = calloc(b->nr_unfolded_e + 1, 1);
	b->unfolded_n = calloc(b->nr_unfolded_n + 1, 1);
	if (!b->unfolded_e || !b->unfolded_n)
		return -ENOMEM;
	b->min_hit = (uint64_t)((double)h->total * (b->o->chain_min_percent / 100.0));
	return refilter(b);
}

static int rebuild(struct browser *b)
{
	int ret;

	b->mo.filter = &b->zf;
	ret = rmodel_build(b->m, &b->mo);
	if (ret)
		return ret;
	return resort(b);
}

/* ---- folding --------------------------------------------------------------- */

/* Fold or unfold an entry with every chain below it. */
static void fold_entry(struct browser *b, const struct hist_entry *e, int unfold)
{
	const struct callchains *cc = &b->m->hist.cc;
	size_t i = (size_t)(e - b->m->hist.entries);
	uint32_t n;

	if (i < b->nr_unfolded_e)
		b->unfolded_e[i] = (unsigned char)unfold;
	if (e->chain == CC_NONE)
		return;
	/* preorder walk of the tree without a stack: child, next, or up */
	n = cc_node(cc, e->chain)->child;
	while (n != CC_NONE) {
		b->unfolded_n[n] = (unsigned char)unfold;
		if (cc_node(cc, n)->child != CC_NONE) {
			n = cc_node(cc, n)->child;
			continue;
		}
		while (n != CC_NONE && n != e->chain && cc_node(cc, n)->next == CC_NONE)
			n = cc_node(cc, n)->parent;
		if (n == CC_NONE || n == e->chain)
			break;
		n = cc_node(cc, n)->next;
	}
}

/* Enter or +: one level of the selected line. */
static void toggle(struct browser *b)
{
	const struct row *r;

	if (!b->nr_rows)
		return;
	r = &b->rows[b->sel];
	if (fold_mark(b, r) == ' ') {
		if (b->mo.chain == HIST_CHAIN_NONE)
			snprintf(b->msg, sizeof(b->msg), "%s", no_chains);
		return;
	}
	if (r->node == CC_NONE) {
		size_t i = (size_t)(b->ents[r->entry] - b->m->hist.entries);

		b->unfolded_e[i] = !b->unfolded_e[i];
	} else {
		b->unfolded_n[r->head] = !b->unfolded_n[r->head];
	}
}

/* ---- drawing ------------------------------------------------------------- */

/* perf's convert_unit(): 4K, 2M, ... */
static void scaled(char *buf, size_t n, uint64_t v)
{
	static const char units[] = " KMG";
	int u = 0;

	while (v > 1000 && u < 3) {
		v /= 1000;
		u++;
	}
	snprintf(buf, n, "%llu%.*s", (unsigned long long)v, u ? 1 : 0, &units[u]);
}

static void title_text(const struct browser *b, char *buf, size_t n)
{
	char nr[32], ev[128] = "";

	scaled(nr, sizeof(nr), b->m->hist.total_nr);
	if (b->o->event) {
		char clean[96];

		prof_sanitize(clean, sizeof(clean), b->o->event);
		snprintf(ev, sizeof(ev), " of event '%s'", clean);
	}
	snprintf(buf, n, "%s: Samples: %s%s, Event count (approx.): %llu",
		 b->o->input ? b->o->input : "zt.data", nr, ev, (unsigned long long)b->m->hist.total);
}

static void add_list(char *buf, size_t n, const char *name, char *const *l, size_t nr)
{
	size_t len = strlen(buf), i;

	if (!nr || len + 1 >= n)
		return;
	len += (size_t)snprintf(buf + len, n - len, " %s ", name);
	for (i = 0; i < nr && len + 1 < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "", l[i]);
}

static void add_ids(char *buf, size_t n, const char *name, const uint32_t *l, size_t nr)
{
	size_t len = strlen(buf), i;

	if (!nr || len + 1 >= n)
		return;
	len += (size_t)snprintf(buf + len, n - len, " %s ", name);
	for (i = 0; i < nr && len + 1 < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%u", i ? "," : "", l[i]);
}

/* What limits the view: the user's filters, the zooms, the search. */
static void filters_text(const struct browser *b, char *buf, size_t n)
{
	const struct rfilter *f = b->o->filter;
	int z;

	buf[0] = 0;
	for (z = 0; z < b->nr_zooms; z++) {
		size_t len = strlen(buf);

		snprintf(buf + len, n - len, " [%s]",
			 b->zooms[z] == ZOOM_THREAD ? b->zlabel_thread : b->zlabel_dso);
	}
	if (f) {
		size_t len;

		add_list(buf, n, "comm", f->comms, f->nr_comms);
		add_ids(buf, n, "pid", f->pids, f->nr_pids);
		add_ids(buf, n, "tid", f->tids, f->nr_tids);
		add_list(buf, n, "dso", f->dsos, f->nr_dsos);
		add_list(buf, n, "sym", f->syms, f->nr_syms);
		add_list(buf, n, "addr", f->addr_strs, f->nr_addrs);
		add_ids(buf, n, "cpu", f->cpus, f->nr_cpus);
		len = strlen(buf);
		if (f->nr_times && len + 7 < n) { /* every range, as --time gave them */
			memcpy(buf + len, " time ", 7);
			rfilter_time_text(f, buf + len + 6, n - len - 6);
		}
	}
	if (b->search[0]) {
		size_t len = strlen(buf);

		snprintf(buf + len, n - len, " /%s", b->search);
	}
}

static void status_text(const struct browser *b, char *buf, size_t n)
{
	char filt[512], clean[512];

	if (b->msg[0]) {
		prof_sanitize(buf, n, b->msg);
		return;
	}
	filters_text(b, filt, sizeof(filt));
	prof_sanitize(clean, sizeof(clean), filt);
	snprintf(buf, n, "%llu of %llu samples, %zu entries%s%s | h: help, q: quit",
		 (unsigned long long)b->m->shown_nr, (unsigned long long)b->m->total_nr, b->nr_ents,
		 clean[0] ? " |" : "", clean);
}

static void draw_row(const struct browser *b, int y, const struct row *r, int selected)
{
	char line[LINE_MAX_LEN];
	struct span sp[2];
	int nsp, i, x = 0, at = 0;

	row_text(b, r, line, sizeof(line), sp, &nsp);
	if (selected) {
		tui_line(y, TUI_SELECTED, line);
		return;
	}
	/* the percentages in their colors, the rest plain; all ASCII before them */
	for (i = 0; i < nsp; i++) {
		char seg[LINE_MAX_LEN];

		snprintf(seg, sizeof(seg), "%.*s", sp[i].start - at, line + at);
		x = tui_print(y, x, TUI_NORMAL, seg);
		snprintf(seg, sizeof(seg), "%.*s", sp[i].end - sp[i].start, line + sp[i].start);
		x = tui_print(y, x, tui_percent_color(sp[i].value), seg);
		at = sp[i].end;
	}
	x = tui_print(y, x, TUI_NORMAL, line + at);
	tui_fill(y, x, TUI_NORMAL);
}

static int list_height(void)
{
	int h = tui_rows() - 3;

	return h > 0 ? h : 0;
}

static void ensure_visible(struct browser *b)
{
	size_t h = (size_t)list_height();

	if (!h)
		h = 1;
	if (b->sel >= b->nr_rows)
		b->sel = b->nr_rows ? b->nr_rows - 1 : 0;
	if (b->top > b->sel)
		b->top = b->sel;
	if (b->sel >= b->top + h)
		b->top = b->sel - h + 1;
	/* no empty space at the bottom while there are rows above */
	if (b->nr_rows > h && b->top > b->nr_rows - h)
		b->top = b->nr_rows - h;
	if (b->nr_rows <= h)
		b->top = 0;
}

static void draw(void *ctx)
{
	struct browser *b = ctx;
	char buf[LINE_MAX_LEN];
	int h = list_height(), y;

	if (b->widths_cols != tui_cols())
		compute_widths(b);
	ensure_visible(b);
	tui_erase();
	title_text(b, buf, sizeof(buf));
	tui_title(buf);
	header_text(b, buf, sizeof(buf));
	tui_line(1, TUI_HEADER, buf);
	for (y = 0; y < h && b->top + (size_t)y < b->nr_rows; y++)
		draw_row(b, y + 2, &b->rows[b->top + (size_t)y], b->top + (size_t)y == b->sel);
	if (!b->nr_rows && h > 0) {
		if (b->search[0])
			snprintf(buf, sizeof(buf),
				 "no entries with '%s' in their symbol (/ to change)", b->search);
		else
			snprintf(buf, sizeof(buf), "no entries to show");
		tui_line(2, TUI_NORMAL, buf);
	}
	status_text(b, buf, sizeof(buf));
	tui_status(buf);
}

/* ---- printing the view (P) ------------------------------------------------ */

static int print_view(struct browser *b)
{
	char name[64], buf[LINE_MAX_LEN];
	struct span sp[2];
	int nsp, err;
	size_t i;
	FILE *f;

	f = outfile_numbered("zt.hist", &b->print_seq, name, sizeof(name));
	if (!f) {
		snprintf(b->msg, sizeof(b->msg), "cannot write '%s': %s", name, strerror(errno));
		return -1;
	}
	title_text(b, buf, sizeof(buf));
	fprintf(f, "# %s\n", buf);
	filters_text(b, buf, sizeof(buf));
	if (buf[0])
		fprintf(f, "# Filters:%s\n", buf);
	fprintf(f, "#\n");
	header_text(b, buf, sizeof(buf));
	fprintf(f, "%s\n", buf);
	for (i = 0; i < b->nr_rows; i++) {
		row_text(b, &b->rows[i], buf, sizeof(buf), sp, &nsp);
		fprintf(f, "%s\n", buf);
	}
	err = ferror(f);
	if (fclose(f) || err) {
		snprintf(b->msg, sizeof(b->msg), "cannot write '%s': %s", name,
			 strerror(errno ? errno : EIO));
		return -1;
	}
	snprintf(b->msg, sizeof(b->msg), "wrote %s (%zu lines)", name, b->nr_rows);
	return 0;
}

/* ---- annotation (a) ---------------------------------------------------------- */

struct aline {
	uint32_t line;  /* 0: a note, not a source line */
	uint64_t weight, nr;
	char *text;
};

struct annotate {
	struct browser *b;
	char title[LINE_MAX_LEN];
	char status[LINE_MAX_LEN];
	struct aline *l;
	size_t n, cap, sel, top;
	uint64_t total;
};

static int ann_add(struct annotate *a, uint32_t line, uint64_t weight, uint64_t nr,
		   const char *text)
{
	char *t;

	if (ZT_GROW(a->l, a->cap, a->n + 1))
		return -ENOMEM;
	t = strdup(text);
	if (!t)
		return -ENOMEM;
	a->l[a->n++] = (struct aline){ line, weight, nr, t };
	return 0;
}

/* The function's name as written in its source: no arguments, no scope. */
static void base_name(const char *sym, char *out, size_t n)
{
	const char *p = strchr(sym, '('), *s;
	size_t len = p ? (size_t)(p - sym) : strlen(sym);

	for (s = sym; s < sym + len; s++)
		if (s[0] == ':' && s[1] == ':')
			sym = s + 2;
	len = p ? (size_t)(p - sym) : strcspn(sym, " ");
	snprintf(out, n, "%.*s", (int)len, sym);
}

/* Read lines [1, upto] of path; NULL (errno set) when it cannot be read.
 * The path comes from a recorded binary's DWARF: only a regular file is
 * read (a FIFO or a device there must not hang or grow the browser). */
static char **read_source(const char *path, uint32_t upto, uint32_t *nr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char **v = NULL, *line = NULL;
	size_t cap = 0, vcap = 0;
	uint32_t n = 0;
	struct stat st;
	FILE *f = NULL;
	int err = 0;

	*nr = 0;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	else if (!(f = fdopen(fd, "r")))
		err = errno;
	if (!f) {
		close(fd);
		errno = err;
		return NULL;
	}
	while (n < upto && getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\r\n")] = 0;
		if (ZT_GROW(v, vcap, (size_t)n + 1) || !(v[n] = strdup(line)))
			break;
		n++;
	}
	free(line);
	fclose(f);
	if (!v && !(v = calloc(1, sizeof(*v)))) {
		errno = ENOMEM;
		return NULL;
	}
	*nr = n;
	return v;
}

static const struct rline *find_line(const struct rline *l, size_t n, const char *file,
				     uint32_t line)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i].line == line && !strcmp(l[i].file, file))
			return &l[i];
	return NULL;
}

/* The annotation's lines: the function's source around its samples, then
 * samples in other files (inlined code). 0 or -ENOMEM. */
static int ann_build(struct annotate *a, const struct hist_entry *e, const struct rline *l,
		     size_t n)
{
	const char *main_file = l[0].file, *sym = hist_str(&a->b->m->hist, e->f.sym);
	uint64_t best = 0;
	uint32_t lo = UINT32_MAX, hi = 0, nsrc = 0, i, found;
	char fn[256], buf[LINE_MAX_LEN], **src;
	size_t k, others = 0;
	int ret = 0;

	/* the file with the most weight is the function's own */
	for (k = 0; k < n; k++) {
		uint64_t w = 0;
		size_t j;

		a->total += l[k].weight;
		for (j = 0; j < n; j++)
			if (!strcmp(l[j].file, l[k].file))
				w += l[j].weight;
		if (w > best) {
			best = w;
			main_file = l[k].file;
		}
	}
	for (k = 0; k < n; k++)
		if (!strcmp(l[k].file, main_file)) {
			lo = l[k].line < lo ? l[k].line : lo;
			hi = l[k].line > hi ? l[k].line : hi;
		}
	base_name(sym, fn, sizeof(fn));
	src = read_source(main_file,
			  hi < UINT32_MAX - ANNOTATE_CONTEXT ? hi + ANNOTATE_CONTEXT : hi, &nsrc);
	if (!src) {
		int err = errno;

		snprintf(buf, sizeof(buf), "cannot open the source file '%s': %s", main_file,
			 strerror(err));
		snprintf(a->status, sizeof(a->status), "source not found: '%s'", main_file);
		ret = ann_add(a, 0, 0, 0, buf);
		if (!ret)
			ret = ann_add(a, 0, 0, 0, "samples by line:");
		for (k = 0; k < n && !ret; k++) {
			snprintf(buf, sizeof(buf), "%s:%u", l[k].file, l[k].line);
			ret = ann_add(a, l[k].line, l[k].weight, l[k].nr, buf);
		}
		return ret;
	}
	snprintf(a->status, sizeof(a->status), "%s", main_file);
	/* from the line naming the function to the closing brace, when near */
	found = 0;
	for (i = lo; i >= 1 && i <= nsrc && lo - i < ANNOTATE_CONTEXT; i--) {
		const char *p = fn[0] ? strstr(src[i - 1], fn) : NULL;

		if (p && p[strlen(fn)] == '(') {
			found = i;
			break;
		}
	}
	lo = found ? found : lo > 3 ? lo - 3 : 1;
	found = 0;
	for (i = hi; i <= nsrc && i - hi < ANNOTATE_CONTEXT; i++)
		if (src[i - 1][0] == '}') {
			found = i;
			break;
		}
	hi = found ? found : nsrc >= 3 && hi <= nsrc - 3 ? hi + 3 : hi > nsrc ? hi : nsrc;
	if (hi - lo > ANNOTATE_MAX_LINES) { /* lines that do not fit the file: no source */
		lo = 1;
		hi = 0;
	}
	for (i = lo; i <= hi && !ret; i++) {
		const struct rline *r = find_line(l, n, main_file, i);

		ret = ann_add(a, i, r ? r->weight : 0, r ? r->nr : 0, i <= nsrc ? src[i - 1] : "");
	}
	/* samples on lines that are not shown, in this file or others */
	for (k = 0; k < n && !ret; k++) {
		if (!strcmp(l[k].file, main_file) && l[k].line >= lo && l[k].line <= hi)
			continue;
		if (!others++) {
			ret = ann_add(a, 0, 0, 0, "");
			if (!ret)
				ret = ann_add(a, 0, 0, 0, "samples on other lines (inlined code):");
		}
		snprintf(buf, sizeof(buf), "%s:%u", l[k].file, l[k].line);
		if (!ret)
			ret = ann_add(a, l[k].line, l[k].weight, l[k].nr, buf);
	}
	for (i = 0; i < nsrc; i++)
		free(src[i]);
	free(src);
	return ret;
}

static void ann_line_text(const struct annotate *a, const struct aline *l, char *buf, size_t n,
			  struct span *sp, int *nsp)
{
	*nsp = 0;
	if (!l->line) {
		snprintf(buf, n, "%s", l->text);
	} else if (l->nr) {
		double p = a->total ? 100.0 * (double)l->weight / (double)a->total : 0.0;

		snprintf(buf, n, "%7.2f%% %8llu %6u: %s", p, (unsigned long long)l->nr, l->line,
			 l->text);
		*sp = (struct span){ 0, 8, p };
		*nsp = 1;
	} else {
		snprintf(buf, n, "%17s %6u: %s", "", l->line, l->text);
	}
}

static void ann_draw(void *ctx)
{
	struct annotate *a = ctx;
	int h = list_height(), y;
	size_t hh = h > 0 ? (size_t)h : 1;
	char buf[LINE_MAX_LEN + 64];

	if (a->sel >= a->n)
		a->sel = a->n ? a->n - 1 : 0;
	if (a->top > a->sel)
		a->top = a->sel;
	if (a->sel >= a->top + hh)
		a->top = a->sel - hh + 1;
	tui_erase();
	tui_title(a->title);
	tui_line(1, TUI_HEADER, " Percent  Samples   Line  Source");
	for (y = 0; y < h && a->top + (size_t)y < a->n; y++) {
		const struct aline *l = &a->l[a->top + (size_t)y];
		struct span sp;
		int nsp, x;

		ann_line_text(a, l, buf, sizeof(buf), &sp, &nsp);
		if (a->top + (size_t)y == a->sel) {
			tui_line(y + 2, TUI_SELECTED, buf);
			continue;
		}
		if (nsp) {
			char seg[16];

			snprintf(seg, sizeof(seg), "%.*s", sp.end, buf);
			x = tui_print(y + 2, 0, tui_percent_color(sp.value), seg);
			x = tui_print(y + 2, x, TUI_NORMAL, buf + sp.end);
		} else {
			x = tui_print(y + 2, 0, l->line ? TUI_DIM : TUI_NORMAL, buf);
		}
		tui_fill(y + 2, x, TUI_NORMAL);
	}
	snprintf(buf, sizeof(buf), "%s | q/Esc: back", a->status);
	tui_status(buf);
}

/* The source lines of the selected entry's function with their samples
 * (where its code cannot be read). Returns 1 when the user asked to quit
 * everything. */
static int annotate_source(struct browser *b)
{
	const struct hist_entry *e;
	struct annotate a;
	struct rline *l = NULL;
	size_t n = 0, k, hot = 0;
	uint64_t nr = 0;
	char sym[256];
	int ret, quit = 0;

	if (!b->nr_rows)
		return 0;
	e = b->ents[b->rows[b->sel].entry];
	prof_sanitize(sym, sizeof(sym), hist_str(&b->m->hist, e->f.sym));
	ret = rmodel_lines(b->m, e, &l, &n);
	if (ret) {
		snprintf(b->msg, sizeof(b->msg), "cannot annotate '%s': %s", sym, strerror(-ret));
		return 0;
	}
	if (!n) {
		snprintf(b->msg, sizeof(b->msg), e->self_nr ?
			 "no source lines for '%s' (no debug info for its module?)" :
			 "no samples in '%s' itself (Self 0): nothing to annotate", sym);
		free(l);
		return 0;
	}
	memset(&a, 0, sizeof(a));
	a.b = b;
	ret = ann_build(&a, e, l, n);
	for (k = 0; k < n; k++)
		nr += l[k].nr;
	snprintf(a.title, sizeof(a.title), "Annotate %s: %llu samples with source lines", sym,
		 (unsigned long long)nr);
	free(l);
	if (ret) {
		snprintf(b->msg, sizeof(b->msg), "cannot annotate '%s': %s", sym, strerror(-ret));
		goto out;
	}
	/* start on the hottest line */
	for (k = 0; k < a.n; k++)
		if (a.l[k].line && a.l[k].weight > a.l[hot].weight)
			hot = k;
	a.sel = hot;
	a.top = hot > (size_t)list_height() / 2 ? hot - (size_t)list_height() / 2 : 0;
	tui_set_redraw(ann_draw, &a);
	for (;;) {
		size_t h = list_height() > 0 ? (size_t)list_height() : 1;
		int key;

		ann_draw(&a);
		key = tui_getkey(-1);
		if (key == TUI_KEY_QUIT) {
			quit = 1;
			break;
		}
		if (key == 'q' || key == TUI_KEY_ESC || key == TUI_KEY_LEFT)
			break;
		if (tui_list_key(key, &a.sel, &a.top, a.n, h))
			continue;
		switch (key) {
		case 'h':
		case '?':
		case TUI_KEY_F1:
			if (tui_popup("annotate: keys",
				      "Up/Down, j/k    move\n"
				      "PgUp/PgDn       page up/down\n"
				      "Home/End        first/last line\n"
				      "q, Esc, Left    back to the entries\n"
				      "\n"
				      "Percent: of the function's samples with a source line;\n"
				      "Samples: how many samples were on the line") == TUI_KEY_QUIT)
				quit = 1;
			break;
		}
		if (quit)
			break;
	}
	tui_set_redraw(draw, b);
out:
	for (k = 0; k < a.n; k++)
		free(a.l[k].text);
	free(a.l);
	return quit;
}

/* The function of the selected line (an entry, or a frame of a call
 * chain) in the annotate model; NULL with a message in b->msg. */
static const struct ann_sym *selected_function(struct browser *b, char *name, size_t n)
{
	const struct hist *h = &b->m->hist;
	const struct row *r = &b->rows[b->sel];
	const struct hist_entry *e = b->ents[r->entry];
	const char *sym, *dso;
	char clean[512];
	size_t i;
	int ret;

	if (r->node == CC_NONE) {
		sym = hist_str(h, e->f.sym);
		dso = hist_str(h, e->f.dso);
	} else {
		uint64_t key = cc_node(&h->cc, r->node)->key;

		sym = hist_str(h, hist_chain_key_sym(key));
		dso = hist_str(h, hist_chain_key_dso(key));
	}
	snprintf(name, n, "%s", sym);
	if (!b->have_ap) {
		struct ann_filter af = {NULL, 0, b->o->event_idx >= 0, (uint32_t)b->o->event_idx};

		ret = ann_profile_build(&b->ap, &b->m->rs, &af);
		if (ret) {
			snprintf(b->msg, sizeof(b->msg), "cannot annotate '%s': %s", name,
				 strerror(-ret));
			return NULL;
		}
		b->have_ap = 1;
	}
	for (i = 0; i < b->ap.nr_syms; i++) {
		const struct ann_sym *s = &b->ap.syms[i];

		if (r->node == CC_NONE && (s->start != e->f.addr || s->kernel != e->f.kernel))
			continue;
		prof_sanitize(clean, sizeof(clean), s->name);
		if (strcmp(clean, sym))
			continue;
		prof_sanitize(clean, sizeof(clean), s->module);
		if (!strcmp(clean, dso))
			return s;
	}
	/* a caller without samples of its own: perf shows its code at 0% */
	if (!(r->node == CC_NONE ? e->f.kernel : 0) && !ann_sym_by_name(b->m->prof, sym, dso, &b->byname))
		return &b->byname;
	snprintf(b->msg, sizeof(b->msg), "no samples in '%s' itself (Self 0): nothing to annotate",
		 name);
	return NULL;
}

/* a, and the menu's Annotate: the selected function's instructions with
 * their samples (perf annotate's view); where its code cannot be read,
 * its source lines with theirs. 1 when the user asked to quit. */
static int annotate(struct browser *b)
{
	struct ann_opts ao = { b->o->symmod, b->o->vmlinux, DISASM_ATT, 1 };
	struct annotate_view_opts vo = { b->o->event, ANN_LOCAL_PERIOD, 1, &b->ap, b->m->prof, &ao };
	const struct ann_sym *s;
	struct annotation a;
	char name[256], err[400];
	int ret;

	if (!b->nr_rows)
		return 0;
	s = selected_function(b, name, sizeof(name));
	if (!s)
		return 0;
	ret = annotation_build(&a, &b->ap, s, &ao, err, sizeof(err));
	if (ret == -ENOMEM)
		return -ENOMEM;
	if (ret) {
		if (b->rows[b->sel].node != CC_NONE) {
			snprintf(b->msg, sizeof(b->msg), "cannot annotate '%.200s': %.280s", name, err);
			return 0;
		}
		ret = annotate_source(b);
		if (!b->msg[0])
			snprintf(b->msg, sizeof(b->msg), "no instructions for '%.200s': %.280s", name, err);
		return ret;
	}
	ret = annotate_view(&a, &vo);
	annotation_release(&a);
	tui_set_redraw(draw, b);
	return ret;
}

/* ---- keys that change the build ------------------------------------------- */

static const char key_names[] = "comm, pid, tid, dso, sym, srcline, symq or cpu";

static const char *const sort_choices[] = {
	"comm,dso,sym  (perf's default)",
	"sym",
	"dso,sym",
	"comm,sym",
	"pid,sym",
	"tid,sym",
	"cpu,sym",
	"sym,srcline",
	"srcline",
	"comm",
	"pid",
	"tid",
	"dso",
	"cpu",
	"symq,dso",
	"other: type the keys",
};

static int parse_keys(const char *text, enum hist_key *keys, unsigned *nr, char *bad, size_t n)
{
	char list[256], *tok, *save = NULL;

	snprintf(list, sizeof(list), "%s", text);
	*nr = 0;
	for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		enum hist_key k;

		if (!strcmp(tok, "symbol"))
			tok = "sym";
		if (!strcmp(tok, "thread"))
			tok = "tid";
		if (hist_key_parse(tok, &k)) {
			snprintf(bad, n, "%s", tok);
			return -EINVAL;
		}
		if (*nr < HIST_MAX_KEYS)
			keys[(*nr)++] = k;
	}
	return *nr ? 0 : -EINVAL;
}

static int change_sort(struct browser *b)
{
	const int nc = (int)(sizeof(sort_choices) / sizeof(sort_choices[0]));
	char text[256] = "", bad[64] = "";
	enum hist_key keys[HIST_MAX_KEYS];
	unsigned nr, k;
	int c;

	c = tui_menu("sort by", sort_choices, nc, 0);
	if (c < 0)
		return tui_quit_signal() ? 1 : 0;
	if (c == nc - 1) {
		size_t len = 0;

		for (k = 0; k < b->m->hist.nr_keys; k++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s",
						k ? "," : "", hist_key_name(b->m->hist.keys[k]));
		if (!tui_prompt("Sort keys (comm pid tid dso sym srcline symq cpu): ", text,
				sizeof(text)))
			return tui_quit_signal() ? 1 : 0;
	} else {
		snprintf(text, sizeof(text), "%.*s", (int)strcspn(sort_choices[c], " "),
			 sort_choices[c]);
	}
	if (parse_keys(text, keys, &nr, bad, sizeof(bad))) {
		if (bad[0])
			snprintf(b->msg, sizeof(b->msg), "unknown sort key '%s': use %s", bad,
				 key_names);
		else
			snprintf(b->msg, sizeof(b->msg), "no sort key given: use %s", key_names);
		return 0;
	}
	memcpy(b->mo.keys, keys, sizeof(keys));
	b->mo.nr_keys = nr;
	if (b->mo.sort.nr) /* perf's order for the new keys */
		hist_sortspec_default(&b->mo.sort, b->mo.children, keys, nr);
	if (rebuild(b))
		return -1;
	snprintf(b->msg, sizeof(b->msg), "sorted by %s", text);
	return 0;
}

static int has_key(const struct browser *b, enum hist_key k)
{
	unsigned i;

	for (i = 0; i < b->m->hist.nr_keys; i++)
		if (b->m->hist.keys[i] == k)
			return 1;
	return 0;
}

static void zoom_pop(struct browser *b, int z)
{
	int i, j = 0;

	for (i = 0; i < b->nr_zooms; i++)
		if (b->zooms[i] != z)
			b->zooms[j++] = b->zooms[i];
	b->nr_zooms = j;
}

/* t and d: zoom into the selected entry's thread or module, or back out. */
static int zoom(struct browser *b, int z)
{
	const struct rfilter *uf = b->o->filter;
	const struct hist_entry *e;
	int on = 0, i;
	char name[128];

	for (i = 0; i < b->nr_zooms; i++)
		on |= b->zooms[i] == z;
	if (on) {
		if (z == ZOOM_THREAD) {
			b->zf.pids = uf ? uf->pids : NULL;
			b->zf.nr_pids = uf ? uf->nr_pids : 0;
			b->zf.tids = uf ? uf->tids : NULL;
			b->zf.nr_tids = uf ? uf->nr_tids : 0;
		} else {
			free(b->zdso);
			b->zdso = NULL;
		}
		zoom_pop(b, z);
		if (z == ZOOM_THREAD ? rebuild(b) : refilter(b))
			return -1;
		snprintf(b->msg, sizeof(b->msg), "zoomed out of the %s",
			 z == ZOOM_THREAD ? "thread" : "module");
		return 0;
	}
	if (!b->nr_rows)
		return 0;
	e = b->ents[b->rows[b->sel].entry];
	if (z == ZOOM_THREAD) {
		prof_sanitize(name, sizeof(name), hist_str(&b->m->hist, e->f.comm));
		/* tids are in the entries only when they are sort keys */
		b->zoom_tid = has_key(b, HIST_KEY_TID);
		b->zid = b->zoom_tid ? e->f.tid : e->f.pid;
		if (b->zoom_tid) {
			b->zf.tids = &b->zid;
			b->zf.nr_tids = 1;
		} else {
			b->zf.pids = &b->zid;
			b->zf.nr_pids = 1;
		}
		snprintf(b->zlabel_thread, sizeof(b->zlabel_thread), "%s: %s(%u)",
			 b->zoom_tid ? "Thread" : "Process", name, b->zid);
	} else {
		const char *dso = hist_str(&b->m->hist, e->f.dso);

		free(b->zdso);
		b->zdso = strdup(dso);
		if (!b->zdso)
			return -1;
		prof_sanitize(name, sizeof(name), dso);
		snprintf(b->zlabel_dso, sizeof(b->zlabel_dso), "DSO: %s", name);
	}
	b->zooms[b->nr_zooms++] = z;
	if (z == ZOOM_THREAD ? rebuild(b) : refilter(b))
		return -1;
	snprintf(b->msg, sizeof(b->msg), "zoomed into %s (%c or Esc: zoom out)",
		 z == ZOOM_THREAD ? b->zlabel_thread : b->zlabel_dso, z == ZOOM_THREAD ? 't' : 'd');
	return 0;
}

static int search(struct browser *b)
{
	char text[sizeof(b->search)];

	snprintf(text, sizeof(text), "%s", b->search);
	if (!tui_prompt("Symbol to show (empty: all): ", text, sizeof(text)))
		return tui_quit_signal() ? 1 : 0;
	snprintf(b->search, sizeof(b->search), "%s", text);
	if (refilter(b))
		return -1;
	if (b->search[0])
		snprintf(b->msg, sizeof(b->msg), "%zu entries with '%s' in their symbol",
			 b->nr_ents, b->search);
	return 0;
}

static int percent_limit(struct browser *b)
{
	char text[64], *end;
	double v;

	snprintf(text, sizeof(text), "%g", b->percent_limit);
	if (!tui_prompt("Percent limit (entries below are hidden): ", text, sizeof(text)))
		return tui_quit_signal() ? 1 : 0;
	v = strtod(text, &end);
	if (end == text || *end || v < 0 || v > 100) {
		snprintf(b->msg, sizeof(b->msg), "not a percentage: '%s'", text);
		return 0;
	}
	b->percent_limit = v;
	return resort(b) ? -1 : 0;
}

/* Enter, m: perf's action menu for the selected line. */
enum action { ACT_ANNOTATE, ACT_THREAD, ACT_DSO, ACT_FOLD, ACT_EXIT };

static int action_menu(struct browser *b)
{
	const struct hist *h = &b->m->hist;
	char text[5][320], comm[128], dso[160], sym[160];
	const char *items[5];
	enum action act[5];
	const struct hist_entry *e;
	const struct row *r;
	int n = 0, c, i, zoomed[3] = { 0, 0, 0 };
	char mark;

	if (!b->nr_rows)
		return 0;
	r = &b->rows[b->sel];
	e = b->ents[r->entry];
	for (i = 0; i < b->nr_zooms; i++)
		zoomed[b->zooms[i]] = 1;
	prof_sanitize(comm, sizeof(comm), hist_str(h, e->f.comm));
	prof_sanitize(dso, sizeof(dso), hist_str(h, e->f.dso));
	prof_sanitize(sym, sizeof(sym),
		      r->node == CC_NONE ? hist_str(h, e->f.sym) :
					   rmodel_chain_name(b->m, cc_node(&h->cc, r->node)));
	if (r->node != CC_NONE || e->f.symq) {
		snprintf(text[n], sizeof(text[n]), "Annotate %s", sym);
		act[n++] = ACT_ANNOTATE;
	}
	if (zoomed[ZOOM_THREAD])
		snprintf(text[n], sizeof(text[n]), "Zoom out of %s thread", b->zlabel_thread);
	else
		snprintf(text[n], sizeof(text[n]), "Zoom into %s(%u) thread", comm,
			 has_key(b, HIST_KEY_TID) ? e->f.tid : e->f.pid);
	act[n++] = ACT_THREAD;
	if (zoomed[ZOOM_DSO])
		snprintf(text[n], sizeof(text[n]), "Zoom out of %s DSO", b->zdso ? b->zdso : dso);
	else
		snprintf(text[n], sizeof(text[n]), "Zoom into %s DSO", dso);
	act[n++] = ACT_DSO;
	mark = fold_mark(b, r);
	if (mark != ' ') {
		snprintf(text[n], sizeof(text[n]), "%s %s callchain", mark == '+' ? "Expand" : "Collapse",
			 sym);
		act[n++] = ACT_FOLD;
	}
	snprintf(text[n], sizeof(text[n]), "Exit");
	act[n++] = ACT_EXIT;
	for (i = 0; i < n; i++)
		items[i] = text[i];
	c = tui_menu(sym, items, n, 0);
	if (c < 0)
		return tui_quit_signal() ? 1 : 0;
	switch (act[c]) {
	case ACT_ANNOTATE:
		return annotate(b);
	case ACT_THREAD:
		return zoom(b, ZOOM_THREAD);
	case ACT_DSO:
		return zoom(b, ZOOM_DSO);
	case ACT_FOLD:
		toggle(b);
		return layout(b);
	case ACT_EXIT:
		return 1;
	}
	return 0;
}

static const char help_text[] =
	"Up/Down, j/k       move\n"
	"PgUp/PgDn, Space   page up/down\n"
	"Home/End, g/G      first/last line\n"
	"Enter, m           actions: annotate, zoom into thread or DSO, expand, exit\n"
	"+                  expand/collapse one call-chain level\n"
	"e                  expand/collapse the selected entry's call chains\n"
	"E                  expand all call chains\n"
	"C                  collapse all call chains\n"
	"/                  show only symbols containing a text (empty: all)\n"
	"s                  sort by other keys (comm, pid, tid, dso, sym, ...)\n"
	"t                  zoom into the selected entry's thread; again: out\n"
	"d                  zoom into the selected entry's module (DSO); again: out\n"
	"Esc, Left          zoom out (the last zoom)\n"
	"a                  annotate the selected function: its instructions and source\n"
	"L                  change the percent limit\n"
	"P                  write the view (expanded chains too) to zt.hist.N\n"
	"h, ?, F1           this help\n";
static const char help_one[] = "q, Esc, Ctrl-C     quit (Esc when not zoomed)\n";
static const char help_multi[] = "Tab, Shift-Tab     the next, the previous event\n"
				 "Esc, Left          back to the events (when not zoomed)\n"
				 "q, Ctrl-C          quit\n";

/* ---- the browser ----------------------------------------------------------- */

static void on_log(enum zt_log_level level, const char *msg, void *ctx)
{
	struct browser *b = ctx;

	if (level <= ZT_LOG_WARN)
		snprintf(b->msg, sizeof(b->msg), "%s", msg);
}

static void move_sel(struct browser *b, long d)
{
	long s = (long)b->sel + d;

	if (s < 0)
		s = 0;
	if (b->nr_rows && s >= (long)b->nr_rows)
		s = (long)b->nr_rows - 1;
	b->sel = (size_t)s;
}

/* The loop: 0 to quit, a negative errno on a fatal error. */
static int run(struct browser *b)
{
	for (;;) {
		long h = list_height() > 0 ? list_height() : 1;
		int key, ret = 0;

		draw(b);
		key = tui_getkey(-1);
		b->msg[0] = 0;
		b->leave = LEAVE_QUIT;
		switch (key) {
		case TUI_KEY_QUIT:
		case 'q':
			return 0;
		case TUI_KEY_ESC:
		case TUI_KEY_LEFT:
			if (b->nr_zooms) {
				ret = zoom(b, b->zooms[b->nr_zooms - 1]);
				break;
			}
			/* perf: back to the menu of events; with one, Esc quits */
			if (b->multi) {
				b->leave = LEAVE_BACK;
				return 0;
			}
			if (key == TUI_KEY_ESC)
				return 0;
			break;
		case TUI_KEY_TAB:
		case TUI_KEY_BTAB:
			if (b->multi) {
				b->leave = key == TUI_KEY_TAB ? LEAVE_NEXT : LEAVE_PREV;
				return 0;
			}
			break;
		case TUI_KEY_UP:
		case 'k':
			move_sel(b, -1);
			break;
		case TUI_KEY_DOWN:
		case 'j':
			move_sel(b, 1);
			break;
		case TUI_KEY_PGUP:
			move_sel(b, -h);
			b->top = b->top > (size_t)h ? b->top - (size_t)h : 0;
			break;
		case TUI_KEY_PGDN:
		case ' ':
			move_sel(b, h);
			b->top += (size_t)h;
			break;
		case TUI_KEY_HOME:
		case 'g':
			b->sel = b->top = 0;
			break;
		case TUI_KEY_END:
		case 'G':
			move_sel(b, (long)b->nr_rows);
			break;
		case TUI_KEY_ENTER:
		case 'm':
			ret = action_menu(b);
			break;
		case '+':
			toggle(b);
			ret = layout(b);
			break;
		case 'e':
			if (b->nr_rows) {
				const struct hist_entry *e = b->ents[b->rows[b->sel].entry];

				if (b->mo.chain == HIST_CHAIN_NONE)
					snprintf(b->msg, sizeof(b->msg), "%s", no_chains);
				fold_entry(b, e, !entry_unfolded(b, e));
				ret = layout(b);
			}
			break;
		case 'E': {
			size_t i;

			for (i = 0; i < b->nr_ents; i++)
				fold_entry(b, b->ents[i], 1);
			ret = layout(b);
			break;
		}
		case 'C':
			memset(b->unfolded_e, 0, b->nr_unfolded_e);
			memset(b->unfolded_n, 0, b->nr_unfolded_n);
			ret = layout(b);
			break;
		case '/':
			ret = search(b);
			break;
		case 's':
			ret = change_sort(b);
			break;
		case 't':
			ret = zoom(b, ZOOM_THREAD);
			break;
		case 'd':
			ret = zoom(b, ZOOM_DSO);
			break;
		case 'a':
			ret = annotate(b);
			break;
		case 'L':
			ret = percent_limit(b);
			break;
		case 'P':
			print_view(b);
			break;
		case 'h':
		case '?':
		case TUI_KEY_F1: {
			char help[sizeof(help_text) + sizeof(help_multi)];

			snprintf(help, sizeof(help), "%s%s", help_text,
				 b->multi ? help_multi : help_one);
			if (tui_popup("zt report: keys", help) == TUI_KEY_QUIT)
				return 0;
			break;
		}
		case TUI_KEY_RESIZE:
		case TUI_KEY_NONE:
			break;
		default:
			if (key > ' ' && key < 0x7f)
				snprintf(b->msg, sizeof(b->msg),
					 "'%c' does nothing: h for the keys", key);
			break;
		}
		if (ret > 0)
			return 0; /* a quit signal in a dialog */
		if (ret < 0) {
			snprintf(b->err, sizeof(b->err), "%s", strerror(ret == -1 ? ENOMEM : -ret));
			return ret;
		}
	}
}

/* Take over the terminal: 0, or -1 after a message. */
static int start_screen(void)
{
	int ret = tui_init();
	const char *term = getenv("TERM");

	if (!ret)
		return 0;
	if (ret == -ENOTTY)
		cmd_error("cannot start the browser: not a terminal (use --stdio)");
	else if (ret == -EINVAL)
		cmd_error("cannot start the browser: terminal type '%s' unknown or not "
			  "full-screen (set TERM, or use --stdio)",
			  term ? term : "");
	else
		cmd_error("cannot start the browser: %s (use --stdio)", strerror(-ret));
	return -1;
}

/* Give the terminal back; ret nonzero: the fatal error err, said now. A
 * quit signal other than SIGINT then ends the process as it would have.
 * An exit code. */
static int end_screen(int ret, const char *err)
{
	int sig = tui_end();

	cmd_setup("report", cmd_verbosity);
	if (ret) {
		cmd_error("cannot update the report: %s", err);
		ret = ZT_EXIT_FAIL;
	}
	if (sig && sig != SIGINT)
		tui_reraise(sig); /* SIGTERM, SIGHUP, SIGQUIT: end as the signal says */
	return ret;
}

/* Browse m (built with o->mo) on the started screen until the user leaves
 * (*leave: how). 0, or a negative errno with its message in err. The log
 * goes to the browser's status bar meanwhile, and is left pointing nowhere
 * useful: the caller sets it again. */
static int browse(struct rmodel *m, const struct report_tui_opts *o, int multi, enum leave *leave,
		  char *err, size_t errlen)
{
	struct browser b;
	int ret;

	memset(&b, 0, sizeof(b));
	b.m = m;
	b.o = o;
	b.mo = o->mo;
	b.multi = multi;
	b.percent_limit = o->percent_limit;
	if (o->filter)
		b.zf = *o->filter;
	else
		rfilter_init(&b.zf);
	b.mo.filter = &b.zf;
	/* the model is built with these options already: sort only */
	ret = resort(&b);
	if (ret) {
		snprintf(b.err, sizeof(b.err), "%s", strerror(ret == -1 ? ENOMEM : -ret));
	} else {
		/* library warnings go to the status bar, not over the screen */
		zt_log_set(on_log, &b);
		tui_set_redraw(draw, &b);
		ret = run(&b);
	}
	zt_log_set(NULL, NULL);
	*leave = b.leave;
	snprintf(err, errlen, "%s", b.err);
	if (b.have_ap)
		ann_profile_release(&b.ap);
	free(b.zdso);
	free(b.ents);
	free(b.rows);
	free(b.unfolded_e);
	free(b.unfolded_n);
	return ret;
}

int report_tui(struct rmodel *m, const struct report_tui_opts *o)
{
	char err[256];
	enum leave leave;
	int ret;

	if (start_screen())
		return ZT_EXIT_FAIL;
	ret = browse(m, o, 0, &leave, err, sizeof(err));
	return end_screen(ret, err);
}

/* ---- several events: perf's menu of them ----------------------------------- */

struct evmenu {
	const struct profile *prof;
	size_t nr;	      /* events */
	uint64_t *nr_samples; /* each one's */
	size_t sel, top;
	char msg[512];
};

static void menu_draw(void *ctx)
{
	struct evmenu *mn = ctx;
	int h = tui_rows() - 2, y;
	char nr[32], name[256], line[320];

	if (h < 1)
		h = 1;
	if (mn->sel < mn->top)
		mn->top = mn->sel;
	if (mn->sel >= mn->top + (size_t)h)
		mn->top = mn->sel - (size_t)h + 1;
	tui_erase();
	tui_title("Available samples");
	for (y = 0; y < h && mn->top + (size_t)y < mn->nr; y++) {
		size_t i = mn->top + (size_t)y;
		const char *ev = profile_event_name(mn->prof, (uint32_t)i);

		/* perf: "%lu%c%s%s", the count scaled as convert_unit() does */
		scaled(nr, sizeof(nr), mn->nr_samples[i]);
		prof_sanitize(name, sizeof(name), ev && *ev ? ev : "[unknown]");
		snprintf(line, sizeof(line), "%s %s", nr, name);
		tui_line(y + 1, i == mn->sel ? TUI_SELECTED : TUI_NORMAL, line);
	}
	if (mn->msg[0]) {
		prof_sanitize(line, sizeof(line), mn->msg);
		tui_status(line);
	} else {
		tui_status("ESC: exit, ENTER|->: Browse histograms");
	}
}

static void menu_log(enum zt_log_level level, const char *msg, void *ctx)
{
	struct evmenu *mn = ctx;

	if (level <= ZT_LOG_WARN)
		snprintf(mn->msg, sizeof(mn->msg), "%s", msg);
}

/* Browse event ev and those Tab and Shift-Tab go to; *leave: how the last
 * one was left. 0 or a negative errno with its message in err. */
static int browse_events(struct evmenu *mn, const struct rstacks *rs,
			 const struct report_tui_opts *o, enum leave *leave, char *err,
			 size_t errlen)
{
	struct report_tui_opts eo = *o;
	struct rmodel m;
	int ret;

	for (;;) {
		eo.event = profile_event_name(mn->prof, (uint32_t)mn->sel);
		eo.event_idx = (int)mn->sel;
		ret = rmodel_init_event(&m, rs, (uint32_t)mn->sel, NULL, NULL);
		if (!ret)
			ret = rmodel_build(&m, &o->mo);
		if (ret)
			snprintf(err, errlen, "%s", strerror(-ret));
		else
			ret = browse(&m, &eo, 1, leave, err, errlen);
		rmodel_release(&m);
		if (ret || (*leave != LEAVE_NEXT && *leave != LEAVE_PREV))
			return ret;
		if (*leave == LEAVE_NEXT)
			mn->sel = mn->sel + 1 < mn->nr ? mn->sel + 1 : 0;
		else
			mn->sel = mn->sel ? mn->sel - 1 : mn->nr - 1;
	}
}

int report_tui_events(const struct rstacks *rs, const struct report_tui_opts *o)
{
	const struct profile *prof = rs->prof;
	struct evmenu mn = {.prof = prof, .nr = profile_nr_events(prof)};
	char err[256] = "";
	size_t i;
	int ret = 0;

	mn.nr_samples = calloc(mn.nr, sizeof(*mn.nr_samples));
	if (!mn.nr_samples) {
		cmd_error("cannot build the report: %s", strerror(ENOMEM));
		return ZT_EXIT_FAIL;
	}
	for (i = 0; i < mn.nr; i++)
		mn.nr_samples[i] = profile_event_samples(prof, (uint32_t)i, NULL);
	if (start_screen()) {
		free(mn.nr_samples);
		return ZT_EXIT_FAIL;
	}
	for (;;) {
		enum leave leave;
		int key;

		zt_log_set(menu_log, &mn);
		tui_set_redraw(menu_draw, &mn);
		menu_draw(&mn);
		key = tui_getkey(-1);
		mn.msg[0] = 0;
		if (key == 'q' || key == TUI_KEY_QUIT)
			break;
		if (key == TUI_KEY_ESC) {
			/* perf asks, as Esc also leaves a histogram for this menu */
			key = tui_popup(NULL, "Do you really want to exit?\n\nEnter: Yes, ESC: No");
			if (key == TUI_KEY_ENTER || key == 'y' || key == 'Y' || key == TUI_KEY_QUIT)
				break;
			continue;
		}
		if (key == TUI_KEY_ENTER || key == TUI_KEY_RIGHT) {
			ret = browse_events(&mn, rs, o, &leave, err, sizeof(err));
			if (ret || leave == LEAVE_QUIT)
				break;
			continue;
		}
		tui_list_key(key, &mn.sel, &mn.top, mn.nr,
			     (size_t)(tui_rows() > 3 ? tui_rows() - 2 : 1));
	}
	free(mn.nr_samples);
	return end_screen(ret, err);
}
