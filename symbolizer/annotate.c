// SPDX-License-Identifier: GPL-2.0-or-later
/* The annotate model: samples per instruction of a function, its code and its source lines. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/text.h"
#include "symbolizer/annotate.h"
#include "symbolizer/debugfind.h"
#include "symbolizer/debuginfod.h"
#include "symbolizer/demangle.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/pyframes.h"
#include "symbolizer/pyline.h"
#include "symbolizer/vdso.h"

#define ANN_MAX_FUNC	  (16u << 20) /* the largest function disassembled */
#define ANN_MAX_SOURCE	  (64u << 20) /* the largest source file read */
#define ANN_MAX_PY_SOURCE (4u << 20)  /* the largest Python file read */
#define ANN_MAX_PY_LINES  100000      /* a Python function's lines shown at most */
#define ANN_CONTEXT	  5	      /* objdump -S's lines of context before a line */

/* ---- the functions with samples ---- */

struct ann_rec {
	const char *module, *name;
	const struct prof_mmap *map;
	uint64_t start, off, weight;
	int kernel, python;
};

static int rec_cmp(const void *a, const void *b)
{
	const struct ann_rec *x = a, *y = b;
	int c;

	if (x->kernel != y->kernel)
		return x->kernel - y->kernel;
	c = strcmp(x->module, y->module);
	if (c)
		return c;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct ann_sym *x = a, *y = b;
	int c;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->module, y->module);
}

static int dso_wanted(const struct ann_filter *f, const struct zt_frame *z)
{
	size_t i;

	if (!f || !f->nr_dsos)
		return 1;
	for (i = 0; i < f->nr_dsos; i++)
		if (!strcmp(f->dsos[i], z->module) ||
		    (z->map && (!strcmp(f->dsos[i], z->map->path) ||
				!strcmp(f->dsos[i], zt_base_name(z->map->path)))))
			return 1;
	return 0;
}

/* The samples' records, one per function a sample counts for. */
struct ann_recs {
	const struct rstacks *rs;
	const struct ann_filter *f;
	struct ann_rec *v;
	size_t nr, cap;
};

/* The function of ip (an address of sample s's stack: kernel, or user)
 * as a record of s, when it has a name and its module is wanted. A
 * Python function's is at the instruction (its code unit: the line). 0 or
 * a negative errno. */
static int add_rec(struct ann_recs *rc, const struct prof_sample *s, uint64_t ip, int kernel)
{
	const struct proctree *pt = rc->rs->pt;
	struct frametab *ft = rc->rs->ft;
	int py = !kernel && prof_is_py(ip), ret;
	const struct zt_frame *z;
	struct zt_frange r;
	uint64_t epoch;

	epoch = frametab_epoch(ft, s->pid, s->ts, proctree_epoch(pt, s->pid, s->ts));
	ret = frametab_resolve(ft, s->pid, s->ts, epoch, &ip, kernel ? 1 : 0, 1, &r);
	if (ret)
		return ret;
	z = frametab_frame(ft, r.first + r.n - 1);
	if (!z->sym || !dso_wanted(rc->f, z))
		return 0;
	if (ZT_GROW(rc->v, rc->cap, rc->nr + 1))
		return -ENOMEM;
	rc->v[rc->nr++] = (struct ann_rec){z->module,
					   z->sym,
					   z->map ? z->map : r.map,
					   z->addr,
					   py ? prof_py_lasti(ip) : z->offset,
					   s->weight,
					   z->kernel,
					   py};
	return 0;
}

int ann_profile_build(struct ann_profile *ap, const struct rstacks *rs,
		      const struct ann_filter *f)
{
	const struct profile *p = rs->prof;
	struct ann_recs rc = {rs, f, NULL, 0, 0};
	struct ann_rec *recs;
	size_t nr, cap_syms = 0, cap_hits = 0, i, j;
	int ret = 0;

	memset(ap, 0, sizeof(*ap));
	ap->p = p;
	for (i = 0; i < p->nr_samples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const struct prof_stack *st;
		const uint64_t *ips;
		unsigned k;

		if (f && f->by_event && profile_nr_events(p) > 1 && s->event != f->event)
			continue;
		ap->total += s->weight;
		ap->total_nr++;
		if (s->stack >= p->nr_stacks)
			continue;
		st = &p->stacks[s->stack];
		if (!st->nk && !st->nu)
			continue;
		ips = profile_stack_ips(p, s->stack);
		ret = add_rec(&rc, s, ips[0], st->nk > 0);
		if (ret)
			goto out;
		/* and the innermost Python frame's function, when the leaf is
		 * native code (a C extension, the interpreter, the kernel) */
		if (!st->nk && prof_is_py(ips[0]))
			continue;
		for (k = st->nk; k < st->nk + st->nu && !prof_is_py(ips[k]); k++)
			;
		if (k < st->nk + st->nu && (ret = add_rec(&rc, s, ips[k], 0)))
			goto out;
	}
	recs = rc.v;
	nr = rc.nr;
	if (nr)
		qsort(recs, nr, sizeof(*recs), rec_cmp);
	for (i = 0; i < nr; i = j) {
		struct ann_sym *sym;

		if (ZT_GROW(ap->syms, cap_syms, ap->nr_syms + 1)) {
			ret = -ENOMEM;
			goto out;
		}
		sym = &ap->syms[ap->nr_syms++];
		*sym = (struct ann_sym){recs[i].name,
					recs[i].module,
					recs[i].map,
					recs[i].start,
					recs[i].kernel,
					0,
					0,
					ap->nr_hits,
					0,
					recs[i].python};
		for (j = i;
		     j < nr && recs[j].kernel == recs[i].kernel && recs[j].start == recs[i].start &&
		     !strcmp(recs[j].module, recs[i].module);
		     j++) {
			if (!sym->map)
				sym->map = recs[j].map;
			sym->weight += recs[j].weight;
			sym->nr++;
			if (!sym->nr_hits || ap->hits[ap->nr_hits - 1].off != recs[j].off) {
				if (ZT_GROW(ap->hits, cap_hits, ap->nr_hits + 1)) {
					ret = -ENOMEM;
					goto out;
				}
				ap->hits[ap->nr_hits++] = (struct ann_hit){recs[j].off, 0, 0};
				sym->nr_hits++;
			}
			ap->hits[ap->nr_hits - 1].weight += recs[j].weight;
			ap->hits[ap->nr_hits - 1].nr++;
		}
	}
	if (ap->nr_syms)
		qsort(ap->syms, ap->nr_syms, sizeof(*ap->syms), sym_cmp);
out:
	free(rc.v);
	if (ret)
		ann_profile_release(ap);
	return ret;
}

