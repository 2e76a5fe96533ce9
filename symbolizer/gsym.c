// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LLVM GSYM v1: the writer mirrors GsymCreator/FunctionInfo/LineTable/
 * InlineInfo::encode byte for byte; the reader mirrors GsymReader::lookup.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/leb128.h"
#include "symbolizer/gsym.h"

enum { INFO_END = 0, INFO_LINES = 1, INFO_INLINE = 2, INFO_ZT = GSYM_INFO_ZT, INFO_LCK = GSYM_INFO_ZT_LCK };
#define LCK_SIZE 24 /* bytes per checkpoint */
#define ZT_EXTRA_VERSION 2
enum { OP_END = 0, OP_SET_FILE = 1, OP_ADVANCE_PC = 2, OP_ADVANCE_LINE = 3, OP_FIRST_SPECIAL = 4 };

/* ---- writer -------------------------------------------------------------- */

static void put_sleb(struct zbuf *b, int64_t v)
{
	uint8_t x[10];
	size_t n = 0;
	int more = 1;

	while (more) {
		uint8_t byte = (uint8_t)(v & 0x7f);

		v >>= 7; /* arithmetic shift (gcc) */
		if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)))
			more = 0;
		else
			byte |= 0x80;
		x[n++] = byte;
	}
	zbuf_put(b, x, n);
}

static void put32_at(struct zbuf *b, size_t pos, uint32_t v)
{
	if (b->err || pos + 4 > b->len)
		return;
	b->data[pos] = (uint8_t)v;
	b->data[pos + 1] = (uint8_t)(v >> 8);
	b->data[pos + 2] = (uint8_t)(v >> 16);
	b->data[pos + 3] = (uint8_t)(v >> 24);
}

static void put_align(struct zbuf *b, size_t start, size_t a)
{
	while ((b->len - start) % a)
		zbuf_put_u8(b, 0);
}

struct delta {
	int64_t d;
	uint32_t n;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* LineTable::encode's choice of the special-opcode line window: with more
 * than 15 distinct deltas, the 15-wide window covering the most rows. */
static int line_window(const struct fi_line *l, uint32_t n, int64_t *minp, int64_t *maxp)
{
	int64_t min = INT64_MAX, max = INT64_MIN, *d;
	struct delta *di;
	uint32_t i, nd = 0, best = 0, best_end = 0, best_count = 0;

	if (n == 1) {
		*minp = *maxp = 0;
		return 0;
	}
	for (i = 1; i < n; i++) {
		int64_t x = (int64_t)l[i].line - (int64_t)l[i - 1].line;

		min = x < min ? x : min;
		max = x > max ? x : max;
	}
	if (max - min > 14) {
		d = malloc((n - 1) * sizeof(*d));
		di = malloc((n - 1) * sizeof(*di));
		if (!d || !di) {
			free(d);
			free(di);
			return -ENOMEM;
		}
		for (i = 1; i < n; i++)
			d[i - 1] = (int64_t)l[i].line - (int64_t)l[i - 1].line;
		qsort(d, n - 1, sizeof(*d), cmp_i64);
		for (i = 0; i < n - 1; i++) {
			if (nd && di[nd - 1].d == d[i])
				di[nd - 1].n++;
			else
				di[nd++] = (struct delta){ d[i], 1 };
		}
		for (i = 0; i < nd; i++) {
			uint32_t j, count = 0;

			for (j = i; j < nd && di[j].d - di[i].d <= 14; j++)
				count += di[j].n;
			if (count > best_count) {
				best = i;
				best_end = j - 1;
				best_count = count;
			}
		}
		min = di[best].d;
		max = di[best_end].d;
		free(d);
		free(di);
	}
	if (min == max && min > 0 && min < 14)
		min = 0;
	*minp = min;
	*maxp = max;
	return 0;
}

/* The line table; with ck, the checkpoints (GSYM_INFO_ZT_LCK entries,
 * offsets from pos, the record's start) appended to ck. */
static int encode_lines(struct zbuf *b, uint64_t start, const struct fi_line *l, uint32_t n,
			struct zbuf *ck, size_t pos)
{
	int64_t min, max, range;
	uint64_t prev_addr = start;
	uint32_t prev_file = 1, prev_line = l[0].line, i;
	int err = line_window(l, n, &min, &max);

