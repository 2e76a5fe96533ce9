/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Queries of zt serve's store (their functions, zs_query_*, zs_list_json
 * and zs_profile_json, are declared with the store in server/store.h):
 * selections parsed from a URL's parameters, and what the routes need
 * besides. Merging sums the stored per-profile aggregates in memory;
 * frames are symbolized once each, from the store's GSYM symbols (then
 * debuginfod when configured), and cached.
 */
#ifndef ZT_SERVER_QUERY_H
#define ZT_SERVER_QUERY_H

#include <stddef.h>

#include "server/store.h"

/* One query parameter of a URL, decoded. */
struct zs_param {
	const char *key, *value;
};

/*
 * The selection in params (n of them; strings borrowed: they must outlive
 * sel): id (repeatable), host, command, label=k=v (repeatable), from, to,
 * limit. With prefix ("a." or "b.", for diff), only keys that start with
 * it count (without it). Other keys are left to the caller. 0, or -EINVAL
 * with msg saying which parameter is wrong (an id that is not 64 hex
 * digits, a bad number, too many ids or labels, a key given twice).
 */
int zs_selection_parse(struct zs_selection *sel, const char *prefix, const struct zs_param *params,
		       size_t n, char *msg, size_t msglen);

#endif
