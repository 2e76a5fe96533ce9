/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Request routing for zt serve: a method and a raw request target
 * ("/api/v1/profiles?host=a&label=k%3Dv") to a route, a path id and the
 * decoded query parameters, plus the scopes the route needs. Pure functions
 * on outside input (no libmicrohttpd, no store), so they are fuzzed and unit
 * tested on their own (tests/fuzz/fuzz_route.c, tests/unit/test_route.c).
 *
 * Every failure is an HTTP status (400, 404, 405, 414) with a sentence in
 * the caller's msg buffer that is safe to echo in a JSON error (only
 * printable ASCII of the request is quoted, and that briefly).
 */
#ifndef ZT_SERVER_ROUTE_H
#define ZT_SERVER_ROUTE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "server/query.h"

enum zr_route {
	ZR_NONE = 0,
	ZR_PAGE,	    /* GET / (and /index.html) */
	ZR_HEALTHZ,	    /* GET /healthz */
	ZR_METRICS,	    /* GET /metrics */
	ZR_PROFILE_POST,    /* POST /api/v1/profiles */
	ZR_PROFILE_LIST,    /* GET /api/v1/profiles */
	ZR_PROFILE_GET,	    /* GET /api/v1/profiles/ID */
	ZR_PROFILE_DELETE,  /* DELETE /api/v1/profiles/ID */
	ZR_SYMBOLS_MISSING, /* POST /api/v1/symbols/missing */
	ZR_SYMBOL_HEAD,	    /* HEAD /api/v1/symbols/ID */
	ZR_SYMBOL_GET,	    /* GET /api/v1/symbols/ID */
	ZR_SYMBOL_PUT,	    /* PUT /api/v1/symbols/ID */
	ZR_TOP,		    /* GET /api/v1/top */
	ZR_FOLDED,	    /* GET /api/v1/folded */
	ZR_PPROF,	    /* GET /api/v1/pprof */
	ZR_FLAME,	    /* GET /api/v1/flame */
	ZR_DIFF,	    /* GET /api/v1/diff */
	ZR_TIMELINE,	    /* GET /api/v1/timeline */
	ZR_SOURCE,	    /* GET /api/v1/source */
	ZR_LABELS,	    /* GET /api/v1/labels */
	ZR_LABEL_VALUES,    /* GET /api/v1/label/NAME/values (r->id: NAME) */
	ZR_PROJECTS,	    /* GET /api/v1/projects */
	/* the other kinds of symbol files (r->kind, r->src for source) */
	ZR_SYMFILE_HEAD, /* HEAD /api/v1/symbols/ID/KIND[/PATH] */
	ZR_SYMFILE_GET,	 /* GET /api/v1/symbols/ID/KIND[/PATH] */
	ZR_SYMFILE_PUT,	 /* PUT /api/v1/symbols/ID/KIND[/PATH] */
	/* the debuginfod protocol: GET and HEAD /buildid/ID/KIND[/PATH]
	 * (r->head tells; KIND debuginfo, executable or source) */
	ZR_BUILDID,
	ZR_COUNT
};

/* Limits on what a request target may carry. */
#define ZR_MAX_TARGET	  65536 /* bytes of path + query: 414 beyond */
#define ZR_MAX_PARAMS	  1100	/* a selection of ~1000 ids: 400 beyond */
#define ZR_MAX_KEY	  32
#define ZR_MAX_VALUE	  1024
#define ZR_PROFILE_ID_LEN 64 /* sha256, lowercase hex */
#define ZR_SYMBOL_ID_MIN  2  /* build id or file id: 2..40 lowercase hex digits */
#define ZR_SYMBOL_ID_MAX  40

#define ZR_MAX_SRCPATH	  4096 /* a source path, decoded and normalized */
#define ZR_MAX_DESCRIPTION 1024 /* X-ZT-Description, decoded */
#define ZR_MAX_SYMBOL_FILE 255	/* X-ZT-Symbol-File, decoded */

/* NUL-terminated and decoded, in zr_request.buf. A label=KEY=VALUE
 * parameter is split: value is KEY, lvalue VALUE (NULL: no '=' in it). */
struct zr_param {
	const char *key, *value, *lvalue;
};

/* A parsed request. zr_request_release() frees what zr_parse() allocated;
 * keys, values and id stay valid until then. */
struct zr_request {
	enum zr_route route;
	int head;			/* the method was HEAD (answer without a body) */
	char id[ZR_PROFILE_ID_LEN + 1]; /* the path id ("" when the route has none) */
	struct zr_param *params;
	size_t nr_params;
	char *buf;
	char path[64]; /* the matched path, for logs (never the query) */
	/* symbol routes: the kind of file (ZR_SYMBOL_*: ZS_KIND_GSYM) and,
	 * for a source file, its path as zr_srcpath() leaves it (malloc'ed,
	 * freed by zr_request_release; NULL for the other kinds) */
	enum zs_kind kind;
	char *src;
};

/*
 * Parse method (as sent: "GET") and target (the raw request target: path,
 * optionally "?query"). Returns 0 and fills r, or an HTTP status with msg
 * set: 400 (bad encoding, control characters, bad id, unknown or repeated
 * parameter, too many parameters), 404 (no such route), 405 (route exists
 * with other methods: *allow, when allow is not NULL, gets them, e.g.
 * "GET, HEAD, DELETE"), 414 (target too long), 500 (out of memory).
 * On failure r needs no release.
 */
