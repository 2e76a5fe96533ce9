/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * server/httpd over a fake store (defined here: every function of
 * server/store.h, so the real store.o is never linked in): tokens and
 * scopes, early rejection, uploads with content encodings and limits,
 * errors, metrics, the page, access logs, a slow client, a clean stop.
 * Requests are real HTTP on 127.0.0.1 with libcurl.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <zlib.h>
#include <zstd.h>

#include "server/httpd.h"
#include "server/route.h"

/* ---- the fake store ---------------------------------------------------------- */

struct zs_store {
	char tmp[256];
	pthread_mutex_t lock;
	char ids[16][65];
	size_t nr;
	unsigned char last[1 << 16];
	size_t last_len;
	char syms[8][41];
	int symq[8]; /* their quality */
	size_t nr_syms;
};

static struct zs_store fake = {.lock = PTHREAD_MUTEX_INITIALIZER};

int zs_store_open(const char *dir, const struct zs_store_opts *o, struct zs_store **out, char *msg,
		  size_t msglen)
{
	return -ENOSYS;
}
void zs_store_close(struct zs_store *s)
{
}
int zs_token_create(struct zs_store *s, unsigned scopes, const char *name, char out[65])
{
	return -ENOSYS;
}
unsigned zs_token_check(struct zs_store *s, const char *token, size_t len)
{
	static const struct {
		const char *t;
		unsigned scopes;
	} toks[] = {{"readtok", ZS_SCOPE_READ},
		    {"pushtok", ZS_SCOPE_PUSH},
		    {"symtok", ZS_SCOPE_SYMBOLS},
		    {"admintok", ZS_SCOPE_ADMIN}};

	for (size_t i = 0; i < 4; i++)
		if (strlen(toks[i].t) == len && !memcmp(toks[i].t, token, len))
			return toks[i].scopes;
	return 0;
}
unsigned zs_token_check_in(struct zs_store *s, const char *token, size_t len,
			   char project[ZS_PROJECT_MAX + 1])
{
	/* "projtok": a read token of project "team-a" */
	if (len == 7 && !memcmp(token, "projtok", 7)) {
		strcpy(project, "team-a");
		return ZS_SCOPE_READ;
	}
	*project = 0;
	return zs_token_check(s, token, len);
}
int zs_project_known(struct zs_store *s, const char *name)
{
	return !strcmp(name, "default") || !strcmp(name, "team-a");
}
int zs_profile_in_project(struct zs_store *s, const char *id, const char *project)
{
	return -ENOENT;
}
int zs_profile_projects(struct zs_store *s, const char *id)
{
	return 1;
}
int zs_projects_json(struct zs_store *s, const char *only, struct zbuf *json)
{
	zbuf_putf(json, "{\"projects\":[{\"name\":\"%s\"}]}", only ? only : "default");
	return 0;
}
size_t zs_token_count(struct zs_store *s)
{
	return 4;
}
int zs_token_list(struct zs_store *s, zs_token_fn *cb, void *ctx)
{
	return 0;
}
int zs_token_revoke(struct zs_store *s, const char *name_or_id, zs_token_fn *cb, void *ctx)
{
	return -ENOENT;
}
const char *zs_store_error(void)
{
	return "";
}

const char *zs_store_tmpdir(const struct zs_store *s)
{
	return s->tmp;
}

int zs_ingest_file(struct zs_store *s, const char *tmp_path, const struct zs_label *labels,
		   size_t nr_labels, struct zs_ingest_result *r, char *msg, size_t msglen)
{
	FILE *f = fopen(tmp_path, "rb");
	unsigned char buf[1 << 16];
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	uint64_t hsh = 1469598103934665603ull;
	int rc = 0;

	if (f)
		fclose(f);
	unlink(tmp_path);
	pthread_mutex_lock(&s->lock);
	memcpy(s->last, buf, n);
	s->last_len = n;
	if (n >= 5 && !memcmp(buf, "ZTBAD", 5)) {
		snprintf(msg, msglen, "truncated zt.data: no index chunk");
		rc = -EBADMSG;
	} else if (n < 4 || memcmp(buf, "ZTOK", 4)) {
		rc = -EMEDIUMTYPE;
	} else if (nr_labels && !strcmp(labels[0].key, "disk")) {
		rc = -ENOSPC;
	} else {
		for (size_t i = 0; i < n; i++)
			hsh = (hsh ^ buf[i]) * 1099511628211ull;
		snprintf(r->id, sizeof(r->id), "%016llx%016llx%016llx%016llx",
			 (unsigned long long)hsh, 0ull, 0ull, (unsigned long long)n);
		r->stored = 1;
		r->samples = n;
		for (size_t i = 0; i < s->nr; i++)
			if (!strcmp(s->ids[i], r->id))
				r->stored = 0;
		if (r->stored && s->nr < 16)
			snprintf(s->ids[s->nr++], 65, "%s", r->id);
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}
int zs_ingest_mem(struct zs_store *s, const void *body, size_t len, const struct zs_label *labels,
		  size_t nr_labels, struct zs_ingest_result *r, char *msg, size_t msglen)
{
	return -ENOSYS;
}
int zs_profile_delete(struct zs_store *s, const char *id)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->ids[i], id)) {
			memmove(s->ids[i], s->ids[s->nr - 1], 65);
			s->nr--;
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&s->lock);
	return rc;
}
/* The fake's symbols: the index of id's, or -1. */
static int sym_index(struct zs_store *s, const char *id, size_t n)
{
	for (size_t i = 0; i < s->nr_syms; i++)
		if (strlen(s->syms[i]) == n && !strncmp(s->syms[i], id, n))
			return (int)i;
	return -1;
}
/* the text back, each line an id; with want, those the fake has below it
 * as "ID QUALITY", those it has as good left out */
