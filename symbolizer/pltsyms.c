// SPDX-License-Identifier: GPL-2.0-or-later
/* PLT stub symbols as perf 6.1 makes them (see pltsyms.h). */
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "symbolizer/pltsyms.h"

/* perf formats "%s@plt" into a 1024-byte buffer: longer names are cut */
#define PLT_NAME_MAX 1023
#define NO_NAME	     UINT32_MAX

/* The relocations perf names stubs by, and the symbols they name. */
struct plt_rels {
	Elf_Data *rel; /* .rela.plt or .rel.plt */
	int is_rela;
	size_t nr;
	Elf_Data *syms, *strs; /* .dynsym and its string table */
	size_t nr_syms;
	uint32_t *sym_name; /* symbol index -> name offset (NO_NAME: not made yet) */
};

void pltsyms_init(struct pltsyms *p)
{
	memset(p, 0, sizeof(*p));
}

void pltsyms_release(struct pltsyms *p)
{
	free(p->syms);
	free(p->names);
	pltsyms_init(p);
}

/* The first section named name (as perf's elf_section_by_name), or NULL. */
static Elf_Scn *scn_named(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	const char *n;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	return NULL;
}

/*
 * perf's header and entry sizes of .plt by machine (its FIXME: machines
 * other than these are taken by sh_entsize). x86: sh_entsize, which GNU
 * ld sets to 16 on x86-64; it sets 4 on i386 and lld sets 0, where perf
 * 6.1 names the wrong bytes (all at .plt's start with lld): there, as
 * later perf does, an entry has 8 or 16 bytes as the section's alignment
 * says.
 */
static void plt_sizes(const GElf_Ehdr *eh, const GElf_Shdr *plt, uint64_t *header, uint64_t *entry)
{
	switch (eh->e_machine) {
	case EM_ARM:
		*header = 20;
		*entry = 12;
		break;
	case EM_AARCH64:
		*header = 32;
		*entry = 16;
		break;
	case EM_SPARC:
		*header = 48;
		*entry = 12;
		break;
	case EM_SPARCV9:
		*header = 128;
		*entry = 32;
		break;
	case EM_386:
	case EM_X86_64:
		*entry = plt->sh_entsize;
		if (*entry != 8 && *entry != 16)
			*entry = plt->sh_addralign == 8 ? 8 : 16;
		*header = *entry;
		break;
	default:
		*header = plt->sh_entsize;
		*entry = plt->sh_entsize;
		break;
	}
}

/* perf's relocations: .rela.plt, else .rel.plt, linked to the section
 * named .dynsym (of type SHT_DYNSYM). 1 when there are some, else 0. */
static int find_rels(struct plt_rels *r, Elf *elf, size_t shstrndx)
{
	GElf_Shdr dsh, rsh;
	Elf_Scn *dscn, *rscn, *sscn;
	size_t relsz, symsz;

	dscn = scn_named(elf, shstrndx, ".dynsym", &dsh);
	if (!dscn || dsh.sh_type != SHT_DYNSYM)
		return 0;
	if (!(rscn = scn_named(elf, shstrndx, ".rela.plt", &rsh)) &&
	    !(rscn = scn_named(elf, shstrndx, ".rel.plt", &rsh)))
		return 0;
	if ((rsh.sh_type != SHT_RELA && rsh.sh_type != SHT_REL) || rsh.sh_link != elf_ndxscn(dscn))
		return 0;
	r->is_rela = rsh.sh_type == SHT_RELA;
	r->rel = elf_getdata(rscn, NULL);
	r->syms = elf_getdata(dscn, NULL);
	sscn = elf_getscn(elf, dsh.sh_link);
	r->strs = sscn ? elf_getdata(sscn, NULL) : NULL;
	relsz = gelf_fsize(elf, r->is_rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	symsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!r->rel || !r->rel->d_buf || !r->syms || !r->syms->d_buf || !r->strs ||
	    !r->strs->d_buf || !r->strs->d_size || !relsz || !symsz)
		return 0;
	r->nr = r->rel->d_size / relsz;
	r->nr_syms = r->syms->d_size / symsz;
	if (r->nr > INT_MAX)
		r->nr = INT_MAX;
	if (r->nr_syms > INT_MAX)
		r->nr_syms = INT_MAX;
	return r->nr > 0;
}

/* The symbol index relocation i names, or -1 when it cannot be read. */
static long rel_sym(const struct plt_rels *r, size_t i)
{
	GElf_Rela ra;
	GElf_Rel rl;

	if (r->is_rela)
		return gelf_getrela(r->rel, (int)i, &ra) ? (long)GELF_R_SYM(ra.r_info) : -1;
	return gelf_getrel(r->rel, (int)i, &rl) ? (long)GELF_R_SYM(rl.r_info) : -1;
}

/* Append "NAME@plt" (NAME: len bytes at s) to p's names; its offset into
 * *off. 0 or -ENOMEM. */
