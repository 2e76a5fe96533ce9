/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The few kernel types zt's BPF program needs, written by hand for CO-RE:
 * libbpf relocates field offsets against the running kernel's BTF at load,
 * so the build needs no vmlinux.h and no BTF on the build machine.
 */
#ifndef ZT_KERN_H
#define ZT_KERN_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
#define true 1
#define false 0

/* uapi values (linux/bpf.h) */
enum {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
};
enum { BPF_ANY = 0, BPF_NOEXIST = 1 };
#define BPF_F_USER_STACK (1ULL << 8)
#define BPF_F_NO_PREALLOC (1U << 0)
#define BPF_F_MMAPABLE (1U << 10)
enum { BPF_RB_NO_WAKEUP = 1, BPF_RB_FORCE_WAKEUP = 2 };
enum { BPF_RB_AVAIL_DATA = 0 };

/* The perf_event program context (uapi bpf_perf_event_data, x86-64):
 * pt_regs is 21 longs; the verifier rewrites accesses at fixed offsets. */
struct bpf_perf_event_data {
	unsigned long regs[21];
	__u64 sample_period;
	__u64 addr;
};

/* x86-64 pt_regs with uapi names (what bpf_tracing.h expects without
 * vmlinux.h), the context of uprobe and USDT programs: usdt.bpf.h reads
 * argument registers at the offsets libbpf computes for this layout */
struct pt_regs {
	unsigned long r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	unsigned long rax, rcx, rdx, rsi, rdi, orig_rax, rip, cs, eflags, rsp, ss;
};

struct pt_regs___x {
	unsigned long bp;
	unsigned long bx;
	unsigned long ip;
	unsigned long sp;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
} __attribute__((preserve_access_index));

#endif