int zs_symbols_below(struct zs_store *s, const char *text, size_t len, int want, struct zbuf *out,
		     char *msg, size_t msglen)
{
	static const char *const qn[] = {"none", "basic", "full"};
	size_t off = 0;

	if (len && text[0] == 'x') {
		snprintf(msg, msglen, "line 1: not a hex id");
		return -EINVAL;
	}
	while (off < len) {
		const char *l = text + off, *nl = memchr(l, '\n', len - off);
		size_t n = nl ? (size_t)(nl - l) : len - off;
		int i = sym_index(s, l, n);

		off += n + 1;
		if (i >= 0 && s->symq[i] >= want)
			continue;
		zbuf_put(out, l, n);
		if (i >= 0) {
			zbuf_put_u8(out, ' ');
			zbuf_put(out, qn[s->symq[i]], strlen(qn[s->symq[i]]));
		}
		zbuf_put_u8(out, '\n');
	}
	return 0;
}
int zs_symbols_missing(struct zs_store *s, const char *text, size_t len, struct zbuf *out,
		       char *msg, size_t msglen)
{
	return zs_symbols_below(s, text, len, -1, out, msg, msglen);
}
int zs_symbol_stat(struct zs_store *s, const char *id, char etag[65])
{
	for (size_t i = 0; i < s->nr_syms; i++)
		if (!strcmp(s->syms[i], id)) {
			memset(etag, 'e', 64);
			etag[64] = '\0';
			return 0;
		}
	return -ENOENT;
}
int zs_symbol_get(struct zs_store *s, const char *id, void **data, size_t *len)
{
	char e[65];

	if (zs_symbol_stat(s, id, e))
		return -ENOENT;
	*data = strdup("GSYM");
	*len = 4;
	return 0;
}
int zs_symbol_meta_parse_load(const char *str, struct zs_symbol_meta *m)
{
	return strcmp(str, "1000:401000:2000") ? -EINVAL : 0;
}
/* a quality not said is full (what the fake's "GSYM" holds); only_better
 * keeps what is as good */
int zs_symbol_put_file(struct zs_store *s, const char *id, const char *tmp_path,
		       const struct zs_symbol_meta *m, int only_better, struct zs_symbol_put *r,
		       char *msg, size_t msglen)
{
	int q = m->quality < 0 ? 2 : m->quality, i = sym_index(s, id, strlen(id));

	unlink(tmp_path);
	r->quality = q;
	r->had = i >= 0 ? s->symq[i] : -1;
	r->created = i < 0;
	if (i >= 0 && only_better && s->symq[i] >= q) {
		snprintf(msg, msglen, "the store keeps the %s symbols it has for %s",
			 s->symq[i] == 2 ? "full" : "worse", id);
		return -EEXIST;
	}
	if (i < 0) {
		i = (int)s->nr_syms++;
		snprintf(s->syms[i], 41, "%s", id);
	}
	s->symq[i] = q;
	return 0;
}
/* symbol files: the GSYM as above ("GSYM" in a file, streamed from its
 * fd); a debuginfo is an "ELF" body; nothing else is stored */
int zs_symfile_open(struct zs_store *s, const char *id, enum zs_kind kind, const char *src,
		    struct zs_symfile *f)
{
	FILE *t;

