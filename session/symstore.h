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

#endif
