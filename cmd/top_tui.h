/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt top's views over its state (top.h): the table as text, and the full
 * screen. top.c drives them after each refresh of t->live; they read t
 * and change only what is shown (zoom, filter, limits, hidden parts).
 */
#ifndef ZT_TOP_TUI_H
#define ZT_TOP_TUI_H

#include <stddef.h>
#include <stdio.h>

#include "cmd/topstate.h"

/* Print a snapshot as text: the title as a comment, then the table (at
 * most max rows, 0: all). */
void top_print(struct top *t, FILE *f, size_t max);

/* The full-screen view. top_tui_start(): 0 or a negative errno (nothing
 * changed on the terminal). top_tui_wait(): keys for up to timeout_ms;
 * returns 1 when the user quits. top_tui_draw(): after a refresh.
 * top_tui_end(): the terminal back; returns the quit signal caught, or 0. */
int top_tui_start(struct top *t);
int top_tui_wait(struct top *t, int timeout_ms);
void top_tui_draw(struct top *t);
int top_tui_end(struct top *t);

#endif
