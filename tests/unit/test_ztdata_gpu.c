// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of zt.data's GPU chunks (version 1.2; formats/ztdata_gpu.c
 * through formats/ztdata.h): round trips of every record kind, launch
 * stacks shared with the samples' stack table, cubins written once,
 * chunks sealed early, the chunk order, readers that skip GPU chunks,
 * crafted bad chunks, and the bytes a kernel and a PC bucket take.
 * With ZTDATA_CORPUS_DIR=DIR it also writes GPU seeds of the zt.data fuzz
 * corpus (tests/fuzz/corpus/ztdata) there.
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <cmocka.h>

#include "formats/ztdata.h"
#include "libprof/gpu.h"
#include "libprof/zbuf.h"
#include "tests/unit/testutil.h"

#define CH_STACKS	 4
#define CH_SAMPLES	 5
#define CH_GPU_META	 9
#define CH_GPU_CUBINS	 10
#define CH_GPU_KERNELS	 11
#define CH_GPU_MEMOPS	 12
#define CH_GPU_LAUNCHES	 13
#define CH_GPU_PCS	 14
#define CH_GPU_OVERHEADS 15
#define CH_INDEX	 255

/* ---- helpers ------------------------------------------------------------- */

static uint8_t *fd_contents(int fd, size_t *len)
{
	struct stat st;
	uint8_t *d;

	assert_int_equal(fstat(fd, &st), 0);
	d = malloc(st.st_size ? (size_t)st.st_size : 1);
	assert_non_null(d);
	assert_int_equal(pread(fd, d, (size_t)st.st_size, 0), st.st_size);
	*len = (size_t)st.st_size;
	return d;
}

static struct ztdata_writer *writer(int *fd)
{
	struct ztdata_writer *w;

	*fd = memfd_create("ztdata-gpu", MFD_CLOEXEC);
	assert_true(*fd >= 0);
	w = ztdata_writer_new(*fd);
	assert_non_null(w);
	return w;
}

static uint8_t *finish(struct ztdata_writer *w, int fd, size_t *len)
{
	uint8_t *d;

	assert_int_equal(ztdata_writer_finish(w), 0);
	ztdata_writer_free(w);
	d = fd_contents(fd, len);
	close(fd);
	return d;
}

struct tchunk {
	uint32_t type, flags, raw, stored;
	size_t off;
};

/* The chunk headers of a file, independently of the reader. */
static size_t walk(const uint8_t *d, size_t len, struct tchunk *ch, size_t max)
{
	size_t off = 16, n = 0;
	uint32_t h[6];

	while (off + 24 <= len && n < max) {
		memcpy(h, d + off, sizeof(h));
		ch[n++] = (struct tchunk){h[0], h[1], h[2], h[3], off};
		off += 24 + h[3];
	}
	assert_int_equal(off, len);
	return n;
}

/* Bytes (headers included) of the chunks of a type. */
static size_t type_bytes(const uint8_t *d, size_t len, uint32_t type)
{
	struct tchunk ch[256];
	size_t n = walk(d, len, ch, 256), i, sum = 0;

	for (i = 0; i < n; i++)
		if (ch[i].type == type)
			sum += 24 + ch[i].stored;
	return sum;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* little-endian host */
}

/* A file of header and chunks with given raw payloads, stored uncompressed. */
struct craft {
	struct zbuf b;
	uint32_t seq;
};

static void craft_init(struct craft *c)
{
	static const uint8_t hdr[16] = {'Z', 'T', 'D', 'A', 'T', 'A', '\r', '\n', 1, 0, 2, 0, 16};

	zbuf_init(&c->b);
	zbuf_put(&c->b, hdr, 16);
	c->seq = 0;
}

static void craft_chunk(struct craft *c, uint32_t type, const void *pl, size_t n)
{
	uint8_t h[24];

	put_le32(h, type);
	put_le32(h + 4, 0);
	put_le32(h + 8, (uint32_t)n);
	put_le32(h + 12, (uint32_t)n);
	put_le32(h + 16, c->seq++);
	put_le32(h + 20, (uint32_t)crc32(crc32(0, h, 20), pl, (uInt)n));
	zbuf_put(&c->b, h, 24);
	zbuf_put(&c->b, pl, n);
}

/* d with every chunk stored uncompressed (mutations then reach the decoders). */
static void uncompress_all(const uint8_t *d, size_t len, struct zbuf *out)
{
	struct tchunk ch[256];
	size_t n = walk(d, len, ch, 256), i;
	struct craft c;

	craft_init(&c);
	for (i = 0; i < n; i++) {
		const uint8_t *pl = d + ch[i].off + 24;
		uint8_t *raw = malloc(ch[i].raw ? ch[i].raw : 1);

		assert_non_null(raw);
		if (ch[i].flags & 1)
			assert_int_equal(ZSTD_decompress(raw, ch[i].raw, pl, ch[i].stored),
					 ch[i].raw);
		else
			memcpy(raw, pl, ch[i].raw);
		if (ch[i].type == CH_INDEX) {
			/* the offsets moved: an index of the new offsets */
			struct zbuf idx;
			struct zcur cur;
			uint64_t cnt, k, t, o, samples, stacks;
			struct tchunk nc[256];
			size_t nn;

			zcur_init(&cur, raw, ch[i].raw);
			assert_int_equal(zcur_uv(&cur, &cnt), 0);
			for (k = 0; k < cnt; k++) {
				assert_int_equal(zcur_uv(&cur, &t), 0);
				assert_int_equal(zcur_uv(&cur, &o), 0);
			}
			assert_int_equal(zcur_uv(&cur, &samples), 0);
			assert_int_equal(zcur_uv(&cur, &stacks), 0);
			nn = walk(c.b.data, c.b.len, nc, 256);
			zbuf_init(&idx);
			zbuf_put_uv(&idx, nn);
			for (k = 0; k < nn; k++) {
				zbuf_put_uv(&idx, nc[k].type);
				zbuf_put_uv(&idx, nc[k].off);
			}
			zbuf_put_uv(&idx, samples);
			zbuf_put_uv(&idx, stacks);
			craft_chunk(&c, CH_INDEX, idx.data, idx.len);
			zbuf_release(&idx);
		} else {
			craft_chunk(&c, ch[i].type, raw, ch[i].raw);
		}
		free(raw);
	}
	*out = c.b;
}

