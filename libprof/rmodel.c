/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report model: samples grouped so each group resolves once (frames
 * interned in the histogram's strings, which outlive rebuilds), then per
 * build: sample filters, aggregation by the keys in use, the histogram.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/rmodel.h"
#include "libprof/text.h"
#include "libprof/sgroup.h"

#define NAME_MAX_LEN 1024 /* longest frame name kept */

/* A group of samples that resolve alike; its frames leaf first. */
struct rgroup {
	uint32_t stack, pid;
	uint32_t leaf;	     /* a frame of the frame table below the stack, or RMODEL_NO_LEAF */
	uint32_t comm;	     /* string id */
	uint32_t off, n;     /* its frames: fidx[off .. off+n) */
	uint64_t epoch;	     /* of its mappings (proctree_epoch) */
	uint64_t ts;	     /* of its first sample: to resolve with */
	uint64_t weight, nr; /* of all its samples */
	uint64_t first;	     /* the time of its first sample (perf reads in time order) */
	uint32_t first_tid;  /* ... and that sample's thread */
};

/* A thread's name and epoch over a span of time. */
struct tspan {
	uint32_t pid, tid;
	int valid;
	const char *comm;
	uint64_t epoch, from, until;
};
#define NR_SPANS 1024

/* A function's line and its weight (while counting: per (function, file, line)). */
struct fline {
	uint64_t key; /* hist_chain_key() */
	const char *dir, *file;
	uint32_t line;
	uint64_t weight;
};

/* flines by function, or (while counting) by function and line. */
struct flines {
	struct fline *v;
	size_t nr, cap;
	struct zt_htab hash;
};

struct pmemo {
	const char *s;
	uint32_t id;
};

/* One build's aggregate: a group's samples with one tid and cpu. */
struct ragg {
	uint32_t group, tid, cpu;
	uint32_t first_tid; /* the thread of its first sample */
	uint64_t weight, nr;
	uint64_t first;	    /* ... and that sample's time */
};

struct rpriv {
	uint32_t *sgroup;	   /* per sample: its group */
	struct hist_frame *frames; /* templates of the frame table's frames (same index):
				      dso, sym, srcline, symq, kernel, inlined */
	size_t nr_frames, cap_frames;
	struct zt_frange *ranges; /* while resolving: a stack's */
	size_t cap_ranges;
	struct ragg *aggs;
	size_t nr_aggs, cap_aggs;
	struct zt_htab ahash; /* aggs by (group, tid, cpu) */
	struct hist_frame *scratch;
	size_t cap_scratch;
	uint8_t *gpass;	  /* per group: passes --dso/--symbols */
	uint32_t *gparent; /* per group: its parent's string id (perf's -p), "[other]": none */
	struct flines fl; /* per function (chain key): its hottest source line, when asked */
	int fl_made;
	uint32_t *fidx; /* groups' frames: indexes into frames[] */
	size_t nr_fidx, cap_fidx;
	uint32_t *eidx; /* while building with lazy chains: each aggregate frame's entry */
	size_t cap_eidx;
	uint32_t *agg_n; /* ... and each aggregate's number of frames */
	size_t cap_agg_n;
	struct pmemo *ptrs; /* resolver strings interned */
	size_t nr_ptrs, cap_ptrs;
	struct zt_htab phash; /* ptrs by pointer */
	int srclines;	      /* the templates' srcline ids are made */
	struct prof_sample *own; /* rmodel_init_event()'s samples */
};

static void flines_release(struct flines *t)
{
	free(t->v);
	zt_htab_release(&t->hash);
	memset(t, 0, sizeof(*t));
}

/* ---- resolving ---- */

static inline uint64_t ptr_hash(const char *s)
{
	return zt_hash_mix((uintptr_t)s, 0);
}

static inline uint64_t ptr_hash_at(const void *p, uint32_t i)
{
	return ptr_hash(((const struct rpriv *)p)->ptrs[i].s);
}

/* The id of a string the resolver gave (stable pointers): interned once per pointer. */
static int intern_ptr(struct rmodel *m, const char *s, uint32_t *id)
{
	struct rpriv *p = m->priv;
	size_t j;
	uint32_t i;
	int ret;

	if (zt_htab_reserve(&p->phash, 1, ptr_hash_at, p))
		return -ENOMEM;
	for (j = zt_htab_first(&p->phash, ptr_hash(s)); zt_htab_get(&p->phash, j, &i);
	     j = zt_htab_next(&p->phash, j)) {
		if (p->ptrs[i].s == s) {
			*id = p->ptrs[i].id;
			return 0;
		}
	}
	if (ZT_GROW(p->ptrs, p->cap_ptrs, p->nr_ptrs + 1))
		return -ENOMEM;
	ret = hist_intern_clean(&m->hist, s, id);
	if (ret)
		return ret;
	p->ptrs[p->nr_ptrs] = (struct pmemo){s, *id};
	zt_htab_set(&p->phash, j, (uint32_t)p->nr_ptrs++);
	return 0;
}

/* Templates for the frame table's frames made since the last call. */
static int make_templates(struct rmodel *m)
{
	struct rpriv *p = m->priv;
	char name[NAME_MAX_LEN + 16];
	int ret = 0;

	if (ZT_GROW(p->frames, p->cap_frames, m->rs.ft->nr_frames))
		return -ENOMEM;
	for (; !ret && p->nr_frames < m->rs.ft->nr_frames; p->nr_frames++) {
		const struct zt_frame *f = frametab_frame(m->rs.ft, (uint32_t)p->nr_frames);
		struct hist_frame *h = &p->frames[p->nr_frames];

		memset(h, 0, sizeof(*h));
		h->kernel = f->kernel;
		h->symq = f->quality;
		h->addr = f->addr;
		h->inlined = f->inlined;
		ret = intern_ptr(m, f->module, &h->dso);
		if (ret)
			break;
		if (f->inlined) {
			/* perf's --inline: "name (inlined)" */
			snprintf(name, sizeof(name), "%s (inlined)", f->sym);
			ret = hist_intern_clean(&m->hist, name, &h->sym);
		} else if (f->sym) {
			ret = intern_ptr(m, f->sym, &h->sym);
		} else if (!f->kernel && !f->map && f->module && !strcmp(f->module, "[unknown]")) {
			/* perf names an address in no mapping by itself: an
			 * entry and a chain node of its own for each */
			snprintf(name, sizeof(name), "%#llx", (unsigned long long)f->addr);
			h->unmapped = 1;
			ret = hist_intern_clean(&m->hist, name, &h->sym);
		} else {
			ret = hist_intern_clean(&m->hist, zt_frame_name(f, name, sizeof(name)),
						&h->sym);
		}
	}
	return ret;
}

/* Whether an address's frames are in a module rmodel_input.trim names. */
static int trimmed(const struct rmodel *m, const struct zt_frange *r)
{
	const char *mod = frametab_frame(m->rs.ft, r->first + r->n - 1)->module;
	size_t i;

	for (i = 0; mod && m->trim[i]; i++)
		if (!strncmp(mod, m->trim[i], strlen(m->trim[i])))
			return 1;
	return 0;
}

/* A group's frames, resolved through the frame table: their indexes
 * appended to fidx (each address's inline frames, then its function). */
static int resolve_group(struct rmodel *m, struct rgroup *g)
{
	struct rpriv *p = m->priv;
	const struct prof_stack *st =
		g->stack < m->prof->nr_stacks ? &m->prof->stacks[g->stack] : NULL;
	unsigned i, k, n = st ? (unsigned)st->nk + st->nu : 0;
	int ret = 0;

	if (ZT_GROW(p->ranges, p->cap_ranges, n ? n : 1))
		return -ENOMEM;
	if (n)
		ret = frametab_resolve(m->rs.ft, g->pid, g->ts, g->epoch,
				       profile_stack_ips(m->prof, g->stack), st->nk, n, p->ranges);
	if (ret)
		return ret;
	g->off = (uint32_t)p->nr_fidx;
	if (g->leaf != RMODEL_NO_LEAF) {
		if (ZT_GROW(p->fidx, p->cap_fidx, p->nr_fidx + 1))
			return -ENOMEM;
		p->fidx[p->nr_fidx++] = g->leaf;
	}
	/* the frames inside the API call: up to the outermost one in a
	 * trimmed module (what they called, libc's say, goes with them) */
	for (i = n, k = 0; m->trim && k < n; k++)
		if (trimmed(m, &p->ranges[k]))
			i = k;
	i = i < n ? i + 1 : 0;
	for (; i < n; i++) {
		const struct zt_frange *r = &p->ranges[i];

		if (ZT_GROW(p->fidx, p->cap_fidx, p->nr_fidx + r->n))
			return -ENOMEM;
		for (k = 0; k < r->n; k++)
			p->fidx[p->nr_fidx++] = r->first + k;
	}
	g->n = (uint32_t)(p->nr_fidx - g->off);
	return 0;
}

int rmodel_init(struct rmodel *m, const struct rstacks *rs, rmodel_progress_fn progress,
		void *ctx)
{
	const struct rmodel_input in = {rs->prof->samples, NULL, rs->prof->nr_samples, NULL};

	return rmodel_init_with(m, rs, &in, progress, ctx);
}

int rmodel_init_event(struct rmodel *m, const struct rstacks *rs, uint32_t ev,
		      rmodel_progress_fn progress, void *ctx)
{
	const struct profile *prof = rs->prof;
	struct rmodel_input in = {NULL, NULL, 0, NULL};
	struct prof_sample *own;
	int ret;

	if (profile_nr_events(prof) == 1 && ev == 0)
		return rmodel_init(m, rs, progress, ctx);
	own = malloc((prof->nr_samples ? prof->nr_samples : 1) * sizeof(*own));
	if (!own) {
		memset(m, 0, sizeof(*m));
		return -ENOMEM;
	}
	in.samples = own;
	in.nr = profile_event_samples(prof, ev, own);
	ret = rmodel_init_with(m, rs, &in, progress, ctx);
	if (m->priv)
		((struct rpriv *)m->priv)->own = own;
	else
		free(own);
	return ret;
}

/* perf's pid and tgid keys show a thread's latest name (a sample taken
 * while it still had its creator's shows the new one too) */
static const char *thread_name(const void *ctx, uint32_t pid, uint32_t tid)
{
	return proctree_comm(ctx, pid, tid, UINT64_MAX);
}

static size_t stack_len(const struct profile *prof, uint32_t stack)
{
	return stack < prof->nr_stacks ? (size_t)prof->stacks[stack].nk + prof->stacks[stack].nu
				       : 0;
}

int rmodel_init_with(struct rmodel *m, const struct rstacks *rs, const struct rmodel_input *in,
		     rmodel_progress_fn progress, void *ctx)
{
	const struct profile *prof = rs->prof;
	struct sgroups sg;
	struct rpriv *p;
	uint32_t *last;	     /* per stack: its last group + 1 */
	struct tspan *spans; /* threads' names and epochs, by tid (direct-mapped) */
	size_t i;
	int ret;

	memset(m, 0, sizeof(*m));
	m->prof = prof;
	m->rs = *rs;
	m->samples = in->samples;
	m->nr_samples = in->nr;
	m->trim = in->trim;
	sgroups_init(&sg);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	m->priv = p;
	ret = hist_init(&m->hist, NULL, 0);
	m->hist.thread_name = thread_name;
	m->hist.thread_ctx = rs->pt;
	if (!ret && in->nr) {
		p->sgroup = malloc(in->nr * sizeof(*p->sgroup));
		if (!p->sgroup)
			ret = -ENOMEM;
	}
	m->time_first = UINT64_MAX;
	last = calloc(prof->nr_stacks ? prof->nr_stacks : 1, sizeof(*last));
	spans = calloc(NR_SPANS, sizeof(*spans));
	if (!spans)
		ret = -ENOMEM;
	for (i = 0; !ret && i < in->nr; i++) {
		const struct prof_sample *s = &in->samples[i];
		struct tspan *t = &spans[s->tid & (NR_SPANS - 1)];
		uint32_t leaf = in->leaf ? in->leaf[i] : RMODEL_NO_LEAF;
		/* the key's tid tells leaves apart (threads are not) */
		struct sgroup_key k = {s->stack, s->pid, leaf == RMODEL_NO_LEAF ? 0 : leaf + 1,
				       NULL, 0};
		uint32_t gi;
		int is_new;

		/* a thread's name and mappings hold between its events */
		if (!(t->valid && t->pid == s->pid && t->tid == s->tid && t->from <= s->ts &&
		      s->ts < t->until)) {
			proctree_thread_at(m->rs.pt, s->pid, s->tid, s->ts, &t->comm, &t->epoch,
					   &t->from, &t->until);
			t->pid = s->pid;
			t->tid = s->tid;
			t->valid = 1;
		}
		k.comm = t->comm;
		k.epoch = t->epoch;

		if (s->ts < m->time_first)
			m->time_first = s->ts;
		if (s->ts > m->time_last)
			m->time_last = s->ts;
		m->total += s->weight;
		m->total_nr++;
		k.epoch = frametab_epoch(m->rs.ft, s->pid, s->ts, k.epoch);
		/* most samples of a stack are in its last group: no hash lookup */
		is_new = 0;
		if (last && s->stack < prof->nr_stacks && last[s->stack]) {
			const struct sgroup_key *lk = &sg.keys[last[s->stack] - 1];

			if (lk->pid == k.pid && lk->tid == k.tid && lk->comm == k.comm &&
			    lk->epoch == k.epoch)
				gi = last[s->stack] - 1;
			else
				ret = sgroups_find(&sg, &k, &gi, &is_new);
		} else {
			ret = sgroups_find(&sg, &k, &gi, &is_new);
		}
		if (!ret && last && s->stack < prof->nr_stacks)
			last[s->stack] = gi + 1;
		if (!ret && is_new) {
			char cbuf[32];
			const char *comm = prof_comm_or_pid(k.comm, s->pid, cbuf, sizeof(cbuf));

			ret = ZT_GROW(m->groups, m->cap_groups, sg.nr) ? -ENOMEM : 0;
			if (!ret) {
				m->groups[gi] =
					(struct rgroup){s->stack, s->pid, leaf, 0, 0,	  0,
							k.epoch,  s->ts,  0,	0, s->ts, s->tid};
				m->nr_groups = sg.nr;
				ret = hist_intern_clean(&m->hist, comm, &m->groups[gi].comm);
			}
		}
		if (!ret) {
			if (s->ts < m->groups[gi].first) {
				m->groups[gi].first = s->ts;
				m->groups[gi].first_tid = s->tid;
			}
			p->sgroup[i] = gi;
			m->groups[gi].weight += s->weight;
			m->groups[gi].nr++;
		}
	}
	if (m->time_first == UINT64_MAX)
		m->time_first = 0;
	free(last);
	free(spans);
	sgroups_release(&sg);
	/* sized up front: growing these tables was a tenth of the time */
	if (!ret) {
		size_t frames = 0;

		for (i = 0; i < m->nr_groups; i++)
			frames += stack_len(prof, m->groups[i].stack) + 1;
		if (frametab_reserve(rs->ft, m->nr_groups) ||
		    ZT_GROW(p->fidx, p->cap_fidx, frames + frames / 8 + 16))
			ret = -ENOMEM;
	}
	/* every frame is resolved once here: inline frames are kept and
	 * dropped per build, so no rebuild resolves again */
	for (i = 0; !ret && i < m->nr_groups; i++) {
		ret = resolve_group(m, &m->groups[i]);
		if (progress && (i & 255) == 0)
			progress(ctx, i, m->nr_groups);
	}
	if (!ret)
		ret = make_templates(m);
	if (progress)
		progress(ctx, m->nr_groups, m->nr_groups);
	m->nr_addrs = rs->ft->nr_memo;
	m->nr_templates = p->nr_frames;
	free(p->ranges);
	p->ranges = NULL;
	p->cap_ranges = 0;
	return ret;
}

void rmodel_release(struct rmodel *m)
{
	struct rpriv *p = m->priv;

	if (p) {
		free(p->sgroup);
		free(p->frames);
		free(p->ranges);
		free(p->aggs);
		zt_htab_release(&p->ahash);
		free(p->scratch);
		free(p->gpass);
		free(p->gparent);
		flines_release(&p->fl);
		free(p->fidx);
		free(p->eidx);
		free(p->agg_n);
		free(p->ptrs);
		zt_htab_release(&p->phash);
		free(p->own);
		free(p);
	}
	hist_release(&m->hist);
	free(m->groups);
	memset(m, 0, sizeof(*m));
}

/* ---- building ---- */

static inline uint64_t agg_hash(uint32_t g, uint32_t tid, uint32_t cpu)
{
	return zt_hash_mix(zt_hash_pair(g, tid), cpu);
}

static inline uint64_t agg_hash_at(const void *ctx, uint32_t i)
{
	const struct ragg *a = &((const struct rpriv *)ctx)->aggs[i];

	return agg_hash(a->group, a->tid, a->cpu);
}

static int agg_add(struct rpriv *p, uint32_t g, uint32_t tid, uint32_t cpu, uint64_t w,
		   uint64_t first, uint32_t first_tid)
{
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&p->ahash, 1, agg_hash_at, p))
		return -ENOMEM;
	for (j = zt_htab_first(&p->ahash, agg_hash(g, tid, cpu)); zt_htab_get(&p->ahash, j, &i);
	     j = zt_htab_next(&p->ahash, j)) {
		struct ragg *a = &p->aggs[i];

		if (a->group == g && a->tid == tid && a->cpu == cpu) {
			a->weight += w;
			a->nr++;
			if (first < a->first) {
				a->first = first;
				a->first_tid = first_tid;
			}
			return 0;
		}
	}
	if (ZT_GROW(p->aggs, p->cap_aggs, p->nr_aggs + 1))
		return -ENOMEM;
	p->aggs[p->nr_aggs] = (struct ragg){.group = g, .tid = tid, .cpu = cpu, .first_tid = first_tid,
					     .weight = w, .nr = 1, .first = first};
	zt_htab_set(&p->ahash, j, (uint32_t)p->nr_aggs++);
	return 0;
}

