// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for symbolizer/cfitab: unwind tables from real binaries' CFI,
 * checked for shape, against what every compiler emits at a function's
 * entry, and by unwinding this very process with them against glibc's
 * backtrace() (libgcc's unwinder reading the same CFI). */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <gelf.h>

#include "symbolizer/cfitab.h"

#ifndef LIBC_PATH
#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"
#endif

struct img {
	int fd;
	Elf *elf;
};

static int img_open(struct img *m, const char *path)
{
	elf_version(EV_CURRENT);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	m->elf = m->fd >= 0 ? elf_begin(m->fd, ELF_C_READ, NULL) : NULL;
	return m->elf ? 0 : -1;
}

static void img_close(struct img *m)
{
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
}

static void build(const char *path, struct cfitab *t)
{
	struct img m;

	assert_int_equal(img_open(&m, path), 0);
	cfitab_init(t);
	assert_int_equal(cfitab_build(m.elf, t), 0);
	img_close(&m);
}

/* By address, no two alike in a row, the code's end without CFI; lookup
 * finds each row at its start and the one before just below it. */
static void test_shape(void **state)
{
	static const char *const files[] = {LIBC_PATH, "/proc/self/exe"};
	size_t f, i, unsup, plt, end;

	(void)state;
	for (f = 0; f < 2; f++) {
		struct cfitab t;

		build(files[f], &t);
		assert_true(t.nr > 10);
		unsup = plt = end = 0;
		for (i = 0; i < t.nr; i++) {
			const struct cfitab_row *r = &t.rows[i];

			assert_true(r->kind < CFITAB_NKINDS);
			unsup += r->kind == CFITAB_UNSUPPORTED;
			plt += r->kind == CFITAB_PLT;
			end += r->kind == CFITAB_END;
			if (r->kind == CFITAB_PLT) {
				/* lazy-binding entries: 16 bytes, the push at 6 */
				assert_int_equal(r->cfa_off, 8);
				assert_int_equal(r->fp_off, 11);
				assert_int_equal(r->fp, CFITAB_FP_SAME);
			}
			assert_ptr_equal(cfitab_lookup(&t, r->addr), r);
			if (!i)
				continue;
			assert_true(r->addr > t.rows[i - 1].addr);
			assert_ptr_equal(cfitab_lookup(&t, r->addr - 1), &t.rows[i - 1]);
			assert_false(r->kind == t.rows[i - 1].kind && r->cfa_reg == t.rows[i - 1].cfa_reg &&
				     r->cfa_off == t.rows[i - 1].cfa_off && r->fp == t.rows[i - 1].fp &&
				     r->fp_off == t.rows[i - 1].fp_off && r->bx == t.rows[i - 1].bx &&
				     r->bx_off == t.rows[i - 1].bx_off);
		}
		assert_int_equal(unsup, t.unsupported);
		if (getenv("CFITAB_DEBUG"))
			print_message("%s: %zu unsupported, %zu plt, %zu end\n", files[f], unsup, plt, end);
		/* the PLT's expression has its own kind: a few more at most */
		assert_true(t.unsupported < 8);
		/* libc's and the test's lazy PLT; the test's _start, libc's
		 * thread start (clone) */
		assert_true(plt >= 1);
		assert_true(end >= 1);
		assert_int_equal(t.rows[t.nr - 1].kind, CFITAB_NONE);
		assert_null(cfitab_lookup(&t, t.rows[0].addr - 1));
		cfitab_release(&t);
	}
}

/* At the entry of every function libc exports, before it pushes
 * anything: CFA = %rsp + 8, %rbp untouched. A frame based on %rbp has
 * saved the caller's %rbp first. libc's signal restorer is a signal
 * frame. */
static void test_libc_rules(void **state)
{
	struct cfitab t;
	struct img m;
	Elf_Scn *scn = NULL;
	size_t funcs = 0, entry = 0, i, sig = 0, fpbased = 0, bxsaved = 0;

	(void)state;
	build(LIBC_PATH, &t);
	assert_int_equal(img_open(&m, LIBC_PATH), 0);
	while ((scn = elf_nextscn(m.elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)))
			continue;
		for (k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym s;
			const struct cfitab_row *r;

			if (!gelf_getsym(d, (int)k, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_value || !s.st_size)
				continue;
			funcs++;
			r = cfitab_lookup(&t, s.st_value);
			assert_non_null(r);
			if (r->kind != CFITAB_CFA)
				continue;
			assert_int_equal(r->cfa_reg, CFITAB_REG_SP);
			assert_int_equal(r->cfa_off, 8);
			assert_int_equal(r->fp, CFITAB_FP_SAME);
			entry++;
		}
	}
	img_close(&m);
	assert_true(funcs > 1000);
	assert_true(entry * 100 >= funcs * 95);
	for (i = 0; i < t.nr; i++) {
		const struct cfitab_row *r = &t.rows[i];

		sig += r->kind == CFITAB_SIGNAL;
		if (r->kind == CFITAB_CFA && r->cfa_reg == CFITAB_REG_FP) {
			fpbased++;
			assert_int_equal(r->fp, CFITAB_FP_AT);
		}
		if (r->kind == CFITAB_CFA && r->fp == CFITAB_FP_AT)
			assert_true(r->fp_off < 0 && r->fp_off >= -r->cfa_off - 8 * 64);
		if (r->kind == CFITAB_CFA && r->bx == CFITAB_FP_AT) {
			bxsaved++;
			assert_true(r->bx_off < 0 && r->bx_off >= -r->cfa_off - 8 * 64);
		}
	}
	assert_true(sig >= 1);
	assert_true(fpbased > 0);
	/* %rbx is the register most functions save first */
	assert_true(bxsaved * 10 > t.nr);
	cfitab_release(&t);
}

/* The dynamic linker's lazy-binding trampolines (_dl_runtime_resolve_*)
 * realign the stack with %rbx as their CFA: push %rbx, mov %rsp, %rbx,
 * so CFA = %rbx + k with the caller's %rbx saved at CFA - k, the row a
 * rule of its own, not an unsupported one. */
static void test_ldso_rbx(void **state)
{
	struct cfitab t;
	size_t i, based = 0;

	(void)state;
	build("/lib64/ld-linux-x86-64.so.2", &t);
	for (i = 0; i < t.nr; i++) {
		const struct cfitab_row *r = &t.rows[i];

		if (r->kind != CFITAB_CFA || r->cfa_reg != CFITAB_REG_BX)
			continue;
		based++;
		assert_int_equal(r->bx, CFITAB_FP_AT);
		assert_int_equal(r->bx_off, -r->cfa_off);
		assert_int_equal(r->fp, CFITAB_FP_SAME);
	}
	print_message("ld.so: %zu rows with CFA = %%rbx + k, %zu unsupported\n", based,
		      t.unsupported);
	/* the xsavec, xsave and fxsave trampolines at least */
	assert_true(based >= 3);
	assert_true(t.unsupported < 8);
	cfitab_release(&t);
}

/* ---- unwinding this process with the tables ---- */

#define MAX_MODS 32

struct mod {
	uint64_t lo, hi, bias;
	struct cfitab t;
};

struct mods {
	struct mod m[MAX_MODS];
	size_t nr;
};

static int add_mod(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct mods *ms = ctx;
	struct mod *m;
	const char *path = info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
	struct img im;
	int i;

	(void)size;
	if (ms->nr >= MAX_MODS || img_open(&im, path))
		return 0;
	m = &ms->m[ms->nr];
	m->lo = UINT64_MAX;
	m->hi = 0;
	m->bias = info->dlpi_addr;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (info->dlpi_addr + ph->p_vaddr < m->lo)
			m->lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > m->hi)
			m->hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	cfitab_init(&m->t);
	if (m->lo < m->hi && !cfitab_build(im.elf, &m->t))
		ms->nr++;
	img_close(&im);
	return 0;
}