void ann_profile_release(struct ann_profile *ap)
{
	free(ap->syms);
	free(ap->hits);
	memset(ap, 0, sizeof(*ap));
}

const struct ann_sym *ann_profile_find(const struct ann_profile *ap, const char *name,
				       const char *module)
{
	size_t i;

	for (i = 0; i < ap->nr_syms; i++) {
		const struct ann_sym *s = &ap->syms[i];

		if (strcmp(s->name, name))
			continue;
		if (module && strcmp(module, s->module) &&
		    (!s->map ||
		     (strcmp(module, s->map->path) && strcmp(module, zt_base_name(s->map->path)))))
			continue;
		return s; /* most weight first */
	}
	return NULL;
}

int ann_sym_by_name(const struct profile *p, const char *name, const char *module,
		    struct ann_sym *out)
{
	size_t i;

	for (i = 0; i < p->nr_mmaps; i++) {
		const struct prof_mmap *m = &p->mmaps[i];

		if (m->pid == ZT_PID_KERNEL || m->path[0] != '/' ||
		    (strcmp(m->path, module) && strcmp(zt_base_name(m->path), module)))
			continue;
		*out = (struct ann_sym){name, zt_base_name(m->path), m, ANN_BY_NAME, 0, 0, 0, 0, 0,
					0};
		return 0;
	}
	return -ENOENT;
}

/* ---- one function ---- */

struct esym {
	uint64_t value, size;
	const char *name;
	int func;
};

struct srcfile {
	char *path;
	char *data; /* the file, its lines cut at '\n' */
	char **lines;
	uint32_t nr_lines;
	uint32_t max_printed;
	int failed; /* the errno why not read (EFBIG: too large, ESPIPE: not a regular file) */
};

struct ann_priv {
	struct symmod *sm;
	char **owned;
	size_t nr_owned, cap_owned;
	struct ann_row *rows;
	size_t nr_rows, cap_rows;
	uint32_t *hot;
	size_t nr_hot;
	struct srcfile *files;
	size_t nr_files, cap_files;
	struct pyframes *py; /* a Python function's: its instructions' lines */
};

static char *own(struct annotation *a, char *s)
{
	struct ann_priv *p = a->priv;

	if (!s || ZT_GROW(p->owned, p->cap_owned, p->nr_owned + 1)) {
		free(s);
		return NULL;
	}
	p->owned[p->nr_owned++] = s;
	return s;
}

/* The ELF file holding the code of s: 0 with its path in out (*temp set:
 * a temporary copy the caller unlinks), or -ENOENT with a reason in err. */
static int find_code(const struct ann_profile *ap, const struct ann_sym *s,
		     const struct ann_opts *o, char *out, size_t n, int *temp, char *err,
		     size_t errn)
{
	const struct prof_mmap *m = s->map;
	const struct symmod_opts *mo = o->mo;
	char hex[2 * ZT_BUILD_ID_MAX + 1], path[PATH_MAX];
	struct prof_build_id fb = {0};
	char *dl = NULL;
	size_t l;

	if (s->kernel) {
		if (!o->vmlinux) {
			snprintf(err, errn,
				 "kernel code needs the recorded kernel's vmlinux (use "
				 "-k/--vmlinux FILE)");
			return -ENOENT;
		}
		snprintf(out, n, "%s", o->vmlinux);
		return 0;
	}
	if (m && ap->p && !strcmp(m->path, "[vdso]")) {
		/* perf reads it from its build-id cache: this machine's image,
		 * else that copy */
		if (!vdso_path(ap->p, mo ? mo->cache : NULL, &m->build_id, out, n, temp))
			return 0;
		snprintf(err, errn,
			 "the recorded [vdso] is not this machine's and not in ~/.debug/[vdso] "
			 "(annotate on the recording host, or after perf record there)");
		return -ENOENT;
	}
	if (!m || !m->path[0] || m->path[0] == '[') {
		snprintf(err, errn, "'%s' is not a file with code to read", s->module);
		return -ENOENT;
	}
	if (m->build_id.len && mo && mo->cache &&
	    !buildid_cache_path(mo->cache, &m->build_id, out, n))
		return 0;
	if (m->build_id.len && mo && mo->archive &&
	    !buildid_cache_path(mo->archive, &m->build_id, out, n))
		return 0;
	snprintf(path, sizeof(path), "%s%s", mo && mo->find.symfs ? mo->find.symfs : "", m->path);
	l = strlen(path);
	if (l > 10 && !strcmp(path + l - 10, " (deleted)"))
		path[l - 10] = 0;
	if (!access(path, R_OK) &&
	    (!m->build_id.len || (!elf_read_build_id(path, &fb) &&
				  (!fb.len || (fb.len == m->build_id.len &&
					       !memcmp(fb.data, m->build_id.data, fb.len)))))) {
		snprintf(out, n, "%s", path);
		return 0;
	}
	if (m->build_id.len && !(mo && mo->no_debuginfod) &&
	    !zt_debuginfod_find(&m->build_id, 1, NULL, NULL, &dl)) {
		snprintf(out, n, "%s", dl);
		free(dl);
		return 0;
	}
	if (fb.len)
		snprintf(err, errn,
			 "'%s' is not the binary that was recorded (build id %s): put the recorded "
			 "one "
			 "in the build-id cache or under --symfs",
			 path, prof_build_id_hex(&m->build_id, hex));
	else
		snprintf(err, errn,
			 "cannot find the code of '%s'%s%s: the binary is gone (use --symfs, "
			 "the build-id cache or debuginfod)",
			 m->path, m->build_id.len ? " with build id " : "",
			 m->build_id.len ? prof_build_id_hex(&m->build_id, hex) : "");
	return -ENOENT;
}

