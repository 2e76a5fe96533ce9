// SPDX-License-Identifier: GPL-2.0-or-later
/* A command's session options, and the session's progress as a command shows it. */
#include <string.h>

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

void cmd_session_opts(const struct symopts *so, struct cmd_progress *prog, struct session_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mo = &so->mo;
	o->kallsyms = so->kallsyms;
	o->vmlinux = so->kallsyms ? NULL : so->vmlinux;
	o->kcache = so->have_cache ? &so->cache : NULL;
	o->full_signature = so->full_signature;
	memset(prog, 0, sizeof(*prog));
	o->progress = on_progress;
	o->progress_ctx = prog;
}
