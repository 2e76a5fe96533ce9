// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of formats/ztgpu.c, the reader of libztcupti.so's files, on
 * hand-built files: every frame type, reading as the file grows (a frame
 * cut in the middle waits), CRC damage, malformed frames, huge counts, a
 * planted symbolic link and a FIFO refused, the pid from the header.
 * With ZTGPU_CORPUS_DIR=DIR it also writes the fuzz seed corpus there
 * (tests/fuzz/corpus/ztgpu).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "cupti/wire.h"
#include "formats/ztgpu.h"
#include "libprof/zbuf.h"

#define PID 4242

/* ---- building files ------------------------------------------------------ */

static void put_hdr(struct zbuf *b, uint32_t pid)
{
	struct zg_file_hdr h = {
		.version = ZG_VERSION, .hdr_size = sizeof(h), .pid = pid, .start_ns = 1000};

	memcpy(h.magic, ZG_MAGIC, sizeof(h.magic));
	zbuf_put(b, &h, sizeof(h));
}

static void put_frame(struct zbuf *b, uint32_t type, uint32_t count, const void *pl, size_t len)
{
	struct zg_frame_hdr h = {type, (uint32_t)len, (uint32_t)crc32(0, pl, (uInt)len), count};

	zbuf_put(b, &h, sizeof(h));
	zbuf_put(b, pl, len);
}

/* A kernel frame: n kernels named names[i % nn]. */
static void put_kernels(struct zbuf *b, uint32_t n, uint64_t t0, const char *const *names,
			unsigned nn)
{
	struct zbuf pl, pool;
	uint32_t i;

	zbuf_init(&pl);
	zbuf_init(&pool);
	for (i = 0; i < n; i++) {
		const char *nm = names[i % nn];
		struct zg_kernel k = {.start = t0 + i * 1000,
				      .end = t0 + i * 1000 + 700,
				      .corr = 100 + i,
				      .device = 0,
				      .context = 1,
				      .stream = 7,
				      .grid = {256, 1, 1},
				      .block = {128, 1, 1},
				      .regs = 32,
				      .smem_dynamic = 1024,
				      .name_off = (uint32_t)pool.len,
				      .name_len = (uint32_t)strlen(nm)};

		zbuf_put(&pl, &k, sizeof(k));
		zbuf_put(&pool, nm, strlen(nm));
	}
	zbuf_put(&pl, pool.data, pool.len);
	put_frame(b, ZG_KERNEL, n, pl.data, pl.len);
	zbuf_release(&pl);
	zbuf_release(&pool);
}

static void put_stack(struct zbuf *b, uint32_t id, const uint64_t *ips, uint32_t n)
{
	struct zbuf pl;

	zbuf_init(&pl);
	zbuf_put(&pl, &id, 4);
	zbuf_put(&pl, &n, 4);
	zbuf_put(&pl, ips, 8 * (size_t)n);
	put_frame(b, ZG_STACK, 1, pl.data, pl.len);
	zbuf_release(&pl);
}

static void put_cubin(struct zbuf *b, uint64_t crc, uint64_t size, const void *d, size_t n)
{
	struct zg_cubin h = {.crc = crc, .module_id = 2, .context = 1, .size = size};
	struct zbuf pl;

	zbuf_init(&pl);
	zbuf_put(&pl, &h, sizeof(h));
	zbuf_put(&pl, d, n);
	put_frame(b, ZG_CUBIN, 1, pl.data, pl.len);
	zbuf_release(&pl);
}

static void put_launch(struct zbuf *b, uint32_t corr, uint32_t flags, uint32_t stack)
{
	struct zg_launch l = {.ts = 5000 + corr,
			      .tid = PID + 1,
			      .corr = corr,
			      .cbid = 211,
			      .domain = 2,
			      .flags = flags,
			      .stack = stack};

	put_frame(b, ZG_LAUNCH, 1, &l, sizeof(l));
}