static const struct cfitab_row *row_at(const struct mods *ms, uint64_t pc, uint64_t *bias)
{
	size_t i;

	for (i = 0; i < ms->nr; i++)
		if (pc >= ms->m[i].lo && pc < ms->m[i].hi) {
			*bias = ms->m[i].bias;
			return cfitab_lookup(&ms->m[i].t, pc - ms->m[i].bias);
		}
	return NULL;
}

/*
 * This frame's callers' return addresses into out (at most max), found as
 * an in-kernel unwinder would: from %rip, %rsp and %rbp, each frame's
 * CFA by its row, the return address at CFA - 8, the caller's %rbp by the
 * row's rule. back (at most bmax) gets glibc's backtrace() from here.
 */
static __attribute__((noinline)) int table_unwind(const struct mods *ms, uint64_t *out, int max,
						  void **back, int bmax, int *nback)
{
	uint64_t pc, sp, fp, bias;
	int n = 0;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(pc), "=r"(sp), "=r"(fp));
	while (n < max) {
		/* a caller's return address may be just past its
		 * function's end: looked up at the call */
		const struct cfitab_row *r = row_at(ms, n ? pc - 1 : pc, &bias);
		uint64_t cfa, ra;

		if (!r || r->kind != CFITAB_CFA || r->cfa_reg == CFITAB_REG_BX)
			break; /* (no frame here has its CFA in %rbx) */
		cfa = (r->cfa_reg == CFITAB_REG_SP ? sp : fp) + (int64_t)r->cfa_off;
		ra = *(const uint64_t *)(uintptr_t)(cfa - 8);
		if (r->fp == CFITAB_FP_AT)
			fp = *(const uint64_t *)(uintptr_t)(cfa + (int64_t)r->fp_off);
		if (!ra)
			break;
		out[n++] = ra;
		sp = cfa;
		pc = ra;
	}
	*nback = backtrace(back, bmax);
	return n;
}

