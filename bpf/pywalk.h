/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPython's frame chain, walked from outside the process: shared by the BPF
 * program (Python frames at sample time) and user space (record/pyproc.c,
 * whose tests run it on live interpreters), as bpf/kunwind.h is for native
 * stacks.
 *
 * A thread's state is found by its native thread id in the interpreters'
 * thread lists (_PyRuntime.interpreters.head, each interpreter's
 * threads.head, next); its frames from the current one (3.11, 3.12:
 * tstate->cframe->current_frame; 3.13: tstate->current_frame) through
 * 'previous', each a code object and its instruction, C-stack shim frames
 * (3.12+) left out. Every chain has a bound.
 */
#ifndef ZT_PYWALK_H
#define ZT_PYWALK_H

#define ZT_PY_MAX_STEPS 256 /* interpreters and threads looked at to find one thread */
#define ZT_PY_MAX_FRAMES 64 /* Python frames recorded per sample, innermost first */
#define ZT_PY_OWNED_BY_CSTACK 3
/* The bytes of a _PyInterpreterFrame read at once: every field zt needs
 * (code, previous, instruction, 3.11's is_entry, owner) is in them. */
#define ZT_PY_FRAME_READ 72
/* zt_py_frame.flags: the outermost frame of one run of the evaluation
 * loop (3.11's is_entry; 3.12+: the frame under a C-stack shim) */
#define ZT_PY_ENTRY 1u

/* The offsets zt reads in one CPython version's structs (x86-64). */
struct zt_py_layout {
	unsigned int minor; /* 3.minor */
	/* _PyRuntime.interpreters.head; PyInterpreterState next, threads.head */
	unsigned int rt_interp_head, is_next, is_threads_head;
	/* PyThreadState next, thread_id (pthread_t), native_thread_id */
	unsigned int ts_next, ts_thread_id, ts_native_tid;
	/* the current frame: tstate->cframe->current_frame (ts_cframe != 0)
	 * or tstate->current_frame (3.13: ts_cframe 0) */
	unsigned int ts_cframe, cf_current_frame;
	/* _PyInterpreterFrame: code object (f_code, f_executable), previous,
	 * instruction (prev_instr; 3.13's instr_ptr), owner; 3.11's is_entry
	 * (0: none, the C-stack shims say it); each below ZT_PY_FRAME_READ */
	unsigned int fr_code, fr_previous, fr_instr, fr_owner, fr_is_entry;
	/* PyCodeObject */
	unsigned int co_filename, co_name, co_qualname, co_firstlineno, co_linetable,
		co_code_adaptive;
	/* str: the data of a compact ASCII string and of another compact one */
	unsigned int str_ascii_data, str_compact_data;
};

/* A Python frame: its code object and instruction (the code unit's index,
 * -1 where it is not in the code), ZT_PY_ENTRY. */
struct zt_py_frame {
	unsigned long long code;
	int lasti;
	unsigned int flags;
	unsigned int stamp; /* zt_py_stamp() of the code object when it was seen */
	unsigned int pad;
};

/* What tells one code object from another that later took its place at
 * the same address (a module's code, freed after its import, say): its
 * file name, qualified name and line table objects' addresses, folded to
 * 28 bits. zt reads them with the frame (co_filename, co_name,
 * co_qualname, co_linetable are consecutive words in every version it
 * reads: ZT_PY_CODE_READ bytes from co_filename). */
#define ZT_PY_CODE_READ 32
#define ZT_PY_STAMP_MASK 0xfffffffu
static __always_inline unsigned int zt_py_stamp(unsigned long long file, unsigned long long qual,
						unsigned long long table)
{
	unsigned long long x = (file >> 4) ^ (qual << 7) ^ (table << 17) ^ (table >> 29);

	return (unsigned int)(x ^ x >> 28 ^ x >> 56) & ZT_PY_STAMP_MASK;
}

/* What the BPF program knows of a CPython process (map py_procs, by tgid). */
struct zt_py_proc {
	struct zt_py_layout lay;
	unsigned int pad;
	unsigned long long runtime; /* _PyRuntime's address */
};

#endif /* ZT_PYWALK_H */

/*
 * The functions: the includer defines ZT_PY_READ(ctx, dst, addr): 8 bytes
 * of the process's memory at addr into the unsigned long long dst, and
 * ZT_PY_READ_BLOCK(ctx, buf, len, addr): len (a constant) bytes into the
 * array buf; each nonzero when they cannot be read (ctx: the functions'
 * own, passed on: which process, for user space).
 */
#if defined(ZT_PY_READ) && !defined(ZT_PYWALK_FNS)
#define ZT_PYWALK_FNS

/* A search for one thread's state, a step at a time (for the BPF
 * program's bpf_loop()): the interpreter whose threads are looked at, the
 * thread state looked at (0: the next interpreter's first). */
struct zt_py_search {
	unsigned long long interp, ts;
	unsigned int tid;
	unsigned int seen; /* thread states looked at */
};

/* The search's start from _PyRuntime at runtime: 0, or -1 when the
 * memory cannot be read. */
static __always_inline int zt_py_search_start(const void *ctx, const struct zt_py_layout *l,
					      unsigned long long runtime, unsigned int tid,
					      struct zt_py_search *s)
{
	s->ts = 0;
	s->tid = tid;
	s->seen = 0;
	return ZT_PY_READ(ctx, s->interp, runtime + l->rt_interp_head) ? -1 : 0;
}

