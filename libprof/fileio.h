/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whole-file reads, bounded: regular files (and /proc and /sys files, whose
 * size stat cannot tell), and streams up to a limit. */
#ifndef ZT_FILEIO_H
#define ZT_FILEIO_H

#include <stddef.h>

/* Files are opened with O_NONBLOCK (a FIFO without a writer does not hang
 * the open) and O_NOCTTY, and checked with fstat on the descriptor that is
 * then read: a path swapped for something else after a check is still
 * caught. A directory fails with -EISDIR; anything else that is not a
 * regular file (a pipe, a character device, a socket: nothing whose size
 * says when it ends) with -ESPIPE. */

/* Read all of path, a regular file, into a new NUL-terminated buffer
 * (*data, *len without the NUL; caller frees). /proc and /sys files (regular,
 * of size 0) are read to their end. Fails with -EFBIG past max bytes,
 * -EISDIR, -ESPIPE, or a negative errno from open/read. */
int zt_read_file(const char *path, size_t max, char **data, size_t *len);

/* Read fd (borrowed) to its end into a new buffer (*data, *len; caller
 * frees), for pipes and files alike. -EFBIG past max bytes: a stream that
 * never ends (/dev/zero, yes) stops there. */
int zt_read_fd(int fd, size_t max, unsigned char **data, size_t *len);

/* A whole regular file in memory for a parser, mapped; data is "" for an
 * empty file. */
struct zt_image {
	const unsigned char *data;
	size_t len;
	void *map;  /* owned mapping, or NULL */
	void *heap; /* owned buffer (a stream read whole), or NULL */
	int is_dir; /* path is a directory (nothing mapped) */
};

/* Open path as an image. Returns 0 (with is_dir set for a directory), or a
 * negative errno with what failed named in what ("open", "map"): -ESPIPE
 * when path is not a regular file (what: "read"). Release with
 * zt_image_close. */
int zt_image_open(const char *path, struct zt_image *img, const char **what);
/* A stream (a pipe: `zt record -o - | zt report -i -`) read to its end into
 * an image. fd is borrowed. 0, or a negative errno. */
int zt_image_read_fd(int fd, struct zt_image *img);
void zt_image_close(struct zt_image *img);

/* Write all n bytes of p to fd, through short writes, EINTR and (a
 * non-blocking pipe) EAGAIN, which waits until fd takes more. 0, or a
 * negative errno (-EIO when fd takes nothing). */
int zt_write_all(int fd, const void *p, size_t n);

#endif
