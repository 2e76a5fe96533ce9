/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU report model: kernels summed by name, PC samples summed per
 * kernel by line, device function and stall reason, memory operations by
 * direction; the kernels' launches as samples for a report model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/gpureport.h"
#include "libprof/rmodel.h"

#define NAME_LEN 1024

/* One PC bucket's contribution to a kernel, a line or a function (sorted,
 * then summed). */
enum acc_kind { ACC_KERNEL, ACC_LINE, ACC_FUNC };

struct acc {
	uint32_t kind, kernel;
	const char *key;   /* line text or function name (NULL for the kernel) */
	const char *aux;   /* a line's function */
	uint8_t self;	   /* a function: at its own PC (else: a caller) */
	uint8_t inlined;   /* a function: inlined there */
	const char *stall; /* NULL for a caller's samples */
	uint64_t samples;
};

/* A kernel's grid or block in one execution. */
struct dims {
	uint32_t kernel;
	uint32_t d[3];
};

static const char *intern(struct gpureport *r, const char *s)
{
	char buf[NAME_LEN];

	prof_sanitize(buf, sizeof(buf), s);
	return zt_strtab_ptr(&r->strs, buf);
}

const char *gpureport_stall_short(const char *name)
{
	static const char *const prefixes[] = {"smsp__pcsamp_warps_issue_stalled_",
					       "smsp__pcsamp_warps_issue_", "smsp__pcsamp_"};
	size_t i, n;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		n = strlen(prefixes[i]);
		if (!strncmp(name, prefixes[i], n) && name[n])
			return name + n;
	}
	return name;
}

const char *gpureport_copy_name(unsigned copy_kind)
{
	static const char *const names[] = {NULL,   "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					    "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};

	return copy_kind && copy_kind < sizeof(names) / sizeof(names[0]) ? names[copy_kind]
									 : "copy";
}

static uint64_t dur(uint64_t start, uint64_t end)
{
	return end > start ? end - start : 0;
}

/* The kernel of a recorded name, made when new. UINT32_MAX: -ENOMEM. */
static uint32_t kernel_of(struct gpureport *r, const struct prof_gpu *g, uint32_t name,
			  const struct gpureport_opts *o, size_t *cap)
{
	struct gpurep_kernel *k;
	const char *raw = prof_gpu_str(g, name), *shown;

	if (name < r->nr_by_name && r->by_name[name] != UINT32_MAX)
		return r->by_name[name];
	if (name >= r->nr_by_name || ZT_GROW(r->kernels, *cap, r->nr_kernels + 1))
		return UINT32_MAX;
	k = &r->kernels[r->nr_kernels];
	memset(k, 0, sizeof(*k));
	k->name_id = name;
	shown = o && o->name ? o->name(o->ctx, name) : NULL;
	k->name = intern(r, shown ? shown : raw);
	if (!k->name)
		return UINT32_MAX;
	r->by_name[name] = (uint32_t)r->nr_kernels;
	return (uint32_t)r->nr_kernels++;
}

static int dims_cmp(const void *pa, const void *pb)
{
	const struct dims *a = pa, *b = pb;

	if (a->kernel != b->kernel)
		return a->kernel < b->kernel ? -1 : 1;
	return memcmp(a->d, b->d, sizeof(a->d));
}

/* Each kernel's most common dims (the smallest of equally common) into
 * its grid (which 0) or block (1). */
static void most_common(struct gpureport *r, struct dims *d, size_t n, int which)
{
	size_t i = 0, j, best;

	qsort(d, n, sizeof(*d), dims_cmp);
	while (i < n) {
		struct gpurep_kernel *k = &r->kernels[d[i].kernel];
		size_t first = i, runs = 0;

		best = 0;
		while (i < n && d[i].kernel == d[first].kernel) {
			for (j = i; j < n && !dims_cmp(&d[j], &d[i]); j++)
				;
			if (j - i > best) {
				best = j - i;
				memcpy(which ? k->block : k->grid, d[i].d, sizeof(d[i].d));
			}
			runs++;
			i = j;
		}
		if (which)
			k->block_varies = runs > 1;
		else
			k->grid_varies = runs > 1;
	}
}

