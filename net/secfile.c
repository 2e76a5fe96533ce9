// SPDX-License-Identifier: GPL-2.0-or-later
/* Files that hold a secret: refused unless they are the user's own and private; key = value lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/secfile.h"

void zt_secfile_free(char *text, size_t len)
{
	if (!text)
		return;
	explicit_bzero(text, len);
	free(text);
}

/* Whether st is safe for a secret; msg says why not. */
static int check_safe(const char *path, const struct stat *st, const char *what, char *msg,
		      size_t msglen)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(msg, msglen, "'%s' is not a regular file", path);
		return -EPERM;
	}
	if (st->st_uid != geteuid()) {
		snprintf(msg, msglen,
			 "'%s' is not owned by you: it holds %s, use a file of "
			 "your own with 'chmod 600 %s'",
			 path, what, path);
		return -EPERM;
	}
	if (st->st_mode & 077) {
		snprintf(msg, msglen,
			 "'%s' can be read or changed by others (mode %03o): it holds "
			 "%s, run 'chmod 600 %s'",
			 path, (unsigned)(st->st_mode & 0777), what, path);
		return -EPERM;
	}
	return 0;
}

int zt_secfile_read(const char *path, const char *what, size_t max, char **text, size_t *len,
		    char *msg, size_t msglen)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	ssize_t k;
	int fd, ret;

	*text = NULL;
	*len = 0;
	msg[0] = 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP) {
			snprintf(msg, msglen,
				 "'%s' is a symbolic link: it holds %s, make it a "
				 "file of your own ('chmod 600 %s')",
				 path, what, path);
			return -EPERM;
		}
		if (ret != -ENOENT)
			snprintf(msg, msglen, "cannot open '%s': %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(msg, msglen, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = check_safe(path, &st, what, msg, msglen);
	if (ret)
		goto out;
	if ((uint64_t)st.st_size > max) {
		snprintf(msg, msglen, "'%s' is too large (%lld bytes, at most %zu)", path,
			 (long long)st.st_size, max);
		ret = -EFBIG;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(msg, msglen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	while (n < (size_t)st.st_size && (k = read(fd, buf + n, (size_t)st.st_size - n)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			ret = -errno;
			snprintf(msg, msglen, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		n += (size_t)k;
	}
	buf[n] = 0;
	*text = buf;
	*len = n;
	buf = NULL;
out:
	zt_secfile_free(buf, n);
	close(fd);
	return ret;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

int zt_secfile_next(char **cursor, int *lineno, char **key, char **val)
{
	char *line, *eq;

	while ((line = *cursor)) {
		*cursor = strchr(line, '\n');
		if (*cursor)
			*(*cursor)++ = 0;
		++*lineno;
		line = trim(line);
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq)
			return -EBADMSG;
		*eq = 0;
		*key = trim(line);
		*val = trim(eq + 1);
		return 1;
	}
	return 0;
}
