/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt.data's GPU chunks (man/zt-data.5, version 1.2): per-chunk string
 * tables, columns of zigzag deltas, kernels as a table of launch shapes
 * and per-execution columns, PC-sampling buckets sorted and merged.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ztdata_gpu.h"
#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/strtab.h"

#define NR_COUNTERS 10 /* fields of prof_gpu_counters a 1.2 writer stores */
#define PCS_BYTES   24 /* what a buffered PC bucket is counted as (about its encoding) */

/* ---- a chunk's string table ---------------------------------------------- */

struct strtab {
	struct zt_strtab t;
	size_t enc_len; /* bytes strtab_put() writes after the count */
};

static size_t uv_len(uint64_t v)
{
	size_t n = 1;

	while (v >>= 7)
		n++;
	return n;
}

static int strtab_id(struct strtab *t, const char *s, uint32_t *id)
{
	size_t len = s ? strlen(s) : 0, nr = zt_strtab_count(&t->t);
	int ret;

	if (len > ZTD_GPU_STR_MAX)
		return -E2BIG;
	ret = zt_strtab_intern(&t->t, s, len, id);
	if (!ret && zt_strtab_count(&t->t) > nr)
		t->enc_len += uv_len(len) + len;
	return ret;
}

/* The count, then each string: uv length, then the bytes. */
static void strtab_put(const struct strtab *t, struct zbuf *pl)
{
	uint32_t i, nr = (uint32_t)zt_strtab_count(&t->t);

	zbuf_put_uv(pl, nr);
	for (i = 0; i < nr; i++) {
		zbuf_put_uv(pl, zt_strtab_len(&t->t, i));
		zbuf_put(pl, zt_strtab_str(&t->t, i), zt_strtab_len(&t->t, i));
	}
}

static void strtab_reset(struct strtab *t)
{
	zt_strtab_clear(&t->t);
	t->enc_len = 0;
}

static void strtab_release(struct strtab *t)
{
	zt_strtab_release(&t->t);
}

/* ---- the writer ---------------------------------------------------------- */

/* What kernels launched alike share: one row of a chunk's shape table. */
struct kshape {
	uint64_t graph_node_id;
	uint32_t name, pid, device, context, stream, graph_id;
	uint32_t grid[3], block[3];
	uint32_t regs, smem_static, smem_dynamic, local_mem;
};

enum { K_SHAPE, K_START, K_DUR, K_CORR, K_FLAGS, K_QUEUED, K_SUBMITTED, K_NCOLS };
enum {
	M_PID,
	M_START,
	M_DUR,
	M_BYTES,
	M_CORR,
	M_KINDS,
	M_DEVICE,
	M_CONTEXT,
	M_STREAM,
	M_VALUE,
	M_GRAPH,
	M_NCOLS
};
enum { L_PID, L_TID, L_TS, L_CORR, L_FLAGS, L_CBID, L_DOMAIN, L_STACK, L_OUTER, L_GRAPH, L_NCOLS };
enum { P_PID, P_CONTEXT, P_CRC, P_FUNC, P_FINDEX, P_PC, P_STALL, P_SAMPLES, P_CORR, P_NCOLS };

#define KF_QUEUED    1u /* kernel flags: queued is stored */
#define KF_SUBMITTED 2u /* submitted is stored */

struct pcsrec {
	uint64_t crc, pc, samples;
	uint32_t pid, context, func, findex, stall, corr;
};

struct ztd_gpu_writer {
	/* GPU_META */
	struct strtab mstr;
	struct zbuf stalls, counters, infos;
	uint64_t nr_stalls, nr_counters, nr_infos;
	/* GPU_CUBINS */
	struct zbuf cubins;
	uint64_t nr_cubins;
	uint64_t *crcs; /* every crc put, for the whole file */
	size_t nr_crcs, cap_crcs;
	struct zt_htab crc_hash;
	/* GPU_KERNELS */
	struct strtab kstr;
	struct kshape *shapes;
	size_t nr_shapes, cap_shapes;
	uint64_t *shape_dur; /* the last duration of each shape: the delta base */
	size_t cap_shape_dur;
	struct zt_htab shape_hash;
	struct zbuf kcol[K_NCOLS];
	uint64_t nr_kernels, k_end; /* delta base: the previous kernel's end */
	uint32_t k_corr;
	/* GPU_MEMOPS */
	struct zbuf mcol[M_NCOLS];
	uint64_t nr_memops, m_start;
	uint32_t m_pid, m_corr;
	/* GPU_LAUNCHES */
	struct zbuf lcol[L_NCOLS];
	uint64_t nr_launches, l_ts;
	uint32_t l_pid, l_corr, l_stack;
	/* GPU_PCS */
	struct strtab pstr;
	struct pcsrec *pcs;
	size_t nr_pcs, cap_pcs;
	/* GPU_OVERHEADS */
	struct zbuf overheads;
	uint64_t nr_overheads, o_start;
	uint32_t o_pid;
};

struct ztd_gpu_writer *ztd_gpu_writer_new(void)
{
	struct ztd_gpu_writer *gw = calloc(1, sizeof(*gw));

	if (!gw)
		errno = ENOMEM;
	return gw;
}

void ztd_gpu_writer_free(struct ztd_gpu_writer *gw)
{
	int i;

	if (!gw)
		return;
	strtab_release(&gw->mstr);
	zbuf_release(&gw->stalls);
	zbuf_release(&gw->counters);
	zbuf_release(&gw->infos);
	zbuf_release(&gw->cubins);
	free(gw->crcs);
	zt_htab_release(&gw->crc_hash);
	strtab_release(&gw->kstr);
	free(gw->shapes);
	free(gw->shape_dur);
	zt_htab_release(&gw->shape_hash);
	for (i = 0; i < K_NCOLS; i++)
		zbuf_release(&gw->kcol[i]);
	for (i = 0; i < M_NCOLS; i++)
		zbuf_release(&gw->mcol[i]);
	for (i = 0; i < L_NCOLS; i++)
		zbuf_release(&gw->lcol[i]);
	strtab_release(&gw->pstr);
	free(gw->pcs);
	zbuf_release(&gw->overheads);
	free(gw);
}

