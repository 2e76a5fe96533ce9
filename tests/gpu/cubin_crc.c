// SPDX-License-Identifier: GPL-2.0-or-later
/* Print a cubin's CRC as CUPTI computes it (cuptiGetCubinCrc, which works
 * without a GPU): the id PC samples carry. Linked against the real
 * libcupti; the GPU tests give it to the stand-in libcupti. */
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	CUpti_GetCubinCrcParams p = { .size = CUpti_GetCubinCrcParamsSize };
	FILE *f;
	char *buf;
	long n;
	CUptiResult r;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: cubin_crc FILE.cubin\n");
		return 1;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)n)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "cubin_crc: cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(f);
	p.cubin = buf;
	p.cubinSize = (size_t)n;
	r = cuptiGetCubinCrc(&p);
	if (r != CUPTI_SUCCESS) {
		fprintf(stderr, "cubin_crc: cuptiGetCubinCrc: error %d\n", (int)r);
		return 1;
	}
	printf("0x%llx\n", (unsigned long long)p.cubinCrc);
	free(buf);
	return 0;
}