static int esym_cmp(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return y->func - x->func;
}

/* FUNC and OBJECT symbols of elf (.symtab, else .dynsym), names copied
 * into a. */
static int read_syms(struct annotation *a, Elf *elf, struct esym **out, size_t *nr, size_t *cap,
		     int *symtab)
{
	static const unsigned kinds[] = {SHT_SYMTAB, SHT_DYNSYM};
	Elf_Scn *scn = NULL;
	unsigned want, w;
	int ret = 0;

	for (w = 0; w < 2 && !*nr; w++) {
		want = kinds[w];
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			size_t i, cnt;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			if (!d)
				continue;
			cnt = sh.sh_size / sh.sh_entsize;
			for (i = 0; i < cnt; i++) {
				GElf_Sym sym;
				const char *name;
				int t;

				if (!gelf_getsym(d, (int)i, &sym))
					break;
				t = GELF_ST_TYPE(sym.st_info);
				if ((t != STT_FUNC && t != STT_OBJECT && t != STT_GNU_IFUNC) ||
				    sym.st_shndx == SHN_UNDEF || !sym.st_value)
					continue;
				name = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (!name || !*name)
					continue;
				if (ZT_GROW(*out, *cap, *nr + 1))
					return -ENOMEM;
				(*out)[*nr] = (struct esym){sym.st_value, sym.st_size,
							    own(a, strdup(name)), t != STT_OBJECT};
				if (!(*out)[*nr].name)
					return -ENOMEM;
				(*nr)++;
				if (want == SHT_SYMTAB && symtab)
					*symtab = 1;
			}
		}
		scn = NULL;
	}
	if (*nr)
		qsort(*out, *nr, sizeof(**out), esym_cmp);
	return ret;
}

struct pltrel {
	uint64_t slot; /* the GOT slot the entry jumps through */
	char *name;
};

static int pltrel_cmp(const void *x, const void *y)
{
	const struct pltrel *a = x, *b = y;

	return a->slot < b->slot ? -1 : a->slot > b->slot;
}

/* objdump's synthetic NAME@plt symbols of x86-64 PLT entries (16 bytes
 * each, in .plt.sec with IBT, else in .plt after its first one): the name
 * of the .rela.plt relocation of the GOT slot the entry's jmp *X(%rip)
 * goes through. 0 or -ENOMEM. */
static int plt_syms(struct annotation *a, Elf *elf, struct esym **out, size_t *nr, size_t *cap)
{
	Elf_Scn *scn = NULL, *rela = NULL, *plt = NULL;
	struct pltrel *rel = NULL;
	size_t shstrndx, i, cnt, nrel = 0;
	GElf_Shdr rsh, psh;
	Elf_Data *rd, *sd, *pd;
	int ret = 0;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".plt.sec") || (!strcmp(name, ".plt") && !plt))
			plt = scn;
		else if (!strcmp(name, ".rela.plt") && sh.sh_type == SHT_RELA)
			rela = scn;
	}
	if (!rela || !plt || !gelf_getshdr(rela, &rsh) || !rsh.sh_entsize ||
	    !(rd = elf_getdata(rela, NULL)) || !gelf_getshdr(plt, &psh) ||
	    psh.sh_type != SHT_PROGBITS || !(pd = elf_getdata(plt, NULL)) || !pd->d_buf)
		return 0;
	scn = elf_getscn(elf, rsh.sh_link);
	sd = scn ? elf_getdata(scn, NULL) : NULL;
	cnt = rsh.sh_size / rsh.sh_entsize;
	rel = calloc(cnt ? cnt : 1, sizeof(*rel));
	if (!rel)
		return -ENOMEM;
	for (i = 0; i < cnt && !ret; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		GElf_Shdr dsh;
		const char *name = NULL;
		int ok = 0;

		if (!gelf_getrela(rd, (int)i, &r))
			break;
		if (GELF_R_TYPE(r.r_info) == R_X86_64_JUMP_SLOT && sd &&
		    gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) && gelf_getshdr(scn, &dsh))
			name = elf_strptr(elf, dsh.sh_link, sym.st_name);
		if (name && *name)
			ok = asprintf(&rel[nrel].name, "%s@plt", name);
		else if (GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE)
			ok = asprintf(&rel[nrel].name, "*ABS*+0x%" PRIx64 "@plt",
				      (uint64_t)r.r_addend);
		else
			continue;
		if (ok < 0 || !own(a, rel[nrel].name))
			ret = -ENOMEM;
		else
			rel[nrel++].slot = r.r_offset;
	}
	if (nrel)
		qsort(rel, nrel, sizeof(*rel), pltrel_cmp);
	/* each 16-byte entry: find jmp *disp32(%rip) (ff 25) in it */
	for (i = 0; !ret && nrel && i + 16 <= pd->d_size; i += 16) {
		const uint8_t *e = (const uint8_t *)pd->d_buf + i;
		struct pltrel key, *hit;
		unsigned k;
		int32_t disp;

		for (k = 0; k + 6 <= 16 && !(e[k] == 0xff && e[k + 1] == 0x25); k++)
			;
		if (k + 6 > 16)
			continue;
		memcpy(&disp, e + k + 2, 4);
		key.slot = psh.sh_addr + i + k + 6 + (uint64_t)(int64_t)disp;
		hit = bsearch(&key, rel, nrel, sizeof(*rel), pltrel_cmp);
		if (!hit)
			continue;
		if (ZT_GROW(*out, *cap, *nr + 1))
			ret = -ENOMEM;
		else
			(*out)[(*nr)++] = (struct esym){psh.sh_addr + i, 16, hit->name, 1};
	}
	free(rel);
	if (!ret && *nr)
		qsort(*out, *nr, sizeof(**out), esym_cmp);
	return ret;
}

