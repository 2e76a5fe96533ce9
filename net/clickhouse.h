/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A ClickHouse server over its HTTP interface (libcurl through
 * net/client.h): a query's text, an INSERT's RowBinary body, the answer's
 * bytes. No client library: the same requests work from Debian's 18.16 to
 * current releases.
 *
 * RowBinary is what libprof/zbuf.h writes and reads: UInt64 and Int64 as
 * 8 little-endian bytes (zbuf_put_u64le, zcur_u64le), a String or an
 * Array's count as an unsigned LEB128 length (zbuf_put_bytes, zcur_uv),
 * a Date as the UInt16 days since 1970, a UInt8 as one byte.
 *
 * Thread safety: a zt_ch may be used from several threads at once (a
 * small pool of connections inside). Never prints.
 */
#ifndef ZT_NET_CLICKHOUSE_H
#define ZT_NET_CLICKHOUSE_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/zbuf.h"

struct zt_ch_opts {
	const char *url;      /* http(s)://host:port of one server; copied */
	const char *user;     /* NULL: the server's default user */
	const char *password; /* NULL: none; copied, wiped at zt_ch_free() */
	long timeout_ms;      /* one query; 0: 30 s (a frozen shard hangs a query for good) */
};

struct zt_ch;

/* 0, -EINVAL (a bad URL: msg says why), -ENOSYS (no libcurl), -ENOMEM. */
int zt_ch_new(const struct zt_ch_opts *o, struct zt_ch **out, char *msg, size_t msglen);
void zt_ch_free(struct zt_ch *c); /* accepts NULL; no query may be running */
/* The server's URL, as given. */
const char *zt_ch_url(const struct zt_ch *c);

/*
 * Run sql with the URL settings in settings ("name=value&name=value", or
 * NULL). With a body (an INSERT ... FORMAT RowBinary), sql goes in the URL
 * and the body is sent after it; else sql is the request's body. The
 * answer's bytes are appended to out (may be NULL: dropped). Returns 0 or
 *   -ECONNREFUSED  the server cannot be reached (refused, cut)
 *   -EAGAIN     a shard behind it cannot be reached, the query timed out or
 *               the server is overloaded: worth trying again later
 *   -EREMOTEIO  the server refused the query
 *   -EACCES     the server refused the user or password
 *   -ENOMEM
 * with msg holding what happened (ClickHouse's own message, on one line).
 */
int zt_ch_query(struct zt_ch *c, const char *sql, const char *settings, const void *body,
		size_t len, struct zbuf *out, char *msg, size_t msglen);
/*
 * The same, with an external table NAME (one column: id UInt64) holding
 * ids[0..n), which sql reads as a table (`WHERE x IN NAME`; with a
 * Distributed table `GLOBAL IN NAME`, which ships it to the shards).
 * ClickHouse takes it as text beside the query (a multipart
 * form, its "external data"), so a long list of ids costs no parsing of
 * the query text. The same returns as zt_ch_query().
 */
int zt_ch_query_ids(struct zt_ch *c, const char *sql, const char *settings, const char *name,
		    const uint64_t *ids, size_t n, struct zbuf *out, char *msg, size_t msglen);
/* The multipart body zt_ch_query_ids() sends (for the tests); -ENOMEM. */
int zt_ch_ids_body(struct zbuf *body, const char *name, const uint64_t *ids, size_t n);

/* s as a ClickHouse string literal ('...', backslash and quote escaped), appended to b. */
void zt_ch_quote(struct zbuf *b, const char *s);

/* The error code in an answer's text ("Code: 279, e.displayText() = ..."), or -1. */
int zt_ch_error_code(const char *text, size_t len);
/* Whether an error code means "try again later" (a shard down, a timeout, too many parts). */
int zt_ch_code_retryable(int code);

#endif
