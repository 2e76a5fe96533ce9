/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbols for the PLT stubs of an executable or shared object, named as
 * perf 6.1 names them (dso__synthesize_plt_symbols), for the samples that
 * land in a stub.
 *
 * One "NAME@plt" per relocation of .rela.plt (else .rel.plt, when it is
 * linked to .dynsym), in relocation order: NAME is the .dynsym symbol the
 * relocation names, left mangled (demangled when shown, as every name;
 * zt_demangle() keeps the "@plt"), and empty when it names none (an
 * IRELATIVE relocation: "@plt"). The stubs are .plt's entries after its
 * header, sized by the machine as perf sizes them (x86: header and entry
 * of .plt's sh_entsize; Arm, AArch64, SPARC: perf's fixed sizes).
 * Where perf 6.1 differs (see pltsyms.c): entries past the end of .plt
 * are not made, and on x86 the stubs of .plt.sec (IBT layouts, where the
 * calls go) are named too, as newer perf names them.
 */
#ifndef ZT_PLTSYMS_H
#define ZT_PLTSYMS_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

struct pltsym {
	uint64_t addr; /* the stub's virtual address */
	uint64_t size;
	uint32_t name; /* offset of "NAME@plt" in the table's names */
};

struct pltsyms {
	struct pltsym *syms; /* .plt's stubs by address, then .plt.sec's */
	size_t nr, cap;
	char *names; /* NUL-terminated names, shared by the stubs of a symbol */
	size_t names_len, names_cap;
};

void pltsyms_init(struct pltsyms *p);
void pltsyms_release(struct pltsyms *p);

/*
 * Read the stubs of elf (borrowed; only for the call) into p (initialized,
 * and empty). A file without a PLT, a relocatable object or a damaged
 * table gives none. Returns 0 or -ENOMEM.
 */
int pltsyms_read(struct pltsyms *p, Elf *elf);

static inline const char *pltsyms_name(const struct pltsyms *p, size_t i)
{
	return p->names + p->syms[i].name;
}

#endif