	(void)src;
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (kind != ZS_KIND_GSYM || zs_symbol_stat(s, id, f->etag))
		return -ENOENT;
	t = tmpfile();
	if (!t)
		return -EIO;
	fputs("GSYM", t);
	fflush(t);
	f->fd = dup(fileno(t));
	fclose(t);
	f->size = 4;
	f->meta.quality = s->symq[sym_index(s, id, strlen(id))];
	f->meta.nr_segs = 1;
	f->meta.segs[0].off = 0x1000;
	f->meta.segs[0].vaddr = 0x401000;
	f->meta.segs[0].size = 0x2000;
	snprintf(f->desc, sizeof(f->desc), "a%%20b");
	f->meta.description = f->desc;
	return 0;
}
void zs_symfile_close(struct zs_symfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}
unsigned zs_symfile_has(struct zs_store *s, const char *id)
{
	char e[65];

	return zs_symbol_stat(s, id, e) ? 0 : 1u << ZS_KIND_GSYM;
}
int zs_symfile_put(struct zs_store *s, const char *id, enum zs_kind kind, const char *src,
		   const char *tmp_path, int only_new, int *created, char *msg, size_t msglen)
{
	char b[8] = "";
	FILE *f = fopen(tmp_path, "r");

	if (f) {
		if (!fgets(b, sizeof(b), f))
			b[0] = '\0';
		fclose(f);
	}
	unlink(tmp_path);
	if (strcmp(b, "ELF")) {
		snprintf(msg, msglen, "not an ELF file");
		return -EBADMSG;
	}
	*created = 1;
	return 0;
}
/* admission: "dead" has nothing a debug file or source may belong to;
 * "beef" takes sources of at most 2 bytes */
int zs_symfile_admit(struct zs_store *s, const char *id, enum zs_kind kind, const char *src,
		     uint64_t size, uint64_t *limit, const char **limit_opt, char *msg,
		     size_t msglen)
{
	*limit = UINT64_MAX;
	*limit_opt = "--max-body";
	if (!strcmp(id, "dead") && (kind == ZS_KIND_DEBUGINFO || kind == ZS_KIND_SOURCE)) {
		snprintf(msg, msglen, "upload its symbols or executable first");
		return -ENOENT;
	}
	if (!strcmp(id, "beef") && kind == ZS_KIND_SOURCE) {
		*limit = 2;
		*limit_opt = "--max-source-size";
		if (size > 2) {
			snprintf(msg, msglen,
				 "a source file of %llu bytes (zt serve --max-source-size)",
				 (unsigned long long)size);
			return -EFBIG;
		}
	}
	return 0;
}
int zs_symfile_upstream(struct zs_store *s, const char *id, enum zs_kind kind, const char *src)
{
	return -ENOSYS;
}
int zs_list_json(struct zs_store *s, const struct zs_selection *sel, struct zbuf *out)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "{\"profiles\":[],\"n\":%zu,\"host\":\"%s\"}", s->nr,
			 sel->host ? sel->host : "");

	zbuf_put(out, b, (size_t)n);
	return 0;
}
int zs_profile_json(struct zs_store *s, const char *id, struct zbuf *out)
{
	return -ENOENT;
}
int zs_query_top(struct zs_store *s, const struct zs_selection *sel, size_t limit,
		 enum zs_sort sort, struct zbuf *json)
{
	zbuf_put(json, "{\"functions\":[]}", 16);
	return 0;
}
int zs_query_folded(struct zs_store *s, const struct zs_selection *sel, struct zbuf *text)
{
	zbuf_put(text, "a;b 1\n", 6);
	return 0;
}
int zs_query_pprof(struct zs_store *s, const struct zs_selection *sel, struct zbuf *gz)
{
	return -EIO;
}
int zs_query_timeline(struct zs_store *s, const struct zs_selection *sel, int64_t step,
		      struct zbuf *json)
{
	zbuf_putf(json, "{\"step\":%lld,\"matchers\":%zu}", (long long)step, sel->match.n);
	return 0;
}
int zs_query_source(struct zs_store *s, const struct zs_selection *sel, const char *function,
		    struct zbuf *json)
{
	return -ENOENT;
}
int zs_query_label_names(struct zs_store *s, const struct zs_selection *sel, size_t n,
			 struct zbuf *json)
{
	zbuf_putf(json, "{\"status\":\"success\",\"data\":[\"n%zu\"]}", n);
	return 0;
}
int zs_query_label_values(struct zs_store *s, const struct zs_selection *sel, size_t n,
			  const char *name, struct zbuf *json)
{
	if (!strcmp(name, "multi"))
		return -EDOM;
	zbuf_putf(json, "{\"status\":\"success\",\"data\":[\"%s\"]}", name);
	return 0;
}
int zs_query_flame(struct zs_store *s, const struct zs_selection *sel,
		   const struct zs_flame_opts *o, struct zbuf *svg)
{
	zbuf_put(svg, "<svg/>", 6);
	return 0;
}
int zs_query_diff(struct zs_store *s, const struct zs_selection *a, const struct zs_selection *b,
		  const struct zs_flame_opts *o, struct zbuf *svg)
{
	zbuf_put(svg, "<svg diff/>", 11);
	return 0;
}
void zs_store_stats(struct zs_store *s, struct zs_store_stats *st)
{
	st->profiles = s->nr;
	st->samples = 42;
}

