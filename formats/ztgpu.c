/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader of libztcupti.so's per-process files (cupti/wire.h): frames
 * checked whole (CRC, counts, pools, stack ids) before their records go
 * into a struct prof_gpu.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cupti/wire.h"
#include "formats/ztgpu.h"
#include "libprof/array.h"
#include "libprof/le.h"
#include "libprof/hash.h"
#include "libprof/htab.h"

#define HDR_MAX	    4096	/* the largest file header accepted */
#define READ_BUDGET (64u << 20) /* frame bytes one ztgpu_reader_read() decodes at most */

/* A file stack id and the stack it names in r->stacks. */
struct smap {
	uint32_t id, stack;
};

struct ztgpu_reader {
	int fd;		      /* -1: an image in memory */
	const uint8_t *image; /* ... this one */
	size_t image_len;
	uint32_t uid, pid;
	uint32_t hdr_size; /* 0 until the header was read */
	uint64_t off;	   /* the next frame */
	uint64_t frames;   /* frames decoded */
	int err;	   /* sticky: the file ended with this error */
	char errmsg[256];
	char why[160]; /* what did not decode */
	struct profile own;
	struct profile *stacks; /* &own, or the caller's */
	struct smap *smap;
	size_t nr_smap, cap_smap;
	struct zt_htab shash; /* smap by file id */
	uint8_t *buf;	      /* a frame read from the file */
	size_t cap_buf;
	uint64_t ips[ZT_MAX_FRAMES];
};

__attribute__((format(printf, 2, 3))) static int bad(struct ztgpu_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static void set_msg(char *msg, size_t n, const char *s)
{
	if (msg && n)
		snprintf(msg, n, "%s", s);
}

/* ---- stack ids ----------------------------------------------------------- */

static inline uint64_t smap_hash_at(const void *ctx, uint32_t i)
{
	return zt_hash_mix(0, ((const struct ztgpu_reader *)ctx)->smap[i].id);
}

/* The stack file id names, or -1. */
static int64_t smap_find(const struct ztgpu_reader *r, uint32_t id)
{
	const struct zt_htab *t = &r->shash;
	size_t j;
	uint32_t i;

	if (!t->cap)
		return -1;
	for (j = zt_htab_first(t, zt_hash_mix(0, id)); zt_htab_get(t, j, &i);
	     j = zt_htab_next(t, j))
		if (r->smap[i].id == id)
			return r->smap[i].stack;
	return -1;
}

/* Define (or define again: the later definition wins) file id as stack. */
static int smap_set(struct ztgpu_reader *r, uint32_t id, uint32_t stack)
{
	const struct zt_htab *t;
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&r->shash, 1, smap_hash_at, r))
		return -ENOMEM;
	t = &r->shash;
	for (j = zt_htab_first(t, zt_hash_mix(0, id)); zt_htab_get(t, j, &i);
	     j = zt_htab_next(t, j)) {
		if (r->smap[i].id == id) {
			r->smap[i].stack = stack;
			return 0;
		}
	}
	if (r->nr_smap >= ZTGPU_MAX_STACKS)
		return bad(r, "more than %u stack ids", ZTGPU_MAX_STACKS);
	if (ZT_GROW(r->smap, r->cap_smap, r->nr_smap + 1))
		return -ENOMEM;
	r->smap[r->nr_smap] = (struct smap){id, stack};
	zt_htab_set(&r->shash, j, (uint32_t)r->nr_smap++);
	return 0;
}

/* ---- frames -------------------------------------------------------------- */

/* A frame's payload and its fixed records of size sz: count of them, then
 * (pool) the rest is a string pool, else nothing may follow. */
struct frame {
	const uint8_t *pl;
	uint32_t len, count;
	const uint8_t *pool;
	size_t pool_len;
};

static int fixed_part(struct ztgpu_reader *r, struct frame *f, size_t sz, int pool)
{
	uint64_t need = (uint64_t)f->count * sz;

	if (need > f->len)
		return bad(r, "%u records of %zu bytes exceed the %u-byte payload", f->count, sz,
			   f->len);
	if (!pool && need != f->len)
		return bad(r, "%u records of %zu bytes, but a %u-byte payload", f->count, sz,
			   f->len);
	f->pool = f->pl + need;
	f->pool_len = f->len - (size_t)need;
	return 0;
}

