/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The thin CUPTI layer of libztcupti.so: InitializeInjection, the
 * callbacks (launches, resources, synchronization), activity buffers and
 * PC sampling. Everything is translated into core.h calls; nothing here
 * prints unless verbose=1, and nothing aborts the host.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cupti/abi.h"
#include "cupti/core.h"
#include "cupti/glue.h"

#define ACT_BUF_SIZE   (1u << 20)   /* an activity buffer lent to CUPTI */
#define PCS_CFG_PCS    4096	    /* PCs of the buffer CUPTI fills at disable / module load */
#define PCS_GET_PCS    1024	    /* PCs per cuptiPCSamplingGetData */
#define PCS_DRAIN_NS   100000000ull /* continuous mode: drain at most every 100 ms */
#define PCS_MAX_CTX    64
#define PCS_MAX_ROUNDS 256 /* GetData calls per drain of one context */

/* warnings given once per process */
enum {
	W_ACT_CAP = 1 << 0,
	W_ACT_BAD = 1 << 1,
	W_PCS_FULL = 1 << 2,
	W_PCS_GETDATA = 1 << 3,
	W_PCS_CTX = 1 << 4,
	W_CUBIN = 1 << 5,
	W_PCS_ENABLE = 1 << 6,
	W_CUBIN_MEM = 1 << 7,
};

struct pcs_ctx {
	CUcontext ctx;
	uint32_t id;
	size_t nstall;
	uint32_t *stall_idx;
	CUpti_PCSamplingData cfg, get; /* CUPTI fills cfg at disable and at module loads */
	size_t taken;		       /* bytes taken from the budget */
};

static struct glue {
	struct zc *zc;
	_Atomic int init; /* InitializeInjection ran */
	int exit_hooked;
	CUpti_SubscriberHandle sub;
	int subscribed, activity_ok;
	_Atomic unsigned warned;

	pthread_mutex_t pcs_lock; /* ctxs */
	struct pcs_ctx *ctxs[PCS_MAX_CTX];
	_Atomic int pcs_on;	  /* contexts with PC sampling on */
	_Atomic uint64_t pcs_due; /* continuous mode: the next drain */
} g = {.pcs_lock = PTHREAD_MUTEX_INITIALIZER};

static int warn_once(unsigned bit)
{
	return !(atomic_fetch_or(&g.warned, bit) & bit);
}

static const char *res_str(CUptiResult r)
{
	const char *s = NULL;

	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

static uint64_t CUPTIAPI mono_ns(void)
{
	return zc_now();
}

/* ---- launches -------------------------------------------------------- */

static int driver_launch(CUpti_CallbackId cbid, int *graph)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
		*graph = 1;
		return 1;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunch:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice:
		*graph = 0;
		return 1;
	}
	return 0;
}

static int runtime_launch(CUpti_CallbackId cbid, int *graph)
{
	switch (cbid) {
	case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
		*graph = 1;
		return 1;
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000:
	case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
	case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
		*graph = 0;
		return 1;
	}
	return 0;
}

/* the callback ids enabled: every launch of both APIs */
static const CUpti_CallbackId driver_cbids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

static const CUpti_CallbackId runtime_cbids[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
};

static const CUpti_CallbackId resource_cbids[] = {
	CUPTI_CBID_RESOURCE_CONTEXT_CREATED,   CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
	CUPTI_CBID_RESOURCE_MODULE_LOADED,     CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
	CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED,
};

/* the graph a graph launch runs: its executable graph is the first parameter */
static uint32_t launch_graph_id(const CUpti_CallbackData *cd)
{
	uint32_t exec_id = 0;
	CUgraphExec exec;

	if (!cd->functionParams)
		return 0;
	memcpy(&exec, cd->functionParams, sizeof(exec));
	if (!exec || cuptiGetGraphExecId(exec, &exec_id) != CUPTI_SUCCESS)
		return 0;
	return zc_graph_of_exec(g.zc, exec_id);
}

static void pcs_maybe_drain(uint64_t now);
static void pcs_drain_all(int wait);

static void on_launch(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const CUpti_CallbackData *cd,
		      uintptr_t caller)
{
	struct zc_launch l;
	int graph = 0;

	if (!(dom == CUPTI_CB_DOMAIN_DRIVER_API ? driver_launch(cbid, &graph)
						: runtime_launch(cbid, &graph)))
		return;
	if (cd->callbackSite == CUPTI_API_ENTER) {
		l.now = zc_now();
		l.caller = caller;
		l.corr = cd->correlationId;
		l.cbid = cbid;
		l.domain = dom;
		l.graph = (uint32_t)graph;
		l.graph_id = graph ? launch_graph_id(cd) : 0;
		zc_launch_enter(g.zc, &l);
	} else if (cd->callbackSite == CUPTI_API_EXIT && zc_launch_exit(g.zc, cd->correlationId) &&
		   atomic_load_explicit(&g.pcs_on, memory_order_relaxed)) {
		/* the outermost launch returned: serialized mode drains every
		 * kernel's samples, continuous mode at most every 100 ms */
		if (zc_get_opts(g.zc)->pcs == ZC_PCS_SERIALIZED)
			pcs_drain_all(1);
		else
			pcs_maybe_drain(zc_now());
	}
}

/* ---- PC sampling ----------------------------------------------------- */

