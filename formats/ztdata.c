// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt.data writer and reader: a header, then checksummed, zstd-compressed
 * chunks of varint-encoded records, ending with an index (man/zt-data.5).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/ztdata.h"
#include "libprof/fileio.h"
#include "libprof/zbuf.h"

#define FILE_HDR 16
#define FILE_HDR_MAX 65536     /* a later minor version may grow the header */
#define CHUNK_HDR 24
#define RAW_MAX (256u << 20)   /* uncompressed payload cap */
#define SEAL_BYTES (16u << 20) /* a buffer this large becomes a chunk at once */
#define STR_MAX (16u << 20)    /* meta values, paths */
#define BLOB_MAX (128u << 20)
#define ZSTD_LEVEL 3
#define FLAG_ZSTD 1u

enum {
	CH_META = 1,
	CH_TASKS = 2,
	CH_MMAPS = 3,
	CH_STACKS = 4,
	CH_SAMPLES = 5,
	CH_BLOB = 6,
	CH_LOST = 7,
	CH_INDEX = 255,
};

/* Sample columns, in file order. */
enum { COL_TS, COL_TID, COL_PID, COL_CPU, COL_STACK, COL_WEIGHT, NR_COLS };

/* Row-encoded kinds buffered by the writer, in flush order. */
enum { R_META, R_TASKS, R_MMAPS, R_BLOB, R_STACKS, NR_ROWS };
static const uint32_t row_type[NR_ROWS] = { CH_META, CH_TASKS, CH_MMAPS, CH_BLOB, CH_STACKS };

struct chunk_ref {
	uint32_t type;
	uint64_t off;
};

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get_le32(const uint8_t *p)
{
	return get_le16(p) | (uint32_t)get_le16(p + 2) << 16;
}

/* ---- writer ------------------------------------------------------------ */

struct ztdata_writer {
	int fd;
	int err;      /* sticky: the first error that left the writer inconsistent */
	int finished;
	uint32_t seq;
	uint64_t written;              /* bytes in the file */
	struct zbuf rows[NR_ROWS];     /* record bodies, without the count */
	uint64_t nrows[NR_ROWS];
	uint64_t task_ts, mmap_ts;     /* delta bases within the current chunk */
	uint64_t lost_samples, lost_events;
	struct profile stacks;         /* only for interning */
	uint32_t stacks_sealed;        /* file stack ids below this are in chunks */
	struct zbuf cols[NR_COLS];
	uint64_t nsamples;             /* samples in cols */
	uint64_t s_ts, s_weight;       /* delta bases within the current chunk */
	uint32_t s_tid, s_stack;
	uint64_t total_samples;
	struct zbuf payload;           /* scratch: one chunk's raw payload */
	struct zbuf out;               /* complete chunks not yet written */
	struct chunk_ref *index;
	size_t nr_index, cap_index;
	ZSTD_CCtx *cctx;
};

static int write_all(int fd, const uint8_t *p, size_t n, uint64_t *done)
{
	while (n) {
		ssize_t r = write(fd, p, n > SSIZE_MAX ? SSIZE_MAX : n);

		if (r < 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) { /* a non-blocking pipe: wait */
				poll(&pfd, 1, -1);
				continue;
			}
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
		*done += (uint64_t)r;
	}
	return 0;
}

