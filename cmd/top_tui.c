// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt top's views over its state: the table as text, and the full screen
 * (perf top's TUI): the hottest entries, refreshed with the model, perf
 * top's keys where they apply. Draws through cmd/tui.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/outfile.h"
#include "cmd/topstate.h"
#include "cmd/top_tui.h"
#include "cmd/tui.h"

/* ---- the table (the text snapshots and the screen alike) ---- */

/* Column layout of the table: widths per key. */
struct top_cols {
	int width[HIST_MAX_KEYS];
};

/* The entries to show, best first, after the limits and filters: *rows
 * borrowed until the next refresh. 0 or -ENOMEM. */
static int top_rows(struct top *t, const struct hist_entry ***out, size_t *n)
{
	const struct hist *h = &t->live.hist;
	const struct hist_entry **rows;
	size_t i, k = 0, nr;
	int ret = hist_sort(&t->live.hist, t->children, t->percent_limit, &rows, &nr);

	if (ret)
		return ret;
	for (i = 0; i < nr; i++) {
		const struct hist_entry *e = rows[i];

		if ((t->hide_kernel && e->f.kernel) || (t->hide_user && !e->f.kernel))
			continue;
		if (t->count_filter && (t->children ? e->children_nr : e->self_nr) <= t->count_filter)
			continue;
		if ((t->zoom_dso && e->f.dso != t->zoom_dso - 1) ||
		    (t->zoom_comm && e->f.comm != t->zoom_comm - 1))
			continue;
		if (t->filter[0] && !strstr(hist_str(h, e->f.sym), t->filter))
			continue;
		rows[k++] = e;
	}
	*out = rows;
	*n = k;
	return 0;
}

/* perf's convert_unit(): 1K, 2M, ... */
static void scaled(uint64_t v, char *buf, size_t size)
{
	static const char units[] = "KMG";
	double d = (double)v;
	int i = -1;

	while (d >= 1000 && i < 2) {
		d /= 1000;
		i++;
	}
	if (i < 0)
		snprintf(buf, size, "%llu", (unsigned long long)v);
	else
		snprintf(buf, size, "%.*f%c", d < 10 ? 1 : 0, d, units[i]);
}

/* The header line of a snapshot (samples/s, event, lost) into buf. */
static void top_title(const struct top *t, char *buf, size_t size)
{
	const struct live *l = &t->live;
	char rate[32], freq[32] = "";
	size_t n;

	scaled(t->secs > 0 ? (uint64_t)((double)l->last.samples / t->secs + 0.5) : l->last.samples,
	       rate, sizeof(rate));
	if (t->tg.freq)
		snprintf(freq, sizeof(freq), ", %llu Hz", (unsigned long long)t->tg.freq);
	n = (size_t)snprintf(buf, size,
			     "Samples: %s/s of event '%s'%s, Event count (approx.): %llu, lost: %llu/%llu, %s",
			     rate, t->event_name, freq, (unsigned long long)l->hist.total,
			     (unsigned long long)t->lost_last, (unsigned long long)t->lost_total, t->target);
	if (n < size && t->targets_gone)
		n += (size_t)snprintf(buf + n, size - n, " (exited)");
	if (n < size && (t->zero || t->hide_kernel || t->hide_user))
		snprintf(buf + n, size - n, " [%s%s%s]", t->zero ? "z" : "", t->hide_kernel ? "K" : "",
			 t->hide_user ? "U" : "");
}

/* What tells entry e from the others under the sort keys, as text. */
static void top_entry_id(const struct top *t, const struct hist_entry *e, char *buf, size_t size)
{
	const struct hist *h = &t->live.hist;
	char tmp[1200];
	size_t len = 0;
	unsigned k;

	buf[0] = 0;
	for (k = 0; k < h->nr_keys && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s\t",
					hist_key_text(&t->live.hist, e, h->keys[k], tmp, sizeof(tmp)));
}

/* The column widths for rows, sized to fit cols (0: no limit). */
static void top_layout(const struct top *t, const struct hist_entry *const *rows, size_t n,
		       int cols, struct top_cols *c)
{
	const struct hist *h = &t->live.hist;
	char buf[1200];
	unsigned k;
	size_t i;

	for (k = 0; k < h->nr_keys; k++) {
		int w = (int)strlen(hist_key_title(h->keys[k]));

		for (i = 0; i < n; i++) {
			int l = (int)strlen(hist_key_text(&t->live.hist, rows[i], h->keys[k], buf, sizeof(buf)));

			if (l > w)
				w = l;
		}
		/* leave the last column (the symbol, usually) some room */
		if (cols > 0 && k + 1 < h->nr_keys && w > cols / 3)
			w = cols / 3;
		c->width[k] = w;
	}
}

/* Append text to buf at *len, padded to width (or not, width 0). */
static void put(char *buf, size_t size, size_t *len, const char *text, int width)
{
	int w = (int)strlen(text);

	if (*len >= size)
		return;
	*len += (size_t)snprintf(buf + *len, size - *len, "%s%*s", text, width > w ? width - w : 0, "");
	if (*len > size)
		*len = size;
}

static void put_pct(char *buf, size_t size, size_t *len, uint64_t v, uint64_t total)
{
	char p[32];

	snprintf(p, sizeof(p), "%8.2f%%", total ? 100.0 * (double)v / (double)total : 0.0);
	put(buf, size, len, p, 0);
}

/* The text of the table's header, then of one row. */
static void top_format_header(const struct top *t, const struct top_cols *c, char *buf,
			      size_t size)
{
	const struct hist *h = &t->live.hist;
	size_t len = 0;
	unsigned k;

	buf[0] = 0;
	put(buf, size, &len, t->children ? " Children      Self" : " Overhead", 0);
	if (t->show_nr)
		put(buf, size, &len, "     Samples", 0);
	for (k = 0; k < h->nr_keys; k++) {
		put(buf, size, &len, "  ", 0);
		put(buf, size, &len, hist_key_title(h->keys[k]), k + 1 < h->nr_keys ? c->width[k] : 0);
	}
}

static void top_format_row(const struct top *t, const struct top_cols *c,
			   const struct hist_entry *e, char *buf, size_t size)
{
	const struct hist *h = &t->live.hist;
	char tmp[1200];
	size_t len = 0;
	unsigned k;

	buf[0] = 0;
	if (t->children) {
		put_pct(buf, size, &len, e->children, h->total);
		put(buf, size, &len, " ", 0);
	}
	put_pct(buf, size, &len, e->self, h->total);
	if (t->show_nr) {
		snprintf(tmp, sizeof(tmp), "  %10llu",
			 (unsigned long long)(t->children ? e->children_nr : e->self_nr));
		put(buf, size, &len, tmp, 0);
	}
	for (k = 0; k < h->nr_keys; k++) {
		put(buf, size, &len, "  ", 0);
		put(buf, size, &len, hist_key_text(&t->live.hist, e, h->keys[k], tmp, sizeof(tmp)),
		    k + 1 < h->nr_keys ? c->width[k] : 0);
	}
}

void top_print(struct top *t, FILE *f, size_t max)
{
	const struct hist_entry **rows;
	struct top_cols c;
	char line[2048], title[512], when[32];
	size_t n, i;
	int k;

	if (top_rows(t, &rows, &n)) {
		cmd_error("out of memory");
		return;
	}
	if (max && n > max)
		n = max;
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t->when));
	top_title(t, title, sizeof(title));
	top_layout(t, rows, n, 0, &c);
	fprintf(f, "# %s %s\n", when, title);
	top_format_header(t, &c, line, sizeof(line));
	fprintf(f, "#%s\n", line);
	fputs(t->children ? "# ........  ........" : "# ........", f);
	if (t->show_nr)
		fputs("  ..........", f);
	for (i = 0; i < t->live.hist.nr_keys; i++) {
		fputs("  ", f);
		for (k = 0; k < c.width[i]; k++)
			fputc('.', f);
	}
	fputs("\n#\n", f);
	for (i = 0; i < n; i++) {
		top_format_row(t, &c, rows[i], line, sizeof(line));
		fprintf(f, " %s\n", line); /* under the header, after its '#' */
	}
	fputc('\n', f);
}