/* The symbol covering vaddr (NULL: none); a function before an object. */
static const struct esym *esym_at(const struct esym *s, size_t n, uint64_t vaddr)
{
	size_t k = zt_upper_bound_u64(s, n, sizeof(*s), offsetof(struct esym, value), vaddr), tries;

	for (tries = 0; k > 0 && tries < 16; k--, tries++) {
		const struct esym *e = &s[k - 1];

		if (e->value == vaddr || vaddr < e->value + e->size)
			return e;
	}
	return NULL;
}

static int open_elf(const char *path, int *fd, Elf **elf)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		if (*elf)
			elf_end(*elf);
		*elf = NULL;
		close(*fd);
		*fd = -1;
		return -ENOEXEC;
	}
	return 0;
}

/* The virtual address of file offset off (symmod_seg_vaddr(), the
 * conversion the symbolizer and the unwinder make). */
static int off_to_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr)
{
	struct symmod_seg segs[64];
	size_t n;
	int ret = symmod_elf_segments_of(elf, 0, segs, 64, &n);

	if (ret)
		return ret;
	return symmod_seg_vaddr(segs, n < 64 ? n : 64, off, vaddr);
}

/* The bytes at vaddr from the section holding them: *size of them, cut
 * at the section's end, copied into a new *buf. */
static int read_code(Elf *elf, uint64_t vaddr, uint64_t *size, uint8_t **buf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || vaddr < sh.sh_addr ||
		    vaddr >= sh.sh_addr + sh.sh_size)
			continue;
		if (sh.sh_type == SHT_NOBITS)
			return -ENOEXEC;
		if (vaddr + *size > sh.sh_addr + sh.sh_size)
			*size = sh.sh_addr + sh.sh_size - vaddr;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || vaddr - sh.sh_addr + *size > d->d_size)
			return -ENOEXEC;
		*buf = malloc(*size);
		if (!*buf)
			return -ENOMEM;
		memcpy(*buf, (const uint8_t *)d->d_buf + (vaddr - sh.sh_addr), *size);
		return 0;
	}
	return -ENOEXEC;
}

/* Add the symbols of the binary's separate debug file (build-id
 * directories, .gnu_debuglink, --debug-dir, --symfs). 0 or -ENOMEM; none
 * found is no error. */
static int debug_syms(struct annotation *a, const struct ann_sym *s, const struct ann_opts *o,
		      struct esym **syms, size_t *nr, size_t *cap)
{
	static const struct debugfind_opts none;
	struct esym *more = NULL;
	size_t nmore = 0, cmore = 0;
	char path[PATH_MAX];
	Elf *elf;
	int fd, ret;

	if (debugfind(o->mo ? &o->mo->find : &none, s->map ? s->map->path : a->path,
		      s->map && s->map->build_id.len ? &s->map->build_id : NULL, path,
		      sizeof(path)) &&
	    debugfind(o->mo ? &o->mo->find : &none, a->path, NULL, path, sizeof(path)))
		return 0;
	if (open_elf(path, &fd, &elf))
		return 0;
	ret = read_syms(a, elf, &more, &nmore, &cmore, NULL);
	elf_end(elf);
	close(fd);
	if (!ret && nmore && ZT_GROW(*syms, *cap, *nr + nmore))
		ret = -ENOMEM;
	if (!ret && nmore) {
		memcpy(*syms + *nr, more, nmore * sizeof(*more));
		*nr += nmore;
		qsort(*syms, *nr, sizeof(**syms), esym_cmp);
	}
	free(more);
	return ret;
}

static const char *sym_text(struct annotation *a, const struct esym *s, size_t n, uint64_t addr)
{
	const struct esym *e;
	char *t;

	if (addr >= a->start && addr < a->start + a->size) {
		if (addr == a->start)
			return a->name;
		if (asprintf(&t, "%s+0x%" PRIx64, a->name, addr - a->start) < 0)
			return NULL;
		return own(a, t);
	}
	e = esym_at(s, n, addr);
	if (!e) {
		/* objdump's rule: the nearest symbol before, whatever its size */
		size_t k = zt_upper_bound_u64(s, n, sizeof(*s), offsetof(struct esym, value), addr);

		if (!k)
			return NULL;
		e = &s[k - 1];
	}
	if (addr == e->value)
		return e->name;
	if (asprintf(&t, "%s+0x%" PRIx64, e->name, addr - e->value) < 0)
		return NULL;
	return own(a, t);
}

static const char *demangled(struct annotation *a, const char *name, int on)
{
	char *d;

	if (!name || !on || !(d = zt_demangle(name, 0)))
		return name;
	return own(a, d) ? d : name;
}

static char *join_path(const char *dir, const char *file)
{
	size_t n;
	char *p;

	if (!file || !*file)
		return NULL;
	n = zt_src_path(NULL, 0, dir, file) + 1;
	if ((p = malloc(n)))
		zt_src_path(p, n, dir, file);
	return p;
}

