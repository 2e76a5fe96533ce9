// SPDX-License-Identifier: GPL-2.0-or-later
/* Cut a kallsyms snapshot down to the symbols sampled addresses need. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "symbolizer/ksubset.h"

struct kline {
	uint64_t addr;
	size_t off, len; /* the line, without its newline */
	int keep;
};

static int cmp_kline(const void *a, const void *b)
{
	const struct kline *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

int kallsyms_subset(const char *text, size_t len, const uint64_t *ips, size_t n, struct zbuf *out)
{
	struct kline *l = NULL;
	size_t nr = 0, cap = 0, pos = 0, i;
	int err = 0;

	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - s) : len - pos;
		uint64_t a = 0;
		size_t j = 0;

		pos += ll + 1;
		while (j < ll && j < 16 && ((s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'f'))) {
			a = a << 4 | (uint64_t)(s[j] <= '9' ? s[j] - '0' : s[j] - 'a' + 10);
			j++;
		}
		if (!j || j + 3 > ll || s[j] != ' ' || !is_text(s[j + 1]) || s[j + 2] != ' ')
			continue;
		if (ZT_GROW(l, cap, nr + 1)) {
			err = -ENOMEM;
			goto out;
		}
		l[nr].addr = a;
		l[nr].off = (size_t)(s - text);
		l[nr].len = ll;
		l[nr].keep = (ll - j - 3 == 5 && !memcmp(s + j + 3, "_text", 5)) ||
			     (ll - j - 3 == 6 && !memcmp(s + j + 3, "_etext", 6));
		nr++;
	}
	if (!nr)
		goto out;
	qsort(l, nr, sizeof(*l), cmp_kline);
	for (i = 0; i < n; i++) {
		size_t lo = 0, hi = nr;

		/* the last line with addr <= ip */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (l[mid].addr <= ips[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			continue;
		l[lo - 1].keep = 1;
		/* its end: the next symbol at a higher address */
		for (hi = lo; hi < nr && l[hi].addr == l[lo - 1].addr; hi++)
			;
		if (hi < nr)
			l[hi].keep = 1;
	}
	for (i = 0; i < nr; i++) {
		if (!l[i].keep)
			continue;
		zbuf_put(out, text + l[i].off, l[i].len);
		zbuf_put_u8(out, '\n');
	}
	err = out->err;
out:
	free(l);
	return err;
}