static int uses_key(const struct rmodel_opts *o, enum hist_key k)
{
	unsigned i;

	for (i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == k)
			return 1;
	return 0;
}

/* --dso and --symbols select samples by their own function (perf's sample
 * symbol: the innermost frame that is not inlined): gpass per group. */
/* The function of group g's sample (its innermost frame not inlined), or NULL. */
static const struct hist_frame *group_leaf(const struct rmodel *m, const struct rgroup *g)
{
	const struct rpriv *p = m->priv;
	const struct hist_frame *t = NULL;
	uint32_t k;

	for (k = 0; k < g->n; k++) {
		t = &p->frames[p->fidx[g->off + k]];
		if (!t->inlined)
			break;
	}
	return t;
}

/* perf's parent of each group: the innermost function of its stack that
 * matches o->parent (the sample's own included), else "[other]". */
static int find_parents(struct rmodel *m, const struct rmodel_opts *o)
{
	struct rpriv *p = m->priv;
	uint32_t other;
	size_t i;
	int ret;

	free(p->gparent);
	p->gparent = calloc(m->nr_groups ? m->nr_groups : 1, sizeof(*p->gparent));
	if (!p->gparent)
		return -ENOMEM;
	if ((ret = hist_intern(&m->hist, "[other]", &other)))
		return ret;
	for (i = 0; i < m->nr_groups; i++) {
		const struct rgroup *g = &m->groups[i];
		uint32_t k;

		p->gparent[i] = other;
		for (k = 0; o->parent && k < g->n; k++) {
			const struct hist_frame *t = &p->frames[p->fidx[g->off + k]];

			if (!t->inlined && t->symq &&
			    !regexec(o->parent, hist_str(&m->hist, t->sym), 0, NULL, 0)) {
				p->gparent[i] = t->sym;
				break;
			}
		}
	}
	return 0;
}

