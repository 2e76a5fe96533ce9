// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt's CPU sampler: runs on every perf_event sample (cpu-clock or cycles,
 * one event per CPU), captures the kernel and user stacks (without call
 * graphs, just the sampled address) and streams one record per sample to
 * user space: no in-kernel aggregation, so every sample keeps its timestamp.
 * With --call-graph dwarf a record also carries the user registers and a
 * copy of the user stack, for unwinding offline with the binaries' CFI.
 * A fork hook extends the process filter to children, so a workload is
 * followed through fork and exec.
 */
#include "zt_kern.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>

#include "sample_event.h"
#include "kunwind.h"
#include "pywalk.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_mode = ZT_FILTER_ALL;
const volatile bool follow_children = true;
/* Walk the kernel and user stacks; else send only the sampled address, as
 * perf records without -g (and what zt keeps then): saves the walks. */
const volatile bool callchain = true;
/* Wake the reader only when the ring is this full: it polls on a timer
 * anyway, and a wakeup per sample costs more than the sample itself. */
const volatile __u64 wakeup_bytes = 4 << 20;
/* Bytes of user stack to copy per sample (a multiple of 8, at most
 * ZT_USTACK_MAX): 0 for no snapshots (frame pointers only). */
const volatile __u32 ustack_size = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* resized by the loader */
} events SEC(".maps");

/* Walk user stacks with the unwind tables (bpf/kunwind.h), the frame
 * pointer where they have nothing; else by frame pointers alone, as perf. */
const volatile bool kunwind = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* The kernel unwinder's tables (bpf/kunwind.h); the loader sizes them,
 * to one entry each when they are not used. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct zt_uw_proc);
} uw_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct zt_uw_file);
} uw_files SEC(".maps");

/* what this CPU's walk found last (struct zt_uw_cache) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct zt_uw_cache);
} uw_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct zt_uw_page_key);
	__type(value, struct zt_uw_page);
} uw_pages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE); /* written by user space through a mapping */
	__type(key, __u32);
	__type(value, struct zt_uw_entry2);
} uw_entries SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE); /* written by user space through a mapping */
	__type(key, __u32);
	__type(value, struct zt_uw_rule);
} uw_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} tids SEC(".maps");

/* Python frames (bpf/pywalk.h): the CPython processes zt reads, by tgid
 * (filled by record/pyproc.c's checks), and each thread's PyThreadState
 * as found last, by tid. The loader sizes them, to one entry each when
 * they are not used. */
const volatile bool python = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct zt_py_proc);
} py_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} py_threads SEC(".maps");

/* The code objects of runs' entry frames seen (address ^ stamp << 36): a
 * new one wakes the reader at once, so that zt reads it while it lives (a
 * module's code runs once, in a run of its own, and is freed after its
 * import). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u8);
} py_codes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct zt_sample_event);
} scratch SEC(".maps");

/* The launch probe's own record: a sample's program can interrupt it on
 * its CPU (a cpu-clock sample is a timer interrupt), and would overwrite
 * a shared one. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct zt_sample_event);
} lscratch SEC(".maps");

/* The record a walk writes into: the launch probe's or a sample's. */
static __always_inline struct zt_sample_event *record_of(__u32 launch)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(launch ? (void *)&lscratch : (void *)&scratch, &zero);
}

static __always_inline const struct zt_uw_proc *uw_proc(__u32 tgid)
{
	return bpf_map_lookup_elem(&uw_procs, &tgid);
}

static __always_inline const struct zt_uw_file *uw_file(__u32 id)
{
	return bpf_map_lookup_elem(&uw_files, &id);
}

static __always_inline const __u32 *uw_entry(__u32 i)
{
	__u32 k = i >> 1;
	const struct zt_uw_entry2 *v = bpf_map_lookup_elem(&uw_entries, &k);

	return v ? &v->e[i & 1] : NULL;
}

static __always_inline const struct zt_uw_rule *uw_rule(__u32 i)
{
	return bpf_map_lookup_elem(&uw_rules, &i);
}

static __always_inline struct zt_uw_cache *uw_cache_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&uw_cache, &zero);
}

