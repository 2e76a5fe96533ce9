// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt annotate: perf annotate. A function's instructions, each with its
 * share of the function's samples, and its source lines between them; a
 * Python function's source lines, each with its share; without a symbol,
 * every function with samples, hottest first.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/annotate_tui.h"
#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"
#include "cmd/symopts.h"
#include "cmd/tui.h"
#include "libprof/array.h"
#include "libprof/log.h"
#include "libprof/rmodel.h"
#include "session/session.h"
#include "symbolizer/annotate.h"

#define MIN_LINE_PCT 0.5 /* perf's -l: lines of instructions above this share */

struct annotate_cmd {
	const char *input, *event, *symbol, *dsos, *style, *percent_type;
	int stdio, stdio2, tui, print_line, source, asm_raw, show_nr, show_period, force, quiet,
		demangle;
	size_t ev; /* the event annotated now (its index) */
	struct symopts so;
	struct session ses;
	int have_ses;
	struct ann_profile ap;
	struct ann_opts ao;
	enum ann_percent pct;
	char **dso_list;
	size_t nr_dsos;
	const char *evname;	  /* the event annotated now */
	const char *prev_srcline; /* -l: the last " // file:line" printed (perf's static) */
	char prev_buf[1024];
};

/* ---- perf annotate --stdio ---- */

static int hex_width(uint64_t v)
{
	char b[32];

	return snprintf(b, sizeof(b), "%" PRIx64, v);
}

/* The instruction as objdump writes it after "ADDR:": a tab, [bytes,]
 * the mnemonic padded to 6 and the operands; tabs expanded as perf does
 * (to columns of 8 from the address). */
/* An instruction's operands as objdump writes them: a jump or call's target
 * with its symbol, a RIP-relative operand's address and symbol in a comment. */
static void insn_ops(const struct ann_insn *in, char *ops, size_t n)
{
	if (in->target)
		snprintf(ops, n, "%" PRIx64 " <%s>", in->d.target, in->target);
	else if (in->d.has_target)
		snprintf(ops, n, "%" PRIx64, in->d.target);
	else if (in->d.has_mem)
		snprintf(ops, n, "%s        # %" PRIx64 "%s%s%s", in->d.ops, in->d.mem,
			 in->mem ? " <" : "", in->mem ? in->mem : "", in->mem ? ">" : "");
	else
		snprintf(ops, n, "%s", in->d.ops);
}

static void insn_text(const struct annotation *a, const struct ann_insn *in, int raw, unsigned from,
		      unsigned to, char *buf, size_t n)
{
	int col = hex_width(in->d.addr + from) + 1, len = 0;
	char ops[512];
	unsigned k;

	buf[0] = 0;
	do
		len += snprintf(buf + len, n - (size_t)len, " ");
	while (++col % 8 && (size_t)len + 1 < n);
	if (raw) {
		int start = len;

		for (k = from; k < to && (size_t)len + 4 < n; k++)
			len += snprintf(buf + len, n - (size_t)len, "%02x ", in->d.bytes[k]);
		if (from) { /* a continuation line of bytes */
			while (len > 0 && buf[len - 1] == ' ')
				buf[--len] = 0;
			return;
		}
		while (len - start < 21 && (size_t)len + 1 < n)
			buf[len++] = ' ';
		col += len - start;
		do
			buf[len++] = ' ';
		while (++col % 8 && (size_t)len + 1 < n);
		buf[len] = 0;
	}
	insn_ops(in, ops, sizeof(ops));
	if (ops[0])
		snprintf(buf + len, n - (size_t)len, "%-6s %s", in->d.mnemonic, ops);
	else
		snprintf(buf + len, n - (size_t)len, "%s", in->d.mnemonic);
	(void)a;
}

static void print_value(const struct annotate_cmd *c, const struct annotation *a, size_t i)
{
	if (c->show_period)
		printf(" %11" PRIu64, a->insns[i].weight);
	else if (c->show_nr)
		printf(" %7" PRIu64, a->insns[i].nr);
	else
		printf(" %7.2f", ann_insn_percent(a, i, c->pct));
}

/* Line i of a Python function: its share in a as p asks (ann_insn_percent()'s rule). */
static double line_percent(const struct annotation *a, size_t i, enum ann_percent p)
{
	const struct ann_line *l = &a->lines[i];
	int hits = p == ANN_LOCAL_HITS || p == ANN_GLOBAL_HITS;
	double v = hits ? (double)l->nr : (double)l->weight;
	double t = p == ANN_LOCAL_PERIOD    ? (double)a->weight
		   : p == ANN_GLOBAL_PERIOD ? (double)a->total
		   : p == ANN_LOCAL_HITS    ? (double)a->nr
					    : (double)a->total_nr;

	return t > 0 ? 100.0 * v / t : 0.0;
}

/* The share of unit i of a: an instruction, or a Python function's line. */
static double unit_percent(const struct annotate_cmd *c, const struct annotation *a, size_t i)
{
	return a->python ? line_percent(a, i, c->pct) : ann_insn_percent(a, i, c->pct);
}

static int srcline_cmp(const void *x, const void *y)
{
	const struct {
		char s[256];
		double p;
	} *a = x, *b = y;

	return a->p < b->p ? 1 : a->p > b->p ? -1 : strcmp(a->s, b->s);
}

/* -l: perf's "Sorted summary for file": the share of each source line,
 * counting the instructions (a Python function's lines) above 0.5%. */
