/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind: this test's own stack, captured (registers and a copy of the
 * stack, as the sampler takes them) three calls deep, unwound offline with
 * the CFI of this binary and libc, against the return addresses the
 * compiler reports; a copy cut short, the frame-pointer splice, bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libprof/proctree.h"
#include "symbolizer/unwind.h"

#define COPY 16384

struct capture {
	struct prof_ustack u;
	uint8_t stack[COPY];
	uint64_t ra[3];    /* return addresses of capture_here, level2, level1 */
};

static uint64_t stack_top(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo, hi, top = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			top = hi;
	fclose(f);
	return top;
}

/* Raw stack bytes (ASan's redzones included: not checked). */
__attribute__((noinline, no_sanitize_address)) static void copy_raw(uint8_t *dst, uint64_t src,
								    size_t n)
{
	const volatile uint8_t *s = (const volatile uint8_t *)(uintptr_t)src;
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = s[i];
}

/* The registers here, in DWARF order, and the stack above them. */
__attribute__((noinline)) static void capture_here(struct capture *c)
{
	uint64_t *r = c->u.regs, top;

	__asm__ volatile("movq %%rax, 0(%0)\n\t"
			 "movq %%rdx, 8(%0)\n\t"
			 "movq %%rcx, 16(%0)\n\t"
			 "movq %%rbx, 24(%0)\n\t"
			 "movq %%rsi, 32(%0)\n\t"
			 "movq %%rdi, 40(%0)\n\t"
			 "movq %%rbp, 48(%0)\n\t"
			 "movq %%rsp, 56(%0)\n\t"
			 "movq %%r8, 64(%0)\n\t"
			 "movq %%r9, 72(%0)\n\t"
			 "movq %%r10, 80(%0)\n\t"
			 "movq %%r11, 88(%0)\n\t"
			 "movq %%r12, 96(%0)\n\t"
			 "movq %%r13, 104(%0)\n\t"
			 "movq %%r14, 112(%0)\n\t"
			 "movq %%r15, 120(%0)\n\t"
			 "leaq 0(%%rip), %%rax\n\t"
			 "movq %%rax, 128(%0)\n\t"
			 :
			 : "r"(r)
			 : "rax", "memory");
	c->u.regs_mask = (1u << PROF_UREGS) - 1;
	c->ra[0] = (uint64_t)__builtin_return_address(0);
	top = stack_top();
	c->u.len = top > r[PROF_UREG_SP] && top - r[PROF_UREG_SP] < COPY ? top - r[PROF_UREG_SP] : COPY;
	copy_raw(c->stack, r[PROF_UREG_SP], c->u.len);
	c->u.data = c->stack;
}