/* The fixed part of records of sz bytes with a pool, and every record's
 * string (the uint32 name_off and name_len at name_at in each record) inside
 * the pool: checked before any record is added. */
static int pooled_part(struct ztgpu_reader *r, struct frame *f, size_t sz, size_t name_at)
{
	uint32_t i, nm[2];
	int ret;

	if ((ret = fixed_part(r, f, sz, 1)))
		return ret;
	for (i = 0; i < f->count; i++) {
		memcpy(nm, f->pl + (size_t)i * sz + name_at, sizeof(nm));
		if ((uint64_t)nm[0] + nm[1] > f->pool_len)
			return bad(r, "record %u: string at %u (%u bytes) outside the %zu-byte pool",
				   i, nm[0], nm[1], f->pool_len);
	}
	return 0;
}

static int intern(struct prof_gpu *g, const struct frame *f, uint32_t off, uint32_t len,
		  uint32_t *id)
{
	return prof_gpu_intern(g, (const char *)f->pool + off, len, id);
}

static int dec_kernels(struct ztgpu_reader *r, struct frame *f, struct prof_gpu *g)
{
	struct zg_kernel z;
	uint32_t i;
	int ret;

	_Static_assert(offsetof(struct zg_kernel, name_len) == offsetof(struct zg_kernel, name_off) + 4,
		       "name_off, name_len");
	if ((ret = pooled_part(r, f, sizeof(z), offsetof(struct zg_kernel, name_off))))
		return ret;
	for (i = 0; i < f->count; i++) {
		struct prof_gpu_kernel k = {0};

		memcpy(&z, f->pl + (size_t)i * sizeof(z), sizeof(z));
		k.start = z.start;
		k.end = z.end;
		k.queued = z.queued;
		k.submitted = z.submitted;
		k.graph_node_id = z.graph_node_id;
		k.pid = r->pid;
		k.corr = z.corr;
		k.device = z.device;
		k.context = z.context;
		k.stream = z.stream;
		k.graph_id = z.graph_id;
		memcpy(k.grid, z.grid, sizeof(k.grid));
		memcpy(k.block, z.block, sizeof(k.block));
		k.regs = z.regs;
		k.smem_static = z.smem_static;
		k.smem_dynamic = z.smem_dynamic;
		k.local_mem = z.local_mem;
		if ((ret = intern(g, f, z.name_off, z.name_len, &k.name)) ||
		    (ret = prof_gpu_add_kernel(g, &k)))
			return ret;
	}
	return 0;
}

static int dec_memops(struct ztgpu_reader *r, struct frame *f, struct prof_gpu *g)
{
	struct zg_memop z;
	uint32_t i;
	int ret;

	if ((ret = fixed_part(r, f, sizeof(z), 0)))
		return ret;
	for (i = 0; i < f->count; i++) {
		memcpy(&z, f->pl + (size_t)i * sizeof(z), sizeof(z));
		if (z.kind != ZG_MEMCPY && z.kind != ZG_MEMSET)
			return bad(r, "record %u: memory operation kind %u", i, z.kind);
	}
	for (i = 0; i < f->count; i++) {
		struct prof_gpu_memop m = {0};

		memcpy(&z, f->pl + (size_t)i * sizeof(z), sizeof(z));
		m.start = z.start;
		m.end = z.end;
		m.bytes = z.bytes;
		m.pid = r->pid;
		m.corr = z.corr;
		m.device = z.device;
		m.context = z.context;
		m.stream = z.stream;
		m.value = z.value;
		m.graph_id = z.graph_id;
		m.kind = z.kind;
		m.copy_kind = z.copy_kind;
		m.src_kind = z.src_kind;
		m.dst_kind = z.dst_kind;
		if ((ret = prof_gpu_add_memop(g, &m)))
			return ret;
	}
	return 0;
}

