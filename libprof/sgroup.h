/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sample groups: the samples that resolve alike (one stack, in one process
 * under one thread name and one set of mappings, optionally one thread),
 * so outputs resolve and format each group once, not each sample.
 */
#ifndef ZT_SGROUP_H
#define ZT_SGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/htab.h"

struct sgroup_key {
	uint32_t stack, pid, tid; /* tid 0 when threads are not told apart */
	const char *comm;         /* compared by pointer: interned names */
	uint64_t epoch;           /* proctree_epoch(), or anything that must differ */
};

/* Groups numbered 0, 1, ... in order of appearance; keys[i] is group i's. */
struct sgroups {
	struct sgroup_key *keys;
	size_t nr, cap;
	struct zt_htab hash; /* key -> group index */
};

void sgroups_init(struct sgroups *g);
void sgroups_release(struct sgroups *g);
/* Room for n groups in all, grown once. 0 or -ENOMEM. */
int sgroups_reserve(struct sgroups *g, size_t n);
/* The index of k's group in *idx; *is_new says it was just made (the
 * caller then grows its own per-group arrays to nr). Returns 0 or -ENOMEM. */
int sgroups_find(struct sgroups *g, const struct sgroup_key *k, uint32_t *idx, int *is_new);

#endif