	if (err)
		return err;
	range = max - min + 1;
	put_sleb(b, min);
	put_sleb(b, max);
	zbuf_put_uv(b, prev_line);
	for (i = 0; i < n; i++) {
		uint64_t ad = l[i].addr - prev_addr;
		int64_t ld = 0;

		if (l[i].addr < prev_addr)
			return -EINVAL;
		/* LLVM's arithmetic, quirks included */
		if (l[i].line > prev_line)
			ld = l[i].line - prev_line;
		else if (prev_line > l[i].line)
			ld = -((int32_t)(prev_line - l[i].line));
		if (l[i].file != prev_file) {
			zbuf_put_u8(b, OP_SET_FILE);
			zbuf_put_uv(b, l[i].file);
		}
		if (ld >= min && ld <= max && ad <= 255 &&
		    (ld - min) + (int64_t)ad * range + OP_FIRST_SPECIAL <= 255) {
			zbuf_put_u8(b, (uint8_t)((ld - min) + (int64_t)ad * range + OP_FIRST_SPECIAL));
		} else {
			if (ld) {
				zbuf_put_u8(b, OP_ADVANCE_LINE);
				put_sleb(b, ld);
			}
			zbuf_put_u8(b, OP_ADVANCE_PC);
			zbuf_put_uv(b, ad);
		}
		prev_addr = l[i].addr;
		prev_file = l[i].file;
		prev_line = l[i].line;
		if (ck && (i + 1) % GSYM_LCK_STEP == 0 && i + 1 < n) {
			if (b->len - pos > UINT32_MAX)
				return -EOVERFLOW;
			zbuf_put_u32le(ck, (uint32_t)(b->len - pos));
			zbuf_put_u32le(ck, i + 1);
			zbuf_put_u32le(ck, prev_file);
			zbuf_put_u32le(ck, prev_line);
			zbuf_put_u64le(ck, prev_addr - start);
		}
	}
	zbuf_put_u8(b, OP_END);
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct fi_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The parts of in[] inside par[] (sorted, disjoint), sorted and merged, as a
 * new array (NULL when empty). */
static int clip_ranges(const struct fi_range *in, uint32_t nin, const struct fi_range *par,
		       uint32_t npar, struct fi_range **out, uint32_t *nout)
{
	struct fi_range *r = NULL;
	size_t n = 0, cap = 0, i, j;

	*out = NULL;
	*nout = 0;
	for (i = 0; i < nin; i++) {
		for (j = 0; j < npar; j++) {
			uint64_t s = in[i].start > par[j].start ? in[i].start : par[j].start;
			uint64_t e = in[i].end < par[j].end ? in[i].end : par[j].end;

			if (s >= e)
				continue;
			if (n == cap) {
				struct fi_range *nr;

				cap = cap ? cap * 2 : 4;
				nr = realloc(r, cap * sizeof(*r));
				if (!nr) {
					free(r);
					return -ENOMEM;
				}
				r = nr;
			}
			r[n++] = (struct fi_range){ s, e };
		}
	}
	if (!n)
		return 0;
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 1, j = 0; i < n; i++) {
		if (r[i].start <= r[j].end) {
			if (r[i].end > r[j].end)
				r[j].end = r[i].end;
		} else {
			r[++j] = r[i];
		}
	}
	if (j + 1 > UINT32_MAX) {
		free(r);
		return -EOVERFLOW;
	}
	*out = r;
	*nout = (uint32_t)(j + 1);
	return 0;
}

/* One InlineInfo node whose ranges (clipped already, non-empty) are rs;
 * its call column goes to cols (the nodes in the order written). */
static int encode_inline(struct zbuf *b, const struct fi_inline *node, const struct fi_range *rs,
			 uint32_t nrs, uint64_t base, unsigned depth, uint32_t nr_files,
			 struct zbuf *cols, uint32_t *ncols)
{
	struct fi_range **crs = NULL;
	uint32_t *ncrs = NULL, i, live = 0;
	int err = 0;

	if (node->call_file >= nr_files)
		return -EINVAL;
	if (node->nr_children && depth + 1 < GSYM_MAX_INLINE_DEPTH) {
		crs = calloc(node->nr_children, sizeof(*crs));
		ncrs = calloc(node->nr_children, sizeof(*ncrs));
		if (!crs || !ncrs) {
			err = -ENOMEM;
			goto out;
		}
		for (i = 0; i < node->nr_children; i++) {
			const struct fi_inline *c = &node->children[i];

			err = clip_ranges(c->ranges, c->nr_ranges, rs, nrs, &crs[i], &ncrs[i]);
			if (err)
				goto out;
			live += ncrs[i] != 0;
		}
	}
	zbuf_put_uv(b, nrs);
	for (i = 0; i < nrs; i++) {
		zbuf_put_uv(b, rs[i].start - base);
		zbuf_put_uv(b, rs[i].end - rs[i].start);
	}
	zbuf_put(cols, &node->call_column, 4);
	(*ncols)++;
	zbuf_put_u8(b, live != 0);
	zbuf_put_u32le(b, node->name);
	zbuf_put_uv(b, node->call_file);
	zbuf_put_uv(b, node->call_line);
	if (live) {
		/* children are relative to this node's lowest address */
		for (i = 0; i < node->nr_children && !err; i++)
			if (ncrs[i])
				err = encode_inline(b, &node->children[i], crs[i], ncrs[i],
						    rs[0].start, depth + 1, nr_files, cols, ncols);
		zbuf_put_uv(b, 0);
	}
out:
	if (crs)
		for (i = 0; i < node->nr_children; i++)
			free(crs[i]);
	free(crs);
	free(ncrs);
	return err;
}

static int encode_root(struct zbuf *b, const struct fi_func *f, uint32_t nr_files,
		       struct zbuf *cols, uint32_t *ncols)
{
	struct fi_inline root = *f->inl;
	struct fi_range fr = { f->start, f->size ? f->start + f->size : UINT64_MAX }, *rs;
	uint32_t nrs, i;
	size_t pos;
	int err, any = 0;

	if (f->size && fr.end < fr.start)
		fr.end = UINT64_MAX;
	if (!root.nr_ranges && !f->size)
		return 0; /* LLVM: a sizeless function has no inline info */
	if (root.nr_ranges)
		err = clip_ranges(root.ranges, root.nr_ranges, &fr, 1, &rs, &nrs);
	else
		err = clip_ranges(&fr, 1, &fr, 1, &rs, &nrs);
	if (err || !nrs)
		return err;
	/* nothing inlined: no InlineInfo at all, as llvm-gsymutil does */
	for (i = 0; i < root.nr_children && !any; i++) {
		struct fi_range *c;
		uint32_t nc;

		err = clip_ranges(root.children[i].ranges, root.children[i].nr_ranges, rs, nrs, &c, &nc);
		free(c);
		if (err)
			goto out;
		any = nc != 0;
	}
	if (!any)
		goto out;
	if (!root.name)
		root.name = f->name;
	root.call_file = 0;
	root.call_line = 0;
	zbuf_put_u32le(b, INFO_INLINE);
	zbuf_put_u32le(b, 0);
	pos = b->len;
	err = encode_inline(b, &root, rs, nrs, f->start, 0, nr_files, cols, ncols);
	if (!err && b->len - pos > UINT32_MAX)
		err = -EOVERFLOW;
	put32_at(b, pos - 4, (uint32_t)(b->len - pos));
out:
	free(rs);
	return err;
}

/* The width (1, 2 or 4 bytes) that holds max. */
static unsigned width_of(uint32_t max)
{
	return max <= UINT8_MAX ? 1 : max <= UINT16_MAX ? 2 : 4;
}

static void put_fixed(struct zbuf *b, uint32_t v, unsigned w)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

