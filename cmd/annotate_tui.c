// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The annotate view: a function's instructions with their share of the
 * samples and its source lines between them, hottest-first navigation
 * (TAB, Shift-TAB) and jumps followed, as perf annotate's browser; a thin
 * view over symbolizer/annotate.h drawn through cmd/tui.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/annotate_tui.h"
#include "cmd/tui.h"
#include "libprof/profile.h"

static const char *const pct_names[] = {"local period", "global period", "local hits",
					"global hits"};
static const char *const pct_args[] = {"local-period", "global-period", "local-hits",
				       "global-hits"};

const char *ann_percent_name(enum ann_percent p)
{
	return pct_names[p];
}

int ann_percent_parse(const char *s, enum ann_percent *p)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		if (!strcmp(s, pct_args[i])) {
			*p = (enum ann_percent)i;
			return 0;
		}
	return -EINVAL;
}

double ann_insn_percent(const struct annotation *a, size_t i, enum ann_percent p)
{
	const struct ann_insn *in = &a->insns[i];
	double v = 0, t = 0;

	switch (p) {
	case ANN_LOCAL_PERIOD:
		v = (double)in->weight, t = (double)a->weight;
		break;
	case ANN_GLOBAL_PERIOD:
		v = (double)in->weight, t = (double)a->total;
		break;
	case ANN_LOCAL_HITS:
		v = (double)in->nr, t = (double)a->nr;
		break;
	case ANN_GLOBAL_HITS:
		v = (double)in->nr, t = (double)a->total_nr;
		break;
	}
	return t > 0 ? 100.0 * v / t : 0.0;
}

/* A source line as perf shows it: trimmed, tabs expanded, sanitized. */
void ann_source_text(const char *in, char *out, size_t n)
{
	while (*in == ' ' || *in == '\t')
		in++;
	ann_source_line(in, out, n);
}

void ann_source_line(const char *in, char *out, size_t n)
{
	size_t len = 0;
	char tmp[2048];

	for (; *in && len + 9 < sizeof(tmp); in++) {
		if (*in == '\t') {
			do
				tmp[len++] = ' ';
			while (len % 8);
		} else {
			tmp[len++] = *in;
		}
	}
	while (len && (tmp[len - 1] == ' ' || tmp[len - 1] == '\r'))
		len--;
	tmp[len] = 0;
	prof_sanitize(out, n, tmp);
}

enum show { SHOW_PERCENT, SHOW_SAMPLES, SHOW_PERIOD };

struct view {
	struct annotation *a;
	const struct annotate_view_opts *o;
	const struct ann_row *rows;
	size_t nr, sel, top;
	const uint32_t *hot;
	size_t nr_hot;
	long hot_at; /* index into hot of the last TAB, -1: none */
	int source;
	enum show show;
	int depth;	   /* calls followed to get here */
	char search[128];  /* the last search ('/', '?'), for n */
	int search_back;
	char msg[256];
};

static int height(void)
{
	int h = tui_rows() - 3;

	return h > 0 ? h : 1;
}

