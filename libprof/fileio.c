// SPDX-License-Identifier: GPL-2.0-or-later
/* Whole-file reads. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/fileio.h"

int zt_read_file(const char *path, size_t max, char **data, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t k;

		/* /proc files come a page per read: grow well ahead */
		if (n + 65536 + 1 > cap && ZT_GROW(buf, cap, n + 65536 + 1)) {
			err = -ENOMEM;
			goto out;
		}
		k = read(fd, buf + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			err = -errno;
			goto out;
		}
		if (!k)
			break;
		n += (size_t)k;
		if (n > max) {
			err = -EFBIG;
			goto out;
		}
	}
	buf[n] = 0;
	*data = buf;
	*len = n;
	buf = NULL;
out:
	close(fd);
	free(buf);
	return err;
}
