// SPDX-License-Identifier: GPL-2.0-or-later
/* Shared symbol-source options and the progress line of debuginfod downloads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/symopts.h"
#include "symbolizer/debuginfod.h"

int symopts_add_debug_dir(const struct opt *o, const char *arg)
{
	struct symopts *so = o->value;
	const char **n = realloc(so->debug_dirs, (size_t)(so->nr_debug_dirs + 2) * sizeof(*n));

	if (!n)
		return -1;
	so->debug_dirs = n;
	n[so->nr_debug_dirs++] = arg;
	n[so->nr_debug_dirs] = NULL;
	return 0;
}

/* "zt report: debuginfod: 1.2/3.4 MB" on a terminal, rewritten in place. */
static void progress(void *ctx, const char *what, long done, long total)
{
	const char *cmd = ctx;

	if (total > 0)
		fprintf(stderr, "\rzt %s: %s: %.1f/%.1f MB ", cmd, what, done / 1048576.0, total / 1048576.0);
	else
		fprintf(stderr, "\rzt %s: %s: %.1f MB ", cmd, what, done / 1048576.0);
	if (total > 0 && done >= total)
		fputc('\n', stderr);
}

int symopts_init(struct symopts *so, const char *cmd)
{
	memset(&so->mo, 0, sizeof(so->mo));
	so->have_cache = so->use_cache && !buildid_cache_init(&so->cache);
	so->mo.cache = so->have_cache ? &so->cache : NULL;
	so->mo.find.symfs = so->symfs;
	so->mo.find.debug_dirs = so->debug_dirs;
	so->mo.no_debuginfod = !so->use_debuginfod;
	if (!so->use_debuginfod)
		zt_debuginfod_set_enabled(0);
	if (isatty(2) && so->verbose >= 0) {
		so->mo.progress = progress;
		so->mo.progress_ctx = (void *)cmd;
	}
	return 0;
}

void symopts_release(struct symopts *so)
{
	if (so->have_cache)
		buildid_cache_release(&so->cache);
	free(so->debug_dirs);
	so->debug_dirs = NULL;
}
