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
#include "formats/ztdata_gpu.h"
#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/htab.h"
#include "libprof/le.h"
#include "libprof/zbuf.h"

#define ZTDATA_MINOR 5 /* 1.1: USTACKS chunks; 1.2: GPU chunks; 1.3: EVENTS, event column;
			  1.4: RAWS chunks, tracepoint format blobs; 1.5: PYCODES chunks */
#define FILE_HDR 16
#define FILE_HDR_MAX 65536     /* a later minor version may grow the header */
#define CHUNK_HDR 24
#define RAW_MAX (256u << 20)   /* uncompressed payload cap */
#define SEAL_BYTES (16u << 20) /* a buffer this large becomes a chunk at once */
#define STR_MAX	     (16u << 20) /* meta values, paths */
#define ZSTD_LEVEL 3
#define FLAG_ZSTD 1u
#define UREF_MAX 256           /* how far back a snapshot may refer, in entries */
#define UREGS_ALL ((1u << PROF_UREGS) - 1)

enum {
	CH_META = 1,
	CH_TASKS = 2,
	CH_MMAPS = 3,
	CH_STACKS = 4,
	CH_SAMPLES = 5,
	CH_BLOB = 6,
	CH_LOST = 7,
	CH_USTACKS = 8,
	CH_GPU_LUSTACKS = 16, /* snapshots of GPU launch stacks (--call-graph dwarf) */
	CH_EVENTS = 17,       /* the event table (version 1.3) */
	CH_RAWS = 18,         /* samples' raw records (version 1.4) */
	CH_PYCODES = 19,      /* Python code objects (version 1.5) */
	CH_INDEX = 255,
};

/* Sample columns, in file order. */
enum { COL_TS, COL_TID, COL_PID, COL_CPU, COL_STACK, COL_WEIGHT, NR_COLS };

/* Row-encoded kinds buffered by the writer, in flush order. */
enum { R_META, R_EVENTS, R_TASKS, R_MMAPS, R_BLOB, R_PYCODES, R_STACKS, NR_ROWS };
static const uint32_t row_type[NR_ROWS] = { CH_META, CH_EVENTS, CH_TASKS,   CH_MMAPS,
					    CH_BLOB, CH_PYCODES, CH_STACKS };

/* The fewest bytes a PYCODES entry takes: nine one-byte varints. */
#define PYCODE_MIN_BYTES 9

struct chunk_ref {
	uint32_t type;
	uint64_t off;
};

/* The last snapshot of a thread in the USTACKS chunk being built. */
struct uslot {
	uint32_t tid, used;
	uint64_t entry;   /* its number in the chunk */
	uint64_t regs[PROF_UREGS]; /* absent ones 0 */
};

/* A snapshot's bytes, as given or decoded, kept while later ones may refer
 * to it: the last UREF_MAX of a chunk, entry i in ring slot i % UREF_MAX. */
struct ubytes {
	uint8_t *d;
	size_t len, cap;
};

static int ubytes_set(struct ubytes *u, const void *d, size_t len)
{
	if (len > u->cap) {
		uint8_t *n = realloc(u->d, len);

		if (!n)
			return -ENOMEM;
		u->d = n;
		u->cap = len;
	}
	if (len)
		memcpy(u->d, d, len);
	u->len = len;
	return 0;
}

/*
 * The longest run of 8-byte words that snapshot a (la bytes at address sa)
 * has in common with snapshot b at the same addresses: *skip, *copy bytes
 * into a. 0 when there is none worth it (two words).
 */
static int ustack_common(const uint8_t *a, uint64_t sa, size_t la, const uint8_t *b, uint64_t sb,
			 size_t lb, size_t *skip, size_t *copy)
{
	uint64_t ea = sa + la, eb = sb + lb, lo, hi;
	size_t nw, w, run = 0, best = 0, at = 0;
	const uint8_t *x, *y;

	if (ea < sa || eb < sb)
		return 0;
	lo = sa > sb ? sa : sb;
	hi = ea < eb ? ea : eb;
	if (lo >= hi)
		return 0;
	x = a + (lo - sa);
	y = b + (lo - sb);
	nw = (size_t)(hi - lo) / 8;
	for (w = 0; w <= nw; w++) {
		if (w < nw && !memcmp(x + 8 * w, y + 8 * w, 8)) {
			run++;
			continue;
		}
		if (run > best) {
			best = run;
			at = w - run;
		}
		run = 0;
	}
	if (best < 2)
		return 0;
	*skip = (size_t)(lo - sa) + 8 * at;
	*copy = 8 * best;
	return 1;
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
	uint32_t nr_events, events_sealed; /* events written, and of them in chunks */
	uint32_t nr_pycodes, pycodes_sealed; /* code objects written, and of them in chunks */
	uint64_t py_ts, py_addr;       /* delta bases within the current PYCODES chunk */
	struct zbuf cols[NR_COLS];
	struct zbuf ecol;              /* the event column of the samples in cols */
	int s_events;                  /* ... written: a sample in it has an event but 0 */
	uint64_t nsamples;             /* samples in cols */
	uint64_t s_ts, s_weight;       /* delta bases within the current chunk */
	uint32_t s_tid, s_stack;
	uint64_t total_samples;
	uint32_t last_tid;             /* of the last sample */
	/* stack snapshots, sealed after the samples they belong to */
	struct zbuf uhdr, udata;       /* entry headers; entry bytes as stored */
	struct zbuf ucols[PROF_UREGS]; /* register values, one column per register */
	struct ubytes *uring;          /* the last UREF_MAX entries as given (NULL until used) */
	uint64_t nustacks;             /* entries in uhdr */
	uint64_t u_sample;             /* delta base: the previous entry's sample */
	uint64_t u_next;               /* a snapshot may go to samples from this index on */
	struct uslot *uslots;          /* one per thread */
	size_t nr_uslots, cap_uslots;
	struct zt_htab uslot_hash;     /* uslots by tid */
	struct zbuf payload;           /* scratch: one chunk's raw payload */
	struct zbuf out;               /* complete chunks not yet written */
	struct chunk_ref *index;
	size_t nr_index, cap_index;
	ZSTD_CCtx *cctx;
	struct ztd_gpu_writer *gpu; /* GPU records (NULL until the first) */
	/* stack snapshots of GPU launches (GPU_LUSTACKS), sealed after the
	 * GPU_LAUNCHES chunk of their launches */
	struct zbuf lus;
	uint64_t nlus;          /* entries in lus */
	/* raw records of samples (RAWS), sealed after the samples they belong to */
	struct zbuf rawhdr, rawdata; /* entry headers; the records' bytes */
	uint64_t nraws;         /* entries in rawhdr */
	uint64_t raw_base;      /* delta base: the previous entry's sample */
	uint64_t raw_next;      /* a raw record may go to samples from this index on */
	uint64_t lus_base;      /* delta base: the previous entry's launch */
	uint64_t nlaunches;     /* launches put so far: the next one's index in the file */
	uint64_t lus_launch;    /* the launch a snapshot may go to, + 1 (0: none) */
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
	zt_put_le(h, type, 4);
	zt_put_le(h + 4, flags, 4);
	zt_put_le(h + 8, (uint32_t)raw, 4);
	zt_put_le(h + 12, (uint32_t)stored, 4);
	zt_put_le(h + 16, w->seq, 4);
	crc = crc32(0, h, 20);
	crc = crc32(crc, h + CHUNK_HDR, (uInt)stored);
	zt_put_le(h + 20, (uint32_t)crc, 4);
	w->out.len += CHUNK_HDR + stored;
	w->seq++;
	return 0;
}

