/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ELF symbol tables through libelf: FUNC symbols of .symtab (else .dynsym)
 * turned into a table sorted by file offset, and GNU build-id notes.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/log.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/symname.h"

struct esym {
	uint64_t off;  /* file offset of the first byte */
	uint64_t size; /* > 0 */
	uint32_t name; /* into names */
};

struct elfsym {
	struct esym *syms;
	size_t n;
	char *names; /* copy of the symbol string table, NUL-terminated */
	struct prof_build_id bid;
};

/*
 * A symbol while loading. addr lives in one "load space": the virtual
 * address for files with PT_LOAD headers, the file offset otherwise
 * (ET_REL, where values are section-relative and sections overlap in
 * address, and images without program headers).
 */
struct rawsym {
	uint64_t addr;
	uint64_t size;
	uint64_t limit; /* end of its section in the same space */
	uint32_t name;
	uint32_t seq;   /* index in the symbol table */
	uint8_t bind;   /* STB_* */
};

struct loadseg {
	uint64_t vaddr, memsz, offset;
};

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static int elf_ok;

static void elf_init_once(void)
{
	elf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

static int elf_lib_init(void)
{
	pthread_once(&elf_once, elf_init_once);
	return elf_ok ? 0 : -ENOEXEC;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* ---- build id ------------------------------------------------------------ */

static int find_build_id_note(Elf_Data *d, struct prof_build_id *b)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d || !d->d_buf)
		return 0;
	while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
		    d->d_size >= 4 && name_off <= d->d_size - 4 && desc_off <= d->d_size &&
		    nh.n_descsz <= d->d_size - desc_off &&
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0) {
			size_t n = nh.n_descsz < ZT_BUILD_ID_MAX ? nh.n_descsz : ZT_BUILD_ID_MAX;

			memcpy(b->data, (const char *)d->d_buf + desc_off, n);
			b->len = (uint8_t)n;
			return 1;
		}
		if (next <= off)
			break;
		off = next;
	}
	return 0;
}

/* The build id from PT_NOTE segments, else SHT_NOTE sections; a damaged
 * note is the same as none. */
static void read_build_id(Elf *elf, struct prof_build_id *b)
{
	Elf_Scn *scn = NULL;
	size_t i, phnum;

	memset(b, 0, sizeof(*b));
	if (elf_getphdrnum(elf, &phnum) == 0) {
		for (i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE || !ph.p_filesz ||
			    ph.p_offset > INT64_MAX)
				continue;
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if (find_build_id_note(d, b))
				return;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		if (find_build_id_note(elf_getdata(scn, NULL), b))
			return;
	}
}

/* ---- symbols ------------------------------------------------------------- */

