/* SPDX-License-Identifier: GPL-2.0-or-later */
/* This machine's vDSO as a file, for symbols and unwind tables of [vdso] frames. */
#ifndef ZT_VDSO_H
#define ZT_VDSO_H

#include <stddef.h>

#include "libprof/profile.h"
#include "symbolizer/buildid_cache.h"

/*
 * This machine's vDSO as a file, for recordings of this host and kernel
 * (every process maps the same image; perf keeps a copy the same way):
 * copied from our own mapping once into the cache directory c, else (c NULL)
 * into a temporary file (*temp set: the caller unlinks it). Its path in buf.
 * Returns 0, -EXDEV for a recording of another host or kernel, or -errno.
 */
int vdso_host_copy(const struct profile *p, const struct buildid_cache *c, char *buf, size_t n,
		   int *temp);

#endif
