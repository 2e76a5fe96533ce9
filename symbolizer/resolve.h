/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The resolver: sampled addresses of a profile to frames {function,
 * module, offset}, from kallsyms (kernel), perf maps (JIT code), and the
 * mapped ELF files (the build-id cache copy first). Each unique
 * (mapping, address) is resolved once; each ELF file is opened once.
 */
#ifndef ZT_RESOLVE_H
#define ZT_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/proctree.h"
#include "libprof/profile.h"

struct resolver;

struct resolve_frame {
	const char *sym;    /* function name, or NULL when unresolved */
	const char *module; /* "libc.so.6", "[kernel.kallsyms]", "[ext4]", "[JIT] tid 42",
			       "[unknown]" when the address is in no mapping */
	uint64_t offset;    /* from the function start; unresolved: file offset in module
			       (the address itself for kernel or unknown addresses) */
	const struct prof_mmap *map; /* the covering mapping, or NULL */
	int kernel;
};

/*
 * A resolver over p and pt (both borrowed: they must outlive it). Cached
 * binaries are looked up in the build-id cache of buildid_cache_init()
 * ($ZT_CACHE_DIR, ...). Returns 0 or -ENOMEM.
 */
int resolver_new(const struct profile *p, const struct proctree *pt, struct resolver **out);
void resolver_free(struct resolver *r);

/*
 * Resolve addr sampled in process pid at time ts (is_kernel: a kernel
 * frame). Fills *f; its strings are borrowed until resolver_free() (or
 * profile_release() for module names taken from mapping paths). Failures
 * to find a symbol are not errors: they give sym == NULL. Returns 0 or
 * -ENOMEM. A binary whose build id does not match the recording's is not
 * used (warned once per module through zt_warn).
 */
int resolver_resolve(struct resolver *r, uint32_t pid, uint64_t ts, uint64_t addr, int is_kernel,
		     struct resolve_frame *f);

/*
 * The printable name of a frame into buf: the function, "[module+0x1f0]"
 * with the file offset when unresolved, "[unknown]" when in no mapping.
 * Not sanitized. Returns buf.
 */
char *resolve_frame_name(const struct resolve_frame *f, char *buf, size_t n);

#endif
