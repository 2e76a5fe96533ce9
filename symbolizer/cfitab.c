/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Compact unwind tables from a binary's CFI, through libdw's CFI reader. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "symbolizer/cfitab.h"

/* x86-64's DWARF register numbers */
#define DW_X86_64_RBX 3
#define DW_X86_64_RBP 6
#define DW_X86_64_RSP 7
#define DW_X86_64_RA  16

void cfitab_init(struct cfitab *t)
{
	memset(t, 0, sizeof(*t));
}

void cfitab_release(struct cfitab *t)
{
	free(t->rows);
	cfitab_init(t);
}

/* Where register regno of the caller is, as an offset from the CFA:
 * 1 with *off (the register saved at CFA + *off), 0 for "same value"
 * (*same) or "undefined", -1 for a rule the table cannot express. */
static int saved_at(Dwarf_Frame *fr, int regno, int64_t *off, bool *same)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	*off = 0;
	*same = false;
	if (dwarf_frame_register(fr, regno, mem, &ops, &n))
		return -1;
	if (!n) {
		*same = !ops;
		return 0;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -1;
	if (n == 1)
		return 1;
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return 1;
	}
	return -1;
}

/*
 * The CFA expression of a lazy-binding PLT entry (16 bytes: a jump through
 * the GOT, then a push of the relocation index and a jump to PLT0), as the
 * linkers write it: %rsp + 8, plus 8 from the entry's offset 11 on (after
 * the push). r gets kind CFITAB_PLT, cfa_off 8 and the offset in fp_off.
 */
static bool plt_rule(const Dwarf_Op *ops, size_t n, struct cfitab_row *r)
{
	static const uint8_t atoms[] = {DW_OP_breg7,   DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
					DW_OP_ge,      DW_OP_lit3,   DW_OP_shl,	  DW_OP_plus};
	size_t i;

	if (n != sizeof(atoms) || ops[0].number > 64 || ops[1].number)
		return false;
	for (i = 0; i < n; i++)
		if (i != 4 && ops[i].atom != atoms[i])
			return false;
	if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15)
		return false;
	r->kind = CFITAB_PLT;
	r->cfa_reg = CFITAB_REG_SP;
	r->cfa_off = (int32_t)ops[0].number;
	r->fp = CFITAB_FP_SAME;
	r->fp_off = ops[4].atom - DW_OP_lit0;
	return true;
}

/* Where the caller's register regno is, as a cfitab_fp in *how and the
 * offset from the CFA in *off: false for a rule the table cannot express. */
static bool reg_rule(Dwarf_Frame *fr, int regno, uint8_t *how, int32_t *off)
{
	int64_t o;
	bool same;
	int at = saved_at(fr, regno, &o, &same);

	if (at < 0 || o < INT32_MIN || o > INT32_MAX)
		return false;
	*how = at ? CFITAB_FP_AT : same ? CFITAB_FP_SAME : CFITAB_FP_UNDEF;
	*off = at ? (int32_t)o : 0;
	return true;
}