static int dec_launches(struct ztgpu_reader *r, struct frame *f, struct prof_gpu *g)
{
	struct zg_launch z;
	uint32_t i;
	int ret;

	if ((ret = fixed_part(r, f, sizeof(z), 0)))
		return ret;
	for (i = 0; i < f->count; i++) {
		memcpy(&z, f->pl + (size_t)i * sizeof(z), sizeof(z));
		if ((z.flags & ZG_L_STACK) && smap_find(r, z.stack) < 0)
			return bad(r, "launch %u: stack id %u is not defined", i, z.stack);
	}
	for (i = 0; i < f->count; i++) {
		struct prof_gpu_launch l = {0};

		memcpy(&z, f->pl + (size_t)i * sizeof(z), sizeof(z));
		l.ts = z.ts;
		l.pid = r->pid;
		l.tid = z.tid;
		l.corr = z.corr;
		l.outer_corr = z.outer_corr;
		l.cbid = z.cbid;
		l.domain = z.domain;
		l.flags = z.flags;
		l.graph_id = z.graph_id;
		l.stack =
			z.flags & ZG_L_STACK ? (uint32_t)smap_find(r, z.stack) : PROF_GPU_NO_STACK;
		if ((ret = prof_gpu_add_launch(g, &l)))
			return ret;
	}
	return 0;
}

/* count x { u32 id, u32 n, u64 ips[n] }, filling the payload exactly. */
static int dec_stacks(struct ztgpu_reader *r, struct frame *f)
{
	uint32_t i, k, pass;
	uint64_t total = 0;
	size_t at;
	int ret;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0, at = 0; i < f->count; i++) {
			uint32_t id, nips, sid;

			if (f->len - at < 8)
				return bad(r, "stack %u: header past the payload", i);
			id = (uint32_t)zt_get_le(f->pl + at, 4);
			nips = (uint32_t)zt_get_le(f->pl + at + 4, 4);
			at += 8;
			if (nips > ZT_MAX_FRAMES)
				return bad(r, "stack %u (id %u): %u frames, at most %u", i, id,
					   nips, ZT_MAX_FRAMES);
			if ((f->len - at) / 8 < nips)
				return bad(r, "stack %u (id %u): frames past the payload", i, id);
			total += nips;
			if (pass) {
				for (k = 0; k < nips; k++)
					r->ips[k] = zt_get_le(f->pl + at + 8 * (size_t)k, 8);
				ret = profile_intern_stack(r->stacks, r->ips, 0, nips, &sid);
				if (ret == -E2BIG)
					return bad(r, "too many stacks");
				if (ret || (ret = smap_set(r, id, sid)))
					return ret;
			}
			at += 8 * (size_t)nips;
		}
		if (at != f->len)
			return bad(r, "%zu bytes after the last stack", f->len - at);
		/* the limits, before anything is added (as if no stack were known) */
		if (!pass && r->nr_smap + f->count > ZTGPU_MAX_STACKS)
			return bad(r, "more than %u stack ids", ZTGPU_MAX_STACKS);
		if (!pass && r->stacks->nr_ips + total > ZTGPU_MAX_IPS)
			return bad(r, "stacks of more than %u frames in all", ZTGPU_MAX_IPS);
	}
	return 0;
}

static int dec_pcs(struct ztgpu_reader *r, struct frame *f, struct prof_gpu *g)
{
	struct zg_pcs z;
	uint32_t i;
	int ret;

	_Static_assert(offsetof(struct zg_pcs, name_len) == offsetof(struct zg_pcs, name_off) + 4,
		       "name_off, name_len");
	if ((ret = pooled_part(r, f, sizeof(z), offsetof(struct zg_pcs, name_off))))
		return ret;
	for (i = 0; i < f->count; i++) {
		struct prof_gpu_pcs s = {0};

		memcpy(&z, f->pl + (size_t)i * sizeof(z), sizeof(z));
		s.cubin_crc = z.cubin_crc;
		s.pc_offset = z.pc_offset;
		s.samples = z.samples;
		s.pid = r->pid;
		s.context = z.context;
		s.function_index = z.function_index;
		s.stall = z.stall;
		s.corr = z.corr;
		if ((ret = intern(g, f, z.name_off, z.name_len, &s.function)) ||
		    (ret = prof_gpu_add_pcs(g, &s)))
			return ret;
	}
	return 0;
}

static int dec_stalls(struct ztgpu_reader *r, struct frame *f, struct prof_gpu *g)
{
	struct zg_stall z;
	uint32_t i;
	int ret;

	_Static_assert(offsetof(struct zg_stall, name_len) == offsetof(struct zg_stall, name_off) + 4,
		       "name_off, name_len");
	if ((ret = pooled_part(r, f, sizeof(z), offsetof(struct zg_stall, name_off))))
		return ret;
	for (i = 0; i < f->count; i++) {
		struct prof_gpu_stall s = {.pid = r->pid};

		memcpy(&z, f->pl + (size_t)i * sizeof(z), sizeof(z));
		s.context = z.context;
		s.index = z.index;
		if ((ret = intern(g, f, z.name_off, z.name_len, &s.name)) ||
		    (ret = prof_gpu_add_stall(g, &s)))
			return ret;
	}
	return 0;
}

