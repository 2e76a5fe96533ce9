// SPDX-License-Identifier: GPL-2.0-or-later
/* Go's pclntab (.gopclntab): names, lines and inline trees of Go binaries, stripped or not. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libprof/array.h"
#include "symbolizer/gopclntab.h"

enum ver { V12 = 1, V116, V118, V120 };

#define PCDATA_INLTREE	 2 /* PCDATA_InlTreeIndex */
#define FUNCDATA_INLTREE 3 /* FUNCDATA_InlTree */
/* Go's inliner stops far sooner: a deeper chain is a loop or damage */
#define MAX_INL_DEPTH 128
#define MAX_INL_NODES (1u << 20)
/* moduledata's words (pointer-sized): text, and gofunc before and after
 * 1.20 added covctrs/ecovctrs in front of it */
#define MD_TEXT	      22
#define MD_GOFUNC_118 38
#define MD_GOFUNC_120 40

/* A pc-value table decoded for one function: val holds up to end, from the
 * previous run's end (the function's entry for the first). */
struct run {
	uint64_t end;
	int32_t val;
};

struct runs {
	struct run *r;
	size_t n, cap;
};

/* An inline tree entry while a function's tree is built. */
struct inl_node {
	int32_t parent;
	uint32_t name, call_file, call_line;
	struct fi_range *ranges;
	uint32_t nr;
	size_t cap;
	uint32_t nr_kids, slot;
	struct fi_inline *kids;
};

struct pcln {
	const struct gopcln_src *s;
	const uint8_t *tab; /* the table; every read is checked against len */
	size_t len;
	enum ver ver;
	int be;
	unsigned quantum, ptrsize;
	unsigned fsz;	/* a function table field: 4 (1.18 on) or a pointer */
	unsigned fixed; /* the fixed part of a _func */
	unsigned base;	/* offset of _func's nameoff: after its entry */
	uint64_t nfunc, text;
	size_t funcname, cutab, cutab_end, filetab, pctab, funcdata, ftab;
	uint32_t nfiletab; /* 1.2: files in the file table at filetab */
	uint32_t *fcache;  /* file number -> fi file + 1 (0: not looked up yet) */
	size_t nr_fcache;
	struct fi_table *t;
	struct runs file, line, inl;
	struct inl_node *nodes;
	size_t cap_nodes;
};

static uint64_t ld(const uint8_t *p, unsigned w, int be)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < w; i++)
		v |= (uint64_t)p[be ? w - 1 - i : i] << (8 * i);
	return v;
}

/* w bytes at the table's offset off into *v: 0, or -EBADMSG past its end. */
static int rd(const struct pcln *p, uint64_t off, unsigned w, uint64_t *v)
{
	if (off > p->len || p->len - off < w)
		return -EBADMSG;
	*v = ld(p->tab + off, w, p->be);
	return 0;
}

static int rd32(const struct pcln *p, uint64_t off, uint32_t *v)
{
	uint64_t x = 0;
	int err = rd(p, off, 4, &x);

	*v = (uint32_t)x;
	return err;
}

/* The NUL-terminated string at base + off, or NULL when it runs past the end. */
static const char *str_at(const struct pcln *p, uint64_t base, uint64_t off)
{
	uint64_t o = base + off;

	if (o < base || o >= p->len || !memchr(p->tab + o, 0, p->len - o))
		return NULL;
	return (const char *)p->tab + o;
}

/* ---- the header ------------------------------------------------------------------ */

