/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbol store's remote seam (notes/i17-spec.md). A placeholder with
 * the spec's definitions, exactly, so server/s3store.c builds on its own
 * branch: the server helper owns this header and one copy is kept.
 */
#ifndef ZT_SERVER_BLOBSTORE_H
#define ZT_SERVER_BLOBSTORE_H

#include <stddef.h>
#include <stdint.h>

/* A remote copy of the symbol store (S3): keys are the relative paths above
   ("symbols/gsym/<id>.gsym" ...). Every function returns 0 or a negative errno
   and fills msg on failure; -ENOENT = no such object. Thread-safe. */
struct zs_remote_ops {
        int (*put_file)(void *ctx, const char *key, const char *path, char *msg, size_t n);
        int (*get_file)(void *ctx, const char *key, const char *dest_path, char *msg, size_t n);
        int (*head)(void *ctx, const char *key, uint64_t *size, char *msg, size_t n);
        int (*del)(void *ctx, const char *key, char *msg, size_t n);
        void (*free)(void *ctx);
};
struct zs_remote { const struct zs_remote_ops *ops; void *ctx; };

#endif