#define ZT_UW_READ(dst, addr) bpf_probe_read_user(&(dst), 8, (const void *)(addr))
#define ZT_UW_PROC(tgid) uw_proc(tgid)
#define ZT_UW_FILE(id) uw_file(id)
#define ZT_UW_PAGE(k) ((const struct zt_uw_page *)bpf_map_lookup_elem(&uw_pages, k))
#define ZT_UW_ENTRY(i) uw_entry(i)
#define ZT_UW_RULE(i) uw_rule(i)
#define ZT_UW_CACHE() uw_cache_get()
#define ZT_UW_LOCATE(tgid, addr) uw_locate(tgid, addr)
#define ZT_UW_RULE_INDEX(file, va) uw_rule_index(file, va)
__noinline unsigned long long uw_locate(__u32 tgid, __u64 addr);
__noinline long long uw_rule_index(__u32 file, __u64 va);
#include "kunwind.h"

/* The two searches as global functions: the verifier checks each once,
 * not once for every state of the walk that calls them. */
__noinline unsigned long long uw_locate(__u32 tgid, __u64 addr)
{
	return zt_uw_locate_(tgid, addr);
}

__noinline long long uw_rule_index(__u32 file, __u64 va)
{
	return zt_uw_rule_index_(file, va);
}

/* A record with a snapshot: the ustack part goes right after the last used
 * ip, at a variable offset; the tail is sized for the largest offset plus
 * one more page, the bounds the verifier sees for a piece of the copy. */
struct zt_sample_buf {
	struct zt_sample_event e;
	__u8 tail[ZT_USTACK_PART_SIZE + ZT_USTACK_MAX + 8 + 4096];
};

/* Per-CPU array values are limited to 32 KiB: a plain array, one entry per
 * CPU (the loader sets max_entries), indexed by the CPU number. A program
 * runs to the end on its CPU, so the entry is not shared. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized by the loader */
	__type(key, __u32);
	__type(value, struct zt_sample_buf);
} uscratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ZT_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		*v += 1;
}

/* x86-64 pt_regs: cs is regs[17], ip regs[16], bp regs[4] */
static __always_inline bool user_mode(const struct bpf_perf_event_data *ctx)
{
	return (ctx->regs[17] & 3) == 3;
}

/* pt_regs (x86-64) index -> DWARF register number order */
#define PT_R15 0
#define PT_R14 1
#define PT_R13 2
#define PT_R12 3
#define PT_BP 4
#define PT_BX 5
#define PT_R11 6
#define PT_R10 7
#define PT_R9 8
#define PT_R8 9
#define PT_AX 10
#define PT_CX 11
#define PT_DX 12
#define PT_SI 13
#define PT_DI 14
#define PT_IP 16
#define PT_CS 17
#define PT_SP 19
#define PT_NREGS 21

/*
 * Up to ustack_size bytes of the current task's user stack from sp up, into
 * this CPU's record at offset off (where a zt_ustack_part's data goes). A
 * global function with scalar arguments, so that the sample program and the
 * launch program (whose contexts differ) share it. The copy goes a page at
 * a time (first to the next 4 KiB boundary, then whole pages) so that it
 * stops exactly at the first page it cannot read, as perf's copy_from_user
 * does: one large read fails whole when the stack is shallower than the
 * size. Returns the bytes copied, or -1.
 */
__noinline long copy_stack(__u32 off, __u64 sp)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 copied = 0, o = off;
	__u8 *dst;
	int i;

	dst = bpf_map_lookup_elem(&uscratch, &cpu);
	barrier_var(o); /* bounds checked on the register that is used */
	if (!dst || o > sizeof(struct zt_sample_event) + ZT_USTACK_PART_SIZE)
		return -1;
	dst += o;
	for (i = 0; i < ZT_USTACK_MAX / 4096 + 2; i++) {
		__u64 n = 4096 - ((sp + copied) & 4095);

		if (copied >= ustack_size || copied > ZT_USTACK_MAX)
			break;
		if (n > ustack_size - copied)
			n = ustack_size - copied;
		if (n > 4096) /* for the verifier */
			n = 4096;
		if (bpf_probe_read_user(dst + copied, n, (void *)(sp + copied)))
			break;
		copied += n;
	}
	return copied;
}

/*
 * The snapshot of the user context of the current task, at offset off of
 * this CPU's record (just after its last ip): the registers in DWARF order,
 * then up to ustack_size bytes of stack from sp up (copy_stack). A global
 * function: the verifier checks it once, not once for every state the
 * frame-pointer walk ends in (that is over its limit). Returns the bytes of
 * stack copied, or -1 when the task has no user context (a kernel thread:
 * its saved registers are not user mode).
 */