static int add_kernels(struct gpureport *r, const struct prof_gpu *g,
		       const struct gpureport_opts *o, size_t *cap)
{
	struct dims *grid, *block;
	size_t i;

	grid = calloc(g->nr_kernels ? g->nr_kernels : 1, sizeof(*grid));
	block = calloc(g->nr_kernels ? g->nr_kernels : 1, sizeof(*block));
	if (!grid || !block) {
		free(grid);
		free(block);
		return -ENOMEM;
	}
	for (i = 0; i < g->nr_kernels; i++) {
		const struct prof_gpu_kernel *pk = &g->kernels[i];
		uint32_t ki = kernel_of(r, g, pk->name, o, cap);
		uint64_t d = dur(pk->start, pk->end);
		struct gpurep_kernel *k;

		if (ki == UINT32_MAX) {
			free(grid);
			free(block);
			return -ENOMEM;
		}
		k = &r->kernels[ki];
		k->launches++;
		k->total_ns += d;
		if (d > k->max_ns)
			k->max_ns = d;
		r->total_ns += d;
		r->nr_records++;
		grid[i].kernel = block[i].kernel = ki;
		memcpy(grid[i].d, pk->grid, sizeof(grid[i].d));
		memcpy(block[i].d, pk->block, sizeof(block[i].d));
	}
	most_common(r, grid, g->nr_kernels, 0);
	most_common(r, block, g->nr_kernels, 1);
	free(grid);
	free(block);
	for (i = 0; i < r->nr_kernels; i++)
		if (r->kernels[i].launches)
			r->kernels[i].mean_ns = r->kernels[i].total_ns / r->kernels[i].launches;
	return 0;
}

static int add_copies(struct gpureport *r, const struct prof_gpu *g)
{
	size_t i, j, cap = 0;

	for (i = 0; i < g->nr_memops; i++) {
		const struct prof_gpu_memop *m = &g->memops[i];
		uint8_t ck = m->kind == PROF_GPU_MEMCPY ? m->copy_kind : 0;

		for (j = 0; j < r->nr_copies; j++)
			if (r->copies[j].kind == m->kind && r->copies[j].copy_kind == ck)
				break;
		if (j == r->nr_copies) {
			if (ZT_GROW(r->copies, cap, j + 1))
				return -ENOMEM;
			r->copies[j] = (struct gpurep_copy){m->kind == PROF_GPU_MEMCPY
								    ? gpureport_copy_name(ck)
							    : m->kind == PROF_GPU_MEMSET ? "memset"
											 : "memop",
							    m->kind,
							    ck,
							    0,
							    0,
							    0};
			r->nr_copies++;
		}
		r->copies[j].count++;
		r->copies[j].bytes += m->bytes;
		r->copies[j].total_ns += dur(m->start, m->end);
	}
	return 0;
}

struct accs {
	struct acc *v;
	size_t nr, cap;
};

static int acc_push(struct accs *a, const struct acc *x)
{
	if (ZT_GROW(a->v, a->cap, a->nr + 1))
		return -ENOMEM;
	a->v[a->nr++] = *x;
	return 0;
}

static int ptr_cmp(const void *a, const void *b)
{
	return a == b ? 0 : (uintptr_t)a < (uintptr_t)b ? -1 : 1;
}

static int acc_cmp(const void *pa, const void *pb)
{
	const struct acc *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->kernel != b->kernel)
		return a->kernel < b->kernel ? -1 : 1;
	if ((c = ptr_cmp(a->key, b->key)))
		return c;
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return ptr_cmp(a->stall, b->stall);
}

