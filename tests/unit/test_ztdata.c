// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of formats/ztdata.c: round trips of every record kind, flushes,
 * truncation and corruption at every position, crafted files, size per sample.
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
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <cmocka.h>

#include "formats/ztdata.h"
#include "libprof/zbuf.h"
#include "tests/unit/testutil.h"

#define CH_META 1
#define CH_STACKS 4
#define CH_SAMPLES 5
#define CH_LOST 7
#define CH_RAWS 18
#define CH_PYCODES 19
#define CH_INDEX 255

/* ---- helpers ----------------------------------------------------------- */

/* A writer on a memfd, and the profile the file should read back as. */
struct tw {
	int fd;
	struct ztdata_writer *w;
	struct profile exp;
};

static void tw_open(struct tw *t)
{
	t->fd = memfd_create("ztdata", MFD_CLOEXEC);
	assert_true(t->fd >= 0);
	t->w = ztdata_writer_new(t->fd);
	assert_non_null(t->w);
	profile_init(&t->exp);
}

static void tw_meta(struct tw *t, const char *k, const char *v)
{
	assert_int_equal(ztdata_write_meta(t->w, k, v), 0);
	assert_int_equal(profile_set_meta(&t->exp, k, v), 0);
}

static void tw_task(struct tw *t, const struct prof_task *task)
{
	assert_int_equal(ztdata_write_task(t->w, task), 0);
	assert_int_equal(profile_add_task(&t->exp, task), 0);
}

static void tw_mmap(struct tw *t, const struct prof_mmap *m)
{
	assert_int_equal(ztdata_write_mmap(t->w, m), 0);
	assert_int_equal(profile_add_mmap(&t->exp, m), 0);
}

static void tw_blob(struct tw *t, uint32_t kind, uint32_t pid, uint64_t ts, const void *d,
		    size_t n)
{
	assert_int_equal(ztdata_write_blob(t->w, kind, pid, ts, d, n), 0);
	assert_int_equal(profile_add_blob(&t->exp, kind, pid, ts, d, n), 0);
}

static void tw_lost(struct tw *t, uint64_t ls, uint64_t le)
{
	assert_int_equal(ztdata_write_lost(t->w, ls, le), 0);
	t->exp.lost_samples += ls;
	t->exp.lost_events += le;
}

/* A code object: its index in the file, the same as in the expected profile. */
static uint32_t tw_pycode(struct tw *t, const struct prof_pycode *c)
{
	uint32_t idx = UINT32_MAX, eidx = 0;

	assert_int_equal(ztdata_write_pycode(t->w, c, &idx), 0);
	assert_int_equal(profile_add_pycode(&t->exp, c, &eidx), 0);
	assert_int_equal(idx, eidx);
	return idx;
}

static void tw_sample(struct tw *t, uint64_t ts, uint64_t weight, uint32_t pid, uint32_t tid,
		      uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu)
{
	struct prof_sample s = { .ts = ts, .weight = weight, .pid = pid, .tid = tid, .cpu = cpu };

	assert_int_equal(ztdata_write_sample(t->w, ts, weight, pid, tid, cpu, ips, nk, nu), 0);
	assert_int_equal(profile_intern_stack(&t->exp, ips, nk, nu, &s.stack), 0);
	assert_int_equal(profile_add_sample(&t->exp, &s), 0);
}

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

/* Optionally finish, free the writer and return the file's bytes. */
static uint8_t *tw_close(struct tw *t, int finish, size_t *len)
{
	uint8_t *d;

	if (finish)
		assert_int_equal(ztdata_writer_finish(t->w), 0);
	ztdata_writer_free(t->w);
	d = fd_contents(t->fd, len);
	close(t->fd);
	return d;
}

static void assert_profile_equal(const struct profile *a, const struct profile *b)
{
	size_t i;

	assert_int_equal(a->nr_meta, b->nr_meta);
	for (i = 0; i < a->nr_meta; i++) {
		assert_string_equal(a->meta[i].key, b->meta[i].key);
		assert_string_equal(a->meta[i].value, b->meta[i].value);
	}
	assert_int_equal(a->nr_tasks, b->nr_tasks);
	for (i = 0; i < a->nr_tasks; i++) {
		const struct prof_task *x = &a->tasks[i], *y = &b->tasks[i];

		assert_int_equal(x->ts, y->ts);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->tid, y->tid);
		assert_int_equal(x->ppid, y->ppid);
		assert_int_equal(x->ptid, y->ptid);
		if (x->kind == PROF_TASK_COMM || x->kind == PROF_TASK_EXEC)
			assert_string_equal(x->comm, y->comm);
	}
	assert_int_equal(a->nr_mmaps, b->nr_mmaps);
	for (i = 0; i < a->nr_mmaps; i++) {
		const struct prof_mmap *x = &a->mmaps[i], *y = &b->mmaps[i];

		assert_int_equal(x->ts, y->ts);
		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->tid, y->tid);
		assert_int_equal(x->start, y->start);
		assert_int_equal(x->len, y->len);
		assert_int_equal(x->pgoff, y->pgoff);
		assert_int_equal(x->prot, y->prot);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->build_id.len, y->build_id.len);
		assert_memory_equal(x->build_id.data, y->build_id.data, x->build_id.len + 0u);
		assert_string_equal(x->path, y->path);
	}
	assert_int_equal(a->nr_stacks, b->nr_stacks);
	assert_int_equal(a->nr_samples, b->nr_samples);
	for (i = 0; i < a->nr_samples; i++) {
		const struct prof_sample *x = &a->samples[i], *y = &b->samples[i];
		const struct prof_stack *sx = &a->stacks[x->stack], *sy = &b->stacks[y->stack];

		assert_int_equal(x->ts, y->ts);
		assert_int_equal(x->weight, y->weight);
		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->tid, y->tid);
		assert_int_equal(x->cpu, y->cpu);
		assert_int_equal(sx->nk, sy->nk);
		assert_int_equal(sx->nu, sy->nu);
		if (sx->nk + sy->nu)
			assert_memory_equal(profile_stack_ips(a, x->stack),
					    profile_stack_ips(b, y->stack),
					    (sx->nk + sx->nu) * sizeof(uint64_t));
	}
	assert_int_equal(a->nr_blobs, b->nr_blobs);
	for (i = 0; i < a->nr_blobs; i++) {
		assert_int_equal(a->blobs[i].kind, b->blobs[i].kind);
		assert_int_equal(a->blobs[i].pid, b->blobs[i].pid);
		assert_int_equal(a->blobs[i].ts, b->blobs[i].ts);
		assert_int_equal(a->blobs[i].len, b->blobs[i].len);
		if (a->blobs[i].len)
			assert_memory_equal(a->blobs[i].data, b->blobs[i].data, a->blobs[i].len);
	}
	assert_int_equal(a->lost_samples, b->lost_samples);
	assert_int_equal(a->lost_events, b->lost_events);
	assert_int_equal(a->nr_pycodes, b->nr_pycodes);
	for (i = 0; i < a->nr_pycodes; i++) {
		const struct prof_pycode *x = &a->pycodes[i], *y = &b->pycodes[i];

		assert_int_equal(x->ts, y->ts);
		assert_int_equal(x->addr, y->addr);
		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->minor, y->minor);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->firstlineno, y->firstlineno);
		assert_string_equal(x->qualname, y->qualname);
		assert_string_equal(x->filename, y->filename);
		assert_int_equal(x->linetable_len, y->linetable_len);
		if (x->linetable_len)
			assert_memory_equal(x->linetable, y->linetable, x->linetable_len);
	}
}

/* Read the first len bytes of d; ret is what ztdata_read_mem must return. */
static void read_expect(const uint8_t *d, size_t len, int ret, struct profile *p,
			struct ztdata_read_info *info)
{
	profile_init(p);
	assert_int_equal(ztdata_read_mem(d, len, p, info), ret);
}

struct tchunk {
	uint32_t type, flags, raw, stored, seq;
	size_t off, end;
	const uint8_t *payload;
};

/* Walk the chunk headers (independently of the reader). */
static size_t walk_chunks(const uint8_t *d, size_t len, struct tchunk *ch, size_t max)
{
	size_t off = 16, n = 0;
	uint32_t h[6];

	while (off + 24 <= len && n < max) {
		memcpy(h, d + off, sizeof(h)); /* little-endian host */
		ch[n] = (struct tchunk){ h[0], h[1], h[2], h[3], h[4], off, off + 24 + h[3],
					 d + off + 24 };
		assert_true(ch[n].end <= len);
		off = ch[n++].end;
	}
	assert_int_equal(off, len);
	return n;
}

/* A chunk's raw payload in a new buffer. */
static uint8_t *chunk_raw(const struct tchunk *c)
{
	uint8_t *r = malloc(c->raw ? c->raw : 1);

	assert_non_null(r);
	if (c->flags & 1)
		assert_int_equal(ZSTD_decompress(r, c->raw, c->payload, c->stored), c->raw);
	else
		memcpy(r, c->payload, c->raw);
	return r;
}

static void put_header(struct zbuf *b, uint16_t major, uint16_t minor, uint32_t hsize)
{
	uint8_t h[16];

	memcpy(h, ZTDATA_MAGIC, 8);
	memcpy(h + 8, &major, 2);
	memcpy(h + 10, &minor, 2);
	memcpy(h + 12, &hsize, 4);
	zbuf_put(b, h, 16);
	while (b->len < hsize)
		zbuf_put_u8(b, 0);
}

/* An uncompressed chunk; its offset is appended to idx (if not NULL). */
static void put_chunk(struct zbuf *b, uint32_t type, uint32_t flags, const void *pl, size_t n,
		      uint32_t seq, struct zbuf *idx)
{
	uint32_t h[6] = { type, flags, (uint32_t)n, (uint32_t)n, seq, 0 };
	uLong crc = crc32(crc32(0, (const Bytef *)h, 20), pl, (uInt)n);

	if (idx) {
		zbuf_put_uv(idx, type);
		zbuf_put_uv(idx, b->len);
	}
	h[5] = (uint32_t)crc;
	zbuf_put(b, h, sizeof(h));
	zbuf_put(b, pl, n);
}

static void put_index(struct zbuf *b, struct zbuf *idx, unsigned nchunks, uint64_t samples,
		      uint64_t stacks, uint32_t seq)
{
	struct zbuf pl;

	zbuf_init(&pl);
	zbuf_put_uv(&pl, nchunks);
	zbuf_put(&pl, idx->data, idx->len);
	zbuf_put_uv(&pl, samples);
	zbuf_put_uv(&pl, stacks);
	put_chunk(b, CH_INDEX, 0, pl.data, pl.len, seq, NULL);
	zbuf_release(&pl);
}

/* ---- the standard contents --------------------------------------------- */

static uint64_t big_stack[2 * ZT_MAX_FRAMES];

/* Every record kind, with edge values; round varies the contents. */
static void fill_all(struct tw *t, unsigned round)
{
	uint64_t k1[] = { 0xffffffff81001000ull + round, 0xffffffff81002345ull,
			  0x55555555a000ull, 0x55555555a100ull, 0x7ffff7a00000ull };
	uint64_t edge[] = { 0, UINT64_MAX, 1, UINT64_MAX - 1 };
	struct prof_task tk = { .ts = 1000 + round, .kind = PROF_TASK_COMM, .pid = 42, .tid = 42 };
	struct prof_mmap m = { .ts = 5, .pid = 42, .tid = 42, .start = 0x555555554000ull,
			       .len = 0x3000, .pgoff = 0x1000, .prot = 5, .flags = 2,
			       .path = "/usr/bin/app" };
	struct prof_pycode pc = { .ts = 3000 + round, .addr = 0x7f1234560000ull + 0x100 * round,
				  .pid = 42, .minor = 11, .firstlineno = 10,
				  .qualname = "Worker.run", .filename = "/usr/lib/python3.11/threading.py",
				  .linetable = (uint8_t *)"\x80\x00\xd8\x04", .linetable_len = 4 };
	uint64_t py[5];
	char kbuf[32];
	unsigned i;

	snprintf(kbuf, sizeof(kbuf), "key%u", round);
	tw_meta(t, "hostname", round ? "box2" : "box");
	tw_meta(t, kbuf, "");
	tw_meta(t, "cmdline", "zt record -g -- ./app \"with spaces\"\n\ttabs");

	strcpy(tk.comm, "fifteen-chars-x");
	tw_task(t, &tk);
	tk = (struct prof_task){ .ts = 900, .kind = PROF_TASK_EXEC, .pid = 43, .tid = 43 };
	strcpy(tk.comm, "");
	tw_task(t, &tk);
	tk = (struct prof_task){ .ts = UINT64_MAX, .kind = PROF_TASK_FORK, .pid = 44, .tid = 45,
				 .ppid = 44, .ptid = 44 };
	tw_task(t, &tk);
	tk = (struct prof_task){ .ts = 0, .kind = PROF_TASK_EXIT, .pid = UINT32_MAX,
				 .tid = UINT32_MAX, .ppid = UINT32_MAX, .ptid = 0 };
	tw_task(t, &tk);

	for (i = 0; i < 20; i++)
		m.build_id.data[i] = (uint8_t)(i * 13 + round);
	m.build_id.len = 20;
	tw_mmap(t, &m);
	m = (struct prof_mmap){ .ts = UINT64_MAX, .pid = ZT_PID_KERNEL, .tid = 0,
				.start = 0xffffffff81000000ull, .len = UINT64_MAX, .pgoff = UINT64_MAX,
				.prot = UINT32_MAX, .flags = UINT32_MAX, .path = NULL };
	tw_mmap(t, &m);
	m.ts = 0;
	m.path = "/lib/x86_64-linux-gnu/libc.so.6 (deleted)";
	m.build_id.len = 3;
	memcpy(m.build_id.data, "\x01\x02\x03", 3);
	tw_mmap(t, &m);

	tw_blob(t, PROF_BLOB_KALLSYMS, 0, 77, "ffffffff81000000 T _stext\n", 26);
	tw_blob(t, PROF_BLOB_PERFMAP, 42, UINT64_MAX, "", 0);
	tw_blob(t, 99, UINT32_MAX, 0, "\0\1\2\3", 4);
	tw_lost(t, 3 + round, 1);

	/* Python code objects: indexes continue over the flushes (round 1: 2, 3) */
	py[0] = 0xffffffff81001000ull;
	py[1] = prof_py_ip(tw_pycode(t, &pc), 0);
	pc = (struct prof_pycode){ .ts = UINT64_MAX, .addr = 0, .pid = UINT32_MAX,
				   .minor = UINT16_MAX, .flags = PROF_PYCODE_UNREAD | 0x8000,
				   .firstlineno = INT32_MIN };
	py[2] = prof_py_ip(tw_pycode(t, &pc), PROF_PY_NO_LASTI);
	py[3] = py[1] + 17;
	py[4] = 0x55555555a000ull;
	assert_int_equal(prof_py_code(py[2]), 2 * round + 1);

	tw_sample(t, 1000000, 250000, 42, 42, 0, k1, 2, 3);
	tw_sample(t, 1000100, 250000, 42, 43, 1, k1, 2, 3);
	tw_sample(t, 999000, 250001, 42, 42, 3, k1 + 2, 0, 3);
	tw_sample(t, 0, 0, 0, 0, 0, edge, 0, 0);                      /* empty stack */
	tw_sample(t, UINT64_MAX, UINT64_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, edge, 2, 2);
	tw_sample(t, 5, 1, 0, UINT32_MAX, 7, edge, 1, 0);
	tw_sample(t, UINT64_MAX, 1, UINT32_MAX, 0, 2, edge + 1, 0, 1);
	for (i = 0; i < 2 * ZT_MAX_FRAMES; i++)
		big_stack[i] = (i < ZT_MAX_FRAMES ? 0xffffffff81000000ull : 0x400000ull) +
			       i * 37 + round;
	tw_sample(t, 2000000, 250000, 42, 42, 0, big_stack, ZT_MAX_FRAMES, ZT_MAX_FRAMES);
	tw_sample(t, 2000001, 250000, 42, 42, 0, k1, 2, 3);
	tw_sample(t, 3000000, 250000, 42, 42, 1, py, 1, 4);
}

