/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The only file that calls ncurses: screen setup and teardown, colors, keys,
 * drawing helpers, dialogs, and the signal handlers that give the terminal
 * back on every way out (see cmd/tui.h).
 */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>

#include <curses.h>

#include "cmd/config.h"
#include "cmd/tui.h"

#define POLL_MS 100    /* how often a waiting tui_getkey() looks at the signal flag */
#define ESC_MORE_MS 50 /* after Esc, how long to wait for the rest of a key's sequence */

static const int quit_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static struct {
	SCREEN *screen;
	int started;                 /* between tui_init() and tui_end() */
	volatile sig_atomic_t active; /* the terminal is ours (cleared once given back) */
	volatile sig_atomic_t pending; /* a quit signal recorded */
	volatile sig_atomic_t in_wait; /* inside tui_getkey() */
	volatile sig_atomic_t defer;
	int fd;                      /* the terminal */
	struct termios saved;        /* its modes before tui_init() */
	char restore[512];           /* what endwin() writes, for signal handlers */
	size_t restore_len;
	struct sigaction old[NSIG];
	unsigned char installed[NSIG];
	int atexit_done;
	attr_t attrs[TUI_NR_COLORS];
	void (*redraw)(void *ctx);
	void *redraw_ctx;
} T;

/* ---- giving the terminal back ------------------------------------------ */

/* Append terminfo capability cap to the restore sequence, without padding. */
static void restore_add(const char *cap)
{
	char *s = tigetstr(cap);

	if (!s || s == (char *)-1)
		return;
	while (*s && T.restore_len + 1 < sizeof(T.restore)) {
		if (s[0] == '$' && s[1] == '<') { /* padding: $<5>, $<2*> */
			char *e = strchr(s, '>');

			if (e) {
				s = e + 1;
				continue;
			}
		}
		T.restore[T.restore_len++] = *s++;
	}
}

/* Async-signal-safe endwin(): the modes and the screen as they were. */
static void emergency_restore(void)
{
	ssize_t r;

	if (!T.active)
		return;
	T.active = 0;
	r = write(T.fd, T.restore, T.restore_len);
	(void)r;
	tcsetattr(T.fd, TCSANOW, &T.saved);
}

static void give_back(int sig)
{
	emergency_restore();
	if (T.installed[sig]) {
		sigaction(sig, &T.old[sig], NULL);
		T.installed[sig] = 0;
	}
}

static void on_quit_signal(int sig, siginfo_t *si, void *uc)
{
	if (T.active && (T.in_wait || (T.defer && !T.pending))) {
		if (!T.pending)
			T.pending = sig;
		return;
	}
	give_back(sig);
	raise(sig); /* blocked in here: delivered to the old action on return */
}

static void on_fatal_signal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;

	give_back(sig);
	/* A fault happens again on return, now to the old handler (a core
	 * dump, or a sanitizer's report with the right context); a signal
	 * that was sent is sent again. */
	if (si->si_code <= 0)
		raise(sig);
	errno = saved_errno;
}

static void install_handlers(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: a waiting read returns */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(quit_signals) / sizeof(quit_signals[0]); i++) {
		int s = quit_signals[i];

		if (sigaction(s, NULL, &T.old[s]) || T.old[s].sa_handler == SIG_IGN)
			continue; /* nohup, background jobs: stay ignored */
		sa.sa_sigaction = on_quit_signal;
		if (!sigaction(s, &sa, NULL))
			T.installed[s] = 1;
	}
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		int s = fatal_signals[i];

		if (sigaction(s, NULL, &T.old[s]))
			continue;
		sa.sa_sigaction = on_fatal_signal;
		if (!sigaction(s, &sa, NULL))
			T.installed[s] = 1;
	}
}

static void remove_handlers(void)
{
	int s;

	for (s = 1; s < NSIG; s++)
		if (T.installed[s]) {
			sigaction(s, &T.old[s], NULL);
			T.installed[s] = 0;
		}
}

static void at_exit(void)
{
	tui_end();
}

/* ---- lifecycle ----------------------------------------------------------- */

