/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of libztcupti.so's CUPTI layer (cupti/glue.c) with the real
 * libcupti and no GPU: activity buffers built from the CUDA 13 record
 * types and walked by the real cuptiActivityGetNextRecord through the
 * buffer-complete callback CUPTI calls, launch callbacks (nested runtime
 * and driver launches, graph launches, other API calls), a module load
 * with cuptiGetCubinCrc, PC-sampling buffers, the memory cap on activity
 * buffers. The file is read back by the strict test reader of wire.h.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <cupti.h>
#include <cupti_pcsampling.h>

#include "cupti/core.h"
#include "cupti/glue.h"
#include "cupti/unwind.h"
#include "tests/unit/cupti/zgwalk.h"

struct fx {
	char dir[64];
	struct zgw_file f;
};

static void fx_start(struct fx *x, const char *opts)
{
	memset(x, 0, sizeof(*x));
	assert_non_null(zgwalk_tmpdir(x->dir, sizeof(x->dir)));
	assert_int_equal(ztc_glue_start(x->dir, opts), 0);
	assert_non_null(ztc_glue_core());
}

static void fx_load(struct fx *x)
{
	char path[256];

	ztc_glue_stop();
	assert_null(ztc_glue_core());
	assert_int_equal(zgwalk_find(x->dir, path, sizeof(path)), 0);
	if (zgwalk_load(&x->f, path))
		fail_msg("%s: %s", path, x->f.err);
}

static void fx_done(struct fx *x)
{
	zgwalk_free(&x->f);
	zgwalk_rmdir(x->dir);
}

/* ---- activity buffers -------------------------------------------------- */

struct abuf {
	uint8_t *p;
	size_t size, len;
};

/* a buffer as CUPTI gets it: from the buffer-request callback */
static void abuf_new(struct abuf *b)
{
	size_t max;

	ztc_glue_buffer_requested(&b->p, &b->size, &max);
	assert_non_null(b->p);
	assert_true(b->size >= 4096);
	assert_int_equal(max, 0);
	assert_int_equal((uintptr_t)b->p % 8, 0);
	memset(b->p, 0, b->size);
	b->len = 0;
}

static void abuf_put(struct abuf *b, const void *rec, size_t n)
{
	assert_true(b->len + n <= b->size);
	memcpy(b->p + b->len, rec, n);
	b->len += n;
}

static void abuf_complete(struct abuf *b)
{
	ztc_glue_buffer_completed(NULL, 0, b->p, b->size, b->len);
	b->p = NULL;
}

static CUpti_ActivityKernel10 mk_k10(uint32_t corr, const char *name)
{
	CUpti_ActivityKernel10 k;

	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.registersPerThread = 40;
	k.start = 1000000 + corr;
	k.end = 2000000 + corr;
	k.completed = 2000001 + corr;
	k.queued = 900000;
	k.submitted = 950000;
	k.deviceId = 1;
	k.contextId = 2;
	k.streamId = 13;
	k.gridX = 100, k.gridY = 2, k.gridZ = 1;
	k.blockX = 256, k.blockY = 1, k.blockZ = 1;
	k.staticSharedMemory = 1024;
	k.dynamicSharedMemory = 2048;
	k.localMemoryPerThread = 16;
	k.correlationId = corr;
	k.gridId = 77;
	k.name = name;
	return k;
}

struct kernels {
	struct zg_kernel k[16];
	char name[16][64];
	size_t n;
};

static void get_kernel(const struct zgw_fr *fr, const void *rec, void *arg)
{
	struct kernels *ks = arg;

	if (ks->n < 16) {
		memcpy(&ks->k[ks->n], rec, sizeof(ks->k[0]));
		snprintf(ks->name[ks->n], 64, "%.*s", (int)ks->k[ks->n].name_len,
			 zgwalk_str(fr, ks->k[ks->n].name_off));
	}
	ks->n++;
}

struct memops {
	struct zg_memop m[8];
	size_t n;
};

