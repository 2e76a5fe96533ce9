/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers the unit tests share (linked into every test binary). */
#ifndef ZT_TESTUTIL_H
#define ZT_TESTUTIL_H

/* system() of a printf-formatted shell command (at most 8 KiB). */
int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
