// SPDX-License-Identifier: GPL-2.0-or-later
// A CUDA runtime-API program, as nvcc builds them (cudart linked in): zt's
// tests run it where there is no GPU driver, where it must fail cleanly
// and zt record --gpu must still record its CPU side.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}

__attribute__((noinline)) static double cpu_work(void)
{
	volatile double s = 0;

	for (int i = 0; i < 20000000; i++)
		s = s + i * 0.5;
	return s;
}

int main(void)
{
	const int n = 1 << 16;
	float *a, *b, *c;
	int count = 0;
	cudaError_t e;

	printf("vecadd: cpu %g\n", cpu_work());
	e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || !count) {
		fprintf(stderr, "vecadd: no CUDA device: %s\n", cudaGetErrorString(e));
		return 2;
	}
	cudaMallocManaged(&a, n * sizeof(float));
	cudaMallocManaged(&b, n * sizeof(float));
	cudaMallocManaged(&c, n * sizeof(float));
	for (int i = 0; i < n; i++)
		a[i] = b[i] = (float)i;
	vecadd<<<n / 256, 256>>>(a, b, c, n);
	e = cudaDeviceSynchronize();
	printf("vecadd: %s, c[1] = %g\n", cudaGetErrorString(e), (double)c[1]);
	return e == cudaSuccess ? 0 : 1;
}
