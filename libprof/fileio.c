// SPDX-License-Identifier: GPL-2.0-or-later
/* Whole-file reads. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/fileio.h"

/* open(path) for reading, never blocking on a FIFO nor taking a terminal,
 * and the fstat of that descriptor: a regular file, or -EISDIR/-ESPIPE. */
static int open_regular(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return S_ISDIR(st->st_mode) ? -EISDIR : -ESPIPE;
	}
	return fd;
}

int zt_read_file(const char *path, size_t max, char **data, size_t *len)
{
	size_t cap = 0, n = 0;
	struct stat st;
	char *buf = NULL;
	int fd = open_regular(path, &st), err = 0;

	if (fd < 0)
		return fd;
	/* a regular file says its size: one allocation, no copies */
	if (st.st_size > 0 && (uint64_t)st.st_size <= max &&
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

int zt_read_fd(int fd, size_t max, unsigned char **data, size_t *len)
{
	unsigned char *b = NULL;
	size_t n = 0, cap = 0;

	for (;;) {
		ssize_t k;

		/* one byte past max: a stream of exactly max bytes still fits */
		if (n == cap &&
		    ZT_GROW(b, cap, cap ? (cap * 2 < max + 1 ? cap * 2 : max + 1) : 1 << 20)) {
			free(b);
			return -ENOMEM;
		}
		k = read(fd, b + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			k = -errno;
			free(b);
			return (int)k;
		}
		if (k == 0)
			break;
		n += (size_t)k;
		if (n > max) {
			free(b);
			return -EFBIG;
		}
	}
	*data = b;
	*len = n;
	return 0;
}

int zt_image_open(const char *path, struct zt_image *img, const char **what)
{
	struct stat st;
	int fd, ret = 0;

	memset(img, 0, sizeof(*img));
	img->data = (const unsigned char *)"";
	*what = "open";
	fd = open_regular(path, &st);
	if (fd == -EISDIR) {
		img->is_dir = 1;
		return 0;
	}
	if (fd == -ESPIPE)
		*what = "read";
	if (fd < 0)
		return fd;
	if (!st.st_size)
		goto out;
	*what = "map";
	if ((uint64_t)st.st_size > SIZE_MAX) {
		ret = -EFBIG;
		goto out;
	}
	img->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img->map == MAP_FAILED) {
		img->map = NULL;
		ret = -errno;
		goto out;
	}
	img->len = (size_t)st.st_size;
	img->data = img->map;
	madvise(img->map, img->len, MADV_SEQUENTIAL);
out:
	close(fd);
	return ret;
}

int zt_image_read_fd(int fd, struct zt_image *img)
{
	unsigned char *b;
	size_t n;
	int ret;

	memset(img, 0, sizeof(*img));
	img->data = (const unsigned char *)"";
	ret = zt_read_fd(fd, SIZE_MAX / 2, &b, &n);
	if (ret)
		return ret;
	img->heap = b;
	img->len = n;
	if (n)
		img->data = b;
	return 0;
}

void zt_image_close(struct zt_image *img)
{
	if (img->map)
		munmap(img->map, img->len);
	free(img->heap);
	memset(img, 0, sizeof(*img));
}

int zt_write_all(int fd, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n) {
		ssize_t w = write(fd, b, n > SSIZE_MAX ? SSIZE_MAX : n);

		if (w < 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				poll(&pfd, 1, -1);
				continue;
			}
			return -errno;
		}
		if (w == 0)
			return -EIO;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}
