// SPDX-License-Identifier: GPL-2.0-or-later
/* Growth of heap arrays, checked for overflow. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "libprof/array.h"

int zt_grow(void **arr, size_t *cap, size_t need, size_t sz)
{
	size_t ncap = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / sz)
		return -ENOMEM;
	n = realloc(*arr, ncap * sz);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}