static void row_text(const struct view *v, const struct ann_row *r, char *buf, size_t n,
		     double *pct)
{
	const struct annotation *a = v->a;
	char name[512], ops[512];

	*pct = -1;
	if (r->kind == ANN_ROW_INSN) {
		const struct ann_insn *in = &a->insns[r->insn];
		char col[32];

		*pct = ann_insn_percent(a, r->insn, v->o->percent);
		if (v->show == SHOW_SAMPLES)
			snprintf(col, sizeof(col), "%8" PRIu64, in->nr);
		else if (v->show == SHOW_PERIOD)
			snprintf(col, sizeof(col), "%12" PRIu64, in->weight);
		else
			snprintf(col, sizeof(col), "%8.2f", *pct);
		if (in->target)
			snprintf(ops, sizeof(ops), "%" PRIx64 " <%s>", in->d.target, in->target);
		else if (in->mem)
			snprintf(ops, sizeof(ops), "%s  # %s", in->d.ops, in->mem);
		else
			snprintf(ops, sizeof(ops), "%s", in->d.ops);
		prof_sanitize(name, sizeof(name), ops);
		snprintf(buf, n, "%s : %8" PRIx64 ":  %-6s %s%s", col, in->d.addr, in->d.mnemonic,
			 name,
			 in->jump_to >= 0 ? (in->jump_to <= (int32_t)r->insn ? "  ^" : "  v") : "");
	} else if (r->kind == ANN_ROW_SOURCE) {
		const struct ann_loc *l = &a->locs[r->loc];

		if (r->text)
			ann_source_text(r->text, name, sizeof(name));
		else
			prof_sanitize(name, sizeof(name), l->file);
		if (r->text)
			snprintf(buf, n, "%8s : %6u  %s", "", r->line, name);
		else
			snprintf(buf, n, "%8s : %6u  %s:%u (source not found)", "", r->line, name,
				 r->line);
	} else {
		const struct ann_loc *l = &a->locs[r->loc];

		prof_sanitize(name, sizeof(name), l->func ? l->func : "??");
		if (l->depth && l->call_file)
			snprintf(buf, n, "%8s :         %s(): inlined at %s:%u", "", name,
				 strrchr(l->call_file, '/') ? strrchr(l->call_file, '/') + 1
							    : l->call_file,
				 l->call_line);
		else
			snprintf(buf, n, "%8s :         %s():", "", name);
	}
}

static void draw(void *ctx)
{
	struct view *v = ctx;
	size_t h = (size_t)height(), y;
	char buf[1024], ev[320] = "", name[256];

	if (v->sel >= v->nr)
		v->sel = v->nr ? v->nr - 1 : 0;
	if (v->top > v->sel)
		v->top = v->sel;
	if (v->sel >= v->top + h)
		v->top = v->sel - h + 1;
	tui_erase();
	if (v->o->event) {
		prof_sanitize(name, sizeof(name), v->o->event);
		snprintf(ev, sizeof(ev), " of event '%s'", name);
	}
	prof_sanitize(name, sizeof(name), v->a->name);
	snprintf(buf, sizeof(buf), "Annotate %s: Samples: %" PRIu64 "%s, percent: %s", name,
		 v->a->nr, ev, ann_percent_name(v->o->percent));
	tui_title(buf);
	prof_sanitize(name, sizeof(name), v->a->module);
	snprintf(buf, sizeof(buf), "%8s   %s",
		 v->show == SHOW_SAMPLES  ? "Samples"
		 : v->show == SHOW_PERIOD ? "Period"
					  : "Percent",
		 name);
	if (v->a->path) {
		size_t l = strlen(buf);

		prof_sanitize(name, sizeof(name), v->a->path);
		snprintf(buf + l, sizeof(buf) - l, " (code from %s)", name);
	}
	tui_line(1, TUI_HEADER, buf);
	for (y = 0; y < h && v->top + y < v->nr; y++) {
		const struct ann_row *r = &v->rows[v->top + y];
		double pct;
		int x;

		row_text(v, r, buf, sizeof(buf), &pct);
		if (v->top + y == v->sel) {
			tui_line((int)y + 2, TUI_SELECTED, buf);
			continue;
		}
		if (r->kind == ANN_ROW_INSN) {
			char seg[16];

			snprintf(seg, sizeof(seg), "%.8s", buf);
			x = tui_print((int)y + 2, 0, pct > 0 ? tui_percent_color(pct) : TUI_NORMAL,
				      seg);
			x = tui_print((int)y + 2, x, TUI_NORMAL, buf + strlen(seg));
		} else {
			x = tui_print((int)y + 2, 0, TUI_DIM, buf);
		}
		tui_fill((int)y + 2, x, TUI_NORMAL);
	}
	if (v->msg[0])
		snprintf(buf, sizeof(buf), "%s", v->msg);
	else
		snprintf(buf, sizeof(buf),
			 "TAB/shift-TAB: next/previous hottest | Enter: follow jump or call | "
			 "/: search | s: source | t: percent/samples/period | h: help | q: back");
	tui_status(buf);
}

static size_t row_of_insn(const struct view *v, uint32_t insn)
{
	size_t i;

	for (i = 0; i < v->nr; i++)
		if (v->rows[i].kind == ANN_ROW_INSN && v->rows[i].insn == insn)
			return i;
	return v->sel;
}