/* The contributions of PC bucket i of v. */
static int add_bucket(struct gpureport *r, struct accs *a, const struct gpu_view *v,
		      const struct gpu_frametab *t, size_t i, size_t *cap)
{
	const struct gpu_pcsum *p = &v->pcs[i];
	const struct gpu_frame *f = NULL;
	char buf[NAME_LEN], sbuf[32];
	const char *stall, *sn, *line, *func;
	uint32_t n = 0, ki, k, j;
	int ret;

	if (p->subset) { /* counted under its reason already */
		r->pc_not_issued += p->samples;
		return 0;
	}
	ki = kernel_of(r, v->g, p->function, NULL, cap);
	if (ki == UINT32_MAX)
		return -ENOMEM;
	sn = prof_gpu_stall_name(v->g, p->pid, p->context, p->stall);
	if (!sn) {
		snprintf(sbuf, sizeof(sbuf), "stall_%u", p->stall);
		sn = sbuf;
	}
	stall = intern(r, gpureport_stall_short(sn));
	if (t && i < t->nr_pcs)
		f = gpu_frametab_pc(t, i, &n);
	if (f && f[0].file && f[0].line)
		gpu_frame_srcline(&f[0], buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "%s+0x%llx", r->kernels[ki].name,
			 (unsigned long long)p->pc);
	line = intern(r, buf);
	func = f ? intern(r, f[0].func) : r->kernels[ki].name;
	if (!stall || !line || !func)
		return -ENOMEM;
	r->kernels[ki].samples += p->samples;
	r->pc_samples += p->samples;
	ret = acc_push(a, &(struct acc){ACC_KERNEL, ki, NULL, NULL, 0, 0, stall, p->samples});
	if (!ret)
		ret = acc_push(a, &(struct acc){ACC_LINE, ki, line, func, 0, 0, stall, p->samples});
	if (!ret)
		ret = acc_push(a, &(struct acc){ACC_FUNC, ki, func, NULL, 1, f ? f[0].inlined : 0,
						stall, p->samples});
	/* every function on the frames, once */
	for (k = 0; !ret && f && k < n; k++) {
		const char *fn = intern(r, f[k].func);

		if (!fn)
			return -ENOMEM;
		for (j = 0; j < k && strcmp(f[j].func, f[k].func); j++)
			;
		if (j == k)
			ret = acc_push(a, &(struct acc){ACC_FUNC, ki, fn, NULL, 0, f[k].inlined,
							NULL, p->samples});
	}
	if (!ret && !f)
		ret = acc_push(a, &(struct acc){ACC_FUNC, ki, func, NULL, 0, 0, NULL, p->samples});
	return ret;
}

static int stall_cmp(const void *pa, const void *pb)
{
	const struct gpurep_stall *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int line_cmp(const void *pa, const void *pb)
{
	const struct gpurep_line *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->text, b->text);
}