/* ---- the records --------------------------------------------------------- */

static uint32_t str(struct prof_gpu *g, const char *s)
{
	uint32_t id;

	assert_int_equal(prof_gpu_intern(g, s, strlen(s), &id), 0);
	return id;
}

/* Every kind of record, launch stacks interned into st. salt varies the
 * values (for a second batch). */
static struct prof_gpu *make_gpu(struct profile *st, unsigned salt)
{
	static const uint64_t ips[3][3] = {
		{0x401000, 0x402000, 0x403000}, {0x7f0000001000, 0x401100}, {0x401200}};
	struct prof_gpu *g = prof_gpu_new();
	uint8_t cubin[300];
	unsigned i;

	assert_non_null(g);
	for (i = 0; i < sizeof(cubin); i++)
		cubin[i] = (uint8_t)(i * 7 + salt);
	for (i = 0; i < 40; i++) {
		struct prof_gpu_kernel k = {
			.start = 1000000 + salt * 100000 + i * 1500,
			.end = 1000000 + salt * 100000 + i * 1500 + 900 + i % 3,
			.queued = i % 5 == 0 ? 990000 + i : 0,
			.submitted = i % 7 == 0 ? 995000 + i : 0,
			.graph_node_id = i % 9 == 0 ? 0x1234567890ull + i : 0,
			.pid = 100 + i % 2,
			.corr = 10 + i * 2 + salt * 1000,
			.device = i % 2,
			.context = 1,
			.stream = 7 + i % 2,
			.graph_id = i % 9 == 0 ? 3 : 0,
			.grid = {256 + i % 4, 1, 1},
			.block = {128, 2, 1},
			.regs = 32,
			.smem_static = 48,
			.smem_dynamic = i % 4 * 1024,
			.local_mem = 0,
			.name = str(g, i % 3 ? "_Z6kernelPfi" : "_ZN5torch4axpyEv"),
		};

		assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
	}
	for (i = 0; i < 6; i++) {
		struct prof_gpu_memop m = {.start = 900000 + i * 10,
					   .end = 900000 + i * 10 + 5,
					   .bytes = (uint64_t)1 << (10 + i),
					   .pid = 100 + i % 2,
					   .corr = 5 + i,
					   .device = 0,
					   .context = 1,
					   .stream = 7,
					   .value = i == 3 ? 0xff : 0,
					   .graph_id = 0,
					   .kind = i == 3 ? PROF_GPU_MEMSET : PROF_GPU_MEMCPY,
					   .copy_kind = i % 2 ? 2 : 1,
					   .src_kind = 1,
					   .dst_kind = 3};

		assert_int_equal(prof_gpu_add_memop(g, &m), 0);
	}
	for (i = 0; i < 10; i++) {
		struct prof_gpu_launch l = {.ts = 990000 + i * 100,
					    .pid = 100 + i % 2,
					    .tid = 100 + i % 2 + (i % 3 ? 1 : 0),
					    .corr = 10 + i * 2,
					    .cbid = 211,
					    .domain = 2,
					    .stack = PROF_GPU_NO_STACK};

		if (i % 4 != 3) {
			l.flags |= PROF_GPU_L_STACK;
			assert_int_equal(
				profile_intern_stack(st, ips[i % 3], 0, 3 - i % 3, &l.stack), 0);
		} else {
			l.flags |= PROF_GPU_L_RATELIMITED;
		}
		if (i == 5) {
			l.flags |= PROF_GPU_L_NESTED;
			l.outer_corr = l.corr - 1;
			l.domain = 1;
		}
		if (i == 6) {
			l.flags |= PROF_GPU_L_GRAPH;
			l.graph_id = 3;
		}
		assert_int_equal(prof_gpu_add_launch(g, &l), 0);
	}
	for (i = 0; i < 60; i++) {
		struct prof_gpu_pcs s = {
			.cubin_crc = 0xfeedface00000000ull + salt,
			.pc_offset = i / 3 * 16,
			.samples = 1 + i % 5,
			.pid = 100,
			.context = 1,
			.function_index = i / 30,
			.stall = i % 3,
			.corr = 0,
			.function = str(g, i < 30 ? "_Z6kernelPfi" : "_ZN5torch4axpyEv")};

		assert_int_equal(prof_gpu_add_pcs(g, &s), 0);
	}
	for (i = 0; i < 3; i++) {
		static const char *const names[] = {"long_scoreboard", "barrier", "not_selected"};
		struct prof_gpu_stall s = {
			.pid = 100, .context = 1, .index = i, .name = str(g, names[i])};

		assert_int_equal(prof_gpu_add_stall(g, &s), 0);
	}
	assert_int_equal(prof_gpu_add_cubin(g, 0xfeedface00000000ull + salt, 100, 3, 1, cubin,
					    sizeof(cubin)),
			 0);
	{
		struct prof_gpu_overhead o = {.start = 1000,
					      .end = 2000,
					      .pid = 100,
					      .kind = 2,
					      .object_kind = 1,
					      .object_id = {100, 101}};
		struct prof_gpu_counters c = {.pid = 100,
					      .dropped_records = 1 + salt,
					      .pc_total_samples = 180,
					      .launches = 10,
					      .launch_stacks = 7,
					      .cubins = 1};

		assert_int_equal(prof_gpu_add_overhead(g, &o), 0);
		assert_int_equal(prof_gpu_set_counters(g, &c), 0);
	}
	assert_int_equal(prof_gpu_add_info(g, 100, "cupti_version", "23"), 0);
	assert_int_equal(prof_gpu_add_info(g, 100, "warning", "PC sampling: serialized mode"), 0);
	return g;
}

/* Aggregate PC buckets by key (the writer merges and sorts them). */
static uint64_t pcs_total(const struct prof_gpu *g, uint32_t pid, uint64_t crc, const char *fn,
			  uint64_t pc, uint32_t stall)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < g->nr_pcs; i++) {
		const struct prof_gpu_pcs *s = &g->pcs[i];

		if (s->pid == pid && s->cubin_crc == crc && s->pc_offset == pc &&
		    s->stall == stall && !strcmp(prof_gpu_str(g, s->function), fn))
			n += s->samples;
	}
	return n;
}

