// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the kernel unwinder's logic (bpf/kunwind.h), run in user
 * space: the same lookups and steps the BPF program compiles, over maps
 * emulated with arrays and filled as record/kunwind.c fills the real ones
 * (symbolizer/cfitab.h's pages, cficache_segs()). This process's own stack
 * is walked with them and checked against glibc's backtrace() (libgcc's
 * unwinder reading the same CFI), from a plain call chain and from a
 * signal handler through the signal frame; every rule kind, the frame
 * pointer fallback and every stop reason on made-up stacks.
 */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <cmocka.h>
#include <gelf.h>

#include "bpf/kunwind.h"
#include "symbolizer/cficache.h"
#include "symbolizer/cfitab.h"

/* ---- the maps, emulated ---- */

#define MAX_FILES 64
#define MAX_PAGES 4096

struct page_ent {
	struct zt_uw_page_key k;
	struct zt_uw_page v;
};

static struct {
	struct zt_uw_proc proc; /* tgid 1's */
	int have_proc;
	struct zt_uw_file files[MAX_FILES + 1]; /* by id */
	struct page_ent pages[MAX_PAGES];
	size_t nr_pages;
	unsigned int *entries;
	size_t nr_entries;
	struct zt_uw_rule rules[ZT_UW_RULES];
	size_t nr_rules;
	unsigned reads, faults; /* ZT_UW_READ's calls, failed ones */
	struct zt_uw_cache cache; /* the walk's, as the BPF program's per-CPU one */
	int use_cache;
	unsigned proc_lookups;  /* ZT_UW_PROC's calls */
} M;

static const struct zt_uw_proc *t_proc(unsigned int tgid)
{
	M.proc_lookups++;
	return tgid == 1 && M.have_proc ? &M.proc : NULL;
}

static const struct zt_uw_file *t_file(unsigned int id)
{
	return id && id <= MAX_FILES ? &M.files[id] : NULL;
}

static const struct zt_uw_page *t_page(const struct zt_uw_page_key *k)
{
	size_t i;

	for (i = 0; i < M.nr_pages; i++)
		if (M.pages[i].k.file == k->file && M.pages[i].k.page == k->page)
			return &M.pages[i].v;
	return NULL;
}

static const unsigned int *t_entry(unsigned int i)
{
	return i < M.nr_entries ? &M.entries[i] : NULL;
}

static const struct zt_uw_rule *t_rule(unsigned int i)
{
	return i < M.nr_rules ? &M.rules[i] : NULL;
}

/* 8 bytes of this process's memory, or -1 where none is mapped: as
 * bpf_probe_read_user() would */
static int t_read(unsigned long long *dst, unsigned long long addr)
{
	struct iovec local = { dst, 8 }, remote = { (void *)(uintptr_t)addr, 8 };

	M.reads++;
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 8) {
		M.faults++;
		return -1;
	}
	return 0;
}

#define ZT_UW_READ(dst, addr) t_read(&(dst), (addr))
#define ZT_UW_PROC(tgid) t_proc(tgid)
#define ZT_UW_FILE(id) t_file(id)
#define ZT_UW_PAGE(k) t_page(k)
#define ZT_UW_ENTRY(i) t_entry(i)
#define ZT_UW_RULE(i) t_rule(i)
#define ZT_UW_CACHE() (M.use_cache ? &M.cache : NULL)
#define ZT_UW_LOCATE(tgid, addr) zt_uw_locate_(tgid, addr)
#define ZT_UW_RULE_INDEX(file, va) zt_uw_rule_index_(file, va)
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#include "bpf/kunwind.h"

static void maps_reset(void)
{
	free(M.entries);
	memset(&M, 0, sizeof(M));
	M.use_cache = 1;
}

