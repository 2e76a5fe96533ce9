// SPDX-License-Identifier: GPL-2.0-or-later
/* Sizes and durations as perf's options take them. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/units.h"

/* Digits, then what follows them in *unit. */
static int digits(const char *s, uint64_t *v, const char **unit)
{
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	*unit = end;
	return 0;
}

static int scale(uint64_t v, uint64_t mul, uint64_t *out)
{
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

int zt_parse_size(const char *s, unsigned flags, uint64_t *bytes)
{
	static const char units[] = "BKMGT";
	const char *u, *at;
	uint64_t v;
	int ret = digits(s, &v, &u);

	if (ret)
		return ret;
	if (!*u)
		return flags & ZT_SIZE_NEED_UNIT ? -EINVAL : scale(v, 1, bytes);
	at = strchr(units, toupper((unsigned char)u[0]));
	if (!at)
		return -EINVAL;
	if (u[1] && !(flags & ZT_SIZE_LONG_UNIT && at > units &&
		      (!strcmp(u + 1, "B") || !strcmp(u + 1, "iB"))))
		return -EINVAL;
	return scale(v, 1ull << (10 * (at - units)), bytes);
}

int zt_parse_duration(const char *s, uint64_t *ns)
{
	const char *u;
	uint64_t v, mul;
	int ret = digits(s, &v, &u);

	if (ret)
		return ret;
	if (!u[0] || u[1])
		return -EINVAL;
	switch (u[0]) {
	case 's': mul = 1; break;
	case 'm': mul = 60; break;
	case 'h': mul = 3600; break;
	case 'd': mul = 86400; break;
	default: return -EINVAL;
	}
	if (scale(v, mul, &v))
		return -ERANGE;
	return scale(v, 1000000000ull, ns);
}
