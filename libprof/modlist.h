/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The modules (perf's DSOs) of a recording, as perf buildid-list lists
 * them: the kernel, then each mapped file once, in the order of its first
 * mapping, with its build id and whether a sample's own address (not its
 * callers') falls in it.
 */
#ifndef ZT_MODLIST_H
#define ZT_MODLIST_H

#include <stddef.h>

#include "libprof/profile.h"
#include "libprof/rstacks.h"

struct modlist_entry {
	const char *path;	  /* borrowed from the profile ("[kernel.kallsyms]" a literal) */
	struct prof_build_id bid; /* len 0: none known */
	int hit;		  /* a sample's address is in it */
};

struct modlist {
	struct modlist_entry *e;
	size_t nr, cap;
};

/* Fill l (zeroed by the caller) from the profile of rs and its processes
 * (borrowed: they must outlive l): "[kernel.kallsyms]" first when the
 * recording has kernel mappings, samples or build id, then the mapped
 * files. 0 or -ENOMEM. */
int modlist_build(struct modlist *l, const struct rstacks *rs);
void modlist_release(struct modlist *l);

#endif
