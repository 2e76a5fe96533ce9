/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small S3 client for zt serve's shared symbol store: the objects of one
 * bucket, under a prefix, put from a file, got into a file, their size
 * asked, deleted. Requests go through net/client (libcurl), signed with AWS
 * Signature Version 4 (the payload's SHA-256 computed here and signed too),
 * and are retried with backoff on connection errors, 5xx and 429.
 *
 * Where the bucket is, one URL:
 *   s3://BUCKET[/PREFIX]                   on AWS: https://BUCKET.s3.REGION.amazonaws.com
 *                                          (virtual-host style; path style when the
 *                                          bucket name has a '.'); with an endpoint
 *                                          http(s)://HOST[:PORT] given apart, there,
 *                                          path style
 *   http(s)://HOST[:PORT]/BUCKET[/PREFIX]  an S3-compatible server (MinIO, Ceph...),
 *                                          path style
 * Keys are given relative to PREFIX. The region is the one given, else
 * $AWS_REGION, else $AWS_DEFAULT_REGION, else us-east-1.
 *
 * The key pair: from a credentials file (the one given, else
 * $ZT_S3_CREDENTIALS) with lines "access_key = ...", "secret_key = ...",
 * and optionally "session_token = ...", used only when it is a regular
 * file of the user's own with mode 600 or stricter (net/secfile); without
 * a file, from $AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY and optionally
 * $AWS_SESSION_TOKEN (sent as x-amz-security-token).
 *
 * Never prints: errors are a negative errno and a sentence in the caller's
 * buffer naming the bucket, the key and S3's error code (the <Code> of the
 * answer's XML), with the fix when there is one. The secret key and the
 * session token are never in a URL, a message or a log line; they are
 * wiped when freed. Thread-safe: each request borrows one of a few HTTP
 * handles.
 */
#ifndef ZT_NET_S3_H
#define ZT_NET_S3_H

#include <stddef.h>
#include <stdint.h>

#define ZT_S3_PREFIX_MAX 512  /* bytes of a prefix */
#define ZT_S3_KEY_MAX	 1024 /* bytes of a full key (prefix included), S3's limit */

enum zt_s3_style {
	ZT_S3_STYLE_AUTO,  /* virtual-host on AWS (bucket without '.'), else path */
	ZT_S3_STYLE_PATH,  /* http://HOST/BUCKET/KEY */
	ZT_S3_STYLE_VHOST, /* http://BUCKET.HOST/KEY */
};

/* Where a bucket is, parsed from the URL (and the endpoint, region given apart). */
struct zt_s3_loc {
	char base[320];	    /* where requests go: "http://127.0.0.1:9000",
			       "https://b.s3.r.amazonaws.com" */
	char endpoint[300]; /* the server without the bucket, for messages */
	char bucket[64];    /* 3-63 of [a-z0-9.-], starting and ending with a letter or digit */
	char prefix[ZT_S3_PREFIX_MAX + 2]; /* "" or "a/b/": segments of [A-Za-z0-9._~-], then '/' */
	char region[64];		   /* [a-z0-9-] */
	int vhost;			   /* the bucket is in the host name, not the path */
};

/*
 * Parse url (above) with endpoint (http(s)://HOST[:PORT], only with s3://;
 * NULL: AWS), region (NULL: us-east-1; the environment is zt_s3_new()'s
 * business) and style into loc. No user:password@, query or fragment; a
 * trailing '/' of the prefix is optional. Returns 0 or -EINVAL with msg
 * saying what is wrong.
 */
int zt_s3_loc_parse(const char *url, const char *endpoint, const char *region,
		    enum zt_s3_style style, struct zt_s3_loc *loc, char *msg, size_t msglen);

/* Whether key (relative to the prefix) may be used: 1-ZT_S3_KEY_MAX bytes
 * of [A-Za-z0-9._~-] segments joined by single '/', none "." or "..". */
int zt_s3_key_ok(const char *key);

/* A key pair; strings owned, wiped by zt_s3_keys_release(). */
struct zt_s3_keys {
	char *id;     /* access key id */
	char *secret; /* secret access key */
	char *token;  /* session token, or NULL */
};

/*
 * The keys from the text of a credentials file (changed in place; path
 * names it in messages): access_key, secret_key, session_token (other keys
 * are skipped). Returns 0; -EBADMSG (a line that is not key = value, a
 * missing access_key or secret_key, a value with a blank or control
 * character: msg names the line or the key, never a value); -ENOMEM.
 */
int zt_s3_keys_parse(char *text, const char *path, struct zt_s3_keys *k, char *msg, size_t msglen);

/*
 * The keys as the header says: from file (NULL: $ZT_S3_CREDENTIALS when
 * set), else from the environment. Returns 0; -ENOENT (none: msg says how
 * to give them); -EPERM (an unsafe file), -EBADMSG, -ENOMEM, -errno.
 */
int zt_s3_keys_load(const char *file, struct zt_s3_keys *k, char *msg, size_t msglen);
void zt_s3_keys_release(struct zt_s3_keys *k);

/*
 * S3's error code from an error answer's XML body: the text of its first
 * <Code> element, 1-63 letters and digits ("NoSuchBucket",
 * "SignatureDoesNotMatch") into code (n >= 64). Only the first 64 KiB are
 * looked at. Returns 0, or -ENOENT (no such element, or not a plain code:
 * code is "").
 */
int zt_s3_error_code(const void *body, size_t len, char *code, size_t n);

struct zt_s3_opts {
	const char *endpoint;	 /* with an s3:// URL: http(s)://HOST[:PORT], or NULL: AWS */
	const char *region;	 /* or NULL (see the header) */
	const char *credentials; /* a credentials file, or NULL (see the header) */
	enum zt_s3_style style;
	int max_conns;		 /* requests at the same time; 0: 8 */
	int tries;		 /* attempts of one request; 0: 5 */
	unsigned backoff_ms;	 /* first delay between attempts; 0: 200 ms */
	unsigned max_delay_ms;	 /* cap on a delay; 0: 5 s */
	long connect_timeout_ms; /* 0: 10 s */
	long low_speed_s;	 /* a stalled transfer is dropped after; 0: 60 s */
};

struct zt_s3;

/* A client for url (above) with o (NULL: all defaults); keys loaded as
 * zt_s3_keys_load() does. Makes no request. Returns 0, -EINVAL (a bad URL,
 * endpoint or region), the keys' errors, -ENOSYS (no libcurl), -ENOMEM;
 * msg says why. */
int zt_s3_new(const char *url, const struct zt_s3_opts *o, struct zt_s3 **out, char *msg,
	      size_t msglen);
void zt_s3_free(struct zt_s3 *s); /* accepts NULL; no request may be running */

/* Where it stores (borrowed until zt_s3_free()). */
const struct zt_s3_loc *zt_s3_where(const struct zt_s3 *s);

/*
 * Each returns 0 or a negative errno with msg filled:
 *   -ENOENT  no such object (HTTP 404 NoSuchKey; a HEAD's 404)
 *   -ENXIO   no such bucket (NoSuchBucket)
 *   -EACCES  refused (HTTP 401/403: SignatureDoesNotMatch, InvalidAccessKeyId,
 *            AccessDenied, RequestTimeTooSkewed...); S3 answers 403 for a
 *            missing key when the keys lack s3:ListBucket
 *   -EINVAL  a key zt_s3_key_ok() refuses, or HTTP 400
 *   -EFBIG   a put of more than 5 GiB (S3's limit for one request)
 *   -EIO     HTTP 5xx after the tries, or an answer that makes no sense
 *   -EPROTO  another HTTP status
 *   net/client's errors: -ECONNREFUSED, -ETIMEDOUT, ... after the tries
 *   the file's errors (-ENOSPC, ...)
 */
/* key's content from the file at path, streamed (read twice: once for its
 * SHA-256, which is signed, once to send it). */
int zt_s3_put_file(struct zt_s3 *s, const char *key, const char *path, char *msg, size_t msglen);
/* key's content into dest (created 0644 or truncated, fsync'ed), streamed;
 * on failure dest is removed. */
int zt_s3_get_file(struct zt_s3 *s, const char *key, const char *dest, char *msg, size_t msglen);
/* key's size (HEAD). */
int zt_s3_head(struct zt_s3 *s, const char *key, uint64_t *size, char *msg, size_t msglen);
/* key deleted. S3 answers the same whether it existed or not: 0 both ways. */
int zt_s3_delete(struct zt_s3 *s, const char *key, char *msg, size_t msglen);
/* Whether the bucket is there and the keys work: a GET of a key that is
 * never stored must answer NoSuchKey. The errors above. */
int zt_s3_check(struct zt_s3 *s, char *msg, size_t msglen);

#endif
