// SPDX-License-Identifier: GPL-2.0-or-later
/* ELF symbols and DWARF (libdw) into the GSYM-shaped model of funcinfo.h:
 * one walk over each compile unit's DIEs and one read of its line table. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "symbolizer/dwarfsyms.h"
#include "symbolizer/dwline.h"
#include "symbolizer/pltsyms.h"
#include "symbolizer/symname.h"

#define DWS_MAX_DEPTH 64     /* DIE nesting followed */
#define DWS_MAX_RANGES 65536 /* address ranges taken from one DIE */
#define ROW_END UINT32_MAX   /* row.file of an end-of-sequence row */
#define FILE_NONE UINT32_MAX /* filemap: resolved, but to no file */

struct dsym {
	uint64_t addr, size;
	uint64_t limit; /* end of its section */
	const char *name; /* borrowed from the ELF's string table */
	uint32_t seq;  /* load order */
	uint8_t bind;  /* STB_* */
	uint8_t table; /* which table: perf fixes up one at a time */
};

enum { TAB_SYMTAB, TAB_DYNSYM, TAB_PLT };

struct row {
	uint64_t addr;
	uint32_t file; /* fi file index, ROW_END for the end of a sequence */
	uint32_t line, column, discr;
};

/* A symbol as addr2line (BFD) and llvm-symbolizer see the symbol table,
 * without perf's choices: for what they print (fi_func's gname, lname). */
struct rsym {
	uint64_t addr, size;
	const char *name;
	const char *file; /* a local symbol's STT_FILE, or NULL */
	uint32_t shndx, order;
	uint8_t gnu, llvm; /* BFD's elf_find_function / LLVM take it */
};

/* u64 -> u32 */
struct umap {
	struct uent {
		uint64_t key;
		uint32_t val;
	} *ents;
	size_t nr, cap;
	struct zt_htab hash; /* ents by key */
};

struct pathent {
	char *path; /* owned */
	uint32_t file;
};

struct dws {
	struct fi_table *t;
	struct dsym *syms;
	size_t nr_syms;
	struct fi_range *text; /* executable sections, sorted; none: no filter */
	size_t nr_text;
	struct row *rows;
	size_t nr_rows, cap_rows;
	struct umap names; /* DIE address (after abstract origin) -> string offset */
	struct pathent *paths; /* path -> fi file */
	size_t cap_paths, nr_paths;
	struct zt_htab paths_hash; /* paths by path */
	/* the current CU */
	const char *comp_dir; /* NULL when none */
	int version;
	int mangled; /* a language with mangled names (BFD's !non_mangled) */
	const char *const *fpaths; /* the CU's file names (dwarf_filesrc's) */
	size_t nfiles;
	uint32_t *filemap; /* CU file index -> fi file index (0: not yet) */
	struct dwl_sections dl; /* .debug_line read here (dwline.h) */
	int dl_ok;
	struct dwl_unit unit; /* the CU's rows and file names */
	const char **lpaths; /* file names from libdw, when it reads them */
	size_t cap_lpaths;
	size_t cap_filemap;
	struct fi_range *scr; /* ranges of the DIE at hand */
	size_t nscr, cap_scr;
	uint64_t first_start; /* the DIE's first range as listed (before sorting) */
	int err; /* the first fatal error (-ENOMEM) */
	struct pltsyms plt; /* the PLT stubs' names (name@plt) */
	int perf_loaded;    /* perf loads a symbol of the tables (read_syms()) */
	struct rsym *rsyms; /* the symbol table as the other tools see it */
	size_t nr_rsyms;
	struct fi_range *secs; /* executable sections, by index (0: none) */
	size_t nr_secs;
};

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static int elf_ok;

