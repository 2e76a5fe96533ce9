// SPDX-License-Identifier: GPL-2.0-or-later
/* An S3 client over net/client: put, get, head, delete of one bucket's objects, SigV4-signed. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/client.h"
#include "net/s3.h"
#include "net/secfile.h"
#include "symbolizer/sha256.h"

#define DEF_CONNS	 8
#define DEF_TRIES	 5
#define DEF_BACKOFF_MS	 200
#define DEF_MAX_DELAY_MS 5000
#define MAX_CONNS	 64
#define MAX_ERROR_BODY	 (64u << 10)  /* an error answer's body kept */
#define MAX_PUT		 (5ull << 30) /* S3's limit on one PUT */
#define KEYS_FILE_MAX	 (64u << 10)
#define CHECK_KEY	 ".zt-s3-check" /* never stored: its GET must say NoSuchKey */
#define EMPTY_SHA256	 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

struct zt_s3 {
	struct zt_s3_loc loc;
	struct zt_s3_keys keys;
	char sigv4[96];	 /* "aws:amz:REGION:s3" */
	char *token_hdr; /* "x-amz-security-token: T", or NULL */
	struct zt_http_opts ho;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct zt_http *idle[MAX_CONNS];
	int nr_idle, nr_made, max;
};

/* ---- the URL ------------------------------------------------------------------ */

