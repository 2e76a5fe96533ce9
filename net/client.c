// SPDX-License-Identifier: GPL-2.0-or-later
/* The HTTP client of zt push: libcurl, a bearer token, bounded retries with backoff. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dlfcn.h>
#include <pthread.h>

#include <curl/curl.h>

#include "net/client.h"

#define DEF_CONNECT_MS	 10000
#define DEF_LOW_SPEED_S	 60
#define DEF_TRIES	 6
#define DEF_BACKOFF_MS	 500
#define DEF_MAX_DELAY_MS 30000
#define DEF_MAX_ANSWER	 (16u << 20)
#define MAX_HEADERS	 (64u << 10)

struct zt_http {
	CURL *curl;
	char *base;
	char *auth; /* "Authorization: Bearer T", or NULL */
	char *aws, *aws_id, *aws_secret; /* AWS SigV4 signing, or NULL */
	char *cainfo, *capath;		 /* the CA certificates, or NULL: libcurl's */
	struct zt_http_opts o;
	uint64_t rnd; /* xorshift state for the jitter */
};

/* What one attempt collects. */
struct attempt {
	struct zt_http *h;
	const struct zt_http_req *r;
	struct zt_http_resp *resp;
	size_t max_answer;
	long status;  /* of the answer whose headers came last */
	uint64_t off; /* of the upload, read so far */
	int err;      /* -errno of reading the upload or writing the answer */
};

/*
 * libcurl is loaded when the first client is made (dlopen), not linked:
 * linked, it and the ~30 libraries it needs (TLS, HTTP/2, LDAP, SSH,
 * Kerberos...) are loaded at the start of every zt command, which more
 * than doubled their start-up time (1.9 -> 4.7 ms, 'zt buildid').
 */
static struct {
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *c);
	void (*easy_reset)(CURL *c);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode e);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	time_t (*getdate)(const char *s, const time_t *unused);
	int ok;
	char why[160];
} cu;
static pthread_once_t cu_once = PTHREAD_ONCE_INIT;

static void cu_load(void)
{
	void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(cu.why, sizeof(cu.why),
			 "cannot load libcurl (libcurl.so.4): install the Debian package 'libcurl4'");
		return;
	}
#define CU(field, name)                                                                         \
	do {                                                                                    \
		*(void **)&cu.field = dlsym(h, name);                                           \
		if (!cu.field) {                                                                \
			snprintf(cu.why, sizeof(cu.why), "libcurl.so.4 lacks %s: too old", name); \
			return;                                                                 \
		}                                                                               \
	} while (0)
	CU(global_init, "curl_global_init");
	CU(global_cleanup, "curl_global_cleanup");
	CU(easy_init, "curl_easy_init");
	CU(easy_cleanup, "curl_easy_cleanup");
	CU(easy_reset, "curl_easy_reset");
	CU(easy_setopt, "curl_easy_setopt");
	CU(easy_perform, "curl_easy_perform");
	CU(easy_getinfo, "curl_easy_getinfo");
	CU(easy_strerror, "curl_easy_strerror");
	CU(slist_append, "curl_slist_append");
	CU(slist_free_all, "curl_slist_free_all");
	CU(getdate, "curl_getdate");
#undef CU
	cu.ok = 1; /* the handle stays open for the process's life */
}


/* libcurl's global state, set up by the first client and torn down by the
 * last: clients may be made and freed on several threads at once (zt
 * symbols upload's workers, the S3 store's pool) */
static int global_refs;
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;

static int header_value(const char *line, size_t n, const char *name, char *out, size_t outn);

const char *zt_http_base(const struct zt_http *h)
{
	return h->base;
}

int zt_http_retryable(long status)
{
	return status == 429 || (status >= 500 && status <= 599);
}

void zt_http_resp_init(struct zt_http_resp *r)
{
	memset(r, 0, sizeof(*r));
	zbuf_init(&r->body);
	zbuf_init(&r->headers);
	r->retry_after = -1;
	r->length = -1;
}

