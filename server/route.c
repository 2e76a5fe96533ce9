/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zt serve's request routing and parameter parsing: pure, fuzzed (see route.h). */
#include "server/route.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/text.h"

static int fail(int code, char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(int code, char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	if (msg && msglen) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* At most 40 printable characters of s for a message: the rest as "...". */
static const char *quote(const char *s, char out[48])
{
	size_t i, n = 0;

	for (i = 0; s[i] && n < 40; i++)
		out[n++] =
			(s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\') ? s[i] : '?';
	if (s[i]) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

/*
 * Percent-decode src[0..n) into dst (at least n + 1 bytes), '+' as a space
 * when plus. Rejects a bad escape and any decoded control character
 * (NUL included) or DEL. Returns the decoded length or -1.
 */
static long pct_decode(const char *src, size_t n, char *dst, int plus)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c == '%') {
			int h, l;

			if (i + 2 >= n)
				return -1;
			h = zt_hexval(src[i + 1]);
			l = zt_hexval(src[i + 2]);
			if (h < 0 || l < 0)
				return -1;
			c = (unsigned char)(h << 4 | l);
			i += 2;
		} else if (c == '+' && plus) {
			c = ' ';
		}
		if (c < 0x20 || c == 0x7f)
			return -1;
		dst[o++] = (char)c;
	}
	dst[o] = '\0';
	return (long)o;
}

int zr_hex_ok(const char *s, size_t min, size_t max)
{
	size_t n = 0;

	if (!s)
		return 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')) || n >= max)
			return 0;
	return n >= min;
}

int zr_label_key_ok(const char *k)
{
	size_t n;

	if (k[0] == '_' && k[1] == '_')
		return 0; /* the store's own (__project__) */
	for (n = 0; k[n]; n++) {
		char c = k[n];

		if (n >= 64 || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return n > 0;
}

int zr_label_value_ok(const char *v)
{
	size_t n;

	for (n = 0; v[n]; n++)
		if (n >= 256 || (unsigned char)v[n] < 0x20 || v[n] == 0x7f)
			return 0;
	return 1;
}

int zr_parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!s || !*s)
		return -EINVAL;
	for (i = 0; s[i]; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9' || i >= 20)
			return -EINVAL;
		d = (unsigned)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	if (x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

int zr_parse_i64(const char *s, int64_t *v)
{
	uint64_t u;
	int neg = s && *s == '-';

	if (zr_parse_u64(s + neg, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &u))
		return -EINVAL;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

int zr_symbol_quality(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "full"))
		return 2;
	if (!strcmp(s, "basic") || !strcmp(s, "functions"))
		return 1;
	if (!strcmp(s, "none"))
		return 0;
	return -1;
}

/* ---- symbol files: source paths and escaped header text ------------------- */

int zr_srcpath(const char *raw, size_t n, char **out, char *msg, size_t msglen)
{
	char *d;
	long dl;
	size_t r = 0, w = 0;

	*out = NULL;
	if (n > ZR_MAX_TARGET)
		return fail(400, msg, msglen, "source path longer than %d bytes", ZR_MAX_SRCPATH);
	d = malloc(n + 1);
	if (!d)
		return fail(500, msg, msglen, "out of memory");
	dl = pct_decode(raw, n, d, 0);
	if (dl < 0) {
		free(d);
		return fail(400, msg, msglen,
			    "bad source path: bad percent-encoding or control characters");
	}
	/* component by component, in place (what is written never passes
	 * what is read) */
	while (r < (size_t)dl) {
		size_t e = r, len;

		while (e < (size_t)dl && d[e] != '/')
			e++;
		len = e - r;
		if ((len == 1 && d[r] == '.') || (len == 2 && d[r] == '.' && d[r + 1] == '.')) {
			free(d);
			return fail(400, msg, msglen,
				    "bad source path: no '.' or '..' components");
		}
		if (len) {
			if (w)
				d[w++] = '/';
			memmove(d + w, d + r, len);
			w += len;
		}
		r = e + 1;
	}
	d[w] = '\0';
	if (!w || w > ZR_MAX_SRCPATH) {
		free(d);
		return fail(400, msg, msglen, w ? "source path longer than %d bytes"
						  : "give the source file's absolute path",
			    ZR_MAX_SRCPATH);
	}
	*out = d;
	return 0;
}

/* Whether s[0..n) is well-formed UTF-8 (no overlong forms, surrogates, or
 * code points past U+10FFFF). */
static int utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i], need, cp, min, k;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1, cp = c & 0x1f, min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2, cp = c & 0x0f, min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3, cp = c & 0x07, min = 0x10000;
		} else {
			return 0;
		}
		if (n - i <= need)
			return 0;
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += need + 1;
	}
	return 1;
}

static int unreserved(unsigned char c, int basename)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '~' || c == '+' || c == '-' || (c == '/' && !basename);
}

