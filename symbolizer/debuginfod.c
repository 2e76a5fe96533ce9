// SPDX-License-Identifier: GPL-2.0-or-later
/* debuginfod client: libdebuginfod with zt's error codes and progress callback. */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolizer/debuginfod.h"

/* libdebuginfod is loaded when first needed, as elfutils' own libdwfl
 * does: it brings libcurl, GnuTLS, Kerberos... (30 libraries, ~5 ms of
 * start-up) that a zt run without a debuginfod server never needs. */
static struct {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	void (*set_user_data)(debuginfod_client *, void *);
	void *(*get_user_data)(debuginfod_client *);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_source)(debuginfod_client *, const unsigned char *, int, const char *, char **);
	int loaded;
} dl;
static pthread_once_t dl_once = PTHREAD_ONCE_INIT;

static void dl_load(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	dl.begin = (debuginfod_client * (*)(void)) dlsym(h, "debuginfod_begin");
	dl.end = (void (*)(debuginfod_client *))dlsym(h, "debuginfod_end");
	dl.set_user_data = (void (*)(debuginfod_client *, void *))dlsym(h, "debuginfod_set_user_data");
	dl.get_user_data = (void *(*)(debuginfod_client *))dlsym(h, "debuginfod_get_user_data");
	dl.set_progressfn = (void (*)(debuginfod_client *, debuginfod_progressfn_t))dlsym(
		h, "debuginfod_set_progressfn");
	dl.find_debuginfo = (int (*)(debuginfod_client *, const unsigned char *, int, char **))dlsym(
		h, "debuginfod_find_debuginfo");
	dl.find_executable = (int (*)(debuginfod_client *, const unsigned char *, int, char **))dlsym(
		h, "debuginfod_find_executable");
	dl.find_source = (int (*)(debuginfod_client *, const unsigned char *, int, const char *,
				  char **))dlsym(h, "debuginfod_find_source");
	dl.loaded = dl.begin && dl.find_source && dl.end && dl.set_user_data && dl.get_user_data && dl.set_progressfn &&
		    dl.find_debuginfo && dl.find_executable;
}


static int enabled = 1;

void zt_debuginfod_set_enabled(int on)
{
	__atomic_store_n(&enabled, !!on, __ATOMIC_RELAXED);
}

int zt_debuginfod_enabled(void)
{
	return __atomic_load_n(&enabled, __ATOMIC_RELAXED);
}

int zt_debuginfod_configure(const char *urls, const char *cache_dir)
{
	if (!urls || !cache_dir)
		return -EINVAL;
	if (setenv(DEBUGINFOD_URLS_ENV_VAR, urls, 1) ||
	    setenv(DEBUGINFOD_CACHE_PATH_ENV_VAR, cache_dir, 1) ||
	    setenv(DEBUGINFOD_TIMEOUT_ENV_VAR, "10", 0))
		return -errno;
	return 0;
}

struct progress {
	zt_debuginfod_progress_fn fn;
	void *ctx;
};

static int progress_cb(debuginfod_client *c, long done, long total)
{
	struct progress *p = dl.get_user_data(c);

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

/* want: 0 debuginfo, 1 executable, 2 source (src) */
static int find(const struct prof_build_id *bid, int want, const char *src,
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
	pthread_once(&dl_once, dl_load);
	if (!dl.loaded)
		return -ENOSYS; /* libdebuginfod1 is not installed */
	c = dl.begin();
	if (!c)
		return errno ? -errno : -ENOMEM;
	dl.set_user_data(c, &p);
	/* also replaces the stderr printer DEBUGINFOD_PROGRESS installs */
	dl.set_progressfn(c, progress ? progress_cb : NULL);
	if (want == 2)
		fd = dl.find_source(c, bid->data, bid->len, src, &path);
	else if (want == 1)
		fd = dl.find_executable(c, bid->data, bid->len, &path);
	else
		fd = dl.find_debuginfo(c, bid->data, bid->len, &path);
	dl.end(c);
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

int zt_debuginfod_find(const struct prof_build_id *bid, int want_executable,
		       zt_debuginfod_progress_fn progress, void *ctx, char **path_out)
{
	return find(bid, !!want_executable, NULL, progress, ctx, path_out);
}

int zt_debuginfod_find_source(const struct prof_build_id *bid, const char *path,
			      zt_debuginfod_progress_fn progress, void *ctx, char **path_out)
{
	*path_out = NULL;
	if (!path || path[0] != '/')
		return -EINVAL;
	return find(bid, 2, path, progress, ctx, path_out);
}