static void test_unwind_self(void **state)
{
	struct mods *ms = calloc(1, sizeof(*ms));
	uint64_t pcs[64];
	void *back[64];
	int n, nb, i, j, same = 0;
	size_t k;

	(void)state;
	assert_non_null(ms);
	dl_iterate_phdr(add_mod, ms);
	assert_true(ms->nr >= 2);
	n = table_unwind(ms, pcs, 64, back, 64, &nb);
	/* backtrace()'s first frames are its own and table_unwind's (one
	 * more under ASan, which intercepts it): from the caller on, the
	 * two must agree */
	assert_true(n >= 1);
	for (j = 0; j < 4 && j < nb && (uint64_t)(uintptr_t)back[j] != pcs[0]; j++)
		;
	assert_true(j < 4 && j < nb);
	assert_true(n >= nb - j - 1);
	for (i = 0; j + i < nb && i < n; i++) {
		if (getenv("CFITAB_DEBUG"))
			print_message("%d: %#lx %p\n", i, (unsigned long)pcs[i], back[j + i]);
		assert_true(pcs[i] == (uint64_t)(uintptr_t)back[j + i]);
		same++;
	}
	/* through cmocka and libc up to _start */
	print_message("table: %d frames, backtrace(): %d, alike: %d\n", n, nb, same);
	assert_true(same >= 4);
	for (k = 0; k < ms->nr; k++)
		cfitab_release(&ms->m[k].t);
	free(ms);
}

/* Not x86-64: -EINVAL; no CFI: -ENOENT. */
static void test_refused(void **state)
{
	Elf64_Ehdr eh;
	struct cfitab t;
	Elf *e;

	(void)state;
	elf_version(EV_CURRENT);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_machine = EM_AARCH64;
	cfitab_init(&t);
	e = elf_memory((char *)&eh, sizeof(eh));
	assert_non_null(e);
	assert_int_equal(cfitab_build(e, &t), -EINVAL);
	elf_end(e);
	eh.e_machine = EM_X86_64;
	e = elf_memory((char *)&eh, sizeof(eh));
	assert_non_null(e);
	assert_int_equal(cfitab_build(e, &t), -ENOENT);
	assert_int_equal(t.nr, 0);
	elf_end(e);
	cfitab_release(&t);
}

/* Without .eh_frame_hdr's table of function starts, addresses without
 * CFI are probed at 16-byte boundaries: the same table but for the first
 * bytes of functions that start off a boundary after a gap. */
