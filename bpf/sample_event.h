/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record the BPF sampler sends per sample: shared by zt.bpf.c and sampler.c. */
#ifndef ZT_SAMPLE_EVENT_H
#define ZT_SAMPLE_EVENT_H

#define ZT_BPF_MAX_STACK 127 /* frames per part, the kernel's default sysctl_perf_event_max_stack */
#define ZT_BPF_MAX_PY 64 /* Python frames per sample (bpf/pywalk.h's ZT_PY_MAX_FRAMES) */

/* Stack snapshots (--call-graph dwarf): the same values as libprof/profile.h's
 * PROF_UREGS and PROF_USTACK_MAX, which this header cannot include. */
#define ZT_UREGS 17
#define ZT_USTACK_MAX 65528

/* Filter modes (the rodata knob filter_mode). */
#define ZT_FILTER_ALL 0  /* every task (-a, -C) */
#define ZT_FILTER_TGID 1 /* processes in the tgids map (-p, a workload), children followed */
#define ZT_FILTER_TID 2  /* threads in the tids map (-t) */

/* Counters in the per-CPU stats array. */
#define ZT_STAT_SAMPLES 0 /* sent to the ring buffer */
#define ZT_STAT_LOST 1    /* ring buffer full: dropped */
#define ZT_STAT_MAX 2

/* zt_sample_event.flags */
#define ZT_EV_USTACK 1 /* a struct zt_ustack_part follows the ips */
#define ZT_EV_LAUNCH 2 /* not a sample: a CUDA kernel launch seen by the USDT probe zt:launch
			  in libztcupti.so; period holds corr | cbid << 32 | domain << 56 and
			  the ips the launching thread's user stack (nk = 0) */

#define ZT_EV_PY_FAIL 4 /* a Python process's frames could not be read */

/* Bits 16-23 of flags: the Python frames that follow the nk + nu ips
 * (bpf/pywalk.h), two words each: the code object's address, then the
 * instruction (the code unit's index as a u32; 0xffffffff unknown) |
 * ZT_PY_ENTRY flags << 32 | the code object's stamp (zt_py_stamp()) << 36.
 * Innermost first; not with ZT_EV_USTACK. */
#define ZT_EV_PY_SHIFT 16
#define ZT_EV_PY(flags) (((flags) >> ZT_EV_PY_SHIFT) & 0xffu)

/* Bits 8-15 of flags: why the kernel unwinder's walk of the user stack
 * ended (ZT_UW_STOP_* in bpf/kunwind.h); 0 when it did not walk it. */
#define ZT_EV_STOP_SHIFT 8
#define ZT_EV_STOP(flags) (((flags) >> ZT_EV_STOP_SHIFT) & 0xffu)

#define ZT_LAUNCH_CORR(period) ((unsigned int)((period) & 0xffffffffu))
#define ZT_LAUNCH_CBID(period) ((unsigned int)(((period) >> 32) & 0xffffffu))
#define ZT_LAUNCH_DOMAIN(period) ((unsigned int)((period) >> 56))

/* One sample, variable length: ips holds nk kernel then nu user frames,
 * leaf first (then any Python frames, ZT_EV_PY); the record is cut after the last used ip, or with
 * ZT_EV_USTACK after the user registers and ustack_len bytes of stack that
 * follow the last used ip (struct zt_ustack_part). */
struct zt_sample_event {
	unsigned long long ts; /* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	unsigned long long period;
	unsigned int pid, tid;
	unsigned int cpu;
	unsigned short nk, nu;
	unsigned int flags;      /* ZT_EV_* */
	unsigned int ustack_len; /* bytes of user stack in the snapshot */
	unsigned long long ips[2 * ZT_BPF_MAX_STACK + 2 * ZT_BPF_MAX_PY];
};

#define ZT_SAMPLE_HDR_SIZE 40

/* The snapshot of a sample's user context, right after its nk + nu ips. */
struct zt_ustack_part {
	unsigned long long regs[ZT_UREGS]; /* DWARF order: rax rdx rcx rbx rsi rdi rbp rsp
					      r8-r15 rip */
	unsigned char data[];              /* ustack_len bytes from rsp up */
};

#define ZT_USTACK_PART_SIZE (ZT_UREGS * 8)

#endif