/* b (read back, stacks in bs) holds what a (stacks in as) held. */
static void assert_gpu_equal(const struct prof_gpu *a, const struct profile *as,
			     const struct prof_gpu *b, const struct profile *bs)
{
	size_t i;

	assert_non_null(b);
	assert_int_equal(a->nr_kernels, b->nr_kernels);
	for (i = 0; i < a->nr_kernels; i++) {
		struct prof_gpu_kernel x = a->kernels[i], y = b->kernels[i];

		assert_string_equal(prof_gpu_str(a, x.name), prof_gpu_str(b, y.name));
		assert_true(x.start == y.start && x.end == y.end && x.queued == y.queued);
		assert_true(x.submitted == y.submitted && x.graph_node_id == y.graph_node_id);
		assert_true(x.pid == y.pid && x.corr == y.corr && x.device == y.device);
		assert_true(x.context == y.context && x.stream == y.stream &&
			    x.graph_id == y.graph_id);
		assert_memory_equal(x.grid, y.grid, sizeof(x.grid));
		assert_memory_equal(x.block, y.block, sizeof(x.block));
		assert_true(x.regs == y.regs && x.smem_static == y.smem_static);
		assert_true(x.smem_dynamic == y.smem_dynamic && x.local_mem == y.local_mem);
	}
	assert_int_equal(a->nr_memops, b->nr_memops);
	for (i = 0; i < a->nr_memops; i++) {
		const struct prof_gpu_memop *x = &a->memops[i], *y = &b->memops[i];

		assert_true(x->start == y->start && x->end == y->end && x->bytes == y->bytes);
		assert_true(x->pid == y->pid && x->corr == y->corr && x->device == y->device);
		assert_true(x->context == y->context && x->stream == y->stream);
		assert_true(x->value == y->value && x->graph_id == y->graph_id);
		assert_true(x->kind == y->kind && x->copy_kind == y->copy_kind);
		assert_true(x->src_kind == y->src_kind && x->dst_kind == y->dst_kind);
	}
	assert_int_equal(a->nr_launches, b->nr_launches);
	for (i = 0; i < a->nr_launches; i++) {
		struct prof_gpu_launch x = a->launches[i], y = b->launches[i];

		if (x.stack != PROF_GPU_NO_STACK) {
			const struct prof_stack *sx = &as->stacks[x.stack], *sy;

			assert_true(y.stack < bs->nr_stacks);
			sy = &bs->stacks[y.stack];
			assert_int_equal(sx->nk, sy->nk);
			assert_int_equal(sx->nu, sy->nu);
			assert_memory_equal(profile_stack_ips(as, x.stack),
					    profile_stack_ips(bs, y.stack),
					    (sx->nk + sx->nu) * sizeof(uint64_t));
		} else {
			assert_int_equal(y.stack, PROF_GPU_NO_STACK);
		}
		assert_true(x.ts == y.ts && x.pid == y.pid && x.tid == y.tid && x.corr == y.corr);
		assert_true(x.outer_corr == y.outer_corr && x.cbid == y.cbid &&
			    x.domain == y.domain);
		assert_true(x.flags == y.flags && x.graph_id == y.graph_id);
	}
	for (i = 0; i < a->nr_pcs; i++) {
		const struct prof_gpu_pcs *s = &a->pcs[i];
		const char *fn = prof_gpu_str(a, s->function);

		assert_int_equal(pcs_total(a, s->pid, s->cubin_crc, fn, s->pc_offset, s->stall),
				 pcs_total(b, s->pid, s->cubin_crc, fn, s->pc_offset, s->stall));
	}
	for (i = 0; i < b->nr_pcs; i++) {
		const struct prof_gpu_pcs *s = &b->pcs[i];

		assert_true(pcs_total(a, s->pid, s->cubin_crc, prof_gpu_str(b, s->function),
				      s->pc_offset, s->stall) > 0);
	}
	for (i = 0; i < a->nr_stalls; i++) {
		const struct prof_gpu_stall *s = &a->stalls[i];
		const char *n = prof_gpu_stall_name(b, s->pid, s->context, s->index);

		assert_non_null(n);
		assert_string_equal(n, prof_gpu_str(a, s->name));
	}
	assert_int_equal(a->nr_stalls, b->nr_stalls);
	assert_int_equal(a->nr_cubins, b->nr_cubins);
	for (i = 0; i < a->nr_cubins; i++) {
		const struct prof_gpu_cubin *x = &a->cubins[i],
					    *y = prof_gpu_find_cubin(b, a->cubins[i].crc);

		assert_non_null(y);
		assert_int_equal(x->len, y->len);
		assert_memory_equal(x->data, y->data, x->len);
		assert_true(x->pid == y->pid && x->module_id == y->module_id &&
			    x->context == y->context);
	}
	assert_int_equal(a->nr_overheads, b->nr_overheads);
	for (i = 0; i < a->nr_overheads; i++) {
		const struct prof_gpu_overhead *x = &a->overheads[i], *y = &b->overheads[i];

		assert_true(x->start == y->start && x->end == y->end && x->pid == y->pid);
		assert_true(x->kind == y->kind && x->object_kind == y->object_kind);
		assert_memory_equal(x->object_id, y->object_id, sizeof(x->object_id));
	}
	assert_int_equal(a->nr_counters, b->nr_counters);
	for (i = 0; i < a->nr_counters; i++) {
		const struct prof_gpu_counters *y = prof_gpu_find_counters(b, a->counters[i].pid);
		const struct prof_gpu_counters *x = &a->counters[i];

		assert_non_null(y);
		assert_true(x->dropped_records == y->dropped_records &&
			    x->pc_total_samples == y->pc_total_samples &&
			    x->pc_dropped_samples == y->pc_dropped_samples &&
			    x->pc_nonuser_samples == y->pc_nonuser_samples &&
			    x->pc_hw_buffer_full == y->pc_hw_buffer_full &&
			    x->launches == y->launches && x->launch_stacks == y->launch_stacks &&
			    x->launch_ratelimited == y->launch_ratelimited &&
			    x->mem_dropped == y->mem_dropped && x->cubins == y->cubins);
	}
	assert_int_equal(a->nr_infos, b->nr_infos);
	for (i = 0; i < a->nr_infos; i++) {
		assert_int_equal(a->infos[i].pid, b->infos[i].pid);
		assert_string_equal(prof_gpu_str(a, a->infos[i].key),
				    prof_gpu_str(b, b->infos[i].key));
		assert_string_equal(prof_gpu_str(a, a->infos[i].value),
				    prof_gpu_str(b, b->infos[i].value));
	}
}

