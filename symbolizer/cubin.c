// SPDX-License-Identifier: GPL-2.0-or-later
/* Cubins (EM_CUDA ELF files): device functions from the symbol table.
 * (Line tables: to come; until then every frame is a name only.) */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/cubin.h"

struct cubin_sym {
	uint64_t value, size;
	uint32_t shndx;
	const char *name; /* into names */
	uint8_t kernel;	  /* a section's own function (value 0, GLOBAL, size of the section) */
};

struct cubin {
	struct cubin_sym *syms; /* by section, then value, then size descending */
	size_t nr_syms;
	char *names;
	int has_lines;
};

int cubin_is_cubin(const void *data, size_t len)
{
	const unsigned char *p = data;

	return len >= 64 && !memcmp(p, ELFMAG, SELFMAG) && p[EI_CLASS] == ELFCLASS64 &&
	       p[EI_DATA] == ELFDATA2LSB && p[18] == (CUBIN_EM_CUDA & 0xff) &&
	       p[19] == (CUBIN_EM_CUDA >> 8);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct cubin_sym *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int read_syms(struct cubin *c, Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t shnum, names_len = 0, n = 0;

	if (elf_getshdrnum(e, &shnum))
		return -EINVAL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, cnt;

		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		if (sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -EINVAL;
		cnt = d->d_size / sh.sh_entsize;
		/* two passes: sizes, then copies */
		for (int pass = 0; pass < 2; pass++) {
			char *w = c->names;

			n = 0;
			for (i = 1; i < cnt; i++) {
				GElf_Sym s;
				const char *nm;

				if (!gelf_getsym(d, (int)i, &s) ||
				    GELF_ST_TYPE(s.st_info) != STT_FUNC ||
				    s.st_shndx == SHN_UNDEF || s.st_shndx >= shnum)
					continue;
				nm = elf_strptr(e, sh.sh_link, s.st_name);
				if (!nm || !*nm)
					continue;
				if (!pass) {
					names_len += strlen(nm) + 1;
					n++;
					continue;
				}
				c->syms[n] = (struct cubin_sym){.value = s.st_value,
								.size = s.st_size,
								.shndx = s.st_shndx,
								.name = w};
				strcpy(w, nm);
				w += strlen(nm) + 1;
				n++;
			}
			if (!pass) {
				c->syms = calloc(n ? n : 1, sizeof(*c->syms));
				c->names = malloc(names_len ? names_len : 1);
				if (!c->syms || !c->names)
					return -ENOMEM;
			}
		}
		break; /* one symbol table */
	}
	c->nr_syms = n;
	qsort(c->syms, n, sizeof(*c->syms), sym_cmp);
	return 0;
}

static int has_section(Elf *e, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (elf_getshdrstrndx(e, &shstr))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstr, sh.sh_name)) &&
		    !strcmp(n, name))
			return 1;
	}
	return 0;
}

int cubin_open(const void *data, size_t len, struct cubin **out)
{
	struct cubin *c;
	char *copy;
	Elf *e;
	int ret;

	*out = NULL;
	if (!cubin_is_cubin(data, len))
		return -EINVAL;
	elf_version(EV_CURRENT);
	copy = malloc(len);
	c = calloc(1, sizeof(*c));
	if (!copy || !c) {
		free(copy);
		free(c);
		return -ENOMEM;
	}
	memcpy(copy, data, len);
	e = elf_memory(copy, len);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		ret = -EINVAL;
		goto out;
	}
	ret = read_syms(c, e);
	if (!ret)
		c->has_lines = has_section(e, ".debug_line");
out:
	if (e)
		elf_end(e);
	free(copy);
	if (ret) {
		cubin_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void cubin_free(struct cubin *c)
{
	if (!c)
		return;
	free(c->syms);
	free(c->names);
	free(c);
}

int cubin_has_lines(const struct cubin *c)
{
	return c->has_lines;
}

int cubin_resolve(const struct cubin *c, const char *func, uint64_t pc, struct cubin_frame *out,
		  size_t max)
{
	const struct cubin_sym *k = NULL, *in = NULL;
	size_t i, n = 0;

	if (!max)
		return 0;
	for (i = 0; i < c->nr_syms; i++)
		if (c->syms[i].value == 0 && !strcmp(c->syms[i].name, func)) {
			k = &c->syms[i];
			break;
		}
	if (!k || (k->size && pc >= k->size))
		return 0;
	/* the innermost symbol of the kernel's section holding pc */
	for (i = 0; i < c->nr_syms; i++) {
		const struct cubin_sym *s = &c->syms[i];

		if (s->shndx == k->shndx && s != k && pc >= s->value && pc < s->value + s->size &&
		    (!in || s->size < in->size))
			in = s;
	}
	if (in)
		out[n++] = (struct cubin_frame){.func = in->name};
	if (n < max)
		out[n++] = (struct cubin_frame){.func = k->name};
	return (int)n;
}

int cubin_functions(const struct cubin *c,
		    int (*cb)(void *ctx, const char *name, uint64_t size, int kernel), void *ctx)
{
	size_t i;
	int ret;

	for (i = 0; i < c->nr_syms; i++)
		if ((ret = cb(ctx, c->syms[i].name, c->syms[i].size, c->syms[i].value == 0)))
			return ret;
	return 0;
}
