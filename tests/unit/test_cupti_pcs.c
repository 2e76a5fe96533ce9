/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PC sampling and graph ids in libztcupti.so's CUPTI layer, with the CUPTI
 * calls that need a GPU replaced at link time (-Wl,--wrap: this binary
 * only, the real libcupti otherwise): enabling and configuring at context
 * creation, the stall table, GetData drains at launches (continuous: at
 * most every 100 ms; serialized: every launch) with more PCs than one
 * call returns, the configured buffer at module loads and at disable, a
 * full hardware buffer, missing privileges, context destruction, graph
 * launches named by the graph their executable graph was made from.
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
#include "tests/unit/cupti/zgwalk.h"

#define CTX   ((CUcontext)(uintptr_t)0x1000)
#define EXEC  ((CUgraphExec)(uintptr_t)0x2000)
#define GRAPH ((CUgraph)(uintptr_t)0x3000)

/* ---- the wrapped CUPTI calls ------------------------------------------ */

static struct fake {
	CUptiResult enable_ret, getdata_ret;
	int enabled, disabled, getdata_calls, hw_full;
	size_t remaining;	   /* PCs GetData still has after this call */
	CUpti_PCSamplingData *cfg; /* the buffer configured */
	int mode;
	uint32_t period;
	size_t nstall_cfg;
	int period_set;
} fk;

static const char *const stall_names[] = {"smsp__pcsamp_warps_issue_stalled_selected",
					  "smsp__pcsamp_warps_issue_stalled_barrier"};
static const uint32_t stall_idx[] = {0, 3};
static char fn_name[] = "_Z6kernelPf";

CUptiResult __wrap_cuptiGetContextId(CUcontext ctx, uint32_t *id);
CUptiResult __wrap_cuptiGetContextId(CUcontext ctx, uint32_t *id)
{
	if (ctx != CTX)
		return CUPTI_ERROR_INVALID_CONTEXT;
	*id = 5;
	return CUPTI_SUCCESS;
}

CUptiResult __wrap_cuptiPCSamplingEnable(CUpti_PCSamplingEnableParams *p);
CUptiResult __wrap_cuptiPCSamplingEnable(CUpti_PCSamplingEnableParams *p)
{
	assert_int_equal(p->size, CUpti_PCSamplingEnableParamsSize);
	assert_ptr_equal(p->ctx, CTX);
	if (fk.enable_ret == CUPTI_SUCCESS)
		fk.enabled++;
	return fk.enable_ret;
}

CUptiResult __wrap_cuptiPCSamplingGetNumStallReasons(CUpti_PCSamplingGetNumStallReasonsParams *p);
CUptiResult __wrap_cuptiPCSamplingGetNumStallReasons(CUpti_PCSamplingGetNumStallReasonsParams *p)
{
	assert_int_equal(p->size, CUpti_PCSamplingGetNumStallReasonsParamsSize);
	*p->numStallReasons = 2;
	return CUPTI_SUCCESS;
}

CUptiResult __wrap_cuptiPCSamplingGetStallReasons(CUpti_PCSamplingGetStallReasonsParams *p);
CUptiResult __wrap_cuptiPCSamplingGetStallReasons(CUpti_PCSamplingGetStallReasonsParams *p)
{
	size_t i;

	assert_int_equal(p->size, CUpti_PCSamplingGetStallReasonsParamsSize);
	assert_int_equal(p->numStallReasons, 2);
	for (i = 0; i < 2; i++) {
		p->stallReasonIndex[i] = stall_idx[i];
		strcpy(p->stallReasons[i],
		       stall_names[i]); /* CUPTI_STALL_REASON_STRING_SIZE each */
	}
	return CUPTI_SUCCESS;
}

CUptiResult
__wrap_cuptiPCSamplingSetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams *p);
CUptiResult
__wrap_cuptiPCSamplingSetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams *p)
{
	size_t i;

	assert_int_equal(p->size, CUpti_PCSamplingConfigurationInfoParamsSize);
	for (i = 0; i < p->numAttributes; i++) {
		const CUpti_PCSamplingConfigurationInfo *a = &p->pPCSamplingConfigurationInfo[i];

		switch (a->attributeType) {
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER:
			fk.cfg = a->attributeData.samplingDataBufferData.samplingDataBuffer;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE:
			fk.mode = a->attributeData.collectionModeData.collectionMode;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD:
			fk.period = a->attributeData.samplingPeriodData.samplingPeriod;
			fk.period_set = 1;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON:
			fk.nstall_cfg = a->attributeData.stallReasonData.stallReasonCount;
			assert_int_equal(a->attributeData.stallReasonData.pStallReasonIndex[1], 3);
			break;
		default:
			fail_msg("attribute %d set", (int)a->attributeType);
		}
	}
	return CUPTI_SUCCESS;
}