static int header(struct pcln *p)
{
	const uint8_t *h = p->tab;
	uint64_t w[8];
	unsigned i, nw;
	uint32_t magic;

	if (p->len < 16)
		return -ENOEXEC;
	magic = (uint32_t)ld(h, 4, 0);
	p->be = 0;
	if ((magic & 0xfffffff0u) != 0xfffffff0u) {
		magic = (uint32_t)ld(h, 4, 1);
		p->be = 1;
	}
	switch (magic) {
	case GOPCLN_MAGIC_12:
		p->ver = V12;
		break;
	case GOPCLN_MAGIC_116:
		p->ver = V116;
		break;
	case GOPCLN_MAGIC_118:
		p->ver = V118;
		break;
	case GOPCLN_MAGIC_120:
		p->ver = V120;
		break;
	default:
		return -ENOEXEC;
	}
	if (h[4] || h[5] || (h[6] != 1 && h[6] != 2 && h[6] != 4) || (h[7] != 4 && h[7] != 8))
		return -ENOEXEC;
	p->quantum = h[6];
	p->ptrsize = h[7];
	nw = p->ver == V12 ? 1 : p->ver == V116 ? 7 : 8;
	for (i = 0; i < nw; i++)
		if (rd(p, 8 + (uint64_t)i * p->ptrsize, p->ptrsize, &w[i]))
			return -ENOEXEC;
	p->nfunc = w[0];
	p->fsz = p->ver >= V118 ? 4 : p->ptrsize;
	p->base = p->ver >= V118 ? 4 : p->ptrsize;
	switch (p->ver) {
	case V12:
		p->ftab = 8 + p->ptrsize;
		p->fixed = p->ptrsize + 32;
		break;
	case V116:
		p->funcname = w[2], p->cutab = w[3], p->filetab = w[4], p->pctab = w[5];
		p->funcdata = p->ftab = w[6];
		p->fixed = p->ptrsize + 36;
		break;
	default:
		p->text = w[2];
		p->funcname = w[3], p->cutab = w[4], p->filetab = w[5], p->pctab = w[6];
		p->funcdata = p->ftab = w[7];
		p->fixed = p->ver == V120 ? 44 : 40;
		break;
	}
	if (p->ver != V12 && (w[nw - 5] > p->len || w[nw - 4] > p->len || w[nw - 3] > p->len ||
			      w[nw - 2] > p->len || w[nw - 1] > p->len))
		return -ENOEXEC;
	/* the function table: nfunc (pc, offset) pairs and the end pc */
	if (p->ftab > p->len || p->nfunc > (p->len - p->ftab) / (2 * p->fsz) ||
	    (p->len - p->ftab) - p->nfunc * 2 * p->fsz < p->fsz)
		return -ENOEXEC;
	if (p->ver == V12) {
		uint32_t fo;

		/* 1.2: the file table's offset follows the function table */
		if (rd32(p, p->ftab + (p->nfunc * 2 + 1) * p->fsz, &fo) ||
		    rd32(p, fo, &p->nfiletab) || p->nfiletab > (p->len - fo) / 4)
			return -ENOEXEC;
		p->filetab = fo;
	} else {
		p->cutab_end = p->filetab > p->cutab ? p->filetab : p->len;
	}
	return 0;
}

static uint64_t ftab_pc(const struct pcln *p, uint64_t i)
{
	uint64_t v = ld(p->tab + p->ftab + 2 * i * p->fsz, p->fsz, p->be);

	return p->ver >= V118 ? v + p->text : v;
}

static uint64_t ftab_off(const struct pcln *p, uint64_t i)
{
	return ld(p->tab + p->ftab + (2 * i + 1) * p->fsz, p->fsz, p->be);
}

/* The table's _func i: its offset in the table, checked to hold the fixed
 * part and to start at the function table's pc. */
static int func_at(const struct pcln *p, uint64_t i, size_t *pos)
{
	uint64_t o = p->funcdata + ftab_off(p, i), e;

	if (o < p->funcdata || o > p->len || p->len - o < p->fixed)
		return -EBADMSG;
	e = ld(p->tab + o, p->base, p->be);
	if (p->ver >= V118 ? e != ld(p->tab + p->ftab + 2 * i * p->fsz, 4, p->be)
			   : e != ftab_pc(p, i))
		return -EBADMSG;
	*pos = (size_t)o;
	return 0;
}

/* The function table in pc order, each _func where it should be. */
static int check_ftab(const struct pcln *p)
{
	uint64_t i;
	size_t pos;

	for (i = 0; i < p->nfunc; i++)
		if (ftab_pc(p, i + 1) < ftab_pc(p, i) || func_at(p, i, &pos))
			return -EBADMSG;
	return 0;
}

/* ---- pc-value tables ------------------------------------------------------------- */

static int varint(const struct pcln *p, size_t *pos, uint32_t *v)
{
	uint32_t r = 0;
	unsigned shift;

	for (shift = 0; shift < 35; shift += 7) {
		uint8_t b;

		if (*pos >= p->len)
			return -EBADMSG;
		b = p->tab[(*pos)++];
		r |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -EBADMSG;
}

/* The pc-value table at base + off of the function [entry, end) into r:
 * runs of values up to end (-1 after the table's end); off 0: no table. */
static int pc_runs(const struct pcln *p, uint64_t base, uint32_t off, uint64_t entry, uint64_t end,
		   struct runs *r)
{
	uint64_t pc = entry;
	int32_t val = -1;
	int first = 1;
	size_t pos;

	r->n = 0;
	if (!off)
		return 0;
	if (base + off >= p->len)
		return -EBADMSG;
	pos = (size_t)(base + off);
	while (pc < end) {
		uint32_t uv, d;
		uint64_t npc;

		if (varint(p, &pos, &uv))
			return -EBADMSG;
		if (!uv && !first)
			break;
		first = 0;
		/* zig-zag: the low bit is the sign */
		val = (int32_t)((uint32_t)val + ((0u - (uv & 1)) ^ (uv >> 1)));
		if (varint(p, &pos, &d))
			return -EBADMSG;
		npc = pc + (uint64_t)d * p->quantum;
		if (npc > end)
			npc = end;
		if (npc == pc)
			continue;
		if (r->n && r->r[r->n - 1].val == val) {
			r->r[r->n - 1].end = npc;
		} else {
			if (ZT_GROW(r->r, r->cap, r->n + 1))
				return -ENOMEM;
			r->r[r->n++] = (struct run){npc, val};
		}
		pc = npc;
	}
	return 0;
}

/* The value of r at pc (pc >= the function's entry), -1 past its runs. */
static int32_t value_at(const struct runs *r, uint64_t pc)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->r[mid].end > pc)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < r->n ? r->r[lo].val : -1;
}

