/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The full-screen terminal layer of zt report and zt top: the only file
 * that calls ncurses (htop's habit). Views draw through these helpers.
 */
#ifndef ZT_TUI_H
#define ZT_TUI_H

#include <stddef.h>

/*
 * Lifecycle. tui_init() takes over the terminal (stdin and stdout must be
 * one): alternate screen, no echo, keys one at a time, colors when the
 * terminal has them and NO_COLOR is not set; it sets LC_CTYPE from the
 * environment, so UTF-8 names draw as such. It returns 0, or a negative
 * errno (-ENOTTY: not a terminal; -EINVAL: the terminal type is unknown;
 * -EBUSY: already started) without touching the terminal. The caller
 * prints the message ("zt report: ..."), after tui_end() if started.
 *
 * tui_end() gives the terminal back as it was. It may be called when the
 * UI is not started (nothing happens), so every way out can call it. It
 * returns the quit signal that was caught (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT) and not yet reraised, or 0.
 *
 * The terminal is restored on every way out even if the caller forgets:
 * at exit() (an atexit handler), and on signals:
 *  - SIGINT, SIGTERM, SIGHUP, SIGQUIT (unless ignored when tui_init() ran):
 *    while the program waits in tui_getkey() or a dialog, the signal is
 *    only recorded and tui_getkey() returns TUI_KEY_QUIT, so the program
 *    quits its normal way; call tui_end(), clean up, then tui_reraise()
 *    with what tui_end() returned to end with the signal's exit status
 *    (or exit normally: SIGINT is Ctrl-C, the same as 'q' for a browser).
 *    Outside tui_getkey() (busy computing) the terminal is restored at
 *    once and the signal is delivered as if never caught (the process
 *    dies), unless tui_defer_signals(1) is in effect: then the first
 *    signal is only recorded (see tui_quit_signal()) and a second one
 *    restores the terminal and kills.
 *  - SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: the terminal is restored
 *    and the signal goes on to the handler that was there before (the
 *    default: a core dump; or a sanitizer's report).
 * Ctrl-Z (SIGTSTP) and window resizes are handled by ncurses.
 */
int tui_init(void);
int tui_end(void);
int tui_active(void);

/* Program-wide signal policy while busy outside tui_getkey(); see above. */
void tui_defer_signals(int on);
/* The quit signal recorded and not yet acted on, or 0. */
int tui_quit_signal(void);
/* Deliver sig (from tui_end()) with its default action; returns only if
 * sig is 0 or the signal does not end the process. */
void tui_reraise(int sig);

/*
 * Keys. tui_getkey() waits up to timeout_ms (-1: for ever) and returns a
 * printable character as itself ('a', '/', '?'), Ctrl-<letter> as 1..26
 * (except Ctrl-C, TUI_KEY_QUIT), or one of these. Arrow keys and the
 * other special keys are decoded from the terminal's sequences; a lone
 * Esc arrives after a short delay (ESCDELAY, default 25 ms).
 */
enum tui_key {
	TUI_KEY_NONE = -1,     /* timeout: nothing pressed */
	TUI_KEY_UP = 0x1000,
	TUI_KEY_DOWN,
	TUI_KEY_LEFT,
	TUI_KEY_RIGHT,
	TUI_KEY_PGUP,
	TUI_KEY_PGDN,
	TUI_KEY_HOME,
	TUI_KEY_END,
	TUI_KEY_ENTER,
	TUI_KEY_ESC,
	TUI_KEY_TAB,
	TUI_KEY_BTAB,          /* Shift-Tab */
	TUI_KEY_BACKSPACE,
	TUI_KEY_DELETE,
	TUI_KEY_F1,
	TUI_KEY_RESIZE,        /* the window changed size (tui_rows(), tui_cols()): redraw all */
	TUI_KEY_QUIT,          /* Ctrl-C, or a quit signal (tui_quit_signal() says which) */
};
int tui_getkey(int timeout_ms);

/* The screen's size (rows and columns; 0 when not started). */
int tui_rows(void);
int tui_cols(void);

/*
 * Colors (attribute sets; bold and reverse video stand in for colors on a
 * terminal without them). tui_percent_color() gives perf's overhead
 * colors: TUI_HIGH (red) at 5% and up, TUI_MEDIUM (green) at 0.5% and up,
 * TUI_NORMAL below.
 */
enum tui_color {
	TUI_NORMAL,
	TUI_HIGH,     /* red */
	TUI_MEDIUM,   /* green */
	TUI_SELECTED, /* the line under the cursor */
	TUI_BAR,      /* title and status bars */
	TUI_HEADER,   /* column names */
	TUI_DIM,      /* less important text (source lines without samples) */
	TUI_NR_COLORS
};
enum tui_color tui_percent_color(double percent);

/*
 * Drawing, into a buffer shown by tui_refresh() (and by tui_getkey(),
 * which refreshes first). Rows and columns count from 0 at the top left.
 * Text is UTF-8 (per the locale); control characters and invalid bytes
 * are drawn as '?', tabs as spaces to the next multiple of 8. Nothing is
 * drawn past the right edge or outside the screen.
 *
 * tui_print() draws text at (row, col) and returns the column after it.
 * tui_fill() blanks the row from col to the right edge in color.
 * tui_line() draws text at column 0 and blanks the rest of the row.
 * tui_title() and tui_status() are tui_line() on the first and the last
 * row in TUI_BAR.
 */
void tui_erase(void);
int tui_print(int row, int col, enum tui_color color, const char *text);
int tui_printf(int row, int col, enum tui_color color, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void tui_fill(int row, int col, enum tui_color color);
void tui_line(int row, enum tui_color color, const char *text);
void tui_title(const char *text);
void tui_status(const char *text);
void tui_refresh(void);
/* Columns text takes on screen (after the substitutions above). */
int tui_text_width(const char *text);

/*
 * Dialogs drawn over the current screen. They handle TUI_KEY_RESIZE by
 * calling the redraw function set with tui_set_redraw() (the caller's
 * whole view, without refreshing) and then drawing themselves again.
 *
 * tui_prompt(): a one-line text input on the last row, starting with
 * buf's content: Enter confirms (1), Esc cancels (0, buf unchanged), as
 * does a quit signal (0; the next tui_getkey() returns TUI_KEY_QUIT).
 * Backspace, Ctrl-U (clear) and Ctrl-W (delete a word) edit.
 *
 * tui_popup(): a box in the middle with a title and text (lines separated
 * by '\n'), scrollable with the arrows, PgUp/PgDn and Home/End when
 * taller than the screen; any other key closes it, and is returned
 * (TUI_KEY_QUIT too).
 *
 * tui_menu(): a box listing n items, sel first selected; the arrows,
 * j/k, PgUp/PgDn and Home/End move; Enter or the first character of an
 * item (when it is unique, and not j, k or q) chooses; returns the index
 * chosen, or -1 (Esc, q, Left, a quit signal).
 */
void tui_set_redraw(void (*redraw)(void *ctx), void *ctx);
int tui_prompt(const char *prompt, char *buf, size_t size);
int tui_popup(const char *title, const char *text);
int tui_menu(const char *title, const char *const *items, int n, int sel);

/* The cursor keys of a list of n rows shown h at a time (up/k, down/j,
 * page up, page down/space, home, end) move *sel and *top. Returns 1 when
 * key was one of them, else 0. */
int tui_list_key(int key, size_t *sel, size_t *top, size_t n, size_t h);

#endif