/*
 * The function's name as the real CUPTI 13 hands it out: one heap string
 * per function, shared by all its PC records, every GetData and the
 * activity records ("should not be modified or freed until post
 * processing of all the records is done", cupti_pcsampling.h). A client
 * that frees it per record frees it twice in the first buffer with two
 * PCs of a function (the abort on an H200: tests/gpu/H200-RUN-1.md);
 * here ASan reports it, and without ASan glibc aborts or the check of
 * the string below fails (tcache writes into freed memory).
 */
static char *shared_name;

static const char *cupti_name(void)
{
	if (!shared_name) {
		shared_name = malloc(sizeof(fn_name));
		assert_non_null(shared_name);
		memcpy(shared_name, fn_name, sizeof(fn_name));
	}
	assert_string_equal(shared_name, fn_name); /* still CUPTI's, intact */
	return shared_name;
}

/* one PC at pc, stall 3, samples */
static void fill_pc(CUpti_PCSamplingPCData *pc, uint64_t off, uint32_t samples, uint32_t corr)
{
	pc->cubinCrc = 0xc0b1;
	pc->pcOffset = off;
	pc->functionIndex = 2;
	pc->functionName = (char *)cupti_name();
	pc->stallReasonCount = 1;
	pc->stallReason[0].pcSamplingStallReasonIndex = 3;
	pc->stallReason[0].samples = samples;
	pc->correlationId = corr;
}

CUptiResult __wrap_cuptiPCSamplingGetData(CUpti_PCSamplingGetDataParams *p);
CUptiResult __wrap_cuptiPCSamplingGetData(CUpti_PCSamplingGetDataParams *p)
{
	CUpti_PCSamplingData *d = p->pcSamplingData;

	assert_int_equal(p->size, CUpti_PCSamplingGetDataParamsSize);
	assert_ptr_equal(p->ctx, CTX);
	assert_ptr_not_equal(d, fk.cfg); /* its own buffer, not the configured one */
	assert_true(d->collectNumPcs >= 2);
	fk.getdata_calls++;
	if (fk.getdata_ret != CUPTI_SUCCESS) {
		d->hardwareBufferFull = (uint8_t)fk.hw_full;
		return fk.getdata_ret;
	}
	/* two PCs a call, the same PC each time: 10 samples each */
	fill_pc(&d->pPcData[0], 0x100, 10, fk.mode == 2 ? 77 : 0);
	fill_pc(&d->pPcData[1], 0x200, 1, fk.mode == 2 ? 77 : 0);
	d->totalNumPcs = 2;
	d->totalSamples = 11;
	d->remainingNumPcs = fk.remaining > 2 ? fk.remaining - 2 : 0;
	fk.remaining = d->remainingNumPcs;
	return CUPTI_SUCCESS;
}

CUptiResult __wrap_cuptiPCSamplingDisable(CUpti_PCSamplingDisableParams *p);
CUptiResult __wrap_cuptiPCSamplingDisable(CUpti_PCSamplingDisableParams *p)
{
	assert_ptr_equal(p->ctx, CTX);
	fk.disabled++;
	/* what was left goes to the configured buffer */
	if (fk.cfg) {
		fill_pc(&fk.cfg->pPcData[0], 0x300, 4, 0);
		fk.cfg->totalNumPcs = 1;
	}
	return CUPTI_SUCCESS;
}

CUptiResult __wrap_cuptiGetGraphExecId(CUgraphExec exec, uint32_t *id);
CUptiResult __wrap_cuptiGetGraphExecId(CUgraphExec exec, uint32_t *id)
{
	if (exec != EXEC)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*id = 21;
	return CUPTI_SUCCESS;
}

CUptiResult __wrap_cuptiGetGraphId(CUgraph graph, uint32_t *id);
CUptiResult __wrap_cuptiGetGraphId(CUgraph graph, uint32_t *id)
{
	if (graph != GRAPH)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*id = 12;
	return CUPTI_SUCCESS;
}

/* ---- helpers ------------------------------------------------------------ */

struct fx {
	char dir[64];
	struct zgw_file f;
};