static int unresolved(const struct rmodel *m, const struct rgroup *g)
{
	const struct hist_frame *t = group_leaf(m, g);

	return !t || t->symq == 0;
}

static int leaf_filter(struct rmodel *m, const struct rfilter *f)
{
	struct rpriv *p = m->priv;
	size_t i;

	free(p->gpass);
	p->gpass = calloc(m->nr_groups ? m->nr_groups : 1, 1);
	if (!p->gpass)
		return -ENOMEM;
	for (i = 0; i < m->nr_groups; i++) {
		const struct rgroup *g = &m->groups[i];
		const struct hist_frame *t = group_leaf(m, g);
		const struct prof_stack *st =
			g->stack < m->prof->nr_stacks ? &m->prof->stacks[g->stack] : NULL;
		/* -S's addresses: the sample's own (its stack's first), in a mapping */
		int mapped =
			st && st->nk + st->nu && g->leaf == RMODEL_NO_LEAF && t && !t->unmapped;

		if (!t)
			continue;
		p->gpass[i] = (uint8_t)rfilter_leaf_at(
			f, hist_str(&m->hist, t->dso), NULL, hist_str(&m->hist, t->sym),
			mapped ? profile_stack_ips(m->prof, g->stack)[0] : 0, mapped);
	}
	return 0;
}

