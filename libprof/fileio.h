/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whole-file reads, for /proc and /sys files whose size stat cannot tell. */
#ifndef ZT_FILEIO_H
#define ZT_FILEIO_H

#include <stddef.h>

/* Read all of path into a new NUL-terminated buffer (*data, *len without
 * the NUL; caller frees). Fails with -EFBIG past max bytes, or a negative
 * errno from open/read. */
int zt_read_file(const char *path, size_t max, char **data, size_t *len);

/* Read fd (borrowed) to its end into a new buffer (*data, *len; caller
 * frees), for pipes and files alike. -EFBIG past max bytes. */
int zt_read_fd(int fd, size_t max, unsigned char **data, size_t *len);

/* A whole file in memory for a parser: mapped when it is a regular file,
 * read when it is a pipe; data is "" for an empty file. */
struct zt_image {
	const unsigned char *data;
	size_t len;
	void *map;           /* owned mapping, or NULL */
	unsigned char *heap; /* owned buffer, or NULL */
	int is_dir;          /* path is a directory (nothing opened) */
};

/* Open path as an image. Returns 0, or a negative errno with what failed
 * named in what ("open", "read", "map"). Release with zt_image_close. */
int zt_image_open(const char *path, struct zt_image *img, const char **what);
void zt_image_close(struct zt_image *img);

#endif
