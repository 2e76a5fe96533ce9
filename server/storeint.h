/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Between the store interface (server/store.c) and the queries above it
 * (server/query.c) only: the store's backends and caches a query reads.
 * A query reads the SQLite store's tables and aggregates
 * (server/sqlstore.h), or merges in ClickHouse (server/chstore.h) and has
 * the stacks it got put into those tables (zs_ch_resolve); either way it
 * shows frames through the symbolizer cache (server/symcache.h).
 */
#ifndef ZT_SERVER_STOREINT_H
#define ZT_SERVER_STOREINT_H

#include <stddef.h>
#include <stdint.h>

#include "server/chstore.h"
#include "server/sqlstore.h"
#include "server/store.h"
#include "server/symcache.h"

/* The store's SQLite store (tokens, symbols; profiles without ClickHouse). */
struct zs_sql *zs_store_sql(struct zs_store *s);
/* The store's ClickHouse, or NULL (profiles in SQLite). */
struct zs_ch *zs_store_ch(struct zs_store *s);
/* The store's symbolizer cache. */
struct zs_symcache *zs_store_symcache(struct zs_store *s);

/* The mem ids of the stacks of rows (UINT32_MAX: not in ClickHouse), their
 * stacks and frames read from ClickHouse into mem when not there yet. */
int zs_ch_resolve(struct zs_store *s, const struct zs_ch_row *rows, size_t n, uint32_t *local,
		  char *msg, size_t msglen);

#endif
