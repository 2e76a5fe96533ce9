/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of libztcupti.so's capture core (cupti/core.c and its
 * modules), through core.h only: options, launch nesting, the stack rate
 * limiter, stack dedup, records and their name pools, PC aggregation,
 * cubins, the memory cap, threads, the writer thread, fork. Every file is
 * read back by a strict reader written from wire.h (tests/unit/cupti/zgwalk).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "cupti/core.h"
#include "cupti/opts.h"
#include "cupti/unwind.h"
#include "tests/unit/cupti/zgwalk.h"

#define MS 1000000ull

struct fx {
	char dir[64];
	struct zc *zc;
	struct zgw_file f;
};

static struct zc *fx_new(struct fx *x, const char *opts)
{
	struct zc_opts o;

	memset(x, 0, sizeof(*x));
	assert_int_equal(zc_opts_parse(&o, opts, NULL, 0), 0);
	assert_non_null(zgwalk_tmpdir(x->dir, sizeof(x->dir)));
	x->zc = zc_new(&o);
	assert_non_null(x->zc);
	assert_int_equal(zc_open(x->zc, x->dir), 0);
	assert_true(zc_active(x->zc));
	return x->zc;
}

/* finish the core, read its file back through the strict reader */
static void fx_load(struct fx *x)
{
	char path[256];

	zc_finish(x->zc);
	assert_int_equal(zgwalk_find(x->dir, path, sizeof(path)), 0);
	if (zgwalk_load(&x->f, path))
		fail_msg("%s: %s", path, x->f.err);
	assert_int_equal(x->f.hdr.pid, (uint32_t)getpid());
	assert_true(strstr(path, zc_file_name(x->zc)) != NULL);
}

static void fx_done(struct fx *x)
{
	zgwalk_free(&x->f);
	zc_free(x->zc);
	zgwalk_rmdir(x->dir);
}

static __attribute__((noinline)) void launch(struct zc *zc, uint64_t now, uint32_t corr,
					     uint32_t cbid, uint32_t domain)
{
	struct zc_launch l = {now, (uintptr_t)__builtin_return_address(0), corr, cbid, domain, 0,
			      0};

	zc_launch_enter(zc, &l);
}

static void test_opts(void **state)
{
	struct zc_opts o;
	char bad[256];

	assert_int_equal(zc_opts_parse(&o, NULL, bad, sizeof(bad)), 0);
	assert_int_equal(o.pcs, ZC_PCS_CONTINUOUS);
	assert_int_equal(o.pcs_period, 0);
	assert_int_equal(o.stacks, ZC_STACKS_AUTO);
	assert_int_equal(o.stack_rate, 100);
	assert_int_equal(o.flush_ms, 500);
	assert_int_equal(o.mem_mb, 64);
	assert_int_equal(o.verbose, 0);
	assert_string_equal(bad, "");

	assert_int_equal(zc_opts_parse(&o,
				       "pcs=serialized,pcs_period=12,stacks=unwind,stack_rate=7,"
				       "flush_ms=250,mem_mb=9,verbose=1,future=x,,novalue",
				       bad, sizeof(bad)),
			 0);
	assert_int_equal(o.pcs, ZC_PCS_SERIALIZED);
	assert_int_equal(o.pcs_period, 12);
	assert_int_equal(o.stacks, ZC_STACKS_UNWIND);
	assert_int_equal(o.stack_rate, 7);
	assert_int_equal(o.flush_ms, 250);
	assert_int_equal(o.mem_mb, 9);
	assert_int_equal(o.verbose, 1);
	assert_string_equal(zc_pcs_mode_name(o.pcs), "serialized");
	assert_string_equal(zc_stacks_name(o.stacks), "unwind");

	assert_int_equal(zc_opts_parse(&o, "pcs=off,stacks=usdt,pcs_period=0", bad, sizeof(bad)),
			 0);
	assert_int_equal(o.pcs, ZC_PCS_OFF);
	assert_int_equal(o.stacks, ZC_STACKS_USDT);

	/* bad values keep their defaults (flush_ms is cut to 1000) and are named */
	assert_int_equal(zc_opts_parse(&o,
				       "pcs=sometimes,pcs_period=4,flush_ms=5000,mem_mb=0,"
				       "stack_rate=-1,verbose,stacks=,pcs_period=32",
				       bad, sizeof(bad)),
			 8);
	assert_int_equal(o.pcs, ZC_PCS_CONTINUOUS);
	assert_int_equal(o.pcs_period, 0);
	assert_int_equal(o.flush_ms, 1000);
	assert_int_equal(o.mem_mb, 64);
	assert_int_equal(o.stack_rate, 100);
	assert_int_equal(o.stacks, ZC_STACKS_AUTO);
	assert_non_null(strstr(bad, "'pcs=sometimes'"));
	assert_non_null(strstr(bad, "'flush_ms=5000'"));
	/* a short buffer is cut, never overrun */
	assert_int_equal(zc_opts_parse(&o, "pcs=a,pcs=b,pcs=c", bad, 8), 3);
	assert_true(strlen(bad) < 8);
}