/* A file of several flushes and every kind; returns its bytes. */
static uint8_t *small_file(struct tw *t, size_t *len)
{
	tw_open(t);
	fill_all(t, 0);
	assert_int_equal(ztdata_writer_flush(t->w), 0);
	fill_all(t, 1);
	assert_int_equal(ztdata_writer_flush(t->w), 0);
	tw_meta(t, "time_end", "123");
	return tw_close(t, 1, len);
}

/* ---- tests ------------------------------------------------------------- */

static void test_roundtrip(void **state)
{
	struct ztdata_read_info info;
	struct ztdata_stats st;
	struct profile p;
	struct tw t;
	uint8_t *d;
	size_t len;

	tw_open(&t);
	fill_all(&t, 0);
	assert_true(ztdata_writer_pending(t.w) > 0);
	assert_int_equal(ztdata_writer_finish(t.w), 0);
	assert_int_equal(ztdata_writer_pending(t.w), 0);
	ztdata_writer_stats(t.w, &st);
	assert_int_equal(st.samples, t.exp.nr_samples);
	assert_int_equal(st.stacks, t.exp.nr_stacks);
	d = tw_close(&t, 0, &len);
	assert_int_equal(st.bytes, len);
	assert_true(ztdata_probe(d, len));
	assert_false(ztdata_probe(d, 7));

	read_expect(d, len, 0, &p, &info);
	assert_profile_equal(&p, &t.exp);
	assert_true(info.complete);
	assert_false(info.truncated);
	assert_int_equal(info.good_end, len);
	assert_int_equal(info.size, len);
	assert_int_equal(info.skipped, 0);
	/* META TASKS MMAPS BLOB LOST PYCODES STACKS SAMPLES INDEX */
	assert_int_equal(info.chunks, 9);
	assert_string_equal(info.msg, "");
	assert_string_equal(profile_get_meta(&p, "key0"), "");
	profile_release(&p);
	profile_release(&t.exp);
	free(d);
}

/* The event table and each sample's event survive a round trip, across
 * chunks; a sample naming an event not written is refused; a file without
 * a table reads every sample as event 0. */
static void test_events(void **state)
{
	struct prof_event ev[2] = { { "cpu-clock", 1, 0, 4000, PROF_EV_FREQ },
				    { "sched:sched_switch", 2, 372, 1, PROF_EV_EXCL_USER } };
	uint64_t ips[2] = { 0xffffffff81000000ull, 0x401000 };
	struct ztdata_read_info info;
	struct profile p;
	struct tw t;
	uint8_t *d;
	size_t len, i;

	(void)state;
	tw_open(&t);
	assert_int_equal(ztdata_write_sample_ev(t.w, 1, 1, 1, 1, 1, 0, ips, 1, 1), -EINVAL);
	for (i = 0; i < 2; i++)
		assert_int_equal(ztdata_write_event(t.w, &ev[i]), 0);
	for (i = 0; i < 10; i++) {
		assert_int_equal(ztdata_write_sample_ev(t.w, i % 3 == 0, 100 + i, 1 + i, 7, 7, 0,
							ips, 1, 1), 0);
		if (i == 4) /* a chunk of its own */
			assert_int_equal(ztdata_writer_flush(t.w), 0);
	}
	assert_int_equal(ztdata_write_sample_ev(t.w, 2, 1, 1, 1, 1, 0, ips, 1, 1), -EINVAL);
	assert_int_equal(ztdata_writer_finish(t.w), 0);
	d = tw_close(&t, 0, &len);
	if (getenv("ZTDATA_CORPUS_DIR")) { /* the fuzz corpus' seed with events */
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/events.ztdata", getenv("ZTDATA_CORPUS_DIR"));
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(d, 1, len, f), len);
		fclose(f);
	}
	read_expect(d, len, 0, &p, &info);
	assert_int_equal(p.nr_events, 2);
	for (i = 0; i < 2; i++) {
		assert_string_equal(p.events[i].name, ev[i].name);
		assert_int_equal(p.events[i].type, ev[i].type);
		assert_int_equal(p.events[i].config, ev[i].config);
		assert_int_equal(p.events[i].period, ev[i].period);
		assert_int_equal(p.events[i].flags, ev[i].flags);
	}
	assert_int_equal(p.nr_samples, 10);
	for (i = 0; i < 10; i++) {
		assert_int_equal(p.samples[i].event, i % 3 == 0);
		assert_int_equal(p.samples[i].weight, 1 + i);
	}
	assert_string_equal(profile_event_name(&p, 1), "sched:sched_switch");
	profile_keep_event(&p, 1);
	assert_int_equal(p.nr_samples, 4);
	assert_int_equal(p.nr_events, 1);
	assert_string_equal(profile_event_name(&p, 0), "sched:sched_switch");
	assert_string_equal(profile_get_meta(&p, "event"), "sched:sched_switch");
	for (i = 0; i < 4; i++)
		assert_int_equal(p.samples[i].event, 0);
	profile_release(&p);
	profile_release(&t.exp);
	free(d);

	/* no table: event 0, named by meta "event" */
	tw_open(&t);
	tw_meta(&t, "event", "cpu-clock");
	assert_int_equal(ztdata_write_sample(t.w, 1, 1, 1, 1, 0, ips, 1, 1), 0);
	assert_int_equal(ztdata_writer_finish(t.w), 0);
	d = tw_close(&t, 0, &len);
	read_expect(d, len, 0, &p, &info);
	assert_int_equal(p.nr_events, 0);
	assert_int_equal(profile_nr_events(&p), 1);
	assert_int_equal(p.samples[0].event, 0);
	assert_string_equal(profile_event_name(&p, 0), "cpu-clock");
	assert_null(profile_event_name(&p, 1));
	profile_release(&p);
	profile_release(&t.exp);
	free(d);
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/zt-test-XXXXXX";
	struct ztdata_read_info info;
	struct profile p;
	struct tw t;
	uint8_t *d;
	size_t len;
	int fd;

	d = small_file(&t, &len);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, d, len), len);
	profile_init(&p);
	assert_int_equal(ztdata_read_file(path, &p, &info), 0);
	assert_true(info.complete);
	assert_profile_equal(&p, &t.exp);
	profile_release(&p);

	/* empty file */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(ztdata_read_file(path, &p, &info), -EBADMSG);
	assert_non_null(strstr(info.msg, "empty"));
	assert_int_equal(p.nr_samples, 0);
	close(fd);
	unlink(path);
	assert_int_equal(ztdata_read_file(path, &p, &info), -ENOENT);
	assert_non_null(strstr(info.msg, path));
	profile_release(&t.exp);
	free(d);
}

static void test_empty_and_header_only(void **state)
{
	struct ztdata_read_info info;
	struct profile p;
	struct tw t;
	uint8_t *d;
	size_t len;

	read_expect((const uint8_t *)"", 0, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "not a zt.data file"));
	read_expect((const uint8_t *)"PERFILE2\0\0\0\0\0\0\0\0", 16, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "not a zt.data file"));
	assert_int_equal(ztdata_read_mem("ZTDATA\r\n", 8, NULL, NULL), 0);

	/* the recorder died before its first flush */
	tw_open(&t);
	tw_meta(&t, "lost", "forever");
	d = tw_close(&t, 0, &len);
	assert_int_equal(len, 16);
	read_expect(d, len, 0, &p, &info);
	assert_false(info.complete);
	assert_false(info.truncated);
	assert_int_equal(info.chunks, 0);
	assert_int_equal(p.nr_meta, 0);
	assert_non_null(strstr(info.msg, "did not finish"));
	profile_release(&t.exp);
	free(d);
}

static void test_stack_dedupe(void **state)
{
	uint64_t a[] = { 1, 2, 3 }, b[] = { 1, 2, 4 };
	struct ztdata_read_info info;
	struct tchunk ch[16];
	struct profile p;
	size_t len, n, i, nst = 0;
	struct tw t;
	uint8_t *d;

	tw_open(&t);
	tw_sample(&t, 1, 1, 1, 1, 0, a, 1, 2);
	tw_sample(&t, 2, 1, 1, 1, 0, a, 1, 2);
	tw_sample(&t, 3, 1, 1, 1, 0, b, 1, 2);
	tw_sample(&t, 4, 1, 1, 1, 0, a, 2, 1); /* same ips, other split: distinct */
	d = tw_close(&t, 1, &len);
	n = walk_chunks(d, len, ch, 16);
	for (i = 0; i < n; i++) {
		if (ch[i].type == CH_STACKS) {
			uint8_t *raw = chunk_raw(&ch[i]);

			nst++;
			assert_int_equal(raw[0], 0); /* first id */
			assert_int_equal(raw[1], 3); /* count */
			free(raw);
		}
	}
	assert_int_equal(nst, 1);
	read_expect(d, len, 0, &p, &info);
	assert_int_equal(p.nr_stacks, 3);
	assert_int_equal(p.samples[0].stack, p.samples[1].stack);
	assert_int_not_equal(p.samples[0].stack, p.samples[2].stack);
	assert_int_not_equal(p.samples[0].stack, p.samples[3].stack);
	assert_profile_equal(&p, &t.exp);
	profile_release(&p);
	profile_release(&t.exp);
	free(d);
}

static void test_flush_multi(void **state)
{
	struct ztdata_read_info info;
	uint64_t ips[4] = { 0x1000, 0x2000, 0x3000, 0 };
	struct tchunk ch[64];
	struct profile p;
	size_t len, n, i;
	unsigned nstacks = 0, nsamples = 0, round, j;
	uint64_t expect_first = 0;
	struct tw t;
	uint8_t *d;

	tw_open(&t);
	for (round = 0; round < 5; round++) {
		for (j = 0; j < 50; j++) {
			ips[3] = 0x4000 + (j % (10 + round * 5)); /* old and new stacks */
			tw_sample(&t, round * 1000000 + j * 1000, 100, 7, 8 + j % 3, j % 4, ips, 1, 3);
		}
		assert_int_equal(ztdata_writer_flush(t.w), 0);
		assert_int_equal(ztdata_writer_pending(t.w), 0);
		assert_int_equal(ztdata_writer_flush(t.w), 0); /* nothing new: no chunk */
	}
	d = tw_close(&t, 1, &len);
	n = walk_chunks(d, len, ch, 64);
	for (i = 0; i < n; i++) {
		uint8_t *raw;
		struct zcur c;
		uint64_t first, count;

		assert_int_equal(ch[i].seq, i);
		if (ch[i].type == CH_SAMPLES)
			nsamples++;
		if (ch[i].type != CH_STACKS)
			continue;
		nstacks++;
		raw = chunk_raw(&ch[i]);
		zcur_init(&c, raw, ch[i].raw);
		assert_int_equal(zcur_uv(&c, &first), 0);
		assert_int_equal(zcur_uv(&c, &count), 0);
		assert_int_equal(first, expect_first); /* ids continue across flushes */
		expect_first += count;
		free(raw);
	}
	assert_int_equal(nsamples, 5);
	assert_int_equal(nstacks, 5);
	assert_int_equal(expect_first, t.exp.nr_stacks);
	assert_int_equal(n, 11);
	read_expect(d, len, 0, &p, &info);
	assert_true(info.complete);
	assert_profile_equal(&p, &t.exp);
	profile_release(&p);
	profile_release(&t.exp);
	free(d);
}