int zr_pct_text(const char *in, size_t max, int basename, char *out, size_t outlen)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(in), i, o = 0;
	char *d;
	long dl;
	int rc = 0;

	if (n > 3 * max)
		return -EINVAL;
	d = malloc(n + 1);
	if (!d)
		return -ENOMEM;
	dl = pct_decode(in, n, d, 0);
	if (dl < 0 || (size_t)dl > max || !utf8_ok((const unsigned char *)d, (size_t)dl) ||
	    (basename && (!dl || strchr(d, '/') || !strcmp(d, ".") || !strcmp(d, "..")))) {
		rc = -EINVAL;
		goto out;
	}
	for (i = 0; i < (size_t)dl; i++) {
		unsigned char c = (unsigned char)d[i];

		if (o + 4 > outlen) {
			rc = -ENOSPC;
			goto out;
		}
		if (unreserved(c, basename)) {
			out[o++] = (char)c;
		} else {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	if (!outlen) {
		rc = -ENOSPC;
		goto out;
	}
	out[o] = '\0';
out:
	free(d);
	return rc;
}

/* ---- the route table ------------------------------------------------------ */

enum { M_GET = 1, M_HEAD = 2, M_POST = 4, M_PUT = 8, M_DELETE = 16 };

enum id_kind { ID_NONE, ID_PROFILE, ID_SYMBOL, ID_LABEL };

/* parameter sets */
enum { P_NONE, P_ANY, P_LABELS, P_LIST, P_SEL, P_TOP, P_FLAME, P_DIFF, P_DISC, P_TIMELINE,
       P_SOURCE, P_PROJECT };

struct route_def {
	const char *path; /* for an id route: the prefix before the id */
	enum id_kind id;
	unsigned method;
	enum zr_route route;
	int params;
};

static const struct route_def routes[] = {
	{"/", ID_NONE, M_GET | M_HEAD, ZR_PAGE, P_ANY},
	{"/index.html", ID_NONE, M_GET | M_HEAD, ZR_PAGE, P_ANY},
	{"/healthz", ID_NONE, M_GET | M_HEAD, ZR_HEALTHZ, P_NONE},
	{"/metrics", ID_NONE, M_GET | M_HEAD, ZR_METRICS, P_NONE},
	{"/api/v1/profiles", ID_NONE, M_POST, ZR_PROFILE_POST, P_LABELS},
	{"/api/v1/profiles", ID_NONE, M_GET | M_HEAD, ZR_PROFILE_LIST, P_LIST},
	{"/api/v1/profiles/", ID_PROFILE, M_GET | M_HEAD, ZR_PROFILE_GET, P_NONE},
	{"/api/v1/profiles/", ID_PROFILE, M_DELETE, ZR_PROFILE_DELETE, P_NONE},
	{"/api/v1/symbols/missing", ID_NONE, M_POST, ZR_SYMBOLS_MISSING, P_NONE},
	{"/api/v1/symbols/", ID_SYMBOL, M_HEAD, ZR_SYMBOL_HEAD, P_NONE},
	{"/api/v1/symbols/", ID_SYMBOL, M_GET, ZR_SYMBOL_GET, P_NONE},
	{"/api/v1/symbols/", ID_SYMBOL, M_PUT, ZR_SYMBOL_PUT, P_NONE},
	{"/api/v1/top", ID_NONE, M_GET | M_HEAD, ZR_TOP, P_TOP},
	{"/api/v1/folded", ID_NONE, M_GET | M_HEAD, ZR_FOLDED, P_SEL},
	{"/api/v1/pprof", ID_NONE, M_GET | M_HEAD, ZR_PPROF, P_SEL},
	{"/api/v1/flame", ID_NONE, M_GET | M_HEAD, ZR_FLAME, P_FLAME},
	{"/api/v1/diff", ID_NONE, M_GET | M_HEAD, ZR_DIFF, P_DIFF},
	{"/api/v1/timeline", ID_NONE, M_GET | M_HEAD, ZR_TIMELINE, P_TIMELINE},
	{"/api/v1/source", ID_NONE, M_GET | M_HEAD, ZR_SOURCE, P_SOURCE},
	{"/api/v1/labels", ID_NONE, M_GET | M_HEAD, ZR_LABELS, P_DISC},
	{"/api/v1/label/", ID_LABEL, M_GET | M_HEAD, ZR_LABEL_VALUES, P_DISC},
	{"/api/v1/projects", ID_NONE, M_GET | M_HEAD, ZR_PROJECTS, P_PROJECT},
};
#define NR_ROUTES (sizeof(routes) / sizeof(routes[0]))

static unsigned method_bit(const char *m)
{
	static const struct {
		const char *name;
		unsigned bit;
	} ms[] = {{"GET", M_GET},
		  {"HEAD", M_HEAD},
		  {"POST", M_POST},
		  {"PUT", M_PUT},
		  {"DELETE", M_DELETE}};
	size_t i;

	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
		if (!strcmp(m, ms[i].name))
			return ms[i].bit;
	return 0;
}

static const char *allow_text(unsigned m)
{
	/* the combinations the table has */
	switch (m) {
	case M_GET | M_HEAD:
		return "GET, HEAD";
	case M_GET | M_HEAD | M_POST:
		return "GET, HEAD, POST";
	case M_GET | M_HEAD | M_DELETE:
		return "GET, HEAD, DELETE";
	case M_GET | M_HEAD | M_PUT:
		return "GET, HEAD, PUT";
	case M_POST:
		return "POST";
	default:
		return "GET, HEAD";
	}
}

/* selection keys, without prefix */
static int is_sel_key(const char *k, int with_limit)
{
	return !strcmp(k, "id") || !strcmp(k, "host") || !strcmp(k, "command") ||
	       !strcmp(k, "label") || !strcmp(k, "from") || !strcmp(k, "to") ||
	       !strcmp(k, "query") || !strcmp(k, "project") || (with_limit && !strcmp(k, "limit"));
}

static int is_repeatable(const char *k)
{
	return !strcmp(k, "id") || !strcmp(k, "label") || !strcmp(k, "match[]");
}

static int is_flame_key(const char *k)
{
	return !strcmp(k, "title") || !strcmp(k, "width") || !strcmp(k, "inverted") ||
	       !strcmp(k, "minwidth");
}

static int param_allowed(int set, const char *k)
{
	switch (set) {
	case P_ANY:
		return 1;
	case P_LABELS:
		return !strcmp(k, "label") || !strcmp(k, "project");
	case P_LIST:
		return is_sel_key(k, 1) || !strcmp(k, "offset");
	case P_DISC:
		return !strcmp(k, "match[]") || !strcmp(k, "start") || !strcmp(k, "end") ||
		       !strcmp(k, "project");
	case P_TIMELINE:
		return is_sel_key(k, 0) || !strcmp(k, "step");
	case P_SOURCE:
		return is_sel_key(k, 0) || !strcmp(k, "function");
	case P_PROJECT:
		return !strcmp(k, "project");
	case P_SEL:
		return is_sel_key(k, 0);
	case P_TOP:
		return is_sel_key(k, 1) || !strcmp(k, "sort");
	case P_FLAME:
		return is_sel_key(k, 0) || is_flame_key(k);
	case P_DIFF:
		return ((!strncmp(k, "a.", 2) || !strncmp(k, "b.", 2)) && is_sel_key(k + 2, 0) &&
			strcmp(k + 2, "project")) ||
		       is_flame_key(k) || !strcmp(k, "project");
	default:
		return 0;
	}
}

/* keys whose values are selectors (server/selector.h: up to ZS_MAX_SELECTOR bytes) */
static int is_selector_key(const char *k)
{
	return !strcmp(k, "query") || !strcmp(k, "match[]");
}

/* the repeatable part of a key ("a.id" -> "id") */
static const char *base_key(const char *k)
{
	return (!strncmp(k, "a.", 2) || !strncmp(k, "b.", 2)) ? k + 2 : k;
}

static int parse_query(const char *q, size_t n, struct zr_request *r, int set, char *msg,
		       size_t msglen)
{
	char *o = r->buf;
	size_t i = 0, cap = 0;
	char qb[48];

	while (i < n) {
		size_t j = i, eq = (size_t)-1;
		long kl, vl;
		char *k, *v;
		size_t p;

		while (j < n && q[j] != '&') {
			if (q[j] == '=' && eq == (size_t)-1)
				eq = j;
			j++;
		}
		if (j == i) { /* "a&&b", trailing '&' */
			i = j + 1;
			continue;
		}
		if (eq == (size_t)-1)
			eq = j;
		if (eq - i > ZR_MAX_KEY * 3 || (j > eq && j - eq - 1 > ZS_MAX_SELECTOR * 3))
			return fail(400, msg, msglen,
				    "parameter too long (keys at most %d bytes, values %d, selectors "
				    "%d)",
				    ZR_MAX_KEY, ZR_MAX_VALUE, ZS_MAX_SELECTOR);
		k = o;
		kl = pct_decode(q + i, eq - i, k, 1);
		if (kl < 0)
			return fail(400, msg, msglen,
				    "bad parameter name: percent-encode it, without control "
				    "characters");
		o += kl + 1;
		v = o;
		vl = j > eq ? pct_decode(q + eq + 1, j - eq - 1, v, 1) : (*v = '\0', 0);
		if (vl < 0)
			return fail(400, msg, msglen,
				    "bad value of parameter '%s': percent-encode it, without "
				    "control characters",
				    quote(k, qb));
		o += vl + 1;
		if (kl == 0)
			return fail(400, msg, msglen, "a parameter without a name");
		if (kl > ZR_MAX_KEY ||
		    vl > (is_selector_key(base_key(k)) ? ZS_MAX_SELECTOR : ZR_MAX_VALUE))
			return fail(400, msg, msglen,
				    "parameter '%s' too long (keys at most %d bytes, values %d, "
				    "selectors %d)",
				    quote(k, qb), ZR_MAX_KEY, ZR_MAX_VALUE, ZS_MAX_SELECTOR);
		if (!param_allowed(set, k))
			return fail(400, msg, msglen,
				    "unknown parameter '%s' for %s: see zt-serve(1)", quote(k, qb),
				    r->path);
		if (set != P_ANY && !is_repeatable(base_key(k)))
			for (p = 0; p < r->nr_params; p++)
				if (!strcmp(r->params[p].key, k))
					return fail(400, msg, msglen, "parameter '%s' given twice",
						    quote(k, qb));
		if (r->nr_params >= ZR_MAX_PARAMS)
			return fail(400, msg, msglen, "too many parameters (at most %d)",
				    ZR_MAX_PARAMS);
		if (r->nr_params == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct zr_param *np = realloc(r->params, nc * sizeof(*np));

			if (!np)
				return fail(500, msg, msglen, "out of memory");
			r->params = np;
			cap = nc;
		}
		r->params[r->nr_params].key = k;
		r->params[r->nr_params].value = v;
		r->params[r->nr_params].lvalue = NULL;
		if (!strcmp(base_key(k), "label")) {
			char *e = strchr(v, '=');

			if (e) { /* label=KEY=VALUE: split in place */
				*e = '\0';
				r->params[r->nr_params].lvalue = e + 1;
			}
		}
		r->nr_params++;
		i = j + 1;
	}
	return 0;
}

/* The path's one id segment after prefix (rest: decoded path tail). */
static int check_id(const char *rest, enum id_kind kind, struct zr_request *r, char *msg,
		    size_t msglen)
{
	char qb[48];
	int ok = kind == ID_PROFILE ? zr_hex_ok(rest, ZR_PROFILE_ID_LEN, ZR_PROFILE_ID_LEN)
				    : zr_hex_ok(rest, ZR_SYMBOL_ID_MIN, ZR_SYMBOL_ID_MAX);

	if (!ok) {
		if (kind == ID_PROFILE)
			return fail(400, msg, msglen,
				    "bad profile id '%s': 64 lowercase hex digits (a sha256)",
				    quote(rest, qb));
		return fail(
			400, msg, msglen,
			"bad symbol id '%s': a build id or file id, 2 to 40 lowercase hex digits",
			quote(rest, qb));
	}
	snprintf(r->id, sizeof(r->id), "%s", rest);
	return 0;
}

/* The next raw segment of p[0..n) from *pos (after a '/'): its start and length. */
static int next_seg(const char *p, size_t n, size_t *pos, const char **seg, size_t *len)
{
	const char *e;

	if (*pos > n)
		return 0;
	*seg = p + *pos;
	e = memchr(*seg, '/', n - *pos);
	*len = e ? (size_t)(e - *seg) : n - *pos;
	*pos += *len + 1;
	return 1;
}

/* A raw segment equal to a literal, once decoded. */
static int seg_is(const char *seg, size_t len, const char *lit)
{
	char buf[32];
	long dl;

	if (len >= sizeof(buf))
		return 0;
	dl = pct_decode(seg, len, buf, 0);
	return dl >= 0 && !strcmp(buf, lit);
}

static const char *const kind_names[] = {"gsym", "debuginfo", "executable", "source"};

/*
 * /buildid/ID/KIND[/PATH] and /api/v1/symbols/ID/KIND[/PATH], matched on
 * the raw path, segment by segment (a source PATH may have "//" and its
 * own escapes, which the generic path checks refuse): -1 when the path is
 * neither, else 0 or an HTTP status as zr_parse returns them.
 */
static int parse_symfile(unsigned mb, const char *method, const char *p, size_t n, int has_query,
			 struct zr_request *r, const char **allow, char *msg, size_t msglen)
{
	const char *seg, *ids;
	size_t pos = 1, len, idn, k;
	int buildid, rc;
	unsigned ok;
	char id[ZR_SYMBOL_ID_MAX + 4], qb[48];
	long dl;

	if (!next_seg(p, n, &pos, &seg, &len))
		return -1;
	if (seg_is(seg, len, "buildid")) {
		buildid = 1;
	} else if (seg_is(seg, len, "api") && next_seg(p, n, &pos, &seg, &len) &&
		   seg_is(seg, len, "v1") && next_seg(p, n, &pos, &seg, &len) &&
		   seg_is(seg, len, "symbols")) {
		buildid = 0;
	} else {
		return -1;
	}
	if (!next_seg(p, n, &pos, &ids, &idn))
		return -1;
	if (!next_seg(p, n, &pos, &seg, &len)) /* no kind: /api/v1/symbols/ID, ... */
		return -1;
	for (k = 1; k < ZS_NR_KINDS; k++)
		if (seg_is(seg, len, kind_names[k]))
			break;
	if (k == ZS_NR_KINDS || (k != ZS_KIND_SOURCE && pos <= n))
		return fail(404, msg, msglen,
			    "no such API: %s takes debuginfo, executable or source/PATH",
			    buildid ? "/buildid/ID/" : "/api/v1/symbols/ID/");
	ok = buildid ? M_GET | M_HEAD : M_GET | M_HEAD | M_PUT;
	if (!(mb & ok)) {
		if (allow)
			*allow = allow_text(ok);
		return fail(405, msg, msglen, "method %s not allowed here: use %s",
			    mb ? method : "(unknown)", allow_text(ok));
	}
	if (has_query)
		return fail(400, msg, msglen, "%s takes no parameters",
			    buildid ? "/buildid/" : "/api/v1/symbols/");
	dl = idn < sizeof(id) ? pct_decode(ids, idn, id, 0) : -1;
	if (dl < 0 || !zr_hex_ok(id, ZR_SYMBOL_ID_MIN, ZR_SYMBOL_ID_MAX) || dl % 2) {
		if (dl < 0)
			snprintf(id, sizeof(id), "?");
		return fail(400, msg, msglen,
			    "bad symbol id '%s': a build id or file id, an even number (2 to 40) "
			    "of lowercase hex digits",
			    quote(id, qb));
	}
	memcpy(r->id, id, (size_t)dl + 1);
	r->kind = (enum zs_kind)k;
	if (k == ZS_KIND_SOURCE) {
		if (pos > n)
			return fail(400, msg, msglen, "give the source file's path after source/");
		rc = zr_srcpath(p + pos, n - pos, &r->src, msg, msglen);
		if (rc)
			return rc;
	}
	r->route = buildid ? ZR_BUILDID : mb == M_PUT ? ZR_SYMFILE_PUT
				: mb == M_HEAD ? ZR_SYMFILE_HEAD
						  : ZR_SYMFILE_GET;
	r->head = mb == M_HEAD;
	snprintf(r->path, sizeof(r->path), "%sID/%s%s", buildid ? "/buildid/" : "/api/v1/symbols/",
		 kind_names[k], k == ZS_KIND_SOURCE ? "/PATH" : "");
	return 0;
}

int zr_parse(const char *method, const char *target, size_t target_len, struct zr_request *r,
	     const char **allow, char *msg, size_t msglen)
{
	const char *q;
	size_t plen, i;
	unsigned mb, seen = 0;
	char *path = NULL;
	const struct route_def *hit = NULL;
	int rc;
	long dl;

	memset(r, 0, sizeof(*r));
	if (allow)
		*allow = NULL;
	if (target_len > ZR_MAX_TARGET)
		return fail(414, msg, msglen, "request target longer than %d bytes", ZR_MAX_TARGET);
	if (target_len == 0 || target[0] != '/' || memchr(target, '\0', target_len))
		return fail(400, msg, msglen, "bad request target: it must start with '/'");
	q = memchr(target, '?', target_len);
	plen = q ? (size_t)(q - target) : target_len;
	/* one '#' never reaches a server; refuse it rather than guess */
	if (memchr(target, '#', target_len))
		return fail(400, msg, msglen, "bad request target: '#' in it");
	mb = method_bit(method);
	rc = parse_symfile(mb, method, target, plen, q && target_len > plen + 1, r, allow, msg,
			   msglen);
	if (rc >= 0) {
		if (rc)
			zr_request_release(r);
		return rc;
	}
	path = malloc(plen + 1);
	if (!path)
		return fail(500, msg, msglen, "out of memory");
	dl = pct_decode(target, plen, path, 0);
	if (dl < 0) {
		rc = fail(400, msg, msglen, "bad path: bad percent-encoding or control characters");
		goto out;
	}
	if (strstr(path, "//") || strstr(path, "/./") || strstr(path, "/../") ||
	    (dl >= 2 && !strcmp(path + dl - 2, "/.")) ||
	    (dl >= 3 && !strcmp(path + dl - 3, "/..")) || strchr(path, '\\')) {
		rc = fail(400, msg, msglen, "bad path: no '.', '..', '//' or '\\' segments");
		goto out;
	}
	for (i = 0; i < NR_ROUTES; i++) {
		const struct route_def *d = &routes[i];
		size_t n = strlen(d->path);

		if (d->id == ID_NONE) {
			if (strcmp(path, d->path))
				continue;
		} else if (d->id == ID_LABEL) {
			size_t pl = strlen(path);

			if (strncmp(path, d->path, n) || pl < n + 8 ||
			    strcmp(path + pl - 7, "/values"))
				continue;
		} else {
			if (strncmp(path, d->path, n) || !path[n] || strchr(path + n, '/'))
				continue;
			/* a fixed route under the same prefix wins (symbols/missing) */
			if (d->id == ID_SYMBOL && !strcmp(path + n, "missing"))
				continue;
		}
		seen |= d->method;
		if (mb & d->method) {
			hit = d;
			break;
		}
	}
	if (!hit) {
		if (seen) {
			if (allow)
				*allow = allow_text(seen);
			rc = fail(405, msg, msglen, "method %s not allowed here: use %s",
				  mb ? method : "(unknown)", allow_text(seen));
		} else {
			rc = fail(404, msg, msglen,
				  "no such API: see zt-serve(1) for the routes of /api/v1");
		}
		goto out;
	}
	r->route = hit->route;
	r->head = mb == M_HEAD;
	snprintf(r->path, sizeof(r->path), "%s%s", hit->path, hit->id != ID_NONE ? "ID" : "");
	if (hit->id == ID_LABEL) {
		const char *nm = path + strlen(hit->path);
		size_t nl = strlen(nm) - 7;
		char qb[48];

		if (!zs_label_name_ok(nm, nl) || nl >= sizeof(r->id)) {
			path[strlen(path) - 7] = 0;
			rc = fail(400, msg, msglen,
				  "bad label name '%s': a letter or '_', then letters, digits, '_', "
				  "'.', '-' or ':', at most 64",
				  quote(nm, qb));
			goto out;
		}
		memcpy(r->id, nm, nl);
		r->id[nl] = 0;
		snprintf(r->path, sizeof(r->path), "/api/v1/label/NAME/values");
	} else if (hit->id != ID_NONE) {
		rc = check_id(path + strlen(hit->path), hit->id, r, msg, msglen);
		if (rc)
			goto out;
	}
	if (q) {
		size_t qn = target_len - plen - 1;

		if (hit->params == P_NONE && qn) {
			rc = fail(400, msg, msglen, "%s takes no parameters", r->path);
			goto out;
		}
		r->buf = malloc(2 * qn + 2);
		if (!r->buf) {
			rc = fail(500, msg, msglen, "out of memory");
			goto out;
		}
		rc = parse_query(q + 1, qn, r, hit->params, msg, msglen);
		if (rc)
			goto out;
	}
	rc = 0;
out:
	free(path);
	if (rc)
		zr_request_release(r);
	return rc;
}

void zr_request_release(struct zr_request *r)
{
	free(r->params);
	free(r->buf);
	free(r->src);
	r->params = NULL;
	r->buf = NULL;
	r->src = NULL;
	r->nr_params = 0;
}

const char *zr_param(const struct zr_request *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nr_params; i++)
		if (!strcmp(r->params[i].key, key))
			return r->params[i].value;
	return NULL;
}