void zt_http_resp_release(struct zt_http_resp *r)
{
	zbuf_release(&r->body);
	zbuf_release(&r->headers);
}

static void resp_reset(struct zt_http_resp *r)
{
	zbuf_reset(&r->body);
	r->body.err = 0;
	zbuf_reset(&r->headers);
	r->headers.err = 0;
	r->status = 0;
	r->etag[0] = 0;
	r->retry_after = -1;
	r->length = -1;
	r->saved = 0;
}

int zt_http_header(const struct zt_http_resp *r, const char *name, char *out, size_t n)
{
	const char *p = (const char *)r->headers.data, *end = p + r->headers.len;

	if (r->headers.err)
		return -ENOENT;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);

		if (header_value(p, len, name, out, n))
			return 0;
		p += len;
	}
	return -ENOENT;
}

void zt_http_escape(struct zbuf *out, const char *s, const char *keep)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~' || (keep && strchr(keep, c))) {
			zbuf_put_u8(out, c);
		} else {
			zbuf_put_u8(out, '%');
			zbuf_put_u8(out, (uint8_t)hex[c >> 4]);
			zbuf_put_u8(out, (uint8_t)hex[c & 15]);
		}
	}
}

unsigned zt_http_backoff(unsigned base_ms, unsigned max_ms, int n, long retry_after, uint64_t rnd)
{
	uint64_t d = base_ms;
	int i;

	if (retry_after >= 0) {
		d = (uint64_t)retry_after * 1000;
		return d > max_ms ? max_ms : (unsigned)d;
	}
	for (i = 1; i < n && d < max_ms; i++)
		d *= 2;
	if (d > max_ms)
		d = max_ms;
	/* "equal jitter": never less than half the delay, so a crowd of
	 * pushers retrying together spreads out without hammering early */
	return (unsigned)(d / 2 + rnd % (d / 2 + 1));
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int zt_http_ca_env(const char **file, const char **dir, const char **var)
{
	const char *v = NULL;

	*file = *dir = NULL;
	/* the curl tool's order: CURL_CA_BUNDLE alone, else the two OpenSSL names */
	if ((*file = env("CURL_CA_BUNDLE"))) {
		v = "CURL_CA_BUNDLE";
	} else {
		if ((*dir = env("SSL_CERT_DIR")))
			v = "SSL_CERT_DIR";
		if ((*file = env("SSL_CERT_FILE")))
			v = "SSL_CERT_FILE";
	}
	if (var)
		*var = v;
	return v != NULL;
}

static uint64_t next_rnd(struct zt_http *h)
{
	uint64_t x = h->rnd;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return h->rnd = x;
}

int zt_http_new(const struct zt_http_opts *o, struct zt_http **out, char *msg, size_t msglen)
{
	struct zt_http *h;
	struct timespec ts;
	size_t n;

	*out = NULL;
	if (!o->base_url || !*o->base_url) {
		snprintf(msg, msglen, "no server given");
		return -EINVAL;
	}
	if (strncmp(o->base_url, "http://", 7) && strncmp(o->base_url, "https://", 8)) {
		snprintf(msg, msglen, "'%s' is not an http:// or https:// URL", o->base_url);
		return -EINVAL;
	}
	if (o->aws_sigv4 && o->token) {
		snprintf(msg, msglen, "a client signs its requests or sends a token, not both");
		return -EINVAL;
	}
	if (o->token && (strpbrk(o->token, "\r\n") || !*o->token)) {
		snprintf(msg, msglen, "the token is empty or holds a line break");
		return -EINVAL;
	}
	pthread_once(&cu_once, cu_load);
	if (!cu.ok) {
		snprintf(msg, msglen, "%s", cu.why);
		return -ENOSYS;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		goto nomem;
	pthread_mutex_lock(&global_lock);
	if (!global_refs++ && cu.global_init(CURL_GLOBAL_DEFAULT)) {
		global_refs--;
		pthread_mutex_unlock(&global_lock);
		free(h);
		goto nomem;
	}
	pthread_mutex_unlock(&global_lock);
	h->o = *o;
	h->o.base_url = NULL;
	h->o.token = NULL;
	if (!h->o.connect_timeout_ms)
		h->o.connect_timeout_ms = DEF_CONNECT_MS;
	if (!h->o.low_speed_s)
		h->o.low_speed_s = DEF_LOW_SPEED_S;
	if (h->o.tries <= 0)
		h->o.tries = DEF_TRIES;
	if (!h->o.backoff_ms)
		h->o.backoff_ms = DEF_BACKOFF_MS;
	if (!h->o.max_delay_ms)
		h->o.max_delay_ms = DEF_MAX_DELAY_MS;
	h->base = strdup(o->base_url);
	if (!h->base)
		goto nomem_h;
	n = strlen(h->base);
	while (n > 0 && h->base[n - 1] == '/')
		h->base[--n] = 0;
	if (o->token && asprintf(&h->auth, "Authorization: Bearer %s", o->token) < 0) {
		h->auth = NULL;
		goto nomem_h;
	}
	h->o.aws_sigv4 = h->o.aws_key_id = h->o.aws_secret = NULL;
	if (o->aws_sigv4 && (!(h->aws = strdup(o->aws_sigv4)) ||
			     !(h->aws_id = strdup(o->aws_key_id ? o->aws_key_id : "")) ||
			     !(h->aws_secret = strdup(o->aws_secret ? o->aws_secret : ""))))
		goto nomem_h;
	h->o.cainfo = h->o.capath = NULL;
	if (!o->cainfo && !o->capath) {
		const char *file, *dir;

		zt_http_ca_env(&file, &dir, NULL);
		if ((file && !(h->cainfo = strdup(file))) || (dir && !(h->capath = strdup(dir))))
			goto nomem_h;
	} else if ((o->cainfo && !(h->cainfo = strdup(o->cainfo))) ||
		   (o->capath && !(h->capath = strdup(o->capath)))) {
		goto nomem_h;
	}
	h->curl = cu.easy_init();
	if (!h->curl)
		goto nomem_h;
	clock_gettime(CLOCK_REALTIME, &ts);
	h->rnd = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40);
	if (!h->rnd)
		h->rnd = 0x9e3779b97f4a7c15ull;
	*out = h;
	return 0;
nomem_h:
	zt_http_free(h);
nomem:
	snprintf(msg, msglen, "out of memory");
	return -ENOMEM;
}

void zt_http_free(struct zt_http *h)
{
	if (!h)
		return;
	if (h->curl)
		cu.easy_cleanup(h->curl);
	if (h->auth) {
		explicit_bzero(h->auth, strlen(h->auth));
		free(h->auth);
	}
	if (h->aws_secret) {
		explicit_bzero(h->aws_secret, strlen(h->aws_secret));
		free(h->aws_secret);
	}
	free(h->aws_id);
	free(h->aws);
	free(h->cainfo);
	free(h->capath);
	free(h->base);
	free(h);
	pthread_mutex_lock(&global_lock);
	if (global_refs > 0 && !--global_refs)
		cu.global_cleanup();
	pthread_mutex_unlock(&global_lock);
}

/* A 2xx answer's bytes into the save file. */
static size_t save_body(struct attempt *a, const char *p, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k =
			pwrite(a->r->save->fd, p + done, n - done, (off_t)(a->resp->saved + done));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			a->err = k < 0 ? -errno : -EIO;
			return 0;
		}
		done += (size_t)k;
	}
	a->resp->saved += n;
	return n;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ctx)
{
	struct attempt *a = ctx;
	size_t n = size * nmemb, room;

	if (a->r->save && a->status >= 200 && a->status <= 299)
		return save_body(a, p, n);

	room = a->resp->body.len < a->max_answer ? a->max_answer - a->resp->body.len : 0;
	zbuf_put(&a->resp->body, p, n < room ? n : room);
	return a->resp->body.err ? 0 : n;
}