/* ---- files and lines ------------------------------------------------------------- */

/* The fi file of path, split at its last slash. */
static int intern_path(struct fi_table *t, const char *path, uint32_t *out)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (!slash) {
		*out = fi_file(t, "", path);
	} else {
		dir = strndup(path, (size_t)(slash - path));
		if (!dir)
			return -ENOMEM;
		*out = fi_file(t, slash == path ? "/" : dir, slash + 1);
		free(dir);
	}
	return *out ? 0 : -ENOMEM;
}

/* The fi file of the function's file number fno (cuoff: its compile
 * unit's first entry in cutab; 1.2: numbers are global): *out 0 for none. */
static int file_of(struct pcln *p, uint32_t cuoff, int32_t fno, uint32_t *out)
{
	uint64_t idx;
	uint32_t foff;
	const char *path;
	int err;

	*out = 0;
	if (p->ver == V12) {
		if (fno <= 0)
			return 0;
		if ((uint32_t)fno >= p->nfiletab)
			return -EBADMSG;
		idx = (uint64_t)fno;
	} else {
		if (fno < 0 || cuoff == UINT32_MAX)
			return 0;
		idx = (uint64_t)cuoff + (uint64_t)fno;
		if (idx >= (p->cutab_end - p->cutab) / 4)
			return -EBADMSG;
	}
	if (!p->fcache) {
		p->nr_fcache = p->ver == V12 ? p->nfiletab : (p->cutab_end - p->cutab) / 4;
		p->fcache = calloc(p->nr_fcache ? p->nr_fcache : 1, sizeof(*p->fcache));
		if (!p->fcache)
			return -ENOMEM;
	}
	if (p->fcache[idx]) {
		*out = p->fcache[idx] - 1;
		return 0;
	}
	if (p->ver == V12) {
		if (rd32(p, p->filetab + 4 * idx, &foff) || !(path = str_at(p, 0, foff)))
			return -EBADMSG;
	} else {
		if (rd32(p, p->cutab + 4 * idx, &foff))
			return -EBADMSG;
		if (foff == UINT32_MAX) {
			p->fcache[idx] = 1;
			return 0;
		}
		if (!(path = str_at(p, p->filetab, foff)))
			return -EBADMSG;
	}
	if (*path && (err = intern_path(p->t, path, out)))
		return err;
	p->fcache[idx] = *out + 1;
	return 0;
}

/* The line rows of f [entry, end) from the decoded file and line tables:
 * a row where either changes. */
static int add_lines(struct pcln *p, struct fi_func *f, uint64_t entry, uint64_t end,
		     uint32_t cuoff)
{
	const struct runs *fr = &p->file, *lr = &p->line;
	uint32_t last_file = UINT32_MAX, last_line = UINT32_MAX;
	size_t i = 0, j = 0;
	uint64_t pc = entry;
	int err;

	if (!fr->n && !lr->n)
		return 0;
	while (pc < end) {
		uint64_t fe = i < fr->n ? fr->r[i].end : end, le = j < lr->n ? lr->r[j].end : end;
		int32_t fv = i < fr->n ? fr->r[i].val : -1, lv = j < lr->n ? lr->r[j].val : -1;
		uint64_t next = fe < le ? fe : le;
		uint32_t file, line;

		if ((err = file_of(p, cuoff, fv, &file)))
			return err;
		line = file && lv > 0 ? (uint32_t)lv : 0;
		if (!line)
			file = 0;
		if (file != last_file || line != last_line) {
			if (fi_add_line(f, pc, file, line))
				return -ENOMEM;
			last_file = file;
			last_line = line;
		}
		if (i < fr->n && fe == next)
			i++;
		if (j < lr->n && le == next)
			j++;
		pc = next;
	}
	return 0;
}

/* ---- inline trees ---------------------------------------------------------------- */

/* The file bytes at address addr (segments, else file offsets): *avail of
 * them there. NULL when the address is in no segment's bytes. */
