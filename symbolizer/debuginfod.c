// SPDX-License-Identifier: GPL-2.0-or-later
/* debuginfod client: libdebuginfod with zt's error codes and progress callback. */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolizer/debuginfod.h"

static int enabled = 1;

void zt_debuginfod_set_enabled(int on)
{
	__atomic_store_n(&enabled, !!on, __ATOMIC_RELAXED);
}

int zt_debuginfod_enabled(void)
{
	return __atomic_load_n(&enabled, __ATOMIC_RELAXED);
}

struct progress {
	zt_debuginfod_progress_fn fn;
	void *ctx;
};

static int progress_cb(debuginfod_client *c, long done, long total)
{
	struct progress *p = debuginfod_get_user_data(c);

	if (p && p->fn)
		p->fn(p->ctx, done, total);
	return 0; /* never cancel */
}

/* libdebuginfod itself only checks for an unset or empty variable */
static int have_urls(void)
{
	const char *s = getenv(DEBUGINFOD_URLS_ENV_VAR);

	return s && s[strspn(s, " \t\n")];
}

int zt_debuginfod_find(const struct prof_build_id *bid, int want_executable,
		       zt_debuginfod_progress_fn progress, void *ctx, char **path_out)
{
	struct progress p = { progress, ctx };
	debuginfod_client *c;
	char *path = NULL;
	int fd;

	*path_out = NULL;
	if (!bid || !bid->len || bid->len > ZT_BUILD_ID_MAX)
		return -EINVAL;
	if (!zt_debuginfod_enabled() || !have_urls())
		return -ENOSYS;
	c = debuginfod_begin();
	if (!c)
		return errno ? -errno : -ENOMEM;
	debuginfod_set_user_data(c, &p);
	/* also replaces the stderr printer DEBUGINFOD_PROGRESS installs */
	debuginfod_set_progressfn(c, progress ? progress_cb : NULL);
	if (want_executable)
		fd = debuginfod_find_executable(c, bid->data, bid->len, &path);
	else
		fd = debuginfod_find_debuginfo(c, bid->data, bid->len, &path);
	debuginfod_end(c);
	if (fd < 0) {
		free(path);
		/* curl's timeouts come back as -ETIME */
		return fd == -ETIME ? -ETIMEDOUT : fd;
	}
	close(fd);
	if (!path)
		return -ENOMEM;
	*path_out = path;
	return 0;
}
