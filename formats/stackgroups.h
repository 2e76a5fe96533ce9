/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stack groups: a profile's samples gathered into the groups that resolve
 * alike (one stack, in one process under one set of mappings, and as the
 * caller asks under one thread name and in one thread), each group's stack
 * resolved through the frame table when asked: the walk from samples to
 * resolved frames, leaf first, that the stack writers share (perf script's
 * text and folded stacks, formats/perfscript.h and formats/folded.h, and
 * pprof).
 */
#ifndef ZT_STACKGROUPS_H
#define ZT_STACKGROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"
#include "libprof/rstacks.h"
#include "libprof/sgroup.h"

struct stackgroup {
	uint32_t stack, pid, tid; /* tid 0 unless the caller tells threads apart */
	const char *comm;	  /* the thread name it was added under (borrowed), or NULL */
	uint64_t epoch;		  /* the address space it resolves in (see stackgroups_add) */
	uint64_t ts;		  /* its first sample's time: what its frames resolve at */
	uint64_t nr, weight;	  /* its samples, and the sum of their weights */
};

/*
 * Groups numbered 0, 1, ... in order of their first sample: groups[i].
 * Embedded: stackgroups_init() and stackgroups_release(). What the
 * stacks handle names is borrowed for the groups' life.
 */
struct stackgroups {
	struct stackgroup *groups;
	size_t nr;
	/* private */
	const struct profile *p;
	const struct proctree *pt;
	struct frametab *ft;
	struct sgroups sg;
	size_t cap;
	struct zt_frange *ranges; /* the last resolved stack's frames */
	size_t cap_ranges;
};

/* Groups of the samples of rs's profile, resolved through rs. */
void stackgroups_init(struct stackgroups *g, const struct rstacks *rs);
void stackgroups_release(struct stackgroups *g);

/* Room for n groups in all (a caller that knows about how many there
 * will be), grown once. 0 or -ENOMEM. */
int stackgroups_reserve(struct stackgroups *g, size_t n);

/*
 * Count sample smp into its group: same stack, process, address-space epoch
 * (proctree_epoch(), and for a process whose JIT code changes over time the
 * sample's own time), thread name comm (compared by pointer: the tree's
 * interned names; NULL when names do not matter) and tid (0 when threads
 * are not told apart). *idx: the group; *is_new (may be NULL): made by this
 * call (the caller then grows its own per-group arrays to g->nr).
 * 0, -ENOMEM, or -EINVAL (a stack the profile does not have).
 */
int stackgroups_add(struct stackgroups *g, const struct prof_sample *smp, const char *comm,
		    uint32_t tid, uint32_t *idx, int *is_new);

/*
 * The frames of group idx's first *n addresses (at most max), leaf first:
 * kernel addresses, then user ones. (*ips)[i] is address i, (*ranges)[i]
 * its frames in g's stacks handle (rstacks_frame(): inline frames
 * innermost first, then the function). Both stay valid until the next call. 0 or a negative errno.
 */
int stackgroups_resolve(struct stackgroups *g, uint32_t idx, unsigned max, const uint64_t **ips,
			const struct zt_frange **ranges, unsigned *n);

/*
 * Group idx's first *n addresses (at most max) unresolved, in
 * stackgroups_resolve()'s order, the first *nk of them kernel ones: for a
 * caller that keeps what each address gave it (zt serve's ingest, over a
 * transient frame table) and resolves only the addresses it has not met,
 * with stackgroups_resolve_one(). Valid while the profile is.
 */
void stackgroups_addrs(const struct stackgroups *g, uint32_t idx, unsigned max,
		       const uint64_t **ips, unsigned *nk, unsigned *n);

/*
 * The frames of group idx's address k alone (k < its addresses), as
 * stackgroups_resolve() gives them: *range, valid until the next call. 0,
 * -EINVAL (no address k) or the frame table's errors.
 */
int stackgroups_resolve_one(struct stackgroups *g, uint32_t idx, unsigned k,
			    const struct zt_frange **range);

#endif