static const uint8_t *mem_at(const struct gopcln_src *s, uint64_t addr, uint64_t *avail)
{
	size_t i;

	if (!s->nr_segs) {
		if (addr >= s->file_len)
			return NULL;
		*avail = s->file_len - addr;
		return s->file + addr;
	}
	for (i = 0; i < s->nr_segs; i++) {
		const struct gopcln_seg *g = &s->segs[i];
		uint64_t off;

		if (addr < g->vaddr || addr - g->vaddr >= g->size)
			continue;
		off = g->off + (addr - g->vaddr);
		if (off < g->off || off >= s->file_len)
			return NULL;
		*avail = g->size - (addr - g->vaddr);
		if (*avail > s->file_len - off)
			*avail = s->file_len - off;
		return s->file + off;
	}
	return NULL;
}

static int add_range(struct inl_node *n, uint64_t start, uint64_t end)
{
	if (n->nr && n->ranges[n->nr - 1].end == start) {
		n->ranges[n->nr - 1].end = end;
		return 0;
	}
	if (n->nr == UINT32_MAX || ZT_GROW(n->ranges, n->cap, (size_t)n->nr + 1))
		return -ENOMEM;
	n->ranges[n->nr++] = (struct fi_range){start, end};
	return 0;
}

static void nodes_release(struct pcln *p, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		free(p->nodes[k].ranges);
		free(p->nodes[k].kids);
		p->nodes[k].ranges = NULL;
		p->nodes[k].kids = NULL;
	}
}

/* The nodes (n of them, with their ranges) as f's inline tree: the root
 * covers the function, its children are the calls inlined into it. */
static int build_tree(struct pcln *p, struct fi_func *f, size_t n, uint64_t entry, uint64_t end)
{
	struct fi_inline *root = calloc(1, sizeof(*root));
	uint32_t nr_top = 0;
	size_t k;

	if (!root || !(root->ranges = malloc(sizeof(*root->ranges))))
		goto nomem;
	for (k = 0; k < n; k++) {
		struct inl_node *x = &p->nodes[k];

		if (!x->nr)
			continue;
		x->slot = x->parent < 0 ? nr_top++ : p->nodes[x->parent].nr_kids++;
	}
	if (!nr_top) {
		free(root->ranges);
		free(root);
		return 0;
	}
	root->children = calloc(nr_top, sizeof(*root->children));
	if (!root->children)
		goto nomem;
	for (k = 0; k < n; k++)
		if (p->nodes[k].nr_kids &&
		    !(p->nodes[k].kids = calloc(p->nodes[k].nr_kids, sizeof(struct fi_inline))))
			goto nomem;
	/* every array is there: now nothing fails */
	for (k = 0; k < n; k++) {
		struct inl_node *x = &p->nodes[k];
		struct fi_inline *dst;

		if (!x->nr)
			continue;
		dst = x->parent < 0 ? &root->children[x->slot] : &p->nodes[x->parent].kids[x->slot];
		dst->ranges = x->ranges;
		dst->nr_ranges = x->nr;
		dst->name = x->name;
		dst->call_file = x->call_file;
		dst->call_line = x->call_line;
		dst->children = x->kids;
		dst->nr_children = x->nr_kids;
	}
	/* owned by the tree now (not before: a child may come after its parent) */
	for (k = 0; k < n; k++) {
		if (p->nodes[k].nr) {
			p->nodes[k].ranges = NULL;
			p->nodes[k].kids = NULL;
		}
	}
	root->ranges[0] = (struct fi_range){entry, end};
	root->nr_ranges = 1;
	root->name = f->name;
	root->nr_children = nr_top;
	f->inl = root;
	return 0;
nomem:
	if (root) {
		free(root->ranges);
		free(root->children);
	}
	free(root);
	return -ENOMEM;
}

/* Where the _func at pos keeps its inline tree: *addr, 0 when it has none. */
static int inl_tree_addr(const struct pcln *p, size_t pos, uint32_t npcdata, uint64_t *addr)
{
	uint64_t fd = (uint64_t)pos + p->fixed + 4 * (uint64_t)npcdata;
	uint32_t off;

	*addr = 0;
	if (p->ver >= V118) {
		if (rd32(p, fd + 4 * FUNCDATA_INLTREE, &off))
			return -EBADMSG;
		if (off != UINT32_MAX)
			*addr = p->s->gofunc + off;
		return 0;
	}
	/* 1.16, 1.17: pointers, aligned as the runtime aligns them in memory */
	if (p->ptrsize == 8 && ((p->s->tab_vaddr ? p->s->tab_vaddr : p->s->tab_off) + fd) & 4)
		fd += 4;
	return rd(p, fd + (uint64_t)FUNCDATA_INLTREE * p->ptrsize, p->ptrsize, addr);
}