/* One step: 1 when s->ts is the thread's state, 2 when no interpreter
 * has it, 0 to go on, -1 when the memory cannot be read. */
static __always_inline int zt_py_search_step(const void *ctx, const struct zt_py_layout *l,
					     struct zt_py_search *s)
{
	unsigned long long v;

	if (!s->ts) { /* the next interpreter's threads */
		if (!s->interp)
			return 2;
		if (ZT_PY_READ(ctx, s->ts, s->interp + l->is_threads_head) ||
		    ZT_PY_READ(ctx, s->interp, s->interp + l->is_next))
			return -1;
		return 0;
	}
	if (ZT_PY_READ(ctx, v, s->ts + l->ts_native_tid))
		return -1;
	s->seen++;
	if ((unsigned int)v == s->tid)
		return 1;
	return ZT_PY_READ(ctx, s->ts, s->ts + l->ts_next) ? -1 : 0;
}

/*
 * The PyThreadState of native thread tid, from _PyRuntime at runtime: 1
 * with *tstate, 0 when no interpreter has it (within ZT_PY_MAX_STEPS), -1
 * when the memory cannot be read.
 */
static __always_inline int zt_py_thread(const void *ctx, const struct zt_py_layout *l,
					unsigned long long runtime, unsigned int tid,
					unsigned long long *tstate)
{
	struct zt_py_search s;
	int i, r;

	if (zt_py_search_start(ctx, l, runtime, tid, &s))
		return -1;
	for (i = 0; i < ZT_PY_MAX_STEPS; i++) {
		r = zt_py_search_step(ctx, l, &s);
		if (r == 1)
			*tstate = s.ts;
		if (r)
			return r == 2 ? 0 : r;
	}
	return 0;
}

/* The 8 bytes at offset off (below ZT_PY_FRAME_READ) of a frame's block,
 * and a byte of them. */
static __always_inline unsigned long long zt_py_word(const unsigned long long *blk, unsigned int off)
{
	unsigned int w = off / 8;

	if (w > ZT_PY_FRAME_READ / 8 - 1)
		w = ZT_PY_FRAME_READ / 8 - 1;
	return blk[w];
}

static __always_inline unsigned int zt_py_byte(const unsigned long long *blk, unsigned int off)
{
	return zt_py_word(blk, off) >> 8 * (off & 7) & 0xff;
}

/*
 * Frame fr's code object (with its stamp), instruction and owner into *f
 * (ZT_PY_ENTRY for 3.11's entry frames), the next frame in *next: 1 for a Python frame, 0
 * for a C-stack shim (3.12+: *f untouched), -1 when it cannot be read.
 */
static __always_inline int zt_py_frame_at(const void *ctx, const struct zt_py_layout *l,
					  unsigned long long fr, struct zt_py_frame *f,
					  unsigned long long *next)
{
	unsigned long long blk[ZT_PY_FRAME_READ / 8], cw[ZT_PY_CODE_READ / 8], code, instr, units;

	if (ZT_PY_READ_BLOCK(ctx, blk, ZT_PY_FRAME_READ, fr))
		return -1;
	*next = zt_py_word(blk, l->fr_previous);
	if (l->minor >= 12 && zt_py_byte(blk, l->fr_owner) == ZT_PY_OWNED_BY_CSTACK)
		return 0;
	code = zt_py_word(blk, l->fr_code);
	instr = zt_py_word(blk, l->fr_instr);
	if (ZT_PY_READ_BLOCK(ctx, cw, ZT_PY_CODE_READ, code + l->co_filename))
		return -1;
	f->stamp = zt_py_stamp(cw[0], cw[2], cw[3]);
	f->pad = 0;
	/* unsigned: BPF has no signed division */
	units = instr >= code + l->co_code_adaptive ? (instr - code - l->co_code_adaptive) >> 1 : ~0ull;
	f->code = code;
	f->lasti = units > 0x7fffffff ? -1 : (int)units;
	f->flags = l->fr_is_entry && zt_py_byte(blk, l->fr_is_entry) ? ZT_PY_ENTRY : 0;
	return 1;
}

/* Thread state tstate's current frame into *fr: 0, or -1 when it cannot
 * be read. */
static __always_inline int zt_py_current(const void *ctx, const struct zt_py_layout *l,
					 unsigned long long tstate, unsigned long long *fr)
{
	unsigned long long at = tstate;

	if (l->ts_cframe && ZT_PY_READ(ctx, at, tstate + l->ts_cframe))
		return -1;
	return ZT_PY_READ(ctx, *fr, at + l->cf_current_frame) ? -1 : 0;
}

/*
 * The Python frames of thread state tstate, innermost first, into out (at
 * most max): how many, or -1 when the memory cannot be read. A frame chain
 * that loops ends at the bound. (The BPF program walks the same frames
 * with zt_py_frame_at(), a step per frame.)
 */
static __always_inline int zt_py_frames(const void *ctx, const struct zt_py_layout *l,
					unsigned long long tstate, struct zt_py_frame *out, int max)
{
	unsigned long long fr;
	int n = 0, i, r;

	if (zt_py_current(ctx, l, tstate, &fr))
		return -1;
	for (i = 0; i < 2 * max && fr && n < max; i++) {
		r = zt_py_frame_at(ctx, l, fr, &out[n], &fr);
		if (r < 0)
			return -1;
		if (r)
			n++;
		else if (n) /* a shim: the frame before it began its run of the loop */
			out[n - 1].flags |= ZT_PY_ENTRY;
	}
	return n;
}

#endif /* ZT_PY_READ */