static void test_after_finish(void **state)
{
	struct prof_task tk = { 0 };
	struct tw t;
	uint8_t *d;
	size_t len;

	tw_open(&t);
	assert_int_equal(ztdata_writer_finish(t.w), 0);
	assert_int_equal(ztdata_writer_finish(t.w), 0);
	assert_int_equal(ztdata_writer_flush(t.w), 0);
	assert_int_equal(ztdata_write_meta(t.w, "a", "b"), -EINVAL);
	assert_int_equal(ztdata_write_task(t.w, &tk), -EINVAL);
	assert_int_equal(ztdata_write_sample(t.w, 1, 1, 1, 1, 1, NULL, 0, 0), -EINVAL);
	assert_int_equal(ztdata_write_lost(t.w, 1, 1), -EINVAL);
	d = tw_close(&t, 0, &len);
	assert_int_equal(len, 16 + 24 + 3); /* header, index of 0 chunks, 0, 0 */
	profile_release(&t.exp);
	free(d);
}

static void test_bad_args(void **state)
{
	uint64_t ips[ZT_MAX_FRAMES + 1] = { 0 };
	struct tw t;
	uint8_t *d;
	size_t len;

	tw_open(&t);
	assert_int_equal(ztdata_write_sample(t.w, 1, 1, 1, 1, 1, ips, ZT_MAX_FRAMES + 1, 0),
			 -EINVAL);
	assert_int_equal(ztdata_write_sample(t.w, 1, 1, 1, 1, 1, ips, 0, ZT_MAX_FRAMES + 1),
			 -EINVAL);
	assert_int_equal(ztdata_write_sample(t.w, 1, 1, 1, 1, 1, NULL, 1, 0), -EINVAL);
	assert_int_equal(ztdata_write_blob(t.w, 1, 1, 1, ips, (size_t)1 << 40), -E2BIG);
	/* the cap the perf-map and jitdump readers stop at (procfile.h) */
	assert_int_equal(ztdata_write_blob(t.w, 1, 1, 1, ips, PROF_BLOB_MAX + 1), -E2BIG);
	assert_int_equal(ztdata_write_meta(t.w, NULL, "x"), -EINVAL);
	/* the writer still works; an empty stack may come without an array */
	tw_sample(&t, 1, 1, 1, 1, 1, ips, 1, 1);
	assert_int_equal(ztdata_write_sample(t.w, 1, 1, 1, 1, 1, NULL, 0, 0), 0);
	assert_int_equal(ztdata_write_sample(t.w, 1, 1, 1, 1, 1, NULL, 0, 0), 0);
	d = tw_close(&t, 1, &len);
	profile_release(&t.exp);
	free(d);
}

/* Every prefix reads as the records of the complete chunks in it. */
static void test_truncate_everywhere(void **state)
{
	struct ztdata_read_info info;
	struct profile pre[64], p;
	struct tchunk ch[64];
	size_t len, n, cut, k;
	struct tw t;
	uint8_t *d;
	char want[64];

	d = small_file(&t, &len);
	n = walk_chunks(d, len, ch, 64);
	assert_true(n > 10);
	/* pre[k]: the file cut just after its first k chunks */
	for (k = 0; k <= n; k++) {
		read_expect(d, k ? ch[k - 1].end : 16, 0, &pre[k], &info);
		assert_int_equal(info.chunks, k);
		assert_false(info.truncated);
		assert_int_equal(info.complete, k == n);
		if (k < n) {
			assert_non_null(strstr(info.msg, "did not finish"));
			snprintf(want, sizeof(want), "no index chunk at offset %zu,",
				 k ? ch[k - 1].end : (size_t)16);
			assert_non_null(strstr(info.msg, want));
		}
	}
	assert_profile_equal(&pre[n], &t.exp);
	for (cut = 0; cut <= len; cut++) {
		if (cut < 8) {
			read_expect(d, cut, -EBADMSG, &p, &info);
			profile_release(&p);
			continue;
		}
		read_expect(d, cut, 0, &p, &info);
		for (k = 0; k < n && ch[k].end <= cut; k++)
			;
		assert_int_equal(info.chunks, k);
		assert_int_equal(info.good_end, cut < 16 ? 0 : k ? ch[k - 1].end : 16);
		assert_int_equal(info.truncated, cut < 16 || cut != info.good_end);
		assert_int_equal(info.complete, cut == len);
		assert_profile_equal(&p, &pre[k]);
		if (cut >= 16 && info.truncated) {
			snprintf(want, sizeof(want), "inside chunk %zu at offset %zu", k, ch[k].off);
			assert_non_null(strstr(info.msg, want));
		}
		profile_release(&p);
	}
	for (k = 0; k <= n; k++)
		profile_release(&pre[k]);
	profile_release(&t.exp);
	free(d);
}

/* A damaged byte in any chunk fails it, naming it; earlier chunks stay. */
static void test_bad_checksum(void **state)
{
	struct ztdata_read_info info;
	struct profile pre, p;
	struct tchunk ch[64];
	size_t len, n, k, pos;
	struct tw t;
	uint8_t *d, *m;
	char want[64];
	int which;

	d = small_file(&t, &len);
	n = walk_chunks(d, len, ch, 64);
	m = malloc(len);
	assert_non_null(m);
	for (k = 0; k < n; k++) {
		read_expect(d, ch[k].off, 0, &pre, &info);
		for (which = 0; which < 4; which++) {
			/* type, sequence, crc, payload bytes */
			static const size_t at[] = { 0, 16, 20, 24 };

			pos = ch[k].off + at[which];
			if (which == 3)
				pos += ch[k].stored / 2;
			memcpy(m, d, len);
			m[pos] ^= 0x10;
			read_expect(m, len, -EBADMSG, &p, &info);
			snprintf(want, sizeof(want), "chunk %zu (", k);
			assert_non_null(strstr(info.msg, want));
			snprintf(want, sizeof(want), "at offset %zu:", ch[k].off);
			assert_non_null(strstr(info.msg, want));
			assert_non_null(strstr(info.msg, "checksum"));
			assert_profile_equal(&p, &pre);
			profile_release(&p);
		}
		profile_release(&pre);
	}
	/* a raw length over the cap is rejected before the checksum */
	memcpy(m, d, len);
	m[ch[0].off + 11] = 0x20;
	read_expect(m, len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "256 MiB"));
	profile_release(&p);
	free(m);
	profile_release(&t.exp);
	free(d);
}

static void test_versions(void **state)
{
	struct ztdata_read_info info;
	struct profile p;
	struct tw t;
	uint8_t *d;
	size_t len;

	d = small_file(&t, &len);
	assert_int_equal(d[10], 5); /* this writer's minor */
	d[8] = 2; /* major 2 */
	d[10] = 0;
	read_expect(d, len, -EPROTONOSUPPORT, &p, &info);
	assert_non_null(strstr(info.msg, "2.0"));
	profile_release(&p);
	d[8] = 0;
	read_expect(d, len, -EBADMSG, &p, &info);
	profile_release(&p);
	d[8] = 1;
	d[10] = 9; /* a newer minor reads */
	read_expect(d, len, 0, &p, &info);
	assert_true(info.complete);
	assert_profile_equal(&p, &t.exp);
	profile_release(&p);
	d[12] = 8; /* header size below 16 */
	read_expect(d, len, -EBADMSG, &p, &info);
	profile_release(&p);
	profile_release(&t.exp);
	free(d);
}

/*
 * Rebuild a written file uncompressed, optionally with an extra chunk;
 * bad_index 1 makes the index's sample total wrong, 2 an entry's offset.
 */
static void rebuild(const uint8_t *d, size_t len, const struct profile *exp, uint32_t hsize,
		    size_t insert_at, uint32_t insert_type, int bad_index, struct zbuf *out)
{
	struct tchunk ch[64];
	struct zbuf idx;
	size_t n, i;
	uint32_t seq = 0;

	zbuf_init(&idx);
	zbuf_init(out);
	n = walk_chunks(d, len, ch, 64);
	put_header(out, 1, 3, hsize);
	for (i = 0; i < n; i++) {
		uint8_t *raw;

		if (i == insert_at)
			put_chunk(out, insert_type, 0, "future stuff", 12, seq++, &idx);
		if (ch[i].type == CH_INDEX)
			continue;
		raw = chunk_raw(&ch[i]);
		put_chunk(out, ch[i].type, 0, raw, ch[i].raw, seq++, &idx);
		free(raw);
	}
	if (bad_index == 2)
		idx.data[idx.len - 1] ^= 1;
	put_index(out, &idx, seq, exp->nr_samples + (bad_index == 1), exp->nr_stacks, seq);
	zbuf_release(&idx);
	assert_int_equal(out->err, 0);
}

static void test_unknown_chunk(void **state)
{
	struct ztdata_read_info info;
	struct tchunk ch[64];
	struct profile p;
	struct zbuf f;
	struct tw t;
	uint8_t *d;
	size_t len, at;

	d = small_file(&t, &len);
	assert_int_equal(walk_chunks(d, len, ch, 64), 18);
	for (at = 0; at < 18; at += 3) {
		rebuild(d, len, &t.exp, 16 + 8 * (at & 1), at, 0x1000 + at, 0, &f);
		read_expect(f.data, f.len, 0, &p, &info);
		assert_int_equal(info.skipped, 1);
		assert_true(info.complete);
		assert_profile_equal(&p, &t.exp);
		profile_release(&p);
		zbuf_release(&f);
	}
	/* an index that disagrees with the file */
	rebuild(d, len, &t.exp, 16, 0, 200, 1, &f);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "(INDEX)"));
	assert_non_null(strstr(info.msg, "index totals"));
	assert_profile_equal(&p, &t.exp); /* everything before the index was read */
	profile_release(&p);
	zbuf_release(&f);
	rebuild(d, len, &t.exp, 16, 0, 200, 2, &f);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "index entries differ"));
	profile_release(&p);
	zbuf_release(&f);
	profile_release(&t.exp);
	free(d);
}

