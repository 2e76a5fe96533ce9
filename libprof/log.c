/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The replaceable logger. */
#include <stdarg.h>
#include <stdio.h>

#include "libprof/log.h"

static zt_log_fn log_fn;
static void *log_ctx;

void zt_log_set(zt_log_fn fn, void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
}

void zt_log(enum zt_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(level, msg, log_ctx);
}

void zt_say(char *msg, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !n)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, n, fmt, ap);
	va_end(ap);
}