unsigned zr_scopes(enum zr_route route, int public_read, int if_none_match_star)
{
	unsigned rd = public_read ? 0 : ZS_SCOPE_READ;

	switch (route) {
	case ZR_PAGE:
	case ZR_HEALTHZ:
		return 0;
	case ZR_METRICS:
	case ZR_PROFILE_LIST:
	case ZR_PROFILE_GET:
	case ZR_SYMBOL_GET:
	case ZR_SYMFILE_GET:
	case ZR_BUILDID:
	case ZR_TOP:
	case ZR_FOLDED:
	case ZR_PPROF:
	case ZR_FLAME:
	case ZR_DIFF:
	case ZR_TIMELINE:
	case ZR_SOURCE:
	case ZR_LABELS:
	case ZR_LABEL_VALUES:
	case ZR_PROJECTS:
		return rd;
	case ZR_SYMBOL_HEAD:
	case ZR_SYMFILE_HEAD:
		return public_read ? 0 : ZS_SCOPE_READ | ZS_SCOPE_PUSH | ZS_SCOPE_SYMBOLS;
	case ZR_PROFILE_POST:
		return ZS_SCOPE_PUSH;
	case ZR_SYMBOLS_MISSING:
		return ZS_SCOPE_PUSH | ZS_SCOPE_SYMBOLS;
	case ZR_SYMBOL_PUT:
	case ZR_SYMFILE_PUT:
		return if_none_match_star ? ZS_SCOPE_SYMBOLS | ZS_SCOPE_PUSH : ZS_SCOPE_SYMBOLS;
	case ZR_PROFILE_DELETE:
	default:
		return ZS_SCOPE_ADMIN;
	}
}

