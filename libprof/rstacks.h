/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Resolved stacks: the one handle a consumer of a profile takes (report,
 * script, flame, convert, annotate, diff, push, top; the report and top
 * models, the stack writers of formats/). It holds the profile, whose
 * samples, events, meta and GPU records are data the consumer reads, and,
 * privately, the process tree over it and the frame table its addresses
 * resolve into. A consumer asks the handle for what it needs (a group's
 * stack of resolved frames, leaf first, kernel then user, inline frames
 * included: formats/stackgroups.h over the handle; a thread's name at a
 * time; a frame by index, and its name: zt_frame_name()), and never
 * touches the tree, the frame table or the resolver behind them.
 *
 * The session (session/session.h: session_stacks(); for a profile that
 * grows, session_live_stacks()) hands it out; a test makes one over its
 * own parts with rstacks_init() or rstacks_live_init().
 * Resolving is in batches: the report model resolves every group at once
 * and then seals the table (rstacks_seal()); the stack writers resolve
 * each group once, whatever its number of samples.
 *
 * The handle is a few borrowed pointers: copying it is cheap, and a copy
 * names the same tree and table.
 */
#ifndef ZT_RSTACKS_H
#define ZT_RSTACKS_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/frametab.h"
#include "libprof/proctree.h"
#include "libprof/profile.h"

struct rstacks {
	const struct profile *prof; /* the samples, events, meta, GPU records: read-only */
	/* private: only the consumers of libprof/ and formats/ that walk
	 * stacks (rmodel, stackgroups, toplive, ...) reach them */
	const struct proctree *pt; /* prof's processes over time */
	struct frametab *ft;	   /* prof's addresses, resolved as asked */
};

/* A handle over p, its tree pt and the frame table ft (all borrowed; they
 * must outlive rs and its copies). For the session, and for tests. */
static inline void rstacks_init(struct rstacks *rs, const struct profile *p,
				const struct proctree *pt, struct frametab *ft)
{
	rs->prof = p;
	rs->pt = pt;
	rs->ft = ft;
}

/* Thread tid of process pid's name at time ts (interned: names compare
 * by pointer), or NULL when the profile does not name it. */
static inline const char *rstacks_comm(const struct rstacks *rs, uint32_t pid, uint32_t tid,
				       uint64_t ts)
{
	return proctree_comm(rs->pt, pid, tid, ts);
}

/* Frame i of the handle's frames (a zt_frange's first .. first+n). */
static inline const struct zt_frame *rstacks_frame(const struct rstacks *rs, uint32_t i)
{
	return frametab_frame(rs->ft, i);
}

/* The frames of kernel address addr into *r. 0 or a negative errno. */
static inline int rstacks_kernel_frames(const struct rstacks *rs, uint64_t addr,
					struct zt_frange *r)
{
	return frametab_resolve(rs->ft, 0, 0, 0, &addr, 1, 1, r);
}

/* Every frame a consumer will show is resolved (the report model resolved
 * every group at once): free what only further lookups need. Frames stay
 * valid; a later lookup still works, at a new index's cost. */
static inline void rstacks_seal(const struct rstacks *rs)
{
	frametab_seal(rs->ft);
}

/*
 * The stacks of a profile that grows (zt top): the tree over it and the
 * frame table, which rstacks_live_follow() rebuilds and starts again as
 * the profile grows, the frame source following. Owned by the session's
 * live part (session_live_new()), or by a test. Embedded:
 * rstacks_live_init() and rstacks_live_release().
 */
struct rstacks_live {
	struct rstacks rs; /* over the profile followed last (rs.prof NULL: none yet) */
	/* private */
	struct proctree *pt;
	struct frametab ft;
	struct frametab_source src;
};

/* No profile yet; frames from src (copied; its ctx borrowed; with
 * follow() for a profile that grows). */
void rstacks_live_init(struct rstacks_live *lv, const struct frametab_source *src);
/* The source forgets its profile; the tree and table go. */
void rstacks_live_release(struct rstacks_live *lv);
/*
 * From now on the stacks of p (borrowed: grown, tasks and mappings
 * appended, or another profile): a new tree over it the source follows,
 * and the frames resolved so far forgotten; p NULL: forget everything (p
 * is about to be replaced). 0 or -ENOMEM (lv as it was).
 */
int rstacks_live_follow(struct rstacks_live *lv, const struct profile *p);

#endif
