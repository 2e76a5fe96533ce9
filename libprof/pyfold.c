// SPDX-License-Identifier: GPL-2.0-or-later
/* The Python glue fold (see pyfold.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/gpu.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/pyfold.h"

/* Whether two mappings are one module: the same mapping, or the same file. */
static int same_module(const struct prof_mmap *a, const struct prof_mmap *b)
{
	return a == b || !strcmp(a->path, b->path);
}

unsigned pyfold_user(const struct proctree *pt, uint32_t pid, uint64_t ts, const uint64_t *u,
		     unsigned nu, uint64_t *out)
{
	unsigned i = 0, n = 0, k;

	while (i < nu) {
		const struct prof_mmap *interp;

		if (!prof_is_py(u[i])) {
			out[n++] = u[i++];
			continue;
		}
		while (i < nu && prof_is_py(u[i]))
			out[n++] = u[i++];
		/* u[i]: the evaluation loop that ran the run, in the
		 * interpreter's module (not known: all kept) */
		if (i == nu || !(interp = proctree_map(pt, pid, ts, u[i])))
			continue;
		for (k = ++i; k < nu && !prof_is_py(u[k]); k++)
			;
		if (k == nu)
			continue; /* the interpreter's entry, main ...: kept */
		/* the interpreter's call machinery up to the next run goes;
		 * other modules (a C extension calling Python) stay */
		for (; i < k; i++) {
			const struct prof_mmap *m = proctree_map(pt, pid, ts, u[i]);

			if (!m || !same_module(m, interp))
				out[n++] = u[i];
		}
	}
	return n;
}

/* A stack folded in an address space: (stack, pid, epoch) -> to. */
struct pf_ent {
	uint64_t epoch;
	uint32_t stack, pid, to;
};

struct pf {
	struct profile *p;
	const struct proctree *pt;
	uint8_t *kind; /* per stack of the profile as it came: 0 not seen, 1 no Python, 2 Python */
	size_t nr_kind;
	struct pf_ent *ents;
	size_t nr_ents, cap_ents;
	struct zt_htab hash; /* ents by key */
	uint64_t *buf;	     /* a folded stack */
	struct pyfold_stats st;
};

static inline uint64_t ent_hash(uint32_t stack, uint32_t pid, uint64_t epoch)
{
	return zt_hash_mix(zt_hash_pair(epoch, pid), stack);
}

static inline uint64_t ent_hash_at(const void *ctx, uint32_t i)
{
	const struct pf_ent *e = &((const struct pf *)ctx)->ents[i];

	return ent_hash(e->stack, e->pid, e->epoch);
}

/* Whether stack id has Python frames (its user part scanned once). */
static int has_py(struct pf *f, uint32_t id)
{
	const struct prof_stack *s;
	const uint64_t *u;
	unsigned i;

	if (f->kind[id])
		return f->kind[id] == 2;
	s = &f->p->stacks[id];
	u = profile_stack_ips(f->p, id) + s->nk;
	f->kind[id] = 1;
	for (i = 0; i < s->nu; i++)
		if (prof_is_py(u[i])) {
			f->kind[id] = 2;
			break;
		}
	return f->kind[id] == 2;
}

/* The folded stack of stack *id in pid at ts, into *id. 0 or -ENOMEM. */
static int fold_one(struct pf *f, uint32_t *id, uint32_t pid, uint64_t ts)
{
	const struct prof_stack *s;
	uint64_t epoch;
	unsigned nk, nu, n;
	uint32_t i, to;
	size_t j;
	int ret;

	if (*id >= f->nr_kind || !has_py(f, *id))
		return 0;
	epoch = proctree_epoch(f->pt, pid, ts);
	if (zt_htab_reserve(&f->hash, 1, ent_hash_at, f))
		return -ENOMEM;
	for (j = zt_htab_first(&f->hash, ent_hash(*id, pid, epoch)); zt_htab_get(&f->hash, j, &i);
	     j = zt_htab_next(&f->hash, j)) {
		const struct pf_ent *e = &f->ents[i];

		if (e->stack == *id && e->pid == pid && e->epoch == epoch) {
			*id = e->to;
			return 0;
		}
	}
	s = &f->p->stacks[*id];
	nk = s->nk;
	nu = s->nu;
	/* the profile's ips may move when a stack is interned: copied first */
	memcpy(f->buf, profile_stack_ips(f->p, *id), nk * sizeof(*f->buf));
	n = pyfold_user(f->pt, pid, ts, profile_stack_ips(f->p, *id) + nk, nu, f->buf + nk);
	to = *id;
	if (n < nu) {
		ret = !nk && n > ZT_MAX_FRAMES ? profile_intern_ustack(f->p, f->buf, n, &to)
					       : profile_intern_stack(f->p, f->buf, nk, n, &to);
		if (ret == -ENOMEM)
			return ret;
		if (ret) {
			to = *id; /* beyond the limits: kept whole */
		} else {
			f->st.stacks++;
			f->st.frames += nu - n;
		}
	}
	if (ZT_GROW(f->ents, f->cap_ents, f->nr_ents + 1))
		return -ENOMEM;
	f->ents[f->nr_ents] = (struct pf_ent){epoch, *id, pid, to};
	zt_htab_set(&f->hash, j, (uint32_t)f->nr_ents++);
	*id = to;
	return 0;
}

static int fold_all(struct pf *f)
{
	struct profile *p = f->p;
	size_t i, max = 0;
	int ret = 0;

	for (i = 0; i < p->nr_stacks; i++)
		if ((size_t)p->stacks[i].nk + p->stacks[i].nu > max)
			max = (size_t)p->stacks[i].nk + p->stacks[i].nu;
	f->nr_kind = p->nr_stacks;
	if (!(f->kind = calloc(f->nr_kind ? f->nr_kind : 1, 1)) ||
	    !(f->buf = malloc((max ? max : 1) * sizeof(*f->buf))))
		return -ENOMEM;
	for (i = 0; !ret && i < p->nr_samples; i++) {
		struct prof_sample *s = &p->samples[i];

		ret = fold_one(f, &s->stack, s->pid, s->ts);
	}
	for (i = 0; !ret && p->gpu && i < p->gpu->nr_launches; i++) {
		struct prof_gpu_launch *l = &p->gpu->launches[i];

		if (l->stack != PROF_GPU_NO_STACK)
			ret = fold_one(f, &l->stack, l->pid, l->ts);
	}
	return ret;
}

int pyfold_profile(struct profile *p, const struct proctree *pt, struct pyfold_stats *st)
{
	const char *done = profile_get_meta(p, PYFOLD_META);
	struct pf f = {.p = p, .pt = pt};
	size_t i;
	int ret, any = 0;

	if (st)
		memset(st, 0, sizeof(*st));
	if (done && !strcmp(done, PYFOLD_META_FOLDED))
		return 0;
	zt_htab_init(&f.hash);
	ret = fold_all(&f);
	for (i = 0; i < f.nr_kind && !any; i++)
		any = f.kind[i] == 2;
	if (!ret && any)
		ret = profile_set_meta(p, PYFOLD_META, PYFOLD_META_FOLDED);
	if (st)
		*st = f.st;
	free(f.kind);
	free(f.buf);
	free(f.ents);
	zt_htab_release(&f.hash);
	return ret ? -ENOMEM : 0;
}
