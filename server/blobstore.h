/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbol store's remote seam: a remote copy of DIR/symbols (S3, in
 * server/s3store.c) that every symbol-file write goes through and every
 * local miss asks. Keys are the paths relative to DIR, the same in the
 * directory store and under the remote's prefix:
 *
 *   symbols/gsym/<id>.gsym   symbols/gsym/<id>.meta
 *   symbols/debuginfo/<id>.debug   symbols/executable/<id>
 *   symbols/source/<id>/<sha256 hex of the normalized path>  (+ ".path": the path)
 *
 * How the store uses it (server/sqlstore.c, server/symfiles.c):
 *  - an upload is validated, then put to the remote (the .meta or .path
 *    sibling first, the file itself last: its presence means complete),
 *    then renamed into DIR; a failed put refuses the upload (-EREMOTEIO,
 *    503) and nothing of it stays in DIR;
 *  - a lookup that misses in DIR asks the remote (head, then get_file
 *    into DIR/tmp), validates what came as it validates an upload, and
 *    renames it into place: a second server sharing the remote serves what
 *    the first stored;
 *  - a local GSYM not checked for 60 s is checked again (its .meta, which
 *    carries the GSYM's sha256) before a GET or HEAD answers, so a
 *    replacement made on another server is seen within a minute.
 * With no remote (zs_store_opts.remote NULL) the store is DIR alone.
 */
#ifndef ZT_SERVER_BLOBSTORE_H
#define ZT_SERVER_BLOBSTORE_H

#include <stddef.h>
#include <stdint.h>

/* A remote copy of the symbol store: keys are the relative paths above.
 * Every function returns 0 or a negative errno and fills msg (n bytes) on
 * failure; -ENOENT = no such object. Thread-safe: called from any of the
 * server's threads at once. */
struct zs_remote_ops {
	/* store the file at path (borrowed, complete, synced) under key */
	int (*put_file)(void *ctx, const char *key, const char *path, char *msg, size_t n);
	/* write the object to dest_path (created 0600 by the callee,
	 * replaced if there; on failure nothing is left there) */
	int (*get_file)(void *ctx, const char *key, const char *dest_path, char *msg, size_t n);
	int (*head)(void *ctx, const char *key, uint64_t *size, char *msg, size_t n);
	int (*del)(void *ctx, const char *key, char *msg, size_t n);
	void (*free)(void *ctx);
};

/* Borrowed by the store (zs_store_opts.remote): it must outlive the store,
 * and whoever made it calls ops->free(ctx) after zs_store_close(). */
struct zs_remote {
	const struct zs_remote_ops *ops;
	void *ctx;
};

#endif