static void test_without_hdr(void **state)
{
	struct cfitab a, b;
	struct img m;
	char *img, *at;
	size_t len, i, late = 0;
	Elf *e;

	(void)state;
	build(LIBC_PATH, &a);
	assert_int_equal(img_open(&m, LIBC_PATH), 0);
	img = elf_rawfile(m.elf, &len);
	assert_non_null(img);
	img = memcpy(malloc(len), img, len);
	img_close(&m);
	/* the section's name in the string table, renamed */
	at = memmem(img, len, ".eh_frame_hdr", sizeof(".eh_frame_hdr"));
	assert_non_null(at);
	at[12] = 'X';
	e = elf_memory(img, len);
	assert_non_null(e);
	cfitab_init(&b);
	assert_int_equal(cfitab_build(e, &b), 0);
	/* the same rule at every row's start, but where a function's CFI
	 * starts after a gap off a 16-byte boundary (the probes find it at
	 * the next one: from there on the same) */
	for (i = 0; i < a.nr; i++) {
		const struct cfitab_row *x = &a.rows[i], *y = cfitab_lookup(&b, x->addr);
		uint64_t next = i + 1 < a.nr ? a.rows[i + 1].addr : UINT64_MAX;

		assert_non_null(y);
		if (y->kind != x->kind || y->cfa_off != x->cfa_off || y->cfa_reg != x->cfa_reg ||
		    y->fp != x->fp || y->fp_off != x->fp_off) {
			assert_true(x->addr & 15);
			assert_true(i && a.rows[i - 1].kind == CFITAB_NONE);
			assert_int_equal(y->kind, CFITAB_NONE);
			late++;
			if (((x->addr | 15) + 1) < next) {
				y = cfitab_lookup(&b, (x->addr | 15) + 1);
				assert_int_equal(y->kind, x->kind);
				assert_int_equal(y->cfa_off, x->cfa_off);
			}
		}
	}
	print_message("without the header: %zu of %zu rows found late\n", late, a.nr);
	assert_true(late * 100 < a.nr);
	elf_end(e);
	free(img);
	cfitab_release(&a);
	cfitab_release(&b);
}

/* The same rule from the pages as from the table: at every row's start,
 * just below it, and at addresses spread over the code; a page left out
 * only where no CFI holds. */
static void check_pages(const char *path)
{
	const struct cfipage_rule *pr;
	const struct cfitab_row *r;
	struct cfipages p;
	struct cfitab t;
	uint64_t lo, hi, a, step;
	size_t i, k, rules_max = 0;

	build(path, &t);
	cfipages_init(&p);
	assert_int_equal(cfipages_build(&t, &p), 0);
	assert_true(p.nr_rules > 2 && p.nr_rules <= UINT16_MAX + 1);
	for (i = 0; i < p.nr_pages; i++) {
		assert_true(p.pages[i].nr >= 1);
		assert_int_equal(p.entries[p.pages[i].first].lo, 0);
		if (i)
			assert_true(p.pages[i].page > p.pages[i - 1].page);
		for (k = 1; k < p.pages[i].nr; k++)
			assert_true(p.entries[p.pages[i].first + k].lo >
				    p.entries[p.pages[i].first + k - 1].lo);
		if (p.pages[i].nr > rules_max)
			rules_max = p.pages[i].nr;
	}
	lo = t.rows[0].addr;
	hi = t.rows[t.nr - 1].addr + 1;
	step = (hi - lo) / 200000 + 1;
	for (i = 0, a = lo - 1; a < hi + 70000; i++) {
		if (i < 2 * t.nr)
			a = t.rows[i / 2].addr - (i % 2);
		else
			a = i == 2 * t.nr ? lo - 1 : a + step;
		r = cfitab_lookup(&t, a);
		pr = cfipages_lookup(&p, a);
		if (!r || r->kind == CFITAB_NONE) {
			assert_true(!pr || pr->kind == CFITAB_NONE);
			continue;
		}
		assert_non_null(pr);
		assert_int_equal(pr->kind, r->kind);
		if (r->kind != CFITAB_CFA)
			continue;
		assert_int_equal(pr->cfa_reg, r->cfa_reg);
		assert_int_equal(pr->cfa_off, r->cfa_off);
		assert_int_equal(pr->fp, r->fp);
		assert_int_equal(pr->fp_off, r->fp_off);
	}
	print_message("%s: %zu rows, %zu rules, %zu pages, %zu entries (at most %zu a page)\n", path,
		      t.nr, p.nr_rules, p.nr_pages, p.nr_entries, rules_max);
	cfipages_release(&p);
	cfitab_release(&t);
}

static void test_pages(void **state)
{
	(void)state;
	check_pages(LIBC_PATH);
	check_pages("/proc/self/exe");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_libc_rules),
		cmocka_unit_test(test_ldso_rbx),
		cmocka_unit_test(test_unwind_self),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_without_hdr),
		cmocka_unit_test(test_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