static int add_name(struct pltsyms *p, const char *s, size_t len, uint32_t *off)
{
	size_t need;

	if (len > PLT_NAME_MAX - 4)
		len = PLT_NAME_MAX - 4;
	need = p->names_len + len + 5;
	if (need >= NO_NAME || ZT_GROW(p->names, p->names_cap, need))
		return -ENOMEM;
	memcpy(p->names + p->names_len, s, len);
	memcpy(p->names + p->names_len + len, "@plt", 5);
	*off = (uint32_t)p->names_len;
	p->names_len = need;
	return 0;
}

/* The name offset of the stub of relocation i into *off (NO_NAME when its
 * symbol cannot be read), made once per symbol. 0 or -ENOMEM. */
static int stub_name(struct pltsyms *p, struct plt_rels *r, size_t i, uint32_t *off)
{
	const char *strs = r->strs->d_buf;
	size_t strsz = r->strs->d_size, len;
	long k = rel_sym(r, i);
	GElf_Sym s;
	int err;

	*off = NO_NAME;
	if (k < 0 || (size_t)k >= r->nr_syms || !gelf_getsym(r->syms, (int)k, &s))
		return 0;
	if (r->sym_name[k] != NO_NAME) {
		*off = r->sym_name[k];
		return 0;
	}
	/* symbol 0 (IRELATIVE) has the empty name: "@plt" */
	if (s.st_name >= strsz)
		return 0;
	len = strnlen(strs + s.st_name, strsz - s.st_name);
	if (len == strsz - s.st_name)
		return 0;
	if ((err = add_name(p, strs + s.st_name, len, off)))
		return err;
	r->sym_name[k] = *off;
	return 0;
}

/* The stubs of relocations names[0..nr) at base, entry bytes each, up to
 * end. 0 or -ENOMEM. */
static int add_stubs(struct pltsyms *p, const uint32_t *names, size_t nr, uint64_t base,
		     uint64_t entry, uint64_t end)
{
	size_t i, fit;

	if (!entry || base >= end)
		return 0;
	fit = (end - base) / entry < nr ? (size_t)((end - base) / entry) : nr;
	if (p->nr + fit < fit || ZT_GROW(p->syms, p->cap, p->nr + fit))
		return -ENOMEM;
	for (i = 0; i < fit; i++)
		if (names[i] != NO_NAME)
			p->syms[p->nr++] = (struct pltsym){base + i * entry, entry, names[i]};
	return 0;
}

/* Where section sh ends, or 0 when it holds no code at addresses. */
static uint64_t code_end(const GElf_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || !(sh->sh_flags & SHF_ALLOC) ||
	    sh->sh_addr + sh->sh_size < sh->sh_addr)
		return 0;
	return sh->sh_addr + sh->sh_size;
}

/*
 * The stubs of .plt, and of .plt.sec on x86. perf 6.1 does not look at
 * .plt.sec: in an IBT layout it names .plt's lazy-binding entries (entry i
 * still belongs to relocation i) and leaves the .plt.sec stubs the calls
 * go through unnamed; perf 6.3 and later name those, and so does zt.
 */
static int add_sections(struct pltsyms *p, Elf *elf, size_t shstrndx, const uint32_t *names,
			size_t nr)
{
	GElf_Shdr sh;
	GElf_Ehdr eh;
	uint64_t header, entry, end;
	int err;

	if (!gelf_getehdr(elf, &eh) || !scn_named(elf, shstrndx, ".plt", &sh) ||
	    !(end = code_end(&sh)))
		return 0;
	plt_sizes(&eh, &sh, &header, &entry);
	if (sh.sh_addr + header >= sh.sh_addr &&
	    (err = add_stubs(p, names, nr, sh.sh_addr + header, entry, end)))
		return err;
	if ((eh.e_machine != EM_X86_64 && eh.e_machine != EM_386) ||
	    !scn_named(elf, shstrndx, ".plt.sec", &sh) || !(end = code_end(&sh)))
		return 0;
	return add_stubs(p, names, nr, sh.sh_addr, sh.sh_entsize, end);
}

int pltsyms_read(struct pltsyms *p, Elf *elf)
{
	struct plt_rels r;
	uint32_t *names = NULL;
	size_t shstrndx, i;
	GElf_Ehdr eh;
	int err = 0;

	memset(&r, 0, sizeof(r));
	if (!gelf_getehdr(elf, &eh) || eh.e_type == ET_REL || elf_getshdrstrndx(elf, &shstrndx) ||
	    !find_rels(&r, elf, shstrndx))
		return 0;
	names = malloc(r.nr * sizeof(*names));
	r.sym_name = malloc((r.nr_syms ? r.nr_syms : 1) * sizeof(*r.sym_name));
	if (!names || !r.sym_name) {
		err = -ENOMEM;
		goto out;
	}
	memset(r.sym_name, 0xff, r.nr_syms * sizeof(*r.sym_name));
	for (i = 0; i < r.nr && !err; i++)
		err = stub_name(p, &r, i, &names[i]);
	if (!err)
		err = add_sections(p, elf, shstrndx, names, r.nr);
out:
	free(names);
	free(r.sym_name);
	return err;
}