/* The frames of a group's stack that perf's chain walk keeps, as frame
 * indexes (innermost first). perf walks the chain in its order (callee:
 * from the sample's own address out; caller: from the outermost in), stops
 * after --max-stack addresses (an address's frames end with its function),
 * and at each function matching --ignore-callees forgets what it walked so
 * far and makes that function the sample's own. The chain is [*lo, *hi);
 * *own is the frame that gets the Self when it is not the chain's first in
 * index order (caller order: a match, or the sample's own address when the
 * walk did not reach it), else UINT32_MAX. */
static void chain_walk(const struct rmodel *m, const struct rgroup *g, const struct rmodel_opts *o,
		       uint32_t *lo, uint32_t *hi, uint32_t *own)
{
	const struct rpriv *p = m->priv;
	uint32_t j, addrs = 0, total = 0;

	*lo = 0;
	*hi = g->n;
	*own = UINT32_MAX;
	if (o->max_stack) {
		for (j = 0; j < g->n; j++)
			total += !p->frames[p->fidx[g->off + j]].inlined;
		if (total > o->max_stack && !o->max_stack_outer) {
			for (j = 0; j < g->n && addrs < o->max_stack; j++)
				addrs += !p->frames[p->fidx[g->off + j]].inlined;
			*hi = j;
		} else if (total > o->max_stack) {
			for (j = 0; j < g->n && addrs < total - o->max_stack; j++)
				addrs += !p->frames[p->fidx[g->off + j]].inlined;
			*lo = j;
			for (j = 0; j + 1 < g->n && p->frames[p->fidx[g->off + j]].inlined; j++)
				;
			*own = j; /* the sample's own function */
		}
	}
	if (!o->ignore_callees)
		return;
	for (j = *lo; j < *hi; j++) {
		const struct hist_frame *t = &p->frames[p->fidx[g->off + j]];

		if (t->inlined || !t->symq ||
		    regexec(o->ignore_callees, hist_str(&m->hist, t->sym), 0, NULL, 0))
			continue;
		if (o->caller_order) {
			/* the innermost match: the chain from it in */
			*hi = j + 1;
			*own = j;
			return;
		}
		*lo = j; /* callee order: the outermost match, from it out */
	}
}

