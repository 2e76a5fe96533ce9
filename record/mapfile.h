/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The file behind a process's executable mapping, opened safely for zt
 * running as root (never a FIFO or device planted at its path), and its
 * build id when the kernel's side-band gave none (mappings read from
 * /proc, kernels before 5.12), read once per file.
 */
#ifndef ZT_RECORD_MAPFILE_H
#define ZT_RECORD_MAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "libprof/profile.h"

/* The file of mapping m: the one the process mapped (map_files), else its
 * path in the process's root (absolute links resolved inside it, as the
 * process saw them), else, the process gone, in this one; a regular file
 * (O_NONBLOCK). A descriptor (st its stat), or -1. */
int mapfile_open(const struct prof_mmap *m, struct stat *st);

/* Whether m maps a file by path (not memfd, anonymous or [special]). */
bool mapfile_is_file(const struct prof_mmap *m);

/* Build ids read from files, by the file's identity (device, inode,
 * modification time). */
struct mapfile_ids {
	struct mapfile_id *v;
	size_t nr, cap;
};

void mapfile_ids_release(struct mapfile_ids *ids);

/* m's build id from its file when it has none (ids remembers it). */
void mapfile_fill_build_id(struct mapfile_ids *ids, struct prof_mmap *m);

#endif