static void fx_start(struct fx *x, const char *opts)
{
	memset(x, 0, sizeof(*x));
	memset(&fk, 0, sizeof(fk));
	assert_non_null(zgwalk_tmpdir(x->dir, sizeof(x->dir)));
	assert_int_equal(ztc_glue_start(x->dir, opts), 0);
}

static void fx_load(struct fx *x)
{
	char path[256];

	ztc_glue_stop();
	assert_int_equal(zgwalk_find(x->dir, path, sizeof(path)), 0);
	if (zgwalk_load(&x->f, path))
		fail_msg("%s: %s", path, x->f.err);
}

static void fx_done(struct fx *x)
{
	/* CUPTI's names live as long as CUPTI: released by it, once, at the end */
	if (shared_name)
		assert_string_equal(shared_name, fn_name);
	free(shared_name);
	shared_name = NULL;
	zgwalk_free(&x->f);
	zgwalk_rmdir(x->dir);
}

static void resource(CUpti_CallbackId cbid, void *desc)
{
	CUpti_ResourceData r;

	memset(&r, 0, sizeof(r));
	r.context = CTX;
	r.resourceDescriptor = desc;
	ztc_glue_callback(NULL, CUPTI_CB_DOMAIN_RESOURCE, cbid, &r);
}

static void api(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
		uint32_t corr, const void *params)
{
	CUpti_CallbackData cd;

	memset(&cd, 0, sizeof(cd));
	cd.callbackSite = site;
	cd.correlationId = corr;
	cd.functionParams = params;
	cd.context = CTX;
	ztc_glue_callback(NULL, dom, cbid, &cd);
}

static void launch(uint32_t corr)
{
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_ENTER,
	    corr, NULL);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_EXIT,
	    corr, NULL);
}

/* samples of (pc, stall 3) over every bucket of the file */
struct sum {
	uint64_t pc, samples;
	uint32_t corr, ctx;
	int n;
};

static void sum_pcs(const struct zgw_fr *fr, const void *rec, void *arg)
{
	struct sum *s = arg;
	struct zg_pcs p;

	memcpy(&p, rec, sizeof(p));
	if (p.pc_offset == s->pc && p.stall == 3) {
		s->samples += p.samples;
		s->corr = p.corr;
		s->ctx = p.context;
		s->n++;
	}
}

static uint64_t samples_at(const struct zgw_file *f, uint64_t pc, uint32_t *corr)
{
	struct sum s = {pc, 0, 0, 0, 0};

	zgwalk_each(f, ZG_PCS, sum_pcs, &s);
	if (corr)
		*corr = s.corr;
	if (s.n)
		assert_int_equal(s.ctx, 5);
	return s.samples;
}

/* ---- tests -------------------------------------------------------------- */

/* continuous: enable at context creation, drain at launches, close at destroy */
static void test_continuous(void **state)
{
	struct zg_counters c;
	struct fx x;
	size_t nst = 0, i;

	fx_start(&x, "pcs_period=12");
	resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, NULL);
	assert_int_equal(fk.enabled, 1);
	assert_non_null(fk.cfg);
	assert_int_equal(fk.mode, CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS);
	assert_true(fk.period_set);
	assert_int_equal(fk.period, 12);
	assert_int_equal(fk.nstall_cfg, 2);
	/* the same context again: nothing new */
	resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, NULL);
	assert_int_equal(fk.enabled, 1);

	/* the first launch drains (5 PCs waiting: three GetData calls), the
	 * next ones within 100 ms do not */
	fk.remaining = 5;
	launch(1);
	assert_int_equal(fk.getdata_calls, 3);
	launch(2);
	launch(3);
	assert_int_equal(fk.getdata_calls, 3);
	/* a module loaded after an unload: what CUPTI put in the configured buffer */
	fill_pc(&fk.cfg->pPcData[0], 0x400, 6, 0);
	fk.cfg->totalNumPcs = 1;
	resource(CUPTI_CBID_RESOURCE_MODULE_LOADED, NULL);
	assert_int_equal(fk.cfg->totalNumPcs, 0);
	/* destroy: a last drain, disable, the configured buffer */
	resource(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, NULL);
	assert_int_equal(fk.getdata_calls, 4);
	assert_int_equal(fk.disabled, 1);
	launch(4); /* no context: nothing to drain */
	assert_int_equal(fk.getdata_calls, 4);
	fx_load(&x);
	assert_int_equal(samples_at(&x.f, 0x100, NULL), 40);
	assert_int_equal(samples_at(&x.f, 0x200, NULL), 4);
	assert_int_equal(samples_at(&x.f, 0x300, NULL), 4);
	assert_int_equal(samples_at(&x.f, 0x400, NULL), 6);
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_int_equal(c.pc_total_samples, 44);
	for (i = 0; i < x.f.nfr; i++)
		if (x.f.fr[i].type == ZG_STALLS)
			nst += x.f.fr[i].count;
	assert_int_equal(nst, 2);
	assert_string_equal(zgwalk_info(&x.f, "pcs_mode", 0), "continuous");
	fx_done(&x);
}

