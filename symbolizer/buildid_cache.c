/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The local build-id cache: DIR/buildid/<xx>/<rest>/elf, filled with
 * verified copies written to a temp file and renamed into place.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/fileio.h"
#include "libprof/log.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/elfsym.h"

#define COPY_BUF (64 * 1024)
#define TMP_NAME "/.elf.XXXXXX" /* next to the final file: rename stays atomic */

/* The home directory of uid from the password database (malloc'd). */
static char *home_of(uid_t uid)
{
	struct passwd pw, *res = NULL;
	long sz = sysconf(_SC_GETPW_R_SIZE_MAX);
	char *buf, *home = NULL;

	if (sz < 16384)
		sz = 16384;
	buf = malloc((size_t)sz);
	if (!buf)
		return NULL;
	if (getpwuid_r(uid, &pw, buf, (size_t)sz, &res) == 0 && res && res->pw_dir &&
	    res->pw_dir[0])
		home = strdup(res->pw_dir);
	free(buf);
	return home;
}

int buildid_cache_init(struct buildid_cache *c)
{
	const char *env;
	char *home = NULL;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	zt_user_init(&c->user);

	env = getenv("ZT_CACHE_DIR");
	if (env && *env) {
		c->dir = strdup(env);
		ret = c->dir ? 0 : -ENOMEM;
		goto out;
	}
	env = getenv("XDG_CACHE_HOME");
	if (env && env[0] == '/') {
		if (asprintf(&c->dir, "%s/zt", env) < 0) {
			c->dir = NULL;
			ret = -ENOMEM;
		}
		goto out;
	}
	if (c->user.active) {
		home = home_of(c->user.uid);
	} else {
		env = getenv("HOME");
		home = env && *env ? strdup(env) : home_of(getuid());
	}
	if (!home) {
		ret = -ENOENT;
		goto out;
	}
	if (asprintf(&c->dir, "%s/.cache/zt", home) < 0) {
		c->dir = NULL;
		ret = -ENOMEM;
	}
out:
	free(home);
	return ret;
}

void buildid_cache_release(struct buildid_cache *c)
{
	free(c->dir);
	c->dir = NULL;
}

int buildid_cache_path(const struct buildid_cache *c, const struct prof_build_id *b,
		       char *out, size_t n)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1];
	struct stat st;
	int len;

	if (n)
		out[0] = 0;
	if (!c->dir || b->len < 2 || b->len > ZT_BUILD_ID_MAX)
		return -EINVAL;
	prof_build_id_hex(b, hex);
	len = snprintf(out, n, "%s/buildid/%.2s/%s/elf", c->dir, hex, hex + 2);
	if (len < 0 || (size_t)len >= n) {
		if (n)
			out[0] = 0;
		return -ENAMETOOLONG;
	}
	if (stat(out, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	return S_ISREG(st.st_mode) ? 0 : -ENOENT;
}

int buildid_cache_mkdirs(const char *dir, mode_t mode)
{
	char path[PATH_MAX], *p = path;
	int ret;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (;;) {
		p = strchr(p + 1, '/');
		if (p)
			*p = 0;
		if (path[0] && mkdir(path, mode) && errno != EEXIST)
			ret = -errno;
		else
			ret = 0;
		if (p)
			*p = '/';
		if (ret || !p)
			return ret;
	}
}


/* Copy all of src (from offset 0, its file position untouched) to dst. */
static int copy_fd(int src, int dst)
{
	loff_t off = 0;
	char *buf = NULL;
	int ret = 0;

	for (;;) {
		ssize_t r = copy_file_range(src, &off, dst, NULL, 1 << 30, 0);

		if (r == 0)
			goto out;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
			    errno == EOPNOTSUPP || errno == EBADF)
				break;
			ret = -errno;
			goto out;
		}
	}
	/* copy_file_range does not apply: plain reads from where it stopped */
	buf = malloc(COPY_BUF);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t r = pread(src, buf, COPY_BUF, off);

		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		ret = zt_write_all(dst, buf, (size_t)r);
		if (ret)
			goto out;
		off += r;
	}
out:
	free(buf);
	return ret;
}

/* One write into the cache, done by store_job() (as the sudo user, when
 * there is one): from memory, or a copy of a file open at srcfd. */