static void elf_init_once(void)
{
	elf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

/* ---- small tables ---------------------------------------------------------- */

static inline uint64_t umap_hash_at(const void *m, uint32_t i)
{
	return zt_hash_mix(0, ((const struct umap *)m)->ents[i].key);
}

/* The entry of key; none: NULL, and the empty slot for it in *slot. */
static struct uent *umap_probe(const struct umap *m, uint64_t key, size_t *slot)
{
	size_t j;
	uint32_t i;

	for (j = zt_htab_first(&m->hash, zt_hash_mix(0, key)); zt_htab_get(&m->hash, j, &i);
	     j = zt_htab_next(&m->hash, j))
		if (m->ents[i].key == key)
			return &m->ents[i];
	*slot = j;
	return NULL;
}

static int umap_get(const struct umap *m, uint64_t key, uint32_t *val)
{
	const struct uent *e;
	size_t j;

	if (!m->hash.cap || !(e = umap_probe(m, key, &j)))
		return 0;
	*val = e->val;
	return 1;
}

static int umap_put(struct umap *m, uint64_t key, uint32_t val)
{
	struct uent *e;
	size_t j;

	if (zt_htab_reserve(&m->hash, 1, umap_hash_at, m))
		return -ENOMEM;
	if ((e = umap_probe(m, key, &j))) {
		e->val = val;
		return 0;
	}
	if (m->nr >= UINT32_MAX - 1 || ZT_GROW(m->ents, m->cap, m->nr + 1))
		return -ENOMEM;
	m->ents[m->nr] = (struct uent){ key, val };
	zt_htab_set(&m->hash, j, (uint32_t)m->nr++);
	return 0;
}

static void umap_release(struct umap *m)
{
	free(m->ents);
	zt_htab_release(&m->hash);
	memset(m, 0, sizeof(*m));
}

static inline uint64_t path_hash_at(const void *d, uint32_t i)
{
	return zt_hash_str(((const struct dws *)d)->paths[i].path);
}

/* The fi file of a path as libdw gives it ("dir/sub/base.c"), interned once. */
static uint32_t path_file(struct dws *d, const char *path)
{
	const char *slash;
	char buf[512], *dir = buf, *copy;
	size_t j, dlen;
	uint32_t f, i;

	if (!path || !*path)
		return 0;
	if (zt_htab_reserve(&d->paths_hash, 1, path_hash_at, d) || d->nr_paths >= UINT32_MAX - 1 ||
	    ZT_GROW(d->paths, d->cap_paths, d->nr_paths + 1)) {
		d->err = -ENOMEM;
		return 0;
	}
	for (j = zt_htab_first(&d->paths_hash, zt_hash_str(path));
	     zt_htab_get(&d->paths_hash, j, &i); j = zt_htab_next(&d->paths_hash, j))
		if (!strcmp(d->paths[i].path, path))
			return d->paths[i].file;

	slash = strrchr(path, '/');
	dlen = slash ? (size_t)(slash - path) : 0;
	if (slash && !dlen)
		dlen = 1; /* "/x.c": the root directory */
	if (dlen >= sizeof(buf) && !(dir = malloc(dlen + 1))) {
		d->err = -ENOMEM;
		return 0;
	}
	memcpy(dir, path, dlen);
	dir[dlen] = 0;
	f = fi_file(d->t, dir, slash ? slash + 1 : path);
	if (dir != buf)
		free(dir);
	if (!f || !(copy = strdup(path))) {
		d->err = -ENOMEM;
		return 0;
	}
	d->paths[d->nr_paths] = (struct pathent){ copy, f };
	zt_htab_set(&d->paths_hash, j, (uint32_t)d->nr_paths++);
	return f;
}

/*
 * A path of the CU's file table, made what llvm-symbolizer and binutils show:
 * libdw joins a file's directory entry and name, and leaves the result
 * relative when the directory is; such paths are relative to
 * DW_AT_comp_dir. In DWARF 4 libdw has put DW_AT_comp_dir in directory 0
 * already; DWARF 5 has it as directory 0 (so "./nss" + "./nss/x.c", as the
 * other tools have it).
 */
static uint32_t path_file_cu(struct dws *d, const char *path)
{
	char buf[1024], *p = buf;
	size_t cl, pl;
	uint32_t f;

	if (!path || *path == '/' || !d->comp_dir)
		return path_file(d, path);
	cl = strlen(d->comp_dir);
	if (d->version < 5 && !strncmp(path, d->comp_dir, cl) && path[cl] == '/')
		return path_file(d, path);
	pl = strlen(path);
	if (cl + pl + 2 > sizeof(buf) && !(p = malloc(cl + pl + 2))) {
		d->err = -ENOMEM;
		return 0;
	}
	memcpy(p, d->comp_dir, cl);
	p[cl] = '/';
	memcpy(p + cl + 1, path, pl + 1);
	f = path_file(d, p);
	if (p != buf)
		free(p);
	return f;
}

/* The fi file of entry idx of the CU's file table. */
static uint32_t map_file(struct dws *d, size_t idx)
{
	uint32_t f;

	/* before DWARF 5 file 0 is no file (libdw names it "???") */
	if (idx >= d->nfiles || (!idx && d->version < 5))
		return 0;
	if (d->filemap[idx])
		return d->filemap[idx] == FILE_NONE ? 0 : d->filemap[idx];
	f = path_file_cu(d, d->fpaths[idx]);
	if (!d->err)
		d->filemap[idx] = f ? f : FILE_NONE;
	return f;
}

/* ---- address ranges -------------------------------------------------------- */

static int range_cmp(const void *a, const void *b)
{
	const struct fi_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sort and merge ranges in place; returns the new count. */
static size_t ranges_norm(struct fi_range *r, size_t n)
{
	size_t i, k = 0;

	if (n > 1)
		qsort(r, n, sizeof(*r), range_cmp);
	for (i = 0; i < n; i++) {
		if (k && r[i].start <= r[k - 1].end) {
			if (r[i].end > r[k - 1].end)
				r[k - 1].end = r[i].end;
			continue;
		}
		r[k++] = r[i];
	}
	return k;
}

/* The ranges of die into d->scr (sorted, merged, empty and zero-address
 * ones dropped: the latter are functions the linker discarded). */
static int die_ranges(struct dws *d, Dwarf_Die *die)
{
	Dwarf_Addr base, s, e;
	ptrdiff_t off = 0;

	d->nscr = 0;
	d->first_start = 0;
	while ((off = dwarf_ranges(die, off, &base, &s, &e)) > 0) {
		if (!s || e <= s)
			continue;
		if (!d->nscr)
			d->first_start = s; /* BFD's arange.low: the first range as listed */
		if (d->nscr >= DWS_MAX_RANGES)
			break;
		if (ZT_GROW(d->scr, d->cap_scr, d->nscr + 1))
			return d->err = -ENOMEM;
		d->scr[d->nscr++] = (struct fi_range){ s, e };
	}
	d->nscr = ranges_norm(d->scr, d->nscr);
	return 0;
}

/* a ∩ b (both sorted and disjoint) into a new array *out (NULL when
 * empty); returns the count, or -ENOMEM. */
static long ranges_and(const struct fi_range *a, size_t na, const struct fi_range *b, size_t nb,
		       struct fi_range **out)
{
	size_t i, j, n = 0, pass;
	struct fi_range *r = NULL;

	*out = NULL;
	/* counted first, then allocated to size: one per inlined call, most
	 * of one range (grown by doubling from 16, they were megabytes of
	 * fresh pages on a big program) */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0, j = 0, n = 0; i < na && j < nb;) {
			uint64_t s = a[i].start > b[j].start ? a[i].start : b[j].start;
			uint64_t e = a[i].end < b[j].end ? a[i].end : b[j].end;

			if (s < e) {
				if (r)
					r[n] = (struct fi_range){ s, e };
				n++;
			}
			if (a[i].end < b[j].end)
				i++;
			else
				j++;
		}
		if (!n || r)
			break;
		if (n > LONG_MAX || !(r = malloc(n * sizeof(*r))))
			return -ENOMEM;
	}
	*out = r;
	return (long)n;
}

/* ---- ELF symbols ----------------------------------------------------------- */

/* By address, then load order. */
static int dsym_cmp(const void *pa, const void *pb)
{
	const struct dsym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* y (at index i of n sorted) as perf's alias choice sees it. */
static struct symname_cand dsym_cand(const struct dsym *y, size_t i, size_t n)
{
	int last = i + 1 == n || y[1].addr != y->addr || y[1].table != y->table;

	return (struct symname_cand){ y->name, y->seq, y->size || last, y->bind };
}

static Elf_Scn *find_scn(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!elf)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_size)
			return scn;
	return NULL;
}

static Elf_Data *find_xindex(Elf *elf, Elf_Scn *symscn)
{
	size_t idx = elf_ndxscn(symscn);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX && sh.sh_link == idx)
			return elf_getdata(scn, NULL);
	return NULL;
}

/* The symbols of symbol table symscn: *data, its string table (*strs,
 * *strsz bytes, not always NUL-terminated at its end) and *nsyms. Returns 0,
 * or -1 when the table is missing or unreadable (then it gives nothing). */