int zr_scope_ok(unsigned have, unsigned need)
{
	if (!need)
		return 1;
	return (have & ZS_SCOPE_ADMIN) || (have & need);
}

int zr_has_body(enum zr_route route)
{
	return route == ZR_PROFILE_POST || route == ZR_SYMBOLS_MISSING || route == ZR_SYMBOL_PUT ||
	       route == ZR_SYMFILE_PUT;
}

int zr_selection(const struct zr_request *r, const char *prefix, struct zs_selection *sel,
		 char *msg, size_t msglen)
{
	size_t pl = strlen(prefix), i;
	char qb[48];

	memset(sel, 0, sizeof(*sel));
	for (i = 0; i < r->nr_params; i++) {
		const char *k = r->params[i].key, *v = r->params[i].value;

		if (strncmp(k, prefix, pl))
			continue;
		k += pl;
		if (!strcmp(k, "id")) {
			if (!zr_hex_ok(v, ZR_PROFILE_ID_LEN, ZR_PROFILE_ID_LEN))
				return fail(400, msg, msglen,
					    "bad %sid '%s': 64 lowercase hex digits (a sha256)",
					    prefix, quote(v, qb));
			if (sel->nr_ids >= ZS_SEL_MAX_IDS)
				return fail(400, msg, msglen, "too many ids (at most %d)",
					    ZS_SEL_MAX_IDS);
			sel->ids[sel->nr_ids++] = v;
		} else if (!strcmp(k, "host") || !strcmp(k, "command")) {
			if (!zr_label_value_ok(v))
				return fail(400, msg, msglen, "bad %s%s: at most 256 bytes", prefix,
					    k);
			if (*k == 'h')
				sel->host = v;
			else
				sel->command = v;
		} else if (!strcmp(k, "label")) {
			const char *lv = r->params[i].lvalue;

			if (!lv)
				return fail(400, msg, msglen,
					    "bad %slabel '%s': give label=KEY=VALUE", prefix,
					    quote(v, qb));
			if (!zr_label_key_ok(v) || !zr_label_value_ok(lv))
				return fail(400, msg, msglen,
					    "bad %slabel '%s': keys are 1 to 64 letters, digits, "
					    "'_', '.' "
					    "or '-'; values at most 256 bytes",
					    prefix, quote(v, qb));
			if (sel->nr_labels >= ZS_SEL_MAX_LABELS)
				return fail(400, msg, msglen, "too many labels (at most %d)",
					    ZS_SEL_MAX_LABELS);
			sel->labels[sel->nr_labels].key = v;
			sel->labels[sel->nr_labels].value = lv;
			sel->nr_labels++;
		} else if (!strcmp(k, "from") || !strcmp(k, "to")) {
			int64_t t;

			if (zr_parse_i64(v, &t) || t < 0)
				return fail(400, msg, msglen, "bad %s%s '%s': Unix seconds", prefix,
					    k, quote(v, qb));
			if (*k == 'f')
				sel->from = t;
			else
				sel->to = t;
		} else if (!strcmp(k, "limit") && !pl && r->route == ZR_PROFILE_LIST) {
			uint64_t l;

			if (zr_parse_u64(v, 1000000, &l))
				return fail(400, msg, msglen, "bad limit '%s': 0 to 1000000",
					    quote(v, qb));
			sel->limit = (size_t)l;
		} else if (!strcmp(k, "offset") && !pl && r->route == ZR_PROFILE_LIST) {
			uint64_t l;

			if (zr_parse_u64(v, 100000000, &l))
				return fail(400, msg, msglen, "bad offset '%s': 0 to 100000000",
					    quote(v, qb));
			sel->offset = (size_t)l;
		} else if (!strcmp(k, "project") && !pl) {
			if (!zs_project_name_ok(v))
				return fail(400, msg, msglen,
					    "bad project '%s': 1 to %d lowercase letters, digits, '-' "
					    "and '_'",
					    quote(v, qb), ZS_PROJECT_MAX);
			sel->project = v;
		} else if (!strcmp(k, "query")) {
			char why[256];
			int rc;

			if (sel->match.n)
				zs_selection_release(sel);
			rc = zs_selector_parse(v, strlen(v), &sel->match, why, sizeof(why));
			if (rc == -ENOMEM)
				return fail(500, msg, msglen, "out of memory");
			if (rc)
				return fail(400, msg, msglen, "bad %squery: %s", prefix, why);
		}
	}
	if (sel->from && sel->to && sel->from > sel->to)
		return fail(400, msg, msglen, "%sfrom is after %sto", prefix, prefix);
	return 0;
}

