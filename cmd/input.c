// SPDX-License-Identifier: GPL-2.0-or-later
/* Opening a recording for a command, with the session's progress as a command shows it. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/input.h"

static void on_progress(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	struct cmd_progress *p = ctx;

	if (!p->what || strcmp(p->what, what)) {
		cmd_progress_start(p, what, total);
		p->what = what;
	}
	if (done < total) {
		cmd_progress_update(p, done);
		return;
	}
	cmd_progress_end(p);
	p->what = NULL;
}

int cmd_open_session(struct session *s, const char *path, const struct symopts *so, int force,
		     const char *event, int demangle)
{
	return cmd_open_session_events(s, path, so, force, event, demangle, 0);
}

int cmd_open_session_events(struct session *s, const char *path, const struct symopts *so,
			    int force, const char *event, int demangle, int all)
{
	struct cmd_progress prog = { 0 };
	struct session_opts o = { 0 };

	o.force = force;
	o.event = event;
	o.all_events = all;
	o.mo = &so->mo;
	o.kallsyms = so->kallsyms;
	o.vmlinux = so->kallsyms ? NULL : so->vmlinux;
	o.kcache = so->have_cache ? &so->cache : NULL;
	o.no_demangle = !demangle;
	o.full_signature = so->full_signature;
	o.progress = on_progress;
	o.progress_ctx = &prog;
	return session_open(s, path, &o);
}

const char *cmd_default_input(void)
{
	struct stat st;

	return !fstat(STDIN_FILENO, &st) && S_ISFIFO(st.st_mode) ? "-" : "zt.data";
}
