/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt symbols upload below the command: the ELF files under the paths given
 * (directories walked, symlinks followed once, each file and each id
 * once), then, on several threads, for each file: one existence check
 * (HEAD /api/v1/symbols/ID: what the server has, and the quality of its
 * symbols) before any extraction, its GSYM table (DWARF merged with the
 * symbol tables, or the symbol tables only) unless the server has full
 * symbols, the PUT when it is better than what the server has (the
 * server keeps the better of the two: a worse or equal one is not sent;
 * --force sends it whatever the server has), and with debug info asked
 * for, its debug file, the binary and the source files its DWARF names
 * (the debuginfod kinds of zt serve).
 *
 * Nothing here prints: results come back per file through a callback.
 */
#ifndef ZT_NET_SYMUP_H
#define ZT_NET_SYMUP_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/htab.h"
#include "libprof/profile.h"
#include "net/client.h"
#include "symbolizer/symmod.h"

enum symup_status {
	SYMUP_PENDING = 0,
	SYMUP_UPLOADED,     /* something was stored */
	SYMUP_SKIPPED,      /* the server had everything asked for */
	SYMUP_WOULD_UPLOAD, /* --dry-run: what would have been sent */
	SYMUP_FAILED,
};

/* What a file sent (or would send): bits of symup_file.kinds. */
enum { SYMUP_GSYM = 1, SYMUP_DEBUGINFO = 2, SYMUP_EXECUTABLE = 4 };

struct symup_file {
	char *path;                          /* as found (owned) */
	char id[2 * ZT_BUILD_ID_MAX + 1];    /* hex */
	int is_fileid;                       /* no GNU build id: named by its file id */
	enum symup_status st;
	enum symq q;                         /* of the GSYM table made (sent or not) */
	/* the quality of the symbols the server had (-1: none, or not asked:
	 * --force), and of those a GSYM sent replaced (-1: none) */
	int server_q, replaced;
	/* 1: the server keeps its symbols, better than this file's (q): they
	 * were not sent (the note says so) */
	int kept;
	unsigned kinds;                      /* what was sent (or would be) */
	unsigned nr_sources;                 /* source files sent */
	uint64_t bytes;                      /* bytes sent (or that would be) */
	char note[160];                      /* why not full, no debug file found, ... */
	char err[512];                       /* SYMUP_FAILED: why */
};

struct symup_list {
	struct symup_file *v;
	size_t n, cap;
	/* the (device, inode) of each file and directory seen: each once */
	struct { uint64_t dev, ino; } *seen;
	size_t nr_seen, cap_seen;
	struct zt_htab seen_idx;
};

void symup_list_init(struct symup_list *l);
void symup_list_release(struct symup_list *l);

/*
 * Add the ELF files (executables and shared objects) at path: a file, or
 * a directory walked recursively. Symbolic links are followed (each file
 * or directory reached once, so a link loop ends); files that are not ELF,
 * or ELF of another kind (objects, core files), are skipped quietly; a file
 * whose id an earlier one had is skipped too. Returns 0, -ENOMEM, or the
 * -errno of path itself (-ENOENT...: msg names it); unreadable entries
 * inside a directory are skipped.
 */
int symup_list_add(struct symup_list *l, const char *path, char *msg, size_t msglen);

struct symup_opts {
	const struct symmod_opts *mo; /* where symbols are found (no cache) */
	struct zt_http_opts http;     /* server, token, timeouts, tries */
	int force;                    /* replace what the server has, even better: no check */
	int dry_run;                  /* check and extract, send nothing */
	int with_debuginfo;           /* also the debug file, the binary and its sources */
	int debug_files;              /* the files are separate debug files (a package's): with
					 with_debuginfo, each is the debug file, no binary is sent */
	const char *description;      /* X-ZT-Description, or NULL */
	unsigned jobs;                /* threads (at least 1) */
	/* each file when it is done, in the order they end, one call at a time;
	 * done: files finished so far */
	void (*done)(void *ctx, const struct symup_file *f, size_t done, size_t total);
	void *ctx;
};

/*
 * Upload l's files as o says. Every file ends with a status. Returns 0
 * when every file ended (some may have failed), or a negative errno when
 * the run stopped early and the files not tried are marked failed: msg
 * says why (-EACCES: the token was refused; -ECONNREFUSED and the other
 * connection errors: the server could not be reached; -EINVAL: a bad
 * server URL; -ENOMEM).
 */
int symup_run(const struct symup_opts *o, struct symup_list *l, char *msg, size_t msglen);

/* The kinds of X-ZT-Has ("gsym,debuginfo,executable") as SYMUP_* bits. */
unsigned symup_parse_has(const char *s);

#endif