	zbuf_put(b, x, w);
}

/* zt's own InfoType (gsym.h): what LLVM's GSYM has no room for. Written
 * only when it says something. cols: the call columns of the inline
 * nodes (ncols uint32_t). */
static void encode_extra(struct zbuf *b, const struct fi_func *f, const struct fi_line *l,
			 uint32_t nl, const struct zbuf *cols, uint32_t ncols)
{
	uint32_t i, any = f->dname || f->gname || f->lname || f->flags || f->gfile || f->lfile;
	uint32_t maxr = 0, maxc = 0, c;
	unsigned w;
	size_t pos;

	for (i = 0; i < nl; i++) {
		maxr = l[i].column > maxr ? l[i].column : maxr;
		maxr = l[i].discr > maxr ? l[i].discr : maxr;
	}
	for (i = 0; i < ncols; i++) {
		memcpy(&c, cols->data + 4 * (size_t)i, 4);
		maxc = c > maxc ? c : maxc;
	}
	if (!any && !maxr && !maxc)
		return;
	zbuf_put_u32le(b, INFO_ZT);
	zbuf_put_u32le(b, 0);
	pos = b->len;
	zbuf_put_uv(b, ZT_EXTRA_VERSION);
	zbuf_put_uv(b, f->flags);
	zbuf_put_uv(b, f->dname);
	zbuf_put_uv(b, f->gname);
	zbuf_put_uv(b, f->lname);
	zbuf_put_uv(b, f->gfile);
	zbuf_put_uv(b, f->lfile);
	zbuf_put_uv(b, ncols);
	w = width_of(maxc);
	zbuf_put_u8(b, (uint8_t)w);
	for (i = 0; i < ncols; i++) {
		memcpy(&c, cols->data + 4 * (size_t)i, 4);
		put_fixed(b, c, w);
	}
	zbuf_put_uv(b, nl);
	w = width_of(maxr);
	zbuf_put_u8(b, (uint8_t)w);
	for (i = 0; i < nl; i++) {
		put_fixed(b, l[i].column, w);
		put_fixed(b, l[i].discr, w);
	}
	put32_at(b, pos - 4, (uint32_t)(b->len - pos));
}

/* cols and ck: scratch buffers, reset here, kept across functions */
static int encode_func(struct zbuf *b, size_t img, const struct fi_func *f, uint32_t nr_files,
		       uint32_t *off, struct zbuf *cols, struct zbuf *ck)
{
	const struct fi_line *l = f->lines;
	uint32_t nl = f->nr_lines, i, ncols = 0;
	int err = 0;

	put_align(b, img, 4);
	if (b->len - img > UINT32_MAX)
		return -EOVERFLOW;
	*off = (uint32_t)(b->len - img);
	zbuf_put_u32le(b, (uint32_t)f->size);
	zbuf_put_u32le(b, f->name);
	while (nl && l->addr < f->start) {
		l++;
		nl--;
	}
	for (i = 0; i < nl; i++)
		if (l[i].file >= nr_files)
			return -EINVAL;
	zbuf_reset(ck);
	if (nl) {
		size_t pos, nck;

		zbuf_put_u32le(b, INFO_LINES);
		zbuf_put_u32le(b, 0);
		pos = b->len;
		err = encode_lines(b, f->start, l, nl, nl > GSYM_LCK_STEP ? ck : NULL, pos);
		if (!err && ck->err)
			err = -ENOMEM;
		if (!err && b->len - pos > UINT32_MAX)
			err = -EOVERFLOW;
		if (!err)
			put32_at(b, pos - 4, (uint32_t)(b->len - pos));
		/* the checkpoints after the table they point into */
		nck = ck->len / LCK_SIZE;
		if (!err && nck) {
			zbuf_put_u32le(b, INFO_LCK);
			zbuf_put_u32le(b, (uint32_t)(4 + ck->len));
			zbuf_put_u32le(b, (uint32_t)nck);
			zbuf_put(b, ck->data, ck->len);
		}
		if (err)
			return err;
	}
	zbuf_reset(cols);
	if (f->inl)
		err = encode_root(b, f, nr_files, cols, &ncols);
	if (!err && cols->err)
		err = cols->err;
	if (!err) {
		encode_extra(b, f, l, nl, cols, ncols);
		zbuf_put_u32le(b, INFO_END);
		zbuf_put_u32le(b, 0);
	}
	return err;
}

