/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Flame graphs: a frame tree from stacks or folded text, written as an interactive SVG. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/flame.h"
#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"

/* ---- strings ---- */

/* names are C strings wherever they go: a NUL within len ends one */
static int intern(struct flame *f, const char *s, size_t len, uint32_t *id)
{
	len = strnlen(s, len);
	if (!len) { /* "" is id 0 (most frames have no module or line) */
		*id = 0;
		return 0;
	}
	return zt_strtab_intern(&f->strs, s, len, id);
}

int flame_intern(struct flame *f, const char *s, uint32_t *id)
{
	return intern(f, s ? s : "", s ? strlen(s) : 0, id);
}

const char *flame_str(const struct flame *f, uint32_t id)
{
	return zt_strtab_str(&f->strs, id);
}

/* ---- the tree ---- */

static uint64_t node_hash(uint32_t parent, uint32_t name, uint32_t module, unsigned kind)
{
	return zt_hash_mix(zt_hash_mix(zt_hash_pair((uint64_t)parent << 32 | name, module), kind),
			   1);
}

static inline uint64_t node_hash_at(const void *f, uint32_t i)
{
	const struct flame_node *n = &((const struct flame *)f)->nodes[i];

	return node_hash(n->parent, n->name, n->module, n->kind);
}

static int new_node(struct flame *f, uint32_t parent, uint32_t name, uint32_t module,
		    uint32_t srcline, unsigned kind, uint32_t *out)
{
	struct flame_node *n;

	if (f->nr_nodes >= UINT32_MAX - 1 || ZT_GROW(f->nodes, f->cap_nodes, f->nr_nodes + 1))
		return -ENOMEM;
	n = &f->nodes[f->nr_nodes];
	*n = (struct flame_node){name,	     module, srcline,	    parent, FLAME_NONE,
				 FLAME_NONE, 0,	     (uint8_t)kind, {0, 0}};
	if (parent != FLAME_NONE) {
		n->depth = f->nodes[parent].depth + 1;
		n->next = f->nodes[parent].child;
		f->nodes[parent].child = (uint32_t)f->nr_nodes;
	}
	*out = (uint32_t)f->nr_nodes++;
	return 0;
}

int flame_init(struct flame *f)
{
	uint32_t root;

	uint32_t empty;

	memset(f, 0, sizeof(*f));
	zt_strtab_init(&f->strs);
	if (zt_strtab_intern(&f->strs, "", 0, &empty)) /* id 0 */
		return -ENOMEM;
	if (new_node(f, FLAME_NONE, 0, 0, 0, FLAME_USER, &root))
		return -ENOMEM;
	/* the root is in its table too (its items are all the nodes), never
	 * looked up */
	if (zt_htab_reserve(&f->nhash, 1, node_hash_at, f))
		return -ENOMEM;
	zt_htab_add(&f->nhash, node_hash_at(f, root), root);
	return 0;
}

void flame_release(struct flame *f)
{
	zt_strtab_release(&f->strs);
	free(f->nodes);
	zt_htab_release(&f->nhash);
	free(f->scratch);
	free(f->ids);
	free(f->prev);
	free(f->prev_ends);
	free(f->prev_nodes);
	memset(f, 0, sizeof(*f));
}

/* The child of parent for this frame, created if new. */
static int child_of(struct flame *f, uint32_t parent, uint32_t name, uint32_t module,
		    uint32_t srcline, unsigned kind, uint32_t *out)
{
	size_t j;
	uint32_t i;
	int ret;

	if (zt_htab_reserve(&f->nhash, 1, node_hash_at, f))
		return -ENOMEM;
	for (j = zt_htab_first(&f->nhash, node_hash(parent, name, module, kind));
	     zt_htab_get(&f->nhash, j, &i); j = zt_htab_next(&f->nhash, j)) {
		const struct flame_node *n = &f->nodes[i];

		if (n->parent == parent && n->name == name && n->module == module &&
		    n->kind == kind) {
			*out = i;
			return 0;
		}
	}
	ret = new_node(f, parent, name, module, srcline, kind, out);
	if (!ret)
		zt_htab_set(&f->nhash, j, *out);
	return ret;
}

static int count_at(struct flame *f, uint32_t node, uint64_t count, int which)
{
	/* the node and every ancestor, the root included */
	for (; node != FLAME_NONE; node = f->nodes[node].parent) {
		uint64_t *v = &f->nodes[node].value[which];

		*v = *v + count < *v ? UINT64_MAX : *v + count;
	}
	f->total[which] = f->nodes[0].value[which];
	return 0;
}

static int add_one(struct flame *f, uint32_t *node, const char *name, size_t nl, const char *module,
		   const char *srcline, unsigned kind)
{
	uint32_t n, m, s;
	int ret;

	ret = intern(f, name, nl, &n);
	if (!ret)
		ret = intern(f, module ? module : "", module ? strlen(module) : 0, &m);
	if (!ret)
		ret = intern(f, srcline ? srcline : "", srcline ? strlen(srcline) : 0, &s);
	if (!ret)
		ret = child_of(f, *node, n, m, s, kind, node);
	return ret;
}