static int is_lower_digit(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int is_alnum(char c)
{
	return is_lower_digit(c) || (c >= 'A' && c <= 'Z');
}

/* A key or prefix character: RFC 3986's unreserved ones, the same encoded or not. */
static int is_keych(char c)
{
	return is_alnum(c) || c == '.' || c == '_' || c == '~' || c == '-';
}

/* Whether s[0..n) is a bucket name: S3's rules for new buckets. */
static int bucket_ok(const char *s, size_t n)
{
	size_t i;

	if (n < 3 || n > 63 || !is_lower_digit(s[0]) || !is_lower_digit(s[n - 1]))
		return 0;
	for (i = 0; i < n; i++)
		if (!is_lower_digit(s[i]) && s[i] != '-' && (s[i] != '.' || s[i + 1] == '.'))
			return 0;
	return 1;
}

/* Whether s[0..n) is segments of key characters joined by single '/', none "." or "..". */
static int segments_ok(const char *s, size_t n)
{
	size_t i, start = 0;

	if (!n)
		return 0;
	for (i = 0; i <= n; i++) {
		size_t len = i - start;

		if (i < n && s[i] != '/') {
			if (!is_keych(s[i]))
				return 0;
			continue;
		}
		if (!len || (len == 1 && s[start] == '.') ||
		    (len == 2 && s[start] == '.' && s[start + 1] == '.'))
			return 0;
		start = i + 1;
	}
	return 1;
}

int zt_s3_key_ok(const char *key)
{
	size_t n = strnlen(key, ZT_S3_KEY_MAX + 1);

	return n <= ZT_S3_KEY_MAX && segments_ok(key, n);
}

/* "http://" or "https://" at the start of s: its length, else 0. */
static size_t http_scheme(const char *s)
{
	if (!strncasecmp(s, "http://", 7))
		return 7;
	if (!strncasecmp(s, "https://", 8))
		return 8;
	return 0;
}

/* HOST[:PORT] at s[0..n): a DNS name or an address, [IPv6] too, and a port 1-65535. */
static int hostport_ok(const char *s, size_t n, const char *what, const char *whole, char *msg,
		       size_t msglen)
{
	const char *colon = NULL;
	size_t i, hlen = n;

	if (n && s[0] == '[') {
		const char *rb = memchr(s, ']', n);

		if (!rb)
			goto bad;
		for (i = 1; s + i < rb; i++)
			if (!is_alnum(s[i]) && s[i] != ':' && s[i] != '.')
				goto bad;
		hlen = (size_t)(rb - s) + 1;
		if (hlen < n) {
			if (s[hlen] != ':')
				goto bad;
			colon = s + hlen;
		}
	} else {
		colon = memchr(s, ':', n);
		if (colon)
			hlen = (size_t)(colon - s);
		for (i = 0; i < hlen; i++)
			if (!is_alnum(s[i]) && s[i] != '.' && s[i] != '-')
				goto bad;
	}
	if (!hlen || hlen > 253)
		goto bad;
	if (colon) {
		const char *p = colon + 1, *end = s + n;
		unsigned long port = 0;

		if (p == end || end - p > 5)
			goto bad;
		for (; p < end; p++) {
			if (*p < '0' || *p > '9')
				goto bad;
			port = port * 10 + (unsigned long)(*p - '0');
		}
		if (!port || port > 65535)
			goto bad;
	}
	return 0;
bad:
	snprintf(msg, msglen, "%s '%s' has no valid HOST[:PORT]", what, whole);
	return -EINVAL;
}

/* BUCKET[/PREFIX] at s into loc. */
static int bucket_prefix(const char *s, const char *url, struct zt_s3_loc *loc, char *msg,
			 size_t msglen)
{
	const char *slash = strchr(s, '/');
	size_t blen = slash ? (size_t)(slash - s) : strlen(s), plen;

	if (strpbrk(s, "?#")) {
		snprintf(msg, msglen, "'%s': a bucket URL has no query or fragment", url);
		return -EINVAL;
	}
	if (!bucket_ok(s, blen)) {
		snprintf(msg, msglen,
			 "no valid bucket name (3-63 lowercase letters, digits, '.' and '-', "
			 "starting and ending with a letter or digit) in '%s'",
			 url);
		return -EINVAL;
	}
	memcpy(loc->bucket, s, blen);
	loc->bucket[blen] = 0;
	if (!slash)
		return 0;
	s = slash + 1;
	plen = strlen(s);
	if (plen > 1 && s[plen - 1] == '/')
		plen--; /* "BUCKET/" is no prefix, "BUCKET//" a bad one */
	if (!plen)
		return 0;
	if (plen > ZT_S3_PREFIX_MAX || !segments_ok(s, plen)) {
		snprintf(msg, msglen,
			 "the prefix must be segments of letters, digits, '.', '_', '~' and "
			 "'-' joined by single '/' (no '.' or '..'), at most %d bytes: '%s'",
			 ZT_S3_PREFIX_MAX, url);
		return -EINVAL;
	}
	memcpy(loc->prefix, s, plen);
	loc->prefix[plen] = '/';
	loc->prefix[plen + 1] = 0;
	return 0;
}

static int region_ok(const char *r)
{
	size_t i, n = strlen(r);

	if (!n || n > 63)
		return 0;
	for (i = 0; i < n; i++)
		if (!is_alnum(r[i]) && r[i] != '-' && r[i] != '_')
			return 0;
	return 1;
}

/* scheme://[bucket.]hostport into loc->base, scheme://hostport into loc->endpoint. */
static int set_base(struct zt_s3_loc *loc, const char *scheme, size_t slen, const char *hp,
		    size_t hlen, char *msg, size_t msglen)
{
	int k, e;

	e = snprintf(loc->endpoint, sizeof(loc->endpoint), "%.*s%.*s", (int)slen, scheme, (int)hlen,
		     hp);
	if (loc->vhost)
		k = snprintf(loc->base, sizeof(loc->base), "%.*s%s.%.*s", (int)slen, scheme,
			     loc->bucket, (int)hlen, hp);
	else
		k = snprintf(loc->base, sizeof(loc->base), "%s", loc->endpoint);
	if (e < 0 || (size_t)e >= sizeof(loc->endpoint) || k < 0 ||
	    (size_t)k >= sizeof(loc->base)) {
		snprintf(msg, msglen, "the S3 server's name is too long");
		return -EINVAL;
	}
	/* lowercase scheme: libcurl takes any, messages read better */
	for (k = 0; k < (int)slen; k++) {
		loc->base[k] = (char)(loc->base[k] | 0x20);
		loc->endpoint[k] = (char)(loc->endpoint[k] | 0x20);
	}
	return 0;
}

int zt_s3_loc_parse(const char *url, const char *endpoint, const char *region,
		    enum zt_s3_style style, struct zt_s3_loc *loc, char *msg, size_t msglen)
{
	size_t slen;
	int ret;

	memset(loc, 0, sizeof(*loc));
	msg[0] = 0;
	if (!url || !*url) {
		snprintf(msg, msglen, "no S3 URL given");
		return -EINVAL;
	}
	/* not quoted: "user:secret@" has no place in either form */
	if (strchr(url, '@') || (endpoint && strchr(endpoint, '@'))) {
		snprintf(msg, msglen,
			 "the S3 %s holds a user name or password: give the keys in the "
			 "environment or a credentials file, never in a URL",
			 strchr(url, '@') ? "URL" : "endpoint");
		return -EINVAL;
	}
	if (!region || !*region)
		region = "us-east-1";
	if (!region_ok(region)) {
		snprintf(msg, msglen, "'%s' is not a region name (letters, digits, '-' and '_')",
			 region);
		return -EINVAL;
	}
	snprintf(loc->region, sizeof(loc->region), "%s", region);

	if (!strncasecmp(url, "s3://", 5)) {
		ret = bucket_prefix(url + 5, url, loc, msg, msglen);
		if (ret)
			return ret;
		if (!endpoint || !*endpoint) {
			char host[128];

			/* AWS: a bucket with a '.' breaks the TLS name check of
			 * BUCKET.s3...amazonaws.com, so path style for it */
			loc->vhost = style == ZT_S3_STYLE_VHOST ||
				     (style == ZT_S3_STYLE_AUTO && !strchr(loc->bucket, '.'));
			snprintf(host, sizeof(host), "s3.%s.amazonaws.com", loc->region);
			return set_base(loc, "https://", 8, host, strlen(host), msg, msglen);
		}
		slen = http_scheme(endpoint);
		if (!slen) {
			snprintf(msg, msglen,
				 "the S3 endpoint '%s' is not an http:// or https:// URL",
				 endpoint);
			return -EINVAL;
		}
		{
			size_t hlen = strlen(endpoint + slen);

			if (hlen && endpoint[slen + hlen - 1] == '/')
				hlen--;
			if (memchr(endpoint + slen, '/', hlen)) {
				snprintf(msg, msglen,
					 "the S3 endpoint '%s' has a path: give the bucket and "
					 "prefix in the s3:// URL",
					 endpoint);
				return -EINVAL;
			}
			ret = hostport_ok(endpoint + slen, hlen, "the S3 endpoint", endpoint, msg,
					  msglen);
			if (ret)
				return ret;
			loc->vhost = style == ZT_S3_STYLE_VHOST;
			return set_base(loc, endpoint, slen, endpoint + slen, hlen, msg, msglen);
		}
	}
	slen = http_scheme(url);
	if (!slen) {
		snprintf(msg, msglen,
			 "'%s' is not an S3 URL: s3://BUCKET[/PREFIX] or "
			 "http(s)://HOST[:PORT]/BUCKET[/PREFIX]",
			 url);
		return -EINVAL;
	}
	if (endpoint && *endpoint) {
		snprintf(msg, msglen,
			 "'%s' names its server already: an endpoint goes with an s3:// URL only",
			 url);
		return -EINVAL;
	}
	{
		const char *hp = url + slen, *slash = strchr(hp, '/');
		size_t hlen = slash ? (size_t)(slash - hp) : strlen(hp);

		ret = hostport_ok(hp, hlen, "the S3 URL", url, msg, msglen);
		if (ret)
			return ret;
		if (!slash || !slash[1]) {
			snprintf(msg, msglen,
				 "'%s' names no bucket: http(s)://HOST[:PORT]/BUCKET[/PREFIX]",
				 url);
			return -EINVAL;
		}
		ret = bucket_prefix(slash + 1, url, loc, msg, msglen);
		if (ret)
			return ret;
		loc->vhost = style == ZT_S3_STYLE_VHOST;
		return set_base(loc, url, slen, hp, hlen, msg, msglen);
	}
}

/* ---- the keys ------------------------------------------------------------------ */

void zt_s3_keys_release(struct zt_s3_keys *k)
{
	char **v[] = {&k->id, &k->secret, &k->token};
	size_t i;

	for (i = 0; i < 3; i++) {
		if (*v[i]) {
			explicit_bzero(*v[i], strlen(*v[i]));
			free(*v[i]);
			*v[i] = NULL;
		}
	}
}

/* A key's value: printable ASCII without blanks, at most max bytes. */
static int value_ok(const char *v, size_t max)
{
	size_t n = strlen(v), i;

	if (!n || n > max)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] <= ' ' || (unsigned char)v[i] >= 0x7f)
			return 0;
	return 1;
}