/* file id's table from pages p (rules appended, not shared) */
static void load_file(unsigned id, const struct cfipages *p, const struct cfi_seg *segs,
		      unsigned nr_segs)
{
	size_t i, base = M.nr_entries, rbase = M.nr_rules;
	struct zt_uw_file *f = &M.files[id];

	assert_true(id >= 1 && id <= MAX_FILES);
	assert_true(M.nr_rules + p->nr_rules <= ZT_UW_RULES);
	for (i = 0; i < p->nr_rules; i++) {
		M.rules[rbase + i] = (struct zt_uw_rule){ p->rules[i].cfa_off, p->rules[i].fp_off,
							  p->rules[i].kind, p->rules[i].cfa_reg,
							  p->rules[i].fp, p->rules[i].bx,
							  p->rules[i].bx_off };
	}
	M.nr_rules += p->nr_rules;
	M.entries = realloc(M.entries, (base + p->nr_entries) * sizeof(*M.entries));
	assert_non_null(M.entries);
	for (i = 0; i < p->nr_entries; i++)
		M.entries[base + i] = p->entries[i].lo | (unsigned)(rbase + p->entries[i].rule) << 16;
	M.nr_entries += p->nr_entries;
	for (i = 0; i < p->nr_pages; i++) {
		assert_true(M.nr_pages < MAX_PAGES);
		M.pages[M.nr_pages++] = (struct page_ent){
			{ id, (unsigned)p->pages[i].page },
			{ (unsigned)(base + p->pages[i].first), p->pages[i].nr } };
	}
	f->state = ZT_UW_FILE_LOADED;
	f->nsegs = nr_segs;
	for (i = 0; i < nr_segs; i++)
		f->segs[i] = (struct zt_uw_seg){ segs[i].offset, segs[i].offset + segs[i].filesz,
						 (long long)(segs[i].vaddr - segs[i].offset) };
}

static int map_cmp(const void *a, const void *b)
{
	const struct zt_uw_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Each module of this process: its table, and its executable segments'
 * mappings as the kernel made them (page-aligned) in process 1. */
static int add_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
	const char *path = info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
	unsigned *ids = ctx, id;
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	struct cfipages p;
	struct cfitab t;
	Elf *elf;
	int fd, n, i;

	(void)size;
	if (*ids >= MAX_FILES)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* the vDSO */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	n = cficache_segs(elf, segs, CFICACHE_MAX_SEGS);
	assert_true(n >= 1);
	cfitab_init(&t);
	cfipages_init(&p);
	if (!cfitab_build(elf, &t) && !cfipages_build(&t, &p)) {
		id = ++*ids;
		load_file(id, &p, segs, (unsigned)n);
		for (i = 0; i < info->dlpi_phnum; i++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
			uint64_t s, e;

			if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
				continue;
			s = (info->dlpi_addr + ph->p_vaddr) & ~4095ull;
			e = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + 4095) & ~4095ull;
			assert_true(M.proc.nr < ZT_UW_MAPS);
			M.proc.maps[M.proc.nr++] =
				(struct zt_uw_map){ s, ph->p_offset & ~4095ull, (unsigned)(e - s), id };
		}
	}
	cfipages_release(&p);
	cfitab_release(&t);
	elf_end(elf);
	close(fd);
	return 0;
}

static void maps_of_self(void)
{
	unsigned ids = 0;

	maps_reset();
	elf_version(EV_CURRENT);
	dl_iterate_phdr(add_module, &ids);
	assert_true(ids >= 2);
	qsort(M.proc.maps, M.proc.nr, sizeof(M.proc.maps[0]), map_cmp);
	M.have_proc = 1;
}

/* Walk from regs as the BPF program does (uw_step): each frame's pc into
 * out; the stop reason. */
static int walk(struct zt_uw_regs r, unsigned long long *out, int max, int *n, int *cfi)
{
	struct zt_uw_walk w = { r, 1, 1, 0, 0 };
	int ret = ZT_UW_STOP_DEPTH;

	*n = 0;
	memset(&M.cache, 0, sizeof(M.cache)); /* a new walk */
	while (*n < max) {
		out[(*n)++] = w.r.pc;
		ret = zt_uw_frame(&w);
		if (ret != ZT_UW_NEXT)
			break;
	}
	*cfi = w.cfi;
	return ret;
}

