/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output files of commands that may run as root (record, convert, flame,
 * symbols extract): made new, never written through what was at the path.
 * The data goes to a new file next to the path (a hidden name, created
 * exclusively, no link followed), which outfile_commit() renames into
 * place, the previous file becoming PATH.old where asked (perf's rule).
 * Nothing at the path changes before the commit, so a run that fails early
 * leaves the user's files as they were. Under sudo the new file is given
 * to the invoking user through its descriptor, and only when that user
 * could have created it there.
 *
 * zt writes only regular files it created: what is at the path is never
 * opened, so a FIFO, socket or device planted there (by another user, in
 * a shared directory) is refused at once, never written to or waited for.
 * The one exception is the null device itself (char 1:3, '-o /dev/null'
 * when timing), opened without blocking and checked again on its
 * descriptor. '-o -' is the way to write into a pipe.
 */
#ifndef ZT_OUTFILE_H
#define ZT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct outfile {
	const char *path; /* as given (borrowed) */
	int fd;           /* the new file (or standard output, /dev/null), -1 when closed */
	int dirfd;        /* the directory it goes in */
	char *base, *tmp; /* names in dirfd: the final one, the new file's until committed */
	bool handed_over; /* the new file belongs to the sudo user */
	bool committed;   /* at path now */
	bool stream;      /* "-" or /dev/null, written directly */
};

enum {
	OUTFILE_STDOUT_OK = 1,   /* "-" is standard output (a stream; refused on a terminal) */
	OUTFILE_STDOUT_HINT = 2, /* the caller takes "-" itself: refusals suggest it */
};

/* Create the new file for path with mode. Refuses a path that is a
 * symbolic link or anything but a regular file (or /dev/null). Returns 0,
 * or -1 after a message. */
int outfile_create(struct outfile *o, const char *path, mode_t mode, int flags);

/* Put the new file in place; an existing non-empty file at the path
 * becomes PATH.old first when keep_old. The descriptor stays open (a
 * recording goes on being written). Returns 0, or -1 after a message. */
int outfile_commit(struct outfile *o, bool keep_old);

/* Give the file another name (base: a path in the same directory as the
 * one given) before outfile_commit(). 0, or -ENOMEM. */
int outfile_rename(struct outfile *o, const char *path);

/* A new file PREFIX.N in the working directory for the TUIs' print key
 * (perf's perf.hist.N): the first N from *seq that is free, created
 * exclusively, mode 0644 (never an existing file, link or FIFO); its name
 * into name (size bytes) and *seq past it. Prints nothing (a TUI shows
 * the error). Returns the stream, or NULL with errno set. */
FILE *outfile_numbered(const char *prefix, unsigned *seq, char *name, size_t size);

/* Close the descriptor if still open (returns close's -errno, or 0), and
 * remove the new file unless it was committed. */
int outfile_release(struct outfile *o);

#endif
