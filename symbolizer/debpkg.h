/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Debian packages read for their debug files (issue 37: a site fills its
 * symbol server from its distribution's -dbg and -dbgsym packages). A .deb
 * is an ar archive: debian-binary ("2.0\n"), control.tar.*, data.tar.*
 * (xz, zstd, gzip or none), read here with libarchive (symbolizer/
 * larchive.h) as a stream, the data member without being held whole.
 *
 * The debug files are the regular files under usr/lib/debug/ that are ELF
 * files: /usr/lib/debug/.build-id/xx/rest.debug (dh_strip's, by build
 * id), and the older /usr/lib/debug/<path of the binary> (found by the
 * binary's .gnu_debuglink). Each is written to a new file (O_EXCL,
 * O_NOFOLLOW, 0600) in the caller's private directory, handed to the
 * callback by that path (the symbolizer opens ELF files by path), and
 * removed after it. The package is hostile input: only regular files are
 * taken, names are not used for the file written (a counter is), sizes
 * are capped, and a damaged package gives an error, never a crash.
 * Nothing here prints.
 */
#ifndef ZT_DEBPKG_H
#define ZT_DEBPKG_H

#include <stddef.h>
#include <stdint.h>

#define DEBPKG_FILE_MAX (4ull << 30) /* the largest debug file taken */

struct debpkg_file {
	const char *name; /* its path in the package, "usr/lib/debug/.build-id/ab/cdef.debug" */
	const char *path; /* the file written for the call */
	uint64_t size;
};

/* Called for each debug file; a nonzero return stops the reading and is
 * returned. */
typedef int (*debpkg_fn)(void *ctx, const struct debpkg_file *f);

struct debpkg_stats {
	unsigned files;	  /* debug files handed to the callback */
	unsigned skipped; /* other entries of the data member */
	unsigned too_big; /* debug files over DEBPKG_FILE_MAX, not taken */
};

/*
 * Read the package at path, writing its debug files one at a time into
 * dir (a directory only the caller writes to). 0, or the callback's
 * return, or a negative errno with why in err: -ENOSYS (no libarchive),
 * -EBADMSG (not a Debian package, or damaged), -errno of open/write.
 */
int debpkg_read(const char *path, const char *dir, debpkg_fn fn, void *ctx,
		struct debpkg_stats *st, char *err, size_t n);

/* Whether a file name is a Debian package's (ends in ".deb" or ".ddeb"). */
int debpkg_is_name(const char *path);

#endif
