/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/kallsyms, cached per boot: reading it costs ~70 ms of kernel time
 * (the kernel formats 100k+ lines), more than a whole recording's sampling.
 * The copy in the cache (DIR/kallsyms/<boot id>-<hash of /proc/modules>,
 * mode 0600) is used when every address asked about lies in the kernel's
 * text or a module's; an address elsewhere (a BPF program, a trampoline:
 * those come and go) makes it read the live file again.
 */
#ifndef ZT_KCACHE_H
#define ZT_KCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer/buildid_cache.h"

/* The kallsyms text good for the n addresses in ips, into a new buffer
 * (*text, *len; caller frees). c may be NULL (no cache). *from_cache tells
 * where it came from: the cached text holds text symbols only, sorted by
 * address (for kallsyms_subset_sorted()); /proc's is as the kernel gives it. Returns 0 or a negative errno from reading
 * /proc/kallsyms. */
int kcache_read(const struct buildid_cache *c, const uint64_t *ips, size_t n, char **text,
		size_t *len, int *from_cache);

#endif