static int sym_table(Elf *elf, Elf_Scn *symscn, Elf_Data **data, const char **strs, size_t *strsz,
		     size_t *nsyms)
{
	GElf_Shdr symsh;
	Elf_Scn *strscn;
	Elf_Data *strd;
	size_t entsz;

	if (!symscn || !gelf_getshdr(symscn, &symsh))
		return -1;
	*data = elf_getdata(symscn, NULL);
	entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	strscn = elf_getscn(elf, symsh.sh_link);
	strd = strscn ? elf_getdata(strscn, NULL) : NULL;
	if (!*data || !(*data)->d_buf || !entsz || !strd || !strd->d_buf || !strd->d_size)
		return -1;
	*strs = strd->d_buf;
	*strsz = strd->d_size;
	*nsyms = (*data)->d_size / entsz;
	return 0;
}

/* Append a symbol to d->syms (room made by the caller). */
static void push_sym(struct dws *d, uint64_t addr, uint64_t size, uint64_t limit, const char *name,
		     uint8_t bind, uint8_t tab)
{
	d->syms[d->nr_syms] =
		(struct dsym){addr, size, limit, name, (uint32_t)d->nr_syms, bind, tab};
	d->nr_syms++;
}

/* The section of a symbol as read_syms() needs it, kept for a run of
 * symbols in one section. */
struct symsec {
	size_t shndx;
	int exec, alloc;
	uint64_t limit; /* the end of an executable section */
};

static void symsec_at(Elf *elf, size_t shndx, struct symsec *c)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (shndx == c->shndx)
		return;
	memset(c, 0, sizeof(*c));
	c->shndx = shndx;
	if (!(scn = elf_getscn(elf, shndx)) || !gelf_getshdr(scn, &sh))
		return;
	c->alloc = !!(sh.sh_flags & SHF_ALLOC);
	c->exec = !!(sh.sh_flags & SHF_EXECINSTR);
	c->limit = c->exec && sh.sh_addr + sh.sh_size > sh.sh_addr ? sh.sh_addr + sh.sh_size : 0;
}

/* The section index of s, 0 when it is undefined or a reserved index. */
static size_t sym_shndx(const GElf_Sym *s, const Elf_Data *xd, Elf32_Word xndx)
{
	if (s->st_shndx == SHN_XINDEX)
		return xd ? xndx : 0;
	return s->st_shndx >= SHN_LORESERVE ? 0 : s->st_shndx;
}

/* Append the FUNC symbols of symscn defined in executable sections to
 * d->syms (names borrowed from elf) as table tab. Notes in d->perf_loaded
 * whether perf loads a symbol of the table: a named function or object
 * in a section that is loaded, or a label in code. */
static int read_syms(struct dws *d, Elf *elf, Elf_Scn *symscn, uint8_t tab, size_t *cap)
{
	struct symsec sec = {0};
	Elf_Data *data, *xd;
	size_t nsyms, i, strsz, shndx;
	const char *strs;
	int terminated;

	if (sym_table(elf, symscn, &data, &strs, &strsz, &nsyms))
		return 0;
	terminated = strs[strsz - 1] == 0;
	if (!nsyms)
		return 0;
	if (d->nr_syms + nsyms < nsyms || ZT_GROW(d->syms, *cap, d->nr_syms + nsyms))
		return -ENOMEM;
	xd = find_xindex(elf, symscn);
	for (i = 1; i < nsyms; i++) {
		GElf_Sym s;
		Elf32_Word xndx = 0;
		int type, label, object;

		if (!gelf_getsymshndx(data, xd, (int)i, &s, &xndx))
			continue;
		type = GELF_ST_TYPE(s.st_info);
		/* functions, and labels in code as perf takes them (asm entry
		 * points such as ld.so's _dl_start_user): NOTYPE, visible */
		label = type == STT_NOTYPE && GELF_ST_VISIBILITY(s.st_other) != STV_HIDDEN &&
			GELF_ST_VISIBILITY(s.st_other) != STV_INTERNAL && s.st_shndx != SHN_ABS;
		/* objects only count, until one does */
		object = type == STT_OBJECT && !d->perf_loaded;
		if (type != STT_FUNC && type != STT_GNU_IFUNC && !label && !object)
			continue;
		if (!s.st_name || s.st_name >= strsz || !strs[s.st_name] ||
		    (!terminated && !memchr(strs + s.st_name, 0, strsz - s.st_name)))
			continue;
		if (!(shndx = sym_shndx(&s, xd, xndx)))
			continue;
		symsec_at(elf, shndx, &sec);
		if (sec.alloc && (!label || sec.exec))
			d->perf_loaded = 1;
		if (object || !s.st_value || !sec.exec)
			continue;
		if (label && (strs[s.st_name] == '.' || strs[s.st_name] == '$'))
			continue; /* assembler-local labels */
		push_sym(d, s.st_value, s.st_size, sec.limit, strs + s.st_name,
			 (uint8_t)GELF_ST_BIND(s.st_info), tab);
	}
	return 0;
}

/* perf's PLT symbols (pltsyms.h) into d->syms, names borrowed from d->plt. */
static int read_plt(struct dws *d, Elf *elf, size_t *cap)
{
	size_t i;
	int err;

	if ((err = pltsyms_read(&d->plt, elf)))
		return err;
	if (d->nr_syms + d->plt.nr < d->nr_syms || ZT_GROW(d->syms, *cap, d->nr_syms + d->plt.nr))
		return -ENOMEM;
	for (i = 0; i < d->plt.nr; i++) {
		const struct pltsym *y = &d->plt.syms[i];

		push_sym(d, y->addr, y->size, y->addr + y->size, pltsyms_name(&d->plt, i),
			 STB_GLOBAL, TAB_PLT);
	}
	return 0;
}

/* Sort d->syms, keep perf's name at each address (symname_cmp()), give
 * sizeless ones an extent. */
static void finish_syms(struct dws *d)
{
	size_t i, j, n = d->nr_syms;

	if (n > 1)
		qsort(d->syms, n, sizeof(*d->syms), dsym_cmp);
	d->nr_syms = 0;
	for (i = 0; i < n; i = j) {
		struct symname_cand bc = dsym_cand(&d->syms[i], i, n);
		size_t best = i;

		for (j = i + 1; j < n && d->syms[j].addr == d->syms[i].addr; j++) {
			struct symname_cand c = dsym_cand(&d->syms[j], j, n);

			if (symname_cmp(&c, &bc) < 0) {
				bc = c;
				best = j;
			}
		}
		d->syms[d->nr_syms++] = d->syms[best];
	}
	/* a sizeless symbol (assembly) ends at the next one or its section's end */
	for (i = 0; i < d->nr_syms; i++) {
		struct dsym *y = &d->syms[i];
		uint64_t end = y->limit;

		if (y->size)
			continue;
		if (i + 1 < d->nr_syms && d->syms[i + 1].addr < end)
			end = d->syms[i + 1].addr;
		y->size = end > y->addr ? end - y->addr : 0;
	}
}