static int same_loc(const struct ann_loc *x, const struct fi_loc *l, const char *file,
		    uint32_t depth)
{
	return x->line == l->line && x->depth == depth && x->file && file &&
	       !strcmp(x->file, file) && x->func == l->name;
}

/* Source positions of the instructions, from the module's DWARF. */
static int attach_source(struct annotation *a, const struct ann_sym *s, const struct ann_opts *o)
{
	struct ann_priv *p = a->priv;
	size_t i, cap = a->nr_locs;
	int ret;

	static const struct symmod_opts none;

	ret = symmod_open(o->mo ? o->mo : &none, a->path,
			  s->kernel || !s->map || !s->map->build_id.len ? NULL : &s->map->build_id,
			  &p->sm);
	if (ret)
		return ret;
	if (symmod_quality(p->sm) != SYMQ_FULL)
		return 0;
	for (i = 0; i < a->nr_insns; i++) {
		struct fi_result r;
		const struct fi_loc *l;
		struct ann_loc *prev = a->nr_locs > 1 ? &a->locs[a->nr_locs - 1] : NULL;
		char *file;

		if (symmod_lookup_vaddr(p->sm, a->insns[i].d.addr, &r) || !r.n || !r.locs[0].line)
			continue;
		l = &r.locs[0];
		file = join_path(l->dir, l->file);
		if (prev && i && a->insns[i - 1].loc == a->nr_locs - 1 &&
		    same_loc(prev, l, file, r.n - 1)) {
			free(file);
			a->insns[i].loc = (uint32_t)(a->nr_locs - 1);
			continue;
		}
		if (ZT_GROW(a->locs, cap, a->nr_locs + 1) || (file && !own(a, file)))
			return -ENOMEM;
		a->locs[a->nr_locs] = (struct ann_loc){l->name, file, l->line, r.n - 1, NULL, 0};
		if (r.n > 1) {
			char *cf = join_path(r.locs[1].dir, r.locs[1].file);

			if (cf && !own(a, cf))
				return -ENOMEM;
			a->locs[a->nr_locs].call_file = cf;
			a->locs[a->nr_locs].call_line = r.locs[1].line;
		}
		a->insns[i].loc = (uint32_t)a->nr_locs++;
		a->have_source = 1;
	}
	/* names demangled (kept apart: same_loc compares the symmod's pointers) */
	for (i = 1; i < a->nr_locs; i++)
		a->locs[i].func = demangled(a, a->locs[i].func, o->demangle);
	return 0;
}

