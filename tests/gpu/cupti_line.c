// SPDX-License-Identifier: GPL-2.0-or-later
/* The source line CUPTI gives for a PC of a cubin's kernel
 * (cuptiGetSassToSourceCorrelation, which works without a GPU): the oracle
 * the GPU symbolization tests and bench/gpusym.sh compare zt against.
 *   cupti_line FILE.cubin KERNEL+0xOFFSET...   (or one per line on stdin)
 * prints "dir/file:line" for each ("??:0" where CUPTI has no answer). */
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void one(const void *cubin, size_t size, const char *arg)
{
	CUpti_GetSassToSourceCorrelationParams p = {
		.size = CUpti_GetSassToSourceCorrelationParamsSize};
	char name[4096];
	const char *plus = strrchr(arg, '+');
	size_t n = plus ? (size_t)(plus - arg) : 0;
	char *end;

	if (!plus || !n || n >= sizeof(name)) {
		puts("??:0");
		return;
	}
	memcpy(name, arg, n);
	name[n] = 0;
	p.cubin = cubin;
	p.cubinSize = size;
	p.functionName = name;
	p.pcOffset = strtoull(plus + 1, &end, 16);
	if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS || !p.fileName) {
		puts("??:0");
	} else if (p.dirName && *p.dirName && p.fileName[0] != '/') {
		printf("%s/%s:%u\n", p.dirName, p.fileName, p.lineNumber);
	} else {
		printf("%s:%u\n", p.fileName, p.lineNumber);
	}
	free(p.fileName);
	free(p.dirName);
}

int main(int argc, char **argv)
{
	char line[4096];
	FILE *f;
	char *buf;
	long n;

	if (argc < 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: cupti_line FILE.cubin [KERNEL+0xOFFSET...]\n");
		return 1;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)n)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "cupti_line: cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(f);
	if (argc > 2) {
		for (int i = 2; i < argc; i++)
			one(buf, (size_t)n, argv[i]);
	} else {
		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\r\n")] = 0;
			one(buf, (size_t)n, line);
		}
	}
	free(buf);
	return 0;
}