/* The three values checked (names for messages), copied into k. */
static int keys_set(struct zt_s3_keys *k, const char *id, const char *secret, const char *token,
		    const char *src, const char *const names[3], char *msg, size_t msglen)
{
	const char *v[3] = {id, secret, token};
	char **dst[3] = {&k->id, &k->secret, &k->token};
	/* ids are 16-128 characters on AWS, MinIO's up to 20; secrets up to
	 * 40 and 40+; tokens run to a few KiB */
	static const size_t max[3] = {256, 256, 8192};
	int i;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < 3; i++) {
		if (!v[i]) {
			if (i == 2)
				continue;
			snprintf(msg, msglen, "%s has no %s", src, names[i]);
			zt_s3_keys_release(k);
			return -EBADMSG;
		}
		if (!value_ok(v[i], max[i]) || (i == 0 && strchr(v[i], ':'))) {
			snprintf(msg, msglen,
				 "%s: %s is empty, too long, or holds a blank, a ':' or a "
				 "control character",
				 src, names[i]);
			zt_s3_keys_release(k);
			return -EBADMSG;
		}
		if (!(*dst[i] = strdup(v[i]))) {
			zt_s3_keys_release(k);
			snprintf(msg, msglen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

int zt_s3_keys_parse(char *text, const char *path, struct zt_s3_keys *k, char *msg, size_t msglen)
{
	static const char *const names[3] = {"access_key", "secret_key", "session_token"};
	const char *v[3] = {NULL, NULL, NULL};
	char *cur = text, *key, *val;
	int ret, lineno = 0, i;

	memset(k, 0, sizeof(*k));
	while ((ret = zt_secfile_next(&cur, &lineno, &key, &val)) > 0)
		for (i = 0; i < 3; i++)
			if (!strcmp(key, names[i]))
				v[i] = val;
	if (ret == -EBADMSG) {
		snprintf(msg, msglen, "%s:%d: not a 'key = value' line", path, lineno);
		return ret;
	}
	return keys_set(k, v[0], v[1], v[2], path, names, msg, msglen);
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int zt_s3_keys_load(const char *file, struct zt_s3_keys *k, char *msg, size_t msglen)
{
	static const char *const names[3] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
					     "AWS_SESSION_TOKEN"};
	const char *id, *secret;
	char *text;
	size_t len;
	int ret;

	memset(k, 0, sizeof(*k));
	msg[0] = 0;
	if (!file || !*file)
		file = env("ZT_S3_CREDENTIALS");
	if (file) {
		ret = zt_secfile_read(file, "S3 keys", KEYS_FILE_MAX, &text, &len, msg, msglen);
		if (ret == -ENOENT)
			snprintf(msg, msglen, "the S3 credentials file '%s' does not exist", file);
		if (ret)
			return ret;
		ret = zt_s3_keys_parse(text, file, k, msg, msglen);
		zt_secfile_free(text, len);
		return ret;
	}
	id = env(names[0]);
	secret = env(names[1]);
	if (!id && !secret) {
		snprintf(msg, msglen,
			 "no S3 keys: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
			 "ZT_S3_CREDENTIALS to a file (mode 600) with 'access_key = ...' "
			 "and 'secret_key = ...' lines");
		return -ENOENT;
	}
	return keys_set(k, id, secret, env(names[2]), "the environment", names, msg, msglen);
}

/* ---- answers ------------------------------------------------------------------- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int zt_s3_error_code(const void *body, size_t len, char *code, size_t n)
{
	const char *p = body, *c, *end;
	size_t k = 0;

	if (n)
		code[0] = 0;
	if (!p || !n)
		return -ENOENT;
	if (len > MAX_ERROR_BODY)
		len = MAX_ERROR_BODY;
	end = p + len;
	c = memmem(p, len, "<Code>", 6);
	if (!c)
		return -ENOENT;
	for (c += 6; c < end && is_blank(*c); c++)
		;
	while (c + k < end && k < 64 && is_alnum(c[k]))
		k++;
	if (!k || k > 63 || k >= n)
		return -ENOENT;
	p = c + k;
	while (p < end && is_blank(*p))
		p++;
	if ((size_t)(end - p) < 7 || memcmp(p, "</Code>", 7))
		return -ENOENT;
	memcpy(code, c, k);
	code[k] = 0;
	return 0;
}

/* What to do about an error code, or "". */
static const char *hint(const char *code)
{
	static const struct {
		const char *code, *hint;
	} tab[] = {
		{"SignatureDoesNotMatch",
		 "the secret key is not the one of this access key id (or the region is wrong)"},
		{"InvalidAccessKeyId", "the server knows no such access key id"},
		{"NoSuchBucket", "create the bucket, or correct the URL"},
		{"AccessDenied", "the keys need s3:GetObject, s3:PutObject, s3:DeleteObject and "
				 "s3:ListBucket on the bucket"},
		{"RequestTimeTooSkewed", "this machine's clock is off: synchronize it (NTP)"},
		{"AuthorizationHeaderMalformed", "give the bucket's region (AWS_REGION)"},
		{"PermanentRedirect", "the bucket is in another region: give it (AWS_REGION)"},
		{"ExpiredToken", "the session token has expired: renew the keys"},
		{"InvalidToken", "the session token is not valid: renew the keys"},
		{"XAmzContentSHA256Mismatch", "the file changed while it was sent"},
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(code, tab[i].code))
			return tab[i].hint;
	return "";
}

/* An answer's status and code as an errno. */
static int status_errno(long status, const char *code)
{
	if (!strcmp(code, "NoSuchBucket"))
		return -ENXIO;
	if (status == 404)
		return -ENOENT;
	if (status == 401 || status == 403)
		return -EACCES;
	if (status == 400)
		return -EINVAL;
	if (status >= 500 || status == 429)
		return -EIO;
	return -EPROTO;
}

/* ---- requests ------------------------------------------------------------------ */

static void msg_fail(const struct zt_s3 *s, const char *verb, const char *full, const char *why,
		     char *msg, size_t msglen)
{
	if (!strcmp(verb, "reach")) /* zt_s3_check(): the bucket is the subject */
		snprintf(msg, msglen, "cannot reach S3 bucket '%s' at %s: %s", s->loc.bucket,
			 s->loc.endpoint, why);
	else
		snprintf(msg, msglen, "cannot %s '%s' in S3 bucket '%s' at %s: %s", verb, full,
			 s->loc.bucket, s->loc.endpoint, why);
}

/* An error answer into msg; its errno. */
static int answer_error(const struct zt_s3 *s, const char *verb, const char *full,
			const struct zt_http_resp *r, char *msg, size_t msglen)
{
	char code[64], why[256];
	const char *h;
	int ret;

	zt_s3_error_code(r->body.data, r->body.len, code, sizeof(code));
	ret = status_errno(r->status, code);
	if (ret == -ENOENT) {
		snprintf(msg, msglen, "no object '%s' in S3 bucket '%s' at %s", full, s->loc.bucket,
			 s->loc.endpoint);
		return ret;
	}
	h = hint(code);
	if (code[0])
		snprintf(why, sizeof(why), "%s (HTTP %ld)%s%s", code, r->status, *h ? ": " : "", h);
	else if (r->status == 403)
		snprintf(why, sizeof(why),
			 "access denied (HTTP 403; an answer without a body names no reason: "
			 "the keys, the region or the clock)");
	else
		snprintf(why, sizeof(why), "HTTP %ld", r->status);
	msg_fail(s, verb, full, why, msg, msglen);
	return ret;
}

static int take(struct zt_s3 *s, struct zt_http **h, char *msg, size_t msglen)
{
	int ret = 0;

	pthread_mutex_lock(&s->mu);
	while (!s->nr_idle && s->nr_made >= s->max)
		pthread_cond_wait(&s->cv, &s->mu);
	if (s->nr_idle) {
		*h = s->idle[--s->nr_idle];
	} else {
		/* made under the lock: zt_http_new() counts libcurl's users unlocked */
		ret = zt_http_new(&s->ho, h, msg, msglen);
		if (!ret)
			s->nr_made++;
	}
	pthread_mutex_unlock(&s->mu);
	return ret;
}

static void give(struct zt_s3 *s, struct zt_http *h)
{
	pthread_mutex_lock(&s->mu);
	s->idle[s->nr_idle++] = h;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* prefix + key into full, checked; its request path into path. */
static int object_path(const struct zt_s3 *s, const char *key, char *full, size_t fulln, char *path,
		       size_t pathn)
{
	int k;

	if (!key || !zt_s3_key_ok(key))
		return -EINVAL;
	k = snprintf(full, fulln, "%s%s", s->loc.prefix, key);
	if (k < 0 || (size_t)k >= fulln || (size_t)k > ZT_S3_KEY_MAX)
		return -EINVAL;
	if (s->loc.vhost)
		k = snprintf(path, pathn, "/%s", full);
	else
		k = snprintf(path, pathn, "/%s/%s", s->loc.bucket, full);
	return k < 0 || (size_t)k >= pathn ? -EINVAL : 0;
}

struct s3req {
	const char *verb;   /* for messages: "put", "get", ... */
	const char *method; /* "PUT", "GET", ... */
	const char *key;
	const char *sha256; /* hex of the payload */
	const struct zt_http_file *upload, *save;
};

/* Send q; resp holds the answer. 0 when one came (any status), else the
 * network's errno with msg filled; *full gets the object's full key. */
static int request(struct zt_s3 *s, const struct s3req *q, struct zt_http_resp *resp, char *full,
		   size_t fulln, char *msg, size_t msglen)
{
	char path[ZT_S3_KEY_MAX + 128], sha_hdr[96], why[512];
	const char *hdrs[3];
	struct zt_http_req r = {0};
	struct zt_http *h;
	int ret, n = 0;

	full[0] = 0;
	if (object_path(s, q->key, full, fulln, path, sizeof(path))) {
		snprintf(msg, msglen, "'%s' is not a valid S3 key", q->key ? q->key : "(null)");
		return -EINVAL;
	}
	snprintf(sha_hdr, sizeof(sha_hdr), "x-amz-content-sha256: %s", q->sha256);
	hdrs[n++] = sha_hdr;
	if (s->token_hdr)
		hdrs[n++] = s->token_hdr;
	hdrs[n] = NULL;
	r.method = q->method;
	r.path = path;
	r.headers = hdrs;
	r.max_answer = MAX_ERROR_BODY;
	r.upload = q->upload;
	r.save = q->save;
	ret = take(s, &h, why, sizeof(why));
	if (ret) {
		msg_fail(s, q->verb, full, why, msg, msglen);
		return ret;
	}
	ret = zt_http_request(h, &r, resp, why, sizeof(why));
	give(s, h);
	if (ret)
		msg_fail(s, q->verb, full, why, msg, msglen);
	return ret;
}

int zt_s3_put_file(struct zt_s3 *s, const char *key, const char *path, char *msg, size_t msglen)
{
	struct s3req q = {"put", "PUT", key, NULL, NULL, NULL};
	char full[ZT_S3_KEY_MAX + ZT_S3_PREFIX_MAX + 4], hex[65], why[300];
	struct zt_http_file f = {-1, 0};
	struct zt_http_resp resp;
	struct stat st;
	int ret;

	zt_http_resp_init(&resp);
	msg[0] = 0;
	if (!zt_s3_key_ok(key ? key : "")) {
		snprintf(msg, msglen, "'%s' is not a valid S3 key", key ? key : "(null)");
		return -EINVAL;
	}
	f.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f.fd < 0 || fstat(f.fd, &st)) {
		ret = -errno;
		snprintf(msg, msglen, "cannot put '%s' to S3: cannot read '%s': %s", key, path,
			 strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_PUT) {
		ret = S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
		snprintf(msg, msglen, "cannot put '%s' to S3: '%s' is %s", key, path,
			 ret == -EFBIG ? "larger than 5 GiB, S3's limit for one upload"
				       : "not a regular file");
		goto out;
	}
	f.len = (uint64_t)st.st_size;
	ret = zt_sha256_fd_hex(f.fd, f.len, hex);
	if (ret) {
		snprintf(why, sizeof(why), "cannot read '%s': %s", path, strerror(-ret));
		msg_fail(s, "put", key, why, msg, msglen);
		goto out;
	}
	q.sha256 = hex;
	q.upload = &f;
	ret = request(s, &q, &resp, full, sizeof(full), msg, msglen);
	if (!ret && (resp.status < 200 || resp.status > 299))
		ret = answer_error(s, "put", full, &resp, msg, msglen);
out:
	if (f.fd >= 0)
		close(f.fd);
	zt_http_resp_release(&resp);
	return ret;
}

int zt_s3_get_file(struct zt_s3 *s, const char *key, const char *dest, char *msg, size_t msglen)
{
	struct s3req q = {"get", "GET", key, EMPTY_SHA256, NULL, NULL};
	char full[ZT_S3_KEY_MAX + ZT_S3_PREFIX_MAX + 4], why[300];
	struct zt_http_file f = {-1, 0};
	struct zt_http_resp resp;
	int ret;

	zt_http_resp_init(&resp);
	msg[0] = 0;
	if (!zt_s3_key_ok(key ? key : "")) {
		snprintf(msg, msglen, "'%s' is not a valid S3 key", key ? key : "(null)");
		return -EINVAL;
	}
	f.fd = open(dest, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f.fd < 0) {
		ret = -errno;
		snprintf(msg, msglen, "cannot get '%s' from S3: cannot create '%s': %s", key, dest,
			 strerror(errno));
		goto out;
	}
	q.save = &f;
	ret = request(s, &q, &resp, full, sizeof(full), msg, msglen);
	if (ret)
		goto out;
	if (resp.status < 200 || resp.status > 299) {
		ret = answer_error(s, "get", full, &resp, msg, msglen);
		goto out;
	}
	if (resp.length >= 0 && (uint64_t)resp.length != resp.saved) {
		snprintf(why, sizeof(why), "%llu bytes came of %lld",
			 (unsigned long long)resp.saved, (long long)resp.length);
		msg_fail(s, "get", full, why, msg, msglen);
		ret = -EIO;
		goto out;
	}
	if (fsync(f.fd)) {
		ret = -errno;
		snprintf(why, sizeof(why), "cannot write '%s': %s", dest, strerror(errno));
		msg_fail(s, "get", full, why, msg, msglen);
	}
out:
	if (f.fd >= 0 && close(f.fd) && !ret) {
		ret = -errno;
		snprintf(why, sizeof(why), "cannot write '%s': %s", dest, strerror(errno));
		msg_fail(s, "get", full, why, msg, msglen);
	}
	if (ret && f.fd >= 0)
		unlink(dest);
	zt_http_resp_release(&resp);
	return ret;
}

int zt_s3_head(struct zt_s3 *s, const char *key, uint64_t *size, char *msg, size_t msglen)
{
	struct s3req q = {"look up", "HEAD", key, EMPTY_SHA256, NULL, NULL};
	char full[ZT_S3_KEY_MAX + ZT_S3_PREFIX_MAX + 4];
	struct zt_http_resp resp;
	int ret;

	*size = 0;
	msg[0] = 0;
	zt_http_resp_init(&resp);
	ret = request(s, &q, &resp, full, sizeof(full), msg, msglen);
	if (!ret && (resp.status < 200 || resp.status > 299)) {
		ret = answer_error(s, "look up", full, &resp, msg, msglen);
	} else if (!ret && resp.length < 0) {
		msg_fail(s, "look up", full, "the answer has no Content-Length", msg, msglen);
		ret = -EIO;
	} else if (!ret) {
		*size = (uint64_t)resp.length;
	}
	zt_http_resp_release(&resp);
	return ret;
}

int zt_s3_delete(struct zt_s3 *s, const char *key, char *msg, size_t msglen)
{
	struct s3req q = {"delete", "DELETE", key, EMPTY_SHA256, NULL, NULL};
	char full[ZT_S3_KEY_MAX + ZT_S3_PREFIX_MAX + 4];
	struct zt_http_resp resp;
	int ret;

	msg[0] = 0;
	zt_http_resp_init(&resp);
	ret = request(s, &q, &resp, full, sizeof(full), msg, msglen);
	if (!ret && (resp.status < 200 || resp.status > 299)) {
		ret = answer_error(s, "delete", full, &resp, msg, msglen);
		if (ret == -ENOENT) { /* some servers say so: gone either way */
			ret = 0;
			msg[0] = 0;
		}
	}
	zt_http_resp_release(&resp);
	return ret;
}

int zt_s3_check(struct zt_s3 *s, char *msg, size_t msglen)
{
	struct s3req q = {"reach", "GET", CHECK_KEY, EMPTY_SHA256, NULL, NULL};
	char full[ZT_S3_KEY_MAX + ZT_S3_PREFIX_MAX + 4];
	struct zt_http_resp resp;
	int ret;

	msg[0] = 0;
	zt_http_resp_init(&resp);
	ret = request(s, &q, &resp, full, sizeof(full), msg, msglen);
	if (!ret && (resp.status < 200 || resp.status > 299)) {
		ret = answer_error(s, "reach", full, &resp, msg, msglen);
		if (ret == -ENOENT) { /* NoSuchKey: the bucket is there, the keys work */
			ret = 0;
			msg[0] = 0;
		}
	}
	zt_http_resp_release(&resp);
	return ret;
}

/* ---- the client ----------------------------------------------------------------- */

const struct zt_s3_loc *zt_s3_where(const struct zt_s3 *s)
{
	return &s->loc;
}

int zt_s3_new(const char *url, const struct zt_s3_opts *o, struct zt_s3 **out, char *msg,
	      size_t msglen)
{
	static const struct zt_s3_opts none;
	const char *region;
	struct zt_s3 *s;
	int ret;

	*out = NULL;
	if (!o)
		o = &none;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	region = o->region && *o->region ? o->region : env("AWS_REGION");
	if (!region)
		region = env("AWS_DEFAULT_REGION");
	ret = zt_s3_loc_parse(url, o->endpoint, region, o->style, &s->loc, msg, msglen);
	if (ret)
		goto fail;
	ret = zt_s3_keys_load(o->credentials, &s->keys, msg, msglen);
	if (ret)
		goto fail;
	if (s->keys.token &&
	    asprintf(&s->token_hdr, "x-amz-security-token: %s", s->keys.token) < 0) {
		s->token_hdr = NULL;
		snprintf(msg, msglen, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	snprintf(s->sigv4, sizeof(s->sigv4), "aws:amz:%s:s3", s->loc.region);
	s->max = o->max_conns > 0 ? (o->max_conns < MAX_CONNS ? o->max_conns : MAX_CONNS)
				  : DEF_CONNS;
	s->ho.base_url = s->loc.base;
	s->ho.connect_timeout_ms = o->connect_timeout_ms;
	s->ho.low_speed_s = o->low_speed_s;
	s->ho.tries = o->tries > 0 ? o->tries : DEF_TRIES;
	s->ho.backoff_ms = o->backoff_ms ? o->backoff_ms : DEF_BACKOFF_MS;
	s->ho.max_delay_ms = o->max_delay_ms ? o->max_delay_ms : DEF_MAX_DELAY_MS;
	s->ho.aws_sigv4 = s->sigv4;
	s->ho.aws_key_id = s->keys.id;
	s->ho.aws_secret = s->keys.secret;
	/* one handle now: libcurl missing is said here, not at the first request */
	{
		struct zt_http *h;

		ret = take(s, &h, msg, msglen);
		if (ret)
			goto fail;
		give(s, h);
	}
	*out = s;
	return 0;
fail:
	zt_s3_free(s);
	return ret;
}

void zt_s3_free(struct zt_s3 *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nr_idle; i++)
		zt_http_free(s->idle[i]);
	if (s->token_hdr) {
		explicit_bzero(s->token_hdr, strlen(s->token_hdr));
		free(s->token_hdr);
	}
	zt_s3_keys_release(&s->keys);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