static int dec_cubin(struct ztgpu_reader *r, struct frame *f, struct prof_gpu *g)
{
	struct zg_cubin z;
	int ret;

	if (f->count != 1 || f->len < sizeof(z))
		return bad(r, "a cubin frame holds one cubin (count %u, %u bytes)", f->count,
			   f->len);
	memcpy(&z, f->pl, sizeof(z));
	if (z.size != f->len - sizeof(z))
		return bad(r, "cubin of %llu bytes in a frame of %zu after its header",
			   (unsigned long long)z.size, f->len - sizeof(z));
	ret = prof_gpu_add_cubin(g, z.crc, r->pid, z.module_id, z.context, f->pl + sizeof(z),
				 (size_t)z.size);
	return ret < 0 ? ret : 0;
}

static int dec_counters(struct ztgpu_reader *r, struct frame *f, struct prof_gpu *g)
{
	struct prof_gpu_counters c = {.pid = r->pid};
	struct zg_counters z;

	if (f->count != 1 || f->len != sizeof(z))
		return bad(r, "a counters frame holds one record (count %u, %u bytes)", f->count,
			   f->len);
	memcpy(&z, f->pl, sizeof(z));
	c.dropped_records = z.dropped_records;
	c.pc_total_samples = z.pc_total_samples;
	c.pc_dropped_samples = z.pc_dropped_samples;
	c.pc_nonuser_samples = z.pc_nonuser_samples;
	c.pc_hw_buffer_full = z.pc_hw_buffer_full;
	c.launches = z.launches;
	c.launch_stacks = z.launch_stacks;
	c.launch_ratelimited = z.launch_ratelimited;
	c.mem_dropped = z.mem_dropped;
	c.cubins = z.cubins;
	return prof_gpu_set_counters(g, &c);
}

static int dec_overheads(struct ztgpu_reader *r, struct frame *f, struct prof_gpu *g)
{
	struct zg_overhead z;
	uint32_t i;
	int ret;

	if ((ret = fixed_part(r, f, sizeof(z), 0)))
		return ret;
	for (i = 0; i < f->count; i++) {
		struct prof_gpu_overhead o = {.pid = r->pid};

		memcpy(&z, f->pl + (size_t)i * sizeof(z), sizeof(z));
		o.start = z.start;
		o.end = z.end;
		o.kind = z.kind;
		o.object_kind = z.object_kind;
		memcpy(o.object_id, z.object_id, sizeof(o.object_id));
		if ((ret = prof_gpu_add_overhead(g, &o)))
			return ret;
	}
	return 0;
}

/* count x "key\0value\0", filling the payload exactly. */
static int dec_info(struct ztgpu_reader *r, struct frame *f, struct prof_gpu *g)
{
	uint32_t i, pass;
	size_t at;
	int ret;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0, at = 0; i < f->count; i++) {
			const char *key = (const char *)f->pl + at, *value;
			const uint8_t *e = memchr(f->pl + at, 0, f->len - at);

			if (!e)
				return bad(r, "info %u: key not terminated", i);
			at = (size_t)(e - f->pl) + 1;
			value = (const char *)f->pl + at;
			e = memchr(f->pl + at, 0, f->len - at);
			if (!e)
				return bad(r, "info %u: value not terminated", i);
			at = (size_t)(e - f->pl) + 1;
			if (pass && (ret = prof_gpu_add_info(g, r->pid, key, value)))
				return ret;
		}
		if (at != f->len)
			return bad(r, "%zu bytes after the last info entry", f->len - at);
	}
	return 0;
}

static int dec_frame(struct ztgpu_reader *r, uint32_t type, struct frame *f, struct prof_gpu *g)
{
	switch (type) {
	case ZG_INFO:
		return dec_info(r, f, g);
	case ZG_KERNEL:
		return dec_kernels(r, f, g);
	case ZG_MEMOP:
		return dec_memops(r, f, g);
	case ZG_LAUNCH:
		return dec_launches(r, f, g);
	case ZG_STACK:
		return dec_stacks(r, f);
	case ZG_PCS:
		return dec_pcs(r, f, g);
	case ZG_STALLS:
		return dec_stalls(r, f, g);
	case ZG_CUBIN:
		return dec_cubin(r, f, g);
	case ZG_COUNTERS:
		return dec_counters(r, f, g);
	case ZG_OVERHEAD:
		return dec_overheads(r, f, g);
	}
	return 0; /* unknown types are skipped */
}