static int cols_err(const struct zbuf *cols, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (cols[i].err)
			return cols[i].err;
	return 0;
}

static size_t cols_len(const struct zbuf *cols, int n)
{
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++)
		len += cols[i].len;
	return len;
}

static void cols_put(struct zbuf *cols, int n, struct zbuf *pl)
{
	int i;

	for (i = 0; i < n; i++) {
		zbuf_put(pl, cols[i].data, cols[i].len);
		zbuf_reset(&cols[i]);
	}
}

static inline uint64_t shape_hash(const struct kshape *s)
{
	return zt_hash_bytes(s, sizeof(*s));
}

static inline uint64_t shape_hash_at(const void *ctx, uint32_t i)
{
	return shape_hash(&((const struct ztd_gpu_writer *)ctx)->shapes[i]);
}

int ztd_gpu_put_kernel(struct ztd_gpu_writer *gw, const struct prof_gpu_kernel *k, const char *name)
{
	struct kshape s;
	uint32_t flags = 0, i;
	size_t j;
	int ret;

	memset(&s, 0, sizeof(s)); /* hashed as bytes: no stray padding */
	if ((ret = strtab_id(&gw->kstr, name, &s.name)))
		return ret;
	s.graph_node_id = k->graph_node_id;
	s.pid = k->pid;
	s.device = k->device;
	s.context = k->context;
	s.stream = k->stream;
	s.graph_id = k->graph_id;
	memcpy(s.grid, k->grid, sizeof(s.grid));
	memcpy(s.block, k->block, sizeof(s.block));
	s.regs = k->regs;
	s.smem_static = k->smem_static;
	s.smem_dynamic = k->smem_dynamic;
	s.local_mem = k->local_mem;
	if (zt_htab_reserve(&gw->shape_hash, 1, shape_hash_at, gw))
		return -ENOMEM;
	for (j = zt_htab_first(&gw->shape_hash, shape_hash(&s));
	     zt_htab_get(&gw->shape_hash, j, &i); j = zt_htab_next(&gw->shape_hash, j))
		if (!memcmp(&gw->shapes[i], &s, sizeof(s)))
			break;
	if (!zt_htab_get(&gw->shape_hash, j, &i)) {
		if (gw->nr_shapes >= UINT32_MAX - 1 ||
		    ZT_GROW(gw->shapes, gw->cap_shapes, gw->nr_shapes + 1) ||
		    ZT_GROW(gw->shape_dur, gw->cap_shape_dur, gw->nr_shapes + 1))
			return -ENOMEM;
		i = (uint32_t)gw->nr_shapes;
		gw->shape_dur[i] = 0;
		gw->shapes[gw->nr_shapes++] = s;
		zt_htab_set(&gw->shape_hash, j, i);
	}
	zbuf_put_uv(&gw->kcol[K_SHAPE], i);
	zbuf_put_sv(&gw->kcol[K_START], (int64_t)(k->start - gw->k_end));
	/* a kernel's time varies little from one run to the next */
	zbuf_put_sv(&gw->kcol[K_DUR], (int64_t)(k->end - k->start - gw->shape_dur[i]));
	gw->shape_dur[i] = k->end - k->start;
	zbuf_put_sv(&gw->kcol[K_CORR], (int64_t)k->corr - gw->k_corr);
	if (k->queued) {
		flags |= KF_QUEUED;
		zbuf_put_sv(&gw->kcol[K_QUEUED], (int64_t)(k->start - k->queued));
	}
	if (k->submitted) {
		flags |= KF_SUBMITTED;
		zbuf_put_sv(&gw->kcol[K_SUBMITTED], (int64_t)(k->start - k->submitted));
	}
	zbuf_put_uv(&gw->kcol[K_FLAGS], flags);
	gw->k_end = k->end;
	gw->k_corr = k->corr;
	gw->nr_kernels++;
	return cols_err(gw->kcol, K_NCOLS);
}

int ztd_gpu_put_memop(struct ztd_gpu_writer *gw, const struct prof_gpu_memop *m)
{
	struct zbuf *c = gw->mcol;

	zbuf_put_sv(&c[M_PID], (int64_t)m->pid - gw->m_pid);
	zbuf_put_sv(&c[M_START], (int64_t)(m->start - gw->m_start));
	zbuf_put_sv(&c[M_DUR], (int64_t)(m->end - m->start));
	zbuf_put_uv(&c[M_BYTES], m->bytes);
	zbuf_put_sv(&c[M_CORR], (int64_t)m->corr - gw->m_corr);
	zbuf_put_uv(&c[M_KINDS], m->kind | (uint32_t)m->copy_kind << 8 |
					 (uint32_t)m->src_kind << 16 | (uint32_t)m->dst_kind << 24);
	zbuf_put_uv(&c[M_DEVICE], m->device);
	zbuf_put_uv(&c[M_CONTEXT], m->context);
	zbuf_put_uv(&c[M_STREAM], m->stream);
	zbuf_put_uv(&c[M_VALUE], m->value);
	zbuf_put_uv(&c[M_GRAPH], m->graph_id);
	gw->m_pid = m->pid;
	gw->m_start = m->start;
	gw->m_corr = m->corr;
	gw->nr_memops++;
	return cols_err(c, M_NCOLS);
}