static int encode(const struct fi_table *t, struct zbuf *b, size_t img)
{
	uint32_t nr_files = t->nr_files ? (uint32_t)t->nr_files : 1, n = 0, k;
	uint64_t base = 0, maxoff = 0, prev = 0;
	uint8_t aos, uuid[GSYM_MAX_UUID] = { 0 }, uuid_len;
	size_t i, info_pos, str_pos;
	struct zbuf cols, ck;
	int err;

	if (t->nr_files > UINT32_MAX || t->strtab_len > UINT32_MAX)
		return -EOVERFLOW;
	for (i = 0; i < t->nr_funcs; i++) {
		const struct fi_func *f = &t->funcs[i];

		if (!f->name)
			continue;
		if (n && f->start < prev)
			return -EINVAL; /* not sorted: fi_finish first */
		if (f->size > UINT32_MAX)
			return -EOVERFLOW;
		if (n == UINT32_MAX)
			return -EOVERFLOW;
		if (!n++)
			base = f->start;
		prev = f->start;
	}
	maxoff = prev - base;
	aos = maxoff <= UINT8_MAX ? 1 : maxoff <= UINT16_MAX ? 2 : maxoff <= UINT32_MAX ? 4 : 8;
	uuid_len = t->uuid_len < GSYM_MAX_UUID ? t->uuid_len : GSYM_MAX_UUID;
	memcpy(uuid, t->uuid, uuid_len);

	zbuf_put_u32le(b, GSYM_MAGIC);
	zbuf_put_u8(b, GSYM_VERSION);
	zbuf_put_u8(b, 0);
	zbuf_put_u8(b, aos);
	zbuf_put_u8(b, uuid_len);
	zbuf_put_u64le(b, base);
	zbuf_put_u32le(b, n);
	zbuf_put_u32le(b, 0); /* string table offset and size: fixed up below */
	zbuf_put_u32le(b, 0);
	zbuf_put(b, uuid, sizeof(uuid));
	put_align(b, img, aos);
	for (i = 0; i < t->nr_funcs; i++) {
		uint64_t off = t->funcs[i].start - base;
		uint8_t x[8];
		unsigned j;

		if (!t->funcs[i].name)
			continue;
		for (j = 0; j < aos; j++)
			x[j] = (uint8_t)(off >> (8 * j));
		zbuf_put(b, x, aos);
	}
	put_align(b, img, 4);
	info_pos = b->len;
	if (zbuf_reserve(b, (size_t)n * 4))
		return b->err;
	memset(b->data + b->len, 0, (size_t)n * 4);
	b->len += (size_t)n * 4;

	zbuf_put_u32le(b, nr_files);
	zbuf_put_u32le(b, 0);
	zbuf_put_u32le(b, 0);
	for (i = 1; i < t->nr_files; i++) {
		zbuf_put_u32le(b, t->files[i].dir);
		zbuf_put_u32le(b, t->files[i].base);
	}
	str_pos = b->len;
	if (t->strtab_len)
		zbuf_put(b, t->strtab, t->strtab_len);
	else
		zbuf_put_u8(b, 0);
	if (b->len - img > UINT32_MAX)
		return -EOVERFLOW;
	put32_at(b, img + 20, (uint32_t)(str_pos - img));
	put32_at(b, img + 24, (uint32_t)(b->len - str_pos));

	zbuf_init(&cols);
	zbuf_init(&ck);
	for (i = 0, k = 0, err = 0; i < t->nr_funcs && !err; i++) {
		uint32_t off;

		if (!t->funcs[i].name)
			continue;
		err = encode_func(b, img, &t->funcs[i], nr_files, &off, &cols, &ck);
		if (!err && b->err)
			err = b->err;
		if (!err)
			put32_at(b, info_pos + 4 * (size_t)k++, off);
	}
	zbuf_release(&cols);
	zbuf_release(&ck);
	return err ? err : b->err;
}

int gsym_encode(const struct fi_table *t, struct zbuf *out)
{
	size_t img = out->len;
	int err;

	if (out->err)
		return out->err;
	err = encode(t, out, img);
	if (err) {
		out->err = 0;
		out->len = img;
	}
	return err;
}

int gsym_write_file(const struct fi_table *t, const char *path)
{
	struct zbuf b;
	char *tmp = NULL;
	size_t done = 0;
	int fd = -1, err;

	zbuf_init(&b);
	err = gsym_encode(t, &b);
	if (err)
		goto out;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		err = -ENOMEM;
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	while (done < b.len) {
		ssize_t w = write(fd, b.data + done, b.len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? -errno : -EIO;
			goto out;
		}
		done += (size_t)w;
	}
	if (fchmod(fd, 0644) || fsync(fd)) {
		err = -errno;
		goto out;
	}
	if (close(fd)) {
		fd = -1;
		err = -errno;
		goto out;
	}
	fd = -1;
	if (rename(tmp, path))
		err = -errno;
out:
	if (fd >= 0)
		close(fd);
	if (err && tmp)
		unlink(tmp);
	free(tmp);
	zbuf_release(&b);
	return err;
}

/* ---- reader -------------------------------------------------------------- */

struct gsym {
	const uint8_t *data;
	size_t size;
	void *map;
	size_t map_len;
	int be; /* big-endian image */
	uint8_t aos, uuid_len;
	uint32_t n, nr_files, str_size;
	uint64_t base;
	const uint8_t *addrs, *infos, *files;
	const char *strtab;
	uint64_t *idx; /* every IDX_STEP-th address offset: a cache-friendly top level */
	uint32_t nr_idx;
};

#define IDX_SHIFT 6
#define IDX_STEP (1u << IDX_SHIFT)

static inline uint16_t rd16(const struct gsym *g, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return g->be ? be16toh(v) : le16toh(v);
}

static inline uint32_t rd32(const struct gsym *g, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return g->be ? be32toh(v) : le32toh(v);
}

static inline uint64_t rd64(const struct gsym *g, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return g->be ? be64toh(v) : le64toh(v);
}

static inline uint64_t addr_off(const struct gsym *g, uint32_t i)
{
	switch (g->aos) {
	case 1:
		return g->addrs[i];
	case 2:
		return rd16(g, g->addrs + 2 * (size_t)i);
	case 4:
		return rd32(g, g->addrs + 4 * (size_t)i);
	default:
		return rd64(g, g->addrs + 8 * (size_t)i);
	}
}

static inline const char *str_at(const struct gsym *g, uint32_t off)
{
	/* the table ends with a NUL (checked at open) */
	return off < g->str_size ? g->strtab + off : "";
}