/* Crafted files: duplicate stacks, bad ids, bad flags, sequence errors. */
static void test_crafted(void **state)
{
	struct ztdata_read_info info;
	struct zbuf f, pl, idx;
	struct profile p;
	int i;

	zbuf_init(&f);
	zbuf_init(&pl);
	zbuf_init(&idx);
	put_header(&f, 1, 0, 16);
	zbuf_put_uv(&pl, 1);
	zbuf_put_str(&pl, "k");
	zbuf_put_str(&pl, "v");
	put_chunk(&f, CH_META, 0, pl.data, pl.len, 0, &idx);
	/* stacks 0 and 1 are the same: {10, 11}; stack 2 is {10, 12} */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, 3);
	for (i = 0; i < 3; i++) {
		zbuf_put_uv(&pl, 1);
		zbuf_put_uv(&pl, 1);
		zbuf_put_uv(&pl, 10);
		zbuf_put_sv(&pl, i == 2 ? 2 : 1);
	}
	put_chunk(&f, CH_STACKS, 0, pl.data, pl.len, 1, &idx);
	/* samples on file stacks 2, 1, 0 */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 3);
	for (i = 0; i < 3; i++)
		zbuf_put_sv(&pl, 100);          /* ts */
	for (i = 0; i < 3; i++)
		zbuf_put_sv(&pl, i ? 0 : 5);    /* tid 5 */
	for (i = 0; i < 3; i++)
		zbuf_put_sv(&pl, -1);           /* pid 4 */
	for (i = 0; i < 3; i++)
		zbuf_put_uv(&pl, i);            /* cpu */
	zbuf_put_sv(&pl, 2);
	zbuf_put_sv(&pl, -1);
	zbuf_put_sv(&pl, -1);
	for (i = 0; i < 3; i++)
		zbuf_put_sv(&pl, i ? 0 : 7);    /* weight 7 */
	zbuf_put(&pl, "later minor", 11);       /* trailing bytes are ignored */
	put_chunk(&f, CH_SAMPLES, 0, pl.data, pl.len, 2, &idx);
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 5);
	zbuf_put_uv(&pl, 6);
	put_chunk(&f, CH_LOST, 0, pl.data, pl.len, 3, &idx);
	put_chunk(&f, CH_LOST, 0, pl.data, pl.len, 4, &idx);
	put_index(&f, &idx, 5, 3, 3, 5);

	read_expect(f.data, f.len, 0, &p, &info);
	assert_true(info.complete);
	/* the reader keeps the writer's ids (no lookup): the duplicate is a
	 * second id with the same frames, which outputs treat alike */
	assert_int_equal(p.nr_stacks, 3);
	assert_int_equal(p.nr_samples, 3);
	assert_int_not_equal(p.samples[0].stack, p.samples[1].stack);
	assert_int_equal(p.stacks[p.samples[1].stack].nk + p.stacks[p.samples[1].stack].nu, 2);
	assert_memory_equal(profile_stack_ips(&p, p.samples[1].stack),
			    profile_stack_ips(&p, p.samples[2].stack), 2 * sizeof(uint64_t));
	assert_int_equal(profile_stack_ips(&p, p.samples[0].stack)[1], 12);
	assert_int_equal(profile_stack_ips(&p, p.samples[1].stack)[1], 11);
	for (i = 0; i < 3; i++) {
		assert_int_equal(p.samples[i].ts, 100 * (i + 1));
		assert_int_equal(p.samples[i].tid, 5);
		assert_int_equal(p.samples[i].pid, 4);
		assert_int_equal(p.samples[i].cpu, i);
		assert_int_equal(p.samples[i].weight, 7);
	}
	assert_int_equal(p.lost_samples, 10);
	assert_int_equal(p.lost_events, 12);
	profile_release(&p);
	zbuf_release(&f);

	/* a STACKS chunk that does not continue the ids */
	zbuf_init(&f);
	put_header(&f, 1, 0, 16);
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	zbuf_put_uv(&pl, 1);
	zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, 0);
	put_chunk(&f, CH_STACKS, 0, pl.data, pl.len, 0, NULL);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "chunk 0 (STACKS) at offset 16: stacks start at id 1"));
	profile_release(&p);
	zbuf_release(&f);

	/* a sample whose stack was never defined; the META chunk before stays */
	zbuf_init(&f);
	put_header(&f, 1, 0, 16);
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	zbuf_put_str(&pl, "k");
	zbuf_put_str(&pl, "v");
	put_chunk(&f, CH_META, 0, pl.data, pl.len, 0, NULL);
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	for (i = 0; i < 6; i++)
		zbuf_put_uv(&pl, 0);
	put_chunk(&f, CH_SAMPLES, 0, pl.data, pl.len, 1, NULL);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "chunk 1 (SAMPLES)"));
	assert_string_equal(profile_get_meta(&p, "k"), "v");
	assert_int_equal(p.nr_samples, 0);
	profile_release(&p);

	zbuf_release(&f);

	/* sequence gap */
	zbuf_init(&f);
	put_header(&f, 1, 0, 16);
	put_chunk(&f, 77, 0, "x", 1, 0, NULL);
	put_chunk(&f, 77, 0, "x", 1, 2, NULL);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "chunk 1 (type 77) at offset 41: sequence number 2"));
	assert_int_equal(info.skipped, 1);
	profile_release(&p);
	zbuf_release(&f);

	/* unknown flags, compressed flag on garbage, stored != raw */
	zbuf_init(&f);
	put_header(&f, 1, 0, 16);
	put_chunk(&f, CH_LOST, 2, "\1\1", 2, 0, NULL);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "unknown flags"));
	profile_release(&p);
	zbuf_release(&f);
	zbuf_init(&f);
	put_header(&f, 1, 0, 16);
	put_chunk(&f, CH_LOST, 1, "\1\1", 2, 0, NULL);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "chunk 0 (LOST)"));
	profile_release(&p);
	zbuf_release(&f);

	/* a string with a NUL, a comm too long */
	zbuf_init(&f);
	put_header(&f, 1, 0, 16);
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	zbuf_put_bytes(&pl, "a\0b", 3);
	zbuf_put_str(&pl, "v");
	put_chunk(&f, CH_META, 0, pl.data, pl.len, 0, NULL);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_int_equal(p.nr_meta, 0);
	profile_release(&p);
	zbuf_release(&f);
	zbuf_init(&f);
	put_header(&f, 1, 0, 16);
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 1);
	zbuf_put_uv(&pl, PROF_TASK_COMM);
	for (i = 0; i < 5; i++)
		zbuf_put_uv(&pl, 1);
	zbuf_put_str(&pl, "sixteen-chars-xx");
	put_chunk(&f, 2, 0, pl.data, pl.len, 0, NULL);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "bad comm"));
	profile_release(&p);
	zbuf_release(&f);

	zbuf_release(&pl);
	zbuf_release(&idx);
}

/* The example of man/zt-data.5, byte for byte. */
static void test_man_example(void **state)
{
	static const uint8_t lost[] = { 0x07, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0x02, 0, 0, 0,
					0x03, 0, 0, 0, 0xee, 0xb8, 0xeb, 0x3a, 0x05, 0x06 };
	struct ztdata_read_info info;
	struct profile p;
	struct zbuf f;
	int i;

	zbuf_init(&f);
	put_header(&f, 1, 0, 16);
	for (i = 0; i < 3; i++)
		put_chunk(&f, 1000, 0, "x", 1, (uint32_t)i, NULL);
	zbuf_put(&f, lost, sizeof(lost));
	read_expect(f.data, f.len, 0, &p, &info);
	assert_int_equal(info.chunks, 4);
	assert_int_equal(info.skipped, 3);
	assert_int_equal(p.lost_samples, 5);
	assert_int_equal(p.lost_events, 6);
	profile_release(&p);
	zbuf_release(&f);
}

static void test_full_disk(void **state)
{
	uint64_t ips[] = { 1, 2, 3 };
	struct ztdata_writer *w;
	int full, fd, i;

	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	assert_true(full >= 0);
	errno = 0;
	assert_null(ztdata_writer_new(full));
	assert_int_equal(errno, ENOSPC);

	/* the header went out; the disk fills up later */
	fd = memfd_create("ztdata", MFD_CLOEXEC);
	assert_true(fd >= 0);
	w = ztdata_writer_new(fd);
	assert_non_null(w);
	assert_int_equal(dup2(full, fd), fd);
	for (i = 0; i < 100; i++)
		assert_int_equal(ztdata_write_sample(w, i, 1, 1, 1, 0, ips, 1, 2), 0);
	assert_int_equal(ztdata_writer_flush(w), -ENOSPC);
	assert_int_equal(ztdata_write_sample(w, i, 1, 1, 1, 0, ips, 1, 2), -ENOSPC);
	assert_int_equal(ztdata_writer_finish(w), -ENOSPC);
	ztdata_writer_free(w);
	close(fd);

	/* finish alone surfaces it too */
	w = ztdata_writer_new(fd = memfd_create("ztdata", MFD_CLOEXEC));
	assert_non_null(w);
	assert_int_equal(dup2(full, fd), fd);
	assert_int_equal(ztdata_writer_finish(w), -ENOSPC);
	ztdata_writer_free(w);
	close(fd);
	close(full);
}

/* Buffers past the seal size become chunks before the flush. */
static void test_large_blobs(void **state)
{
	struct ztdata_read_info info;
	struct prof_task tk = { .ts = 1000000, .kind = PROF_TASK_EXIT, .pid = 3, .tid = 3 };
	struct prof_mmap m = { .ts = 2000000, .pid = 3, .path = "/x" };
	size_t n = 10u << 20, len, i;
	struct profile p;
	struct tw t;
	uint8_t *blob, *d;

	blob = malloc(n);
	assert_non_null(blob);
	for (i = 0; i < n; i++)
		blob[i] = (uint8_t)(i * 7 + (i >> 12));
	tw_open(&t);
	tw_task(&t, &tk);
	tw_mmap(&t, &m);
	tw_blob(&t, PROF_BLOB_KALLSYMS, 0, 1, blob, n);
	assert_true(ztdata_writer_pending(t.w) >= n);
	blob[0] ^= 1;
	tw_blob(&t, PROF_BLOB_KALLSYMS, 1, 2, blob, n);
	assert_true(ztdata_writer_pending(t.w) > 0);
	assert_true(ztdata_writer_pending(t.w) < n); /* the first 20 MiB are compressed */
	/* the sealed blobs do not disturb the deltas of other buffered kinds */
	tk.ts += 5;
	tw_task(&t, &tk);
	m.ts += 7;
	tw_mmap(&t, &m);
	d = tw_close(&t, 1, &len);
	read_expect(d, len, 0, &p, &info);
	assert_true(info.complete);
	assert_profile_equal(&p, &t.exp);
	profile_release(&p);
	profile_release(&t.exp);
	free(d);
	free(blob);
}

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/*
 * Size per sample on a realistic stream: 200 distinct 20-frame stacks
 * (5 kernel, 15 user, shared roots), 3 threads on 3 CPUs sampled at 4 kHz
 * with timer jitter, constant period; flushed as a recorder would.
 */
static double bytes_per_sample(int skewed, double *flush_ms)
{
	enum { NSTACKS = 200, NFRAMES = 20, NSAMPLES = 100000 };
	static uint64_t stacks[NSTACKS][NFRAMES];
	struct ztdata_writer *w;
	struct ztdata_stats st;
	struct timespec t0, t1;
	uint64_t tick = 1000000000000ull;
	int fd, i, j, flushes = 0;
	double ms = 0;

	rnd_state = 12345;
	for (i = 0; i < NSTACKS; i++) {
		for (j = 0; j < 5; j++)
			stacks[i][j] = 0xffffffff81000000ull + (rnd() % 0x800000);
		for (j = 5; j < NFRAMES; j++) {
			if (j >= NFRAMES - 3) /* main, __libc_start_main, _start */
				stacks[i][j] = 0x555555555000ull + (uint64_t)(NFRAMES - j) * 0x40;
			else if (j < 9)
				stacks[i][j] = 0x7ffff7c00000ull + (rnd() % 0x180000);
			else
				stacks[i][j] = 0x555555556000ull + (rnd() % 0x40000) + (uint64_t)i % 7;
		}
	}
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	w = ztdata_writer_new(fd);
	assert_non_null(w);
	for (i = 0; i < NSAMPLES; i++) {
		uint32_t r = rnd(), s;
		unsigned cpu = (unsigned)i % 3;

		if (cpu == 0)
			tick += 250000;
		/* skewed: a few hot stacks, a long tail (P(s) falls like log(200/s)) */
		s = skewed ? (r >> 8) % (1 + r % NSTACKS) : r % NSTACKS;
		assert_int_equal(ztdata_write_sample(w, tick + cpu * 700 + rnd() % 2000, 250000,
						     4242, 4242 + cpu, cpu, stacks[s], 5, 15), 0);
		if (i % 12000 == 11999) { /* one second at 3 x 4 kHz */
			clock_gettime(CLOCK_MONOTONIC, &t0);
			assert_int_equal(ztdata_writer_flush(w), 0);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			ms += (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
			flushes++;
		}
	}
	assert_int_equal(ztdata_writer_finish(w), 0);
	ztdata_writer_stats(w, &st);
	ztdata_writer_free(w);
	close(fd);
	*flush_ms = ms / flushes;
	return (double)st.bytes / NSAMPLES;
}

static void test_bytes_per_sample(void **state)
{
	double u, z, fu, fz;

	u = bytes_per_sample(0, &fu);
	z = bytes_per_sample(1, &fz);
	print_message("zt.data: %.3f bytes/sample (uniform over 200 stacks), %.3f (skewed); "
		      "flush of 12000 samples %.2f ms\n", u, z, fu);
	assert_true(u < 8);
	assert_true(z < 8);
}

/* ---- stack snapshots (--call-graph dwarf) --------------------------------- */

#define CH_USTACKS 8
#define ALLREGS ((1u << PROF_UREGS) - 1)

/* Snapshots, as written or as read. */
struct uset {
	struct prof_ustack *u; /* data owned */
	size_t n, cap;
	size_t stop_after;     /* collect(): return 42 + n after this many (0: never) */
};

static void uset_add(struct uset *s, const struct prof_ustack *u)
{
	struct prof_ustack *c;
	uint8_t *d;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->u = realloc(s->u, s->cap * sizeof(*s->u));
		assert_non_null(s->u);
	}
	d = malloc(u->len ? u->len : 1);
	assert_non_null(d);
	memcpy(d, u->data, u->len);
	c = &s->u[s->n++];
	*c = *u;
	c->data = d;
}

static void uset_release(struct uset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free((void *)s->u[i].data);
	free(s->u);
	memset(s, 0, sizeof(*s));
}

static int collect(void *arg, const struct prof_ustack *u)
{
	struct uset *s = arg;

	uset_add(s, u);
	if (s->stop_after && s->n == s->stop_after)
		return 42 + (int)s->n;
	return 0;
}

/* got must be the first n of want. */
static void assert_uset_prefix(const struct uset *got, const struct uset *want, size_t n)
{
	assert_int_equal(got->n, n);
	for (size_t i = 0; i < n; i++) {
		const struct prof_ustack *a = &got->u[i], *b = &want->u[i];

		assert_int_equal(a->sample, b->sample);
		assert_int_equal(a->regs_mask, b->regs_mask);
		assert_memory_equal(a->regs, b->regs, sizeof(a->regs));
		assert_int_equal(a->len, b->len);
		if (a->len)
			assert_memory_equal(a->data, b->data, a->len);
	}
}

/* Attach a snapshot to the sample written last, and expect it back
 * (registers outside the mask read as 0). */
static void tw_ustack(struct tw *t, struct uset *want, uint32_t mask, const uint64_t *regs,
		      const uint8_t *d, size_t len)
{
	struct prof_ustack u = { .sample = t->exp.nr_samples - 1, .regs_mask = mask, .data = d,
				 .len = len };

	assert_int_equal(ztdata_write_ustack(t->w, mask, regs, d, len), 0);
	for (int k = 0; k < PROF_UREGS; k++)
		u.regs[k] = mask & (1u << k) ? regs[k] : 0;
	uset_add(want, &u);
}

static uint32_t urand_state = 12345;

static uint32_t urand(void)
{
	urand_state ^= urand_state << 13;
	urand_state ^= urand_state >> 17;
	urand_state ^= urand_state << 5;
	return urand_state;
}

/* A simulated thread: a stack that changes a little between samples
 * (inner frames most), ending at a page boundary like a real one. */
struct uthread {
	uint32_t tid;
	uint64_t top;            /* the stack's end address */
	uint8_t mem[1 << 17];    /* the 128 KiB below top */
	uint64_t regs[PROF_UREGS];
};