/*
 * How many distinct functionName pointers CUPTI handed out (an info at
 * exit, pcs_name_pointers): about one per sampled function if CUPTI shares
 * them as cupti_pcsampling.h says; far more would mean a string per record
 * that nobody frees (zt never does: see pcs_forget_names). Up to 768.
 */
#define NAMES_SEEN 1024
static struct {
	pthread_mutex_t lock;
	const void *p[NAMES_SEEN];
	unsigned n, full;
} names_seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void name_seen(const void *p)
{
	size_t j;

	if (!p)
		return;
	pthread_mutex_lock(&names_seen.lock);
	j = (size_t)(((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ull >> 54) & (NAMES_SEEN - 1);
	for (; names_seen.p[j]; j = (j + 1) & (NAMES_SEEN - 1))
		if (names_seen.p[j] == p)
			goto out;
	if (names_seen.n >= NAMES_SEEN * 3 / 4) {
		names_seen.full = 1;
		goto out;
	}
	names_seen.p[j] = p;
	names_seen.n++;
out:
	pthread_mutex_unlock(&names_seen.lock);
}

static void names_info(void)
{
	char s[32];

	pthread_mutex_lock(&names_seen.lock);
	if (names_seen.n) {
		snprintf(s, sizeof(s), "%u%s", names_seen.n, names_seen.full ? "+" : "");
		zc_info(g.zc, "pcs_name_pointers", s);
	}
	memset(names_seen.p, 0, sizeof(names_seen.p));
	names_seen.n = names_seen.full = 0;
	pthread_mutex_unlock(&names_seen.lock);
}

static void pcs_consume(uint32_t ctx_id, const CUpti_PCSamplingData *d, size_t max_pcs,
			size_t max_stalls)
{
	size_t n = d->totalNumPcs < max_pcs ? d->totalNumPcs : max_pcs, i;

	zc_pcs_totals(g.zc, d->totalSamples, d->droppedSamples, d->nonUsrKernelsTotalSamples,
		      d->hardwareBufferFull);
	if (!d->pPcData)
		return;
	for (i = 0; i < n; i++) {
		const CUpti_PCSamplingPCData *pc = &d->pPcData[i];
		size_t ns = pc->stallReasonCount < max_stalls ? pc->stallReasonCount : max_stalls;

		name_seen(pc->functionName);
		if (!pc->stallReason || !ns)
			continue;
		zc_pcs_pc(g.zc, pc->cubinCrc, pc->pcOffset, pc->functionIndex, pc->correlationId,
			  ctx_id, pc->functionName, (const uint32_t *)(const void *)pc->stallReason,
			  ns);
	}
}

void ztc_glue_pcs_consume(uint32_t ctx_id, const CUpti_PCSamplingData *d)
{
	if (g.zc && d)
		pcs_consume(ctx_id, d, SIZE_MAX, SIZE_MAX);
}

/*
 * Each PC record's functionName is CUPTI's string, and it is shared: "This
 * name string might be shared across all the records including records
 * from activity APIs representing the same function, and so it should not
 * be modified or freed until post processing of all the records is done"
 * (cupti_pcsampling.h; NVIDIA's pc_sampling samples collect the distinct
 * pointers in a set and free them once, at the very end). Freeing it per
 * record, as zt did, freed one pointer once per PC of a function: the
 * double free that aborted every CUDA process on an H200 (tests/gpu/
 * H200-RUN-1.md). zt never frees it: the aggregator keeps its own copy,
 * and what CUPTI hands out is one string per function, released with the
 * process. pcs_forget_names only clears the fields of our buffer.
 */
static void pcs_forget_names(CUpti_PCSamplingData *d, size_t max_pcs)
{
	for (size_t i = 0; d->pPcData && i < d->totalNumPcs && i < max_pcs; i++)
		d->pPcData[i].functionName = NULL;
}

static void pcs_data_free(CUpti_PCSamplingData *d, size_t npcs)
{
	size_t i;

	if (d->pPcData)
		for (i = 0; i < npcs; i++)
			free(d->pPcData[i].stallReason);
	free(d->pPcData);
	d->pPcData = NULL;
}

static int pcs_data_alloc(CUpti_PCSamplingData *d, size_t npcs, size_t nstall)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->collectNumPcs = npcs;
	d->pPcData = calloc(npcs, sizeof(*d->pPcData));
	if (!d->pPcData)
		return -ENOMEM;
	for (i = 0; i < npcs; i++) {
		d->pPcData[i].size = sizeof(d->pPcData[i]);
		d->pPcData[i].stallReason = calloc(nstall, sizeof(CUpti_PCSamplingStallReason));
		if (!d->pPcData[i].stallReason) {
			pcs_data_free(d, npcs);
			return -ENOMEM;
		}
	}
	return 0;
}

static void pcs_ctx_free(struct pcs_ctx *c)
{
	if (!c)
		return;
	pcs_data_free(&c->cfg, PCS_CFG_PCS);
	pcs_data_free(&c->get, PCS_GET_PCS);
	free(c->stall_idx);
	zc_mem_give_bytes(g.zc, c->taken);
	free(c);
}

static void pcs_warn(const char *what, CUptiResult r)
{
	if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
	    r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
		zc_warn(g.zc,
			"PC sampling off: %s: %s: no access to the GPU performance counters "
			"(ERR_NVGPUCTRPERM): run as root, or load the nvidia module with "
			"NVreg_RestrictProfilingToAdminUsers=0",
			what, res_str(r));
	else
		zc_warn(g.zc, "PC sampling off: %s: %s", what, res_str(r));
}

/* the stall table of ctx (also written to the file): 0, or a CUPTI error */
static CUptiResult pcs_stalls(struct pcs_ctx *c)
{
	CUpti_PCSamplingGetNumStallReasonsParams np = {0};
	CUpti_PCSamplingGetStallReasonsParams sp = {0};
	char **names = NULL, *mem = NULL;
	size_t n = 0, i;
	CUptiResult r;

	np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
	np.ctx = c->ctx;
	np.numStallReasons = &n;
	r = cuptiPCSamplingGetNumStallReasons(&np);
	if (r != CUPTI_SUCCESS)
		return r;
	if (n == 0 || n > 4096)
		return CUPTI_ERROR_NOT_SUPPORTED;
	c->stall_idx = calloc(n, sizeof(*c->stall_idx));
	names = calloc(n, sizeof(*names));
	mem = calloc(n, CUPTI_STALL_REASON_STRING_SIZE);
	if (!c->stall_idx || !names || !mem) {
		r = CUPTI_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	for (i = 0; i < n; i++)
		names[i] = mem + i * CUPTI_STALL_REASON_STRING_SIZE;
	sp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
	sp.ctx = c->ctx;
	sp.numStallReasons = n;
	sp.stallReasonIndex = c->stall_idx;
	sp.stallReasons = names;
	r = cuptiPCSamplingGetStallReasons(&sp);
	if (r != CUPTI_SUCCESS)
		goto out;
	for (i = 0; i < n; i++)
		names[i][CUPTI_STALL_REASON_STRING_SIZE - 1] = 0;
	c->nstall = n;
	zc_stalls(g.zc, c->id, n, c->stall_idx, (const char *const *)names);
out:
	free(names);
	free(mem);
	return r;
}

/* What CUPTI took: its sampling period and buffers, as an info
 * (pcs_config), for the first context; "unknown" where it does not say. */
static void pcs_config_info(CUcontext ctx)
{
	static const CUpti_PCSamplingConfigurationAttributeType at[] = {
		CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD,
		CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE,
		CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE,
		CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_WORKER_THREAD_PERIODIC_SLEEP_SPAN,
	};
	static _Atomic int said;
	CUpti_PCSamplingConfigurationInfo info[4];
	CUpti_PCSamplingConfigurationInfoParams cp = {0};
	char s[160], v[4][24];
	size_t i;

	if (atomic_exchange(&said, 1))
		return;
	memset(info, 0, sizeof(info));
	for (i = 0; i < 4; i++)
		info[i].attributeType = at[i];
	cp.size = CUpti_PCSamplingConfigurationInfoParamsSize;
	cp.ctx = ctx;
	cp.numAttributes = 4;
	cp.pPCSamplingConfigurationInfo = info;
	if (cuptiPCSamplingGetConfigurationAttribute(&cp) != CUPTI_SUCCESS)
		for (i = 0; i < 4; i++)
			info[i].attributeStatus = CUPTI_ERROR_NOT_SUPPORTED;
	for (i = 0; i < 4; i++)
		if (info[i].attributeStatus != CUPTI_SUCCESS)
			snprintf(v[i], sizeof(v[i]), "unknown");
	if (info[0].attributeStatus == CUPTI_SUCCESS)
		snprintf(v[0], sizeof(v[0]), "%u",
			 info[0].attributeData.samplingPeriodData.samplingPeriod);
	if (info[1].attributeStatus == CUPTI_SUCCESS)
		snprintf(v[1], sizeof(v[1]), "%zu",
			 info[1].attributeData.hardwareBufferSizeData.hardwareBufferSize);
	if (info[2].attributeStatus == CUPTI_SUCCESS)
		snprintf(v[2], sizeof(v[2]), "%zu",
			 info[2].attributeData.scratchBufferSizeData.scratchBufferSize);
	if (info[3].attributeStatus == CUPTI_SUCCESS)
		snprintf(v[3], sizeof(v[3]), "%u",
			 info[3].attributeData.workerThreadPeriodicSleepSpanData
				 .workerThreadPeriodicSleepSpan);
	snprintf(s, sizeof(s), "period_log2=%s hwbuf_bytes=%s scratch_bytes=%s sleep_ms=%s", v[0],
		 v[1], v[2], v[3]);
	zc_info(g.zc, "pcs_config", s);
}

static void pcs_enable(CUcontext ctx)
{
	const struct zc_opts *o = zc_get_opts(g.zc);
	CUpti_PCSamplingConfigurationInfoParams cp = {0};
	CUpti_PCSamplingConfigurationInfo info[7];
	CUpti_PCSamplingEnableParams ep = {0};
	CUpti_PCSamplingDisableParams dp = {0};
	struct pcs_ctx *c;
	size_t bytes, slot;
	CUptiResult r;
	int n = 0;

	pthread_mutex_lock(&g.pcs_lock);
	for (slot = 0; slot < PCS_MAX_CTX && g.ctxs[slot]; slot++)
		if (g.ctxs[slot]->ctx == ctx)
			goto out;
	if (slot == PCS_MAX_CTX) {
		if (warn_once(W_PCS_CTX))
			zc_warn(g.zc, "PC sampling off for contexts past the first %d",
				PCS_MAX_CTX);
		goto out;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		goto out;
	c->ctx = ctx;
	if (cuptiGetContextId(ctx, &c->id) != CUPTI_SUCCESS)
		c->id = 0;
	ep.size = CUpti_PCSamplingEnableParamsSize;
	ep.ctx = ctx;
	r = cuptiPCSamplingEnable(&ep);
	if (r != CUPTI_SUCCESS) {
		if (warn_once(W_PCS_ENABLE))
			pcs_warn("cuptiPCSamplingEnable", r);
		free(c);
		goto out;
	}
	r = pcs_stalls(c);
	if (r != CUPTI_SUCCESS) {
		pcs_warn("reading the stall reasons", r);
		goto fail;
	}
	bytes = (PCS_CFG_PCS + PCS_GET_PCS) *
		(sizeof(CUpti_PCSamplingPCData) + c->nstall * sizeof(CUpti_PCSamplingStallReason));
	if (!zc_mem_take_bytes(g.zc, bytes)) {
		zc_warn(g.zc, "PC sampling off for context %u: its buffers are over mem_mb", c->id);
		goto fail;
	}
	c->taken = bytes;
	if (pcs_data_alloc(&c->cfg, PCS_CFG_PCS, c->nstall) ||
	    pcs_data_alloc(&c->get, PCS_GET_PCS, c->nstall)) {
		zc_warn(g.zc, "PC sampling off for context %u: out of memory", c->id);
		goto fail;
	}
	memset(info, 0, sizeof(info));
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
	info[n++].attributeData.samplingDataBufferData.samplingDataBuffer = &c->cfg;
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
	info[n++].attributeData.collectionModeData.collectionMode =
		o->pcs == ZC_PCS_SERIALIZED ? CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED
					    : CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
	info[n].attributeData.stallReasonData.stallReasonCount = c->nstall;
	info[n++].attributeData.stallReasonData.pStallReasonIndex = c->stall_idx;
	if (o->pcs_period) {
		info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
		info[n++].attributeData.samplingPeriodData.samplingPeriod = o->pcs_period;
	}
	if (o->pcs_hwbuf_mb) {
		info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE;
		info[n++].attributeData.hardwareBufferSizeData.hardwareBufferSize =
			(size_t)o->pcs_hwbuf_mb << 20;
	}
	if (o->pcs_scratch_mb) {
		info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
		info[n++].attributeData.scratchBufferSizeData.scratchBufferSize =
			(size_t)o->pcs_scratch_mb << 20;
	}
	if (o->pcs_sleep_ms) {
		info[n].attributeType =
			CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_WORKER_THREAD_PERIODIC_SLEEP_SPAN;
		info[n++].attributeData.workerThreadPeriodicSleepSpanData
			.workerThreadPeriodicSleepSpan = o->pcs_sleep_ms;
	}
	cp.size = CUpti_PCSamplingConfigurationInfoParamsSize;
	cp.ctx = ctx;
	cp.numAttributes = (size_t)n;
	cp.pPCSamplingConfigurationInfo = info;
	r = cuptiPCSamplingSetConfigurationAttribute(&cp);
	if (r != CUPTI_SUCCESS) {
		pcs_warn("cuptiPCSamplingSetConfigurationAttribute", r);
		goto fail;
	}
	g.ctxs[slot] = c;
	atomic_fetch_add(&g.pcs_on, 1);
	pcs_config_info(ctx);
	goto out;
fail:
	dp.size = CUpti_PCSamplingDisableParamsSize;
	dp.ctx = ctx;
	cuptiPCSamplingDisable(&dp);
	pcs_ctx_free(c);
out:
	pthread_mutex_unlock(&g.pcs_lock);
}

/* GetData until CUPTI has no more (under pcs_lock) */
static void pcs_drain_ctx(struct pcs_ctx *c)
{
	CUpti_PCSamplingGetDataParams p = {0};
	int round;

	p.size = CUpti_PCSamplingGetDataParamsSize;
	p.ctx = c->ctx;
	p.pcSamplingData = &c->get;
	for (round = 0; round < PCS_MAX_ROUNDS; round++) {
		CUptiResult r;

		c->get.totalNumPcs = 0;
		c->get.remainingNumPcs = 0;
		c->get.hardwareBufferFull = 0;
		c->get.totalSamples = c->get.droppedSamples = c->get.nonUsrKernelsTotalSamples = 0;
		r = cuptiPCSamplingGetData(&p);
		if (r != CUPTI_SUCCESS) {
			if (r == CUPTI_ERROR_OUT_OF_MEMORY || c->get.hardwareBufferFull) {
				zc_pcs_totals(g.zc, 0, 0, 0, 1);
				if (warn_once(W_PCS_FULL))
					zc_warn(g.zc,
						"PC sampling: the hardware buffer was full and "
						"samples were lost: sample less often "
						"(zt record --gpu-pcs-period N: 2^N cycles; or a bigger "
						"buffer: --gpu-opts pcs_hwbuf_mb=N)");
			} else if (warn_once(W_PCS_GETDATA)) {
				zc_warn(g.zc, "PC sampling: cuptiPCSamplingGetData: %s",
					res_str(r));
			}
			return;
		}
		pcs_consume(c->id, &c->get, PCS_GET_PCS, c->nstall);
		pcs_forget_names(&c->get, PCS_GET_PCS);
		if (!c->get.remainingNumPcs)
			return;
	}
}

/* what CUPTI left in the configured buffer (module loads, disable) */
static void pcs_take_cfg(struct pcs_ctx *c)
{
	if (c->cfg.totalNumPcs) {
		pcs_consume(c->id, &c->cfg, PCS_CFG_PCS, c->nstall);
		pcs_forget_names(&c->cfg, PCS_CFG_PCS);
		c->cfg.totalNumPcs = 0;
	}
}

static void pcs_drain_all(int wait)
{
	size_t i;

	if (wait)
		pthread_mutex_lock(&g.pcs_lock);
	else if (pthread_mutex_trylock(&g.pcs_lock))
		return; /* another thread drains */
	for (i = 0; i < PCS_MAX_CTX && g.ctxs[i]; i++)
		pcs_drain_ctx(g.ctxs[i]);
	pthread_mutex_unlock(&g.pcs_lock);
}

static void pcs_maybe_drain(uint64_t now)
{
	uint64_t due = atomic_load_explicit(&g.pcs_due, memory_order_relaxed);

	if (now < due || !atomic_compare_exchange_strong(&g.pcs_due, &due, now + PCS_DRAIN_NS))
		return;
	pcs_drain_all(0);
}

static struct pcs_ctx *pcs_find(CUcontext ctx, size_t *slot)
{
	size_t i;

	for (i = 0; i < PCS_MAX_CTX && g.ctxs[i]; i++)
		if (g.ctxs[i]->ctx == ctx) {
			*slot = i;
			return g.ctxs[i];
		}
	return NULL;
}

/* drain, disable and forget ctx's PC sampling (under pcs_lock) */
static void pcs_close_slot(size_t slot)
{
	struct pcs_ctx *c = g.ctxs[slot];
	CUpti_PCSamplingDisableParams dp = {0};
	size_t last;

	pcs_drain_ctx(c);
	dp.size = CUpti_PCSamplingDisableParamsSize;
	dp.ctx = c->ctx;
	cuptiPCSamplingDisable(&dp);
	pcs_take_cfg(c);
	for (last = slot; last + 1 < PCS_MAX_CTX && g.ctxs[last + 1]; last++)
		;
	g.ctxs[slot] = g.ctxs[last];
	g.ctxs[last] = NULL;
	atomic_fetch_sub(&g.pcs_on, 1);
	pcs_ctx_free(c);
}

static void pcs_close(CUcontext ctx)
{
	size_t slot;

	pthread_mutex_lock(&g.pcs_lock);
	if (pcs_find(ctx, &slot))
		pcs_close_slot(slot);
	pthread_mutex_unlock(&g.pcs_lock);
}

static void pcs_close_all(void)
{
	pthread_mutex_lock(&g.pcs_lock);
	while (g.ctxs[0])
		pcs_close_slot(0);
	pthread_mutex_unlock(&g.pcs_lock);
}

/* ---- resources ------------------------------------------------------- */

static void on_module_loaded(const CUpti_ResourceData *r)
{
	const CUpti_ModuleResourceData *m = r->resourceDescriptor;
	CUpti_GetCubinCrcParams cp = {0};
	uint32_t ctx_id = 0;
	CUptiResult res;
	int ret;

	if (!m || !m->pCubin || !m->cubinSize)
		return;
	if (m->cubinSize < 4 || memcmp(m->pCubin, "\177ELF", 4) != 0) {
		if (warn_once(W_CUBIN))
			zc_warn(g.zc, "module %u is not an ELF cubin (%zu bytes): not kept",
				m->moduleId, m->cubinSize);
		return;
	}
	cp.size = CUpti_GetCubinCrcParamsSize;
	cp.cubinSize = m->cubinSize;
	cp.cubin = m->pCubin;
	res = cuptiGetCubinCrc(&cp);
	if (res != CUPTI_SUCCESS) {
		if (warn_once(W_CUBIN))
			zc_warn(g.zc, "cuptiGetCubinCrc: %s: cubin not kept", res_str(res));
		return;
	}
	if (r->context && cuptiGetContextId(r->context, &ctx_id) != CUPTI_SUCCESS)
		ctx_id = 0;
	ret = zc_cubin(g.zc, cp.cubinCrc, m->moduleId, ctx_id, m->pCubin, m->cubinSize);
	if (ret == -EFBIG && warn_once(W_CUBIN))
		zc_warn(g.zc, "cubin of module %u is too big for the file (%zu bytes): not kept",
			m->moduleId, m->cubinSize);
	else if (ret < 0 && ret != -EFBIG && warn_once(W_CUBIN_MEM))
		zc_warn(g.zc,
			"cubin of module %u (%zu bytes) not kept: %s; its PC samples cannot be "
			"resolved to lines",
			m->moduleId, m->cubinSize,
			ret == -ENOMEM ? "too many cubins (mem_mb)" : strerror(-ret));
}

static void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *r)
{
	size_t slot;

	if (!r)
		return;
	switch (cbid) {
	case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
		if (zc_get_opts(g.zc)->pcs != ZC_PCS_OFF && r->context)
			pcs_enable(r->context);
		break;
	case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
		pcs_close(r->context);
		break;
	case CUPTI_CBID_RESOURCE_MODULE_LOADED:
		on_module_loaded(r);
		/* a module loaded after an unload: CUPTI flushed the samples
		 * of the old one into the configured buffer */
		pthread_mutex_lock(&g.pcs_lock);
		if (pcs_find(r->context, &slot))
			pcs_take_cfg(g.ctxs[slot]);
		pthread_mutex_unlock(&g.pcs_lock);
		break;
	case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
		pthread_mutex_lock(&g.pcs_lock);
		if (pcs_find(r->context, &slot))
			pcs_drain_ctx(g.ctxs[slot]);
		pthread_mutex_unlock(&g.pcs_lock);
		break;
	case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED: {
		const CUpti_GraphData *gd = r->resourceDescriptor;
		uint32_t exec_id, graph_id;

		if (gd && gd->graphExec && gd->graph &&
		    cuptiGetGraphExecId(gd->graphExec, &exec_id) == CUPTI_SUCCESS &&
		    cuptiGetGraphId(gd->graph, &graph_id) == CUPTI_SUCCESS)
			zc_graph_exec(g.zc, exec_id, graph_id);
		break;
	}
	}
}

void CUPTIAPI ztc_glue_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				const void *data)
{
	if (!zc_active(g.zc) || !data)
		return;
	switch (domain) {
	case CUPTI_CB_DOMAIN_DRIVER_API:
	case CUPTI_CB_DOMAIN_RUNTIME_API:
		on_launch(domain, cbid, data, (uintptr_t)__builtin_return_address(0));
		break;
	case CUPTI_CB_DOMAIN_RESOURCE:
		on_resource(cbid, data);
		break;
	case CUPTI_CB_DOMAIN_SYNCHRONIZE:
		/* after a synchronization the GPU has run: a good time for its samples */
		if (atomic_load_explicit(&g.pcs_on, memory_order_relaxed))
			pcs_maybe_drain(zc_now());
		break;
	default:
		break;
	}
}

/* ---- activity buffers ------------------------------------------------ */

static void dropped_poll(void)
{
	size_t dropped = 0;

	if (g.activity_ok && cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) == CUPTI_SUCCESS)
		zc_dropped_records(g.zc, dropped);
}