/* ---- the screen ---- */

#define HEAD_ROWS 2 /* title, column names */

static const char help_text[] =
	"h/?/F1        Show this window\n"
	"UP/DOWN/PGUP\n"
	"PGDN/SPACE    Navigate (also j/k, Home/End)\n"
	"q/ESC/CTRL+C  Exit (ESC first undoes a zoom or filter)\n"
	"\n"
	"ENTER         Details of the current entry\n"
	"d             Zoom into the current DSO (again: zoom out)\n"
	"t             Zoom into the current command (with a comm/pid sort key)\n"
	"/             Filter symbols by name (empty: no filter)\n"
	"K             Hide/show kernel symbols\n"
	"U             Hide/show user symbols\n"
	"z             Toggle zeroing of samples (else they decay by 1/8)\n"
	"L             Change the percent limit\n"
	"P             Print the histogram to zt.hist.N";

#define ID_MAX 512 /* of an entry's identifying text */

static struct {
	const struct hist_entry **rows;
	size_t nr;
	size_t sel, first;
	char sel_id[ID_MAX]; /* the selected entry's, to keep it selected across refreshes */
	char msg[256];
	int err_fd, saved_err; /* stderr goes to err_fd while the screen is ours */
	off_t err_seen;
} V = { .err_fd = -1, .saved_err = -1 };