/* A header line "Name: value\r\n": value (trimmed) when the name matches. */
static int header_value(const char *line, size_t n, const char *name, char *out, size_t outn)
{
	size_t k = strlen(name), e;

	if (n <= k || strncasecmp(line, name, k) || line[k] != ':')
		return 0;
	line += k + 1;
	n -= k + 1;
	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	for (e = n; e && (line[e - 1] == '\r' || line[e - 1] == '\n' || line[e - 1] == ' '); e--)
		;
	snprintf(out, outn, "%.*s", (int)(e < outn - 1 ? e : outn - 1), line);
	return 1;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ctx)
{
	struct attempt *a = ctx;
	size_t n = size * nmemb;
	char v[130];

	if (n > 5 && !strncmp(p, "HTTP/", 5)) {
		const char *sp = memchr(p, ' ', n);

		/* a new answer (after a 100 Continue): forget the previous one's */
		a->resp->etag[0] = 0;
		a->resp->retry_after = -1;
		a->resp->length = -1;
		a->status = sp && sp + 4 <= p + n ? strtol(sp + 1, NULL, 10) : 0;
		zbuf_reset(&a->resp->headers);
		return n;
	}
	if (a->resp->headers.len + n <= MAX_HEADERS)
		zbuf_put(&a->resp->headers, p, n);
	if (header_value(p, n, "Content-Length", v, sizeof(v))) {
		char *end;
		long long len = strtoll(v, &end, 10);

		if (end != v && !*end && len >= 0)
			a->resp->length = len;
	} else if (header_value(p, n, "ETag", v, sizeof(v))) {
		snprintf(a->resp->etag, sizeof(a->resp->etag), "%s", v);
	} else if (header_value(p, n, "Retry-After", v, sizeof(v))) {
		char *end;
		long s = strtol(v, &end, 10);

		if (end != v && !*end && s >= 0) {
			a->resp->retry_after = s;
		} else {
			time_t t = cu.getdate(v, NULL), now = time(NULL);

			if (t != (time_t)-1)
				a->resp->retry_after = t > now ? (long)(t - now) : 0;
		}
	}
	return n;
}

