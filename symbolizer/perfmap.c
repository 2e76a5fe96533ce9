/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf maps of JIT code: entries in line order, flattened once into sorted,
 * disjoint segments where each address shows the latest entry covering it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/procfile.h"
#include "libprof/text.h"
#include "symbolizer/perfmap.h"

#define PERFMAP_NAME_MAX 4096 /* longer names are cut */

struct pm_entry {
	uint64_t start, end; /* [start, end) */
	uint32_t name;       /* into pool */
};

/* [start, end) shows entry idx */
struct pm_seg {
	uint64_t start, end;
	uint32_t idx;
};

struct perfmap {
	struct pm_entry *ents; /* in line order: a higher index wins */
	size_t n;
	struct pm_seg *segs;
	size_t nseg;
	char *pool;
};

/* A hex number with optional 0x; returns the position after it or NULL. */
static const char *parse_hex(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0, d;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && zt_hexval(p[2]) >= 0)
		p += 2;
	while (p < end && (d = zt_hexval(*p)) >= 0) {
		if (v >> 60)
			return NULL;
		v = v << 4 | (uint64_t)d;
		digits++;
		p++;
	}
	if (!digits)
		return NULL;
	*out = v;
	return p;
}

/* "START SIZE NAME" without its newline; name is the rest of the line,
 * spaces included, trimmed at both ends. */
static int parse_line(const char *p, const char *end, uint64_t *start, uint64_t *size,
		      const char **name, size_t *nlen)
{
	const char *nul = memchr(p, 0, (size_t)(end - p));

	/* a NUL ends the line: names are C strings */
	if (nul)
		end = nul;
	while (p < end && zt_is_blank(*p))
		p++;
	p = parse_hex(p, end, start);
	if (!p || p == end || !zt_is_blank(*p))
		return 0;
	while (p < end && zt_is_blank(*p))
		p++;
	p = parse_hex(p, end, size);
	if (!p || p == end || !zt_is_blank(*p))
		return 0;
	while (p < end && zt_is_blank(*p))
		p++;
	while (end > p && zt_is_blank(end[-1]))
		end--;
	if (p == end)
		return 0;
	*name = p;
	*nlen = (size_t)(end - p);
	if (*nlen > PERFMAP_NAME_MAX)
		*nlen = PERFMAP_NAME_MAX;
	return 1;
}

/* ---- a max-heap of entry indices (the latest entry on top) ---- */

static void heap_push(uint32_t *h, size_t *n, uint32_t v)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2] < v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void heap_pop(uint32_t *h, size_t *n)
{
	size_t i = 0, c;
	uint32_t v = h[--(*n)];

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && h[c + 1] > h[c])
			c++;
		if (h[c] <= v)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

static int by_start_r(const void *pa, const void *pb, void *ctx)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct pm_entry *e = ctx;

	if (e[a].start != e[b].start)
		return e[a].start < e[b].start ? -1 : 1;
	return a < b ? -1 : a > b;
}

/*
 * Sweep the entries by start, keeping those that cover the current point
 * in a heap ordered by line (expired ones are dropped lazily when they
 * reach the top): between two events the top entry is the visible one.
 * O(n log n); at most 2n segments.
 */
static int flatten(struct perfmap *m)
{
	uint32_t *order = NULL, *heap = NULL;
	size_t i = 0, nh = 0, n = m->n;
	uint64_t pos = 0;
	int ret = -ENOMEM;

	if (!n)
		return 0;
	order = malloc(n * sizeof(*order));
	heap = malloc(n * sizeof(*heap));
	m->segs = malloc(2 * n * sizeof(*m->segs));
	if (!order || !heap || !m->segs)
		goto out;
	for (i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), by_start_r, m->ents);

	i = 0;
	while (i < n || nh) {
		const struct pm_entry *top;
		uint64_t next;

		if (!nh)
			pos = m->ents[order[i]].start;
		while (i < n && m->ents[order[i]].start == pos)
			heap_push(heap, &nh, order[i++]);
		while (nh && m->ents[heap[0]].end <= pos)
			heap_pop(heap, &nh);
		if (!nh)
			continue;
		top = &m->ents[heap[0]];
		next = top->end;
		if (i < n && m->ents[order[i]].start < next)
			next = m->ents[order[i]].start;
		if (m->nseg && m->segs[m->nseg - 1].idx == heap[0] &&
		    m->segs[m->nseg - 1].end == pos) {
			m->segs[m->nseg - 1].end = next;
		} else {
			m->segs[m->nseg].start = pos;
			m->segs[m->nseg].end = next;
			m->segs[m->nseg].idx = heap[0];
			m->nseg++;
		}
		pos = next;
	}
	ret = 0;
out:
	free(order);
	free(heap);
	return ret;
}