/* The symbol covering addr, NULL when none does. */
static const struct dsym *sym_cover(const struct dws *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nr_syms;
	const struct dsym *s;

	lo = ZT_UPPER_BOUND(d->syms, hi, addr, addr);
	if (!lo)
		return NULL;
	s = &d->syms[lo - 1];
	return s->addr == addr || addr - s->addr < s->size ? s : NULL;
}

static int add_syms(struct dws *d)
{
	size_t i;

	for (i = 0; i < d->nr_syms; i++) {
		uint32_t name = fi_str(d->t, d->syms[i].name);

		if (name == UINT32_MAX || !fi_add_func(d->t, d->syms[i].addr, d->syms[i].size, name))
			return -ENOMEM;
	}
	return 0;
}

/* The executable sections of elf into d->text. */
static int read_text(struct dws *d, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	if (!elf)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size || sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		if (ZT_GROW(d->text, cap, d->nr_text + 1))
			return -ENOMEM;
		d->text[d->nr_text++] = (struct fi_range){ sh.sh_addr, sh.sh_addr + sh.sh_size };
	}
	d->nr_text = ranges_norm(d->text, d->nr_text);
	return 0;
}

/* ---- DWARF ------------------------------------------------------------------ */

static int has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/* The name of a subprogram or inlined call: DW_AT_linkage_name, else
 * DW_AT_name, through abstract origins and specifications; cached by the
 * DIE the abstract origin leads to (many calls share one). */
static uint32_t die_name(struct dws *d, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die origin, *key = die;
	const char *s = NULL;
	uint32_t off;

	/* a concrete instance's own linkage name first: the out-of-line copy
	 * "C2" of a constructor whose abstract instance says "C4" */
	if ((dwarf_attr(die, DW_AT_linkage_name, &a) || dwarf_attr(die, DW_AT_MIPS_linkage_name, &a)) &&
	    (s = dwarf_formstring(&a))) {
		off = fi_str(d->t, s);
		if (off == UINT32_MAX)
			d->err = -ENOMEM;
		return off == UINT32_MAX ? 0 : off;
	}
	if (dwarf_attr(die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin))
		key = &origin;
	if (umap_get(&d->names, (uintptr_t)key->addr, &off))
		return off;
	if (dwarf_attr_integrate(key, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(key, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	if (!s)
		s = dwarf_diename(key);
	off = fi_str(d->t, s);
	if (off == UINT32_MAX || umap_put(&d->names, (uintptr_t)key->addr, off)) {
		d->err = -ENOMEM;
		return 0;
	}
	return off;
}

static uint32_t die_udata(Dwarf_Die *die, unsigned int at)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr(die, at, &a) || dwarf_formudata(&a, &v))
		return 0;
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int do_func(struct dws *d, Dwarf_Die *die, unsigned depth);
static void scan_scope(struct dws *d, Dwarf_Die *die, unsigned depth);

static void scan_body(struct dws *d, Dwarf_Die *die, struct fi_inline *node, size_t *cap,
		      unsigned depth);

/* An inlined call below node: its ranges (clipped to node's) and calls. */
static void add_inline(struct dws *d, Dwarf_Die *die, struct fi_inline *node, size_t *cap,
		       unsigned depth)
{
	struct fi_range *r;
	struct fi_inline *n;
	size_t ccap = 0;
	long nr;

	if (die_ranges(d, die))
		return;
	nr = ranges_and(d->scr, d->nscr, node->ranges, node->nr_ranges, &r);
	if (nr <= 0) {
		if (nr < 0)
			d->err = -ENOMEM;
		return;
	}
	/* children arrays grow from 2, not zt_grow's 16: most calls have one
	 * or two inlined calls in them, if any */
	if (node->nr_children == *cap) {
		size_t nc = *cap ? *cap * 2 : 2;
		struct fi_inline *m = node->nr_children < UINT32_MAX && nc <= SIZE_MAX / sizeof(*m)
					      ? realloc(node->children, nc * sizeof(*m))
					      : NULL;

		if (!m) {
			free(r);
			d->err = -ENOMEM;
			return;
		}
		node->children = m;
		*cap = nc;
	}
	n = &node->children[node->nr_children++];
	memset(n, 0, sizeof(*n));
	n->ranges = r;
	n->nr_ranges = (uint32_t)nr;
	n->name = die_name(d, die);
	if (dwarf_hasattr(die, DW_AT_call_file))
		n->call_file = map_file(d, die_udata(die, DW_AT_call_file));
	n->call_line = die_udata(die, DW_AT_call_line);
	n->call_column = die_udata(die, DW_AT_call_column);
	/* n stays put: only its own children array grows below */
	scan_body(d, die, n, &ccap, depth + 1);
}

/* The children of a function (or of an inlined call, a lexical block):
 * inlined calls go below node, nested functions become functions. */
static void scan_body(struct dws *d, Dwarf_Die *die, struct fi_inline *node, size_t *cap,
		      unsigned depth)
{
	Dwarf_Die c;
	int rc;

	if (depth > DWS_MAX_DEPTH || dwarf_haschildren(die) <= 0)
		return;
	for (rc = dwarf_child(die, &c); rc == 0 && !d->err; rc = dwarf_siblingof(&c, &c)) {
		switch (dwarf_tag(&c)) {
		case DW_TAG_inlined_subroutine:
			add_inline(d, &c, node, cap, depth);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			scan_body(d, &c, node, cap, depth + 1);
			break;
		case DW_TAG_subprogram:
			if (has_code(&c))
				do_func(d, &c, depth + 1);
			break;
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			scan_scope(d, &c, depth + 1);
			break;
		default:
			break;
		}
	}
}

/* A copy of src whose ranges are clipped to lim, without the calls that
 * lie outside it. */
static int clip_tree(const struct fi_inline *src, const struct fi_range *lim, size_t nlim,
		     struct fi_inline *dst)
{
	struct fi_range *r;
	long nr;
	uint32_t i;

	memset(dst, 0, sizeof(*dst));
	nr = ranges_and(src->ranges, src->nr_ranges, lim, nlim, &r);
	if (nr < 0)
		return -ENOMEM;
	dst->ranges = r;
	dst->nr_ranges = (uint32_t)nr;
	dst->name = src->name;
	dst->call_file = src->call_file;
	dst->call_line = src->call_line;
	dst->call_column = src->call_column;
	/* at most src's children: allocated once, to that size */
	if (nr && src->nr_children &&
	    !(dst->children = malloc(src->nr_children * sizeof(*dst->children))))
		return -ENOMEM;
	for (i = 0; i < src->nr_children && nr; i++) {
		struct fi_inline *c;

		c = &dst->children[dst->nr_children];
		if (clip_tree(&src->children[i], dst->ranges, dst->nr_ranges, c)) {
			fi_inline_release(c);
			return -ENOMEM;
		}
		if (c->nr_ranges)
			dst->nr_children++;
		else
			fi_inline_release(c);
	}
	return 0;
}

static int has_linkage(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	       dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a);
}

/* A subprogram with code: one fi_func per contiguous range. */
static int do_func(struct dws *d, Dwarf_Die *die, unsigned depth)
{
	static const struct fi_range all = { 0, UINT64_MAX };
	struct fi_inline root;
	size_t cap = 0;
	uint32_t i, dname = UINT32_MAX;
	uint64_t first;
	long nr;

	if (depth > DWS_MAX_DEPTH || die_ranges(d, die) || !d->nscr)
		return d->err;
	first = d->first_start; /* scan_body reads the ranges of inner DIEs */
	memset(&root, 0, sizeof(root));
	if (d->nr_text)
		nr = ranges_and(d->scr, d->nscr, d->text, d->nr_text, &root.ranges);
	else
		nr = ranges_and(d->scr, d->nscr, &all, 1, &root.ranges);
	if (nr <= 0)
		return nr < 0 ? (d->err = -ENOMEM) : 0;
	root.nr_ranges = (uint32_t)nr;
	scan_body(d, die, &root, &cap, depth + 1);
	for (i = 0; i < root.nr_ranges && !d->err; i++) {
		const struct fi_range rg = root.ranges[i]; /* root may be moved below */
		const struct dsym *s = sym_cover(d, rg.start);
		struct fi_inline *inl = NULL;
		struct fi_func *f;
		uint32_t name;

		if (dname == UINT32_MAX)
			dname = die_name(d, die);
		name = s ? fi_str(d->t, s->name) : dname;
		if (name == UINT32_MAX || d->err) {
			d->err = -ENOMEM;
			break;
		}
		if (root.nr_children) {
			if (!(inl = malloc(sizeof(*inl)))) {
				d->err = -ENOMEM;
				break;
			}
			if (root.nr_ranges == 1) {
				*inl = root; /* moved */
				memset(&root, 0, sizeof(root));
			} else if (clip_tree(&root, &rg, 1, inl)) {
				fi_inline_release(inl);
				free(inl);
				d->err = -ENOMEM;
				break;
			}
			inl->name = name;
			if (!inl->nr_children) {
				fi_inline_release(inl);
				free(inl);
				inl = NULL;
			}
		}
		f = fi_add_func(d->t, rg.start, rg.end - rg.start, name);
		if (!f) {
			if (inl) {
				fi_inline_release(inl);
				free(inl);
			}
			d->err = -ENOMEM;
			break;
		}
		f->inl = inl;
		f->dname = dname;
		if (d->mangled)
			f->flags |= FI_MANGLED_CU;
		if (d->mangled && !has_linkage(die))
			f->flags |= FI_BFD_SYM | (rg.start == first ? 0 : FI_BFD_ONCE);
	}
	fi_inline_release(&root);
	return d->err;
}

/* Namespaces, classes, CUs: find the functions in them. */
static void scan_scope(struct dws *d, Dwarf_Die *die, unsigned depth)
{
	Dwarf_Die c;
	int rc;

	if (depth > DWS_MAX_DEPTH || dwarf_haschildren(die) <= 0)
		return;
	for (rc = dwarf_child(die, &c); rc == 0 && !d->err; rc = dwarf_siblingof(&c, &c)) {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			if (has_code(&c))
				do_func(d, &c, depth + 1);
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_module:
		case DW_TAG_interface_type:
			scan_scope(d, &c, depth + 1);
			break;
		default:
			break;
		}
	}
}

