/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gopclntab: Go's pclntab read into the symbol model. Fixtures built here
 * byte by byte to each layout's documented format (Go 1.2, 1.16, 1.18 with
 * 8-byte little-endian and 4-byte big-endian pointers, 1.20): names,
 * sizes, line rows and a two-level inline tree, looked up through GSYM as
 * every source is; damaged tables (offsets past the end, functions out of
 * order, loops in the inline tree, every truncation) are errors, never a
 * read past the bytes; the header found without sections, moduledata found
 * past decoys. With Debian's go: a program with known functions, an
 * inlined helper and goroutines, built with and without -ldflags='-s -w',
 * its stripped pclntab against its own DWARF, and symmod's source order.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "libprof/zbuf.h"
#include "symbolizer/dwarfsyms.h"
#include "symbolizer/gopclntab.h"
#include "symbolizer/gsym.h"
#include "symbolizer/symmod.h"
#include "testutil.h"

/* ---- a pclntab writer ------------------------------------------------------------ */

enum lay { L12, L116, L118, L120 };

struct w {
	uint8_t *b;
	size_t len, cap;
	int be;
};

static void put(struct w *w, const void *p, size_t n)
{
	if (w->len + n > w->cap) {
		w->cap = (w->len + n) * 2;
		w->b = realloc(w->b, w->cap);
		assert_non_null(w->b);
	}
	memcpy(w->b + w->len, p, n);
	w->len += n;
}

