/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_cupti_usdt's BPF program: counts the probe zt:launch and keeps the
 * arguments of its last firing (correlation id, cbid, domain). */
#include "zt_kern.h" /* bpf/: -Ibpf; x86-64's struct pt_regs as uapi spells it */

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

static void put(__u32 k, __u64 v)
{
	bpf_map_update_elem(&hits, &k, &v, BPF_ANY);
}

SEC("usdt")
int BPF_USDT(on_launch, __u32 corr, __u32 cbid, __u32 domain)
{
	__u32 k = 0;
	__u64 *n = bpf_map_lookup_elem(&hits, &k);

	if (n)
		__sync_fetch_and_add(n, 1);
	put(1, corr);
	put(2, cbid);
	put(3, domain);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