static int on_xfer(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		   curl_off_t ulnow)
{
	struct zt_http *h = ctx;

	if (h->o.progress && ultotal > 0)
		h->o.progress(h->o.progress_ctx, (uint64_t)ulnow, (uint64_t)ultotal);
	return 0;
}

/* The upload's next bytes. */
static size_t on_read(char *p, size_t size, size_t nitems, void *ctx)
{
	struct attempt *a = ctx;
	const struct zt_http_file *f = a->r->upload;
	size_t n = size * nitems;
	ssize_t k;

	if (a->off >= f->len)
		return 0;
	if (n > f->len - a->off)
		n = (size_t)(f->len - a->off);
	do
		k = pread(f->fd, p, n, (off_t)a->off);
	while (k < 0 && errno == EINTR);
	if (k <= 0) {
		/* an error, or the file shrank under us: never send less than announced */
		a->err = k < 0 ? -errno : -EIO;
		return CURL_READFUNC_ABORT;
	}
	a->off += (uint64_t)k;
	return (size_t)k;
}

static int on_seek(void *ctx, curl_off_t offset, int origin)
{
	struct attempt *a = ctx;

	if (origin != SEEK_SET || offset < 0 || (uint64_t)offset > a->r->upload->len)
		return CURL_SEEKFUNC_CANTSEEK;
	a->off = (uint64_t)offset;
	return CURL_SEEKFUNC_OK;
}

