/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A ClickHouse server over HTTP: queries, RowBinary inserts, errors sorted (see clickhouse.h). */
#include "net/clickhouse.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "net/client.h"

#define POOL_MAX	  8
#define DEF_TIMEOUT_MS	  30000
#define CONNECT_MS	  3000
#define MAX_ANSWER	  (1024ul << 20) /* 1 GiB: a merged query's rows */

struct zt_ch {
	char *url;
	char *auth; /* "Authorization: Basic ..." or NULL */
	long timeout_ms;
	pthread_mutex_t lock;
	struct zt_http *free[POOL_MAX]; /* idle connections */
	unsigned nr_free;
};

const char *zt_ch_url(const struct zt_ch *c)
{
	return c->url;
}

/* A connection's options: one try (the store decides what to do next), no
 * retry after a timeout (the query may be running still). */
static struct zt_http_opts conn_opts(const char *url, long timeout_ms)
{
	struct zt_http_opts o = {.base_url = url,
				 .connect_timeout_ms = CONNECT_MS,
				 .timeout_ms = timeout_ms,
				 .tries = 1,
				 .no_retry_timeout = 1};

	return o;
}

int zt_ch_new(const struct zt_ch_opts *o, struct zt_ch **out, char *msg, size_t msglen)
{
	/* the pool's first connection, with the options of every other (with
	 * libcurl's defaults it tried 6 times over 26 s when ClickHouse was down) */
	struct zt_http_opts ho = conn_opts(o->url, o->timeout_ms > 0 ? o->timeout_ms
								      : DEF_TIMEOUT_MS);
	struct zt_http *probe;
	struct zt_ch *c;
	int err;

	*out = NULL;
	if (!o->url || (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8))) {
		snprintf(msg, msglen, "'%s' is not a ClickHouse HTTP URL (http://HOST:PORT)",
			 o->url ? o->url : "");
		return -EINVAL;
	}
	/* the URL checked, libcurl found */
	if ((err = zt_http_new(&ho, &probe, msg, msglen)))
		return err;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->url = strdup(o->url))) {
		zt_http_free(probe);
		free(c);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	c->free[c->nr_free++] = probe;
	c->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : DEF_TIMEOUT_MS;
	pthread_mutex_init(&c->lock, NULL);
	if (o->user || o->password) {
		const char *u = o->user ? o->user : "default", *p = o->password ? o->password : "";
		size_t n = strlen(u) + 1 + strlen(p);
		unsigned char *plain = malloc(n + 1);
		char *b64 = malloc(4 * ((n + 2) / 3) + 1);

		if (plain && b64) {
			snprintf((char *)plain, n + 1, "%s:%s", u, p);
			EVP_EncodeBlock((unsigned char *)b64, plain, (int)n);
			if (asprintf(&c->auth, "Authorization: Basic %s", b64) < 0)
				c->auth = NULL;
			explicit_bzero(plain, n);
			explicit_bzero(b64, strlen(b64));
		}
		free(plain);
		free(b64);
		if (!c->auth) {
			zt_ch_free(c);
			snprintf(msg, msglen, "out of memory");
			return -ENOMEM;
		}
	}
	*out = c;
	return 0;
}

void zt_ch_free(struct zt_ch *c)
{
	unsigned i;

	if (!c)
		return;
	for (i = 0; i < c->nr_free; i++)
		zt_http_free(c->free[i]);
	if (c->auth) {
		explicit_bzero(c->auth, strlen(c->auth));
		free(c->auth);
	}
	pthread_mutex_destroy(&c->lock);
	free(c->url);
	free(c);
}

static int conn_get(struct zt_ch *c, struct zt_http **h, char *msg, size_t msglen)
{
	struct zt_http_opts o = conn_opts(c->url, c->timeout_ms);

	pthread_mutex_lock(&c->lock);
	*h = c->nr_free ? c->free[--c->nr_free] : NULL;
	pthread_mutex_unlock(&c->lock);
	if (*h)
		return 0;
	return zt_http_new(&o, h, msg, msglen);
}