/* The row of frame state fr (a signal frame's when sig). */
static void row_of(Dwarf_Frame *fr, bool sig, struct cfitab_row *r)
{
	Dwarf_Op *ops;
	size_t n;
	int64_t reg, off, ra, fp;
	bool same;

	r->kind = sig ? CFITAB_SIGNAL : CFITAB_UNSUPPORTED;
	if (sig || dwarf_frame_cfa(fr, &ops, &n))
		return;
	/* the outermost frame (_start, a thread's start): no caller */
	if (saved_at(fr, DW_X86_64_RA, &ra, &same) == 0 && !same) {
		r->kind = CFITAB_END;
		return;
	}
	if (plt_rule(ops, n, r)) {
		if (saved_at(fr, DW_X86_64_RA, &ra, &same) != 1 || ra != -8 ||
		    saved_at(fr, DW_X86_64_RBP, &fp, &same) != 0 || !same ||
		    !reg_rule(fr, DW_X86_64_RBX, &r->bx, &r->bx_off))
			*r = (struct cfitab_row){.addr = r->addr, .kind = CFITAB_UNSUPPORTED};
		return;
	}
	if (n != 1)
		return;
	if (ops[0].atom == DW_OP_bregx) {
		reg = (int64_t)ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else {
		return;
	}
	if ((reg != DW_X86_64_RSP && reg != DW_X86_64_RBP && reg != DW_X86_64_RBX) ||
	    off < INT32_MIN || off > INT32_MAX)
		return;
	/* the return address where a call put it */
	if (saved_at(fr, DW_X86_64_RA, &ra, &same) != 1 || ra != -8)
		return;
	if (!reg_rule(fr, DW_X86_64_RBP, &r->fp, &r->fp_off) ||
	    !reg_rule(fr, DW_X86_64_RBX, &r->bx, &r->bx_off)) {
		r->fp = r->bx = 0;
		r->fp_off = r->bx_off = 0;
		return;
	}
	r->kind = CFITAB_CFA;
	r->cfa_reg = reg == DW_X86_64_RSP ? CFITAB_REG_SP
		     : reg == DW_X86_64_RBP ? CFITAB_REG_FP : CFITAB_REG_BX;
	r->cfa_off = (int32_t)off;
}

static bool same_rule(const struct cfitab_row *a, const struct cfitab_row *b)
{
	return a->kind == b->kind && a->cfa_reg == b->cfa_reg && a->cfa_off == b->cfa_off &&
	       a->fp == b->fp && a->fp_off == b->fp_off && a->bx == b->bx && a->bx_off == b->bx_off;
}

/* Row r from r->addr on: merged into the last one when alike, in its
 * place when at the same address. */
static int push_row(struct cfitab *t, const struct cfitab_row *r)
{
	struct cfitab_row *last = t->nr ? &t->rows[t->nr - 1] : NULL;

	if (last && last->addr == r->addr) {
		if (last->kind == CFITAB_UNSUPPORTED)
			t->unsupported--;
		t->nr--;
		last = t->nr ? &t->rows[t->nr - 1] : NULL;
	}
	if (last && same_rule(last, r))
		return 0;
	if (ZT_GROW(t->rows, t->cap, t->nr + 1))
		return -ENOMEM;
	t->rows[t->nr++] = *r;
	if (r->kind == CFITAB_UNSUPPORTED)
		t->unsupported++;
	return 0;
}

struct span {
	uint64_t lo, hi;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The executable sections with contents, by address. */
static int code_spans(Elf *elf, struct span **out, size_t *nr)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	*out = NULL;
	*nr = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		if (ZT_GROW(*out, cap, *nr + 1)) {
			free(*out);
			*out = NULL;
			return -ENOMEM;
		}
		(*out)[(*nr)++] = (struct span){sh.sh_addr, sh.sh_addr + sh.sh_size};
	}
	if (*nr)
		qsort(*out, *nr, sizeof(**out), span_cmp);
	return 0;
}

/* Where functions' CFI starts (their FDEs' initial locations), sorted,
 * from .eh_frame_hdr's search table; none (nr 0) without one in the usual
 * encoding (version 1, a 4- or 8-byte eh_frame_ptr, a 4-byte count, and
 * pairs of 4-byte offsets from the header: DW_EH_PE_datarel|sdata4). */
struct starts {
	uint64_t *a;
	size_t nr;
};

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int fde_starts(Elf *elf, struct starts *st)
{
	Elf_Scn *scn = NULL;
	size_t shstr, i, n, at;

	st->a = NULL;
	st->nr = 0;
	if (elf_getshdrstrndx(elf, &shstr))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		const uint8_t *p;
		uint32_t cnt;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstr, sh.sh_name)) ||
		    strcmp(name, ".eh_frame_hdr") || !(d = elf_rawdata(scn, NULL)) || !d->d_buf ||
		    d->d_size < 4)
			continue;
		p = d->d_buf;
		if (p[0] != 1 || (p[2] & 0x0f) != 0x03 || p[3] != 0x3b)
			return 0;
		/* the table after the 4 bytes of versions and encodings, the
		 * eh_frame_ptr and the count */
		at = (p[1] & 0x0f) == 0x03 || (p[1] & 0x0f) == 0x0b   ? 12
		     : (p[1] & 0x0f) == 0x04 || (p[1] & 0x0f) == 0x0c ? 16
								      : 0;
		if (!at || d->d_size < at + 4)
			return 0;
		memcpy(&cnt, p + at - 4, 4);
		n = cnt;
		if (n > (d->d_size - at) / 8)
			return 0;
		if (!n || !(st->a = malloc(n * sizeof(*st->a))))
			return n ? -ENOMEM : 0;
		for (i = 0; i < n; i++) {
			int32_t rel;

			memcpy(&rel, p + at + 8 * i, 4);
			st->a[i] = sh.sh_addr + (uint64_t)(int64_t)rel;
		}
		qsort(st->a, n, sizeof(*st->a), u64_cmp);
		st->nr = n;
		return 0;
	}
	return 0;
}