/* Frame t of aggregate a (of group g) as the next scratch frame. */
static void put_frame(struct rpriv *p, const struct hist_frame *t, const struct rgroup *g,
		      const struct ragg *a, int outside, uint32_t *n)
{
	struct hist_frame *h = &p->scratch[(*n)++];

	*h = *t;
	h->outside = (uint8_t)outside;
	h->comm = g->comm;
	h->parent = p->gparent ? p->gparent[a->group] : 0;
	h->pid = g->pid;
	h->tid = a->tid;
	h->cpu = a->cpu;
	h->first = a->first;
	h->first_tid = a->first_tid;
}

/* Each aggregate's frames (without inline frames unless asked) into the
 * histogram: pass 0 counts (and notes entry indexes when a pass 1 adds
 * lazy chains). */
static int add_aggs(struct rmodel *m, const struct rmodel_opts *o, int pass)
{
	struct rpriv *p = m->priv;
	size_t i, at = 0;
	int ret, lazy = m->hist.opts.lazy_chains;

	for (i = 0; i < p->nr_aggs; i++) {
		const struct ragg *a = &p->aggs[i];
		const struct rgroup *g = &m->groups[a->group];
		uint32_t k, n = 0, *eidx = NULL, lo, hi, own;

		if (pass) {
			/* only stacks with an entry that has a tree */
			n = p->agg_n[i];
			eidx = p->eidx + at;
			at += n;
			for (k = 0; k < n && m->hist.entries[eidx[k]].chain == CC_NONE; k++)
				;
			if (k == n)
				continue;
			n = 0;
		}
		if (ZT_GROW(p->scratch, p->cap_scratch, g->n + 1))
			return -ENOMEM;
		chain_walk(m, g, o, &lo, &hi, &own);
		if (own != UINT32_MAX && own != lo &&
		    !(o->hide_unresolved && p->frames[p->fidx[g->off + own]].symq == 0))
			put_frame(p, &p->frames[p->fidx[g->off + own]], g, a, 1, &n);
		for (k = lo; k < hi; k++) {
			const struct hist_frame *t = &p->frames[p->fidx[g->off + k]];

			if (t->inlined && !o->inline_frames)
				continue;
			if (o->hide_unresolved && t->symq == 0)
				continue;
			put_frame(p, t, g, a, 0, &n);
		}
		if (lazy && !pass) {
			if (ZT_GROW(p->eidx, p->cap_eidx, at + n) ||
			    ZT_GROW(p->agg_n, p->cap_agg_n, i + 1))
				return -ENOMEM;
			eidx = p->eidx + at;
			at += n;
			p->agg_n[i] = n;
		}
		ret = pass ? hist_add_chains_at(&m->hist, p->scratch, eidx, n, a->weight, a->nr)
			   : hist_add_sample_at(&m->hist, p->scratch, n, a->weight, a->nr, eidx);
		if (ret)
			return ret;
	}
	return 0;
}

