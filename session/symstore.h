/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Frames named from a symbol store: the session's resolver over a
 * directory of symbols (the GSYM cache layout), modules opened by build id
 * alone. zt serve names its stored frames with it, so a frame reads the
 * same in the server's views as in zt report: the same resolver, the same
 * demangling, the same inline chain and naming rules (session_frames_of).
 *
 * Not thread-safe: one caller at a time (zt serve holds its symbol
 * cache's lock).
 */
#ifndef ZT_SESSION_SYMSTORE_H
#define ZT_SESSION_SYMSTORE_H

#include <stdint.h>

#include "libprof/frametab.h"
#include "libprof/profile.h"
#include "libprof/zbuf.h"
#include "symbolizer/resolve.h"

struct symstore;

struct symstore_opts {
	const char *dir;                   /* the symbols (DIR/symbols/...) */
	const struct resolve_store *hooks; /* NULL: none (borrowed) */
};

/* 0 or -ENOMEM. */
int symstore_new(const struct symstore_opts *o, struct symstore **out);
void symstore_free(struct symstore *s); /* accepts NULL */
/* bid's symbols were replaced: open them again when next asked. */
void symstore_forget(struct symstore *s, const struct prof_build_id *bid);

/* A frame as the outputs show it, for a symstore_frames callback. */
typedef int (*zt_frame_fn)(void *ctx, const struct zt_frame *f);

/*
 * The frames of file offset off in module (build id bid; module is the
 * name shown, borrowed), innermost first, the function last: each given
 * to fn, valid during the call. An offset without symbols gives one
 * unresolved frame (module and offset). 0, -ENOMEM, or fn's nonzero
 * answer.
 */
int symstore_frames(struct symstore *s, const char *module, const struct prof_build_id *bid,
		    uint64_t off, zt_frame_fn fn, void *ctx);

/*
 * A resolver's answer for addr (its module's file offset in z.addr when
 * map is set) as the frames every output shows: the functions inlined at
 * it, innermost first ("??" for one without a name), then its function,
 * each with its own position in the source, and the innermost one (perf's
 * srcline). The session's frame table and symstore_frames both use it.
 */
int session_frames_of(const struct resolve_frame *f, uint64_t addr, zt_frame_fn fn, void *ctx);

/* ---- the files of a symbol store (zt serve's uploads and upstreams) ---- */

/* A loadable segment: file offsets [off, off+size) mapped at vaddr. */
struct symstore_seg {
	uint64_t off, vaddr, size;
};

/* Symbol quality, as the store records it (symbolizer/symmod.h's enum symq). */
enum { SYMSTORE_NONE = 0, SYMSTORE_BASIC = 1, SYMSTORE_FULL = 2 };

/* An ELF file open at fd, to be stored under id: its GNU build id is id,
 * or it has none and its file id is id. *dwarf: whether it has DWARF.
 * 0, or -EBADMSG with msg saying what is wrong. */
int symstore_check_elf(int fd, const struct prof_build_id *id, int *dwarf, char *msg,
		       size_t msglen);
/* A GSYM image to be stored under id: it opens, and its UUID is id (a
 * file id's GSYM may have none). 0, or -EBADMSG with msg. */
int symstore_check_gsym(const void *data, size_t len, const struct prof_build_id *id, char *msg,
			size_t msglen);
/* The executable segments of the ELF file at path, at most max: how many. */
unsigned symstore_code_segments(const char *path, struct symstore_seg *segs, unsigned max);
/* A GSYM of the ELF file at path (with its debug file when found beside
 * it; no debuginfod) written to out; *quality: SYMSTORE_*. 0 or a negative
 * errno. */
int symstore_make_gsym(const char *path, const char *out, int *quality);
/* The text of a GSYM's .meta file (what symstore_frames reads back: the
 * quality, why it is not full, its source and load segments), appended to
 * out. 0, -ENOMEM, -EINVAL (a why or source with a newline). */
int symstore_meta_format(struct zbuf *out, int quality, const char *why, const char *source,
			 const struct symstore_seg *segs, size_t nr);
/* mkdir -p dir, what is missing made 0700. 0 or a negative errno. */
int symstore_mkdirs(const char *dir);

/* What the debuginfod upstreams are asked for. */
enum symstore_want { SYMSTORE_DEBUGINFO, SYMSTORE_EXECUTABLE, SYMSTORE_SOURCE };
/* The file of bid from the debuginfod servers (src: the source path, for
 * SYMSTORE_SOURCE): *path (malloc'ed) in the client's cache. 0 or a
 * negative errno (-ENOENT: none has it). */
int symstore_debuginfod_find(const struct prof_build_id *bid, enum symstore_want what,
			     const char *src, char **path);

#endif