/* Messages (warnings of the symbolizer, -v) would scribble over the
 * screen: they go to a memory file meanwhile, the latest shown in the
 * status bar, all printed when the screen is given back. */
static void capture_stderr(void)
{
#ifdef __SANITIZE_ADDRESS__
	/* a sanitizer's report ends the process at once: it must reach stderr */
	return;
#endif
	V.err_fd = memfd_create("zt-top-messages", MFD_CLOEXEC);
	if (V.err_fd < 0)
		return;
	fflush(stderr);
	V.saved_err = dup(2);
	if (V.saved_err < 0 || dup2(V.err_fd, 2) < 0) {
		if (V.saved_err >= 0)
			close(V.saved_err);
		close(V.err_fd);
		V.err_fd = V.saved_err = -1;
	}
}

/* The last line of what came since last time, into V.msg. */
static void latest_message(void)
{
	struct stat st;
	char buf[512], *end, *line;
	off_t from;
	ssize_t n;

	if (V.err_fd < 0 || fstat(V.err_fd, &st) || st.st_size <= V.err_seen)
		return;
	from = V.err_seen;
	if (st.st_size - from > (off_t)sizeof(buf) - 1)
		from = st.st_size - (off_t)sizeof(buf) + 1;
	n = pread(V.err_fd, buf, sizeof(buf) - 1, from);
	V.err_seen = st.st_size;
	if (n <= 0)
		return;
	buf[n] = 0;
	end = buf + n;
	while (end > buf && end[-1] == '\n')
		*--end = 0;
	line = strrchr(buf, '\n');
	snprintf(V.msg, sizeof(V.msg), "%.*s", (int)sizeof(V.msg) - 1, line ? line + 1 : buf);
}

static void release_stderr(void)
{
	char buf[4096];
	off_t off = 0;
	struct stat st;
	ssize_t n;

	if (V.err_fd < 0)
		return;
	fflush(stderr);
	dup2(V.saved_err, 2);
	close(V.saved_err);
	/* the last 64 KB of them at most */
	if (!fstat(V.err_fd, &st) && st.st_size > (64 << 10))
		off = st.st_size - (64 << 10);
	while ((n = pread(V.err_fd, buf, sizeof(buf), off)) > 0) {
		if (write(2, buf, (size_t)n) != n)
			break;
		off += n;
	}
	close(V.err_fd);
	V.err_fd = V.saved_err = -1;
}

static int list_rows(void)
{
	return tui_rows() - HEAD_ROWS - 1 > 1 ? tui_rows() - HEAD_ROWS - 1 : 1;
}

/* The rows again, the selection on the entry it was on if it is there. */
static void load_rows(struct top *t)
{
	size_t i;

	if (top_rows(t, &V.rows, &V.nr)) {
		V.nr = 0;
		snprintf(V.msg, sizeof(V.msg), "out of memory");
	}
	if (t->entries > 0 && V.nr > (size_t)t->entries)
		V.nr = (size_t)t->entries;
	for (i = 0; V.sel_id[0] && i < V.nr; i++) {
		char id[ID_MAX];

		top_entry_id(t, V.rows[i], id, sizeof(id));
		if (!strcmp(id, V.sel_id)) {
			V.sel = i;
			break;
		}
	}
	if (V.sel >= V.nr)
		V.sel = V.nr ? V.nr - 1 : 0;
}

static void remember_sel(struct top *t)
{
	V.sel_id[0] = 0;
	if (V.sel < V.nr)
		top_entry_id(t, V.rows[V.sel], V.sel_id, sizeof(V.sel_id));
}