int zr_discovery(const struct zr_request *r, struct zs_selection *sel, size_t max, size_t *n,
		 char *msg, size_t msglen)
{
	int64_t from = 0, to = 0;
	size_t i, k;
	char qb[48];

	*n = 0;
	for (i = 0; i < r->nr_params; i++) {
		const char *key = r->params[i].key, *v = r->params[i].value;
		int64_t t;

		if (strcmp(key, "start") && strcmp(key, "end"))
			continue;
		/* Prometheus's clients send seconds with a fraction */
		if (zr_parse_i64(v, &t) || t < 0) {
			char *e;
			double d = strtod(v, &e);

			if (e == v || *e || !(d >= 0 && d < 1e15))
				return fail(400, msg, msglen, "bad %s '%s': Unix seconds", key,
					    quote(v, qb));
			t = (int64_t)d;
		}
		if (*key == 's')
			from = t;
		else
			to = t;
	}
	if (from && to && from > to)
		return fail(400, msg, msglen, "start is after end");
	{
		const char *pj = zr_param(r, "project");

		if (pj && !zs_project_name_ok(pj))
			return fail(400, msg, msglen,
				    "bad project '%s': 1 to %d lowercase letters, digits, '-' and '_'",
				    quote(pj, qb), ZS_PROJECT_MAX);
	}
	for (i = 0; i < r->nr_params; i++) {
		const char *v = r->params[i].value;
		char why[256];
		int rc;

		if (strcmp(r->params[i].key, "match[]"))
			continue;
		if (*n >= max)
			return fail(400, msg, msglen, "too many match[] (at most %zu)", max);
		memset(&sel[*n], 0, sizeof(sel[*n]));
		rc = zs_selector_parse(v, strlen(v), &sel[*n].match, why, sizeof(why));
		if (rc == -ENOMEM)
			return fail(500, msg, msglen, "out of memory");
		if (rc)
			return fail(400, msg, msglen, "bad match[]: %s", why);
		(*n)++;
	}
	if (!*n) {
		memset(&sel[0], 0, sizeof(sel[0]));
		*n = 1;
	}
	for (k = 0; k < *n; k++) {
		sel[k].from = from;
		sel[k].to = to;
		sel[k].project = zr_param(r, "project");
	}
	return 0;
}

