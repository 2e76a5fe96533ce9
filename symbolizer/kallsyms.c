/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel text symbols from /proc/kallsyms text: parsed in one pass, sorted
 * by address, one name per address, each symbol ending where the next begins.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/text.h"
#include "symbolizer/kallsyms.h"
#include "symbolizer/symname.h"

/* No kernel function is this long: the extent of a symbol followed by a
 * gap (the last one, or the last before the module area) stops here. */
#define KSYM_MAX_SIZE (1u << 20)
#define KSYM_NAME_MAX 1024 /* longer "names" are garbage lines */
#define KERNEL_MODULE "[kernel.kallsyms]"

struct ksym {
	uint64_t addr, end;
	uint32_t name, mod; /* into pool */
};

struct kallsyms {
	struct ksym *syms;
	size_t n;
	char *pool;
};

/* a symbol while parsing */
struct praw {
	uint64_t addr;
	uint32_t name, mod;
	uint32_t seq;
	char type;
};

struct pool {
	char *buf;
	size_t len, cap;
};

/* Append s[0..n) and a NUL (prefix/suffix around it when non-zero);
 * returns the offset or -1 when out of memory or past 4 GiB. */
static int64_t pool_add(struct pool *p, char prefix, const char *s, size_t n, char suffix)
{
	size_t need = n + 3, off = p->len;
	char *d;

	if (need > UINT32_MAX - p->len)
		return -1;
	if (p->len + need > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		char *nb;

		while (cap < p->len + need)
			cap *= 2;
		nb = realloc(p->buf, cap);
		if (!nb)
			return -1;
		p->buf = nb;
		p->cap = cap;
	}
	d = p->buf + p->len;
	if (prefix)
		*d++ = prefix;
	memcpy(d, s, n);
	d += n;
	if (suffix)
		*d++ = suffix;
	*d++ = 0;
	p->len = (size_t)(d - p->buf);
	return (int64_t)off;
}