/* By address, then table order. */
static int rawsym_cmp(const void *pa, const void *pb)
{
	const struct rawsym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static struct symname_cand rawsym_cand(const struct rawsym *r, const char *names, int last)
{
	return (struct symname_cand){ names + r->name, r->seq, r->size || last, r->bind };
}

static int esym_cmp(const void *pa, const void *pb)
{
	const struct esym *a = pa, *b = pb;

	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* The SHT_SYMTAB_SHNDX section that extends symbol table symscn, if any. */
static Elf_Data *find_xindex(Elf *elf, Elf_Scn *symscn)
{
	size_t idx = elf_ndxscn(symscn);
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX && sh.sh_link == idx)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/*
 * Read the FUNC symbols of symbol table symscn into *raw (in load space,
 * see struct rawsym) and its string table into *names. Returns the number
 * of symbols, or a negative errno.
 */
static long collect(Elf *elf, Elf_Scn *symscn, int use_phdrs, int is_rel, struct rawsym **raw,
		    char **names)
{
	Elf_Data *data, *strd, *xd;
	Elf_Scn *strscn;
	GElf_Shdr symsh, sh;
	size_t entsz, nsyms, i, n = 0, last_shndx = 0, strsz;
	struct rawsym *r = NULL;
	char *strs = NULL;
	long ret;

	*raw = NULL;
	*names = NULL;
	if (!gelf_getshdr(symscn, &symsh))
		return -ENOEXEC;
	data = elf_getdata(symscn, NULL);
	entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	strscn = elf_getscn(elf, symsh.sh_link);
	strd = strscn ? elf_getdata(strscn, NULL) : NULL;
	if (!data || !data->d_buf || !entsz || !strd || !strd->d_buf || !strd->d_size ||
	    strd->d_size >= UINT32_MAX)
		return 0;
	nsyms = data->d_size / entsz;
	strsz = strd->d_size;
	strs = malloc(strsz + 1);
	r = nsyms ? calloc(nsyms, sizeof(*r)) : NULL;
	if (!strs || (nsyms && !r)) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(strs, strd->d_buf, strsz);
	strs[strsz] = 0;
	xd = find_xindex(elf, symscn);

	memset(&sh, 0, sizeof(sh));
	for (i = 1; i < nsyms; i++) {
		GElf_Sym s;
		Elf32_Word xndx = 0;
		size_t shndx;
		uint64_t v, lo, hi;
		int type;

		if (!gelf_getsymshndx(data, xd, (int)i, &s, &xndx))
			continue;
		type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (!s.st_name || s.st_name >= strsz || !strs[s.st_name])
			continue;
		shndx = s.st_shndx;
		if (shndx == SHN_XINDEX)
			shndx = xd ? xndx : 0;
		else if (shndx >= SHN_LORESERVE)
			continue;
		if (shndx == SHN_UNDEF)
			continue;
		if (shndx != last_shndx) {
			Elf_Scn *scn = elf_getscn(elf, shndx);

			last_shndx = 0;
			if (!scn || !gelf_getshdr(scn, &sh))
				continue;
			last_shndx = shndx;
		}
		v = s.st_value;
		if (is_rel) {
			/* values are section-relative; 0 is a real address */
			if (sh.sh_type == SHT_NOBITS || v >= sh.sh_size)
				continue;
			r[n].addr = sat_add(sh.sh_offset, v);
			r[n].limit = sat_add(sh.sh_offset, sh.sh_size);
		} else if (!v) {
			continue;
		} else if (use_phdrs) {
			lo = sh.sh_addr;
			hi = sat_add(sh.sh_addr, sh.sh_size);
			r[n].addr = v;
			r[n].limit = v >= lo && v < hi ? hi : UINT64_MAX;
		} else {
			if (sh.sh_type == SHT_NOBITS || v < sh.sh_addr || v - sh.sh_addr >= sh.sh_size)
				continue;
			r[n].addr = sat_add(sh.sh_offset, v - sh.sh_addr);
			r[n].limit = sat_add(sh.sh_offset, sh.sh_size);
		}
		r[n].size = s.st_size;
		r[n].name = s.st_name;
		r[n].seq = (uint32_t)i;
		r[n].bind = (uint8_t)GELF_ST_BIND(s.st_info);
		n++;
	}
	*raw = r;
	*names = strs;
	r = NULL;
	strs = NULL;
	ret = (long)n;
out:
	free(r);
	free(strs);
	return ret;
}

/* Sort, keep perf's name at each address (symname_cmp()), give sizeless
 * symbols an extent. */
static size_t finish_raw(struct rawsym *r, size_t n, const char *names)
{
	size_t i, j, m = 0;

	qsort(r, n, sizeof(*r), rawsym_cmp);
	for (i = 0; i < n; i = j) {
		struct symname_cand bc = rawsym_cand(&r[i], names, i + 1 == n || r[i + 1].addr != r[i].addr);
		size_t best = i;

		for (j = i + 1; j < n && r[j].addr == r[i].addr; j++) {
			struct symname_cand c = rawsym_cand(&r[j], names, j + 1 == n || r[j + 1].addr != r[j].addr);

			if (symname_cmp(&c, &bc) < 0) {
				bc = c;
				best = j;
			}
		}
		/* a sizeless choice means all are sizeless: it ends at the next one */
		r[m++] = r[best];
	}
	for (i = 0, j = 0; i < m; i++) {
		if (!r[i].size) {
			uint64_t end = r[i].limit;

			if (i + 1 < m && r[i + 1].addr < end)
				end = r[i + 1].addr;
			r[i].size = end > r[i].addr ? end - r[i].addr : 0;
		}
		if (r[i].size)
			r[j++] = r[i];
	}
	return j;
}

static int load_segments(Elf *elf, struct loadseg **out, size_t *nout)
{
	struct loadseg *segs = NULL;
	size_t i, phnum, n = 0;

	*out = NULL;
	*nout = 0;
	if (elf_getphdrnum(elf, &phnum) != 0 || !phnum)
		return 0;
	segs = calloc(phnum, sizeof(*segs));
	if (!segs)
		return -ENOMEM;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_memsz)
			continue;
		segs[n].vaddr = ph.p_vaddr;
		segs[n].memsz = ph.p_memsz;
		segs[n].offset = ph.p_offset;
		n++;
	}
	if (!n) {
		free(segs);
		return 0;
	}
	*out = segs;
	*nout = n;
	return 0;
}

/* vaddr -> file offset through the PT_LOAD that holds it; the extent is
 * clipped to the segment. Returns 0 if no segment holds addr. */
