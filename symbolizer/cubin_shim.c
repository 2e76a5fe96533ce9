// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Until the full cubin decoder (branch i18-cubin) lands: weak stand-ins for
 * cubin_save()/cubin_load(), so everything that uses the cubin cache links
 * and runs, without caching (-EOPNOTSUPP: cubincache_open() then decodes
 * every time). The decoder's own definitions override these; delete this
 * file when it is merged.
 */
#include <errno.h>

#include "symbolizer/cubin.h"

__attribute__((weak)) int cubin_save(const struct cubin *c, uint8_t **buf, size_t *len)
{
	return -EOPNOTSUPP;
}

__attribute__((weak)) int cubin_load(const void *data, size_t len, struct cubin **out)
{
	*out = NULL;
	return -EOPNOTSUPP;
}