/* A color name of perf's colors.* values, or -2 when it is none; -1 is the
 * terminal's default. */
static short color_by_name(const char *s, size_t n)
{
	static const struct {
		const char *name;
		short c, bright;
	} names[] = {
		{ "default", -1, -1 },	       { "black", COLOR_BLACK, COLOR_BLACK },
		{ "red", COLOR_RED, COLOR_RED },     { "green", COLOR_GREEN, COLOR_GREEN },
		{ "yellow", COLOR_YELLOW, COLOR_YELLOW }, { "blue", COLOR_BLUE, COLOR_BLUE },
		{ "magenta", COLOR_MAGENTA, COLOR_MAGENTA }, { "cyan", COLOR_CYAN, COLOR_CYAN },
		{ "white", COLOR_WHITE, COLOR_WHITE + 8 }, { "lightgray", COLOR_WHITE, COLOR_WHITE },
		{ "gray", COLOR_BLACK, COLOR_BLACK + 8 },
	};
	size_t i;

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == n && !strncmp(names[i].name, s, n))
			return COLORS >= 16 ? names[i].bright : names[i].c;
	return -2;
}

/* colors.NAME = "FG, BG" of the configuration (perf's keys) into fg_bg. */
static void config_color(const char *key, short fg_bg[2])
{
	const char *v = cmd_config_get(key, NULL), *comma;
	short fg, bg;

	if (!v || !(comma = strchr(v, ',')))
		return;
	fg = color_by_name(v, (size_t)(comma - v));
	bg = color_by_name(comma + 1, strlen(comma + 1));
	if (fg == -2 || bg == -2)
		return; /* zt config refuses such values; a hand-edited file may have them */
	fg_bg[0] = fg;
	fg_bg[1] = bg;
}

static void setup_colors(void)
{
	static const char *const keys[TUI_NR_COLORS + 1] = {
		[TUI_HIGH] = "colors.top",	 [TUI_MEDIUM] = "colors.medium",
		[TUI_SELECTED] = "colors.selected", [TUI_BAR] = "colors.root",
		[TUI_NR_COLORS] = "colors.normal", /* pair 0 is fixed: normal gets a pair of its own */
	};
	short fg_bg[TUI_NR_COLORS + 1][2] = {
		[TUI_HIGH] = { COLOR_RED, -1 },
		[TUI_MEDIUM] = { COLOR_GREEN, -1 },
		[TUI_SELECTED] = { COLOR_BLACK, COLOR_YELLOW }, /* perf's "selected" */
		[TUI_BAR] = { COLOR_WHITE, COLOR_BLUE },        /* perf's "root" */
		[TUI_HEADER] = { -1, -1 },
		[TUI_DIM] = { -1, -1 },
		[TUI_NR_COLORS] = { -1, -1 },
	};
	const char *nc = getenv("NO_COLOR");
	int defaults;
	short i;

	T.attrs[TUI_NORMAL] = A_NORMAL;
	T.attrs[TUI_HIGH] = A_BOLD;
	T.attrs[TUI_MEDIUM] = A_NORMAL;
	T.attrs[TUI_SELECTED] = A_REVERSE;
	T.attrs[TUI_BAR] = A_REVERSE;
	T.attrs[TUI_HEADER] = A_BOLD;
	T.attrs[TUI_DIM] = A_DIM;
	if (!has_colors() || (nc && *nc) || start_color() == ERR)
		return;
	defaults = use_default_colors() == OK;
	for (i = 1; i <= TUI_NR_COLORS; i++)
		if (keys[i])
			config_color(keys[i], fg_bg[i]);
	for (i = 1; i <= TUI_NR_COLORS; i++) {
		short fg = fg_bg[i][0], bg = fg_bg[i][1];

		if (fg < 0 && bg < 0)
			continue;
		if (!defaults) {
			fg = fg < 0 ? COLOR_WHITE : fg;
			bg = bg < 0 ? COLOR_BLACK : bg;
		}
		if (i >= COLOR_PAIRS || init_pair(i, fg, bg) == ERR)
			continue;
		T.attrs[i < TUI_NR_COLORS ? i : TUI_NORMAL] = COLOR_PAIR(i);
	}
}