static void get_memop(const struct zgw_fr *fr, const void *rec, void *arg)
{
	struct memops *ms = arg;

	if (ms->n < 8)
		memcpy(&ms->m[ms->n], rec, sizeof(ms->m[0]));
	ms->n++;
}

/* every record kind zt reads, and one it does not, through the real walker */
static void test_activity_buffer(void **state)
{
	CUpti_ActivityKernel10 k1 = mk_k10(10, "_Z6vecaddPfS_S_i"), k2 = mk_k10(31, "_Z4stepv");
	CUpti_ActivityMemcpy6 mc;
	CUpti_ActivityMemset4 ms;
	CUpti_ActivityOverhead3 ov;
	CUpti_ActivityAPI api;
	struct kernels ks = {.n = 0};
	struct memops mo = {.n = 0};
	struct zg_overhead zo;
	struct zg_counters c;
	struct abuf b;
	struct fx x;
	size_t i;

	fx_start(&x, NULL);
	/* a graph kernel: no launch callback of its own, the graph's ids */
	k2.graphId = 7;
	k2.graphNodeId = 0x100000002ull;
	memset(&mc, 0, sizeof(mc));
	mc.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	mc.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	mc.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	mc.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	mc.bytes = 1 << 20;
	mc.start = 500;
	mc.end = 600;
	mc.deviceId = 1;
	mc.contextId = 2;
	mc.streamId = 14;
	mc.correlationId = 9;
	mc.graphId = 0;
	memset(&ms, 0, sizeof(ms));
	ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	ms.value = 0xab;
	ms.bytes = 4096;
	ms.start = 700;
	ms.end = 710;
	ms.deviceId = 1;
	ms.contextId = 2;
	ms.streamId = 15;
	ms.correlationId = 8;
	ms.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	ms.graphId = 3;
	memset(&ov, 0, sizeof(ov));
	ov.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	ov.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
	ov.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	ov.objectId.pt.processId = 4242;
	ov.objectId.pt.threadId = 4343;
	ov.start = 800;
	ov.end = 900;
	memset(&api, 0, sizeof(api));
	api.kind = CUPTI_ACTIVITY_KIND_DRIVER;
	api.cbid = 307;
	api.correlationId = 10;

	abuf_new(&b);
	abuf_put(&b, &k1, sizeof(k1));
	abuf_put(&b, &api, sizeof(api));
	abuf_put(&b, &mc, sizeof(mc));
	abuf_put(&b, &ms, sizeof(ms));
	abuf_put(&b, &ov, sizeof(ov));
	abuf_put(&b, &k2, sizeof(k2));
	abuf_complete(&b);
	fx_load(&x);

	zgwalk_each(&x.f, ZG_KERNEL, get_kernel, &ks);
	assert_int_equal(ks.n, 2);
	assert_int_equal(ks.k[0].start, k1.start);
	assert_int_equal(ks.k[0].end, k1.end);
	assert_int_equal(ks.k[0].queued, 900000);
	assert_int_equal(ks.k[0].submitted, 950000);
	assert_int_equal(ks.k[0].corr, 10);
	assert_int_equal(ks.k[0].device, 1);
	assert_int_equal(ks.k[0].context, 2);
	assert_int_equal(ks.k[0].stream, 13);
	assert_int_equal(ks.k[0].grid[0], 100);
	assert_int_equal(ks.k[0].grid[1], 2);
	assert_int_equal(ks.k[0].grid[2], 1);
	assert_int_equal(ks.k[0].block[0], 256);
	assert_int_equal(ks.k[0].regs, 40);
	assert_int_equal(ks.k[0].smem_static, 1024);
	assert_int_equal(ks.k[0].smem_dynamic, 2048);
	assert_int_equal(ks.k[0].local_mem, 16);
	assert_int_equal(ks.k[0].graph_id, 0);
	assert_int_equal(ks.k[0].graph_node_id, 0);
	assert_int_equal(ks.k[0].reserved, 0);
	assert_string_equal(ks.name[0], "_Z6vecaddPfS_S_i");
	assert_int_equal(ks.k[1].corr, 31);
	assert_int_equal(ks.k[1].graph_id, 7);
	assert_int_equal(ks.k[1].graph_node_id, 0x100000002ull);
	assert_string_equal(ks.name[1], "_Z4stepv");

	zgwalk_each(&x.f, ZG_MEMOP, get_memop, &mo);
	assert_int_equal(mo.n, 2);
	assert_int_equal(mo.m[0].kind, ZG_MEMCPY);
	assert_int_equal(mo.m[0].copy_kind, 1);
	assert_int_equal(mo.m[0].src_kind, 2);
	assert_int_equal(mo.m[0].dst_kind, 3);
	assert_int_equal(mo.m[0].bytes, 1 << 20);
	assert_int_equal(mo.m[0].start, 500);
	assert_int_equal(mo.m[0].end, 600);
	assert_int_equal(mo.m[0].corr, 9);
	assert_int_equal(mo.m[0].stream, 14);
	assert_int_equal(mo.m[1].kind, ZG_MEMSET);
	assert_int_equal(mo.m[1].value, 0xab);
	assert_int_equal(mo.m[1].bytes, 4096);
	assert_int_equal(mo.m[1].dst_kind, 3);
	assert_int_equal(mo.m[1].corr, 8);
	assert_int_equal(mo.m[1].graph_id, 3);
	assert_int_equal(mo.m[1].stream, 15);

	assert_int_equal(zgwalk_count(&x.f, ZG_OVERHEAD), 1);
	for (i = 0; i < x.f.nfr; i++)
		if (x.f.fr[i].type == ZG_OVERHEAD)
			memcpy(&zo, x.f.fr[i].p, sizeof(zo));
	assert_int_equal(zo.start, 800);
	assert_int_equal(zo.end, 900);
	assert_int_equal(zo.kind, CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH);
	assert_int_equal(zo.object_kind, CUPTI_ACTIVITY_OBJECT_THREAD);
	assert_int_equal(zo.object_id[0], 4242);
	assert_int_equal(zo.object_id[1], 4343);
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_int_equal(c.mem_dropped, 0);
	fx_done(&x);
}