/* The inline tree of the function at pos [entry, end) into f->inl. */
static int inline_tree(struct pcln *p, struct fi_func *f, size_t pos, uint64_t entry, uint64_t end,
		       uint32_t cuoff, uint32_t npcdata, uint32_t nfuncdata,
		       struct gopcln_info *info)
{
	uint64_t addr, avail;
	const uint8_t *d;
	uint32_t pcoff;
	unsigned rec = p->ver == V120 ? 16 : 20;
	size_t n = 0, k;
	int32_t maxv = -1;
	int err;

	if (p->ver == V12 || npcdata <= PCDATA_INLTREE || nfuncdata <= FUNCDATA_INLTREE)
		return 0;
	if (p->ver >= V118 && !p->s->gofunc) {
		info->no_gofunc = 1;
		return 0;
	}
	if (rd32(p, (uint64_t)pos + p->fixed + 4 * PCDATA_INLTREE, &pcoff) ||
	    inl_tree_addr(p, pos, npcdata, &addr))
		return -EBADMSG;
	if (!pcoff || !addr)
		return 0;
	if ((err = pc_runs(p, p->pctab, pcoff, entry, end, &p->inl)))
		return err;
	for (k = 0; k < p->inl.n; k++)
		if (p->inl.r[k].val > maxv)
			maxv = p->inl.r[k].val;
	if (maxv < 0)
		return 0;
	n = (size_t)maxv + 1;
	if (n > MAX_INL_NODES || !(d = mem_at(p->s, addr, &avail)) || avail / rec < n)
		return -EBADMSG;
	if (ZT_GROW(p->nodes, p->cap_nodes, n))
		return -ENOMEM;
	memset(p->nodes, 0, n * sizeof(*p->nodes));
	for (k = 0; k < n; k++) {
		const uint8_t *r = d + k * rec;
		struct inl_node *x = &p->nodes[k];
		uint32_t nameoff = (uint32_t)ld(r + (rec == 16 ? 4 : 12), 4, p->be);
		uint32_t ppc = (uint32_t)ld(r + (rec == 16 ? 8 : 16), 4, p->be);
		const char *name = str_at(p, p->funcname, nameoff);
		int32_t lv;

		if (!name || ppc >= end - entry)
			return -EBADMSG;
		if ((x->name = fi_str(p->t, name)) == UINT32_MAX)
			return -ENOMEM;
		/* the call site: the position of the instruction at parentPc;
		 * 1.20 keeps no parent index, it is the inline index there */
		if ((err = file_of(p, cuoff, value_at(&p->file, entry + ppc), &x->call_file)))
			return err;
		lv = value_at(&p->line, entry + ppc);
		x->call_line = x->call_file && lv > 0 ? (uint32_t)lv : 0;
		x->parent = rec == 16 ? value_at(&p->inl, entry + ppc) : (int16_t)ld(r, 2, p->be);
		if (x->parent < 0)
			x->parent = -1;
		if (x->parent >= (int32_t)n || x->parent == (int32_t)k)
			return -EBADMSG;
	}
	/* each pc of an inlined call belongs to it and to every call it is in */
	for (k = 0; k < p->inl.n; k++) {
		uint64_t start = k ? p->inl.r[k - 1].end : entry;
		int32_t v = p->inl.r[k].val;
		unsigned depth = 0;

		for (; v >= 0; v = p->nodes[v].parent) {
			if (++depth > MAX_INL_DEPTH) {
				nodes_release(p, n);
				return -EBADMSG; /* a loop */
			}
			if (add_range(&p->nodes[v], start, p->inl.r[k].end)) {
				nodes_release(p, n);
				return -ENOMEM;
			}
		}
	}
	err = build_tree(p, f, n, entry, end);
	nodes_release(p, n);
	if (!err && f->inl)
		info->nr_inlined++;
	return err;
}

/* ---- functions ------------------------------------------------------------------- */

