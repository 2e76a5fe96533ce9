// SPDX-License-Identifier: GPL-2.0-or-later
/* Files read as root on behalf of a profiled process (see procfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libprof/procfile.h"

int procfile_owner_init(struct procfile_owner *o, uint32_t pid)
{
	char path[64], line[256];
	int have_uid = 0;
	FILE *f;

	memset(o, 0, sizeof(*o));
	o->pid = o->nspid = pid;
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long u[4];

		if (sscanf(line, "Uid: %lu %lu %lu %lu", &u[0], &u[1], &u[2], &u[3]) == 4) {
			for (int i = 0; i < 4; i++)
				o->uid[i] = (uid_t)u[i];
			have_uid = 1;
		} else if (!strncmp(line, "NSpid:", 6)) {
			/* the pid in each namespace, outermost first: the last is its own */
			char *p = line + 6, *end;
			unsigned long v;

			for (;;) {
				v = strtoul(p, &end, 10);
				if (end == p)
					break;
				o->nspid = (uint32_t)v;
				p = end;
			}
		}
	}
	fclose(f);
	return have_uid ? 0 : -ENOENT;
}

int procfile_owned(const struct procfile_owner *o, uid_t uid)
{
	if (uid == 0)
		return 1;
	for (int i = 0; i < 4; i++)
		if (o->uid[i] == uid)
			return 1;
	return 0;
}

int procfile_check(const struct procfile_owner *o, int fd, size_t max, struct stat *st)
{
	if (fstat(fd, st))
		return -errno;
	if (!S_ISREG(st->st_mode) || st->st_nlink != 1)
		return -EINVAL;
	if (!procfile_owned(o, st->st_uid))
		return -EPERM;
	if ((uint64_t)st->st_size > max)
		return -EFBIG;
	return 0;
}

int procfile_open_in_root(uint32_t pid, const char *path, int nolinks)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (nolinks ? O_NOFOLLOW : 0),
		.resolve = RESOLVE_NO_MAGICLINKS | (nolinks ? RESOLVE_NO_SYMLINKS : 0),
	};
	char p[PATH_MAX + 32];
	int rfd, fd;

	if (path[0] != '/')
		return -EINVAL;
	snprintf(p, sizeof(p), "/proc/%u/root", pid);
	rfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd >= 0) {
		how.resolve |= RESOLVE_IN_ROOT;
		fd = (int)syscall(SYS_openat2, rfd, path + 1, &how, sizeof(how));
		close(rfd);
	} else {
		/* the process is gone: its files, if any, are in this root */
		fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	}
	if (fd < 0 && errno == ENOSYS) {
		/* before Linux 5.6: links in the last component at most are refused */
		if (rfd >= 0 && snprintf(p, sizeof(p), "/proc/%u/root%s", pid, path) < (int)sizeof(p))
			fd = open(p, (int)how.flags);
		else
			fd = open(path, (int)how.flags);
	}
	if (fd < 0)
		return errno == EXDEV ? -ELOOP : -errno; /* EXDEV: a link would leave the root */
	return fd;
}

int procfile_open(const struct procfile_owner *o, const char *path, size_t max, struct stat *st)
{
	int fd = procfile_open_in_root(o->pid, path, 1), err;

	if (fd < 0)
		return fd;
	err = procfile_check(o, fd, max, st);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int procfile_read(const struct procfile_owner *o, const char *path, size_t max, char **data,
		  size_t *len)
{
	struct stat st;
	ssize_t n;
	char *d;
	int fd = procfile_open(o, path, max, &st);

	if (fd < 0)
		return fd;
	d = malloc((size_t)st.st_size + 1);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, d, (size_t)st.st_size, 0);
	close(fd);
	if (n < 0 || n != st.st_size) {
		free(d);
		return -EIO;
	}
	d[n] = 0;
	*data = d;
	*len = (size_t)n;
	return 0;
}

#define STR_(x) #x
#define STR(x)	STR_(x)

const char *procfile_why(int err)
{
	switch (err) {
	case -ENOENT:
		return "no such file";
	case -ELOOP:
		return "a symbolic link (not followed)";
	case -EPERM:
		return "owned by a user other than the process's or root";
	case -EINVAL:
		return "not a regular file with a single link";
	case -EFBIG:
		return "larger than " STR(PROF_BLOB_MAX_MIB) " MiB, more than a recording holds";
	default:
		return strerror(-err);
	}
}