static void print_summary(const struct annotate_cmd *c, const struct annotation *a,
			  const struct ann_sym *s)
{
	struct sl {
		char s[256];
		double p;
	} *l = NULL;
	size_t nr = 0, cap = 0, i, j;
	char path[1024];

	prof_sanitize(path, sizeof(path), s->map && s->map->path[0] ? s->map->path : a->path);
	printf("\nSorted summary for file %s\n", path);
	printf("----------------------------------------------\n\n");
	for (i = 0; i < (a->python ? a->nr_lines : a->nr_insns); i++) {
		double p = unit_percent(c, a, i);
		char buf[256];

		if (p <= MIN_LINE_PCT)
			continue;
		annotation_srcline(a, i, buf, sizeof(buf));
		for (j = 0; j < nr && strcmp(l[j].s, buf); j++)
			;
		if (j == nr) {
			if (ZT_GROW(l, cap, nr + 1))
				break;
			snprintf(l[nr].s, sizeof(l[nr].s), "%s", buf);
			l[nr++].p = 0;
		}
		l[j].p += p;
	}
	if (!nr)
		printf(" Nothing higher than %1.1f%%\n", MIN_LINE_PCT);
	if (nr)
		qsort(l, nr, sizeof(*l), srcline_cmp);
	for (i = 0; i < nr; i++) {
		prof_sanitize(path, sizeof(path), l[i].s);
		printf(" %7.2f %s\n", l[i].p, path);
	}
	free(l);
}

static int print_annotation(struct annotate_cmd *c, struct annotation *a, const struct ann_sym *s)
{
	const char *ev = c->evname;
	int width = c->show_period ? 12 : 8, aw, len;
	const struct ann_row *rows;
	size_t nr, i;
	char buf[1024], clean[2048], evc[128];
	int ret;

	ret = annotation_rows(a, c->source, &rows, &nr);
	if (ret)
		return ret;
	if (c->print_line)
		print_summary(c, a, s);
	aw = a->nr_insns ? hex_width(a->insns[a->nr_insns - 1].d.addr) : 4;
	prof_sanitize(evc, sizeof(evc), ev ? ev : "cpu-clock");
	prof_sanitize(clean, sizeof(clean), s->module);
	len = printf(" %-*.*s|\tSource code & Disassembly of %s for %s (%" PRIu64
		     " samples, percent: %s)\n",
		     width, width,
		     c->show_period ? "Period"
		     : c->show_nr   ? "Samples"
				    : "Percent",
		     clean, evc, a->nr, ann_percent_name(c->pct));
	for (i = 0; i < (size_t)len + 4; i++)
		putchar('-');
	putchar('\n');
	printf(" %*s:\n", width, " ");
	prof_sanitize(clean, sizeof(clean), a->name);
	printf(" %*s: %-*s %016" PRIx64 " <%s>:\n", width, " ", aw, "", a->start, clean);
	for (i = 0; i < nr; i++) {
		const struct ann_row *r = &rows[i];

		if (r->kind == ANN_ROW_INSN) {
			const struct ann_insn *in = &a->insns[r->insn];
			unsigned chunk = c->asm_raw && a->machine != EM_AARCH64 ? 7 : in->d.len, k;

			print_value(c, a, r->insn);
			insn_text(a, in, c->asm_raw, 0, chunk < in->d.len ? chunk : in->d.len, buf,
				  sizeof(buf));
			prof_sanitize(clean, sizeof(clean), buf);
			printf(" :   %*" PRIx64 ":%s", aw, in->d.addr, clean);
			if (c->print_line && ann_insn_percent(a, r->insn, c->pct) > MIN_LINE_PCT) {
				annotation_srcline(a, r->insn, buf, sizeof(buf));
				if (!c->prev_srcline || strcmp(c->prev_srcline, buf)) {
					printf(" // %s", buf);
					snprintf(c->prev_buf, sizeof(c->prev_buf), "%s", buf);
					c->prev_srcline = c->prev_buf;
				}
			}
			putchar('\n');
			for (k = chunk; k < in->d.len; k += chunk) {
				insn_text(a, in, 1, k,
					  k + chunk < in->d.len ? k + chunk : in->d.len, buf,
					  sizeof(buf));
				printf(" %*.2f :   %*" PRIx64 ":%s\n", width - 1, 0.0, aw,
				       in->d.addr + k, buf);
			}
		} else if (r->kind == ANN_ROW_SOURCE) {
			const struct ann_loc *l = &a->locs[r->loc];

			if (r->text)
				ann_source_text(r->text, clean, sizeof(clean));
			if (r->text && !clean[0]) {
				printf(" %*s:\n", width, " ");
				continue;
			}
			if (!r->text) {
				snprintf(buf, sizeof(buf), "%s:%u", l->file, r->line);
				prof_sanitize(clean, sizeof(clean), buf);
			}
			printf(" %*s: %-*u %s\n", width, " ", aw, r->line, clean);
		} else {
			const struct ann_loc *l = &a->locs[r->loc];
			const char *cf = l->call_file && strrchr(l->call_file, '/')
						 ? strrchr(l->call_file, '/') + 1
						 : l->call_file;

			prof_sanitize(clean, sizeof(clean), l->func ? l->func : "??");
			if (l->depth && cf)
				printf(" %*s: %-*s %s(): inlined at %s:%u\n", width, " ", aw, "",
				       clean, cf, l->call_line);
			else
				printf(" %*s: %-*s %s():\n", width, " ", aw, "", clean);
		}
	}
	return 0;
}

/* ---- a Python function: its source lines with their samples ---- */

static int digits(uint64_t v)
{
	char b[32];

	return snprintf(b, sizeof(b), "%" PRIu64, v);
}

/* What a Python function's samples are, for its header. */
static void py_counted(const struct annotation *a, char *buf, size_t n)
{
	char name[256];

	prof_sanitize(name, sizeof(name), a->name);
	snprintf(buf, n,
		 "samples: those with %s as the innermost Python frame (native code it calls "
		 "included), at the line of its instruction",
		 name);
}

/* --stdio, --stdio2: the lines from the function's first to its last, each
 * with its share (blank: none); without the file's text, the lines with
 * samples only. */
