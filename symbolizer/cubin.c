// SPDX-License-Identifier: GPL-2.0-or-later
/* Cubins (EM_CUDA ELF files): device functions from the symbol table, source
 * lines and inline frames from NVIDIA's .debug_line, decoded once at open
 * into sorted arrays that cubin_save() writes out as they are. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/leb128.h"
#include "symbolizer/cubin.h"

#define NONE UINT32_MAX

/*
 * The decoded state: arrays of uint32_t fields only, so that the saved
 * image is these arrays one after the other (cubin_save()).
 */
struct cfunc {
	uint32_t name;	/* symbol name (string offset) */
	uint32_t shown; /* the frame's name: name without a "$<kernel>$" prefix */
	uint32_t sec;	/* index into secs */
	uint32_t value, size;
	uint32_t kernel;
};

struct csec {
	uint32_t size;
	uint32_t func_first, func_n; /* funcs of this section, by value, then size descending */
	uint32_t row_first, row_n;   /* rows of this section, by address (one per address) */
};

struct crow {
	uint32_t addr;
	uint32_t file; /* index into files, NONE: no position (end of a sequence) */
	uint32_t line;
	uint32_t inl; /* 1 + index into inls of the innermost inline context, 0: none */
};

/* An inlined call: the inlined function and where it was called from. */
struct cinl {
	uint32_t name;	     /* string offset, NONE when unknown */
	uint32_t file, line; /* the call site (file NONE: unknown) */
	uint32_t parent;     /* 1 + index (< this one's) of the context holding the call site */
};

struct cfile {
	uint32_t dir, name; /* string offsets (dir NONE: none) */
};

struct cubin {
	struct cfunc *funcs;
	struct csec *secs;
	struct crow *rows;
	struct cinl *inls;
	struct cfile *files;
	uint32_t *byname; /* func indexes by name (globals first on ties) */
	char *strs;	  /* NUL-terminated strings; strs[nr_strs - 1] == 0 */
	uint32_t nr_funcs, nr_secs, nr_rows, nr_inls, nr_files, nr_strs;
	uint32_t has_lines;
};

int cubin_is_cubin(const void *data, size_t len)
{
	const unsigned char *p = data;

	return len >= 64 && !memcmp(p, ELFMAG, SELFMAG) && p[EI_CLASS] == ELFCLASS64 &&
	       p[EI_DATA] == ELFDATA2LSB && p[18] == (CUBIN_EM_CUDA & 0xff) &&
	       p[19] == (CUBIN_EM_CUDA >> 8);
}

/* ---- growable arrays and the string blob ---- */

/* Room for one more element in *p (*cap elements of sz bytes): zt_grow with
 * the counts kept 32-bit. 0 or -ENOMEM. */
static int grow(void *pp, size_t *cap, uint32_t n, size_t sz)
{
	return n >= UINT32_MAX / 2 ? -ENOMEM : zt_grow(pp, cap, (size_t)n + 1, sz);
}

struct builder {
	struct cubin *c;
	size_t cap_funcs, cap_inls, cap_files, cap_strs, cap_srows;
	struct srow *srows; /* rows of every sequence, before the sort */
	uint32_t nr_srows;
	uint32_t debug_str;	/* offset of .debug_str's copy in strs, NONE when absent */
	uint32_t debug_str_len; /* its length (without the NUL added) */
	Elf *e;
	size_t shnum;
	int *sec_of_shndx; /* ELF section -> index into secs, -1 */
};

/* A row of a sequence: its section, and the order it came in. */
struct srow {
	uint32_t sec, addr, end, order;
	uint32_t file, line, inl;
};

static uint32_t add_strn(struct builder *b, const char *s, size_t n)
{
	struct cubin *c = b->c;
	uint32_t off = c->nr_strs;

	if (n >= UINT32_MAX / 4 || (size_t)c->nr_strs + n + 1 >= UINT32_MAX / 2)
		return NONE;
	if (ZT_GROW(c->strs, b->cap_strs, (size_t)c->nr_strs + n + 1))
		return NONE;
	memcpy(c->strs + off, s, n);
	c->strs[off + n] = 0;
	c->nr_strs += (uint32_t)n + 1;
	return off;
}

static uint32_t add_str(struct builder *b, const char *s)
{
	return add_strn(b, s, strlen(s));
}

/* ---- symbols ---- */

static int func_cmp(const void *a, const void *b)
{
	const struct cfunc *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return 0;
}

