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
#define ZT_PY_OWNED_BY_CSTACK 3

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
	 * instruction (prev_instr; 3.13's instr_ptr), owner */
	unsigned int fr_code, fr_previous, fr_instr, fr_owner;
	/* PyCodeObject */
	unsigned int co_filename, co_name, co_qualname, co_firstlineno, co_linetable,
		co_code_adaptive;
	/* str: the data of a compact ASCII string and of another compact one */
	unsigned int str_ascii_data, str_compact_data;
};

/* A Python frame: its code object and instruction (the code unit's index,
 * -1 where it is not in the code). */
struct zt_py_frame {
	unsigned long long code;
	int lasti;
	unsigned int pad;
};

#endif /* ZT_PYWALK_H */

/*
 * The functions: the includer defines ZT_PY_READ(ctx, ctx, dst, addr): 8 bytes
 * of the process's memory at addr into the unsigned long long dst, nonzero
 * when they cannot be read (ctx: the functions' own, passed on: which
 * process, for user space).
 */
#if defined(ZT_PY_READ) && !defined(ZT_PYWALK_FNS)
#define ZT_PYWALK_FNS

/*
 * The PyThreadState of native thread tid, from _PyRuntime at runtime: 1
 * with *tstate, 0 when no interpreter has it (within ZT_PY_MAX_STEPS), -1
 * when the memory cannot be read.
 */
static __always_inline int zt_py_thread(const void *ctx, const struct zt_py_layout *l,
					unsigned long long runtime, unsigned int tid,
					unsigned long long *tstate)
{
	unsigned long long interp, ts = 0, v;
	int i;

	if (ZT_PY_READ(ctx, interp, runtime + l->rt_interp_head))
		return -1;
	for (i = 0; i < ZT_PY_MAX_STEPS; i++) {
		if (!ts) { /* the next interpreter's threads */
			if (!interp)
				return 0;
			if (ZT_PY_READ(ctx, ts, interp + l->is_threads_head) ||
			    ZT_PY_READ(ctx, interp, interp + l->is_next))
				return -1;
			continue;
		}
		if (ZT_PY_READ(ctx, v, ts + l->ts_native_tid))
			return -1;
		if ((unsigned int)v == tid) {
			*tstate = ts;
			return 1;
		}
		if (ZT_PY_READ(ctx, ts, ts + l->ts_next))
			return -1;
	}
	return 0;
}

/*
 * The Python frames of thread state tstate, innermost first, into out (at
 * most max, a constant for the BPF verifier): how many, or -1 when the
 * memory cannot be read. A frame chain that loops ends at the bound.
 */
static __always_inline int zt_py_frames(const void *ctx, const struct zt_py_layout *l,
					unsigned long long tstate, struct zt_py_frame *out, int max)
{
	unsigned long long fr, at = tstate, code, instr, owner;
	long long units;
	int n = 0, i;

	if (l->ts_cframe && ZT_PY_READ(ctx, at, tstate + l->ts_cframe))
		return -1;
	if (ZT_PY_READ(ctx, fr, at + l->cf_current_frame))
		return -1;
	for (i = 0; i < 2 * max && fr && n < max; i++) {
		if (ZT_PY_READ(ctx, code, fr + l->fr_code) || ZT_PY_READ(ctx, instr, fr + l->fr_instr) ||
		    ZT_PY_READ(ctx, owner, fr + (l->fr_owner & ~7u)))
			return -1;
		owner = owner >> 8 * (l->fr_owner & 7) & 0xff;
		if (l->minor < 12 || owner != ZT_PY_OWNED_BY_CSTACK) {
			units = ((long long)instr - (long long)(code + l->co_code_adaptive)) / 2;
			out[n].code = code;
			out[n].lasti = units < 0 || units > 0x7fffffff ? -1 : (int)units;
			out[n].pad = 0;
			n++;
		}
		if (ZT_PY_READ(ctx, fr, fr + l->fr_previous))
			return -1;
	}
	return n;
}

#endif /* ZT_PY_READ */