static int print_python(struct annotate_cmd *c, struct annotation *a, const struct ann_sym *s)
{
	int width = c->show_period ? 12 : 8, lw, len;
	char buf[2048], clean[2048], evc[128], mod[256];
	size_t i;

	if (c->print_line)
		print_summary(c, a, s);
	lw = digits(a->nr_lines ? a->lines[a->nr_lines - 1].line : 1);
	prof_sanitize(evc, sizeof(evc), c->evname ? c->evname : "cpu-clock");
	prof_sanitize(clean, sizeof(clean), a->name);
	prof_sanitize(mod, sizeof(mod), a->module);
	len = printf(" %-*.*s|\tSource code of %s (Python, %s) for %s (%" PRIu64
		     " samples, percent: %s)\n",
		     width, width,
		     c->show_period ? "Period"
		     : c->show_nr   ? "Samples"
				    : "Percent",
		     clean, mod, evc, a->nr, ann_percent_name(c->pct));
	for (i = 0; i < (size_t)len + 4; i++)
		putchar('-');
	putchar('\n');
	py_counted(a, buf, sizeof(buf));
	printf(" %*s:\t%s\n", width, " ", buf);
	prof_sanitize(clean, sizeof(clean), a->path);
	printf(" %*s:\t%s\n", width, " ", clean);
	if (a->unplaced_nr)
		printf(" %*s:\t%" PRIu64 " sample%s at no known line\n", width, " ", a->unplaced_nr,
		       a->unplaced_nr > 1 ? "s" : "");
	if (a->source_err) {
		prof_sanitize(clean, sizeof(clean), a->source_err);
		printf(" %*s:\tno source text: %s\n", width, " ", clean);
	}
	printf(" %*s:\n", width, " ");
	for (i = 0; i < a->nr_lines; i++) {
		const struct ann_line *l = &a->lines[i];

		if (!l->nr && !a->have_source)
			continue;
		if (!l->nr)
			printf(" %*s", width - 1, " ");
		else if (c->show_period)
			printf(" %11" PRIu64, l->weight);
		else if (c->show_nr)
			printf(" %7" PRIu64, l->nr);
		else
			printf(" %7.2f", line_percent(a, i, c->pct));
		if (l->text)
			ann_source_line(l->text, clean, sizeof(clean));
		else
			clean[0] = 0;
		printf(" : %*u%s%s\n", lw, l->line, clean[0] ? "  " : "", clean);
	}
	return 0;
}

static void no_redraw(void *ctx)
{
	(void)ctx;
}

/* The TUI's view of a Python function: its lines with their shares (perf's
 * colors), TAB to the next hottest; q back (0), a quit (1). */
struct pyview {
	struct annotate_cmd *c;
	struct annotation *a;
	const uint32_t *hot;
	size_t nr_hot, sel, top;
	long hot_at;
	int show; /* 0 percent, 1 samples, 2 period */
};

static size_t pyview_height(void)
{
	int h = tui_rows() - 3;

	return h > 0 ? (size_t)h : 1;
}

static void pyview_draw(void *ctx)
{
	struct pyview *v = ctx;
	const struct annotation *a = v->a;
	size_t h = pyview_height(), y;
	char buf[2400], text[2048], name[256], ev[128];
	int lw = digits(a->nr_lines ? a->lines[a->nr_lines - 1].line : 1);

	if (v->sel >= a->nr_lines)
		v->sel = a->nr_lines ? a->nr_lines - 1 : 0;
	if (v->top > v->sel)
		v->top = v->sel;
	if (v->sel >= v->top + h)
		v->top = v->sel - h + 1;
	tui_erase();
	prof_sanitize(name, sizeof(name), a->name);
	prof_sanitize(ev, sizeof(ev), v->c->evname ? v->c->evname : "cpu-clock");
	snprintf(buf, sizeof(buf),
		 "Annotate %s (Python): Samples: %" PRIu64 " of event '%s', percent: %s", name,
		 a->nr, ev, ann_percent_name(v->c->pct));
	tui_title(buf);
	prof_sanitize(text, sizeof(text), a->path);
	snprintf(buf, sizeof(buf), "%8s   %s",
		 v->show == 1	? "Samples"
		 : v->show == 2 ? "Period"
				: "Percent",
		 text);
	tui_line(1, TUI_HEADER, buf);
	for (y = 0; y < h && v->top + y < a->nr_lines; y++) {
		const struct ann_line *l = &a->lines[v->top + y];
		double pct = line_percent(a, v->top + y, v->c->pct);
		char col[32];
		int x;

		if (!l->nr)
			snprintf(col, sizeof(col), "%8s", "");
		else if (v->show == 1)
			snprintf(col, sizeof(col), "%8" PRIu64, l->nr);
		else if (v->show == 2)
			snprintf(col, sizeof(col), "%8" PRIu64, l->weight);
		else
			snprintf(col, sizeof(col), "%8.2f", pct);
		if (l->text)
			ann_source_line(l->text, text, sizeof(text));
		else
			text[0] = 0;
		snprintf(buf, sizeof(buf), " : %*u  %s", lw, l->line, text);
		if (v->top + y == v->sel) {
			char row[2500];

			snprintf(row, sizeof(row), "%s%s", col, buf);
			tui_line((int)y + 2, TUI_SELECTED, row);
			continue;
		}
		x = tui_print((int)y + 2, 0, l->nr ? tui_percent_color(pct) : TUI_NORMAL, col);
		x = tui_print((int)y + 2, x, l->nr ? TUI_NORMAL : TUI_DIM, buf);
		tui_fill((int)y + 2, x, TUI_NORMAL);
	}
	if (a->source_err)
		prof_sanitize(text, sizeof(text), a->source_err);
	else
		py_counted(a, text, sizeof(text));
	snprintf(buf, sizeof(buf),
		 "TAB/shift-TAB: next/previous hottest line | t: percent/samples/period | q: back "
		 "| %s",
		 text);
	tui_status(buf);
}

static void pyview_hot(struct pyview *v, long at)
{
	size_t h = pyview_height();

	if (!v->nr_hot)
		return;
	at = (at % (long)v->nr_hot + (long)v->nr_hot) % (long)v->nr_hot;
	v->hot_at = at;
	v->sel = v->hot[at];
	v->top = v->sel > h / 2 ? v->sel - h / 2 : 0;
}

