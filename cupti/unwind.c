/* SPDX-License-Identifier: GPL-2.0-or-later */
/* In-process launch stacks with libunwind (see unwind.h). */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>

#include "cupti/unwind.h"

/* frames of this library above the first user frame: capture, core, glue */
#define SKIP_SLACK 16

static pthread_once_t unwind_once = PTHREAD_ONCE_INIT;

static void unwind_setup(void)
{
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

void zc_unwind_init(void)
{
	pthread_once(&unwind_once, unwind_setup);
}

__attribute__((noinline)) int zc_unwind(uint64_t *ips, int max, uintptr_t from_ip)
{
	void *raw[ZC_UNWIND_MAX + SKIP_SLACK];
	int n, i, start = 1, k;

	if (max <= 0)
		return 0;
	if (max > ZC_UNWIND_MAX)
		max = ZC_UNWIND_MAX;
	n = unw_backtrace(raw, max + SKIP_SLACK);
	if (n <= 0)
		return 0;
	if (from_ip) {
		for (i = 0; i < n && i < SKIP_SLACK; i++)
			if ((uintptr_t)raw[i] == from_ip) {
				start = i;
				break;
			}
	}
	if (start >= n)
		return 0;
	for (k = 0, i = start; i < n && k < max; i++, k++)
		ips[k] = (uint64_t)(uintptr_t)raw[i];
	return k;
}