int flame_add_stack_ids(struct flame *f, const struct flame_idframe *frames, size_t n,
			uint64_t count, int which)
{
	uint32_t node = 0;
	size_t i;
	int ret = 0;

	if (which != 0 && which != 1)
		return -EINVAL;
	if (n > FLAME_MAX_DEPTH)
		n = FLAME_MAX_DEPTH;
	for (i = 0; i < n && !ret; i++) {
		const struct flame_idframe *fr = &frames[f->reverse ? n - 1 - i : i];

		if (fr->name >= f->strs.nr || fr->module >= f->strs.nr || fr->srcline >= f->strs.nr)
			return -EINVAL;
		ret = child_of(f, node, fr->name, fr->module, fr->srcline,
			      fr->kind < FLAME_NR_KINDS ? fr->kind : FLAME_USER, &node);
	}
	return ret ? ret : count_at(f, node, count, which);
}

int flame_add_stack(struct flame *f, const struct flame_frame *frames, size_t n, uint64_t count,
		    int which)
{
	size_t i;

	if (n > FLAME_MAX_DEPTH)
		n = FLAME_MAX_DEPTH;
	if (ZT_GROW(f->ids, f->ids_cap, n ? n : 1))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct flame_frame *fr = &frames[i];

		f->ids[i].kind = fr->kind;
		if (flame_intern(f, fr->name, &f->ids[i].name) ||
		    flame_intern(f, fr->module, &f->ids[i].module) ||
		    flame_intern(f, fr->srcline, &f->ids[i].srcline))
			return -ENOMEM;
	}
	return flame_add_stack_ids(f, f->ids, n, count, which);
}

uint32_t flame_find_child(const struct flame *f, uint32_t parent, const char *name)
{
	uint32_t c;

	if (parent >= f->nr_nodes)
		return FLAME_NONE;
	for (c = f->nodes[parent].child; c != FLAME_NONE; c = f->nodes[c].next)
		if (!strcmp(flame_str(f, f->nodes[c].name), name))
			return c;
	return FLAME_NONE;
}

/* ---- folded text ---- */

/* The kind of a folded frame and its name without the annotation. */
static unsigned folded_kind(const char *s, size_t *len)
{
	size_t l = *len;

	if (l > 5 && !memcmp(s + l - 5, "_[g", 3) && s[l - 1] == ']') {
		static const char gk[] = "dils";
		static const unsigned kinds[] = {FLAME_GPU_FUNC, FLAME_GPU_INLINED, FLAME_GPU_LINE,
						 FLAME_GPU_STALL};
		const char *c = memchr(gk, s[l - 2], 4);

		if (c) {
			*len = l - 5;
			return kinds[c - gk];
		}
	}
	if (l > 4 && !memcmp(s + l - 4, "_[g]", 4)) {
		*len = l - 4;
		return FLAME_GPU_KERNEL;
	}
	if (l > 4 && s[l - 4] == '_' && s[l - 3] == '[' && s[l - 1] == ']') {
		switch (s[l - 2]) {
		case 'k':
			*len = l - 4;
			return FLAME_KERNEL;
		case 'j':
			*len = l - 4;
			return FLAME_JIT;
		case 'i':
			*len = l - 4;
			return FLAME_INLINED;
		}
	}
	if (l >= 2 && s[0] == '[' && s[l - 1] == ']')
		return FLAME_UNRESOLVED;
	return FLAME_USER;
}