static int parse(struct gsym *g)
{
	const uint8_t *d = g->data;
	uint64_t off, end, str_off;
	uint32_t magic;

	if (g->size < GSYM_HEADER_SIZE)
		return -EBADMSG;
	memcpy(&magic, d, 4);
	if (le32toh(magic) == GSYM_MAGIC)
		g->be = 0;
	else if (be32toh(magic) == GSYM_MAGIC)
		g->be = 1;
	else
		return -EBADMSG;
	if (rd16(g, d + 4) != GSYM_VERSION)
		return -EBADMSG;
	g->aos = d[6];
	g->uuid_len = d[7];
	if ((g->aos != 1 && g->aos != 2 && g->aos != 4 && g->aos != 8) ||
	    g->uuid_len > GSYM_MAX_UUID)
		return -EBADMSG;
	g->base = rd64(g, d + 8);
	g->n = rd32(g, d + 16);
	str_off = rd32(g, d + 20);
	g->str_size = rd32(g, d + 24);

	off = GSYM_HEADER_SIZE; /* a multiple of every AddrOffSize */
	end = off + (uint64_t)g->n * g->aos;
	if (end > g->size)
		return -EBADMSG;
	g->addrs = d + off;
	off = (end + 3) & ~(uint64_t)3;
	end = off + (uint64_t)g->n * 4;
	if (end + 4 > g->size)
		return -EBADMSG;
	g->infos = d + off;
	g->nr_files = rd32(g, d + end);
	off = end + 4;
	if ((uint64_t)g->nr_files * 8 > g->size - off)
		return -EBADMSG;
	g->files = d + off;
	if (str_off > g->size || g->str_size > g->size - str_off)
		return -EBADMSG;
	g->strtab = (const char *)d + str_off;
	if (g->str_size && g->strtab[g->str_size - 1])
		return -EBADMSG;
	return 0;
}

int gsym_open_mem(const void *data, size_t len, struct gsym **out)
{
	struct gsym *g = calloc(1, sizeof(*g));
	int err;

	*out = NULL;
	if (!g)
		return -ENOMEM;
	g->data = data;
	g->size = len;
	err = parse(g);
	if (!err && g->n) {
		uint32_t i;

		g->nr_idx = (uint32_t)(((uint64_t)g->n + IDX_STEP - 1) >> IDX_SHIFT);
		g->idx = malloc(g->nr_idx * sizeof(*g->idx));
		if (!g->idx)
			err = -ENOMEM;
		for (i = 0; g->idx && i < g->nr_idx; i++)
			g->idx[i] = addr_off(g, i << IDX_SHIFT);
	}
	if (err) {
		free(g);
		return err;
	}
	*out = g;
	return 0;
}