int zr_timeline_params(const struct zr_request *r, int64_t *step, char *msg, size_t msglen)
{
	const char *v = zr_param(r, "step");
	uint64_t s = 0;
	char qb[48];

	if (v && (zr_parse_u64(v, 366 * 86400, &s) || (s && s % 10)))
		return fail(400, msg, msglen,
			    "bad step '%s': seconds, a multiple of 10 up to a year (0: chosen)",
			    quote(v, qb));
	*step = (int64_t)s;
	return 0;
}

int zr_labels(const struct zr_request *r, struct zs_label *labels, size_t *nr, char *msg,
	      size_t msglen)
{
	struct zs_selection *sel = malloc(sizeof(*sel));
	size_t i;
	int rc;

	if (!sel)
		return fail(500, msg, msglen, "out of memory");
	rc = zr_selection(r, "", sel, msg, msglen);
	if (!rc) {
		for (i = 0; i < sel->nr_labels; i++)
			labels[i] = sel->labels[i];
		*nr = sel->nr_labels;
	}
	zs_selection_release(sel);
	free(sel);
	return rc;
}

int zr_top_params(const struct zr_request *r, size_t *limit, enum zs_sort *sort, char *msg,
		  size_t msglen)
{
	const char *l = zr_param(r, "limit"), *s = zr_param(r, "sort");
	char qb[48];

	*limit = 50;
	*sort = ZS_SORT_SELF;
	if (l) {
		uint64_t v;

		if (zr_parse_u64(l, 100000, &v) || !v)
			return fail(400, msg, msglen, "bad limit '%s': 1 to 100000", quote(l, qb));
		*limit = (size_t)v;
	}
	if (s) {
		if (!strcmp(s, "self"))
			*sort = ZS_SORT_SELF;
		else if (!strcmp(s, "children"))
			*sort = ZS_SORT_CHILDREN;
		else
			return fail(400, msg, msglen, "bad sort '%s': self or children",
				    quote(s, qb));
	}
	return 0;
}