static int hit_insn(const struct annotation *a, uint64_t off)
{
	size_t lo = 0, hi = a->nr_insns;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a->insns[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? (int)lo - 1 : -1;
}

/* Where a hit of a's function goes: 0 or -ENOMEM. */
typedef int ann_place_fn(struct annotation *a, const struct ann_hit *h);

/* The samples of s into a, each hit also to the instruction or line
 * place() finds for it. */
static int count_hits(struct annotation *a, const struct ann_profile *ap, const struct ann_sym *s,
		      ann_place_fn *place)
{
	size_t i;
	int ret;

	for (i = 0; i < s->nr_hits; i++) {
		const struct ann_hit *h = &ap->hits[s->first_hit + i];

		a->weight += h->weight;
		a->nr += h->nr;
		if ((ret = place(a, h)))
			return ret;
	}
	return 0;
}

static int place_insn(struct annotation *a, const struct ann_hit *h)
{
	int k = h->off < a->size ? hit_insn(a, h->off) : -1;

	if (k >= 0) {
		a->insns[k].weight += h->weight;
		a->insns[k].nr += h->nr;
	}
	return 0;
}

/* a, its name and module from s, ready for the rest. 0 or -ENOMEM. */
static int ann_start(struct annotation *a, const struct ann_profile *ap, const struct ann_sym *s,
		     size_t nr_locs)
{
	memset(a, 0, sizeof(*a));
	a->priv = calloc(1, sizeof(*a->priv));
	a->name = strdup(s->name);
	a->module = strdup(s->module);
	a->locs = calloc(nr_locs, sizeof(*a->locs));
	a->nr_locs = 1;
	a->total = ap->total;
	a->total_nr = ap->total_nr;
	return a->priv && a->name && a->module && a->locs ? 0 : -ENOMEM;
}

int annotation_build(struct annotation *a, const struct ann_profile *ap, const struct ann_sym *s,
		     const struct ann_opts *o, char *err, size_t n)
{
	char path[PATH_MAX];
	struct esym *syms = NULL;
	size_t nsyms = 0, csyms = 0, i, cap = 0;
	const struct esym *fs = NULL;
	struct disasm *d = NULL;
	uint8_t *code = NULL;
	Elf *elf = NULL;
	GElf_Ehdr eh;
	int fd = -1, ret, symtab = 0, temp = 0;

	err[0] = 0;
	ret = ann_start(a, ap, s, 1);
	if (ret)
		goto out;
	if (s->python) {
		ret = -ENOENT;
		snprintf(err, n, "'%s' is Python code (%s): no machine code to disassemble",
			 s->name, s->module);
		goto out;
	}
	ret = find_code(ap, s, o, path, sizeof(path), &temp, err, n);
	if (ret)
		goto out;
	a->path = strdup(path);
	if (!a->path) {
		ret = -ENOMEM;
		goto out;
	}
	ret = open_elf(path, &fd, &elf);
	if (temp)
		unlink(path); /* open, or not needed */
	if (ret) {
		snprintf(err, n, "cannot read '%s': %s", path,
			 ret == -ENOEXEC ? "not an ELF file" : strerror(-ret));
		goto out;
	}
	if (!gelf_getehdr(elf, &eh)) {
		ret = -ENOEXEC;
		snprintf(err, n, "cannot read '%s': damaged ELF header", path);
		goto out;
	}
	a->machine = eh.e_machine;
	ret = read_syms(a, elf, &syms, &nsyms, &csyms, &symtab);
	if (!ret && a->machine == EM_X86_64)
		ret = plt_syms(a, elf, &syms, &nsyms, &csyms);
	if (ret)
		goto out;
	if (s->kernel || s->start == ANN_BY_NAME) {
		/* by name: the recorded addresses are relocated (KASLR), or the
		 * function has no samples to place it */
		for (i = 0; i < nsyms && !fs; i++)
			if (syms[i].func && !strcmp(syms[i].name, s->name))
				fs = &syms[i];
		if (!fs && !s->kernel) {
			ret = debug_syms(a, s, o, &syms, &nsyms, &csyms);
			if (ret)
				goto out;
			for (i = 0; i < nsyms && !fs; i++)
				if (syms[i].func && !strcmp(syms[i].name, s->name))
					fs = &syms[i];
		}
		if (!fs) {
			ret = -ENOENT;
			snprintf(err, n, "'%s' has no symbol '%s'", path, s->name);
			goto out;
		}
		a->start = fs->value;
	} else if (off_to_vaddr(elf, s->start, &a->start)) {
		ret = -ENOEXEC;
		snprintf(err, n, "'%s' has no code at file offset 0x%" PRIx64, path, s->start);
		goto out;
	}
	if (!fs)
		fs = esym_at(syms, nsyms, a->start);
	if ((!fs || fs->value != a->start || !symtab) && !s->kernel) {
		/* a stripped binary (.dynsym only): its debug file's symbols */
		ret = debug_syms(a, s, o, &syms, &nsyms, &csyms);
		if (ret)
			goto out;
		fs = esym_at(syms, nsyms, a->start);
	}
	if (fs && fs->value == a->start && fs->size) {
		a->size = fs->size;
	} else {
		/* no sized symbol here: up to the next symbol, or past the last sample */
		size_t k = zt_upper_bound_u64(syms, nsyms, sizeof(*syms),
					      offsetof(struct esym, value), a->start);

		a->size = k < nsyms ? syms[k].value - a->start : 0;
		for (i = 0; i < s->nr_hits; i++)
			if (ap->hits[s->first_hit + i].off + 16 > a->size && k >= nsyms)
				a->size = ap->hits[s->first_hit + i].off + 16;
	}
	if (!a->size || a->size > ANN_MAX_FUNC) {
		ret = -ENOEXEC;
		snprintf(err, n, "'%s': cannot tell the size of '%s'", path, s->name);
		goto out;
	}
	ret = read_code(elf, a->start, &a->size, &code);
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		snprintf(err, n, "'%s' has no code for '%s' (a debug file without it?)", path,
			 s->name);
		goto out;
	}
	ret = disasm_new(a->machine, o->syntax, &d);
	if (ret == -ELIBACC) {
		snprintf(err, n,
			 "cannot load Capstone (libcapstone.so.4): install the Debian "
			 "package 'libcapstone4'");
		goto out;
	}
	if (ret) {
		snprintf(err, n, "'%s': cannot disassemble code of ELF machine %u", path,
			 a->machine);
		goto out;
	}
	for (i = 0; i < a->size;) {
		struct ann_insn *in;

		if (ZT_GROW(a->insns, cap, a->nr_insns + 1)) {
			ret = -ENOMEM;
			goto out;
		}
		in = &a->insns[a->nr_insns++];
		memset(in, 0, sizeof(*in));
		disasm_one(d, code + i, a->size - i, a->start + i, &in->d);
		in->off = i;
		in->jump_to = -1;
		i += in->d.len;
	}
	for (i = 0; i < a->nr_insns; i++) {
		struct ann_insn *in = &a->insns[i];

		if (in->d.has_target) {
			in->target = sym_text(a, syms, nsyms, in->d.target);
			if ((in->d.flags & DISASM_JUMP) && in->d.target >= a->start &&
			    in->d.target < a->start + a->size) {
				int k = hit_insn(a, in->d.target - a->start);

				if (k >= 0 && a->insns[k].d.addr == in->d.target)
					in->jump_to = k;
			}
		}
		if (in->d.has_mem)
			in->mem = sym_text(a, syms, nsyms, in->d.mem);
	}
	count_hits(a, ap, s, place_insn);
	ret = attach_source(a, s, o);
	if (ret == -ENOMEM)
		goto out;
	ret = 0;
out:
	disasm_free(d);
	free(code);
	free(syms);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (ret)
		annotation_release(a);
	return ret;
}

void annotation_release(struct annotation *a)
{
	struct ann_priv *p = a->priv;
	size_t i;

	if (p) {
		symmod_free(p->sm);
		pyframes_free(p->py);
		for (i = 0; i < p->nr_owned; i++)
			free(p->owned[i]);
		free(p->owned);
		free(p->rows);
		free(p->hot);
		for (i = 0; i < p->nr_files; i++) {
			free(p->files[i].path);
			free(p->files[i].data);
			free(p->files[i].lines);
		}
		free(p->files);
		free(p);
	}
	free(a->name);
	free(a->module);
	free(a->path);
	free(a->insns);
	free(a->locs);
	free(a->lines);
	memset(a, 0, sizeof(*a));
}

/* ---- rows ---- */

/* The lines of path, read once (a regular file of max bytes at most:
 * DWARF or a code object names it). */
static struct srcfile *get_file(struct ann_priv *p, const char *path, size_t max)
{
	struct srcfile *f;
	size_t i, len, n;
	int err;