/* ---- launches ---------------------------------------------------------- */

static __attribute__((noinline)) void api(CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
					  CUpti_ApiCallbackSite site, uint32_t corr,
					  const void *params)
{
	CUpti_CallbackData cd;

	memset(&cd, 0, sizeof(cd));
	cd.callbackSite = site;
	cd.functionName = "launch";
	cd.functionParams = params;
	cd.correlationId = corr;
	ztc_glue_callback(NULL, dom, cbid, &cd);
	__asm__ volatile("" ::: "memory");
}

static const struct zg_launch *find_launch(const struct zgw_launches *ls, uint32_t corr)
{
	size_t i;

	for (i = 0; i < ls->n && i < ZGW_KEEP; i++)
		if (ls->l[i].corr == corr)
			return &ls->l[i];
	return NULL;
}

/* out-of-order buffers, nested runtime/driver launches, a graph, other calls */
static void test_launches(void **state)
{
	cudaGraphLaunch_v10000_params gp = {NULL, NULL};
	cuGraphLaunch_params dgp = {NULL, NULL};
	CUpti_ActivityKernel10 k;
	struct zgw_launches ls = {.n = 0};
	struct kernels ks = {.n = 0};
	uint64_t ips[ZC_UNWIND_MAX], t0 = zc_now();
	const struct zg_launch *l;
	struct abuf a, b;
	struct zg_counters c;
	struct fx x;
	size_t i;
	uint32_t n;

	fx_start(&x, "stacks=unwind");
	/* cudaLaunchKernel, and the cuLaunchKernel the runtime makes of it */
	api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	    CUPTI_API_ENTER, 10, NULL);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_ENTER, 11,
	    NULL);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_EXIT, 11,
	    NULL);
	api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	    CUPTI_API_EXIT, 10, NULL);
	/* a driver launch of its own */
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_API_ENTER,
	    20, NULL);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_API_EXIT,
	    20, NULL);
	/* a graph launch: its kernels come with the driver call's correlation id */
	api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
	    CUPTI_API_ENTER, 30, &gp);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_API_ENTER, 31,
	    &dgp);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_API_EXIT, 31,
	    &dgp);
	api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
	    CUPTI_API_EXIT, 30, &gp);
	/* not a launch: no record, the nesting untouched */
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_API_ENTER, 40,
	    NULL);
	api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	    CUPTI_API_ENTER, 41, NULL);
	api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	    CUPTI_API_EXIT, 41, NULL);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_API_EXIT, 40,
	    NULL);

	/* the kernels complete out of order, in two buffers, the later one first */
	abuf_new(&a);
	abuf_new(&b);
	k = mk_k10(11, "_Z1av");
	abuf_put(&a, &k, sizeof(k));
	k = mk_k10(20, "_Z1bv");
	abuf_put(&a, &k, sizeof(k));
	k = mk_k10(31, "_Z1gv");
	k.graphId = 7;
	abuf_put(&b, &k, sizeof(k));
	abuf_put(&b, &k, sizeof(k)); /* two kernels of one graph launch */
	k = mk_k10(41, "_Z1cv");
	abuf_put(&b, &k, sizeof(k));
	abuf_complete(&b);
	abuf_complete(&a);
	fx_load(&x);

	zgwalk_each(&x.f, ZG_LAUNCH, zgwalk_get_launch, &ls);
	assert_int_equal(ls.n, 6);
	l = find_launch(&ls, 10);
	assert_non_null(l);
	assert_int_equal(l->flags, ZG_L_STACK);
	assert_int_equal(l->domain, CUPTI_CB_DOMAIN_RUNTIME_API);
	assert_int_equal(l->cbid, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
	assert_true(l->ts >= t0 && l->ts <= zc_now());
	assert_int_equal(l->tid, (uint32_t)gettid());
	/* the stack starts in the caller of the callback */
	n = zgwalk_stack(&x.f, l->stack, ips, ZC_UNWIND_MAX);
	assert_true(n >= 2);
	assert_true(ips[0] > (uintptr_t)api && ips[0] < (uintptr_t)api + 512);
	assert_true(ips[1] > (uintptr_t)test_launches && ips[1] < (uintptr_t)test_launches + 8192);
	l = find_launch(&ls, 11);
	assert_int_equal(l->flags, ZG_L_NESTED);
	assert_int_equal(l->outer_corr, 10);
	assert_int_equal(l->domain, CUPTI_CB_DOMAIN_DRIVER_API);
	l = find_launch(&ls, 20);
	assert_int_equal(l->flags, ZG_L_STACK);
	assert_int_equal(l->outer_corr, 0);
	l = find_launch(&ls, 30);
	assert_int_equal(l->flags, ZG_L_GRAPH | ZG_L_STACK);
	assert_int_equal(l->graph_id, 0); /* unknown without a GPU */
	l = find_launch(&ls, 31);
	assert_int_equal(l->flags, ZG_L_GRAPH | ZG_L_NESTED);
	assert_int_equal(l->outer_corr, 30);
	l = find_launch(&ls, 41);
	assert_non_null(l);
	assert_int_equal(l->flags, ZG_L_STACK);
	assert_null(find_launch(&ls, 40));

	/* every kernel joins a launch by correlation id, whatever the order */
	zgwalk_each(&x.f, ZG_KERNEL, get_kernel, &ks);
	assert_int_equal(ks.n, 5);
	assert_int_equal(ks.k[0].corr, 31); /* completion order */
	for (i = 0; i < ks.n; i++)
		assert_non_null(find_launch(&ls, ks.k[i].corr));
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_int_equal(c.launches, 4);
	assert_int_equal(c.launch_stacks, 4);
	fx_done(&x);
}