/* ---- the file ------------------------------------------------------------ */

/* The bytes [off, off + len) of the file or image, known to be there. */
static int fetch(struct ztgpu_reader *r, uint64_t off, size_t len, const uint8_t **p)
{
	size_t done = 0;

	if (!len) {
		*p = (const uint8_t *)"";
		return 0;
	}
	if (r->fd < 0) {
		*p = r->image + off;
		return 0;
	}
	if (len > r->cap_buf) {
		uint8_t *b = realloc(r->buf, len);

		if (!b)
			return -ENOMEM;
		r->buf = b;
		r->cap_buf = len;
	}
	while (done < len) {
		ssize_t got = pread(r->fd, r->buf + done, len - done, (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return -EAGAIN; /* shrunk under us: try again later */
		done += (size_t)got;
	}
	*p = r->buf;
	return 0;
}

static int file_size(struct ztgpu_reader *r, uint64_t *size)
{
	struct stat st;

	if (r->fd < 0) {
		*size = r->image_len;
		return 0;
	}
	if (fstat(r->fd, &st))
		return -errno;
	*size = (uint64_t)st.st_size;
	return 0;
}

/* The header: 0 when read, 1 when not all there yet, or -EBADMSG. */
static int read_header(struct ztgpu_reader *r, uint64_t size)
{
	struct zg_file_hdr h;
	const uint8_t *p;
	int ret;

	if (size < sizeof(h))
		return 1;
	if ((ret = fetch(r, 0, sizeof(h), &p)))
		return ret == -EAGAIN ? 1 : ret;
	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, ZG_MAGIC, sizeof(h.magic)))
		return bad(r, "not a zt GPU file (bad magic)");
	if (h.version != ZG_VERSION)
		return bad(r, "GPU file version %u, this zt reads version %u", h.version,
			   ZG_VERSION);
	if (h.hdr_size < sizeof(h) || h.hdr_size > HDR_MAX)
		return bad(r, "bad header size %u", h.hdr_size);
	if (!h.pid)
		return bad(r, "pid 0 in the header");
	if (size < h.hdr_size)
		return 1;
	r->pid = h.pid;
	r->hdr_size = h.hdr_size;
	r->off = h.hdr_size;
	return 0;
}

static const char *type_name(uint32_t type, char *buf, size_t n)
{
	static const char *const names[] = {NULL,     "INFO",	  "KERNEL",  "MEMOP",
					    "LAUNCH", "STACK",	  "PCS",     "STALLS",
					    "CUBIN",  "COUNTERS", "OVERHEAD"};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	snprintf(buf, n, "type %u", type);
	return buf;
}

/* Frames from r->off on, up to budget bytes: how many, or a negative errno
 * (sticky, with r->errmsg, for a bad file). */
static int read_frames(struct ztgpu_reader *r, struct prof_gpu *g, uint64_t budget)
{
	uint64_t size = 0, used = 0;
	uint32_t type = 0;
	const uint8_t *p;
	char tbuf[24];
	int ret, n = 0;

	if (r->err)
		return r->err;
	if ((ret = file_size(r, &size)))
		return ret;
	if (!r->hdr_size) {
		ret = read_header(r, size);
		if (ret == 1)
			return 0;
		if (ret == -EBADMSG) {
			snprintf(r->errmsg, sizeof(r->errmsg), "bad header: %s", r->why);
			return r->err = ret;
		}
		if (ret)
			return ret;
	}
	while (used < budget && size > r->off && size - r->off >= sizeof(struct zg_frame_hdr)) {
		struct zg_frame_hdr h;
		struct frame f;

		if ((ret = fetch(r, r->off, sizeof(h), &p)))
			return ret == -EAGAIN ? n : ret;
		memcpy(&h, p, sizeof(h));
		type = h.type;
		if (h.len > ZG_FRAME_MAX) {
			ret = bad(r, "length %u is over the %u-byte limit", h.len, ZG_FRAME_MAX);
			goto bad_frame;
		}
		if (size - r->off - sizeof(h) < h.len)
			break; /* still being written */
		if ((ret = fetch(r, r->off + sizeof(h), h.len, &p)))
			return ret == -EAGAIN ? n : ret;
		if ((uint32_t)crc32(0, p, h.len) != h.crc) {
			ret = bad(r, "CRC mismatch (file damaged?)");
			goto bad_frame;
		}
		f = (struct frame){p, h.len, h.count, NULL, 0};
		ret = dec_frame(r, h.type, &f, g);
		if (ret == -EBADMSG)
			goto bad_frame;
		if (ret)
			return ret;
		r->off += sizeof(h) + h.len;
		r->frames++;
		used += sizeof(h) + h.len;
		n++;
	}
	return n;
bad_frame:
	snprintf(r->errmsg, sizeof(r->errmsg), "frame %llu (%s) at offset %llu: %s",
		 (unsigned long long)r->frames, type_name(type, tbuf, sizeof(tbuf)),
		 (unsigned long long)r->off, r->why);
	return r->err = ret;
}

