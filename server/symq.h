/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The quality of a module's symbols in zt serve's store: full (file:line,
 * from DWARF or the like), basic (function names only) or none. It is
 * symmod's enum symq (symbolizer/symmod.h) and session/symstore.h's
 * SYMSTORE_*, kept alike in the catalogue's symbols.quality column, each
 * GSYM's .meta file ("quality N"), X-ZT-Symbol-Quality and the answers of
 * POST /api/v1/symbols/missing.
 *
 * The rule the store keeps: an upload of better quality replaces a worse
 * one; a worse or equal one never replaces a better one, unless forced
 * (a PUT without If-None-Match: *).
 */
#ifndef ZT_SERVER_SYMQ_H
#define ZT_SERVER_SYMQ_H

#include <stddef.h>

enum { ZS_Q_NONE = 0, ZS_Q_BASIC = 1, ZS_Q_FULL = 2 };

/* "none", "basic", "full"; "?" for another value. */
const char *zs_quality_name(int q);

/*
 * The quality a GSYM image holds: ZS_Q_FULL when a function has a
 * file:line row, ZS_Q_BASIC when it has functions, ZS_Q_NONE when it has
 * none (as symmod judges an image a symbol database did not say the
 * quality of); -EBADMSG when it does not open.
 */
int zs_gsym_quality(const void *data, size_t len);

/* The quality stored for an upload that says declared (-1: it does not
 * say) of an image that holds judged: the lower of the two. */
static inline int zs_quality_stored(int declared, int judged)
{
	return declared < 0 || judged < declared ? judged : declared;
}

#endif