#define HERE(r)                                                                          \
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2\n\tmov %%rbx, %3" \
			 : "=r"((r).pc), "=r"((r).sp), "=r"((r).bp), "=r"((r).bx))

/* Our frames against backtrace()'s: from the caller of the function that
 * took both on, the same addresses (backtrace() starts inside itself and
 * takes one frame more under ASan). */
static int compare(const unsigned long long *pcs, int n, void **back, int nb)
{
	int i, j, same = 0;

	for (j = 0; j < 6 && j < nb && (unsigned long long)(uintptr_t)back[j] != pcs[1]; j++)
		;
	assert_true(j < 6 && j < nb);
	for (i = 1; j < nb && i < n; i++, j++) {
		if (getenv("KUNWIND_DEBUG"))
			print_message("%d: %#llx %p\n", i, pcs[i], back[j]);
		assert_true(pcs[i] == (unsigned long long)(uintptr_t)back[j]);
		same++;
	}
	return same;
}

static __attribute__((noinline)) int unwind_here(unsigned long long *pcs, int max, int *n,
						 int *cfi, void **back, int *nb)
{
	struct zt_uw_regs r;
	int ret;

	HERE(r);
	ret = walk(r, pcs, max, n, cfi);
	*nb = backtrace(back, 64);
	return ret;
}

static __attribute__((noinline)) int deeper(int d, unsigned long long *pcs, int *n, int *cfi,
					    void **back, int *nb)
{
	int ret;

	if (d)
		ret = deeper(d - 1, pcs, n, cfi, back, nb);
	else
		ret = unwind_here(pcs, 64, n, cfi, back, nb);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
	return ret;
}

/* A plain call chain: every frame, through cmocka and libc, to _start,
 * whose CFI ends the walk; with the walk's cache (as the BPF program
 * walks) and without it, each as backtrace(), the process's mappings
 * searched less often with it. */
static void test_walk_self(void **state)
{
	unsigned long long pcs[64], pcs2[64];
	void *back[64], *back2[64];
	int n, nb, cfi, ret, same, n2, cfi2, nb2, i, r;
	unsigned with, without;

	(void)state;
	maps_of_self();
	ret = 0;
	with = without = 0;
	for (i = 0; i < 2; i++) { /* one call site: the same return addresses */
		M.use_cache = i;
		M.proc_lookups = 0;
		r = deeper(5, i ? pcs : pcs2, i ? &n : &n2, i ? &cfi : &cfi2, i ? back : back2,
			   i ? &nb : &nb2);
		if (i)
			ret = r;
		*(i ? &with : &without) = M.proc_lookups;
	}
	print_message("the process's mappings searched %u times for %d frames with the cache, %u "
		      "without\n", with, n, without);
	assert_true(with < without);
	assert_int_equal(n, n2);
	/* each walk against its own backtrace() (the compiler may have made
	 * two calls of the loop's one) */
	assert_true(compare(pcs2, n2, back2, nb2) >= 8);
	same = compare(pcs, n, back, nb);
	print_message("walk: %d frames (%d by CFI), backtrace(): %d, alike: %d, stop %d\n", n, cfi,
		      nb, same, ret);
	assert_int_equal(ret, ZT_UW_STOP_END);
	assert_true(same >= 8);
	assert_true(n >= nb - 3);
	assert_int_equal(cfi, n - 1);
}

static unsigned long long sig_pcs[64];
static void *sig_back[64];
static int sig_n, sig_nb, sig_ret, sig_cfi;

static void handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	sig_ret = unwind_here(sig_pcs, 64, &sig_n, &sig_cfi, sig_back, &sig_nb);
}

static __attribute__((noinline)) void raiser(void)
{
	raise(SIGUSR1);
	__asm__ volatile("" ::: "memory");
}

/* From a signal handler: through the signal frame (libc's restorer, whose
 * CFI says so) to the interrupted code in libc, raiser() and on to
 * _start. */