static int index_add(struct ztdata_writer *w, uint32_t type, uint64_t off)
{
	if (w->nr_index == w->cap_index) {
		size_t ncap = w->cap_index ? w->cap_index * 2 : 64;
		struct chunk_ref *n;

		if (ncap > SIZE_MAX / sizeof(*n))
			return -ENOMEM;
		n = realloc(w->index, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->index = n;
		w->cap_index = ncap;
	}
	w->index[w->nr_index++] = (struct chunk_ref){ type, off };
	return 0;
}

/* Append one complete chunk holding payload pl to w->out. */
static int emit_chunk(struct ztdata_writer *w, uint32_t type, const struct zbuf *pl)
{
	size_t raw = pl->len, bound = ZSTD_compressBound(raw), stored;
	uint32_t flags = 0;
	uLong crc;
	uint8_t *h;
	int ret;

	if (pl->err)
		return pl->err;
	if (raw > RAW_MAX)
		return -EFBIG;
	ret = zbuf_reserve(&w->out, CHUNK_HDR + (bound > raw ? bound : raw));
	if (ret)
		return ret;
	ret = index_add(w, type, w->written + w->out.len);
	if (ret)
		return ret;
	h = w->out.data + w->out.len;
	stored = ZSTD_compressCCtx(w->cctx, h + CHUNK_HDR, bound, pl->data, raw, ZSTD_LEVEL);
	if (ZSTD_isError(stored) || stored >= raw) {
		memcpy(h + CHUNK_HDR, pl->data, raw);
		stored = raw;
	} else {
		flags = FLAG_ZSTD;
	}
	put_le32(h, type);
	put_le32(h + 4, flags);
	put_le32(h + 8, (uint32_t)raw);
	put_le32(h + 12, (uint32_t)stored);
	put_le32(h + 16, w->seq);
	crc = crc32(0, h, 20);
	crc = crc32(crc, h + CHUNK_HDR, (uInt)stored);
	put_le32(h + 20, (uint32_t)crc);
	w->out.len += CHUNK_HDR + stored;
	w->seq++;
	return 0;
}

static int seal_rows(struct ztdata_writer *w, int r)
{
	int ret;

	zbuf_reset(&w->payload);
	if (r == R_STACKS)
		zbuf_put_uv(&w->payload, w->stacks_sealed);
	zbuf_put_uv(&w->payload, w->nrows[r]);
	zbuf_put(&w->payload, w->rows[r].data, w->rows[r].len);
	ret = emit_chunk(w, row_type[r], &w->payload);
	if (ret)
		return ret;
	if (r == R_STACKS)
		w->stacks_sealed += (uint32_t)w->nrows[r];
	zbuf_reset(&w->rows[r]);
	w->nrows[r] = 0;
	if (r == R_TASKS)
		w->task_ts = 0;
	if (r == R_MMAPS)
		w->mmap_ts = 0;
	return 0;
}

static int seal_samples(struct ztdata_writer *w)
{
	int i, ret;

	/* every sample's stack goes before it */
	if (w->nrows[R_STACKS]) {
		ret = seal_rows(w, R_STACKS);
		if (ret)
			return ret;
	}
	zbuf_reset(&w->payload);
	zbuf_put_uv(&w->payload, w->nsamples);
	for (i = 0; i < NR_COLS; i++)
		zbuf_put(&w->payload, w->cols[i].data, w->cols[i].len);
	ret = emit_chunk(w, CH_SAMPLES, &w->payload);
	if (ret)
		return ret;
	for (i = 0; i < NR_COLS; i++)
		zbuf_reset(&w->cols[i]);
	w->nsamples = 0;
	w->s_ts = w->s_weight = 0;
	w->s_tid = w->s_stack = 0;
	return 0;
}

/* Everything buffered becomes chunks in w->out, in the documented order. */
static int seal_all(struct ztdata_writer *w)
{
	int r, ret;

	for (r = R_META; r <= R_BLOB; r++) {
		if (w->nrows[r] && (ret = seal_rows(w, r)))
			return ret;
	}
	if (w->lost_samples || w->lost_events) {
		zbuf_reset(&w->payload);
		zbuf_put_uv(&w->payload, w->lost_samples);
		zbuf_put_uv(&w->payload, w->lost_events);
		ret = emit_chunk(w, CH_LOST, &w->payload);
		if (ret)
			return ret;
		w->lost_samples = w->lost_events = 0;
	}
	if (w->nrows[R_STACKS] && (ret = seal_rows(w, R_STACKS)))
		return ret;
	if (w->nsamples && (ret = seal_samples(w)))
		return ret;
	return 0;
}

static int fail(struct ztdata_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return err;
}

static int check_writable(struct ztdata_writer *w)
{
	if (w->err)
		return w->err;
	return w->finished ? -EINVAL : 0;
}

/* A record was appended to rows[r]: check it, seal the buffer when large. */
static int row_done(struct ztdata_writer *w, int r)
{
	if (w->rows[r].err)
		return fail(w, w->rows[r].err);
	w->nrows[r]++;
	if (w->rows[r].len >= SEAL_BYTES) {
		int ret = seal_rows(w, r);

		if (ret)
			return fail(w, ret);
	}
	return 0;
}

struct ztdata_writer *ztdata_writer_new(int fd)
{
	struct ztdata_writer *w = calloc(1, sizeof(*w));
	uint8_t h[FILE_HDR];
	int ret, i;

	if (!w)
		return NULL;
	w->fd = fd;
	for (i = 0; i < NR_ROWS; i++)
		zbuf_init(&w->rows[i]);
	for (i = 0; i < NR_COLS; i++)
		zbuf_init(&w->cols[i]);
	zbuf_init(&w->payload);
	zbuf_init(&w->out);
	profile_init(&w->stacks);
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(h, ZTDATA_MAGIC, 8);
	put_le16(h + 8, ZTDATA_VERSION);
	put_le16(h + 10, 0);
	put_le32(h + 12, FILE_HDR);
	ret = write_all(fd, h, sizeof(h), &w->written);
out:
	if (ret) {
		ztdata_writer_free(w);
		errno = -ret;
		return NULL;
	}
	return w;
}

void ztdata_writer_free(struct ztdata_writer *w)
{
	int i;

	if (!w)
		return;
	for (i = 0; i < NR_ROWS; i++)
		zbuf_release(&w->rows[i]);
	for (i = 0; i < NR_COLS; i++)
		zbuf_release(&w->cols[i]);
	zbuf_release(&w->payload);
	zbuf_release(&w->out);
	profile_release(&w->stacks);
	free(w->index);
	ZSTD_freeCCtx(w->cctx);
	free(w);
}

int ztdata_write_meta(struct ztdata_writer *w, const char *key, const char *value)
{
	struct zbuf *b = &w->rows[R_META];
	int ret = check_writable(w);

	if (ret)
		return ret;
	if (!key)
		return -EINVAL;
	if (strlen(key) > STR_MAX || (value && strlen(value) > STR_MAX))
		return -E2BIG;
	zbuf_put_str(b, key);
	zbuf_put_str(b, value);
	return row_done(w, R_META);
}

int ztdata_write_task(struct ztdata_writer *w, const struct prof_task *t)
{
	struct zbuf *b = &w->rows[R_TASKS];
	int ret = check_writable(w);

	if (ret)
		return ret;
	zbuf_put_uv(b, t->kind);
	zbuf_put_sv(b, (int64_t)(t->ts - w->task_ts));
	w->task_ts = t->ts;
	zbuf_put_uv(b, t->pid);
	zbuf_put_uv(b, t->tid);
	zbuf_put_uv(b, t->ppid);
	zbuf_put_uv(b, t->ptid);
	if (t->kind == PROF_TASK_COMM || t->kind == PROF_TASK_EXEC)
		zbuf_put_bytes(b, t->comm, strnlen(t->comm, ZT_COMM_LEN - 1));
	return row_done(w, R_TASKS);
}

int ztdata_write_mmap(struct ztdata_writer *w, const struct prof_mmap *m)
{
	struct zbuf *b = &w->rows[R_MMAPS];
	uint8_t bid_len = m->build_id.len <= ZT_BUILD_ID_MAX ? m->build_id.len : 0;
	int ret = check_writable(w);

	if (ret)
		return ret;
	if (m->path && strlen(m->path) > STR_MAX)
		return -E2BIG;
	zbuf_put_sv(b, (int64_t)(m->ts - w->mmap_ts));
	w->mmap_ts = m->ts;
	zbuf_put_uv(b, m->pid);
	zbuf_put_uv(b, m->tid);
	zbuf_put_uv(b, m->start);
	zbuf_put_uv(b, m->len);
	zbuf_put_uv(b, m->pgoff);
	zbuf_put_uv(b, m->prot);
	zbuf_put_uv(b, m->flags);
	zbuf_put_bytes(b, m->build_id.data, bid_len);
	zbuf_put_str(b, m->path);
	return row_done(w, R_MMAPS);
}

int ztdata_write_blob(struct ztdata_writer *w, uint32_t kind, uint32_t pid, uint64_t ts,
		      const void *data, size_t len)
{
	struct zbuf *b = &w->rows[R_BLOB];
	int ret = check_writable(w);

	if (ret)
		return ret;
	if (len > BLOB_MAX)
		return -E2BIG;
	if (len && !data)
		return -EINVAL;
	zbuf_put_uv(b, kind);
	zbuf_put_uv(b, pid);
	zbuf_put_uv(b, ts);
	zbuf_put_bytes(b, data, len);
	return row_done(w, R_BLOB);
}

int ztdata_write_lost(struct ztdata_writer *w, uint64_t lost_samples, uint64_t lost_events)
{
	int ret = check_writable(w);

	if (ret)
		return ret;
	w->lost_samples = lost_samples > UINT64_MAX - w->lost_samples ? UINT64_MAX
								       : w->lost_samples + lost_samples;
	w->lost_events = lost_events > UINT64_MAX - w->lost_events ? UINT64_MAX
								   : w->lost_events + lost_events;
	return 0;
}

/* A stack new to the file: frames as one delta chain (neighbours are close). */
static int encode_stack(struct ztdata_writer *w, const uint64_t *ips, unsigned nk, unsigned nu)
{
	struct zbuf *b = &w->rows[R_STACKS];
	unsigned i;

	zbuf_put_uv(b, nk);
	zbuf_put_uv(b, nu);
	for (i = 0; i < nk + nu; i++) {
		if (i)
			zbuf_put_sv(b, (int64_t)(ips[i] - ips[i - 1]));
		else
			zbuf_put_uv(b, ips[0]);
	}
	return row_done(w, R_STACKS);
}

int ztdata_write_sample(struct ztdata_writer *w, uint64_t ts, uint64_t weight, uint32_t pid,
			uint32_t tid, uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu)
{
	static const uint64_t no_ips[1];
	size_t before = w->stacks.nr_stacks, colbytes = 0;
	uint32_t id;
	int ret = check_writable(w), i;

	if (ret)
		return ret;
	if (nk > ZT_MAX_FRAMES || nu > ZT_MAX_FRAMES || (!ips && nk + nu))
		return -EINVAL;
	ret = profile_intern_stack(&w->stacks, ips ? ips : no_ips, nk, nu, &id);
	if (ret)
		return ret;
	if (w->stacks.nr_stacks != before) {
		ret = encode_stack(w, ips, nk, nu);
		if (ret)
			return fail(w, ret);
	}
	zbuf_put_sv(&w->cols[COL_TS], (int64_t)(ts - w->s_ts));
	zbuf_put_sv(&w->cols[COL_TID], (int64_t)tid - w->s_tid);
	zbuf_put_sv(&w->cols[COL_PID], (int64_t)pid - tid);
	zbuf_put_uv(&w->cols[COL_CPU], cpu);
	zbuf_put_sv(&w->cols[COL_STACK], (int64_t)id - w->s_stack);
	zbuf_put_sv(&w->cols[COL_WEIGHT], (int64_t)(weight - w->s_weight));
	w->s_ts = ts;
	w->s_tid = tid;
	w->s_stack = id;
	w->s_weight = weight;
	for (i = 0; i < NR_COLS; i++) {
		if (w->cols[i].err)
			return fail(w, w->cols[i].err);
		colbytes += w->cols[i].len;
	}
	w->nsamples++;
	w->total_samples++;
	if (colbytes >= SEAL_BYTES && (ret = seal_samples(w)))
		return fail(w, ret);
	return 0;
}

size_t ztdata_writer_pending(const struct ztdata_writer *w)
{
	size_t n = w->out.len;
	int i;

	for (i = 0; i < NR_ROWS; i++)
		n += w->rows[i].len;
	for (i = 0; i < NR_COLS; i++)
		n += w->cols[i].len;
	return n;
}

static int write_out(struct ztdata_writer *w)
{
	int ret = write_all(w->fd, w->out.data, w->out.len, &w->written);

	zbuf_reset(&w->out);
	return ret;
}

int ztdata_writer_flush(struct ztdata_writer *w)
{
	int ret;

	if (w->err)
		return w->err;
	if (w->finished)
		return 0;
	ret = seal_all(w);
	if (!ret)
		ret = write_out(w);
	return ret ? fail(w, ret) : 0;
}

int ztdata_writer_finish(struct ztdata_writer *w)
{
	size_t i, n;
	int ret;

	if (w->err)
		return w->err;
	if (w->finished)
		return 0;
	ret = seal_all(w);
	if (ret)
		goto out;
	n = w->nr_index;
	zbuf_reset(&w->payload);
	zbuf_put_uv(&w->payload, n);
	for (i = 0; i < n; i++) {
		zbuf_put_uv(&w->payload, w->index[i].type);
		zbuf_put_uv(&w->payload, w->index[i].off);
	}
	zbuf_put_uv(&w->payload, w->total_samples);
	zbuf_put_uv(&w->payload, w->stacks.nr_stacks);
	ret = emit_chunk(w, CH_INDEX, &w->payload);
	if (ret)
		goto out;
	ret = write_out(w);
	w->finished = 1;
out:
	return ret ? fail(w, ret) : 0;
}

void ztdata_writer_stats(const struct ztdata_writer *w, struct ztdata_stats *st)
{
	st->samples = w->total_samples;
	st->stacks = w->stacks.nr_stacks;
	st->bytes = w->written;
}

/* ---- reader ------------------------------------------------------------ */

struct reader {
	struct profile *p;
	char why[128];         /* what did not decode */
	uint32_t *fmap;        /* file stack id -> profile stack id */
	size_t nr_fmap, cap_fmap;
	uint64_t nr_samples;   /* read from this file */
	uint64_t nr_chunks;    /* chunks before the index, and a hash of their */
	uint64_t chunk_hash;   /* types and offsets, to check the index against */
	uint8_t *buf;          /* decompressed payload */
	size_t cap_buf;
	ZSTD_DCtx *dctx;
	uint64_t ips[2 * ZT_MAX_FRAMES];
};

__attribute__((format(printf, 2, 3)))
static int bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* A uv that must fit in 32 bits. */
static int get_u32(struct zcur *c, uint32_t *v)
{
	uint64_t x;

	if (zcur_uv(c, &x) || x > UINT32_MAX)
		return -EBADMSG;
	*v = (uint32_t)x;
	return 0;
}

/* A string without NULs, pointing into the payload. */
static int get_str(struct zcur *c, const uint8_t **s, size_t *n)
{
	if (zcur_bytes(c, s, n) || memchr(*s, 0, *n))
		return -EBADMSG;
	return 0;
}

/* u32 base plus a signed delta, which must land in [0, limit]. */
static int add_delta(uint32_t base, int64_t d, uint64_t limit, uint32_t *v)
{
	int64_t x;

	if (d > (int64_t)UINT32_MAX || d < -(int64_t)UINT32_MAX)
		return -EBADMSG;
	x = (int64_t)base + d;
	if (x < 0 || (uint64_t)x > limit)
		return -EBADMSG;
	*v = (uint32_t)x;
	return 0;
}

/*
 * Decoders run twice over a payload: first with apply == 0 to validate all
 * of it, then with apply == 1 to add the records, so a bad chunk adds
 * nothing. Bytes after the records are ignored (room for later minors).
 */
static int dec_meta(struct reader *r, struct zcur *c, int apply)
{
	uint64_t n, i;

	if (zcur_uv(c, &n))
		return bad(r, "no record count");
	for (i = 0; i < n; i++) {
		const uint8_t *k, *v;
		size_t kn, vn;
		char *ks, *vs;
		int ret;

		if (get_str(c, &k, &kn) || get_str(c, &v, &vn))
			return bad(r, "meta record %llu does not decode", (unsigned long long)i);
		if (!apply)
			continue;
		ks = strndup((const char *)k, kn);
		vs = strndup((const char *)v, vn);
		ret = ks && vs ? profile_set_meta(r->p, ks, vs) : -ENOMEM;
		free(ks);
		free(vs);
		if (ret)
			return ret;
	}
	return 0;
}

static int dec_tasks(struct reader *r, struct zcur *c, int apply)
{
	uint64_t n, i, ts = 0;

	if (zcur_uv(c, &n))
		return bad(r, "no record count");
	for (i = 0; i < n; i++) {
		struct prof_task t = { 0 };
		const uint8_t *s;
		size_t sn;
		int64_t d;
		int ret;

		if (get_u32(c, &t.kind) || zcur_sv(c, &d) || get_u32(c, &t.pid) ||
		    get_u32(c, &t.tid) || get_u32(c, &t.ppid) || get_u32(c, &t.ptid))
			return bad(r, "task record %llu does not decode", (unsigned long long)i);
		ts += (uint64_t)d;
		t.ts = ts;
		if (t.kind == PROF_TASK_COMM || t.kind == PROF_TASK_EXEC) {
			if (get_str(c, &s, &sn) || sn >= ZT_COMM_LEN)
				return bad(r, "task record %llu: bad comm", (unsigned long long)i);
			memcpy(t.comm, s, sn);
		}
		if (apply && (ret = profile_add_task(r->p, &t)))
			return ret;
	}
	return 0;
}

static int dec_mmaps(struct reader *r, struct zcur *c, int apply)
{
	uint64_t n, i, ts = 0;

	if (zcur_uv(c, &n))
		return bad(r, "no record count");
	for (i = 0; i < n; i++) {
		struct prof_mmap m = { 0 };
		const uint8_t *bid, *path;
		size_t bn, pn;
		int64_t d;
		int ret;

		if (zcur_sv(c, &d) || get_u32(c, &m.pid) || get_u32(c, &m.tid) ||
		    zcur_uv(c, &m.start) || zcur_uv(c, &m.len) || zcur_uv(c, &m.pgoff) ||
		    get_u32(c, &m.prot) || get_u32(c, &m.flags) || zcur_bytes(c, &bid, &bn) ||
		    bn > ZT_BUILD_ID_MAX || get_str(c, &path, &pn))
			return bad(r, "mapping record %llu does not decode", (unsigned long long)i);
		ts += (uint64_t)d;
		m.ts = ts;
		if (!apply)
			continue;
		m.build_id.len = (uint8_t)bn;
		memcpy(m.build_id.data, bid, bn);
		m.path = strndup((const char *)path, pn);
		ret = m.path ? profile_add_mmap(r->p, &m) : -ENOMEM;
		free(m.path);
		if (ret)
			return ret;
	}
	return 0;
}

static int dec_stacks(struct reader *r, struct zcur *c, int apply)
{
	uint64_t first, n, i, nk, nu, ip;
	unsigned j;
	int64_t d;
	int ret;

	if (zcur_uv(c, &first) || zcur_uv(c, &n))
		return bad(r, "no first stack id or count");
	if (first != r->nr_fmap)
		return bad(r, "stacks start at id %llu, expected %zu",
			   (unsigned long long)first, r->nr_fmap);
	if (n > zcur_left(c) / 2)
		return bad(r, "stack count %llu exceeds the payload", (unsigned long long)n);
	for (i = 0; i < n; i++) {
		uint32_t id;

		if (zcur_uv(c, &nk) || zcur_uv(c, &nu) || nk > ZT_MAX_FRAMES || nu > ZT_MAX_FRAMES)
			return bad(r, "stack %llu: bad frame counts", (unsigned long long)(first + i));
		for (j = 0, ip = 0; j < nk + nu; j++) {
			if (j == 0 ? zcur_uv(c, &ip) : zcur_sv(c, &d))
				return bad(r, "stack %llu: frames do not decode",
					   (unsigned long long)(first + i));
			if (j)
				ip += (uint64_t)d;
			r->ips[j] = ip;
		}
		if (!apply)
			continue;
		if (r->nr_fmap == r->cap_fmap) {
			size_t ncap = r->cap_fmap ? r->cap_fmap * 2 : 1024;
			uint32_t *m;

			if (ncap > SIZE_MAX / sizeof(*m))
				return -ENOMEM;
			m = realloc(r->fmap, ncap * sizeof(*m));
			if (!m)
				return -ENOMEM;
			r->fmap = m;
			r->cap_fmap = ncap;
		}
		/* the writer made its stacks unique: appended without a lookup */
		ret = profile_append_stack(r->p, r->ips, (unsigned)nk, (unsigned)nu, &id);
		if (ret == -E2BIG)
			return bad(r, "too many stacks");
		if (ret)
			return ret;
		r->fmap[r->nr_fmap++] = id;
	}
	return 0;
}

static int dec_samples(struct reader *r, struct zcur *c, int apply)
{
	struct zcur col[NR_COLS];
	uint64_t n, i, x;
	uint32_t tid = 0, fid = 0;
	uint64_t ts = 0, weight = 0;
	int k, ret;

	if (zcur_uv(c, &n))
		return bad(r, "no sample count");
	if (n > zcur_left(c) / NR_COLS)
		return bad(r, "sample count %llu exceeds the payload", (unsigned long long)n);
	/* find where each column starts */
	for (k = 0; k < NR_COLS; k++) {
		col[k] = *c;
		for (i = 0; i < n; i++)
			if (zcur_uv(c, &x))
				return bad(r, "sample column %d is short", k);
	}
	for (i = 0; i < n; i++) {
		struct prof_sample s;
		int64_t dts, dtid, dpid, dstack, dw;

		if (zcur_sv(&col[COL_TS], &dts) || zcur_sv(&col[COL_TID], &dtid) ||
		    zcur_sv(&col[COL_PID], &dpid) || get_u32(&col[COL_CPU], &s.cpu) ||
		    zcur_sv(&col[COL_STACK], &dstack) || zcur_sv(&col[COL_WEIGHT], &dw))
			return bad(r, "sample %llu does not decode", (unsigned long long)i);
		ts += (uint64_t)dts;
		weight += (uint64_t)dw;
		if (add_delta(tid, dtid, UINT32_MAX, &tid) || add_delta(tid, dpid, UINT32_MAX, &s.pid))
			return bad(r, "sample %llu: bad pid or tid", (unsigned long long)i);
		if (!r->nr_fmap || add_delta(fid, dstack, r->nr_fmap - 1, &fid))
			return bad(r, "sample %llu: stack id not defined by earlier chunks",
				   (unsigned long long)i);
		if (!apply)
			continue;
		s.ts = ts;
		s.weight = weight;
		s.tid = tid;
		s.stack = r->fmap[fid];
		ret = profile_add_sample(r->p, &s);
		if (ret)
			return ret;
	}
	if (apply)
		r->nr_samples += n;
	return 0;
}

static int dec_blob(struct reader *r, struct zcur *c, int apply)
{
	uint64_t n, i, ts;

	if (zcur_uv(c, &n))
		return bad(r, "no record count");
	for (i = 0; i < n; i++) {
		uint32_t kind, pid;
		const uint8_t *d;
		size_t len;
		int ret;

		if (get_u32(c, &kind) || get_u32(c, &pid) || zcur_uv(c, &ts) ||
		    zcur_bytes(c, &d, &len))
			return bad(r, "blob %llu does not decode", (unsigned long long)i);
		if (apply && (ret = profile_add_blob(r->p, kind, pid, ts, d, len)))
			return ret;
	}
	return 0;
}

static int dec_lost(struct reader *r, struct zcur *c, int apply)
{
	struct profile *p = r->p;
	uint64_t ls, le;

	if (zcur_uv(c, &ls) || zcur_uv(c, &le))
		return bad(r, "lost counters do not decode");
	if (apply) {
		p->lost_samples = ls > UINT64_MAX - p->lost_samples ? UINT64_MAX : p->lost_samples + ls;
		p->lost_events = le > UINT64_MAX - p->lost_events ? UINT64_MAX : p->lost_events + le;
	}
	return 0;
}

static uint64_t hash_chunk(uint64_t h, uint64_t type, uint64_t off)
{
	h = (h ^ type) * 0x100000001b3ull;
	return (h ^ off) * 0x100000001b3ull;
}

static int dec_index(struct reader *r, struct zcur *c, int apply)
{
	uint64_t n, i, type, off, samples, stacks, h = 0;

	if (zcur_uv(c, &n))
		return bad(r, "no chunk count");
	if (n != r->nr_chunks)
		return bad(r, "index lists %llu chunks, the file has %llu",
			   (unsigned long long)n, (unsigned long long)r->nr_chunks);
	for (i = 0; i < n; i++) {
		if (zcur_uv(c, &type) || zcur_uv(c, &off))
			return bad(r, "index entry %llu does not decode", (unsigned long long)i);
		h = hash_chunk(h, type, off);
	}
	if (h != r->chunk_hash)
		return bad(r, "index entries differ from the chunks of the file");
	if (zcur_uv(c, &samples) || zcur_uv(c, &stacks))
		return bad(r, "index totals do not decode");
	if (samples != r->nr_samples || stacks != r->nr_fmap)
		return bad(r, "index totals (%llu samples, %llu stacks) differ from the file's "
			   "(%llu, %zu)", (unsigned long long)samples, (unsigned long long)stacks,
			   (unsigned long long)r->nr_samples, r->nr_fmap);
	return 0;
}

typedef int (*decoder_fn)(struct reader *r, struct zcur *c, int apply);

static decoder_fn decoder(uint32_t type)
{
	switch (type) {
	case CH_META: return dec_meta;
	case CH_TASKS: return dec_tasks;
	case CH_MMAPS: return dec_mmaps;
	case CH_STACKS: return dec_stacks;
	case CH_SAMPLES: return dec_samples;
	case CH_BLOB: return dec_blob;
	case CH_LOST: return dec_lost;
	case CH_INDEX: return dec_index;
	}
	return NULL;
}

static const char *chunk_name(uint32_t type, char *buf, size_t n)
{
	static const char *const names[] = { NULL, "META", "TASKS", "MMAPS", "STACKS",
					     "SAMPLES", "BLOB", "LOST" };

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	if (type == CH_INDEX)
		return "INDEX";
	snprintf(buf, n, "type %u", type);
	return buf;
}

/* The raw payload of a chunk: in the file, or decompressed into r->buf. */
static int chunk_payload(struct reader *r, uint32_t flags, const uint8_t *stored, size_t nstored,
			 size_t raw, const uint8_t **pl)
{
	unsigned long long fsize;
	size_t got;

	if (!raw)
		return bad(r, "empty payload");
	if (!(flags & FLAG_ZSTD)) {
		*pl = stored;
		return 0;
	}
	fsize = ZSTD_getFrameContentSize(stored, nstored);
	if (fsize != raw)
		return bad(r, "zstd frame size does not match the raw length %zu", raw);
	if (raw > r->cap_buf) {
		uint8_t *b = realloc(r->buf, raw);

		if (!b)
			return -ENOMEM;
		r->buf = b;
		r->cap_buf = raw;
	}
	if (!r->dctx && !(r->dctx = ZSTD_createDCtx()))
		return -ENOMEM;
	got = ZSTD_decompressDCtx(r->dctx, r->buf, raw, stored, nstored);
	if (ZSTD_isError(got))
		return bad(r, "does not decompress: %s", ZSTD_getErrorName(got));
	if (got != raw)
		return bad(r, "decompresses to %zu bytes, not %zu", got, raw);
	*pl = r->buf;
	return 0;
}

int ztdata_probe(const void *head, size_t n)
{
	return n >= 8 && !memcmp(head, ZTDATA_MAGIC, 8);
}

static void set_truncated(struct ztdata_read_info *info, uint64_t off)
{
	info->truncated = 1;
	snprintf(info->msg, sizeof(info->msg),
		 "file ends inside chunk %u at offset %llu (recording cut short?): "
		 "using the %u complete chunk%s before it", info->chunks,
		 (unsigned long long)off, info->chunks, info->chunks == 1 ? "" : "s");
}

/*
 * Check the file header: 0 and *hsize, 1 when the file ends inside it, or a
 * negative errno, with info->msg set.
 */
static int read_header(const uint8_t *d, size_t len, struct ztdata_read_info *info,
		       uint32_t *hsize)
{
	unsigned major, minor;

	if (len < 8 || memcmp(d, ZTDATA_MAGIC, 8)) {
		snprintf(info->msg, sizeof(info->msg), len ? "not a zt.data file (bad magic)"
							   : "empty file: not a zt.data file");
		return -EBADMSG;
	}
	if (len < FILE_HDR)
		goto truncated;
	major = get_le16(d + 8);
	minor = get_le16(d + 10);
	*hsize = get_le32(d + 12);
	if (major > ZTDATA_VERSION) {
		snprintf(info->msg, sizeof(info->msg),
			 "zt.data version %u.%u is newer than this zt reads (%u.x): upgrade zt",
			 major, minor, ZTDATA_VERSION);
		return -EPROTONOSUPPORT;
	}
	if (major == 0 || *hsize < FILE_HDR || *hsize > FILE_HDR_MAX) {
		snprintf(info->msg, sizeof(info->msg),
			 "bad file header (version %u.%u, header size %u): not a zt.data file",
			 major, minor, *hsize);
		return -EBADMSG;
	}
	if (*hsize <= len)
		return 0;
truncated:
	info->truncated = 1;
	snprintf(info->msg, sizeof(info->msg),
		 "file ends inside the file header (recording cut short?): no records");
	return 1;
}

/*
 * Read the chunk at *off: 0 and *off moved past it, 1 when reading stops
 * (truncation or the index; info says which), or a negative errno with the
 * reason in r->why.
 */
static int read_chunk(struct reader *r, const uint8_t *d, size_t len, uint64_t *off,
		      struct ztdata_read_info *info)
{
	const uint8_t *h = d + *off, *pl = NULL;
	uint64_t left = len - *off;
	uint32_t type, flags, raw, stored, seq, crc;
	decoder_fn dec;
	struct zcur c;
	int ret;

	if (left < CHUNK_HDR) {
		set_truncated(info, *off);
		return 1;
	}
	type = get_le32(h);
	flags = get_le32(h + 4);
	raw = get_le32(h + 8);
	stored = get_le32(h + 12);
	seq = get_le32(h + 16);
	crc = get_le32(h + 20);
	if (raw > RAW_MAX)
		return bad(r, "raw length %u is over the 256 MiB limit", raw);
	if (stored > left - CHUNK_HDR) {
		set_truncated(info, *off);
		return 1;
	}
	if (crc != (uint32_t)crc32(crc32(0, h, 20), h + CHUNK_HDR, stored))
		return bad(r, "checksum mismatch (file damaged?)");
	if (seq != info->chunks)
		return bad(r, "sequence number %u, expected %u", seq, info->chunks);
	if (flags & ~FLAG_ZSTD)
		return bad(r, "unknown flags 0x%x", flags);
	if (!(flags & FLAG_ZSTD) && stored != raw)
		return bad(r, "stored length %u differs from raw length %u", stored, raw);
	if (type != CH_INDEX) {
		r->nr_chunks++;
		r->chunk_hash = hash_chunk(r->chunk_hash, type, *off);
	}
	dec = decoder(type);
	if (!dec) {
		info->skipped++;
	} else {
		ret = chunk_payload(r, flags, h + CHUNK_HDR, stored, raw, &pl);
		if (ret)
			return ret;
		zcur_init(&c, pl, raw);
		ret = dec(r, &c, 0);
		if (ret)
			return ret;
		if (type != CH_INDEX) {
			zcur_init(&c, pl, raw);
			ret = dec(r, &c, 1);
			if (ret)
				return ret;
		}
	}
	info->chunks++;
	*off += CHUNK_HDR + stored;
	info->good_end = *off;
	if (type != CH_INDEX)
		return 0;
	info->complete = 1;
	if (*off < len)
		snprintf(info->msg, sizeof(info->msg),
			 "ignoring %llu bytes after the index chunk at offset %llu",
			 (unsigned long long)(len - *off), (unsigned long long)*off);
	return 1;
}

int ztdata_read_mem(const void *data, size_t len, struct profile *p, struct ztdata_read_info *info)
{
	struct ztdata_read_info dummy;
	const uint8_t *d = data;
	struct reader *r = NULL;
	uint32_t hsize = 0;
	uint64_t off;
	char tbuf[24];
	int ret;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	info->size = len;
	ret = read_header(d, len, info, &hsize);
	if (ret)
		return ret < 0 ? ret : 0;
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(info->msg, sizeof(info->msg), "out of memory");
		return -ENOMEM;
	}
	r->p = p;
	off = hsize;
	info->good_end = off;
	while (off < len && !(ret = read_chunk(r, d, len, &off, info)))
		;
	if (ret == -ENOMEM)
		snprintf(info->msg, sizeof(info->msg), "out of memory reading chunk %u at offset %llu",
			 info->chunks, (unsigned long long)off);
	else if (ret < 0)
		snprintf(info->msg, sizeof(info->msg), "chunk %u (%s) at offset %llu: %s",
			 info->chunks, chunk_name(get_le32(d + off), tbuf, sizeof(tbuf)),
			 (unsigned long long)off, r->why);
	else if (!info->complete && !info->truncated)
		snprintf(info->msg, sizeof(info->msg),
			 "no index chunk: the recording did not finish (recorder killed?): "
			 "using the %u chunk%s written", info->chunks, info->chunks == 1 ? "" : "s");
	free(r->fmap);
	free(r->buf);
	ZSTD_freeDCtx(r->dctx);
	free(r);
	return ret < 0 ? ret : 0;
}

int ztdata_read_file(const char *path, struct profile *p, struct ztdata_read_info *info)
{
	struct ztdata_read_info dummy;
	struct zt_image img;
	const char *what;
	int ret;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	ret = zt_image_open(path, &img, &what);
	if (!ret && img.is_dir)
		ret = -EISDIR;
	if (ret)
		snprintf(info->msg, sizeof(info->msg), "cannot %s '%s': %s", what, path, strerror(-ret));
	else
		ret = ztdata_read_mem(img.data, img.len, p, info);
	zt_image_close(&img);
	return ret;
}
