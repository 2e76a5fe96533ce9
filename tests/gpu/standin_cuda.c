// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A stand-in libcuda.so.1 for zt's GPU tests on machines without a GPU:
 * the driver API calls tests/gpu/cuda_app.c makes, with one pretend
 * device. As the real driver does, cuInit loads the library named by
 * CUDA_INJECTION64_PATH and calls its InitializeInjection; then each call
 * drives the stand-in libcupti (standin_cupti.c, which the injected
 * library loaded) through its zt_standin_* functions: context and module
 * callbacks, API enter/exit callbacks with correlation ids, kernel and
 * copy activity, PC samples. Without an injection library it just runs.
 * Device memory is host memory.
 */
#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <cupti_activity.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

struct fn {
	char name[128];
};

static int inited;
static int ctx_storage;
static CUcontext the_ctx = (CUcontext)&ctx_storage;
static uint32_t next_module = 1;
static uint64_t gpu_ns; /* the stand-in GPU's clock: the kernels' durations */

static void (*h_context)(CUcontext, int);
static void (*h_module)(CUcontext, uint32_t, const void *, size_t);
static uint32_t (*h_api)(int, int, const char *, CUcontext, int, uint32_t);
static void (*h_kernel)(uint32_t, const char *, const unsigned *, const unsigned *, unsigned, uint64_t);
static void (*h_memop)(uint32_t, int, int, uint64_t, uint64_t);
static void (*h_sync)(void);

static void find_hooks(void)
{
	h_context = (void (*)(CUcontext, int))dlsym(RTLD_DEFAULT, "zt_standin_context");
	h_module = (void (*)(CUcontext, uint32_t, const void *, size_t))dlsym(RTLD_DEFAULT,
									   "zt_standin_module");
	h_api = (uint32_t(*)(int, int, const char *, CUcontext, int, uint32_t))dlsym(RTLD_DEFAULT,
										      "zt_standin_api");
	h_kernel = (void (*)(uint32_t, const char *, const unsigned *, const unsigned *, unsigned,
			     uint64_t))dlsym(RTLD_DEFAULT, "zt_standin_kernel");
	h_memop = (void (*)(uint32_t, int, int, uint64_t, uint64_t))dlsym(RTLD_DEFAULT, "zt_standin_memop");
	h_sync = (void (*)(void))dlsym(RTLD_DEFAULT, "zt_standin_sync");
}

static uint32_t enter(int cbid, const char *fn)
{
	return h_api ? h_api(CUPTI_CB_DOMAIN_DRIVER_API, cbid, fn, the_ctx, 0, 0) : 0;
}

static void leave(int cbid, const char *fn, uint32_t corr)
{
	if (h_api)
		h_api(CUPTI_CB_DOMAIN_DRIVER_API, cbid, fn, the_ctx, 1, corr);
}