/* ---- tests --------------------------------------------------------------- */

static void test_roundtrip(void **state)
{
	static const uint64_t sips[] = {0xffffffff81000000ull, 0x401000, 0x402000, 0x403000};
	struct ztdata_read_info info;
	struct profile st, p;
	struct prof_gpu *g;
	struct ztdata_writer *w;
	struct tchunk ch[64];
	uint8_t *d;
	size_t len, n, i;
	int fd, pos[256];

	profile_init(&st);
	g = make_gpu(&st, 0);
	w = writer(&fd);
	/* a sample whose stack is also a launch's: one stack in the file */
	assert_int_equal(ztdata_write_sample(w, 1, 1, 100, 100, 0, sips + 1, 0, 3), 0);
	assert_int_equal(ztdata_write_sample(w, 2, 1, 100, 100, 0, sips, 1, 3), 0);
	assert_int_equal(ztdata_write_gpu(w, g, &st), 0);
	assert_true(ztdata_writer_pending(w) > 300);
	d = finish(w, fd, &len);
	assert_int_equal(d[10], 5); /* minor version 5 (1.5: Python code objects) */

	/* the chunk order of a flush */
	n = walk(d, len, ch, 64);
	memset(pos, -1, sizeof(pos));
	for (i = 0; i < n; i++)
		pos[ch[i].type] = (int)i;
	assert_true(pos[CH_STACKS] >= 0 && pos[CH_STACKS] < pos[CH_SAMPLES]);
	for (i = CH_GPU_META; i <= CH_GPU_OVERHEADS; i++) {
		assert_true(pos[i] > pos[CH_SAMPLES]);
		if (i > CH_GPU_META)
			assert_true(pos[i] > pos[i - 1]);
	}
	assert_int_equal(pos[CH_INDEX], (int)n - 1);

	profile_init(&p);
	assert_int_equal(ztdata_read_mem(d, len, &p, &info), 0);
	assert_true(info.complete);
	assert_int_equal(info.skipped, 0);
	assert_int_equal(info.gpu_chunks, 7);
	assert_int_equal(p.nr_samples, 2);
	assert_int_equal(p.nr_stacks, 4); /* 2 of samples (one shared with a launch), 2 more */
	assert_gpu_equal(g, &st, p.gpu, &p);
	/* the shared stack: the launch and the first sample have one id */
	assert_int_equal(p.gpu->launches[0].stack, p.samples[0].stack);
	profile_release(&p);

	/* a reader that leaves them out (zt serve) */
	profile_init(&p);
	assert_int_equal(ztdata_read_mem_flags(d, len, &p, ZTDATA_READ_NO_GPU, &info), 0);
	assert_true(info.complete);
	assert_int_equal(info.skipped, 7);
	assert_int_equal(info.gpu_chunks, 7);
	assert_null(p.gpu);
	assert_int_equal(p.nr_samples, 2);
	profile_release(&p);

	/* a file without GPU records has no p->gpu */
	w = writer(&fd);
	assert_int_equal(ztdata_write_sample(w, 1, 1, 100, 100, 0, sips, 1, 3), 0);
	assert_int_equal(ztdata_write_gpu(w, NULL, NULL), 0);
	free(d);
	d = finish(w, fd, &len);
	profile_init(&p);
	assert_int_equal(ztdata_read_mem(d, len, &p, &info), 0);
	assert_null(p.gpu);
	assert_int_equal(info.gpu_chunks, 0);
	profile_release(&p);

	free(d);
	prof_gpu_free(g);
	profile_release(&st);
}

/* Two batches over two flushes, cubins written once, launch stacks given
 * as addresses, the second pass (snapshots) over GPU chunks. */
static void test_flushes(void **state)
{
	static const uint64_t ips[] = {0x401000, 0x402000, 0x403000};
	struct ztdata_read_info info;
	struct profile st, p, all;
	struct prof_gpu *g1, *g2, *exp;
	struct ztdata_writer *w;
	struct prof_gpu_launch l = {.ts = 5,
				    .pid = 100,
				    .tid = 101,
				    .corr = 77,
				    .flags = PROF_GPU_L_USDT,
				    .stack = 12345};
	uint8_t *d;
	size_t len, i;
	int fd;

	profile_init(&st);
	g1 = make_gpu(&st, 0);
	g2 = make_gpu(&st, 0); /* the same cubin crc: skipped */
	w = writer(&fd);
	assert_int_equal(ztdata_write_gpu(w, g1, &st), 0);
	assert_int_equal(ztdata_writer_flush(w), 0);
	assert_int_equal(ztdata_writer_pending(w), 0);
	assert_int_equal(ztdata_write_gpu(w, g2, &st), 0);
	assert_int_equal(ztdata_write_gpu_launch(w, &l, ips, 0, 3), 0);
	l.corr = 78;
	assert_int_equal(ztdata_write_gpu_launch(w, &l, NULL, 0, 0), 0); /* no stack */
	assert_int_equal(ztdata_write_gpu_launch(w, &l, NULL, 0, 2), -EINVAL);
	assert_int_equal(ztdata_write_gpu_launch(w, &l, ips, 513, 0), -EINVAL);
	d = finish(w, fd, &len);
	assert_int_equal(type_bytes(d, len, CH_GPU_CUBINS) > 0, 1);

	profile_init(&p);
	assert_int_equal(ztdata_read_mem(d, len, &p, &info), 0);
	assert_true(info.complete);
	assert_int_equal(p.gpu->nr_cubins, 1);
	assert_int_equal(p.gpu->nr_kernels, 80);
	assert_int_equal(p.gpu->nr_launches, 22);
	/* what was written: g1 then g2 (one cubin), then the two launches */
	exp = prof_gpu_new();
	profile_init(&all);
	for (i = 0; i < 2; i++) {
		const struct prof_gpu *g = i ? g2 : g1;
		size_t k;

		for (k = 0; k < g->nr_kernels; k++) {
			struct prof_gpu_kernel kk = g->kernels[k];
			const char *n = prof_gpu_str(g, kk.name);

			kk.name = str(exp, n);
			assert_int_equal(prof_gpu_add_kernel(exp, &kk), 0);
		}
		for (k = 0; k < g->nr_launches; k++)
			assert_int_equal(prof_gpu_add_launch(exp, &g->launches[k]), 0);
	}
	{
		struct prof_gpu_launch a = l;

		a.corr = 77;
		a.flags |= PROF_GPU_L_STACK;
		assert_int_equal(profile_intern_stack(&st, ips, 0, 3, &a.stack), 0);
		assert_int_equal(prof_gpu_add_launch(exp, &a), 0);
		a.corr = 78;
		a.flags &= ~(uint32_t)PROF_GPU_L_STACK;
		a.stack = PROF_GPU_NO_STACK;
		assert_int_equal(prof_gpu_add_launch(exp, &a), 0);
	}
	for (i = 0; i < exp->nr_kernels; i++)
		assert_int_equal(exp->kernels[i].start, p.gpu->kernels[i].start);
	assert_int_equal(exp->nr_launches, p.gpu->nr_launches);
	for (i = 0; i < exp->nr_launches; i++) {
		struct prof_gpu_launch x = exp->launches[i], y = p.gpu->launches[i];

		assert_int_equal(x.flags, y.flags);
		assert_int_equal(x.corr, y.corr);
		if (x.stack != PROF_GPU_NO_STACK)
			assert_memory_equal(profile_stack_ips(&st, x.stack),
					    profile_stack_ips(&p, y.stack),
					    st.stacks[x.stack].nu * sizeof(uint64_t));
		else
			assert_int_equal(y.stack, PROF_GPU_NO_STACK);
	}
	/* infos are kept in order, both batches */
	assert_int_equal(p.gpu->nr_infos, 4);
	profile_release(&p);
	profile_release(&all);
	prof_gpu_free(exp);
	free(d);
	prof_gpu_free(g1);
	prof_gpu_free(g2);
	profile_release(&st);
}