__noinline long snapshot(struct bpf_perf_event_data *ctx, __u32 off)
{
	__u64 r[PT_NREGS], sp, o = off, *p;
	__u32 cpu = bpf_get_smp_processor_id();
	__u8 *buf;

	buf = bpf_map_lookup_elem(&uscratch, &cpu);
	barrier_var(o); /* bounds checked on the register that is used */
	if (!buf || o > sizeof(struct zt_sample_event))
		return -1;
	p = (__u64 *)(buf + o);

	if (user_mode(ctx)) {
		/* constant offsets: the verifier rewrites each load */
		r[PT_R15] = ctx->regs[PT_R15];
		r[PT_R14] = ctx->regs[PT_R14];
		r[PT_R13] = ctx->regs[PT_R13];
		r[PT_R12] = ctx->regs[PT_R12];
		r[PT_BP] = ctx->regs[PT_BP];
		r[PT_BX] = ctx->regs[PT_BX];
		r[PT_R11] = ctx->regs[PT_R11];
		r[PT_R10] = ctx->regs[PT_R10];
		r[PT_R9] = ctx->regs[PT_R9];
		r[PT_R8] = ctx->regs[PT_R8];
		r[PT_AX] = ctx->regs[PT_AX];
		r[PT_CX] = ctx->regs[PT_CX];
		r[PT_DX] = ctx->regs[PT_DX];
		r[PT_SI] = ctx->regs[PT_SI];
		r[PT_DI] = ctx->regs[PT_DI];
		r[PT_IP] = ctx->regs[PT_IP];
		r[PT_CS] = ctx->regs[PT_CS];
		r[PT_SP] = ctx->regs[PT_SP];
	} else {
		/* in the kernel: the user registers saved at kernel entry (x86-64's
		 * pt_regs is 21 longs in this order on every kernel) */
		void *u = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());

		if (bpf_probe_read_kernel(r, sizeof(r), u))
			return -1;
	}
	sp = r[PT_SP];
	if ((r[PT_CS] & 3) != 3 || !sp)
		return -1;
	p[0] = r[PT_AX];
	p[1] = r[PT_DX];
	p[2] = r[PT_CX];
	p[3] = r[PT_BX];
	p[4] = r[PT_SI];
	p[5] = r[PT_DI];
	p[6] = r[PT_BP];
	p[7] = sp;
	p[8] = r[PT_R8];
	p[9] = r[PT_R9];
	p[10] = r[PT_R10];
	p[11] = r[PT_R11];
	p[12] = r[PT_R12];
	p[13] = r[PT_R13];
	p[14] = r[PT_R14];
	p[15] = r[PT_R15];
	p[16] = r[PT_IP];
	return copy_stack(o + ZT_USTACK_PART_SIZE, sp);
}

/* The user stack from ip and the frame-pointer chain at bp, into e->ips
 * after its nk kernel frames: a walk done here, cheaper than
 * bpf_get_stack(BPF_F_USER_STACK) (1.1 against 2.2 us a sample, measured
 * with kernel.bpf_stats_enabled). Returns the user frames stored. */
static __always_inline __u64 fp_walk(struct zt_sample_event *e, __u64 nk, __u64 ip, __u64 bp)
{
	__u64 nu = 0, fr[2];
	int i;

	if (nk < ZT_BPF_MAX_STACK && ip) {
		e->ips[nk & 127] = ip;
		nu = 1;
	}
	for (i = 0; i < ZT_BPF_MAX_STACK - 1; i++) {
		/* fr[0]: the caller's frame pointer, fr[1]: the return address */
		if (!bp || bpf_probe_read_user(fr, sizeof(fr), (void *)bp))
			break;
		if (!fr[1])
			break;
		if (nk + nu >= 2 * ZT_BPF_MAX_STACK)
			break;
		e->ips[(nk + nu) & 255] = fr[1];
		nu++;
		if (fr[0] <= bp)
			break;
		bp = fr[0];
	}
	return nu;
}

/* The kernel unwinder's walk, one frame per bpf_loop() step (the verifier
 * checks the step once). */
struct uw_loop {
	struct zt_uw_walk w;
	__u32 nk, n, reason;
	__u32 launch; /* into the launch probe's record */
};