/* serialized: every launch's samples at its return, with its correlation id;
 * contexts still sampling at exit are drained and disabled */
static void test_serialized(void **state)
{
	struct fx x;
	uint32_t corr = 0;

	fx_start(&x, "pcs=serialized");
	resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, NULL);
	assert_int_equal(fk.mode, CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED);
	assert_false(fk.period_set);
	launch(1);
	launch(2);
	assert_int_equal(fk.getdata_calls, 2);
	fx_load(&x);
	assert_int_equal(fk.disabled, 1); /* at exit */
	assert_int_equal(samples_at(&x.f, 0x100, &corr), 30);
	assert_int_equal(corr, 77);
	fx_done(&x);
}

/* a full hardware buffer: counted, one warning that says what to do */
static void test_hw_full(void **state)
{
	struct zg_counters c;
	struct fx x;

	fx_start(&x, NULL);
	resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, NULL);
	fk.getdata_ret = CUPTI_ERROR_OUT_OF_MEMORY;
	fk.hw_full = 1;
	launch(1);
	fx_load(&x);
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_true(c.pc_hw_buffer_full >= 1);
	assert_non_null(strstr(zgwalk_info(&x.f, "warning", 0), "hardware buffer was full"));
	assert_null(zgwalk_info(&x.f, "warning", 1));
	fx_done(&x);
}

/* no access to the performance counters: PC sampling off, the fix named */
static void test_no_privileges(void **state)
{
	struct fx x;
	const char *w;

	fx_start(&x, NULL);
	fk.enable_ret = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, NULL);
	launch(1);
	assert_int_equal(fk.getdata_calls, 0);
	fx_load(&x);
	w = zgwalk_info(&x.f, "warning", 0);
	assert_non_null(w);
	assert_non_null(strstr(w, "NVreg_RestrictProfilingToAdminUsers=0"));
	assert_non_null(strstr(w, "ERR_NVGPUCTRPERM"));
	assert_int_equal(zgwalk_count(&x.f, ZG_LAUNCH), 1);
	fx_done(&x);
}

/* pcs=off: no PC-sampling call at all */
static void test_pcs_off(void **state)
{
	struct fx x;

	fx_start(&x, "pcs=off");
	resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, NULL);
	launch(1);
	assert_int_equal(fk.enabled, 0);
	fx_load(&x);
	assert_int_equal(zgwalk_count(&x.f, ZG_STALLS), 0);
	fx_done(&x);
}

struct one_launch {
	struct zg_launch l[4];
	size_t n;
};

static void get_launch(const struct zgw_fr *fr, const void *rec, void *arg)
{
	struct one_launch *o = arg;

	if (o->n < 4)
		memcpy(&o->l[o->n], rec, sizeof(o->l[0]));
	o->n++;
}

/* a graph launch names the graph its executable graph was instantiated from */
static void test_graph_id(void **state)
{
	CUpti_GraphData gd;
	cuGraphLaunch_params gp = {EXEC, NULL};
	struct one_launch o = {.n = 0};
	struct fx x;

	fx_start(&x, "pcs=off,stacks=off");
	memset(&gd, 0, sizeof(gd));
	gd.graph = GRAPH;
	gd.graphExec = EXEC;
	resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, &gd);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_API_ENTER, 9,
	    &gp);
	api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_API_EXIT, 9,
	    &gp);
	fx_load(&x);
	zgwalk_each(&x.f, ZG_LAUNCH, get_launch, &o);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.l[0].flags, ZG_L_GRAPH);
	assert_int_equal(o.l[0].graph_id, 12);
	assert_int_equal(o.l[0].corr, 9);
	fx_done(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_continuous), cmocka_unit_test(test_serialized),
		cmocka_unit_test(test_hw_full),	   cmocka_unit_test(test_no_privileges),
		cmocka_unit_test(test_pcs_off),	   cmocka_unit_test(test_graph_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