int rmodel_build(struct rmodel *m, const struct rmodel_opts *o)
{
	struct rpriv *p = m->priv;
	const struct rfilter *f = o->filter;
	struct hist_opts ho = {o->children, o->chain,
			       o->chain != HIST_CHAIN_NONE && o->chain_min_pct > 0};
	int by_tid = uses_key(o, HIST_KEY_TID), by_cpu = uses_key(o, HIST_KEY_CPU), per_sample;
	uint64_t hidden = 0, hidden_nr = 0;
	size_t i;
	int ret;

	m->opts = *o;
	flines_release(&p->fl);
	p->fl_made = 0;
	ret = hist_reset(&m->hist, o->keys, o->nr_keys, &ho);
	if (ret)
		return ret;
	if (rfilter_has_leaf(f)) {
		ret = leaf_filter(m, f);
		if (ret)
			return ret;
	}
	if (uses_key(o, HIST_KEY_PARENT) || o->exclude_other) {
		ret = find_parents(m, o);
		if (ret)
			return ret;
	}
	p->nr_aggs = 0;
	zt_htab_clear(&p->ahash);
	m->shown = m->shown_nr = 0;
	per_sample = by_tid || by_cpu || rfilter_active(f) || o->hide_unresolved || o->exclude_other;
	if (!per_sample) {
		/* everything, per group: their totals from rmodel_init */
		if (ZT_GROW(p->aggs, p->cap_aggs, m->nr_groups))
			return -ENOMEM;
		for (i = 0; i < m->nr_groups; i++)
			p->aggs[i] = (struct ragg){.group = (uint32_t)i,
						   .first_tid = m->groups[i].first_tid,
						   .weight = m->groups[i].weight,
						   .nr = m->groups[i].nr,
						   .first = m->groups[i].first};
		p->nr_aggs = m->nr_groups;
		m->shown = m->total;
		m->shown_nr = m->total_nr;
	}
	for (i = 0; per_sample && i < m->nr_samples; i++) {
		const struct prof_sample *s = &m->samples[i];
		const struct rgroup *g = &m->groups[p->sgroup[i]];

		/* perf: --cpu and --time leave samples out; --comm, --pid,
		 * --tid, --dso and --symbols hide them but keep them in the total */
		int v = rfilter_sample(f, s, hist_str(&m->hist, g->comm), m->time_first,
				       m->time_last);

		/* perf -U: a sample without a function of its own is left out */
		if (v == RFILTER_DROP || (o->hide_unresolved && unresolved(m, g)))
			continue;
		if (v == RFILTER_HIDE || (rfilter_has_leaf(f) && !p->gpass[p->sgroup[i]]) ||
		    (o->exclude_other && !o->parent) ||
		    (o->exclude_other && !strcmp(hist_str(&m->hist, p->gparent[p->sgroup[i]]),
						 "[other]"))) {
			hidden += s->weight;
			hidden_nr++;
			continue;
		}
		m->shown += s->weight;
		m->shown_nr++;
		ret = agg_add(p, p->sgroup[i], by_tid ? s->tid : 0, by_cpu ? s->cpu : 0, s->weight,
			      s->ts, s->tid);
		if (ret)
			return ret;
	}
	if (hidden_nr && !o->relative) {
		ret = hist_add_sample(&m->hist, NULL, 0, hidden, hidden_nr);
		if (ret)
			return ret;
	}
	if (uses_key(o, HIST_KEY_SRCLINE) && !p->srclines) {
		for (i = 0; i < p->nr_frames; i++) {
			char buf[NAME_MAX_LEN];

			zt_frame_srcline(frametab_frame(m->rs.ft, (uint32_t)i), buf, sizeof(buf));
			ret = hist_intern_clean(&m->hist, buf, &p->frames[i].srcline);
			if (ret)
				return ret;
		}
		p->srclines = 1;
	}
	ret = add_aggs(m, o, 0);
	if (!ret && ho.lazy_chains) {
		ret = hist_want_chains(
			&m->hist, (uint64_t)((double)m->hist.total * o->chain_min_pct / 100.0));
		if (!ret)
			ret = add_aggs(m, o, 1);
	}
	free(p->eidx);
	free(p->agg_n);
	p->eidx = p->agg_n = NULL;
	p->cap_eidx = p->cap_agg_n = 0;
	return ret;
}

