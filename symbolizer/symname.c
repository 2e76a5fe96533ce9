// SPDX-License-Identifier: GPL-2.0-or-later
/* perf's choice among aliases at one address. */
#include <ctype.h>
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

int symname_cmp(const struct symname_cand *a, const struct symname_cand *b)
{
	size_t ua, ub, la, lb;
	int wa = a->bind == STB_WEAK, wb = b->bind == STB_WEAK;
	int ga = a->bind == STB_GLOBAL, gb = b->bind == STB_GLOBAL;

	if (!a->sized != !b->sized)
		return a->sized ? -1 : 1;
	if (wa != wb)
		return wa ? 1 : -1;
	if (ga != gb)
		return ga ? -1 : 1;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

uint8_t symname_kbind(char type)
{
	if (type == 'W')
		return STB_WEAK;
	return isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL;
}
