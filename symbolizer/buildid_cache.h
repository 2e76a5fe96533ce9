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

#include "libprof/asuser.h"
#include "libprof/profile.h"

/*
 * Under sudo the cache is the invoking user's, and everything written to it
 * is written with that user's rights (libprof/asuser.h): the files and
 * directories are theirs because they made them, a link they planted leads
 * only where they could go, and a binary is copied in only when they could
 * read it themselves. Nothing is ever chowned.
 */
struct buildid_cache {
	char *dir;           /* owned */
	struct zt_user user; /* active: root working for this sudo user */
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
 * Under sudo, -EACCES when the user could not read the file themselves:
 * by its mode, and by path when path (as this process sees it, or NULL)
 * still names it. */
int buildid_cache_add_fd(const struct buildid_cache *c, const struct prof_build_id *b, int fd,
			 const char *path);

/* Write len bytes of data to path (a file under c->dir), atomically, mode
 * 0644, making the directories up to it; as the sudo user when there is
 * one. With src (a file the data was made from, or NULL), -EACCES when that
 * user could not read src themselves. Returns 0 or a negative errno. */
int buildid_cache_store(const struct buildid_cache *c, const char *path, const void *data,
			size_t len, const char *src);
/* The same with the file's mode: 0600 for what only its user should read
 * (the directories it makes are then 0700). */
int buildid_cache_store_mode(const struct buildid_cache *c, const char *path, const void *data,
			     size_t len, const char *src, mode_t mode);

/* mkdir -p dir, making what is missing with mode. 0 or a negative errno. */
int buildid_cache_mkdirs(const char *dir, mode_t mode);

/* The cache directory for what only root may read (kernel addresses):
 * c->dir when no sudo user is involved, else root's own ~/.cache/zt.
 * Returns a new string or NULL. */
char *buildid_cache_root_dir(const struct buildid_cache *c);

#endif