static int python_view(struct annotate_cmd *c, struct annotation *a)
{
	struct pyview v = {c, a, NULL, 0, 0, 0, -1, 0};
	int ret = annotation_hottest(a, &v.hot, &v.nr_hot);

	if (ret)
		return ret;
	pyview_hot(&v, 0);
	tui_set_redraw(pyview_draw, &v);
	for (;;) {
		int key;

		pyview_draw(&v);
		key = tui_getkey(-1);
		if (tui_list_key(key, &v.sel, &v.top, a->nr_lines, pyview_height()))
			continue;
		switch (key) {
		case TUI_KEY_QUIT:
			ret = 1;
			goto out;
		case 'q':
		case TUI_KEY_ESC:
		case TUI_KEY_LEFT:
			ret = 0;
			goto out;
		case TUI_KEY_TAB:
			pyview_hot(&v, v.hot_at + 1);
			break;
		case TUI_KEY_BTAB:
			pyview_hot(&v, v.hot_at - 1);
			break;
		case 'H':
			pyview_hot(&v, 0);
			break;
		case 't':
			v.show = (v.show + 1) % 3;
			break;
		default:
			break;
		}
	}
out:
	tui_set_redraw(no_redraw, NULL);
	return ret;
}

/* ---- perf annotate --stdio2: the lines of perf's browser, as text ---- */

/* How perf 6.1 formats an instruction (its x86 table, arch/x86/annotate/
 * instructions.c): by the operands' kind, or raw for names it lacks. */
enum ins2_kind {
	INS2_RAW,
	INS2_MOV,
	INS2_DEC,
	INS2_JUMP,
	INS2_CALL,
	INS2_RET,
	INS2_NOP,
	INS2_LOCK
};

static const char *const ins2_movs[] = {
	"adc",	   "add",    "addsd",  "and",	  "andpd",   "andps",	"bsr",	    "bt",
	"btr",	   "bts",    "cmovbe", "cmove",	  "cmovae",  "cmp",	"cmpxch",   "cmpxchg",
	"cs",	   "divsd",  "divss",  "gs",	  "imul",    "lea",	"mov",	    "movapd",
	"movaps",  "movdqa", "movdqu", "movsd",	  "movss",   "movsb",	"movsw",    "movsl",
	"movupd",  "movups", "movzb",  "movzw",	  "movzl",   "mulsd",	"mulss",    "or",
	"orps",	   "pand",   "paddq",  "pcmpeqb", "por",     "rcl",	"sbb",	    "sete",
	"sub",	   "subsd",  "test",   "tzcnt",	  "ucomisd", "ucomiss", "vaddsd",   "vandpd",
	"vmovdqa", "vmovq",  "vmovsd", "vmulsd",  "vorpd",   "vsubsd",	"vucomisd", "xadd",
	"xchg",	   "xor",    "xorpd",  "xorps",
};

static enum ins2_kind ins2_find(const char *name, int suffix)
{
	char n[32];
	size_t l = strlen(name), i;

	if (l >= sizeof(n))
		return INS2_RAW;
	memcpy(n, name, l + 1);
	for (i = 0; i < sizeof(ins2_movs) / sizeof(ins2_movs[0]); i++)
		if (!strcmp(n, ins2_movs[i]))
			return INS2_MOV;
	if (!strcmp(n, "dec") || !strcmp(n, "inc"))
		return INS2_DEC;
	if ((n[0] == 'j' && strcmp(n, "j")) || !strcmp(n, "xbegin"))
		return INS2_JUMP;
	if (!strcmp(n, "call"))
		return INS2_CALL;
	if (!strcmp(n, "ret"))
		return INS2_RET;
	if (!strcmp(n, "nop"))
		return INS2_NOP;
	if (!strcmp(n, "lock"))
		return INS2_LOCK;
	/* then without an AT&T size suffix (callq, movl, nopw) */
	if (suffix && l > 1 && strchr("bwlq", n[l - 1])) {
		n[l - 1] = 0;
		return ins2_find(n, 0);
	}
	return INS2_RAW;
}

/* perf's comment__symbol(): a %rip operand is named by the comment's <sym> */
static const char *ins2_rip_name(const char *op, const char *comment, char *buf, size_t n)
{
	const char *lt, *gt;

	if (!comment || !strstr(op, "(%rip)") || !(lt = strchr(comment, '<')) ||
	    !(gt = strchr(lt, '>')))
		return op;
	snprintf(buf, n, "%.*s", (int)(gt - lt - 1), lt + 1);
	return buf;
}

/* perf's mov__parse() and mov__scnprintf(): "SOURCE,TARGET" with the
 * comment gone, %rip operands named. -1 where perf's parse fails (raw). */