int ztd_gpu_put_launch(struct ztd_gpu_writer *gw, const struct prof_gpu_launch *l, uint32_t stack)
{
	struct zbuf *c = gw->lcol;
	uint32_t flags = l->flags & ~(uint32_t)PROF_GPU_L_STACK;

	if (stack != PROF_GPU_NO_STACK) {
		flags |= PROF_GPU_L_STACK;
		zbuf_put_sv(&c[L_STACK], (int64_t)stack - gw->l_stack);
		gw->l_stack = stack;
	}
	if (flags & PROF_GPU_L_NESTED)
		zbuf_put_sv(&c[L_OUTER], (int64_t)l->corr - l->outer_corr);
	if (flags & PROF_GPU_L_GRAPH)
		zbuf_put_uv(&c[L_GRAPH], l->graph_id);
	zbuf_put_sv(&c[L_PID], (int64_t)l->pid - gw->l_pid);
	zbuf_put_sv(&c[L_TID], (int64_t)l->tid - l->pid);
	zbuf_put_sv(&c[L_TS], (int64_t)(l->ts - gw->l_ts));
	zbuf_put_sv(&c[L_CORR], (int64_t)l->corr - gw->l_corr);
	zbuf_put_uv(&c[L_FLAGS], flags);
	zbuf_put_uv(&c[L_CBID], l->cbid);
	zbuf_put_uv(&c[L_DOMAIN], l->domain);
	gw->l_pid = l->pid;
	gw->l_ts = l->ts;
	gw->l_corr = l->corr;
	gw->nr_launches++;
	return cols_err(c, L_NCOLS);
}

int ztd_gpu_put_pcs(struct ztd_gpu_writer *gw, const struct prof_gpu_pcs *s, const char *function)
{
	struct pcsrec r = {s->cubin_crc,      s->pc_offset, s->samples, s->pid, s->context, 0,
			   s->function_index, s->stall,	    s->corr};
	int ret = strtab_id(&gw->pstr, function, &r.func);

	if (ret)
		return ret;
	if (ZT_GROW(gw->pcs, gw->cap_pcs, gw->nr_pcs + 1))
		return -ENOMEM;
	gw->pcs[gw->nr_pcs++] = r;
	return 0;
}

int ztd_gpu_put_stall(struct ztd_gpu_writer *gw, const struct prof_gpu_stall *s, const char *name)
{
	uint32_t id;
	int ret = strtab_id(&gw->mstr, name, &id);

	if (ret)
		return ret;
	zbuf_put_uv(&gw->stalls, s->pid);
	zbuf_put_uv(&gw->stalls, s->context);
	zbuf_put_uv(&gw->stalls, s->index);
	zbuf_put_uv(&gw->stalls, id);
	gw->nr_stalls++;
	return gw->stalls.err;
}

int ztd_gpu_put_counters(struct ztd_gpu_writer *gw, const struct prof_gpu_counters *c)
{
	const uint64_t v[NR_COUNTERS] = {c->dropped_records,	c->pc_total_samples,
					 c->pc_dropped_samples, c->pc_nonuser_samples,
					 c->pc_hw_buffer_full,	c->launches,
					 c->launch_stacks,	c->launch_ratelimited,
					 c->mem_dropped,	c->cubins};
	int i;

	zbuf_put_uv(&gw->counters, c->pid);
	zbuf_put_uv(&gw->counters, NR_COUNTERS);
	for (i = 0; i < NR_COUNTERS; i++)
		zbuf_put_uv(&gw->counters, v[i]);
	gw->nr_counters++;
	return gw->counters.err;
}

int ztd_gpu_put_info(struct ztd_gpu_writer *gw, uint32_t pid, const char *key, const char *value)
{
	uint32_t k, v;
	int ret = strtab_id(&gw->mstr, key, &k);

	if (!ret)
		ret = strtab_id(&gw->mstr, value, &v);
	if (ret)
		return ret;
	zbuf_put_uv(&gw->infos, pid);
	zbuf_put_uv(&gw->infos, k);
	zbuf_put_uv(&gw->infos, v);
	gw->nr_infos++;
	return gw->infos.err;
}

int ztd_gpu_put_overhead(struct ztd_gpu_writer *gw, const struct prof_gpu_overhead *o)
{
	struct zbuf *b = &gw->overheads;

	zbuf_put_sv(b, (int64_t)o->pid - gw->o_pid);
	zbuf_put_sv(b, (int64_t)(o->start - gw->o_start));
	zbuf_put_sv(b, (int64_t)(o->end - o->start));
	zbuf_put_uv(b, o->kind);
	zbuf_put_uv(b, o->object_kind);
	zbuf_put_uv(b, o->object_id[0]);
	zbuf_put_uv(b, o->object_id[1]);
	gw->o_pid = o->pid;
	gw->o_start = o->start;
	gw->nr_overheads++;
	return b->err;
}

static inline uint64_t crc_hash_at(const void *ctx, uint32_t i)
{
	return zt_hash_mix(0, ((const struct ztd_gpu_writer *)ctx)->crcs[i]);
}

int ztd_gpu_put_cubin(struct ztd_gpu_writer *gw, const struct prof_gpu_cubin *c)
{
	size_t j;
	uint32_t i;

	if (c->len > ZTD_GPU_CUBIN_MAX)
		return -E2BIG;
	if (zt_htab_reserve(&gw->crc_hash, 1, crc_hash_at, gw))
		return -ENOMEM;
	for (j = zt_htab_first(&gw->crc_hash, zt_hash_mix(0, c->crc));
	     zt_htab_get(&gw->crc_hash, j, &i); j = zt_htab_next(&gw->crc_hash, j))
		if (gw->crcs[i] == c->crc)
			return 1;
	if (gw->nr_crcs >= UINT32_MAX - 1 || ZT_GROW(gw->crcs, gw->cap_crcs, gw->nr_crcs + 1))
		return -ENOMEM;
	zbuf_put_uv(&gw->cubins, c->crc);
	zbuf_put_uv(&gw->cubins, c->pid);
	zbuf_put_uv(&gw->cubins, c->module_id);
	zbuf_put_uv(&gw->cubins, c->context);
	zbuf_put_bytes(&gw->cubins, c->data, c->len);
	if (gw->cubins.err)
		return gw->cubins.err;
	gw->crcs[gw->nr_crcs] = c->crc;
	zt_htab_set(&gw->crc_hash, j, (uint32_t)gw->nr_crcs++);
	gw->nr_cubins++;
	return 0;
}