EXPORT CUresult cuInit(unsigned int flags)
{
	const char *inj = getenv("CUDA_INJECTION64_PATH");

	if (inited)
		return CUDA_SUCCESS;
	inited = 1;
	if (inj && *inj) {
		void *h = dlopen(inj, RTLD_NOW | RTLD_GLOBAL);
		int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;

		if (!init)
			fprintf(stderr, "standin libcuda: cannot load %s: %s\n", inj, dlerror());
		else
			init();
		find_hooks();
	}
	return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorName(CUresult r, const char **s)
{
	*s = r == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_UNKNOWN";
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *n)
{
	*n = 1;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	*d = ordinal;
	return ordinal ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	static int created;

	*c = the_ctx;
	if (!created && h_context)
		h_context(the_ctx, 1);
	created = 1;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice d)
{
	if (h_context)
		h_context(the_ctx, 0);
	if (h_sync)
		h_sync();
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext c)
{
	return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	const unsigned char *p = image;
	size_t size = 0;

	/* an ELF cubin: its size is where its last part ends (section
	 * headers, program headers or a section's bytes) */
	if (p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') {
		uint64_t shoff, phoff;
		uint16_t shentsize, shnum, phentsize, phnum;

		memcpy(&phoff, p + 0x20, 8);
		memcpy(&shoff, p + 0x28, 8);
		memcpy(&phentsize, p + 0x36, 2);
		memcpy(&phnum, p + 0x38, 2);
		memcpy(&shentsize, p + 0x3a, 2);
		memcpy(&shnum, p + 0x3c, 2);
		size = shoff + (size_t)shentsize * shnum;
		if (phoff + (size_t)phentsize * phnum > size)
			size = phoff + (size_t)phentsize * phnum;
		for (unsigned i = 0; i < shnum; i++) {
			const unsigned char *sh = p + shoff + (size_t)i * shentsize;
			uint32_t type;
			uint64_t off, sz;

			memcpy(&type, sh + 4, 4);
			memcpy(&off, sh + 0x18, 8);
			memcpy(&sz, sh + 0x20, 8);
			if (type != 8 /* SHT_NOBITS */ && off + sz > size)
				size = off + sz;
		}
	}
	if (!size)
		return CUDA_ERROR_INVALID_IMAGE;
	*m = (CUmodule)(uintptr_t)next_module;
	if (h_module)
		h_module(the_ctx, next_module, image, size);
	next_module++;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleUnload(CUmodule m)
{
	return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	struct fn *k = calloc(1, sizeof(*k));

	if (!k)
		return CUDA_ERROR_OUT_OF_MEMORY;
	snprintf(k->name, sizeof(k->name), "%s", name);
	*f = (CUfunction)k;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAlloc(CUdeviceptr *p, size_t n)
{
	void *m = calloc(1, n);

	*p = (CUdeviceptr)(uintptr_t)m;
	return m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult cuMemFree(CUdeviceptr p)
{
	free((void *)(uintptr_t)p);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n)
{
	uint32_t corr = enter(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2");

	memcpy((void *)(uintptr_t)dst, src, n);
	if (h_memop)
		h_memop(corr, 0, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, n, 3000);
	leave(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2", corr);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
	uint32_t corr = enter(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2");

	memcpy(dst, (void *)(uintptr_t)src, n);
	if (h_memop)
		h_memop(corr, 0, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, n, 4000);
	leave(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2", corr);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD32(CUdeviceptr dst, unsigned int v, size_t n)
{
	uint32_t corr = enter(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, "cuMemsetD32_v2");
	uint32_t *p = (uint32_t *)(uintptr_t)dst;

	for (size_t i = 0; i < n; i++)
		p[i] = v;
	if (h_memop)
		h_memop(corr, 1, 0, n * 4, 1500);
	leave(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, "cuMemsetD32_v2", corr);
	return CUDA_SUCCESS;
}

/* Events (scripts/gpu-check.sh's program times its kernels with them): a
 * stand-in GPU clock that each launch advances by its kernel's duration. */
EXPORT CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
	uint64_t *t = calloc(1, sizeof(*t));

	*e = (CUevent)t;
	return t ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
	*(uint64_t *)e = gpu_ns;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventSynchronize(CUevent e)
{
	if (h_sync)
		h_sync();
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	*ms = (float)((double)(*(uint64_t *)b - *(uint64_t *)a) / 1e6);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventDestroy(CUevent e)
{
	free(e);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	snprintf(name, (size_t)len, "zt stand-in GPU");
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *v)
{
	*v = 13000;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			       unsigned by, unsigned bz, unsigned smem, CUstream s, void **args,
			       void **extra)
{
	const struct fn *k = (const struct fn *)f;
	/* ZT_STANDIN_RUNTIME=1: the launch comes through the runtime, as
	 * PyTorch's do: cudaLaunchKernel's callbacks around cuLaunchKernel's,
	 * the driver launch nested in the runtime one */
	const char *rt = getenv("ZT_STANDIN_RUNTIME");
	int runtime = rt && *rt == '1' && h_api;
	uint32_t rcorr = runtime ? h_api(CUPTI_CB_DOMAIN_RUNTIME_API,
					 CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
					 "cudaLaunchKernel", the_ctx, 0, 0)
				 : 0;
	uint32_t corr = enter(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel");
	unsigned grid[3] = { gx, gy, gz }, block[3] = { bx, by, bz };

	uint64_t dur = 20000 + (uint64_t)gx * 100;

	gpu_ns += dur;
	if (h_kernel)
		h_kernel(corr, k->name, grid, block, smem, dur);
	leave(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", corr);
	if (runtime)
		h_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
		      "cudaLaunchKernel", the_ctx, 1, rcorr);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize(void)
{
	if (h_sync)
		h_sync();
	return CUDA_SUCCESS;
}