static void uthread_init(struct uthread *th, uint32_t tid)
{
	th->tid = tid;
	th->top = 0x7ffc00000000ull + (uint64_t)tid * 0x1000000;
	for (size_t i = 0; i < sizeof(th->mem); i++)
		th->mem[i] = (uint8_t)urand();
	for (int k = 0; k < PROF_UREGS; k++)
		th->regs[k] = (uint64_t)urand() << 16 | urand();
}

/* The next snapshot of th (size: the snapshot size asked for). */
static void uthread_step(struct uthread *th, size_t size, uint64_t *regs, const uint8_t **d,
			 size_t *len)
{
	size_t depth = 512 + urand() % 12000, i;
	uint64_t sp;

	depth &= ~(size_t)7;
	if (urand() % 8 == 0)
		depth = sizeof(th->mem) - 8 * (urand() % 64); /* deeper than any snapshot */
	sp = th->top - depth;
	/* inner frames change, outer ones now and then */
	for (i = 0; i < 16; i++)
		th->mem[sizeof(th->mem) - depth + urand() % 256] = (uint8_t)urand();
	if (urand() % 4 == 0)
		th->mem[sizeof(th->mem) - 1 - urand() % depth] ^= 0x5a;
	for (int k = 0; k < PROF_UREGS; k++)
		if (urand() % 3 == 0)
			th->regs[k] += urand() % 64;
	th->regs[PROF_UREG_SP] = sp;
	th->regs[PROF_UREG_IP] = 0x400000 + urand() % 4096;
	memcpy(regs, th->regs, sizeof(th->regs));
	*d = th->mem + sizeof(th->mem) - depth;
	*len = depth < size ? depth : size;
}

/*
 * A file with nthreads threads taking turns, a snapshot on most samples,
 * flushes every flush_every samples (0: none), and the edge cases: empty
 * and largest snapshots, partial register masks, no stack pointer, a
 * snapshot of a sample in an earlier chunk.
 */
static uint8_t *ustack_file(struct tw *t, struct uset *want, unsigned nthreads, unsigned nsamples,
			    unsigned flush_every, size_t *len)
{
	static struct uthread th[300];
	uint64_t ips[] = { 0xffffffff81000010ull, 0x401000, 0x401100 }, regs[PROF_UREGS];
	static uint8_t big[PROF_USTACK_MAX];
	const uint8_t *d;
	size_t n;
	unsigned i;

	assert_true(nthreads <= 300);
	for (i = 0; i < nthreads; i++)
		uthread_init(&th[i], 100 + i);
	tw_open(t);
	memset(want, 0, sizeof(*want));
	tw_meta(t, "callchain", "dwarf");
	for (i = 0; i < nsamples; i++) {
		struct uthread *h = &th[i % nthreads];

		tw_sample(t, 1000 + i, 1, 7, h->tid, i % 4, ips + i % 2, 1, 2 - i % 2);
		if (flush_every && i % flush_every == flush_every - 1)
			assert_int_equal(ztdata_writer_flush(t->w), 0);
		if (i % 7 == 3)
			continue; /* a sample without a snapshot */
		uthread_step(h, i % 50 == 10 ? 16384 : 8192, regs, &d, &n);
		if (i % 31 == 5)
			tw_ustack(t, want, (1u << PROF_UREG_SP) | (1u << PROF_UREG_IP), regs, d, n);
		else if (i % 37 == 6)
			tw_ustack(t, want, ALLREGS & ~(1u << PROF_UREG_SP), regs, d, n);
		else if (i % 41 == 7)
			tw_ustack(t, want, ALLREGS, regs, d, 0);
		else
			tw_ustack(t, want, ALLREGS, regs, d, n);
	}
	/* the largest snapshot, and one of a sample in an earlier chunk */
	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i / 64);
	tw_sample(t, 5000, 1, 7, 100, 0, ips, 1, 2);
	regs[PROF_UREG_SP] = 0x7ffd00000000ull;
	tw_ustack(t, want, ALLREGS, regs, big, sizeof(big));
	tw_sample(t, 5001, 1, 7, 100, 0, ips, 1, 2);
	assert_int_equal(ztdata_writer_flush(t->w), 0);
	regs[PROF_UREG_SP] += 8;
	tw_ustack(t, want, ALLREGS, regs, big + 8, sizeof(big) - 8);
	return tw_close(t, 1, len);
}

/* The snapshots given by the chunks in the first n (uncompressed count). */
static size_t ustacks_in(const struct tchunk *ch, size_t n)
{
	size_t k, total = 0;

	for (k = 0; k < n; k++) {
		uint8_t *raw;
		struct zcur c;
		uint64_t cnt;

		if (ch[k].type != CH_USTACKS)
			continue;
		raw = chunk_raw(&ch[k]);
		zcur_init(&c, raw, ch[k].raw);
		assert_int_equal(zcur_uv(&c, &cnt), 0);
		total += cnt;
		free(raw);
	}
	return total;
}

static void test_ustack_roundtrip(void **state)
{
	static const unsigned threads[] = { 1, 3, 256, 257 }; /* refs up to UREF_MAX back, and past */
	struct ztdata_read_info info;
	struct uset want, got = { 0 };
	struct profile p;
	struct tw t;
	uint8_t *d;
	size_t len;
	char path[64];

	for (size_t v = 0; v < 4; v++) {
		d = ustack_file(&t, &want, threads[v], threads[v] < 256 ? 600 : 3 * threads[v],
				v == 1 ? 150 : 0, &len);
		read_expect(d, len, 0, &p, &info);
		assert_true(info.complete);
		assert_int_equal(info.skipped, 0);
		assert_true(info.ustack_chunks >= (v == 1 ? 5u : 2u));
		assert_profile_equal(&p, &t.exp);
		profile_release(&p);
		memset(&info, 0xff, sizeof(info));
		assert_int_equal(ztdata_read_ustacks_mem(d, len, collect, &got, &info), 0);
		assert_true(info.complete);
		assert_int_equal(info.chunks, walk_chunks(d, len, (struct tchunk[64]){ 0 }, 64));
		assert_string_equal(info.msg, "");
		assert_uset_prefix(&got, &want, want.n);
		uset_release(&got);
		if (v == 1) { /* the same through a file */
			int fd = memfd_create("u", MFD_CLOEXEC);

			assert_true(fd >= 0);
			assert_int_equal(write(fd, d, len), (ssize_t)len);
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			assert_int_equal(ztdata_read_ustacks_file(path, collect, &got, NULL), 0);
			assert_uset_prefix(&got, &want, want.n);
			uset_release(&got);
			close(fd);
			assert_int_equal(ztdata_read_ustacks_file("/nonexistent/x", collect, &got, &info),
					 -ENOENT);
			assert_non_null(strstr(info.msg, "/nonexistent/x"));
		}
		uset_release(&want);
		profile_release(&t.exp);
		free(d);
	}
}

/* Snapshots are a fraction of their raw size, and a file without them
 * gives none. */
static void test_ustack_none_and_size(void **state)
{
	struct ztdata_read_info info;
	struct uset want, got = { 0 };
	size_t len, raw = 0;
	struct tw t;
	uint8_t *d;

	d = small_file(&t, &len);
	assert_int_equal(ztdata_read_ustacks_mem(d, len, collect, &got, &info), 0);
	assert_int_equal(got.n, 0);
	assert_int_equal(info.ustack_chunks, 0);
	assert_true(info.complete);
	assert_int_equal(ztdata_read_ustacks_mem(d, len, NULL, NULL, NULL), -EINVAL);
	profile_release(&t.exp);
	free(d);

	d = ustack_file(&t, &want, 3, 600, 0, &len);
	for (size_t i = 0; i < want.n; i++)
		raw += want.u[i].len;
	print_message("zt.data with snapshots: %zu bytes for %zu bytes of stack in %zu snapshots\n",
		      len, raw, want.n);
	assert_true(len * 4 < raw);
	uset_release(&want);
	profile_release(&t.exp);
	free(d);
}

static void test_ustack_write_errors(void **state)
{
	uint64_t regs[PROF_UREGS] = { 0 }, ip = 0x401000;
	static uint8_t stack[PROF_USTACK_MAX + 8];
	struct tw t;
	size_t len;
	uint8_t *d;

	tw_open(&t);
	assert_int_equal(ztdata_write_ustack(t.w, ALLREGS, regs, stack, 8), -EINVAL); /* no sample */
	tw_sample(&t, 1, 1, 1, 1, 0, &ip, 0, 1);
	assert_int_equal(ztdata_write_ustack(t.w, 1u << PROF_UREGS, regs, stack, 8), -EINVAL);
	assert_int_equal(ztdata_write_ustack(t.w, ALLREGS, NULL, stack, 8), -EINVAL);
	assert_int_equal(ztdata_write_ustack(t.w, ALLREGS, regs, NULL, 8), -EINVAL);
	assert_int_equal(ztdata_write_ustack(t.w, ALLREGS, regs, stack, PROF_USTACK_MAX + 1), -E2BIG);
	assert_int_equal(ztdata_write_ustack(t.w, 0, NULL, NULL, 0), 0);
	assert_int_equal(ztdata_write_ustack(t.w, ALLREGS, regs, stack, 8), -EINVAL); /* has one */
	tw_sample(&t, 2, 1, 1, 1, 0, &ip, 0, 1);
	assert_int_equal(ztdata_write_ustack(t.w, ALLREGS, regs, stack, 8), 0);
	assert_int_equal(ztdata_writer_finish(t.w), 0);
	assert_int_equal(ztdata_write_ustack(t.w, ALLREGS, regs, stack, 8), -EINVAL);
	d = tw_close(&t, 0, &len);
	profile_release(&t.exp);
	free(d);
}

/* A file cut anywhere gives the snapshots of its complete chunks: never
 * one of a sample the first pass does not read. */
static void test_ustack_truncated(void **state)
{
	struct ztdata_read_info info;
	struct uset want, got = { 0 };
	struct tchunk ch[64];
	struct profile p;
	size_t len, n, k, cut, w;
	struct tw t;
	uint8_t *d;

	d = ustack_file(&t, &want, 3, 600, 100, &len);
	n = walk_chunks(d, len, ch, 64);
	assert_true(n > 12);
	for (k = 0; k < n; k++) {
		static const size_t at[] = { 0, 1, 23, 24, 25 };

		for (w = 0; w < 6; w++) {
			cut = w < 5 ? ch[k].off + at[w] : ch[k].end - 1;
			if (cut > len || (w == 5 && ch[k].end - 1 < ch[k].off + 25))
				continue;
			read_expect(d, cut, 0, &p, &info);
			assert_int_equal(info.chunks, k);
			assert_int_equal(ztdata_read_ustacks_mem(d, cut, collect, &got, &info), 0);
			assert_int_equal(info.chunks, k);
			assert_int_equal(info.truncated, cut != ch[k].off);
			assert_uset_prefix(&got, &want, ustacks_in(ch, k));
			for (size_t i = 0; i < got.n; i++)
				assert_true(got.u[i].sample < p.nr_samples);
			uset_release(&got);
			profile_release(&p);
		}
	}
	/* cut between a SAMPLES chunk and its USTACKS chunk: those samples
	 * are read, their snapshots are lost; the later samples are not read
	 * and none of their snapshots is given */
	for (k = 1, w = 0; k < n; k++)
		if (ch[k].type == CH_USTACKS && ch[k - 1].type == CH_SAMPLES && k + 3 < n && w++)
			break; /* the second such place */
	assert_true(k < n);
	read_expect(d, ch[k].off, 0, &p, &info);
	assert_int_equal(ztdata_read_ustacks_mem(d, ch[k].off, collect, &got, &info), 0);
	assert_true(got.n > 0 && got.n < want.n);
	assert_true(want.u[got.n].sample < p.nr_samples); /* the next one's sample was read */
	assert_uset_prefix(&got, &want, got.n);
	uset_release(&got);
	profile_release(&p);
	uset_release(&want);
	profile_release(&t.exp);
	free(d);
}

/* A nonzero return of the callback ends the pass with that value. */
static void test_ustack_stop(void **state)
{
	struct uset want, got = { .stop_after = 5 };
	struct tw t;
	uint8_t *d;
	size_t len;

	d = ustack_file(&t, &want, 2, 50, 0, &len);
	assert_int_equal(ztdata_read_ustacks_mem(d, len, collect, &got, NULL), 47);
	assert_uset_prefix(&got, &want, 5);
	uset_release(&got);
	got.stop_after = want.n;
	assert_int_equal(ztdata_read_ustacks_mem(d, len, collect, &got, NULL), 42 + (int)want.n);
	uset_release(&got);
	uset_release(&want);
	profile_release(&t.exp);
	free(d);
}

/* A damaged USTACKS chunk is an error naming it in both passes; the
 * snapshots before it are given. */
