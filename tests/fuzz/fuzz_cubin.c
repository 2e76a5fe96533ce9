/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: arbitrary bytes as a cubin (cubin_open, then every function
 * resolved at PCs across it, then the saved image loaded back and asked
 * the same) and as a saved image (cubin_load). Seeds (corpus/cubin/): small
 * nvcc cubins with line tables (sm_75, REL; sm_90, RELA), built from
 *   __device__ __forceinline__ float sq(float v) { return v * v + 1.0f; }
 *   __device__ __noinline__ float slow(float x, int n) { ... }
 *   extern "C" __global__ void ka(float *y, int n) { ... sq(y[i]) ... }
 *   extern "C" __global__ void kb(float *y, int n) { ... slow(y[i], n) ... }
 * with nvcc -cubin -lineinfo -arch=sm_75 (sm_90); a device-linked one,
 * seed-rdc-sm90.cubin, nvlink -arch=sm_90 of two units built -rdc=true
 * -cubin -lineinfo:
 *   h.cuh: __device__ __forceinline__ float shared_fn(float a) { ... }
 *   c1.cu: only1() inlined, kernel k1(float *y): only1(shared_fn(y[...]))
 *   c2.cu: only2() inlined, unused2() (dropped by nvlink: an orphan
 *          sequence), kernel k2(float *y): shared_fn(only2(y[...]))
 * and a saved image (seed-sm75.image, cubin_save of seed-sm75.cubin).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/cubin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ctx {
	const struct cubin *a, *b;
};

static int same(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

static int each(void *p, const char *name, uint64_t size, int kernel)
{
	const struct ctx *x = p;
	uint64_t step = size / 64 + 16, pc;

	for (pc = 0; pc < size + 32; pc += step) {
		struct cubin_frame f[8], g[8];
		int n = cubin_resolve(x->a, name, pc, f, 8), i;

		if (n < 0 || n > 8)
			abort();
		for (i = 0; i < n; i++) {
			/* readable strings (a forged image may hold any line or name) */
			if (!f[i].func || strlen(f[i].func) > size + (1u << 20) ||
			    (f[i].file && strlen(f[i].file) > size + (1u << 20)) ||
			    (f[i].dir && strlen(f[i].dir) > size + (1u << 20)) || f[i].inlined > 1)
				abort();
		}
		if (x->b) {
			if (cubin_resolve(x->b, name, pc, g, 8) != n)
				abort();
			for (i = 0; i < n; i++)
				if (strcmp(f[i].func, g[i].func) || !same(f[i].file, g[i].file) ||
				    !same(f[i].dir, g[i].dir) || f[i].line != g[i].line ||
				    f[i].inlined != g[i].inlined)
					abort();
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cubin *c = NULL, *l = NULL;
	uint8_t *img = NULL;
	size_t len = 0;

	if (!cubin_load(data, size, &l)) {
		struct ctx x = {l, NULL};

		cubin_functions(l, each, &x);
		cubin_free(l);
		l = NULL;
	}
	if (cubin_open(data, size, &c))
		return 0;
	if (!cubin_save(c, &img, &len)) {
		if (cubin_load(img, len, &l))
			abort(); /* an image of ours is always read back */
	}
	{
		struct ctx x = {c, l};

		cubin_functions(c, each, &x);
	}
	cubin_has_lines(c);
	cubin_free(l);
	cubin_free(c);
	free(img);
	return 0;
}