int tui_init(void)
{
	const char *term = getenv("TERM");
	const char *esc = getenv("ESCDELAY");

	if (T.started)
		return -EBUSY;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -ENOTTY;
	if (!term || !*term || !strcmp(term, "dumb"))
		return -EINVAL;
	T.fd = STDOUT_FILENO;
	if (tcgetattr(T.fd, &T.saved))
		return -errno;
	setlocale(LC_CTYPE, "");
	/* before newterm(): ncurses keeps its own SIGINT/SIGTERM handlers
	 * out when the program has some */
	install_handlers();
	if (!esc || !*esc)
		set_escdelay(25);
	T.screen = newterm(NULL, stdout, stdin);
	if (!T.screen) {
		remove_handlers();
		return -EINVAL;
	}
	T.restore_len = 0;
	restore_add("sgr0");
	restore_add("cnorm");
	restore_add("rmkx");
	restore_add("rmcup");
	T.started = 1;
	T.active = 1;
	T.pending = 0;
	T.in_wait = 0;
	if (!T.atexit_done && !atexit(at_exit))
		T.atexit_done = 1;
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	curs_set(0);
	setup_colors();
	erase();
	return 0;
}

int tui_end(void)
{
	int sig = T.pending;

	if (!T.started)
		return 0;
	if (T.active) {
		endwin();
		T.active = 0;
	}
	remove_handlers();
	delscreen(T.screen);
	T.screen = NULL;
	T.started = 0;
	T.pending = 0;
	T.defer = 0;
	T.redraw = NULL;
	T.redraw_ctx = NULL;
	fflush(stdout);
	return sig;
}

int tui_active(void)
{
	return T.started && T.active;
}

void tui_defer_signals(int on)
{
	T.defer = !!on;
}

int tui_quit_signal(void)
{
	return T.pending;
}

void tui_reraise(int sig)
{
	struct sigaction sa;
	sigset_t set;

	if (sig <= 0 || sig >= NSIG)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/* ---- keys ------------------------------------------------------------------ */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int translate(int ch)
{
	switch (ch) {
	case KEY_UP:
		return TUI_KEY_UP;
	case KEY_DOWN:
		return TUI_KEY_DOWN;
	case KEY_LEFT:
		return TUI_KEY_LEFT;
	case KEY_RIGHT:
		return TUI_KEY_RIGHT;
	case KEY_PPAGE:
		return TUI_KEY_PGUP;
	case KEY_NPAGE:
		return TUI_KEY_PGDN;
	case KEY_HOME:
	case KEY_A1:
		return TUI_KEY_HOME;
	case KEY_END:
	case KEY_C1:
		return TUI_KEY_END;
	case KEY_ENTER:
	case '\r':
	case '\n':
		return TUI_KEY_ENTER;
	case 27:
		return TUI_KEY_ESC;
	case '\t':
		return TUI_KEY_TAB;
	case KEY_BTAB:
		return TUI_KEY_BTAB;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		return TUI_KEY_BACKSPACE;
	case KEY_DC:
		return TUI_KEY_DELETE;
	case KEY_F(1):
		return TUI_KEY_F1;
	case KEY_RESIZE:
		return TUI_KEY_RESIZE;
	case 3:
		return TUI_KEY_QUIT;
	}
	if (ch >= 0 && ch < 256)
		return ch;
	return TUI_KEY_NONE; /* a key we do not know */
}

/*
 * After a lone Esc: a key sequence this terminal's terminfo entry does not
 * list (a terminal that is not quite what TERM says: tmux or PuTTY with
 * TERM=xterm send Home as ESC [ 1 ~). The common ones are decoded, others
 * dropped, so that they do not arrive as Esc and some characters.
 */
static int escape_sequence(void)
{
	static const struct {
		const char *seq;
		int key;
	} known[] = {
		{ "[A", TUI_KEY_UP },     { "OA", TUI_KEY_UP },     { "[B", TUI_KEY_DOWN },
		{ "OB", TUI_KEY_DOWN },   { "[C", TUI_KEY_RIGHT },  { "OC", TUI_KEY_RIGHT },
		{ "[D", TUI_KEY_LEFT },   { "OD", TUI_KEY_LEFT },   { "[H", TUI_KEY_HOME },
		{ "OH", TUI_KEY_HOME },   { "[1~", TUI_KEY_HOME },  { "[7~", TUI_KEY_HOME },
		{ "[F", TUI_KEY_END },    { "OF", TUI_KEY_END },    { "[4~", TUI_KEY_END },
		{ "[8~", TUI_KEY_END },   { "[5~", TUI_KEY_PGUP },  { "[6~", TUI_KEY_PGDN },
		{ "[3~", TUI_KEY_DELETE }, { "[Z", TUI_KEY_BTAB },  { "OP", TUI_KEY_F1 },
		{ "[11~", TUI_KEY_F1 },   { "OM", TUI_KEY_ENTER },
	};
	char seq[16];
	size_t n = 0, i;
	int c;

	timeout(ESC_MORE_MS); /* the rest of a sequence split by a slow link */
	c = getch();
	if (c != '[' && c != 'O') {
		if (c != ERR)
			ungetch(c);
		return TUI_KEY_ESC;
	}
	seq[n++] = (char)c;
	while (n + 1 < sizeof(seq) && (c = getch()) != ERR) {
		seq[n++] = (char)c;
		if (c >= 0x40 && c <= 0x7e && !(n == 2 && seq[0] == '[' && c == '['))
			break; /* the final byte */
	}
	seq[n] = 0;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(seq, known[i].seq))
			return known[i].key;
	return TUI_KEY_NONE;
}

