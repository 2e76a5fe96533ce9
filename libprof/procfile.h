/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files a profiled process leaves for profilers (/tmp/perf-PID.map, perf's
 * jit-PID.dump), opened as root on its behalf. Whoever runs the process can
 * plant anything at those paths, so they are opened the way perf opens them
 * and stricter: inside the process's own root (/proc/PID/root, so that a
 * container's files are found), following no symbolic link in any component,
 * and used only when the file is regular, has one link, is owned by the
 * process's user or root, and is of sane size.
 */
#ifndef ZT_PROCFILE_H
#define ZT_PROCFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "libprof/profile.h"

/* a perf map or jitdump larger than this is refused: a recording could not
 * hold it */
#define PROCFILE_MAX PROF_BLOB_MAX

/* Who a process is, for the owner check: its real, effective, saved and
 * filesystem uids, and its pid inside its own pid namespace (perf maps of a
 * process in a container are named by that pid). */
struct procfile_owner {
	uint32_t pid, nspid;
	uid_t uid[4];
};

/* Fill o from /proc/PID/status. Returns 0, or a negative errno (-ENOENT:
 * the process is gone). */
int procfile_owner_init(struct procfile_owner *o, uint32_t pid);

/* Whether a file owned by uid may be read for o: root's or one of o's uids. */
int procfile_owned(const struct procfile_owner *o, uid_t uid);

/*
 * Open path (absolute, as the process sees it) for reading, inside the
 * process's root when it can be entered (else in this one), following no
 * symbolic link, and check what was opened (fstat on the same descriptor).
 * Returns the descriptor and fills *st, or a negative errno:
 *   -ENOENT  no such file          -ELOOP   a symbolic link on the way
 *   -EPERM   owned by another user -EINVAL  not a regular file, or hard-linked
 *   -EFBIG   larger than max       others   from open or fstat
 * (procfile_why() words -EFBIG for max == PROCFILE_MAX.)
 * procfile_why() turns these into words for messages.
 */
int procfile_open(const struct procfile_owner *o, const char *path, size_t max, struct stat *st);

/* The opening part of procfile_open(), for any file of process pid (a
 * binary it mapped, say): path resolved inside the process's root, absolute
 * links staying inside it (else, the process gone, in this root), read-only,
 * non-blocking; with nolinks, no symbolic link at all. No checks of what
 * was opened. Returns the descriptor or a negative errno (-ELOOP: a link
 * refused). */
int procfile_open_in_root(uint32_t pid, const char *path, int nolinks);

/* Check a descriptor opened otherwise (a mapping's /proc/PID/map_files
 * entry) by the same rules: 0 or the errors above. */
int procfile_check(const struct procfile_owner *o, int fd, size_t max, struct stat *st);

/* All of the file procfile_open() opens, into a new buffer (*data, *len;
 * caller frees). The same errors, or -EIO on a short read. */
int procfile_read(const struct procfile_owner *o, const char *path, size_t max, char **data,
		  size_t *len);

/* A few words for a refusal of procfile_open(): "a symbolic link", ... */
const char *procfile_why(int err);

#endif