static void draw(void *ctx)
{
	struct top *t = ctx;
	const struct hist *h = &t->live.hist;
	int rows = list_rows(), r;
	struct top_cols c;
	char line[2048];
	size_t i;

	if (V.sel < V.first)
		V.first = V.sel;
	if (V.sel >= V.first + (size_t)rows)
		V.first = V.sel - (size_t)rows + 1;
	if (V.first + (size_t)rows > V.nr)
		V.first = V.nr > (size_t)rows ? V.nr - (size_t)rows : 0;
	tui_erase();
	top_title(t, line, sizeof(line));
	tui_title(line);
	top_layout(t, V.rows + V.first, V.nr - V.first < (size_t)rows ? V.nr - V.first : (size_t)rows,
		   tui_cols(), &c);
	top_format_header(t, &c, line, sizeof(line));
	tui_line(1, TUI_HEADER, line);
	for (r = 0, i = V.first; r < rows && i < V.nr; r++, i++) {
		const struct hist_entry *e = V.rows[i];
		uint64_t v = t->children ? e->children : e->self;
		double pct = h->total ? 100.0 * (double)v / (double)h->total : 0.0;

		top_format_row(t, &c, e, line, sizeof(line));
		if (i == V.sel) {
			tui_line(HEAD_ROWS + r, TUI_SELECTED, line);
		} else {
			/* the percentages in perf's colors, the rest plain */
			size_t pw = t->children ? 19 : 9, len = strlen(line);
			char pct_text[32];
			int col;

			if (pw > len)
				pw = len;
			memcpy(pct_text, line, pw);
			pct_text[pw] = 0;
			col = tui_print(HEAD_ROWS + r, 0, tui_percent_color(pct), pct_text);
			col = tui_print(HEAD_ROWS + r, col, TUI_NORMAL, line + pw);
			tui_fill(HEAD_ROWS + r, col, TUI_NORMAL);
		}
	}
	if (V.msg[0]) {
		tui_status(V.msg);
	} else {
		char zoom[512] = "";
		size_t n = 0;

		if (t->zoom_dso)
			n += (size_t)snprintf(zoom + n, sizeof(zoom) - n, "  DSO: %s",
					      hist_str(h, t->zoom_dso - 1));
		if (t->zoom_comm && n < sizeof(zoom))
			n += (size_t)snprintf(zoom + n, sizeof(zoom) - n, "  Command: %s",
					      hist_str(h, t->zoom_comm - 1));
		if (t->filter[0] && n < sizeof(zoom))
			snprintf(zoom + n, sizeof(zoom) - n, "  Filter: %s", t->filter);
		snprintf(line, sizeof(line),
			 "%s%sh: help  q: quit  z: zero %s  K/U: hide kernel/user  d: zoom DSO  /: filter",
			 zoom + (zoom[0] ? 2 : 0), zoom[0] ? "  " : "", t->zero ? "(on)" : "(off)");
		tui_status(line);
	}
}

int top_tui_start(struct top *t)
{
	int err = tui_init();

	if (err)
		return err;
	/* busy refreshing: a signal waits for the next key read */
	tui_defer_signals(1);
	tui_set_redraw(draw, t);
	memset(&V, 0, sizeof(V));
	capture_stderr();
	snprintf(V.msg, sizeof(V.msg), "collecting samples for %g s...", t->delay);
	tui_erase();
	draw(t);
	tui_refresh();
	return 0;
}

void top_tui_draw(struct top *t)
{
	if (!strncmp(V.msg, "collecting", 10))
		V.msg[0] = 0;
	latest_message();
	load_rows(t);
	draw(t);
	tui_refresh();
}

int top_tui_end(struct top *t)
{
	int sig = tui_end();

	release_stderr();
	memset(&V, 0, sizeof(V));
	V.err_fd = V.saved_err = -1;
	return sig;
}

static int uses_comm(const struct top *t)
{
	const struct hist *h = &t->live.hist;
	unsigned k;

	for (k = 0; k < h->nr_keys; k++)
		if (h->keys[k] == HIST_KEY_COMM || h->keys[k] == HIST_KEY_PID || h->keys[k] == HIST_KEY_TID)
			return 1;
	return 0;
}

static void details(struct top *t)
{
	const struct hist *h = &t->live.hist;
	const struct hist_entry *e;
	char text[2048];
	double total;
	size_t n;

	if (V.sel >= V.nr)
		return;
	e = V.rows[V.sel];
	total = h->total ? (double)h->total : 1.0;
	n = (size_t)snprintf(text, sizeof(text), "Symbol:   [%c] %s\nDSO:      %s\n",
			     e->f.kernel ? 'k' : '.', hist_str(h, e->f.sym), hist_str(h, e->f.dso));
	if (uses_comm(t) && n < sizeof(text))
		n += (size_t)snprintf(text + n, sizeof(text) - n, "Command:  %s\n", hist_str(h, e->f.comm));
	if (n < sizeof(text))
		snprintf(text + n, sizeof(text) - n,
			 "Self:     %.2f%% (%llu samples, decayed)\nChildren: %.2f%% (%llu samples, decayed)",
			 100.0 * (double)e->self / total, (unsigned long long)e->self_nr,
			 100.0 * (double)e->children / total, (unsigned long long)e->children_nr);
	tui_popup("Entry", text);
}