static int to_file_offset(const struct loadseg *segs, size_t nseg, const struct rawsym *r,
			  struct esym *out)
{
	size_t i;

	for (i = 0; i < nseg; i++) {
		uint64_t d, room;

		if (r->addr < segs[i].vaddr || r->addr - segs[i].vaddr >= segs[i].memsz)
			continue;
		d = r->addr - segs[i].vaddr;
		if (segs[i].offset + d < segs[i].offset)
			return 0;
		room = segs[i].memsz - d;
		out->off = segs[i].offset + d;
		out->size = r->size < room ? r->size : room;
		out->name = r->name;
		return 1;
	}
	return 0;
}

static int load(Elf *elf, struct elfsym *e)
{
	struct loadseg *segs = NULL;
	struct rawsym *raw = NULL;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Ehdr eh;
	size_t nseg, i, n = 0;
	long got = 0;
	int ret, is_rel, use_phdrs, sorted = 1;

	if (!gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	read_build_id(elf, &e->bid);
	ret = load_segments(elf, &segs, &nseg);
	if (ret)
		goto out;
	is_rel = eh.e_type == ET_REL;
	use_phdrs = !is_rel && nseg > 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
	}
	if (symtab) {
		got = collect(elf, symtab, use_phdrs, is_rel, &raw, &e->names);
		if (got < 0) {
			ret = (int)got;
			goto out;
		}
	}
	if (!got && dynsym) {
		free(raw);
		free(e->names);
		got = collect(elf, dynsym, use_phdrs, is_rel, &raw, &e->names);
		if (got < 0) {
			ret = (int)got;
			goto out;
		}
	}
	if (!got)
		goto out;

	n = finish_raw(raw, (size_t)got, e->names);
	e->syms = calloc(n ? n : 1, sizeof(*e->syms));
	if (!e->syms) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct esym *s = &e->syms[e->n];

		if (use_phdrs) {
			if (!to_file_offset(segs, nseg, &raw[i], s))
				continue;
		} else {
			s->off = raw[i].addr;
			s->size = raw[i].size;
			s->name = raw[i].name;
		}
		if (e->n && esym_cmp(&e->syms[e->n - 1], s) > 0)
			sorted = 0;
		e->n++;
	}
	if (!sorted)
		qsort(e->syms, e->n, sizeof(*e->syms), esym_cmp);
out:
	free(raw);
	free(segs);
	return ret;
}

static int open_elf(Elf *elf, struct elfsym **out)
{
	struct elfsym *e = NULL;
	int ret;

	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		ret = -ENOMEM;
		goto out;
	}
	ret = load(elf, e);
	if (ret) {
		elfsym_free(e);
		goto out;
	}
	*out = e;
out:
	return ret;
}

int elfsym_open(const char *path, struct elfsym **out)
{
	Elf *elf = NULL;
	struct stat st;
	int fd, ret;

	*out = NULL;
	ret = elf_lib_init();
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -ENOEXEC;
		goto out;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ret = open_elf(elf, out);
	if (ret)
		zt_debug("elfsym: cannot read '%s': %s", path,
			 elf ? elf_errmsg(-1) : "not an ELF file");
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int elfsym_open_mem(const void *data, size_t len, struct elfsym **out)
{
	Elf *elf = NULL;
	char *copy = NULL;
	int ret;

	*out = NULL;
	ret = elf_lib_init();
	if (ret)
		return ret;
	if (len < EI_NIDENT)
		return -ENOEXEC;
	/* libelf may write into a private image: give it our own copy */
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, len);
	elf = elf_memory(copy, len);
	ret = open_elf(elf, out);
	if (elf)
		elf_end(elf);
	free(copy);
	return ret;
}

void elfsym_free(struct elfsym *e)
{
	if (!e)
		return;
	free(e->syms);
	free(e->names);
	free(e);
}

const char *elfsym_lookup(const struct elfsym *e, uint64_t off, uint64_t *sym_off)
{
	size_t lo = 0, hi = e->n;
	const struct esym *s;

	/* the last symbol starting at or before off */
	lo = ZT_UPPER_BOUND(e->syms, hi, off, off);
	if (!lo)
		return NULL;
	s = &e->syms[lo - 1];
	if (off - s->off >= s->size)
		return NULL;
	if (sym_off)
		*sym_off = off - s->off;
	return e->names + s->name;
}

size_t elfsym_count(const struct elfsym *e)
{
	return e->n;
}

const struct prof_build_id *elfsym_build_id(const struct elfsym *e)
{
	return &e->bid;
}