/* ---- modules and PC sampling ------------------------------------------ */

static void module_loaded(const void *cubin, size_t size, uint32_t module_id)
{
	CUpti_ModuleResourceData m = {module_id, size, cubin};
	CUpti_ResourceData r;

	memset(&r, 0, sizeof(r));
	r.resourceDescriptor = &m;
	ztc_glue_callback(NULL, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED, &r);
}

/* a cubin is kept once per cuptiGetCubinCrc, a non-ELF module not at all */
static void test_module(void **state)
{
	CUpti_GetCubinCrcParams cp;
	uint8_t cubin[3000], other[100];
	struct zg_cubin zcb;
	struct fx x;
	size_t i, n = 0;

	memset(cubin, 0x42, sizeof(cubin));
	memcpy(cubin, "\177ELF", 4);
	memset(other, 0x11, sizeof(other));
	memset(&cp, 0, sizeof(cp));
	cp.size = CUpti_GetCubinCrcParamsSize;
	cp.cubinSize = sizeof(cubin);
	cp.cubin = cubin;
	assert_int_equal(cuptiGetCubinCrc(&cp), CUPTI_SUCCESS);

	fx_start(&x, NULL);
	module_loaded(cubin, sizeof(cubin), 1);
	module_loaded(cubin, sizeof(cubin), 2); /* the same cubin again */
	module_loaded(other, sizeof(other), 3); /* a fatbin, say */
	module_loaded(NULL, 0, 4);
	fx_load(&x);
	for (i = 0; i < x.f.nfr; i++)
		if (x.f.fr[i].type == ZG_CUBIN) {
			memcpy(&zcb, x.f.fr[i].p, sizeof(zcb));
			assert_memory_equal(x.f.fr[i].p + sizeof(zcb), cubin, sizeof(cubin));
			n++;
		}
	assert_int_equal(n, 1);
	assert_int_equal(zcb.crc, cp.cubinCrc);
	assert_int_equal(zcb.module_id, 1);
	assert_int_equal(zcb.context, 0);
	assert_int_equal(zcb.size, sizeof(cubin));
	assert_non_null(strstr(zgwalk_info(&x.f, "warning", 0), "module 3 is not an ELF cubin"));
	fx_done(&x);
}

