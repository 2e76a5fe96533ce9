/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The team symbol database (zt serve's GET /api/v1/symbols/ID) as one more
 * symbol source of the commands that symbolize (zt report --symdb URL):
 * symdb_remote_gsym() is the remote_gsym of struct symmod_opts.
 *
 * A slow or absent server must cost a report seconds, not minutes: the
 * connection is given about a second, an answer that stops flowing three
 * more, and a request is tried twice at most (once when it timed out). After the first failure to
 * get an answer (refused, timed out, 5xx) or a refused token (401, 403),
 * the server is not asked again in this run, and that is said once,
 * through zt_warn. A 404 is an ordinary "not there", said to no one.
 *
 * Thread-safe: requests are made one at a time under a lock.
 */
#ifndef ZT_NET_SYMDB_H
#define ZT_NET_SYMDB_H

#include <pthread.h>
#include <stddef.h>

#include "libprof/profile.h"
#include "net/client.h"
#include "symbolizer/symmod.h"

struct symdb_opts {
	const char *url;	 /* "http://host:port" of a zt serve; copied */
	const char *token;	 /* bearer token (read scope), or NULL; copied */
	long connect_timeout_ms; /* 0: 1 s */
	long low_speed_s;	 /* an answer that stalls this long is given up; 0: 3 s */
	int tries;		 /* attempts of a request; 0: 2 */
	size_t max_image;	 /* largest GSYM image taken; 0: 1 GiB */
};

struct symdb {
	struct zt_http *h;
	pthread_mutex_t lock;
	char source[256]; /* "symbol database URL" */
	int off;	  /* 1: failed or refused once, not asked again */
	int has_token;
	size_t max_image;
	/* build ids answered 404 in this run: not asked again */
	struct prof_build_id *absent;
	size_t nr_absent, cap_absent;
	unsigned asked, served; /* requests made, images taken */
};

/* A client of the server at o->url. Returns 0, -EINVAL (a bad URL or
 * token: msg says why), -ENOSYS (no libcurl: msg says which package),
 * -ENOMEM. */
int symdb_init(struct symdb *d, const struct symdb_opts *o, char *msg, size_t n);
void symdb_release(struct symdb *d);

/* The server's base URL. */
const char *symdb_url(const struct symdb *d);

/*
 * GET /api/v1/symbols/ID: the GSYM image of the module with build id (or
 * file id) id, its quality (X-ZT-Symbol-Quality, else a->q stays -1) and
 * load segments (X-ZT-Symbol-Load), a->source set to "symbol database
 * URL". a is filled only on success (the caller zeroes it and sets a->q =
 * -1; symmod_remote_release() frees it). Returns 0; -ENOENT (not there);
 * -EHOSTDOWN (the server is off for this run: did not answer, refused the
 * token or failed, said once); -ENOMEM.
 */
int symdb_get(struct symdb *d, const struct prof_build_id *id, struct symmod_remote *a);

/* symdb_get() as symmod_opts.remote_gsym (ctx: the struct symdb). */
int symdb_remote_gsym(void *ctx, const struct prof_build_id *id, struct symmod_remote *a);

/*
 * An X-ZT-Symbol-Load value, "OFF:VADDR:SIZE,..." (hex, no 0x), into segs
 * (at most max). 0, or -EINVAL for anything else (more than max segments
 * included); an empty value is no segments.
 */
int symdb_parse_load(const char *s, struct symmod_seg *segs, size_t max, size_t *nr);

#endif