int perfmap_parse(const char *text, size_t len, struct perfmap **out)
{
	struct perfmap *m = NULL;
	const char *p = text, *end = len ? text + len : text;
	size_t cap = 0, pool_len = 0, pool_cap = 0;
	int ret = -ENOMEM;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto out;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *name;
		uint64_t start, size;
		size_t nlen;

		if (!eol)
			eol = end;
		if (parse_line(p, eol, &start, &size, &name, &nlen) && size) {
			if (m->n == cap) {
				size_t ncap = cap ? cap * 2 : 256;
				struct pm_entry *ne;

				if (ncap > UINT32_MAX / 2)
					goto out;
				ne = realloc(m->ents, ncap * sizeof(*ne));
				if (!ne)
					goto out;
				m->ents = ne;
				cap = ncap;
			}
			if (nlen + 1 > UINT32_MAX - pool_len)
				goto out;
			if (pool_len + nlen + 1 > pool_cap) {
				size_t ncap = pool_cap ? pool_cap : 4096;
				char *np;

				while (ncap < pool_len + nlen + 1)
					ncap *= 2;
				np = realloc(m->pool, ncap);
				if (!np)
					goto out;
				m->pool = np;
				pool_cap = ncap;
			}
			memcpy(m->pool + pool_len, name, nlen);
			m->pool[pool_len + nlen] = 0;
			m->ents[m->n].start = start;
			/* an entry running past the top of the address space stops there */
			m->ents[m->n].end = start + size < start ? UINT64_MAX : start + size;
			m->ents[m->n].name = (uint32_t)pool_len;
			pool_len += nlen + 1;
			m->n++;
		}
		p = eol + 1;
	}
	ret = flatten(m);
	if (ret)
		goto out;
	*out = m;
	m = NULL;
out:
	perfmap_free(m);
	return ret;
}

void perfmap_free(struct perfmap *m)
{
	if (!m)
		return;
	free(m->ents);
	free(m->segs);
	free(m->pool);
	free(m);
}

size_t perfmap_count(const struct perfmap *m)
{
	return m->n;
}

const char *perfmap_lookup(const struct perfmap *m, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = m->nseg;
	const struct pm_seg *s;

	lo = ZT_UPPER_BOUND(m->segs, hi, start, addr);
	if (!lo)
		return NULL;
	s = &m->segs[lo - 1];
	if (addr >= s->end)
		return NULL;
	if (off)
		*off = addr - m->ents[s->idx].start;
	return m->pool + m->ents[s->idx].name;
}

/* JIT code: mappings of no file (as the resolver takes them; memfd is a file to perf) */
static int anon_exec(const struct prof_mmap *m)
{
	const char *s = m->path;

	return m->pid != ZT_PID_KERNEL && (!s[0] || !strncmp(s, "//anon", 6) || !strncmp(s, "[anon", 5) ||
					  !strncmp(s, "/dev/zero", 9) || !strncmp(s, "/anon_hugepage", 14));
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int perfmap_add_host(struct profile *p, const char *tmpdir, struct perfmap_host_info *info)
{
	struct perfmap_host_info dummy;
	/* pid 0: no process's root to enter, the file is looked up in this one */
	struct procfile_owner o = { 0 };
	uint32_t *pids = NULL;
	size_t i, k, n = 0;
	int ret = 0;

	info = info ? info : &dummy;
	memset(info, 0, sizeof(*info));
	for (k = 0; k < 4; k++)
		o.uid[k] = geteuid();
	/* the processes with JIT-like code, each once (a sort, not a search per
	 * mapping: a system-wide file has mappings by the million) */
	for (i = 0; i < p->nr_mmaps; i++) {
		if (!anon_exec(&p->mmaps[i]))
			continue;
		if (!pids && !(pids = malloc(p->nr_mmaps * sizeof(*pids))))
			return -ENOMEM;
		pids[n++] = p->mmaps[i].pid;
	}
	if (n > 1)
		qsort(pids, n, sizeof(*pids), u32_cmp);
	for (i = 0; i < n && !ret; i++) {
		char path[4096], *text = NULL;
		size_t len;
		int err;

		if ((i && pids[i] == pids[i - 1]) || profile_find_blob(p, PROF_BLOB_PERFMAP, pids[i]))
			continue;
		snprintf(path, sizeof(path), "%s/perf-%u.map", tmpdir ? tmpdir : "/tmp", pids[i]);
		err = procfile_read(&o, path, PROCFILE_MAX, &text, &len);
		if (err == -ENOMEM) {
			ret = err;
		} else if (!err) {
			ret = profile_add_blob(p, PROF_BLOB_PERFMAP, pids[i], 0, text, len);
			info->used++;
		} else if (err != -ENOENT) {
			if (!info->refused++) {
				info->refused_pid = pids[i];
				info->refused_err = err;
			}
		}
		free(text);
	}
	free(pids);
	return ret;
}
