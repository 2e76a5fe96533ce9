// SPDX-License-Identifier: GPL-2.0-or-later
/* The quality of symbols in zt serve's store (see symq.h). */
#include "server/symq.h"

#include <errno.h>

#include "symbolizer/gsym.h"

const char *zs_quality_name(int q)
{
	static const char *const names[] = {"none", "basic", "full"};

	return q >= ZS_Q_NONE && q <= ZS_Q_FULL ? names[q] : "?";
}

int zs_gsym_quality(const void *data, size_t len)
{
	struct gsym *g = NULL;
	int q;

	if (gsym_open_mem(data, len, &g))
		return -EBADMSG;
	q = gsym_has_lines(g) ? ZS_Q_FULL : gsym_nr_funcs(g) ? ZS_Q_BASIC : ZS_Q_NONE;
	gsym_free(g);
	return q;
}