static long uw_step(__u32 i, void *ctx)
{
	struct uw_loop *l = ctx;
	struct zt_sample_event *e;
	__u64 at, pc;
	int ret, exact;

	(void)i;
	if (ustack_size) { /* the record with a snapshot (--call-graph dwarf) */
		__u32 cpu = bpf_get_smp_processor_id();

		e = bpf_map_lookup_elem(&uscratch, &cpu);
	} else {
		e = record_of(l->launch);
	}
	if (!e)
		return 1;
	if (l->n >= ZT_BPF_MAX_STACK || l->nk + l->n >= 2 * ZT_BPF_MAX_STACK) {
		l->reason = ZT_UW_STOP_DEPTH;
		return 1;
	}
	pc = l->w.r.pc;
	exact = l->w.exact;
	ret = zt_uw_frame(&l->w);
	/* a caller's frame as the address in its call (its return address -
	 * 1), as DWARF unwinders give it (perf's, zt's offline one): a call
	 * that does not return may end its function, its return address
	 * then being another function's. Not a signal frame's: the kernel
	 * "returned" to the restorer's first instruction. */
	if (!exact && !l->w.sig)
		pc--;
	at = l->nk + l->n;
	barrier_var(at); /* bounds checked on the register that is used */
	if (at >= 2 * ZT_BPF_MAX_STACK)
		return 1;
	e->ips[at] = pc;
	l->n++;
	if (ret != ZT_UW_NEXT) {
		l->reason = ret;
		return 1;
	}
	return 0;
}

/* The user stack from (ip, sp, bp, bx) into this CPU's record's ips (the
 * scratch or, with snapshots, the uscratch one) after its nk kernel
 * frames, walked with the unwind tables: the user frames stored; *reason
 * why the walk ended. */
static __always_inline __u64 uw_walk(__u32 tgid, __u64 nk, __u64 ip, __u64 sp, __u64 bp,
				     __u64 bx, __u32 *reason, __u32 launch)
{
	struct uw_loop l = {};
	struct zt_uw_cache *c;

	*reason = 0;
	if (!ip)
		return 0;
	c = uw_cache_get();
	if (c) { /* a new walk: nothing found yet */
		c->tgid = 0;
		c->pfile = 0;
	}
	l.w.r.pc = ip;
	l.w.r.sp = sp;
	l.w.r.bp = bp;
	l.w.r.bx = bx;
	l.w.tgid = tgid;
	l.w.exact = 1; /* the interrupted instruction */
	l.nk = nk;
	l.launch = launch;
	bpf_loop(ZT_BPF_MAX_STACK + 1, uw_step, &l, 0);
	*reason = l.reason;
	return l.n;
}

#define ZT_PY_READ(ctx, dst, addr) bpf_probe_read_user(&(dst), 8, (const void *)(addr))
#define ZT_PY_READ_BLOCK(ctx, buf, len, addr) bpf_probe_read_user((buf), (len), (const void *)(addr))
#include "pywalk.h"

#define PY_WAKE (1 << 16) /* py_walk(): a new code object, read it at once */
#define PY_NO_TSTATE_NS 200000000ull /* 0.2 s */

/* The searches of bpf/pywalk.h a step per bpf_loop() call (the verifier
 * checks a step once, not once for every path through the loop). */
struct py_search_loop {
	const struct zt_py_proc *pp;
	struct zt_py_search s;
	int r;
};

static long py_search_cb(__u32 i, void *ctx)
{
	struct py_search_loop *l = ctx;

	(void)i;
	l->r = zt_py_search_step(NULL, &l->pp->lay, &l->s);
	return l->r != 0;
}

struct py_frames_loop {
	const struct zt_py_proc *pp;
	__u64 fr;
	__u32 at, n;
	int err;
	__u32 wake; /* a new entry frame's code object */
	__u32 launch; /* into the launch probe's record */
};

/* Whether an entry frame's code object (word0, word1 as sent) is new. */
static __always_inline __u32 py_new_code(__u64 code, __u64 w)
{
	__u64 k = code ^ (w >> 36) << 36;
	__u8 one = 1;

	if (bpf_map_lookup_elem(&py_codes, &k))
		return 0;
	bpf_map_update_elem(&py_codes, &k, &one, BPF_ANY);
	return 1;
}

