/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Little-endian integers of n bytes (1 to 8) in byte buffers: the on-disk
 * formats' fields, whatever the host's order. */
#ifndef ZT_LE_H
#define ZT_LE_H

#include <stdint.h>

static inline void zt_put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t zt_get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#endif