int tui_getkey(int timeout_ms)
{
	long long end = timeout_ms < 0 ? 0 : now_ms() + timeout_ms;
	int key = TUI_KEY_NONE;

	if (!tui_active())
		return TUI_KEY_QUIT;
	T.in_wait = 1;
	for (;;) {
		long long left = timeout_ms < 0 ? POLL_MS : end - now_ms();
		int ch;

		if (T.pending) {
			key = TUI_KEY_QUIT;
			break;
		}
		if (left < 0)
			left = 0;
		timeout(left > POLL_MS ? POLL_MS : (int)left);
		ch = getch();
		if (T.pending) {
			key = TUI_KEY_QUIT;
			break;
		}
		if (ch != ERR) {
			key = ch == 27 ? escape_sequence() : translate(ch);
			if (key != TUI_KEY_NONE)
				break;
			continue;
		}
		if (timeout_ms >= 0 && now_ms() >= end)
			break;
	}
	T.in_wait = 0;
	return key;
}

/* ---- drawing ---------------------------------------------------------------- */

int tui_rows(void)
{
	return tui_active() ? LINES : 0;
}

int tui_cols(void)
{
	return tui_active() ? COLS : 0;
}

enum tui_color tui_percent_color(double percent)
{
	if (percent >= 5.0)
		return TUI_HIGH;
	if (percent >= 0.5)
		return TUI_MEDIUM;
	return TUI_NORMAL;
}

/*
 * Walk text as it is drawn from column col (tabs relative to col), up to
 * column limit; draw it when draw is set. Returns the column after it.
 */
static int walk(const char *text, int col, int limit, int draw)
{
	wchar_t buf[128];
	int nb = 0, x = col;
	size_t len = strlen(text);
	mbstate_t st;

	memset(&st, 0, sizeof(st));
	while (len) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, text, len, &st);
		int w, tab = 0;

		if (k == (size_t)-1 || k == (size_t)-2) {
			wc = L'?';
			k = 1;
			memset(&st, 0, sizeof(st));
		} else if (k == 0) {
			break;
		}
		text += k;
		len -= k;
		if (wc == L'\t') {
			tab = 8 - (x - col) % 8;
			wc = L' ';
		} else if (wc < 0x20 || wc == 0x7f || (wc >= 0x80 && wc < 0xa0) ||
			   iswcntrl((wint_t)wc)) {
			wc = L'?';
		}
		w = tab ? 1 : wcwidth(wc);
		if (w < 0) {
			wc = L'?';
			w = 1;
		}
		do {
			if (x + w > limit)
				goto out;
			if (draw) {
				if (nb == (int)(sizeof(buf) / sizeof(buf[0]))) {
					addnwstr(buf, nb);
					nb = 0;
				}
				buf[nb++] = wc;
			}
			x += w;
		} while (tab && --tab);
	}