size_t ztd_gpu_pending(const struct ztd_gpu_writer *gw, uint32_t type)
{
	size_t n[ZTD_GPU_LAST + 1] = {0}, sum = 0;
	uint32_t t;

	if (!gw)
		return 0;
	n[ZTD_GPU_META] = gw->mstr.enc_len + gw->stalls.len + gw->counters.len + gw->infos.len;
	n[ZTD_GPU_CUBINS] = gw->cubins.len;
	n[ZTD_GPU_KERNELS] = gw->kstr.enc_len + gw->nr_shapes * sizeof(struct kshape) +
			     cols_len(gw->kcol, K_NCOLS);
	n[ZTD_GPU_MEMOPS] = cols_len(gw->mcol, M_NCOLS);
	n[ZTD_GPU_LAUNCHES] = cols_len(gw->lcol, L_NCOLS);
	n[ZTD_GPU_PCS] = gw->pstr.enc_len + gw->nr_pcs * PCS_BYTES;
	n[ZTD_GPU_OVERHEADS] = gw->overheads.len;
	if (type)
		return ztd_gpu_type(type) ? n[type] : 0;
	for (t = ZTD_GPU_FIRST; t <= ZTD_GPU_LAST; t++)
		sum += n[t];
	return sum;
}

static int pcs_before(const struct pcsrec *a, const struct pcsrec *b)
{
#define CMP(f)            \
	if (a->f != b->f) \
		return a->f < b->f;
	CMP(pid)
	CMP(context)
	CMP(crc)
	CMP(func)
	CMP(findex)
	CMP(pc)
	CMP(stall)
	CMP(corr)
#undef CMP
	return 0;
}

static int pcs_cmp(const void *a, const void *b)
{
	return pcs_before(a, b) ? -1 : pcs_before(b, a);
}

/* Buckets sorted, equal ones merged (their order carries nothing), as
 * columns of deltas: neighbours differ in a field or two. */
static void seal_pcs(struct ztd_gpu_writer *gw, struct zbuf *pl)
{
	struct zbuf col[P_NCOLS];
	struct pcsrec prev = {0};
	size_t i, n = 0;
	int k;

	if (gw->nr_pcs > 1)
		qsort(gw->pcs, gw->nr_pcs, sizeof(*gw->pcs), pcs_cmp);
	for (i = 0; i < gw->nr_pcs; i++) {
		if (n && !pcs_cmp(&gw->pcs[n - 1], &gw->pcs[i])) {
			uint64_t *s = &gw->pcs[n - 1].samples;

			*s = gw->pcs[i].samples > UINT64_MAX - *s ? UINT64_MAX
								  : *s + gw->pcs[i].samples;
			continue;
		}
		gw->pcs[n++] = gw->pcs[i];
	}
	for (k = 0; k < P_NCOLS; k++)
		zbuf_init(&col[k]);
	for (i = 0; i < n; i++) {
		const struct pcsrec *r = &gw->pcs[i];

		zbuf_put_sv(&col[P_PID], (int64_t)r->pid - prev.pid);
		zbuf_put_sv(&col[P_CONTEXT], (int64_t)r->context - prev.context);
		zbuf_put_sv(&col[P_CRC], (int64_t)(r->crc - prev.crc));
		zbuf_put_sv(&col[P_FUNC], (int64_t)r->func - prev.func);
		zbuf_put_sv(&col[P_FINDEX], (int64_t)r->findex - prev.findex);
		zbuf_put_sv(&col[P_PC], (int64_t)(r->pc - prev.pc));
		zbuf_put_uv(&col[P_STALL], r->stall);
		zbuf_put_uv(&col[P_SAMPLES], r->samples);
		zbuf_put_uv(&col[P_CORR], r->corr);
		prev = *r;
	}
	strtab_put(&gw->pstr, pl);
	zbuf_put_uv(pl, n);
	for (k = 0; k < P_NCOLS; k++) {
		if (col[k].err && !pl->err)
			pl->err = col[k].err;
		zbuf_put(pl, col[k].data, col[k].len);
		zbuf_release(&col[k]);
	}
	strtab_reset(&gw->pstr);
	gw->nr_pcs = 0;
}

static void seal_kernels(struct ztd_gpu_writer *gw, struct zbuf *pl)
{
	size_t i;

	strtab_put(&gw->kstr, pl);
	zbuf_put_uv(pl, gw->nr_shapes);
	for (i = 0; i < gw->nr_shapes; i++) {
		const struct kshape *s = &gw->shapes[i];

		zbuf_put_uv(pl, s->name);
		zbuf_put_uv(pl, s->pid);
		zbuf_put_uv(pl, s->device);
		zbuf_put_uv(pl, s->context);
		zbuf_put_uv(pl, s->stream);
		zbuf_put_uv(pl, s->grid[0]);
		zbuf_put_uv(pl, s->grid[1]);
		zbuf_put_uv(pl, s->grid[2]);
		zbuf_put_uv(pl, s->block[0]);
		zbuf_put_uv(pl, s->block[1]);
		zbuf_put_uv(pl, s->block[2]);
		zbuf_put_uv(pl, s->regs);
		zbuf_put_uv(pl, s->smem_static);
		zbuf_put_uv(pl, s->smem_dynamic);
		zbuf_put_uv(pl, s->local_mem);
		zbuf_put_uv(pl, s->graph_id);
		zbuf_put_uv(pl, s->graph_node_id);
	}
	zbuf_put_uv(pl, gw->nr_kernels);
	cols_put(gw->kcol, K_NCOLS, pl);
	strtab_reset(&gw->kstr);
	gw->nr_shapes = 0;
	zt_htab_clear(&gw->shape_hash);
	gw->nr_kernels = gw->k_end = 0;
	gw->k_corr = 0;
}

