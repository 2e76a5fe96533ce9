/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GPU stacks as folded text: launch stacks, kernels, device functions,
 * source lines and stall reasons, weighted by PC samples or by GPU time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gpufolded.h"
#include "formats/perfscript.h"
#include "libprof/array.h"
#include "libprof/strtab.h"
#include "libprof/zbuf.h"

#define STALL_PREFIX "smsp__pcsamp_warps_issue_stalled_"

char *gpufolded_stall(const char *name, uint32_t index, char *buf, size_t n)
{
	size_t pl = strlen(STALL_PREFIX);

	if (!name || !*name)
		snprintf(buf, n, "stall_%u", index);
	else
		snprintf(buf, n, "%s",
			 strncmp(name, STALL_PREFIX, pl) || !name[pl] ? name : name + pl);
	return buf;
}

/* A name as one folded frame: ';' made ':', control characters '?'. */
static void put_name(struct zbuf *b, const char *s)
{
	size_t n = strlen(s), i;

	if (zbuf_reserve(b, n))
		return;
	for (i = 0; i < n; i++) {
		char c = s[i];

		b->data[b->len + i] = c == ';'				       ? ':'
				      : ((unsigned char)c < 0x20 || c == 0x7f) ? '?'
									       : c;
	}
	b->len += n;
}

static void put_str(struct zbuf *b, const char *s)
{
	zbuf_put(b, s, strlen(s));
}

/* ---- launch stacks ---- */

/* The module's base name starts with pre. */
static int module_is(const char *module, const char *pre)
{
	const char *b;

	if (!module)
		return 0;
	b = strrchr(module, '/');
	b = b ? b + 1 : module;
	return !strncmp(b, pre, strlen(pre));
}

static const char *module_of(const struct frametab *ft, const struct zt_frange *r)
{
	return r->n ? frametab_frame(ft, r->first + r->n - 1)->module : NULL;
}

unsigned gpufolded_trim(const struct frametab *ft, const struct zt_frange *r, unsigned n)
{
	unsigned i = 0, j;

	/* CUPTI's and zt's frames, up to the outermost one (what they
	 * called, libc's say, goes with them) */
	for (j = 0; j < n; j++)
		if (module_is(module_of(ft, &r[j]), "libcupti") ||
		    module_is(module_of(ft, &r[j]), "libztcupti"))
			i = j + 1;
	for (j = i; j < n && module_is(module_of(ft, &r[j]), "libcuda"); j++)
		;
	if (j == i)
		return i;
	/* the driver's frames i .. j - 1: its API function (j - 1) stays,
	 * unless the runtime called it */
	if (j < n && module_is(module_of(ft, &r[j]), "libcudart"))
		return j;
	return j - 1;
}

void gpu_launch_stacks_init(struct gpu_launch_stacks *ls, const struct rstacks *rs,
			    int inline_frames)
{
	memset(ls, 0, sizeof(*ls));
	if (rs)
		ls->rs = *rs;
	stackgroups_init(&ls->sg, &ls->rs);
	zt_strtab_init(&ls->other);
	ls->inline_frames = inline_frames;
}

void gpu_launch_stacks_release(struct gpu_launch_stacks *ls)
{
	size_t i;

	for (i = 0; i < ls->sg.nr && ls->pfx; i++)
		free(ls->pfx[i]);
	free(ls->pfx);
	zt_strtab_release(&ls->other);
	stackgroups_release(&ls->sg);
	memset(ls, 0, sizeof(*ls));
}

/* The process name of a stack ("comm" as zt script --folded has it). */
static void comm_of(const struct gpu_launch_stacks *ls, uint32_t pid, uint32_t tid, uint64_t ts,
		    char *out, size_t n)
{
	const char *c = ls->rs.pt ? rstacks_comm(&ls->rs, pid, tid, ts) : NULL;
	char cbuf[32], comm[64];

	prof_sanitize(comm, sizeof(comm), perfscript_comm(c, pid, tid, cbuf, sizeof(cbuf)));
	folded_comm(comm, out, n);
}

/* "comm;[no launch stack]", kept once. */
static int no_stack(struct gpu_launch_stacks *ls, uint32_t pid, uint32_t tid, uint64_t ts,
		    const char **out)
{
	char name[64], s[64 + sizeof(GPUFOLDED_NO_STACK) + 1];

	comm_of(ls, pid, tid, ts, name, sizeof(name));
	snprintf(s, sizeof(s), "%s;%s", name, GPUFOLDED_NO_STACK);
	*out = zt_strtab_ptr(&ls->other, s);
	return *out ? 0 : -errno;
}

