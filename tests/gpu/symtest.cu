// SPDX-License-Identifier: GPL-2.0-or-later
// Kernels for zt's cubin symbolizer tests (symbolizer/cubin.c): several
// kernels in one file, a __noinline__ callee, a header-inlined function,
// a template instantiated twice, C++ names. Lines the tests look for carry
// a marker comment "L:<name>": keep one marker per line.
#include "symtest.cuh"

__device__ __noinline__ float st_callee(float x, int rounds)
{
	for (int i = 0; i < rounds; i++)
		x = x * 1.5f + 0.25f; // L:callee
	return x;
}

extern "C" __global__ void st_first(float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = y[i] * 2.0f + 1.0f; // L:first
}

extern "C" __global__ void st_second(float *y, int n, int rounds)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = st_callee(y[i], rounds); // L:second_call
}

extern "C" __global__ void st_inl(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = st_mix(y[i], x[i]); // L:inl_call
}

template <typename T> __global__ void st_tmpl(T *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = y[i] * (T)3 + (T)1; // L:tmpl
}
template __global__ void st_tmpl<float>(float *, int);
template __global__ void st_tmpl<int>(int *, int);

namespace st {
struct Box {
	__device__ static float twice(float v) { return st_callee(v, 2) * 2.0f; } // L:twice
};
__global__ void ns_kernel(float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = Box::twice(y[i]); // L:ns_call
}
} // namespace st
