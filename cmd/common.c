/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Messages, library log routing and the exit-time stdout check. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "libprof/log.h"

int cmd_verbosity;
static const char *cmd_name = "zt";

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "zt %s: %s", cmd_name, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* The message functions: each prints when the verbosity is at least its
 * own, after its kind ("warning: "). */
#define CMD_MSG_FN(name, min_verbosity, kind)        \
	void name(const char *fmt, ...)              \
	{                                            \
		va_list ap;                          \
                                                     \
		if (cmd_verbosity < (min_verbosity)) \
			return;                      \
		va_start(ap, fmt);                   \
		vmsg(kind, fmt, ap);                 \
		va_end(ap);                          \
	}

CMD_MSG_FN(cmd_error, INT_MIN, "")
CMD_MSG_FN(cmd_warn, 0, "warning: ")
CMD_MSG_FN(cmd_note, 0, "note: ")
CMD_MSG_FN(cmd_info, 1, "")

static void lib_log(enum zt_log_level level, const char *msg, void *ctx)
{
	switch (level) {
	case ZT_LOG_ERROR:
		cmd_error("%s", msg);
		break;
	case ZT_LOG_WARN:
		cmd_warn("%s", msg);
		break;
	case ZT_LOG_NOTE:
		cmd_note("%s", msg);
		break;
	case ZT_LOG_INFO:
		cmd_info("%s", msg);
		break;
	case ZT_LOG_DEBUG:
		if (cmd_verbosity >= 2)
			cmd_info("%s", msg);
		break;
	}
}

void cmd_setup(const char *name, int verbosity)
{
	cmd_name = name;
	cmd_verbosity = verbosity;
	zt_log_set(lib_log, NULL);
}

int cmd_finish(int code)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE) {
			cmd_error("cannot write the output: %s", strerror(errno));
			return ZT_EXIT_FAIL;
		}
	}
	return code;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void cmd_progress_start(struct cmd_progress *p, const char *what, uint64_t total)
{
	p->what = what;
	p->total = total;
	p->start_ns = p->last_ns = mono_ns();
	/* only people watching a terminal get it; -q silences it too */
	p->shown = isatty(2) && cmd_verbosity >= 0 ? 0 : -1;
}

void cmd_progress_update(struct cmd_progress *p, uint64_t done)
{
	uint64_t now;

	if (p->shown < 0 || (done & 255))
		return;
	now = mono_ns();
	if (now - p->start_ns < 500000000ull || now - p->last_ns < 100000000ull)
		return;
	p->last_ns = now;
	p->shown = 1;
	fprintf(stderr, "\rzt %s: %s: %3.0f%% (%llu/%llu)", cmd_name, p->what,
		p->total ? 100.0 * (double)done / (double)p->total : 100.0, (unsigned long long)done,
		(unsigned long long)p->total);
}

void cmd_progress_end(struct cmd_progress *p)
{
	if (p->shown > 0)
		fputs("\r\033[K", stderr); /* clear the line */
	p->shown = -1;
}