/* a runtime launch fires a nested driver launch: the inner one points to the outer */
static void test_nesting(void **state)
{
	struct zg_counters c;
	struct zgw_launches ls = {.n = 0};
	struct fx x;
	struct zc *zc = fx_new(&x, "stacks=off");

	launch(zc, 100, 10, 211, 2);
	launch(zc, 101, 11, 307, 1);
	assert_int_equal(zc_launch_exit(zc, 11), 0);
	assert_int_equal(zc_launch_exit(zc, 10), 1);
	launch(zc, 200, 12, 307, 1);
	assert_int_equal(zc_launch_exit(zc, 12), 1);
	/* an exit without its enter (callbacks enabled mid-call) is ignored */
	assert_int_equal(zc_launch_exit(zc, 13), 0);
	/* an inner exit went missing: the outer one's exit still ends the nesting */
	launch(zc, 300, 20, 211, 2);
	launch(zc, 301, 21, 307, 1);
	assert_int_equal(zc_launch_exit(zc, 20), 1);
	launch(zc, 400, 22, 307, 1);
	assert_int_equal(zc_launch_exit(zc, 22), 1);
	fx_load(&x);
	zgwalk_each(&x.f, ZG_LAUNCH, zgwalk_get_launch, &ls);
	assert_int_equal(ls.n, 6);
	assert_int_equal(ls.l[4].flags, ZG_L_NESTED);
	assert_int_equal(ls.l[4].outer_corr, 20);
	assert_int_equal(ls.l[5].flags, 0);
	assert_int_equal(ls.l[0].corr, 10);
	assert_int_equal(ls.l[0].flags, 0);
	assert_int_equal(ls.l[0].outer_corr, 0);
	assert_int_equal(ls.l[0].domain, 2);
	assert_int_equal(ls.l[0].cbid, 211);
	assert_int_equal(ls.l[0].ts, 100);
	assert_int_equal(ls.l[0].tid, (uint32_t)gettid());
	assert_int_equal(ls.l[1].corr, 11);
	assert_int_equal(ls.l[1].flags, ZG_L_NESTED);
	assert_int_equal(ls.l[1].outer_corr, 10);
	assert_int_equal(ls.l[1].domain, 1);
	assert_int_equal(ls.l[2].corr, 12);
	assert_int_equal(ls.l[2].flags, 0);
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_int_equal(c.launches, 4); /* outermost only */
	assert_int_equal(c.launch_stacks, 0);
	fx_done(&x);
}

/* 5 stacks a second: a full bucket lets 5 through, then one every 200 ms */
static void test_rate_limit(void **state)
{
	uint64_t t0 = 1000000 * MS;
	struct zgw_launches ls = {.n = 0};
	struct zg_counters c;
	struct fx x;
	struct zc *zc = fx_new(&x, "stacks=unwind,stack_rate=5");
	volatile int ten = 10, six = 6; /* loops not unrolled: one call site each */
	int i, stacked = 0, limited = 0;

	for (i = 0; i < ten; i++) {
		launch(zc, t0 + (uint64_t)i * MS, 100 + i, 307, 1);
		zc_launch_exit(zc, 100 + i);
	}
	/* a second later the bucket is full again */
	for (i = 0; i < six; i++) {
		launch(zc, t0 + 1000 * MS + (uint64_t)i * MS, 200 + i, 307, 1);
		zc_launch_exit(zc, 200 + i);
	}
	/* 200 ms after that, one more fits */
	launch(zc, t0 + 1205 * MS, 300, 307, 1);
	zc_launch_exit(zc, 300);
	fx_load(&x);
	zgwalk_each(&x.f, ZG_LAUNCH, zgwalk_get_launch, &ls);
	assert_int_equal(ls.n, 17);
	for (i = 0; i < 17; i++) {
		int want_stack = i < 5 || (i >= 10 && i < 15) || i == 16;

		if (want_stack) {
			assert_int_equal(ls.l[i].flags, ZG_L_STACK);
			assert_true(ls.l[i].stack != 0);
			stacked++;
		} else {
			assert_int_equal(ls.l[i].flags, ZG_L_RATELIMITED);
			assert_int_equal(ls.l[i].stack, 0);
			limited++;
		}
	}
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_int_equal(c.launches, 17);
	assert_int_equal(c.launch_stacks, (uint64_t)stacked);
	assert_int_equal(c.launch_ratelimited, (uint64_t)limited);
	/* three call sites, three stacks, each written once */
	assert_int_equal(zgwalk_count(&x.f, ZG_STACK), 3);
	assert_int_equal(ls.l[0].stack, ls.l[4].stack);
	assert_int_equal(ls.l[10].stack, ls.l[14].stack);
	fx_done(&x);
}