static int ins2_mov(const char *name, const char *raw, int w, char *out, size_t n)
{
	const char *c = strchr(raw, ','), *t, *cm, *e;
	char src[256], tgt[256], nb[2][256];
	size_t sl;

	if (!c)
		return -1;
	sl = (size_t)(c - raw);
	if (memchr(raw, '(', sl)) {
		const char *p = strchr(raw, ')');

		if (!p || p[1] != ',')
			return -1;
		sl = (size_t)(p + 1 - raw);
	}
	snprintf(src, sizeof(src), "%.*s", (int)sl, raw);
	for (t = raw + sl + 1; *t == ' ' || *t == '\t'; t++)
		;
	cm = strchr(t, '#');
	e = cm ? cm : t + strlen(t);
	while (e > t && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	snprintf(tgt, sizeof(tgt), "%.*s", (int)(e - t), t);
	snprintf(out, n, "%-*s %s,%s", w, name, ins2_rip_name(src, cm, nb[0], sizeof(nb[0])),
		 ins2_rip_name(tgt, cm, nb[1], sizeof(nb[1])));
	return 0;
}

/* The function a symbol name with an offset ("f+0x20") is in. */
static void ins2_sym(const char *target, char *out, size_t n)
{
	const char *plus = strrchr(target, '+');

	if (plus && !strncmp(plus, "+0x", 3))
		snprintf(out, n, "%.*s", (int)(plus - target), target);
	else
		snprintf(out, n, "%s", target);
}

/* Instruction i as perf's disasm_line__write() writes it: the arrow (or
 * two spaces), then the instruction in out. */
static const char *ins2_text(const struct annotation *a, size_t i, int w, char *out, size_t n)
{
	const struct ann_insn *in = &a->insns[i];
	char name[32], raw[600], ops[400], sym[256];
	const char *sp = strchr(in->d.mnemonic, ' '), *rest = sp ? sp + 1 : "";
	enum ins2_kind k;
	int outside;

	snprintf(name, sizeof(name), "%.*s", sp ? (int)(sp - in->d.mnemonic) : 31, in->d.mnemonic);
	/* the operands as objdump writes them, after the first word */
	insn_ops(in, ops, sizeof(ops));
	snprintf(raw, sizeof(raw), "%s%s%s", rest, *rest && ops[0] ? " " : "", ops);
	k = ins2_find(name, 1);
	switch (k) {
	case INS2_MOV:
		if (!ins2_mov(name, raw, w, out, n))
			return "  ";
		break;
	case INS2_DEC: {
		char tgt[256], nb[256];
		const char *cm = strchr(raw, '#');

		snprintf(tgt, sizeof(tgt), "%.*s", (int)strcspn(raw, " \t"), raw);
		snprintf(out, n, "%-*s %s", w, name, ins2_rip_name(tgt, cm, nb, sizeof(nb)));
		return "  ";
	}
	case INS2_NOP:
		snprintf(out, n, "%-*s", w, "nop");
		return "  ";
	case INS2_RET:
		snprintf(out, n, "%-*s %s", w, name, raw);
		return "\xe2\x86\x90 "; /* ← */
	case INS2_LOCK: {
		const char *lsp = strchr(rest, ' ');
		char lname[32], lops[512];

		/* the locked instruction after "lock ", formatted as itself */
		snprintf(lname, sizeof(lname), "%.*s", lsp ? (int)(lsp - rest) : 31, rest);
		snprintf(lops, sizeof(lops), "%s%s%s", lsp ? lsp + 1 : "", lsp && ops[0] ? " " : "",
			 ops);
		if (ins2_find(lname, 1) != INS2_MOV || ins2_mov(lname, lops, w, raw, sizeof(raw)))
			snprintf(raw, sizeof(raw), "%-*s %s", w, lname, lops);
		snprintf(out, n, "%-*s %s", w, name, raw);
		return "  ";
	}
	case INS2_JUMP:
		outside = in->jump_to < 0;
		if (!in->d.has_target || (outside && !in->target)) {
			snprintf(out, n, "%-*s %s", w, name, raw);
			return "\xe2\x86\x92 "; /* → */
		}
		if (outside) {
			ins2_sym(in->target, sym, sizeof(sym));
			snprintf(out, n, "%-*s %s", w, name, sym);
			return "\xe2\x86\x92 ";
		}
		snprintf(out, n, "%-*s %" PRIx64, w, name, in->d.target - a->start);
		return in->d.target > in->d.addr ? "\xe2\x86\x93 " : "\xe2\x86\x91 "; /* ↓ ↑ */
	case INS2_CALL:
		if (in->target) {
			ins2_sym(in->target, sym, sizeof(sym));
			snprintf(out, n, "%-*s %s", w, name, sym);
		} else if (in->d.has_target && in->d.target) {
			snprintf(out, n, "%-*s *%" PRIx64, w, name, in->d.target);
		} else {
			snprintf(out, n, "%-*s %s", w, name, raw);
		}
		return "\xe2\x86\x92 ";
	case INS2_RAW:
		break;
	}
	snprintf(out, n, "%-*s %s", w, name, raw);
	return "  ";
}

/* A line of no instruction: perf's __annotation_line__write() with offset
 * -1; the first one is titled (Percent, Samples with -n, Period). */
static void ins2_other(int pw, int aw, const char *text, const char *title)
{
	if (!*text) {
		printf("%-*s %-*s\n", pw, title ? title : " ", pw, " ");
		return;
	}
	printf("%-*s %-*s  %-*s\n", pw, " ", aw, " ", aw + pw + 1, text);
}

/* perf annotate --stdio2 (hist_entry__tty_annotate2()) of one function. */
static int print_annotation2(struct annotate_cmd *c, struct annotation *a, const struct ann_sym *s)
{
	const struct prof_event *pe =
		c->ses.prof.nr_events > c->ev ? &c->ses.prof.events[c->ev] : NULL;
	const char *fq = profile_get_meta(&c->ses.prof, "freq");
	uint64_t nr = c->symbol ? a->nr : a->total_nr, count = c->symbol ? a->weight : a->total;
	uint64_t hz = pe   ? (pe->flags & PROF_EV_FREQ ? pe->period : 0)
		      : fq ? strtoull(fq, NULL, 10)
			   : 0;
	int pw = c->show_period ? 12 : 7, aw = hex_width(a->size ? a->size : 1), w = 0;
	const struct ann_row *rows;
	char unit = ' ', evc[128], clean[2048], buf[1024], line[2100];
	size_t nrows, i, j;
	uint8_t *target;
	int ret;

	ret = annotation_rows(a, c->source, &rows, &nrows);
	if (ret)
		return ret;
	if (c->print_line)
		print_summary(c, a, s);
	/* jump targets get their offset as a label */
	target = calloc(a->nr_insns ? a->nr_insns : 1, 1);
	if (!target)
		return -ENOMEM;
	for (i = 0; i < a->nr_insns; i++) {
		const char *sp = strchr(a->insns[i].d.mnemonic, ' ');
		int l = sp ? (int)(sp - a->insns[i].d.mnemonic)
			   : (int)strlen(a->insns[i].d.mnemonic);

		w = l > w ? l : w;
		if (a->insns[i].jump_to >= 0 && ins2_find(a->insns[i].d.mnemonic, 1) == INS2_JUMP)
			target[a->insns[i].jump_to] = 1;
	}
	/* perf's convert_unit() */
	for (j = 0; j < 3 && nr > 1000; j++)
		nr /= 1000, unit = "KMG"[j];
	prof_sanitize(evc, sizeof(evc), c->evname);
	if (hz)
		snprintf(buf, sizeof(buf), " %" PRIu64 " Hz,", hz);
	else
		buf[0] = 0;
	printf("Samples: %" PRIu64 "%c of event '%s',%s Event count (approx.): %" PRIu64
	       ", [percent: %s]\n",
	       nr, unit, evc, buf, count, ann_percent_name(c->pct));
	prof_sanitize(clean, sizeof(clean), a->name);
	prof_sanitize(buf, sizeof(buf), s->map && s->map->path[0] ? s->map->path : a->path);
	printf("%s() %s\n", clean, buf);
	/* objdump's lines before the function's, as perf shows them */
	ins2_other(pw, aw, "", c->show_period ? "Period" : c->show_nr ? "Samples" : "Percent");
	ins2_other(pw, aw, "", NULL);
	ins2_other(pw, aw, "", NULL);
	ins2_other(pw, aw, "Disassembly of section .text:", NULL);
	ins2_other(pw, aw, "", NULL);
	snprintf(line, sizeof(line), "%016" PRIx64 " <%s>:", a->start, clean);
	ins2_other(pw, aw, line, NULL);
	/* objdump -l names the function where its code starts */
	snprintf(line, sizeof(line), "%s():", clean);
	ins2_other(pw, aw, line, NULL);
	for (i = 0; i < nrows; i++) {
		const struct ann_row *r = &rows[i];

		if (r->kind == ANN_ROW_INSN) {
			const struct ann_insn *in = &a->insns[r->insn];
			double pct = ann_insn_percent(a, r->insn, c->pct);
			const char *arrow;
			int printed;

			if (!in->nr)
				printf("%-*s", pw, " ");
			else if (c->show_period)
				printf("%11" PRIu64 " ", in->weight);
			else if (c->show_nr)
				printf("%6" PRIu64 " ", in->nr);
			else
				printf("%6.2f ", pct);
			if (target[r->insn])
				printed = snprintf(buf, sizeof(buf), "%*" PRIx64 ": ", aw, in->off);
			else
				printed = snprintf(buf, sizeof(buf), "%-*s  ", aw, " ");
			arrow = ins2_text(a, r->insn, w, line, sizeof(line));
			prof_sanitize(clean, sizeof(clean), line);
			printf(" %s%s%-*s\n", buf, arrow, printed + pw + 3, clean);
		} else if (r->kind == ANN_ROW_SOURCE) {
			const struct ann_loc *l = &a->locs[r->loc];

			if (r->text) {
				ann_source_text(r->text, clean, sizeof(clean));
			} else {
				snprintf(buf, sizeof(buf), "%s:%u", l->file, r->line);
				prof_sanitize(clean, sizeof(clean), buf);
			}
			ins2_other(pw, aw, clean, NULL);
		} else {
			const struct ann_loc *l = &a->locs[r->loc];

			prof_sanitize(clean, sizeof(clean), l->func ? l->func : "??");
			snprintf(line, sizeof(line), "%s():", clean);
			ins2_other(pw, aw, line, NULL);
		}
	}
	free(target);
	return 0;
}

/* ---- the command ---- */

static const char *const annotate_usage[] = {
	"zt annotate [<options>] [<symbol>]",
	NULL,
};

static int parse_dsos(struct annotate_cmd *c)
{
	char err[256];

	if (!c->dsos)
		return 0;
	if (rfilter_add_strs(&c->dso_list, &c->nr_dsos, c->dsos, err, sizeof(err))) {
		cmd_error("%s", err);
		return -1;
	}
	return 0;
}

/* Annotate s into *a, or say why not: 0, or -1 after a message (warn:
 * as a warning, the others go on). */
static int build(struct annotate_cmd *c, const struct ann_sym *s, struct annotation *a, int warn)
{
	char err[1024], name[256];
	int ret = s->python ? annotation_build_python(a, &c->ap, s, err, sizeof(err))
			    : annotation_build(a, &c->ap, s, &c->ao, err, sizeof(err));

	if (!ret) {
		/* perf annotate SYMBOL reads only that symbol's samples: its
		 * global percentages are of them */
		if (c->symbol) {
			a->total = a->weight;
			a->total_nr = a->nr;
		}
		return 0;
	}
	prof_sanitize(name, sizeof(name), s->name);
	if (ret == -ENOMEM)
		cmd_error("cannot annotate '%s': %s", name, strerror(ENOMEM));
	else if (warn)
		cmd_warn("cannot annotate '%s': %s", name, err);
	else
		cmd_error("cannot annotate '%s': %s", name, err);
	return -1;
}

/* The functions of c->ap (or only), hottest first; *done and *kernel count
 * those annotated and the kernel ones left out. */
static int run_stdio(struct annotate_cmd *c, const struct ann_sym *only, size_t *done,
		     size_t *kernel)
{
	struct annotation a;
	size_t i;

	for (i = 0; i < c->ap.nr_syms; i++) {
		const struct ann_sym *s = only ? only : &c->ap.syms[i];

		if (!only && s->kernel && !c->ao.vmlinux) {
			(*kernel)++;
			continue;
		}
		if (build(c, s, &a, !only) == 0) {
			int ret = a.python    ? print_python(c, &a, s)
				  : c->stdio2 ? print_annotation2(c, &a, s)
					      : print_annotation(c, &a, s);

			annotation_release(&a);
			if (ret) {
				cmd_error("cannot annotate '%s': %s", s->name, strerror(-ret));
				return ZT_EXIT_FAIL;
			}
			(*done)++;
		} else if (only) {
			return ZT_EXIT_FAIL;
		}
		if (only || ferror(stdout))
			break;
	}
	return ZT_EXIT_OK;
}

static int view(struct annotate_cmd *c, const struct ann_sym *s, char *msg, size_t n)
{
	struct annotate_view_opts vo = {profile_get_meta(&c->ses.prof, "event"), c->pct, c->source,
					&c->ap, &c->ses.prof, &c->ao};
	char err[768];
	struct annotation a;
	int ret = s->python ? annotation_build_python(&a, &c->ap, s, err, sizeof(err))
			    : annotation_build(&a, &c->ap, s, &c->ao, err, sizeof(err));

	if (ret) {
		snprintf(msg, n, "cannot annotate '%s': %s", s->name,
			 ret == -ENOMEM ? strerror(ENOMEM) : err);
		return 0;
	}
	ret = a.python ? python_view(c, &a) : annotate_view(&a, &vo);
	annotation_release(&a);
	return ret;
}

static int run_tui(struct annotate_cmd *c, const struct ann_sym *only)
{
	char msg[1024] = "";
	const char **items = NULL;
	char **texts = NULL;
	size_t i, n = c->ap.nr_syms > 500 ? 500 : c->ap.nr_syms;
	int ret, sel = 0, sig;

	ret = tui_init();
	if (ret) {
		cmd_error("cannot start the browser: %s (use --stdio)",
			  ret == -ENOTTY ? "not a terminal" : strerror(-ret));
		return ZT_EXIT_FAIL;
	}
	tui_set_redraw(no_redraw, NULL);
	if (only) {
		ret = view(c, only, msg, sizeof(msg));
		goto out;
	}
	items = calloc(n + 1, sizeof(*items));
	texts = calloc(n + 1, sizeof(*texts));
	if (!items || !texts) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct ann_sym *s = &c->ap.syms[i];
		char name[256];

		prof_sanitize(name, sizeof(name), s->name);
		if (asprintf(&texts[i], "%6.2f%%  %s  [%s]",
			     c->ap.total ? 100.0 * (double)s->weight / (double)c->ap.total : 0.0,
			     name, s->module) < 0) {
			ret = -ENOMEM;
			goto out;
		}
		items[i] = texts[i];
	}
	for (;;) {
		tui_erase();
		tui_title("zt annotate: functions with samples, hottest first (Enter: annotate)");
		tui_status(msg[0] ? msg : "Enter: annotate | q: quit");
		msg[0] = 0;
		sel = tui_menu("annotate", items, (int)n, sel);
		if (sel < 0)
			break;
		ret = view(c, &c->ap.syms[sel], msg, sizeof(msg));
		if (ret)
			break;
	}
out:
	sig = tui_end();
	cmd_setup("annotate", cmd_verbosity);
	if (msg[0] && only)
		cmd_error("%s", msg);
	for (i = 0; texts && i < n; i++)
		free(texts[i]);
	free(texts);
	free(items);
	if (sig && sig != SIGINT)
		tui_reraise(sig);
	if (ret < 0) {
		cmd_error("%s", strerror(-ret));
		return ZT_EXIT_FAIL;
	}
	return msg[0] && only ? ZT_EXIT_FAIL : ZT_EXIT_OK;
}