static void reader_init(struct ztgpu_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	profile_init(&r->own);
	r->stacks = &r->own;
}

static void reader_release(struct ztgpu_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	profile_release(&r->own);
	free(r->smap);
	zt_htab_release(&r->shash);
	free(r->buf);
}

int ztgpu_reader_open(int dirfd, const char *name, struct ztgpu_reader **out, char *msg, size_t n)
{
	struct ztgpu_reader *r;
	struct stat st;
	char tmp[320];
	int fd, ret;

	*out = NULL;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP)
			snprintf(tmp, sizeof(tmp), "'%s' is a symbolic link: refused", name);
		else
			snprintf(tmp, sizeof(tmp), "cannot open '%s': %s", name, strerror(-ret));
		set_msg(msg, n, tmp);
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(tmp, sizeof(tmp), "cannot stat '%s': %s", name, strerror(-ret));
		set_msg(msg, n, tmp);
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(tmp, sizeof(tmp), "'%s' is not a regular file: refused", name);
		set_msg(msg, n, tmp);
		close(fd);
		return -EINVAL;
	}
	r = malloc(sizeof(*r));
	if (!r) {
		close(fd);
		set_msg(msg, n, "out of memory");
		return -ENOMEM;
	}
	reader_init(r);
	r->fd = fd;
	r->uid = st.st_uid;
	ret = read_frames(r, NULL, 0); /* the header, if there */
	if (ret < 0) {
		snprintf(tmp, sizeof(tmp), "'%s': %s", name, r->err ? r->errmsg : strerror(-ret));
		set_msg(msg, n, tmp);
		ztgpu_reader_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

void ztgpu_reader_free(struct ztgpu_reader *r)
{
	if (!r)
		return;
	reader_release(r);
	free(r);
}

uint32_t ztgpu_reader_uid(const struct ztgpu_reader *r)
{
	return r->uid;
}

uint32_t ztgpu_reader_pid(const struct ztgpu_reader *r)
{
	return r->pid;
}

uint64_t ztgpu_reader_offset(const struct ztgpu_reader *r)
{
	return r->off;
}

const struct profile *ztgpu_reader_stacks(const struct ztgpu_reader *r)
{
	return r->stacks;
}

int ztgpu_reader_read(struct ztgpu_reader *r, struct prof_gpu *into, char *msg, size_t n)
{
	int ret = read_frames(r, into, READ_BUDGET);

	if (ret < 0)
		set_msg(msg, n, r->err ? r->errmsg : strerror(-ret));
	return ret;
}

int ztgpu_decode_mem(const void *buf, size_t len, struct prof_gpu *into, struct profile *stacks,
		     uint32_t *pid, char *msg, size_t n)
{
	struct ztgpu_reader r;
	int ret;

	reader_init(&r);
	r.image = buf ? buf : (const void *)"";
	r.image_len = buf ? len : 0;
	r.stacks = stacks ? stacks : &r.own;
	ret = read_frames(&r, into, UINT64_MAX);
	if (ret < 0)
		set_msg(msg, n, r.err ? r.errmsg : strerror(-ret));
	else if (!r.hdr_size) {
		set_msg(msg, n, len ? "file ends inside the header" : "empty file");
		ret = -EBADMSG;
	}
	if (pid)
		*pid = r.pid;
	reader_release(&r);
	return ret < 0 ? ret : 0;
}
