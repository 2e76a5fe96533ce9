// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: zt serve's body normalization (zt.data, raw and gzip pprof)
 * on arbitrary bytes, and every key it makes decoded again. */
#include <stddef.h>
#include <stdint.h>

#include "server/norm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zs_norm n;
	struct zs_fkey k;
	char msg[256];
	size_t i, len, sum = 0;

	zs_norm_init(&n);
	if (!zs_norm_body(&n, data, size, 1 << 24, msg, sizeof(msg))) {
		for (i = 0; i < n.nr_frames; i++) {
			const uint8_t *p = zs_norm_key(&n, i, &len);

			if (zs_fkey_decode(p, len, &k))
				__builtin_trap(); /* what norm encodes must decode */
			sum += k.kind;
		}
		for (i = 0; i < n.nr_sframes; i++)
			if (n.sframes[i] >= n.nr_frames)
				__builtin_trap();
	}
	zs_fkey_decode(data, size, &k);
	zs_norm_release(&n);
	return sum == 1;
}