/* A count, then rows: the buffer b emptied into pl. */
static void put_rows(struct zbuf *pl, uint64_t *n, struct zbuf *b)
{
	zbuf_put_uv(pl, *n);
	zbuf_put(pl, b->data, b->len);
	zbuf_reset(b);
	*n = 0;
}

int ztd_gpu_seal(struct ztd_gpu_writer *gw, uint32_t type, struct zbuf *pl)
{
	zbuf_reset(pl);
	switch (gw ? type : 0) {
	case ZTD_GPU_META:
		if (!gw->nr_stalls && !gw->nr_counters && !gw->nr_infos)
			break;
		strtab_put(&gw->mstr, pl);
		put_rows(pl, &gw->nr_stalls, &gw->stalls);
		put_rows(pl, &gw->nr_counters, &gw->counters);
		put_rows(pl, &gw->nr_infos, &gw->infos);
		strtab_reset(&gw->mstr);
		break;
	case ZTD_GPU_CUBINS:
		if (gw->nr_cubins)
			put_rows(pl, &gw->nr_cubins, &gw->cubins);
		break;
	case ZTD_GPU_KERNELS:
		if (gw->nr_kernels)
			seal_kernels(gw, pl);
		break;
	case ZTD_GPU_MEMOPS:
		if (!gw->nr_memops)
			break;
		zbuf_put_uv(pl, gw->nr_memops);
		cols_put(gw->mcol, M_NCOLS, pl);
		gw->nr_memops = gw->m_start = 0;
		gw->m_pid = gw->m_corr = 0;
		break;
	case ZTD_GPU_LAUNCHES:
		if (!gw->nr_launches)
			break;
		zbuf_put_uv(pl, gw->nr_launches);
		cols_put(gw->lcol, L_NCOLS, pl);
		gw->nr_launches = gw->l_ts = 0;
		gw->l_pid = gw->l_corr = gw->l_stack = 0;
		break;
	case ZTD_GPU_PCS:
		if (gw->nr_pcs)
			seal_pcs(gw, pl);
		break;
	case ZTD_GPU_OVERHEADS:
		if (!gw->nr_overheads)
			break;
		put_rows(pl, &gw->nr_overheads, &gw->overheads);
		gw->o_start = 0;
		gw->o_pid = 0;
		break;
	}
	return pl->err;
}

/* ---- the reader ---------------------------------------------------------- */