static int add_func(struct pcln *p, uint64_t i, struct gopcln_info *info)
{
	uint64_t entry = ftab_pc(p, i), end = ftab_pc(p, i + 1);
	uint32_t nameoff, pcfile, pcln, npcdata, cuoff = UINT32_MAX, name;
	uint8_t nfuncdata = 0;
	const char *s;
	struct fi_func *f;
	size_t pos;
	int err;

	if (end <= entry)
		return 0; /* an empty function (the table is in order: checked) */
	if (func_at(p, i, &pos) || rd32(p, pos + p->base, &nameoff) ||
	    rd32(p, pos + p->base + 16, &pcfile) || rd32(p, pos + p->base + 20, &pcln) ||
	    rd32(p, pos + p->base + 24, &npcdata))
		return -EBADMSG;
	if (p->ver != V12) {
		if (rd32(p, pos + p->base + 28, &cuoff))
			return -EBADMSG;
		nfuncdata = p->tab[pos + p->fixed - 1];
	}
	if (!(s = str_at(p, p->funcname, nameoff)))
		return -EBADMSG;
	if ((name = fi_str(p->t, s)) == UINT32_MAX ||
	    !(f = fi_add_func(p->t, entry, end - entry, name)))
		return -ENOMEM;
	f->dname = name;
	if ((err = pc_runs(p, p->pctab, pcfile, entry, end, &p->file)) ||
	    (err = pc_runs(p, p->pctab, pcln, entry, end, &p->line)) ||
	    (err = add_lines(p, f, entry, end, cuoff)) ||
	    (err = inline_tree(p, f, pos, entry, end, cuoff, npcdata, nfuncdata, info)))
		return err;
	info->nr_funcs++;
	return 0;
}

int gopclntab_parse(const struct gopcln_src *s, struct fi_table *t, struct gopcln_info *info)
{
	struct gopcln_info dummy;
	struct pcln p;
	uint64_t i;
	int err;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	if (s->tab_off > s->file_len || s->file_len - s->tab_off < s->tab_len)
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	p.s = s;
	p.t = t;
	p.tab = s->file + s->tab_off;
	p.len = s->tab_len;
	if ((err = header(&p)))
		return err;
	if (s->text && p.ver >= V118)
		p.text = s->text;
	info->magic = p.ver == V12    ? GOPCLN_MAGIC_12
		      : p.ver == V116 ? GOPCLN_MAGIC_116
		      : p.ver == V118 ? GOPCLN_MAGIC_118
				      : GOPCLN_MAGIC_120;
	info->ptrsize = p.ptrsize;
	info->quantum = p.quantum;
	err = check_ftab(&p);
	for (i = 0; !err && i < p.nfunc; i++)
		err = add_func(&p, i, info);
	if (!err)
		err = fi_finish(t);
	free(p.fcache);
	free(p.file.r);
	free(p.line.r);
	free(p.inl.r);
	free(p.nodes);
	return err;
}

/* ---- finding it ------------------------------------------------------------------ */

int gopclntab_search(const uint8_t *data, size_t len, size_t *off, size_t *len_out)
{
	size_t i;

	for (i = 0; len >= 16 && i <= len - 16; i += 4) {
		const uint8_t *h = data + i;
		struct gopcln_src s;
		struct pcln p;

		/* the magic's three 0xff bytes, either byte order, then the pad */
		if (!((h[1] == 0xff && h[2] == 0xff && (h[3] == 0xff || h[0] == 0xff)) && !h[4] &&
		      !h[5]))
			continue;
		memset(&s, 0, sizeof(s));
		memset(&p, 0, sizeof(p));
		s.file = data;
		s.file_len = len;
		p.s = &s;
		p.tab = h;
		p.len = len - i;
		if (header(&p) || !p.nfunc || check_ftab(&p))
			continue;
		*off = i;
		*len_out = len - i;
		return 0;
	}
	return -ENOENT;
}