/* A curl failure as an errno; *retry: worth another attempt. */
static int curl_errno(CURLcode c, int *retry)
{
	*retry = 1;
	switch (c) {
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return -EHOSTUNREACH;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_PARTIAL_FILE:
		return -ECONNRESET;
	case CURLE_OUT_OF_MEMORY:
		*retry = 0;
		return -ENOMEM;
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL:
		*retry = 0;
		return -EINVAL;
	case CURLE_PEER_FAILED_VERIFICATION: /* also an unknown CA, a wrong host name */
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
		*retry = 0;
		return -EKEYREJECTED;
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CRL_BADFILE:
		*retry = 0;
		return -ENOKEY;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
		*retry = 0;
		return -EPROTO;
	case CURLE_WRITE_ERROR: /* our own write callback refused: out of memory */
		*retry = 0;
		return -ENOMEM;
	default:
		return -EIO;
	}
}

static int setup(struct zt_http *h, const struct zt_http_req *r, const char *url,
		 struct curl_slist *hdrs, struct attempt *a)
{
	CURL *c = h->curl;
	CURLcode e = CURLE_OK;

	cu.easy_reset(c);
#define SET(opt, val)                                      \
	do {                                               \
		if (e == CURLE_OK)                         \
			e = cu.easy_setopt(c, opt, val); \
	} while (0)
	SET(CURLOPT_URL, url);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_CONNECTTIMEOUT_MS, h->o.connect_timeout_ms);
	if (h->o.timeout_ms)
		SET(CURLOPT_TIMEOUT_MS, h->o.timeout_ms);
	SET(CURLOPT_LOW_SPEED_LIMIT, 1L);
	SET(CURLOPT_LOW_SPEED_TIME, h->o.low_speed_s);
	SET(CURLOPT_USERAGENT, "zt-push/1");
	SET(CURLOPT_HTTPHEADER, hdrs);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, a);
	SET(CURLOPT_HEADERFUNCTION, on_header);
	SET(CURLOPT_HEADERDATA, a);
	if (h->o.progress) {
		SET(CURLOPT_NOPROGRESS, 0L);
		SET(CURLOPT_XFERINFOFUNCTION, on_xfer);
		SET(CURLOPT_XFERINFODATA, h);
	}
	if (h->cainfo)
		SET(CURLOPT_CAINFO, h->cainfo);
	if (h->capath)
		SET(CURLOPT_CAPATH, h->capath);
	if (h->aws) {
		SET(CURLOPT_AWS_SIGV4, h->aws);
		SET(CURLOPT_USERNAME, h->aws_id);
		SET(CURLOPT_PASSWORD, h->aws_secret);
	}
	if (!strcmp(r->method, "HEAD")) {
		SET(CURLOPT_NOBODY, 1L);
	} else if (r->upload) {
		SET(CURLOPT_UPLOAD, 1L);
		SET(CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->upload->len);
		SET(CURLOPT_READFUNCTION, on_read);
		SET(CURLOPT_READDATA, a);
		SET(CURLOPT_SEEKFUNCTION, on_seek);
		SET(CURLOPT_SEEKDATA, a);
		if (strcmp(r->method, "PUT"))
			SET(CURLOPT_CUSTOMREQUEST, r->method);
	} else if (strcmp(r->method, "GET")) {
		if (r->body || !strcmp(r->method, "POST") || !strcmp(r->method, "PUT")) {
			SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len);
			SET(CURLOPT_POSTFIELDS, r->body ? (const char *)r->body : "");
		}
		if (strcmp(r->method, "POST"))
			SET(CURLOPT_CUSTOMREQUEST, r->method);
	}