static int add_row(struct dws *d, uint64_t addr, uint32_t file, uint32_t line, uint32_t column,
		   uint32_t discr)
{
	if (d->nr_rows == d->cap_rows && ZT_GROW(d->rows, d->cap_rows, d->nr_rows + 1))
		return d->err = -ENOMEM;
	d->rows[d->nr_rows++] = (struct row){ addr, file, line, column, discr };
	return 0;
}

/* One row of the CU (rows from first on are the CU's) into d->rows. */
static void cu_row(struct dws *d, const struct dwl_row *l, size_t first, struct row *tail)
{
	uint64_t a = l->addr;
	int32_t ln = (int32_t)l->line;
	uint32_t file;

	if (l->end) {
		/* rows at the end's own address cover nothing: before it
		 * here, or after it (libdw sorts an end of sequence before
		 * the rows at its address); the latter known by repeating
		 * the row before the end (a new sequence there does not) */
		while (d->nr_rows > first && d->rows[d->nr_rows - 1].addr == a &&
		       d->rows[d->nr_rows - 1].file != ROW_END)
			d->nr_rows--;
		if (d->nr_rows > first) {
			*tail = d->rows[d->nr_rows - 1];
			tail->addr = a;
		}
		add_row(d, a, ROW_END, 0, 0, 0);
		return;
	}
	if (ln < 0)
		ln = 0;
	file = map_file(d, l->file);
	if (a == tail->addr && tail->file != ROW_END && file == tail->file && (uint32_t)ln == tail->line)
		return;
	add_row(d, a, file, (uint32_t)ln, l->column, l->discr);
}

/* The CU's rows (d->unit, in the order of its runs) into d->rows. */
static void cu_lines(struct dws *d)
{
	size_t r, i, first = d->nr_rows;
	struct row tail = { UINT64_MAX, ROW_END, 0, 0, 0 };

	if (ZT_GROW(d->rows, d->cap_rows, d->nr_rows + d->unit.nr_rows)) {
		d->err = -ENOMEM;
		return;
	}
	for (r = 0; r < d->unit.nr_runs; r++)
		for (i = d->unit.runs[r].start; i < d->unit.runs[r].end && !d->err; i++)
			cu_row(d, &d->unit.rows[i], first, &tail);
}

/* The CU's line program through libdw, into d->unit and d->fpaths: for
 * what dwline.c leaves to it. Returns 0 (no rows when libdw has none) or
 * -ENOMEM. */
