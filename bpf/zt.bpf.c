// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt's CPU sampler: runs on every perf_event sample (cpu-clock or cycles,
 * one event per CPU), captures the kernel and user stacks (without call
 * graphs, just the sampled address) and streams one record per sample to
 * user space: no in-kernel aggregation, so every sample keeps its timestamp.
 * A fork hook extends the process filter to children, so a workload is
 * followed through fork and exec.
 */
#include "zt_kern.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "sample_event.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_mode = ZT_FILTER_ALL;
const volatile bool follow_children = true;
/* Walk the kernel and user stacks; else send only the sampled address, as
 * perf records without -g (and what zt keeps then): saves the walks. */
const volatile bool callchain = true;
/* Wake the reader only when the ring is this full: it polls on a timer
 * anyway, and a wakeup per sample costs more than the sample itself. */
const volatile __u64 wakeup_bytes = 4 << 20;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* resized by the loader */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct zt_sample_event);
} scratch SEC(".maps");

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

SEC("perf_event")
int zt_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id, zero = 0;
	struct zt_sample_event *e;
	long n;
	__u64 nk, nu, size, flags;

	if (filter_mode == ZT_FILTER_TGID && !bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	if (filter_mode == ZT_FILTER_TID && !bpf_map_lookup_elem(&tids, &tid))
		return 0;

	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		return 0;
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
		__u64 ip, bp, fr[2];
		int i;

		if (user_mode(ctx)) {
			ip = ctx->regs[16];
			bp = ctx->regs[4];
		} else {
			struct pt_regs___x *u = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
			ip = BPF_CORE_READ(u, ip);
			bp = BPF_CORE_READ(u, bp);
		}
		nu = 0;
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
	}
out:
	e->nk = nk;
	e->nu = nu;
	size = ZT_SAMPLE_HDR_SIZE + (nk + nu) * 8;
	if (size > sizeof(*e))
		size = sizeof(*e);
	flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									      : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&events, e, size, flags))
		count(ZT_STAT_LOST);
	else
		count(ZT_STAT_SAMPLES);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(zt_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (filter_mode != ZT_FILTER_TGID || !follow_children || ptgid == ctgid)
		return 0;
	if (bpf_map_lookup_elem(&tgids, &ptgid))
		bpf_map_update_elem(&tgids, &ctgid, &one, BPF_ANY);
	return 0;
}
