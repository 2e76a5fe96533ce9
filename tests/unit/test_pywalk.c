// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bpf/pywalk.h, the walk of CPython's frames shared by the BPF program and
 * record/pyproc.c, over a made-up process memory: thread states and frames
 * laid out as 3.11 and 3.12 lay them (record/pyproc.c's tables), then the
 * hostile shapes a process can hold or change into under the walk: a frame
 * chain that loops, a thread list that loops, memory that cannot be read
 * half-way, a code object replaced at the same address (its stamp), an
 * instruction outside the code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/pyproc.h"

/* the memory: one flat array from BASE; every read outside it fails, as
 * does any read of a poisoned range */
#define BASE 0x10000ull
#define SIZE 0x10000ull
static uint8_t mem[SIZE];
static uint64_t poison_lo, poison_hi;
static unsigned reads;

static int rd(const void *ctx, void *dst, size_t len, unsigned long long addr)
{
	(void)ctx;
	reads++;
	if (addr < BASE || addr + len > BASE + SIZE || addr + len < addr)
		return -1;
	if (addr < poison_hi && addr + len > poison_lo)
		return -1;
	memcpy(dst, mem + (addr - BASE), len);
	return 0;
}

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define ZT_PY_READ(ctx, dst, addr) rd((ctx), &(dst), 8, (addr))
#define ZT_PY_READ_BLOCK(ctx, buf, len, addr) rd((ctx), (buf), (len), (addr))
#include "bpf/pywalk.h"

static void put64(uint64_t at, uint64_t v)
{
	memcpy(mem + (at - BASE), &v, 8);
}

static void put8(uint64_t at, uint8_t v)
{
	mem[at - BASE] = v;
}

/* addresses of the made-up objects */
#define RUNTIME 0x10000ull
#define INTERP 0x10400ull
#define TS1 0x10800ull
#define TS2 0x10c00ull
#define CFRAME 0x11000ull
#define FRAME(i) (0x12000ull + 0x100ull * (i))
#define CODE(i) (0x14000ull + 0x400ull * (i))
#define STR(i) (0x18000ull + 0x100ull * (i))

static const struct zt_py_layout *lay;

/* a code object i: its names and line table objects at distinct places */
static void code(int i)
{
	put64(CODE(i) + lay->co_filename, STR(3 * i));
	put64(CODE(i) + lay->co_name, STR(3 * i + 1));
	put64(CODE(i) + lay->co_qualname, STR(3 * i + 1));
	put64(CODE(i) + lay->co_linetable, STR(3 * i + 2));
}

/* frame i runs code c at unit lasti, its caller frame prev (0: none) */
static void frame(int i, int c, int lasti, uint64_t prev)
{
	put64(FRAME(i) + lay->fr_code, CODE(c));
	put64(FRAME(i) + lay->fr_previous, prev);
	put64(FRAME(i) + lay->fr_instr, CODE(c) + lay->co_code_adaptive + 2 * (uint64_t)lasti);
	put8(FRAME(i) + lay->fr_owner, 0);
	if (lay->fr_is_entry)
		put8(FRAME(i) + lay->fr_is_entry, 0);
}

/* one interpreter with threads 100 (TS1) and 200 (TS2); thread 200's
 * current frame is FRAME(0) */
static void world(unsigned minor)
{
	memset(mem, 0, sizeof(mem));
	poison_lo = poison_hi = 0;
	lay = pyproc_layout_of(minor);
	assert_non_null(lay);
	put64(RUNTIME + lay->rt_interp_head, INTERP);
	put64(INTERP + lay->is_next, 0);
	put64(INTERP + lay->is_threads_head, TS1);
	put64(TS1 + lay->ts_next, TS2);
	put64(TS1 + lay->ts_native_tid, 100);
	put64(TS2 + lay->ts_next, 0);
	put64(TS2 + lay->ts_native_tid, 200);
	if (lay->ts_cframe) {
		put64(TS2 + lay->ts_cframe, CFRAME);
		put64(CFRAME + lay->cf_current_frame, FRAME(0));
	} else {
		put64(TS2 + lay->cf_current_frame, FRAME(0));
	}
	for (int i = 0; i < 4; i++)
		code(i);
}

static void test_thread_search(void **state)
{
	unsigned long long ts = 0;

	(void)state;
	world(12);
	assert_int_equal(zt_py_thread(NULL, lay, RUNTIME, 200, &ts), 1);
	assert_int_equal(ts, TS2);
	assert_int_equal(zt_py_thread(NULL, lay, RUNTIME, 100, &ts), 1);
	assert_int_equal(ts, TS1);
	assert_int_equal(zt_py_thread(NULL, lay, RUNTIME, 300, &ts), 0);
	/* a search counts the thread states it saw: none while the
	 * interpreter starts (the BPF program does not remember a thread
	 * as Python-less then) */
	{
		struct zt_py_search srch;

		assert_int_equal(zt_py_search_start(NULL, lay, RUNTIME, 300, &srch), 0);
		while (!zt_py_search_step(NULL, lay, &srch))
			;
		assert_int_equal(srch.seen, 2);
		put64(INTERP + lay->is_threads_head, 0);
		assert_int_equal(zt_py_search_start(NULL, lay, RUNTIME, 300, &srch), 0);
		assert_int_equal(zt_py_search_step(NULL, lay, &srch), 0);
		assert_int_equal(zt_py_search_step(NULL, lay, &srch), 2);
		assert_int_equal(srch.seen, 0);
		put64(INTERP + lay->is_threads_head, TS1);
	}
	/* a thread list that loops: the bound ends it, nothing found */
	put64(TS2 + lay->ts_next, TS1);
	reads = 0;
	assert_int_equal(zt_py_thread(NULL, lay, RUNTIME, 300, &ts), 0);
	assert_true(reads <= 2 * ZT_PY_MAX_STEPS + 1);
	/* a list that leads into memory that cannot be read */
	put64(TS2 + lay->ts_next, 0x9000000ull);
	assert_int_equal(zt_py_thread(NULL, lay, RUNTIME, 300, &ts), -1);
}

/* 3.12: frames 0 <- 1 (a run of the loop), a shim, 2 <- 3 (the outer run) */
static void test_frames_312(void **state)
{
	struct zt_py_frame out[8];
	int n;

	(void)state;
	world(12);
	frame(0, 0, 5, FRAME(1));
	frame(1, 1, 7, FRAME(9));
	frame(9, 0, 0, FRAME(2));
	put8(FRAME(9) + lay->fr_owner, ZT_PY_OWNED_BY_CSTACK);
	frame(2, 2, 11, FRAME(3));
	frame(3, 3, 0, 0);
	n = zt_py_frames(NULL, lay, TS2, out, 8);
	assert_int_equal(n, 4);
	assert_int_equal(out[0].code, CODE(0));
	assert_int_equal(out[0].lasti, 5);
	assert_int_equal(out[1].code, CODE(1));
	assert_int_equal(out[2].code, CODE(2));
	assert_int_equal(out[2].lasti, 11);
	assert_int_equal(out[3].code, CODE(3));
	/* the frame under the shim began its run */
	assert_int_equal(out[0].flags, 0);
	assert_int_equal(out[1].flags, ZT_PY_ENTRY);
	assert_int_equal(out[2].flags, 0);
	/* the stamps: of each code object's names and table */
	assert_int_equal(out[0].stamp, zt_py_stamp(STR(0), STR(1), STR(2)));
	assert_int_equal(out[2].stamp, zt_py_stamp(STR(6), STR(7), STR(8)));
	assert_int_not_equal(out[0].stamp, out[1].stamp);
	/* at most max */
	assert_int_equal(zt_py_frames(NULL, lay, TS2, out, 2), 2);
}

/* 3.11: is_entry marks a run's first frame */
static void test_frames_311(void **state)
{
	struct zt_py_frame out[8];

	(void)state;
	world(11);
	frame(0, 0, 3, FRAME(1));
	frame(1, 1, 4, 0);
	put8(FRAME(0) + lay->fr_is_entry, 1);
	put8(FRAME(1) + lay->fr_is_entry, 1);
	assert_int_equal(zt_py_frames(NULL, lay, TS2, out, 8), 2);
	assert_int_equal(out[0].flags, ZT_PY_ENTRY);
	assert_int_equal(out[1].flags, ZT_PY_ENTRY);
	assert_int_equal(out[1].lasti, 4);
}

static void test_hostile(void **state)
{
	struct zt_py_frame out[16];
	int n;

	(void)state;
	world(12);
	/* a chain that loops: the bound */
	frame(0, 0, 1, FRAME(1));
	frame(1, 1, 1, FRAME(0));
	reads = 0;
	n = zt_py_frames(NULL, lay, TS2, out, 16);
	assert_int_equal(n, 16);
	assert_true(reads <= 2 * 16 * 2 + 2);
	/* shims only, looping: nothing, and an end */
	put8(FRAME(0) + lay->fr_owner, ZT_PY_OWNED_BY_CSTACK);
	put8(FRAME(1) + lay->fr_owner, ZT_PY_OWNED_BY_CSTACK);
	assert_int_equal(zt_py_frames(NULL, lay, TS2, out, 16), 0);
	/* a frame that cannot be read half-way: the walk fails, no garbage */
	frame(0, 0, 1, FRAME(1));
	frame(1, 1, 1, FRAME(2));
	frame(2, 2, 1, 0);
	poison_lo = FRAME(1);
	poison_hi = FRAME(1) + 8;
	assert_int_equal(zt_py_frames(NULL, lay, TS2, out, 16), -1);
	/* a code object that cannot be read: the frame fails too */
	poison_lo = CODE(1) + lay->co_filename;
	poison_hi = poison_lo + 1;
	assert_int_equal(zt_py_frames(NULL, lay, TS2, out, 16), -1);
	poison_lo = poison_hi = 0;
	/* an instruction before the code: unknown, not a huge index */
	put64(FRAME(0) + lay->fr_instr, CODE(0));
	assert_int_equal(zt_py_frames(NULL, lay, TS2, out, 16), 3);
	assert_int_equal(out[0].lasti, -1);
	/* a code object replaced at the same address: another stamp */
	{
		unsigned before = out[1].stamp;

		put64(CODE(1) + lay->co_qualname, STR(40));
		assert_int_equal(zt_py_frames(NULL, lay, TS2, out, 16), 3);
		assert_int_not_equal(out[1].stamp, before);
		assert_int_equal(out[1].code, CODE(1));
	}
	/* no current frame: no frames */
	put64(CFRAME + lay->cf_current_frame, 0);
	assert_int_equal(zt_py_frames(NULL, lay, TS2, out, 16), 0);
}

/* the tables themselves: every field zt reads of a frame is in the block
 * read at once, and the code object's words are consecutive */
static void test_layouts(void **state)
{
	(void)state;
	for (unsigned minor = 11; minor <= 13; minor++) {
		const struct zt_py_layout *l = pyproc_layout_of(minor);

		assert_non_null(l);
		assert_true(l->fr_code + 8 <= ZT_PY_FRAME_READ);
		assert_true(l->fr_previous + 8 <= ZT_PY_FRAME_READ);
		assert_true(l->fr_instr + 8 <= ZT_PY_FRAME_READ);
		assert_true(l->fr_owner < ZT_PY_FRAME_READ);
		assert_true(l->fr_is_entry < ZT_PY_FRAME_READ);
		assert_int_equal(l->co_qualname, l->co_filename + 16);
		assert_int_equal(l->co_linetable, l->co_filename + 24);
	}
	assert_null(pyproc_layout_of(10));
	assert_null(pyproc_layout_of(14));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_search),
		cmocka_unit_test(test_frames_312),
		cmocka_unit_test(test_frames_311),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