__attribute__((noinline)) static void level2(struct capture *c)
{
	capture_here(c);
	c->ra[1] = (uint64_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void level1(struct capture *c)
{
	level2(c);
	c->ra[2] = (uint64_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

/* This process's executable mappings, as a recording would have them. */
static void add_self_maps(struct profile *p)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024], perm[8], path[512];
	unsigned long lo, hi, off;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %511s", &lo, &hi, perm, &off, path) < 4)
			continue;
		if (perm[2] != 'x' || path[0] != '/')
			continue;
		struct prof_mmap m = { .ts = 0, .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
				       .start = lo, .len = hi - lo, .pgoff = off, .prot = 5,
				       .path = path };
		assert_int_equal(profile_add_mmap(p, &m), 0);
	}
	fclose(f);
}

struct fixture {
	struct profile p;
	struct proctree *pt;
	struct unwinder *uw;
	struct capture c;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	setenv("ZT_CACHE_DIR", "/nonexistent/zt-unit-cache", 1);
	profile_init(&f->p);
	add_self_maps(&f->p);
	if (proctree_new(&f->p, &f->pt) || unwinder_new(&f->p, f->pt, NULL, &f->uw))
		return -1;
	level1(&f->c);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unwinder_free(f->uw);
	proctree_free(f->pt);
	profile_release(&f->p);
	free(f);
	return 0;
}

static int unwind(struct fixture *f, const struct prof_ustack *u, const uint64_t *fp, unsigned nfp,
		  uint64_t *ips, unsigned max, enum unwind_stop *stop)
{
	return unwinder_unwind(f->uw, (uint32_t)getpid(), (uint32_t)getpid(), 1, u, fp, nfp, ips,
			       max, stop);
}

static void test_full(void **state)
{
	struct fixture *f = *state;
	uint64_t ips[128];
	enum unwind_stop stop;
	int n;

	n = unwind(f, &f->c.u, NULL, 0, ips, 128, &stop);
	assert_true(n >= 5); /* capture_here, level2, level1, the test runner..., main, libc */
	assert_int_equal(ips[0], f->c.u.regs[PROF_UREG_IP]);
	/* callers one byte back, in their call instructions (as perf keeps them) */
	assert_int_equal(ips[1], f->c.ra[0] - 1);
	assert_int_equal(ips[2], f->c.ra[1] - 1);
	assert_int_equal(ips[3], f->c.ra[2] - 1);
	/* all the way out, through cmocka and libc's start code (its CFI ends
	 * the chain) */
	assert_int_equal(stop, UNWIND_END);

	/* the same again: the address space is reused, nothing re-reported */
	{
		struct unwind_stats a, b;
		uint64_t again[128];

		unwinder_stats(f->uw, &a);
		assert_int_equal(unwind(f, &f->c.u, NULL, 0, again, 128, &stop), n);
		assert_memory_equal(again, ips, (size_t)n * sizeof(*ips));
		unwinder_stats(f->uw, &b);
		assert_int_equal(a.dwfls, b.dwfls);
		assert_int_equal(a.modules, b.modules);
		assert_int_equal(b.snapshots, a.snapshots + 1);
	}
}

static void test_short_copy(void **state)
{
	struct fixture *f = *state;
	struct prof_ustack u = f->c.u;
	uint64_t ips[128], full[128];
	enum unwind_stop stop;
	int n, nfull;

	nfull = unwind(f, &f->c.u, NULL, 0, full, 128, &stop);
	assert_true(nfull >= 5);
	/* a copy that ends before level1's return address: two frames only */
	u.len = 0;
	while (u.len < f->c.u.len) {
		u.len += 8;
		n = unwind(f, &u, NULL, 0, ips, 128, &stop);
		if (n >= 3)
			break;
	}
	u.len -= 8;
	n = unwind(f, &u, NULL, 0, ips, 128, &stop);
	assert_int_equal(n, 2);
	assert_int_equal(stop, UNWIND_STACK_END);
	assert_int_equal(ips[1], f->c.ra[0] - 1);

	/* the frame limit */
	n = unwind(f, &f->c.u, NULL, 0, ips, 2, &stop);
	assert_int_equal(n, 2);
}

static void test_bad(void **state)
{
	struct fixture *f = *state;
	struct prof_ustack u = f->c.u;
	uint8_t junk[4096];
	uint64_t ips[64];
	enum unwind_stop stop;
	unsigned i;
	int n;

	/* no instruction pointer: nothing */
	u.regs_mask &= ~(1u << PROF_UREG_IP);
	assert_int_equal(unwind(f, &u, NULL, 0, ips, 64, &stop), 0);
	assert_int_equal(stop, UNWIND_BAD);
	/* an address in no mapping (JIT code): the sampled address, then the
	 * frame-pointer chain, checked against the copy as far as it goes */
	{
		uint64_t mem[64] = { 0 }, base = 0x7ff000001000ull;
		uint64_t chain[5] = { 0x1000, 0x1111, 0x2222, 0x3333, 0x4444 };

		mem[4] = base + 0x60;     /* frame 1 at sp+0x20: next frame, return address */
		mem[5] = 0x1111;
		mem[12] = base + 0x10000; /* frame 2: the next one is beyond the copy */
		mem[13] = 0x2222;
		u = f->c.u;
		u.regs[PROF_UREG_IP] = 0x1000;
		u.regs[PROF_UREG_SP] = base;
		u.regs[PROF_UREG_BP] = base + 0x20;
		u.data = (const uint8_t *)mem;
		u.len = sizeof(mem);
		n = unwind(f, &u, chain, 5, ips, 64, &stop);
		assert_int_equal(stop, UNWIND_NO_MODULE);
		assert_int_equal(n, 5);
		assert_memory_equal(ips, chain, sizeof(chain));
		/* a chain the copy contradicts is not used */
		mem[5] = 0x1112;
		n = unwind(f, &u, chain, 5, ips, 64, &stop);
		assert_int_equal(n, 1);
		/* the limit holds for spliced frames too */
		mem[5] = 0x1111;
		n = unwind(f, &u, chain, 5, ips, 3, &stop);
		assert_int_equal(n, 3);
	}
	/* a garbage stack: stops, within the limit, without crashing */
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 151 + 7);
	u = f->c.u;
	u.data = junk;
	u.len = sizeof(junk);
	n = unwind(f, &u, NULL, 0, ips, 64, &stop);
	assert_true(n >= 1 && n <= 64);
	assert_int_equal(ips[0], f->c.u.regs[PROF_UREG_IP]);
	/* no stack at all */
	u.len = 0;
	n = unwind(f, &u, NULL, 0, ips, 64, &stop);
	assert_true(n >= 1);
	assert_int_equal(stop, UNWIND_STACK_END);
}