static int parse_line(struct flame *f, const char *s, size_t len, int which, size_t *bad)
{
	const char *end = s + len, *p, *q;
	uint64_t count = 0;
	uint32_t node = 0;
	size_t depth = 0;
	int ret = 0;

	while (end > s && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == s)
		return 0;
	if (memchr(s, 0, len)) { /* binary, not folded text */
		(*bad)++;
		return 0;
	}
	/* the count: digits after the last blank */
	for (p = end; p > s && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == end || p == s || (p[-1] != ' ' && p[-1] != '\t') || end - p > 19) {
		(*bad)++;
		return 0;
	}
	for (q = p; q < end; q++)
		count = count * 10 + (uint64_t)(*q - '0');
	end = p - 1;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == s) {
		(*bad)++;
		return 0;
	}
	p = s;
	if (!f->reverse) {
		/* the frames this line shares with the last: their nodes again */
		size_t n = (size_t)(end - s), lim = n < f->prev_len ? n : f->prev_len, L = 0, k = 0;

		while (L + 8 <= lim) {
			uint64_t a, b;

			memcpy(&a, s + L, 8);
			memcpy(&b, f->prev + L, 8);
			if (a != b)
				break;
			L += 8;
		}
		while (L < lim && s[L] == f->prev[L])
			L++;
		while (k < f->prev_depth &&
		       (f->prev_ends[k] < L || (f->prev_ends[k] == L && (L == n || s[L] == ';'))))
			k++;
		if (k) {
			node = f->prev_nodes[k - 1];
			depth = k;
			p = f->prev_ends[k - 1] < n ? s + f->prev_ends[k - 1] + 1 : end;
		}
	}
	for (; p < end && !ret; p = q + 1) {
		size_t l;
		unsigned kind;

		q = memchr(p, ';', (size_t)(end - p));
		if (!q)
			q = end;
		l = (size_t)(q - p);
		if (!l)
			continue; /* "a;;b": an empty frame is no frame */
		if (++depth > FLAME_MAX_DEPTH)
			break;
		kind = folded_kind(p, &l);
		if (depth == 1 && f->process_first && kind == FLAME_USER)
			kind = FLAME_PROCESS;
		if (!f->reverse) {
			ret = add_one(f, &node, p, l, NULL, NULL, kind);
			if (!ret && (ZT_GROW(f->prev_ends, f->prev_dcap, depth) ||
				     ZT_GROW(f->prev_nodes, f->cap_prev_nodes, depth)))
				ret = -ENOMEM;
			if (!ret) {
				f->prev_ends[depth - 1] = (size_t)(q - s);
				f->prev_nodes[depth - 1] = node;
			}
			continue;
		}
		if (ZT_GROW(f->scratch, f->scratch_cap, depth))
			return -ENOMEM;
		/* borrowed pointers into buf: name is p, its length kept in srcline's slot */
		f->scratch[depth - 1] =
			(struct flame_frame){p, NULL, (const char *)(uintptr_t)l, kind};
	}
	if (!f->reverse) {
		f->prev_depth = 0;
		if (!ret && ZT_GROW(f->prev, f->prev_cap, (size_t)(end - s) + 1))
			ret = -ENOMEM;
		if (ret)
			return ret;
		memcpy(f->prev, s, (size_t)(end - s));
		f->prev_len = (size_t)(end - s);
		f->prev_depth = depth > FLAME_MAX_DEPTH ? FLAME_MAX_DEPTH : depth;
	}
	if (ret)
		return ret;
	if (f->reverse) {
		size_t i;

		for (i = depth > FLAME_MAX_DEPTH ? FLAME_MAX_DEPTH : depth; i-- > 0 && !ret;)
			ret = add_one(f, &node, f->scratch[i].name,
				      (size_t)(uintptr_t)f->scratch[i].srcline, NULL, NULL,
				      f->scratch[i].kind);
		if (ret)
			return ret;
	}
	return count_at(f, node, count, which);
}

int flame_parse_folded(struct flame *f, const char *buf, size_t len, int which, size_t *bad)
{
	size_t dummy = 0, off = 0;
	int ret = 0;

	if (which != 0 && which != 1)
		return -EINVAL;
	if (!bad)
		bad = &dummy;
	f->prev_len = f->prev_depth = 0;
	while (off < len && !ret) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t l = nl ? (size_t)(nl - (buf + off)) : len - off;

		ret = parse_line(f, buf + off, l, which, bad);
		off += l + 1;
	}
	return ret;
}

/* ---- colors ---- */

const char flame_palettes[] = "kind, hot, mem, io, red, green, blue, aqua";

static const char *const palette_names[] = {"kind", "hot",   "mem",  "io",
					    "red",  "green", "blue", "aqua"};
enum { PAL_KIND, PAL_HOT, PAL_MEM, PAL_IO, PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA };

static int palette_of(const char *name)
{
	size_t i;

	if (!name)
		return PAL_KIND;
	for (i = 0; i < sizeof(palette_names) / sizeof(palette_names[0]); i++)
		if (!strcmp(name, palette_names[i]))
			return (int)i;
	return -1;
}

int flame_palette_valid(const char *name)
{
	return palette_of(name) >= 0;
}

/* A fixed palette's color with variation v[0..2] in [0, 1). */
static void pal_color(int pal, const double *v, int *r, int *g, int *b)
{
	switch (pal) {
	case PAL_MEM:
		*r = 0, *g = 190 + (int)(50 * v[1]), *b = (int)(210 * v[0]);
		break;
	case PAL_IO:
		*r = 80 + (int)(60 * v[0]), *g = *r, *b = 190 + (int)(55 * v[1]);
		break;
	case PAL_RED:
		*r = 200 + (int)(55 * v[0]), *g = 50 + (int)(80 * v[0]), *b = *g;
		break;
	case PAL_GREEN:
		*g = 200 + (int)(55 * v[0]), *r = 50 + (int)(60 * v[0]), *b = *r;
		break;
	case PAL_BLUE:
		*b = 205 + (int)(50 * v[0]), *r = 80 + (int)(60 * v[0]), *g = *r;
		break;
	case PAL_AQUA:
		*r = 50 + (int)(60 * v[0]), *g = 165 + (int)(55 * v[0]),
		*b = 165 + (int)(55 * v[0]);
		break;
	default: /* hot */
		*r = 205 + (int)(50 * v[2]), *g = (int)(230 * v[0]), *b = (int)(55 * v[1]);
		break;
	}
}