/* By address, then file order. */
static int praw_cmp(const void *pa, const void *pb)
{
	const struct praw *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * Of the symbols at one address (raw[i..j), file order), perf's: every
 * kallsyms symbol is sizeless and perf ends each at the next address
 * before it drops aliases, so the last one has an extent and wins
 * (symname_cmp() decides the rest).
 */
static size_t choose(const struct praw *raw, size_t i, size_t j, const char *pool)
{
	struct symname_cand bc = { 0 }, c;
	size_t best = i, x;

	for (x = i; x < j; x++) {
		c = (struct symname_cand){ pool + raw[x].name, raw[x].seq, x + 1 == j,
					   symname_kbind(raw[x].type) };
		if (x == i || symname_cmp(&c, &bc) < 0) {
			bc = c;
			best = x;
		}
	}
	return best;
}

/*
 * One line "ADDR TYPE NAME [\t[MODULE]]" (without its newline). Returns 1
 * for a text symbol and fills the out parameters, 0 for anything else.
 */
static int parse_line(const char *p, const char *end, uint64_t *addr, char *type,
		      const char **name, size_t *nlen, const char **mod, size_t *mlen)
{
	uint64_t a = 0;
	const char *s;
	int digits = 0, v;

	while (p < end && (v = zt_hexval(*p)) >= 0) {
		if (++digits > 16)
			return 0;
		a = a << 4 | (uint64_t)v;
		p++;
	}
	if (!digits || p == end || !zt_is_blank(*p))
		return 0;
	while (p < end && zt_is_blank(*p))
		p++;
	if (p == end)
		return 0;
	*type = *p++;
	if (*type != 't' && *type != 'T' && *type != 'w' && *type != 'W')
		return 0;
	if (p == end || !zt_is_blank(*p))
		return 0;
	while (p < end && zt_is_blank(*p))
		p++;
	s = p;
	while (p < end && !zt_is_blank(*p) && *p)
		p++;
	if (p == s || (size_t)(p - s) > KSYM_NAME_MAX)
		return 0;
	*addr = a;
	*name = s;
	*nlen = (size_t)(p - s);
	*mod = NULL;
	*mlen = 0;
	while (p < end && zt_is_blank(*p))
		p++;
	if (p < end && *p == '[') {
		s = ++p;
		while (p < end && *p != ']' && *p)
			p++;
		if (p < end && *p == ']' && p > s && (size_t)(p - s) <= KSYM_NAME_MAX) {
			*mod = s;
			*mlen = (size_t)(p - s);
		}
	}
	return 1;
}

int kallsyms_parse(const char *text, size_t len, struct kallsyms **out)
{
	struct pool pool = { 0 };
	struct praw *raw = NULL;
	struct kallsyms *k = NULL;
	const char *p = text, *end = len ? text + len : text, *last_mod = NULL;
	size_t n = 0, cap = 0, i, j, m;
	size_t last_mlen = 0;
	uint32_t cur_mod = 0;
	int64_t off;
	int ret = -ENOMEM;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		goto out;
	off = pool_add(&pool, 0, KERNEL_MODULE, strlen(KERNEL_MODULE), 0);
	if (off < 0)
		goto out;
	cur_mod = (uint32_t)off;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *name, *mod;
		size_t nlen, mlen;
		uint64_t addr;
		char type;

		if (!eol)
			eol = end;
		if (parse_line(p, eol, &addr, &type, &name, &nlen, &mod, &mlen) && addr) {
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 4096;
				struct praw *nr;

				if (ncap > UINT32_MAX)
					goto out;
				nr = realloc(raw, ncap * sizeof(*raw));
				if (!nr)
					goto out;
				raw = nr;
				cap = ncap;
			}
			/* consecutive lines of one module share its string */
			if (mlen != last_mlen || (mlen && memcmp(mod, last_mod, mlen) != 0)) {
				if (!mlen) {
					cur_mod = 0;
				} else {
					off = pool_add(&pool, '[', mod, mlen, ']');
					if (off < 0)
						goto out;
					cur_mod = (uint32_t)off;
				}
				last_mod = mod;
				last_mlen = mlen;
			}
			off = pool_add(&pool, 0, name, nlen, 0);
			if (off < 0)
				goto out;
			raw[n].addr = addr;
			raw[n].name = (uint32_t)off;
			raw[n].mod = cur_mod;
			raw[n].seq = (uint32_t)n;
			raw[n].type = type;
			n++;
		}
		p = eol + 1;
	}

	if (n) {
		qsort(raw, n, sizeof(*raw), praw_cmp);
		k->syms = malloc(n * sizeof(*k->syms));
		if (!k->syms)
			goto out;
	}
	for (i = 0, m = 0; i < n; i = j) {
		size_t b;

		for (j = i + 1; j < n && raw[j].addr == raw[i].addr; j++)
			;
		b = choose(raw, i, j, pool.buf);
		k->syms[m].addr = raw[b].addr;
		k->syms[m].name = raw[b].name;
		k->syms[m].mod = raw[b].mod;
		m++;
	}
	/* a symbol ends where the next one starts (its module's end, when the
	 * next belongs to another module), and never past KSYM_MAX_SIZE */
	for (i = 0; i < m; i++) {
		uint64_t a = k->syms[i].addr, e = a + KSYM_MAX_SIZE;

		if (e < a)
			e = UINT64_MAX;
		if (i + 1 < m && k->syms[i + 1].addr < e)
			e = k->syms[i + 1].addr;
		k->syms[i].end = e;
	}
	k->n = m;
	k->pool = pool.buf;
	pool.buf = NULL;
	*out = k;
	k = NULL;
	ret = 0;
out:
	free(raw);
	free(pool.buf);
	kallsyms_free(k);
	return ret;
}

void kallsyms_free(struct kallsyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->pool);
	free(k);
}

size_t kallsyms_count(const struct kallsyms *k)
{
	return k->n;
}

long kallsyms_find(const struct kallsyms *k, uint64_t addr, uint64_t *off)
{
	size_t lo = ZT_UPPER_BOUND(k->syms, k->n, addr, addr);

	if (!lo || addr >= k->syms[lo - 1].end)
		return -1;
	if (off)
		*off = addr - k->syms[lo - 1].addr;
	return (long)(lo - 1);
}

const char *kallsyms_at(const struct kallsyms *k, size_t i, const char **module)
{
	if (i >= k->n)
		return NULL;
	if (module)
		*module = k->pool + k->syms[i].mod;
	return k->pool + k->syms[i].name;
}

int kallsyms_is_core(const char *module)
{
	return !strcmp(module, KERNEL_MODULE);
}

const char *kallsyms_lookup(const struct kallsyms *k, uint64_t addr, uint64_t *off,
			    const char **module)
{
	long i = kallsyms_find(k, addr, off);

	return i < 0 ? NULL : kallsyms_at(k, (size_t)i, module);
}