static int annotate_parse_options(struct annotate_cmd *c, int argc, char **argv, int *rest)
{
	const struct opt opts[] = {
		{OPT_STRING, 'i', "input", &c->input, "file",
		 "input file name: zt.data or perf.data (default: zt.data)"},
		{OPT_STRING, 0, "event", &c->event, "name",
		 "the event to annotate of a recording with several (default: each in turn)"},
		{OPT_STRING, 's', "symbol", &c->symbol, "symbol",
		 "the function to annotate (as the SYMBOL argument)"},
		{OPT_STRING, 'd', "dsos", &c->dsos, "dso[,dso...]",
		 "only functions in these modules"},
		{OPT_BOOL, 0, "stdio", &c->stdio, NULL,
		 "text output (default when stdout is not a terminal)"},
		{OPT_BOOL, 0, "stdio2", &c->stdio2, NULL,
		 "text as perf annotate --stdio2 writes it: the lines of the interactive view, "
		 "jumps with arrows to offsets"},
		{OPT_BOOL, 0, "tui", &c->tui, NULL, "the interactive view (default on a terminal)"},
		{OPT_GROUP, 0, NULL, NULL, NULL, "What to show"},
		{OPT_BOOL, 'l', "print-line", &c->print_line, NULL,
		 "the source line of hot instructions, and a summary by line first"},
		{OPT_BOOL, 0, "source", &c->source, NULL,
		 "source lines between the instructions (default); --no-source: not"},
		{OPT_BOOL, 0, "asm-raw", &c->asm_raw, NULL, "the instructions' bytes too"},
		{OPT_STRING, 'M', "disassembler-style", &c->style, "style",
		 "att (default) or intel"},
		{OPT_STRING, 0, "percent-type", &c->percent_type, "type",
		 "local-period (default), global-period, local-hits or global-hits"},
		{OPT_BOOL, 'n', "show-nr-samples", &c->show_nr, NULL,
		 "samples instead of percentages"},
		{OPT_BOOL, 0, "show-total-period", &c->show_period, NULL,
		 "periods instead of percentages"},
		{OPT_BOOL, 'q', "quiet", &c->quiet, NULL, "no warnings"},
		{OPT_BOOL, 'f', "force", &c->force, NULL,
		 "read the readable part of a damaged file"},
		{OPT_BOOL, 0, "demangle", &c->demangle, NULL,
		 "demangle C++ and Rust names (default); --no-demangle: keep them raw"},
		SYMOPTS_OPTIONS(c->so),
		SYMOPTS_SYMDB_OPTIONS(c->so),
		SYMOPTS_KERNEL_OPTIONS(c->so),
		SYMOPTS_PYTHON_OPTIONS(c->so),
		OPT_EOL,
	};

	return opts_parse_permute("annotate", annotate_usage, opts, argc, argv, rest);
}