	for (i = 0; i < p->nr_files; i++)
		if (!strcmp(p->files[i].path, path))
			return &p->files[i];
	if (ZT_GROW(p->files, p->cap_files, p->nr_files + 1))
		return NULL;
	f = &p->files[p->nr_files];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	p->nr_files++;
	/* a regular file only (never a FIFO or device planted at its path) */
	err = zt_read_file(path, max, &f->data, &len);
	if (err) {
		f->failed = -err;
		return f;
	}
	f->failed = ENOMEM; /* until its lines are cut */
	for (i = 0, n = 1; i < len; i++)
		n += f->data[i] == '\n';
	f->lines = malloc(n * sizeof(*f->lines));
	if (!f->lines)
		return f;
	f->lines[0] = f->data;
	for (i = 0, n = 1; i < len; i++)
		if (f->data[i] == '\n') {
			f->data[i] = 0;
			if (i > 0 && f->data[i - 1] == '\r')
				f->data[i - 1] = 0;
			f->lines[n++] = f->data + i + 1;
		}
	/* a last line ending in '\n' leaves an empty "line" after it */
	f->nr_lines = (uint32_t)(len && f->data[len - 1] == 0 ? n - 1 : n);
	f->failed = 0;
	return f;
}

static int add_row(struct ann_priv *p, struct ann_row r)
{
	if (ZT_GROW(p->rows, p->cap_rows, p->nr_rows + 1))
		return -ENOMEM;
	p->rows[p->nr_rows++] = r;
	return 0;
}

static int source_rows(struct annotation *a, uint32_t li)
{
	struct ann_priv *p = a->priv;
	const struct ann_loc *l = &a->locs[li];
	struct srcfile *f = get_file(p, l->file, ANN_MAX_SOURCE);
	uint32_t from, k;

	if (!f)
		return -ENOMEM;
	if (f->failed || l->line > f->nr_lines)
		return add_row(p, (struct ann_row){ANN_ROW_SOURCE, 0, li, l->line, NULL});
	from = l->line;
	if (l->line > f->max_printed) {
		from = l->line > ANN_CONTEXT ? l->line - ANN_CONTEXT : 1;
		if (from <= f->max_printed)
			from = f->max_printed + 1;
		f->max_printed = l->line;
	}
	for (k = from; k <= l->line; k++)
		if (add_row(p, (struct ann_row){ANN_ROW_SOURCE, 0, li, k, f->lines[k - 1]}))
			return -ENOMEM;
	return 0;
}

int annotation_rows(struct annotation *a, int source, const struct ann_row **rows, size_t *n)
{
	struct ann_priv *p = a->priv;
	uint32_t prev = 0;
	size_t i;

	p->nr_rows = 0;
	for (i = 0; i < p->nr_files; i++)
		p->files[i].max_printed = 0;
	for (i = 0; i < a->nr_lines; i++) /* a Python function's */
		if (add_row(p, (struct ann_row){ANN_ROW_SOURCE, (uint32_t)i, 1, a->lines[i].line,
						a->lines[i].text}))
			return -ENOMEM;
	for (i = 0; i < a->nr_insns; i++) {
		uint32_t li = a->insns[i].loc;

		if (source && li && li != prev) {
			const struct ann_loc *l = &a->locs[li], *pl = prev ? &a->locs[prev] : NULL;

			if ((l->depth || (pl && pl->depth)) &&
			    (!pl || pl->func != l->func || pl->depth != l->depth) &&
			    add_row(p, (struct ann_row){ANN_ROW_FUNC, 0, li, 0, NULL}))
				return -ENOMEM;
			if (l->file && source_rows(a, li))
				return -ENOMEM;
		}
		if (li)
			prev = li;
		if (add_row(p, (struct ann_row){ANN_ROW_INSN, (uint32_t)i, 0, 0, NULL}))
			return -ENOMEM;
	}
	*rows = p->rows;
	*n = p->nr_rows;
	return 0;
}