static const struct zg_pcs *find_pcs(const struct zgw_pcs_list *l, uint64_t pc, uint32_t stall)
{
	size_t i;

	for (i = 0; i < l->n && i < ZGW_KEEP; i++)
		if (l->p[i].pc_offset == pc && l->p[i].stall == stall)
			return &l->p[i];
	return NULL;
}

/* a GetData buffer as CUPTI fills it, the hardware buffer full */
static void test_pcs_buffer(void **state)
{
	CUpti_PCSamplingStallReason s1[2] = {{2, 5}, {7, 1}}, s2[1] = {{2, 3}},
				    s3[2] = {{4, 9}, {5, 0}};
	char fname[] = "_Z6kernelPf";
	CUpti_PCSamplingPCData pcs[3];
	CUpti_PCSamplingData d;
	struct zgw_pcs_list l = {.n = 0};
	struct zg_counters c;
	struct fx x;

	memset(pcs, 0, sizeof(pcs));
	pcs[0] = (CUpti_PCSamplingPCData){sizeof(pcs[0]), 0xabc, 0x10, 3, 0, fname, 2, s1, 0};
	pcs[1] = (CUpti_PCSamplingPCData){sizeof(pcs[0]), 0xabc, 0x10, 3, 0, fname, 1, s2, 0};
	pcs[2] = (CUpti_PCSamplingPCData){sizeof(pcs[0]), 0xabc, 0x20, 3, 0, fname, 2, s3, 0};
	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.collectNumPcs = 3;
	d.totalSamples = 18;
	d.droppedSamples = 2;
	d.totalNumPcs = 3;
	d.pPcData = pcs;
	d.nonUsrKernelsTotalSamples = 4;
	d.hardwareBufferFull = 1;

	fx_start(&x, NULL);
	ztc_glue_pcs_consume(1, &d);
	fx_load(&x);
	zgwalk_each(&x.f, ZG_PCS, zgwalk_get_pcs, &l);
	assert_int_equal(l.n, 3);
	assert_int_equal(find_pcs(&l, 0x10, 2)->samples, 8);
	assert_int_equal(find_pcs(&l, 0x10, 7)->samples, 1);
	assert_int_equal(find_pcs(&l, 0x20, 4)->samples, 9);
	assert_null(find_pcs(&l, 0x20, 5));
	assert_int_equal(find_pcs(&l, 0x20, 4)->context, 1);
	assert_int_equal(find_pcs(&l, 0x20, 4)->cubin_crc, 0xabc);
	assert_int_equal(find_pcs(&l, 0x20, 4)->function_index, 3);
	assert_string_equal(l.name[0], "_Z6kernelPf");
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_int_equal(c.pc_total_samples, 18);
	assert_int_equal(c.pc_dropped_samples, 2);
	assert_int_equal(c.pc_nonuser_samples, 4);
	assert_int_equal(c.pc_hw_buffer_full, 1);
	fx_done(&x);
}