static void test_bad_args(void **state)
{
	struct profile st;
	struct prof_gpu *g;
	struct ztdata_writer *w;
	uint8_t *d;
	size_t len;
	int fd;

	profile_init(&st);
	g = make_gpu(&st, 0);
	w = writer(&fd);
	/* a launch stack the profile does not have: nothing written */
	assert_int_equal(ztdata_write_gpu(w, g, NULL), -EINVAL);
	g->launches[1].stack = (uint32_t)st.nr_stacks;
	assert_int_equal(ztdata_write_gpu(w, g, &st), -EINVAL);
	assert_int_equal(ztdata_writer_pending(w), 0);
	g->launches[1].stack = 0;
	assert_int_equal(ztdata_write_gpu(w, g, &st), 0);
	d = finish(w, fd, &len);
	free(d);
	prof_gpu_free(g);
	profile_release(&st);
}

/* Buffers that reach 16 MiB become chunks at once, launches after the
 * stacks they name; every chunk stays under the 256 MiB cap. */
static void test_early_seal(void **state)
{
	struct ztdata_read_info info;
	struct ztdata_writer *w;
	struct prof_gpu *g = prof_gpu_new();
	struct tchunk ch[256];
	struct profile p;
	uint8_t *d, *cubin;
	size_t len, n, i, nl = 0, nc = 0;
	int fd;

	w = writer(&fd);
	/* 2.5 million launches, each with a stack of its own */
	for (i = 0; i < 2500000; i++) {
		struct prof_gpu_launch l = {.ts = i * 1000 + (i * 7919) % 1000,
					    .pid = 9,
					    .tid = 9 + (uint32_t)(i % 4),
					    .corr = (uint32_t)i * 3,
					    .cbid = 211,
					    .domain = 2};
		uint64_t ip = 0x400000 + i * 0x10;

		assert_int_equal(ztdata_write_gpu_launch(w, &l, &ip, 0, 1), 0);
	}
	/* cubins of 7 MiB: every third one seals a chunk */
	cubin = malloc(7 << 20);
	assert_non_null(cubin);
	for (i = 0; i < (7 << 20); i++)
		cubin[i] = (uint8_t)(i * 2654435761u >> 13);
	for (i = 0; i < 4; i++) {
		cubin[0] = (uint8_t)i;
		assert_int_equal(prof_gpu_add_cubin(g, i + 1, 9, 1, 1, cubin, 7 << 20), 0);
	}
	assert_int_equal(ztdata_write_gpu(w, g, NULL), 0);
	free(cubin);
	d = finish(w, fd, &len);
	n = walk(d, len, ch, 256);
	for (i = 0; i < n; i++) {
		assert_true(ch[i].raw <= 256u << 20);
		nl += ch[i].type == CH_GPU_LAUNCHES;
		nc += ch[i].type == CH_GPU_CUBINS;
	}
	assert_true(nl >= 2);
	assert_int_equal(nc, 2);
	profile_init(&p);
	assert_int_equal(ztdata_read_mem(d, len, &p, &info), 0);
	assert_int_equal(p.gpu->nr_launches, 2500000);
	assert_int_equal(p.nr_stacks, 2500000);
	assert_int_equal(profile_stack_ips(&p, p.gpu->launches[2499999].stack)[0],
			 0x400000 + 2499999 * 0x10);
	assert_int_equal(p.gpu->nr_cubins, 4);
	assert_int_equal(p.gpu->cubins[3].len, 7 << 20);
	profile_release(&p);
	free(d);
	prof_gpu_free(g);
}

/* Crafted chunks: each bad one is an error naming it; the good ones before
 * it stay. */
static void expect_bad_chunk(uint32_t type, const struct zbuf *pl, const char *what)
{
	static const uint8_t stacks[] = {0, 1, 0, 1, 0x10}; /* first 0, one stack [0x10] */
	struct ztdata_read_info info;
	struct profile p;
	struct craft c;

	craft_init(&c);
	craft_chunk(&c, CH_STACKS, stacks, sizeof(stacks));
	craft_chunk(&c, type, pl->data, pl->len);
	profile_init(&p);
	assert_int_equal(ztdata_read_mem(c.b.data, c.b.len, &p, &info), -EBADMSG);
	if (!strstr(info.msg, what))
		fail_msg("expected '%s' in '%s'", what, info.msg);
	assert_int_equal(p.nr_stacks, 1);
	assert_null(p.gpu);
	profile_release(&p);
	/* the same chunk for a reader that skips GPU chunks: fine */
	profile_init(&p);
	assert_int_equal(ztdata_read_mem_flags(c.b.data, c.b.len, &p, ZTDATA_READ_NO_GPU, &info),
			 0);
	assert_int_equal(info.skipped, 1);
	profile_release(&p);
	zbuf_release(&c.b);
}

