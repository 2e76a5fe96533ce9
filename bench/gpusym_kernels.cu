// SPDX-License-Identifier: GPL-2.0-or-later
// bench/gpusym.sh's kernels: built 100 times with -DV=0..99 into distinct cubins
#ifndef V
#define V 0
#endif
#define K(x) ((x) * (1.0f + V * 0.001f))

static __device__ __forceinline__ float mix(float a, float b)
{
	return a * K(0.5f) + b * 0.25f;
}

static __device__ __forceinline__ float mix3(float a, float b, float c)
{
	return mix(a, b) + mix(b, c);
}

__device__ __noinline__ float slow_path(float x, int n)
{
	for (int i = 0; i < n; i++)
		x = mix(x, x * K(1.0001f)) + 0.5f;
	return x;
}

extern "C" __global__ void k_saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i] + K(1.0f);
}

extern "C" __global__ void k_stencil(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i > 0 && i + 1 < n)
		y[i] = mix3(x[i - 1], x[i], x[i + 1]);
}

extern "C" __global__ void k_loop(float *y, int n, int rounds)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = slow_path(y[i], rounds + V);
}

__global__ void k_reduce(const float *x, float *out, int n)
{
	__shared__ float s[256];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;

	s[t] = i < n ? mix(x[i], K(2.0f)) : 0.0f;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k >>= 1) {
		if (t < k)
			s[t] += s[t + k];
		__syncthreads();
	}
	if (!t)
		atomicAdd(out, s[0]);
}

template <int U> __global__ void k_unroll(float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? y[i] : 0.0f;

#pragma unroll
	for (int k = 0; k < U; k++)
		v = mix3(v, v * K(0.9f), v + k);
	if (i < n)
		y[i] = v;
}
template __global__ void k_unroll<4 + V % 13>(float *, int);
template __global__ void k_unroll<32 + V % 7>(float *, int);