#undef SET
	return e == CURLE_OK ? 0 : -ENOMEM;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int zt_http_request(struct zt_http *h, const struct zt_http_req *r, struct zt_http_resp *resp,
		    char *msg, size_t msglen)
{
	struct curl_slist *hdrs = NULL, *t;
	struct attempt a = {h, r, resp, r->max_answer ? r->max_answer : DEF_MAX_ANSWER};
	char errbuf[CURL_ERROR_SIZE], why[CURL_ERROR_SIZE + 64];
	char *url = NULL;
	int ret = 0, i;

	msg[0] = 0;
	resp_reset(resp);
	resp->tries = 0;
	if (asprintf(&url, "%s%s", h->base, r->path) < 0) {
		url = NULL;
		ret = -ENOMEM;
		goto out;
	}
	/* no "Expect: 100-continue" wait on servers that do not answer it;
	 * the server rejects a bad token from the headers anyway. Not on a
	 * signed request: libcurl would sign the empty header it never sends */
	if (!h->aws) {
		if (!(t = cu.slist_append(hdrs, "Expect:")))
			goto nomem;
		hdrs = t;
	}
	for (i = 0; r->headers && r->headers[i]; i++) {
		if (!(t = cu.slist_append(hdrs, r->headers[i])))
			goto nomem;
		hdrs = t;
	}
	if (h->auth) {
		if (!(t = cu.slist_append(hdrs, h->auth)))
			goto nomem;
		hdrs = t;
	}
	for (;;) {
		CURLcode c;
		unsigned delay;
		int retry = 0;

		resp_reset(resp);
		resp->tries++;
		errbuf[0] = 0;
		a.status = 0;
		a.off = 0;
		a.err = 0;
		if (r->save && ftruncate(r->save->fd, 0)) {
			ret = -errno;
			snprintf(msg, msglen, "cannot truncate the answer's file: %s",
				 strerror(errno));
			break;
		}
		if (setup(h, r, url, hdrs, &a) ||
		    cu.easy_setopt(h->curl, CURLOPT_ERRORBUFFER, errbuf) != CURLE_OK)
			goto nomem;
		c = cu.easy_perform(h->curl);
		if (c == CURLE_OK) {
			cu.easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &resp->status);
			ret = 0;
			if (!zt_http_retryable(resp->status))
				break;
			snprintf(why, sizeof(why), "the server answered %ld", resp->status);
		} else if (a.err) {
			/* our own file failed: not the network's fault */
			ret = a.err;
			snprintf(msg, msglen, "cannot %s: %s",
				 c == CURLE_WRITE_ERROR ? "write the answer" : "read the body",
				 strerror(-a.err));
			break;
		} else {
			ret = curl_errno(c, &retry);
			if (ret == -ETIMEDOUT && h->o.no_retry_timeout)
				retry = 0;
			snprintf(why, sizeof(why), "%s",
				 errbuf[0] ? errbuf : cu.easy_strerror(c));
			snprintf(msg, msglen, "%s", why);
			if (!retry)
				break;
		}
		if (resp->tries >= h->o.tries)
			break;
		delay = zt_http_backoff(h->o.backoff_ms, h->o.max_delay_ms, resp->tries,
					c == CURLE_OK ? resp->retry_after : -1, next_rnd(h));
		if (h->o.on_retry)
			h->o.on_retry(h->o.retry_ctx, resp->tries, delay, why);
		sleep_ms(delay);
	}
	if (ret == 0)
		msg[0] = 0;
	goto out;
nomem:
	ret = -ENOMEM;
	snprintf(msg, msglen, "out of memory");
out:
	/* the header list holds a copy of the token line (or the session token's) */
	for (t = hdrs; t; t = t->next)
		if (!strncasecmp(t->data, "Authorization:", 14) ||
		    !strncasecmp(t->data, "x-amz-security-token:", 21))
			explicit_bzero(t->data, strlen(t->data));
	cu.slist_free_all(hdrs);
	free(url);
	if (!ret && resp->body.err) {
		snprintf(msg, msglen, "out of memory");
		ret = -ENOMEM;
	}
	return ret;
}
