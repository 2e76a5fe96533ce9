// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of formats/gpuscript.c: the exact text of every GPU line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/gpuscript.h"
#include "formats/perfscript.h"

static void expect(struct zbuf *b, const char *want)
{
	zbuf_put_u8(b, 0);
	assert_int_equal(b->err, 0);
	assert_string_equal((const char *)b->data, want);
	zbuf_reset(b);
}

static void test_lines(void **state)
{
	struct gpuscript_fmt f = {PERFSCRIPT_F_COMM | PERFSCRIPT_F_TID | PERFSCRIPT_F_TIME |
					  PERFSCRIPT_F_PERIOD | PERFSCRIPT_F_IP,
				  0};
	struct prof_gpu_kernel k = {.start = 1000001000,
				    .end = 1000301500,
				    .device = 1,
				    .context = 2,
				    .stream = 7,
				    .grid = {256, 2, 1},
				    .block = {128, 1, 1},
				    .regs = 32,
				    .smem_static = 16,
				    .smem_dynamic = 1024,
				    .local_mem = 8,
				    .corr = 42};
	struct prof_gpu_memop m = {.start = 0,
				   .end = 100000,
				   .bytes = 1 << 20,
				   .corr = 5,
				   .kind = PROF_GPU_MEMCPY,
				   .copy_kind = 1,
				   .src_kind = 2,
				   .dst_kind = 3,
				   .stream = 1};
	struct prof_gpu_overhead o = {
		.start = 0, .end = 1500, .kind = 1, .object_kind = 2, .object_id = {10, 11}};
	struct gpu_pcsum p = {.crc = 0xabc, .pc = 0x1a0, .samples = 9, .stall = 4};
	struct prof_gpu_cubin c = {.crc = 0xabc, .module_id = 3, .context = 2, .len = 123};
	struct prof_gpu_counters ct = {.launches = 3, .launch_stacks = 2, .cubins = 1};
	struct zbuf b;

	zbuf_init(&b);
	gpuscript_header(&b, &f, "trainer", 10, 11, 1000001000);
	expect(&b, "         trainer    11     1.000001: ");
	gpuscript_header(&b, &f, "trainer", 10, 11, GPUSCRIPT_NO_TIME);
	expect(&b, "         trainer    11 ");
	f.ns = 1;
	f.fields |= PERFSCRIPT_F_PID;
	gpuscript_header(&b, &f, "x", 10, 11, 1000001000);
	expect(&b, "               x    10/11        1.000001000: ");
	gpuscript_kernel(&b, &k, "foo<int, 2>(float*)", NULL);
	expect(&b, "cuda:kernel: dev=1 ctx=2 stream=7 dur=300.500us grid=256,2,1 block=128,1,1 "
		   "regs=32 smem=16+1024 lmem=8 corr=42 name=foo<int, 2>(float*)\n");
	k.graph_id = 9;
	k.graph_node_id = 3;
	gpuscript_kernel(&b, &k, "bad\x1bname", "launch=none");
	expect(&b,
	       "cuda:kernel: dev=1 ctx=2 stream=7 dur=300.500us grid=256,2,1 block=128,1,1 "
	       "regs=32 smem=16+1024 lmem=8 corr=42 graph=9 node=3 launch=none name=bad?name\n");
	gpuscript_memop(&b, &m);
	expect(&b, "cuda:memcpy: dev=0 ctx=0 stream=1 dur=100.000us kind=HtoD src=pinned "
		   "dst=device bytes=1048576 rate=10.49GB/s corr=5\n");
	m.kind = PROF_GPU_MEMSET;
	m.value = 255;
	m.end = 0;
	m.dst_kind = 42;
	gpuscript_memop(&b, &m);
	expect(&b, "cuda:memset: dev=0 ctx=0 stream=1 dur=0.000us dst=42 bytes=1048576 "
		   "value=255 corr=5\n");
	m.copy_kind = 77;
	m.kind = PROF_GPU_MEMCPY;
	gpuscript_memop(&b, &m);
	expect(&b, "cuda:memcpy: dev=0 ctx=0 stream=1 dur=0.000us kind=77 src=pinned dst=42 "
		   "bytes=1048576 corr=5\n");
	gpuscript_overhead(&b, &o);
	expect(&b, "cuda:overhead: kind=driver_compiler object=thread:10,11 dur=1.500us\n");
	gpuscript_pcsample(&b, &p, "kern", "long_scoreboard");
	expect(&b, "cuda:pcsample: cubin=0x0000000000000abc pc=0x1a0 stall=long_scoreboard "
		   "samples=9 function=kern\n");
	gpuscript_pcsample(&b, &p, "kern", NULL);
	expect(&b, "cuda:pcsample: cubin=0x0000000000000abc pc=0x1a0 stall=stall_4 samples=9 "
		   "function=kern\n");
	{
		/* resolved frames under it: innermost first, the kernel last */
		const struct gpu_frame fr[] = {
			{.func = "inl", .file = "/src/a.cu", .line = 5, .inlined = 1},
			{.func = "dev\x01", .file = "/src/a.cu", .line = 9},
			{.func = "kern"},
		};

		gpuscript_pcframes(&b, &p, fr, 3);
		expect(&b, "\t             1a0 inl (a.cu:5) (inlined)\n"
			   "\t             1a0 dev? (a.cu:9)\n"
			   "\t             1a0 kern (??:0)\n");
	}
	gpuscript_cubin(&b, &c);
	expect(&b, "cuda:cubin: crc=0x0000000000000abc size=123 module=3 ctx=2\n");
	gpuscript_counters(&b, &ct);
	expect(&b, "cuda:counters: launches=3 launch_stacks=2 launch_ratelimited=0 "
		   "dropped_records=0 mem_dropped=0 pc_total_samples=0 pc_dropped_samples=0 "
		   "pc_nonuser_samples=0 pc_hw_buffer_full=0 cubins=1\n");
	gpuscript_info(&b, "warning", "no\nPC sampling");
	expect(&b, "cuda:warning: no?PC sampling\n");
	gpuscript_info(&b, "cupti_version", "23");
	expect(&b, "cuda:info: cupti_version=23\n");
	assert_string_equal(gpuscript_copy_kind(8), "DtoD");
	assert_null(gpuscript_copy_kind(0));
	assert_string_equal(gpuscript_mem_kind(5), "managed");
	zbuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