static void center(struct view *v)
{
	size_t h = (size_t)height();

	v->top = v->sel > h / 2 ? v->sel - h / 2 : 0;
}

static int set_rows(struct view *v)
{
	uint32_t keep = UINT32_MAX;
	int ret;

	if (v->nr && v->rows[v->sel].kind == ANN_ROW_INSN)
		keep = v->rows[v->sel].insn;
	ret = annotation_rows(v->a, v->source, &v->rows, &v->nr);
	if (ret)
		return ret;
	if (keep != UINT32_MAX)
		v->sel = row_of_insn(v, keep);
	return 0;
}

static void go_hot(struct view *v, long at)
{
	if (!v->nr_hot)
		return;
	at = (at % (long)v->nr_hot + (long)v->nr_hot) % (long)v->nr_hot;
	v->hot_at = at;
	v->sel = row_of_insn(v, v->hot[at]);
	center(v);
}

/* The row after (or before, back) sel whose text holds v->search, or -1. */
static long find_row(const struct view *v, int back)
{
	char buf[1024];
	double pct;
	size_t i;

	for (i = 1; i <= v->nr; i++) {
		size_t r = back ? (v->sel + v->nr - i) % v->nr : (v->sel + i) % v->nr;

		if (back ? r >= v->sel : r <= v->sel)
			break; /* perf's search does not wrap */
		row_text(v, &v->rows[r], buf, sizeof(buf), &pct);
		if (strstr(buf, v->search))
			return (long)r;
	}
	return -1;
}

/* '/', '?' (ask: a new string), 'n': the next line with the string. 1 to quit. */
static int search(struct view *v, int ask, int back)
{
	char text[sizeof(v->search)];
	long r;

	if (ask) {
		text[0] = 0;
		if (!tui_prompt(back ? "Search backwards: " : "Search: ", text, sizeof(text)))
			return tui_quit_signal() ? 1 : 0;
		snprintf(v->search, sizeof(v->search), "%s", text);
		v->search_back = back;
	}
	if (!v->search[0]) {
		snprintf(v->msg, sizeof(v->msg), "no search yet: / searches, ? backwards");
		return 0;
	}
	r = v->nr ? find_row(v, v->search_back) : -1;
	if (r < 0) {
		prof_sanitize(text, sizeof(text), v->search);
		snprintf(v->msg, sizeof(v->msg), "'%s' not found %s", text,
			 v->search_back ? "above" : "below");
		return 0;
	}
	v->sel = (size_t)r;
	center(v);
	return 0;
}

static int view_at(struct annotation *a, const struct annotate_view_opts *o, int depth);

/* Enter on a call: the callee's annotation, as perf's browser does. 1 to
 * quit, a negative errno on ENOMEM. */
static int follow_call(struct view *v, const struct ann_insn *in)
{
	const struct annotate_view_opts *o = v->o;
	const struct ann_sym *s = NULL;
	struct ann_sym byname;
	struct annotation callee;
	char name[256], err[400], shown[256];
	const char *plus = strchr(in->target, '+');
	size_t len = plus ? (size_t)(plus - in->target) : strlen(in->target);
	int ret;

	if (len >= sizeof(name) || (plus && strcmp(plus, "+0x0"))) {
		prof_sanitize(shown, sizeof(shown), in->target);
		snprintf(v->msg, sizeof(v->msg), "%.16s goes into %.180s, not to a function's start",
			 in->d.mnemonic, shown);
		return 0;
	}
	memcpy(name, in->target, len);
	name[len] = 0;
	prof_sanitize(shown, sizeof(shown), name);
	if (v->depth >= 32) {
		snprintf(v->msg, sizeof(v->msg), "%d calls followed: go back first", v->depth);
		return 0;
	}
	s = ann_profile_find(o->ap, name, v->a->module);
	if (!s && o->prof && !ann_sym_by_name(o->prof, name, v->a->module, &byname))
		s = &byname;
	if (!s) {
		snprintf(v->msg, sizeof(v->msg), "cannot annotate %.100s: not a function of %.100s", shown,
			 v->a->module);
		return 0;
	}
	ret = annotation_build(&callee, o->ap, s, o->ao, err, sizeof(err));
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		snprintf(v->msg, sizeof(v->msg), "cannot annotate %.100s: %.130s", shown, err);
		return 0;
	}
	/* its percentages against the same totals as the caller's */
	callee.total = v->a->total;
	callee.total_nr = v->a->total_nr;
	ret = view_at(&callee, o, v->depth + 1);
	annotation_release(&callee);
	tui_set_redraw(draw, v);
	return ret;
}

