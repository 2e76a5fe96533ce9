// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the zt.data reader on arbitrary bytes, both passes (must not
 * crash or leak), as they are and with every chunk checksum made right. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/ztdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touch everything a snapshot points to, so the sanitizers see a bad one. */
static int ustack(void *arg, const struct prof_ustack *u)
{
	uint64_t *sum = arg;
	size_t i;

	for (i = 0; i < PROF_UREGS; i++)
		*sum += u->regs[i];
	for (i = 0; i < u->len; i++)
		*sum += u->data[i];
	*sum += u->sample;
	return 0;
}

static uint64_t read_both(const uint8_t *data, size_t size)
{
	struct ztdata_read_info info;
	struct profile p;
	uint64_t sum = 0;

	profile_init(&p);
	ztdata_read_mem(data, size, &p, &info);
	profile_release(&p);
	ztdata_read_ustacks_mem(data, size, ustack, &sum, &info);
	return sum;
}

/* Make every chunk's CRC-32 right (zt-data(5)), so that a mutation reaches
 * the payload decoders instead of stopping at the checksum. */
static void fix_checksums(uint8_t *d, size_t n)
{
	uint32_t hsize, stored, crc;
	size_t off;

	if (n < 16)
		return;
	memcpy(&hsize, d + 12, 4); /* little-endian hosts only: fine for fuzzing */
	for (off = hsize; hsize >= 16 && off <= n && n - off >= 24; off += 24 + (size_t)stored) {
		memcpy(&stored, d + off + 12, 4);
		if (stored > n - off - 24)
			break;
		crc = (uint32_t)crc32(crc32(0, d + off, 20), d + off + 24, stored);
		memcpy(d + off + 20, &crc, 4);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t sum = read_both(data, size);
	uint8_t *m = malloc(size ? size : 1);

	if (m) {
		memcpy(m, data, size);
		fix_checksums(m, size);
		sum += read_both(m, size);
		free(m);
	}
	return sum == 1; /* keeps sum alive; always 0 in practice */
}