static void print_file(struct top *t)
{
	char name[64];
	FILE *f;

	f = outfile_numbered("zt.hist", &t->print_n, name, sizeof(name));
	if (!f) {
		snprintf(V.msg, sizeof(V.msg), "cannot create '%s': %s", name, strerror(errno));
		return;
	}
	/* top_print() sorts again: the rows shown move */
	remember_sel(t);
	top_print(t, f, 0);
	load_rows(t);
	if (fclose(f))
		snprintf(V.msg, sizeof(V.msg), "cannot write '%s': %s", name, strerror(errno));
	else
		snprintf(V.msg, sizeof(V.msg), "written '%s'", name);
}

/* One key; returns 1 to quit. */
static int key(struct top *t, int k)
{
	size_t page = (size_t)list_rows();
	char buf[128];

	V.msg[0] = 0;
	switch (k) {
	case 'q':
	case TUI_KEY_QUIT:
		return 1;
	case TUI_KEY_ESC:
		if (!t->zoom_dso && !t->zoom_comm && !t->filter[0])
			return 1;
		t->zoom_dso = t->zoom_comm = 0;
		t->filter[0] = 0;
		break;
	case 'h':
	case '?':
	case TUI_KEY_F1:
		if (tui_popup("Help", help_text) == TUI_KEY_QUIT)
			return 1;
		break;
	case TUI_KEY_UP:
	case 'k':
		if (V.sel)
			V.sel--;
		break;
	case TUI_KEY_DOWN:
	case 'j':
		if (V.sel + 1 < V.nr)
			V.sel++;
		break;
	case TUI_KEY_PGUP:
		V.sel = V.sel > page ? V.sel - page : 0;
		break;
	case TUI_KEY_PGDN:
	case ' ':
		V.sel = V.sel + page < V.nr ? V.sel + page : (V.nr ? V.nr - 1 : 0);
		break;
	case TUI_KEY_HOME:
		V.sel = 0;
		break;
	case TUI_KEY_END:
		V.sel = V.nr ? V.nr - 1 : 0;
		break;
	case 'z':
		t->zero = !t->zero;
		break;
	case 'K':
		t->hide_kernel = !t->hide_kernel;
		break;
	case 'U':
		t->hide_user = !t->hide_user;
		break;
	case 'd':
		if (t->zoom_dso)
			t->zoom_dso = 0;
		else if (V.sel < V.nr)
			t->zoom_dso = V.rows[V.sel]->f.dso + 1;
		break;
	case 't':
		if (!uses_comm(t))
			snprintf(V.msg, sizeof(V.msg), "t: zooms into a command with --sort comm (or pid, tid)");
		else if (t->zoom_comm)
			t->zoom_comm = 0;
		else if (V.sel < V.nr)
			t->zoom_comm = V.rows[V.sel]->f.comm + 1;
		break;
	case '/':
		snprintf(buf, sizeof(buf), "%s", t->filter);
		if (tui_prompt("Symbol name filter: ", buf, sizeof(buf)))
			snprintf(t->filter, sizeof(t->filter), "%s", buf);
		break;
	case 'L':
		snprintf(buf, sizeof(buf), "%g", t->percent_limit);
		if (tui_prompt("Percent limit: ", buf, sizeof(buf))) {
			char *end;
			double v = strtod(buf, &end);

			if (end == buf || *end || v < 0 || v > 100)
				snprintf(V.msg, sizeof(V.msg), "bad percent limit '%s': give 0 to 100", buf);
			else
				t->percent_limit = v;
		}
		break;
	case 'P':
		print_file(t);
		break;
	case TUI_KEY_ENTER:
		if (details(t), tui_quit_signal())
			return 1;
		break;
	case TUI_KEY_RESIZE:
		break;
	default:
		return 0;
	}
	remember_sel(t);
	load_rows(t);
	draw(t);
	return 0;
}

int top_tui_wait(struct top *t, int timeout_ms)
{
	struct timespec ts;
	long long end;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + timeout_ms;
	for (;;) {
		long long now;
		int k;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		if (now >= end && timeout_ms > 0)
			return 0;
		k = tui_getkey(now >= end ? 0 : (int)(end - now));
		if (k == TUI_KEY_NONE)
			return 0;
		if (key(t, k))
			return 1;
	}
}