int gpu_launch_stacks_prefix(void *ctx, uint32_t pid, const struct prof_gpu_launch *l, uint64_t ts,
			     const char **out)
{
	struct gpu_launch_stacks *ls = ctx;
	struct prof_sample smp;
	const struct zt_frange *r;
	const uint64_t *ips;
	char name[64];
	struct zbuf b;
	uint32_t gi;
	unsigned n, skip;
	int is_new, ret;
	size_t old = ls->sg.nr;

	if (!l || l->stack == PROF_GPU_NO_STACK || !ls->rs.prof || l->stack >= ls->rs.prof->nr_stacks)
		return no_stack(ls, pid, l ? l->tid : pid, l ? l->ts : ts, out);
	smp = (struct prof_sample){.ts = l->ts, .pid = l->pid, .tid = l->tid, .stack = l->stack};
	comm_of(ls, l->pid, l->tid, l->ts, name, sizeof(name));
	/* grouped by thread name too: the name heads the stack */
	ret = stackgroups_add(&ls->sg, &smp,
			      ls->rs.pt ? rstacks_comm(&ls->rs, l->pid, l->tid, l->ts) : NULL, 0, &gi,
			      &is_new);
	if (ret)
		return ret;
	if (is_new) {
		if (ZT_GROW(ls->pfx, ls->cap_pfx, ls->sg.nr))
			return -ENOMEM;
		memset(ls->pfx + old, 0, (ls->sg.nr - old) * sizeof(*ls->pfx));
	}
	if (!ls->pfx[gi]) {
		ret = stackgroups_resolve(&ls->sg, gi, UINT32_MAX, &ips, &r, &n);
		if (ret)
			return ret;
		skip = gpufolded_trim(ls->rs.ft, r, n);
		zbuf_init(&b);
		ret = folded_stack(&b, name, &ls->rs, l->pid, ips + skip, r + skip, n - skip,
				   ls->inline_frames);
		if (!ret)
			ls->pfx[gi] = strdup((const char *)b.data);
		zbuf_release(&b);
		if (ret)
			return ret;
		if (!ls->pfx[gi])
			return -ENOMEM;
	}
	*out = ls->pfx[gi];
	return 0;
}

/* ---- the stacks ---- */

/* (process, kernel name, prefix or suffix id) and a count: kernel time
 * per launch stack, or continuous PC samples per stack suffix */
struct tally {
	uint32_t pid, fn, id;
	uint64_t n;
};