/* The first function start after addr, or UINT64_MAX. */
static uint64_t next_start(const struct starts *st, uint64_t addr)
{
	size_t n = zt_upper_bound_u64(st->a, st->nr, sizeof(*st->a), 0, addr);

	return n < st->nr ? st->a[n] : UINT64_MAX;
}

/* Without function starts (no .eh_frame_hdr, rare), a gap without CFI
 * is probed at each 16-byte boundary, where compilers start functions
 * (one that starts elsewhere loses its first bytes' row: the unwinder
 * falls back to the frame pointer there): at most this many times, plus
 * 16 for each row found, so that a file with little CFI (a crafted one)
 * cannot make the work large. */
#define MAX_PROBES 4096

/* The rows of [lo, hi) from cfi; *probes counts the lookups of
 * addresses without CFI. */
static int span_rows(struct cfitab *t, Dwarf_CFI *cfi, const struct starts *st, uint64_t lo,
		     uint64_t hi, size_t *probes)
{
	uint64_t addr = lo;
	int ret = 0;

	while (addr < hi && !ret) {
		struct cfitab_row r = {.addr = addr, .kind = CFITAB_NONE};
		Dwarf_Frame *fr;
		Dwarf_Addr s, e = addr + 1;
		bool sig = false;

		if (!dwarf_cfi_addrframe(cfi, addr, &fr)) {
			if (dwarf_frame_info(fr, &s, &e, &sig) < 0 || e <= addr)
				e = addr + 1, r.kind = CFITAB_UNSUPPORTED;
			else
				row_of(fr, sig, &r);
			free(fr);
		} else if (st->nr) {
			e = next_start(st, addr); /* no CFI up to the next function's */
		} else {
			e = ++*probes > MAX_PROBES + 16 * t->nr ? hi : (addr | 15) + 1;
		}
		ret = push_row(t, &r);
		addr = e;
	}
	return ret;
}

int cfitab_build(Elf *elf, struct cfitab *t)
{
	GElf_Ehdr eh;
	Dwarf_CFI *cfi;
	Dwarf *dw = NULL;
	struct starts st;
	struct span *sp = NULL;
	size_t nr = 0, i, probes = 0;
	int ret;

	cfitab_release(t);
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return -EINVAL;
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi) {
		/* no .eh_frame: the .debug_frame of the DWARF, if any */
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		cfi = dw ? dwarf_getcfi(dw) : NULL;
		if (!cfi) {
			if (dw)
				dwarf_end(dw);
			return -ENOENT;
		}
	}
	ret = fde_starts(elf, &st);
	if (!ret)
		ret = code_spans(elf, &sp, &nr);
	for (i = 0; !ret && i < nr; i++) {
		/* sections that overlap (a relocatable object's, all at 0; a
		 * crafted file's) are walked once */
		if (i && sp[i].lo < sp[i - 1].hi)
			sp[i].lo = sp[i - 1].hi;
		if (sp[i].hi < sp[i].lo)
			sp[i].hi = sp[i].lo;
		if (sp[i].lo == sp[i].hi)
			continue;
		ret = span_rows(t, cfi, &st, sp[i].lo, sp[i].hi, &probes);
		/* past the section: nothing, until the next one */
		if (!ret)
			ret = push_row(t, &(struct cfitab_row){.addr = sp[i].hi, .kind = CFITAB_NONE});
	}
	free(sp);
	free(st.a);
	if (dw)
		dwarf_end(dw);
	else
		dwarf_cfi_end(cfi);
	if (ret)
		cfitab_release(t);
	return ret;
}

const struct cfitab_row *cfitab_lookup(const struct cfitab *t, uint64_t addr)
{
	size_t n = zt_upper_bound_u64(t->rows, t->nr, sizeof(*t->rows),
				      offsetof(struct cfitab_row, addr), addr);

	return n ? &t->rows[n - 1] : NULL;
}

/* ---- pages, for the BPF program ---- */

void cfipages_init(struct cfipages *p)
{
	memset(p, 0, sizeof(*p));
	zt_htab_init(&p->rhash);
}

void cfipages_release(struct cfipages *p)
{
	free(p->pages);
	free(p->entries);
	free(p->rules);
	zt_htab_release(&p->rhash);
	cfipages_init(p);
}

static uint64_t rule_hash_at(const void *ctx, uint32_t i)
{
	const struct cfipages *p = ctx;

	return zt_hash_bytes(&p->rules[i], sizeof(p->rules[i]));
}

