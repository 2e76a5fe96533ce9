/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * In-process launch stacks with libunwind's local unwinder (unw_backtrace:
 * its cached fast path, about 40 ns for a short stack here). Used only for
 * launches the per-thread rate limiter admits, and only when no tracer
 * takes the stack through the USDT probe.
 */
#ifndef ZT_CUPTI_UNWIND_H
#define ZT_CUPTI_UNWIND_H

#include <stdint.h>

#define ZC_UNWIND_MAX 128 /* user frames kept */

/* Per-thread caching of unwind info (once per process). */
void zc_unwind_init(void);

/*
 * The calling thread's stack, leaf first, into ips (at most max): frames
 * from the one whose return address is from_ip on (the first frame outside
 * this library: the caller of its CUPTI callback, __builtin_return_address(0)
 * there), so the library's own frames are left out. from_ip 0, or not on
 * the stack: every frame but this function's. Entries are return addresses
 * as libunwind reports them (a symbolizer looks up ip - 1). Returns the
 * number of frames, 0 when none could be read.
 */
int zc_unwind(uint64_t *ips, int max, uintptr_t from_ip);

#endif