int zr_flame_params(const struct zr_request *r, struct zs_flame_opts *o, char *msg, size_t msglen)
{
	const char *t = zr_param(r, "title"), *w = zr_param(r, "width"),
		   *inv = zr_param(r, "inverted"), *mw = zr_param(r, "minwidth");
	char qb[48];

	memset(o, 0, sizeof(*o));
	o->minwidth = -1;
	if (t) {
		if (strlen(t) > 200)
			return fail(400, msg, msglen, "title too long (at most 200 bytes)");
		o->title = t;
	}
	if (w) {
		uint64_t v;

		if (zr_parse_u64(w, 20000, &v) || v < 200)
			return fail(400, msg, msglen, "bad width '%s': 200 to 20000", quote(w, qb));
		o->width = (unsigned)v;
	}
	if (inv) {
		if (strcmp(inv, "0") && strcmp(inv, "1"))
			return fail(400, msg, msglen, "bad inverted '%s': 0 or 1", quote(inv, qb));
		o->inverted = inv[0] == '1';
	}
	if (mw) {
		char *end;
		double d;

		errno = 0;
		d = strtod(mw, &end);
		if (errno || end == mw || *end || !(d >= 0 && d <= 1000))
			return fail(400, msg, msglen, "bad minwidth '%s': 0 to 1000 (pixels)",
				    quote(mw, qb));
		o->minwidth = d;
	}
	return 0;
}

