/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The replaceable logger. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
	char msg[1024], *big = NULL;
	va_list ap;
	int n;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(msg)) {
		/* a long path: whole, as cmd/'s own messages print it */
		va_start(ap, fmt);
		if (vasprintf(&big, fmt, ap) < 0)
			big = NULL;
		va_end(ap);
	}
	log_fn(level, big ? big : msg, log_ctx);
	free(big);
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