int rmodel_entry_shown(const struct rmodel *m, const struct hist_entry *e)
{
	const struct rfilter *f = m->opts.filter;

	if (!f)
		return 1;
	return rfilter_leaf(f, hist_str(&m->hist, e->f.dso), NULL, hist_str(&m->hist, e->f.sym));
}

int rmodel_sort(struct rmodel *m, double percent_limit, const struct hist_entry ***rows, size_t *n)
{
	if (m->opts.sort.nr)
		return hist_sort_by(&m->hist, &m->opts.sort, percent_limit, rows, n);
	return hist_sort(&m->hist,
			 m->opts.children ? (m->opts.sort_self ? HIST_SORT_SELF_ALL : 1) : 0,
			 percent_limit, rows, n);
}

static inline uint64_t fline_hash(const struct fline *e, int by_line)
{
	return zt_hash_mix(zt_hash_pair(e->key, by_line ? (uintptr_t)e->file : 0),
			   by_line ? e->line : 0);
}

static inline uint64_t line_hash_at(const void *t, uint32_t i)
{
	return fline_hash(&((const struct flines *)t)->v[i], 1);
}

static inline uint64_t func_hash_at(const void *t, uint32_t i)
{
	return fline_hash(&((const struct flines *)t)->v[i], 0);
}

/* The entry of e's function (by_line: and its line) in t; NULL with *slot
 * the empty slot where it goes (t has slots). */
static struct fline *fline_find(const struct flines *t, const struct fline *e, int by_line,
				size_t *slot)
{
	size_t j;
	uint32_t i;

	for (j = zt_htab_first(&t->hash, fline_hash(e, by_line)); zt_htab_get(&t->hash, j, &i);
	     j = zt_htab_next(&t->hash, j)) {
		const struct fline *c = &t->v[i];

		if (c->key == e->key && (!by_line || (c->file == e->file && c->line == e->line)))
			return &t->v[i];
	}
	*slot = j;
	return NULL;
}

/* The entry of e's function (by_line: and its line) in t, a copy of e
 * when new (*added set then). NULL: -ENOMEM. */
static struct fline *fline_get(struct flines *t, const struct fline *e, int by_line, int *added)
{
	struct fline *c;
	size_t j;