/* The fill of a node: a hue stable per function name (so two graphs of
 * one program look alike), in the palette of its kind. */
static void node_color(const struct flame *f, const struct flame_node *n, int pal, int *r, int *g,
		       int *b)
{
	const char *name = flame_str(f, n->name);
	uint64_t h = zt_hash_str(name);
	double v[3];

	v[0] = (double)(h & 0xffff) / 65536.0;
	v[1] = (double)(h >> 16 & 0xffff) / 65536.0;
	v[2] = (double)(h >> 32 & 0xffff) / 65536.0;
	if (pal != PAL_KIND) {
		pal_color(pal, v, r, g, b);
		return;
	}
	switch (n->kind) {
	case FLAME_KERNEL: /* orange */
		*r = 230 + (int)(25 * v[0]), *g = 120 + (int)(60 * v[1]), *b = (int)(30 * v[2]);
		break;
	case FLAME_JIT:
		pal_color(PAL_GREEN, v, r, g, b);
		break;
	case FLAME_INLINED:
		pal_color(PAL_AQUA, v, r, g, b);
		break;
	case FLAME_UNRESOLVED: /* grey */
		*r = *g = *b = 150 + (int)(50 * v[0]);
		break;
	case FLAME_PROCESS: /* lavender */
		*r = 175 + (int)(30 * v[0]), *g = *r, *b = 225 + (int)(30 * v[1]);
		break;
	/* GPU: blues for code, outer to inner lighter; pale blue-grey lines;
	 * rose stall reasons on top */
	case FLAME_GPU_KERNEL:
		*r = 40 + (int)(40 * v[0]), *g = 95 + (int)(45 * v[1]), *b = 215 + (int)(40 * v[2]);
		break;
	case FLAME_GPU_FUNC:
		*r = 95 + (int)(40 * v[0]), *g = 150 + (int)(40 * v[1]),
		*b = 235 + (int)(20 * v[2]);
		break;
	case FLAME_GPU_INLINED:
		*r = 140 + (int)(30 * v[0]), *g = 195 + (int)(25 * v[1]),
		*b = 240 + (int)(15 * v[2]);
		break;
	case FLAME_GPU_LINE:
		*r = 185 + (int)(25 * v[0]), *g = 205 + (int)(20 * v[0]),
		*b = 230 + (int)(20 * v[1]);
		break;
	case FLAME_GPU_STALL:
		*r = 235 + (int)(20 * v[0]), *g = 150 + (int)(45 * v[1]),
		*b = 160 + (int)(40 * v[2]);
		break;
	default: /* user native: red to yellow */
		*r = 205 + (int)(50 * v[2]), *g = 60 + (int)(170 * v[0]), *b = (int)(55 * v[1]);
		break;
	}
}

/* ---- the SVG ---- */

#define FONT_SIZE  12.0
#define FONT_WIDTH 0.59
#define FRAME_H	   16.0
#define XPAD	   10.0
#define YPAD1	   (FONT_SIZE * 3)
#define YPAD2	   (FONT_SIZE * 2 + 10)

static const char *const kind_names[] = {"user",	"kernel",   "jit",	  "inlined",
					 "unresolved",	"process",  "gpu kernel", "gpu function",
					 "gpu inlined", "gpu line", "gpu stall"};

/* Text escaped for XML: markup characters as entities, control characters
 * and bytes that are not UTF-8 as '?'. At most max code points (0: all);
 * returns 1 when it stopped there. */
