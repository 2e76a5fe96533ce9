/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf maps of JIT code (/tmp/perf-PID.map): "START SIZE NAME" lines, hex
 * START and SIZE with or without 0x. Later lines win over earlier ones for
 * the same address (JITs append as they recompile).
 */
#ifndef ZT_PERFMAP_H
#define ZT_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"

struct perfmap;

int perfmap_parse(const char *text, size_t len, struct perfmap **out);
void perfmap_free(struct perfmap *m);
size_t perfmap_count(const struct perfmap *m);
/* The entry containing addr: name (borrowed) and *off; NULL if none. */
const char *perfmap_lookup(const struct perfmap *m, uint64_t addr, uint64_t *off);

/* What perfmap_add_host() did: files used, and the first one refused. */
struct perfmap_host_info {
	unsigned used, refused;
	uint32_t refused_pid; /* the pid of the first refused file */
	int refused_err;      /* why, as procfile_open() says it (procfile_why()) */
};

/*
 * perf report reads /tmp/perf-PID.map when it reports, and so does this for
 * a recording that carries no perf maps (perf.data): each process of p with
 * an anonymous executable mapping (JIT code) and no perf-map blob gets this
 * machine's /tmp/perf-PID.map as a PROF_BLOB_PERFMAP blob, as zt record
 * would have stored it. perf's safety rule, stricter: the file is used only
 * when owned by the reading user (effective uid) or root, regular, with one
 * link, not reached through a symbolic link, and at most PROCFILE_MAX
 * bytes. tmpdir is "/tmp" (NULL) or another directory for tests. Returns 0
 * or -ENOMEM; info (may be NULL) counts the files.
 */
int perfmap_add_host(struct profile *p, const char *tmpdir, struct perfmap_host_info *info);

#endif
