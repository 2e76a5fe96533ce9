/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The local build-id cache (perf's ~/.debug idea): copies of binaries keyed
 * by GNU build id, so a binary deleted or replaced after it ran still
 * symbolizes. Layout: DIR/buildid/<xx>/<rest>/elf, where <xx><rest> is the
 * hex build id. DIR is $ZT_CACHE_DIR, else $XDG_CACHE_HOME/zt, else
 * ~/.cache/zt (of the invoking user under sudo: $SUDO_USER's home).
 */
#ifndef ZT_BUILDID_CACHE_H
#define ZT_BUILDID_CACHE_H

#include <stddef.h>
#include <sys/types.h>

#include "libprof/profile.h"

struct buildid_cache {
	char *dir;       /* owned */
	uid_t uid;       /* owner for files created (the sudo user), or -1 to keep */
	gid_t gid;
};

/* Resolve the cache directory (not created yet). Returns 0 or -ENOMEM. */
int buildid_cache_init(struct buildid_cache *c);
void buildid_cache_release(struct buildid_cache *c);

/* Path of the cached ELF for b into out; returns 0 if the file exists,
 * -ENOENT if not (out is filled either way), -ENAMETOOLONG. */
int buildid_cache_path(const struct buildid_cache *c, const struct prof_build_id *b,
		       char *out, size_t n);
/* Copy the file open at fd (read from offset 0, fd borrowed) into the
 * cache under b, atomically (temp file + rename), unless it is already
 * there. Verifies that the copied file has build id b: -ESTALE if not.
 * Created directories and files are chowned to c->uid/gid when set. */
int buildid_cache_add_fd(const struct buildid_cache *c, const struct prof_build_id *b, int fd);

#endif