int gsym_open_file(const char *path, struct gsym **out)
{
	struct stat st;
	void *map;
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < GSYM_HEADER_SIZE ||
	    (uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EBADMSG;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	err = gsym_open_mem(map, (size_t)st.st_size, out);
	if (err) {
		munmap(map, (size_t)st.st_size);
		return err;
	}
	(*out)->map = map;
	(*out)->map_len = (size_t)st.st_size;
	return 0;
}

void gsym_free(struct gsym *g)
{
	if (!g)
		return;
	if (g->map)
		munmap(g->map, g->map_len);
	free(g->idx);
	free(g);
}

uint32_t gsym_nr_funcs(const struct gsym *g)
{
	return g->n;
}

uint64_t gsym_base_addr(const struct gsym *g)
{
	return g->base;
}

const uint8_t *gsym_uuid(const struct gsym *g, size_t *len)
{
	*len = g->uuid_len;
	return g->data + 28;
}

const void *gsym_image(const struct gsym *g, size_t *len)
{
	*len = g->size;
	return g->data;
}

/* A function record: its offset, size and name; -EBADMSG when out of bounds. */
static int func_rec(const struct gsym *g, uint32_t i, uint64_t *off, uint32_t *size, uint32_t *name)
{
	uint64_t o = rd32(g, g->infos + 4 * (size_t)i);

	if (o > g->size || g->size - o < 8)
		return -EBADMSG;
	*off = o;
	*size = rd32(g, g->data + o);
	*name = rd32(g, g->data + o + 4);
	return 0;
}

int gsym_func(const struct gsym *g, uint32_t i, uint64_t *start, uint32_t *size, const char **name)
{
	uint64_t off;
	uint32_t sz, nm;
	int err;

	if (i >= g->n)
		return -ERANGE;
	err = func_rec(g, i, &off, &sz, &nm);
	if (err)
		return err;
	if (start)
		*start = g->base + addr_off(g, i);
	if (size)
		*size = sz;
	if (name)
		*name = str_at(g, nm);
	return 0;
}

/* lower_bound: the first entry >= off (g->n when none) */
static uint32_t lower_bound(const struct gsym *g, uint64_t off)
{
	uint32_t lo = 0, hi = g->nr_idx;

	/* the block first: entries before lo << IDX_SHIFT are < off (for a
	 * sorted table; an unsorted one only gets wrong answers) */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->idx[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	hi = lo == g->nr_idx ? g->n : lo << IDX_SHIFT;
	lo = lo ? ((lo - 1) << IDX_SHIFT) + 1 : 0;
	switch (g->aos) {
#define LB(expr)                                          \
	while (lo < hi) {                                 \
		uint32_t mid = lo + (hi - lo) / 2;        \
		if ((uint64_t)(expr) < off)               \
			lo = mid + 1;                     \
		else                                      \
			hi = mid;                         \
	}                                                 \
	break;
	case 1:
		LB(g->addrs[mid])
	case 2:
		LB(rd16(g, g->addrs + 2 * (size_t)mid))
	case 4:
		LB(rd32(g, g->addrs + 4 * (size_t)mid))
	default:
		LB(rd64(g, g->addrs + 8 * (size_t)mid))
#undef LB
	}
	return lo;
}

/* A bounds-checked cursor over one info record. */
struct cur {
	const uint8_t *p, *end;
	int bad;
};

static inline uint64_t get_uleb(struct cur *c)
{
	return zt_uleb(&c->p, c->end, &c->bad);
}

static inline int64_t get_sleb(struct cur *c)
{
	return zt_sleb(&c->p, c->end, &c->bad);
}

static inline uint8_t get_u8(struct cur *c)
{
	if (c->p >= c->end) {
		c->bad = 1;
		return 0;
	}
	return *c->p++;
}

static inline uint32_t get_u32(const struct gsym *g, struct cur *c)
{
	uint32_t v;

	if (c->end - c->p < 4) {
		c->bad = 1;
		return 0;
	}
	v = rd32(g, c->p);
	c->p += 4;
	return v;
}

/* The decoder of a line record. */
struct ldec {
	struct cur c;
	int64_t min;
	uint32_t rr, inv;
	uint64_t addr;
	uint32_t file, line, row; /* row: rows decoded so far */
};

/* Start a decoder on record c of a function at fstart. 0 or -EBADMSG. */
static int ldec_init(struct ldec *d, const struct cur *c, uint64_t fstart)
{
	int64_t max, range;

	d->c = *c;
	d->min = get_sleb(&d->c);
	max = get_sleb(&d->c);
	d->line = (uint32_t)get_uleb(&d->c);
	d->addr = fstart;
	d->file = 1;
	d->row = 0;
	if (d->c.bad || max < d->min || __builtin_sub_overflow(max, d->min, &range) ||
	    range == INT64_MAX)
		return -EBADMSG;
	range++;
	/* a special opcode's a / range and a % range by a multiply: exact
	 * for a < 256 with rr <= 256 (a range past 255 gives a / range = 0
	 * for every a, as rr = 256 does) */
	d->rr = range > 256 ? 256 : (uint32_t)range;
	d->inv = (65536 + d->rr - 1) / d->rr;
	return 0;
}

/* The next row into d->addr, d->file, d->line: 1; 0 at the end; -EBADMSG. */
static inline int ldec_next(struct ldec *d)
{
	for (;;) {
		uint8_t op = get_u8(&d->c);

		switch (op) {
		case OP_END:
			return d->c.bad ? -EBADMSG : 0;
		case OP_SET_FILE:
			d->file = (uint32_t)get_uleb(&d->c);
			continue;
		case OP_ADVANCE_PC:
			d->addr += get_uleb(&d->c);
			break;
		case OP_ADVANCE_LINE:
			d->line += (uint32_t)get_sleb(&d->c);
			continue;
		default: {
			uint32_t a = (uint8_t)(op - OP_FIRST_SPECIAL), q = (a * d->inv) >> 16;

			d->line += (uint32_t)((uint64_t)d->min + (uint64_t)(a - q * d->rr));
			d->addr += q;
			break;
		}
		}
		if (d->c.bad)
			return -EBADMSG;
		d->row++;
		return 1;
	}
}

/* Move d to the last checkpoint of record ck (GSYM_INFO_ZT_LCK) whose row
 * is strictly before addr, when there is one: 1 (that row found), else 0. */
static int ldec_seek(const struct gsym *g, struct ldec *d, const struct cur *ck, uint64_t fstart,
		     uint64_t addr, size_t lines_len)
{
	const uint8_t *k;
	uint32_t n, lo, hi, pos;
	uint64_t at;

	if (!ck->p || ck->end - ck->p < 4)
		return 0;
	n = rd32(g, ck->p);
	if (!n || (size_t)(ck->end - ck->p - 4) / LCK_SIZE < n)
		return 0;
	k = ck->p + 4;
#define LCK_ADDR(i) (fstart + rd64(g, k + (size_t)(i) * LCK_SIZE + 16))
	if (LCK_ADDR(0) >= addr)
		return 0;
	for (lo = 0, hi = n; hi - lo > 1;) { /* the last checkpoint before addr */
		uint32_t mid = lo + (hi - lo) / 2;

		if (LCK_ADDR(mid) < addr)
			lo = mid;
		else
			hi = mid;
	}
	at = LCK_ADDR(lo);
	k += (size_t)lo * LCK_SIZE;
	pos = rd32(g, k);
	/* past the header (min, max, line) and inside the record */
	if (pos > lines_len || d->c.end - lines_len + pos < d->c.p || !rd32(g, k + 4))
		return 0;
	d->c.p = d->c.end - lines_len + pos;
	d->row = rd32(g, k + 4);
	d->file = rd32(g, k + 8);
	d->line = rd32(g, k + 12);
	d->addr = at;
#undef LCK_ADDR
	return 1;
}

/* LineTable::lookup as llvm-gsymutil-14 has it: the last row at or before
 * addr, but the first of several rows at addr itself. *found = 0: no row.
 * *rowp: the row's index. With checkpoints (ck, or ck->p NULL), decoding
 * starts after the last checkpoint row strictly before addr: rows are in
 * address order, so a row at addr itself comes after it. */
static int line_lookup(const struct gsym *g, struct cur *c, const struct cur *ck, uint64_t fstart,
		       uint64_t addr, uint32_t *file, uint32_t *line, int *found, uint32_t *rowp)
{
	struct ldec d;
	int k;

	*found = 0;
	if (ldec_init(&d, c, fstart))
		return -EBADMSG;
	if (ldec_seek(g, &d, ck, fstart, addr, (size_t)(c->end - c->p))) {
		*file = d.file;
		*line = d.line;
		*found = 1;
		*rowp = d.row - 1;
	}
	while ((k = ldec_next(&d)) > 0) {
		if (addr < d.addr)
			return 0;
		*file = d.file;
		*line = d.line;
		*found = 1;
		*rowp = d.row - 1;
		if (addr == d.addr)
			return 0;
	}
	return k;
}

struct inl_frame {
	uint32_t name, call_file, call_line, idx;
};

struct inl_state {
	const struct gsym *g;
	uint64_t addr;
	uint32_t nodes; /* nodes read or skipped so far: the next one's index */
	unsigned len; /* path[0..len) = the nodes containing addr, outermost first */
	struct inl_frame path[GSYM_MAX_INLINE_DEPTH];
};

/* Skip a node (its ranges already read when ranges_done) and its subtree.
 * Returns 1 for a node, 0 for a terminator. */
static int inl_skip(struct inl_state *s, struct cur *c, int ranges_done, unsigned depth)
{
	const struct gsym *g = s->g;

	if (!ranges_done) {
		uint64_t n = get_uleb(c), i;

		if (!n || c->bad)
			return 0;
		if (n > (uint64_t)(c->end - c->p) / 2) {
			c->bad = 1;
			return 0;
		}
		for (i = 0; i < n; i++) {
			get_uleb(c);
			get_uleb(c);
		}
	}
	if (depth >= GSYM_MAX_INLINE_DEPTH) {
		c->bad = 1;
		return 0;
	}
	s->nodes++;
	if (get_u8(c)) {
		get_u32(g, c);
		get_uleb(c);
		get_uleb(c);
		while (!c->bad && inl_skip(s, c, 0, depth + 1))
			;
	} else {
		get_u32(g, c);
		get_uleb(c);
		get_uleb(c);
	}
	return !c->bad;
}

/* InlineInfo's lookup helper: 1 for a terminator or a node containing addr
 * (then siblings are not read), 0 for a skipped node; c->bad on error. */
static int inl_lookup(struct inl_state *s, struct cur *c, uint64_t base, unsigned depth)
{
	uint64_t n = get_uleb(c), i, first = UINT64_MAX;
	int nonempty = 0, hit = 0;
	uint8_t has_children;

	if (c->bad)
		return 1;
	if (n > (uint64_t)(c->end - c->p) / 2) {
		c->bad = 1;
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint64_t start = base + get_uleb(c), size = get_uleb(c);

		if (!size) /* AddressRanges drops empty ranges */
			continue;
		nonempty = 1;
		first = start < first ? start : first;
		if (s->addr >= start && s->addr - start < size)
			hit = 1;
	}
	if (c->bad || !nonempty)
		return 1;
	if (!hit) {
		inl_skip(s, c, 1, depth);
		return 0;
	}
	if (depth >= GSYM_MAX_INLINE_DEPTH) {
		c->bad = 1;
		return 1;
	}
	s->path[depth].idx = s->nodes++;
	has_children = get_u8(c);
	s->path[depth].name = get_u32(s->g, c);
	s->path[depth].call_file = (uint32_t)get_uleb(c);
	s->path[depth].call_line = (uint32_t)get_uleb(c);
	s->len = depth + 1;
	if (has_children)
		while (!c->bad && !inl_lookup(s, c, first, depth + 1))
			;
	return 1;
}

static int file_at(const struct gsym *g, uint32_t i, const char **dir, const char **base,
		   int *real)
{
	const uint8_t *p;
	uint32_t d, b;

	if (i >= g->nr_files)
		return -EBADMSG;
	p = g->files + 8 * (size_t)i;
	d = rd32(g, p);
	b = rd32(g, p + 4);
	*dir = str_at(g, d);
	*base = str_at(g, b);
	*real = d || b;
	return 0;
}

/* zt's InfoType: names, the flags, the column and discriminator of line
 * row `row` (have_row: a row was found), the call columns of the inline
 * path's nodes (cols[k] for path[k]). */
struct extra {
	uint32_t flags, dname, gname, lname, gfile, lfile, column, discr;
	uint32_t cols[GSYM_MAX_INLINE_DEPTH];
};

static inline uint32_t get_fixed(const uint8_t *p, unsigned w)
{
	return w == 1	? p[0]
	       : w == 2 ? (uint32_t)(p[0] | p[1] << 8)
			: (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				  (uint32_t)p[3] << 24;
}

/* A fixed-width table of n entries of k values, w bytes each (w read
 * here): its start, checked against the record; NULL when bad. */
static const uint8_t *fixed_table(struct cur *c, uint64_t n, unsigned k, unsigned *w)
{
	const uint8_t *p;

	*w = get_u8(c);
	if (c->bad || (*w != 1 && *w != 2 && *w != 4) || n > (uint64_t)(c->end - c->p) / (*w * k)) {
		c->bad = 1;
		return NULL;
	}
	p = c->p;
	c->p += n * *w * k;
	return p;
}

static int extra_read(struct cur *c, int have_row, uint32_t row, const struct inl_state *s,
		      struct extra *x)
{
	const uint8_t *t;
	uint64_t n;
	unsigned w, k;

	if (get_uleb(c) != ZT_EXTRA_VERSION)
		return 0; /* another version: ignored, as an unknown type */
	x->flags = (uint32_t)get_uleb(c);
	x->dname = (uint32_t)get_uleb(c);
	x->gname = (uint32_t)get_uleb(c);
	x->lname = (uint32_t)get_uleb(c);
	x->gfile = (uint32_t)get_uleb(c);
	x->lfile = (uint32_t)get_uleb(c);
	n = get_uleb(c);
	t = fixed_table(c, n, 1, &w);
	if (!t)
		return -EBADMSG;
	for (k = 0; s && k < s->len; k++)
		x->cols[k] = s->path[k].idx < n ? get_fixed(t + (size_t)s->path[k].idx * w, w) : 0;
	n = get_uleb(c);
	t = fixed_table(c, n, 2, &w);
	if (!t)
		return -EBADMSG;
	if (have_row && row < n) {
		x->column = get_fixed(t + (size_t)row * 2 * w, w);
		x->discr = get_fixed(t + (size_t)row * 2 * w + w, w);
	}
	return c->bad ? -EBADMSG : 0;
}

static int func_lookup(const struct gsym *g, uint64_t foff, uint64_t fstart, uint64_t addr,
		       uint32_t name, struct fi_result *r)
{
	struct cur c = { g->data + foff + 8, g->data + g->size, 0 };
	struct cur inl = { NULL, NULL, 0 }, ext = { NULL, NULL, 0 }, lck = { NULL, NULL, 0 };
	struct cur lines = { NULL, NULL, 0 };
	uint32_t file = 0, line = 0, row = 0;
	int found = 0, err, real;
	struct fi_loc *l = &r->locs[0];
	struct inl_state s; /* its path is 1 KiB: not zeroed, it is read up to len */
	struct extra x;

	s.g = g;
	s.addr = addr;
	s.nodes = 0;
	s.len = 0;
	memset(&x, 0, offsetof(struct extra, cols)); /* cols: up to s.len, below */
	for (;;) {
		uint32_t type = get_u32(g, &c), len = get_u32(g, &c);
		struct cur rec;

		if (c.bad || len > (size_t)(c.end - c.p))
			return -EBADMSG;
		rec = (struct cur){ c.p, c.p + len, 0 };
		c.p += len;
		if (type == INFO_END)
			break;
		if (type == INFO_LINES) {
			lines = rec; /* read after the loop, with its checkpoints */
		} else if (type == INFO_INLINE) {
			inl = rec;
		} else if (type == INFO_ZT) {
			ext = rec;
		} else if (type == INFO_LCK) {
			lck = rec;
		}
	}
	if (lines.p) {
		err = line_lookup(g, &lines, &lck, fstart, addr, &file, &line, &found, &row);
		if (err)
			return err;
	}
	r->func_start = fstart;
	r->offset = addr - fstart;
	r->n = 1;
	l->name = str_at(g, name);
	l->dir = l->file = "";
	l->line = 0;
	l->column = 0;
	r->discr = 0;
	r->dname = r->gname = r->lname = NULL;
	r->gap = 0;
	r->flags = 0;
	/* a row of file 0 (an end of sequence) is no line information */
	if (found && file) {
		err = file_at(g, file, &l->dir, &l->file, &real);
		if (err)
			return err;
		l->line = line;
	} else {
		found = 0;
	}
	if (found && inl.p) {
		inl_lookup(&s, &inl, fstart, 0);
		if (inl.bad)
			return -EBADMSG;
	}
	memset(x.cols, 0, s.len * sizeof(x.cols[0]));
	if (ext.p && (err = extra_read(&ext, found, row, &s, &x)))
		return err;
	if (x.dname)
		r->dname = str_at(g, x.dname);
	if (x.gname)
		r->gname = str_at(g, x.gname);
	if (x.lname)
		r->lname = str_at(g, x.lname);
	r->gfile = x.gfile ? str_at(g, x.gfile) : NULL;
	r->lfile = x.lfile ? str_at(g, x.lfile) : NULL;
	r->gap = (x.flags & FI_GAP) != 0;
	r->flags = x.flags;
	if (!found)
		return 0;
	l->column = x.column;
	r->discr = x.discr;
	{
		unsigned k;

		/* innermost first: each node on the path renames the current
		 * innermost frame and adds its caller at the call site */
		for (k = s.len; k-- > 0;) {
			const struct inl_frame *fr = &s.path[k];
			const char *dir, *base;
			struct fi_loc *back = &r->locs[r->n - 1];

			err = file_at(g, fr->call_file, &dir, &base, &real);
			if (err)
				return err;
			if (!real)
				continue;
			if (r->n < FI_MAX_INLINE) {
				r->locs[r->n] = (struct fi_loc){ back->name, dir, base, fr->call_line,
								 x.cols[k] };
				back->name = str_at(g, fr->name);
				r->n++;
			} else {
				back->dir = dir;
				back->file = base;
				back->line = fr->call_line;
				back->column = x.cols[k];
			}
		}
	}
	return 0;
}

int gsym_lookup_all(const struct gsym *g, uint64_t addr, struct fi_result *r)
{
	uint64_t off, at, foff;
	uint32_t i, size, name, tries;
	int err;

	r->n = 0;
	if (!g->n || addr < g->base)
		return -ENOENT;
	off = addr - g->base;
	i = lower_bound(g, off);
	if (i == g->n || addr_off(g, i) != off) {
		if (!i)
			return -ENOENT;
		/* the first of the entries starting at the previous address */
		i--;
		if (i && addr_off(g, i - 1) == addr_off(g, i))
			i = lower_bound(g, addr_off(g, i));
	}
	at = addr_off(g, i);
	/* of several functions at one address the first one that covers addr
	 * (llvm-gsymutil-14 only tries the first) */
	for (tries = 0; i < g->n && tries < 16 && addr_off(g, i) == at; i++, tries++) {
		err = func_rec(g, i, &foff, &size, &name);
		if (err)
			return err;
		if (size && off - at >= size)
			continue;
		if (!name)
			return -EBADMSG;
		err = func_lookup(g, foff, g->base + at, addr, name, r);
		if (err)
			r->n = 0;
		return err;
	}
	return -ENOENT;
}

int gsym_lookup(const struct gsym *g, uint64_t addr, struct fi_result *r)
{
	int err = gsym_lookup_all(g, addr, r);

	if (!err && r->gap) {
		r->n = 0;
		return -ENOENT;
	}
	return err;
}

int gsym_has_lines(const struct gsym *g)
{
	uint32_t i, n = gsym_nr_funcs(g);

	for (i = 0; i < n; i++) {
		struct fi_result r;
		const char *name;
		uint64_t start;
		uint32_t size;

		if (!gsym_func(g, i, &start, &size, &name) && !gsym_lookup(g, start, &r) && r.n &&
		    r.locs[0].line)
			return 1;
	}
	return 0;
}