out:
	if (draw && nb)
		addnwstr(buf, nb);
	return x;
}

int tui_text_width(const char *text)
{
	return walk(text ? text : "", 0, 1 << 30, 0);
}

void tui_erase(void)
{
	if (tui_active())
		erase();
}

int tui_print(int row, int col, enum tui_color color, const char *text)
{
	if (col < 0)
		col = 0;
	if (!tui_active() || !text || row < 0 || row >= LINES || col >= COLS)
		return col;
	attrset(T.attrs[color < TUI_NR_COLORS ? color : TUI_NORMAL]);
	move(row, col);
	col = walk(text, col, COLS, 1);
	attrset(A_NORMAL);
	return col;
}

int tui_printf(int row, int col, enum tui_color color, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return tui_print(row, col, color, buf);
}

void tui_fill(int row, int col, enum tui_color color)
{
	if (col < 0)
		col = 0;
	if (!tui_active() || row < 0 || row >= LINES || col >= COLS)
		return;
	/* hline draws with the character's attributes, not attrset()'s */
	mvhline(row, col, ' ' | T.attrs[color < TUI_NR_COLORS ? color : TUI_NORMAL], COLS - col);
}

void tui_line(int row, enum tui_color color, const char *text)
{
	tui_fill(row, tui_print(row, 0, color, text), color);
}

void tui_title(const char *text)
{
	tui_line(0, TUI_BAR, text);
}

void tui_status(const char *text)
{
	if (tui_active())
		tui_line(LINES - 1, TUI_BAR, text);
}

void tui_refresh(void)
{
	if (tui_active())
		refresh();
}

/* ---- dialogs ---------------------------------------------------------------- */

void tui_set_redraw(void (*redraw)(void *ctx), void *ctx)
{
	T.redraw = redraw;
	T.redraw_ctx = ctx;
}

static void redraw_below(void)
{
	if (T.redraw)
		T.redraw(T.redraw_ctx);
}

/* Remove the last UTF-8 character of buf. */
static void drop_char(char *buf)
{
	size_t n = strlen(buf);

	while (n && ((unsigned char)buf[n - 1] & 0xc0) == 0x80)
		n--;
	if (n)
		n--;
	buf[n] = 0;
}

int tui_prompt(const char *prompt, char *buf, size_t size)
{
	char *cur;
	int ret = 0;

	if (!tui_active() || !size)
		return 0;
	cur = calloc(1, size);
	if (!cur)
		return 0;
	snprintf(cur, size, "%s", buf);
	curs_set(1);
	for (;;) {
		int row = LINES - 1, x, key;
		const char *shown = cur;
		int room = COLS - tui_text_width(prompt) - 1;

		/* the end of a long text, where the typing is */
		while (*shown && tui_text_width(shown) > room)
			shown++;
		tui_fill(row, 0, TUI_NORMAL);
		x = tui_print(row, 0, TUI_HEADER, prompt);
		x = tui_print(row, x, TUI_NORMAL, shown);
		move(row, x < COLS ? x : COLS - 1);
		key = tui_getkey(-1);
		if (key == TUI_KEY_ENTER) {
			snprintf(buf, size, "%s", cur);
			ret = 1;
			break;
		}
		if (key == TUI_KEY_ESC || key == TUI_KEY_QUIT)
			break;
		if (key == TUI_KEY_RESIZE) {
			redraw_below();
		} else if (key == TUI_KEY_BACKSPACE) {
			drop_char(cur);
		} else if (key == 21) { /* Ctrl-U */
			cur[0] = 0;
		} else if (key == 23) { /* Ctrl-W */
			size_t n = strlen(cur);

			while (n && cur[n - 1] == ' ')
				n--;
			while (n && cur[n - 1] != ' ')
				n--;
			cur[n] = 0;
		} else if (key >= 0x20 && key < 0x100 && key != 0x7f) {
			size_t n = strlen(cur);

			if (n + 1 < size) {
				cur[n] = (char)key;
				cur[n + 1] = 0;
			}
		}
	}
	curs_set(0);
	free(cur);
	return ret;
}