static void test_ustack_damaged(void **state)
{
	struct ztdata_read_info info;
	struct uset want, got = { 0 };
	struct tchunk ch[64];
	struct profile p;
	size_t len, n, k, seen = 0;
	struct tw t;
	uint8_t *d, *m;
	char wantmsg[80];

	d = ustack_file(&t, &want, 3, 600, 150, &len);
	n = walk_chunks(d, len, ch, 64);
	m = malloc(len);
	assert_non_null(m);
	for (k = 0; k < n; k++) {
		if (ch[k].type != CH_USTACKS)
			continue;
		seen++;
		memcpy(m, d, len);
		m[ch[k].off + 24 + ch[k].stored / 2] ^= 0x04;
		snprintf(wantmsg, sizeof(wantmsg), "chunk %zu (USTACKS) at offset %zu: checksum", k,
			 ch[k].off);
		read_expect(m, len, -EBADMSG, &p, &info);
		assert_non_null(strstr(info.msg, wantmsg));
		profile_release(&p);
		assert_int_equal(ztdata_read_ustacks_mem(m, len, collect, &got, &info), -EBADMSG);
		assert_non_null(strstr(info.msg, wantmsg));
		assert_uset_prefix(&got, &want, ustacks_in(ch, k));
		uset_release(&got);
	}
	assert_true(seen >= 4);
	free(m);
	uset_release(&want);
	profile_release(&t.exp);
	free(d);
}

/* The prefix of a file up to its first SAMPLES chunk (5 samples, no
 * snapshots), then a USTACKS chunk with payload pl, stored. */
/* A file of 5 samples in one SAMPLES chunk, cut after it, then a chunk of
 * type with payload pl (at: its offset). */
static void crafted_after_samples(const struct zbuf *pl, struct zbuf *f, size_t *at,
				  uint32_t type)
{
	uint64_t ip = 0x401000;
	struct tchunk ch[16];
	size_t len, n, k;
	struct tw t;
	uint8_t *d;

	tw_open(&t);
	for (int i = 0; i < 5; i++)
		tw_sample(&t, i, 1, 1, 1, 0, &ip, 0, 1);
	d = tw_close(&t, 1, &len);
	n = walk_chunks(d, len, ch, 16);
	for (k = 0; k < n && ch[k].type != CH_SAMPLES; k++)
		;
	assert_true(k < n);
	zbuf_init(f);
	zbuf_put(f, d, ch[k].end);
	*at = f->len;
	put_chunk(f, type, 0, pl->data, pl->len, (uint32_t)k + 1, NULL);
	profile_release(&t.exp);
	free(d);
}

static void crafted_ustacks(const struct zbuf *pl, struct zbuf *f, size_t *at)
{
	crafted_after_samples(pl, f, at, CH_USTACKS);
}

/* One USTACKS entry header. */
static void put_uhead(struct zbuf *b, uint64_t dsample, uint64_t ref, uint32_t mask, uint32_t same,
		      uint64_t len, uint64_t skip, uint64_t copy)
{
	zbuf_put_uv(b, dsample);
	zbuf_put_uv(b, ref);
	zbuf_put_uv(b, mask);
	zbuf_put_uv(b, same);
	zbuf_put_uv(b, len);
	if (ref) {
		zbuf_put_uv(b, skip);
		zbuf_put_uv(b, copy);
	}
}

/* Hand-made USTACKS chunks: the layout of zt-data(5), and the checks. */
/* Raw records (1.4): round trip over chunks, the writer's refusals, and
 * crafted RAWS chunks the reader refuses whole. */
static void test_raws(void **state)
{
	static const char fmt[] = "sched\0name: sched_switch\nID: 372\n";
	static const struct {
		const char *why;
		uint64_t cnt, e[2][2]; /* dsample len */
		size_t extra;          /* record bytes after the headers */
	} bad[] = {
		{ "count 1000 exceeds", 1000, { { 0 } }, 0 },
		{ "sample 5 is not after", 1, { { 5, 0 } }, 0 },
		{ "sample 1 is not after", 2, { { 1, 0 }, { 0, 0 } }, 0 },
		{ "over the limit", 1, { { 0, PROF_RAW_MAX + 1 } }, 0 },
		{ "exceed the payload", 2, { { 0, 3 }, { 1, 4 } }, 6 },
	};
	uint64_t ip = 0x401000;
	uint8_t big[PROF_RAW_MAX + 1] = { 0 }, rec[40];
	struct ztdata_read_info info;
	struct uset got = { 0 };
	struct zbuf pl, f;
	struct profile p;
	const uint8_t *r;
	size_t len, n = 0, at, i;
	uint8_t *d;
	struct tw t;

	(void)state;
	tw_open(&t);
	assert_int_equal(ztdata_write_raw(t.w, "x", 1), -EINVAL); /* no sample yet */
	tw_blob(&t, PROF_BLOB_TRACE_FORMAT, 0, 0, fmt, sizeof(fmt) - 1);
	for (i = 0; i < 8; i++) {
		tw_sample(&t, 10 + i, 1, 1, 1, 0, &ip, 0, 1);
		if (i % 3 == 1)
			continue; /* samples without one */
		memset(rec, (int)i, sizeof(rec));
		assert_int_equal(ztdata_write_raw(t.w, rec, 8 + i), 0);
		if (i == 2) {
			assert_int_equal(ztdata_write_raw(t.w, rec, 4), -EINVAL); /* has one */
			assert_int_equal(ztdata_writer_flush(t.w), 0);          /* a RAWS chunk each */
		}
	}
	tw_sample(&t, 20, 1, 1, 1, 0, &ip, 0, 1);
	assert_int_equal(ztdata_write_raw(t.w, big, sizeof(big)), -E2BIG);
	assert_int_equal(ztdata_write_raw(t.w, NULL, 0), 0); /* empty, but there */
	d = tw_close(&t, 1, &len);
	read_expect(d, len, 0, &p, &info);
	assert_true(info.complete);
	assert_int_equal(info.skipped, 0);
	assert_int_equal(p.nr_samples, 9);
	for (i = 0; i < 8; i++) {
		r = profile_sample_raw(&p, &p.samples[i], &n);
		if (i % 3 == 1) {
			assert_null(r);
			continue;
		}
		assert_non_null(r);
		assert_int_equal(n, 8 + i);
		assert_int_equal(r[0], i);
		assert_int_equal(r[n - 1], i);
	}
	assert_non_null(profile_sample_raw(&p, &p.samples[8], &n));
	assert_int_equal(n, 0);
	assert_non_null(profile_find_blob(&p, PROF_BLOB_TRACE_FORMAT, UINT32_MAX));
	profile_release(&p);
	/* the second pass goes past RAWS chunks */
	assert_int_equal(ztdata_read_ustacks_mem(d, len, collect, &got, &info), 0);
	assert_true(info.complete);
	free(d);
	profile_release(&t.exp);

	zbuf_init(&pl);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];

		zbuf_reset(&pl);
		zbuf_put_uv(&pl, bad[i].cnt);
		for (int e = 0; e < 2 && (uint64_t)e < bad[i].cnt && bad[i].cnt < 1000; e++) {
			zbuf_put_uv(&pl, bad[i].e[e][0]);
			zbuf_put_uv(&pl, bad[i].e[e][1]);
		}
		for (size_t x = 0; x < bad[i].extra; x++)
			zbuf_put_u8(&pl, (uint8_t)x);
		crafted_after_samples(&pl, &f, &at, CH_RAWS);
		read_expect(f.data, f.len, -EBADMSG, &p, &info);
		snprintf(want, sizeof(want), "(RAWS) at offset %zu: ", at);
		assert_non_null(strstr(info.msg, want));
		if (!strstr(info.msg, bad[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, info.msg, bad[i].why);
		assert_int_equal(p.nr_samples, 5);
		assert_int_equal(p.nr_raws, 0); /* a bad chunk gives nothing */
		profile_release(&p);
		zbuf_release(&f);
	}
	/* good: samples 1 and 4, then bytes a later minor may add */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 2);
	zbuf_put_uv(&pl, 1);
	zbuf_put_uv(&pl, 2);
	zbuf_put_uv(&pl, 3);
	zbuf_put_uv(&pl, 3);
	zbuf_put(&pl, "abxyzlater", 10);
	crafted_after_samples(&pl, &f, &at, CH_RAWS);
	read_expect(f.data, f.len, 0, &p, &info);
	assert_null(profile_sample_raw(&p, &p.samples[0], &n));
	assert_non_null(r = profile_sample_raw(&p, &p.samples[1], &n));
	assert_int_equal(n, 2);
	assert_memory_equal(r, "ab", 2);
	assert_non_null(r = profile_sample_raw(&p, &p.samples[4], &n));
	assert_memory_equal(r, "xyz", 3);
	profile_release(&p);
	zbuf_release(&f);
	zbuf_release(&pl);
	uset_release(&got);
}

static void test_ustack_crafted(void **state)
{
	static const struct {
		const char *why;
		uint64_t cnt, e[2][7]; /* dsample ref mask same len skip copy */
		size_t extra;          /* bytes of registers and stack after the headers */
	} bad[] = {
		{ "count 1000 exceeds", 1000, { { 0 } }, 0 },
		{ "sample 5 is not in an earlier SAMPLES", 1, { { 5, 0, 0, 0, 0 } }, 0 },
		{ "sample 1 is not after", 2, { { 1, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 } }, 0 },
		{ "refers to the snapshot 1", 1, { { 0, 1, 0, 0, 0, 0, 0 } }, 0 },
		{ "refers to the snapshot 2", 2, { { 0, 0, 0, 0, 0 }, { 1, 2, 0, 0, 0, 0, 0 } }, 0 },
		{ "bad register masks", 1, { { 0, 0, 1u << 17, 0, 0 } }, 0 },
		{ "bad register masks", 1, { { 0, 0, 0, 1, 0 } }, 8 },
		{ "bad register masks", 2, { { 0, 0, 1, 0, 0 }, { 1, 1, 1, 2, 0, 0, 0 } }, 16 },
		{ "bad stack lengths", 1, { { 0, 0, 0, 0, 65529 } }, 65529 },
		{ "bad stack lengths", 2, { { 0, 0, 0, 0, 8 }, { 1, 1, 0, 0, 8, 4, 8 } }, 16 },
		{ "exceed the payload", 1, { { 0, 0, 0, 0, 100 } }, 99 },
		{ "exceed the payload", 1, { { 0, 0, ALLREGS, 0, 0 } }, 8 * 17 - 1 },
		/* sp is 0 in both: the second takes [8, 24) of the first's [0, 16) */
		{ "outside the snapshot it refers to", 2,
		  { { 0, 0, 0, 0, 16 }, { 1, 1, 0, 0, 24, 8, 16 } }, 16 + 8 },
	};
	struct ztdata_read_info info;
	struct uset got = { 0 };
	struct zbuf pl, f;
	struct profile p;
	size_t at, i;
	char want[128];
	int e;

	zbuf_init(&pl);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		zbuf_reset(&pl);
		zbuf_put_uv(&pl, bad[i].cnt);
		for (e = 0; e < 2 && (uint64_t)e < bad[i].cnt && bad[i].cnt < 1000; e++)
			put_uhead(&pl, bad[i].e[e][0], bad[i].e[e][1], (uint32_t)bad[i].e[e][2],
				  (uint32_t)bad[i].e[e][3], bad[i].e[e][4], bad[i].e[e][5],
				  bad[i].e[e][6]);
		for (size_t x = 0; x < bad[i].extra; x++)
			zbuf_put_u8(&pl, (uint8_t)x);
		crafted_ustacks(&pl, &f, &at);
		/* the first pass does not look inside */
		read_expect(f.data, f.len, 0, &p, &info);
		assert_int_equal(p.nr_samples, 5);
		assert_int_equal(info.ustack_chunks, 1);
		profile_release(&p);
		assert_int_equal(ztdata_read_ustacks_mem(f.data, f.len, collect, &got, &info), -EBADMSG);
		snprintf(want, sizeof(want), "(USTACKS) at offset %zu: ", at);
		assert_non_null(strstr(info.msg, want));
		if (!strstr(info.msg, bad[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, info.msg, bad[i].why);
		assert_int_equal(got.n, 0); /* a bad chunk gives nothing */
		zbuf_release(&f);
	}

	/* good (the example of zt-data(5)): sample 1 has ip 0x401234 and sp 0x1000, 32 bytes of stack;
	 * sample 3 the same ip, sp 0x1008, and 24 bytes, the last 16 of them
	 * the first's bytes at 0x1010 */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 2);
	put_uhead(&pl, 1, 0, (1u << PROF_UREG_SP) | (1u << PROF_UREG_IP), 0, 32, 0, 0);
	put_uhead(&pl, 2, 1, (1u << PROF_UREG_SP) | (1u << PROF_UREG_IP), 1u << PROF_UREG_IP, 24, 8,
		  16);
	/* the example of zt-data(5) */
	assert_memory_equal(pl.data, "\x02\x01\x00\x80\x81\x04\x00\x20"
				     "\x02\x01\x80\x81\x04\x80\x80\x04\x18\x08\x10", 19);
	assert_int_equal(pl.len, 19);
	zbuf_put_u64le(&pl, 0x1000); /* the sp column */
	zbuf_put_u64le(&pl, 0x1008);
	zbuf_put_u64le(&pl, 0x401234); /* the ip column */
	for (i = 0; i < 32; i++)
		zbuf_put_u8(&pl, (uint8_t)(0xa0 + i));
	zbuf_put(&pl, "stored8!", 8);
	zbuf_put(&pl, "later minor", 11);
	crafted_ustacks(&pl, &f, &at);
	assert_int_equal(ztdata_read_ustacks_mem(f.data, f.len, collect, &got, &info), 0);
	assert_false(info.complete);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.u[0].sample, 1);
	assert_int_equal(got.u[1].sample, 3);
	for (e = 0; e < 2; e++) {
		assert_int_equal(got.u[e].regs[PROF_UREG_IP], 0x401234);
		assert_int_equal(got.u[e].regs[PROF_UREG_SP], 0x1000 + 8 * e);
		assert_int_equal(got.u[e].regs[PROF_UREG_BP], 0);
	}
	assert_int_equal(got.u[0].len, 32);
	assert_int_equal(got.u[0].data[31], 0xbf);
	assert_int_equal(got.u[1].len, 24);
	assert_memory_equal(got.u[1].data, "stored8!", 8);
	assert_memory_equal(got.u[1].data + 8, got.u[0].data + 16, 16);
	uset_release(&got);
	zbuf_release(&f);
	zbuf_release(&pl);
}

