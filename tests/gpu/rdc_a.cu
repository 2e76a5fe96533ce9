// SPDX-License-Identifier: GPL-2.0-or-later
// Separate compilation (-rdc=true, device-linked by nvlink) for zt's cubin
// symbolizer tests: a kernel here calls a device function of rdc_b.cu.
#include "symtest.cuh"

extern __device__ float rdc_scale(float x, int rounds);

extern "C" __global__ void rdc_kernel_a(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = rdc_scale(y[i], n) + st_mix(y[i], x[i]); // L:rdc_a_call
}