static int put_esc(FILE *o, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	while (*p) {
		unsigned c = *p;
		size_t l = 1, k;

		if (max && n == max)
			return 1;
		n++;
		if (c < 0x80) {
			switch (c) {
			case '&':
				fputs_unlocked("&amp;", o);
				break;
			case '<':
				fputs_unlocked("&lt;", o);
				break;
			case '>':
				fputs_unlocked("&gt;", o);
				break;
			case '"':
				fputs_unlocked("&quot;", o);
				break;
			default:
				putc_unlocked(c < 0x20 || c == 0x7f ? '?' : (int)c, o);
			}
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			l = 2;
		else if (c >= 0xe0 && c <= 0xef)
			l = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			l = 4;
		else
			l = 0;
		for (k = 1; l && k < l; k++)
			if ((p[k] & 0xc0) != 0x80)
				l = 0;
		/* overlong 3/4-byte forms, surrogates, above U+10FFFF */
		if (l == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
			l = 0;
		if (l == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
			l = 0;
		if (l == 3 && c == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
			l = 0; /* U+FFFE, U+FFFF: not XML characters */
		if (!l) {
			putc_unlocked('?', o);
			p++;
			continue;
		}
		fwrite_unlocked(p, 1, l, o);
		p += l;
	}
	return 0;
}

static size_t utf8_len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

struct layout {
	uint64_t *x;   /* left edge in samples */
	uint32_t *ord; /* nodes, each parent before its children */
};

static int by_name(const void *pa, const void *pb, void *ctx)
{
	const struct flame *f = ctx;
	const struct flame_node *a = &f->nodes[*(const uint32_t *)pa],
				*b = &f->nodes[*(const uint32_t *)pb];
	int c = strcmp(flame_str(f, a->name), flame_str(f, b->name));

	if (!c)
		c = strcmp(flame_str(f, a->module), flame_str(f, b->module));
	return c ? c : (int)a->kind - (int)b->kind;
}

/* Children left to right in name order (as flamegraph.pl), x of each;
 * only frames at least min samples wide (the others are not drawn, nor
 * are their callees). Returns how many are in l->ord, or -ENOMEM. */
static long lay_out(const struct flame *f, struct layout *l, double min)
{
	uint32_t *kids = NULL;
	size_t cap = 0, i, at = 1;

	l->x = calloc(f->nr_nodes, sizeof(*l->x));
	l->ord = malloc(f->nr_nodes * sizeof(*l->ord));
	if (!l->x || !l->ord)
		return -ENOMEM;
	l->ord[0] = 0;
	/* breadth first: ord grows as each node's children are placed */
	for (i = 0; i < at; i++) {
		uint32_t n = l->ord[i], c;
		size_t nk = 0, k;
		uint64_t x = l->x[n];

		for (c = f->nodes[n].child; c != FLAME_NONE; c = f->nodes[c].next) {
			if (ZT_GROW(kids, cap, nk + 1)) {
				free(kids);
				return -ENOMEM;
			}
			kids[nk++] = c;
		}
		/* every child takes its place; only the wide ones are drawn and
		 * looked into */
		if (nk > 1)
			qsort_r(kids, nk, sizeof(*kids), by_name, (void *)f);
		for (k = 0; k < nk; k++) {
			l->x[kids[k]] = x;
			x += f->nodes[kids[k]].value[0];
			if ((double)f->nodes[kids[k]].value[0] >= min)
				l->ord[at++] = kids[k];
		}
	}
	free(kids);
	return (long)at;
}

static int by_value_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The value of the (keep+1)-th widest of the nr laid-out nodes ord[]
 * (nr > keep), or UINT64_MAX when out of memory. */
static uint64_t cut_value(const struct flame *f, const uint32_t *ord, size_t nr, size_t keep)
{
	uint64_t *v = malloc(nr * sizeof(*v)), cut;
	size_t i;

	if (!v)
		return UINT64_MAX;
	for (i = 0; i < nr; i++)
		v[i] = f->nodes[ord[i]].value[0];
	qsort(v, nr, sizeof(*v), by_value_desc);
	cut = v[keep];
	free(v);
	return cut;
}

/* The embedded script: zoom, reset, search, details. Kept small and plain. */
static const char flame_js[] =
	"\"use strict\";\n"
	"var svg = document.documentElement, frames = [], zoomed = null, matchRe = null;\n"
	"var details, matchedText, resetBtn;\n"
	"function nameOf(g) { return g.querySelector('title').textContent.split('\\n')[0]; }\n"
	"function samplesOf(g) {\n"
	"  var m = /\\n[^\\n:]+: (\\d+) \\(/.exec(g.querySelector('title').textContent);\n"
	"  return m ? +m[1] : 0;\n"
	"}\n"
	"function init() {\n"
	"  details = document.getElementById('details');\n"
	"  matchedText = document.getElementById('matched');\n"
	"  resetBtn = document.getElementById('unzoom');\n"
	"  var gs = document.querySelectorAll('g.f');\n"
	"  for (var i = 0; i < gs.length; i++) {\n"
	"    var g = gs[i], r = g.querySelector('rect');\n"
	"    g.setAttribute('data-i', i);\n"
	"    frames.push({ g: g, r: r, t: g.querySelector('text'), name: nameOf(g),\n"
	"      x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),\n"
	"      fill: r.getAttribute('fill'), n: samplesOf(g) });\n"
	"  }\n"
	"  svg.addEventListener('click', function (e) {\n"
	"    var g = e.target.closest ? e.target.closest('g.f') : null;\n"
	"    if (g) zoom(frames[+g.getAttribute('data-i')]);\n"
	"  });\n"
	"  svg.addEventListener('mouseover', function (e) {\n"
	"    var g = e.target.closest ? e.target.closest('g.f') : null;\n"
	"    if (g) details.textContent = g.querySelector('title').textContent.replace(/\\n/g, '  "
	"');\n"
	"  });\n"
	"  svg.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"  resetBtn.addEventListener('click', function (e) { e.stopPropagation(); unzoom(); });\n"
	"  document.getElementById('search').addEventListener('click', function (e) {\n"
	"    e.stopPropagation(); askSearch();\n"
	"  });\n"
	"  document.getElementById('matched').addEventListener('click', function (e) {\n"
	"    e.stopPropagation(); search(null);\n"
	"  });\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); askSearch(); }\n"
	"    else if (e.key === 'Escape') { unzoom(); search(null); }\n"
	"  });\n"
	"  var q = new URLSearchParams(window.location.search).get('s');\n"
	"  if (q) search(q);\n"
	"}\n"
	"function label(f, x, w) {\n"
	"  if (!f.t) return;\n"
	"  var n = Math.floor((w - 6) / (FONT * CHARW));\n"
	"  f.t.setAttribute('x', (x + 3).toFixed(2));\n"
	"  if (n < 3) f.t.textContent = '';\n"
	"  else f.t.textContent = f.name.length <= n ? f.name : f.name.slice(0, n - 2) + '..';\n"
	"}\n"
	"function place(f, x, w) {\n"
	"  f.r.setAttribute('x', x.toFixed(2)); f.r.setAttribute('width', w.toFixed(2)); label(f, "
	"x, w);\n"
	"}\n"
	"function zoom(z) {\n"
	"  var eps = 1e-6, scale = (WIDTH - 2 * XPAD) / z.w;\n"
	"  zoomed = z;\n"
	"  resetBtn.classList.remove('hide');\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    var f = frames[i], deeper = INVERTED ? f.y >= z.y : f.y <= z.y;\n"
	"    if (deeper && f.x >= z.x - eps && f.x + f.w <= z.x + z.w + eps) {\n"
	"      f.g.classList.remove('hide', 'parent');\n"
	"      place(f, XPAD + (f.x - z.x) * scale, f.w * scale);\n"
	"    } else if (!deeper && f.x <= z.x + eps && f.x + f.w >= z.x + z.w - eps) {\n"
	"      f.g.classList.remove('hide'); f.g.classList.add('parent');\n"
	"      place(f, XPAD, WIDTH - 2 * XPAD);\n"
	"    } else {\n"
	"      f.g.classList.add('hide');\n"
	"    }\n"
	"  }\n"
	"}\n"
	"function unzoom() {\n"
	"  zoomed = null;\n"
	"  resetBtn.classList.add('hide');\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    var f = frames[i];\n"
	"    f.g.classList.remove('hide', 'parent');\n"
	"    place(f, f.x, f.w);\n"
	"  }\n"
	"}\n"
	"function askSearch() {\n"
	"  var s = prompt('Search for (regular expression):', matchRe ? matchRe.source : '');\n"
	"  if (s !== null) search(s);\n"
	"}\n"
	"/* Highlight frames whose name matches; returns {frames, percent} (nested\n"
	"   matches counted once). null or '' clears. */\n"
	"function search(s) {\n"
	"  var hits = [], i, f;\n"
	"  matchRe = null;\n"
	"  if (s) {\n"
	"    try { matchRe = new RegExp(s); } catch (e) { alert('bad regular expression: ' + "
	"e.message); return null; }\n"
	"  }\n"
	"  for (i = 0; i < frames.length; i++) {\n"
	"    f = frames[i];\n"
	"    if (matchRe && matchRe.test(f.name)) { f.r.setAttribute('fill', MATCH); hits.push(f); "
	"}\n"
	"    else f.r.setAttribute('fill', f.fill);\n"
	"  }\n"
	"  /* a hit inside the last one counted is one of its callees (x and width\n"
	"     have two decimals: a small tolerance) */\n"
	"  hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });\n"
	"  var sum = 0, end = -1;\n"
	"  for (i = 0; i < hits.length; i++) {\n"
	"    if (hits[i].x + hits[i].w <= end + 0.05) continue;\n"
	"    sum += hits[i].n; end = hits[i].x + hits[i].w;\n"
	"  }\n"
	"  var pct = frames.length && frames[0].n ? 100 * sum / frames[0].n : 0;\n"
	"  svg.setAttribute('data-matches', hits.length);\n"
	"  svg.setAttribute('data-matched', pct.toFixed(2));\n"
	"  matchedText.textContent = matchRe ? 'Matched: ' + pct.toFixed(2) + '% (' + hits.length "
	"+ ' frames)' : '';\n"
	"  document.getElementById('search').classList.toggle('on', !!matchRe);\n"
	"  return { frames: hits.length, percent: pct };\n"
	"}\n"
	"window.addEventListener('load', init);\n";

static void write_header(FILE *o, const struct flame_svg_opts *opt, double width, double height)
{
	fprintf(o,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-generator=\"zt flame\">\n",
		width, height, width, height);
	fprintf(o,
		"<style type=\"text/css\"><![CDATA[\n"
		"text { font-family: Verdana, sans-serif; font-size: %.0fpx; fill: #000; }\n"
		"g.f text { pointer-events: none; }\n"
		"g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
		"g.parent { opacity: 0.5; }\n"
		".hide { display: none; }\n"
		"#title { font-size: %.0fpx; text-anchor: middle; }\n"
		"#subtitle { text-anchor: middle; fill: #555; }\n"
		"#search, #unzoom, #matched { cursor: pointer; }\n"
		"#search.on { fill: #a00; }\n"
		"]]></style>\n",
		FONT_SIZE, FONT_SIZE + 5);
	fprintf(o,
		"<script type=\"text/ecmascript\"><![CDATA[\n"
		"var WIDTH = %.0f, XPAD = %.0f, FONT = %.0f, CHARW = %.2f, INVERTED = %d, "
		"MATCH = 'rgb(230,0,230)';\n%s]]></script>\n",
		width, XPAD, FONT_SIZE, FONT_WIDTH, opt->inverted ? 1 : 0, flame_js);
	fprintf(o, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#f8f8f8\"/>\n",
		width, height);
	fputs("<text id=\"title\" x=\"", o);
	fprintf(o, "%.2f\" y=\"%.0f\">", width / 2, FONT_SIZE * 2);
	put_esc(o, opt->title ? opt->title : opt->inverted ? "Icicle Graph" : "Flame Graph", 0);
	fputs_unlocked("</text>\n", o);
	if (opt->subtitle) {
		fprintf(o, "<text id=\"subtitle\" x=\"%.2f\" y=\"%.0f\">", width / 2,
			FONT_SIZE * 3.4);
		put_esc(o, opt->subtitle, 0);
		fputs_unlocked("</text>\n", o);
	}
	fprintf(o, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n", XPAD, height - 10);
	fprintf(o, "<text id=\"unzoom\" class=\"hide\" x=\"%.0f\" y=\"%.0f\">Reset Zoom</text>\n",
		XPAD, FONT_SIZE * 2);
	fprintf(o,
		"<text id=\"search\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"></text>\n",
		width - XPAD, FONT_SIZE * 2, width - XPAD, height - 10);
}

/* v >= 0 with d (1 or 2) decimals, as printf's "%.*f" (rounded half up). */
static void put_fixed(FILE *o, double v, int d)
{
	char buf[32], *p = buf + sizeof(buf);
	uint64_t n = (uint64_t)(v * (d == 1 ? 10.0 : 100.0) + 0.5);
	int i;

	if (v < 0 || v > 1e15) {
		fprintf(o, "%.*f", d, v);
		return;
	}
	for (i = 0; i < d; i++) {
		*--p = (char)('0' + n % 10);
		n /= 10;
	}
	*--p = '.';
	do {
		*--p = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), o);
}

static void fmt_pct(char *buf, size_t n, uint64_t v, uint64_t total)
{
	snprintf(buf, n, "%.2f%%", total ? 100.0 * (double)v / (double)total : 0.0);
}

static void write_frame(FILE *o, const struct flame *f, const struct flame_svg_opts *opt,
			uint32_t i, double x, double w, double y, int pal)
{
	const struct flame_node *n = &f->nodes[i];
	const char *name = i ? flame_str(f, n->name) : "all";
	const char *unit = opt->unit ? opt->unit : "samples";
	char pct[32];
	int r, g, b;
	size_t chars;

	if (opt->diff) {
		double a = f->total[0] ? (double)n->value[0] / (double)f->total[0] : 0,
		       was = f->total[1] ? (double)n->value[1] / (double)f->total[1] : 0,
		       d = a - was;
		/* full color at a change of 5% of the total or more */
		double k = d > 0 ? d / 0.05 : -d / 0.05;
		int c;

		if (k > 1)
			k = 1;
		c = 255 - (int)(k * 200);
		if (d > 0)
			r = 255, g = c, b = c;
		else
			r = c, g = c, b = 255;
	} else if (!i) {
		r = g = b = 200;
	} else {
		node_color(f, n, pal, &r, &g, &b);
	}
	fputs("<g class=\"f\"><title>", o);
	put_esc(o, name, 0);
	if (n->module) {
		fputs_unlocked("\nmodule: ", o);
		put_esc(o, flame_str(f, n->module), 0);
	}
	if (n->srcline) {
		fputs_unlocked("\nsource: ", o);
		put_esc(o, flame_str(f, n->srcline), 0);
	}
	if (i)
		fprintf(o, "\nkind: %s", kind_names[n->kind < FLAME_NR_KINDS ? n->kind : 0]);
	fmt_pct(pct, sizeof(pct), n->value[0], f->total[0]);
	fprintf(o, "\n%s: %llu (%s)", unit, (unsigned long long)n->value[0], pct);
	if (opt->diff) {
		double a = f->total[0] ? 100.0 * (double)n->value[0] / (double)f->total[0] : 0,
		       was = f->total[1] ? 100.0 * (double)n->value[1] / (double)f->total[1] : 0;

		fmt_pct(pct, sizeof(pct), n->value[1], f->total[1]);
		fprintf(o, "\nbefore: %llu (%s), change: %+.2f%%", (unsigned long long)n->value[1],
			pct, a - was);
	}
	fputs("</title><rect x=\"", o);
	put_fixed(o, x, 2);
	fputs("\" y=\"", o);
	put_fixed(o, y, 1);
	fputs("\" width=\"", o);
	put_fixed(o, w, 2);
	fprintf(o, "\" height=\"%.1f\" rx=\"2\" fill=\"rgb(%d,%d,%d)\"/><text x=\"", FRAME_H - 1, r,
		g, b);
	put_fixed(o, x + 3, 2);
	fputs("\" y=\"", o);
	put_fixed(o, y + FRAME_H - 5, 1);
	fputs("\">", o);
	chars = (size_t)((w - 6) / (FONT_SIZE * FONT_WIDTH) > 0 ? (w - 6) / (FONT_SIZE * FONT_WIDTH)
								: 0);
	if (chars >= 3) {
		if (utf8_len(name) <= chars) {
			put_esc(o, name, 0);
		} else {
			put_esc(o, name, chars - 2);
			fputs_unlocked("..", o);
		}
	}
	fputs_unlocked("</text></g>\n", o);
}

int flame_write_svg(const struct flame *f, FILE *out, const struct flame_svg_opts *opt)
{
	double width = opt->width ? opt->width : 1200,
	       minw = opt->minwidth < 0 ? 0.1 : opt->minwidth;
	double scale, height;
	uint32_t max_depth = 0;
	struct layout l = {0};
	int pal = palette_of(opt->colors);
	struct flame_svg_opts clamped;
	char sub[512];
	size_t i;
	long nr;

	if (pal < 0 || width < 2 * XPAD + 1)
		return -EINVAL;
	scale = f->total[0] ? (width - 2 * XPAD) / (double)f->total[0] : 0;
	/* a frame is drawn when value * scale >= minw */
	nr = lay_out(f, &l, scale > 0 ? minw / scale : 0);
	if (nr > 0 && opt->max_frames && (size_t)nr > opt->max_frames) {
		/* too many: keep the frames wider than the (max_frames+1)-th widest
		 * (a parent is never narrower than its child: the kept ones form
		 * a tree) */
		uint64_t cut = cut_value(f, l.ord, (size_t)nr, opt->max_frames);

		free(l.x);
		free(l.ord);
		memset(&l, 0, sizeof(l));
		nr = cut == UINT64_MAX ? -ENOMEM : lay_out(f, &l, (double)cut + 1);
		if (nr >= 0 && scale > 0 && ((double)cut + 1) * scale > minw)
			minw = ((double)cut + 1) * scale;
		snprintf(sub, sizeof(sub), "%s%sat most %zu frames drawn: those narrower than %.2f px left out",
			 opt->subtitle ? opt->subtitle : "", opt->subtitle ? "; " : "",
			 opt->max_frames, minw);
		clamped = *opt;
		clamped.subtitle = sub;
		opt = &clamped;
	}
	if (nr < 0) {
		free(l.x);
		free(l.ord);
		return -ENOMEM;
	}
	for (i = 0; i < (size_t)nr; i++)
		if (f->nodes[l.ord[i]].depth > max_depth)
			max_depth = f->nodes[l.ord[i]].depth;
	height = (max_depth + 1) * FRAME_H + YPAD1 + YPAD2 + (opt->subtitle ? FONT_SIZE : 0);
	write_header(out, opt, width, height);
	fputs("<g id=\"frames\">\n", out);
	for (i = 0; i < (size_t)nr; i++) {
		uint32_t n = l.ord[i];
		const struct flame_node *nd = &f->nodes[n];
		double w = (double)nd->value[0] * scale, x = XPAD + (double)l.x[n] * scale, y;

		if (w < minw || (n && !nd->value[0]))
			continue;
		if (opt->inverted)
			y = YPAD1 + (opt->subtitle ? FONT_SIZE : 0) + nd->depth * FRAME_H;
		else
			y = height - YPAD2 - (nd->depth + 1) * FRAME_H;
		write_frame(out, f, opt, n, x, n ? w : width - 2 * XPAD, y, pal);
	}
	fputs("</g>\n</svg>\n", out);
	free(l.x);
	free(l.ord);
	return ferror(out) ? -EIO : 0;
}
