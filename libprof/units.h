/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sizes and durations as perf's options take them: 10M, 512K, 30s, 5m. */
#ifndef ZT_UNITS_H
#define ZT_UNITS_H

#include <stdint.h>

/* What zt_parse_size takes besides digits and a one-letter unit. */
enum {
	ZT_SIZE_NEED_UNIT = 1, /* a bare number is refused (-EINVAL), as --switch-output
				* tells a size from a time by it */
	ZT_SIZE_LONG_UNIT = 2, /* K, M, G and T may go on with B or iB ("512MB",
				* "1GiB"), as zt serve's options take them */
};

/* A byte count: digits, then an optional unit B, K, M, G or T (either
 * case; powers of 1024). 0 and sets *bytes, or -EINVAL (no digits, another
 * unit, trailing text) or -ERANGE (overflow). flags: ZT_SIZE_*. */
int zt_parse_size(const char *s, unsigned flags, uint64_t *bytes);

/* A duration: digits, then s, m, h or d (seconds, minutes, hours, days).
 * 0 and sets *ns, or -EINVAL or -ERANGE. */
int zt_parse_duration(const char *s, uint64_t *ns);

#endif
