// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A stand-in libcupti.so.13 for zt's GPU tests on machines without a GPU.
 * It implements the CUPTI calls libztcupti.so makes, with the real
 * header types, and behaves as CUPTI does for them: it calls the
 * subscriber's callbacks (resource: context created, module loaded;
 * driver API: launch and copy entry and exit with correlation ids), hands
 * activity buffers of CUpti_ActivityKernel10 / Memcpy6 / Memset4 records
 * stamped with the registered timestamp callback to the buffer-complete
 * callback, and fills PC-sampling buffers with samples at real PC offsets
 * of the kernels of the cubin that was loaded (its sections, read with
 * libelf), tagged with the cubin's real CRC (computed beforehand with the
 * real libcupti by tests/gpu/cubin_crc: $ZT_STANDIN_CUBIN_CRC).
 *
 * The stand-in libcuda.so.1 (standin_cuda.c) drives it through the
 * zt_standin_* functions below, as the real driver drives CUPTI.
 * ZT_STANDIN_OTHER_SUBSCRIBER=NAME makes cuptiSubscribe_v2 fail as it does
 * under Nsight; ZT_STANDIN_DROPPED=N reports N dropped activity records.
 * PC records name their function with the string the kernel records use
 * (one per function, never to be freed by the client), as CUPTI 13 does.
 * Not thread-safe beyond one mutex around everything: enough for a test.
 */
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_KERNELS 64
#define MAX_PCS 4096
/* CUPTI's default sampling period (log2 cycles) on the H200 of the second
 * run; the header says only "CUPTI defined value based on number of SMs" */
#define STANDIN_PCS_PERIOD 11

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_CallbackFunc sub_cb;
static void *sub_data;
static int subscribed;
static unsigned char enabled[8][1024]; /* [domain][cbid] */
static CUpti_BuffersCallbackRequestFunc buf_req;
static CUpti_BuffersCallbackCompleteFunc buf_done;
static CUpti_TimestampCallbackFunc ts_fn;
static int act_kind[64];
static uint32_t next_corr = 1;
static uint8_t *pend;   /* activity records waiting for a buffer */
static size_t pend_len, pend_cap;
static char *names[1024];
static int nr_names;

/* the kernels of the loaded cubin: name, section size, symbol index */
static struct {
	char name[128];
	uint64_t size;
	uint32_t index;
} kern[MAX_KERNELS];
static int nr_kern;
static uint64_t cubin_crc;
/* PC samples waiting for GetData: (kernel, pc, stall) -> samples */
static struct {
	int k;
	uint64_t pc;
	uint32_t stall, samples, corr;
} pcs[MAX_PCS];
static int nr_pcs;
static int pcs_enabled, pcs_serialized;
static uint64_t pcs_total, pcs_dropped;

/*
 * The stall table. The first NR_SAMPLED are the reasons samples are drawn
 * from; as on an H200 (CUPTI 13, sm_90), some reasons X also come as
 * "X_not_issued": the part of X's samples in which the warp issued nothing,
 * reported beside X in the same PC record and not counted in totalSamples
 * (tests/gpu/H200-RUN-2.md).
 */
static const char *const stall_names[] = {
	"smsp__pcsamp_warps_issue_stalled_selected",
	"smsp__pcsamp_warps_issue_stalled_long_scoreboard",
	"smsp__pcsamp_warps_issue_stalled_math_pipe_throttle",
	"smsp__pcsamp_warps_issue_stalled_barrier",
	"smsp__pcsamp_warps_issue_stalled_wait",
	"smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued",
	"smsp__pcsamp_warps_issue_stalled_wait_not_issued",
};
#define NR_STALLS (sizeof(stall_names) / sizeof(stall_names[0]))
#define NR_SAMPLED 5
static const uint32_t stall_index[NR_STALLS] = { 1, 4, 7, 9, 12, 5, 13 };

/* The index of X_not_issued for the sampled reason of index x, or 0. */
static uint32_t not_issued_of(uint32_t x)
{
	return x == 4 ? 5 : x == 12 ? 13 : 0;
}

static const char *intern(const char *s);

