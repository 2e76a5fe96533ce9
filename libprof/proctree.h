/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Processes over time: per thread the timeline of its names, per process
 * the timeline of its address spaces (exec, fork) and executable mappings,
 * built once from a read profile and answering lookups in O(log n).
 */
#ifndef ZT_PROCTREE_H
#define ZT_PROCTREE_H

#include <stdint.h>

#include "libprof/profile.h"

struct proctree;

/*
 * Build the tree from p (borrowed: p must outlive the tree and must not get
 * new tasks or mmaps meanwhile). Returns 0 or -ENOMEM.
 *
 * Address spaces: an EXEC of pid at time e, and a FORK creating pid
 * (pid != ppid) at time f, each start a new generation of pid's address
 * space; mappings belong to the generation in force at their own time. A
 * generation started by a FORK inherits the parent's space as of f.
 * Threads (FORK with pid == ppid) share their process's space. Mappings
 * and task events stamped at or before the recording's start (meta
 * "time_start", decimal ns) count as present from the beginning.
 */
int proctree_new(const struct profile *p, struct proctree **out);
void proctree_free(struct proctree *pt);

/*
 * The name of thread tid of process pid at time ts (borrowed from the
 * profile): the latest COMM/EXEC of tid at or before ts; when that is the
 * thread's creation (FORK), the creator's name at that time; else the
 * latest of pid; else the earliest of tid after ts, then of pid; else NULL.
 */
const char *proctree_comm(const struct proctree *pt, uint32_t pid, uint32_t tid, uint64_t ts);

/*
 * The executable mapping covering addr in process pid at time ts (borrowed
 * from the profile), or NULL. Among the covering mappings of the
 * generation in force at ts, the latest one mapped at or before ts wins;
 * when none is that old (a sample stamped just before its MMAP), the
 * earliest. A forked child without a covering mapping of its own looks in
 * its parent as of the fork (strictly: not at what the parent mapped
 * later). pid ZT_PID_KERNEL holds the kernel's mappings.
 */
const struct prof_mmap *proctree_map(const struct proctree *pt, uint32_t pid, uint64_t ts,
				     uint64_t addr);

/*
 * A value that changes whenever the answers of proctree_map() for pid may
 * change: two times with equal epochs see the same mappings (a generation
 * and the number of its mappings present). Lets callers aggregate samples
 * before resolving their addresses.
 */
uint64_t proctree_epoch(const struct proctree *pt, uint32_t pid, uint64_t ts);

/*
 * proctree_comm(pid, tid, ts) and proctree_epoch(pid, ts) at once, with a
 * span of time [*from, *until) around ts over which both stay the same
 * (the neighbouring events of the thread and process, generations and
 * mappings): callers may reuse the answers for other times in it.
 */
void proctree_thread_at(const struct proctree *pt, uint32_t pid, uint32_t tid, uint64_t ts,
			const char **comm, uint64_t *epoch, uint64_t *from, uint64_t *until);

#endif