__attribute__((format(printf, 2, 3))) static int bad(struct ztd_gpu_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->why, x->why_len, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static int skip_uvs(struct zcur *c, uint64_t n)
{
	uint64_t i, x;

	for (i = 0; i < n; i++)
		if (zcur_uv(c, &x))
			return -EBADMSG;
	return 0;
}

/* Where the n-entry columns start, one after the other: col[0 .. ncols). */
static int find_cols(struct zcur *c, uint64_t n, struct zcur *col, int ncols)
{
	int k;

	for (k = 0; k < ncols; k++) {
		col[k] = *c;
		if (skip_uvs(c, n))
			return -EBADMSG;
	}
	return 0;
}

/* A chunk's string table: checked, and with apply interned into g (ids in
 * *map, allocated, caller frees). */
static int get_strtab(struct zcur *c, int apply, struct prof_gpu *g, uint64_t *nstr, uint32_t **map,
		      struct ztd_gpu_ctx *x)
{
	uint64_t i;

	*map = NULL;
	if (zcur_uv(c, nstr))
		return bad(x, "no string count");
	if (*nstr > zcur_left(c))
		return bad(x, "string count %llu exceeds the payload", (unsigned long long)*nstr);
	if (apply && *nstr && !(*map = malloc(*nstr * sizeof(**map))))
		return -ENOMEM;
	for (i = 0; i < *nstr; i++) {
		const uint8_t *s;
		size_t n;
		int ret;

		if (zcur_bytes(c, &s, &n) || memchr(s, 0, n))
			return bad(x, "string %llu does not decode", (unsigned long long)i);
		if (apply && (ret = prof_gpu_intern(g, (const char *)s, n, &(*map)[i])))
			return ret;
	}
	return 0;
}

static int get_gpu(struct ztd_gpu_ctx *x, struct prof_gpu **g)
{
	if (!x->p->gpu && !(x->p->gpu = prof_gpu_new()))
		return -ENOMEM;
	*g = x->p->gpu;
	return 0;
}

static int dec_meta(struct zcur *c, int apply, struct prof_gpu *g, uint32_t *map, uint64_t nstr,
		    struct ztd_gpu_ctx *x)
{
	uint64_t n, i, k, nf, v;
	int ret;

	if (zcur_uv(c, &n) || n > zcur_left(c) / 4)
		return bad(x, "bad stall count");
	for (i = 0; i < n; i++) {
		struct prof_gpu_stall s;

		if (zcur_uv32(c, &s.pid) || zcur_uv32(c, &s.context) || zcur_uv32(c, &s.index) ||
		    zcur_uv32(c, &s.name) || s.name >= nstr)
			return bad(x, "stall %llu does not decode", (unsigned long long)i);
		if (!apply)
			continue;
		s.name = map[s.name];
		if ((ret = prof_gpu_add_stall(g, &s)))
			return ret;
	}
	if (zcur_uv(c, &n) || n > zcur_left(c) / 2)
		return bad(x, "bad counters count");
	for (i = 0; i < n; i++) {
		struct prof_gpu_counters ct = {0};
		uint64_t *f[NR_COUNTERS] = {&ct.dropped_records,    &ct.pc_total_samples,
					    &ct.pc_dropped_samples, &ct.pc_nonuser_samples,
					    &ct.pc_hw_buffer_full,  &ct.launches,
					    &ct.launch_stacks,	    &ct.launch_ratelimited,
					    &ct.mem_dropped,	    &ct.cubins};

		if (zcur_uv32(c, &ct.pid) || zcur_uv(c, &nf) || nf > zcur_left(c))
			return bad(x, "counters %llu do not decode", (unsigned long long)i);
		for (k = 0; k < nf; k++) {
			if (zcur_uv(c, &v))
				return bad(x, "counters %llu do not decode", (unsigned long long)i);
			if (k < NR_COUNTERS)
				*f[k] = v;
		}
		if (apply && (ret = prof_gpu_set_counters(g, &ct)))
			return ret;
	}
	if (zcur_uv(c, &n) || n > zcur_left(c) / 3)
		return bad(x, "bad info count");
	for (i = 0; i < n; i++) {
		uint32_t pid, key, value;

		if (zcur_uv32(c, &pid) || zcur_uv32(c, &key) || zcur_uv32(c, &value) || key >= nstr ||
		    value >= nstr)
			return bad(x, "info %llu does not decode", (unsigned long long)i);
		if (apply && (ret = prof_gpu_add_info(g, pid, prof_gpu_str(g, map[key]),
						      prof_gpu_str(g, map[value]))))
			return ret;
	}
	return 0;
}

static int dec_cubins(struct zcur *c, int apply, struct prof_gpu *g, struct ztd_gpu_ctx *x)
{
	uint64_t n, i, crc;

	if (zcur_uv(c, &n) || n > zcur_left(c) / 5)
		return bad(x, "bad cubin count");
	for (i = 0; i < n; i++) {
		uint32_t pid, module, context;
		const uint8_t *d;
		size_t len;
		int ret;

		if (zcur_uv(c, &crc) || zcur_uv32(c, &pid) || zcur_uv32(c, &module) ||
		    zcur_uv32(c, &context) || zcur_bytes(c, &d, &len))
			return bad(x, "cubin %llu does not decode", (unsigned long long)i);
		if (apply && (ret = prof_gpu_add_cubin(g, crc, pid, module, context, d, len)) < 0)
			return ret;
	}
	return 0;
}

static int dec_kernels(struct zcur *c, int apply, struct prof_gpu *g, uint32_t *map, uint64_t nstr,
		       struct ztd_gpu_ctx *x)
{
	struct zcur col[K_NCOLS], fl;
	struct kshape *shapes = NULL;
	uint64_t nsh, n, i, nq = 0, ns = 0, end = 0, v, *durs = NULL;
	uint32_t corr = 0;
	int ret = 0;

	if (zcur_uv(c, &nsh) || nsh > zcur_left(c) / 17)
		return bad(x, "bad shape count");
	if (nsh && (!(durs = calloc(nsh, sizeof(*durs))) ||
		    (apply && !(shapes = malloc(nsh * sizeof(*shapes)))))) {
		free(durs);
		return -ENOMEM;
	}
	for (i = 0; i < nsh; i++) {
		struct kshape s;
		uint32_t *f[] = {&s.name,	 &s.pid,	  &s.device,	&s.context,
				 &s.stream,	 &s.grid[0],	  &s.grid[1],	&s.grid[2],
				 &s.block[0],	 &s.block[1],	  &s.block[2],	&s.regs,
				 &s.smem_static, &s.smem_dynamic, &s.local_mem, &s.graph_id};
		size_t k;

		for (k = 0; k < sizeof(f) / sizeof(f[0]); k++)
			if (zcur_uv32(c, f[k]))
				break;
		if (k < sizeof(f) / sizeof(f[0]) || zcur_uv(c, &s.graph_node_id) ||
		    s.name >= nstr) {
			ret = bad(x, "shape %llu does not decode", (unsigned long long)i);
			goto out;
		}
		if (shapes)
			shapes[i] = s;
	}
	if (zcur_uv(c, &n) || n > zcur_left(c) / 5) {
		ret = bad(x, "bad kernel count");
		goto out;
	}
	if (find_cols(c, n, col, K_FLAGS + 1)) {
		ret = bad(x, "kernel columns are short");
		goto out;
	}
	for (fl = col[K_FLAGS], i = 0; i < n; i++) {
		zcur_uv(&fl, &v);
		nq += !!(v & KF_QUEUED);
		ns += !!(v & KF_SUBMITTED);
	}
	col[K_QUEUED] = *c;
	if (skip_uvs(c, nq) || (col[K_SUBMITTED] = *c, skip_uvs(c, ns))) {
		ret = bad(x, "kernel queue times are short");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct prof_gpu_kernel k = {0};
		uint64_t sh, flags;
		int64_t ds, dur, dc, d;

		if (zcur_uv(&col[K_SHAPE], &sh) || zcur_sv(&col[K_START], &ds) ||
		    zcur_sv(&col[K_DUR], &dur) || zcur_sv(&col[K_CORR], &dc) ||
		    zcur_uv(&col[K_FLAGS], &flags) || sh >= nsh ||
		    zt_delta_u32(corr, dc, UINT32_MAX, &corr)) {
			ret = bad(x, "kernel %llu does not decode", (unsigned long long)i);
			goto out;
		}
		k.start = end + (uint64_t)ds;
		durs[sh] += (uint64_t)dur;
		k.end = end = k.start + durs[sh];
		if (flags & KF_QUEUED) {
			zcur_sv(&col[K_QUEUED], &d);
			k.queued = k.start - (uint64_t)d;
		}
		if (flags & KF_SUBMITTED) {
			zcur_sv(&col[K_SUBMITTED], &d);
			k.submitted = k.start - (uint64_t)d;
		}
		if (!apply)
			continue;
		k.corr = corr;
		k.name = map[shapes[sh].name];
		k.pid = shapes[sh].pid;
		k.device = shapes[sh].device;
		k.context = shapes[sh].context;
		k.stream = shapes[sh].stream;
		k.graph_id = shapes[sh].graph_id;
		k.graph_node_id = shapes[sh].graph_node_id;
		memcpy(k.grid, shapes[sh].grid, sizeof(k.grid));
		memcpy(k.block, shapes[sh].block, sizeof(k.block));
		k.regs = shapes[sh].regs;
		k.smem_static = shapes[sh].smem_static;
		k.smem_dynamic = shapes[sh].smem_dynamic;
		k.local_mem = shapes[sh].local_mem;
		if ((ret = prof_gpu_add_kernel(g, &k)))
			goto out;
	}
out:
	free(shapes);
	free(durs);
	return ret;
}

static int dec_memops(struct zcur *c, int apply, struct prof_gpu *g, struct ztd_gpu_ctx *x)
{
	struct zcur col[M_NCOLS];
	uint64_t n, i, start = 0;
	uint32_t pid = 0, corr = 0;
	int ret;

	if (zcur_uv(c, &n) || n > zcur_left(c) / M_NCOLS)
		return bad(x, "bad memory operation count");
	if (find_cols(c, n, col, M_NCOLS))
		return bad(x, "memory operation columns are short");
	for (i = 0; i < n; i++) {
		struct prof_gpu_memop m = {0};
		int64_t dp, ds, dur, dc;
		uint32_t kinds;

		if (zcur_sv(&col[M_PID], &dp) || zcur_sv(&col[M_START], &ds) ||
		    zcur_sv(&col[M_DUR], &dur) || zcur_uv(&col[M_BYTES], &m.bytes) ||
		    zcur_sv(&col[M_CORR], &dc) || zcur_uv32(&col[M_KINDS], &kinds) ||
		    zcur_uv32(&col[M_DEVICE], &m.device) || zcur_uv32(&col[M_CONTEXT], &m.context) ||
		    zcur_uv32(&col[M_STREAM], &m.stream) || zcur_uv32(&col[M_VALUE], &m.value) ||
		    zcur_uv32(&col[M_GRAPH], &m.graph_id) || zt_delta_u32(pid, dp, UINT32_MAX, &pid) ||
		    zt_delta_u32(corr, dc, UINT32_MAX, &corr))
			return bad(x, "memory operation %llu does not decode",
				   (unsigned long long)i);
		start += (uint64_t)ds;
		if (!apply)
			continue;
		m.pid = pid;
		m.start = start;
		m.end = start + (uint64_t)dur;
		m.corr = corr;
		m.kind = (uint8_t)kinds;
		m.copy_kind = (uint8_t)(kinds >> 8);
		m.src_kind = (uint8_t)(kinds >> 16);
		m.dst_kind = (uint8_t)(kinds >> 24);
		if ((ret = prof_gpu_add_memop(g, &m)))
			return ret;
	}
	return 0;
}

static int dec_launches(struct zcur *c, int apply, struct prof_gpu *g, struct ztd_gpu_ctx *x)
{
	struct zcur col[L_NCOLS], fl;
	uint64_t n, i, ts = 0, nst = 0, nout = 0, ngr = 0, v;
	uint32_t pid = 0, corr = 0, stack = 0;
	int ret;

	/* the columns before L_STACK have an entry per launch */
	if (zcur_uv(c, &n) || n > zcur_left(c) / L_STACK)
		return bad(x, "bad launch count");
	if (find_cols(c, n, col, L_STACK))
		return bad(x, "launch columns are short");
	for (fl = col[L_FLAGS], i = 0; i < n; i++) {
		zcur_uv(&fl, &v);
		nst += !!(v & PROF_GPU_L_STACK);
		nout += !!(v & PROF_GPU_L_NESTED);
		ngr += !!(v & PROF_GPU_L_GRAPH);
	}
	col[L_STACK] = *c;
	if (skip_uvs(c, nst) || (col[L_OUTER] = *c, skip_uvs(c, nout)) ||
	    (col[L_GRAPH] = *c, skip_uvs(c, ngr)))
		return bad(x, "launch stack, outer or graph ids are short");
	for (i = 0; i < n; i++) {
		struct prof_gpu_launch l = {.stack = PROF_GPU_NO_STACK};
		int64_t dp, dt, dts, dc, d;

		if (zcur_sv(&col[L_PID], &dp) || zcur_sv(&col[L_TID], &dt) ||
		    zcur_sv(&col[L_TS], &dts) || zcur_sv(&col[L_CORR], &dc) ||
		    zcur_uv32(&col[L_FLAGS], &l.flags) || zcur_uv32(&col[L_CBID], &l.cbid) ||
		    zcur_uv32(&col[L_DOMAIN], &l.domain) || zt_delta_u32(pid, dp, UINT32_MAX, &pid) ||
		    zt_delta_u32(pid, dt, UINT32_MAX, &l.tid) ||
		    zt_delta_u32(corr, dc, UINT32_MAX, &corr))
			return bad(x, "launch %llu does not decode", (unsigned long long)i);
		ts += (uint64_t)dts;
		if (l.flags & PROF_GPU_L_STACK) {
			zcur_sv(&col[L_STACK], &d);
			if (!x->nr_fmap || zt_delta_u32(stack, d, x->nr_fmap - 1, &stack))
				return bad(x, "launch %llu: stack id not defined by earlier chunks",
					   (unsigned long long)i);
			l.stack = apply ? x->fmap[stack] : stack;
		}
		if (l.flags & PROF_GPU_L_NESTED) {
			zcur_sv(&col[L_OUTER], &d);
			if (d < -(int64_t)UINT32_MAX || d > (int64_t)UINT32_MAX ||
			    zt_delta_u32(corr, -d, UINT32_MAX, &l.outer_corr))
				return bad(x, "launch %llu: bad outer correlation id",
					   (unsigned long long)i);
		}
		if ((l.flags & PROF_GPU_L_GRAPH) && zcur_uv32(&col[L_GRAPH], &l.graph_id))
			return bad(x, "launch %llu: bad graph id", (unsigned long long)i);
		if (!apply)
			continue;
		l.pid = pid;
		l.ts = ts;
		l.corr = corr;
		if ((ret = prof_gpu_add_launch(g, &l)))
			return ret;
	}
	return 0;
}

static int dec_pcs(struct zcur *c, int apply, struct prof_gpu *g, uint32_t *map, uint64_t nstr,
		   struct ztd_gpu_ctx *x)
{
	struct zcur col[P_NCOLS];
	struct prof_gpu_pcs s = {0};
	uint64_t n, i;
	uint32_t func = 0;
	int ret;

	if (zcur_uv(c, &n) || n > zcur_left(c) / P_NCOLS)
		return bad(x, "bad bucket count");
	if (find_cols(c, n, col, P_NCOLS))
		return bad(x, "bucket columns are short");
	for (i = 0; i < n; i++) {
		int64_t dp, dctx, dcrc, df, dfi, dpc;

		if (zcur_sv(&col[P_PID], &dp) || zcur_sv(&col[P_CONTEXT], &dctx) ||
		    zcur_sv(&col[P_CRC], &dcrc) || zcur_sv(&col[P_FUNC], &df) ||
		    zcur_sv(&col[P_FINDEX], &dfi) || zcur_sv(&col[P_PC], &dpc) ||
		    zcur_uv32(&col[P_STALL], &s.stall) || zcur_uv(&col[P_SAMPLES], &s.samples) ||
		    zcur_uv32(&col[P_CORR], &s.corr) || zt_delta_u32(s.pid, dp, UINT32_MAX, &s.pid) ||
		    zt_delta_u32(s.context, dctx, UINT32_MAX, &s.context) ||
		    zt_delta_u32(s.function_index, dfi, UINT32_MAX, &s.function_index) || !nstr ||
		    zt_delta_u32(func, df, nstr - 1, &func))
			return bad(x, "bucket %llu does not decode", (unsigned long long)i);
		s.cubin_crc += (uint64_t)dcrc;
		s.pc_offset += (uint64_t)dpc;
		if (!apply)
			continue;
		s.function = map[func];
		if ((ret = prof_gpu_add_pcs(g, &s)))
			return ret;
	}
	return 0;
}

static int dec_overheads(struct zcur *c, int apply, struct prof_gpu *g, struct ztd_gpu_ctx *x)
{
	uint64_t n, i, start = 0;
	uint32_t pid = 0;
	int ret;

	if (zcur_uv(c, &n) || n > zcur_left(c) / 7)
		return bad(x, "bad overhead count");
	for (i = 0; i < n; i++) {
		struct prof_gpu_overhead o = {0};
		int64_t dp, ds, dur;

		if (zcur_sv(c, &dp) || zcur_sv(c, &ds) || zcur_sv(c, &dur) || zcur_uv32(c, &o.kind) ||
		    zcur_uv32(c, &o.object_kind) || zcur_uv32(c, &o.object_id[0]) ||
		    zcur_uv32(c, &o.object_id[1]) || zt_delta_u32(pid, dp, UINT32_MAX, &pid))
			return bad(x, "overhead %llu does not decode", (unsigned long long)i);
		start += (uint64_t)ds;
		if (!apply)
			continue;
		o.pid = pid;
		o.start = start;
		o.end = start + (uint64_t)dur;
		if ((ret = prof_gpu_add_overhead(g, &o)))
			return ret;
	}
	return 0;
}

int ztd_gpu_decode(uint32_t type, struct zcur *c, int apply, struct ztd_gpu_ctx *x)
{
	struct prof_gpu *g = NULL;
	uint32_t *map = NULL;
	uint64_t nstr = 0;
	int ret;

	if (apply && (ret = get_gpu(x, &g)))
		return ret;
	if (type == ZTD_GPU_META || type == ZTD_GPU_KERNELS || type == ZTD_GPU_PCS) {
		ret = get_strtab(c, apply, g, &nstr, &map, x);
		if (ret)
			goto out;
	}
	switch (type) {
	case ZTD_GPU_META:
		ret = dec_meta(c, apply, g, map, nstr, x);
		break;
	case ZTD_GPU_CUBINS:
		ret = dec_cubins(c, apply, g, x);
		break;
	case ZTD_GPU_KERNELS:
		ret = dec_kernels(c, apply, g, map, nstr, x);
		break;
	case ZTD_GPU_MEMOPS:
		ret = dec_memops(c, apply, g, x);
		break;
	case ZTD_GPU_LAUNCHES:
		ret = dec_launches(c, apply, g, x);
		break;
	case ZTD_GPU_PCS:
		ret = dec_pcs(c, apply, g, map, nstr, x);
		break;
	case ZTD_GPU_OVERHEADS:
		ret = dec_overheads(c, apply, g, x);
		break;
	default:
		ret = 0;
	}
out:
	free(map);
	return ret;
}