/* Draw a box with a title over rows [y, y+h) and columns [x, x+w). */
static void draw_box(int y, int x, int h, int w, const char *title)
{
	int r;

	attrset(T.attrs[TUI_NORMAL]);
	for (r = y; r < y + h; r++)
		mvhline(r, x, ' ' | T.attrs[TUI_NORMAL], w);
	mvaddch(y, x, ACS_ULCORNER);
	mvhline(y, x + 1, ACS_HLINE, w - 2);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvhline(y + h - 1, x + 1, ACS_HLINE, w - 2);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	mvvline(y + 1, x, ACS_VLINE, h - 2);
	mvvline(y + 1, x + w - 1, ACS_VLINE, h - 2);
	if (title && *title) {
		char t[256];

		snprintf(t, sizeof(t), " %s ", title);
		attrset(A_NORMAL);
		move(y, x + 2);
		walk(t, x + 2, x + w - 2, 1);
	}
	attrset(A_NORMAL);
}

/* Split text into lines (pointers into a copy the caller frees). */
static char **split_lines(const char *text, int *n, char **copy)
{
	char **lines = NULL, *p;
	int cap = 0;

	*n = 0;
	*copy = strdup(text ? text : "");
	if (!*copy)
		return NULL;
	for (p = *copy;;) {
		char *nl = strchr(p, '\n');

		if (*n == cap) {
			char **nlines =
				realloc(lines, (size_t)(cap = cap ? 2 * cap : 32) * sizeof(*lines));

			if (!nlines) {
				free(lines);
				free(*copy);
				*copy = NULL;
				return NULL;
			}
			lines = nlines;
		}
		lines[(*n)++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	if (*n > 1 && !*lines[*n - 1])
		(*n)--; /* a final newline ends the last line */
	return lines;
}

int tui_popup(const char *title, const char *text)
{
	char *copy;
	int n, top = 0, key, i;
	char **lines = split_lines(text, &n, &copy);

	if (!tui_active())
		return TUI_KEY_QUIT;
	if (!lines)
		return TUI_KEY_ESC;
	for (;;) {
		int maxw = tui_text_width(title ? title : "") + 4, w, h, y, x, inner;

		for (i = 0; i < n; i++) {
			int lw = tui_text_width(lines[i]);

			if (lw > maxw)
				maxw = lw;
		}
		w = maxw + 4 > COLS ? COLS : maxw + 4;
		h = n + 2 > LINES ? LINES : n + 2;
		if (w < 4 || h < 3) {
			key = tui_getkey(-1);
			if (key == TUI_KEY_RESIZE) {
				redraw_below();
				continue;
			}
			break;
		}
		inner = h - 2;
		if (top > n - inner)
			top = n - inner;
		if (top < 0)
			top = 0;
		y = (LINES - h) / 2;
		x = (COLS - w) / 2;
		draw_box(y, x, h, w, title);
		for (i = 0; i < inner && top + i < n; i++) {
			move(y + 1 + i, x + 2);
			walk(lines[top + i], x + 2, x + w - 2, 1);
		}
		if (n > inner) {
			char more[48];

			snprintf(more, sizeof(more), " %d-%d/%d ", top + 1, top + inner, n);
			move(y + h - 1, x + w - 2 - (int)strlen(more));
			walk(more, 0, COLS, 1);
		}
		key = tui_getkey(-1);
		if (key == TUI_KEY_RESIZE) {
			redraw_below();
			continue;
		}
		if (n > inner) {
			if (key == TUI_KEY_UP) {
				top--;
				continue;
			}
			if (key == TUI_KEY_DOWN) {
				top++;
				continue;
			}
			if (key == TUI_KEY_PGUP) {
				top -= inner;
				continue;
			}
			if (key == TUI_KEY_PGDN) {
				top += inner;
				continue;
			}
			if (key == TUI_KEY_HOME) {
				top = 0;
				continue;
			}
			if (key == TUI_KEY_END) {
				top = n;
				continue;
			}
		}
		break;
	}
	free(lines);
	free(copy);
	return key;
}

int tui_menu(const char *title, const char *const *items, int n, int sel)
{
	int top = 0, ret = -1, i;

	if (!tui_active() || n <= 0)
		return -1;
	if (sel < 0 || sel >= n)
		sel = 0;
	for (;;) {
		int maxw = tui_text_width(title ? title : "") + 4, w, h, y, x, inner, key;

		for (i = 0; i < n; i++) {
			int lw = tui_text_width(items[i]);

			if (lw > maxw)
				maxw = lw;
		}
		w = maxw + 4 > COLS ? COLS : maxw + 4;
		h = n + 2 > LINES ? LINES : n + 2;
		inner = h - 2;
		if (w >= 4 && inner > 0) {
			if (sel < top)
				top = sel;
			if (sel >= top + inner)
				top = sel - inner + 1;
			y = (LINES - h) / 2;
			x = (COLS - w) / 2;
			draw_box(y, x, h, w, title);
			for (i = 0; i < inner && top + i < n; i++) {
				enum tui_color c = top + i == sel ? TUI_SELECTED : TUI_NORMAL;

				attrset(T.attrs[c]);
				mvhline(y + 1 + i, x + 1, ' ' | T.attrs[c], w - 2);
				move(y + 1 + i, x + 2);
				walk(items[top + i], x + 2, x + w - 2, 1);
				attrset(A_NORMAL);
			}
		}
		key = tui_getkey(-1);
		if (key == TUI_KEY_RESIZE) {
			redraw_below();
		} else if (key == TUI_KEY_UP || key == 'k') {
			sel = sel > 0 ? sel - 1 : n - 1;
		} else if (key == TUI_KEY_DOWN || key == 'j') {
			sel = sel + 1 < n ? sel + 1 : 0;
		} else if (key == TUI_KEY_PGUP) {
			sel = sel > inner ? sel - inner : 0;
		} else if (key == TUI_KEY_PGDN) {
			sel = sel + inner < n ? sel + inner : n - 1;
		} else if (key == TUI_KEY_HOME) {
			sel = 0;
		} else if (key == TUI_KEY_END) {
			sel = n - 1;
		} else if (key == TUI_KEY_ENTER) {
			ret = sel;
			break;
		} else if (key == TUI_KEY_ESC || key == TUI_KEY_QUIT || key == 'q' ||
			   key == TUI_KEY_LEFT) {
			break;
		} else if (key > ' ' && key < 0x7f) {
			int found = -1, many = 0;

			for (i = 0; i < n; i++)
				if (items[i][0] == key) {
					many += found >= 0;
					found = i;
				}
			if (found >= 0 && !many) {
				ret = found;
				break;
			}
		}
	}
	return ret;
}

int tui_list_key(int key, size_t *sel, size_t *top, size_t n, size_t h)
{
	switch (key) {
	case TUI_KEY_UP:
	case 'k':
		*sel = *sel ? *sel - 1 : 0;
		return 1;
	case TUI_KEY_DOWN:
	case 'j':
		*sel = *sel + 1 < n ? *sel + 1 : *sel;
		return 1;
	case TUI_KEY_PGUP:
		*sel = *sel > h ? *sel - h : 0;
		*top = *top > h ? *top - h : 0;
		return 1;
	case TUI_KEY_PGDN:
	case ' ':
		*sel = *sel + h < n ? *sel + h : (n ? n - 1 : 0);
		*top += h;
		if (*top + h > n)
			*top = n > h ? n - h : 0;
		return 1;
	case TUI_KEY_HOME:
		*sel = *top = 0;
		return 1;
	case TUI_KEY_END:
		*sel = n ? n - 1 : 0;
		return 1;
	}
	return 0;
}