static __attribute__((noinline)) void site_a(struct zc *zc, uint32_t corr)
{
	launch(zc, zc_now(), corr, 307, 1);
	zc_launch_exit(zc, corr);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

static __attribute__((noinline)) void site_b(struct zc *zc, uint32_t corr)
{
	launch(zc, zc_now(), corr, 307, 1);
	zc_launch_exit(zc, corr);
	__asm__ volatile("" ::: "memory");
}

/* in-process stacks start at the caller's frame and are written once each */
static void test_stacks(void **state)
{
	struct zgw_launches ls = {.n = 0};
	uint64_t ips[ZC_UNWIND_MAX];
	struct fx x;
	struct zc *zc = fx_new(&x, "stacks=unwind,stack_rate=100000");
	volatile uint32_t two = 2; /* not unrolled */
	uint32_t n, i;

	for (i = 1; i <= two; i++) /* one call site: one stack */
		site_a(zc, i);
	site_b(zc, 3);
	fx_load(&x);
	zgwalk_each(&x.f, ZG_LAUNCH, zgwalk_get_launch, &ls);
	assert_int_equal(ls.n, 3);
	assert_int_equal(zgwalk_count(&x.f, ZG_STACK), 2);
	assert_int_equal(ls.l[0].flags, ZG_L_STACK);
	assert_int_equal(ls.l[0].stack, ls.l[1].stack);
	assert_int_not_equal(ls.l[0].stack, ls.l[2].stack);
	n = zgwalk_stack(&x.f, ls.l[0].stack, ips, ZC_UNWIND_MAX);
	assert_true(n >= 3);
	/* leaf first: a return address into site_a, then one into this test */
	assert_true(ips[0] > (uintptr_t)site_a && ips[0] < (uintptr_t)site_a + 256);
	assert_true(ips[1] > (uintptr_t)test_stacks && ips[1] < (uintptr_t)test_stacks + 4096);
	n = zgwalk_stack(&x.f, ls.l[2].stack, ips, ZC_UNWIND_MAX);
	assert_true(n >= 3);
	assert_true(ips[0] > (uintptr_t)site_b && ips[0] < (uintptr_t)site_b + 256);
	fx_done(&x);
}

/* stacks=usdt fires the probe (no tracer here: nothing catches it), auto
 * without a tracer unwinds, off and stack_rate=0 do neither */
static void test_stack_modes(void **state)
{
	static const struct {
		const char *opts;
		uint32_t flags;
	} cases[] = {
		{"stacks=usdt", ZG_L_USDT},
		{"stacks=auto", ZG_L_STACK},
		{"stacks=off", 0},
		{"stack_rate=0", 0},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct zgw_launches ls = {.n = 0};
		struct zg_counters c;
		struct fx x;
		struct zc *zc = fx_new(&x, cases[i].opts);

		site_a(zc, 5);
		fx_load(&x);
		zgwalk_each(&x.f, ZG_LAUNCH, zgwalk_get_launch, &ls);
		assert_int_equal(ls.n, 1);
		assert_int_equal(ls.l[0].flags, cases[i].flags);
		assert_int_equal(zgwalk_count(&x.f, ZG_STACK), cases[i].flags == ZG_L_STACK);
		assert_int_equal(zgwalk_counters(&x.f, &c), 0);
		assert_int_equal(c.launch_stacks, cases[i].flags != 0);
		assert_int_equal(c.launch_ratelimited, 0);
		fx_done(&x);
	}
}

struct kernels {
	struct zg_kernel k[8];
	char name[8][64];
	size_t n;
	uint32_t pool_len[8];
};

static void get_kernel(const struct zgw_fr *fr, const void *rec, void *arg)
{
	struct kernels *ks = arg;

	if (ks->n < 8) {
		memcpy(&ks->k[ks->n], rec, sizeof(ks->k[0]));
		snprintf(ks->name[ks->n], 64, "%.*s", (int)ks->k[ks->n].name_len,
			 zgwalk_str(fr, ks->k[ks->n].name_off));
		ks->pool_len[ks->n] = fr->len - fr->count * (uint32_t)sizeof(struct zg_kernel);
	}
	ks->n++;
}

static struct zg_kernel mk_kernel(uint32_t corr)
{
	struct zg_kernel k;

	memset(&k, 0, sizeof(k));
	k.start = 1000 + corr;
	k.end = 2000 + corr;
	k.queued = 900;
	k.submitted = 950;
	k.graph_node_id = 77;
	k.corr = corr;
	k.device = 1;
	k.context = 2;
	k.stream = 3;
	k.graph_id = 4;
	k.grid[0] = 5, k.grid[1] = 6, k.grid[2] = 7;
	k.block[0] = 8, k.block[1] = 9, k.block[2] = 10;
	k.regs = 11;
	k.smem_static = 12;
	k.smem_dynamic = 13;
	k.local_mem = 14;
	return k;
}

/* kernels keep every field; names are pooled once per frame */
static void test_kernels_memops(void **state)
{
	struct zg_memop m = {1, 2, 4096, 9, 0, 1, 7, ZG_MEMCPY, 1, 1, 3, 0, 0, 0}, mm;
	struct zg_overhead o = {5, 6, 1 << 16, 2, {100, 200}}, oo;
	struct kernels ks = {.n = 0};
	struct zg_kernel k;
	struct fx x;
	struct zc *zc = fx_new(&x, NULL);
	size_t i;

	k = mk_kernel(1);
	zc_kernel(zc, &k, "_Z3fooPf");
	k = mk_kernel(2);
	zc_kernel(zc, &k, "_Z3barv");
	k = mk_kernel(3);
	zc_kernel(zc, &k, "_Z3fooPf");
	k = mk_kernel(4);
	zc_kernel(zc, &k, NULL);
	zc_memop(zc, &m);
	zc_overhead(zc, &o);
	zc_dropped_records(zc, 3);
	zc_dropped_records(zc, 4);
	fx_load(&x);
	zgwalk_each(&x.f, ZG_KERNEL, get_kernel, &ks);
	assert_int_equal(ks.n, 4);
	for (i = 0; i < 4; i++) {
		struct zg_kernel want = mk_kernel((uint32_t)i + 1);

		want.name_off = ks.k[i].name_off;
		want.name_len = ks.k[i].name_len;
		assert_memory_equal(&ks.k[i], &want, sizeof(want));
	}
	assert_string_equal(ks.name[0], "_Z3fooPf");
	assert_string_equal(ks.name[1], "_Z3barv");
	assert_string_equal(ks.name[2], "_Z3fooPf");
	assert_int_equal(ks.k[0].name_off, ks.k[2].name_off);
	assert_int_equal(ks.k[3].name_len, 0);
	assert_int_equal(ks.pool_len[0], strlen("_Z3fooPf") + strlen("_Z3barv"));
	assert_int_equal(zgwalk_count(&x.f, ZG_MEMOP), 1);
	assert_int_equal(zgwalk_count(&x.f, ZG_OVERHEAD), 1);
	for (i = 0; i < x.f.nfr; i++) {
		if (x.f.fr[i].type == ZG_MEMOP) {
			memcpy(&mm, x.f.fr[i].p, sizeof(mm));
			assert_memory_equal(&mm, &m, sizeof(m));
		} else if (x.f.fr[i].type == ZG_OVERHEAD) {
			memcpy(&oo, x.f.fr[i].p, sizeof(oo));
			assert_memory_equal(&oo, &o, sizeof(o));
		}
	}
	{
		struct zg_counters c;

		assert_int_equal(zgwalk_counters(&x.f, &c), 0);
		assert_int_equal(c.dropped_records, 7);
		assert_int_equal(c.mem_dropped, 0);
	}
	fx_done(&x);
}

/* over a megabyte of kernels: several frames, each with its own pool */
static void test_frame_chunks(void **state)
{
	struct kernels ks = {.n = 0};
	struct zg_kernel k;
	struct fx x;
	struct zc *zc = fx_new(&x, NULL);
	uint32_t i;

	for (i = 0; i < 30000; i++) {
		k = mk_kernel(i);
		zc_kernel(zc, &k, i % 2 ? "odd_kernel" : "even_kernel");
	}
	fx_load(&x);
	zgwalk_each(&x.f, ZG_KERNEL, get_kernel, &ks);
	assert_int_equal(ks.n, 30000);
	assert_true(zgwalk_frames(&x.f, ZG_KERNEL) >= 4);
	fx_done(&x);
}

static const struct zg_pcs *find_pcs(const struct zgw_pcs_list *l, size_t from, uint64_t pc,
				     uint32_t stall, uint32_t corr)
{
	size_t i;

	for (i = from; i < l->n && i < ZGW_KEEP; i++)
		if (l->p[i].pc_offset == pc && l->p[i].stall == stall && l->p[i].corr == corr)
			return &l->p[i];
	return NULL;
}

/* samples summed per (cubin, function, pc, stall[, corr]); drained as deltas */
static void test_pcs(void **state)
{
	const uint32_t a[] = {2, 5, 7, 1, 9, 0}, b[] = {2, 3}, c1[] = {2, 1}, d[] = {2, 4};
	struct zgw_pcs_list l = {.n = 0};
	const struct zg_pcs *p;
	struct zg_counters c;
	struct fx x;
	struct zc *zc = fx_new(&x, NULL);

	zc_pcs_pc(zc, 0xabc, 0x10, 3, 0, 1, "_Z6kernelv", a, 3);
	zc_pcs_pc(zc, 0xabc, 0x10, 3, 0, 1, "_Z6kernelv", b, 1);
	zc_pcs_pc(zc, 0xabc, 0x20, 3, 0, 1, "_Z6kernelv", c1, 1);
	zc_pcs_pc(zc, 0xabc, 0x20, 3, 42, 1, "_Z6kernelv", c1, 1); /* serialized: per launch */
	zc_pcs_pc(zc, 0xdef, 0x10, 0, 0, 1, NULL, c1, 1);
	zc_pcs_totals(zc, 100, 5, 7, 1);
	zc_pcs_totals(zc, 10, 0, 0, 0);
	assert_int_equal(zc_flush(zc), 0);
	zc_pcs_pc(zc, 0xabc, 0x10, 3, 0, 1, "_Z6kernelv", d, 1);
	fx_load(&x);
	assert_int_equal(zgwalk_frames(&x.f, ZG_PCS), 2);
	zgwalk_each(&x.f, ZG_PCS, zgwalk_get_pcs, &l);
	assert_int_equal(l.n, 6);
	p = find_pcs(&l, 0, 0x10, 2, 0);
	assert_non_null(p);
	assert_int_equal(p->samples, 8);
	assert_int_equal(p->cubin_crc, 0xabc);
	assert_int_equal(p->function_index, 3);
	assert_int_equal(p->context, 1);
	assert_string_equal(l.name[p - l.p], "_Z6kernelv");
	p = find_pcs(&l, 0, 0x10, 7, 0);
	assert_non_null(p);
	assert_int_equal(p->samples, 1);
	assert_null(find_pcs(&l, 0, 0x10, 9, 0)); /* 0 samples: no bucket */
	assert_int_equal(find_pcs(&l, 0, 0x20, 2, 0)->samples, 1);
	assert_int_equal(find_pcs(&l, 0, 0x20, 2, 42)->samples, 1);
	p = find_pcs(&l, 5, 0x10, 2, 0); /* the second drain: the delta only */
	assert_non_null(p);
	assert_int_equal(p->samples, 4);
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_int_equal(c.pc_total_samples, 110);
	assert_int_equal(c.pc_dropped_samples, 5);
	assert_int_equal(c.pc_nonuser_samples, 7);
	assert_int_equal(c.pc_hw_buffer_full, 1);
	fx_done(&x);
}

struct cubins {
	struct zg_cubin c[4];
	uint8_t first[4][8];
	size_t n;
};

static void test_cubins_stalls(void **state)
{
	const uint32_t idx[] = {0, 3};
	const char *const names[] = {"smsp__pcsamp_warps_issue_stalled_barrier", "selected"};
	uint8_t blob[1000];
	struct zg_counters c;
	struct fx x;
	struct zc *zc = fx_new(&x, NULL);
	size_t i, ncub = 0, nst = 0;

	memset(blob, 0x5a, sizeof(blob));
	memcpy(blob, "\177ELF", 4);
	assert_false(zc_cubin_known(zc, 0x1234));
	assert_int_equal(zc_cubin(zc, 0x1234, 5, 1, blob, sizeof(blob)), 1);
	assert_true(zc_cubin_known(zc, 0x1234));
	assert_int_equal(zc_cubin(zc, 0x1234, 6, 1, blob, sizeof(blob)), 0);
	assert_int_equal(zc_cubin(zc, 0x5678, 7, 2, blob, 100), 1);
	zc_stalls(zc, 1, 2, idx, names);
	fx_load(&x);
	for (i = 0; i < x.f.nfr; i++) {
		const struct zgw_fr *fr = &x.f.fr[i];

		if (fr->type == ZG_CUBIN) {
			struct zg_cubin zcb;

			memcpy(&zcb, fr->p, sizeof(zcb));
			assert_int_equal(zcb.crc, ncub ? 0x5678 : 0x1234);
			assert_int_equal(zcb.module_id, ncub ? 7 : 5);
			assert_int_equal(zcb.context, ncub ? 2 : 1);
			assert_int_equal(zcb.size, ncub ? 100 : sizeof(blob));
			assert_memory_equal(fr->p + sizeof(zcb), blob, zcb.size);
			ncub++;
		} else if (fr->type == ZG_STALLS) {
			size_t j;

			for (j = 0; j < fr->count; j++, nst++) {
				struct zg_stall s;

				memcpy(&s, fr->p + j * sizeof(s), sizeof(s));
				assert_int_equal(s.context, 1);
				assert_int_equal(s.index, idx[j]);
				assert_int_equal(s.name_len, strlen(names[j]));
				assert_memory_equal(zgwalk_str(fr, s.name_off), names[j],
						    s.name_len);
			}
		}
	}
	assert_int_equal(ncub, 2);
	assert_int_equal(nst, 2);
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_int_equal(c.cubins, 2);
	fx_done(&x);
}

/* a 4 MiB cap: records past it are dropped and counted, never more memory */
static void test_mem_cap(void **state)
{
	struct zg_counters c;
	struct zg_kernel k;
	struct fx x;
	struct zc *zc = fx_new(&x, "mem_mb=4");
	uint32_t i, n = 200000;
	uint8_t blob[4096];

	for (i = 0; i < n; i++) {
		k = mk_kernel(i);
		zc_kernel(zc, &k, "capped_kernel");
	}
	assert_true(zc_mem_peak(zc) <= 4u << 20);
	memset(blob, 0, sizeof(blob));
	memcpy(blob, "\177ELF", 4);
	/* a cubin twice the cap, with the budget spent: written whole, as
	 * it comes, taking nothing (PyTorch's modules met the cap on an H200
	 * when cubins were copied and held to the next flush) */
	{
		size_t big = 8u << 20;
		uint8_t *b = calloc(1, big);

		memcpy(b, "\177ELF", 4);
		b[big - 1] = 0x77;
		assert_int_equal(zc_cubin(zc, 1, 1, 1, b, big), 1);
		free(b);
	}
	/* after a flush the memory is back: records are taken again */
	assert_int_equal(zc_flush(zc), 0);
	k = mk_kernel(n);
	zc_kernel(zc, &k, "capped_kernel");
	fx_load(&x);
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_true(c.mem_dropped > 0);
	assert_int_equal(zgwalk_count(&x.f, ZG_KERNEL) + c.mem_dropped, n + 1);
	assert_int_equal(zgwalk_count(&x.f, ZG_CUBIN), 1);
	for (i = 0; i < x.f.nfr; i++)
		if (x.f.fr[i].type == ZG_CUBIN) {
			struct zg_cubin zcb;

			memcpy(&zcb, x.f.fr[i].p, sizeof(zcb));
			assert_int_equal(zcb.size, 8u << 20);
			assert_int_equal(x.f.fr[i].p[sizeof(zcb) + zcb.size - 1], 0x77);
		}
	assert_true(zc_mem_peak(zc) <= 4u << 20);
	fx_done(&x);
}

struct thr {
	struct zc *zc;
	uint32_t base;
};

#define THREADS	   4
#define PER_THREAD 5000

static void *thr_main(void *arg)
{
	struct thr *t = arg;
	uint32_t i;

	for (i = 0; i < PER_THREAD; i++) {
		launch(t->zc, zc_now(), t->base + i, 307, 1);
		zc_launch_exit(t->zc, t->base + i);
	}
	return NULL;
}

struct tally {
	uint8_t *seen;
	size_t n, dup;
};

static void tally_launch(const struct zgw_fr *fr, const void *rec, void *arg)
{
	struct tally *t = arg;
	struct zg_launch l;

	memcpy(&l, rec, sizeof(l));
	if (l.corr < THREADS * PER_THREAD) {
		t->dup += t->seen[l.corr];
		t->seen[l.corr] = 1;
	}
	t->n++;
}

static int ticks;

static void on_tick(void *arg)
{
	__atomic_fetch_add((int *)arg, 1, __ATOMIC_RELAXED);
}

/* four threads, rings wrapping, the writer thread taking them meanwhile */
static void test_threads(void **state)
{
	struct tally t = {calloc(THREADS * PER_THREAD, 1), 0, 0};
	struct thr th[THREADS];
	pthread_t id[THREADS];
	struct zg_counters c;
	struct fx x;
	struct zc *zc = fx_new(&x, "stacks=unwind,stack_rate=1000,flush_ms=5");
	int i;

	ticks = 0;
	assert_int_equal(zc_start(zc, on_tick, &ticks), 0);
	for (i = 0; i < THREADS; i++) {
		th[i] = (struct thr){zc, (uint32_t)i * PER_THREAD};
		assert_int_equal(pthread_create(&id[i], NULL, thr_main, &th[i]), 0);
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(id[i], NULL);
	fx_load(&x);
	assert_true(ticks >= 0);
	zgwalk_each(&x.f, ZG_LAUNCH, tally_launch, &t);
	assert_int_equal(t.n, THREADS * PER_THREAD);
	assert_int_equal(t.dup, 0);
	assert_int_equal(zgwalk_counters(&x.f, &c), 0);
	assert_int_equal(c.launches, THREADS * PER_THREAD);
	assert_int_equal(c.launch_stacks + c.launch_ratelimited, THREADS * PER_THREAD);
	assert_int_equal(c.mem_dropped, 0);
	free(t.seen);
	fx_done(&x);
}

/* the writer thread appends within a few flush periods, whole frames only */
static void test_writer_thread(void **state)
{
	struct zg_kernel k = mk_kernel(1);
	char path[256];
	struct fx x;
	struct zc *zc = fx_new(&x, "flush_ms=20");
	int tries, found = 0;

	ticks = 0;
	assert_int_equal(zc_start(zc, on_tick, &ticks), 0);
	zc_kernel(zc, &k, "early");
	assert_int_equal(zgwalk_find(x.dir, path, sizeof(path)), 0);
	for (tries = 0; tries < 200 && !found; tries++) {
		struct zgw_file f;

		usleep(10000);
		if (zgwalk_load(&f, path) == 0)
			found = zgwalk_count(&f, ZG_KERNEL) == 1;
		zgwalk_free(&f);
	}
	assert_true(found);
	assert_true(__atomic_load_n(&ticks, __ATOMIC_RELAXED) > 0);
	fx_load(&x);
	assert_int_equal(zgwalk_count(&x.f, ZG_KERNEL), 1);
	fx_done(&x);
}

/* a fork child's copy goes quiet: its records never reach the parent's file */
static void test_fork(void **state)
{
	struct zg_kernel k = mk_kernel(1);
	struct fx x;
	struct zc *zc = fx_new(&x, NULL);
	int status;
	pid_t pid;

	zc_kernel(zc, &k, "parent_before");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		k = mk_kernel(2);
		zc_kernel(zc, &k, "child");
		launch(zc, 1, 2, 307, 1);
		zc_finish(zc);
		_exit(zc_active(zc) ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	k = mk_kernel(3);
	zc_kernel(zc, &k, "parent_after");
	fx_load(&x);
	assert_int_equal(zgwalk_count(&x.f, ZG_KERNEL), 2);
	assert_int_equal(zgwalk_count(&x.f, ZG_LAUNCH), 0);
	fx_done(&x);
}

/* no directory: no file, every call a no-op */
static void test_no_dir(void **state)
{
	struct zg_kernel k = mk_kernel(1);
	struct zc_opts o;
	struct zc *zc;

	zc_opts_default(&o);
	zc = zc_new(&o);
	assert_non_null(zc);
	assert_int_equal(zc_open(zc, "/nonexistent/zt-gpu"), -ENOENT);
	assert_int_equal(zc_open(zc, NULL), -ENOENT);
	assert_false(zc_active(zc));
	zc_kernel(zc, &k, "nowhere");
	launch(zc, 1, 1, 307, 1);
	zc_launch_exit(zc, 1);
	zc_warn(zc, "a warning %d", 1);
	assert_int_equal(zc_flush(zc), 0);
	assert_int_equal(zc_start(zc, NULL, NULL), -EINVAL);
	assert_string_equal(zc_file_name(zc), "");
	zc_free(zc);
	zc_free(NULL);
}

static void test_info_graphs(void **state)
{
	struct fx x;
	struct zc *zc = fx_new(&x, NULL);

	zc_info(zc, "cupti_version", "130001");
	zc_warn(zc, "something %s", "odd");
	zc_info(zc, "warning", "another");
	zc_graph_exec(zc, 5, 9);
	zc_graph_exec(zc, 6, 10);
	zc_graph_exec(zc, 5, 11);
	assert_int_equal(zc_graph_of_exec(zc, 5), 11);
	assert_int_equal(zc_graph_of_exec(zc, 6), 10);
	assert_int_equal(zc_graph_of_exec(zc, 7), 0);
	fx_load(&x);
	assert_string_equal(zgwalk_info(&x.f, "cupti_version", 0), "130001");
	assert_string_equal(zgwalk_info(&x.f, "warning", 0), "something odd");
	assert_string_equal(zgwalk_info(&x.f, "warning", 1), "another");
	assert_null(zgwalk_info(&x.f, "warning", 2));
	/* after finish, calls are no-ops */
	zc_info(zc, "late", "x");
	assert_false(zc_active(zc));
	fx_done(&x);
}

/* append one frame (header, then payload) to the expected bytes */
static size_t put_frame(uint8_t *out, size_t at, uint32_t type, uint32_t count, const void *p,
			size_t len)
{
	struct zg_frame_hdr h = {type, (uint32_t)len, (uint32_t)crc32(0, p, (uInt)len), count};

	memcpy(out + at, &h, sizeof(h));
	memcpy(out + at + sizeof(h), p, len);
	return at + sizeof(h) + len;
}

/* a small file, byte for byte as wire.h lays it out */
static void test_exact_bytes(void **state)
{
	uint8_t want[4096], kpay[sizeof(struct zg_kernel) + 16], ipay[64];
	struct zg_memop m = {10, 20, 30, 40, 50, 60, 70, ZG_MEMSET, 0, 0, 3, 0xee, 0, 0};
	struct zg_kernel k = mk_kernel(9), kw;
	struct zg_file_hdr h;
	struct zg_counters c;
	struct fx x;
	struct zc *zc = fx_new(&x, NULL);
	char path[256];
	size_t n = 0;
	FILE *f;
	uint8_t got[4096];
	size_t got_len;

	zc_info(zc, "k", "value");
	zc_kernel(zc, &k, "_Z1kv");
	zc_memop(zc, &m);
	zc_finish(zc);
	assert_int_equal(zgwalk_find(x.dir, path, sizeof(path)), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	got_len = fread(got, 1, sizeof(got), f);
	fclose(f);

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "ZTGPU\r\n", 8);
	h.version = 1;
	h.hdr_size = 32;
	h.pid = (uint32_t)getpid();
	memcpy(&h.start_ns, got + 24, 8); /* the library's start: whatever it was */
	memcpy(want, &h, sizeof(h));
	n = sizeof(h);
	memcpy(ipay, "k\0value\0", 8);
	n = put_frame(want, n, ZG_INFO, 1, ipay, 8);
	kw = k;
	kw.name_off = 0;
	kw.name_len = 5;
	memcpy(kpay, &kw, sizeof(kw));
	memcpy(kpay + sizeof(kw), "_Z1kv", 5);
	n = put_frame(want, n, ZG_KERNEL, 1, kpay, sizeof(kw) + 5);
	n = put_frame(want, n, ZG_MEMOP, 1, &m, sizeof(m));
	memset(&c, 0, sizeof(c));
	n = put_frame(want, n, ZG_COUNTERS, 1, &c, sizeof(c));
	assert_int_equal(got_len, n);
	assert_memory_equal(got, want, n);
	fx_done(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts),	      cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_rate_limit),    cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_stack_modes),   cmocka_unit_test(test_kernels_memops),
		cmocka_unit_test(test_frame_chunks),  cmocka_unit_test(test_pcs),
		cmocka_unit_test(test_cubins_stalls), cmocka_unit_test(test_mem_cap),
		cmocka_unit_test(test_threads),	      cmocka_unit_test(test_writer_thread),
		cmocka_unit_test(test_fork),	      cmocka_unit_test(test_no_dir),
		cmocka_unit_test(test_info_graphs),   cmocka_unit_test(test_exact_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