static void test_crafted(void **state)
{
	struct zbuf pl;
	int i;

	zbuf_init(&pl);
	/* a launch naming stack 1 where only stack 0 exists */
	zbuf_put_uv(&pl, 1);
	for (i = 0; i < 4; i++)
		zbuf_put_uv(&pl, 0); /* pid, tid, ts, corr */
	zbuf_put_uv(&pl, 1);	     /* flags: a stack */
	zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, 0);
	zbuf_put_sv(&pl, 1); /* stack id 1 */
	expect_bad_chunk(CH_GPU_LAUNCHES, &pl, "GPU_LAUNCHES) at offset");
	expect_bad_chunk(CH_GPU_LAUNCHES, &pl, "stack id not defined");
	/* a launch whose stack column is missing */
	pl.len--;
	expect_bad_chunk(CH_GPU_LAUNCHES, &pl, "short");
	/* a kernel whose shape names string 1 of a table of 1 */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	zbuf_put_str(&pl, "k");
	zbuf_put_uv(&pl, 1);
	zbuf_put_uv(&pl, 1); /* name 1 */
	for (i = 0; i < 16; i++)
		zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, 0); /* no kernels */
	expect_bad_chunk(CH_GPU_KERNELS, &pl, "shape 0 does not decode");
	pl.data[3] = 0; /* name 0: good; then a kernel of shape 1 */
	pl.len--;
	zbuf_put_uv(&pl, 1);
	zbuf_put_uv(&pl, 1);
	for (i = 0; i < 4; i++)
		zbuf_put_uv(&pl, 0);
	expect_bad_chunk(CH_GPU_KERNELS, &pl, "kernel 0 does not decode");
	/* huge counts */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, UINT64_MAX);
	expect_bad_chunk(CH_GPU_KERNELS, &pl, "bad kernel count");
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, UINT64_MAX / 2);
	expect_bad_chunk(CH_GPU_PCS, &pl, "string count");
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1000);
	expect_bad_chunk(CH_GPU_MEMOPS, &pl, "bad memory operation count");
	/* a cubin longer than the payload */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	for (i = 0; i < 4; i++)
		zbuf_put_uv(&pl, 1);
	zbuf_put_uv(&pl, 100);
	zbuf_put(&pl, "abc", 3);
	expect_bad_chunk(CH_GPU_CUBINS, &pl, "cubin 0 does not decode");
	/* a PC bucket naming string 2 of a table of 1 (delta 2) */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	zbuf_put_str(&pl, "fn");
	zbuf_put_uv(&pl, 1);
	for (i = 0; i < 9; i++)
		zbuf_put_sv(&pl, i == 3 ? 2 : 0);
	expect_bad_chunk(CH_GPU_PCS, &pl, "bucket 0 does not decode");
	/* an info naming string 5 */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	zbuf_put_str(&pl, "key");
	zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, 1);
	zbuf_put_uv(&pl, 1);
	zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, 5);
	expect_bad_chunk(CH_GPU_META, &pl, "info 0 does not decode");
	/* a string with a NUL */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	zbuf_put_bytes(&pl, "a\0b", 3);
	expect_bad_chunk(CH_GPU_META, &pl, "string 0 does not decode");
	/* a correlation id out of 32 bits */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	zbuf_put_sv(&pl, 0);
	zbuf_put_sv(&pl, 0);
	zbuf_put_sv(&pl, 0);
	zbuf_put_uv(&pl, 0);
	zbuf_put_sv(&pl, (int64_t)1 << 33);
	for (i = 0; i < 6; i++)
		zbuf_put_uv(&pl, 0);
	expect_bad_chunk(CH_GPU_MEMOPS, &pl, "memory operation 0 does not decode");
	zbuf_release(&pl);
}

/* A steady training loop: the bytes per kernel (with its launch) and per
 * PC bucket in the file, compressed. */