static void conn_put(struct zt_ch *c, struct zt_http *h)
{
	pthread_mutex_lock(&c->lock);
	if (c->nr_free < POOL_MAX) {
		c->free[c->nr_free++] = h;
		h = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	zt_http_free(h);
}

void zt_ch_quote(struct zbuf *b, const char *s)
{
	zbuf_put_u8(b, '\'');
	for (; *s; s++) {
		if (*s == '\\' || *s == '\'')
			zbuf_put_u8(b, '\\');
		zbuf_put_u8(b, (uint8_t)*s);
	}
	zbuf_put_u8(b, '\'');
}

int zt_ch_error_code(const char *text, size_t len)
{
	size_t i;
	int code = 0;

	if (len < 6 || memcmp(text, "Code: ", 6))
		return -1;
	for (i = 6; i < len && text[i] >= '0' && text[i] <= '9' && code < 100000; i++)
		code = code * 10 + (text[i] - '0');
	return i > 6 ? code : -1;
}

int zt_ch_code_retryable(int code)
{
	switch (code) {
	case 3:	  /* UNEXPECTED_END_OF_FILE: a shard's connection cut */
	case 32:  /* ATTEMPT_TO_READ_AFTER_EOF: the same */
	case 159: /* TIMEOUT_EXCEEDED */
	case 202: /* TOO_MANY_SIMULTANEOUS_QUERIES */
	case 209: /* SOCKET_TIMEOUT */
	case 210: /* NETWORK_ERROR */
	case 242: /* TABLE_IS_READ_ONLY */
	case 252: /* TOO_MANY_PARTS */
	case 279: /* ALL_CONNECTION_TRIES_FAILED */
	case 285: /* TOO_FEW_LIVE_REPLICAS */
	case 319: /* UNKNOWN_STATUS_OF_INSERT */
		return 1;
	}
	return 0;
}

/* ClickHouse's message on one line (its lines joined: a distributed
 * query's first line does not name the shard, the next ones do), at most
 * 400 bytes, control characters dropped. */
static void answer_text(const struct zbuf *b, char *msg, size_t msglen)
{
	const char *t = b->data ? (const char *)b->data : "";
	size_t n = b->len < 400 ? b->len : 400, i, k = 0;

	for (i = 0; i < n && k + 1 < msglen; i++) {
		unsigned char ch = (unsigned char)t[i];

		if (ch == '\n' || ch == '\r' || ch == '\t') {
			if (k && msg[k - 1] != ' ')
				msg[k++] = ' ';
		} else if (ch >= 0x20 && ch != 0x7f) {
			msg[k++] = (char)ch;
		}
	}
	while (k && (msg[k - 1] == ' ' || msg[k - 1] == ','))
		k--;
	if (msglen)
		msg[k] = 0;
}

/* sql with settings; a body (sql then goes in the URL) of type ctype (NULL: curl's). */
static int request(struct zt_ch *c, const char *sql, const char *settings, const char *ctype,
		   const void *body, size_t len, struct zbuf *out, char *msg, size_t msglen)
{
	const char *hdrs[3] = {c->auth, ctype, NULL};
	struct zt_http_resp resp;
	struct zt_http_req r = {.method = "POST", .headers = hdrs, .max_answer = MAX_ANSWER};
	struct zt_http *h;
	struct zbuf path;
	int err, code;

	if (!c->auth) {
		hdrs[0] = ctype;
		hdrs[1] = NULL;
	}
	zbuf_init(&path);
	zbuf_put(&path, "/?", 2);
	if (body) {
		zbuf_put(&path, "query=", 6);
		zt_http_escape(&path, sql, NULL);
		r.body = body;
		r.len = len;
	} else {
		r.body = sql;
		r.len = strlen(sql);
	}
	if (settings && *settings) {
		if (body)
			zbuf_put_u8(&path, '&');
		zbuf_put(&path, settings, strlen(settings));
	}
	zbuf_put_u8(&path, 0);
	if (path.err) {
		zbuf_release(&path);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	r.path = (const char *)path.data;
	if ((err = conn_get(c, &h, msg, msglen))) {
		zbuf_release(&path);
		return err;
	}
	zt_http_resp_init(&resp);
	err = zt_http_request(h, &r, &resp, msg, msglen);
	zbuf_release(&path);
	if (err) {
		char why[256];

		snprintf(why, sizeof(why), "%s", msg);
		snprintf(msg, msglen, "cannot reach ClickHouse at %s: %s", c->url, why);
		zt_http_free(h);
		zt_http_resp_release(&resp);
		/* a timeout: the server took the query (a shard behind it may hang) */
		return err == -ENOMEM ? -ENOMEM : err == -EINVAL ? -EINVAL
		       : err == -ETIMEDOUT ? -EAGAIN : -ECONNREFUSED;
	}
	conn_put(c, h);
	if (resp.status == 200) {
		if (out && resp.body.len)
			zbuf_put(out, resp.body.data, resp.body.len);
		zt_http_resp_release(&resp);
		if (out && out->err) {
			snprintf(msg, msglen, "out of memory");
			return -ENOMEM;
		}
		msg[0] = 0;
		return 0;
	}
	answer_text(&resp.body, msg, msglen);
	code = zt_ch_error_code((const char *)resp.body.data, resp.body.len);
	if (!msg[0])
		snprintf(msg, msglen, "HTTP status %ld", resp.status);
	if (resp.status == 401 || resp.status == 403 || (code >= 192 && code <= 195) ||
	    code == 516)
		err = -EACCES;
	else if (resp.status == 503 || resp.status == 502 || resp.status == 504 ||
		 zt_ch_code_retryable(code))
		err = -EAGAIN;
	else
		err = -EREMOTEIO;
	zt_http_resp_release(&resp);
	return err;
}

int zt_ch_query(struct zt_ch *c, const char *sql, const char *settings, const void *body,
		size_t len, struct zbuf *out, char *msg, size_t msglen)
{
	return request(c, sql, settings, NULL, body, len, out, msg, msglen);
}

/* A boundary no decimal digit or newline can be mistaken for. */
#define BOUNDARY "zt-external-data-a3f9c1e7"

int zt_ch_ids_body(struct zbuf *body, const char *name, const uint64_t *ids, size_t n)
{
	size_t i;

	zbuf_putf(body,
		  "--" BOUNDARY
		  "\r\nContent-Disposition: form-data; name=\"%s\"; filename=\"%s\"\r\n"
		  "Content-Type: text/tab-separated-values\r\n\r\n",
		  name, name);
	for (i = 0; i < n; i++)
		zbuf_putf(body, "%" PRIu64 "\n", ids[i]);
	zbuf_putf(body, "\r\n--" BOUNDARY "--\r\n");
	return body->err ? -ENOMEM : 0;
}

int zt_ch_query_ids(struct zt_ch *c, const char *sql, const char *settings, const char *name,
		    const uint64_t *ids, size_t n, struct zbuf *out, char *msg, size_t msglen)
{
	struct zbuf body, set;
	int err;

	zbuf_init(&body);
	zbuf_init(&set);
	zbuf_putf(&set, "%s_structure=id%%20UInt64&%s_format=TabSeparated", name, name);
	if (settings && *settings)
		zbuf_putf(&set, "&%s", settings);
	zbuf_put_u8(&set, 0);
	err = zt_ch_ids_body(&body, name, ids, n);
	if (err || set.err) {
		snprintf(msg, msglen, "out of memory");
		err = -ENOMEM;
	} else {
		err = request(c, sql, (const char *)set.data,
			      "Content-Type: multipart/form-data; boundary=" BOUNDARY, body.data,
			      body.len, out, msg, msglen);
	}
	zbuf_release(&body);
	zbuf_release(&set);
	return err;
}
