/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt archive files: what a recording needs to be symbolized on another
 * machine, by build id, in one zstd-compressed tar (libarchive) laid out
 * as the local build-id and GSYM cache (symbolizer/buildid_cache.h) is:
 *
 *   README                        what this is and how to use it
 *   MANIFEST                      one line a module: build id, path, what is packed
 *   buildid/<xx>/<rest>/elf       the binary (build id <xx><rest>, hex)
 *   gsym/<id>.gsym, gsym/<id>.meta  its symbols as GSYM, with their meta
 *
 * so an unpacked archive (zt's own, or `tar --zstd -xf FILE -C DIR`) is a
 * read-only cache: struct buildid_cache with dir set to it.
 *
 * Reading treats the file as hostile: only regular files and directories
 * of the names above (an optional leading "./"), nothing else is written;
 * a link, device, hard link or a name with ".." or a leading '/' is an
 * error; other names are skipped (counted); sizes are capped (below). The
 * unpacked files are created new (O_EXCL, O_NOFOLLOW) inside a directory
 * this module made itself (mode 0700).
 *
 * libarchive is loaded when first needed (dlopen), not linked: linked, it
 * and what it needs (ICU, libxml2, nettle...) would load at the start of
 * every zt command. Nothing here prints.
 */
#ifndef ZT_SYMARCHIVE_H
#define ZT_SYMARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"
#include "symbolizer/buildid_cache.h"

#define SYMARCHIVE_MAX_ENTRIES 100000u
#define SYMARCHIVE_MAX_ELF     (4ull << 30)  /* one binary */
#define SYMARCHIVE_MAX_GSYM    (1ull << 30)  /* one GSYM table */
#define SYMARCHIVE_MAX_TEXT    (1ull << 20)  /* README, MANIFEST, a .meta */
#define SYMARCHIVE_MAX_TOTAL   (16ull << 30) /* all files unpacked */

/* What an entry name is (symarchive_name()). */
enum symarchive_kind {
	SYMARCHIVE_OTHER = 0, /* not a name of the layout: skipped */
	SYMARCHIVE_DIR,	      /* a directory of the layout ("buildid/ab") */
	SYMARCHIVE_TEXT,      /* README, MANIFEST */
	SYMARCHIVE_ELF,	      /* buildid/<xx>/<rest>/elf */
	SYMARCHIVE_GSYM,      /* gsym/<id>.gsym */
	SYMARCHIVE_META,      /* gsym/<id>.meta */
	SYMARCHIVE_UNSAFE,    /* absolute, or with a ".." component: refused */
};

/* The kind of the entry name (a leading "./" skipped; a trailing '/' for
 * directories allowed). Build ids: 2 to 40 lowercase hex digits. */
enum symarchive_kind symarchive_name(const char *name);

/* ---- writing ------------------------------------------------------------- */

struct symarchive_writer;

/* A new archive written to fd (borrowed; left open). 0, or a negative
 * errno with err filled (-ENOSYS: libarchive cannot be loaded). */
int symarchive_writer_new(int fd, struct symarchive_writer **out, char *err, size_t n);
/* Add a file name (a name of the layout) holding len bytes of data. */
int symarchive_add(struct symarchive_writer *w, const char *name, const void *data, size_t len,
		   char *err, size_t n);
/* Add a file name holding the whole of the regular file open at fd
 * (borrowed, read from offset 0). */
int symarchive_add_fd(struct symarchive_writer *w, const char *name, int fd, char *err, size_t n);
/* Finish the archive (its end, the compressor's last frame) and free w.
 * 0, or a negative errno with err filled. */
int symarchive_writer_close(struct symarchive_writer *w, char *err, size_t n);
/* Free w without finishing (after a failure). NULL is fine. */
void symarchive_writer_free(struct symarchive_writer *w);

/* ---- reading ------------------------------------------------------------- */

struct symarchive_stats {
	uint64_t files, bytes; /* unpacked */
	uint64_t skipped;      /* entries of names outside the layout */
};

/* Unpack the archive read from fd (borrowed), or from data[0, len), into
 * the directory open at dirfd (empty, private to the caller). 0, or a
 * negative errno with err filled: -EBADMSG (not a zt archive, corrupt, an
 * entry refused: err names it), -EFBIG (past a cap), -ENOSYS (no
 * libarchive), -EEXIST (an entry twice), or the errno of writing. */
int symarchive_unpack_fd(int fd, int dirfd, struct symarchive_stats *st, char *err, size_t n);
int symarchive_unpack_mem(const void *data, size_t len, int dirfd, struct symarchive_stats *st,
			  char *err, size_t n);

/* An archive opened for reading: path is a directory (an archive unpacked
 * already: used as it is) or an archive file (unpacked into a new private
 * directory under $TMPDIR or /tmp, removed by symarchive_close). */
struct symarchive {
	struct buildid_cache cache; /* .dir: where its files are; read only */
	int temp;		    /* .dir is ours, to remove */
	struct symarchive_stats st;
};

/* 0, or a negative errno with err filled. */
int symarchive_open(struct symarchive *a, const char *path, char *err, size_t n);
/* Remove what symarchive_open unpacked. Safe on a zeroed struct. */
void symarchive_close(struct symarchive *a);

#endif
