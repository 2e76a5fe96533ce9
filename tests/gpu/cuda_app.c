// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A CUDA program for zt's GPU tests, written against the driver API: it
 * loads a cubin (nvcc -cubin of tests/gpu/kernels.cu), copies data to the
 * device, launches its kernels from two call paths a launch stack must
 * show (main -> run_frames -> launch_saxpy, main -> run_frames ->
 * step_physics -> launch_hot), copies back and burns some CPU. On a GPU it
 * runs as any CUDA program; here the tests run it on a stand-in libcuda.
 * Usage: cuda_app CUBIN [FRAMES]. Exits 2 when CUDA has no device.
 * CUDA_APP_KILL_AT=F: the process kills itself (SIGKILL) at frame F, a
 * crash that leaves no chance to flush anything.
 */
#include <cuda.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

static CUfunction k_saxpy, k_hot, k_scale;
static CUdeviceptr dx, dy;
static volatile double sink;

static void check(CUresult r, const char *what)
{
	const char *name = NULL;

	if (r == CUDA_SUCCESS)
		return;
	cuGetErrorName(r, &name);
	fprintf(stderr, "cuda_app: %s: %s (%d)\n", what, name ? name : "?", (int)r);
	exit(r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_STUB_LIBRARY ? 2 : 1);
}

__attribute__((noinline)) static void launch_saxpy(float a)
{
	int n = N;
	void *args[] = { &n, &a, &dx, &dy };

	check(cuLaunchKernel(k_saxpy, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL), "launch saxpy");
}

__attribute__((noinline)) static void launch_hot(int rounds)
{
	int n = N;
	void *args[] = { &dy, &n, &rounds };

	check(cuLaunchKernel(k_hot, N / 128, 1, 1, 128, 1, 1, 1024, NULL, args, NULL), "launch hot_loop");
}

__attribute__((noinline)) static void step_physics(int frame)
{
	launch_hot(16 + frame % 8);
	if (frame % 4 == 0) {
		int n = N;
		float f = 0.5f;
		void *args[] = { &dy, &n, &f };

		check(cuLaunchKernel(k_scale, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL),
		      "launch scale");
	}
}

__attribute__((noinline)) static void burn_cpu(void)
{
	double s = 0;

	for (int i = 0; i < 3000000; i++)
		s += (double)i * 0.5;
	sink = s;
}

__attribute__((noinline)) static void run_frames(int frames)
{
	const char *k = getenv("CUDA_APP_KILL_AT");
	int kill_at = k ? atoi(k) : -1;

	for (int f = 0; f < frames; f++) {
		if (f == kill_at)
			raise(SIGKILL);
		launch_saxpy(2.0f);
		step_physics(f);
		burn_cpu();
	}
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	buf = malloc((size_t)n);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

int main(int argc, char **argv)
{
	static float host[N];
	int frames = argc > 2 ? atoi(argv[2]) : 50, count = 0;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	size_t len;
	void *cubin;

	if (argc < 2) {
		fprintf(stderr, "usage: cuda_app CUBIN [FRAMES]\n");
		return 1;
	}
	cubin = read_file(argv[1], &len);
	if (!cubin) {
		fprintf(stderr, "cuda_app: cannot read %s\n", argv[1]);
		return 1;
	}
	check(cuInit(0), "cuInit");
	check(cuDeviceGetCount(&count), "cuDeviceGetCount");
	if (!count)
		check(CUDA_ERROR_NO_DEVICE, "no device");
	check(cuDeviceGet(&dev, 0), "cuDeviceGet");
	check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	check(cuModuleLoadData(&mod, cubin), "cuModuleLoadData");
	check(cuModuleGetFunction(&k_saxpy, mod, "saxpy"), "get saxpy");
	check(cuModuleGetFunction(&k_hot, mod, "hot_loop"), "get hot_loop");
	check(cuModuleGetFunction(&k_scale, mod, "_Z5scalePfif"), "get scale");
	check(cuMemAlloc(&dx, sizeof(host)), "cuMemAlloc");
	check(cuMemAlloc(&dy, sizeof(host)), "cuMemAlloc");
	for (int i = 0; i < N; i++)
		host[i] = (float)i;
	check(cuMemcpyHtoD(dx, host, sizeof(host)), "cuMemcpyHtoD");
	check(cuMemsetD32(dy, 0, N), "cuMemsetD32");
	run_frames(frames);
	check(cuCtxSynchronize(), "cuCtxSynchronize");
	check(cuMemcpyDtoH(host, dy, sizeof(host)), "cuMemcpyDtoH");
	cuMemFree(dx);
	cuMemFree(dy);
	cuModuleUnload(mod);
	cuDevicePrimaryCtxRelease(dev);
	free(cubin);
	printf("cuda_app: %d frames, y[1] = %g\n", frames, (double)host[1]);
	return 0;
}