int gopclntab_moduledata(const struct gopcln_src *s, uint64_t *text, uint64_t *gofunc)
{
	struct gopcln_seg whole = {0, 0, s->file_len};
	const struct gopcln_seg *segs = s->nr_segs ? s->segs : &whole;
	size_t nsegs = s->nr_segs ? s->nr_segs : 1, i;
	uint8_t pat[16];
	struct pcln p;
	unsigned w, k;

	*text = *gofunc = 0;
	memset(&p, 0, sizeof(p));
	p.s = s;
	if (s->tab_off > s->file_len || s->file_len - s->tab_off < s->tab_len || !s->tab_vaddr)
		return -ENOENT;
	p.tab = s->file + s->tab_off;
	p.len = s->tab_len;
	if (header(&p) || p.ver < V118)
		return -ENOENT;
	/* moduledata starts: pcHeader, funcnametab's address */
	w = p.ptrsize;
	for (k = 0; k < w; k++) {
		pat[k] = (uint8_t)(s->tab_vaddr >> (8 * (p.be ? w - 1 - k : k)));
		pat[w + k] = (uint8_t)((s->tab_vaddr + p.funcname) >> (8 * (p.be ? w - 1 - k : k)));
	}
	for (i = 0; i < nsegs; i++) {
		const uint8_t *lo, *hi, *at;

		if (segs[i].off >= s->file_len)
			continue;
		lo = s->file + segs[i].off;
		hi = lo + (segs[i].size < s->file_len - segs[i].off ? segs[i].size
								    : s->file_len - segs[i].off);
		for (at = lo; at < hi && (at = memmem(at, (size_t)(hi - at), pat, 2 * w)); at++) {
			unsigned gi = p.ver == V120 ? MD_GOFUNC_120 : MD_GOFUNC_118;

			if ((segs[i].vaddr + (uint64_t)(at - lo)) % w ||
			    (size_t)(hi - at) < (size_t)(gi + 1) * w)
				continue;
			*text = ld(at + MD_TEXT * w, w, p.be);
			*gofunc = ld(at + gi * w, w, p.be);
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- ELF files ------------------------------------------------------------------- */

/* t's file index in g (0 stays 0): 0 or -ENOMEM. */
static int copy_file(struct fi_table *g, const struct fi_table *t, uint32_t from, uint32_t *to)
{
	*to = 0;
	if (!from || from >= t->nr_files)
		return 0;
	*to = fi_file(g, fi_strat(t, t->files[from].dir), fi_strat(t, t->files[from].base));
	return *to ? 0 : -ENOMEM;
}

/* t's inline tree node from into dst (zeroed), its strings and files g's. */
static int copy_inline(struct fi_table *g, const struct fi_table *t, const struct fi_inline *from,
		       struct fi_inline *dst)
{
	uint32_t i;

	dst->name = fi_str(g, fi_strat(t, from->name));
	dst->call_line = from->call_line;
	dst->call_column = from->call_column;
	if (dst->name == UINT32_MAX || copy_file(g, t, from->call_file, &dst->call_file))
		return -ENOMEM;
	if (from->nr_ranges) {
		dst->ranges = malloc(from->nr_ranges * sizeof(*dst->ranges));
		if (!dst->ranges)
			return -ENOMEM;
		memcpy(dst->ranges, from->ranges, from->nr_ranges * sizeof(*dst->ranges));
		dst->nr_ranges = from->nr_ranges;
	}
	if (from->nr_children) {
		dst->children = calloc(from->nr_children, sizeof(*dst->children));
		if (!dst->children)
			return -ENOMEM;
		dst->nr_children = from->nr_children;
		for (i = 0; i < from->nr_children; i++)
			if (copy_inline(g, t, &from->children[i], &dst->children[i]))
				return -ENOMEM;
	}
	return 0;
}

/* A copy of t's function f in g. */
static int copy_func(struct fi_table *g, const struct fi_table *t, const struct fi_func *f)
{
	struct fi_func *c = fi_add_func(g, f->start, f->size, fi_str(g, fi_strat(t, f->name)));
	uint32_t j, file;

	if (!c || c->name == UINT32_MAX)
		return -ENOMEM;
	c->dname = fi_str(g, fi_strat(t, f->dname));
	c->gname = fi_str(g, fi_strat(t, f->gname));
	c->lname = fi_str(g, fi_strat(t, f->lname));
	c->gfile = fi_str(g, fi_strat(t, f->gfile));
	c->lfile = fi_str(g, fi_strat(t, f->lfile));
	c->flags = f->flags;
	if (c->dname == UINT32_MAX || c->gname == UINT32_MAX || c->lname == UINT32_MAX ||
	    c->gfile == UINT32_MAX || c->lfile == UINT32_MAX)
		return -ENOMEM;
	for (j = 0; j < f->nr_lines; j++) {
		if (copy_file(g, t, f->lines[j].file, &file) ||
		    fi_add_line(c, f->lines[j].addr, file, f->lines[j].line))
			return -ENOMEM;
		c->lines[c->nr_lines - 1].column = f->lines[j].column;
		c->lines[c->nr_lines - 1].discr = f->lines[j].discr;
	}
	if (f->inl) {
		/* owned by c as soon as it is there: released with g */
		if (!(c->inl = calloc(1, sizeof(*c->inl))))
			return -ENOMEM;
		return copy_inline(g, t, f->inl, c->inl);
	}
	return 0;
}

static int has_lines(const struct fi_func *f)
{
	uint32_t j;

	for (j = 0; j < f->nr_lines; j++)
		if (f->lines[j].file)
			return 1;
	return 0;
}

/*
 * t's functions that lie outside all of g's (the first n, sorted) into g:
 * the C code of a cgo binary. -EEXIST when one of t's functions with line
 * rows overlaps one of g's: t's DWARF covers the Go code, and is kept.
 */
static int merge_outside(struct fi_table *g, const struct fi_table *t)
{
	size_t n = g->nr_funcs, i, pass;
	int err;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < t->nr_funcs; i++) {
			const struct fi_func *f = &t->funcs[i];
			uint64_t fend = f->start + (f->size ? f->size : 1);
			size_t at = ZT_UPPER_BOUND(g->funcs, n, start, f->start);
			int inside =
				(at && g->funcs[at - 1].start + g->funcs[at - 1].size > f->start) ||
				(at < n && g->funcs[at].start < fend);

			if (!pass && inside && has_lines(f))
				return -EEXIST;
			if (pass && !inside && (err = copy_func(g, t, f)))
				return err;
		}
	}
	memcpy(g->uuid, t->uuid, sizeof(g->uuid));
	g->uuid_len = t->uuid_len;
	return fi_finish(g);
}

/* The PT_LOAD segments' file bytes of e (flen bytes) into *segs. */
static int elf_segs(Elf *e, size_t flen, struct gopcln_seg **segs, size_t *nr)
{
	size_t n, i, cap = 0;

	*segs = NULL;
	*nr = 0;
	if (elf_getphdrnum(e, &n))
		return 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz ||
		    ph.p_offset >= flen)
			continue;
		if (ZT_GROW(*segs, cap, *nr + 1))
			return -ENOMEM;
		(*segs)[(*nr)++] = (struct gopcln_seg){
			ph.p_offset, ph.p_vaddr,
			ph.p_filesz < flen - ph.p_offset ? ph.p_filesz : flen - ph.p_offset};
	}
	return 0;
}

