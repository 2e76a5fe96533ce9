/* SPDX-License-Identifier: GPL-2.0-or-later */
/* This machine's vDSO as a file, for symbols and unwind tables of [vdso] frames. */
#ifndef ZT_VDSO_H
#define ZT_VDSO_H

#include <stddef.h>

#include "libprof/profile.h"
#include "symbolizer/buildid_cache.h"

/* This process's own [vdso] mapping (the image every process of this
 * kernel maps): 0, -ENOENT, -errno. */
int vdso_self_image(const void **img, size_t *len);

/*
 * This machine's vDSO as a file, for recordings of this host and kernel
 * (every process maps the same image; perf keeps a copy the same way):
 * copied from our own mapping once into the cache directory c, else (c NULL)
 * into a temporary file (*temp set: the caller unlinks it). Its path in buf.
 * With want (the recorded build id, may be NULL or empty) the copy must
 * carry that build id, whatever host the recording names; without it the
 * recording's host name and kernel release must be this machine's.
 * Returns 0, -EXDEV for a recording of another host or kernel, -ESTALE for
 * another image, or -errno.
 */
int vdso_host_copy(const struct profile *p, const struct buildid_cache *c,
		   const struct prof_build_id *want, char *buf, size_t n, int *temp);

/*
 * The [vdso] image recorded with build id want: this machine's
 * (vdso_host_copy), else perf's build-id cache copy,
 * $HOME/.debug/[vdso]/<build id>/vdso. Same returns as vdso_host_copy.
 */
int vdso_path(const struct profile *p, const struct buildid_cache *c,
	      const struct prof_build_id *want, char *buf, size_t n, int *temp);

#endif
