/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libztcupti.so's costs, through the code CUPTI calls (no GPU needed):
 *   launch   CPU ns a kernel launch adds: the four callbacks of one
 *            cudaLaunchKernel (runtime ENTER, the nested cuLaunchKernel's
 *            ENTER and EXIT, runtime EXIT) into the real callback, against
 *            the same four calls into a no-op callback, interleaved in one
 *            run; median and p99; then every launch admitted (stack_rate
 *            high: in-process unwinding and stack dedup) and stacks=usdt
 *            with no tracer attached
 *   pcs      PC-sampling aggregation: CUpti_PCSamplingData buffers into the
 *            aggregator, records/s on one core
 *   memory   the budget's peak and the process's peak RSS growth while far
 *            more records arrive than mem_mb holds
 *   size     bytes per kernel record and per PC-sample bucket in the file,
 *            raw and zstd -3 (as zt.data compresses its chunks)
 *   usdt     every launch admitted and firing zt:launch with a BPF program
 *            attached (root), the uprobe's cost
 * Usage: cupti_bench launch|usdt|pcs|memory|size [launches] (default 1000000);
 * one mode per process (memory measures the process's peak RSS).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <bpf/libbpf.h>

#include <cupti.h>
#include <cupti_pcsampling.h>

#include "cupti/core.h"
#include "cupti/glue.h"
#include "tests/unit/cupti/zgwalk.h"

typedef void(CUPTIAPI *cb_fn)(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *);

static void CUPTIAPI noop_callback(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId id,
				   const void *data)
{
	__asm__ volatile("" : : "r"(data) : "memory");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t pct(uint32_t *v, size_t n, double p)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return v[(size_t)(p * (double)(n - 1))];
}

/* one cudaLaunchKernel as CUPTI reports it: ns */
static uint32_t one_launch(cb_fn cb, uint32_t corr);

/* the same from depth frames down (a real application's stack is deep) */
static __attribute__((noinline)) uint32_t deep_launch(cb_fn cb, uint32_t corr, int depth)
{
	uint32_t r;

	if (depth <= 0)
		return one_launch(cb, corr);
	r = deep_launch(cb, corr, depth - 1);
	__asm__ volatile("" : "+r"(r) : : "memory"); /* a real frame, no tail call */
	return r;
}

static __attribute__((noinline)) uint32_t one_launch(cb_fn cb, uint32_t corr)
{
	CUpti_CallbackData rt, drv;
	uint64_t t0, t1;

	memset(&rt, 0, sizeof(rt));
	memset(&drv, 0, sizeof(drv));
	rt.functionName = "cudaLaunchKernel";
	rt.correlationId = corr;
	drv.functionName = "cuLaunchKernel";
	drv.correlationId = corr + 1;
	t0 = now_ns();
	rt.callbackSite = CUPTI_API_ENTER;
	cb(NULL, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &rt);
	drv.callbackSite = CUPTI_API_ENTER;
	cb(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &drv);
	drv.callbackSite = CUPTI_API_EXIT;
	cb(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &drv);
	rt.callbackSite = CUPTI_API_EXIT;
	cb(NULL, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &rt);
	t1 = now_ns();
	return (uint32_t)(t1 - t0);
}

static void bench_launch(const char *dir, size_t n)
{
	uint32_t *real = malloc(n * sizeof(*real)), *noop = malloc(n * sizeof(*noop));
	struct zg_counters c;
	size_t i, j, block = 10000;
	uint32_t corr = 2;
	double mr, mn;
	static const struct {
		const char *opts, *what;
		int depth;
	} more[] = {
		{"stacks=unwind,stack_rate=1000000",
		 "every launch with an in-process stack (unwind + dedup), 8 frames", 0},
		{"stacks=unwind,stack_rate=1000000",
		 "every launch with an in-process stack (unwind + dedup), 70 frames", 62},
		{"stacks=usdt,stack_rate=1000000",
		 "every launch firing zt:launch, no tracer attached", 0},
	};

	if (ztc_glue_start(dir, NULL)) {
		fprintf(stderr, "cupti_bench: cannot start the library in %s\n", dir);
		exit(1);
	}
	for (i = 0; i < 20000; i++) /* warm up: threads, rings, caches */
		one_launch(ztc_glue_callback, corr += 2), one_launch(noop_callback, corr += 2);
	/* interleaved blocks: both see the same machine state */
	for (i = 0; i < n; i += block) {
		for (j = i; j < i + block && j < n; j++)
			real[j] = one_launch(ztc_glue_callback, corr += 2);
		for (j = i; j < i + block && j < n; j++)
			noop[j] = one_launch(noop_callback, corr += 2);
	}
	zc_counters(ztc_glue_core(), &c);
	ztc_glue_stop();
	mr = pct(real, n, 0.5);
	mn = pct(noop, n, 0.5);
	printf("launch: %zu launches (4 callbacks each: runtime + nested driver, enter + exit), "
	       "defaults (stacks=auto, no tracer: unwind at 100/s per thread)\n",
	       n);
	printf("  real callback : median %4.0f ns, p99 %5u ns\n", mr, pct(real, n, 0.99));
	printf("  no-op callback: median %4.0f ns, p99 %5u ns\n", mn, pct(noop, n, 0.99));
	printf("  added per launch: median %.0f ns (goal <= 2000), ratio real/no-op %.2f; "
	       "%llu of %llu launches with a stack\n",
	       mr - mn, mn > 0 ? mr / mn : 0.0, (unsigned long long)c.launch_stacks,
	       (unsigned long long)c.launches);
	for (i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
		size_t m = n / 10 ? n / 10 : 1;

		if (ztc_glue_start(dir, more[i].opts))
			exit(1);
		for (j = 0; j < 1000; j++)
			deep_launch(ztc_glue_callback, corr += 2, more[i].depth);
		for (j = 0; j < m; j++)
			real[j] = deep_launch(ztc_glue_callback, corr += 2, more[i].depth);
		zc_counters(ztc_glue_core(), &c);
		ztc_glue_stop();
		printf("  %s: median %u ns, p99 %u ns (%llu of %llu with a stack)\n", more[i].what,
		       pct(real, m, 0.5), pct(real, m, 0.99), (unsigned long long)c.launch_stacks,
		       (unsigned long long)c.launches);
	}
	free(real);
	free(noop);
}

/* every launch firing zt:launch with a BPF program attached to it (root) */
static void bench_usdt(const char *dir, size_t m)
{
	uint32_t *v = malloc(m * sizeof(*v)), corr = 2;
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_link *link;
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t j;

	libbpf_set_print(NULL);
	obj = bpf_object__open_file(ZT_USDT_BPF, NULL);
	if (len <= 0 || libbpf_get_error(obj) || bpf_object__load(obj)) {
		printf("  (every launch firing zt:launch with BPF attached: not measured, needs "
		       "root "
		       "and BPF)\n");
		free(v);
		return;
	}
	exe[len] = 0;
	prog = bpf_object__find_program_by_name(obj, "on_launch");
	link = bpf_program__attach_usdt(prog, getpid(), exe, "zt", "launch", NULL);
	if (libbpf_get_error(link) || ztc_glue_start(dir, "stack_rate=1000000")) {
		printf("  (zt:launch: cannot attach)\n");
		bpf_object__close(obj);
		free(v);
		return;
	}
	for (j = 0; j < 1000; j++)
		one_launch(ztc_glue_callback, corr += 2);
	for (j = 0; j < m; j++)
		v[j] = one_launch(ztc_glue_callback, corr += 2);
	ztc_glue_stop();
	bpf_link__destroy(link);
	bpf_object__close(obj);
	printf("  every launch firing zt:launch, a BPF program attached (uprobe): median %u ns, "
	       "p99 %u ns\n",
	       pct(v, m, 0.5), pct(v, m, 0.99));
	free(v);
}

/* npcs PCs over nfn functions, 2 stall reasons each, of a buffer CUPTI filled */
struct pcbuf {
	CUpti_PCSamplingData d;
	CUpti_PCSamplingPCData *pc;
	CUpti_PCSamplingStallReason *st;
};

static void pcbuf_fill(struct pcbuf *b, size_t npcs, uint32_t seed)
{
	static char names[8][32];
	size_t i;

	b->pc = calloc(npcs, sizeof(*b->pc));
	b->st = calloc(2 * npcs, sizeof(*b->st));
	for (i = 0; i < 8; i++)
		snprintf(names[i], sizeof(names[i]), "_Z7kernel%zuPfS_i", i);
	for (i = 0; i < npcs; i++) {
		uint32_t fn = (uint32_t)(i % 8);

		b->pc[i].size = sizeof(b->pc[i]);
		b->pc[i].cubinCrc = 0x1234567890ull + fn / 4;
		b->pc[i].pcOffset = 16 * ((i * 7 + seed) % 2048);
		b->pc[i].functionIndex = fn;
		b->pc[i].functionName = names[fn];
		b->pc[i].stallReasonCount = 2;
		b->pc[i].stallReason = &b->st[2 * i];
		b->st[2 * i] = (CUpti_PCSamplingStallReason){(uint32_t)(i % 5), 3};
		b->st[2 * i + 1] = (CUpti_PCSamplingStallReason){7 + (uint32_t)(i % 11), 1};
	}
	memset(&b->d, 0, sizeof(b->d));
	b->d.size = sizeof(b->d);
	b->d.collectNumPcs = npcs;
	b->d.totalNumPcs = npcs;
	b->d.totalSamples = 4 * npcs;
	b->d.pPcData = b->pc;
}

static void pcbuf_free(struct pcbuf *b)
{
	free(b->pc);
	free(b->st);
}

static void bench_pcs(const char *dir)
{
	struct pcbuf b[4];
	uint64_t t0, t1, pcs = 0;
	size_t i, rounds = 0;
	double secs;

	for (i = 0; i < 4; i++)
		pcbuf_fill(&b[i], 1024, (uint32_t)i * 977);
	if (ztc_glue_start(dir, "flush_ms=100"))
		exit(1);
	t0 = now_ns();
	do {
		for (i = 0; i < 64; i++, rounds++)
			ztc_glue_pcs_consume(1, &b[rounds % 4].d);
		t1 = now_ns();
	} while (t1 - t0 < 1000000000ull);
	ztc_glue_stop();
	pcs = rounds * 1024;
	secs = (double)(t1 - t0) / 1e9;
	printf("pcs: %llu PC records (%llu {pc, stall} records) in %.2f s on one core: "
	       "%.1f M PC records/s, %.1f M stall records/s (goal >= 10 M records/s)\n",
	       (unsigned long long)pcs, (unsigned long long)(2 * pcs), secs,
	       (double)pcs / secs / 1e6, 2.0 * (double)pcs / secs / 1e6);
	for (i = 0; i < 4; i++)
		pcbuf_free(&b[i]);
}

static long vm_hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

static CUpti_ActivityKernel10 mk_k10(uint32_t i)
{
	static const char *const names[] = {
		"_Z6vecaddPKfS0_Pfi",
		"_ZN7cutlass6KernelINS_4gemm6kernel4GemmINS1_11threadblock12MmaPipelinedEEEEvNT_"
		"6ParamsE",
		"_Z15reduce_kernel_1PfS_j",
		"void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
		"_Z9transposePfPKfii",
	};
	CUpti_ActivityKernel10 k;

	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.registersPerThread = 32;
	k.start = 1000000000ull + (uint64_t)i * 12000 + (i % 7) * 13;
	k.end = k.start + 8000 + (i % 13) * 211;
	k.deviceId = 0;
	k.contextId = 1;
	k.streamId = 7 + i % 4;
	k.gridX = 1024 * (1 + (int32_t)(i % 3));
	k.gridY = k.gridZ = 1;
	k.blockX = 256;
	k.blockY = k.blockZ = 1;
	k.staticSharedMemory = 4096;
	k.correlationId = 1000 + 2 * i;
	k.name = names[i % 5];
	return k;
}

/* n kernels through activity buffers, as CUPTI delivers them */
static void feed_kernels(uint32_t from, uint32_t n)
{
	uint32_t i = 0;

	while (i < n) {
		uint8_t *buf;
		size_t size, max, len = 0;

		ztc_glue_buffer_requested(&buf, &size, &max);
		if (!buf)
			return;
		for (; i < n && len + sizeof(CUpti_ActivityKernel10) <= size; i++) {
			CUpti_ActivityKernel10 k = mk_k10(from + i);

			memcpy(buf + len, &k, sizeof(k));
			len += sizeof(k);
		}
		ztc_glue_buffer_completed(NULL, 0, buf, size, len);
	}
}

static void bench_memory(const char *dir)
{
	long before = vm_hwm_kb(), after;
	struct zg_counters c;
	struct pcbuf b;
	uint32_t i;

	if (ztc_glue_start(dir, "mem_mb=16,flush_ms=1000"))
		exit(1);
	pcbuf_fill(&b, 1024, 5);
	/* 2M kernels (430 MB of CUPTI records), launches and PC samples within a second */
	for (i = 0; i < 20; i++) {
		feed_kernels(i * 100000, 100000);
		ztc_glue_pcs_consume(1, &b.d);
	}
	for (i = 0; i < 200000; i++)
		one_launch(ztc_glue_callback, 2 * i);
	zc_counters(ztc_glue_core(), &c);
	printf("memory: mem_mb=16: 2,000,000 kernels, 200,000 launches, 20,480 PC records in "
	       "under a flush period: budget peak %.1f MiB of 16; process peak RSS +%.1f MiB; "
	       "%llu records dropped at the cap\n",
	       (double)zc_mem_peak(ztc_glue_core()) / 1048576.0,
	       ((after = vm_hwm_kb()) - before) / 1024.0, (unsigned long long)c.mem_dropped);
	ztc_glue_stop();
	pcbuf_free(&b);
}

/* the payload bytes of every frame of a type (headers included), and its records */
static size_t frames_of(const struct zgw_file *f, uint32_t type, uint8_t **out, size_t *recs)
{
	size_t i, len = 0;

	*out = NULL;
	*recs = 0;
	for (i = 0; i < f->nfr; i++)
		if (f->fr[i].type == type) {
			*out = realloc(*out, len + 16 + f->fr[i].len);
			memcpy(*out + len, f->fr[i].p - 16, 16 + f->fr[i].len);
			len += 16 + f->fr[i].len;
			*recs += f->fr[i].count;
		}
	return len;
}

static void report_size(const struct zgw_file *f, uint32_t type, const char *what)
{
	size_t recs, raw = 0, z;
	uint8_t *p;
	void *zb;

	raw = frames_of(f, type, &p, &recs);
	if (!recs) {
		free(p);
		return;
	}
	zb = malloc(ZSTD_compressBound(raw));
	z = ZSTD_compress(zb, ZSTD_compressBound(raw), p, raw, 3);
	printf("  %-22s %8zu records: %6.1f bytes each raw, %5.1f after zstd -3\n", what, recs,
	       (double)raw / (double)recs, ZSTD_isError(z) ? 0.0 : (double)z / (double)recs);
	free(zb);
	free(p);
}

static void bench_size(const char *dir)
{
	struct pcbuf b[4];
	struct zgw_file f;
	char path[512];
	uint32_t i;

	if (ztc_glue_start(dir, "stacks=off"))
		exit(1);
	feed_kernels(0, 100000);
	for (i = 0; i < 100000; i++)
		one_launch(ztc_glue_callback, 1000 + 2 * i);
	for (i = 0; i < 4; i++) {
		pcbuf_fill(&b[i], 1024, i * 977);
		ztc_glue_pcs_consume(1, &b[i].d);
	}
	ztc_glue_stop();
	if (zgwalk_find(dir, path, sizeof(path)) || zgwalk_load(&f, path)) {
		fprintf(stderr, "cupti_bench: cannot read back the file in %s\n", dir);
		exit(1);
	}
	printf("size: 100,000 kernels (5 names, 4 streams), 100,000 launches (runtime + nested "
	       "driver), PC buckets of 4 buffers:\n");
	report_size(&f, ZG_KERNEL, "kernel (ZG_KERNEL)");
	report_size(&f, ZG_LAUNCH, "launch (ZG_LAUNCH)");
	report_size(&f, ZG_PCS, "PC bucket (ZG_PCS)");
	zgwalk_free(&f);
	for (i = 0; i < 4; i++)
		pcbuf_free(&b[i]);
}

static void fresh(char *dir, size_t n)
{
	if (*dir)
		zgwalk_rmdir(dir);
	if (!zgwalk_tmpdir(dir, n)) {
		perror("cupti_bench: mkdtemp");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
	char dir[64] = "";

	if (n < 10000)
		n = 10000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	fresh(dir, sizeof(dir));
	if (!strcmp(mode, "launch"))
		bench_launch(dir, n);
	else if (!strcmp(mode, "usdt"))
		bench_usdt(dir, n / 10);
	else if (!strcmp(mode, "pcs"))
		bench_pcs(dir);
	else if (!strcmp(mode, "memory"))
		bench_memory(dir);
	else if (!strcmp(mode, "size"))
		bench_size(dir);
	else {
		fprintf(stderr, "usage: cupti_bench launch|usdt|pcs|memory|size [launches]\n");
		zgwalk_rmdir(dir);
		return 2;
	}
	zgwalk_rmdir(dir);
	return 0;
}
