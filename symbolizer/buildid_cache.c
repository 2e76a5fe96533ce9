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

#include "libprof/log.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/elfsym.h"

#define COPY_BUF (64 * 1024)
#define TMP_NAME "/.elf.XXXXXX" /* next to the final file: rename stays atomic */

/* A decimal id from the environment; 0 if absent or malformed. */
static int env_id(const char *name, unsigned long *out)
{
	const char *s = getenv(name);
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end && *out < (unsigned long)(uid_t)-1;
}

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
	unsigned long su = 0, sg = 0;
	char *home = NULL;
	int sudo = 0, ret = 0;

	memset(c, 0, sizeof(*c));
	c->uid = (uid_t)-1;
	c->gid = (gid_t)-1;
	if (geteuid() == 0 && env_id("SUDO_UID", &su) && env_id("SUDO_GID", &sg)) {
		sudo = 1;
		c->uid = (uid_t)su;
		c->gid = (gid_t)sg;
	}

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
	if (sudo) {
		home = home_of(c->uid);
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

static int chown_to_user(const struct buildid_cache *c, const char *path, int fd)
{
	int r;

	if (c->uid == (uid_t)-1 && c->gid == (gid_t)-1)
		return 0;
	r = fd >= 0 ? fchown(fd, c->uid, c->gid) : chown(path, c->uid, c->gid);
	return r < 0 ? -errno : 0;
}

/* mkdir -p, chowning what it creates. path is modified and restored. */
static int make_dirs(const struct buildid_cache *c, char *path)
{
	char *p = path;
	int ret;

	for (;;) {
		p = strchr(p + 1, '/');
		if (p)
			*p = 0;
		if (path[0] && mkdir(path, 0755) == 0) {
			ret = chown_to_user(c, path, -1);
		} else if (path[0] && errno != EEXIST) {
			ret = -errno;
		} else {
			ret = 0;
		}
		if (p)
			*p = '/';
		if (ret || !p)
			return ret;
	}
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
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
		ret = write_all(dst, buf, (size_t)r);
		if (ret)
			goto out;
		off += r;
	}
out:
	free(buf);
	return ret;
}

int buildid_cache_add_fd(const struct buildid_cache *c, const struct prof_build_id *b, int fd)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	struct prof_build_id got;
	size_t dlen;
	int ret, tfd = -1, have_tmp = 0;

	ret = buildid_cache_path(c, b, path, sizeof(path));
	if (ret != -ENOENT)
		return ret;
	dlen = (size_t)(strrchr(path, '/') - path);
	if (dlen + sizeof(TMP_NAME) > sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, dlen);
	tmp[dlen] = 0;
	ret = make_dirs(c, tmp);
	if (ret)
		goto out;
	memcpy(tmp + dlen, TMP_NAME, sizeof(TMP_NAME));
	tfd = mkostemp(tmp, O_CLOEXEC);
	if (tfd < 0) {
		ret = -errno;
		goto out;
	}
	have_tmp = 1;
	ret = copy_fd(fd, tfd);
	if (ret)
		goto out;
	if (fchmod(tfd, 0644) < 0) {
		ret = -errno;
		goto out;
	}
	ret = chown_to_user(c, tmp, tfd);
	if (ret)
		goto out;
	/* never let a wrong file appear under this build id */
	ret = elf_read_build_id_fd(tfd, &got);
	if (ret || got.len != b->len || memcmp(got.data, b->data, b->len) != 0) {
		zt_debug("buildid cache: copy for '%s' has another build id", path);
		ret = -ESTALE;
		goto out;
	}
	/* racing adders rename identical files over each other: fine */
	if (rename(tmp, path) < 0) {
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
