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

/* The time series of a selection: its values summed per step seconds
 * (step 0: chosen from the range, at most 1200 points; else a multiple
 * of the time bucket, server/tagg.h), from from to to (when open: the
 * selected profiles' first and last times), zeros included, as JSON:
 * {"type":T,"unit":U,"from":F,"to":T,"step":S,"points":[[t,v],...]}.
 * -EDOM: profiles of several types (zs_store_error() says which). */
int zs_query_timeline(struct zs_store *s, const struct zs_selection *sel, int64_t step,
		      struct zbuf *json);
/* The source lines of a function (its name as shown) over the selection:
 * {"function":F,"file":P,"unit":U,"lines":[{"line":N,"self":V,"total":V}],
 *  "text":[lines...] or null}: the lines of its file with the most value;
 * the text where the store has that source (zt symbols upload
 * --with-sources), else null. -ENOENT: no frame of that function. */
int zs_query_source(struct zs_store *s, const struct zs_selection *sel, const char *function,
		    struct zbuf *json);
/* Label discovery over the union of n selections, as Prometheus answers
 * /api/v1/labels and /api/v1/label/NAME/values:
 * {"status":"success","data":[...]}, sorted. The names include __name__,
 * host, command, comm and pid where the profiles have them. */
int zs_query_label_names(struct zs_store *s, const struct zs_selection *sel, size_t n,
			 struct zbuf *json);
int zs_query_label_values(struct zs_store *s, const struct zs_selection *sel, size_t n,
			  const char *name, struct zbuf *json);

/* The projects (only "only" when not NULL: a project's token sees its
 * own), the default first, each with its profiles:
 * {"projects":[{"name":N,"profiles":P},...]}. */
int zs_projects_json(struct zs_store *s, const char *only, struct zbuf *json);

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
