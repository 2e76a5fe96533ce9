// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the reader of libztcupti.so's files (formats/ztgpu.h) on
 * arbitrary bytes, as they are and with every frame's CRC made right (so
 * that mutations reach the frame decoders). Must not crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cupti/wire.h"
#include "formats/ztgpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touch what the reader produced, so the sanitizers see a bad record. */
static uint64_t decode(const uint8_t *data, size_t size)
{
	struct prof_gpu *g = prof_gpu_new();
	struct profile st;
	uint64_t sum = 0;
	char msg[256];
	size_t i;

	if (!g)
		return 0;
	profile_init(&st);
	ztgpu_decode_mem(data, size, g, &st, NULL, msg, sizeof(msg));
	for (i = 0; i < g->nr_kernels; i++)
		sum += strlen(prof_gpu_str(g, g->kernels[i].name)) + g->kernels[i].end;
	for (i = 0; i < g->nr_launches; i++)
		if (g->launches[i].stack != PROF_GPU_NO_STACK)
			sum += st.stacks[g->launches[i].stack].nu +
			       profile_stack_ips(&st, g->launches[i].stack)[0];
	for (i = 0; i < g->nr_cubins; i++)
		sum += g->cubins[i].len ? g->cubins[i].data[g->cubins[i].len - 1] : 0;
	for (i = 0; i < g->nr_pcs; i++)
		sum += strlen(prof_gpu_str(g, g->pcs[i].function));
	for (i = 0; i < g->nr_infos; i++)
		sum += strlen(prof_gpu_str(g, g->infos[i].value));
	profile_release(&st);
	prof_gpu_free(g);
	return sum;
}

static void fix_crcs(uint8_t *d, size_t n)
{
	struct zg_frame_hdr h;
	uint32_t hsize;
	size_t off;

	if (n < sizeof(struct zg_file_hdr))
		return;
	memcpy(&hsize, d + 12, 4);
	for (off = hsize; hsize >= 32 && off <= n && n - off >= sizeof(h);
	     off += sizeof(h) + h.len) {
		memcpy(&h, d + off, sizeof(h));
		if (h.len > n - off - sizeof(h))
			break;
		h.crc = (uint32_t)crc32(0, d + off + sizeof(h), h.len);
		memcpy(d + off, &h, sizeof(h));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t sum = decode(data, size);
	uint8_t *m = malloc(size ? size : 1);

	if (m) {
		memcpy(m, data, size);
		fix_crcs(m, size);
		sum += decode(m, size);
		free(m);
	}
	return sum == 1; /* keeps sum alive; always 0 in practice */
}