/* ---- the client ------------------------------------------------------------------ */

static struct zh *h;
static char base[64];
static char logs[64][256];
static int nr_logs;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_access(void *ctx, const struct zh_access *a)
{
	pthread_mutex_lock(&log_lock);
	if (nr_logs < 64)
		snprintf(logs[nr_logs++], 256, "%s %s %u %s", a->method, a->path, a->code, a->end);
	pthread_mutex_unlock(&log_lock);
}

struct resp {
	long code;
	char body[8192];
	size_t len;
	char hdrs[4096];
	size_t hlen;
};

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
	struct resp *r = ud;
	size_t k = sz * n, c = k < sizeof(r->body) - 1 - r->len ? k : sizeof(r->body) - 1 - r->len;

	memcpy(r->body + r->len, p, c);
	r->len += c;
	r->body[r->len] = '\0';
	return k;
}

static size_t on_hdr(char *p, size_t sz, size_t n, void *ud)
{
	struct resp *r = ud;
	size_t k = sz * n,
	       c = k < sizeof(r->hdrs) - 1 - r->hlen ? k : sizeof(r->hdrs) - 1 - r->hlen;

	memcpy(r->hdrs + r->hlen, p, c);
	r->hlen += c;
	r->hdrs[r->hlen] = '\0';
	return k;
}

struct upload {
	const unsigned char *p;
	size_t len, pos;
};

static size_t on_read(char *buf, size_t sz, size_t n, void *ud)
{
	struct upload *u = ud;
	size_t k = sz * n < u->len - u->pos ? sz * n : u->len - u->pos;

	memcpy(buf, u->p + u->pos, k);
	u->pos += k;
	return k;
}