static int seal_rows(struct ztdata_writer *w, int r)
{
	int ret;

	/* the code objects that Python frames of the stacks name go first */
	if (r == R_STACKS && w->nrows[R_PYCODES] && (ret = seal_rows(w, R_PYCODES)))
		return ret;
	zbuf_reset(&w->payload);
	if (r == R_STACKS)
		zbuf_put_uv(&w->payload, w->stacks_sealed);
	if (r == R_EVENTS)
		zbuf_put_uv(&w->payload, w->events_sealed);
	if (r == R_PYCODES)
		zbuf_put_uv(&w->payload, w->pycodes_sealed);
	zbuf_put_uv(&w->payload, w->nrows[r]);
	zbuf_put(&w->payload, w->rows[r].data, w->rows[r].len);
	ret = emit_chunk(w, row_type[r], &w->payload);
	if (ret)
		return ret;
	if (r == R_STACKS)
		w->stacks_sealed += (uint32_t)w->nrows[r];
	if (r == R_EVENTS)
		w->events_sealed += (uint32_t)w->nrows[r];
	if (r == R_PYCODES)
		w->pycodes_sealed += (uint32_t)w->nrows[r];
	zbuf_reset(&w->rows[r]);
	w->nrows[r] = 0;
	if (r == R_TASKS)
		w->task_ts = 0;
	if (r == R_MMAPS)
		w->mmap_ts = 0;
	if (r == R_PYCODES)
		w->py_ts = w->py_addr = 0;
	return 0;
}

static int seal_ustacks(struct ztdata_writer *w)
{
	int ret, i;

	zbuf_reset(&w->payload);
	zbuf_put_uv(&w->payload, w->nustacks);
	zbuf_put(&w->payload, w->uhdr.data, w->uhdr.len);
	for (i = 0; i < PROF_UREGS; i++)
		zbuf_put(&w->payload, w->ucols[i].data, w->ucols[i].len);
	zbuf_put(&w->payload, w->udata.data, w->udata.len);
	ret = emit_chunk(w, CH_USTACKS, &w->payload);
	if (ret)
		return ret;
	zbuf_reset(&w->uhdr);
	zbuf_reset(&w->udata);
	for (i = 0; i < PROF_UREGS; i++)
		zbuf_reset(&w->ucols[i]);
	w->nustacks = 0;
	w->u_sample = 0;
	w->nr_uslots = 0;
	zt_htab_clear(&w->uslot_hash);
	return 0;
}

/* RAWS: the entries' headers (sample index delta, length), then their bytes. */
static int seal_raws(struct ztdata_writer *w)
{
	int ret;

	zbuf_reset(&w->payload);
	zbuf_put_uv(&w->payload, w->nraws);
	zbuf_put(&w->payload, w->rawhdr.data, w->rawhdr.len);
	zbuf_put(&w->payload, w->rawdata.data, w->rawdata.len);
	if (w->rawhdr.err || w->rawdata.err)
		return -ENOMEM;
	ret = emit_chunk(w, CH_RAWS, &w->payload);
	if (ret)
		return ret;
	zbuf_reset(&w->rawhdr);
	zbuf_reset(&w->rawdata);
	w->nraws = 0;
	w->raw_base = 0;
	return 0;
}

/* Stacks, samples, then the snapshots and raw records of those samples
 * (and of samples in earlier chunks). */
static int seal_samples(struct ztdata_writer *w)
{
	int i, ret;

	/* every sample's event and stack go before it */
	if (w->nrows[R_EVENTS] && (ret = seal_rows(w, R_EVENTS)))
		return ret;
	if (w->nrows[R_STACKS]) {
		ret = seal_rows(w, R_STACKS);
		if (ret)
			return ret;
	}
	if (w->nsamples) {
		zbuf_reset(&w->payload);
		zbuf_put_uv(&w->payload, w->nsamples);
		for (i = 0; i < NR_COLS; i++)
			zbuf_put(&w->payload, w->cols[i].data, w->cols[i].len);
		/* 1.3: the event column, when a sample is not of event 0 */
		if (w->s_events)
			zbuf_put(&w->payload, w->ecol.data, w->ecol.len);
		if (w->ecol.err)
			return w->ecol.err;
		ret = emit_chunk(w, CH_SAMPLES, &w->payload);
		if (ret)
			return ret;
		for (i = 0; i < NR_COLS; i++)
			zbuf_reset(&w->cols[i]);
		zbuf_reset(&w->ecol);
		w->s_events = 0;
		w->nsamples = 0;
		w->s_ts = w->s_weight = 0;
		w->s_tid = w->s_stack = 0;
	}
	if (w->nustacks && (ret = seal_ustacks(w)))
		return ret;
	if (w->nraws && (ret = seal_raws(w)))
		return ret;
	return 0;
}

/* The GPU chunk of type, if anything is buffered for it; launches after
 * the stacks they name. */
static int seal_gpu(struct ztdata_writer *w, uint32_t type)
{
	int ret;

	if (!ztd_gpu_pending(w->gpu, type))
		return 0;
	if (type == ZTD_GPU_LAUNCHES && w->nrows[R_STACKS] && (ret = seal_rows(w, R_STACKS)))
		return ret;
	ret = ztd_gpu_seal(w->gpu, type, &w->payload);
	if (!ret && w->payload.len)
		ret = emit_chunk(w, type, &w->payload);
	return ret;
}

/* The launch snapshots, after the launches they belong to. */
static int seal_lus(struct ztdata_writer *w)
{
	int ret;

	if (!w->nlus)
		return 0;
	if (w->gpu && (ret = seal_gpu(w, ZTD_GPU_LAUNCHES)))
		return ret;
	zbuf_reset(&w->payload);
	zbuf_put_uv(&w->payload, w->nlus);
	zbuf_put(&w->payload, w->lus.data, w->lus.len);
	if (w->lus.err || w->payload.err)
		return -ENOMEM;
	ret = emit_chunk(w, CH_GPU_LUSTACKS, &w->payload);
	zbuf_reset(&w->lus);
	w->nlus = 0;
	w->lus_base = 0;
	return ret;
}

