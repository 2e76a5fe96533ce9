// SPDX-License-Identifier: GPL-2.0-or-later
/* The symbol store's remote copy in S3: server/blobstore.h's ops over net/s3. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "server/s3store.h"

static int s3_put_file(void *ctx, const char *key, const char *path, char *msg, size_t n)
{
	return zt_s3_put_file(ctx, key, path, msg, n);
}

static int s3_get_file(void *ctx, const char *key, const char *dest_path, char *msg, size_t n)
{
	return zt_s3_get_file(ctx, key, dest_path, msg, n);
}

static int s3_head(void *ctx, const char *key, uint64_t *size, char *msg, size_t n)
{
	return zt_s3_head(ctx, key, size, msg, n);
}

static int s3_del(void *ctx, const char *key, char *msg, size_t n)
{
	return zt_s3_delete(ctx, key, msg, n);
}

static void s3_free(void *ctx)
{
	zt_s3_free(ctx);
}

static const struct zs_remote_ops s3_ops = {
	.put_file = s3_put_file,
	.get_file = s3_get_file,
	.head = s3_head,
	.del = s3_del,
	.free = s3_free,
};

int zs_s3store_new(const char *url, const struct zt_s3_opts *o, struct zs_remote *out, char *msg,
		   size_t msglen)
{
	struct zt_s3 *s;
	int ret;

	out->ops = NULL;
	out->ctx = NULL;
	ret = zt_s3_new(url, o, &s, msg, msglen);
	if (ret)
		return ret;
	ret = zt_s3_check(s, msg, msglen);
	if (ret) {
		zt_s3_free(s);
		return ret;
	}
	out->ops = &s3_ops;
	out->ctx = s;
	return 0;
}
