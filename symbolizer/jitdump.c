// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jitdump reader: header, then records {u32 id, u32 total_size, u64 ts, ...}
 * in the writer's byte order, unaligned. Every length is checked against the
 * record, and every record against the bytes left.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/fileio.h"
#include "symbolizer/jitdump.h"

#define HEADER_SIZE 40
#define PREFIX_SIZE 16
#define LOAD_SIZE (PREFIX_SIZE + 40)   /* pid tid vma code_addr code_size code_index */
#define MOVE_SIZE (PREFIX_SIZE + 48)   /* pid tid vma old new code_size code_index */
#define DEBUG_SIZE (PREFIX_SIZE + 16)  /* code_addr nr_entry */
#define DEBUG_ENTRY_SIZE 16            /* addr lineno discrim, then name */
#define UNWIND_SIZE (PREFIX_SIZE + 24) /* unwinding_size eh_frame_hdr_size mapped_size */
#define FILE_MAX ((size_t)4 << 30)

struct jitdump {
	struct jitdump_header hdr;
	struct jitdump_stats st;
	struct jitdump_region *regions;
	size_t nregions, cap_regions;
	char **strs; /* owned strings: names and file names */
	size_t nstrs, cap_strs;
	size_t *order;    /* region indices sorted by start */
	uint64_t *maxend; /* running max of region ends along order */
	/* DEBUG_INFO waiting for the next LOAD (perf's rule) */
	struct jitdump_line *pending;
	size_t npending;
};

struct rd {
	const uint8_t *p;
	int swap;
};

static uint32_t get32(const struct rd *r, size_t off)
{
	uint32_t v;

	memcpy(&v, r->p + off, 4);
	return r->swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const struct rd *r, size_t off)
{
	uint64_t v;

	memcpy(&v, r->p + off, 8);
	return r->swap ? __builtin_bswap64(v) : v;
}

static uint64_t end_of(const struct jitdump_region *r)
{
	return r->start + r->size < r->start ? UINT64_MAX : r->start + r->size;
}

/* A new owned copy of p[0..n); the last string is reused when equal, as
 * consecutive debug records name the same files over and over. */
static const char *intern(struct jitdump *j, const char *p, size_t n)
{
	char *s;

	if (j->nstrs) {
		const char *last = j->strs[j->nstrs - 1];

		if (strlen(last) == n && !memcmp(last, p, n))
			return last;
	}
	if (ZT_GROW(j->strs, j->cap_strs, j->nstrs + 1))
		return NULL;
	s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, p, n);
	s[n] = 0;
	j->strs[j->nstrs++] = s;
	return s;
}

static struct jitdump_region *new_region(struct jitdump *j)
{
	struct jitdump_region *r;

	if (ZT_GROW(j->regions, j->cap_regions, j->nregions + 1))
		return NULL;
	r = &j->regions[j->nregions++];
	memset(r, 0, sizeof(*r));
	r->end_ts = UINT64_MAX;
	return r;
}

static void drop_pending(struct jitdump *j)
{
	free(j->pending);
	j->pending = NULL;
	j->npending = 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct jitdump_line *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* writers emit sorted entries; for the others, any fixed order */
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->discrim < y->discrim ? -1 : x->discrim > y->discrim;
}

static int sorted(const struct jitdump_line *l, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (l[i - 1].addr > l[i].addr)
			return 0;
	return 1;
}

static int parse_debug(struct jitdump *j, const struct rd *r, size_t len)
{
	uint64_t nr = get64(r, PREFIX_SIZE + 8);
	const char *prev = "";
	struct jitdump_line *lines;
	size_t off = DEBUG_SIZE, i;
	int ret = 0;

	drop_pending(j);
	/* each entry takes at least 16 bytes + a NUL */
	if (nr > (len - DEBUG_SIZE) / (DEBUG_ENTRY_SIZE + 1))
		return -EBADMSG;
	if (!nr)
		return 0;
	lines = calloc((size_t)nr, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const char *name;
		size_t left, n;

		if (len - off < DEBUG_ENTRY_SIZE + 1) {
			ret = -EBADMSG;
			goto out;
		}
		lines[i].addr = get64(r, off);
		lines[i].line = (int32_t)get32(r, off + 8);
		lines[i].discrim = (int32_t)get32(r, off + 12);
		off += DEBUG_ENTRY_SIZE;
		name = (const char *)r->p + off;
		left = len - off;
		n = strnlen(name, left);
		if (n == left) {
			ret = -EBADMSG;
			goto out;
		}
		/* "\xff" names the previous entry's file */
		lines[i].file = n == 1 && (uint8_t)name[0] == 0xff ? prev : intern(j, name, n);
		if (!lines[i].file) {
			ret = -ENOMEM;
			goto out;
		}
		prev = lines[i].file;
		off += n + 1;
	}
	if (!sorted(lines, (size_t)nr))
		qsort(lines, (size_t)nr, sizeof(*lines), cmp_line);
	j->pending = lines;
	j->npending = (size_t)nr;
	lines = NULL;
out:
	free(lines);
	return ret;
}