/* Every frame type once (and an unknown one), as a complete file. */
static void good_file(struct zbuf *b)
{
	static const char *const names[] = {"_Z6kernelPf", "_Z4axpyfPKfPf"};
	static const uint64_t ips[] = {0x401010, 0x401020, 0x401030};
	static const char info[] = "cupti_version\00023\0warning\0PC sampling is off\0";
	struct zg_memop m = {.start = 10,
			     .end = 30,
			     .bytes = 1 << 20,
			     .corr = 99,
			     .kind = ZG_MEMCPY,
			     .copy_kind = 1,
			     .src_kind = 1,
			     .dst_kind = 3};
	struct zg_counters c = {
		.dropped_records = 1, .launches = 3, .launch_stacks = 2, .cubins = 1};
	struct zg_overhead o = {
		.start = 1, .end = 9, .kind = 2, .object_kind = 1, .object_id = {PID, PID + 1}};
	struct {
		struct zg_pcs p[2];
		char pool[11];
	} pcs = {{{.cubin_crc = 0xc0b1,
		   .pc_offset = 0x10,
		   .samples = 5,
		   .stall = 3,
		   .context = 1,
		   .name_off = 0,
		   .name_len = 11},
		  {.cubin_crc = 0xc0b1,
		   .pc_offset = 0x20,
		   .samples = 7,
		   .stall = 4,
		   .context = 1,
		   .name_off = 0,
		   .name_len = 11}},
		 "_Z6kernelPf"};
	struct {
		struct zg_stall s[2];
		char pool[25];
	} st = {{{.context = 1, .index = 3, .name_off = 0, .name_len = 15},
		 {.context = 1, .index = 4, .name_off = 15, .name_len = 10}},
		"long_scoreboardnot_select"};

	put_hdr(b, PID);
	put_frame(b, ZG_INFO, 2, info, sizeof(info) - 1);
	put_frame(b, ZG_STALLS, 2, &st, sizeof(st));
	put_cubin(b, 0xc0b1, 6,
		  "\x7f"
		  "ELF\2\1",
		  6);
	put_stack(b, 77, ips, 3);
	put_launch(b, 100, ZG_L_STACK, 77);
	put_launch(b, 101, ZG_L_RATELIMITED, 0);
	put_kernels(b, 2, 6000, names, 2);
	put_frame(b, ZG_MEMOP, 1, &m, sizeof(m));
	put_frame(b, ZG_PCS, 2, &pcs, sizeof(pcs));
	put_frame(b, 999, 3, "xyz", 3); /* unknown: skipped */
	put_frame(b, ZG_OVERHEAD, 1, &o, sizeof(o));
	put_frame(b, ZG_COUNTERS, 1, &c, sizeof(c));
}

static void check_good(const struct prof_gpu *g, const struct profile *stacks)
{
	const struct prof_gpu_cubin *cb;
	const uint64_t *ips;

	assert_int_equal(g->nr_kernels, 2);
	assert_string_equal(prof_gpu_str(g, g->kernels[0].name), "_Z6kernelPf");
	assert_string_equal(prof_gpu_str(g, g->kernels[1].name), "_Z4axpyfPKfPf");
	assert_int_equal(g->kernels[1].pid, PID);
	assert_int_equal(g->kernels[1].start, 7000);
	assert_int_equal(g->kernels[1].end, 7700);
	assert_int_equal(g->kernels[1].corr, 101);
	assert_int_equal(g->kernels[1].grid[0], 256);
	assert_int_equal(g->kernels[1].block[0], 128);
	assert_int_equal(g->kernels[1].smem_dynamic, 1024);
	assert_int_equal(g->nr_memops, 1);
	assert_int_equal(g->memops[0].bytes, 1 << 20);
	assert_int_equal(g->memops[0].dst_kind, 3);
	assert_int_equal(g->memops[0].pid, PID);
	assert_int_equal(g->nr_launches, 2);
	assert_int_equal(g->launches[0].flags, ZG_L_STACK);
	assert_int_equal(g->launches[0].tid, PID + 1);
	assert_int_equal(g->launches[1].stack, PROF_GPU_NO_STACK);
	assert_true(g->launches[0].stack < stacks->nr_stacks);
	assert_int_equal(stacks->stacks[g->launches[0].stack].nk, 0);
	assert_int_equal(stacks->stacks[g->launches[0].stack].nu, 3);
	ips = profile_stack_ips(stacks, g->launches[0].stack);
	assert_int_equal(ips[0], 0x401010);
	assert_int_equal(ips[2], 0x401030);
	assert_int_equal(g->nr_pcs, 2);
	assert_int_equal(g->pcs[1].samples, 7);
	assert_string_equal(prof_gpu_str(g, g->pcs[1].function), "_Z6kernelPf");
	assert_int_equal(g->pcs[0].function, g->kernels[0].name);
	assert_string_equal(prof_gpu_stall_name(g, PID, 1, 3), "long_scoreboard");
	assert_string_equal(prof_gpu_stall_name(g, PID, 1, 4), "not_select");
	cb = prof_gpu_find_cubin(g, 0xc0b1);
	assert_non_null(cb);
	assert_int_equal(cb->len, 6);
	assert_int_equal(cb->pid, PID);
	assert_int_equal(cb->module_id, 2);
	assert_memory_equal(cb->data,
			    "\x7f"
			    "ELF",
			    4);
	assert_int_equal(g->nr_overheads, 1);
	assert_int_equal(g->overheads[0].object_id[1], PID + 1);
	assert_int_equal(g->nr_counters, 1);
	assert_int_equal(prof_gpu_find_counters(g, PID)->launch_stacks, 2);
	assert_int_equal(g->nr_infos, 2);
	assert_string_equal(prof_gpu_str(g, g->infos[0].key), "cupti_version");
	assert_string_equal(prof_gpu_str(g, g->infos[0].value), "23");
	assert_string_equal(prof_gpu_str(g, g->infos[1].value), "PC sampling is off");
}