/* ---- memory cap and set-up ---------------------------------------------- */

/* activity buffers come out of the same budget: past it CUPTI gets none */
static void test_activity_cap(void **state)
{
	struct abuf b[4];
	uint8_t *p;
	size_t size, max;
	struct fx x;
	int i, got = 0;

	fx_start(&x, "mem_mb=4");
	for (i = 0; i < 4; i++) {
		ztc_glue_buffer_requested(&b[i].p, &b[i].size, &max);
		got += b[i].p != NULL;
	}
	assert_true(got >= 1 && got < 4);
	for (i = 0; i < 4; i++)
		if (b[i].p)
			ztc_glue_buffer_completed(NULL, 0, b[i].p, b[i].size, 0);
	/* given back: a buffer again */
	ztc_glue_buffer_requested(&p, &size, &max);
	assert_non_null(p);
	ztc_glue_buffer_completed(NULL, 0, p, size, 0);
	ztc_glue_buffer_completed(NULL, 0, NULL, 0, 0);
	fx_load(&x);
	assert_non_null(strstr(zgwalk_info(&x.f, "warning", 0), "activity buffer refused"));
	fx_done(&x);
}

/* the start-up info; the library cannot start twice; bad options are named */
static void test_start(void **state)
{
	struct fx x;
	const char *v;

	fx_start(&x, "pcs=serialized,stacks=unwind,mem_mb=1");
	assert_int_equal(ztc_glue_start(x.dir, NULL), -EBUSY);
	fx_load(&x);
	v = zgwalk_info(&x.f, "cupti_version", 0);
	assert_non_null(v);
	assert_int_equal(strtoul(v, NULL, 10), CUPTI_API_VERSION);
	assert_string_equal(zgwalk_info(&x.f, "pcs_mode", 0), "serialized");
	assert_string_equal(zgwalk_info(&x.f, "stacks", 0), "unwind");
	assert_string_equal(zgwalk_info(&x.f, "options", 0),
			    "pcs=serialized,stacks=unwind,mem_mb=1");
	assert_non_null(zgwalk_info(&x.f, "realtime_minus_monotonic_ns", 0));
	assert_null(zgwalk_info(&x.f, "driver_version", 0)); /* no libcuda here */
	assert_non_null(strstr(zgwalk_info(&x.f, "warning", 0), "'mem_mb=1'"));
	fx_done(&x);

	/* no directory: inert, no file */
	assert_int_equal(ztc_glue_start("/nonexistent/zt", NULL), -ENOENT);
	assert_null(ztc_glue_core());
	assert_int_equal(ztc_glue_start(NULL, NULL), -ENOENT);
	ztc_glue_stop();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_activity_buffer), cmocka_unit_test(test_launches),
		cmocka_unit_test(test_module),		cmocka_unit_test(test_pcs_buffer),
		cmocka_unit_test(test_activity_cap),	cmocka_unit_test(test_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