static int parse_load(struct jitdump *j, const struct rd *r, size_t len, uint64_t ts)
{
	uint64_t code_size = get64(r, PREFIX_SIZE + 24);
	struct jitdump_region *reg;
	const char *name;
	size_t area;

	if (code_size > len - LOAD_SIZE)
		return -EBADMSG;
	area = len - LOAD_SIZE - (size_t)code_size;
	/* the name is NUL-terminated; a missing NUL ends it at the code */
	name = intern(j, (const char *)r->p + LOAD_SIZE,
		      strnlen((const char *)r->p + LOAD_SIZE, area));
	reg = name ? new_region(j) : NULL;
	if (!reg)
		return -ENOMEM;
	reg->ts = ts;
	reg->pid = get32(r, PREFIX_SIZE);
	reg->tid = get32(r, PREFIX_SIZE + 4);
	reg->start = get64(r, PREFIX_SIZE + 16);
	reg->size = code_size;
	reg->code_index = get64(r, PREFIX_SIZE + 32);
	reg->name = name;
	reg->lines = j->pending;
	reg->nr_lines = j->npending;
	j->pending = NULL;
	j->npending = 0;
	return 0;
}

static int parse_move(struct jitdump *j, const struct rd *r, uint64_t ts)
{
	uint64_t old_addr = get64(r, PREFIX_SIZE + 16), new_addr = get64(r, PREFIX_SIZE + 24);
	uint64_t idx = get64(r, PREFIX_SIZE + 40);
	const struct jitdump_region *old = NULL;
	struct jitdump_region *reg;
	struct jitdump_line *lines = NULL;
	size_t i, nlines = 0, oi = SIZE_MAX;
	const char *name = "";

	/* the live region of this code at old_addr, else the last of this code */
	for (i = j->nregions; i-- > 0;) {
		struct jitdump_region *c = &j->regions[i];

		if (c->code_index != idx)
			continue;
		if (c->start == old_addr && c->end_ts == UINT64_MAX) {
			oi = i;
			break;
		}
		if (oi == SIZE_MAX)
			oi = i;
	}
	if (oi != SIZE_MAX) {
		old = &j->regions[oi];
		name = old->name;
		if (old->nr_lines) {
			lines = malloc(old->nr_lines * sizeof(*lines));
			if (!lines)
				return -ENOMEM;
			for (i = 0; i < old->nr_lines; i++) {
				lines[i] = old->lines[i];
				lines[i].addr += new_addr - old_addr;
			}
			nlines = old->nr_lines;
			/* still sorted, unless the shift wrapped around */
			if (!sorted(lines, nlines))
				qsort(lines, nlines, sizeof(*lines), cmp_line);
		}
	}
	reg = new_region(j); /* moves the array: old is stale from here */
	if (!reg) {
		free(lines);
		return -ENOMEM;
	}
	if (oi != SIZE_MAX && j->regions[oi].start == old_addr && j->regions[oi].end_ts == UINT64_MAX)
		j->regions[oi].end_ts = ts;
	reg->ts = ts;
	reg->pid = get32(r, PREFIX_SIZE);
	reg->tid = get32(r, PREFIX_SIZE + 4);
	reg->start = new_addr;
	reg->size = get64(r, PREFIX_SIZE + 32);
	reg->code_index = idx;
	reg->name = name;
	reg->lines = lines;
	reg->nr_lines = nlines;
	reg->moved = 1;
	return 0;
}

static int parse_record(struct jitdump *j, const struct rd *r, uint32_t id, size_t len,
			uint64_t ts)
{
	switch (id) {
	case JIT_CODE_LOAD:
		return len < LOAD_SIZE ? -EBADMSG : parse_load(j, r, len, ts);
	case JIT_CODE_MOVE:
		return len < MOVE_SIZE ? -EBADMSG : parse_move(j, r, ts);
	case JIT_CODE_DEBUG_INFO:
		return len < DEBUG_SIZE ? -EBADMSG : parse_debug(j, r, len);
	case JIT_CODE_CLOSE:
		j->st.closed = 1;
		return 0;
	case JIT_CODE_UNWINDING_INFO:
		/* not used for symbols; only checked */
		if (len < UNWIND_SIZE || get64(r, PREFIX_SIZE) > len - UNWIND_SIZE)
			return -EBADMSG;
		return 0;
	default:
		j->st.unknown++;
		return 0;
	}
}