void CUPTIAPI ztc_glue_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = NULL;
	*size = 0;
	*max_records = 0;
	if (!zc_active(g.zc))
		return;
	if (!zc_mem_take_bytes(g.zc, ACT_BUF_SIZE)) {
		/* CUPTI drops what it cannot store and counts it */
		if (warn_once(W_ACT_CAP))
			zc_warn(g.zc, "activity buffer refused at mem_mb: CUPTI drops records");
		return;
	}
	*buffer = aligned_alloc(8, ACT_BUF_SIZE);
	if (!*buffer) {
		zc_mem_give_bytes(g.zc, ACT_BUF_SIZE);
		return;
	}
	*size = ACT_BUF_SIZE;
}

static void kernel_record(const CUpti_ActivityKernel10 *a)
{
	struct zg_kernel k;

	memset(&k, 0, sizeof(k));
	k.start = a->start;
	k.end = a->end;
	k.queued = a->queued;
	k.submitted = a->submitted;
	k.graph_node_id = a->graphNodeId;
	k.corr = a->correlationId;
	k.device = a->deviceId;
	k.context = a->contextId;
	k.stream = a->streamId;
	k.graph_id = a->graphId;
	k.grid[0] = (uint32_t)a->gridX;
	k.grid[1] = (uint32_t)a->gridY;
	k.grid[2] = (uint32_t)a->gridZ;
	k.block[0] = (uint32_t)a->blockX;
	k.block[1] = (uint32_t)a->blockY;
	k.block[2] = (uint32_t)a->blockZ;
	k.regs = a->registersPerThread;
	k.smem_static = (uint32_t)a->staticSharedMemory;
	k.smem_dynamic = (uint32_t)a->dynamicSharedMemory;
	k.local_mem = a->localMemoryPerThread;
	zc_kernel(g.zc, &k, a->name);
}