/* ---- Python code objects (1.5) ----------------------------------------- */

/* The counts of the PYCODES chunks of a file, checking that their first
 * indexes continue; *nchunks: how many there are. */
static uint64_t pycode_chunks(const uint8_t *d, size_t len, unsigned *nchunks)
{
	struct tchunk ch[64];
	uint64_t total = 0, first, count;
	size_t n, i;

	n = walk_chunks(d, len, ch, 64);
	*nchunks = 0;
	for (i = 0; i < n; i++) {
		uint8_t *raw;
		struct zcur c;

		if (ch[i].type != CH_PYCODES)
			continue;
		raw = chunk_raw(&ch[i]);
		zcur_init(&c, raw, ch[i].raw);
		assert_int_equal(zcur_uv(&c, &first), 0);
		assert_int_equal(zcur_uv(&c, &count), 0);
		assert_int_equal(first, total);
		assert_true(count > 0);
		total += count;
		(*nchunks)++;
		free(raw);
	}
	return total;
}

/* Every Python frame of p's stacks names one of p's code objects; returns
 * how many Python frames there are. */
static size_t py_frames_defined(const struct profile *p)
{
	size_t i, n = 0;
	unsigned j;

	for (i = 0; i < p->nr_stacks; i++) {
		const uint64_t *ips = profile_stack_ips(p, (uint32_t)i);
		const struct prof_stack *st = &p->stacks[i];

		for (j = 0; j < st->nk + st->nu; j++) {
			if (!prof_is_py(ips[j]))
				continue;
			assert_true(j >= st->nk); /* user frames */
			assert_true(prof_py_code(ips[j]) < p->nr_pycodes);
			n++;
		}
	}
	return n;
}

/*
 * A recording with Python frames over several flushes: flush 0 code
 * objects and samples, 1 code objects alone, 2 both (strings at their
 * limits, an empty and a 1 MiB line table), 3 samples alone on old code
 * objects. ncodes: the code objects written.
 */
static uint8_t *py_file(struct tw *t, int big, size_t *len, uint32_t *ncodes)
{
	static char qmax[ZTDATA_PY_QUALNAME_MAX + 1], fmax[ZTDATA_PY_FILENAME_MAX + 1];
	static uint8_t lt[PROF_PY_LINETABLE_MAX];
	struct prof_pycode pc;
	uint32_t codes[16], n = 0, round, i;
	uint64_t ips[8];
	char qn[32];

	memset(qmax, 'q', ZTDATA_PY_QUALNAME_MAX);
	memset(fmax, 'f', ZTDATA_PY_FILENAME_MAX);
	for (i = 0; i < sizeof(lt); i++)
		lt[i] = (uint8_t)(i * 7 + i / 251);
	tw_open(t);
	for (round = 0; round < 4; round++) {
		for (i = 0; round != 3 && i < round + 2; i++) {
			snprintf(qn, sizeof(qn), "mod.f%u_%u", round, i);
			pc = (struct prof_pycode){ .ts = 1000 * round + i, .pid = 100 + i % 2,
						   .addr = 0x7f0000100000ull + 0x40 * (n * 37 % 11),
						   .minor = (uint16_t)(11 + n % 3), .firstlineno = (int32_t)n,
						   .qualname = qn, .filename = "/srv/app/mod.py",
						   .linetable = lt + n, .linetable_len = 3 + n };
			if (i == 1) { /* empty line table, not read */
				pc.flags = PROF_PYCODE_UNREAD;
				pc.qualname = pc.filename = NULL;
				pc.linetable = NULL;
				pc.linetable_len = 0;
			}
			if (round == 2 && i == 2) { /* at the limits */
				pc.qualname = qmax;
				pc.filename = fmax;
				pc.linetable = big ? lt : NULL;
				pc.linetable_len = big ? PROF_PY_LINETABLE_MAX : 0;
			}
			codes[n] = tw_pycode(t, &pc);
			assert_int_equal(codes[n], n); /* in the order written */
			n++;
		}
		for (i = 0; round != 1 && i < 6; i++) {
			uint32_t a = codes[(i + round) % n], b = codes[(i * 3 + 1) % n];

			ips[0] = 0xffffffff81000100ull + i;
			ips[1] = 0x7f00aa001000ull + i;           /* the eval loop */
			ips[2] = prof_py_ip(a, i * 3);
			ips[3] = 0x7f00aa001000ull;
			ips[4] = prof_py_ip(b, i == 2 ? PROF_PY_NO_LASTI : 0x1234567);
			ips[5] = prof_py_ip(codes[0], 0);
			ips[6] = 0x401000;
			tw_sample(t, 10000 * round + i, 1, 100, 100 + i % 2, 0, ips, 1, 6);
		}
		assert_int_equal(ztdata_writer_flush(t->w), 0);
	}
	*ncodes = n;
	return tw_close(t, 1, len);
}

/* Code objects survive a round trip over flushes, with their indexes and
 * the stacks' Python frames exactly; the writer's refusals. */
static void test_pycodes(void **state)
{
	static char over[ZTDATA_PY_FILENAME_MAX + 2];
	static uint8_t lt[PROF_PY_LINETABLE_MAX + 1];
	struct prof_pycode pc = { .qualname = "f", .filename = "a.py" };
	struct ztdata_read_info info;
	struct uset got = { 0 };
	struct profile p;
	struct tw t;
	uint32_t n, idx;
	unsigned nch;
	size_t len, i, k, ns;
	uint8_t *d;

	(void)state;
	/* refusals write nothing: the next code object is still index 0 */
	tw_open(&t);
	memset(over, 'x', sizeof(over) - 1);
	over[ZTDATA_PY_QUALNAME_MAX + 1] = 0;
	pc.qualname = over;
	assert_int_equal(ztdata_write_pycode(t.w, &pc, &idx), -E2BIG);
	over[ZTDATA_PY_QUALNAME_MAX + 1] = 'x';
	pc.qualname = "f";
	pc.filename = over;
	assert_int_equal(ztdata_write_pycode(t.w, &pc, &idx), -E2BIG);
	pc.filename = "a.py";
	pc.linetable = lt;
	pc.linetable_len = PROF_PY_LINETABLE_MAX + 1;
	assert_int_equal(ztdata_write_pycode(t.w, &pc, &idx), -E2BIG);
	pc.linetable = NULL;
	pc.linetable_len = 2;
	assert_int_equal(ztdata_write_pycode(t.w, &pc, &idx), -EINVAL);
	assert_int_equal(ztdata_writer_pending(t.w), 0);
	/* the example of zt-data(5) */
	pc = (struct prof_pycode){ .ts = 5, .pid = 7, .addr = 0x1000, .minor = 11, .firstlineno = 3,
				   .qualname = "f", .filename = "a.py",
				   .linetable = (uint8_t *)"\x80\x00", .linetable_len = 2 };
	assert_int_equal(tw_pycode(&t, &pc), 0);
	d = tw_close(&t, 1, &len);
	{
		static const uint8_t man[] = { 0x00, 0x01, 0x0a, 0x07, 0x80, 0x40, 0x0b,
					       0x00, 0x06, 0x01, 'f',  0x04, 'a',  '.',
					       'p',  'y',  0x02, 0x80, 0x00 };
		struct tchunk ch[4];

		assert_int_equal(walk_chunks(d, len, ch, 4), 2); /* PYCODES INDEX */
		assert_int_equal(ch[0].type, CH_PYCODES);
		assert_int_equal(ch[0].raw, sizeof(man));
		assert_int_equal(ch[0].flags, 0); /* too small to compress */
		assert_memory_equal(ch[0].payload, man, sizeof(man));
	}
	read_expect(d, len, 0, &p, &info);
	assert_profile_equal(&p, &t.exp);
	profile_release(&p);
	profile_release(&t.exp);
	free(d);

	d = py_file(&t, 1, &len, &n);
	assert_int_equal(n, 2 + 3 + 4);
	assert_int_equal(pycode_chunks(d, len, &nch), n);
	assert_int_equal(nch, 3); /* flushes 0, 1 and 2 */
	read_expect(d, len, 0, &p, &info);
	assert_true(info.complete);
	assert_int_equal(info.skipped, 0);
	assert_profile_equal(&p, &t.exp); /* code objects and frames, exactly */
	assert_int_equal(py_frames_defined(&p), 3 * 6 * 3);
	assert_int_equal(p.pycodes[1].flags, PROF_PYCODE_UNREAD);
	assert_string_equal(p.pycodes[1].qualname, "");
	assert_int_equal(p.pycodes[1].linetable_len, 0);
	assert_int_equal(strlen(p.pycodes[7].qualname), ZTDATA_PY_QUALNAME_MAX);
	assert_int_equal(strlen(p.pycodes[7].filename), ZTDATA_PY_FILENAME_MAX);
	assert_int_equal(p.pycodes[7].linetable_len, PROF_PY_LINETABLE_MAX);
	assert_string_equal(p.pycodes[prof_py_code(profile_stack_ips(&p, p.samples[0].stack)[2])]
				    .qualname, "mod.f0_0");

	/* a second file read into the same profile: its frames name its own
	 * code objects, after the first file's */
	ns = p.nr_samples;
	assert_int_equal(ztdata_read_mem(d, len, &p, &info), 0);
	assert_int_equal(p.nr_pycodes, 2 * n);
	assert_int_equal(p.nr_samples, 2 * ns);
	for (i = 0; i < n; i++)
		assert_string_equal(p.pycodes[n + i].qualname, p.pycodes[i].qualname);
	for (i = 0; i < ns; i++) {
		const struct prof_stack *st = &p.stacks[p.samples[i].stack];
		const uint64_t *a = profile_stack_ips(&p, p.samples[i].stack);
		const uint64_t *b = profile_stack_ips(&p, p.samples[ns + i].stack);

		for (k = 0; k < st->nk + st->nu; k++) {
			if (!prof_is_py(a[k])) {
				assert_int_equal(a[k], b[k]);
				continue;
			}
			assert_true(prof_is_py(b[k]));
			assert_int_equal(prof_py_code(b[k]), prof_py_code(a[k]) + n);
			assert_int_equal(prof_py_lasti(b[k]), prof_py_lasti(a[k]));
		}
	}
	profile_release(&p);

	/* the second pass counts PYCODES chunks as the first does */
	assert_int_equal(ztdata_read_ustacks_mem(d, len, collect, &got, &info), 0);
	assert_true(info.complete);
	assert_int_equal(got.n, 0);
	uset_release(&got);
	profile_release(&t.exp);
	free(d);
}

/* Cut anywhere, a file holds the code objects of the stacks it holds. */
static void test_pycodes_cut(void **state)
{
	struct ztdata_read_info info;
	struct profile p;
	struct tw t;
	size_t len, cut, most = 0;
	uint32_t n;
	uint8_t *d;

	(void)state;
	d = py_file(&t, 0, &len, &n);
	for (cut = 16; cut <= len; cut++) {
		read_expect(d, cut, 0, &p, &info);
		assert_true(p.nr_pycodes <= n);
		if (py_frames_defined(&p) > most)
			most = py_frames_defined(&p);
		if (p.nr_pycodes) /* the ones it has, as written */
			assert_string_equal(p.pycodes[0].qualname, t.exp.pycodes[0].qualname);
		profile_release(&p);
	}
	assert_int_equal(most, 3 * 6 * 3);
	profile_release(&t.exp);
	free(d);
}

/* One PYCODES entry with strings of the given lengths ('a' bytes). */
static void put_pycode(struct zbuf *b, uint64_t minor, uint64_t flags, int64_t line, size_t qlen,
		       size_t flen, size_t ltlen)
{
	size_t i;

	zbuf_put_sv(b, 7);        /* ts */
	zbuf_put_uv(b, 1);        /* pid */
	zbuf_put_sv(b, 0x1000);   /* addr */
	zbuf_put_uv(b, minor);
	zbuf_put_uv(b, flags);
	zbuf_put_sv(b, line);
	zbuf_put_uv(b, qlen);
	for (i = 0; i < qlen; i++)
		zbuf_put_u8(b, 'a');
	zbuf_put_uv(b, flen);
	for (i = 0; i < flen; i++)
		zbuf_put_u8(b, 'a');
	zbuf_put_uv(b, ltlen);
	for (i = 0; i < ltlen; i++)
		zbuf_put_u8(b, (uint8_t)i);
}