static void test_bytes_per_record(void **state)
{
	static const char *const names[] = {
		"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_"
		"6detail5ArrayIPcLi1EEEEEviT0_T1_",
		"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_"
		"7MeanOpsIffEEjfLi4EEEEEvT1_",
		"ampere_sgemm_128x64_tn",
		"ampere_sgemm_64x64_nn",
		"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_"
		"13BinaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEEEEvRNS_"
		"18TensorIteratorBaseERKT_EUliE_EEviT1_",
		"_Z17softmax_warp_forwardIfffLi10ELb0ELb0EEvPT0_PKT_iiiPKbib",
		"_ZN7cutlass6KernelI61cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4EEvNT_"
		"6ParamsE",
		"_ZN2at6native27unrolled_elementwise_kernelINS0_21copy_device_to_deviceEEEviT_",
	};
	static const uint64_t ips[4][6] = {
		{0x7f1200012340, 0x7f1200013000, 0x7f3400100000, 0x5555001000, 0x5555002000,
		 0x5555003000},
		{0x7f1200012340, 0x7f1200013000, 0x7f3400100100, 0x5555001100, 0x5555002000,
		 0x5555003000},
		{0x7f1200012340, 0x7f1200014000, 0x7f3400100200, 0x5555001200, 0x5555002100,
		 0x5555003000},
		{0x7f1200012340, 0x7f1200014000, 0x7f3400100300, 0x5555001300, 0x5555002100,
		 0x5555003000},
	};
	struct ztdata_writer *w;
	struct prof_gpu *g = prof_gpu_new();
	struct profile st;
	uint64_t t = 1000000000, rng = 88172645463325252ull;
	uint32_t nm[8], fn[8];
	size_t len, i, nk = 100000, npcs = 0, kbytes, lbytes, pbytes;
	uint8_t *d;
	int fd, f;

	profile_init(&st);
	for (i = 0; i < 8; i++)
		nm[i] = str(g, names[i]);
	for (i = 0; i < 8; i++)
		fn[i] = nm[i];
	w = writer(&fd);
	for (i = 0; i < nk; i++) {
		unsigned k = (unsigned)(i % 8);
		struct prof_gpu_kernel kr = {.pid = 4242,
					     .device = 0,
					     .context = 1,
					     .stream = 7,
					     .grid = {1024u >> (k % 3), 1, 1},
					     .block = {256, 1, 1},
					     .regs = 32 + 8 * (k % 4),
					     .smem_static = k % 2 ? 0 : 4096,
					     .name = nm[k]};
		struct prof_gpu_launch l = {.pid = 4242,
					    .tid = 4242,
					    .cbid = 211,
					    .domain = 2,
					    .flags = PROF_GPU_L_STACK};

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		l.ts = t;
		l.corr = (uint32_t)(1000 + 2 * i);
		assert_int_equal(profile_intern_stack(&st, ips[k % 4], 0, 6, &l.stack), 0);
		kr.corr = l.corr;
		kr.start = t + 4000 + rng % 2000;
		kr.end = kr.start + 20000 + (k * 7919) % 50000 + rng % 3000;
		t = kr.end + rng % 500;
		assert_int_equal(prof_gpu_add_kernel(g, &kr), 0);
		assert_int_equal(prof_gpu_add_launch(g, &l), 0);
		if (g->nr_kernels == 5000) { /* a flush every 5000 (a second or so) */
			assert_int_equal(ztdata_write_gpu(w, g, &st), 0);
			assert_int_equal(ztdata_writer_flush(w), 0);
			prof_gpu_clear(g);
			for (f = 0; f < 8; f++)
				nm[f] = str(g, names[f]);
		}
	}
	/* PC sampling: 8 functions of 400 instructions, a few stall reasons at
	 * each, drained 20 times */
	for (i = 0; i < 20; i++) {
		unsigned fi, pc, s;

		for (f = 0; f < 8; f++)
			fn[f] = str(g, names[f]);
		for (fi = 0; fi < 8; fi++) {
			for (pc = 0; pc < 400; pc++) {
				for (s = 0; s < 3; s++) {
					struct prof_gpu_pcs b = {.cubin_crc = 0x1234abcd5678ef01ull,
								 .pc_offset = pc * 16,
								 .pid = 4242,
								 .context = 1,
								 .function_index = fi,
								 .function = fn[fi]};

					rng ^= rng << 13;
					rng ^= rng >> 7;
					rng ^= rng << 17;
					if (rng % 4 == 0)
						continue;
					b.stall = (uint32_t)((pc * 3 + s * 5 + rng % 2) % 12);
					b.samples = 1 + rng % 40;
					assert_int_equal(prof_gpu_add_pcs(g, &b), 0);
					npcs++;
				}
			}
		}
		assert_int_equal(ztdata_write_gpu(w, g, &st), 0);
		assert_int_equal(ztdata_writer_flush(w), 0);
		prof_gpu_clear(g);
	}
	d = finish(w, fd, &len);
	kbytes = type_bytes(d, len, CH_GPU_KERNELS);
	lbytes = type_bytes(d, len, CH_GPU_LAUNCHES);
	pbytes = type_bytes(d, len, CH_GPU_PCS);
	print_message("zt.data GPU: %.2f bytes/kernel, %.2f bytes/launch, %.2f bytes/PC bucket "
		      "(%zu kernels, %zu buckets, compressed, chunk headers included)\n",
		      (double)kbytes / nk, (double)lbytes / nk, (double)pbytes / npcs, nk, npcs);
	assert_true((double)kbytes / nk < 8);
	assert_true((double)pbytes / npcs < 4);
	{
		struct ztdata_read_info info;
		struct profile p;

		profile_init(&p);
		assert_int_equal(ztdata_read_mem(d, len, &p, &info), 0);
		assert_int_equal(p.gpu->nr_kernels, nk);
		assert_int_equal(p.gpu->nr_launches, nk);
		assert_int_equal(p.gpu->kernels[nk - 1].corr, 1000 + 2 * (nk - 1));
		profile_release(&p);
	}
	free(d);
	prof_gpu_free(g);
	profile_release(&st);
}

/* Write a seed and check that it reads (completely or cut short). */
static void write_seed(const char *dir, const char *name, const uint8_t *d, size_t len,
		       int complete)
{
	struct ztdata_read_info info;
	struct profile p;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(write_bytes(path, d, len, 0644), 0);
	assert_true(len < 20000);
	profile_init(&p);
	assert_int_equal(ztdata_read_file(path, &p, &info), 0);
	assert_int_equal(info.complete, complete);
	assert_non_null(p.gpu);
	profile_release(&p);
}

/* GPU seeds of the zt.data fuzz corpus: ZTDATA_CORPUS_DIR=dir writes them
 * there, else into a scratch directory that is removed. */
static void test_seed_corpus(void **state)
{
	static const uint64_t sips[] = {0x401000, 0x402000};
	const char *dir = getenv("ZTDATA_CORPUS_DIR");
	char tmp[] = "/tmp/zt-gpu-corpus-XXXXXX";
	struct ztdata_writer *w;
	struct profile st;
	struct prof_gpu *g;
	struct zbuf u;
	uint8_t *d;
	size_t len;
	int fd;

	if (!dir) {
		assert_non_null(mkdtemp(tmp));
		dir = tmp;
	}
	profile_init(&st);
	g = make_gpu(&st, 1);
	w = writer(&fd);
	assert_int_equal(ztdata_write_meta(w, "event", "cpu-clock"), 0);
	assert_int_equal(ztdata_write_sample(w, 990001, 1, 100, 101, 0, sips, 0, 2), 0);
	assert_int_equal(ztdata_write_gpu(w, g, &st), 0);
	d = finish(w, fd, &len);
	write_seed(dir, "gpu.ztdata", d, len, 1);
	uncompress_all(d, len, &u);
	write_seed(dir, "gpu-stored.ztdata", u.data, u.len, 1);
	write_seed(dir, "gpu-truncated.ztdata", u.data, u.len - 300, 0);
	zbuf_release(&u);
	free(d);
	prof_gpu_free(g);
	profile_release(&st);
	if (dir == tmp) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/gpu.ztdata", tmp);
		assert_int_equal(unlink(path), 0);
		snprintf(path, sizeof(path), "%s/gpu-stored.ztdata", tmp);
		assert_int_equal(unlink(path), 0);
		snprintf(path, sizeof(path), "%s/gpu-truncated.ztdata", tmp);
		assert_int_equal(unlink(path), 0);
		assert_int_equal(rmdir(tmp), 0);
	}
}

