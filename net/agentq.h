/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The queue of zt record's agent mode (--push): the pieces of a recording
 * (push images, net/push.h) waiting for the server, oldest first, held in
 * memory or in a spool directory, and bounded in bytes: a piece that does
 * not fit pushes the oldest out (they are counted, never silently lost).
 *
 * Spooled pieces are files "piece-SEQ-SAMPLES.zt" (mode 0600, written under
 * a temporary name and renamed, so a crash leaves no half piece under a
 * piece's name) in a directory that only its owner may write; the pieces a
 * spool holds when it is opened again (a restarted agent's) are queued
 * first, in their order. A queue is used by one thread at a time.
 *
 * Never prints: errors are negative errnos, with a sentence in the
 * caller's buffer where one is taken.
 */
#ifndef ZT_NET_AGENTQ_H
#define ZT_NET_AGENTQ_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/zbuf.h"

struct agentq_item {
	uint64_t seq;		 /* 1, 2, ...: the order of the pieces (a spool's continues) */
	uint64_t samples;	 /* the piece's samples */
	uint64_t t_start, t_end; /* the recording's clock (ns); 0 for a spool's old pieces */
	size_t len;		 /* the bytes of the image */
	void *data;		 /* in memory: the image (owned); spooled: NULL */
};

struct agentq {
	uint64_t max_bytes;	   /* the bound on the bytes held */
	uint64_t bytes;		   /* the bytes held now */
	int dirfd;		   /* the spool directory (owned), or -1: in memory */
	struct agentq_item *items; /* items[head] .. items[head + n - 1], oldest first */
	size_t head, n, cap;
	uint64_t next_seq;
};

/* What a call pushed out of the queue (the oldest pieces first). */
struct agentq_drop {
	uint64_t pieces, samples, bytes;
};

/*
 * An empty queue of at most max_bytes (at least 1), in memory, or in the
 * spool directory dirfd (from agentq_open_spool(); the queue owns it from
 * here on) when dirfd >= 0. With a spool, the pieces it holds already are
 * queued (the oldest past the bound removed, told in *dropped; files that
 * are not a piece of this user's are left alone). Returns 0, -ENOMEM, or
 * the errno of reading the directory.
 */
int agentq_init(struct agentq *q, uint64_t max_bytes, int dirfd, struct agentq_drop *dropped);
/* In-memory pieces freed; spooled ones stay on disk for the next run. */
void agentq_release(struct agentq *q);

/*
 * The spool directory at path for this user: made (mode 0700) when it is
 * not there (its parent must be), then opened without following a
 * symbolic link, and taken only when it is a directory owned by this user
 * that no one else may write to, and not in use by another agent (an
 * exclusive lock held while the descriptor is open). Returns the
 * descriptor, or a negative errno with msg saying what is wrong and what
 * to do: -ELOOP (a symbolic link), -ENOTDIR, -EPERM (another owner, or
 * writable by others), -EBUSY (another agent's), others from mkdir/open.
 */
int agentq_open_spool(const char *path, char *msg, size_t msglen);

/*
 * Queue a copy of the image (len bytes): the oldest pieces go until it
 * fits (*dropped says what went). Returns 0; -E2BIG when the piece alone
 * is larger than the bound (nothing queued, nothing dropped); -ENOMEM; a
 * spool's write errors (nothing queued).
 */
int agentq_add(struct agentq *q, const void *img, size_t len, uint64_t samples, uint64_t t_start,
	       uint64_t t_end, struct agentq_drop *dropped);

/* The oldest piece, or NULL when the queue is empty (valid until the next
 * call that changes q). */
const struct agentq_item *agentq_head(const struct agentq *q);

/*
 * The image of the oldest piece: *data points to it (in memory: the
 * item's; spooled: read into buf, which the caller owns), *len its size.
 * Returns 0, -ENOENT (empty), -ENOMEM, or the errno of reading the spool
 * file (-EBADMSG: not a piece any more; the caller drops it).
 */
int agentq_head_image(struct agentq *q, struct zbuf *buf, const void **data, size_t *len);

/* Remove the oldest piece (and its spool file). */
void agentq_pop(struct agentq *q);

#endif