/* Everything buffered becomes chunks in w->out, in the documented order. */
static int seal_all(struct ztdata_writer *w)
{
	uint32_t t;
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
	if (w->nrows[R_PYCODES] && (ret = seal_rows(w, R_PYCODES)))
		return ret;
	if (w->nrows[R_STACKS] && (ret = seal_rows(w, R_STACKS)))
		return ret;
	if ((w->nsamples || w->nustacks || w->nraws) && (ret = seal_samples(w)))
		return ret;
	for (t = ZTD_GPU_FIRST; w->gpu && t <= ZTD_GPU_LAST; t++)
		if ((ret = seal_gpu(w, t)))
			return ret;
	return seal_lus(w);
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
	zbuf_init(&w->ecol);
	zbuf_init(&w->payload);
	zbuf_init(&w->out);
	zbuf_init(&w->uhdr);
	zbuf_init(&w->udata);
	zbuf_init(&w->rawhdr);
	zbuf_init(&w->rawdata);
	for (i = 0; i < PROF_UREGS; i++)
		zbuf_init(&w->ucols[i]);
	profile_init(&w->stacks);
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(h, ZTDATA_MAGIC, 8);
	zt_put_le(h + 8, ZTDATA_VERSION, 2);
	zt_put_le(h + 10, ZTDATA_MINOR, 2);
	zt_put_le(h + 12, FILE_HDR, 4);
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
	zbuf_release(&w->ecol);
	zbuf_release(&w->payload);
	zbuf_release(&w->lus);
	zbuf_release(&w->out);
	zbuf_release(&w->uhdr);
	zbuf_release(&w->udata);
	zbuf_release(&w->rawhdr);
	zbuf_release(&w->rawdata);
	for (i = 0; w->uring && i < UREF_MAX; i++)
		free(w->uring[i].d);
	free(w->uring);
	for (i = 0; i < PROF_UREGS; i++)
		zbuf_release(&w->ucols[i]);
	free(w->uslots);
	zt_htab_release(&w->uslot_hash);
	profile_release(&w->stacks);
	free(w->index);
	ZSTD_freeCCtx(w->cctx);
	ztd_gpu_writer_free(w->gpu);
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

int ztdata_write_event(struct ztdata_writer *w, const struct prof_event *e)
{
	struct zbuf *b = &w->rows[R_EVENTS];
	int ret = check_writable(w);

	if (ret)
		return ret;
	if (e->name && strlen(e->name) > STR_MAX)
		return -E2BIG;
	if (w->nr_events >= UINT32_MAX - 1)
		return -ENOMEM;
	zbuf_put_str(b, e->name);
	zbuf_put_uv(b, e->type);
	zbuf_put_uv(b, e->config);
	zbuf_put_uv(b, e->period);
	zbuf_put_uv(b, e->flags);
	ret = row_done(w, R_EVENTS);
	if (!ret)
		w->nr_events++;
	return ret;
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
	if (len > PROF_BLOB_MAX)
		return -E2BIG;
	if (len && !data)
		return -EINVAL;
	zbuf_put_uv(b, kind);
	zbuf_put_uv(b, pid);
	zbuf_put_uv(b, ts);
	zbuf_put_bytes(b, data, len);
	return row_done(w, R_BLOB);
}

/*
 * PYCODES: a code object's record (zt-data(5)); the writer numbers them in
 * the order written, as the reader does in file order.
 */
int ztdata_write_pycode(struct ztdata_writer *w, const struct prof_pycode *c, uint32_t *idx)
{
	struct zbuf *b = &w->rows[R_PYCODES];
	const char *qn = c->qualname ? c->qualname : "", *fn = c->filename ? c->filename : "";
	int ret = check_writable(w);

	if (ret)
		return ret;
	if (c->linetable_len && !c->linetable)
		return -EINVAL;
	if (strlen(qn) > ZTDATA_PY_QUALNAME_MAX || strlen(fn) > ZTDATA_PY_FILENAME_MAX ||
	    c->linetable_len > PROF_PY_LINETABLE_MAX || w->nr_pycodes >= UINT32_MAX - 1)
		return -E2BIG;
	zbuf_put_sv(b, (int64_t)(c->ts - w->py_ts));
	zbuf_put_uv(b, c->pid);
	zbuf_put_sv(b, (int64_t)(c->addr - w->py_addr));
	zbuf_put_uv(b, c->minor);
	zbuf_put_uv(b, c->flags);
	zbuf_put_sv(b, c->firstlineno);
	zbuf_put_str(b, qn);
	zbuf_put_str(b, fn);
	zbuf_put_bytes(b, c->linetable, c->linetable_len);
	w->py_ts = c->ts;
	w->py_addr = c->addr;
	if (idx)
		*idx = w->nr_pycodes;
	ret = row_done(w, R_PYCODES);
	if (!ret)
		w->nr_pycodes++;
	return ret;
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

/* The file's id of a stack, written in the next STACKS chunk when new. */
static int intern_stack(struct ztdata_writer *w, const uint64_t *ips, unsigned nk, unsigned nu,
			uint32_t *id)
{
	static const uint64_t no_ips[1];
	size_t before = w->stacks.nr_stacks;
	int ret;

	if (nk > ZT_MAX_FRAMES || nu > ZT_MAX_FRAMES || (!ips && nk + nu))
		return -EINVAL;
	ret = profile_intern_stack(&w->stacks, ips ? ips : no_ips, nk, nu, id);
	if (ret)
		return ret;
	if (w->stacks.nr_stacks != before && (ret = encode_stack(w, ips, nk, nu)))
		return fail(w, ret);
	return 0;
}

int ztdata_write_sample(struct ztdata_writer *w, uint64_t ts, uint64_t weight, uint32_t pid,
			uint32_t tid, uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu)
{
	return ztdata_write_sample_ev(w, 0, ts, weight, pid, tid, cpu, ips, nk, nu);
}

int ztdata_write_sample_ev(struct ztdata_writer *w, uint32_t event, uint64_t ts, uint64_t weight,
			   uint32_t pid, uint32_t tid, uint32_t cpu, const uint64_t *ips,
			   unsigned nk, unsigned nu)
{
	size_t colbytes = 0;
	uint32_t id;
	int ret = check_writable(w), i;

	if (ret)
		return ret;
	if (event && event >= w->nr_events)
		return -EINVAL;
	ret = intern_stack(w, ips, nk, nu, &id);
	if (ret)
		return ret;
	zbuf_put_sv(&w->cols[COL_TS], (int64_t)(ts - w->s_ts));
	zbuf_put_sv(&w->cols[COL_TID], (int64_t)tid - w->s_tid);
	zbuf_put_sv(&w->cols[COL_PID], (int64_t)pid - tid);
	zbuf_put_uv(&w->cols[COL_CPU], cpu);
	zbuf_put_sv(&w->cols[COL_STACK], (int64_t)id - w->s_stack);
	zbuf_put_sv(&w->cols[COL_WEIGHT], (int64_t)(weight - w->s_weight));
	zbuf_put_uv(&w->ecol, event);
	w->s_events |= event != 0;
	w->s_ts = ts;
	w->s_tid = tid;
	w->last_tid = tid;
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

static uint64_t uslot_hash(uint32_t tid)
{
	return (tid * 0x9e3779b97f4a7c15ull) >> 32;
}

static inline uint64_t uslot_hash_at(const void *w, uint32_t i)
{
	return uslot_hash(((const struct ztdata_writer *)w)->uslots[i].tid);
}

/* The slot of thread tid in the chunk being built (a new unused one if it
 * has none yet), or NULL without memory. */
static struct uslot *uslot_get(struct ztdata_writer *w, uint32_t tid)
{
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&w->uslot_hash, 1, uslot_hash_at, w))
		return NULL;
	for (j = zt_htab_first(&w->uslot_hash, uslot_hash(tid)); zt_htab_get(&w->uslot_hash, j, &i);
	     j = zt_htab_next(&w->uslot_hash, j))
		if (w->uslots[i].tid == tid)
			return &w->uslots[i];
	if (w->nr_uslots >= UINT32_MAX - 1 || ZT_GROW(w->uslots, w->cap_uslots, w->nr_uslots + 1))
		return NULL;
	memset(&w->uslots[w->nr_uslots], 0, sizeof(*w->uslots));
	w->uslots[w->nr_uslots].tid = tid;
	zt_htab_set(&w->uslot_hash, j, (uint32_t)w->nr_uslots);
	return &w->uslots[w->nr_uslots++];
}

/* Bytes buffered for the USTACKS chunk. */
static size_t ustack_pending(const struct ztdata_writer *w)
{
	size_t n = w->uhdr.len + w->udata.len;
	int i;

	for (i = 0; i < PROF_UREGS; i++)
		n += w->ucols[i].len;
	return n;
}

/*
 * A snapshot refers to the thread's previous one in the same chunk: the
 * registers that did not change and the longest run of stack words that
 * did not change at the same addresses (often the outer frames, the
 * environment and the auxiliary vector at the top) are not stored again.
 * What is stored stays as it was, where zstd finds it in earlier snapshots
 * (XOR against the previous snapshot measured worse: see zt-data(5)).
 */
int ztdata_write_ustack(struct ztdata_writer *w, uint32_t regs_mask, const uint64_t *regs,
			const void *stack, size_t len)
{
	uint64_t idx, v[PROF_UREGS], ref = 0;
	uint32_t same = 0;
	size_t skip = 0, copy = 0;
	struct uslot *slot;
	struct ubytes *prev;
	int ret = check_writable(w), i;

	if (ret)
		return ret;
	if (!w->total_samples || w->total_samples - 1 < w->u_next || (regs_mask & ~UREGS_ALL) ||
	    (regs_mask && !regs) || (len && !stack))
		return -EINVAL;
	if (len > PROF_USTACK_MAX)
		return -E2BIG;
	idx = w->total_samples - 1;
	for (i = 0; i < PROF_UREGS; i++)
		v[i] = regs_mask & (1u << i) ? regs[i] : 0;
	if (!w->uring && !(w->uring = calloc(UREF_MAX, sizeof(*w->uring))))
		return -ENOMEM;
	slot = uslot_get(w, w->last_tid);
	if (!slot)
		return -ENOMEM;
	if (slot->used && w->nustacks - slot->entry <= UREF_MAX) {
		ref = w->nustacks - slot->entry;
		prev = &w->uring[slot->entry % UREF_MAX];
		for (i = 0; i < PROF_UREGS; i++)
			if ((regs_mask & (1u << i)) && v[i] == slot->regs[i])
				same |= 1u << i;
		ustack_common(stack, v[PROF_UREG_SP], len, prev->d, slot->regs[PROF_UREG_SP], prev->len,
			      &skip, &copy);
	}
	zbuf_put_uv(&w->uhdr, idx - w->u_sample);
	zbuf_put_uv(&w->uhdr, ref);
	zbuf_put_uv(&w->uhdr, regs_mask);
	zbuf_put_uv(&w->uhdr, same);
	zbuf_put_uv(&w->uhdr, len);
	if (ref) {
		zbuf_put_uv(&w->uhdr, skip);
		zbuf_put_uv(&w->uhdr, copy);
	}
	for (i = 0; i < PROF_UREGS; i++)
		if ((regs_mask & ~same) & (1u << i))
			zbuf_put_u64le(&w->ucols[i], v[i]);
	zbuf_put(&w->udata, stack, skip);
	zbuf_put(&w->udata, (const uint8_t *)stack + skip + copy, len - skip - copy);
	/* after the comparison: with ref == UREF_MAX it is the same slot */
	ret = ubytes_set(&w->uring[w->nustacks % UREF_MAX], stack, len);
	ret |= w->uhdr.err | w->udata.err;
	for (i = 0; i < PROF_UREGS; i++)
		ret |= w->ucols[i].err;
	if (ret)
		return fail(w, -ENOMEM);
	*slot = (struct uslot){ w->last_tid, 1, w->nustacks, { 0 } };
	memcpy(slot->regs, v, sizeof(v));
	w->nustacks++;
	w->u_sample = idx;
	w->u_next = idx + 1;
	if (ustack_pending(w) >= SEAL_BYTES && (ret = seal_samples(w)))
		return fail(w, ret);
	return 0;
}

int ztdata_write_raw(struct ztdata_writer *w, const void *data, size_t len)
{
	uint64_t idx;
	int ret = check_writable(w);

	if (ret)
		return ret;
	if (!w->total_samples || w->total_samples - 1 < w->raw_next || (len && !data))
		return -EINVAL;
	if (len > PROF_RAW_MAX)
		return -E2BIG;
	idx = w->total_samples - 1;
	zbuf_put_uv(&w->rawhdr, idx - w->raw_base);
	zbuf_put_uv(&w->rawhdr, len);
	zbuf_put(&w->rawdata, data, len);
	if (w->rawhdr.err || w->rawdata.err)
		return fail(w, -ENOMEM);
	w->nraws++;
	w->raw_base = idx;
	w->raw_next = idx + 1;
	if (w->rawhdr.len + w->rawdata.len >= SEAL_BYTES && (ret = seal_samples(w)))
		return fail(w, ret);
	return 0;
}

/* ---- GPU records ---- */

/* A GPU record was put (ret: how it went): the chunk sealed when large. */
static int gpu_done(struct ztdata_writer *w, uint32_t type, int ret)
{
	if (ret < 0)
		return fail(w, ret);
	if (ztd_gpu_pending(w->gpu, type) >= SEAL_BYTES && (ret = seal_gpu(w, type)))
		return fail(w, ret);
	return 0;
}

static int gpu_writable(struct ztdata_writer *w)
{
	int ret = check_writable(w);

	if (!ret && !w->gpu && !(w->gpu = ztd_gpu_writer_new()))
		ret = -ENOMEM;
	return ret;
}

/* Everything ztdata_write_gpu() refuses, before it writes anything. */
static int check_gpu(const struct prof_gpu *g, const struct profile *stacks)
{
	size_t i;

	for (i = 0; i < prof_gpu_nr_strs(g); i++)
		if (zt_strtab_len(&g->strs, (uint32_t)i) > ZTD_GPU_STR_MAX)
			return -E2BIG;
	for (i = 0; i < g->nr_cubins; i++)
		if (g->cubins[i].len > ZTD_GPU_CUBIN_MAX || (g->cubins[i].len && !g->cubins[i].data))
			return g->cubins[i].data ? -E2BIG : -EINVAL;
	for (i = 0; i < g->nr_launches; i++) {
		uint32_t id = g->launches[i].stack;

		if (id != PROF_GPU_NO_STACK &&
		    (!stacks || id >= stacks->nr_stacks || stacks->stacks[id].nk > ZT_MAX_FRAMES ||
		     stacks->stacks[id].nu > ZT_MAX_FRAMES))
			return -EINVAL;
	}
	return 0;
}

static int write_gpu_launch(struct ztdata_writer *w, const struct prof_gpu_launch *l,
			    const uint64_t *ips, unsigned nk, unsigned nu, int has_stack)
{
	uint32_t id = PROF_GPU_NO_STACK;
	int ret = 0;

	if (has_stack)
		ret = intern_stack(w, ips, nk, nu, &id);
	if (!ret)
		ret = ztd_gpu_put_launch(w->gpu, l, id);
	if (!ret)
		w->nlaunches++;
	w->lus_launch = 0;
	return gpu_done(w, ZTD_GPU_LAUNCHES, ret);
}

int ztdata_write_gpu(struct ztdata_writer *w, const struct prof_gpu *g,
		     const struct profile *stacks)
{
	const char *(*str)(const struct prof_gpu *, uint32_t) = prof_gpu_str;
	size_t i;
	int ret;

	if (!g)
		return check_writable(w);
	if ((ret = check_gpu(g, stacks)) || (ret = gpu_writable(w)))
		return ret;
	for (i = 0; !ret && i < g->nr_stalls; i++)
		ret = gpu_done(w, ZTD_GPU_META,
			       ztd_gpu_put_stall(w->gpu, &g->stalls[i], str(g, g->stalls[i].name)));
	for (i = 0; !ret && i < g->nr_counters; i++)
		ret = gpu_done(w, ZTD_GPU_META, ztd_gpu_put_counters(w->gpu, &g->counters[i]));
	for (i = 0; !ret && i < g->nr_infos; i++)
		ret = gpu_done(w, ZTD_GPU_META,
			       ztd_gpu_put_info(w->gpu, g->infos[i].pid, str(g, g->infos[i].key),
						str(g, g->infos[i].value)));
	for (i = 0; !ret && i < g->nr_cubins; i++)
		ret = gpu_done(w, ZTD_GPU_CUBINS, ztd_gpu_put_cubin(w->gpu, &g->cubins[i]));
	for (i = 0; !ret && i < g->nr_kernels; i++)
		ret = gpu_done(w, ZTD_GPU_KERNELS,
			       ztd_gpu_put_kernel(w->gpu, &g->kernels[i], str(g, g->kernels[i].name)));
	for (i = 0; !ret && i < g->nr_memops; i++)
		ret = gpu_done(w, ZTD_GPU_MEMOPS, ztd_gpu_put_memop(w->gpu, &g->memops[i]));
	for (i = 0; !ret && i < g->nr_launches; i++) {
		const struct prof_gpu_launch *l = &g->launches[i];
		const struct prof_stack *st = l->stack != PROF_GPU_NO_STACK ? &stacks->stacks[l->stack]
									    : NULL;

		ret = write_gpu_launch(w, l, st ? profile_stack_ips(stacks, l->stack) : NULL,
				       st ? st->nk : 0, st ? st->nu : 0, !!st);
	}
	for (i = 0; !ret && i < g->nr_pcs; i++)
		ret = gpu_done(w, ZTD_GPU_PCS,
			       ztd_gpu_put_pcs(w->gpu, &g->pcs[i], str(g, g->pcs[i].function)));
	for (i = 0; !ret && i < g->nr_overheads; i++)
		ret = gpu_done(w, ZTD_GPU_OVERHEADS, ztd_gpu_put_overhead(w->gpu, &g->overheads[i]));
	return ret;
}

int ztdata_write_gpu_launch(struct ztdata_writer *w, const struct prof_gpu_launch *l,
			    const uint64_t *ips, unsigned nk, unsigned nu)
{
	int ret = gpu_writable(w);

	if (ret)
		return ret;
	if (nk > ZT_MAX_FRAMES || nu > ZT_MAX_FRAMES || (!ips && nk + nu))
		return -EINVAL;
	ret = write_gpu_launch(w, l, ips, nk, nu, ips != NULL);
	if (!ret)
		w->lus_launch = w->nlaunches; /* its index + 1 */
	return ret;
}

int ztdata_write_gpu_launch_ustack(struct ztdata_writer *w, uint32_t regs_mask,
				   const uint64_t *regs, const void *stack, size_t len)
{
	int ret = check_writable(w);

	if (ret)
		return ret;
	if (!w->lus_launch)
		return -EINVAL;
	if (len > PROF_USTACK_MAX)
		return -E2BIG;
	regs_mask &= (1u << PROF_UREGS) - 1;
	zbuf_put_uv(&w->lus, w->lus_launch - 1 - w->lus_base);
	zbuf_put_uv(&w->lus, regs_mask);
	for (int i = 0; i < PROF_UREGS; i++)
		if (regs_mask & (1u << i))
			zbuf_put_u64le(&w->lus, regs[i]);
	zbuf_put_uv(&w->lus, len);
	zbuf_put(&w->lus, stack, len);
	if (w->lus.err)
		return fail(w, -ENOMEM);
	w->lus_base = w->lus_launch - 1;
	w->lus_launch = 0;
	w->nlus++;
	if (w->lus.len >= SEAL_BYTES && (ret = seal_lus(w)))
		return fail(w, ret);
	return 0;
}

size_t ztdata_writer_pending(const struct ztdata_writer *w)
{
	size_t n = w->out.len + ustack_pending(w) + ztd_gpu_pending(w->gpu, 0) + w->lus.len +
		   w->rawhdr.len + w->rawdata.len;
	int i;

	for (i = 0; i < NR_ROWS; i++)
		n += w->rows[i].len;
	for (i = 0; i < NR_COLS; i++)
		n += w->cols[i].len;
	return n + w->ecol.len;
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
	unsigned flags;        /* ZTDATA_READ_* */
	uint32_t type;         /* of the chunk being decoded */
	char why[128];         /* what did not decode */
	uint32_t *fmap;        /* file stack id -> profile stack id */
	size_t nr_fmap, cap_fmap;
	uint64_t nr_samples;   /* read from this file */
	size_t sample_base;    /* the profile's samples before this file's */
	uint64_t raw_next;     /* the next raw record's sample must be at least this */
	uint32_t nr_events;    /* events defined by the EVENTS chunks read so far */
	uint32_t ev_base;      /* the profile's events before this file's */
	uint32_t nr_pycodes;   /* code objects defined by the PYCODES chunks read so far */
	size_t py_base;        /* the profile's code objects before this file's */
	uint64_t nr_chunks;    /* chunks before the index, and a hash of their */
	uint64_t chunk_hash;   /* types and offsets, to check the index against */
	uint8_t *buf;          /* decompressed payload */
	size_t cap_buf;
	ZSTD_DCtx *dctx;
	uint64_t ips[2 * ZT_MAX_FRAMES];
	/* the second pass (ztdata_read_ustacks_*): p is NULL, other chunks
	 * are only checked and counted, USTACKS chunks go to ustack_fn */
	prof_ustack_fn ustack_fn;
	void *ustack_arg;
	uint64_t nlaunches;    /* GPU launches in the GPU_LAUNCHES chunks read so far */
	uint64_t lus_next;     /* a launch snapshot may go to launches from this index on */
	int fn_ret;            /* ustack_fn's nonzero return: the pass stops */
	uint64_t u_next;       /* the next snapshot's sample must be at least this */
	struct uent {          /* the last UREF_MAX entries of a USTACKS chunk */
		uint64_t len;
		uint64_t regs[PROF_UREGS];
	} *uents;
	struct ubytes *ubytes; /* ... and their bytes, decoded */
	struct ubytes uscratch;
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

/* A string without NULs, pointing into the payload. */
static int get_str(struct zcur *c, const uint8_t **s, size_t *n)
{
	if (zcur_bytes(c, s, n) || memchr(*s, 0, *n))
		return -EBADMSG;
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

static int dec_events(struct reader *r, struct zcur *c, int apply)
{
	uint64_t first, n, i;

	if (zcur_uv(c, &first) || zcur_uv(c, &n))
		return bad(r, "no first event index or count");
	if (first != r->nr_events)
		return bad(r, "events start at index %llu, expected %u", (unsigned long long)first,
			   r->nr_events);
	if (n > zcur_left(c) / 5 || n > UINT16_MAX - (uint64_t)r->nr_events)
		return bad(r, "event count %llu is not valid", (unsigned long long)n);
	for (i = 0; i < n; i++) {
		struct prof_event e = { 0 };
		const uint8_t *name;
		size_t nn;
		int ret;

		if (get_str(c, &name, &nn) || zcur_uv32(c, &e.type) || zcur_uv(c, &e.config) ||
		    zcur_uv(c, &e.period) || zcur_uv32(c, &e.flags))
			return bad(r, "event %llu does not decode", (unsigned long long)(first + i));
		if (!apply)
			continue;
		e.name = strndup((const char *)name, nn);
		ret = e.name ? profile_add_event(r->p, &e, NULL) : -ENOMEM;
		free(e.name);
		if (ret)
			return ret;
	}
	if (apply || r->ustack_fn)
		r->nr_events += (uint32_t)n;
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

		if (zcur_uv32(c, &t.kind) || zcur_sv(c, &d) || zcur_uv32(c, &t.pid) ||
		    zcur_uv32(c, &t.tid) || zcur_uv32(c, &t.ppid) || zcur_uv32(c, &t.ptid))
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

		if (zcur_sv(c, &d) || zcur_uv32(c, &m.pid) || zcur_uv32(c, &m.tid) ||
		    zcur_uv(c, &m.start) || zcur_uv(c, &m.len) || zcur_uv(c, &m.pgoff) ||
		    zcur_uv32(c, &m.prot) || zcur_uv32(c, &m.flags) || zcur_bytes(c, &bid, &bn) ||
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

/*
 * A file read into a profile that already has code objects (another
 * file's): its code objects come after those, and the Python frames of its
 * stacks are moved to name them there. A frame naming a code object the
 * file has not defined (a damaged stack, or an address that only looks
 * like a Python frame) is moved to name none (UINT32_MAX, past any table)
 * rather than one of the profile's earlier code objects.
 */
static void py_rebase(const struct reader *r, uint64_t *ips, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		uint32_t code;

		if (!prof_is_py(ips[i]))
			continue;
		code = prof_py_code(ips[i]);
		code = code < r->nr_pycodes ? (uint32_t)(code + r->py_base) : UINT32_MAX;
		ips[i] = prof_py_ip(code, prof_py_lasti(ips[i]));
	}
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
		if (r->py_base)
			py_rebase(r, r->ips + nk, (unsigned)nu);
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
	if (r->ustack_fn) /* counting only */
		r->nr_fmap += n;
	return 0;
}

static int dec_samples(struct reader *r, struct zcur *c, int apply)
{
	struct zcur col[NR_COLS], ecol;
	uint64_t n, i, x;
	int have_ev;
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
	/* 1.3: an event column, when the file has an event table and bytes
	 * follow (without a table, trailing bytes are a later minor's) */
	ecol = *c;
	have_ev = r->nr_events && zcur_left(c) > 0;
	for (i = 0; have_ev && i < n; i++)
		if (zcur_uv(c, &x))
			return bad(r, "sample event column is short");
	for (i = 0; i < n; i++) {
		struct prof_sample s = { 0 };
		int64_t dts, dtid, dpid, dstack, dw;

		if (zcur_sv(&col[COL_TS], &dts) || zcur_sv(&col[COL_TID], &dtid) ||
		    zcur_sv(&col[COL_PID], &dpid) || zcur_uv32(&col[COL_CPU], &s.cpu) ||
		    zcur_sv(&col[COL_STACK], &dstack) || zcur_sv(&col[COL_WEIGHT], &dw))
			return bad(r, "sample %llu does not decode", (unsigned long long)i);
		ts += (uint64_t)dts;
		weight += (uint64_t)dw;
		if (zt_delta_u32(tid, dtid, UINT32_MAX, &tid) || zt_delta_u32(tid, dpid, UINT32_MAX, &s.pid))
			return bad(r, "sample %llu: bad pid or tid", (unsigned long long)i);
		if (!r->nr_fmap || zt_delta_u32(fid, dstack, r->nr_fmap - 1, &fid))
			return bad(r, "sample %llu: stack id not defined by earlier chunks",
				   (unsigned long long)i);
		s.event = 0;
		if (have_ev && (zcur_uv32(&ecol, &s.event) ||
				(s.event && s.event >= r->nr_events)))
			return bad(r, "sample %llu: event not defined by earlier chunks",
				   (unsigned long long)i);
		if (!apply)
			continue;
		s.event += r->ev_base;
		s.ts = ts;
		s.weight = weight;
		s.tid = tid;
		s.stack = r->fmap[fid];
		ret = profile_add_sample(r->p, &s);
		if (ret)
			return ret;
	}
	if (apply || r->ustack_fn)
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

		if (zcur_uv32(c, &kind) || zcur_uv32(c, &pid) || zcur_uv(c, &ts) ||
		    zcur_bytes(c, &d, &len))
			return bad(r, "blob %llu does not decode", (unsigned long long)i);
		if (apply && (ret = profile_add_blob(r->p, kind, pid, ts, d, len)))
			return ret;
	}
	return 0;
}

/*
 * PYCODES (1.5): the index of the first code object and a count, then
 * each code object (zt-data(5)). Indexes continue across chunks; every
 * length is bounded before anything is copied.
 */
static int dec_pycodes(struct reader *r, struct zcur *c, int apply)
{
	uint64_t first, n, i, ts = 0, addr = 0;

	if (zcur_uv(c, &first) || zcur_uv(c, &n))
		return bad(r, "no first code object index or count");
	if (first != r->nr_pycodes)
		return bad(r, "code objects start at index %llu, expected %u",
			   (unsigned long long)first, r->nr_pycodes);
	if (n > zcur_left(c) / PYCODE_MIN_BYTES)
		return bad(r, "code object count %llu exceeds the payload", (unsigned long long)n);
	if (n > UINT32_MAX - 1 - (uint64_t)r->nr_pycodes)
		return bad(r, "too many code objects");
	for (i = 0; i < n; i++) {
		struct prof_pycode pc = { 0 };
		const uint8_t *qn, *fn, *lt;
		size_t qlen, flen, ltlen;
		int64_t dts, daddr, line;
		uint64_t minor, flags;
		int ret;

		if (zcur_sv(c, &dts) || zcur_uv32(c, &pc.pid) || zcur_sv(c, &daddr) ||
		    zcur_uv(c, &minor) || zcur_uv(c, &flags) || zcur_sv(c, &line) ||
		    get_str(c, &qn, &qlen) || get_str(c, &fn, &flen) || zcur_bytes(c, &lt, &ltlen))
			return bad(r, "code object %llu does not decode", (unsigned long long)(first + i));
		if (minor > UINT16_MAX || flags > UINT16_MAX || line < INT32_MIN || line > INT32_MAX)
			return bad(r, "code object %llu: a value out of its field's range",
				   (unsigned long long)(first + i));
		if (qlen > ZTDATA_PY_QUALNAME_MAX || flen > ZTDATA_PY_FILENAME_MAX)
			return bad(r, "code object %llu: a name over the limit (%zu, %zu bytes)",
				   (unsigned long long)(first + i), qlen, flen);
		if (ltlen > PROF_PY_LINETABLE_MAX)
			return bad(r, "code object %llu: a line table of %zu bytes is over the limit",
				   (unsigned long long)(first + i), ltlen);
		ts += (uint64_t)dts;
		addr += (uint64_t)daddr;
		if (!apply)
			continue;
		pc.ts = ts;
		pc.addr = addr;
		pc.minor = (uint16_t)minor;
		pc.flags = (uint16_t)flags;
		pc.firstlineno = (int32_t)line;
		pc.qualname = strndup((const char *)qn, qlen);
		pc.filename = strndup((const char *)fn, flen);
		pc.linetable = (uint8_t *)lt;
		pc.linetable_len = (uint32_t)ltlen;
		ret = pc.qualname && pc.filename ? profile_add_pycode(r->p, &pc, NULL) : -ENOMEM;
		free(pc.qualname);
		free(pc.filename);
		if (ret == -E2BIG)
			return bad(r, "too many code objects");
		if (ret)
			return ret;
	}
	if (apply || r->ustack_fn)
		r->nr_pycodes += (uint32_t)n;
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

/*
 * RAWS (1.4): n, then n headers (the sample's index in the file, as a
 * delta from the previous entry's, and the record's length), then the
 * records' bytes. Samples are those of earlier SAMPLES chunks, in order,
 * each at most once.
 */
static int dec_raws(struct reader *r, struct zcur *c, int apply)
{
	uint64_t n, i, idx = 0, next = r->raw_next, d, len, total = 0;
	struct zcur h;
	const uint8_t *data;
	int ret;

	if (zcur_uv(c, &n))
		return bad(r, "no raw record count");
	if (n > zcur_left(c) / 2)
		return bad(r, "raw record count %llu exceeds the payload", (unsigned long long)n);
	h = *c;
	for (i = 0; i < n; i++) {
		if (zcur_uv(c, &d) || zcur_uv(c, &len))
			return bad(r, "raw record %llu does not decode", (unsigned long long)i);
		if (d > UINT64_MAX - idx)
			return bad(r, "raw record %llu: bad sample index", (unsigned long long)i);
		idx += d;
		if (idx < next || idx >= r->nr_samples)
			return bad(r, "raw record %llu: sample %llu is not after the previous record's "
				   "or not in an earlier SAMPLES chunk", (unsigned long long)i,
				   (unsigned long long)idx);
		if (len > PROF_RAW_MAX)
			return bad(r, "raw record %llu: %llu bytes is over the limit",
				   (unsigned long long)i, (unsigned long long)len);
		total += len;
		next = idx + 1;
	}
	if (total > zcur_left(c))
		return bad(r, "raw records (%llu bytes) exceed the payload (%zu left)",
			   (unsigned long long)total, zcur_left(c));
	if (!apply) {
		if (r->ustack_fn)
			r->raw_next = next;
		return 0;
	}
	data = c->p;
	for (i = 0, idx = 0; i < n; i++) {
		uint32_t ref;

		zcur_uv(&h, &d);
		zcur_uv(&h, &len);
		idx += d;
		if ((ret = profile_add_raw(r->p, data, (size_t)len, &ref)))
			return ret;
		r->p->samples[r->sample_base + idx].raw = ref;
		data += len;
	}
	r->raw_next = next;
	return 0;
}

/* The header of a USTACKS entry (see zt-data(5)). */
struct uhead {
	uint64_t dsample, ref, len, skip, copy;
	uint32_t mask, same;
};

static int get_uhead(struct zcur *c, struct uhead *h)
{
	h->skip = h->copy = 0;
	if (zcur_uv(c, &h->dsample) || zcur_uv(c, &h->ref) || zcur_uv32(c, &h->mask) ||
	    zcur_uv32(c, &h->same) || zcur_uv(c, &h->len))
		return -EBADMSG;
	if (h->ref && (zcur_uv(c, &h->skip) || zcur_uv(c, &h->copy)))
		return -EBADMSG;
	return 0;
}

/*
 * The entries of a USTACKS chunk whose headers were checked: apply 0
 * checks what needs the registers (the bytes copied from the entry referred
 * to lie in it), apply 1 rebuilds each snapshot and hands it to the
 * callback. cols: where each register column starts; data: the stack bytes.
 */
static int ustack_entries(struct reader *r, const uint8_t *pl, size_t raw, const uint8_t **cols,
			  const uint8_t *data, int apply)
{
	const uint8_t *col[PROF_UREGS];
	uint64_t n, i, idx = 0;
	struct uhead h;
	struct zcur c;
	int k, ret;

	memcpy(col, cols, sizeof(col));
	zcur_init(&c, pl, raw);
	zcur_uv(&c, &n);
	for (i = 0; i < n; i++) {
		struct uent *e = &r->uents[i % UREF_MAX], b = { 0 };
		struct prof_ustack u = { 0 };
		uint64_t sp, bsp = 0, at = 0;

		get_uhead(&c, &h);
		idx += h.dsample;
		if (h.ref)
			b = r->uents[(i - h.ref) % UREF_MAX]; /* may be e: copied first */
		for (k = 0; k < PROF_UREGS; k++) {
			if (h.same & (1u << k)) {
				u.regs[k] = b.regs[k];
			} else if (h.mask & (1u << k)) {
				u.regs[k] = zt_get_le(col[k], 8);
				col[k] += 8;
			}
		}
		sp = u.regs[PROF_UREG_SP];
		bsp = b.regs[PROF_UREG_SP];
		if (h.copy) {
			/* [sp + skip, + copy) within [bsp, bsp + b.len) */
			if (sp + h.skip < sp || sp + h.skip < bsp || sp + h.skip + h.copy < sp + h.skip ||
			    sp + h.skip + h.copy - bsp > b.len)
				return bad(r, "snapshot %llu: bytes taken from outside the snapshot it "
					   "refers to", (unsigned long long)i);
			at = sp + h.skip - bsp;
		}
		e->len = h.len;
		memcpy(e->regs, u.regs, sizeof(u.regs));
		if (apply) {
			struct ubytes *ub = &r->ubytes[i % UREF_MAX], t;
			const struct ubytes *src = &r->ubytes[(i - h.ref) % UREF_MAX];
			size_t rest = h.len - h.skip - h.copy;

			if (h.len > r->uscratch.cap) {
				uint8_t *nb = realloc(r->uscratch.d, h.len);

				if (!nb)
					return -ENOMEM;
				r->uscratch.d = nb;
				r->uscratch.cap = h.len;
			}
			if (h.skip)
				memcpy(r->uscratch.d, data, h.skip);
			if (h.copy)
				memcpy(r->uscratch.d + h.skip, src->d + at, h.copy);
			if (rest)
				memcpy(r->uscratch.d + h.skip + h.copy, data + h.skip, rest);
			r->uscratch.len = h.len;
			t = *ub; /* the new snapshot takes its ring slot; the old buffer is scratch */
			*ub = r->uscratch;
			r->uscratch = t;
			u.sample = idx;
			u.regs_mask = h.mask;
			u.data = ub->d ? ub->d : (const uint8_t *)"";
			u.len = h.len;
			r->u_next = idx + 1;
			ret = r->ustack_fn(r->ustack_arg, &u);
			if (ret) {
				r->fn_ret = ret;
				return 1;
			}
		}
		data += h.len - h.copy;
	}
	return 0;
}

/*
 * GPU_LUSTACKS (second pass only): each entry a GPU launch's index (a
 * delta), the registers recorded and the stack bytes, handed to ustack_fn
 * with launch set. Checked whole before the first is handed over.
 */
static int dec_lustacks(struct reader *r, const uint8_t *pl, size_t raw)
{
	for (int apply = 0; apply < 2; apply++) {
		uint64_t n, i, idx = 0, next = r->lus_next;
		struct zcur c;

		zcur_init(&c, pl, raw);
		if (zcur_uv(&c, &n) || n > raw)
			return bad(r, "bad snapshot count");
		for (i = 0; i < n; i++) {
			struct prof_ustack u = { .launch = 1 };
			uint64_t d, mask, len;
			const uint8_t *data;
			size_t got;
			int k;

			if (zcur_uv(&c, &d) || zcur_uv(&c, &mask) || mask >> PROF_UREGS)
				return bad(r, "launch snapshot %llu: bad header", (unsigned long long)i);
			idx += d;
			if (idx < next || idx >= r->nlaunches || idx + d < d)
				return bad(r, "launch snapshot %llu: launch %llu not after the previous "
					   "one or not in an earlier GPU_LAUNCHES chunk",
					   (unsigned long long)i, (unsigned long long)idx);
			next = idx + 1;
			for (k = 0; k < PROF_UREGS; k++)
				if ((mask & (1u << k)) && zcur_u64le(&c, &u.regs[k]))
					return bad(r, "launch snapshot %llu: short registers",
						   (unsigned long long)i);
			if (zcur_bytes(&c, &data, &got) || got > PROF_USTACK_MAX)
				return bad(r, "launch snapshot %llu: bad stack bytes",
					   (unsigned long long)i);
			len = got;
			if (!apply)
				continue;
			u.sample = idx;
			u.regs_mask = (uint32_t)mask;
			u.data = data;
			u.len = len;
			if ((k = r->ustack_fn(r->ustack_arg, &u))) {
				r->fn_ret = k;
				return 1;
			}
		}
		if (apply)
			r->lus_next = next;
	}
	return 0;
}

/*
 * USTACKS, in the second pass only. pl is the payload. All of it is
 * checked before the first entry goes to the callback, so a bad chunk
 * gives nothing. Returns 0, 1 when the callback stopped the pass
 * (r->fn_ret), or -EBADMSG/-ENOMEM.
 */
static int dec_ustacks(struct reader *r, const uint8_t *pl, size_t raw)
{
	uint64_t n, i, idx = 0, next = r->u_next, stored = 0, ncol[PROF_UREGS] = { 0 }, cbytes = 0;
	const uint8_t *cols[PROF_UREGS], *data;
	struct uhead h;
	struct zcur c;
	int k, ret;

	zcur_init(&c, pl, raw);
	if (zcur_uv(&c, &n))
		return bad(r, "no snapshot count");
	if (n > zcur_left(&c) / 5)
		return bad(r, "snapshot count %llu exceeds the payload", (unsigned long long)n);
	for (i = 0; i < n; i++) {
		if (get_uhead(&c, &h))
			return bad(r, "snapshot %llu does not decode", (unsigned long long)i);
		if (h.dsample > UINT64_MAX - idx)
			return bad(r, "snapshot %llu: bad sample index", (unsigned long long)i);
		idx += h.dsample;
		if (idx < next)
			return bad(r, "snapshot %llu: sample %llu is not after the previous snapshot's",
				   (unsigned long long)i, (unsigned long long)idx);
		if (idx >= r->nr_samples)
			return bad(r, "snapshot %llu: sample %llu is not in an earlier SAMPLES chunk",
				   (unsigned long long)i, (unsigned long long)idx);
		if (h.ref > i || h.ref > UREF_MAX)
			return bad(r, "snapshot %llu refers to the snapshot %llu before it",
				   (unsigned long long)i, (unsigned long long)h.ref);
		if ((h.mask & ~UREGS_ALL) || (h.same & ~h.mask) || (h.same && !h.ref))
			return bad(r, "snapshot %llu: bad register masks 0x%x, 0x%x",
				   (unsigned long long)i, h.mask, h.same);
		if (h.len > PROF_USTACK_MAX || h.skip > h.len || h.copy > h.len - h.skip)
			return bad(r, "snapshot %llu: bad stack lengths", (unsigned long long)i);
		for (k = 0; k < PROF_UREGS; k++)
			ncol[k] += !!((h.mask & ~h.same) & (1u << k));
		stored += h.len - h.copy;
		next = idx + 1;
	}
	for (k = 0; k < PROF_UREGS; k++)
		cbytes += 8 * ncol[k];
	if (cbytes > zcur_left(&c) || stored > zcur_left(&c) - cbytes)
		return bad(r, "registers and stack bytes (%llu) exceed the payload (%zu left)",
			   (unsigned long long)(cbytes + stored), zcur_left(&c));
	for (k = 0; k < PROF_UREGS; k++) {
		cols[k] = c.p;
		c.p += 8 * ncol[k];
	}
	data = c.p;
	if (!r->uents) {
		r->uents = calloc(UREF_MAX, sizeof(*r->uents));
		r->ubytes = calloc(UREF_MAX, sizeof(*r->ubytes));
		if (!r->uents || !r->ubytes)
			return -ENOMEM;
	}
	ret = ustack_entries(r, pl, raw, cols, data, 0);
	if (ret)
		return ret;
	return ustack_entries(r, pl, raw, cols, data, 1);
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

/* The GPU chunks (formats/ztdata_gpu.h). */
static int dec_gpu(struct reader *r, struct zcur *c, int apply)
{
	struct ztd_gpu_ctx x = { r->p, r->fmap, r->nr_fmap, r->why, sizeof(r->why) };

	return ztd_gpu_decode(r->type, c, apply, &x);
}

typedef int (*decoder_fn)(struct reader *r, struct zcur *c, int apply);

static decoder_fn decoder(uint32_t type)
{
	switch (type) {
	case CH_META: return dec_meta;
	case CH_EVENTS: return dec_events;
	case CH_TASKS: return dec_tasks;
	case CH_MMAPS: return dec_mmaps;
	case CH_STACKS: return dec_stacks;
	case CH_SAMPLES: return dec_samples;
	case CH_BLOB: return dec_blob;
	case CH_LOST: return dec_lost;
	case CH_RAWS: return dec_raws;
	case CH_PYCODES: return dec_pycodes;
	case CH_INDEX: return dec_index;
	}
	return ztd_gpu_type(type) ? dec_gpu : NULL;
}

static const char *chunk_name(uint32_t type, char *buf, size_t n)
{
	static const char *const names[] = { NULL,	   "META",	   "TASKS",
					     "MMAPS",	   "STACKS",	   "SAMPLES",
					     "BLOB",	   "LOST",	   "USTACKS",
					     "GPU_META",   "GPU_CUBINS",   "GPU_KERNELS",
					     "GPU_MEMOPS", "GPU_LAUNCHES", "GPU_PCS",
					     "GPU_OVERHEADS", "GPU_LUSTACKS", "EVENTS",
					     "RAWS",	   "PYCODES" };

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	if (type == CH_INDEX)
		return "INDEX";
	snprintf(buf, n, "type %u", type);
	return buf;
}

static int reader_buf(struct reader *r, size_t n)
{
	uint8_t *b;

	if (n <= r->cap_buf)
		return 0;
	b = realloc(r->buf, n);
	if (!b)
		return -ENOMEM;
	r->buf = b;
	r->cap_buf = n;
	return 0;
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
	if (reader_buf(r, raw))
		return -ENOMEM;
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
	major = (uint16_t)zt_get_le(d + 8, 2);
	minor = (uint16_t)zt_get_le(d + 10, 2);
	*hsize = (uint32_t)zt_get_le(d + 12, 4);
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
	type = (uint32_t)zt_get_le(h, 4);
	flags = (uint32_t)zt_get_le(h + 4, 4);
	raw = (uint32_t)zt_get_le(h + 8, 4);
	stored = (uint32_t)zt_get_le(h + 12, 4);
	seq = (uint32_t)zt_get_le(h + 16, 4);
	crc = (uint32_t)zt_get_le(h + 20, 4);
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
	r->type = type;
	if (ztd_gpu_type(type)) {
		info->gpu_chunks++;
		if (r->flags & ZTDATA_READ_NO_GPU) {
			dec = NULL; /* checked and counted, not decoded */
			info->skipped++;
		}
	}
	if (type == CH_GPU_LUSTACKS) {
		/* launch snapshots: as USTACKS, for the second pass only */
		info->ustack_chunks++;
		if (r->ustack_fn) {
			ret = chunk_payload(r, flags, h + CHUNK_HDR, stored, raw, &pl);
			if (ret)
				return ret;
			ret = dec_lustacks(r, pl, raw);
			if (ret)
				return ret;
		}
	} else if (type == CH_USTACKS) {
		/* the first pass leaves snapshots alone: not even decompressed */
		info->ustack_chunks++;
		if (r->ustack_fn) {
			ret = chunk_payload(r, flags, h + CHUNK_HDR, stored, raw, &pl);
			if (ret)
				return ret;
			ret = dec_ustacks(r, pl, raw);
			if (ret)
				return ret;
		}
	} else if (!dec) {
		info->skipped += !ztd_gpu_type(type);
	} else {
		ret = chunk_payload(r, flags, h + CHUNK_HDR, stored, raw, &pl);
		if (ret)
			return ret;
		zcur_init(&c, pl, raw);
		ret = dec(r, &c, 0);
		if (ret)
			return ret;
		if (type == ZTD_GPU_LAUNCHES) { /* checked: starts with its count */
			uint64_t n = 0;

			zcur_init(&c, pl, raw);
			zcur_uv(&c, &n);
			r->nlaunches += n;
		}
		if (type != CH_INDEX && !r->ustack_fn) {
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

/* Either pass: into p (the first), or with fn (the second). */
static int read_image(const void *data, size_t len, struct profile *p, unsigned flags,
		      prof_ustack_fn fn, void *arg, struct ztdata_read_info *info)
{
	struct ztdata_read_info dummy;
	const uint8_t *d = data;
	struct reader *r = NULL;
	uint32_t hsize = 0;
	uint64_t off;
	char tbuf[24];
	int ret, fn_ret;

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
	r->ev_base = p ? (uint32_t)p->nr_events : 0;
	r->py_base = p ? p->nr_pycodes : 0;
	r->sample_base = p ? p->nr_samples : 0;
	r->flags = flags;
	r->ustack_fn = fn;
	r->ustack_arg = arg;
	off = hsize;
	info->good_end = off;
	while (off < len && !(ret = read_chunk(r, d, len, &off, info)))
		;
	if (r->fn_ret)
		; /* the callback stopped the pass */
	else if (ret == -ENOMEM)
		snprintf(info->msg, sizeof(info->msg), "out of memory reading chunk %u at offset %llu",
			 info->chunks, (unsigned long long)off);
	else if (ret < 0)
		snprintf(info->msg, sizeof(info->msg), "chunk %u (%s) at offset %llu: %s",
			 info->chunks, chunk_name((uint32_t)zt_get_le(d + off, 4), tbuf, sizeof(tbuf)),
			 (unsigned long long)off, r->why);
	else if (!info->complete && !info->truncated)
		snprintf(info->msg, sizeof(info->msg),
			 "no index chunk at offset %llu, where the file ends: the recording did not "
			 "finish (recorder killed?): using the %u chunk%s written",
			 (unsigned long long)info->good_end, info->chunks, info->chunks == 1 ? "" : "s");
	fn_ret = r->fn_ret;
	free(r->fmap);
	free(r->buf);
	for (size_t k = 0; r->ubytes && k < UREF_MAX; k++)
		free(r->ubytes[k].d);
	free(r->ubytes);
	free(r->uents);
	free(r->uscratch.d);
	ZSTD_freeDCtx(r->dctx);
	free(r);
	if (fn_ret)
		return fn_ret;
	return ret < 0 ? ret : 0;
}

int ztdata_read_mem(const void *data, size_t len, struct profile *p, struct ztdata_read_info *info)
{
	return read_image(data, len, p, 0, NULL, NULL, info);
}

int ztdata_read_mem_flags(const void *data, size_t len, struct profile *p, unsigned flags,
			  struct ztdata_read_info *info)
{
	return read_image(data, len, p, flags, NULL, NULL, info);
}

int ztdata_read_ustacks_mem(const void *data, size_t len, prof_ustack_fn fn, void *arg,
			    struct ztdata_read_info *info)
{
	if (!fn)
		return -EINVAL;
	return read_image(data, len, NULL, 0, fn, arg, info);
}

/* Either pass on a file: into p, or (fn set) the snapshots to fn. */
static int read_file(const char *path, struct profile *p, prof_ustack_fn fn, void *arg,
		     struct ztdata_read_info *info)
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
	if (ret == -ESPIPE)
		snprintf(info->msg, sizeof(info->msg), "'%s' is not a regular file", path);
	else if (ret)
		snprintf(info->msg, sizeof(info->msg), "cannot %s '%s': %s", what, path, strerror(-ret));
	else
		ret = fn ? ztdata_read_ustacks_mem(img.data, img.len, fn, arg, info)
			 : ztdata_read_mem(img.data, img.len, p, info);
	zt_image_close(&img);
	return ret;
}

int ztdata_read_file(const char *path, struct profile *p, struct ztdata_read_info *info)
{
	return read_file(path, p, NULL, NULL, info);
}

int ztdata_read_ustacks_file(const char *path, prof_ustack_fn fn, void *arg,
			     struct ztdata_read_info *info)
{
	return read_file(path, NULL, fn, arg, info);
}
