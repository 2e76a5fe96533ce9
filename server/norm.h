/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What zt serve keeps of a received profile: a body (zt.data or pprof)
 * validated whole and reduced to distinct stacks of frame keys with their
 * sample counts and weights, plus its catalogue metadata.
 *
 * A frame key is one of
 *   ADDR        (build id or file id, file offset, and the module's base
 *               name for display): a user frame of a binary with an id,
 *               symbolized at query time
 *   NAMED       (module, name): what only the recording can name: kernel
 *               frames (its kallsyms lines), JIT frames (its perf maps and
 *               jitdumps), pprof locations with functions, thread roots
 *   UNRESOLVED  (module base name, file offset): a mapping without an id,
 *               printed "[module+0x1f0]"
 * Nothing here opens a file: paths named in a profile are only names.
 */
#ifndef ZT_SERVER_NORM_H
#define ZT_SERVER_NORM_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/htab.h"
#include "libprof/profile.h"
#include "libprof/zbuf.h"
#include "server/tagg.h"

enum zs_fkind { ZS_FK_ADDR = 1, ZS_FK_NAMED = 2, ZS_FK_UNRESOLVED = 3 };

enum {
	ZS_FF_KERNEL = 1,  /* a kernel (or kernel module) frame */
	ZS_FF_JIT = 2,     /* JIT code named by a perf map or jitdump */
	ZS_FF_INLINED = 4, /* inlined into the next frame of the stack */
	ZS_FF_ROOT = 8,    /* the thread name heading a stack */
};

/* A decoded frame key. Strings point into the encoded key (NUL-terminated
 * there) or are borrowed from the caller when encoding. */
struct zs_fkey {
	uint8_t kind, flags;
	struct prof_build_id bid; /* ADDR */
	uint64_t off;             /* ADDR, UNRESOLVED */
	const char *module;       /* all: the module's base name ("" for roots) */
	const char *name;         /* NAMED */
};

/* The canonical bytes of k appended to b (two keys are the same frame when
 * their bytes are equal). 0, -ENOMEM, -EINVAL (a string over 64 KiB). */
int zs_fkey_encode(struct zbuf *b, const struct zs_fkey *k);
/* Decode the n bytes at p into k. 0 or -EBADMSG. */
int zs_fkey_decode(const void *p, size_t n, struct zs_fkey *k);

/* A distinct stack: frames[off .. off+n) leaf first, the thread root last. */
struct zs_nstack {
	uint32_t off, n;
	uint64_t count, weight;
};

struct resolve_source;

struct zs_norm {
	/* set before zs_norm_body: frame sources for a zt.data's frames
	 * besides its kernel and JIT names (symbolizer/resolve.h; borrowed) */
	const struct resolve_source *sources;
	size_t nr_sources;
	const char *format; /* "zt.data" or "pprof" (static) */
	char *host, *command, *event; /* owned, never NULL */
	/* the profile type (a selection's __name__: "cpu" for cpu-clock and
	 * task-clock, else the event's name) and the unit of the samples'
	 * values (weights): "nanoseconds" for cpu, "count" for events, a
	 * pprof's own; owned, never NULL after zs_norm_body */
	char *ptype, *unit;
	int64_t time_start, time_end; /* Unix seconds; 0: unknown */
	uint64_t samples, weight;
	/* distinct frame keys: key i is keys.data[key_off[i] .. key_off[i + 1]) */
	struct zbuf keys;
	uint32_t *key_off;
	size_t nr_frames, cap_off;
	uint32_t *sframes; /* frame indices of the stacks */
	size_t nr_sframes, cap_sframes;
	struct zs_nstack *stacks;
	size_t nr_stacks, cap_stacks;
	struct prof_build_id *bids; /* build ids of the ADDR frames, distinct */
	size_t nr_bids, cap_bids;
	/* the samples by time bucket and process (stack: index in stacks) */
	struct zs_tagg tagg;
	/* private */
	struct zt_htab fhash, shash;
};

void zs_norm_init(struct zs_norm *n);
void zs_norm_release(struct zs_norm *n);

/*
 * Validate and normalize a body of len bytes (borrowed). max_decoded caps
 * a gzip-compressed pprof's decompressed size (0: 512 MiB). Returns 0 or
 *   -EMEDIUMTYPE     neither zt.data nor pprof
 *   -EBADMSG         damaged, incomplete, truncated, or a zt.data with
 *                    user-stack snapshots (msg says which)
 *   -EPROTONOSUPPORT a newer zt.data version
 *   -EFBIG           a pprof larger than max_decoded once decompressed
 *   -ENOMEM
 * with msg (may be NULL) filled with a sentence for the user.
 */
int zs_norm_body(struct zs_norm *n, const void *body, size_t len, uint64_t max_decoded, char *msg,
		 size_t msglen);

/* The profile type and unit of an event (a recording's "cpu-clock", a
 * pprof's "cpu") and a unit as said ("" or NULL: unsaid): *type and
 * *unit point to event, unit or static strings. */
void zs_profile_type(const char *event, const char *unit, const char **type, const char **out_unit);

/* The key bytes of frame i. */
static inline const uint8_t *zs_norm_key(const struct zs_norm *n, size_t i, size_t *len)
{
	*len = n->key_off[i + 1] - n->key_off[i];
	return n->keys.data + n->key_off[i];
}

#endif
