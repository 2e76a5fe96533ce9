// SPDX-License-Identifier: GPL-2.0-or-later
/* The team symbol database as a symbol source: GSYM images by build id, short timeouts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/log.h"
#include "libprof/text.h"
#include "net/push.h"
#include "net/symdb.h"

#define DEF_CONNECT_MS	1000
#define DEF_LOW_SPEED_S 3
#define DEF_TRIES	2
#define DEF_MAX_IMAGE	((size_t)1 << 30)

int symdb_init(struct symdb *d, const struct symdb_opts *o, char *msg, size_t n)
{
	struct zt_http_opts ho = {
		.base_url = o->url,
		.token = o->token,
		.connect_timeout_ms =
			o->connect_timeout_ms ? o->connect_timeout_ms : DEF_CONNECT_MS,
		.low_speed_s = o->low_speed_s ? o->low_speed_s : DEF_LOW_SPEED_S,
		.tries = o->tries > 0 ? o->tries : DEF_TRIES,
		.no_retry_timeout = 1, /* it would double what a stalled server costs */
		.backoff_ms = 200,
		.max_delay_ms = 500,
	};
	int err;

	memset(d, 0, sizeof(*d));
	err = zt_http_new(&ho, &d->h, msg, n);
	if (err)
		return err;
	pthread_mutex_init(&d->lock, NULL);
	d->has_token = o->token != NULL;
	d->max_image = o->max_image ? o->max_image : DEF_MAX_IMAGE;
	snprintf(d->source, sizeof(d->source), "symbol database %s", zt_http_base(d->h));
	return 0;
}

void symdb_release(struct symdb *d)
{
	if (!d->h)
		return;
	zt_http_free(d->h);
	pthread_mutex_destroy(&d->lock);
	free(d->absent);
	memset(d, 0, sizeof(*d));
}

const char *symdb_url(const struct symdb *d)
{
	return d->h ? zt_http_base(d->h) : "";
}

/* 1 to 16 hex digits at *s into *v, *s moved past them. 0 or -EINVAL. */
static int hex64(const char **s, uint64_t *v)
{
	int n = 0, d;

	*v = 0;
	while ((d = zt_hexval(**s)) >= 0) {
		if (++n > 16)
			return -EINVAL;
		*v = *v << 4 | (uint64_t)d;
		++*s;
	}
	return n ? 0 : -EINVAL;
}

int symdb_parse_load(const char *s, struct symmod_seg *segs, size_t max, size_t *nr)
{
	*nr = 0;
	for (;;) {
		uint64_t v[3];

		while (*s == ' ')
			s++;
		if (!*s)
			return 0;
		if (hex64(&s, &v[0]) || *s++ != ':' || hex64(&s, &v[1]) || *s++ != ':' ||
		    hex64(&s, &v[2]))
			return -EINVAL;
		if (*nr >= max)
			return -EINVAL;
		segs[(*nr)++] = (struct symmod_seg){v[0], v[1], v[2]};
		while (*s == ' ')
			s++;
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
}

static int is_absent(const struct symdb *d, const struct prof_build_id *id)
{
	size_t i;

	for (i = 0; i < d->nr_absent; i++)
		if (d->absent[i].len == id->len && !memcmp(d->absent[i].data, id->data, id->len))
			return 1;
	return 0;
}

/* The server is off for the rest of the run, said once. */
static int turn_off(struct symdb *d, const struct zt_http_resp *r, const char *msg)
{
	const char *url = zt_http_base(d->h);

	d->off = 1;
	if (r && (r->status == 401 || r->status == 403))
		zt_warn("symbol server %s %s (%ld): %s, with the read scope; continuing without it",
			url, d->has_token ? "refused the token" : "wants a token", r->status,
			d->has_token ? "check ZT_TOKEN or 'token =' in ~/.config/zt/config"
				     : "set ZT_TOKEN or 'token = T' in ~/.config/zt/config");
	else if (r)
		zt_warn("symbol server %s did not answer (it answered %ld): continuing without it",
			url, r->status);
	else
		zt_warn("symbol server %s did not answer (%s): continuing without it", url, msg);
	return -EHOSTDOWN;
}

/* The answer's headers into a: quality and load segments. */
static void answer_headers(const struct zt_http_resp *r, struct symmod_remote *a)
{
	char v[1024];

	if (!zt_http_header(r, "X-ZT-Symbol-Quality", v, sizeof(v)))
		a->q = push_quality_parse(v); /* -1 for a word not known: judged from the image */
	if (!zt_http_header(r, "X-ZT-Symbol-Load", v, sizeof(v)) &&
	    symdb_parse_load(v, a->segs, SYMMOD_REMOTE_MAX_SEGS, &a->nr_segs))
		a->nr_segs = 0; /* unusable: the binary's own, if it is here */
}

static int get_locked(struct symdb *d, const struct prof_build_id *id, struct symmod_remote *a)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1], path[64 + sizeof(hex)], msg[512];
	struct zt_http_req req = {.method = "GET", .path = path, .max_answer = d->max_image + 1};
	struct zt_http_resp r;
	int ret;

	if (d->off)
		return -EHOSTDOWN;
	if (is_absent(d, id))
		return -ENOENT;
	prof_build_id_hex(id, hex);
	snprintf(path, sizeof(path), "/api/v1/symbols/%s", hex);
	zt_http_resp_init(&r);
	d->asked++;
	ret = zt_http_request(d->h, &req, &r, msg, sizeof(msg));
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		ret = turn_off(d, NULL, msg);
		goto out;
	}
	if (r.status == 404) {
		if (!ZT_GROW(d->absent, d->cap_absent, d->nr_absent + 1))
			d->absent[d->nr_absent++] = *id;
		ret = -ENOENT;
		goto out;
	}
	if (r.status == 401 || r.status == 403 || zt_http_retryable(r.status)) {
		ret = turn_off(d, &r, NULL);
		goto out;
	}
	if (r.status != 200) {
		zt_debug("symbol server %s: %s: answered %ld", zt_http_base(d->h), hex, r.status);
		ret = -ENOENT;
		goto out;
	}
	if (r.body.len > d->max_image || !r.body.len) {
		zt_info("symbol server %s: the symbols of %s are %s: not used", zt_http_base(d->h),
			hex, r.body.len ? "too large" : "empty");
		ret = -ENOENT;
		goto out;
	}
	answer_headers(&r, a);
	a->image = r.body.data; /* taken from the buffer */
	a->len = r.body.len;
	zbuf_init(&r.body);
	snprintf(a->source, sizeof(a->source), "%s", d->source);
	d->served++;
	ret = 0;
out:
	zt_http_resp_release(&r);
	return ret;
}

int symdb_get(struct symdb *d, const struct prof_build_id *id, struct symmod_remote *a)
{
	int ret;

	if (!d->h || !id->len)
		return -ENOENT;
	pthread_mutex_lock(&d->lock);
	ret = get_locked(d, id, a);
	pthread_mutex_unlock(&d->lock);
	return ret;
}

int symdb_remote_gsym(void *ctx, const struct prof_build_id *id, struct symmod_remote *a)
{
	return symdb_get(ctx, id, a);
}