static int cu_lines_libdw(struct dws *d, Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	size_t n = 0, nf = 0, i;
	struct dwl_unit *u = &d->unit;

	u->nr_rows = 0;
	u->nr_runs = 0;
	if (dwarf_getsrclines(cu, &lines, &n))
		n = 0;
	if (dwarf_getsrcfiles(cu, &files, &nf) || !files)
		nf = 0;
	if (nf && ZT_GROW(d->lpaths, d->cap_lpaths, nf))
		return -ENOMEM;
	for (i = 0; i < nf; i++)
		d->lpaths[i] = dwarf_filesrc(files, i, NULL, NULL);
	d->fpaths = d->lpaths;
	d->nfiles = nf;
	if (n && ZT_GROW(u->rows, u->cap_rows, n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Files *lf;
		Dwarf_Addr a;
		bool end;
		int ln, col;
		unsigned int discr;
		size_t idx;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineendsequence(l, &end))
			continue;
		if (dwarf_lineno(l, &ln))
			ln = 0;
		if (dwarf_linecol(l, &col) || col < 0)
			col = 0;
		if (dwarf_linediscriminator(l, &discr))
			discr = 0;
		/* a file past the table: no file */
		if (dwarf_line_file(l, &lf, &idx) || lf != files)
			idx = SIZE_MAX;
		u->rows[u->nr_rows++] = (struct dwl_row){ a, idx > UINT32_MAX ? UINT32_MAX : (uint32_t)idx,
							  (uint32_t)ln, (uint32_t)col, discr & 0xffffff, end };
	}
	if (u->nr_rows) {
		if (ZT_GROW(u->runs, u->cap_runs, 1))
			return -ENOMEM;
		u->runs[0] = (struct dwl_run){ 0, u->nr_rows };
		u->nr_runs = 1;
	}
	return 0;
}

/* The CU's line program and file names into d->unit, d->fpaths, d->nfiles. */
static int cu_read_lines(struct dws *d, Dwarf_CU *cu, Dwarf_Die *cudie)
{
	Dwarf_Attribute a;
	Dwarf_Word off;
	uint8_t asz = 0;
	int err;

	d->fpaths = NULL;
	d->nfiles = 0;
	d->unit.nr_rows = 0;
	d->unit.nr_runs = 0;
	if (d->dl_ok && dwarf_attr(cudie, DW_AT_stmt_list, &a) && !dwarf_formudata(&a, &off) &&
	    !dwarf_cu_info(cu, NULL, NULL, NULL, NULL, NULL, &asz, NULL)) {
		err = dwl_read(&d->dl, off, asz,
			       dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a)), &d->unit);
		if (err == -ENOMEM)
			return err;
		if (!err) {
			d->fpaths = d->unit.paths;
			d->nfiles = d->unit.nr_paths;
			return 0;
		}
	}
	return cu_lines_libdw(d, cudie);
}

static int walk_dwarf(struct dws *d, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t unit_type;

	while (!d->err && dwarf_get_units(dw, cu, &cu, &version, &unit_type, &cudie, NULL) == 0) {
		int tag = dwarf_tag(&cudie);
		size_t nfiles = 0;
		Dwarf_Attribute a;

		if (unit_type == DW_UT_type || unit_type == DW_UT_split_type ||
		    (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit))
			continue;
		d->version = version;
		switch (dwarf_srclang(&cudie)) {
		case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
		case DW_LANG_Ada83: case DW_LANG_Ada95: case DW_LANG_Cobol74: case DW_LANG_Cobol85:
		case DW_LANG_Fortran77: case DW_LANG_Fortran90: case DW_LANG_Fortran95:
		case DW_LANG_Fortran03: case DW_LANG_Fortran08: case DW_LANG_Pascal83:
		case DW_LANG_Modula2: case DW_LANG_Mips_Assembler:
			d->mangled = 0;
			break;
		default:
			d->mangled = 1;
		}
		d->comp_dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &a));
		if (d->comp_dir && !*d->comp_dir)
			d->comp_dir = NULL;
		if (cu_read_lines(d, cu, &cudie))
			return d->err = -ENOMEM;
		nfiles = d->nfiles;
		if (nfiles) {
			if (ZT_GROW(d->filemap, d->cap_filemap, nfiles))
				return d->err = -ENOMEM;
			memset(d->filemap, 0, nfiles * sizeof(*d->filemap));
		}
		/* a partial unit (dwz) shares its CU's line program: its rows
		 * would come twice */
		if (tag == DW_TAG_compile_unit)
			cu_lines(d);
		scan_scope(d, &cudie, 0);
	}
	return d->err;
}

/* ---- line rows to functions ---------------------------------------------- */

static int row_before(const struct row *a, const struct row *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	/* an end of sequence precedes a row at the same address, as in libdw */
	return a->file == ROW_END && b->file != ROW_END;
}

ZT_DEFINE_MERGE_SORT(merge_rows, struct row, row_before)

/* A stable sort: each CU's rows come sorted already, and rows at one
 * address keep their order (the last one wins). */
static int sort_rows(struct dws *d)
{
	struct row *tmp, *sorted;
	size_t n = d->nr_rows, i;

	for (i = 1; i < n && !row_before(&d->rows[i], &d->rows[i - 1]); i++)
		;
	if (i >= n)
		return 0;
	tmp = NULL;
	i = 0;
	if (ZT_GROW(tmp, i, n)) /* zt_grow: on huge pages when that large */
		return -ENOMEM;
	sorted = merge_rows(d->rows, tmp, n);
	if (sorted != d->rows) {
		free(d->rows);
		d->rows = sorted;
		d->cap_rows = i;
	} else {
		free(tmp);
	}
	return 0;
}

/* Give every function the rows that cover it; rows repeating the row before
 * them are left out. */
static int distribute(struct dws *d)
{
	const struct row *rows = d->rows;
	size_t i, n = d->nr_rows;

	for (i = 0; i < d->t->nr_funcs; i++) {
		struct fi_func *f = &d->t->funcs[i];
		uint64_t end = f->start + f->size;
		size_t lo = 0, hi = n, k;

		if (!f->size || end < f->start)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (rows[mid].addr <= f->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo ? lo - 1 : 0; k < n && rows[k].addr < end; k++)
			;
		/* room for them all at once, not by doubling (copies, and fresh
		 * pages for each copy) */
		if (k > (lo ? lo - 1 : 0) &&
		    ZT_GROW(f->lines, f->cap_lines, (size_t)f->nr_lines + k - (lo ? lo - 1 : 0)))
			return -ENOMEM;
		for (k = lo ? lo - 1 : 0; k < n && rows[k].addr < end; k++) {
			const struct row *r = &rows[k];
			uint64_t a = r->addr > f->start ? r->addr : f->start;
			uint32_t file = r->file == ROW_END ? 0 : r->file;
			struct fi_line *last = f->nr_lines ? &f->lines[f->nr_lines - 1] : NULL;

			/* a row covers up to the end of its sequence: from there on
			 * (and before the first row of another), file 0, no line */
			if (r->file == ROW_END && !last)
				continue;
			if (last && last->file == file && last->line == r->line &&
			    last->column == r->column && last->discr == r->discr)
				continue;
			if (fi_add_line(f, a, file, file ? r->line : 0))
				return -ENOMEM;
			f->lines[f->nr_lines - 1].column = file ? r->column : 0;
			f->lines[f->nr_lines - 1].discr = file ? r->discr : 0;
		}
	}
	return 0;
}