/* The index of r's rule, added when new. */
static int rule_of(struct cfipages *p, const struct cfitab_row *r, uint16_t *out)
{
	int cfa = r->kind == CFITAB_CFA || r->kind == CFITAB_PLT;
	struct cfipage_rule k = {cfa ? r->cfa_off : 0, cfa ? r->fp_off : 0, r->kind,
				 cfa ? r->cfa_reg : 0, cfa ? r->fp : 0, cfa ? r->bx : 0,
				 cfa ? r->bx_off : 0};
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&p->rhash, 1, rule_hash_at, p))
		return -ENOMEM;
	for (j = zt_htab_first(&p->rhash, zt_hash_bytes(&k, sizeof(k)));
	     zt_htab_get(&p->rhash, j, &i); j = zt_htab_next(&p->rhash, j))
		if (!memcmp(&p->rules[i], &k, sizeof(k))) {
			*out = (uint16_t)i;
			return 0;
		}
	if (p->nr_rules > UINT16_MAX)
		return -E2BIG;
	if (ZT_GROW(p->rules, p->cap_rules, p->nr_rules + 1))
		return -ENOMEM;
	p->rules[p->nr_rules] = k;
	zt_htab_set(&p->rhash, j, (uint32_t)p->nr_rules);
	*out = (uint16_t)p->nr_rules++;
	return 0;
}

static int add_entry(struct cfipages *p, uint64_t page, uint16_t lo, uint16_t rule)
{
	struct cfipage *pg = p->nr_pages ? &p->pages[p->nr_pages - 1] : NULL;

	if (!pg || pg->page != page) {
		if (p->nr_pages >= CFIPAGES_MAX)
			return -E2BIG;
		if (ZT_GROW(p->pages, p->cap_pages, p->nr_pages + 1))
			return -ENOMEM;
		pg = &p->pages[p->nr_pages++];
		*pg = (struct cfipage){page, (uint32_t)p->nr_entries, 0};
	}
	if (p->nr_entries >= UINT32_MAX || ZT_GROW(p->entries, p->cap_entries, p->nr_entries + 1))
		return -ENOMEM;
	p->entries[p->nr_entries++] = (struct cfipage_entry){lo, rule};
	pg->nr++;
	return 0;
}

int cfipages_build(const struct cfitab *t, struct cfipages *p)
{
	static const struct cfitab_row none = {.kind = CFITAB_NONE};
	uint16_t rn, rule;
	size_t i;
	int ret;

	cfipages_release(p);
	ret = rule_of(p, &none, &rn);
	for (i = 0; !ret && i < t->nr; i++) {
		const struct cfitab_row *r = &t->rows[i];
		uint64_t pg = r->addr >> CFIPAGE_SHIFT, endpg;
		int have = p->nr_pages && p->pages[p->nr_pages - 1].page == pg;

		if (r->kind == CFITAB_NONE) {
			/* "no CFI" from here: said only in a page that holds
			 * something before it */
			if (have)
				ret = add_entry(p, pg, (uint16_t)r->addr, rn);
			continue;
		}
		ret = rule_of(p, r, &rule);
		/* a new page starts without CFI up to the row */
		if (!ret && !have && (uint16_t)r->addr)
			ret = add_entry(p, pg, 0, rn);
		if (!ret)
			ret = add_entry(p, pg, (uint16_t)r->addr, rule);
		/* the pages the row runs on into, each from its start */
		endpg = i + 1 < t->nr ? (t->rows[i + 1].addr - 1) >> CFIPAGE_SHIFT : pg;
		while (!ret && pg < endpg)
			ret = add_entry(p, ++pg, 0, rule);
	}
	if (ret)
		cfipages_release(p);
	return ret;
}

const struct cfipage_rule *cfipages_lookup(const struct cfipages *p, uint64_t addr)
{
	uint64_t page = addr >> CFIPAGE_SHIFT;
	uint16_t lo = (uint16_t)addr;
	size_t a = 0, b = p->nr_pages;
	const struct cfipage *pg;
	uint32_t x, y;

	while (a < b) { /* the page */
		size_t m = a + (b - a) / 2;

		if (p->pages[m].page < page)
			a = m + 1;
		else
			b = m;
	}
	if (a == p->nr_pages || p->pages[a].page != page)
		return NULL;
	pg = &p->pages[a];
	/* the last entry at or below lo: the first is at 0 */
	x = 0;
	y = pg->nr;
	while (x < y) {
		uint32_t m = x + (y - x) / 2;

		if (p->entries[pg->first + m].lo <= lo)
			x = m + 1;
		else
			y = m;
	}
	return x ? &p->rules[p->entries[pg->first + x - 1].rule] : NULL;
}