/* Damaged PYCODES chunks: the reader refuses each whole, naming it. */
static void test_pycodes_damaged(void **state)
{
	static const struct {
		const char *why;
		uint64_t first, count, minor, flags;
		int64_t line;
		size_t qlen, flen, ltlen, cut; /* cut: bytes taken off the end */
	} bad[] = {
		{ "count 2 exceeds the payload", 0, 2, 11, 0, 1, 1, 1, 0, 0 },
		{ "count 1000 exceeds the payload", 0, 1000, 11, 0, 1, 1, 1, 0, 0 },
		{ "count 18446744073709551615 exceeds", 0, UINT64_MAX, 11, 0, 1, 1, 1, 0, 0 },
		{ "start at index 1, expected 0", 1, 1, 11, 0, 1, 1, 1, 0, 0 },
		{ "a name over the limit (1025, 1 bytes)", 0, 1, 11, 0, 1, 1025, 1, 0, 0 },
		{ "a name over the limit (1, 4097 bytes)", 0, 1, 11, 0, 1, 1, 4097, 0, 0 },
		{ "line table of 1048577 bytes is over the limit", 0, 1, 11, 0, 1, 1, 1,
		  PROF_PY_LINETABLE_MAX + 1, 0 },
		{ "out of its field's range", 0, 1, 65536, 0, 1, 1, 1, 0, 0 },
		{ "out of its field's range", 0, 1, 11, 65536, 1, 1, 1, 0, 0 },
		{ "out of its field's range", 0, 1, 11, 0, (int64_t)INT32_MAX + 1, 1, 1, 0, 0 },
		{ "out of its field's range", 0, 1, 11, 0, (int64_t)INT32_MIN - 1, 1, 1, 0, 0 },
		{ "code object 0 does not decode", 0, 1, 11, 0, 1, 20, 20, 20, 1 },
		{ "code object 0 does not decode", 0, 1, 11, 0, 1, 20, 20, 20, 25 },
	};
	struct ztdata_read_info info;
	struct uset got = { 0 };
	struct tchunk ch[16];
	struct zbuf pl, f;
	struct profile p;
	size_t at, i, n;
	char want[160];

	(void)state;
	zbuf_init(&pl);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		zbuf_reset(&pl);
		zbuf_put_uv(&pl, bad[i].first);
		zbuf_put_uv(&pl, bad[i].count);
		put_pycode(&pl, bad[i].minor, bad[i].flags, bad[i].line, bad[i].qlen, bad[i].flen,
			   bad[i].ltlen);
		pl.len -= bad[i].cut;
		crafted_after_samples(&pl, &f, &at, CH_PYCODES);
		read_expect(f.data, f.len, -EBADMSG, &p, &info);
		snprintf(want, sizeof(want), "(PYCODES) at offset %zu: ", at);
		assert_non_null(strstr(info.msg, want));
		if (!strstr(info.msg, bad[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, info.msg, bad[i].why);
		assert_int_equal(p.nr_samples, 5); /* the chunks before it */
		assert_int_equal(p.nr_pycodes, 0); /* a bad chunk gives nothing */
		profile_release(&p);
		zbuf_release(&f);
	}
	/* a NUL in a name; a pid over 32 bits */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, 1);
	put_pycode(&pl, 11, 0, 1, 3, 3, 0);
	pl.data[pl.len - 6] = 0; /* the qualname's second byte */
	crafted_after_samples(&pl, &f, &at, CH_PYCODES);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "code object 0 does not decode"));
	profile_release(&p);
	zbuf_release(&f);
	pl.data[pl.len - 6] = 'a';
	pl.data[3] = 0x80; /* pid: 1 becomes a varint running on */
	crafted_after_samples(&pl, &f, &at, CH_PYCODES);
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "(PYCODES)"));
	profile_release(&p);
	zbuf_release(&f);

	/* good: at the limits, then bytes a later minor may add; a second
	 * chunk must go on from index 1 */
	zbuf_reset(&pl);
	zbuf_put_uv(&pl, 0);
	zbuf_put_uv(&pl, 1);
	put_pycode(&pl, UINT16_MAX, UINT16_MAX, INT32_MIN, ZTDATA_PY_QUALNAME_MAX,
		   ZTDATA_PY_FILENAME_MAX, 0);
	zbuf_put(&pl, "later", 5);
	crafted_after_samples(&pl, &f, &at, CH_PYCODES);
	read_expect(f.data, f.len, 0, &p, &info);
	assert_int_equal(p.nr_pycodes, 1);
	assert_int_equal(p.pycodes[0].ts, 7);
	assert_int_equal(p.pycodes[0].pid, 1);
	assert_int_equal(p.pycodes[0].addr, 0x1000);
	assert_int_equal(p.pycodes[0].minor, UINT16_MAX);
	assert_int_equal(p.pycodes[0].flags, UINT16_MAX);
	assert_int_equal(p.pycodes[0].firstlineno, INT32_MIN);
	assert_int_equal(strlen(p.pycodes[0].qualname), ZTDATA_PY_QUALNAME_MAX);
	assert_int_equal(strlen(p.pycodes[0].filename), ZTDATA_PY_FILENAME_MAX);
	assert_int_equal(p.pycodes[0].linetable_len, 0);
	profile_release(&p);
	n = walk_chunks(f.data, f.len, ch, 16);
	put_chunk(&f, CH_PYCODES, 0, pl.data, pl.len, (uint32_t)n, NULL); /* first 0 again */
	read_expect(f.data, f.len, -EBADMSG, &p, &info);
	assert_non_null(strstr(info.msg, "start at index 0, expected 1"));
	assert_int_equal(p.nr_pycodes, 1);
	profile_release(&p);
	/* the second pass checks it too */
	assert_int_equal(ztdata_read_ustacks_mem(f.data, f.len, collect, &got, &info), -EBADMSG);
	assert_int_equal(got.n, 0);
	assert_non_null(strstr(info.msg, "start at index 0, expected 1"));
	zbuf_release(&f);
	zbuf_release(&pl);
}

/* Write a seed file, then check that it reads the way its name says. */
static void write_seed(const char *dir, const char *name, const uint8_t *d, size_t len,
		       int complete, int truncated, unsigned skipped)
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
	assert_int_equal(info.truncated, truncated);
	assert_int_equal(info.skipped, skipped);
	assert_true(p.nr_samples > 0);
	profile_release(&p);
}

/*
 * The fuzz seed corpus (tests/fuzz/corpus/ztdata): written to a temporary
 * directory and checked; ZTDATA_CORPUS_DIR=dir writes it to dir instead.
 */
static void test_seed_corpus(void **state)
{
	const char *dir = getenv("ZTDATA_CORPUS_DIR");
	uint64_t ips[] = { 0xffffffff81000010ull, 0x401000, 0x401100, 0x401200 };
	struct prof_task tk = { .ts = 1, .kind = PROF_TASK_COMM, .pid = 1, .tid = 1,
				.comm = "init" };
	struct prof_mmap m = { .pid = 1, .tid = 1, .start = 0x400000, .len = 0x1000,
			       .path = "/bin/x", .build_id = { 4, { 1, 2, 3, 4 } } };
	char tmp[] = "/tmp/zt-corpus-XXXXXX", path[4096];
	struct tw t;
	struct zbuf f;
	uint8_t *d;
	size_t len;
	int i;

	if (!dir) {
		assert_non_null(mkdtemp(tmp));
		dir = tmp;
	}
	tw_open(&t);
	tw_meta(&t, "hostname", "seed");
	tw_task(&t, &tk);
	tw_mmap(&t, &m);
	tw_blob(&t, PROF_BLOB_PERFMAP, 1, 2, "401000 10 jit\n", 14);
	tw_lost(&t, 1, 2);
	for (i = 0; i < 40; i++)
		tw_sample(&t, 1000 + i * 250, 250, 1, 1 + i % 2, i % 2, ips + i % 2, 1, 1 + i / 2 % 2);
	d = tw_close(&t, 1, &len);
	write_seed(dir, "minimal.ztdata", d, len, 1, 0, 0);
	rebuild(d, len, &t.exp, 24, 2, 0x4242, 0, &f);
	write_seed(dir, "unknown-chunk.ztdata", f.data, f.len, 1, 0, 1);
	zbuf_release(&f);
	profile_release(&t.exp);
	free(d);

	d = small_file(&t, &len);
	write_seed(dir, "all-kinds.ztdata", d, len, 1, 0, 0);
	write_seed(dir, "truncated.ztdata", d, len * 2 / 3, 0, 1, 0);
	rebuild(d, len, &t.exp, 16, 100, 0, 0, &f); /* uncompressed chunks */
	write_seed(dir, "uncompressed.ztdata", f.data, f.len, 1, 0, 0);
	zbuf_release(&f);
	profile_release(&t.exp);
	free(d);

	tw_open(&t);
	for (i = 0; i < 3; i++) {
		tw_sample(&t, i, 1, 2, 2, 0, ips, 0, 4 - i);
		assert_int_equal(ztdata_writer_flush(t.w), 0);
	}
	d = tw_close(&t, 0, &len); /* no index: the recorder was killed */
	write_seed(dir, "unfinished.ztdata", d, len, 0, 0, 0);
	profile_release(&t.exp);
	free(d);

	/* snapshots of two threads (small ones), over two flushes */
	{
		static struct uthread th[2];
		struct uset want, got = { 0 };
		uint64_t regs[PROF_UREGS];
		const uint8_t *sd;
		size_t sn;

		memset(&want, 0, sizeof(want));
		uthread_init(&th[0], 10);
		uthread_init(&th[1], 11);
		tw_open(&t);
		for (i = 0; i < 16; i++) {
			tw_sample(&t, 100 + i, 1, 10, th[i % 2].tid, 0, ips + 1, 0, 2);
			uthread_step(&th[i % 2], 160, regs, &sd, &sn);
			tw_ustack(&t, &want, i == 5 ? 1u << PROF_UREG_IP : ALLREGS, regs, sd, sn);
			if (i == 9)
				assert_int_equal(ztdata_writer_flush(t.w), 0);
		}
		d = tw_close(&t, 1, &len);
		write_seed(dir, "ustacks.ztdata", d, len, 1, 0, 0);
		rebuild(d, len, &t.exp, 16, 100, 0, 0, &f); /* uncompressed: mutations reach the decoder */
		write_seed(dir, "ustacks-stored.ztdata", f.data, f.len, 1, 0, 0);
		assert_int_equal(ztdata_read_ustacks_mem(f.data, f.len, collect, &got, NULL), 0);
		assert_uset_prefix(&got, &want, want.n);
		uset_release(&got);
		zbuf_release(&f);
		assert_int_equal(ztdata_read_ustacks_mem(d, len, collect, &got, NULL), 0);
		assert_uset_prefix(&got, &want, want.n);
		uset_release(&got);
		uset_release(&want);
		profile_release(&t.exp);
		free(d);
	}

	/* Python code objects (1.5) over two flushes, with the frames that
	 * name them */
	{
		struct prof_pycode pc = { .ts = 5, .pid = 2, .addr = 0x7f0000001000ull, .minor = 11,
					  .firstlineno = 3, .qualname = "<module>",
					  .filename = "/srv/a.py",
					  .linetable = (uint8_t *)"\xf0\x03\x01\x01\x01\xd8\x04",
					  .linetable_len = 7 };
		uint64_t py[3] = { 0x7f00aa001000ull, 0, 0x401000 };
		uint32_t c0, c1;

		tw_open(&t);
		c0 = tw_pycode(&t, &pc);
		pc.qualname = "Worker.run";
		pc.addr += 0x200;
		pc.firstlineno = 40;
		c1 = tw_pycode(&t, &pc);
		for (i = 0; i < 8; i++) {
			py[1] = prof_py_ip(i % 2 ? c1 : c0, (uint32_t)i);
			tw_sample(&t, 10 + i, 1, 2, 2, 0, py, 0, 3);
		}
		assert_int_equal(ztdata_writer_flush(t.w), 0);
		pc = (struct prof_pycode){ .ts = 9, .pid = 2, .addr = 0x7f0000002000ull,
					   .flags = PROF_PYCODE_UNREAD, .minor = 12 };
		py[1] = prof_py_ip(tw_pycode(&t, &pc), PROF_PY_NO_LASTI);
		tw_sample(&t, 20, 1, 2, 2, 0, py, 0, 3);
		d = tw_close(&t, 1, &len);
		write_seed(dir, "pycodes.ztdata", d, len, 1, 0, 0);
		rebuild(d, len, &t.exp, 16, 100, 0, 0, &f); /* uncompressed: mutations reach the decoder */
		write_seed(dir, "pycodes-stored.ztdata", f.data, f.len, 1, 0, 0);
		zbuf_release(&f);
		profile_release(&t.exp);
		free(d);
	}

	if (dir == tmp) {
		static const char *const names[] = { "minimal", "unknown-chunk", "all-kinds",
						     "truncated", "uncompressed", "unfinished",
						     "ustacks", "ustacks-stored", "pycodes",
						     "pycodes-stored" };

		for (i = 0; i < 10; i++) {
			snprintf(path, sizeof(path), "%s/%s.ztdata", tmp, names[i]);
			assert_int_equal(unlink(path), 0);
		}
		assert_int_equal(rmdir(tmp), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_empty_and_header_only),
		cmocka_unit_test(test_stack_dedupe),
		cmocka_unit_test(test_flush_multi),
		cmocka_unit_test(test_after_finish),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_truncate_everywhere),
		cmocka_unit_test(test_bad_checksum),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_unknown_chunk),
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_man_example),
		cmocka_unit_test(test_full_disk),
		cmocka_unit_test(test_large_blobs),
		cmocka_unit_test(test_bytes_per_sample),
		cmocka_unit_test(test_ustack_roundtrip),
		cmocka_unit_test(test_ustack_none_and_size),
		cmocka_unit_test(test_ustack_write_errors),
		cmocka_unit_test(test_ustack_truncated),
		cmocka_unit_test(test_ustack_stop),
		cmocka_unit_test(test_ustack_damaged),
		cmocka_unit_test(test_ustack_crafted),
		cmocka_unit_test(test_seed_corpus),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_raws),
		cmocka_unit_test(test_pycodes),
		cmocka_unit_test(test_pycodes_cut),
		cmocka_unit_test(test_pycodes_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
