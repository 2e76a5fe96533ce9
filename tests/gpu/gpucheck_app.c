// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CUDA program of scripts/gpu-check.sh, written against the driver API
 * so that the same binary runs on a real GPU and on the stand-in libcuda
 * of the tests (tests/gpu/standin_cuda.c). It loads a cubin of
 * tests/gpu/gpucheck.cu, copies data to the device, launches each kernel
 * once to warm up and then BATCH times between two CUDA events, from known
 * call paths (main -> run_saxpy -> launch_saxpy, main -> run_hot ->
 * launch_hot, main -> run_scale -> launch_scale), copies back, and prints
 * what it did in lines the script parses:
 *   GC device name=... driver=N
 *   GC kernel name=K launches=L batch=B grid=X,Y,Z block=X,Y,Z smem=S event_ms=T
 *   GC memcpy kind=HtoD|DtoH bytes=N
 *   GC memset bytes=N
 * Usage: gpucheck_app CUBIN [N [HOT_ROUNDS [BATCH]]]. Exits 2 when CUDA has
 * no device.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CUfunction k_saxpy, k_hot, k_scale;
static CUdeviceptr dx, dy;
static int n = 1 << 20, rounds = 20000, batch = 20;
static volatile double sink;

static void check(CUresult r, const char *what)
{
	const char *name = NULL;

	if (r == CUDA_SUCCESS)
		return;
	cuGetErrorName(r, &name);
	fprintf(stderr, "gpucheck_app: %s: %s (%d)\n", what, name ? name : "?", (int)r);
	exit(r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_STUB_LIBRARY ? 2 : 1);
}

__attribute__((noinline)) static void launch_saxpy(float a)
{
	void *args[] = { &n, &a, &dx, &dy };

	check(cuLaunchKernel(k_saxpy, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL),
	      "launch gc_saxpy");
}

__attribute__((noinline)) static void launch_hot(void)
{
	void *args[] = { &dy, &n, &rounds };

	/* 8 blocks of 256 threads per SM of an H200 (132 SMs) */
	check(cuLaunchKernel(k_hot, 1056, 1, 1, 256, 1, 1, 0, NULL, args, NULL), "launch gc_hot");
}

__attribute__((noinline)) static void launch_scale(float f)
{
	void *args[] = { &dy, &n, &f };

	check(cuLaunchKernel(k_scale, (unsigned)(n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL),
	      "launch gc_scale");
}

__attribute__((noinline)) static double cpu_work(int iters)
{
	double s = 0;

	for (int i = 0; i < iters; i++)
		s += (double)i * 0.5;
	sink = s;
	return s;
}

/* one warm-up launch, then batch launches between two events */
static void timed(const char *name, void (*launch)(void), const char *grid, const char *block)
{
	CUevent e0, e1;
	float ms = 0;

	launch();
	check(cuCtxSynchronize(), "synchronize");
	check(cuEventCreate(&e0, CU_EVENT_DEFAULT), "event create");
	check(cuEventCreate(&e1, CU_EVENT_DEFAULT), "event create");
	check(cuEventRecord(e0, NULL), "event record");
	for (int i = 0; i < batch; i++)
		launch();
	check(cuEventRecord(e1, NULL), "event record");
	check(cuEventSynchronize(e1), "event synchronize");
	check(cuEventElapsedTime(&ms, e0, e1), "event elapsed time");
	cuEventDestroy(e0);
	cuEventDestroy(e1);
	printf("GC kernel name=%s launches=%d batch=%d grid=%s block=%s smem=0 event_ms=%.6f\n", name,
	       batch + 1, batch, grid, block, (double)ms);
	cpu_work(2000000);
}

static void saxpy2(void)
{
	launch_saxpy(2.0f);
}

static void scale_half(void)
{
	launch_scale(0.5f);
}

__attribute__((noinline)) static void run_saxpy(void)
{
	char grid[32];

	snprintf(grid, sizeof(grid), "%d,1,1", (n + 255) / 256);
	timed("gc_saxpy", saxpy2, grid, "256,1,1");
}

__attribute__((noinline)) static void run_hot(void)
{
	timed("gc_hot", launch_hot, "1056,1,1", "256,1,1");
}

__attribute__((noinline)) static void run_scale(void)
{
	char grid[32];

	snprintf(grid, sizeof(grid), "%d,1,1", (n + 127) / 128);
	timed("gc_scale", scale_half, grid, "128,1,1");
}

static void *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	long sz;
	char *buf;

	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)sz);
	if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fprintf(stderr, "gpucheck_app: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	char name[256] = "?";
	int drv = 0;
	float *h;
	void *image;

	if (argc < 2) {
		fprintf(stderr, "usage: gpucheck_app CUBIN [N [HOT_ROUNDS [BATCH]]]\n");
		return 1;
	}
	if (argc > 2)
		n = atoi(argv[2]);
	if (argc > 3)
		rounds = atoi(argv[3]);
	if (argc > 4)
		batch = atoi(argv[4]);
	if (n < 256 || rounds < 1 || batch < 1) {
		fprintf(stderr, "gpucheck_app: bad N, HOT_ROUNDS or BATCH\n");
		return 1;
	}
	image = read_file(argv[1]);
	cpu_work(5000000);
	check(cuInit(0), "cuInit");
	check(cuDeviceGet(&dev, 0), "cuDeviceGet");
	cuDeviceGetName(name, sizeof(name), dev);
	cuDriverGetVersion(&drv);
	printf("GC device name=%s driver=%d\n", name, drv);
	check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	check(cuModuleLoadData(&mod, image), "cuModuleLoadData");
	check(cuModuleGetFunction(&k_saxpy, mod, "gc_saxpy"), "get gc_saxpy");
	check(cuModuleGetFunction(&k_hot, mod, "gc_hot"), "get gc_hot");
	check(cuModuleGetFunction(&k_scale, mod, "_Z8gc_scalePfif"), "get gc_scale");
	check(cuMemAlloc(&dx, (size_t)n * sizeof(float)), "cuMemAlloc");
	check(cuMemAlloc(&dy, (size_t)n * sizeof(float)), "cuMemAlloc");
	h = malloc((size_t)n * sizeof(float));
	if (!h)
		return 1;
	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 1000) * 0.001f;
	check(cuMemcpyHtoD(dx, h, (size_t)n * sizeof(float)), "copy to the device");
	printf("GC memcpy kind=HtoD bytes=%zu\n", (size_t)n * sizeof(float));
	check(cuMemsetD32(dy, 0, (size_t)n), "memset");
	printf("GC memset bytes=%zu\n", (size_t)n * sizeof(float));
	run_saxpy();
	run_hot();
	run_scale();
	check(cuMemcpyDtoH(h, dy, (size_t)n * sizeof(float)), "copy from the device");
	printf("GC memcpy kind=DtoH bytes=%zu\n", (size_t)n * sizeof(float));
	check(cuCtxSynchronize(), "synchronize");
	printf("GC result y[1]=%g\n", (double)h[1]);
	cuMemFree(dx);
	cuMemFree(dy);
	cuModuleUnload(mod);
	cuDevicePrimaryCtxRelease(dev);
	free(h);
	free(image);
	return 0;
}