/* The pclntab section (and .text's address) of e into s: 0, or -ENOENT. */
static int elf_section(Elf *e, struct gopcln_src *s, uint64_t *text_addr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int found = 0;

	*text_addr = 0;
	if (elf_getshdrstrndx(e, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".text")) {
			*text_addr = sh.sh_addr;
		} else if (!found && sh.sh_type != SHT_NOBITS &&
			   (!strcmp(name, ".gopclntab") ||
			    !strcmp(name, ".data.rel.ro.gopclntab")) &&
			   sh.sh_offset <= s->file_len &&
			   sh.sh_size <= s->file_len - sh.sh_offset) {
			s->tab_off = sh.sh_offset;
			s->tab_len = sh.sh_size;
			s->tab_vaddr = sh.sh_addr;
			found = 1;
		}
	}
	return found ? 0 : -ENOENT;
}

int gopclntab_extract_elf(Elf *e, struct fi_table *t, struct gopcln_info *info)
{
	struct gopcln_info dummy;
	struct gopcln_seg *segs = NULL;
	struct gopcln_src s;
	struct fi_table g;
	uint64_t text_addr = 0, md_text, md_gofunc;
	size_t flen, i;
	int err, by_search = 0;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	memset(&s, 0, sizeof(s));
	if (!e || elf_kind(e) != ELF_K_ELF || !(s.file = (const uint8_t *)elf_rawfile(e, &flen)))
		return -ENOEXEC;
	s.file_len = flen;
	if ((err = elf_segs(e, flen, &segs, &s.nr_segs)))
		return err;
	s.segs = segs;
	if (elf_section(e, &s, &text_addr)) {
		size_t nscn = 0;

		/* section headers gone: the header is searched for (a file
		 * with sections but no .gopclntab is not Go's) */
		if ((!elf_getshdrnum(e, &nscn) && nscn > 1) ||
		    gopclntab_search(s.file, flen, &s.tab_off, &s.tab_len)) {
			free(segs);
			return -ENOENT;
		}
		by_search = 1;
		for (i = 0; i < s.nr_segs; i++) {
			if (s.tab_off >= segs[i].off && s.tab_off - segs[i].off < segs[i].size) {
				s.tab_vaddr = segs[i].vaddr + (s.tab_off - segs[i].off);
				s.tab_len = segs[i].size - (s.tab_off - segs[i].off);
				break;
			}
		}
	}
	if (!gopclntab_moduledata(&s, &md_text, &md_gofunc))
		s.gofunc = md_gofunc;
	else
		md_text = 0;
	/* 1.18 on: functions are offsets from runtime.text, which the header
	 * says unless the file holds it unrelocated (0) */
	if (s.tab_len >= 8 + 3 * 8) {
		struct pcln p;

		memset(&p, 0, sizeof(p));
		p.s = &s;
		p.tab = s.file + s.tab_off;
		p.len = s.tab_len;
		if (!header(&p) && p.ver >= V118 && !p.text)
			s.text = md_text ? md_text : text_addr;
	}
	fi_table_init(&g);
	err = gopclntab_parse(&s, &g, info);
	info->by_search = by_search;
	if (!err)
		err = merge_outside(&g, t);
	if (!err) {
		fi_table_release(t);
		*t = g;
	} else {
		fi_table_release(&g);
	}
	free(segs);
	return err == -ENOEXEC ? -ENOENT : err;
}

int gopclntab_extract(const char *path, struct fi_table *t, struct gopcln_info *info)
{
	Elf *e;
	int fd, err;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = e ? gopclntab_extract_elf(e, t, info) : -ENOEXEC;
	elf_end(e);
	close(fd);
	return err;
}