/* ---- what addr2line and llvm-symbolizer name ------------------------------ */

/* The symbols of symscn as BFD's elf_find_function (FUNC, IFUNC and NOTYPE
 * ones, any size) and LLVM's SymbolizableObjectFile (FUNC, IFUNC, OBJECT)
 * take them, with the executable sections by index. */
static int read_rsyms(struct dws *d, Elf *elf, Elf_Scn *symscn)
{
	Elf_Data *data;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t nsyms, i, strsz, nscn = 0;
	const char *file = NULL, *strs;

	if (elf_getshdrnum(elf, &nscn) || !nscn)
		return 0;
	if (!(d->secs = calloc(nscn, sizeof(*d->secs))))
		return -ENOMEM;
	d->nr_secs = nscn;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && (sh.sh_flags & SHF_ALLOC) &&
		    elf_ndxscn(scn) < nscn && sh.sh_addr + sh.sh_size >= sh.sh_addr)
			d->secs[elf_ndxscn(scn)] = (struct fi_range){ sh.sh_addr, sh.sh_addr + sh.sh_size };
	if (sym_table(elf, symscn, &data, &strs, &strsz, &nsyms) || strs[strsz - 1])
		return 0;
	if (!nsyms || !(d->rsyms = calloc(nsyms, sizeof(*d->rsyms))))
		return nsyms ? -ENOMEM : 0;
	for (i = 1; i < nsyms; i++) {
		GElf_Sym y;
		int type;
		struct rsym *r;

		if (gelf_getsym(data, (int)i, &y) && GELF_ST_TYPE(y.st_info) == STT_FILE)
			file = y.st_name && y.st_name < strsz ? strs + y.st_name : NULL;
		if (!gelf_getsym(data, (int)i, &y) || !y.st_name || y.st_name >= strsz ||
		    y.st_shndx == SHN_UNDEF || y.st_shndx >= nscn || !d->secs[y.st_shndx].end)
			continue;
		type = GELF_ST_TYPE(y.st_info);
		r = &d->rsyms[d->nr_rsyms];
		*r = (struct rsym){ y.st_value, y.st_size, strs + y.st_name,
				    GELF_ST_BIND(y.st_info) == STB_LOCAL && file && *file ? file : NULL,
				    y.st_shndx, (uint32_t)i,
				    type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE,
				    type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT };
		if (!*r->name || (!r->gnu && !r->llvm))
			continue;
		d->nr_rsyms++;
	}
	return 0;
}

