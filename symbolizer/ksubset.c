// SPDX-License-Identifier: GPL-2.0-or-later
/* Cut a kallsyms snapshot down to the symbols sampled addresses need. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/text.h"
#include "symbolizer/ksubset.h"

static int is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Runs body for each text symbol line of text, with a (its address), s and
 * ll (the line, without its newline) and edge (it names _text or _etext). */
#define FOR_EACH_LINE(text, len, ...)                                                          \
	do {                                                                                    \
		size_t pos_ = 0;                                                                \
		while (pos_ < (len)) {                                                          \
			const char *s = (text) + pos_, *nl_ = memchr(s, '\n', (len) - pos_);     \
			size_t ll = nl_ ? (size_t)(nl_ - s) : (len) - pos_, j_ = 0;              \
			uint64_t a = 0;                                                         \
			int edge;                                                               \
                                                                                                \
			pos_ += ll + 1;                                                         \
			for (int d_; j_ < ll && j_ < 16 && (d_ = zt_hexval(s[j_])) >= 0; j_++)   \
				a = a << 4 | (uint64_t)d_;                                      \
			if (!j_ || j_ + 3 > ll || s[j_] != ' ' || !is_text(s[j_ + 1]) || s[j_ + 2] != ' ') \
				continue;                                                       \
			edge = (ll - j_ - 3 == 5 && !memcmp(s + j_ + 3, "_text", 5)) ||         \
			       (ll - j_ - 3 == 6 && !memcmp(s + j_ + 3, "_etext", 6));          \
			__VA_ARGS__                                                             \
		}                                                                               \
	} while (0)

/*
 * Without sorting the ~120k lines: with the q sorted distinct addresses
 * asked about, the symbol covering q[k] starts at the largest line
 * address <= q[k], which is the running maximum of best[0..k] when each
 * line address a is filed under the first q >= a. The end of that symbol
 * is the smallest line address above it, found the same way with the
 * starts. Two passes over the text, O(lines * log(queries)).
 */
int kallsyms_subset(const char *text, size_t len, const uint64_t *ips, size_t n, struct zbuf *out)
{
	uint64_t *q = NULL, *best = NULL, *start = NULL, *next = NULL;
	size_t nq = 0, ns = 0, i;
	int err = -ENOMEM;

	if (n) {
		q = malloc(n * sizeof(*q));
		best = calloc(n, sizeof(*best));
		start = malloc(n * sizeof(*start));
		next = malloc(n * sizeof(*next));
		if (!q || !best || !start || !next)
			goto out;
		memcpy(q, ips, n * sizeof(*q));
		qsort(q, n, sizeof(*q), cmp_u64);
		for (i = 0; i < n; i++)
			if (!nq || q[nq - 1] != q[i])
				q[nq++] = q[i];
	}
	/* pass 1: the start of the symbol covering each address (0: none) */
	FOR_EACH_LINE(text, len, {
		size_t k = zt_upper_bound_u64(q, nq, sizeof(*q), 0, a - 1); /* first q >= a */

		(void)edge;
		if (k < nq && a <= q[k] && a > best[k])
			best[k] = a;
	});
	for (i = 1; i < nq; i++)
		if (best[i - 1] > best[i])
			best[i] = best[i - 1];
	for (i = 0; i < nq; i++)
		if (best[i] && (!ns || start[ns - 1] != best[i]))
			start[ns++] = best[i];
	/* pass 2: each start's end, the next address above it */
	for (i = 0; i < ns; i++)
		next[i] = UINT64_MAX;
	FOR_EACH_LINE(text, len, {
		size_t k = zt_upper_bound_u64(start, ns, sizeof(*start), 0, a - 1); /* starts < a: [0, k) */

		(void)edge;
		if (k && a < next[k - 1])
			next[k - 1] = a;
	});
	for (i = ns; i-- > 1;)
		if (next[i] < next[i - 1])
			next[i - 1] = next[i];
	/* pass 3: the lines at those addresses, and _text/_etext, in text order */
	FOR_EACH_LINE(text, len, {
		size_t k = zt_upper_bound_u64(start, ns, sizeof(*start), 0, a);
		size_t e = zt_upper_bound_u64(next, ns, sizeof(*next), 0, a); /* next[] is sorted */

		if (edge || (k && start[k - 1] == a) || (e && next[e - 1] == a)) {
			zbuf_put(out, s, ll);
			zbuf_put_u8(out, '\n');
		}
	});
	err = out->err;
out:
	free(q);
	free(best);
	free(start);
	free(next);
	return err;
}