/* unwinder_apply: the sample's user frames replaced, kernel frames kept */
static void test_apply(void **state)
{
	struct fixture *f = *state;
	uint64_t ips[3] = { 0xffffffff81000010ull, f->c.u.regs[PROF_UREG_IP], 0x77 };
	struct prof_sample s = { .ts = 1, .weight = 1, .pid = (uint32_t)getpid(),
				 .tid = (uint32_t)getpid() };
	struct prof_ustack u = f->c.u;
	const struct prof_stack *st;
	const uint64_t *got;

	assert_int_equal(profile_intern_stack(&f->p, ips, 1, 2, &s.stack), 0);
	assert_int_equal(profile_add_sample(&f->p, &s), 0);
	u.sample = f->p.nr_samples - 1;
	assert_int_equal(unwinder_apply(f->uw, &f->p, &u), 0);
	st = &f->p.stacks[f->p.samples[u.sample].stack];
	got = profile_stack_ips(&f->p, f->p.samples[u.sample].stack);
	assert_int_equal(st->nk, 1);
	assert_true(st->nu >= 5);
	assert_int_equal(got[0], ips[0]);
	assert_int_equal(got[1], ips[1]);
	assert_int_equal(got[2], f->c.ra[0] - 1);
	/* a snapshot of a sample the profile does not have: ignored */
	u.sample = f->p.nr_samples;
	assert_int_equal(unwinder_apply(f->uw, &f->p, &u), 0);
}

/* A mapping replacing a reported module later in the same process (JIT
 * code over it): samples after it no longer use the module. */
static void test_replaced(void **state)
{
	struct fixture *f = *state;
	struct profile p;
	struct proctree *pt;
	struct unwinder *uw;
	struct unwind_stats st;
	uint64_t ips[128], ip = f->c.u.regs[PROF_UREG_IP];
	enum unwind_stop stop;
	size_t i, n;
	int k;

	profile_init(&p);
	add_self_maps(&p);
	n = p.nr_mmaps;
	for (i = 0; i < n; i++)
		if (p.mmaps[i].start <= ip && ip - p.mmaps[i].start < p.mmaps[i].len) {
			struct prof_mmap m = p.mmaps[i];

			m.ts = 100;
			m.path = (char *)"//anon";
			assert_int_equal(profile_add_mmap(&p, &m), 0);
			break;
		}
	assert_true(i < n);
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_int_equal(unwinder_new(&p, pt, NULL, &uw), 0);
	k = unwinder_unwind(uw, (uint32_t)getpid(), (uint32_t)getpid(), 50, &f->c.u, NULL, 0, ips,
			    128, &stop);
	assert_true(k >= 5);
	assert_int_equal(stop, UNWIND_END);
	k = unwinder_unwind(uw, (uint32_t)getpid(), (uint32_t)getpid(), 200, &f->c.u, NULL, 0, ips,
			    128, &stop);
	assert_int_equal(k, 1);
	assert_int_equal(stop, UNWIND_NO_MODULE);
	/* and back in time: the binary again, in the same address space */
	k = unwinder_unwind(uw, (uint32_t)getpid(), (uint32_t)getpid(), 60, &f->c.u, NULL, 0, ips,
			    128, &stop);
	assert_true(k >= 5);
	unwinder_stats(uw, &st);
	assert_true(st.restarts >= 1);
	assert_int_equal(st.dwfls, 1 + st.restarts);
	unwinder_free(uw);
	proctree_free(pt);
	profile_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_short_copy),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_replaced),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