static int rsym_cmp(const void *pa, const void *pb)
{
	const struct rsym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The executable section holding addr (index), 0 when none. */
static uint32_t sec_of(const struct dws *d, uint64_t addr)
{
	size_t i;

	for (i = 1; i < d->nr_secs; i++)
		if (addr >= d->secs[i].start && addr < d->secs[i].end)
			return (uint32_t)i;
	return 0;
}

/* Entries (FI_GAP) for the code of the executable sections that no
 * function covers: padding, crt code without symbols. They carry the line
 * rows there and the names the other tools give. */
static int add_gaps(struct dws *d)
{
	struct fi_table *t = d->t;
	size_t i, nf = t->nr_funcs, k = 0;
	uint32_t name;

	if (!d->nr_text)
		return 0;
	if ((name = fi_str(t, "??")) == UINT32_MAX)
		return -ENOMEM;
	for (i = 0; i < d->nr_text; i++) {
		uint64_t at = d->text[i].start, end = d->text[i].end;

		while (at < end) {
			uint64_t next = end;
			struct fi_func *f;

			while (k < nf && t->funcs[k].start + t->funcs[k].size <= at &&
			       t->funcs[k].start <= at)
				k++;
			if (k < nf && t->funcs[k].start <= at) {
				/* covered: on to the end of the functions from here */
				uint64_t e = at;
				size_t j;

				for (j = k; j < nf && t->funcs[j].start <= e; j++)
					if (t->funcs[j].start + t->funcs[j].size > e)
						e = t->funcs[j].start + t->funcs[j].size;
				at = e;
				continue;
			}
			if (k < nf && t->funcs[k].start < end)
				next = t->funcs[k].start;
			if (!(f = fi_add_func(t, at, next - at, name)))
				return -ENOMEM;
			f->flags = FI_GAP;
			at = next;
		}
	}
	return 0;
}

/* gname and lname of every function (see struct fi_func). */
static int name_funcs(struct dws *d)
{
	struct fi_table *t = d->t;
	size_t i, n = d->nr_rsyms;

	if (n > 1)
		qsort(d->rsyms, n, sizeof(*d->rsyms), rsym_cmp);
	for (i = 0; i < t->nr_funcs; i++) {
		struct fi_func *f = &t->funcs[i];
		size_t hi = ZT_UPPER_BOUND(d->rsyms, n, addr, f->start), j;
		uint32_t sec = 0;
		const char *g = NULL, *gf = NULL;

		/* LLVM: of the symbols at one address the last in (size, order) */
		for (j = hi; j-- > 0;) {
			const struct rsym *y = &d->rsyms[j];

			if (!y->llvm)
				continue;
			if ((!y->size || f->start - y->addr < y->size) &&
			    ((f->lname = fi_str(t, y->name)) == UINT32_MAX ||
			     (y->file && (f->lfile = fi_str(t, y->file)) == UINT32_MAX)))
				return -ENOMEM;
			break;
		}
		if (f->dname && !(f->flags & FI_BFD_SYM))
			continue;
		/* BFD: the nearest before, in the same section, the first of
		 * several at one address */
		for (j = hi; j-- > 0;) {
			const struct rsym *y = &d->rsyms[j];

			if (!y->gnu)
				continue;
			if (!sec)
				sec = sec_of(d, f->start);
			if (y->shndx != sec)
				continue;
			if (g && y->addr != d->rsyms[j + 1].addr)
				break;
			g = y->name;
			gf = y->file;
		}
		if (f->dname) {
			/* BFD names a function without a linkage name by the
			 * symbol it finds when that starts where the function does */
			f->flags &= ~FI_BFD_SYM;
			if (!g) {
				f->flags &= ~FI_BFD_ONCE;
				continue;
			}
			if (!(f->flags & FI_BFD_ONCE) && d->rsyms[hi - 1].addr == f->start) {
				for (j = hi; j-- > 0 && d->rsyms[j].addr == f->start;)
					if (d->rsyms[j].gnu && d->rsyms[j].shndx == sec)
						g = d->rsyms[j].name;
				f->flags |= FI_BFD_RENAME;
			} else {
				f->flags |= FI_BFD_ONCE;
			}
			if ((f->gname = fi_str(t, g)) == UINT32_MAX)
				return -ENOMEM;
			continue;
		}
		if (g && (f->gname = fi_str(t, g)) == UINT32_MAX)
			return -ENOMEM;
		if (gf && (f->gfile = fi_str(t, gf)) == UINT32_MAX)
			return -ENOMEM;
	}
	return 0;
}

/* ---- entry points ---------------------------------------------------------- */

static int elf_usable(Elf *elf)
{
	GElf_Ehdr eh;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return 0;
	return eh.e_type == ET_EXEC || eh.e_type == ET_DYN;
}

static void copy_build_id(struct fi_table *t, Elf *elf)
{
	const void *id;
	ssize_t n;

	if (!elf || t->uuid_len)
		return;
	n = dwelf_elf_gnu_build_id(elf, &id);
	if (n <= 0)
		return;
	if (n > ZT_BUILD_ID_MAX)
		n = ZT_BUILD_ID_MAX;
	memcpy(t->uuid, id, (size_t)n);
	t->uuid_len = (uint8_t)n;
}

static int extract_elf(Elf *symelf, Elf *dwelf, int merge_dynsym, struct fi_table *t,
		       int *has_dwarf)
{
	struct dws d;
	Elf_Scn *symscn;
	Elf *symsrc;
	Dwarf *dw = NULL;
	size_t cap_syms = 0;
	int ret;

	if (has_dwarf)
		*has_dwarf = 0;
	pthread_once(&elf_once, elf_init_once);
	if (!elf_ok)
		return -ENOEXEC;
	if (!symelf)
		symelf = dwelf;
	if (!elf_usable(symelf) || (dwelf && !elf_usable(dwelf)))
		return -ENOEXEC;
	memset(&d, 0, sizeof(d));
	pltsyms_init(&d.plt);
	d.t = t;
	copy_build_id(t, symelf);
	copy_build_id(t, dwelf);

	/* perf's tables: the first file with a .symtab (symelf, else the debug
	 * file) with that file's own .dynsym (a debug file's is NOBITS), else
	 * symelf's .dynsym; MiniDebugInfo's .symtab leaves the .dynsym names
	 * out, so there symelf's .dynsym is added too */
	symsrc = symelf;
	if (!(symscn = find_scn(symelf, SHT_SYMTAB)) && dwelf && dwelf != symelf &&
	    (symscn = find_scn(dwelf, SHT_SYMTAB)))
		symsrc = dwelf;
	if (symscn && (ret = read_syms(&d, symsrc, symscn, TAB_SYMTAB, &cap_syms)))
		goto out;
	if ((ret = read_rsyms(&d, symsrc, symscn ? symscn : find_scn(symelf, SHT_DYNSYM))))
		goto out;
	if ((symscn = find_scn(symsrc, SHT_DYNSYM)) &&
	    (ret = read_syms(&d, symsrc, symscn, TAB_DYNSYM, &cap_syms)))
		goto out;
	if (symsrc != symelf && merge_dynsym && (symscn = find_scn(symelf, SHT_DYNSYM)) &&
	    (ret = read_syms(&d, symelf, symscn, TAB_DYNSYM, &cap_syms)))
		goto out;
	/* perf 6.1 makes PLT symbols only when it loaded some (dso__load) */
	if (d.perf_loaded && (ret = read_plt(&d, symelf, &cap_syms)))
		goto out;
	finish_syms(&d);
	if ((ret = add_syms(&d)))
		goto out;
	if ((ret = read_text(&d, symelf)))
		goto out;
	if (!d.nr_text && dwelf != symelf && (ret = read_text(&d, dwelf)))
		goto out;

	if (dwelf && (dw = dwarf_begin_elf(dwelf, DWARF_C_READ, NULL))) {
		d.dl_ok = !dwl_sections_init(&d.dl, dwelf);
		if ((ret = walk_dwarf(&d, dw)))
			goto out;
	}
	if ((ret = fi_finish(t)) || (ret = add_gaps(&d)) || (ret = fi_finish(t)))
		goto out;
	if (d.nr_rows) {
		if (has_dwarf)
			*has_dwarf = 1;
		if ((ret = sort_rows(&d)) || (ret = distribute(&d)) || (ret = fi_finish(t)))
			goto out;
	}
	ret = name_funcs(&d);
out:
	if (dw)
		dwarf_end(dw);
	for (size_t i = 0; i < d.nr_paths; i++)
		free(d.paths[i].path);
	free(d.paths);
	zt_htab_release(&d.paths_hash);
	umap_release(&d.names);
	free(d.syms);
	free(d.text);
	free(d.rows);
	free(d.filemap);
	dwl_unit_release(&d.unit);
	free(d.lpaths);
	free(d.scr);
	pltsyms_release(&d.plt);
	free(d.rsyms);
	free(d.secs);
	return ret;
}

int dwarfsyms_extract_elf(Elf *symelf, Elf *dwelf, struct fi_table *t, int *has_dwarf)
{
	return extract_elf(symelf, dwelf, 0, t, has_dwarf);
}

int dwarfsyms_extract_minidebuginfo(Elf *elf, Elf *mini, struct fi_table *t, int *has_dwarf)
{
	return extract_elf(elf, mini, 1, t, has_dwarf);
}

static int open_elf(const char *path, int *fd, Elf **elf)
{
	*elf = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF)
		return -ENOEXEC;
	return 0;
}

int dwarfsyms_extract(const char *elf_path, const char *debug_path, struct fi_table *t,
		      int *has_dwarf)
{
	int fd = -1, dfd = -1, ret;
	Elf *elf = NULL, *delf = NULL;

	if (has_dwarf)
		*has_dwarf = 0;
	pthread_once(&elf_once, elf_init_once);
	if (!elf_ok)
		return -ENOEXEC;
	if ((ret = open_elf(elf_path, &fd, &elf)))
		goto out;
	if (debug_path && strcmp(debug_path, elf_path)) {
		if ((ret = open_elf(debug_path, &dfd, &delf)))
			goto out;
	} else if (debug_path) {
		delf = elf;
	}
	ret = dwarfsyms_extract_elf(elf, delf, t, has_dwarf);
out:
	if (delf && delf != elf)
		elf_end(delf);
	if (elf)
		elf_end(elf);
	if (dfd >= 0)
		close(dfd);
	if (fd >= 0)
		close(fd);
	return ret;
}