int elf_read_build_id_fd(int fd, struct prof_build_id *b)
{
	struct stat st;
	Elf *elf;
	int ret;

	memset(b, 0, sizeof(*b));
	ret = elf_lib_init();
	if (ret)
		return ret;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out;
	}
	read_build_id(elf, b);
out:
	if (elf)
		elf_end(elf);
	return ret;
}

int elf_read_build_id(const char *path, struct prof_build_id *b)
{
	int fd, ret;

	memset(b, 0, sizeof(*b));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = elf_read_build_id_fd(fd, b);
	close(fd);
	return ret;
}

/* [off, off + n * each) inside a file of size bytes, without overflow. */
static int table_fits(uint64_t off, uint64_t n, uint64_t each, uint64_t size)
{
	return off <= size && (!each || n <= (size - off) / each);
}

/* Whether the section name table is inside the file (names can be read). */
static int names_fit(Elf *e, size_t shstrndx, uint64_t size)
{
	Elf_Scn *scn = elf_getscn(e, shstrndx);
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
	       table_fits(sh.sh_offset, sh.sh_size, 1, size);
}

int elf_check_fd(int fd, char *why, size_t n)
{
	unsigned char ident[EI_NIDENT];
	size_t shnum = 0, shstrndx = 0, i, hsize;
	struct stat st;
	GElf_Ehdr eh;
	Elf *e = NULL;
	int ret = -EBADMSG;

	snprintf(why, n, "file format not recognized");
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if ((ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64) ||
	    (ident[EI_DATA] != ELFDATA2LSB && ident[EI_DATA] != ELFDATA2MSB)) {
		snprintf(why, n, "an ELF header of an unknown class or byte order");
		return -EBADMSG;
	}
	if (elf_lib_init())
		return -ENOMEM;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	hsize = ident[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if ((uint64_t)st.st_size < hsize) {
		snprintf(why, n, "the ELF header is cut short (file truncated)");
		goto out;
	}
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		snprintf(why, n, "a bad ELF header: %s", elf_errmsg(-1));
		goto out;
	}
	if (eh.e_phnum && !table_fits(eh.e_phoff, eh.e_phnum, eh.e_phentsize, (uint64_t)st.st_size)) {
		snprintf(why, n, "program headers past the end of the file (file truncated?)");
		goto out;
	}
	/* the section count and name index may live in section 0 (extended numbering):
	 * e_shoff is checked before libelf reads it */
	if (eh.e_shoff &&
	    !table_fits(eh.e_shoff, eh.e_shnum ? eh.e_shnum : 1, eh.e_shentsize, (uint64_t)st.st_size)) {
		snprintf(why, n, "section headers past the end of the file (file truncated?)");
		goto out;
	}
	if (elf_getshdrnum(e, &shnum) || elf_getshdrstrndx(e, &shstrndx)) {
		snprintf(why, n, "a bad section header table: %s", elf_errmsg(-1));
		goto out;
	}
	if (eh.e_shoff && !table_fits(eh.e_shoff, shnum, eh.e_shentsize, (uint64_t)st.st_size)) {
		snprintf(why, n, "section headers past the end of the file (file truncated?)");
		goto out;
	}
	if (shnum && shstrndx >= shnum) {
		snprintf(why, n, "a bad section name table index (%zu of %zu sections)", shstrndx, shnum);
		goto out;
	}
	for (i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		const char *name;
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh)) {
			snprintf(why, n, "a bad section header %zu: %s", i, elf_errmsg(-1));
			goto out;
		}
		if (sh.sh_type == SHT_NOBITS || table_fits(sh.sh_offset, sh.sh_size, 1, (uint64_t)st.st_size))
			continue;
		name = names_fit(e, shstrndx, (uint64_t)st.st_size) ? elf_strptr(e, shstrndx, sh.sh_name)
							      : NULL;
		snprintf(why, n, "section '%s' past the end of the file (file truncated?)",
			 name ? name : "?");
		goto out;
	}
	why[0] = 0;
	ret = 0;
out:
	elf_end(e);
	return ret;
}

int elf_fd_has_dwarf(int fd)
{
	static const char *const names[] = {".debug_info", ".debug_line", ".zdebug_info",
					    ".zdebug_line"};
	Elf_Scn *scn = NULL;
	size_t shstrndx, i;
	GElf_Shdr sh;
	Elf *e;
	int found = 0;

	if (elf_lib_init())
		return 0;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return 0;
	if (elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx))
		goto out;
	while (!found && (scn = elf_nextscn(e, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		for (i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(name, names[i]))
				found = 1;
	}
out:
	elf_end(e);
	return found;
}