static void test_walk_signal(void **state)
{
	struct sigaction sa, old;
	int same, i, through = 0;

	(void)state;
	maps_of_self();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	raiser();
	sigaction(SIGUSR1, &old, NULL);
	same = compare(sig_pcs, sig_n, sig_back, sig_nb);
	for (i = 0; i < sig_n; i++)
		through += sig_pcs[i] > (uintptr_t)raiser && sig_pcs[i] < (uintptr_t)raiser + 64;
	print_message("signal: %d frames, backtrace(): %d, alike: %d, stop %d\n", sig_n, sig_nb,
		      same, sig_ret);
	assert_int_equal(sig_ret, ZT_UW_STOP_END);
	assert_int_equal(through, 1);
	assert_true(same >= 8);
}

/*
 * A frame whose CFA is %rbx's (as glibc's lazy-binding trampoline
 * _dl_runtime_resolve's, which realigns the stack for xsave): t_realign(fn,
 * arg) calls fn(arg) on a stack aligned to 64 bytes, its CFI saying CFA =
 * %rbx + 16 and the caller's %rbx at CFA - 16. fn is bx_user, which saves
 * %rbx (its CFI says where) and changes it before it walks: the walk gets
 * %rbx back from bx_user's save slot to find t_realign's CFA.
 */
__asm__(".text\n"
	".type t_realign, @function\n"
	"t_realign:\n"
	".cfi_startproc\n"
	"push %rbx\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_rel_offset %rbx, 0\n"
	"mov %rsp, %rbx\n"
	".cfi_def_cfa_register %rbx\n"
	"and $-64, %rsp\n"
	"sub $64, %rsp\n"
	"mov %rdi, %rax\n"
	"mov %rsi, %rdi\n"
	"call *%rax\n"
	"mov %rbx, %rsp\n"
	".cfi_def_cfa_register %rsp\n"
	"pop %rbx\n"
	".cfi_adjust_cfa_offset -8\n"
	".cfi_restore %rbx\n"
	"ret\n"
	".cfi_endproc\n"
	".size t_realign, .-t_realign\n");
void t_realign(void (*fn)(void *), void *arg);

struct bx_walk {
	unsigned long long pcs[64];
	void *back[64];
	int n, nb, ret, cfi;
};