static long py_frames_cb(__u32 i, void *ctx)
{
	struct py_frames_loop *l = ctx;
	struct zt_sample_event *e;
	struct zt_py_frame f;
	__u64 idx;
	int r;

	(void)i;
	if (!l->fr || l->n >= ZT_BPF_MAX_PY)
		return 1;
	e = record_of(l->launch);
	if (!e)
		return 1;
	r = zt_py_frame_at(NULL, &l->pp->lay, l->fr, &f, &l->fr);
	if (r < 0) {
		l->err = 1;
		return 1;
	}
	idx = l->at + 2 * (__u64)l->n;
	barrier_var(idx); /* bounds checked on the register that is used */
	if (!r) { /* a C-stack shim: the frame before it began its run */
		if (l->n && idx >= 2 && idx - 1 < 2 * ZT_BPF_MAX_STACK + 2 * ZT_BPF_MAX_PY) {
			e->ips[idx - 1] |= (__u64)ZT_PY_ENTRY << 32;
			l->wake |= py_new_code(e->ips[idx - 2], e->ips[idx - 1]);
		}
		return 0;
	}
	if (idx + 1 >= 2 * ZT_BPF_MAX_STACK + 2 * ZT_BPF_MAX_PY)
		return 1;
	e->ips[idx] = f.code;
	e->ips[idx + 1] = (__u32)f.lasti | (__u64)(f.flags & 0xf) << 32 | (__u64)f.stamp << 36;
	if (f.flags & ZT_PY_ENTRY)
		l->wake |= py_new_code(e->ips[idx], e->ips[idx + 1]);
	l->n++;
	return 0;
}

/*
 * The Python frames of thread tid of tgid (a CPython process in py_procs)
 * into this CPU's record after its first at ips, two words each (see
 * ZT_EV_PY): how many (| PY_WAKE when the reader should read at once);
 * 0 for a thread without Python frames or a process that is not a CPython
 * zt reads; -1 when its memory could not be read.
 * A global function: the verifier checks it once.
 */
__noinline int py_walk(__u32 tgid, __u32 tid, __u32 at, __u32 launch)
{
	const struct zt_py_proc *pp = bpf_map_lookup_elem(&py_procs, &tgid);
	struct py_search_loop sl = {};
	struct py_frames_loop fl = {};
	__u64 ts = 0, v, *cached;

	if (!pp)
		return 0;
	/* the thread's state: as found last, if it is still this thread's;
	 * a thread without one (a C library's) is searched for again only
	 * after PY_NO_TSTATE_NS (an odd value: the time it was not found) */
	cached = bpf_map_lookup_elem(&py_threads, &tid);
	if (cached) {
		ts = *cached;
		if (ts & 1) {
			if (bpf_ktime_get_ns() - (ts >> 1) < PY_NO_TSTATE_NS)
				return 0;
			ts = 0;
		} else if (ZT_PY_READ(NULL, v, ts + pp->lay.ts_native_tid) || (__u32)v != tid) {
			ts = 0;
		}
	}
	if (!ts) {
		sl.pp = pp;
		if (zt_py_search_start(NULL, &pp->lay, pp->runtime, tid, &sl.s))
			return -1;
		bpf_loop(ZT_PY_MAX_STEPS, py_search_cb, &sl, 0);
		if (sl.r == 2 || !sl.r) {
			/* no interpreter has it (within the bound): a thread of
			 * a C library's, not looked for again for a while; unless
			 * the interpreter has no threads yet (it is starting) */
			if (sl.s.seen) {
				ts = bpf_ktime_get_ns() << 1 | 1;
				bpf_map_update_elem(&py_threads, &tid, &ts, BPF_ANY);
			}
			return 0;
		}
		if (sl.r != 1)
			return -1;
		ts = sl.s.ts;
		bpf_map_update_elem(&py_threads, &tid, &ts, BPF_ANY);
	}
	fl.pp = pp;
	fl.at = at;
	fl.launch = launch;
	if (zt_py_current(NULL, &pp->lay, ts, &fl.fr))
		return -1;
	bpf_loop(2 * ZT_BPF_MAX_PY, py_frames_cb, &fl, 0);
	if (fl.n && fl.wake)
		return (int)fl.n | PY_WAKE;
	return fl.n ? (int)fl.n : fl.err ? -1 : 0;
}

/* The Python frames of the thread into record e after its first at ips
 * (py_walk()), its flags set: the bytes they add; *wake: a new code
 * object, the reader should read at once. */