/* Launch snapshots (GPU_LUSTACKS): attached to the launch written last,
 * numbered by launch in the file, handed to the second pass with launch
 * set, after and apart from the samples' snapshots. */
struct lus_got {
	size_t launch[8], sample[8], len[8], nl, ns;
	uint64_t rip[8];
	uint8_t first[8];
};

static int collect_lus(void *arg, const struct prof_ustack *u)
{
	struct lus_got *g = arg;

	if (u->launch) {
		if (g->nl < 8) {
			g->launch[g->nl] = u->sample;
			g->len[g->nl] = u->len;
			g->rip[g->nl] = u->regs[PROF_UREG_IP];
			g->first[g->nl] = u->len ? u->data[0] : 0;
		}
		g->nl++;
	} else {
		if (g->ns < 8)
			g->sample[g->ns] = u->sample;
		g->ns++;
	}
	return 0;
}

static void test_launch_snapshots(void **state)
{
	uint64_t regs[PROF_UREGS] = {0}, ips[2] = {0x401000, 0x402000};
	uint8_t stack[64];
	struct prof_gpu_launch l = {.pid = 7, .tid = 8, .corr = 1, .cbid = 307, .domain = 1,
				    .flags = PROF_GPU_L_STACK | PROF_GPU_L_USDT};
	struct profile st, p;
	struct prof_gpu *g;
	struct ztdata_read_info info;
	struct lus_got got = {0};
	struct ztdata_writer *w;
	uint8_t *d;
	size_t len;
	int fd;

	memset(stack, 0xab, sizeof(stack));
	w = writer(&fd);
	/* nothing to attach to yet */
	assert_int_equal(ztdata_write_gpu_launch_ustack(w, 0xffff, regs, stack, 8), -EINVAL);
	/* launch 0 with a snapshot */
	regs[PROF_UREG_SP] = 0x7ffd0000;
	regs[PROF_UREG_IP] = 0x401000;
	assert_int_equal(ztdata_write_gpu_launch(w, &l, ips, 0, 2), 0);
	assert_int_equal(ztdata_write_gpu_launch_ustack(w, (1u << PROF_UREGS) - 1, regs, stack,
							sizeof(stack)), 0);
	/* one snapshot a launch */
	assert_int_equal(ztdata_write_gpu_launch_ustack(w, 0xffff, regs, stack, 8), -EINVAL);
	/* launches 1 and 2 from a process's file (no snapshots for those) */
	profile_init(&st);
	g = make_gpu(&st, 1);
	assert_true(g->nr_launches >= 2);
	assert_int_equal(ztdata_write_gpu(w, g, &st), 0);
	assert_int_equal(ztdata_write_gpu_launch_ustack(w, 0xffff, regs, stack, 8), -EINVAL);
	/* a sample with its own snapshot between, then a launch after a flush */
	assert_int_equal(ztdata_write_sample(w, 5, 1, 7, 8, 0, ips, 0, 2), 0);
	assert_int_equal(ztdata_write_ustack(w, (1u << PROF_UREGS) - 1, regs, stack, 16), 0);
	assert_int_equal(ztdata_writer_flush(w), 0);
	l.corr = 99;
	regs[PROF_UREG_IP] = 0x402222;
	stack[0] = 0x5a;
	assert_int_equal(ztdata_write_gpu_launch(w, &l, ips, 0, 2), 0);
	assert_int_equal(ztdata_write_gpu_launch_ustack(w, 0, regs, stack, PROF_USTACK_MAX + 8),
			 -E2BIG);
	assert_int_equal(ztdata_write_gpu_launch_ustack(w, 0x1ffff, regs, stack, 24), 0);
	d = finish(w, fd, &len);

	profile_init(&p);
	assert_int_equal(ztdata_read_mem(d, len, &p, &info), 0);
	assert_non_null(p.gpu);
	assert_int_equal(p.gpu->nr_launches, g->nr_launches + 2);
	assert_int_equal(info.ustack_chunks, 3); /* USTACKS, two GPU_LUSTACKS */
	assert_int_equal(ztdata_read_ustacks_mem(d, len, collect_lus, &got, NULL), 0);
	assert_int_equal(got.ns, 1);
	assert_int_equal(got.sample[0], 0);
	assert_int_equal(got.nl, 2);
	assert_int_equal(got.launch[0], 0);
	assert_int_equal(got.len[0], sizeof(stack));
	assert_int_equal(got.rip[0], 0x401000);
	assert_int_equal(got.first[0], 0xab);
	assert_int_equal(got.launch[1], g->nr_launches + 1);
	assert_int_equal(got.len[1], 24);
	assert_int_equal(got.rip[1], 0x402222);
	assert_int_equal(got.first[1], 0x5a);
	assert_int_equal(p.gpu->launches[got.launch[1]].corr, 99);
	profile_release(&p);
	if (getenv("ZTDATA_CORPUS_DIR")) { /* a fuzz seed: uncompressed, so mutations land */
		struct zbuf u;

		uncompress_all(d, len, &u);
		write_seed(getenv("ZTDATA_CORPUS_DIR"), "gpu-launch-snapshots.ztdata", u.data, u.len, 1);
		zbuf_release(&u);
	}
	prof_gpu_free(g);
	profile_release(&st);
	free(d);
}

static void test_launch_snapshots_bad(void **state)
{
	/* a GPU_LUSTACKS entry naming a launch the file does not have */
	static const uint8_t pl[] = {1, 0, 0, 0};
	struct lus_got got = {0};
	struct craft c;

	craft_init(&c);
	craft_chunk(&c, 16, pl, sizeof(pl));
	assert_int_equal(ztdata_read_ustacks_mem(c.b.data, c.b.len, collect_lus, &got, NULL),
			 -EBADMSG);
	assert_int_equal(got.nl, 0);
	zbuf_release(&c.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),   cmocka_unit_test(test_flushes),
		cmocka_unit_test(test_bad_args),    cmocka_unit_test(test_early_seal),
		cmocka_unit_test(test_crafted),	    cmocka_unit_test(test_bytes_per_record),
		cmocka_unit_test(test_seed_corpus), cmocka_unit_test(test_launch_snapshots),
		cmocka_unit_test(test_launch_snapshots_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