/* The options' values and the SYMBOL argument (argv[rest..]):
 * ZT_EXIT_OK or ZT_EXIT_USAGE (the message shown). */
static int annotate_check_options(struct annotate_cmd *c, int argc, char **argv, int rest)
{
	if (rest < argc) {
		if (c->symbol || rest + 1 < argc) {
			cmd_error("one symbol at a time: '%s' is one too many (the input is given "
				  "with -i)",
				  argv[c->symbol ? rest : rest + 1]);
			return ZT_EXIT_USAGE;
		}
		c->symbol = argv[rest];
	}
	if ((c->stdio || c->stdio2) && c->tui) {
		cmd_error("--stdio%s and --tui: choose one", c->stdio2 ? "2" : "");
		return ZT_EXIT_USAGE;
	}
	if (c->stdio2)
		c->stdio = 1;
	if (c->stdio && c->tui) {
		cmd_error("--stdio and --tui: choose one");
		return ZT_EXIT_USAGE;
	}
	if (!c->stdio && !c->tui && isatty(STDOUT_FILENO))
		c->tui = 1;
	if (c->style && strcmp(c->style, "att") && strcmp(c->style, "intel")) {
		cmd_error("-M/--disassembler-style '%s': use att or intel", c->style);
		return ZT_EXIT_USAGE;
	}
	if (c->percent_type && ann_percent_parse(c->percent_type, &c->pct)) {
		cmd_error("--percent-type '%s': use local-period, global-period, local-hits or "
			  "global-hits",
			  c->percent_type);
		return ZT_EXIT_USAGE;
	}
	if (parse_dsos(c))
		return ZT_EXIT_USAGE;
	return ZT_EXIT_OK;
}

