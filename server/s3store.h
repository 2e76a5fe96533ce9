/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt serve's symbol store kept in S3-compatible storage (zt serve
 * --symbols-s3 URL): the remote seam of server/blobstore.h over net/s3, so
 * several servers that share one bucket share their symbols. Keys are the
 * store's relative paths ("symbols/gsym/<id>.gsym", ...) under the URL's
 * prefix. The URL, the endpoint and region options and where the keys come
 * from are net/s3.h's.
 */
#ifndef ZT_SERVER_S3STORE_H
#define ZT_SERVER_S3STORE_H

#include <stddef.h>

#include "net/s3.h"
#include "server/blobstore.h"

/*
 * A remote for the bucket at url (net/s3.h's forms) with o (NULL: the
 * defaults), into *out: out->ops and out->ctx, freed with
 * out->ops->free(out->ctx). Before it returns, the bucket is asked once
 * (zt_s3_check()), so a wrong URL, missing bucket, bad keys or region fail
 * here, at start-up, with a message naming the fix. Returns 0 or
 * zt_s3_new()'s and zt_s3_check()'s errors with msg filled (-EINVAL,
 * -ENOENT no keys, -EPERM unsafe keys file, -ENXIO no such bucket,
 * -EACCES, -ECONNREFUSED...).
 *
 * The ops return net/s3.h's errors: -ENOENT for no such object; del
 * answers 0 whether the key existed or not (S3 does not say).
 */
int zs_s3store_new(const char *url, const struct zt_s3_opts *o, struct zs_remote *out, char *msg,
		   size_t msglen);

#endif