static int cmp_order(const void *a, const void *b, void *arg)
{
	const struct jitdump_region *regs = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (regs[x].start != regs[y].start)
		return regs[x].start < regs[y].start ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int build_index(struct jitdump *j)
{
	size_t i;

	if (!j->nregions)
		return 0;
	j->order = malloc(j->nregions * sizeof(*j->order));
	j->maxend = malloc(j->nregions * sizeof(*j->maxend));
	if (!j->order || !j->maxend)
		return -ENOMEM;
	for (i = 0; i < j->nregions; i++)
		j->order[i] = i;
	qsort_r(j->order, j->nregions, sizeof(*j->order), cmp_order, j->regions);
	for (i = 0; i < j->nregions; i++) {
		uint64_t e = end_of(&j->regions[j->order[i]]);

		j->maxend[i] = i && j->maxend[i - 1] > e ? j->maxend[i - 1] : e;
	}
	return 0;
}

int jitdump_parse(const void *data, size_t len, struct jitdump **out)
{
	struct rd r = { data, 0 };
	struct jitdump *j;
	uint32_t magic, hsize;
	size_t off;
	int ret;

	*out = NULL;
	if (len < HEADER_SIZE)
		return -EBADMSG;
	memcpy(&magic, data, 4);
	if (magic == JITDUMP_MAGIC_SW)
		r.swap = 1;
	else if (magic != JITDUMP_MAGIC)
		return -EBADMSG;
	hsize = get32(&r, 8);
	if (hsize < HEADER_SIZE || hsize > len)
		return -EBADMSG;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->hdr.version = get32(&r, 4);
	j->hdr.elf_mach = get32(&r, 12);
	j->hdr.pid = get32(&r, 20);
	j->hdr.timestamp = get64(&r, 24);
	j->hdr.flags = get64(&r, 32);
	j->hdr.swapped = r.swap;
	if (j->hdr.flags & ~JITDUMP_FLAGS_ARCH_TIMESTAMP) {
		ret = -ENOTSUP;
		goto out;
	}
	for (off = hsize; off < len;) {
		struct rd rec = { (const uint8_t *)data + off, r.swap };
		uint32_t id, size;
		uint64_t ts;

		if (len - off < PREFIX_SIZE) {
			j->st.truncated = 1;
			break;
		}
		id = get32(&rec, 0);
		size = get32(&rec, 4);
		ts = get64(&rec, 8);
		if (size < PREFIX_SIZE || size > len - off) {
			j->st.truncated = 1;
			break;
		}
		ret = parse_record(j, &rec, id, size, ts);
		if (ret == -ENOMEM)
			goto out;
		if (ret)
			j->st.bad_records++;
		j->st.records++;
		off += size;
	}
	drop_pending(j);
	ret = build_index(j);
out:
	if (ret)
		jitdump_free(j);
	else
		*out = j;
	return ret;
}

int jitdump_open(const char *path, struct jitdump **out)
{
	size_t len;
	char *data;
	int ret;

	*out = NULL;
	ret = zt_read_file(path, FILE_MAX, &data, &len);
	if (ret)
		return ret;
	ret = jitdump_parse(data, len, out);
	free(data);
	return ret;
}

void jitdump_free(struct jitdump *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->nregions; i++)
		free((void *)j->regions[i].lines);
	for (i = 0; i < j->nstrs; i++)
		free(j->strs[i]);
	free(j->regions);
	free(j->strs);
	free(j->order);
	free(j->maxend);
	free(j->pending);
	free(j);
}

const struct jitdump_header *jitdump_header(const struct jitdump *j)
{
	return &j->hdr;
}

void jitdump_stats(const struct jitdump *j, struct jitdump_stats *s)
{
	*s = j->st;
}

size_t jitdump_count(const struct jitdump *j)
{
	return j->nregions;
}

const struct jitdump_region *jitdump_region(const struct jitdump *j, size_t i)
{
	return i < j->nregions ? &j->regions[i] : NULL;
}

const struct jitdump_line *jitdump_region_line(const struct jitdump_region *r, uint64_t addr)
{
	size_t lo = 0, hi = r->nr_lines;

	/* the first entry with addr > the address, then one back */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->lines[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &r->lines[lo - 1] : NULL;
}

const struct jitdump_region *jitdump_lookup(const struct jitdump *j, uint64_t addr, uint64_t ts,
					    const struct jitdump_line **line)
{
	const struct jitdump_region *best = NULL;
	size_t lo = 0, hi = j->nregions, i;

	/* hi = the first region in start order beginning past addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->regions[j->order[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* walk back while some earlier region may still reach addr */
	for (i = lo; i-- > 0 && j->maxend[i] > addr;) {
		const struct jitdump_region *r = &j->regions[j->order[i]];

		if (addr >= end_of(r) || r->ts > ts || (r->end_ts != UINT64_MAX && ts >= r->end_ts))
			continue;
		if (!best || r->ts > best->ts || (r->ts == best->ts && r > best))
			best = r;
	}
	if (line)
		*line = best ? jitdump_region_line(best, addr) : NULL;
	return best;
}
