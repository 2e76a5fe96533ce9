/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One replaceable logger for every layer below cmd/: libraries never print. */
#ifndef ZT_LOG_H
#define ZT_LOG_H

#include <stddef.h>

/* ZT_LOG_NOTE: something the user may want to know, not a problem (cmd/
 * prints it as "note: ", not with -q); last, so that a sink's
 * level <= ZT_LOG_WARN still means a problem. */
enum zt_log_level { ZT_LOG_ERROR, ZT_LOG_WARN, ZT_LOG_INFO, ZT_LOG_DEBUG, ZT_LOG_NOTE };

/* The sink receives one formatted message without a trailing newline. */
typedef void (*zt_log_fn)(enum zt_log_level level, const char *msg, void *ctx);

/* Install a sink (NULL restores the default, which drops everything). */
void zt_log_set(zt_log_fn fn, void *ctx);
void zt_log(enum zt_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A message for the caller, formatted into msg (n bytes; nothing when msg
 * is NULL or n is 0): how library functions say why they failed. */
void zt_say(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define zt_error(...) zt_log(ZT_LOG_ERROR, __VA_ARGS__)
#define zt_warn(...)  zt_log(ZT_LOG_WARN, __VA_ARGS__)
#define zt_note(...)  zt_log(ZT_LOG_NOTE, __VA_ARGS__)
#define zt_info(...)  zt_log(ZT_LOG_INFO, __VA_ARGS__)
#define zt_debug(...) zt_log(ZT_LOG_DEBUG, __VA_ARGS__)

#endif
