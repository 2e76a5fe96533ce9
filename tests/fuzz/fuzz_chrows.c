/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: arbitrary bytes as ClickHouse's RowBinary answers to zt
 * serve's queries (server/chstore.h): catalogue rows as a list and as one
 * profile, merged (stack, count, weight) rows, stacks and frames. The
 * first byte picks the decoder (all of them when it is 0xff). Seeds
 * (corpus/chrows/): answers of a ClickHouse 18.16 server to those queries
 * over two zt.data recordings, each behind its decoder's byte.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "server/chstore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_stack(void *ctx, uint64_t stack, const uint64_t *frames, size_t nr)
{
	uint64_t *sum = ctx;
	size_t i;

	for (i = 0; i < nr; i++)
		*sum += frames[i] ^ stack;
	return 0;
}

static int on_frame(void *ctx, uint64_t frame, const uint8_t *key, size_t len)
{
	uint64_t *sum = ctx;

	*sum += frame + (len ? key[0] + key[len - 1] : 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zs_ch_row *rows;
	struct zbuf out;
	uint64_t sum = 0;
	size_t nr;
	uint8_t which;

	if (!size)
		return 0;
	which = data[0];
	data++, size--;
	zbuf_init(&out);
	if (which == 0 || which == 0xff)
		zs_ch_decode_list(data, size, 1, &out);
	zbuf_reset(&out);
	if (which == 1 || which == 0xff)
		zs_ch_decode_list(data, size, 0, &out);
	zbuf_release(&out);
	if ((which == 2 || which == 0xff) && !zs_ch_decode_rows(data, size, &rows, &nr)) {
		if (nr)
			sum += rows[nr - 1].weight;
		free(rows);
	}
	if (which == 3 || which == 0xff)
		zs_ch_decode_stacks(data, size, on_stack, &sum);
	if (which == 4 || which == 0xff)
		zs_ch_decode_frames(data, size, on_frame, &sum);
	return (int)(sum & 0); /* libFuzzer wants 0 */
}
