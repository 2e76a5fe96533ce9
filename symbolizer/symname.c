// SPDX-License-Identifier: GPL-2.0-or-later
/* The preferred name among aliases at one address. */
#include <gelf.h>
#include <string.h>

#include "symbolizer/symname.h"

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

int symname_pref(const char *a, const char *b)
{
	size_t ua = leading_underscores(a), ub = leading_underscores(b), la, lb;

	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a);
	lb = strlen(b);
	if (la != lb)
		return la < lb ? -1 : 1;
	return 0;
}

int symname_bind_rank(unsigned char st_info)
{
	switch (GELF_ST_BIND(st_info)) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}