static uint64_t now(void)
{
	struct timespec t;

	if (ts_fn)
		return ts_fn();
	/* CUPTI's default clock on Linux: CLOCK_REALTIME */
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- the calls libztcupti.so makes --------------------------------------- */

EXPORT CUptiResult cuptiGetVersion(uint32_t *v)
{
	*v = CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	*s = r == CUPTI_SUCCESS ? "CUPTI_SUCCESS"
	     : r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
		     ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
		     : "CUPTI_ERROR_UNKNOWN";
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetErrorMessage(CUptiResult r, const char **s)
{
	return cuptiGetResultString(r, s);
}

EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *h, CUpti_CallbackFunc cb, void *ud,
				     CUpti_SubscriberParams *p)
{
	const char *other = getenv("ZT_STANDIN_OTHER_SUBSCRIBER");

	if (other && *other) {
		if (p && p->oldSubscriberName && p->oldSubscriberSize)
			snprintf(p->oldSubscriberName, p->oldSubscriberSize, "%s", other);
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	if (subscribed)
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	sub_cb = cb;
	sub_data = ud;
	subscribed = 1;
	*h = (CUpti_SubscriberHandle)&sub_cb;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *h, CUpti_CallbackFunc cb, void *ud)
{
	return cuptiSubscribe_v2(h, cb, ud, NULL);
}

EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle h)
{
	subscribed = 0;
	sub_cb = NULL;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableCallback(uint32_t en, CUpti_SubscriberHandle h, CUpti_CallbackDomain d,
				       CUpti_CallbackId id)
{
	if ((unsigned)d >= 8 || id >= 1024)
		return CUPTI_ERROR_INVALID_PARAMETER;
	enabled[d][id] = !!en;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableDomain(uint32_t en, CUpti_SubscriberHandle h, CUpti_CallbackDomain d)
{
	if ((unsigned)d >= 8)
		return CUPTI_ERROR_INVALID_PARAMETER;
	memset(enabled[d], !!en, sizeof(enabled[d]));
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableAllDomains(uint32_t en, CUpti_SubscriberHandle h)
{
	memset(enabled, !!en, sizeof(enabled));
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
						  CUpti_BuffersCallbackCompleteFunc done)
{
	buf_req = req;
	buf_done = done;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc f)
{
	ts_fn = f;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind k)
{
	if ((unsigned)k >= 64)
		return CUPTI_ERROR_INVALID_KIND;
	act_kind[k] = 1;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableContext(CUcontext c, CUpti_ActivityKind k)
{
	return cuptiActivityEnable(k);
}

EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind k)
{
	if ((unsigned)k < 64)
		act_kind[k] = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushPeriod(uint32_t ms)
{
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableLatencyTimestamps(uint8_t en)
{
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute a, size_t *sz, void *v)
{
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetAttribute(CUpti_ActivityAttribute a, size_t *sz, void *v)
{
	return CUPTI_ERROR_NOT_SUPPORTED;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *t)
{
	*t = now();
	return CUPTI_SUCCESS;
}

static size_t rec_size(CUpti_ActivityKind k)
{
	switch (k) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return sizeof(CUpti_ActivityOverhead3);
	default:
		return 0;
	}
}

/* Records are laid back to back, each 8-byte aligned, as the stand-in
 * writes them; the real CUPTI's layout is its own business. */
EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
	size_t off = 0, sz;

	if (*rec) {
		off = (size_t)((uint8_t *)*rec - buf);
		sz = rec_size((*rec)->kind);
		if (!sz)
			return CUPTI_ERROR_INVALID_KIND;
		off += (sz + 7) & ~(size_t)7;
	}
	if (off + sizeof(CUpti_Activity) > valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	sz = rec_size(((CUpti_Activity *)(buf + off))->kind);
	if (!sz || off + sz > valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = (CUpti_Activity *)(buf + off);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t stream, size_t *n)
{
	const char *e = getenv("ZT_STANDIN_DROPPED");

	*n = e ? strtoul(e, NULL, 0) : 0;
	return CUPTI_SUCCESS;
}

/* Hand the waiting records over in buffers the subscriber gives. */
static void deliver(void)
{
	size_t off = 0;

	while (off < pend_len && buf_req && buf_done) {
		uint8_t *b = NULL;
		size_t size = 0, maxrec = 0, used = 0;

		buf_req(&b, &size, &maxrec);
		if (!b || size < 256)
			return;
		while (off < pend_len) {
			size_t sz = rec_size(((CUpti_Activity *)(pend + off))->kind), step = (sz + 7) & ~(size_t)7;

			if (used + step > size)
				break;
			memcpy(b + used, pend + off, sz);
			used += step;
			off += step;
		}
		buf_done(NULL, 0, b, size, used);
	}
	pend_len = 0;
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	pthread_mutex_lock(&mu);
	deliver();
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlush(CUcontext c, uint32_t stream, uint32_t flag)
{
	return cuptiActivityFlushAll(flag);
}

EXPORT CUptiResult cuptiFinalize(void)
{
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetCubinCrc(CUpti_GetCubinCrcParams *p)
{
	if (!p || !p->cubin || !p->cubinSize)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->cubinCrc = cubin_crc;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetContextId(CUcontext c, uint32_t *id)
{
	*id = 1;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetDeviceId(CUcontext c, uint32_t *id)
{
	*id = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetStreamIdEx(CUcontext c, CUstream s, uint8_t per_thread, uint32_t *id)
{
	*id = 7;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType t)
{
	return CUPTI_SUCCESS;
}

/* ---- PC sampling ---------------------------------------------------------- */

EXPORT CUptiResult cuptiPCSamplingEnable(CUpti_PCSamplingEnableParams *p)
{
	if (!p || !p->ctx)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pcs_enabled = 1;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiPCSamplingDisable(CUpti_PCSamplingDisableParams *p)
{
	pcs_enabled = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiPCSamplingStart(CUpti_PCSamplingStartParams *p)
{
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiPCSamplingStop(CUpti_PCSamplingStopParams *p)
{
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiPCSamplingGetNumStallReasons(CUpti_PCSamplingGetNumStallReasonsParams *p)
{
	if (!p || !p->numStallReasons)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*p->numStallReasons = NR_STALLS;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiPCSamplingGetStallReasons(CUpti_PCSamplingGetStallReasonsParams *p)
{
	if (!p || !p->stallReasonIndex || !p->stallReasons || p->numStallReasons < NR_STALLS)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < NR_STALLS; i++) {
		p->stallReasonIndex[i] = stall_index[i];
		snprintf(p->stallReasons[i], CUPTI_STALL_REASON_STRING_SIZE, "%s", stall_names[i]);
	}
	return CUPTI_SUCCESS;
}

/* the settings, with CUPTI's defaults as an H200 reported them */
static uint32_t cfg_period = STANDIN_PCS_PERIOD, cfg_sleep = 100;
static size_t cfg_hwbuf = 512u << 20, cfg_scratch = 1u << 20;

EXPORT CUptiResult cuptiPCSamplingSetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams *p)
{
	if (!p || !p->pPCSamplingConfigurationInfo)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < p->numAttributes; i++) {
		CUpti_PCSamplingConfigurationInfo *c = &p->pPCSamplingConfigurationInfo[i];

		c->attributeStatus = CUPTI_SUCCESS;
		switch (c->attributeType) {
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE:
			pcs_serialized = c->attributeData.collectionModeData.collectionMode ==
					 CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD:
			cfg_period = c->attributeData.samplingPeriodData.samplingPeriod;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE:
			cfg_hwbuf = c->attributeData.hardwareBufferSizeData.hardwareBufferSize;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE:
			cfg_scratch = c->attributeData.scratchBufferSizeData.scratchBufferSize;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_WORKER_THREAD_PERIODIC_SLEEP_SPAN:
			cfg_sleep = c->attributeData.workerThreadPeriodicSleepSpanData
					    .workerThreadPeriodicSleepSpan;
			break;
		default:
			break;
		}
	}
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiPCSamplingGetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams *p)
{
	if (!p || !p->pPCSamplingConfigurationInfo)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < p->numAttributes; i++) {
		CUpti_PCSamplingConfigurationInfo *c = &p->pPCSamplingConfigurationInfo[i];

		c->attributeStatus = CUPTI_SUCCESS;
		switch (c->attributeType) {
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD:
			c->attributeData.samplingPeriodData.samplingPeriod = cfg_period;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE:
			c->attributeData.hardwareBufferSizeData.hardwareBufferSize = cfg_hwbuf;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE:
			c->attributeData.scratchBufferSizeData.scratchBufferSize = cfg_scratch;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_WORKER_THREAD_PERIODIC_SLEEP_SPAN:
			c->attributeData.workerThreadPeriodicSleepSpanData.workerThreadPeriodicSleepSpan =
				cfg_sleep;
			break;
		default:
			c->attributeStatus = CUPTI_ERROR_NOT_SUPPORTED;
			break;
		}
	}
	return CUPTI_SUCCESS;
}

/* Fill the caller's buffer with what was sampled since the last call. */
EXPORT CUptiResult cuptiPCSamplingGetData(CUpti_PCSamplingGetDataParams *p)
{
	CUpti_PCSamplingData *d;
	size_t n = 0;
	int i;

	if (!p || !p->pcSamplingData)
		return CUPTI_ERROR_INVALID_PARAMETER;
	d = p->pcSamplingData;
	pthread_mutex_lock(&mu);
	d->totalSamples = 0;
	d->droppedSamples = 0;
	d->nonUsrKernelsTotalSamples = 0;
	d->hardwareBufferFull = 0;
	/* one record per PC with all its reasons, as CUPTI gives them */
	for (i = 0; i < nr_pcs && n < d->collectNumPcs; i++) {
		CUpti_PCSamplingPCData *pc;
		size_t ns = 0;
		int j;

		if (pcs[i].k < 0)
			continue; /* taken into an earlier PC's record */
		pc = &d->pPcData[n++];
		pc->cubinCrc = cubin_crc;
		pc->pcOffset = pcs[i].pc;
		pc->functionIndex = kern[pcs[i].k].index;
		/* as the real CUPTI 13 does (cupti_pcsampling.h): one string per
		 * function, shared by all its PC records, by every GetData and by
		 * the kernel activity records; never to be freed per record
		 * (a client that does frees it twice: glibc aborts, as on an H200) */
		pc->functionName = (char *)intern(kern[pcs[i].k].name);
		pc->correlationId = pcs_serialized ? pcs[i].corr : 0;
		/* [r] stallReasonCount: the caller allocated room for every stall
		 * reason of the context (NVIDIA's samples do), CUPTI says how many */
		for (j = i; j < nr_pcs; j++) {
			uint32_t ni;

			if (pcs[j].k != pcs[i].k || pcs[j].pc != pcs[i].pc ||
			    (pcs_serialized && pcs[j].corr != pcs[i].corr))
				continue;
			d->totalSamples += pcs[j].samples;
			if (pc->stallReason && ns < NR_STALLS) {
				pc->stallReason[ns].pcSamplingStallReasonIndex = pcs[j].stall;
				pc->stallReason[ns++].samples = pcs[j].samples;
			}
			/* two thirds of them did not issue: X_not_issued beside X */
			ni = not_issued_of(pcs[j].stall);
			if (ni && pcs[j].samples * 2 / 3 && pc->stallReason && ns < NR_STALLS) {
				pc->stallReason[ns].pcSamplingStallReasonIndex = ni;
				pc->stallReason[ns++].samples = pcs[j].samples * 2 / 3;
			}
			if (j > i)
				pcs[j].k = -1;
		}
		pc->stallReasonCount = ns;
	}
	/* as on an H200: totalSamples also counts the samples of kernels
	 * that are not the user's (one here per call that had any) */
	if (d->totalSamples) {
		d->nonUsrKernelsTotalSamples = 1;
		d->totalSamples += 1;
	}
	/* what did not fit waits for the next call, as CUPTI's remainingNumPcs says */
	{
		int m = 0;

		for (int j = i; j < nr_pcs; j++)
			if (pcs[j].k >= 0)
				pcs[m++] = pcs[j];
		nr_pcs = m;
	}
	d->totalNumPcs = n;
	d->remainingNumPcs = (size_t)nr_pcs;
	d->droppedSamples = pcs_dropped;
	pcs_total += d->totalSamples;
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

/* ---- what the stand-in driver calls ------------------------------------- */

static void fire(CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
	if (sub_cb && (unsigned)d < 8 && id < 1024 && enabled[d][id])
		sub_cb(sub_data, d, id, (void *)data);
}

/* The kernels of a cubin: its .text.NAME sections and their symbols. */
static void read_kernels(const void *img, size_t len)
{
	Elf *e;
	Elf_Scn *s = NULL;
	size_t shstr;

	elf_version(EV_CURRENT);
	e = elf_memory((char *)img, len);
	if (!e || elf_getshdrstrndx(e, &shstr))
		return;
	while ((s = elf_nextscn(e, s)) && nr_kern < MAX_KERNELS) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(s, &sh) || !(name = elf_strptr(e, shstr, sh.sh_name)))
			continue;
		if (strncmp(name, ".text.", 6))
			continue;
		snprintf(kern[nr_kern].name, sizeof(kern[nr_kern].name), "%s", name + 6);
		kern[nr_kern].size = sh.sh_size;
		kern[nr_kern].index = (uint32_t)nr_kern;
		nr_kern++;
	}
	elf_end(e);
}

EXPORT void zt_standin_context(CUcontext ctx, int created)
{
	CUpti_ResourceData r = { .context = ctx };

	fire(CUPTI_CB_DOMAIN_RESOURCE,
	     created ? CUPTI_CBID_RESOURCE_CONTEXT_CREATED : CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
	     &r);
}

EXPORT void zt_standin_module(CUcontext ctx, uint32_t id, const void *cubin, size_t size)
{
	CUpti_ModuleResourceData m = { .moduleId = id, .cubinSize = size, .pCubin = cubin };
	CUpti_ResourceData r = { .context = ctx, .resourceDescriptor = &m };
	const char *crc = getenv("ZT_STANDIN_CUBIN_CRC");

	cubin_crc = crc ? strtoull(crc, NULL, 0) : 0x5a5a5a5a;
	read_kernels(cubin, size);
	fire(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED, &r);
}

/* An API call: at enter, a new correlation id (returned); at exit, the
 * same one passed back. */
EXPORT uint32_t zt_standin_api(CUpti_CallbackDomain d, CUpti_CallbackId id, const char *fn,
			       CUcontext ctx, int exit_site, uint32_t corr)
{
	uint64_t cdata = 0;
	CUpti_CallbackData cb = {
		.callbackSite = exit_site ? CUPTI_API_EXIT : CUPTI_API_ENTER,
		.functionName = fn, .context = ctx, .contextUid = 1, .correlationData = &cdata,
	};

	if (!exit_site) {
		pthread_mutex_lock(&mu);
		corr = next_corr++;
		pthread_mutex_unlock(&mu);
	}
	cb.correlationId = corr;
	fire(d, id, &cb);
	return corr;
}

static void *pend_add(size_t sz)
{
	size_t step = (sz + 7) & ~(size_t)7;
	void *p;

	if (pend_len + step > pend_cap) {
		size_t cap = pend_cap ? 2 * pend_cap : 1 << 16;
		uint8_t *t;

		while (cap < pend_len + step)
			cap *= 2;
		t = realloc(pend, cap);
		if (!t)
			return NULL;
		pend = t;
		pend_cap = cap;
	}
	p = pend + pend_len;
	memset(p, 0, step);
	pend_len += step;
	return p;
}

static const char *intern(const char *s)
{
	for (int i = 0; i < nr_names; i++)
		if (!strcmp(names[i], s))
			return names[i];
	if (nr_names == 1024)
		return "?";
	names[nr_names] = strdup(s);
	return names[nr_names] ? names[nr_names++] : "?";
}

/* A kernel ran (for dur ns, from now): its activity record and, with PC
 * sampling on, samples at PC offsets inside its section. */
EXPORT void zt_standin_kernel(uint32_t corr, const char *name, const unsigned grid[3],
			      const unsigned block[3], unsigned smem, uint64_t dur)
{
	CUpti_ActivityKernel10 *k;
	uint64_t t;
	int ki = -1;

	pthread_mutex_lock(&mu);
	t = now();
	if (act_kind[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] || act_kind[CUPTI_ACTIVITY_KIND_KERNEL]) {
		k = pend_add(sizeof(*k));
		if (k) {
			k->kind = act_kind[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]
					  ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL : CUPTI_ACTIVITY_KIND_KERNEL;
			k->start = t + 2000;
			k->end = t + 2000 + dur;
			k->queued = t + 500;
			k->submitted = t + 1000;
			k->completed = k->end;
			k->deviceId = 0;
			k->contextId = 1;
			k->streamId = 7;
			k->correlationId = corr;
			k->gridX = (int32_t)grid[0];
			k->gridY = (int32_t)grid[1];
			k->gridZ = (int32_t)grid[2];
			k->blockX = (int32_t)block[0];
			k->blockY = (int32_t)block[1];
			k->blockZ = (int32_t)block[2];
			k->registersPerThread = 32;
			k->staticSharedMemory = 0;
			k->dynamicSharedMemory = (int32_t)smem;
			k->localMemoryPerThread = 0;
			k->name = intern(name);
		}
	}
	for (int i = 0; i < nr_kern; i++)
		if (!strcmp(kern[i].name, name))
			ki = i;
	if (pcs_enabled && ki >= 0 && kern[ki].size >= 16) {
		uint64_t npc = kern[ki].size / 16;

		/* a hot spot a quarter into the kernel and a spread of others */
		for (unsigned s = 0; s < 6; s++) {
			uint64_t pc = s < 3 ? (npc / 4) * 16 : ((corr * 7 + s * 13) % npc) * 16;
			uint32_t st = stall_index[(corr + s) % NR_SAMPLED];
			int j;

			for (j = 0; j < nr_pcs; j++)
				if (pcs[j].k == ki && pcs[j].pc == pc && pcs[j].stall == st &&
				    (!pcs_serialized || pcs[j].corr == corr))
					break;
			if (j == nr_pcs) {
				if (nr_pcs == MAX_PCS) {
					pcs_dropped += 3;
					continue;
				}
				pcs[nr_pcs].k = ki;
				pcs[nr_pcs].pc = pc;
				pcs[nr_pcs].stall = st;
				pcs[nr_pcs].samples = 0;
				pcs[nr_pcs].corr = corr;
				nr_pcs++;
			}
			pcs[j].samples += 3;
		}
	}
	pthread_mutex_unlock(&mu);
}

/* A copy (kind: CUpti_ActivityMemcpyKind) or, with set, a memset. */
EXPORT void zt_standin_memop(uint32_t corr, int set, int copy_kind, uint64_t bytes, uint64_t dur)
{
	uint64_t t;

	pthread_mutex_lock(&mu);
	t = now();
	if (set && act_kind[CUPTI_ACTIVITY_KIND_MEMSET]) {
		CUpti_ActivityMemset4 *m = pend_add(sizeof(*m));

		if (m) {
			m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
			m->bytes = bytes;
			m->start = t + 1000;
			m->end = t + 1000 + dur;
			m->deviceId = 0;
			m->contextId = 1;
			m->streamId = 7;
			m->correlationId = corr;
			m->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
		}
	} else if (!set && act_kind[CUPTI_ACTIVITY_KIND_MEMCPY]) {
		CUpti_ActivityMemcpy6 *m = pend_add(sizeof(*m));

		if (m) {
			m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
			m->copyKind = (uint8_t)copy_kind;
			m->srcKind = copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD
					     ? CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
					     : CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
			m->dstKind = copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH
					     ? CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
					     : CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
			m->bytes = bytes;
			m->start = t + 1000;
			m->end = t + 1000 + dur;
			m->deviceId = 0;
			m->contextId = 1;
			m->streamId = 7;
			m->correlationId = corr;
		}
	}
	pthread_mutex_unlock(&mu);
}

/* The device finished what was queued (cuCtxSynchronize): completed
 * buffers go to the subscriber. */
EXPORT void zt_standin_sync(void)
{
	cuptiActivityFlushAll(0);
}

/* graph launches: cuda_app has none */
EXPORT CUptiResult cuptiGetGraphId(CUgraph g, uint32_t *id)
{
	return CUPTI_ERROR_INVALID_PARAMETER;
}

EXPORT CUptiResult cuptiGetGraphExecId(CUgraphExec g, uint32_t *id)
{
	return CUPTI_ERROR_INVALID_PARAMETER;
}