/* ---- listen addresses ----------------------------------------------------- */

int zr_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[64];
	const char *port;
	uint64_t p;

	memset(ss, 0, sizeof(*ss));
	if (!s || !*s || strlen(s) >= sizeof(host))
		return -EINVAL;
	if (s[0] == '[') {
		const char *e = strchr(s, ']');

		if (!e || e[1] != ':')
			return -EINVAL;
		memcpy(host, s + 1, (size_t)(e - s - 1));
		host[e - s - 1] = '\0';
		port = e + 2;
	} else {
		const char *c = strrchr(s, ':');

		if (!c) {
			snprintf(host, sizeof(host), "127.0.0.1");
			port = s;
		} else {
			if (memchr(s, ':', (size_t)(c - s))) /* a bare v6 address needs [] */
				return -EINVAL;
			memcpy(host, s, (size_t)(c - s));
			host[c - s] = '\0';
			if (!host[0])
				snprintf(host, sizeof(host), "127.0.0.1");
			port = c + 1;
		}
	}
	if (zr_parse_u64(port, 65535, &p))
		return -EINVAL;
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	{
		struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
			a4->sin_family = AF_INET;
			a4->sin_port = htons((uint16_t)p);
			*len = sizeof(*a4);
			return 0;
		}
		memset(ss, 0, sizeof(*ss));
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
			a6->sin6_family = AF_INET6;
			a6->sin6_port = htons((uint16_t)p);
			*len = sizeof(*a6);
			return 0;
		}
	}
	return -EINVAL;
}

int zr_addr_is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)ss;

		return (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)ss;
		const uint8_t *b = a6->sin6_addr.s6_addr;

		if (IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr))
			return 1;
		return IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr) && b[12] == 127;
	}
	return 0;
}