static int func_cmp(const void *pa, const void *pb)
{
	const struct gpurep_func *a = pa, *b = pb;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int kernel_cmp(const void *pa, const void *pb)
{
	const struct gpurep_kernel *a = pa, *b = pb;

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The stalls of a[from .. to) (self ones: stall not NULL) summed into a
 * range of r->stalls. 0 or -ENOMEM. */
static int sum_stalls(struct gpureport *r, const struct acc *a, size_t from, size_t to, size_t *cap,
		      struct gpurep_stalls *out)
{
	size_t i;

	out->first = (uint32_t)r->nr_stalls;
	for (i = from; i < to; i++) {
		if (!a[i].stall)
			continue;
		if (i > from && a[i - 1].stall == a[i].stall) {
			r->stalls[r->nr_stalls - 1].samples += a[i].samples;
			continue;
		}
		if (ZT_GROW(r->stalls, *cap, r->nr_stalls + 1))
			return -ENOMEM;
		r->stalls[r->nr_stalls++] = (struct gpurep_stall){a[i].stall, a[i].samples};
	}
	out->n = (uint32_t)(r->nr_stalls - out->first);
	qsort(r->stalls + out->first, out->n, sizeof(*r->stalls), stall_cmp);
	return 0;
}

/* The sorted contributions summed into kernels, lines and functions. */
static int sum_accs(struct gpureport *r, const struct acc *a, size_t nr)
{
	size_t i = 0, j, scap = 0, lcap = 0, fcap = 0;
	size_t *lfirst, *ffirst;
	int ret = 0;

	lfirst = calloc(r->nr_kernels + 1, sizeof(*lfirst));
	ffirst = calloc(r->nr_kernels + 1, sizeof(*ffirst));
	if (!lfirst || !ffirst)
		ret = -ENOMEM;
	while (!ret && i < nr) {
		struct gpurep_kernel *k = &r->kernels[a[i].kernel];
		struct gpurep_stalls st;

		for (j = i; j < nr && a[j].kind == a[i].kind && a[j].kernel == a[i].kernel &&
			    a[j].key == a[i].key;
		     j++)
			;
		ret = sum_stalls(r, a, i, j, &scap, &st);
		if (ret)
			break;
		if (a[i].kind == ACC_KERNEL) {
			k->stalls = st;
		} else if (a[i].kind == ACC_LINE) {
			struct gpurep_line *l;

			if (ZT_GROW(r->lines, lcap, r->nr_lines + 1)) {
				ret = -ENOMEM;
				break;
			}
			if (!k->nr_lines)
				lfirst[a[i].kernel] = r->nr_lines;
			k->nr_lines++;
			l = &r->lines[r->nr_lines++];
			*l = (struct gpurep_line){a[i].key, a[i].aux, 0, st};
			for (; i < j; i++)
				l->samples += a[i].samples;
		} else {
			struct gpurep_func *fn;

			if (ZT_GROW(r->funcs, fcap, r->nr_funcs + 1)) {
				ret = -ENOMEM;
				break;
			}
			if (!k->nr_funcs)
				ffirst[a[i].kernel] = r->nr_funcs;
			k->nr_funcs++;
			fn = &r->funcs[r->nr_funcs++];
			*fn = (struct gpurep_func){a[i].key, 1, 0, 0, st};
			for (; i < j; i++) {
				if (a[i].self)
					fn->self += a[i].samples;
				else
					fn->total += a[i].samples;
				fn->inlined &= a[i].inlined;
			}
		}
		i = j;
	}
	for (i = 0; !ret && i < r->nr_kernels; i++) {
		struct gpurep_kernel *k = &r->kernels[i];

		k->lines = k->nr_lines ? r->lines + lfirst[i] : NULL;
		k->funcs = k->nr_funcs ? r->funcs + ffirst[i] : NULL;
		if (k->nr_lines)
			qsort(k->lines, k->nr_lines, sizeof(*k->lines), line_cmp);
		if (k->nr_funcs)
			qsort(k->funcs, k->nr_funcs, sizeof(*k->funcs), func_cmp);
	}
	free(lfirst);
	free(ffirst);
	return ret;
}

int gpureport_init(struct gpureport *r, const struct gpu_view *v, const struct gpu_frametab *t,
		   const struct gpureport_opts *o)
{
	const struct prof_gpu *g = v->g;
	struct accs a = {NULL, 0, 0};
	size_t i, cap = 0;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	zt_strtab_init(&r->strs);
	if (!g)
		return 0;
	r->stacks_captured = v->nr_captured;
	r->stacks_inferred = v->nr_inferred;
	r->nr_by_name = prof_gpu_nr_strs(g);
	r->by_name = malloc((r->nr_by_name ? r->nr_by_name : 1) * sizeof(*r->by_name));
	if (!r->by_name)
		return -ENOMEM;
	memset(r->by_name, 0xff, (r->nr_by_name ? r->nr_by_name : 1) * sizeof(*r->by_name));
	ret = add_kernels(r, g, o, &cap);
	if (!ret)
		ret = add_copies(r, g);
	/* buckets of a kernel without records get one, named as recorded
	 * (demangled like the others) */
	for (i = 0; !ret && i < v->nr_pcs; i++)
		if (kernel_of(r, g, v->pcs[i].function, o, &cap) == UINT32_MAX)
			ret = -ENOMEM;
	for (i = 0; !ret && i < v->nr_pcs; i++)
		ret = add_bucket(r, &a, v, t, i, &cap);
	if (!ret && a.nr) {
		qsort(a.v, a.nr, sizeof(*a.v), acc_cmp);
		ret = sum_accs(r, a.v, a.nr);
	}
	free(a.v);
	if (!ret && r->nr_kernels) {
		qsort(r->kernels, r->nr_kernels, sizeof(*r->kernels), kernel_cmp);
		for (i = 0; i < r->nr_kernels; i++)
			r->by_name[r->kernels[i].name_id] = (uint32_t)i;
	}
	if (!ret && r->nr_copies) {
		for (i = 1; i < r->nr_copies; i++) { /* few: insertion sort by time */
			struct gpurep_copy c = r->copies[i];
			size_t j = i;

			for (; j > 0 && r->copies[j - 1].total_ns < c.total_ns; j--)
				r->copies[j] = r->copies[j - 1];
			r->copies[j] = c;
		}
	}
	if (!ret && t) {
		r->pcs_full = t->quality[ZT_FRAME_FULL];
		r->pcs_basic = t->quality[ZT_FRAME_BASIC];
		r->pcs_none = t->quality[ZT_FRAME_NONE];
	}
	if (ret) {
		gpureport_release(r);
		zt_strtab_init(&r->strs);
	}
	return ret;
}

void gpureport_release(struct gpureport *r)
{
	free(r->kernels);
	free(r->copies);
	free(r->stalls);
	free(r->lines);
	free(r->funcs);
	free(r->by_name);
	free(r->lsamples);
	free(r->lleaf);
	zt_strtab_release(&r->strs);
	memset(r, 0, sizeof(*r));
}

const struct gpurep_kernel *gpureport_find(const struct gpureport *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_kernels; i++)
		if (!strcmp(r->kernels[i].name, name))
			return &r->kernels[i];
	return NULL;
}

/* The frames of a launch stack inside the API call: CUPTI's callback and
 * zt's injection library (the stand-in test libraries included). */
static const char *const launch_trim[] = {"libztcupti.so", "libcupti.so", NULL};

int gpureport_launches(struct gpureport *r, const struct gpu_view *v, const struct rstacks *rs,
		       struct rmodel_input *in)
{
	struct frametab *ft = rs->ft;
	const struct prof_gpu *g = v->g;
	uint32_t *frame = NULL;
	const char *gpu;
	size_t i, n = g ? g->nr_kernels : 0;
	int ret = 0;

	memset(in, 0, sizeof(*in));
	free(r->lsamples);
	free(r->lleaf);
	r->lsamples = calloc(n ? n : 1, sizeof(*r->lsamples));
	r->lleaf = calloc(n ? n : 1, sizeof(*r->lleaf));
	frame = malloc((r->nr_kernels ? r->nr_kernels : 1) * sizeof(*frame));
	gpu = zt_strtab_ptr(&r->strs, "[gpu]");
	if (!r->lsamples || !r->lleaf || !frame || !gpu) {
		free(frame);
		return -ENOMEM;
	}
	memset(frame, 0xff, (r->nr_kernels ? r->nr_kernels : 1) * sizeof(*frame));
	for (i = 0; !ret && i < n; i++) {
		const struct prof_gpu_kernel *k = &g->kernels[i];
		const struct prof_gpu_launch *l =
			gpu_view_launch(v, k->pid, k->corr, k->graph_id, k->start);
		uint32_t ki = k->name < r->nr_by_name ? r->by_name[k->name] : UINT32_MAX;
		struct prof_sample *s = &r->lsamples[i];
		uint32_t st;

		if (ki == UINT32_MAX) { /* not from this report's view */
			ret = -EINVAL;
			break;
		}
		if (frame[ki] == UINT32_MAX) {
			struct zt_frame f = {.sym = r->kernels[ki].name,
					     .module = gpu,
					     .quality = ZT_FRAME_BASIC};

			frame[ki] = (uint32_t)ft->nr_frames;
			ret = frametab_push(ft, &f);
		}
		s->ts = l ? l->ts : k->start;
		s->weight = dur(k->start, k->end);
		s->pid = k->pid;
		s->tid = l ? l->tid : k->pid;
		st = gpu_view_stack(v, l, NULL);
		s->stack = st != PROF_GPU_NO_STACK ? st : RMODEL_NO_STACK;
		r->lleaf[i] = frame[ki];
	}
	free(frame);
	in->trim = launch_trim;
	in->samples = r->lsamples;
	in->leaf = r->lleaf;
	in->nr = n;
	return ret;
}

const char *gpureport_fmt_dur(char *buf, size_t n, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, n, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, n, "%.3fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, n, "%.3fms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.3fs", (double)ns / 1e9);
	return buf;
}