	*added = 0;
	if (zt_htab_reserve(&t->hash, 1, by_line ? line_hash_at : func_hash_at, t))
		return NULL;
	c = fline_find(t, e, by_line, &j);
	if (c)
		return c;
	if (ZT_GROW(t->v, t->cap, t->nr + 1))
		return NULL;
	*added = 1;
	t->v[t->nr] = *e;
	zt_htab_set(&t->hash, j, (uint32_t)t->nr);
	return &t->v[t->nr++];
}

/* Count the weight of each (function, file, line) over the last build's
 * samples, then keep each function's heaviest. 0 or -ENOMEM. */
static int count_lines(struct rmodel *m)
{
	struct rpriv *p = m->priv;
	struct flines t = {0}, best = {0};
	size_t i;
	int added, ret = 0;

	for (i = 0; i < p->nr_aggs && !ret; i++) {
		const struct ragg *a = &p->aggs[i];
		const struct rgroup *g = &m->groups[a->group];
		uint32_t f;

		for (f = 0; f < g->n; f++) {
			const struct hist_frame *h = &p->frames[p->fidx[g->off + f]];
			const struct zt_frame *pos = frametab_frame(m->rs.ft, p->fidx[g->off + f]);
			struct fline k = {hist_chain_key(h), pos->dir, pos->file, pos->line, 0}, *e;

			if (!pos->file || !pos->line || !k.key)
				continue;
			e = fline_get(&t, &k, 1, &added);
			if (!e) {
				ret = -ENOMEM;
				break;
			}
			e->weight += a->weight;
		}
	}
	/* in the order first seen: of a function's lines tied in weight and
	 * line number (in two files), the first */
	for (i = 0; i < t.nr && !ret; i++) {
		struct fline *b = fline_get(&best, &t.v[i], 0, &added);

		if (!b)
			ret = -ENOMEM;
		else if (!added && (t.v[i].weight > b->weight ||
				    (t.v[i].weight == b->weight && t.v[i].line < b->line)))
			*b = t.v[i];
	}
	flines_release(&t);
	if (ret) {
		flines_release(&best);
		return ret;
	}
	flines_release(&p->fl);
	p->fl = best;
	p->fl_made = 1;
	return 0;
}

int rmodel_func_line(struct rmodel *m, uint64_t key, char *buf, size_t n)
{
	struct rpriv *p = m->priv;
	const struct fline k = {.key = key}, *b;
	const char *base;
	size_t j;
	int ret;

	if (!p->fl_made && (ret = count_lines(m)))
		return ret;
	b = p->fl.nr ? fline_find(&p->fl, &k, 0, &j) : NULL;
	if (!b)
		return -ENOENT;
	base = strrchr(b->file, '/');
	snprintf(buf, n, "%s:%u", base ? base + 1 : b->file, b->line);
	return 0;
}

const char *rmodel_chain_name(const struct rmodel *m, const struct cc_node *n)
{
	return hist_str(&m->hist, hist_chain_key_sym(n->key));
}

static int line_cmp(const void *pa, const void *pb)
{
	const struct rline *a = pa, *b = pb;

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return strcmp(a->file, b->file);
}

int rmodel_lines(struct rmodel *m, const struct hist_entry *e, struct rline **out, size_t *n)
{
	struct rpriv *p = m->priv;
	struct rline *l = NULL;
	size_t i, nr = 0, cap = 0;
	char path[NAME_MAX_LEN];

	*out = NULL;
	*n = 0;
	for (i = 0; i < p->nr_aggs; i++) {
		const struct ragg *a = &p->aggs[i];
		const struct rgroup *g = &m->groups[a->group];
		const struct hist_frame *t = NULL;
		const struct zt_frame *pos = NULL;
		uint32_t k, file;
		size_t j;

		/* the sample's own function, whose Self it is (its innermost
		 * frame that is not inlined, as in hist), with or without
		 * inline frames */
		for (k = 0; k < g->n; k++) {
			t = &p->frames[p->fidx[g->off + k]];
			pos = frametab_frame(m->rs.ft, p->fidx[g->off + k]);
			if (!t->inlined)
				break;
		}
		if (k == g->n || t->dso != e->f.dso || t->sym != e->f.sym || !pos->file ||
		    !pos->line)
			continue;
		zt_src_path(path, sizeof(path), pos->dir, pos->file);
		if (hist_intern(&m->hist, path, &file)) {
			free(l);
			return -ENOMEM;
		}
		for (j = 0; j < nr; j++)
			if (l[j].line == pos->line && l[j].file == hist_str(&m->hist, file))
				break;
		if (j == nr) {
			if (ZT_GROW(l, cap, nr + 1)) {
				free(l);
				return -ENOMEM;
			}
			l[nr++] = (struct rline){hist_str(&m->hist, file), pos->line, 0, 0};
		}
		l[j].weight += a->weight;
		l[j].nr += a->nr;
	}
	if (nr)
		qsort(l, nr, sizeof(*l), line_cmp);
	*out = l;
	*n = nr;
	return 0;
}
