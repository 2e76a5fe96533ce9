// SPDX-License-Identifier: GPL-2.0-or-later
/* Output files made new and renamed into place (see outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/outfile.h"
#include "libprof/asuser.h"

/* What the sudo user's check needs: the directory, and the file at the path. */
struct dircheck {
	int dirfd;
	bool exists;
	uid_t owner;
};

/* Run as the sudo user: could they have made the file there themselves?
 * Write and search rights on the directory, and, where a file is there
 * already, the right to replace it (theirs, or a directory without the
 * sticky bit). 0 or a negative errno. */
static int user_could_create(void *arg)
{
	const struct dircheck *c = arg;
	struct stat st;

	if (faccessat(c->dirfd, ".", W_OK | X_OK, 0))
		return -errno;
	if (fstat(c->dirfd, &st))
		return -errno;
	if (c->exists && c->owner != getuid() && (st.st_mode & S_ISVTX))
		return -EPERM;
	return 0;
}

/* A new file in dirfd named .BASE.XXXXXX (base shortened to fit). */
static int create_tmp(struct outfile *o, mode_t mode)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char name[NAME_MAX + 1];
	int tries, fd = -1;

	for (tries = 0; tries < 100; tries++) {
		unsigned char rnd[8];
		size_t i, len;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		len = (size_t)snprintf(name, sizeof(name), ".%.200s.", o->base);
		for (i = 0; i < sizeof(rnd); i++)
			name[len + i] = set[rnd[i] % (sizeof(set) - 1)];
		name[len + sizeof(rnd)] = 0;
		fd = openat(o->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return -errno;
	o->tmp = strdup(name);
	if (!o->tmp) {
		unlinkat(o->dirfd, name, 0);
		close(fd);
		return -ENOMEM;
	}
	o->fd = fd;
	return 0;
}

/* What a path that is not a regular file is, for a refusal. */
static const char *kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "FIFO";
	if (S_ISSOCK(mode))
		return "socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "device";
	if (S_ISDIR(mode))
		return "directory";
	return "special file";
}

static int refuse(const struct outfile *o, mode_t mode, int flags)
{
	cmd_error("'%s' is a %s, not a regular file: zt writes only files it creates "
		  "(remove it or give another output file%s)",
		  o->path, kind_of(mode),
		  flags & (OUTFILE_STDOUT_OK | OUTFILE_STDOUT_HINT)
			  ? "; -o - writes to standard output"
			  : "");
	return -1;
}

static bool is_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

/* The null device at the path: opened without waiting (whatever was put
 * there since the check), and checked again on the descriptor. */
static int open_null(struct outfile *o, int flags)
{
	struct stat st;

	o->fd = openat(o->dirfd, o->base,
		       O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0) {
		cmd_error("cannot open '%s': %s", o->path, strerror(errno));
		return -1;
	}
	if (fstat(o->fd, &st)) {
		cmd_error("cannot open '%s': %s", o->path, strerror(errno));
		return -1;
	}
	if (!is_null(&st)) {
		close(o->fd); /* unwritten */
		o->fd = -1;
		return refuse(o, st.st_mode, flags);
	}
	o->stream = true;
	return 0;
}

int outfile_create(struct outfile *o, const char *path, mode_t mode, int flags)
{
	const char *slash = strrchr(path, '/');
	struct dircheck chk = { -1, false, 0 };
	struct zt_user u;
	struct stat st;
	char *dir;
	int err;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = o->dirfd = -1;
	if ((flags & OUTFILE_STDOUT_OK) && !strcmp(path, "-")) {
		if (isatty(STDOUT_FILENO)) {
			cmd_error("standard output is a terminal: pipe it into another command "
				  "(zt record -o - | zt report -i -) or give a file name");
			return -1;
		}
		o->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (o->fd < 0) {
			cmd_error("cannot write to standard output: %s", strerror(errno));
			return -1;
		}
		o->stream = true;
		return 0;
	}
	if (!*path || (slash && !slash[1])) {
		cmd_error("cannot create '%s': give a file name, not a directory", path);
		return -1;
	}
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	o->base = strdup(slash ? slash + 1 : path);
	if (!dir || !o->base) {
		free(dir);
		cmd_error("out of memory");
		return -1;
	}
	o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	free(dir);
	if (o->dirfd < 0) {
		cmd_error("cannot create '%s': %s", path, strerror(err));
		return -1;
	}
	/* never open what is there: a FIFO would hand the data to whoever
	 * reads it, or wait for ever; a device takes anything */
	if (!fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW)) {
		chk.exists = true;
		chk.owner = st.st_uid;
		if (S_ISLNK(st.st_mode)) {
			cmd_error("'%s' is a symbolic link: zt does not write through links "
				  "(remove it, or give another output file)", path);
			return -1;
		}
		if (is_null(&st))
			return open_null(o, flags);
		if (!S_ISREG(st.st_mode))
			return refuse(o, st.st_mode, flags);
	}
	err = create_tmp(o, mode);
	if (err) {
		cmd_error("cannot create '%s': %s", path, strerror(-err));
		return -1;
	}
	zt_user_init(&u);
	if (u.active) {
		chk.dirfd = o->dirfd;
		err = zt_user_run(&u, user_could_create, &chk);
		if (!err && fchown(o->fd, u.uid, u.gid))
			err = -errno;
		if (err)
			cmd_warn("'%s' stays root's: the sudo user (uid %u) could not have created it "
				 "there (%s)", path, (unsigned)u.uid, strerror(-err));
		else
			o->handed_over = true;
	}
	return 0;
}

int outfile_commit(struct outfile *o, bool keep_old)
{
	char old[NAME_MAX + 8];
	bool moved = false;
	struct stat st;

	if (o->committed || o->stream) {
		o->committed = true;
		return 0;
	}
	snprintf(old, sizeof(old), "%s.old", o->base);
	if (keep_old && strlen(o->base) + 4 <= NAME_MAX &&
	    !fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) && st.st_size > 0) {
		if (renameat(o->dirfd, o->base, o->dirfd, old)) {
			cmd_error("cannot rename '%s' to '%s.old': %s", o->path, o->path, strerror(errno));
			return -1;
		}
		moved = true;
	}
	/* rename replaces whatever is at the path now, never what it links to */
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->base)) {
		cmd_error("cannot create '%s': %s", o->path, strerror(errno));
		if (moved && renameat(o->dirfd, old, o->dirfd, o->base))
			cmd_error("cannot rename '%s.old' back to '%s': %s", o->path, o->path, strerror(errno));
		return -1;
	}
	o->committed = true;
	return 0;
}

int outfile_rename(struct outfile *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *b = strdup(slash ? slash + 1 : path);

	if (!b)
		return -ENOMEM;
	free(o->base);
	o->base = b;
	o->path = path;
	return 0;
}

FILE *outfile_numbered(const char *prefix, unsigned *seq, char *name, size_t size)
{
	FILE *f;
	int fd = -1;

	snprintf(name, size, "%s.%u", prefix, *seq);
	errno = EEXIST;
	for (; *seq < 100000; (*seq)++) {
		snprintf(name, size, "%s.%u", prefix, *seq);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return NULL;
	(*seq)++;
	f = fdopen(fd, "w");
	if (!f) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return f;
}

int outfile_release(struct outfile *o)
{
	int ret = 0;

	if (o->fd >= 0 && close(o->fd))
		ret = -errno;
	o->fd = -1;
	if (o->tmp && !o->committed && o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmp, 0);
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
	free(o->tmp);
	free(o->base);
	o->tmp = o->base = NULL;
	return ret;
}
