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

#endif