static int byname_cmp_c(const struct cubin *c, uint32_t a, uint32_t b)
{
	const struct cfunc *x = &c->funcs[a], *y = &c->funcs[b];
	int r = strcmp(c->strs + x->name, c->strs + y->name);

	if (r)
		return r;
	/* kernels first, then by section */
	if (x->kernel != y->kernel)
		return x->kernel ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int byname_cmp(const void *a, const void *b, void *c)
{
	return byname_cmp_c(c, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* The FUNC symbols, each with the section that holds it. */
static int read_funcs(struct builder *b)
{
	struct cubin *c = b->c;
	Elf_Scn *scn = NULL;
	size_t cap_secs = 0;
	uint32_t i;

	while ((scn = elf_nextscn(b->e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k, cnt;

		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		if (sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -EINVAL;
		cnt = d->d_size / sh.sh_entsize;
		for (k = 1; k < cnt && k < INT32_MAX; k++) {
			GElf_Sym s;
			GElf_Shdr ts;
			Elf_Scn *tscn;
			const char *nm, *shown;
			struct cfunc *f;
			int sec;

			if (!gelf_getsym(d, (int)k, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || s.st_shndx >= b->shnum)
				continue;
			nm = elf_strptr(b->e, sh.sh_link, s.st_name);
			tscn = elf_getscn(b->e, s.st_shndx);
			if (!nm || !*nm || !tscn || !gelf_getshdr(tscn, &ts) ||
			    ts.sh_size >= UINT32_MAX || s.st_value >= ts.sh_size ||
			    s.st_size > ts.sh_size - s.st_value)
				continue;
			sec = b->sec_of_shndx[s.st_shndx];
			if (sec < 0) {
				if (grow(&c->secs, &cap_secs, c->nr_secs, sizeof(*c->secs)))
					return -ENOMEM;
				sec = (int)c->nr_secs++;
				c->secs[sec] = (struct csec){.size = (uint32_t)ts.sh_size};
				b->sec_of_shndx[s.st_shndx] = sec;
			}
			if (grow(&c->funcs, &b->cap_funcs, c->nr_funcs, sizeof(*c->funcs)))
				return -ENOMEM;
			f = &c->funcs[c->nr_funcs];
			*f = (struct cfunc){
				.sec = (uint32_t)sec,
				.value = (uint32_t)s.st_value,
				.size = (uint32_t)(s.st_size ? s.st_size : ts.sh_size - s.st_value),
				.kernel = (s.st_other & 0x10) != 0};
			/* a whole-program cubin's __noinline__ callee: "$<kernel>$<callee>" */
			shown = nm;
			if (nm[0] == '$' && (shown = strchr(nm + 1, '$')) && shown[1])
				shown++;
			else
				shown = nm;
			f->name = add_str(b, nm);
			f->shown = shown == nm ? f->name : add_str(b, shown);
			if (f->name == NONE || f->shown == NONE)
				return -ENOMEM;
			c->nr_funcs++;
		}
		break; /* one symbol table */
	}
	if (c->nr_funcs)
		qsort(c->funcs, c->nr_funcs, sizeof(*c->funcs), func_cmp);
	for (i = 0; i < c->nr_funcs; i++) {
		struct csec *s = &c->secs[c->funcs[i].sec];

		if (!s->func_n)
			s->func_first = i;
		s->func_n++;
	}
	c->byname = calloc(c->nr_funcs ? c->nr_funcs : 1, sizeof(*c->byname));
	if (!c->byname)
		return -ENOMEM;
	for (i = 0; i < c->nr_funcs; i++)
		c->byname[i] = i;
	qsort_r(c->byname, c->nr_funcs, sizeof(*c->byname), byname_cmp, c);
	return 0;
}

/* ---- the line table ---- */

struct rd {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t rd_u(struct rd *r, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

/* LEB128 numbers (libprof/leb128.h): only a cut-off number makes r bad;
 * bits past 64 are dropped, as NVIDIA's tools do. */
static uint64_t rd_uleb(struct rd *r)
{
	int bad = 0;
	uint64_t v;

	if (r->bad)
		return 0;
	v = zt_uleb(&r->p, r->end, &bad);
	if (bad == 1)
		r->bad = 1;
	return v;
}

static int64_t rd_sleb(struct rd *r)
{
	int bad = 0;
	int64_t v;

	if (r->bad)
		return 0;
	v = zt_sleb(&r->p, r->end, &bad);
	if (bad == 1)
		r->bad = 1;
	return v;
}

/* A NUL-terminated string in the bytes left; NULL when there is none. */
static const char *rd_str(struct rd *r)
{
	const uint8_t *z;
	const char *s = (const char *)r->p;

	if (r->bad || !(z = memchr(r->p, 0, (size_t)(r->end - r->p)))) {
		r->bad = 1;
		r->p = r->end;
		return NULL;
	}
	r->p = z + 1;
	return s;
}

/* The relocations of .debug_line: r_offset -> (ELF section, base address). */
struct dl_reloc {
	uint64_t off;
	uint32_t shndx;
	uint64_t base;
	int rela;
};

static int reloc_cmp(const void *a, const void *b)
{
	const struct dl_reloc *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static int read_relocs(struct builder *b, size_t line_ndx, struct dl_reloc **out, size_t *nr)
{
	Elf_Scn *scn = NULL;
	struct dl_reloc *v = NULL;
	size_t n = 0, cap = 0;

	while ((scn = elf_nextscn(b->e, scn))) {
		GElf_Shdr sh, ssh;
		Elf_Scn *symscn;
		Elf_Data *d, *sd;
		size_t k, cnt;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_REL && sh.sh_type != SHT_RELA) ||
		    sh.sh_info != line_ndx || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(b->e, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &ssh) || ssh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		sd = elf_getdata(symscn, NULL);
		if (!d || !d->d_buf || !sd || !sd->d_buf)
			continue;
		cnt = d->d_size / sh.sh_entsize;
		for (k = 0; k < cnt && k < INT32_MAX; k++) {
			GElf_Rela ra;
			GElf_Rel rl;
			GElf_Sym s;
			uint64_t info, off;
			int64_t add = 0;

			if (sh.sh_type == SHT_RELA) {
				if (!gelf_getrela(d, (int)k, &ra))
					continue;
				info = ra.r_info;
				off = ra.r_offset;
				add = ra.r_addend;
			} else {
				if (!gelf_getrel(d, (int)k, &rl))
					continue;
				info = rl.r_info;
				off = rl.r_offset;
			}
			if (GELF_R_SYM(info) > INT32_MAX ||
			    !gelf_getsym(sd, (int)GELF_R_SYM(info), &s) ||
			    s.st_shndx == SHN_UNDEF || s.st_shndx >= b->shnum)
				continue;
			if (ZT_GROW(v, cap, n + 1)) {
				free(v);
				return -ENOMEM;
			}
			v[n++] = (struct dl_reloc){.off = off,
						   .shndx = s.st_shndx,
						   .base = s.st_value + (uint64_t)add,
						   .rela = sh.sh_type == SHT_RELA};
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), reloc_cmp);
	*out = v;
	*nr = n;
	return 0;
}

static const struct dl_reloc *find_reloc(const struct dl_reloc *v, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].off == off ? &v[lo] : NULL;
}

/* A row of the sequence being decoded, as the inline contexts count them. */
struct trow {
	uint32_t file, line, inl;
};

struct seq {
	struct trow *calls; /* the counted rows, calls[k - 1] for context k */
	uint32_t nr_calls;
	size_t cap_calls;
	int has_prev;
	uint64_t prev_addr;
	uint32_t prev_line;
	/* the inline context (opcode 0x90) and its record */
	uint64_t ctx, name_off;
	uint32_t ctx_inl;
};

struct unit {
	const uint8_t *sec;	       /* .debug_line */
	uint32_t file_first, nr_files; /* files[file_first .. + nr_files): files 1.. */
	uint32_t str_base;
	uint64_t max_name_end; /* end of the highest string named, relative to .debug_str */
};

/* The inline record of context (ctx, name) of the sequence; 0 when none. */
static int seq_inl(struct builder *b, struct unit *u, struct seq *q, uint32_t *out)
{
	struct cubin *c = b->c;
	const struct trow *call;
	struct cinl *n;
	uint64_t off;

	*out = 0;
	if (!q->ctx || q->ctx > q->nr_calls)
		return 0;
	call = &q->calls[q->ctx - 1];
	if (grow(&c->inls, &b->cap_inls, c->nr_inls, sizeof(*c->inls)))
		return -ENOMEM;
	n = &c->inls[c->nr_inls];
	*n = (struct cinl){
		.name = NONE, .file = call->file, .line = call->line, .parent = call->inl};
	off = (uint64_t)u->str_base + q->name_off;
	if (b->debug_str != NONE && off < b->debug_str_len) {
		const char *s = c->strs + b->debug_str + off;
		uint64_t end = off + strlen(s) + 1;

		n->name = b->debug_str + (uint32_t)off;
		if (end > u->max_name_end)
			u->max_name_end = end;
	}
	*out = ++c->nr_inls;
	return 0;
}

static int emit_row(struct builder *b, struct unit *u, struct seq *q, uint32_t sec, uint64_t addr,
		    uint32_t file, uint32_t line, int end)
{
	struct srow *r;
	uint32_t inl = 0;
	int ret;

	if (addr > UINT32_MAX)
		return 0; /* past any section of ours */
	if (!end) {
		if (q->ctx && !q->ctx_inl && (ret = seq_inl(b, u, q, &q->ctx_inl)))
			return ret;
		inl = q->ctx ? q->ctx_inl : 0;
		/* the inline contexts count rows, except one repeating the last row's
		 * address and line (at the entry of a __noinline__ callee) */
		if (!(q->has_prev && q->prev_addr == addr && q->prev_line == line)) {
			if (grow(&q->calls, &q->cap_calls, q->nr_calls, sizeof(*q->calls)))
				return -ENOMEM;
			q->calls[q->nr_calls++] = (struct trow){file, line, inl};
		}
		q->has_prev = 1;
		q->prev_addr = addr;
		q->prev_line = line;
	}
	if (grow(&b->srows, &b->cap_srows, b->nr_srows, sizeof(*b->srows)))
		return -ENOMEM;
	r = &b->srows[b->nr_srows];
	*r = (struct srow){.sec = sec,
			   .addr = (uint32_t)addr,
			   .end = (uint32_t) !!end,
			   .order = b->nr_srows,
			   .file = end ? NONE : file,
			   .line = end ? 0 : line,
			   .inl = inl};
	b->nr_srows++;
	return 0;
}

/* The file index of the unit's file number n (1-based), NONE when out of range. */
static uint32_t unit_file(const struct unit *u, uint64_t n)
{
	return n >= 1 && n <= u->nr_files ? u->file_first + (uint32_t)(n - 1) : NONE;
}

static int add_file(struct builder *b, struct unit *u, const char *name, uint64_t dir,
		    const char **dirs, uint32_t nr_dirs)
{
	struct cubin *c = b->c;
	struct cfile *f;

	if (grow(&c->files, &b->cap_files, c->nr_files, sizeof(*c->files)))
		return -ENOMEM;
	f = &c->files[c->nr_files];
	f->dir = NONE;
	if (dir >= 1 && dir <= nr_dirs && (f->dir = add_str(b, dirs[dir - 1])) == NONE)
		return -ENOMEM;
	if ((f->name = add_str(b, name)) == NONE)
		return -ENOMEM;
	c->nr_files++;
	u->nr_files++;
	return 0;
}

/*
 * One unit's line program at r (the unit's header just read up to its
 * program): rows of sequences whose DW_LNE_set_address has a relocation
 * go to srows, in the section of the relocation's symbol.
 */
static int run_program(struct builder *b, struct unit *u, struct rd *r, uint8_t min_inst,
		       int8_t line_base, uint8_t line_range, uint8_t opcode_base,
		       const uint8_t *std_lens, const struct dl_reloc *rel, size_t nr_rel,
		       const char **dirs, uint32_t nr_dirs)
{
	struct seq q = {0};
	uint64_t addr = 0, file = 1, line = 1;
	int sec = -1, ret = 0;

	while (!r->bad && r->p < r->end) {
		uint8_t op = *r->p++;

		if (op >= opcode_base) {
			uint8_t adj = (uint8_t)(op - opcode_base);

			addr += (uint64_t)(adj / line_range) * min_inst;
			line += (uint64_t)(int64_t)(line_base + adj % line_range);
			if (sec >= 0 && (ret = emit_row(b, u, &q, (uint32_t)sec, addr,
							unit_file(u, file), (uint32_t)line, 0)))
				break;
			continue;
		}
		switch (op) {
		case 0: { /* extended */
			uint64_t len = rd_uleb(r);
			const uint8_t *next;
			uint8_t eop;

			if (r->bad || len > (uint64_t)(r->end - r->p)) {
				r->bad = 1;
				break;
			}
			if (!len)
				break;
			next = r->p + len;
			eop = *r->p++;
			if (eop == 1) { /* DW_LNE_end_sequence */
				if (sec >= 0 &&
				    (ret = emit_row(b, u, &q, (uint32_t)sec, addr, NONE, 0, 1)))
					goto out;
				addr = 0;
				file = 1;
				line = 1;
				sec = -1;
				q.nr_calls = 0;
				q.has_prev = 0;
				q.ctx = q.name_off = 0;
				q.ctx_inl = 0;
			} else if (eop == 2 && len != 9) {
				sec = -1;      /* not a 64-bit address: not ours */
			} else if (eop == 2) { /* DW_LNE_set_address */
				uint64_t opnd_off = (uint64_t)(r->p - u->sec);
				uint64_t v = rd_u(r, 8);
				const struct dl_reloc *x = find_reloc(rel, nr_rel, opnd_off);

				/* only the relocation names the function: none, an orphan */
				sec = -1;
				if (x && b->sec_of_shndx[x->shndx] >= 0) {
					sec = b->sec_of_shndx[x->shndx];
					addr = x->base + (x->rela ? 0 : v);
				}
			} else if (eop == 3) { /* DW_LNE_define_file */
				struct rd fr = {r->p, next, 0};
				const char *nm = rd_str(&fr);
				uint64_t d = rd_uleb(&fr);

				if (nm && !fr.bad && (ret = add_file(b, u, nm, d, dirs, nr_dirs)))
					goto out;
			} else if (eop == 0x90) { /* NVIDIA: the inline context */
				struct rd ir = {r->p, next, 0};
				uint64_t ctx = rd_uleb(&ir), name = rd_uleb(&ir);

				if (!ir.bad && (ctx != q.ctx || name != q.name_off)) {
					q.ctx = ctx;
					q.name_off = name;
					q.ctx_inl = 0;
				}
			}
			r->p = next;
			break;
		}
		case 1: /* DW_LNS_copy */
			if (sec >= 0 && (ret = emit_row(b, u, &q, (uint32_t)sec, addr,
							unit_file(u, file), (uint32_t)line, 0)))
				goto out;
			break;
		case 2:
			addr += rd_uleb(r) * min_inst;
			break;
		case 3:
			line += (uint64_t)rd_sleb(r);
			break;
		case 4:
			file = rd_uleb(r);
			break;
		case 8:
			addr += (uint64_t)((255 - opcode_base) / line_range) * min_inst;
			break;
		case 9:
			addr += rd_u(r, 2);
			break;
		default: /* the others: their operands skipped by count */
			if (op < opcode_base && op >= 1)
				for (unsigned k = 0; k < std_lens[op - 1] && !r->bad; k++)
					rd_uleb(r);
			break;
		}
	}
out:
	free(q.calls);
	return ret;
}

static int read_lines(struct builder *b, Elf_Scn *lscn, size_t line_ndx)
{
	Elf_Data *d = elf_getdata(lscn, NULL);
	struct dl_reloc *rel = NULL;
	size_t nr_rel = 0;
	struct rd all;
	uint64_t prev_end = 0;
	unsigned nunit = 0;
	int ret;

	if (!d || !d->d_buf || !d->d_size)
		return 0;
	if ((ret = read_relocs(b, line_ndx, &rel, &nr_rel)))
		return ret;
	all = (struct rd){d->d_buf, (const uint8_t *)d->d_buf + d->d_size, 0};
	while (!all.bad && all.p < all.end) {
		const uint8_t *uend, *prog;
		uint64_t ulen = rd_u(&all, 4), hlen;
		struct unit u = {.sec = d->d_buf, .file_first = b->c->nr_files};
		const char *dirs[256];
		uint32_t nr_dirs = 0;
		unsigned off_size = 4;
		uint16_t ver;
		uint8_t min_inst, line_range, opcode_base;
		int8_t line_base;
		const uint8_t *std_lens;
		struct rd r;

		if (ulen == 0xffffffff) {
			ulen = rd_u(&all, 8);
			off_size = 8;
		}
		if (all.bad || ulen > (uint64_t)(all.end - all.p))
			break;
		uend = all.p + ulen;
		r = (struct rd){all.p, uend, 0};
		all.p = uend;
		ver = (uint16_t)rd_u(&r, 2);
		hlen = rd_u(&r, off_size);
		if (r.bad || ver < 2 || ver > 4 || hlen > (uint64_t)(uend - r.p))
			continue;
		prog = r.p + hlen;
		r.end = prog;
		min_inst = (uint8_t)rd_u(&r, 1);
		if (ver >= 4)
			rd_u(&r, 1); /* maximum_operations_per_instruction */
		rd_u(&r, 1);	     /* default_is_stmt */
		line_base = (int8_t)rd_u(&r, 1);
		line_range = (uint8_t)rd_u(&r, 1);
		opcode_base = (uint8_t)rd_u(&r, 1);
		if (r.bad || !line_range || !opcode_base ||
		    (size_t)(r.end - r.p) < (size_t)opcode_base - 1)
			continue;
		std_lens = r.p;
		r.p += opcode_base - 1;
		while (r.p < r.end && *r.p) {
			const char *s = rd_str(&r);

			if (s && nr_dirs < sizeof(dirs) / sizeof(dirs[0]))
				dirs[nr_dirs++] = s;
		}
		rd_u(&r, 1);
		while (!r.bad && r.p < r.end && *r.p) {
			const char *nm = rd_str(&r);
			uint64_t dir = rd_uleb(&r);

			rd_uleb(&r);
			rd_uleb(&r);
			if (!r.bad && (ret = add_file(b, &u, nm, dir, dirs, nr_dirs)))
				goto out;
		}
		rd_u(&r, 1);
		if (r.bad)
			continue;
		/* NVIDIA: 4 bytes between the file table and the program; in later
		 * units of device-linked cubins the unit's base in .debug_str, or 0
		 * on some architectures, where the units' strings still follow one
		 * another: then the base is the end of the last string named before */
		if (r.end - r.p >= 4) {
			r.p = r.end - 4;
			u.str_base = (uint32_t)rd_u(&r, 4);
		}
		if (!u.str_base && nunit && prev_end < UINT32_MAX)
			u.str_base = (uint32_t)prev_end;
		r = (struct rd){prog, uend, 0};
		ret = run_program(b, &u, &r, min_inst, line_base, line_range, opcode_base, std_lens,
				  rel, nr_rel, dirs, nr_dirs);
		if (ret)
			goto out;
		if (u.max_name_end > prev_end)
			prev_end = u.max_name_end;
		nunit++;
	}
	ret = 0;
out:
	free(rel);
	return ret;
}

static int srow_cmp(const void *a, const void *b)
{
	const struct srow *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* an end of sequence before a row at the same address, then in order */
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The rows by section and address, the last of several at one address kept. */
static int finish_rows(struct builder *b)
{
	struct cubin *c = b->c;
	uint32_t i;

	if (b->nr_srows)
		qsort(b->srows, b->nr_srows, sizeof(*b->srows), srow_cmp);
	c->rows = calloc(b->nr_srows ? b->nr_srows : 1, sizeof(*c->rows));
	if (!c->rows)
		return -ENOMEM;
	for (i = 0; i < b->nr_srows; i++) {
		const struct srow *s = &b->srows[i];
		struct csec *sec = &c->secs[s->sec];

		if (i + 1 < b->nr_srows && b->srows[i + 1].sec == s->sec &&
		    b->srows[i + 1].addr == s->addr)
			continue;
		if (!sec->row_n)
			sec->row_first = c->nr_rows;
		sec->row_n++;
		c->rows[c->nr_rows++] = (struct crow){
			.addr = s->addr, .file = s->file, .line = s->line, .inl = s->inl};
	}
	return 0;
}

static int decode(struct builder *b)
{
	Elf_Scn *scn = NULL;
	size_t shstr;
	int ret;

	if (elf_getshdrnum(b->e, &b->shnum) || elf_getshdrstrndx(b->e, &shstr) ||
	    b->shnum > (1u << 24))
		return -EINVAL;
	b->sec_of_shndx = malloc(b->shnum * sizeof(*b->sec_of_shndx) + 1);
	if (!b->sec_of_shndx)
		return -ENOMEM;
	for (size_t i = 0; i < b->shnum; i++)
		b->sec_of_shndx[i] = -1;
	if (add_str(b, "") == NONE)
		return -ENOMEM;
	if ((ret = read_funcs(b)))
		return ret;
	b->debug_str = NONE;
	while ((scn = elf_nextscn(b->e, scn))) {
		GElf_Shdr sh;
		const char *n;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(n = elf_strptr(b->e, shstr, sh.sh_name)) || strcmp(n, ".debug_str"))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size < UINT32_MAX / 4) {
			b->debug_str = add_strn(b, d->d_buf, d->d_size);
			if (b->debug_str == NONE)
				return -ENOMEM;
			b->debug_str_len = (uint32_t)d->d_size;
		}
		break;
	}
	scn = NULL;
	while ((scn = elf_nextscn(b->e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(n = elf_strptr(b->e, shstr, sh.sh_name)) || strcmp(n, ".debug_line"))
			continue;
		b->c->has_lines = 1;
		if ((ret = read_lines(b, scn, elf_ndxscn(scn))))
			return ret;
		break;
	}
	return finish_rows(b);
}

int cubin_open(const void *data, size_t len, struct cubin **out)
{
	struct builder b = {0};
	char *copy = NULL;
	int ret;

	*out = NULL;
	if (!cubin_is_cubin(data, len))
		return -EINVAL;
	elf_version(EV_CURRENT);
	copy = malloc(len);
	b.c = calloc(1, sizeof(*b.c));
	if (!copy || !b.c) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(copy, data, len);
	b.e = elf_memory(copy, len);
	if (!b.e || elf_kind(b.e) != ELF_K_ELF) {
		ret = -EINVAL;
		goto out;
	}
	ret = decode(&b);
out:
	if (b.e)
		elf_end(b.e);
	free(copy);
	free(b.srows);
	free(b.sec_of_shndx);
	if (ret) {
		cubin_free(b.c);
		return ret;
	}
	*out = b.c;
	return 0;
}

void cubin_free(struct cubin *c)
{
	if (!c)
		return;
	free(c->funcs);
	free(c->secs);
	free(c->rows);
	free(c->inls);
	free(c->files);
	free(c->byname);
	free(c->strs);
	free(c);
}

int cubin_has_lines(const struct cubin *c)
{
	return (int)c->has_lines;
}

/* ---- lookups ---- */

static const struct cfunc *find_func(const struct cubin *c, const char *name)
{
	size_t lo = 0, hi = c->nr_funcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(c->strs + c->funcs[c->byname[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->nr_funcs && !strcmp(c->strs + c->funcs[c->byname[lo]].name, name))
		return &c->funcs[c->byname[lo]];
	return NULL;
}

/* The row at a: the last one at the greatest address <= a; NULL when none. */
static const struct crow *find_row(const struct cubin *c, const struct csec *s, uint32_t a)
{
	const struct crow *r = c->rows + s->row_first;
	size_t lo = 0, hi = s->row_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || r[lo - 1].file == NONE)
		return NULL;
	return &r[lo - 1];
}

/* The innermost function of section s holding a. */
static const struct cfunc *innermost(const struct cubin *c, const struct csec *s, uint32_t a)
{
	const struct cfunc *f = c->funcs + s->func_first, *in = NULL;
	size_t lo = 0, hi = s->func_n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].value <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;)
		if (a - f[i].value < f[i].size && (!in || f[i].size < in->size))
			in = &f[i];
	return in;
}

static void set_pos(const struct cubin *c, struct cubin_frame *f, uint32_t file, uint32_t line)
{
	if (file == NONE || file >= c->nr_files)
		return;
	f->file = c->strs + c->files[file].name;
	f->dir = c->files[file].dir == NONE ? NULL : c->strs + c->files[file].dir;
	f->line = line;
}

int cubin_resolve(const struct cubin *c, const char *func, uint64_t pc, struct cubin_frame *out,
		  size_t max)
{
	const struct cfunc *k = find_func(c, func), *in;
	const struct csec *s;
	const struct crow *r;
	uint32_t a, inl, file = NONE, line = 0;
	size_t n = 0;

	if (!k || pc >= k->size || !max)
		return 0;
	s = &c->secs[k->sec];
	a = k->value + (uint32_t)pc;
	in = innermost(c, s, a);
	if (!in)
		in = k;
	r = find_row(c, s, a);
	if (r) {
		file = r->file;
		line = r->line;
	}
	/* the inlined functions, each at its position; its call site is the
	 * position of the next frame out */
	for (inl = r ? r->inl : 0; inl && inl <= c->nr_inls && n < max;) {
		const struct cinl *x = &c->inls[inl - 1];

		out[n] = (struct cubin_frame){.func = x->name == NONE ? "" : c->strs + x->name,
					      .inlined = 1};
		set_pos(c, &out[n++], file, line);
		file = x->file;
		line = x->line;
		inl = x->parent;
	}
	if (n < max) {
		out[n] = (struct cubin_frame){.func = c->strs + in->shown};
		set_pos(c, &out[n++], file, line);
	}
	/* a __noinline__ callee's caller: its call site is not in the line table */
	if (in != k && n < max)
		out[n++] = (struct cubin_frame){.func = c->strs + k->shown};
	return (int)n;
}

int cubin_functions(const struct cubin *c,
		    int (*cb)(void *ctx, const char *name, uint64_t size, int kernel), void *ctx)
{
	size_t i;
	int ret;

	for (i = 0; i < c->nr_funcs; i++)
		if ((ret = cb(ctx, c->strs + c->funcs[i].name, c->funcs[i].size,
			      (int)c->funcs[i].kernel)))
			return ret;
	return 0;
}

/* ---- the flat image ---- */

/*
 * Layout, little-endian: "ZTCUBIN\0", u32 version, u32 has_lines, u32
 * counts (funcs, secs, rows, inls, files, strs), then the arrays funcs,
 * secs, rows, inls, files, byname as u32 fields, then the strings.
 */
#define IMG_MAGIC   "ZTCUBIN"
#define IMG_VERSION 1
#define IMG_HEAD    (8 + 4 * 8)

#define NF(t) (sizeof(struct t) / sizeof(uint32_t))

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint8_t *put_arr(uint8_t *p, const void *arr, size_t nwords)
{
	const uint32_t *w = arr;

	for (size_t i = 0; i < nwords; i++, p += 4)
		put32(p, w[i]);
	return p;
}

int cubin_save(const struct cubin *c, uint8_t **buf, size_t *len)
{
	uint32_t head[8] = {IMG_VERSION, c->has_lines, c->nr_funcs, c->nr_secs,
			    c->nr_rows,	 c->nr_inls,   c->nr_files, c->nr_strs};
	size_t words = (size_t)c->nr_funcs * NF(cfunc) + (size_t)c->nr_secs * NF(csec) +
		       (size_t)c->nr_rows * NF(crow) + (size_t)c->nr_inls * NF(cinl) +
		       (size_t)c->nr_files * NF(cfile) + c->nr_funcs;
	size_t size = 8 + sizeof(head) + words * 4 + c->nr_strs;
	uint8_t *q, *p;

	if (*len > SIZE_MAX - size)
		return -ENOMEM;
	q = realloc(*buf, *len + size);
	if (!q)
		return -ENOMEM;
	*buf = q;
	p = q + *len;
	memcpy(p, IMG_MAGIC, 8);
	p = put_arr(p + 8, head, 8);
	p = put_arr(p, c->funcs, (size_t)c->nr_funcs * NF(cfunc));
	p = put_arr(p, c->secs, (size_t)c->nr_secs * NF(csec));
	p = put_arr(p, c->rows, (size_t)c->nr_rows * NF(crow));
	p = put_arr(p, c->inls, (size_t)c->nr_inls * NF(cinl));
	p = put_arr(p, c->files, (size_t)c->nr_files * NF(cfile));
	p = put_arr(p, c->byname, c->nr_funcs);
	memcpy(p, c->strs, c->nr_strs);
	*len += size;
	return 0;
}

/* n words of the image into a new array; NULL (errno) when too short or no memory. */
static void *get_arr(const uint8_t **p, size_t *left, size_t n, size_t words_each)
{
	size_t words = n * words_each;
	uint32_t *a;

	if (n && words / n != words_each) {
		errno = EINVAL;
		return NULL;
	}
	if (words > *left / 4) {
		errno = EINVAL;
		return NULL;
	}
	a = malloc(words ? words * 4 : 4);
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < words; i++)
		a[i] = get32(*p + 4 * i);
	*p += words * 4;
	*left -= words * 4;
	return a;
}

static int str_ok(const struct cubin *c, uint32_t off, int none_ok)
{
	return off < c->nr_strs || (none_ok && off == NONE);
}

/* Every offset, index and order the lookups rely on. */
static int validate(const struct cubin *c)
{
	uint32_t i, j;

	if (!c->nr_strs || c->strs[c->nr_strs - 1] || c->has_lines > 1)
		return -EINVAL;
	for (i = 0; i < c->nr_files; i++)
		if (!str_ok(c, c->files[i].name, 0) || !str_ok(c, c->files[i].dir, 1))
			return -EINVAL;
	for (i = 0; i < c->nr_inls; i++) {
		const struct cinl *x = &c->inls[i];

		if (!str_ok(c, x->name, 1) || (x->file != NONE && x->file >= c->nr_files) ||
		    x->parent > i)
			return -EINVAL;
	}
	for (i = 0; i < c->nr_funcs; i++) {
		const struct cfunc *f = &c->funcs[i];

		if (!str_ok(c, f->name, 0) || !str_ok(c, f->shown, 0) || f->sec >= c->nr_secs ||
		    f->kernel > 1 || f->value > c->secs[f->sec].size ||
		    f->size > c->secs[f->sec].size - f->value ||
		    (i && func_cmp(&c->funcs[i - 1], f) > 0))
			return -EINVAL;
	}
	for (i = 0; i < c->nr_secs; i++) {
		const struct csec *s = &c->secs[i];

		if (s->func_first > c->nr_funcs || s->func_n > c->nr_funcs - s->func_first ||
		    s->row_first > c->nr_rows || s->row_n > c->nr_rows - s->row_first)
			return -EINVAL;
		for (j = 0; j < s->func_n; j++)
			if (c->funcs[s->func_first + j].sec != i)
				return -EINVAL;
		for (j = 0; j < s->row_n; j++) {
			const struct crow *r = &c->rows[s->row_first + j];

			if ((j && r->addr <= r[-1].addr) ||
			    (r->file != NONE && r->file >= c->nr_files) || r->inl > c->nr_inls)
				return -EINVAL;
		}
	}
	for (i = 0; i < c->nr_funcs; i++) {
		if (c->byname[i] >= c->nr_funcs ||
		    (i && byname_cmp_c(c, c->byname[i - 1], c->byname[i]) >= 0))
			return -EINVAL;
	}
	return 0;
}

int cubin_load(const void *data, size_t len, struct cubin **out)
{
	const uint8_t *p = data;
	size_t left = len;
	uint32_t head[8];
	struct cubin *c;
	int ret = -EINVAL;

	*out = NULL;
	if (len < IMG_HEAD || memcmp(p, IMG_MAGIC, 8))
		return -EINVAL;
	for (int i = 0; i < 8; i++)
		head[i] = get32(p + 8 + 4 * i);
	if (head[0] != IMG_VERSION)
		return -EINVAL;
	p += IMG_HEAD;
	left -= IMG_HEAD;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->has_lines = head[1];
	c->nr_funcs = head[2];
	c->nr_secs = head[3];
	c->nr_rows = head[4];
	c->nr_inls = head[5];
	c->nr_files = head[6];
	c->nr_strs = head[7];
	errno = EINVAL;
	if (!(c->funcs = get_arr(&p, &left, c->nr_funcs, NF(cfunc))) ||
	    !(c->secs = get_arr(&p, &left, c->nr_secs, NF(csec))) ||
	    !(c->rows = get_arr(&p, &left, c->nr_rows, NF(crow))) ||
	    !(c->inls = get_arr(&p, &left, c->nr_inls, NF(cinl))) ||
	    !(c->files = get_arr(&p, &left, c->nr_files, NF(cfile))) ||
	    !(c->byname = get_arr(&p, &left, c->nr_funcs, 1))) {
		ret = -errno;
		goto out;
	}
	ret = -EINVAL;
	if (left != c->nr_strs)
		goto out;
	c->strs = malloc(left ? left : 1);
	if (!c->strs) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(c->strs, p, left);
	ret = validate(c);
out:
	if (ret) {
		cubin_free(c);
		return ret;
	}
	*out = c;
	return 0;
}