static void memcpy_record(const CUpti_ActivityMemcpy6 *a)
{
	struct zg_memop m;

	memset(&m, 0, sizeof(m));
	m.start = a->start;
	m.end = a->end;
	m.bytes = a->bytes;
	m.corr = a->correlationId;
	m.device = a->deviceId;
	m.context = a->contextId;
	m.stream = a->streamId;
	m.kind = ZG_MEMCPY;
	m.copy_kind = a->copyKind;
	m.src_kind = a->srcKind;
	m.dst_kind = a->dstKind;
	m.graph_id = a->graphId;
	zc_memop(g.zc, &m);
}

static void memset_record(const CUpti_ActivityMemset4 *a)
{
	struct zg_memop m;

	memset(&m, 0, sizeof(m));
	m.start = a->start;
	m.end = a->end;
	m.bytes = a->bytes;
	m.corr = a->correlationId;
	m.device = a->deviceId;
	m.context = a->contextId;
	m.stream = a->streamId;
	m.kind = ZG_MEMSET;
	m.dst_kind = (uint8_t)a->memoryKind;
	m.value = a->value;
	m.graph_id = a->graphId;
	zc_memop(g.zc, &m);
}

static void overhead_record(const CUpti_ActivityOverhead3 *a)
{
	struct zg_overhead o;

	memset(&o, 0, sizeof(o));
	o.start = a->start;
	o.end = a->end;
	o.kind = (uint32_t)a->overheadKind;
	o.object_kind = (uint32_t)a->objectKind;
	/* the first two words of CUPTI's union: {process, thread} or {device, context} */
	memcpy(o.object_id, &a->objectId, sizeof(o.object_id));
	zc_overhead(g.zc, &o);
}

