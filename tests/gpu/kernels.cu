// SPDX-License-Identifier: GPL-2.0-or-later
// Kernels for zt's GPU tests: built with nvcc -cubin -lineinfo into a real
// cubin that tests/gpu/cuda_app.c loads through the driver API.

// a device function kept out of line: it lives inside its caller kernel's section
__device__ __noinline__ float shade(float x, int rounds)
{
	for (int i = 0; i < rounds; i++)
		x = x * 1.0001f + 0.5f;
	return x;
}

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i];
}

extern "C" __global__ void hot_loop(float *y, int n, int rounds)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = shade(y[i], rounds);
}

// a C++ name, mangled in the cubin: _Z5scalePfif
__global__ void scale(float *y, int n, float f)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] *= f;
}