static int hot_cmp(const void *x, const void *y, void *ctx)
{
	const struct annotation *an = ctx;
	const struct ann_insn *a = &an->insns[*(const uint32_t *)x],
			      *b = &an->insns[*(const uint32_t *)y];

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int hot_line_cmp(const void *x, const void *y, void *ctx)
{
	const struct annotation *an = ctx;
	const struct ann_line *a = &an->lines[*(const uint32_t *)x],
			      *b = &an->lines[*(const uint32_t *)y];

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

int annotation_hottest(struct annotation *a, const uint32_t **order, size_t *n)
{
	struct ann_priv *p = a->priv;
	size_t i, nr = a->python ? a->nr_lines : a->nr_insns;

	if (!p->hot) {
		p->hot = malloc((nr ? nr : 1) * sizeof(*p->hot));
		if (!p->hot)
			return -ENOMEM;
		p->nr_hot = 0;
		for (i = 0; i < nr; i++)
			if (a->python ? a->lines[i].nr : a->insns[i].nr)
				p->hot[p->nr_hot++] = (uint32_t)i;
		qsort_r(p->hot, p->nr_hot, sizeof(*p->hot), a->python ? hot_line_cmp : hot_cmp, a);
	}
	*order = p->hot;
	*n = p->nr_hot;
	return 0;
}

char *annotation_srcline(const struct annotation *a, size_t i, char *buf, size_t n)
{
	const struct ann_loc *l = i < a->nr_insns ? &a->locs[a->insns[i].loc] : NULL;

	if (a->python && i < a->nr_lines)
		snprintf(buf, n, "%s:%u", a->module, a->lines[i].line);
	else if (!l || !l->file || !l->line)
		snprintf(buf, n, "??:0");
	else
		snprintf(buf, n, "%s:%u", zt_base_name(l->file), l->line);
	return buf;
}

/* ---- a Python function ---- */

/* The line of hit h of a's Python function (pyframes' rule, the report's):
 * into *line, 0 when none is known. 0 or -ENOMEM. */
static int py_hit_line(struct annotation *a, const struct ann_hit *h, uint32_t *line)
{
	struct pyframe f;
	int ret;

	*line = 0;
	if (h->off >= PROF_PY_NO_LASTI)
		return 0;
	ret = pyframes_lookup(a->priv->py, prof_py_ip(prof_py_code(a->start), (uint32_t)h->off),
			      &f);
	if (!ret)
		*line = f.loc.line;
	return ret;
}

static int place_line(struct annotation *a, const struct ann_hit *h)
{
	uint32_t line;
	int ret = py_hit_line(a, h, &line);

	if (ret)
		return ret;
	if (a->nr_lines && line >= a->lines[0].line && line - a->lines[0].line < a->nr_lines) {
		a->lines[line - a->lines[0].line].weight += h->weight;
		a->lines[line - a->lines[0].line].nr += h->nr;
	} else {
		a->unplaced_weight += h->weight;
		a->unplaced_nr += h->nr;
	}
	return 0;
}

/* The last line any instruction of c is on, 0 when none is known: the
 * location table an entry at a time (an entry's first byte has bit 7
 * set), each entry's line from the line before it (pyline_of() of the
 * table from that entry, counted from that line). */
static uint32_t py_last_line(const struct prof_pycode *c)
{
	const uint8_t *t = c->linetable;
	size_t len = c->linetable_len, i = 0;
	int32_t line = c->firstlineno;
	uint32_t last = 0;

	if (c->minor < 11 || !t)
		return 0;
	while (i < len && (t[i] & 128)) {
		int l = pyline_of(t + i, len - i, line, 0);

		if (l >= 0) { /* -1: an entry without a line, the line stays */
			line = l;
			last = (uint32_t)l > last ? (uint32_t)l : last;
		}
		for (i++; i < len && !(t[i] & 128); i++)
			;
	}
	return last;
}

/* The text of a's lines from its file, or why not in a->source_err. 0 or
 * -ENOMEM. */
static int py_source(struct annotation *a)
{
	struct srcfile *f = NULL;
	char *why = NULL;
	size_t i = 0;
	int r;

	/* "<string>", "<frozen ...>": no file */
	if (a->path[0] && a->path[0] != '<' && !(f = get_file(a->priv, a->path, ANN_MAX_PY_SOURCE)))
		return -ENOMEM;
	if (!f) {
		r = asprintf(&why, "'%s' names no file (code compiled from a string, or frozen)",
			     a->path);
	} else if (f->failed == EFBIG) {
		r = asprintf(&why, "'%s' is larger than %u MiB: not read", a->path,
			     ANN_MAX_PY_SOURCE >> 20);
	} else if (f->failed == ESPIPE) {
		r = asprintf(&why, "'%s' is not a regular file: not read", a->path);
	} else if (f->failed) {
		r = asprintf(&why, "cannot read '%s': %s", a->path, strerror(f->failed));
	} else {
		for (; i < a->nr_lines && a->lines[i].line <= f->nr_lines; i++)
			a->lines[i].text = f->lines[a->lines[i].line - 1];
		a->have_source = i > 0;
		if (i == a->nr_lines)
			return 0;
		r = asprintf(&why,
			     "'%s' has %u lines, the function's go to %u: not the file that was "
			     "recorded?",
			     a->path, f->nr_lines, a->lines[a->nr_lines - 1].line);
	}
	if (r < 0 || !own(a, why))
		return -ENOMEM;
	a->source_err = why;
	return 0;
}

int annotation_build_python(struct annotation *a, const struct ann_profile *ap,
			    const struct ann_sym *s, char *err, size_t n)
{
	const struct prof_pycode *c;
	uint32_t code = prof_py_code(s->start), first, last, line;
	size_t i;
	int ret;

	err[0] = 0;
	if ((ret = ann_start(a, ap, s, 2)))
		goto out;
	if (!s->python || !ap->p || code >= ap->p->nr_pycodes) {
		ret = -EINVAL;
		snprintf(err, n, "'%s' is not a Python function of the recording", s->name);
		goto out;
	}
	c = &ap->p->pycodes[code];
	a->python = 1;
	a->start = s->start;
	if (!(a->path = strdup(c->filename ? c->filename : "")) ||
	    (ret = pyframes_new(ap->p, &a->priv->py))) {
		ret = -ENOMEM;
		goto out;
	}
	/* from its first line to its last: the table's, or a sample's */
	first = c->firstlineno > 0 ? (uint32_t)c->firstlineno : 1;
	last = py_last_line(c);
	for (i = 0; i < s->nr_hits; i++) {
		if ((ret = py_hit_line(a, &ap->hits[s->first_hit + i], &line)))
			goto out;
		first = line && line < first ? line : first;
		last = line > last ? line : last;
	}
	if (last < first)
		last = first;
	if (last - first >= ANN_MAX_PY_LINES) /* a damaged table: samples past it unplaced */
		last = first + ANN_MAX_PY_LINES - 1;
	a->nr_lines = last - first + 1;
	a->lines = calloc(a->nr_lines, sizeof(*a->lines));
	if (!a->lines) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < a->nr_lines; i++)
		a->lines[i].line = first + (uint32_t)i;
	a->locs[1] = (struct ann_loc){a->name, a->path, first, 0, NULL, 0};
	a->nr_locs = 2;
	if (!(ret = count_hits(a, ap, s, place_line)))
		ret = py_source(a);
out:
	if (ret == -ENOMEM)
		snprintf(err, n, "%s", strerror(ENOMEM));
	if (ret)
		annotation_release(a);
	return ret;
}