/* The address of the line that starts at off (0 if it has none). */
static uint64_t addr_at(const char *t, size_t len, size_t off)
{
	uint64_t a = 0;
	size_t j;
	int d;

	for (j = off; j < len && j - off < 16 && (d = zt_hexval(t[j])) >= 0; j++)
		a = a << 4 | (uint64_t)d;
	return a;
}

/* The start of the line holding byte off. */
static size_t line_start(const char *t, size_t off)
{
	while (off && t[off - 1] != '\n')
		off--;
	return off;
}

static size_t line_end(const char *t, size_t len, size_t off)
{
	const char *nl = memchr(t + off, '\n', len - off);

	return nl ? (size_t)(nl - t) : len;
}

static void put_line(struct zbuf *out, const char *t, size_t len, size_t off)
{
	size_t e = line_end(t, len, off);

	zbuf_put(out, t + off, e - off);
	zbuf_put_u8(out, '\n');
}

int kallsyms_subset_sorted(const char *text, size_t len, const uint64_t *ips, size_t n,
			   struct zbuf *out)
{
	uint64_t last = 0;
	size_t i;

	/* _text and _etext: where the kernel's text lies (a perf.data written
	 * from this needs them for its kernel map) */
	static const char *const edges[] = { " T _text\n", " T _etext\n" };

	for (i = 0; i < 2; i++) {
		const char *hit = memmem(text, len, edges[i], strlen(edges[i]));

		if (hit && hit - text >= 16)
			put_line(out, text, len, line_start(text, (size_t)(hit - text)));
	}
	for (i = 0; i < n; i++) {
		size_t lo = 0, hi = len, at;
		uint64_t a;

		/* the last line whose address is <= ips[i]: bisect byte offsets */
		while (hi - lo > 1) {
			size_t mid = line_start(text, lo + (hi - lo) / 2);

			if (mid <= lo)
				mid = line_end(text, len, lo + (hi - lo) / 2) + 1;
			if (mid >= hi)
				break;
			if (addr_at(text, len, mid) <= ips[i])
				lo = mid;
			else
				hi = mid;
		}
		at = line_start(text, lo);
		a = addr_at(text, len, at);
		if (!len || a > ips[i] || a == last)
			continue;
		last = a;
		/* back to the first alias at that address */
		while (at) {
			size_t prev = line_start(text, at - 1);

			if (addr_at(text, len, prev) != a)
				break;
			at = prev;
		}
		/* it, the others at its address, and the next symbol: its end */
		while (at < len) {
			put_line(out, text, len, at);
			at = line_end(text, len, at) + 1;
			if (at >= len || addr_at(text, len, at) != a) {
				if (at < len)
					put_line(out, text, len, at);
				break;
			}
		}
	}
	return out->err;
}

struct kline {
	uint64_t addr;
	size_t off, len;
};

static int cmp_kline(const void *a, const void *b)
{
	const struct kline *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off; /* stable: text order */
}

int kallsyms_sorted_text(const char *text, size_t len, struct zbuf *out)
{
	struct kline *l = NULL;
	size_t nr = 0, cap = 0, i;
	int err = -ENOMEM;

	FOR_EACH_LINE(text, len, {
		(void)edge;
		if (ZT_GROW(l, cap, nr + 1))
			goto out;
		l[nr++] = (struct kline){ a, (size_t)(s - text), ll };
	});
	if (nr)
		qsort(l, nr, sizeof(*l), cmp_kline);
	for (i = 0; i < nr; i++) {
		zbuf_put(out, text + l[i].off, l[i].len);
		zbuf_put_u8(out, '\n');
	}
	err = out->err;
out:
	free(l);
	return err;
}
