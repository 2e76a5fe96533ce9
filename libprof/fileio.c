// SPDX-License-Identifier: GPL-2.0-or-later
/* Whole-file reads. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/fileio.h"

int zt_read_file(const char *path, size_t max, char **data, size_t *len)
{
	size_t cap = 0, n = 0;
	struct stat st;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	/* a regular file says its size: one allocation, no copies */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= max &&
	    ZT_GROW(buf, cap, (size_t)st.st_size + 1)) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t k;

		/* /proc files come a page per read: grow well ahead */
		if (n + 1 >= cap && ZT_GROW(buf, cap, n + 65536 + 1)) {
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
