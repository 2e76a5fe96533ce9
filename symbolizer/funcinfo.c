// SPDX-License-Identifier: GPL-2.0-or-later
/* The GSYM-shaped symbol model of a module: strings, files, functions. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "symbolizer/funcinfo.h"

void fi_table_init(struct fi_table *t)
{
	memset(t, 0, sizeof(*t));
}

void fi_inline_release(struct fi_inline *n)
{
	uint32_t i;

	if (!n)
		return;
	for (i = 0; i < n->nr_children; i++)
		fi_inline_release(&n->children[i]);
	free(n->children);
	free(n->ranges);
	memset(n, 0, sizeof(*n));
}

static void func_release(struct fi_func *f)
{
	free(f->lines);
	if (f->inl) {
		fi_inline_release(f->inl);
		free(f->inl);
	}
}

void fi_table_release(struct fi_table *t)
{
	size_t i;

	for (i = 0; i < t->nr_funcs; i++)
		func_release(&t->funcs[i]);
	free(t->funcs);
	free(t->files);
	free(t->strtab);
	zt_htab_release(&t->str_hash);
	fi_table_init(t);
}

/* The string table's index at twice the size: its items are offsets, not
 * 0 .. nr - 1, so it is rebuilt from the strings themselves. */
static int str_rehash(struct fi_table *t)
{
	size_t off;

	if (zt_htab_reset(&t->str_hash, t->str_hash.nr + 1))
		return -ENOMEM;
	/* every string starts after a NUL (offset 0 is "") */
	for (off = 1; off < t->strtab_len; off += strlen(t->strtab + off) + 1)
		zt_htab_add(&t->str_hash, zt_hash_str(t->strtab + off), (uint32_t)off);
	return 0;
}

uint32_t fi_str(struct fi_table *t, const char *s)
{
	size_t len, j;
	uint32_t off;

	if (!s || !*s) {
		if (!t->strtab_len) {
			if (ZT_GROW(t->strtab, t->strtab_cap, 1))
				return UINT32_MAX;
			t->strtab[0] = 0;
			t->strtab_len = 1;
		}
		return 0;
	}
	if (fi_str(t, "") == UINT32_MAX)
		return UINT32_MAX;
	if (!zt_htab_room(&t->str_hash, 1) && str_rehash(t))
		return UINT32_MAX;
	for (j = zt_htab_first(&t->str_hash, zt_hash_str(s)); zt_htab_get(&t->str_hash, j, &off);
	     j = zt_htab_next(&t->str_hash, j))
		if (!strcmp(t->strtab + off, s))
			return off;
	len = strlen(s) + 1;
	if (t->strtab_len + len > UINT32_MAX - 1 ||
	    ZT_GROW(t->strtab, t->strtab_cap, t->strtab_len + len))
		return UINT32_MAX;
	memcpy(t->strtab + t->strtab_len, s, len);
	off = (uint32_t)t->strtab_len;
	zt_htab_set(&t->str_hash, j, off);
	t->strtab_len += len;
	return off;
}

uint32_t fi_file(struct fi_table *t, const char *dir, const char *base)
{
	uint32_t d = fi_str(t, dir), b = fi_str(t, base);
	size_t i;

	if (d == UINT32_MAX || b == UINT32_MAX)
		return 0;
	if (!t->nr_files) {
		if (ZT_GROW(t->files, t->cap_files, 1))
			return 0;
		t->files[0] = (struct fi_file){ 0, 0 };
		t->nr_files = 1;
	}
	/* few files per module (thousands at most): the last ones are the likely hits */
	for (i = t->nr_files; i-- > 1;)
		if (t->files[i].dir == d && t->files[i].base == b)
			return (uint32_t)i;
	if (t->nr_files >= UINT32_MAX || ZT_GROW(t->files, t->cap_files, t->nr_files + 1))
		return 0;
	t->files[t->nr_files] = (struct fi_file){ d, b };
	return (uint32_t)t->nr_files++;
}

struct fi_func *fi_add_func(struct fi_table *t, uint64_t start, uint64_t size, uint32_t name)
{
	struct fi_func *f;

	if (ZT_GROW(t->funcs, t->cap_funcs, t->nr_funcs + 1))
		return NULL;
	f = &t->funcs[t->nr_funcs++];
	memset(f, 0, sizeof(*f));
	f->start = start;
	f->size = size;
	f->name = name;
	return f;
}

int fi_add_line(struct fi_func *f, uint64_t addr, uint32_t file, uint32_t line)
{
	if (f->nr_lines >= UINT32_MAX || ZT_GROW(f->lines, f->cap_lines, (size_t)f->nr_lines + 1))
		return -ENOMEM;
	f->lines[f->nr_lines++] = (struct fi_line){ addr, file, line };
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct fi_line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_func(const void *a, const void *b)
{
	const struct fi_func *x = a, *y = b;
	int rx = !!x->lines + !!x->inl + !(x->flags & FI_GAP), ry = !!y->lines + !!y->inl + !(y->flags & FI_GAP);

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the richer entry first: it is the one kept */
	if (rx != ry)
		return rx > ry ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;
}

/* qsort (glibc: a merge sort with a malloc'ed buffer) only when needed:
 * fi_finish runs again on tables it sorted, and sources add rows in order */
static void sort_if(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	size_t i;

	for (i = 1; i < n; i++)
		if (cmp((char *)base + (i - 1) * sz, (char *)base + i * sz) > 0)
			break;
	if (i < n)
		qsort(base, n, sz, cmp);
}

int fi_finish(struct fi_table *t)
{
	size_t i, k = 0;

	sort_if(t->funcs, t->nr_funcs, sizeof(*t->funcs), cmp_func);
	for (i = 0; i < t->nr_funcs; i++) {
		struct fi_func *f = &t->funcs[i];

		if (k && t->funcs[k - 1].start == f->start) {
			/* a second entry at the same address: keep the first, but
			 * take the name of a sized symbol if it had none */
			if (!t->funcs[k - 1].name)
				t->funcs[k - 1].name = f->name;
			if (!t->funcs[k - 1].dname)
				t->funcs[k - 1].dname = f->dname;
			func_release(f);
			continue;
		}
		if (f->nr_lines > 1) {
			size_t a, b = 0;

			sort_if(f->lines, f->nr_lines, sizeof(*f->lines), cmp_line);
			/* one row per address: the last one given wins */
			for (a = 0; a < f->nr_lines; a++) {
				if (b && f->lines[b - 1].addr == f->lines[a].addr)
					b--;
				f->lines[b++] = f->lines[a];
			}
			f->nr_lines = (uint32_t)b;
		}
		t->funcs[k++] = *f;
	}
	t->nr_funcs = k;
	for (i = 0; i < k; i++) {
		struct fi_func *f = &t->funcs[i];

		if (!f->size && i + 1 < k)
			f->size = t->funcs[i + 1].start - f->start;
	}
	return 0;
}