/* method, path, token (NULL: none), body (NULL: none), extra headers; chunked when chunked */
static long req(struct resp *r, const char *method, const char *path, const char *tok,
		const void *body, size_t len, int chunked, const char *h1, const char *h2)
{
	CURL *c = curl_easy_init();
	struct curl_slist *hl = NULL;
	struct upload u = {body, len, 0};
	char url[70000], auth[128];

	memset(r, 0, sizeof(*r));
	snprintf(url, sizeof(url), "%s%s", base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (!strcmp(method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_hdr);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	if (tok) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", tok);
		hl = curl_slist_append(hl, auth);
	}
	if (h1)
		hl = curl_slist_append(hl, h1);
	if (h2)
		hl = curl_slist_append(hl, h2);
	if (body) {
		curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(c, CURLOPT_READDATA, &u);
		if (chunked)
			hl = curl_slist_append(hl, "Transfer-Encoding: chunked");
		else
			curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
		hl = curl_slist_append(hl, "Expect:");
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->code);
	else
		r->code = -1;
	curl_slist_free_all(hl);
	curl_easy_cleanup(c);
	return r->code;
}

static int tmp_files(void)
{
	DIR *d = opendir(fake.tmp);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

static int setup(void **state)
{
	struct zh_opts o = {0};
	char msg[256];

	snprintf(fake.tmp, sizeof(fake.tmp), "/tmp/zt-httpd-XXXXXX");
	if (!mkdtemp(fake.tmp))
		return -1;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	o.store = &fake;
	o.listen = "127.0.0.1:0";
	o.max_body = 1 << 20;
	o.timeout_s = 2;
	o.access_log = on_access;
	if (zh_start(&o, &h, msg, sizeof(msg))) {
		fprintf(stderr, "zh_start: %s\n", msg);
		return -1;
	}
	snprintf(base, sizeof(base), "http://127.0.0.1:%u", zh_port(h));
	return 0;
}

static int teardown(void **state)
{
	zh_stop(h, 1000);
	rmdir(fake.tmp);
	curl_global_cleanup();
	return 0;
}

static void test_open_routes(void **state)
{
	struct resp r;

	assert_int_equal(req(&r, "GET", "/healthz", NULL, NULL, 0, 0, NULL, NULL), 200);
	assert_string_equal(r.body, "ok\n");
	assert_int_equal(req(&r, "GET", "/", NULL, NULL, 0, 0, NULL, NULL), 200);
	assert_non_null(strstr(r.body, "<title>zt serve</title>"));
	assert_non_null(strstr(r.hdrs, "Content-Security-Policy: default-src 'none'"));
	assert_int_equal(req(&r, "GET", "/nope", NULL, NULL, 0, 0, NULL, NULL), 404);
	assert_non_null(strstr(r.body, "{\"error\":\""));
	assert_int_equal(req(&r, "PATCH", "/api/v1/top", NULL, NULL, 0, 0, NULL, NULL), 405);
	assert_non_null(strstr(r.hdrs, "Allow: GET, HEAD"));
	assert_int_equal(
		req(&r, "GET", "/api/v1/profiles/..%2f..%2fetc", "readtok", NULL, 0, 0, NULL, NULL),
		400);
}

static void test_auth(void **state)
{
	struct resp r;

	assert_int_equal(req(&r, "GET", "/api/v1/profiles", NULL, NULL, 0, 0, NULL, NULL), 401);
	assert_non_null(strstr(r.hdrs, "WWW-Authenticate: Bearer"));
	assert_int_equal(req(&r, "GET", "/api/v1/profiles", "nope", NULL, 0, 0, NULL, NULL), 401);
	assert_int_equal(req(&r, "GET", "/api/v1/profiles", "pushtok", NULL, 0, 0, NULL, NULL),
			 403);
	assert_int_equal(
		req(&r, "GET", "/api/v1/profiles?host=a%20b", "readtok", NULL, 0, 0, NULL, NULL),
		200);
	assert_non_null(strstr(r.body, "\"host\":\"a b\""));
	assert_int_equal(req(&r, "GET", "/api/v1/profiles", "admintok", NULL, 0, 0, NULL, NULL),
			 200);
	assert_int_equal(req(&r, "GET", "/metrics", NULL, NULL, 0, 0, NULL, NULL), 401);
	/* an upload without a token: refused before its body, nothing kept */
	{
		static unsigned char big[300000];

		memcpy(big, "ZTOK", 4);
		assert_int_equal(
			req(&r, "POST", "/api/v1/profiles", NULL, big, sizeof(big), 0, NULL, NULL),
			401);
		assert_int_equal(req(&r, "POST", "/api/v1/profiles", "readtok", big, sizeof(big), 0,
				     NULL, NULL),
				 403);
		assert_int_equal(tmp_files(), 0);
		assert_int_equal(fake.nr, 0);
	}
	assert_int_equal(req(&r, "DELETE",
			     "/api/v1/profiles/"
			     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
			     "pushtok", NULL, 0, 0, NULL, NULL),
			 403);
}

static void test_ingest(void **state)
{
	static const char body[] = "ZTOK the recording";
	struct resp r;
	char path[128];

	assert_int_equal(req(&r, "POST", "/api/v1/profiles?label=ci=1", "pushtok", body,
			     sizeof(body), 0, NULL, NULL),
			 201);
	assert_non_null(strstr(r.body, "\"stored\":true"));
	assert_int_equal(
		req(&r, "POST", "/api/v1/profiles", "pushtok", body, sizeof(body), 1, NULL, NULL),
		200);
	assert_non_null(strstr(r.body, "\"stored\":false"));
	assert_int_equal(fake.nr, 1);
	assert_int_equal(req(&r, "POST", "/api/v1/profiles", "pushtok", "ZTBAD", 5, 0, NULL, NULL),
			 400);
	assert_non_null(strstr(r.body, "no index chunk"));
	assert_int_equal(req(&r, "POST", "/api/v1/profiles", "pushtok",
			     "\x7f"
			     "ELF",
			     4, 0, NULL, NULL),
			 415);
	assert_int_equal(req(&r, "POST", "/api/v1/profiles?label=disk=1", "pushtok", body,
			     sizeof(body), 0, NULL, NULL),
			 507);
	assert_int_equal(req(&r, "POST", "/api/v1/profiles?label=a%2Fb=1", "pushtok", body,
			     sizeof(body), 0, NULL, NULL),
			 400);
	assert_int_equal(req(&r, "POST", "/api/v1/profiles", "pushtok", body, sizeof(body), 0,
			     "Content-Encoding: br", NULL),
			 415);
	assert_int_equal(tmp_files(), 0);
	snprintf(path, sizeof(path), "/api/v1/profiles/%s", fake.ids[0]);
	assert_int_equal(req(&r, "DELETE", path, "admintok", NULL, 0, 0, NULL, NULL), 204);
	assert_int_equal(req(&r, "DELETE", path, "admintok", NULL, 0, 0, NULL, NULL), 404);
}

static void test_encodings(void **state)
{
	static unsigned char plain[200000], comp[300000];
	struct resp r;
	size_t clen;
	z_stream zs;

	memcpy(plain, "ZTOK", 4);
	for (size_t i = 4; i < sizeof(plain); i++)
		plain[i] = (unsigned char)(i * 7 / 13);
	/* zstd */
	clen = ZSTD_compress(comp, sizeof(comp), plain, 60000, 3);
	assert_false(ZSTD_isError(clen));
	assert_int_equal(req(&r, "POST", "/api/v1/profiles", "pushtok", comp, clen, 0,
			     "Content-Encoding: zstd", NULL),
			 201);
	assert_int_equal(fake.last_len, 60000);
	assert_memory_equal(fake.last, plain, 60000);
	assert_int_equal(req(&r, "POST", "/api/v1/profiles", "pushtok", comp, clen - 10, 0,
			     "Content-Encoding: zstd", NULL),
			 400);
	assert_non_null(strstr(r.body, "truncated zstd"));
	/* gzip */
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = plain;
	zs.avail_in = 50000;
	zs.next_out = comp;
	zs.avail_out = sizeof(comp);
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	clen = zs.total_out;
	deflateEnd(&zs);
	assert_int_equal(req(&r, "POST", "/api/v1/profiles", "pushtok", comp, clen, 1,
			     "Content-Encoding: gzip", NULL),
			 201);
	assert_int_equal(fake.last_len, 50000);
	assert_memory_equal(fake.last, plain, 50000);
	comp[clen / 2] ^= 0xff;
	assert_int_equal(req(&r, "POST", "/api/v1/profiles", "pushtok", comp, clen, 0,
			     "Content-Encoding: gzip", NULL),
			 400);
	/* a zstd bomb: decodes past --max-body (1 MiB here) */
	{
		static unsigned char zeros[3 << 20];

		clen = ZSTD_compress(comp, sizeof(comp), zeros, sizeof(zeros), 3);
		assert_false(ZSTD_isError(clen));
		assert_int_equal(req(&r, "POST", "/api/v1/profiles", "pushtok", comp, clen, 0,
				     "Content-Encoding: zstd", NULL),
				 413);
	}
	assert_int_equal(tmp_files(), 0);
}

static void test_limits(void **state)
{
	static unsigned char big[(1 << 20) + 10];
	struct resp r;

	memcpy(big, "ZTOK", 4);
	/* declared too large: 413 before the body */
	assert_int_equal(
		req(&r, "POST", "/api/v1/profiles", "pushtok", big, sizeof(big), 0, NULL, NULL),
		413);
	/* chunked, no length: the connection is closed when it passes the
	 * limit (libmicrohttpd 0.9 cannot answer in the middle of a body) */
	assert_int_equal(
		req(&r, "POST", "/api/v1/profiles", "pushtok", big, sizeof(big), 1, NULL, NULL),
		-1);
	assert_int_equal(tmp_files(), 0);
	/* a long query string */
	{
		static char path[ZR_MAX_TARGET + 100];
		size_t n = (size_t)snprintf(path, sizeof(path), "/api/v1/profiles?host=");

		memset(path + n, 'a', sizeof(path) - n - 1);
		assert_true(req(&r, "GET", path, "readtok", NULL, 0, 0, NULL, NULL) >= 400);
	}
}

static void test_symbols(void **state)
{
	struct resp r;
	const char *p = "/api/v1/symbols/0123456789abcdef0123456789abcdef01234567";

	assert_int_equal(
		req(&r, "POST", "/api/v1/symbols/missing", "pushtok", "ab\ncd\n", 6, 0, NULL, NULL),
		200);
	assert_string_equal(r.body, "ab\ncd\n");
	assert_int_equal(
		req(&r, "POST", "/api/v1/symbols/missing", "symtok", "xy\n", 3, 0, NULL, NULL),
		400);
	assert_int_equal(
		req(&r, "POST", "/api/v1/symbols/missing", "readtok", "ab\n", 3, 0, NULL, NULL),
		403);
	assert_int_equal(req(&r, "PUT", p, "pushtok", "GSYM", 4, 0, NULL, NULL), 403);
	assert_int_equal(req(&r, "PUT", p, "pushtok", "GSYM", 4, 0, "If-None-Match: *",
			     "X-ZT-Symbol-Quality: bad"),
			 400);
	assert_int_equal(req(&r, "PUT", p, "pushtok", "GSYM", 4, 0, "If-None-Match: *",
			     "X-ZT-Symbol-Load: zz"),
			 400);
	assert_int_equal(req(&r, "PUT", p, "pushtok", "GSYM", 4, 0, "If-None-Match: *",
			     "X-ZT-Symbol-Load: 1000:401000:2000"),
			 201);
	assert_int_equal(req(&r, "PUT", p, "pushtok", "GSYM", 4, 0, "If-None-Match: *", NULL), 412);
	assert_non_null(strstr(r.hdrs, "X-ZT-Symbol-Quality: full"));
	assert_non_null(strstr(r.body, "keeps the full symbols"));
	assert_int_equal(req(&r, "PUT", p, "symtok", "GSYM", 4, 0, NULL, NULL), 200);
	assert_non_null(
		strstr(r.body, "\"created\":false,\"quality\":\"full\",\"replaced\":\"full\""));
	assert_int_equal(req(&r, "HEAD", p, "pushtok", NULL, 0, 0, NULL, NULL), 200);
	assert_non_null(strstr(r.hdrs, "ETag: \"eeee"));
	assert_non_null(strstr(r.hdrs, "X-ZT-Symbol-Quality: full"));
	assert_non_null(strstr(r.hdrs, "X-ZT-Symbol-Load: 1000:401000:2000"));
	assert_non_null(strstr(r.hdrs, "X-ZT-Description: a%20b"));
	assert_non_null(strstr(r.hdrs, "X-ZT-Has: gsym\r"));
	assert_non_null(strstr(r.hdrs, "Content-Length: 4"));
	assert_int_equal(req(&r, "GET", p, "readtok", NULL, 0, 0, NULL, NULL), 200);
	assert_string_equal(r.body, "GSYM");
	assert_int_equal(req(&r, "GET", p, "readtok", NULL, 0, 0,
			     "If-None-Match: \"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\"",
			     NULL),
			 304);
	assert_int_equal(req(&r, "GET", p, "readtok", NULL, 0, 0, "If-None-Match: \"ab\", W/\"cd\"",
			     NULL),
			 200);
	assert_int_equal(req(&r, "PUT", p, "symtok", "GSYM", 4, 0, "X-ZT-Description: %0a", NULL),
			 400);
	assert_int_equal(req(&r, "PUT", p, "symtok", "GSYM", 4, 0, "X-ZT-Symbol-File: a%2fb", NULL),
			 400);
	/* the better upload wins, a worse or equal one is refused (412 with the
	 * quality kept), a forced one replaces whatever is there */
	{
		const char *id2 = "00112233445566778899aabbccddeeff00112233";
		const char *p2 = "/api/v1/symbols/00112233445566778899aabbccddeeff00112233";
		char text[64];

		assert_int_equal(req(&r, "PUT", p2, "pushtok", "GSYM", 4, 0, "If-None-Match: *",
				     "X-ZT-Symbol-Quality: basic"),
				 201);
		assert_non_null(strstr(r.body, "\"created\":true,\"quality\":\"basic\"}"));
		snprintf(text, sizeof(text), "%s\nab\n", id2);
		assert_int_equal(req(&r, "POST", "/api/v1/symbols/missing", "pushtok", text,
				     strlen(text), 0, "X-ZT-Want-Quality: full", NULL),
				 200);
		assert_non_null(
			strstr(r.body, "00112233445566778899aabbccddeeff00112233 basic\nab\n"));
		assert_int_equal(req(&r, "POST", "/api/v1/symbols/missing", "pushtok", text,
				     strlen(text), 0, "X-ZT-Want-Quality: basic", NULL),
				 200);
		assert_string_equal(r.body, "ab\n");
		assert_int_equal(req(&r, "POST", "/api/v1/symbols/missing", "pushtok", text,
				     strlen(text), 0, "X-ZT-Want-Quality: best", NULL),
				 400);
		assert_int_equal(req(&r, "PUT", p2, "pushtok", "GSYM", 4, 0, "If-None-Match: *",
				     "X-ZT-Symbol-Quality: functions"),
				 412);
		assert_non_null(strstr(r.hdrs, "X-ZT-Symbol-Quality: basic"));
		assert_int_equal(req(&r, "PUT", p2, "pushtok", "GSYM", 4, 0, "If-None-Match: *",
				     "X-ZT-Symbol-Quality: full"),
				 200);
		assert_non_null(strstr(r.body, "\"quality\":\"full\",\"replaced\":\"basic\""));
		assert_int_equal(req(&r, "HEAD", p2, "readtok", NULL, 0, 0, NULL, NULL), 200);
		assert_non_null(strstr(r.hdrs, "X-ZT-Symbol-Quality: full"));
		assert_int_equal(req(&r, "PUT", p2, "pushtok", "GSYM", 4, 0, "If-None-Match: *",
				     "X-ZT-Symbol-Quality: basic"),
				 412);
		assert_non_null(strstr(r.hdrs, "X-ZT-Symbol-Quality: full"));
		assert_int_equal(req(&r, "PUT", p2, "symtok", "GSYM", 4, 0,
				     "X-ZT-Symbol-Quality: basic", NULL),
				 200);
		assert_non_null(strstr(r.body, "\"quality\":\"basic\",\"replaced\":\"full\""));
		assert_int_equal(req(&r, "HEAD", p2, "readtok", NULL, 0, 0, NULL, NULL), 200);
		assert_non_null(strstr(r.hdrs, "X-ZT-Symbol-Quality: basic"));
	}
	/* the other kinds and the debuginfod routes */
	assert_int_equal(req(&r, "PUT", "/api/v1/symbols/abcd/debuginfo", "symtok", "nope", 4, 0,
			     NULL, NULL),
			 400);
	assert_non_null(strstr(r.body, "not an ELF file"));
	assert_int_equal(req(&r, "PUT", "/api/v1/symbols/abcd/debuginfo", "readtok", "ELF", 3, 0,
			     NULL, NULL),
			 403);
	assert_int_equal(req(&r, "PUT", "/api/v1/symbols/abcd/debuginfo", "pushtok", "ELF", 3, 0,
			     "If-None-Match: *", NULL),
			 201);
	assert_int_equal(req(&r, "GET", "/buildid/abcd/debuginfo", "readtok", NULL, 0, 0, NULL,
			     NULL),
			 404);
	assert_int_equal(req(&r, "GET", "/buildid/abcd/debuginfo", NULL, NULL, 0, 0, NULL, NULL),
			 401);
	assert_int_equal(req(&r, "GET", "/buildid/abcd/source/a/%2e%2e/b", "readtok", NULL, 0, 0,
			     NULL, NULL),
			 400);
	assert_int_equal(req(&r, "GET", "/api/v1/symbols/abcd", "readtok", NULL, 0, 0, NULL, NULL),
			 404);
	/* the store's admission: before the body, and on the decoded bytes */
	assert_int_equal(req(&r, "PUT", "/api/v1/symbols/dead/source/x.c", "pushtok", "ELF", 3, 0,
			     "If-None-Match: *", NULL),
			 409);
	assert_non_null(strstr(r.body, "upload its symbols or executable first"));
	assert_int_equal(
		req(&r, "PUT", "/api/v1/symbols/dead/debuginfo", "symtok", "ELF", 3, 0, NULL, NULL),
		409);
	assert_int_equal(req(&r, "PUT", "/api/v1/symbols/beef/source/x.c", "symtok", "ELF", 3, 0,
			     NULL, NULL),
			 413);
	assert_non_null(strstr(r.body, "--max-source-size"));
	assert_int_equal(req(&r, "PUT", "/api/v1/symbols/beef/source/x.c", "symtok", "ELF", 3, 1,
			     NULL, NULL),
			 413);
	assert_non_null(strstr(r.body, "body larger than 2 bytes decoded: see zt serve "
				       "--max-source-size"));
	assert_int_equal(tmp_files(), 0);
}

static void test_queries(void **state)
{
	struct resp r;

	assert_int_equal(req(&r, "GET", "/api/v1/top?limit=3&sort=children", "readtok", NULL, 0, 0,
			     NULL, NULL),
			 200);
	assert_int_equal(req(&r, "GET", "/api/v1/top?sort=x", "readtok", NULL, 0, 0, NULL, NULL),
			 400);
	assert_int_equal(req(&r, "GET", "/api/v1/folded", "readtok", NULL, 0, 0, NULL, NULL), 200);
	assert_string_equal(r.body, "a;b 1\n");
	assert_int_equal(
		req(&r, "GET", "/api/v1/flame?width=800", "readtok", NULL, 0, 0, NULL, NULL), 200);
	assert_non_null(strstr(r.hdrs, "image/svg+xml"));
	assert_int_equal(
		req(&r, "GET", "/api/v1/diff?a.host=x&b.host=y", "readtok", NULL, 0, 0, NULL, NULL),
		200);
	assert_string_equal(r.body, "<svg diff/>");
	assert_int_equal(req(&r, "GET", "/api/v1/pprof", "readtok", NULL, 0, 0, NULL, NULL), 500);
	assert_int_equal(req(&r, "GET", "/metrics", "readtok", NULL, 0, 0, NULL, NULL), 200);
	assert_non_null(strstr(r.body, "zt_requests_total{code=\"200\"}"));
	assert_non_null(strstr(r.body, "zt_requests_total{code=\"401\"}"));
	assert_non_null(strstr(r.body, "zt_samples_total 42"));
	assert_non_null(strstr(r.body, "zt_request_bytes_total "));
}

static void test_slow_client(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)zh_port(h))};
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char buf[256];
	struct timeval tv = {6, 0};
	ssize_t n;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(write(fd, "POST /api/v1/profiles HTTP/1.1\r\nHost: x\r\n", 41), 41);
	/* then nothing: the server closes the connection after its 2 s timeout */
	n = read(fd, buf, sizeof(buf) - 1);
	/* closed (0), or reset; not still waiting when SO_RCVTIMEO ran out */
	assert_true(n == 0 || (n < 0 && errno == ECONNRESET) ||
		    (n > 0 && !memcmp(buf, "HTTP/1.1 408", 12)));
	close(fd);
}

static void test_logs(void **state)
{
	int i, found = 0;

	pthread_mutex_lock(&log_lock);
	for (i = 0; i < nr_logs; i++) {
		assert_null(strchr(logs[i], '?'));
		if (!strcmp(logs[i], "POST /api/v1/profiles 201 ok"))
			found++;
	}
	pthread_mutex_unlock(&log_lock);
	assert_true(found >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_routes), cmocka_unit_test(test_auth),
		cmocka_unit_test(test_ingest),	    cmocka_unit_test(test_encodings),
		cmocka_unit_test(test_limits),	    cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_queries),	    cmocka_unit_test(test_slow_client),
		cmocka_unit_test(test_logs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
