/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The on-disk cache of decoded cubins: a cubin's decoded image
 * (cubin_save()) kept under the zt cache directory (buildid_cache.h: the
 * sudo user's under sudo, written with their rights) as
 * DIR/cubin/<sha256 of the cubin bytes>.zcubin, mode 0600, so the next
 * report of the same GPU code reads a flat image instead of decoding the
 * ELF file and its line table again.
 *
 * A cache file is read without following links, only when it is a regular
 * file of this user (or of the sudo user whose cache it is) that no one
 * else may write, and only when its header names these very bytes (key,
 * length) and the image's own SHA-256 matches: anything else is decoded
 * afresh and written over. Writes go to a temporary file renamed into
 * place: readers never see half a file.
 */
#ifndef ZT_CUBINCACHE_H
#define ZT_CUBINCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer/buildid_cache.h"
#include "symbolizer/cubin.h"

#define CUBINCACHE_KEY_LEN 32 /* SHA-256 */

/* Where a cubin came from (cubincache_open()'s *how). */
enum cubincache_how {
	CUBINCACHE_DECODED = 0, /* decoded from the bytes; not cached (no cache, or it failed) */
	CUBINCACHE_STORED = 1,	/* decoded from the bytes and written to the cache */
	CUBINCACHE_LOADED = 2,	/* read from the cache: no ELF decoding */
};

/*
 * The cubin of the len bytes at data, as cubin_open() gives it: from
 * cache (NULL: no cache, plain cubin_open()) when it holds a valid image
 * of these bytes, else decoded and then stored there. A cache that
 * cannot be read or written is no error: the cubin is decoded. how (or
 * NULL) tells which happened. Returns 0 and *out (cubin_free() it), or
 * cubin_open()'s errors: -EINVAL for bytes that are no cubin, -ENOMEM.
 */
int cubincache_open(const void *data, size_t len, const struct buildid_cache *cache,
		    struct cubin **out, enum cubincache_how *how);

/* The cache file of the cubin with key (the SHA-256 of its bytes) into
 * out. 0, -ENOENT when there is no cache directory, -ENAMETOOLONG. */
int cubincache_path(const struct buildid_cache *cache, const uint8_t key[CUBINCACHE_KEY_LEN],
		    char *out, size_t n);

/* The key of len bytes: their SHA-256. 0 or -ENOMEM. */
int cubincache_key(const void *data, size_t len, uint8_t key[CUBINCACHE_KEY_LEN]);

#endif