static int is_call(const char *mnemonic)
{
	return !strncmp(mnemonic, "call", 4) || !strcmp(mnemonic, "bl") ||
	       !strcmp(mnemonic, "blr");
}

static const char help[] = "TAB, Shift-TAB     the next, the previous hottest instruction\n"
			   "H                  the hottest instruction\n"
			   "Enter, Right       follow the jump under the cursor, or open the\n"
			   "                   function a call goes to (Left: back)\n"
			   "/, ?               search forward, backward\n"
			   "n                  search again\n"
			   "Up/Down, j/k       move\n"
			   "PgUp/PgDn, Space   page up/down\n"
			   "Home/End           first/last line\n"
			   "s                  show or hide the source lines\n"
			   "t                  percent, samples, period\n"
			   "h, F1              this help\n"
			   "q, Esc, Left       back\n";

int annotate_view(struct annotation *a, const struct annotate_view_opts *o)
{
	return view_at(a, o, 0);
}

static int view_at(struct annotation *a, const struct annotate_view_opts *o, int depth)
{
	struct view v;
	int ret;

	memset(&v, 0, sizeof(v));
	v.a = a;
	v.o = o;
	v.depth = depth;
	v.source = o->source;
	v.hot_at = -1;
	ret = annotation_hottest(a, &v.hot, &v.nr_hot);
	if (!ret)
		ret = set_rows(&v);
	if (ret)
		return ret;
	go_hot(&v, 0);
	tui_set_redraw(draw, &v);
	for (;;) {
		size_t h = (size_t)height();
		int key;

		draw(&v);
		key = tui_getkey(-1);
		v.msg[0] = 0;
		if (tui_list_key(key, &v.sel, &v.top, v.nr, h))
			continue;
		switch (key) {
		case TUI_KEY_QUIT:
			return 1;
		case 'q':
		case TUI_KEY_ESC:
		case TUI_KEY_LEFT:
			return 0;
		case TUI_KEY_TAB:
			go_hot(&v, v.hot_at + 1);
			break;
		case TUI_KEY_BTAB:
			go_hot(&v, v.hot_at - 1);
			break;
		case 'H':
			go_hot(&v, 0);
			break;
		case TUI_KEY_ENTER:
		case TUI_KEY_RIGHT: {
			const struct ann_row *r = v.nr ? &v.rows[v.sel] : NULL;
			const struct ann_insn *in =
				r && r->kind == ANN_ROW_INSN ? &a->insns[r->insn] : NULL;

			if (in && in->jump_to >= 0) {
				v.sel = row_of_insn(&v, (uint32_t)in->jump_to);
				center(&v);
			} else if (in && in->target && o->ap && is_call(in->d.mnemonic)) {
				ret = follow_call(&v, in);
				if (ret)
					return ret;
			} else if (in && in->target) {
				snprintf(v.msg, sizeof(v.msg), "%s goes to %s, outside %s",
					 in->d.mnemonic, in->target, a->name);
			} else {
				snprintf(v.msg, sizeof(v.msg),
					 "Enter follows jumps and calls: this line is neither");
			}
			break;
		}
		case 's':
			if (!a->have_source) {
				snprintf(v.msg, sizeof(v.msg),
					 "no source lines: %s has no DWARF line "
					 "information",
					 a->module);
				break;
			}
			v.source = !v.source;
			ret = set_rows(&v);
			if (ret)
				return ret;
			center(&v);
			break;
		case 't':
			v.show = (enum show)((v.show + 1) % 3);
			break;
		case '/':
		case '?':
			if (search(&v, 1, key == '?'))
				return 1;
			break;
		case 'n':
			if (search(&v, 0, 0))
				return 1;
			break;
		case 'h':
		case TUI_KEY_F1:
			if (tui_popup("annotate: keys", help) == TUI_KEY_QUIT)
				return 1;
			break;
		default:
			break;
		}
	}
}
