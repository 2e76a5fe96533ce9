// SPDX-License-Identifier: GPL-2.0-or-later
// Kernels for scripts/gpu-check.sh (the check of zt record --gpu on a real
// GPU): nvcc -cubin -lineinfo -arch=sm_90, loaded by gpucheck_app.c. The
// script finds the hot kernel's hot line by its marker comment below.

extern "C" __global__ void gc_saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i];
}

// a chain of dependent multiply-adds: nearly all of its time on one line
extern "C" __global__ void gc_hot(float *y, int n, int rounds)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float x = y[i % n], z = 0.25f;

	for (int r = 0; r < rounds; r++) {
		x = x * 0.9999f + z; z = z * 0.9998f + x * 0.0001f; x = x * z + 0.5f; // GC_HOT_LINE
	}
	if (i < n)
		y[i] = x + z;
}

// a C++ name, mangled in the cubin: _Z8gc_scalePfif
__global__ void gc_scale(float *y, int n, float f)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] *= f;
}
