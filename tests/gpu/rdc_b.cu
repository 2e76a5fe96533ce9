// SPDX-License-Identifier: GPL-2.0-or-later
// The other translation unit of the device-linked cubin (see rdc_a.cu).

__device__ float rdc_scale(float x, int rounds)
{
	for (int i = 0; i < rounds; i++)
		x = x * 0.75f + 2.0f; // L:rdc_scale
	return x;
}

__device__ float rdc_unused(float x)
{
	return x * 3.0f; // never called: nvlink may drop it
}

extern "C" __global__ void rdc_kernel_b(float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = rdc_scale(y[i], 3) * 0.5f; // L:rdc_b
}