/* how many records of each activity kind CUPTI delivered: an info at exit
 * (what a real CUPTI sends, for the stand-in to copy) */
#define KINDS_SEEN 64
static _Atomic uint64_t kinds_seen[KINDS_SEEN];

static void kinds_info(void)
{
	char s[512];
	size_t n = 0;

	for (unsigned k = 0; k < KINDS_SEEN && n < sizeof(s) - 32; k++) {
		uint64_t c = atomic_load_explicit(&kinds_seen[k], memory_order_relaxed);

		if (c)
			n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%u:%llu", n ? "," : "", k,
					      (unsigned long long)c);
	}
	if (n)
		zc_info(g.zc, "activity_kinds", s);
	if (n && zc_get_opts(g.zc)->verbose)
		fprintf(stderr, "zt gpu: activity records by kind (kind:count): %s\n", s);
}

void CUPTIAPI ztc_glue_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
					size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;
	CUptiResult r;

	if (!buffer)
		return;
	while (zc_active(g.zc) && valid) {
		r = cuptiActivityGetNextRecord(buffer, valid, &rec);
		if (r != CUPTI_SUCCESS) {
			if (r != CUPTI_ERROR_MAX_LIMIT_REACHED && warn_once(W_ACT_BAD))
				zc_warn(g.zc, "activity buffer: %s: the rest of it skipped",
					res_str(r));
			break;
		}
		if ((unsigned)rec->kind < KINDS_SEEN)
			atomic_fetch_add_explicit(&kinds_seen[rec->kind], 1, memory_order_relaxed);
		switch (rec->kind) {
		case CUPTI_ACTIVITY_KIND_KERNEL:
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
			kernel_record((const CUpti_ActivityKernel10 *)(const void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_MEMCPY:
			memcpy_record((const CUpti_ActivityMemcpy6 *)(const void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_MEMSET:
			memset_record((const CUpti_ActivityMemset4 *)(const void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_OVERHEAD:
			overhead_record((const CUpti_ActivityOverhead3 *)(const void *)rec);
			break;
		default:
			break;
		}
	}
	free(buffer);
	if (g.zc) {
		/* only buffers this library lent: the size it gave */
		zc_mem_give_bytes(g.zc, size == ACT_BUF_SIZE ? ACT_BUF_SIZE : 0);
		dropped_poll();
	}
}

/* ---- set-up and exit --------------------------------------------------- */

/* the writer thread, every flush_ms: completed activity buffers */
static void glue_tick(void *arg)
{
	if (g.activity_ok)
		cuptiActivityFlushAll(0);
	dropped_poll();
}

static void glue_exit(void)
{
	if (!zc_active(g.zc))
		return;
	if (g.activity_ok)
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	/* the kernels, copies and launches on disk before PC sampling is torn
	 * down: whatever happens there, they are kept */
	zc_flush(g.zc);
	pcs_close_all();
	dropped_poll();
	kinds_info();
	names_info();
	zc_finish(g.zc);
}

static void info_u64(const char *key, uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%llu", (unsigned long long)v);
	zc_info(g.zc, key, s);
}

static void start_infos(const char *opts, const char *bad)
{
	const struct zc_opts *o = zc_get_opts(g.zc);
	int (*drv_version)(int *);
	struct timespec rt;
	void *cuda;
	uint32_t v = 0;
	Dl_info dl;
	int dv = 0;

	if (cuptiGetVersion(&v) == CUPTI_SUCCESS)
		info_u64("cupti_version", v);
	/* which libcupti the process loaded (the application's own, or CUDA's) */
	if (dladdr((void *)cuptiGetVersion, &dl) && dl.dli_fname) {
		zc_info(g.zc, "cupti_library", dl.dli_fname);
		if (o->verbose)
			fprintf(stderr, "zt gpu: CUPTI %u from %s, options '%s'\n", v, dl.dli_fname,
				opts ? opts : "");
	}
	/* the driver that loaded this library is in the process already: no
	 * link to it, and never loaded here (RTLD_NOLOAD) */
	cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (cuda) {
		*(void **)&drv_version = dlsym(cuda, "cuDriverGetVersion");
		if (drv_version && drv_version(&dv) == 0)
			info_u64("driver_version", (uint64_t)dv);
		dlclose(cuda);
	}
	zc_info(g.zc, "pcs_mode", zc_pcs_mode_name(o->pcs));
	zc_info(g.zc, "stacks", zc_stacks_name(o->stacks));
	if (opts && *opts)
		zc_info(g.zc, "options", opts);
	if (dladdr((void *)InitializeInjection, &dl) && dl.dli_fname)
		zc_info(g.zc, "library", dl.dli_fname);
	/* the clock of every timestamp, and how far CLOCK_REALTIME is from it */
	clock_gettime(CLOCK_REALTIME, &rt);
	info_u64("realtime_minus_monotonic_ns",
		 (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec - zc_now());
	if (bad && *bad)
		zc_warn(g.zc, "ZT_GPU_OPTS: bad values ignored: %s", bad);
}

/* subscribe and enable everything: 0, or -1 (inert; the warning written) */
static int cupti_setup(void)
{
	const struct zc_opts *o = zc_get_opts(g.zc);
	CUpti_SubscriberParams sp = {0};
	char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = "";
	static const CUpti_ActivityKind kinds[] = {
		CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
		CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_OVERHEAD};
	size_t i, ok;
	CUptiResult r;

	sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
	sp.subscriberName = "zt";
	sp.oldSubscriberName = other;
	sp.oldSubscriberSize = sizeof(other);
	r = cuptiSubscribe_v2(&g.sub, ztc_glue_callback, NULL, &sp);
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		other[sizeof(other) - 1] = 0;
		zc_warn(g.zc,
			"CUPTI could not subscribe: another CUPTI client is attached%s%s%s "
			"(a profiler, a debugger or the application's own): no GPU records "
			"for this process (zt still records its CPU side)",
			*other ? " ('" : "", other, *other ? "')" : "");
		return -1;
	}
	if (r != CUPTI_SUCCESS) {
		zc_warn(g.zc,
			"CUPTI could not subscribe: %s (no GPU or CUDA driver?): no GPU records "
			"for this process",
			res_str(r));
		return -1;
	}
	g.subscribed = 1;

	/* after subscribing (a failed subscription must not change another
	 * client's clock) and before any activity kind is enabled */
	r = cuptiActivityRegisterTimestampCallback(mono_ns);
	if (r != CUPTI_SUCCESS)
		zc_warn(g.zc,
			"cuptiActivityRegisterTimestampCallback: %s: GPU times are on CUPTI's "
			"clock (CLOCK_REALTIME), not the CPU samples'",
			res_str(r));
	zc_info(g.zc, "clock", r == CUPTI_SUCCESS ? "monotonic" : "realtime");

	r = cuptiActivityRegisterCallbacks(ztc_glue_buffer_requested, ztc_glue_buffer_completed);
	if (r != CUPTI_SUCCESS) {
		zc_warn(g.zc, "cuptiActivityRegisterCallbacks: %s: no kernel or memory records",
			res_str(r));
	} else {
		g.activity_ok = 1;
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			r = cuptiActivityEnable(kinds[i]);
			if (r != CUPTI_SUCCESS)
				zc_warn(g.zc, "cuptiActivityEnable(%d): %s", (int)kinds[i],
					res_str(r));
		}
	}

	for (i = ok = 0; i < sizeof(resource_cbids) / sizeof(resource_cbids[0]); i++)
		ok += cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RESOURCE, resource_cbids[i]) ==
		      CUPTI_SUCCESS;
	if (!ok)
		zc_warn(g.zc, "no CUPTI resource callback: no cubins, no PC sampling");
	for (i = ok = 0; i < sizeof(driver_cbids) / sizeof(driver_cbids[0]); i++)
		ok += cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_DRIVER_API, driver_cbids[i]) ==
		      CUPTI_SUCCESS;
	for (i = 0; i < sizeof(runtime_cbids) / sizeof(runtime_cbids[0]); i++)
		ok += cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RUNTIME_API,
					  runtime_cbids[i]) == CUPTI_SUCCESS;
	if (!ok)
		zc_warn(g.zc, "no CUPTI launch callback: no launch records or stacks");
	if (o->pcs != ZC_PCS_OFF &&
	    cuptiEnableDomain(1, g.sub, CUPTI_CB_DOMAIN_SYNCHRONIZE) != CUPTI_SUCCESS)
		zc_warn(g.zc, "no CUPTI synchronization callback: PC samples drained at launches "
			      "only");
	return 0;
}

/* set up from dir and opts; with_cupti: subscribe (InitializeInjection) */
static int glue_init(const char *dir, const char *opts, int with_cupti)
{
	char bad[256];
	struct zc_opts o;
	int ret;

	zc_opts_parse(&o, opts, bad, sizeof(bad));
	g.zc = zc_new(&o);
	if (!g.zc)
		return -ENOMEM;
	if (!dir || !*dir) {
		zc_warn(g.zc, "%s is not set: no GPU records", ZG_ENV_DIR);
		ret = -ENOENT;
		goto fail;
	}
	ret = zc_open(g.zc, dir);
	if (ret) {
		zc_warn(g.zc, "cannot create a file in '%s': %s: no GPU records", dir,
			strerror(-ret));
		goto fail;
	}
	start_infos(opts, bad);
	if (with_cupti && cupti_setup()) {
		/* nothing of CUPTI calls in: a valid file with the warning, and gone */
		ret = -ENODEV;
		goto fail;
	}
	ret = zc_start(g.zc, glue_tick, NULL);
	if (ret) {
		zc_warn(g.zc, "cannot start the writer thread: %s: records written at exit only",
			strerror(-ret));
		ret = 0;
	}
	if (!g.exit_hooked && atexit(glue_exit) == 0)
		g.exit_hooked = 1;
	return 0;
fail:
	zc_free(g.zc);
	g.zc = NULL;
	return ret;
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
	if (atomic_exchange(&g.init, 1))
		return 1;
	glue_init(getenv(ZG_ENV_DIR), getenv(ZG_ENV_OPTS), 1);
	return 1;
}

int ztc_glue_start(const char *dir, const char *opts)
{
	if (g.zc)
		return -EBUSY;
	g.warned = 0;
	return glue_init(dir, opts, 0);
}

void ztc_glue_stop(void)
{
	glue_exit();
	pthread_mutex_lock(&g.pcs_lock);
	while (g.ctxs[0])
		pcs_close_slot(0);
	pthread_mutex_unlock(&g.pcs_lock);
	zc_free(g.zc);
	g.zc = NULL;
	atomic_store(&g.pcs_due, 0);
}

struct zc *ztc_glue_core(void)
{
	return g.zc;
}
