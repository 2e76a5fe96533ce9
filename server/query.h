/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt serve's queries over a selection of stored profiles (server/store.h):
 * the list, and the merged top, folded stacks, pprof and flame graphs,
 * their frames shown as the symbol cache (server/symcache.h) names them.
 * Above the store: it reads the store, the store never calls it.
 */
#ifndef ZT_SERVER_QUERY_H
#define ZT_SERVER_QUERY_H

#include <stddef.h>

#include "libprof/zbuf.h"
#include "server/store.h"

/* Append JSON to out. */
int zs_list_json(struct zs_store *s, const struct zs_selection *sel, struct zbuf *out);
/* One profile's JSON object. -ENOENT. */
int zs_profile_json(struct zs_store *s, const char *id, struct zbuf *out);

enum zs_sort { ZS_SORT_SELF, ZS_SORT_CHILDREN };

/* Merged over the selection (an empty selection matches nothing: still a
 * valid, empty answer). */
int zs_query_top(struct zs_store *s, const struct zs_selection *sel, size_t limit,
		 enum zs_sort sort, struct zbuf *json);
int zs_query_folded(struct zs_store *s, const struct zs_selection *sel, struct zbuf *text);
int zs_query_pprof(struct zs_store *s, const struct zs_selection *sel, struct zbuf *gz);

/* A flame graph the server draws has at most this many frames: the
 * narrowest are left out beyond it (the SVG's subtitle says so). With the
 * longest names that is about 10 MB of SVG. */
#define ZS_FLAME_MAX_FRAMES 20000
struct zs_flame_opts {
	const char *title; /* NULL: default */
	unsigned width;    /* 0: 1200 */
	double minwidth;   /* <0: default */
	int inverted;
};
int zs_query_flame(struct zs_store *s, const struct zs_selection *sel,
		   const struct zs_flame_opts *o, struct zbuf *svg);
/* Differential flame graph: b (new) against a (baseline). */
int zs_query_diff(struct zs_store *s, const struct zs_selection *a, const struct zs_selection *b,
		  const struct zs_flame_opts *o, struct zbuf *svg);

#endif
