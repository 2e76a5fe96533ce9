// SPDX-License-Identifier: GPL-2.0-or-later
/* Shared symbol-source options and the progress line of debuginfod downloads. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/config.h"
#include "cmd/symopts.h"
#include "net/push.h"
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

int symopts_set_symdb(const struct opt *o, const char *arg)
{
	struct symopts *so = o->value;

	so->symdb = arg;
	so->use_symdb = 1;
	return 0;
}

int symopts_no_symdb(const struct opt *o, const char *arg)
{
	struct symopts *so = o->value;

	(void)arg;
	so->symdb = NULL;
	so->use_symdb = 0;
	return 0;
}

int symopts_set_archive(const struct opt *o, const char *arg)
{
	struct symopts *so = o->value;

	so->archive = arg;
	so->no_archive = 0;
	return 0;
}

int symopts_no_archive(const struct opt *o, const char *arg)
{
	struct symopts *so = o->value;

	(void)arg;
	so->archive = NULL;
	so->no_archive = 1;
	return 0;
}

/* Unpack the archive at path into so->arch (allocated by symopts_init).
 * 0, or -1 after a message (auto: found next to the input, not named). */
static int open_archive(const struct symopts *so, const char *path, int autofound)
{
	char err[512];
	int ret;

	ret = symarchive_open(so->arch, path, err, sizeof(err));
	if (ret) {
		cmd_error("cannot use the zt archive '%s': %s%s", path, err,
			  autofound ? " (move it away, or read without it: --no-archive)" : "");
		return -1;
	}
	if (autofound)
		cmd_note("binaries and symbols from the zt archive '%s'", path);
	else
		cmd_info("binaries and symbols from the zt archive '%s'", path);
	return 0;
}

int symopts_archive_for(const struct symopts *so, const char *input)
{
	char path[PATH_MAX];
	struct stat st;

	if (!so->arch || so->arch->cache.dir || so->no_archive || !input || !strcmp(input, "-"))
		return 0;
	if (snprintf(path, sizeof(path), "%s.archive", input) >= (int)sizeof(path) ||
	    lstat(path, &st))
		return 0;
	return open_archive(so, path, 1);
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* The symbol database's client, when there is one to ask: its URL from
 * --symdb, ZT_SYMDB or the configuration file, its token from ZT_TOKEN or
 * that file. 0, or -1 after a message. */
static int setup_symdb(struct symopts *so)
{
	const char *url = so->symdb ? so->symdb : env("ZT_SYMDB"), *token = env("ZT_TOKEN");
	struct push_config cfg = { 0 };
	char path[PATH_MAX], msg[PATH_MAX + 256];
	struct symdb_opts o = { 0 };
	int err, ret = 0;

	/* then ~/.ztconfig (or /etc/ztconfig), then the older ~/.config/zt/config */
	if (!url && cmd_config_get("symbols.symdb", NULL) && *cmd_config_get("symbols.symdb", NULL))
		url = cmd_config_get("symbols.symdb", NULL);
	if (!token)
		token = cmd_config_token();
	if ((!url || !token) && !push_config_path(path, sizeof(path))) {
		err = push_config_read(path, &cfg, msg, sizeof(msg));
		/* unreadable: only a URL given elsewhere makes its token matter */
		if (err && err != -ENOENT && url)
			cmd_warn("%s: its token is not used", msg);
		else if (err && err != -ENOENT)
			cmd_info("%s: its 'symdb =' is not used", msg);
		if (!url)
			url = cfg.symdb && *cfg.symdb ? cfg.symdb : NULL;
		if (!token)
			token = cfg.token && *cfg.token ? cfg.token : NULL;
	}
	if (!url)
		goto out;
	o.url = url;
	o.token = token;
	err = symdb_init(&so->db, &o, msg, sizeof(msg));
	if (err == -ENOSYS) {
		cmd_warn("symbol database %s: %s: continuing without it", url, msg);
	} else if (err) {
		cmd_error("symbol database '%s': %s", url, msg);
		ret = -1;
	} else {
		so->have_db = 1;
		so->mo.remote_gsym = symdb_remote_gsym;
		so->mo.remote_ctx = &so->db;
	}
out:
	push_config_release(&cfg);
	return ret;
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
	if (so->use_symdb && setup_symdb(so))
		return -1;
	so->arch = calloc(1, sizeof(*so->arch));
	if (!so->arch) {
		cmd_error("out of memory");
		return -1;
	}
	so->mo.archive = &so->arch->cache;
	if (so->archive && open_archive(so, so->archive, 0)) {
		/* some callers return without symopts_release() after a failure */
		free(so->arch);
		so->arch = NULL;
		so->mo.archive = NULL;
		return -1;
	}
	return 0;
}

void symopts_release(struct symopts *so)
{
	if (so->arch)
		symarchive_close(so->arch);
	free(so->arch);
	so->arch = NULL;
	so->mo.archive = NULL;
	if (so->have_db)
		symdb_release(&so->db);
	so->have_db = 0;
	if (so->have_cache)
		buildid_cache_release(&so->cache);
	free(so->debug_dirs);
	so->debug_dirs = NULL;
}