/* A scratch directory for files. */
struct dir {
	char path[64];
	int fd;
};

static void dir_open(struct dir *d)
{
	snprintf(d->path, sizeof(d->path), "/tmp/zt-ztgpu-XXXXXX");
	assert_non_null(mkdtemp(d->path));
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(d->fd >= 0);
}

static void dir_close(struct dir *d)
{
	char cmd[128];

	close(d->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	assert_int_equal(system(cmd), 0);
}

/* name in d: created or truncated, then n bytes of p (append: added). */
static void put_file(struct dir *d, const char *name, const void *p, size_t n, int append)
{
	int fd = openat(d->fd, name, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC),
			0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}

/* ---- tests --------------------------------------------------------------- */

static void test_good(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	struct ztgpu_reader *r;
	struct dir d;
	struct zbuf b;
	char msg[256];
	int n;

	zbuf_init(&b);
	good_file(&b);
	dir_open(&d);
	/* the name says another pid: the header's is the one */
	put_file(&d, "gpu-999-1.zg", b.data, b.len, 0);
	assert_int_equal(ztgpu_reader_open(d.fd, "gpu-999-1.zg", &r, msg, sizeof(msg)), 0);
	assert_int_equal(ztgpu_reader_pid(r), PID);
	assert_int_equal(ztgpu_reader_uid(r), getuid());
	n = ztgpu_reader_read(r, g, msg, sizeof(msg));
	assert_int_equal(n, 12);
	check_good(g, ztgpu_reader_stacks(r));
	assert_int_equal(ztgpu_reader_offset(r), b.len);
	assert_int_equal(ztgpu_reader_read(r, g, msg, sizeof(msg)), 0); /* nothing new */
	assert_int_equal(g->nr_kernels, 2);
	ztgpu_reader_free(r);
	ztgpu_reader_free(NULL);

	/* the memory variant reads the same */
	prof_gpu_clear(g);
	{
		struct profile st;
		uint32_t pid = 0;

		profile_init(&st);
		assert_int_equal(ztgpu_decode_mem(b.data, b.len, g, &st, &pid, msg, sizeof(msg)),
				 0);
		assert_int_equal(pid, PID);
		check_good(g, &st);
		profile_release(&st);
	}
	prof_gpu_free(g);
	zbuf_release(&b);
	dir_close(&d);
}

/* The file grows a byte at a time: frames come out whole, once each. */
static void test_incremental(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	struct ztgpu_reader *r;
	struct dir d;
	struct zbuf b;
	char msg[256];
	size_t i;
	int total = 0, n;

	zbuf_init(&b);
	good_file(&b);
	dir_open(&d);
	put_file(&d, "f.zg", b.data, 0, 0); /* created, nothing written yet */
	assert_int_equal(ztgpu_reader_open(d.fd, "f.zg", &r, msg, sizeof(msg)), 0);
	assert_int_equal(ztgpu_reader_pid(r), 0);
	for (i = 0; i < b.len; i++) {
		put_file(&d, "f.zg", b.data + i, 1, 1);
		n = ztgpu_reader_read(r, g, msg, sizeof(msg));
		assert_true(n == 0 || n == 1);
		total += n;
		if (i + 1 >= sizeof(struct zg_file_hdr))
			assert_int_equal(ztgpu_reader_pid(r), PID);
	}
	assert_int_equal(total, 12);
	check_good(g, ztgpu_reader_stacks(r));
	ztgpu_reader_free(r);
	prof_gpu_free(g);
	zbuf_release(&b);
	dir_close(&d);
}

/* A stack defined in one read, its launch in a later one; the same stack
 * under two ids is one stack. */
static void test_stacks_across_reads(void **state)
{
	static const uint64_t ips[] = {0x1000, 0x2000};
	struct prof_gpu *g = prof_gpu_new();
	const struct profile *st;
	struct ztgpu_reader *r;
	struct dir d;
	struct zbuf b;
	char msg[256];

	zbuf_init(&b);
	put_hdr(&b, PID);
	put_stack(&b, 1, ips, 2);
	put_stack(&b, 2, ips, 2);
	dir_open(&d);
	put_file(&d, "f.zg", b.data, b.len, 0);
	assert_int_equal(ztgpu_reader_open(d.fd, "f.zg", &r, msg, sizeof(msg)), 0);
	assert_int_equal(ztgpu_reader_read(r, g, msg, sizeof(msg)), 2);
	zbuf_reset(&b);
	put_launch(&b, 1, ZG_L_STACK, 2);
	put_launch(&b, 2, ZG_L_STACK | ZG_L_NESTED, 1);
	put_file(&d, "f.zg", b.data, b.len, 1);
	assert_int_equal(ztgpu_reader_read(r, g, msg, sizeof(msg)), 2);
	st = ztgpu_reader_stacks(r);
	assert_int_equal(st->nr_stacks, 1);
	assert_int_equal(g->launches[0].stack, 0);
	assert_int_equal(g->launches[1].stack, 0);
	assert_int_equal(g->launches[1].flags, ZG_L_STACK | ZG_L_NESTED);
	/* an undefined id ends the file, the launches before it stay */
	zbuf_reset(&b);
	put_launch(&b, 3, ZG_L_STACK, 3);
	put_file(&d, "f.zg", b.data, b.len, 1);
	assert_int_equal(ztgpu_reader_read(r, g, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "stack id 3 is not defined"));
	assert_int_equal(g->nr_launches, 2);
	ztgpu_reader_free(r);
	prof_gpu_free(g);
	zbuf_release(&b);
	dir_close(&d);
}

/* A file whose last frame is cut short: what comes before is read, the
 * rest waits (and is read once complete). */
static void test_truncated(void **state)
{
	static const char *const names[] = {"k"};
	struct prof_gpu *g = prof_gpu_new();
	struct ztgpu_reader *r;
	struct dir d;
	struct zbuf b;
	char msg[256];
	size_t cut;

	zbuf_init(&b);
	put_hdr(&b, PID);
	put_kernels(&b, 3, 0, names, 1);
	cut = b.len;
	put_kernels(&b, 4, 10000, names, 1);
	dir_open(&d);
	put_file(&d, "f.zg", b.data, cut + 50, 0);
	assert_int_equal(ztgpu_reader_open(d.fd, "f.zg", &r, msg, sizeof(msg)), 0);
	assert_int_equal(ztgpu_reader_read(r, g, msg, sizeof(msg)), 1);
	assert_int_equal(g->nr_kernels, 3);
	assert_int_equal(ztgpu_reader_read(r, g, msg, sizeof(msg)), 0);
	assert_int_equal(ztgpu_reader_offset(r), cut);
	put_file(&d, "f.zg", b.data + cut + 50, b.len - cut - 50, 1);
	assert_int_equal(ztgpu_reader_read(r, g, msg, sizeof(msg)), 1);
	assert_int_equal(g->nr_kernels, 7);
	ztgpu_reader_free(r);
	/* in memory: a short last frame is ignored */
	prof_gpu_clear(g);
	{
		struct profile st;

		profile_init(&st);
		assert_int_equal(ztgpu_decode_mem(b.data, cut + 50, g, &st, NULL, msg, sizeof(msg)),
				 0);
		assert_int_equal(g->nr_kernels, 3);
		assert_int_equal(ztgpu_decode_mem(b.data, 20, g, &st, NULL, msg, sizeof(msg)),
				 -EBADMSG); /* inside the header */
		assert_int_equal(ztgpu_decode_mem(NULL, 0, g, &st, NULL, msg, sizeof(msg)),
				 -EBADMSG);
		profile_release(&st);
	}
	prof_gpu_free(g);
	zbuf_release(&b);
	dir_close(&d);
}

static void test_crc_damage(void **state)
{
	static const char *const names[] = {"k"};
	struct prof_gpu *g = prof_gpu_new();
	struct ztgpu_reader *r;
	struct dir d;
	struct zbuf b;
	char msg[256];
	size_t second;

	zbuf_init(&b);
	put_hdr(&b, PID);
	put_kernels(&b, 3, 0, names, 1);
	second = b.len;
	put_kernels(&b, 4, 10000, names, 1);
	put_kernels(&b, 5, 20000, names, 1);
	b.data[second + sizeof(struct zg_frame_hdr) + 3] ^= 1; /* a byte of the 2nd payload */
	dir_open(&d);
	put_file(&d, "f.zg", b.data, b.len, 0);
	assert_int_equal(ztgpu_reader_open(d.fd, "f.zg", &r, msg, sizeof(msg)), 0);
	assert_int_equal(ztgpu_reader_read(r, g, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "CRC mismatch"));
	assert_non_null(strstr(msg, "frame 1 (KERNEL)"));
	assert_int_equal(g->nr_kernels, 3); /* the frame before stays */
	msg[0] = 0;
	assert_int_equal(ztgpu_reader_read(r, g, msg, sizeof(msg)), -EBADMSG); /* sticky */
	assert_non_null(strstr(msg, "CRC mismatch"));
	assert_int_equal(g->nr_kernels, 3);
	ztgpu_reader_free(r);
	prof_gpu_free(g);
	zbuf_release(&b);
	dir_close(&d);
}

/* One bad frame after a good one: the error, and the good one's records. */
static void expect_bad(const void *pl, size_t len, uint32_t type, uint32_t count, const char *what)
{
	static const char *const names[] = {"k"};
	struct prof_gpu *g = prof_gpu_new();
	struct profile st;
	struct zbuf b;
	char msg[256] = "";

	zbuf_init(&b);
	put_hdr(&b, PID);
	put_kernels(&b, 1, 0, names, 1);
	put_frame(&b, type, count, pl, len);
	profile_init(&st);
	assert_int_equal(ztgpu_decode_mem(b.data, b.len, g, &st, NULL, msg, sizeof(msg)), -EBADMSG);
	if (!strstr(msg, what))
		fail_msg("expected '%s' in '%s'", what, msg);
	assert_int_equal(g->nr_kernels, 1);
	assert_int_equal(g->nr_memops + g->nr_launches + g->nr_pcs + g->nr_cubins + g->nr_infos, 0);
	profile_release(&st);
	prof_gpu_free(g);
	zbuf_release(&b);
}

static void test_malformed(void **state)
{
	struct zg_kernel k = {.name_off = 0, .name_len = 5};
	struct zg_memop m = {.kind = ZG_MEMCPY};
	struct zg_launch l = {.flags = ZG_L_STACK, .stack = 5};
	struct zg_counters c = {0};
	struct {
		uint32_t id, n;
		uint64_t ips[2];
	} stk = {1, 3, {1, 2}};
	uint8_t big[sizeof(struct zg_kernel) + 4] = {0};
	struct zbuf b;

	/* the name runs past the pool (4 bytes) */
	memcpy(big, &k, sizeof(k));
	expect_bad(big, sizeof(big), ZG_KERNEL, 1, "outside the 4-byte pool");
	k.name_off = UINT32_MAX; /* an offset that wraps */
	memcpy(big, &k, sizeof(k));
	expect_bad(big, sizeof(big), ZG_KERNEL, 1, "outside");
	/* counts against the payload */
	expect_bad(big, sizeof(big), ZG_KERNEL, UINT32_MAX, "exceed the");
	expect_bad(&m, sizeof(m), ZG_MEMOP, 2, "exceed the");
	expect_bad(&m, sizeof(m), ZG_MEMOP, 0, "a 56-byte payload");
	m.kind = 7;
	expect_bad(&m, sizeof(m), ZG_MEMOP, 1, "kind 7");
	expect_bad(&l, sizeof(l), ZG_LAUNCH, 1, "stack id 5 is not defined");
	expect_bad(&stk, sizeof(stk), ZG_STACK, 1, "frames past the payload");
	stk.n = 600;
	expect_bad(&stk, sizeof(stk), ZG_STACK, 1, "600 frames");
	stk.n = 1;
	expect_bad(&stk, sizeof(stk), ZG_STACK, 1, "8 bytes after the last stack");
	expect_bad(&stk, sizeof(stk), ZG_STACK, UINT32_MAX, "header past the payload");
	{
		struct zg_cubin h = {.crc = 1, .size = 5};
		uint8_t cb[sizeof(h) + 4] = {0};

		memcpy(cb, &h, sizeof(h));
		expect_bad(cb, sizeof(cb), ZG_CUBIN, 1, "cubin of 5 bytes in a frame of 4");
		expect_bad(cb, sizeof(cb), ZG_CUBIN, 2, "one cubin");
		expect_bad(cb, 10, ZG_CUBIN, 1, "one cubin");
	}
	expect_bad(&c, sizeof(c) - 8, ZG_COUNTERS, 1, "one record");
	expect_bad("key\0value", 9, ZG_INFO, 1, "value not terminated");
	expect_bad("key", 3, ZG_INFO, 1, "key not terminated");
	expect_bad("k\0v\0extra", 9, ZG_INFO, 1, "5 bytes after");
	expect_bad("k\0v\0", 4, ZG_INFO, UINT32_MAX, "key not terminated");
	/* more stack ids than a file may define: refused before any is kept */
	{
		uint32_t *ids = calloc(2 * ((size_t)ZTGPU_MAX_STACKS + 1), 4), i;

		assert_non_null(ids);
		for (i = 0; i <= ZTGPU_MAX_STACKS; i++)
			ids[2 * i] = i;
		expect_bad(ids, 8 * ((size_t)ZTGPU_MAX_STACKS + 1), ZG_STACK, ZTGPU_MAX_STACKS + 1,
			   "more than 1048576 stack ids");
		free(ids);
	}

	/* a frame over the limit, a bad header */
	{
		struct prof_gpu *g = prof_gpu_new();
		struct zg_frame_hdr h = {ZG_KERNEL, ZG_FRAME_MAX + 1, 0, 1};
		struct zg_file_hdr fh;
		char msg[256];

		zbuf_init(&b);
		put_hdr(&b, PID);
		zbuf_put(&b, &h, sizeof(h));
		assert_int_equal(ztgpu_decode_mem(b.data, b.len, g, NULL, NULL, msg, sizeof(msg)),
				 -EBADMSG);
		assert_non_null(strstr(msg, "over the"));
		zbuf_reset(&b);
		put_hdr(&b, PID);
		memcpy(&fh, b.data, sizeof(fh));
		fh.magic[0] = 'X';
		assert_int_equal(ztgpu_decode_mem(&fh, sizeof(fh), g, NULL, NULL, msg, sizeof(msg)),
				 -EBADMSG);
		assert_non_null(strstr(msg, "bad magic"));
		memcpy(&fh, b.data, sizeof(fh));
		fh.version = 2;
		assert_int_equal(ztgpu_decode_mem(&fh, sizeof(fh), g, NULL, NULL, msg, sizeof(msg)),
				 -EBADMSG);
		assert_non_null(strstr(msg, "version 2"));
		memcpy(&fh, b.data, sizeof(fh));
		fh.pid = 0;
		assert_int_equal(ztgpu_decode_mem(&fh, sizeof(fh), g, NULL, NULL, msg, sizeof(msg)),
				 -EBADMSG);
		memcpy(&fh, b.data, sizeof(fh));
		fh.hdr_size = 8;
		assert_int_equal(ztgpu_decode_mem(&fh, sizeof(fh), g, NULL, NULL, msg, sizeof(msg)),
				 -EBADMSG);
		/* a longer header: the bytes it adds are skipped */
		memcpy(&fh, b.data, sizeof(fh));
		fh.hdr_size = sizeof(fh) + 8;
		zbuf_reset(&b);
		zbuf_put(&b, &fh, sizeof(fh));
		zbuf_put(&b, "12345678", 8);
		put_frame(&b, ZG_COUNTERS, 1, &c, sizeof(c));
		assert_int_equal(ztgpu_decode_mem(b.data, b.len, g, NULL, NULL, msg, sizeof(msg)),
				 0);
		assert_int_equal(g->nr_counters, 1);
		zbuf_release(&b);
		prof_gpu_free(g);
	}
}

/* A symbolic link planted where a file is expected, a FIFO (open must
 * not block on it), a directory: refused without reading. */
static void test_refused(void **state)
{
	struct ztgpu_reader *r = (void *)1;
	struct dir d;
	struct zbuf b;
	char msg[256], path[128];

	zbuf_init(&b);
	good_file(&b);
	dir_open(&d);
	put_file(&d, "real.zg", b.data, b.len, 0);
	assert_int_equal(symlinkat("real.zg", d.fd, "link.zg"), 0);
	assert_int_equal(ztgpu_reader_open(d.fd, "link.zg", &r, msg, sizeof(msg)), -ELOOP);
	assert_null(r);
	assert_non_null(strstr(msg, "symbolic link"));
	assert_int_equal(mkfifoat(d.fd, "fifo.zg", 0600), 0);
	assert_int_equal(ztgpu_reader_open(d.fd, "fifo.zg", &r, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "not a regular file"));
	assert_int_equal(mkdirat(d.fd, "dir.zg", 0700), 0);
	assert_int_equal(ztgpu_reader_open(d.fd, "dir.zg", &r, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(ztgpu_reader_open(d.fd, "none.zg", &r, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "cannot open"));
	/* not a GPU file */
	put_file(&d, "text.zg", "hello, this is not a zt GPU file at all", 39, 0);
	assert_int_equal(ztgpu_reader_open(d.fd, "text.zg", &r, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "bad magic"));
	/* an absolute name ignores the directory, but not O_NOFOLLOW */
	snprintf(path, sizeof(path), "%s/link.zg", d.path);
	assert_int_equal(ztgpu_reader_open(d.fd, path, &r, msg, sizeof(msg)), -ELOOP);
	zbuf_release(&b);
	dir_close(&d);
}

/* Many frames: one read decodes at most its budget, the next ones the rest. */
static void test_budget(void **state)
{
	static const char *const names[] = {"k"};
	struct prof_gpu *g = prof_gpu_new();
	struct ztgpu_reader *r;
	struct dir d;
	struct zbuf b;
	char msg[256];
	int n, calls = 0, i;

	zbuf_init(&b);
	put_hdr(&b, PID);
	for (i = 0; i < 4; i++) /* 4 frames of 200,000 kernels (22 MB each) */
		put_kernels(&b, 200000, (uint64_t)i * 1000000000, names, 1);
	dir_open(&d);
	put_file(&d, "f.zg", b.data, b.len, 0);
	assert_int_equal(ztgpu_reader_open(d.fd, "f.zg", &r, msg, sizeof(msg)), 0);
	while ((n = ztgpu_reader_read(r, g, msg, sizeof(msg))) > 0)
		calls++;
	assert_int_equal(n, 0);
	assert_int_equal(calls, 2);
	assert_int_equal(g->nr_kernels, 800000);
	ztgpu_reader_free(r);
	prof_gpu_free(g);
	zbuf_release(&b);
	dir_close(&d);
}

/* The fuzz seed corpus (tests/fuzz/corpus/ztgpu): ZTGPU_CORPUS_DIR=dir. */
static void test_seed_corpus(void **state)
{
	static const char *const names[] = {"_Z1av", "_Z1bv", "_Z1cv"};
	static const uint64_t ips[] = {0x401000, 0x402000};
	const char *dir = getenv("ZTGPU_CORPUS_DIR");
	struct zbuf b;
	char path[4096];
	FILE *f;

	if (!dir)
		skip();
	zbuf_init(&b);
	good_file(&b);
	snprintf(path, sizeof(path), "%s/all-frames.zg", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fclose(f);
	zbuf_reset(&b);
	put_hdr(&b, 7);
	put_stack(&b, 1, ips, 2);
	put_launch(&b, 1, ZG_L_STACK, 1);
	put_kernels(&b, 5, 100, names, 3);
	put_launch(&b, 2, ZG_L_STACK | ZG_L_NESTED, 1);
	snprintf(path, sizeof(path), "%s/launches.zg", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len - 10, f), b.len - 10); /* the last cut short */
	fclose(f);
	zbuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_incremental),
		cmocka_unit_test(test_stacks_across_reads),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_crc_damage),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_seed_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