static __always_inline __u64 py_append(struct zt_sample_event *e, __u32 tgid, __u32 tid, __u32 at,
				       __u32 launch, int *wake)
{
	int np = py_walk(tgid, tid, at, launch);

	*wake = 0;
	if (np < 0) {
		e->flags |= ZT_EV_PY_FAIL;
		return 0;
	}
	*wake = np & PY_WAKE;
	np &= 0xff;
	e->flags |= (__u32)np << ZT_EV_PY_SHIFT;
	return 16 * (__u64)np;
}

static __always_inline void send_wake(void *e, __u64 size, int wake)
{
	__u64 flags = wake || bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes
			      ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_output(&events, e, size, flags))
		count(ZT_STAT_LOST);
	else
		count(ZT_STAT_SAMPLES);
}

static __always_inline void send(void *e, __u64 size)
{
	send_wake(e, size, 0);
}

SEC("perf_event")
int zt_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id, zero = 0;
	struct zt_sample_event *e;
	long n;
	__u64 nk, nu, size;
	int wake = 0;

	if (filter_mode == ZT_FILTER_TGID && !bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	if (filter_mode == ZT_FILTER_TID && !bpf_map_lookup_elem(&tids, &tid))
		return 0;

	if (ustack_size) {
		__u32 cpu = bpf_get_smp_processor_id();

		e = bpf_map_lookup_elem(&uscratch, &cpu);
	} else {
		e = bpf_map_lookup_elem(&scratch, &zero);
	}
	if (!e)
		return 0;
	e->flags = 0;
	e->ustack_len = 0;
	e->ts = bpf_ktime_get_ns();
	e->period = ctx->sample_period;
	e->pid = tgid;
	e->tid = tid;
	e->cpu = bpf_get_smp_processor_id();

	if (!callchain) {
		/* the interrupted address: in the kernel, or else in user space */
		e->ips[0] = ctx->regs[16];
		nk = !user_mode(ctx);
		nu = !nk && e->ips[0];
		goto out;
	}

	/* a sample taken in user mode has no kernel stack: skip the walk */
	n = user_mode(ctx) ? 0 : bpf_get_stack(ctx, e->ips, ZT_BPF_MAX_STACK * 8, 0);
	nk = n > 0 ? (__u64)n >> 3 : 0;
	if (nk > ZT_BPF_MAX_STACK)
		nk = ZT_BPF_MAX_STACK;
	nu = 0;
	/* The user stack: a frame-pointer walk done here, cheaper than
	 * bpf_get_stack(BPF_F_USER_STACK) (1.1 against 2.2 us a sample,
	 * measured with kernel.bpf_stats_enabled). A sample taken in the
	 * kernel starts from the task's saved user registers. */
	if (tgid) { /* the idle task has no user stack */
		__u64 ip, bp, sp, bx;
		__u32 why;

		if (user_mode(ctx)) {
			ip = ctx->regs[16];
			bp = ctx->regs[4];
			bx = ctx->regs[5];
			sp = ctx->regs[19];
		} else {
			struct pt_regs___x *u = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
			ip = BPF_CORE_READ(u, ip);
			bp = BPF_CORE_READ(u, bp);
			bx = BPF_CORE_READ(u, bx);
			sp = BPF_CORE_READ(u, sp);
		}
		if (kunwind) {
			nu = uw_walk(tgid, nk, ip, sp, bp, bx, &why, 0);
			e->flags |= why << ZT_EV_STOP_SHIFT;
		} else {
			nu = fp_walk(e, nk, ip, bp);
		}
	}
out:
	e->nk = nk;
	e->nu = nu;
	size = ZT_SAMPLE_HDR_SIZE + (nk + nu) * 8;
	if (python && callchain && !ustack_size && tgid)
		size += py_append(e, tgid, tid, nk + nu, 0, &wake);
	if (size > sizeof(*e))
		size = sizeof(*e);
	if (ustack_size && tgid) {
		/* size <= sizeof(*e): the part fits in the tail (see zt_sample_buf) */
		long got = snapshot(ctx, size);

		if (got >= 0) {
			e->flags = ZT_EV_USTACK;
			e->ustack_len = got;
			size += ZT_USTACK_PART_SIZE + got;
			if (size > sizeof(struct zt_sample_buf))
				size = sizeof(struct zt_sample_buf);
		}
	}
	send_wake(e, size, wake);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(zt_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (ptgid == ctgid)
		return 0;
	if (kunwind) {
		/* a new process runs its parent's code at once: its mappings
		 * now, not when the side-band reaches user space */
		const struct zt_uw_proc *m = bpf_map_lookup_elem(&uw_procs, &ptgid);

		if (m)
			bpf_map_update_elem(&uw_procs, &ctgid, m, BPF_ANY);
	}
	if (python) { /* the child of a fork runs the same interpreter */
		const struct zt_py_proc *pp = bpf_map_lookup_elem(&py_procs, &ptgid);

		if (pp)
			bpf_map_update_elem(&py_procs, &ctgid, pp, BPF_ANY);
	}
	if (filter_mode != ZT_FILTER_TGID || !follow_children)
		return 0;
	if (bpf_map_lookup_elem(&tgids, &ptgid))
		bpf_map_update_elem(&tgids, &ctgid, &one, BPF_ANY);
	return 0;
}

/*
 * A CUDA kernel launch: the USDT probe zt:launch in libztcupti.so (zt
 * record --gpu attaches it), fired in the launching thread for the
 * launches the library admits (a rate per thread). The record is a
 * sample's, flagged ZT_EV_LAUNCH, with the thread's user stack walked by
 * frame pointers as a sample's is, and the probe's arguments (correlation
 * id, CUPTI callback id and domain) in period.
 */
SEC("usdt")
int BPF_USDT(zt_launch, __u32 corr, __u32 cbid, __u32 domain)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct zt_sample_event *e;
	__u64 nu, size;

	if (filter_mode == ZT_FILTER_TGID && !bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	if (filter_mode == ZT_FILTER_TID && !bpf_map_lookup_elem(&tids, &tid))
		return 0;
	if (ustack_size) {
		__u32 cpu = bpf_get_smp_processor_id();

		e = bpf_map_lookup_elem(&uscratch, &cpu);
	} else {
		e = record_of(1);
	}
	if (!e)
		return 0;
	e->flags = ZT_EV_LAUNCH;
	e->ustack_len = 0;
	e->ts = bpf_ktime_get_ns();
	e->period = (__u64)corr | (__u64)(cbid & 0xffffff) << 32 | (__u64)(domain & 0xff) << 56;
	e->pid = tgid;
	e->tid = tid;
	e->cpu = bpf_get_smp_processor_id();
	e->nk = 0;
	if (kunwind) {
		__u32 why;

		nu = uw_walk(tgid, 0, ctx->rip, ctx->rsp, ctx->rbp, ctx->rbx, &why, 1);
		e->flags |= why << ZT_EV_STOP_SHIFT;
	} else {
		nu = fp_walk(e, 0, ctx->rip, ctx->rbp);
	}
	e->nu = nu;
	if (nu > 2 * ZT_BPF_MAX_STACK)
		nu = 2 * ZT_BPF_MAX_STACK;
	size = ZT_SAMPLE_HDR_SIZE + nu * 8;
	if (python && !ustack_size) {
		int wake;

		size += py_append(e, tgid, tid, nu, 1, &wake);
		/* py_walk() is a global function: its count is not bounded to
		 * the verifier */
		if (size > sizeof(*e))
			size = sizeof(*e);
	}
	if (ustack_size) {
		/* --call-graph dwarf: the registers and stack at the probe, as a
		 * sample's, for the offline unwinder */
		__u64 *p;
		long got;

		barrier_var(size);
		if (size > sizeof(struct zt_sample_event))
			return 0;
		p = (__u64 *)((__u8 *)e + size);
		p[0] = ctx->rax;
		p[1] = ctx->rdx;
		p[2] = ctx->rcx;
		p[3] = ctx->rbx;
		p[4] = ctx->rsi;
		p[5] = ctx->rdi;
		p[6] = ctx->rbp;
		p[7] = ctx->rsp;
		p[8] = ctx->r8;
		p[9] = ctx->r9;
		p[10] = ctx->r10;
		p[11] = ctx->r11;
		p[12] = ctx->r12;
		p[13] = ctx->r13;
		p[14] = ctx->r14;
		p[15] = ctx->r15;
		p[16] = ctx->rip;
		got = copy_stack(size + ZT_USTACK_PART_SIZE, ctx->rsp);
		if (got >= 0) {
			e->flags |= ZT_EV_USTACK;
			e->ustack_len = got;
			size += ZT_USTACK_PART_SIZE + got;
			if (size > sizeof(struct zt_sample_buf))
				size = sizeof(struct zt_sample_buf);
		}
	}
	send(e, size);
	return 0;
}