struct store {
	const char *path;
	const void *data;
	size_t len;
	int srcfd;                       /* or -1 */
	const char *src;                 /* the source's path, for the read check, or NULL */
	const struct prof_build_id *bid; /* a copy must have it, or NULL */
	mode_t mode;                     /* of the file, and of the directories made */
};

/* Could this process (the sudo user) read the source by itself? Its mode
 * must let it, and its path, where one is given, must not be closed to it
 * (a directory it cannot search on the way). A path gone since (a deleted
 * binary) leaves the decision to the mode. */
static int may_read_source(const struct store *s)
{
	struct stat st;

	if (s->srcfd >= 0 ? fstat(s->srcfd, &st) : stat(s->src, &st))
		return -errno;
	if (!zt_may_read(&st))
		return -EACCES;
	if (s->src && s->srcfd >= 0 && access(s->src, R_OK) && errno == EACCES)
		return -EACCES;
	return 0;
}

static int store_job(void *arg)
{
	const struct store *s = arg;
	char tmp[PATH_MAX];
	size_t dlen = (size_t)(strrchr(s->path, '/') - s->path);
	struct prof_build_id got;
	int ret, tfd = -1, have_tmp = 0;

	if (getuid() != 0 && (s->src || s->srcfd >= 0) && (ret = may_read_source(s)))
		return ret;
	if (dlen + sizeof(TMP_NAME) > sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, s->path, dlen);
	tmp[dlen] = 0;
	/* directories as open as the file: a private file's are the user's only */
	ret = buildid_cache_mkdirs(tmp, s->mode & 044 ? 0755 : 0700);
	if (ret)
		goto out;
	memcpy(tmp + dlen, TMP_NAME, sizeof(TMP_NAME));
	tfd = mkostemp(tmp, O_CLOEXEC);
	if (tfd < 0) {
		ret = -errno;
		goto out;
	}
	have_tmp = 1;
	ret = s->srcfd >= 0 ? copy_fd(s->srcfd, tfd) : zt_write_all(tfd, s->data, s->len);
	if (ret)
		goto out;
	if (fchmod(tfd, s->mode) < 0) {
		ret = -errno;
		goto out;
	}
	/* never let a wrong file appear under this build id */
	if (s->bid) {
		ret = elf_read_build_id_fd(tfd, &got);
		if (ret || got.len != s->bid->len || memcmp(got.data, s->bid->data, s->bid->len) != 0) {
			zt_debug("buildid cache: copy for '%s' has another build id", s->path);
			ret = -ESTALE;
			goto out;
		}
	}
	/* racing adders rename identical files over each other: fine */
	if (rename(tmp, s->path) < 0) {
		ret = -errno;
		goto out;
	}
	have_tmp = 0;
out:
	if (tfd >= 0)
		close(tfd);
	if (have_tmp)
		unlink(tmp);
	return ret;
}

int buildid_cache_store(const struct buildid_cache *c, const char *path, const void *data,
			size_t len, const char *src)
{
	return buildid_cache_store_mode(c, path, data, len, src, 0644);
}

int buildid_cache_store_mode(const struct buildid_cache *c, const char *path, const void *data,
			     size_t len, const char *src, mode_t mode)
{
	struct store s = { path, data, len, -1, src, NULL, mode };
	size_t n = c->dir ? strlen(c->dir) : 0;

	if (!n || strncmp(path, c->dir, n) || path[n] != '/')
		return -EINVAL;
	return zt_user_run(&c->user, store_job, &s);
}

int buildid_cache_add_fd(const struct buildid_cache *c, const struct prof_build_id *b, int fd,
			 const char *src)
{
	char path[PATH_MAX];
	struct store s = { path, NULL, 0, fd, src, b, 0644 };
	int ret;

	ret = buildid_cache_path(c, b, path, sizeof(path));
	if (ret != -ENOENT)
		return ret;
	return zt_user_run(&c->user, store_job, &s);
}

char *buildid_cache_root_dir(const struct buildid_cache *c)
{
	char *home, *dir = NULL;

	if (!c->user.active)
		return c->dir ? strdup(c->dir) : NULL;
	home = home_of(geteuid());
	if (home && asprintf(&dir, "%s/.cache/zt", home) < 0)
		dir = NULL;
	free(home);
	return dir;
}