static __attribute__((noinline)) void bx_user(void *arg)
{
	struct bx_walk *b = arg;

	/* %rbx changed here: saved in the prologue, by the CFI's word */
	__asm__ volatile("mov $0x5a5a, %%ebx" ::: "rbx");
	b->ret = unwind_here(b->pcs, 64, &b->n, &b->cfi, b->back, &b->nb);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void realigner(struct bx_walk *b)
{
	t_realign(bx_user, b);
	__asm__ volatile("" ::: "memory");
}

/* Through the %rbx-based frame to realigner() and on to _start, as
 * backtrace() (libgcc's unwinder) sees it. */
static void test_walk_rbx(void **state)
{
	struct bx_walk b;
	int same, i, through = 0;

	(void)state;
	maps_of_self();
	memset(&b, 0, sizeof(b));
	realigner(&b);
	same = compare(b.pcs, b.n, b.back, b.nb);
	for (i = 0; i < b.n; i++)
		through += b.pcs[i] > (uintptr_t)realigner && b.pcs[i] < (uintptr_t)realigner + 64;
	print_message("rbx: %d frames, backtrace(): %d, alike: %d, stop %d\n", b.n, b.nb, same,
		      b.ret);
	assert_int_equal(b.ret, ZT_UW_STOP_END);
	assert_int_equal(through, 1);
	assert_true(same >= 8);
	assert_int_equal(b.cfi, b.n - 1);
}

/* ---- each rule and stop on made-up stacks ---- */

static void test_rules(void **state)
{
	unsigned long long stk[16];
	unsigned long long base = (uintptr_t)stk;
	struct zt_uw_rule ru;
	struct zt_uw_regs r;
	int exact;

	(void)state;
	maps_reset();
	for (int i = 0; i < 16; i++)
		stk[i] = 0x1000 + (unsigned)i;

	/* CFA = %rsp + 24, %rbp saved at CFA - 16 */
	ru = (struct zt_uw_rule){ 24, -16, ZT_UW_CFA, ZT_UW_REG_SP, ZT_UW_FP_AT, 0, 0 };
	r = (struct zt_uw_regs){ 0x400000, base, 7 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(r.pc, stk[2]);
	assert_int_equal(r.sp, base + 24);
	assert_int_equal(r.bp, stk[1]);
	assert_int_equal(exact, 0);

	/* CFA = %rbp + 16, %rbp unchanged, then undefined */
	ru = (struct zt_uw_rule){ 16, 0, ZT_UW_CFA, ZT_UW_REG_FP, ZT_UW_FP_SAME, 0, 0 };
	r = (struct zt_uw_regs){ 0x400000, base, base + 32 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(r.pc, stk[5]);
	assert_int_equal(r.sp, base + 48);
	assert_int_equal(r.bp, base + 32);
	ru.fp = ZT_UW_FP_UNDEF;
	r = (struct zt_uw_regs){ 0x400000, base, base + 32 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(r.bp, 0);

	/* a lazy PLT entry: before its push (offset < 11) the return address
	 * is at %rsp, after it at %rsp + 8 */
	ru = (struct zt_uw_rule){ 8, 11, ZT_UW_PLT, ZT_UW_REG_SP, ZT_UW_FP_SAME, 0, 0 };
	r = (struct zt_uw_regs){ 0x401030, base, 9 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(r.pc, stk[0]);
	assert_int_equal(r.sp, base + 8);
	assert_int_equal(r.bp, 9);
	r = (struct zt_uw_regs){ 0x40103b, base, 9 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(r.pc, stk[1]);
	assert_int_equal(r.sp, base + 16);

	/* CFA = %rbx + 16, the caller's %rbx saved at CFA - 16 (where it
	 * stays until a frame needs it), %rbp kept */
	ru = (struct zt_uw_rule){ 16, 0, ZT_UW_CFA, ZT_UW_REG_BX, ZT_UW_FP_SAME, ZT_UW_FP_AT, -16 };
	r = (struct zt_uw_regs){ 0x400000, base, 9, base + 32, 0 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(r.pc, stk[5]);
	assert_int_equal(r.sp, base + 48);
	assert_int_equal(r.bp, 9);
	assert_int_equal(r.bx, 0);
	assert_int_equal(r.bx_at, base + 32);
	/* the same with %rbx in a callee's save slot: read then */
	stk[1] = base + 32;
	r = (struct zt_uw_regs){ 0x400000, base, 9, 0, base + 8 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(r.sp, base + 48);
	assert_int_equal(r.pc, stk[5]);
	stk[1] = 0x1001;
	/* ... a slot that cannot be read */
	r = (struct zt_uw_regs){ 0x400000, base, 9, 0, 16 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_STOP_FAULT);
	/* %rbx not known (0): the rule cannot be used */
	r = (struct zt_uw_regs){ 0x400000, base, 9, 0, 0 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_FALLBACK);
	/* an %rsp rule carries %rbx, not read: unchanged, saved, undefined */
	ru = (struct zt_uw_rule){ 24, 0, ZT_UW_CFA, ZT_UW_REG_SP, ZT_UW_FP_SAME, ZT_UW_FP_SAME, 0 };
	r = (struct zt_uw_regs){ 0x400000, base, 9, 0x77, 0 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(r.bx, 0x77);
	r = (struct zt_uw_regs){ 0x400000, base, 9, 0, base + 8 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(r.bx_at, base + 8);
	ru.bx = ZT_UW_FP_AT;
	ru.bx_off = -24;
	r = (struct zt_uw_regs){ 0x400000, base, 9, 0x77, 0 };
	M.reads = 0;
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(M.reads, 1); /* the return address only */
	assert_int_equal(r.bx, 0);
	assert_int_equal(r.bx_at, base);
	ru.bx = ZT_UW_FP_UNDEF;
	r = (struct zt_uw_regs){ 0x400000, base, 9, 0x77, base + 8 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
	assert_int_equal(r.bx, 0);
	assert_int_equal(r.bx_at, 0);

	/* a signal frame: the interrupted registers from the sigcontext */
	{
		unsigned long long uc[32] = { 0 };

		uc[ZT_UW_SIGCTX_BX / 8] = 0xb2;
		uc[ZT_UW_SIGCTX_BP / 8] = 0xb1;
		uc[ZT_UW_SIGCTX_SP / 8] = 0x5000;
		uc[ZT_UW_SIGCTX_IP / 8] = 0x401234;
		ru = (struct zt_uw_rule){ 0, 0, ZT_UW_SIGNAL, 0, 0, 0, 0 };
		r = (struct zt_uw_regs){ 0x7000, (uintptr_t)uc, 3 };
		assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_NEXT);
		assert_int_equal(r.pc, 0x401234);
		assert_int_equal(r.sp, 0x5000);
		assert_int_equal(r.bp, 0xb1);
		assert_int_equal(r.bx_at, (uintptr_t)uc + ZT_UW_SIGCTX_BX);
		assert_int_equal(exact, 1);
	}

	/* the outermost frame; a rule without a rule: the frame pointer */
	ru.kind = ZT_UW_END;
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_STOP_END);
	ru.kind = ZT_UW_UNSUPPORTED;
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_FALLBACK);
	ru.kind = ZT_UW_NONE;
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_FALLBACK);

	/* unreadable stack; a CFA at or below %rsp (the wrong way); a zero
	 * return address (the end) */
	ru = (struct zt_uw_rule){ 8, 0, ZT_UW_CFA, ZT_UW_REG_SP, ZT_UW_FP_SAME, 0, 0 };
	r = (struct zt_uw_regs){ 0x400000, 16, 0 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_STOP_FAULT);
	ru.cfa_off = -8;
	r = (struct zt_uw_regs){ 0x400000, base + 64, 0 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_STOP_FAULT);
	ru.cfa_off = 8;
	stk[0] = 0;
	r = (struct zt_uw_regs){ 0x400000, base, 0 };
	assert_int_equal(zt_uw_apply(&ru, &r, &exact), ZT_UW_STOP_FP_END);
	stk[0] = 0x1000;

	/* the frame pointer: [bp] the caller's, [bp + 8] the return address;
	 * %rbx no longer known */
	r = (struct zt_uw_regs){ 0x400000, base, base + 16, 0x77, base };
	assert_int_equal(zt_uw_fp(&r, ZT_UW_STOP_NO_TABLE), ZT_UW_NEXT);
	assert_int_equal(r.pc, stk[3]);
	assert_int_equal(r.sp, base + 32);
	assert_int_equal(r.bp, stk[2]);
	assert_int_equal(r.bx, 0);
	assert_int_equal(r.bx_at, 0);
	r = (struct zt_uw_regs){ 0x400000, base, 0 };
	assert_int_equal(zt_uw_fp(&r, ZT_UW_STOP_NO_TABLE), ZT_UW_STOP_FP_END);
	/* below %rsp, or unreadable: the reason the rule was missing */
	r = (struct zt_uw_regs){ 0x400000, base + 16, base };
	assert_int_equal(zt_uw_fp(&r, ZT_UW_STOP_UNSUPPORTED), ZT_UW_STOP_UNSUPPORTED);
	r = (struct zt_uw_regs){ 0x400000, 8, 16 };
	assert_int_equal(zt_uw_fp(&r, ZT_UW_STOP_NOT_READY), ZT_UW_STOP_NOT_READY);
}

/* Where lookups find nothing, and why. */
static void test_locate(void **state)
{
	static const struct cfi_seg seg = { 0x1000, 0x11000, 0x2000 };
	struct cfitab t;
	struct cfipages p;
	unsigned long long loc;
	long long idx;

	(void)state;
	maps_reset();
	M.use_cache = 0; /* each lookup on its own (a walk's cache lives for a walk) */
	/* no process registered: not ready */
	assert_int_equal(zt_uw_locate_(1, 0x400000), ZT_UW_STOP_NOT_READY);
	M.have_proc = 1;
	M.proc.nr = 2;
	M.proc.maps[0] = (struct zt_uw_map){ 0x400000, 0x1000, 0x2000, 1 };
	M.proc.maps[1] = (struct zt_uw_map){ 0x500000, 0, 0x1000, 2 };
	/* below every mapping, between two, past one */
	assert_int_equal(zt_uw_locate_(1, 0x3fffff), ZT_UW_STOP_NO_TABLE);
	assert_int_equal(zt_uw_locate_(1, 0x402000), ZT_UW_STOP_NO_TABLE);
	assert_int_equal(zt_uw_locate_(1, 0x501000), ZT_UW_STOP_NO_TABLE);
	/* a table being built */
	M.files[1].state = ZT_UW_FILE_PENDING;
	assert_int_equal(zt_uw_locate_(1, 0x400100), ZT_UW_STOP_NOT_READY);
	M.files[2].state = ZT_UW_FILE_NONE;
	assert_int_equal(zt_uw_locate_(1, 0x500100), ZT_UW_STOP_NO_TABLE);

	/* a table: rows at 0x11000 (CFA %rsp+8), 0x11004 (%rsp+16), 0x11100
	 * (none), in the file's segment [0x1000, 0x3000) at 0x11000 */
	cfitab_init(&t);
	t.rows = calloc(3, sizeof(*t.rows));
	assert_non_null(t.rows);
	t.rows[0] = (struct cfitab_row){ .addr = 0x11000, .cfa_off = 8, .kind = CFITAB_CFA };
	t.rows[1] = (struct cfitab_row){ .addr = 0x11004, .cfa_off = 16, .fp_off = -16,
					 .kind = CFITAB_CFA, .fp = CFITAB_FP_AT };
	t.rows[2] = (struct cfitab_row){ .addr = 0x11100, .kind = CFITAB_NONE };
	t.nr = t.cap = 3;
	cfipages_init(&p);
	assert_int_equal(cfipages_build(&t, &p), 0);
	load_file(1, &p, &seg, 1);
	/* 0x400000 maps file offset 0x1000: the table's 0x11000 */
	loc = zt_uw_locate_(1, 0x400003);
	assert_int_equal(loc >> ZT_UW_VA_BITS, 1);
	assert_int_equal(loc & 0xffffffffffffull, 0x11003);
	idx = zt_uw_rule_index_(1, 0x11003);
	assert_true(idx >= 0);
	assert_int_equal(M.rules[idx].cfa_off, 8);
	idx = zt_uw_rule_index_(1, 0x11004);
	assert_int_equal(M.rules[idx].cfa_off, 16);
	assert_int_equal(M.rules[idx].fp, ZT_UW_FP_AT);
	idx = zt_uw_rule_index_(1, 0x110ff);
	assert_int_equal(M.rules[idx].cfa_off, 16);
	idx = zt_uw_rule_index_(1, 0x11100);
	assert_int_equal(M.rules[idx].kind, ZT_UW_NONE);
	/* a page without CFI */
	assert_int_equal(zt_uw_rule_index_(1, 0x21000), -1);
	/* an offset outside the file's executable segments */
	M.proc.maps[0].pgoff = 0x8000;
	assert_int_equal(zt_uw_locate_(1, 0x400003), ZT_UW_STOP_NO_TABLE);
	/* more mappings than the map holds: refused, not read past */
	M.proc.nr = ZT_UW_MAPS + 1;
	assert_int_equal(zt_uw_locate_(1, 0x400003), ZT_UW_STOP_NO_TABLE);
	cfipages_release(&p);
	cfitab_release(&t);
	maps_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_self),
		cmocka_unit_test(test_walk_signal),
		cmocka_unit_test(test_walk_rbx),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_locate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