static int tally_cmp(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sort and sum equal keys; returns the new number. */
static size_t tally_merge(struct tally *t, size_t n)
{
	size_t i, o = 0;

	if (!n)
		return 0;
	qsort(t, n, sizeof(*t), tally_cmp);
	for (i = 1; i < n; i++) {
		if (!tally_cmp(&t[o], &t[i]))
			t[o].n = t[o].n + t[i].n < t[o].n ? UINT64_MAX : t[o].n + t[i].n;
		else
			t[++o] = t[i];
	}
	return o + 1;
}

struct build {
	const struct gpu_view *v;
	const struct gpu_frametab *t;
	const struct gpufolded_opts *o;
	struct folded_set *fs;
	struct zt_strtab pfx, sfx;
	struct tally *w; /* kernel time by (pid, name, prefix) */
	size_t nr_w, cap_w;
	struct tally *c; /* continuous samples by (pid, name, suffix) */
	size_t nr_c, cap_c;
	struct zbuf b;
};

static const char *kname(const struct build *bd, uint32_t id)
{
	const char *s = bd->o->kernel_name ? bd->o->kernel_name(bd->o->name_ctx, id) : NULL;

	return s ? s : prof_gpu_str(bd->v->g, id);
}

static int add_line(struct build *bd, const char *prefix, const char *suffix, uint64_t n)
{
	if (!n)
		return 0;
	zbuf_reset(&bd->b);
	put_str(&bd->b, prefix);
	zbuf_put_u8(&bd->b, ';');
	put_str(&bd->b, suffix);
	zbuf_put_u8(&bd->b, 0);
	if (bd->b.err)
		return bd->b.err;
	return folded_set_add(bd->fs, (const char *)bd->b.data, n);
}

/* The GPU part of bucket i of the view: "kernel_[g];...;stall_[gs]". */
static int suffix_of(struct build *bd, size_t i, uint32_t *id)
{
	const struct gpu_pcsum *p = &bd->v->pcs[i];
	const struct gpu_frame *f = NULL;
	char buf[256];
	uint32_t n = 0, k;
	struct zbuf b;
	int ret;

	if (bd->t)
		f = gpu_frametab_pc(bd->t, i, &n);
	zbuf_init(&b);
	put_name(&b, kname(bd, p->function));
	put_str(&b, GPUFOLDED_KERNEL);
	for (k = n > 1 ? n - 1 : 0; k-- > 0;) {
		zbuf_put_u8(&b, ';');
		put_name(&b, f[k].func);
		put_str(&b, f[k].inlined ? GPUFOLDED_INLINED : GPUFOLDED_FUNC);
	}
	if (n && f[0].file && f[0].line) {
		zbuf_put_u8(&b, ';');
		put_name(&b, gpu_frame_srcline(&f[0], buf, sizeof(buf)));
		put_str(&b, GPUFOLDED_LINE);
	}
	zbuf_put_u8(&b, ';');
	put_name(&b, gpufolded_stall(prof_gpu_stall_name(bd->v->g, p->pid, p->context, p->stall),
				     p->stall, buf, sizeof(buf)));
	put_str(&b, GPUFOLDED_STALL);
	zbuf_put_u8(&b, 0);
	ret = b.err ? b.err : zt_strtab_intern_str(&bd->sfx, (const char *)b.data, id);
	zbuf_release(&b);
	return ret;
}

/* The launch of kernel k and its prefix. */
static int kernel_prefix(struct build *bd, const struct prof_gpu_kernel *k, const char **out)
{
	struct prof_gpu_launch tmp;
	const struct prof_gpu_launch *l = gpu_view_with_stack(
		bd->v, gpu_view_launch(bd->v, k->pid, k->corr, k->graph_id, k->start), &tmp);

	return bd->o->prefix(bd->o->prefix_ctx, k->pid, l, k->start, out);
}

/* --gpu-weight time: each kernel's GPU time under its launch stack. */
static int by_time(struct build *bd)
{
	const struct prof_gpu *g = bd->v->g;
	struct zbuf k;
	size_t i;
	int ret = 0;

	zbuf_init(&k);
	for (i = 0; i < g->nr_kernels && !ret; i++) {
		const struct prof_gpu_kernel *kr = &g->kernels[i];
		const char *pfx;

		ret = kernel_prefix(bd, kr, &pfx);
		if (ret)
			break;
		zbuf_reset(&k);
		put_name(&k, kname(bd, kr->name));
		put_str(&k, GPUFOLDED_KERNEL);
		zbuf_put_u8(&k, 0);
		ret = k.err ? k.err
			    : add_line(bd, pfx, (const char *)k.data,
				       kr->end > kr->start ? kr->end - kr->start : 0);
	}
	zbuf_release(&k);
	return ret;
}

/* The view's bucket of raw record s (same pid, cubin, function, PC and
 * stall reason), by binary search in the view's order. */
static int pcs_key_cmp(const struct prof_gpu *g, const struct prof_gpu_pcs *s,
		       const struct gpu_pcsum *p)
{
	int c;

	if (s->pid != p->pid)
		return s->pid < p->pid ? -1 : 1;
	if (s->cubin_crc != p->crc)
		return s->cubin_crc < p->crc ? -1 : 1;
	if (s->function != p->function &&
	    (c = strcmp(prof_gpu_str(g, s->function), prof_gpu_str(g, p->function))))
		return c;
	if (s->pc_offset != p->pc)
		return s->pc_offset < p->pc ? -1 : 1;
	if (s->stall != p->stall)
		return s->stall < p->stall ? -1 : 1;
	return 0;
}

static size_t bucket_of(const struct gpu_view *v, const struct prof_gpu_pcs *s)
{
	size_t lo = 0, hi = v->nr_pcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = pcs_key_cmp(v->g, s, &v->pcs[mid]);

		if (!c)
			return mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return SIZE_MAX;
}

/* The kernel time of (pid, fn) per launch stack: w[*first .. *last). */
static void weights_of(const struct build *bd, uint32_t pid, uint32_t fn, size_t *first,
		       size_t *last)
{
	size_t lo = 0, hi = bd->nr_w;
	struct tally key = {pid, fn, 0, 0};

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tally_cmp(&bd->w[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo < bd->nr_w && bd->w[lo].pid == pid && bd->w[lo].fn == fn)
		lo++;
	*last = lo;
}

/* n samples of suffix sfx shared among w[first .. last) by their time
 * (gpu_share). */
static int share(struct build *bd, uint64_t n, const char *sfx, size_t first, size_t last)
{
	size_t k, m = last - first;
	uint64_t *w = calloc(m ? m * 2 : 1, sizeof(*w)), *part = w + m;
	int ret;

	if (!w)
		return -ENOMEM;
	for (k = 0; k < m; k++)
		w[k] = bd->w[first + k].n;
	ret = gpu_share(n, w, m, part);
	for (k = 0; k < m && !ret; k++)
		ret = add_line(bd, zt_strtab_str(&bd->pfx, bd->w[first + k].id), sfx, part[k]);
	free(w);
	return ret;
}

/* PC samples: exact launches where the record has one, shares of the
 * kernel's launch stacks by time where not. */
static int by_samples(struct build *bd)
{
	const struct prof_gpu *g = bd->v->g;
	uint32_t *sfx_of = NULL; /* per view bucket: its suffix id + 1 */
	size_t i;
	int ret = 0;

	/* the kernels' time per launch stack */
	for (i = 0; i < g->nr_kernels && !ret; i++) {
		const struct prof_gpu_kernel *k = &g->kernels[i];
		const char *pfx;
		uint32_t id;

		ret = kernel_prefix(bd, k, &pfx);
		if (!ret)
			ret = zt_strtab_intern_str(&bd->pfx, pfx, &id);
		if (!ret && ZT_GROW(bd->w, bd->cap_w, bd->nr_w + 1))
			ret = -ENOMEM;
		if (!ret)
			bd->w[bd->nr_w++] = (struct tally){
				k->pid, k->name, id, k->end > k->start ? k->end - k->start : 0};
	}
	if (ret)
		return ret;
	bd->nr_w = tally_merge(bd->w, bd->nr_w);
	if (bd->v->nr_pcs && !(sfx_of = calloc(bd->v->nr_pcs, sizeof(*sfx_of))))
		return -ENOMEM;
	for (i = 0; i < g->nr_pcs && !ret; i++) {
		const struct prof_gpu_pcs *s = &g->pcs[i];
		size_t bi = bucket_of(bd->v, s);
		uint32_t id;

		/* a subset reason's samples are counted under their reason */
		if (bi == SIZE_MAX || !s->samples || bd->v->pcs[bi].subset)
			continue;
		if (!sfx_of[bi]) {
			ret = suffix_of(bd, bi, &id);
			if (ret)
				break;
			sfx_of[bi] = id + 1;
		}
		id = sfx_of[bi] - 1;
		if (s->corr) { /* serialized: the launch itself */
			struct prof_gpu_launch tmp;
			const struct prof_gpu_launch *l = gpu_view_with_stack(
				bd->v, gpu_view_launch(bd->v, s->pid, s->corr, 0, 0), &tmp);
			const char *pfx;

			ret = bd->o->prefix(bd->o->prefix_ctx, s->pid, l, 0, &pfx);
			if (!ret)
				ret = add_line(bd, pfx, zt_strtab_str(&bd->sfx, id), s->samples);
			continue;
		}
		/* keyed by the view's function id: the name's first id */
		if (ZT_GROW(bd->c, bd->cap_c, bd->nr_c + 1)) {
			ret = -ENOMEM;
			break;
		}
		bd->c[bd->nr_c++] = (struct tally){s->pid, s->function, id, s->samples};
	}
	free(sfx_of);
	if (ret)
		return ret;
	bd->nr_c = tally_merge(bd->c, bd->nr_c);
	for (i = 0; i < bd->nr_c && !ret; i++) {
		const struct tally *c = &bd->c[i];
		size_t first, last;

		weights_of(bd, c->pid, c->fn, &first, &last);
		if (first == last) { /* no kernel of that name: no launch known */
			const char *pfx;

			ret = bd->o->prefix(bd->o->prefix_ctx, c->pid, NULL, 0, &pfx);
			if (!ret)
				ret = add_line(bd, pfx, zt_strtab_str(&bd->sfx, c->id), c->n);
			continue;
		}
		ret = share(bd, c->n, zt_strtab_str(&bd->sfx, c->id), first, last);
	}
	return ret;
}

int gpufolded_build(struct folded_set *fs, const struct gpu_view *v, const struct gpu_frametab *t,
		    const struct gpufolded_opts *o)
{
	struct build bd = {.v = v, .t = t, .o = o, .fs = fs};
	int ret;

	if (!v->g)
		return 0;
	if (!o->prefix)
		return -EINVAL;
	zbuf_init(&bd.b);
	ret = o->weight == GPUFOLDED_TIME ? by_time(&bd) : by_samples(&bd);
	zbuf_release(&bd.b);
	zt_strtab_release(&bd.pfx);
	zt_strtab_release(&bd.sfx);
	free(bd.w);
	free(bd.c);
	return ret;
}