static void put_n(struct w *w, uint64_t v, unsigned n)
{
	uint8_t b[8];
	unsigned i;

	for (i = 0; i < n; i++)
		b[w->be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
	put(w, b, n);
}

static void set_n(struct w *w, size_t at, uint64_t v, unsigned n)
{
	unsigned i;

	assert_true(at + n <= w->len);
	for (i = 0; i < n; i++)
		w->b[at + (w->be ? n - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

static void align(struct w *w, unsigned a)
{
	while (w->len % a)
		put_n(w, 0, 1);
}

static void uvarint(struct w *w, uint32_t v)
{
	while (v >= 0x80) {
		put_n(w, (v & 0x7f) | 0x80, 1);
		v >>= 7;
	}
	put_n(w, v, 1);
}

/* A pc-value table: (value, bytes) pairs from -1; its offset in the table. */
struct pv {
	int32_t val;
	uint32_t len;
};

static uint32_t pctable(struct w *w, size_t base, const struct pv *v, size_t n, unsigned quantum)
{
	uint32_t off = (uint32_t)(w->len - base);
	int32_t prev = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		int32_t d = v[i].val - prev;

		uvarint(w, d < 0 ? ((uint32_t)(-(d + 1)) << 1) | 1 : (uint32_t)d << 1);
		uvarint(w, v[i].len / quantum);
		prev = v[i].val;
	}
	put_n(w, 0, 1);
	return off;
}

/*
 * The fixture program, at text 0x1000 (0x1000 + function offsets):
 *   main.outer [0, 0x40): a.go:10 | b.go:5 (main.helper inlined, called at
 *     a.go:10) | b.go:7 (main.inner inlined into main.helper, called at
 *     b.go:5) | a.go:12
 *   main.leaf [0x40, 0x60): a.go:20, a.go:21
 *   runtime.asm [0x60, 0x80): no compile unit, no lines
 *   end 0x80
 */
#define TEXT 0x1000
struct fix {
	struct w w;
	size_t tab_len;	 /* the pclntab: w.b[0, tab_len) */
	uint64_t gofunc; /* 1.18+ */
	size_t names_at, ftab_at, func_at[3], inl_at, outer_pcinl, outer_pcln;
};

static const struct pv outer_file[] = {{0, 0x10}, {1, 0x18}, {0, 0x18}};
static const struct pv outer_line[] = {{10, 0x10}, {5, 0x10}, {7, 0x08}, {12, 0x18}};
static const struct pv outer_inl[] = {{-1, 0x10}, {0, 0x10}, {1, 0x08}, {-1, 0x18}};
static const struct pv leaf_file[] = {{0, 0x20}};
static const struct pv leaf_line[] = {{20, 0x10}, {21, 0x10}};

static void build(struct fix *f, enum lay lay, unsigned ptr, int be)
{
	static const char *const names[] = {"main.outer", "main.leaf", "runtime.asm", "main.helper",
					    "main.inner"};
	static const uint32_t starts[] = {0, 0x40, 0x60, 0x80};
	struct w *w = &f->w;
	uint32_t nameoff[5], fileoff[2], pcf[2], pcl[2], pci = 0, filetab12 = 0;
	size_t hdr_words = lay == L12 ? 1 : lay == L116 ? 7 : 8, fn_at = 0, cu_at = 0, ft_at = 0;
	size_t pc_at = 0, pcln_at, i, word0 = 8;
	unsigned q = 1, fsz = lay >= L118 ? 4 : ptr;

	memset(f, 0, sizeof(*f));
	w->be = be;
	put_n(w,
	      lay == L12    ? 0xfffffffb
	      : lay == L116 ? 0xfffffffa
	      : lay == L118 ? 0xfffffff0
			    : 0xfffffff1,
	      4);
	put_n(w, 0, 1);
	put_n(w, 0, 1);
	put_n(w, q, 1);
	put_n(w, ptr, 1);
	for (i = 0; i < hdr_words; i++)
		put_n(w, 0, ptr); /* filled below */
	if (lay == L12) {
		/* 1.2: the function table right after the header, then the
		 * file table's offset; names, files and pc tables anywhere,
		 * offsets from the table's start */
		f->ftab_at = w->len;
		for (i = 0; i < 7; i++)
			put_n(w, 0, ptr);
		put_n(w, 0, 4); /* filetab offset */
		f->names_at = w->len;
		for (i = 0; i < 5; i++) {
			nameoff[i] = (uint32_t)w->len;
			put(w, names[i], strlen(names[i]) + 1);
		}
		for (i = 0; i < 2; i++) {
			fileoff[i] = (uint32_t)w->len;
			put(w, i ? "/src/b.go" : "/src/a.go", 10);
		}
		align(w, 4);
		filetab12 = (uint32_t)w->len;
		put_n(w, 3, 4); /* entry 0 is the count: a.go is 1, b.go 2 */
		put_n(w, fileoff[0], 4);
		put_n(w, fileoff[1], 4);
		set_n(w, f->ftab_at + 7 * ptr, filetab12, 4);
		/* file numbers are 1-based here */
		{
			struct pv of[3], lf[1];

			memcpy(of, outer_file, sizeof(of));
			memcpy(lf, leaf_file, sizeof(lf));
			for (i = 0; i < 3; i++)
				of[i].val++;
			lf[0].val++;
			put_n(w, 0, 1);
			pcf[0] = pctable(w, 0, of, 3, q);
			pcl[0] = pctable(w, 0, outer_line, 4, q);
			pcf[1] = pctable(w, 0, lf, 1, q);
			pcl[1] = pctable(w, 0, leaf_line, 2, q);
		}
		set_n(w, word0, 3, ptr); /* nfunc */
		align(w, ptr);
		for (i = 0; i < 3; i++) {
			f->func_at[i] = w->len;
			set_n(w, f->ftab_at + 2 * i * ptr, TEXT + starts[i], ptr);
			set_n(w, f->ftab_at + (2 * i + 1) * ptr, w->len, ptr);
			put_n(w, TEXT + starts[i], ptr);
			put_n(w, nameoff[i], 4);
			put_n(w, 0, 4); /* args */
			put_n(w, 0, 4); /* deferreturn */
			put_n(w, 0, 4); /* pcsp */
			put_n(w, i < 2 ? pcf[i] : 0, 4);
			put_n(w, i < 2 ? pcl[i] : 0, 4);
			put_n(w, 0, 4); /* npcdata */
			put_n(w, 0, 4); /* funcID, pad, nfuncdata */
		}
		set_n(w, f->ftab_at + 6 * ptr, TEXT + starts[3], ptr);
		f->tab_len = w->len;
		return;
	}
	/* funcnametab */
	fn_at = w->len;
	f->names_at = fn_at;
	put_n(w, 0, 1);
	for (i = 0; i < 5; i++) {
		nameoff[i] = (uint32_t)(w->len - fn_at);
		put(w, names[i], strlen(names[i]) + 1);
	}
	/* filetab, then cutab: one CU with a.go, b.go */
	align(w, 4);
	ft_at = w->len;
	for (i = 0; i < 2; i++) {
		fileoff[i] = (uint32_t)(w->len - ft_at);
		put(w, i ? "/src/b.go" : "/src/a.go", 10);
	}
	align(w, 4);
	cu_at = w->len;
	put_n(w, 0xffffffff, 4); /* another CU's entry first: ours starts at 1 */
	put_n(w, fileoff[0], 4);
	put_n(w, fileoff[1], 4);
	/* pctab */
	pc_at = w->len;
	put_n(w, 0, 1);
	pcf[0] = pctable(w, pc_at, outer_file, 3, q);
	f->outer_pcln = w->len;
	pcl[0] = pctable(w, pc_at, outer_line, 4, q);
	f->outer_pcinl = w->len;
	pci = pctable(w, pc_at, outer_inl, 4, q);
	pcf[1] = pctable(w, pc_at, leaf_file, 1, q);
	pcl[1] = pctable(w, pc_at, leaf_line, 2, q);
	/* pclntab: the function table, then the _funcs */
	align(w, 8);
	pcln_at = w->len;
	f->ftab_at = w->len;
	for (i = 0; i < 7; i++)
		put_n(w, 0, fsz);
	align(w, 8);
	for (i = 0; i < 3; i++) {
		int outer = i == 0, has_cu = i < 2;

		f->func_at[i] = w->len;
		set_n(w, f->ftab_at + 2 * i * fsz, lay >= L118 ? starts[i] : TEXT + starts[i], fsz);
		set_n(w, f->ftab_at + (2 * i + 1) * fsz, w->len - pcln_at, fsz);
		put_n(w, lay >= L118 ? starts[i] : TEXT + starts[i], lay >= L118 ? 4 : ptr);
		put_n(w, nameoff[i], 4);
		put_n(w, 0, 4); /* args */
		put_n(w, 0, 4); /* deferreturn */
		put_n(w, 0, 4); /* pcsp */
		put_n(w, has_cu ? pcf[i] : 0, 4);
		put_n(w, has_cu ? pcl[i] : 0, 4);
		put_n(w, outer ? 3 : 0, 4);	      /* npcdata */
		put_n(w, has_cu ? 1 : 0xffffffff, 4); /* cuOffset */
		if (lay == L120)
			put_n(w, has_cu ? 9 : 0, 4); /* startLine */
		put_n(w, 0, 1);			     /* funcID */
		put_n(w, 0, 1);			     /* flag */
		put_n(w, 0, 1);			     /* pad */
		put_n(w, outer ? 4 : 0, 1);	     /* nfuncdata */
		if (outer) {
			put_n(w, 0, 4);
			put_n(w, 0, 4);
			put_n(w, pci, 4); /* PCDATA_InlTreeIndex */
			if (lay == L116) {
				if (ptr == 8 && w->len % 8)
					put_n(w, 0, 4);
				for (size_t k = 0; k < 4; k++)
					put_n(w, 0, ptr); /* FUNCDATA_InlTree set below */
			} else {
				put_n(w, 0xffffffff, 4);
				put_n(w, 0xffffffff, 4);
				put_n(w, 0xffffffff, 4);
				put_n(w, 0, 4); /* FUNCDATA_InlTree set below */
			}
		}
		align(w, 8);
	}
	set_n(w, f->ftab_at + 6 * fsz, lay >= L118 ? starts[3] : TEXT + starts[3], fsz);
	f->tab_len = w->len;
	/* the header */
	set_n(w, word0, 3, ptr);
	set_n(w, word0 + ptr, 3, ptr);
	i = 2;
	if (lay >= L118)
		set_n(w, word0 + i++ * ptr, TEXT, ptr);
	set_n(w, word0 + i++ * ptr, fn_at, ptr);
	set_n(w, word0 + i++ * ptr, cu_at, ptr);
	set_n(w, word0 + i++ * ptr, ft_at, ptr);
	set_n(w, word0 + i++ * ptr, pc_at, ptr);
	set_n(w, word0 + i++ * ptr, pcln_at, ptr);
	/* after the table: go:func.* (some bytes first), the inline tree */
	put(w, "go:func", 8);
	f->gofunc = w->len;
	put_n(w, 0, 8);
	f->inl_at = w->len;
	if (lay == L120) {
		/* funcID, pad, nameOff, parentPc, startLine */
		put_n(w, 0, 4);
		put_n(w, nameoff[3], 4);
		put_n(w, 0x08, 4);
		put_n(w, 4, 4);
		put_n(w, 0, 4);
		put_n(w, nameoff[4], 4);
		put_n(w, 0x18, 4);
		put_n(w, 6, 4);
	} else {
		/* parent, funcID, pad, file, line, nameOff, parentPc */
		put_n(w, (uint16_t)-1, 2);
		put_n(w, 0, 2);
		put_n(w, 0, 4);
		put_n(w, 10, 4);
		put_n(w, nameoff[3], 4);
		put_n(w, 0x08, 4);
		put_n(w, 0, 2);
		put_n(w, 0, 2);
		put_n(w, 1, 4);
		put_n(w, 5, 4);
		put_n(w, nameoff[4], 4);
		put_n(w, 0x18, 4);
	}
	/* FUNCDATA_InlTree of main.outer */
	{
		size_t fd = f->func_at[0] +
			    (lay == L120   ? 44
			     : lay == L118 ? 40
					   : ptr + 36) +
			    3 * 4;

		if (lay == L116) {
			if (ptr == 8 && fd % 8)
				fd += 4;
			set_n(w, fd + 3 * ptr, f->inl_at, ptr);
		} else {
			set_n(w, fd + 3 * 4, f->inl_at - f->gofunc, 4);
		}
	}
}

static struct gopcln_src src_of(const struct fix *f)
{
	struct gopcln_src s = {0};

	s.file = f->w.b;
	s.file_len = f->w.len;
	s.tab_len = f->tab_len;
	s.gofunc = f->gofunc;
	return s;
}

/* ---- lookups through GSYM, as every source's ------------------------------------- */

struct looked {
	struct zbuf img;
	struct gsym *g;
};

static void encode(struct fi_table *t, struct looked *l)
{
	zbuf_init(&l->img);
	assert_int_equal(gsym_encode(t, &l->img), 0);
	assert_int_equal(gsym_open_mem(l->img.data, l->img.len, &l->g), 0);
}

static void release(struct looked *l)
{
	gsym_free(l->g);
	zbuf_release(&l->img);
}

/* addr's chain, innermost first: "name file:line" joined by " < " */
static const char *chain(const struct looked *l, uint64_t addr)
{
	static char buf[1024];
	struct fi_result r;
	size_t n = 0;
	unsigned i;

	if (gsym_lookup(l->g, addr, &r))
		return "-";
	buf[0] = 0;
	for (i = 0; i < r.n; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s %s%s%s:%u", i ? " < " : "",
				      r.locs[i].name, r.locs[i].dir, *r.locs[i].dir ? "/" : "",
				      r.locs[i].file, r.locs[i].line);
	return buf;
}

static void check_program(struct fi_table *t, int inlines)
{
	struct looked l;

	assert_int_equal(t->nr_funcs, 3);
	assert_string_equal(fi_strat(t, t->funcs[0].name), "main.outer");
	assert_int_equal(t->funcs[0].start, TEXT);
	assert_int_equal(t->funcs[0].size, 0x40);
	assert_string_equal(fi_strat(t, t->funcs[1].name), "main.leaf");
	assert_int_equal(t->funcs[1].size, 0x20);
	assert_string_equal(fi_strat(t, t->funcs[2].name), "runtime.asm");
	assert_int_equal(t->funcs[2].start, TEXT + 0x60);
	assert_int_equal(t->funcs[0].dname, t->funcs[0].name);
	assert_int_equal(t->funcs[0].nr_lines, 4);
	assert_int_equal(t->funcs[2].nr_lines, 0);
	assert_int_equal(!!t->funcs[0].inl, inlines);
	encode(t, &l);
	assert_string_equal(chain(&l, TEXT + 0x0), "main.outer /src/a.go:10");
	assert_string_equal(chain(&l, TEXT + 0x3f), "main.outer /src/a.go:12");
	assert_string_equal(chain(&l, TEXT + 0x44), "main.leaf /src/a.go:20");
	assert_string_equal(chain(&l, TEXT + 0x5f), "main.leaf /src/a.go:21");
	assert_string_equal(chain(&l, TEXT + 0x60), "runtime.asm :0");
	assert_string_equal(chain(&l, TEXT + 0x80), "-");
	if (inlines) {
		assert_string_equal(chain(&l, TEXT + 0x12),
				    "main.helper /src/b.go:5 < main.outer /src/a.go:10");
		assert_string_equal(chain(&l, TEXT + 0x27),
				    "main.inner /src/b.go:7 < main.helper "
				    "/src/b.go:5 < main.outer /src/a.go:10");
	} else {
		assert_string_equal(chain(&l, TEXT + 0x27), "main.outer /src/b.go:7");
	}
	release(&l);
}

static void parse_ok(enum lay lay, unsigned ptr, int be, uint32_t magic, int inlines)
{
	struct gopcln_info info;
	struct gopcln_src s;
	struct fi_table t;
	struct fix f;

	build(&f, lay, ptr, be);
	s = src_of(&f);
	fi_table_init(&t);
	assert_int_equal(gopclntab_parse(&s, &t, &info), 0);
	assert_int_equal(info.magic, magic);
	assert_int_equal(info.ptrsize, ptr);
	assert_int_equal(info.nr_funcs, 3);
	assert_int_equal(info.nr_inlined, inlines);
	check_program(&t, inlines);
	fi_table_release(&t);
	free(f.w.b);
}

static void test_go12(void **state)
{
	(void)state;
	parse_ok(L12, 8, 0, GOPCLN_MAGIC_12, 0);
	parse_ok(L12, 4, 1, GOPCLN_MAGIC_12, 0);
}

static void test_go116(void **state)
{
	(void)state;
	parse_ok(L116, 8, 0, GOPCLN_MAGIC_116, 1);
	parse_ok(L116, 4, 0, GOPCLN_MAGIC_116, 1);
}

static void test_go118(void **state)
{
	(void)state;
	parse_ok(L118, 8, 0, GOPCLN_MAGIC_118, 1);
	parse_ok(L118, 4, 1, GOPCLN_MAGIC_118, 1); /* ppc/mips/s390x-like: big endian */
}

static void test_go120(void **state)
{
	(void)state;
	parse_ok(L120, 8, 0, GOPCLN_MAGIC_120, 1);
	parse_ok(L120, 8, 1, GOPCLN_MAGIC_120, 1);
}

/* 1.18+ without go:func.*: names and lines, no inline trees, said so */
static void test_no_gofunc(void **state)
{
	struct gopcln_info info;
	struct gopcln_src s;
	struct fi_table t;
	struct fix f;

	(void)state;
	build(&f, L118, 8, 0);
	s = src_of(&f);
	s.gofunc = 0;
	fi_table_init(&t);
	assert_int_equal(gopclntab_parse(&s, &t, &info), 0);
	assert_true(info.no_gofunc);
	check_program(&t, 0);
	fi_table_release(&t);
	/* the caller's text replaces the header's */
	s.text = 0x5000;
	fi_table_init(&t);
	assert_int_equal(gopclntab_parse(&s, &t, NULL), 0);
	assert_int_equal(t.funcs[0].start, 0x5000);
	fi_table_release(&t);
	free(f.w.b);
}

/* ---- damaged tables ------------------------------------------------------------- */

static int parse_bytes(const struct fix *f, const uint8_t *b, size_t len, size_t tab_len)
{
	struct gopcln_src s = src_of(f);
	struct fi_table t;
	int err;

	s.file = b;
	s.file_len = len;
	s.tab_len = tab_len < len ? tab_len : len;
	fi_table_init(&t);
	err = gopclntab_parse(&s, &t, NULL);
	fi_table_release(&t);
	return err;
}

static int parse_patched(const struct fix *f, size_t at, uint64_t v, unsigned n)
{
	struct fix g = *f;
	int err;

	g.w.b = malloc(f->w.len);
	assert_non_null(g.w.b);
	memcpy(g.w.b, f->w.b, f->w.len);
	set_n(&g.w, at, v, n);
	err = parse_bytes(&g, g.w.b, g.w.len, g.tab_len);
	free(g.w.b);
	return err;
}

static void test_damaged(void **state)
{
	enum lay lays[] = {L12, L116, L118, L120};
	size_t k, cut;

	(void)state;
	for (k = 0; k < 4; k++) {
		struct fix f;
		size_t name_field, base = lays[k] >= L118 ? 4 : 8;

		build(&f, lays[k], 8, 0);
		name_field = f.func_at[1] + base;
		/* a name offset past the end */
		assert_int_equal(parse_patched(&f, name_field, 0x7ffffff0, 4), -EBADMSG);
		/* a function's offset past the end */
		assert_int_equal(parse_patched(&f, f.ftab_at + (lays[k] >= L118 ? 4 : 8) * 3,
					       0x7ffffff0, lays[k] >= L118 ? 4 : 8),
				 -EBADMSG);
		/* a pc-file table past the end */
		assert_int_equal(parse_patched(&f, f.func_at[1] + base + 16, 0x7ffffff0, 4),
				 -EBADMSG);
		/* functions out of order */
		assert_int_equal(parse_patched(&f, f.ftab_at + (lays[k] >= L118 ? 4 : 8) * 2,
					       lays[k] >= L118 ? 0x70 : TEXT + 0x70,
					       lays[k] >= L118 ? 4 : 8),
				 -EBADMSG);
		/* every truncation: an error or fewer bytes read, never past them */
		for (cut = 0; cut < f.w.len; cut++) {
			uint8_t *b = malloc(cut ? cut : 1);

			assert_non_null(b);
			memcpy(b, f.w.b, cut);
			parse_bytes(&f, b, cut, f.tab_len);
			free(b);
		}
		if (lays[k] != L12) {
			/* the inline tree's index past its entries' bytes */
			assert_int_equal(parse_patched(&f, f.outer_pcinl + 4, 0x70, 1), -EBADMSG);
		}
		free(f.w.b);
	}
}

/* An inline tree whose parents make a loop: an error, not a hang */
static void test_inline_loop(void **state)
{
	struct fix f;

	(void)state;
	build(&f, L118, 8, 0);
	/* entry 0's parent: 1 (whose parent is 0) */
	assert_int_equal(parse_patched(&f, f.inl_at, 1, 2), -EBADMSG);
	/* entry 1 its own parent */
	assert_int_equal(parse_patched(&f, f.inl_at + 20, 1, 2), -EBADMSG);
	/* a parent past the entries */
	assert_int_equal(parse_patched(&f, f.inl_at + 20, 7, 2), -EBADMSG);
	/* a parentPc past the function */
	assert_int_equal(parse_patched(&f, f.inl_at + 16, 0x40, 4), -EBADMSG);
	free(f.w.b);
	/* 1.20: the parent is the inline index at parentPc: entry 1's
	 * parentPc in its own code (0x20) is a loop */
	build(&f, L120, 8, 0);
	assert_int_equal(parse_patched(&f, f.inl_at + 16 + 8, 0x20, 4), -EBADMSG);
	/* entry 0's parentPc in entry 1's code: 0 -> 1 -> 0 */
	assert_int_equal(parse_patched(&f, f.inl_at + 8, 0x22, 4), -EBADMSG);
	free(f.w.b);
}

/* Not a pclntab at all */
static void test_not_pclntab(void **state)
{
	struct fix f;
	uint8_t junk[64];

	(void)state;
	memset(junk, 0xff, sizeof(junk));
	build(&f, L118, 8, 0);
	assert_int_equal(parse_bytes(&f, junk, sizeof(junk), sizeof(junk)), -ENOEXEC);
	/* pad bytes not 0, quantum 3, pointer size 2 */
	assert_int_equal(parse_patched(&f, 4, 1, 1), -ENOEXEC);
	assert_int_equal(parse_patched(&f, 6, 3, 1), -ENOEXEC);
	assert_int_equal(parse_patched(&f, 7, 2, 1), -ENOEXEC);
	free(f.w.b);
}

/* ---- finding the table and moduledata --------------------------------------------- */

static void test_search(void **state)
{
	struct w img = {0};
	struct fix f;
	size_t off = 0, len = 0, at;
	static const uint8_t code[] = {0xf0, 0xff, 0xff, 0xff, 0x48, 0x8d, 0x54, 0x24,
				       0xf0, 0xff, 0xff, 0xff, 0x00, 0x00, 0x01, 0x08};

	(void)state;
	build(&f, L118, 8, 0);
	/* code bytes that start like a header, then a header whose function
	 * table is out of order, then the table */
	put(&img, code, sizeof(code));
	put(&img, f.w.b, 16);
	put_n(&img, 0, 8);
	put(&img, code, sizeof(code));
	align(&img, 32);
	at = img.len;
	put(&img, f.w.b, f.w.len);
	assert_int_equal(gopclntab_search(img.b, img.len, &off, &len), 0);
	assert_int_equal(off, at);
	assert_int_equal(len, img.len - at);
	assert_int_equal(gopclntab_search(img.b, at, &off, &len), -ENOENT);
	free(img.b);
	free(f.w.b);
}

static void put_md(struct w *w, uint64_t a, uint64_t b, unsigned words, unsigned gofunc_word,
		   uint64_t gofunc)
{
	unsigned i;

	for (i = 0; i < words; i++)
		put_n(w,
		      i == 0		 ? a
		      : i == 1		 ? b
		      : i == 22		 ? 0x401000
		      : i == gofunc_word ? gofunc
					 : i,
		      8);
}

static void test_moduledata(void **state)
{
	struct gopcln_seg segs[2];
	struct gopcln_src s = {0};
	struct w img = {0};
	struct fix f;
	uint64_t text, gofunc, tab_vaddr = 0x4be740;
	uint64_t names = 0;

	(void)state;
	for (int lay = L118; lay <= L120; lay++) {
		unsigned gw = lay == L120 ? 40 : 38;

		memset(&img, 0, sizeof(img));
		build(&f, (enum lay)lay, 8, 0);
		names = tab_vaddr + f.names_at;
		put(&img, f.w.b, f.w.len);
		align(&img, 8);
		/* the data segment: a decoy (the header's address, then not
		 * funcnametab's), a misaligned copy, then moduledata */
		segs[1].off = img.len;
		segs[1].vaddr = 0x518000;
		put_n(&img, tab_vaddr, 8);
		put_n(&img, 0x1234, 8);
		put_n(&img, 0, 4);
		put_md(&img, tab_vaddr, names, 44, gw, 0x4a4db8);
		put_n(&img, 0, 4);
		put_md(&img, tab_vaddr, names, 44, gw, 0x4a4db8);
		segs[1].size = img.len - segs[1].off;
		segs[0] = (struct gopcln_seg){0, tab_vaddr, f.w.len};
		s.file = img.b;
		s.file_len = img.len;
		s.segs = segs;
		s.nr_segs = 2;
		s.tab_len = f.tab_len;
		s.tab_vaddr = tab_vaddr;
		assert_int_equal(gopclntab_moduledata(&s, &text, &gofunc), 0);
		assert_int_equal(text, 0x401000);
		assert_int_equal(gofunc, 0x4a4db8);
		/* no address for the table: nothing to look for */
		s.tab_vaddr = 0;
		assert_int_equal(gopclntab_moduledata(&s, &text, &gofunc), -ENOENT);
		free(img.b);
		free(f.w.b);
	}
	/* 1.16's funcdata are addresses: no moduledata needed */
	build(&f, L116, 8, 0);
	s = src_of(&f);
	s.tab_vaddr = 0x1000;
	assert_int_equal(gopclntab_moduledata(&s, &text, &gofunc), -ENOENT);
	free(f.w.b);
}

/* ---- real Go binaries ------------------------------------------------------------ */

static char dir[64];
static int have_go;

static const char go_src[] = "package main\n"
			     "\n"
			     "import (\n"
			     "\t\"fmt\"\n"
			     "\t\"os\"\n"
			     "\t\"sync\"\n"
			     ")\n"
			     "\n"
			     "func addOne(x int) int {\n"
			     "\treturn x*3 + 1\n"
			     "}\n"
			     "\n"
			     "//go:noinline\n"
			     "func spin(n int) int {\n"
			     "\ts := 0\n"
			     "\tfor i := 0; i < n; i++ {\n"
			     "\t\ts = addOne(s) ^ i\n"
			     "\t}\n"
			     "\treturn s\n"
			     "}\n"
			     "\n"
			     "func main() {\n"
			     "\tvar wg sync.WaitGroup\n"
			     "\tr := make([]int, 4)\n"
			     "\tfor i := range r {\n"
			     "\t\twg.Add(1)\n"
			     "\t\tgo func(i int) {\n"
			     "\t\t\tdefer wg.Done()\n"
			     "\t\t\tr[i] = spin(1000 + len(os.Args))\n"
			     "\t\t}(i)\n"
			     "\t}\n"
			     "\twg.Wait()\n"
			     "\tfmt.Println(r[0] + r[3])\n"
			     "}\n";

/* cgo: C code with DWARF of its own (gcc -g) in a Go binary */
static const char cgo_src[] = "package main\n"
			      "\n"
			      "// int cadd(int a, int b) { int s = 0; for (int i = 0; i < a; i++) "
			      "s += i ^ b; return s; }\n"
			      "import \"C\"\n"
			      "import \"fmt\"\n"
			      "\n"
			      "//go:noinline\n"
			      "func gofn(n int) int { return n*7 + 1 }\n"
			      "\n"
			      "func main() { fmt.Println(int(C.cadd(10, 3)) + gofn(100)) }\n";
static int have_cgo;

static int setup(void **state)
{
	char src[PATH_MAX + 16];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/zt-test-gopclntab.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	if (run("command -v go > /dev/null 2>&1") != 0)
		return 0;
	snprintf(src, sizeof(src), "%s/main.go", dir);
	if (write_text(src, go_src, 0644))
		return -1;
	/* a private build cache, no module lookups, no toolchain download */
	have_go = !run("cd %s && export HOME=%s GOCACHE=%s/cache GOPATH=%s/gopath GO111MODULE=off "
		       "GOFLAGS= GOPROXY=off GOTOOLCHAIN=local && go build -o full main.go && "
		       "go build -ldflags='-s -w' -o strip main.go",
		       dir, dir, dir, dir);
	if (!have_go)
		return -1;
	snprintf(src, sizeof(src), "%s/cgo/main.go", dir);
	have_cgo = !run("mkdir -p %s/cgo", dir) && !write_text(src, cgo_src, 0644) &&
		   !run("cd %s/cgo && export HOME=%s GOCACHE=%s/cache GOPATH=%s/gopath "
			"GO111MODULE=off GOFLAGS= GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 && "
			"go build -o full main.go && go build -ldflags=-w -o w main.go",
			dir, dir, dir, dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	run("rm -rf %s", dir);
	return 0;
}

static void path_of(char *out, const char *name)
{
	snprintf(out, PATH_MAX, "%s/%s", dir, name);
}

/* A copy of the ELF file at from without section headers (e_shoff,
 * e_shnum, e_shstrndx zeroed), as sstrip leaves one. */
static void drop_sections(const char *from, const char *to)
{
	assert_int_equal(
		run("cp %s %s && printf '\\0\\0\\0\\0\\0\\0\\0\\0' | dd of=%s bs=1 seek=40 "
		    "conv=notrunc status=none && printf '\\0\\0\\0\\0' | dd of=%s bs=1 "
		    "seek=60 conv=notrunc status=none",
		    from, to, to, to),
		0);
}

static const struct fi_func *find(const struct fi_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr_funcs; i++)
		if (!strcmp(fi_strat(t, t->funcs[i].name), name))
			return &t->funcs[i];
	return NULL;
}

/* The stripped binary's pclntab against the unstripped one's DWARF: the
 * same functions of package main (start, size), and at every address of
 * them the same frames (names, files, lines) */
static void test_real_vs_dwarf(void **state)
{
	char full[PATH_MAX], strip[PATH_MAX];
	struct fi_table g, d;
	struct gopcln_info info;
	struct looked lg, ld;
	uint64_t a, compared = 0, inlined = 0, differ = 0;
	size_t i;
	int has;

	(void)state;
	if (!have_go)
		skip();
	path_of(full, "full");
	path_of(strip, "strip");
	fi_table_init(&g);
	fi_table_init(&d);
	assert_int_equal(gopclntab_extract(strip, &g, &info), 0);
	assert_int_equal(info.magic, GOPCLN_MAGIC_118); /* Debian's 1.19 */
	assert_false(info.by_search);
	assert_false(info.no_gofunc);
	assert_true(info.nr_funcs > 1000);
	assert_true(info.nr_inlined > 100);
	assert_int_equal(dwarfsyms_extract(full, full, &d, &has), 0);
	assert_true(has);
	assert_non_null(find(&g, "main.spin"));
	assert_non_null(find(&g, "main.main"));
	assert_non_null(find(&g, "main.main.func1"));
	assert_non_null(find(&g, "runtime.goexit"));
	encode(&g, &lg);
	encode(&d, &ld);
	for (i = 0; i < d.nr_funcs; i++) {
		const struct fi_func *df = &d.funcs[i], *gf;
		const char *name = fi_strat(&d, df->name);

		if (strncmp(name, "main.", 5))
			continue;
		gf = find(&g, name);
		assert_non_null(gf);
		assert_int_equal(gf->start, df->start);
		/* the pclntab's reaches the next function (alignment padding
		 * included), the symbol's does not */
		assert_true(gf->size >= df->size && gf->size - df->size < 64);
		for (a = df->start; a < df->start + df->size; a++) {
			char want[1024];
			struct fi_result r;

			snprintf(want, sizeof(want), "%s", chain(&ld, a));
			if (strcmp(want, chain(&lg, a))) {
				differ++;
				print_message("  %#llx: dwarf '%s', pclntab '%s'\n",
					      (unsigned long long)a, want, chain(&lg, a));
			}
			compared++;
			if (!gsym_lookup(lg.g, a, &r) && r.n > 1)
				inlined++;
		}
	}
	print_message("  %llu addresses of package main, %llu in inlined code, %llu differ\n",
		      (unsigned long long)compared, (unsigned long long)inlined,
		      (unsigned long long)differ);
	assert_true(compared > 100);
	assert_true(inlined > 10); /* addOne into spin */
	assert_int_equal(differ, 0);
	release(&lg);
	release(&ld);
	fi_table_release(&g);
	fi_table_release(&d);
}

/* Without section headers: found by searching, moduledata too */
static void test_real_no_sections(void **state)
{
	char strip[PATH_MAX], bare[PATH_MAX];
	struct gopcln_info a, b;
	struct fi_table g, h;
	struct looked lg, lh;
	size_t i;

	(void)state;
	if (!have_go)
		skip();
	path_of(strip, "strip");
	path_of(bare, "bare");
	drop_sections(strip, bare);
	fi_table_init(&g);
	fi_table_init(&h);
	assert_int_equal(gopclntab_extract(strip, &g, &a), 0);
	assert_int_equal(gopclntab_extract(bare, &h, &b), 0);
	assert_true(b.by_search);
	assert_int_equal(a.nr_funcs, b.nr_funcs);
	assert_int_equal(a.nr_inlined, b.nr_inlined);
	assert_int_equal(g.nr_funcs, h.nr_funcs);
	encode(&g, &lg);
	encode(&h, &lh);
	for (i = 0; i < g.nr_funcs; i += 7) {
		char want[1024];

		snprintf(want, sizeof(want), "%s",
			 chain(&lg, g.funcs[i].start + g.funcs[i].size / 2));
		assert_string_equal(want, chain(&lh, g.funcs[i].start + g.funcs[i].size / 2));
	}
	release(&lg);
	release(&lh);
	fi_table_release(&g);
	fi_table_release(&h);
}

/* symmod's order: DWARF when there is some, else the pclntab, "go pclntab" */
static void test_symmod_order(void **state)
{
	struct symmod_opts o = {.no_debuginfod = 1};
	char full[PATH_MAX], strip[PATH_MAX], notgo[PATH_MAX];
	struct symmod *m;
	struct fi_result r;
	uint64_t spin;

	(void)state;
	if (!have_go)
		skip();
	path_of(full, "full");
	path_of(strip, "strip");
	assert_int_equal(symmod_open(&o, strip, NULL, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	assert_string_equal(symmod_source(m), SYMMOD_SOURCE_GO_PCLNTAB);
	assert_string_equal(symmod_why(m), "");
	symmod_free(m);
	assert_int_equal(symmod_open(&o, full, NULL, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	assert_string_equal(symmod_source(m), "DWARF in the binary");
	/* spin's address, from the DWARF, resolved the same in the stripped one */
	{
		struct fi_table d;
		int has;

		fi_table_init(&d);
		assert_int_equal(dwarfsyms_extract(full, full, &d, &has), 0);
		assert_non_null(find(&d, "main.spin"));
		spin = find(&d, "main.spin")->start;
		fi_table_release(&d);
	}
	assert_int_equal(symmod_lookup_vaddr(m, spin + 4, &r), 0);
	assert_string_equal(r.locs[r.n - 1].name, "main.spin");
	symmod_free(m);
	assert_int_equal(symmod_open(&o, strip, NULL, &m), 0);
	assert_int_equal(symmod_lookup_vaddr(m, spin + 4, &r), 0);
	assert_string_equal(r.locs[r.n - 1].name, "main.spin");
	assert_non_null(strstr(r.locs[0].file, "main.go"));
	symmod_free(m);
	/* a C binary has no pclntab: its symbol table, as before */
	path_of(notgo, "notgo");
	assert_int_equal(run("printf 'int main(void){return 0;}' | gcc -x c -o %s -", notgo), 0);
	{
		struct fi_table t;

		fi_table_init(&t);
		assert_int_equal(gopclntab_extract(notgo, &t, NULL), -ENOENT);
		fi_table_release(&t);
	}
}

/* cgo built with -ldflags=-w: DWARF for the C code alone, the pclntab for
 * the Go code, both full; built with Go's DWARF too: DWARF alone */
static void test_cgo(void **state)
{
	struct symmod_opts o = {.no_debuginfod = 1};
	char full[PATH_MAX], w[PATH_MAX];
	uint64_t gofn = 0, cadd = 0;
	struct symmod *m;
	struct fi_result r;
	struct fi_table d;
	int has;

	(void)state;
	if (!have_cgo)
		skip();
	path_of(full, "cgo/full");
	path_of(w, "cgo/w");
	fi_table_init(&d);
	assert_int_equal(dwarfsyms_extract(full, full, &d, &has), 0);
	assert_non_null(find(&d, "main.gofn"));
	assert_non_null(find(&d, "cadd"));
	gofn = find(&d, "main.gofn")->start;
	cadd = find(&d, "cadd")->start;
	fi_table_release(&d);
	assert_int_equal(symmod_open(&o, full, NULL, &m), 0);
	assert_string_equal(symmod_source(m), "DWARF in the binary");
	symmod_free(m);
	assert_int_equal(symmod_open(&o, w, NULL, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	assert_string_equal(symmod_source(m), "DWARF in the binary, " SYMMOD_SOURCE_GO_PCLNTAB);
	assert_int_equal(symmod_lookup_vaddr(m, gofn, &r), 0);
	assert_string_equal(r.locs[r.n - 1].name, "main.gofn");
	assert_int_equal(r.locs[0].line, 8);
	assert_int_equal(symmod_lookup_vaddr(m, cadd, &r), 0);
	assert_string_equal(r.locs[r.n - 1].name, "cadd");
	assert_int_equal(r.locs[0].line, 3);
	symmod_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go12),	      cmocka_unit_test(test_go116),
		cmocka_unit_test(test_go118),	      cmocka_unit_test(test_go120),
		cmocka_unit_test(test_no_gofunc),     cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_inline_loop),   cmocka_unit_test(test_not_pclntab),
		cmocka_unit_test(test_search),	      cmocka_unit_test(test_moduledata),
		cmocka_unit_test(test_real_vs_dwarf), cmocka_unit_test(test_real_no_sections),
		cmocka_unit_test(test_symmod_order),  cmocka_unit_test(test_cgo),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
