/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel unwinder: the tables zt.bpf.c walks user stacks with (its
 * maps, filled by record/kunwind.c from symbolizer/cfitab.c's pages) and
 * the step from one frame to its caller, written once for the BPF program
 * and for user space, where the unit tests run it on real stacks. Plain C
 * without libc: both sides include it.
 *
 * The maps:
 *   uw_procs   tgid -> struct zt_uw_proc: the process's executable file
 *              mappings, by address (a process's mappings to file and offset)
 *   uw_files   file id -> struct zt_uw_file: whether its table is loaded,
 *              and how its file offsets become the table's addresses
 *   uw_pages   {file id, address >> 16} -> struct zt_uw_page: the page's
 *              entries in uw_entries (pages without CFI are absent)
 *   uw_entries u32 (the row's low 16 address bits | its rule << 16), sorted
 *              by address within a page, the first at 0, two to an element
 *   uw_rules   struct zt_uw_rule, the distinct rules of every loaded file
 * File ids are 1-based; a file's table is shared by every process that
 * maps it.
 */
#ifndef ZT_KUNWIND_H
#define ZT_KUNWIND_H

#define ZT_UW_MAPS 256 /* executable file mappings per process (a power of two) */
#define ZT_UW_MAPS_STEPS 9 /* binary search steps over them: log2 + 1 */
#define ZT_UW_SEGS 4 /* executable segments per file */
#define ZT_UW_PAGE_SHIFT 16
#define ZT_UW_PAGE_STEPS 17 /* binary search steps in a page: at most 65,536 entries */
#define ZT_UW_RULES (1u << 16)

/* Rule kinds: symbolizer/cfitab.h's enum cfitab_kind */
#define ZT_UW_NONE 0
#define ZT_UW_CFA 1
#define ZT_UW_SIGNAL 2
#define ZT_UW_UNSUPPORTED 3
#define ZT_UW_END 4
#define ZT_UW_PLT 5
#define ZT_UW_REG_SP 0
#define ZT_UW_REG_FP 1
#define ZT_UW_REG_BX 2
#define ZT_UW_FP_SAME 0
#define ZT_UW_FP_AT 1
#define ZT_UW_FP_UNDEF 2

/* uw_files' states */
#define ZT_UW_FILE_PENDING 0 /* being built (or not started): samples before it is ready */
#define ZT_UW_FILE_LOADED 1
#define ZT_UW_FILE_NONE 2 /* no table: no CFI, unreadable, too big for the maps */

/*
 * Why a walk ended, in zt_sample_event.flags (ZT_EV_STOP). The first two
 * are a complete stack; the others stopped early.
 */
#define ZT_UW_STOP_END 1         /* the outermost frame, by its CFI (_start, a thread's start) */
#define ZT_UW_STOP_FP_END 2      /* a frame pointer or return address of 0 (perf's end too) */
#define ZT_UW_STOP_NO_TABLE 3    /* code without a table (JIT, no CFI), the frame pointer led nowhere */
#define ZT_UW_STOP_NOT_READY 4   /* the table was still being built */
#define ZT_UW_STOP_UNSUPPORTED 5 /* a rule the table cannot express, the frame pointer led nowhere */
#define ZT_UW_STOP_FAULT 6       /* the stack could not be read, or went the wrong way */
#define ZT_UW_STOP_DEPTH 7       /* ZT_BPF_MAX_STACK frames */
#define ZT_UW_STOP_MAX 8

struct zt_uw_map {
	unsigned long long start; /* the mapping's first address */
	unsigned long long pgoff; /* the file offset mapped there */
	unsigned int len;	  /* its bytes (at most 4 GiB) */
	unsigned int file;	  /* file id, 0 for none */
};

struct zt_uw_proc {
	unsigned int nr, pad;
	struct zt_uw_map maps[ZT_UW_MAPS]; /* by start, not overlapping */
};

/* File offsets [off, end) are the table's addresses off + adj on. */
struct zt_uw_seg {
	unsigned long long off, end;
	long long adj;
};

struct zt_uw_file {
	unsigned int state; /* ZT_UW_FILE_* */
	unsigned int nsegs;
	struct zt_uw_seg segs[ZT_UW_SEGS];
};

struct zt_uw_page_key {
	unsigned int file, page; /* page: address >> ZT_UW_PAGE_SHIFT */
};

struct zt_uw_page {
	unsigned int first, nr;
};

/* symbolizer/cfitab.h's struct cfipage_rule (16 bytes: a multiple of the
 * 8 an array map's element takes, also in its memory mapping) */
struct zt_uw_rule {
	int cfa_off, fp_off;
	unsigned char kind, cfa_reg, fp, bx;
	int bx_off;
};

/* uw_entries' element: two entries (an array map's elements are 8 bytes
 * apart, in its memory mapping too) */
struct zt_uw_entry2 {
	unsigned int e[2];
};

/* A frame's registers. %rbx is read only when a frame's CFA needs it (a
 * rare rule): where a callee saved it, bx_at is that stack slot's address
 * (not read yet), else bx is its value; both 0 where it is not known
 * (after a frame walked by its frame pointer, which may have changed it). */
struct zt_uw_regs {
	unsigned long long pc, sp, bp, bx, bx_at;
};

/*
 * What one walk found last (ZT_UW_CACHE(), the walker's own: a per-CPU
 * map entry in BPF), so that the next frame in the same file segment or
 * table page skips the searches: consecutive frames mostly are. A walk
 * starts it empty (tgid and pfile 0).
 */
struct zt_uw_cache {
	unsigned int tgid, file;      /* the segment: [lo, hi) of tgid, file file */
	unsigned long long lo, hi;
	long long delta;              /* its table address: addr + delta */
	unsigned int pfile, ppage;    /* the page: pfile's page ppage */
	unsigned int pfirst, pnr;     /* its entries */
};

/* x86-64's struct sigcontext within the ucontext the stack pointer points
 * at in a signal frame's restorer (__restore_rt) */
#define ZT_UW_SIGCTX 40
#define ZT_UW_SIGCTX_BP (ZT_UW_SIGCTX + 80)
#define ZT_UW_SIGCTX_BX (ZT_UW_SIGCTX + 88)
#define ZT_UW_SIGCTX_SP (ZT_UW_SIGCTX + 120)
#define ZT_UW_SIGCTX_IP (ZT_UW_SIGCTX + 128)

/* Step results besides the ZT_UW_STOP_* reasons */
#define ZT_UW_NEXT 0     /* r is the caller's */
#define ZT_UW_FALLBACK 8 /* the rule says nothing: try the frame pointer */

#endif /* ZT_KUNWIND_H */

/*
 * The functions: included again once the includer has defined what they
 * need (BPF: after its maps).
 */
/*
 * The includer defines ZT_UW_READ(dst, addr): 8 bytes of user memory at
 * addr into the unsigned long long dst, nonzero when it cannot be read.
 */
#if defined(ZT_UW_READ) && !defined(ZT_KUNWIND_APPLY)
#define ZT_KUNWIND_APPLY

/*
 * From the frame in r, whose rule is ru (the rule at r->pc, or just
 * before it for a return address), to its caller's: ZT_UW_NEXT, a stop
 * reason, or ZT_UW_FALLBACK. *exact is set when the caller's pc is an
 * interrupted instruction's (a signal frame's), not a return address.
 */
static __always_inline int zt_uw_apply(const struct zt_uw_rule *ru, struct zt_uw_regs *r,
				       int *exact)
{
	unsigned long long cfa, ra, bp = r->bp, bx = r->bx, bx_at = r->bx_at, sp;

	*exact = 0;
	switch (ru->kind) {
	case ZT_UW_CFA:
		if (ru->cfa_reg == ZT_UW_REG_SP) {
			cfa = r->sp;
		} else if (ru->cfa_reg == ZT_UW_REG_FP) {
			cfa = r->bp;
		} else {
			if (bx_at) {
				if (ZT_UW_READ(bx, bx_at))
					return ZT_UW_STOP_FAULT;
				bx_at = 0;
			}
			if (!bx) /* not known: the frame pointer may do */
				return ZT_UW_FALLBACK;
			cfa = bx;
		}
		cfa += (long long)ru->cfa_off;
		break;
	case ZT_UW_PLT:
		cfa = r->sp + (long long)ru->cfa_off +
		      ((r->pc & 15) >= (unsigned long long)ru->fp_off ? 8 : 0);
		break;
	case ZT_UW_SIGNAL:
		if (ZT_UW_READ(bp, r->sp + ZT_UW_SIGCTX_BP) || ZT_UW_READ(sp, r->sp + ZT_UW_SIGCTX_SP) ||
		    ZT_UW_READ(ra, r->sp + ZT_UW_SIGCTX_IP))
			return ZT_UW_STOP_FAULT;
		if (!ra)
			return ZT_UW_STOP_FP_END;
		r->bx = 0;
		r->bx_at = r->sp + ZT_UW_SIGCTX_BX; /* the sigcontext's */
		r->pc = ra;
		r->sp = sp;
		r->bp = bp;
		*exact = 1;
		return ZT_UW_NEXT;
	case ZT_UW_END:
		return ZT_UW_STOP_END;
	case ZT_UW_UNSUPPORTED:
		return ZT_UW_FALLBACK;
	default:
		return ZT_UW_FALLBACK;
	}
	/* the caller's stack is above this frame's */
	if (cfa <= r->sp)
		return ZT_UW_STOP_FAULT;
	if (ZT_UW_READ(ra, cfa - 8))
		return ZT_UW_STOP_FAULT;
	if (ru->fp == ZT_UW_FP_AT) {
		if (ZT_UW_READ(bp, cfa + (long long)ru->fp_off))
			return ZT_UW_STOP_FAULT;
	} else if (ru->fp == ZT_UW_FP_UNDEF) {
		bp = 0;
	}
	if (ru->bx == ZT_UW_FP_AT) {
		bx = 0;
		bx_at = cfa + (long long)ru->bx_off;
	} else if (ru->bx == ZT_UW_FP_UNDEF) {
		bx = bx_at = 0;
	}
	if (!ra)
		return ZT_UW_STOP_FP_END;
	r->pc = ra;
	r->sp = cfa;
	r->bp = bp;
	r->bx = bx;
	r->bx_at = bx_at;
	return ZT_UW_NEXT;
}

/*
 * The frame pointer's step, for code without a rule: the caller's frame
 * pointer at bp, the return address above it. ZT_UW_NEXT, or why not:
 * ZT_UW_STOP_FP_END at the chain's end, else 'why' (the reason the rule
 * was missing).
 */
static __always_inline int zt_uw_fp(struct zt_uw_regs *r, int why)
{
	unsigned long long fp, ra;

	if (!r->bp)
		return ZT_UW_STOP_FP_END;
	if (r->bp < r->sp || ZT_UW_READ(fp, r->bp) || ZT_UW_READ(ra, r->bp + 8))
		return why;
	if (!ra)
		return ZT_UW_STOP_FP_END;
	r->pc = ra;
	r->sp = r->bp + 16;
	r->bp = fp;
	r->bx = r->bx_at = 0; /* the frame may have used it, saved where no rule says */
	return ZT_UW_NEXT;
}

#endif /* ZT_UW_READ */

/*
 * The includer defines the map lookups (pointers, NULL when absent):
 * ZT_UW_PROC(tgid), ZT_UW_FILE(id), ZT_UW_PAGE(key pointer),
 * ZT_UW_ENTRY(index) (to an unsigned int: entry index of the entries as
 * one array), ZT_UW_RULE(index), and ZT_UW_CACHE() (the walk's struct
 * zt_uw_cache, or NULL for none).
 */
#if defined(ZT_UW_PROC) && !defined(ZT_KUNWIND_FIND)
#define ZT_KUNWIND_FIND

#define ZT_UW_VA_BITS 48 /* a table's addresses are below 2^48 */

/*
 * Where addr is in process tgid's files: (file id << 48) | the address in
 * the file's table, or, the file id 0, why there is none
 * (ZT_UW_STOP_NO_TABLE, ZT_UW_STOP_NOT_READY).
 */
static __always_inline unsigned long long zt_uw_locate_(unsigned int tgid,
						       unsigned long long addr)
{
	struct zt_uw_cache *c = ZT_UW_CACHE();
	const struct zt_uw_proc *p;
	const struct zt_uw_map *m;
	const struct zt_uw_file *f;
	unsigned long long off, va, slo, shi;
	unsigned int lo = 0, hi, mid, i;

	if (c && c->tgid == tgid && c->tgid && addr >= c->lo && addr < c->hi)
		return (unsigned long long)c->file << ZT_UW_VA_BITS |
		       ((addr + (unsigned long long)c->delta) & ((1ull << ZT_UW_VA_BITS) - 1));
	p = ZT_UW_PROC(tgid);
	if (!p)
		return ZT_UW_STOP_NOT_READY; /* a process not registered yet */
	/* (not clamped: a constant bound would have the verifier follow each
	 * search path apart) */
	hi = p->nr;
	if (hi > ZT_UW_MAPS)
		return ZT_UW_STOP_NO_TABLE;
	/* the last mapping starting at or below addr */
	for (i = 0; i < ZT_UW_MAPS_STEPS && lo < hi; i++) {
		mid = (lo + hi) / 2;
		if (addr < p->maps[mid & (ZT_UW_MAPS - 1)].start)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (!lo)
		return ZT_UW_STOP_NO_TABLE;
	m = &p->maps[(lo - 1) & (ZT_UW_MAPS - 1)];
	if (addr - m->start >= m->len || !m->file || m->file >= (1u << (64 - ZT_UW_VA_BITS)))
		return ZT_UW_STOP_NO_TABLE;
	f = ZT_UW_FILE(m->file);
	if (!f || f->state == ZT_UW_FILE_PENDING)
		return ZT_UW_STOP_NOT_READY;
	if (f->state != ZT_UW_FILE_LOADED)
		return ZT_UW_STOP_NO_TABLE;
	off = addr - m->start + m->pgoff;
	for (i = 0; i < ZT_UW_SEGS; i++) {
		if (i < f->nsegs && off >= f->segs[i].off && off < f->segs[i].end) {
			va = off + (unsigned long long)f->segs[i].adj;
			if (va >> ZT_UW_VA_BITS)
				return ZT_UW_STOP_NO_TABLE;
			if (c) {
				/* the addresses of the mapping in this segment */
				slo = m->start + (f->segs[i].off > m->pgoff ? f->segs[i].off - m->pgoff : 0);
				shi = m->start + (f->segs[i].end - m->pgoff);
				if (shi > m->start + m->len)
					shi = m->start + m->len;
				c->tgid = tgid;
				c->file = m->file;
				c->lo = slo;
				c->hi = shi;
				c->delta = (long long)(va - addr);
			}
			return (unsigned long long)m->file << ZT_UW_VA_BITS | va;
		}
	}
	return ZT_UW_STOP_NO_TABLE;
}

/* The index of the rule in force at va in file's table, or -1 where it has
 * none (a page without CFI). */
static __always_inline long long zt_uw_rule_index_(unsigned int file, unsigned long long va)
{
	struct zt_uw_cache *c = ZT_UW_CACHE();
	const struct zt_uw_page *pg;
	const unsigned int *ent;
	struct zt_uw_page_key k;
	unsigned int lo = 0, hi, mid, i, first;

	k.file = file;
	k.page = (unsigned int)(va >> ZT_UW_PAGE_SHIFT);
	if (c && c->pfile == file && c->pfile && c->ppage == k.page) {
		first = c->pfirst;
		hi = c->pnr;
	} else {
		pg = ZT_UW_PAGE(&k);
		if (!pg || !pg->nr)
			return -1;
		first = pg->first;
		hi = pg->nr;
		if (c) {
			c->pfile = file;
			c->ppage = k.page;
			c->pfirst = first;
			c->pnr = hi;
		}
	}
	if (hi > (1u << ZT_UW_PAGE_SHIFT))
		return -1;
	/* the last entry of the page at or below va's low bits (the first is
	 * at 0) */
	for (i = 0; i < ZT_UW_PAGE_STEPS && lo + 1 < hi; i++) {
		mid = (lo + hi) / 2;
		ent = ZT_UW_ENTRY(first + mid);
		if (!ent)
			return -1;
		if ((va & 0xffff) < (*ent & 0xffff))
			hi = mid;
		else
			lo = mid;
	}
	ent = ZT_UW_ENTRY(first + lo);
	if (!ent)
		return -1;
	return *ent >> 16;
}

#endif /* ZT_UW_PROC */

#if defined(ZT_UW_PROC) && defined(ZT_UW_READ) && !defined(ZT_KUNWIND_FRAME)
#define ZT_KUNWIND_FRAME

struct zt_uw_walk {
	struct zt_uw_regs r;
	unsigned int tgid;
	int exact; /* r.pc is an interrupted instruction's (the first frame's, after a
		      signal frame): looked up as is, not just before it */
	int cfi;   /* frames unwound by their CFI */
	int sig;   /* the last frame stepped from was a signal frame's (its pc is the
		      restorer's first instruction, no call's return) */
};

/*
 * From w's frame to its caller's: ZT_UW_NEXT or a stop reason. A return
 * address is looked up just before it: the call may be a function's last
 * instruction (a noreturn call), the address past its end. The includer
 * defines ZT_UW_LOCATE and ZT_UW_RULE_INDEX as zt_uw_locate_() and
 * zt_uw_rule_index_(), or as functions that call them (BPF: verified once
 * each).
 */
static __always_inline int zt_uw_frame(struct zt_uw_walk *w)
{
	const struct zt_uw_rule *ru = 0;
	unsigned long long loc;
	long long idx;
	int why, ret, exact;

	loc = ZT_UW_LOCATE(w->tgid, w->r.pc - (w->exact ? 0 : 1));
	why = (int)loc;
	if (loc >> ZT_UW_VA_BITS) {
		why = ZT_UW_STOP_NO_TABLE;
		idx = ZT_UW_RULE_INDEX((unsigned int)(loc >> ZT_UW_VA_BITS),
				       loc & ((1ull << ZT_UW_VA_BITS) - 1));
		if (idx >= 0)
			ru = ZT_UW_RULE((unsigned int)idx);
	}
	w->sig = ru && ru->kind == ZT_UW_SIGNAL;
	if (ru) {
		ret = zt_uw_apply(ru, &w->r, &exact);
		if (ret != ZT_UW_FALLBACK) {
			w->exact = exact;
			w->cfi += ret == ZT_UW_NEXT;
			return ret;
		}
		why = ru->kind == ZT_UW_UNSUPPORTED ? ZT_UW_STOP_UNSUPPORTED : ZT_UW_STOP_NO_TABLE;
	}
	w->exact = 0;
	return zt_uw_fp(&w->r, why);
}

#endif