/* The symbol options and the recording, which must have samples. 0 or -1
 * (the message shown). */
static int annotate_open(struct annotate_cmd *c)
{
	if (symopts_init(&c->so, "annotate"))
		return -1;
	/* perf annotate goes through the events in turn; its TUI (here) shows one */
	if (cmd_open_session_events(&c->ses, c->input, &c->so, c->force, c->event, c->demangle,
				    !c->event))
		return -1;
	c->have_ses = 1;
	if (!c->ses.prof.nr_samples) {
		cmd_error("'%s' has no samples", c->input);
		return -1;
	}
	if (c->tui)
		cmd_first_event(&c->ses, "--event");
	return 0;
}

/* What the pass over the events found. */
struct ann_tally {
	size_t done, kernel; /* functions annotated; kernel ones not (no vmlinux) */
	int found, any_sym;  /* the SYMBOL in an event; any function with a symbol */
};

/* Each event in turn: its functions (or SYMBOL) annotated, the TUI
 * showing the first it can. An exit code to end with, or -1 to go on
 * to annotate_summary(). */
static int annotate_events(struct annotate_cmd *c, struct ann_tally *t)
{
	struct ann_filter filt = {0};
	size_t ev, nev;
	int ret;

	filt.dsos = (const char *const *)c->dso_list;
	filt.nr_dsos = c->nr_dsos;
	c->ao.mo = &c->so.mo;
	c->ao.vmlinux = c->so.vmlinux;
	c->ao.syntax = c->style && !strcmp(c->style, "intel") ? DISASM_INTEL : DISASM_ATT;
	c->ao.demangle = c->demangle;
	nev = profile_nr_events(&c->ses.prof);
	for (ev = 0; ev < nev; ev++) {
		const struct ann_sym *only = NULL;
		const char *name = profile_event_name(&c->ses.prof, (uint32_t)ev);

		c->evname = name && *name ? name : "cpu-clock";
		c->ev = (size_t)ev;
		filt.by_event = nev > 1;
		filt.event = (uint32_t)ev;
		ann_profile_release(&c->ap);
		if ((ret = ann_profile_build(&c->ap, session_stacks(&c->ses), &filt))) {
			cmd_error("cannot read the samples: %s", strerror(-ret));
			return ZT_EXIT_FAIL;
		}
		if (!c->ap.nr_syms)
			continue;
		t->any_sym = 1;
		if (c->symbol && !(only = ann_profile_find(&c->ap, c->symbol, NULL)))
			continue; /* none in this event: perf says nothing either */
		t->found = 1;
		ret = c->tui ? run_tui(c, only) : run_stdio(c, only, &t->done, &t->kernel);
		if (ret != ZT_EXIT_OK || c->tui)
			return ret;
	}
	return -1;
}

/* After every event: what could not be annotated, and why. An exit code. */
static int annotate_summary(const struct annotate_cmd *c, const struct ann_tally *t)
{
	if (c->symbol && !t->found) {
		char name[256];

		prof_sanitize(name, sizeof(name), c->symbol);
		cmd_error("no samples in '%s'%s: see 'zt report --stdio --no-children' for the "
			  "functions with samples",
			  name, c->dsos ? " in those modules" : "");
		return ZT_EXIT_FAIL;
	}
	if (!t->any_sym) {
		cmd_error("no samples in a function with a symbol in '%s'", c->input);
		return ZT_EXIT_FAIL;
	}
	if (t->kernel)
		cmd_warn("%zu kernel function%s not annotated: kernel code needs the recorded "
			 "kernel's vmlinux (use -k/--vmlinux FILE)",
			 t->kernel, t->kernel > 1 ? "s" : "");
	if (!t->done && !c->symbol) {
		cmd_error("no function of '%s' could be annotated", c->input);
		return ZT_EXIT_FAIL;
	}
	return ZT_EXIT_OK;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_cmd c = {.input = "zt.data",
				 .source = 1,
				 .demangle = 1,
				 .so = {.use_debuginfod = 1, .use_cache = 1, .use_symdb = 1}};
	struct ann_tally t = {0};
	int rest, ret;

	ret = annotate_parse_options(&c, argc, argv, &rest);
	cmd_setup("annotate", c.quiet ? -1 : c.so.verbose);
	if (ret == OPTS_HELP || ret == OPTS_ERROR) {
		ret = ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
		goto out;
	}
	ret = annotate_check_options(&c, argc, argv, rest);
	if (ret != ZT_EXIT_OK)
		goto out;
	if (annotate_open(&c)) {
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	ret = annotate_events(&c, &t);
	if (ret < 0)
		ret = annotate_summary(&c, &t);
out:
	ann_profile_release(&c.ap);
	if (c.have_ses)
		session_close(&c.ses);
	symopts_release(&c.so);
	for (size_t i = 0; i < c.nr_dsos; i++)
		free(c.dso_list[i]);
	free(c.dso_list);
	return ret;
}