int zr_parse(const char *method, const char *target, size_t target_len, struct zr_request *r,
	     const char **allow, char *msg, size_t msglen);
void zr_request_release(struct zr_request *r);

/* The value of the first parameter named key, or NULL. */
const char *zr_param(const struct zr_request *r, const char *key);

/*
 * The scopes (enum zs_scope bits) any one of which lets a token through;
 * 0: open to everyone. admin always passes (not in the mask).
 * public_read opens read-only routes; if_none_match_star tells that a
 * PUT of symbols carries "If-None-Match: *" (push tokens may then upload).
 */
unsigned zr_scopes(enum zr_route route, int public_read, int if_none_match_star);
/* Whether a token's scopes satisfy a need from zr_scopes(). */
int zr_scope_ok(unsigned have, unsigned need);

/* Whether the route takes a request body (streamed to a file or memory). */
int zr_has_body(enum zr_route route);

/*
 * The selection named by r's parameters with the given prefix ("" for
 * plain routes, "a." and "b." for diff): id (repeatable), host, command,
 * label=k=v (repeatable), query (a Prometheus selector: server/
 * selector.h), from, to, limit, offset. Strings borrowed from r; the
 * matchers owned by sel (zs_selection_release(), also after a failure).
 * 0, or 400 with msg.
 */
int zr_selection(const struct zr_request *r, const char *prefix, struct zs_selection *sel,
		 char *msg, size_t msglen);
/* The labels of a POST of a profile (label=k=v, at most ZS_SEL_MAX_LABELS).
 * 0, or 400 with msg. */
int zr_labels(const struct zr_request *r, struct zs_label *labels, size_t *nr, char *msg,
	      size_t msglen);
/* Parameters of top and flame/diff. 0, or 400 with msg. */
/* The selections of label discovery (match[], each a selector; start,
 * end: Unix seconds), into sel[0 .. *n) (at most max; each to be
 * released with zs_selection_release, also after a failure); no match[]:
 * one selection of everything. 0, or 400 with msg. */
int zr_discovery(const struct zr_request *r, struct zs_selection *sel, size_t max, size_t *n,
		 char *msg, size_t msglen);
/* timeline: step= (seconds, 0: chosen from the range). 0 or 400. */
int zr_timeline_params(const struct zr_request *r, int64_t *step, char *msg, size_t msglen);

int zr_top_params(const struct zr_request *r, size_t *limit, enum zs_sort *sort, char *msg,
		  size_t msglen);
int zr_flame_params(const struct zr_request *r, struct zs_flame_opts *o, char *msg, size_t msglen);

/* A label key ([A-Za-z0-9_.-], 1..64) and value (printable, no control
 * characters, at most 256 bytes). */
int zr_label_key_ok(const char *k);
int zr_label_value_ok(const char *v);
/* Lowercase hex digits only, length in [min, max]. */
int zr_hex_ok(const char *s, size_t min, size_t max);

/*
 * "HOST:PORT", "[V6]:PORT" or ":PORT" / "PORT" (loopback) to a socket
 * address. HOST is numeric (no name lookups). 0 or -EINVAL.
 */
int zr_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len);
/* Whether the address is loopback (127.0.0.0/8, ::1, ::ffff:127.x). */
int zr_addr_is_loopback(const struct sockaddr_storage *ss);

/*
 * A source file's path as it comes in a request target (after
 * ".../source/"): percent-decoded ('+' stays '+'), empty components
 * ("//", a leading or trailing '/') dropped, and refused (400, msg set)
 * for a bad escape, a NUL or another control byte, DEL, a "." or ".."
 * component, nothing left, or more than ZR_MAX_SRCPATH bytes. What is
 * left is the absolute path without its first '/' ("usr/src/a.c"): the
 * name it is stored and found under. Returns 0 with *out malloc'ed, or
 * 400 / 500 (out of memory).
 */
int zr_srcpath(const char *raw, size_t n, char **out, char *msg, size_t msglen);

/*
 * A header of percent-escaped text (X-ZT-Description: UTF-8, no control
 * characters, at most max bytes decoded; X-ZT-Symbol-File with basename
 * set: also no '/', not "." or "..", not empty) to its canonical escaped
 * form in out (every byte outside [A-Za-z0-9._~/+-] as %XX, '/' too when
 * basename): what the store keeps and sends back. 0, or -EINVAL (bad
 * escape, control character, not UTF-8, too long) or -ENOSPC (out too
 * small: 3 * max + 1 bytes is always enough).
 */
int zr_pct_text(const char *in, size_t max, int basename, char *out, size_t outlen);

/* Parse "X-ZT-Symbol-Quality" (full|basic|none; "functions" is basic) to
 * symmod's level (server/symq.h): 2 1 0; -1 bad. */
int zr_symbol_quality(const char *s);

/* Decimal helpers: whole string, no sign for u64, range checked. 0 or -EINVAL. */
int zr_parse_u64(const char *s, uint64_t max, uint64_t *v);
int zr_parse_i64(const char *s, int64_t *v);

#endif
