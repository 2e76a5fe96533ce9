/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stack groups: samples grouped over libprof/sgroup, stacks resolved through the frame table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/stackgroups.h"
#include "libprof/array.h"
#include "libprof/hash.h"

void stackgroups_init(struct stackgroups *g, const struct rstacks *rs)
{
	memset(g, 0, sizeof(*g));
	g->p = rs->prof;
	g->pt = rs->pt;
	g->ft = rs->ft;
	sgroups_init(&g->sg);
}

void stackgroups_release(struct stackgroups *g)
{
	free(g->groups);
	free(g->ranges);
	sgroups_release(&g->sg);
	memset(g, 0, sizeof(*g));
}

int stackgroups_reserve(struct stackgroups *g, size_t n)
{
	if (ZT_GROW(g->groups, g->cap, n) || sgroups_reserve(&g->sg, n))
		return -ENOMEM;
	return 0;
}

int stackgroups_add(struct stackgroups *g, const struct prof_sample *smp, const char *comm,
		    uint32_t tid, uint32_t *idx, int *is_new)
{
	struct sgroup_key k = {smp->stack, smp->pid, tid, comm,
			       proctree_epoch(g->pt, smp->pid, smp->ts)};
	int added;

	if (smp->stack >= g->p->nr_stacks)
		return -EINVAL;
	k.epoch = frametab_epoch(g->ft, smp->pid, smp->ts, k.epoch);
	if (sgroups_find(&g->sg, &k, idx, &added))
		return -ENOMEM;
	if (added) {
		if (ZT_GROW(g->groups, g->cap, g->sg.nr))
			return -ENOMEM;
		g->groups[*idx] = (struct stackgroup){smp->stack, smp->pid, tid, comm,
						      k.epoch,	  smp->ts,  0,	 0};
		g->nr = g->sg.nr;
	}
	g->groups[*idx].nr++;
	g->groups[*idx].weight += smp->weight;
	if (is_new)
		*is_new = added;
	return 0;
}

int stackgroups_resolve(struct stackgroups *g, uint32_t idx, unsigned max, const uint64_t **ips,
			const struct zt_frange **ranges, unsigned *n)
{
	const struct stackgroup *gr = &g->groups[idx];
	const struct prof_stack *st = &g->p->stacks[gr->stack];

	*ips = profile_stack_ips(g->p, gr->stack);
	*ranges = NULL;
	*n = (unsigned)st->nk + st->nu;
	if (*n > max)
		*n = max;
	if (ZT_GROW(g->ranges, g->cap_ranges, *n ? *n : 1))
		return -ENOMEM;
	*ranges = g->ranges;
	return frametab_resolve(g->ft, gr->pid, gr->ts, gr->epoch, *ips, st->nk < *n ? st->nk : *n,
				*n, g->ranges);
}

void stackgroups_addrs(const struct stackgroups *g, uint32_t idx, unsigned max,
		       const uint64_t **ips, unsigned *nk, unsigned *n)
{
	const struct prof_stack *st = &g->p->stacks[g->groups[idx].stack];

	*ips = profile_stack_ips(g->p, g->groups[idx].stack);
	*n = (unsigned)st->nk + st->nu;
	if (*n > max)
		*n = max;
	*nk = st->nk < *n ? st->nk : *n;
}

int stackgroups_resolve_one(struct stackgroups *g, uint32_t idx, unsigned k,
			    const struct zt_frange **range)
{
	const struct stackgroup *gr = &g->groups[idx];
	const struct prof_stack *st = &g->p->stacks[gr->stack];

	*range = NULL;
	if (k >= (unsigned)st->nk + st->nu)
		return -EINVAL;
	if (ZT_GROW(g->ranges, g->cap_ranges, 1))
		return -ENOMEM;
	*range = g->ranges;
	return frametab_resolve(g->ft, gr->pid, gr->ts, gr->epoch,
				profile_stack_ips(g->p, gr->stack) + k, k < st->nk, 1, g->ranges);
}
