// SPDX-License-Identifier: GPL-2.0-or-later
/* Decoded cubins cached on disk by the SHA-256 of their bytes (see cubincache.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/le.h"
#include "libprof/log.h"
#include "libprof/text.h"
#include "symbolizer/cubincache.h"
#include "symbolizer/sha256.h"

/*
 * A cache file, little-endian:
 *   0  8   magic "ZTCUBIN\0"
 *   8  4   version (CACHE_VERSION)
 *   12 4   0
 *   16 32  SHA-256 of the cubin's bytes (the key, also the file's name)
 *   48 8   length of the cubin
 *   56 8   length of the image
 *   64 32  SHA-256 of the image
 *   96     the image (cubin_save())
 */
#define CACHE_MAGIC   "ZTCUBIN"
#define CACHE_VERSION 1
#define HDR_LEN	      96
#define FILE_MAX      (1ull << 30) /* a cache file larger than this is not read */

int cubincache_key(const void *data, size_t len, uint8_t key[CUBINCACHE_KEY_LEN])
{
	return zt_sha256(data, len, key);
}

int cubincache_path(const struct buildid_cache *cache, const uint8_t key[CUBINCACHE_KEY_LEN],
		    char *out, size_t n)
{
	char hex[2 * CUBINCACHE_KEY_LEN + 1];
	int w;

	if (n)
		out[0] = 0;
	if (!cache || !cache->dir || !*cache->dir)
		return -ENOENT;
	w = snprintf(out, n, "%s/cubin/%s.zcubin", cache->dir,
		     zt_hex_encode(key, CUBINCACHE_KEY_LEN, hex));
	if (w < 0 || (size_t)w >= n) {
		if (n)
			out[0] = 0;
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Whether the file st may be trusted: a regular file of this user, or of
 * the sudo user whose cache it is, that nobody else may write. */
static int trusted(const struct buildid_cache *cache, const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || (st->st_mode & 022))
		return 0;
	return st->st_uid == geteuid() || (cache->user.active && st->st_uid == cache->user.uid);
}

/* The whole cache file at path, when it may be trusted. */
static int read_cached(const struct buildid_cache *cache, const char *path, uint8_t **buf,
		       size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	size_t off = 0, n;
	struct stat st;
	uint8_t *b;
	int ret = 0;

	*buf = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !trusted(cache, &st) || st.st_size < HDR_LEN ||
	    (unsigned long long)st.st_size > FILE_MAX) {
		close(fd);
		return -EPERM;
	}
	n = (size_t)st.st_size;
	b = malloc(n);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	while (off < n) {
		ssize_t r = pread(fd, b + off, n - off, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : -EBADMSG; /* shrunk under us */
			break;
		}
		off += (size_t)r;
	}
	close(fd);
	if (ret) {
		free(b);
		return ret;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* The cubin from a cache file's bytes, when they are a valid image of the
 * cubin with key and length clen. */
static int load(const uint8_t *f, size_t n, const uint8_t *key, size_t clen, struct cubin **out)
{
	uint8_t sum[CUBINCACHE_KEY_LEN];
	uint64_t ilen;

	if (n < HDR_LEN || memcmp(f, CACHE_MAGIC, 8) || zt_get_le(f + 8, 4) != CACHE_VERSION ||
	    memcmp(f + 16, key, CUBINCACHE_KEY_LEN) || zt_get_le(f + 48, 8) != clen)
		return -EBADMSG;
	ilen = zt_get_le(f + 56, 8);
	if (ilen != n - HDR_LEN)
		return -EBADMSG;
	if (cubincache_key(f + HDR_LEN, (size_t)ilen, sum))
		return -ENOMEM;
	if (memcmp(sum, f + 64, CUBINCACHE_KEY_LEN))
		return -EBADMSG;
	return cubin_load(f + HDR_LEN, (size_t)ilen, out);
}

/* c into the cache at path. */
static int store(const struct buildid_cache *cache, const char *path, const struct cubin *c,
		 const uint8_t *key, size_t clen)
{
	uint8_t *buf = calloc(1, HDR_LEN);
	size_t len = HDR_LEN;
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = cubin_save(c, &buf, &len);
	if (ret)
		goto out;
	if (len < HDR_LEN) {
		ret = -EINVAL;
		goto out;
	}
	memcpy(buf, CACHE_MAGIC, 8);
	zt_put_le(buf + 8, CACHE_VERSION, 4);
	memcpy(buf + 16, key, CUBINCACHE_KEY_LEN);
	zt_put_le(buf + 48, clen, 8);
	zt_put_le(buf + 56, len - HDR_LEN, 8);
	ret = cubincache_key(buf + HDR_LEN, len - HDR_LEN, buf + 64);
	if (!ret)
		ret = buildid_cache_store_mode(cache, path, buf, len, NULL, 0600);
out:
	free(buf);
	return ret;
}

int cubincache_open(const void *data, size_t len, const struct buildid_cache *cache,
		    struct cubin **out, enum cubincache_how *how)
{
	uint8_t key[CUBINCACHE_KEY_LEN], *f = NULL;
	char path[PATH_MAX];
	size_t flen = 0;
	int ret;

	*out = NULL;
	if (how)
		*how = CUBINCACHE_DECODED;
	if (!cache || !cubin_is_cubin(data, len))
		return cubin_open(data, len, out);
	if ((ret = cubincache_key(data, len, key)))
		return ret;
	if (cubincache_path(cache, key, path, sizeof(path)))
		return cubin_open(data, len, out);
	ret = read_cached(cache, path, &f, &flen);
	if (ret == -ENOMEM)
		return ret;
	if (!ret) {
		ret = load(f, flen, key, len, out);
		free(f);
		if (!ret) {
			if (how)
				*how = CUBINCACHE_LOADED;
			return 0;
		}
		if (ret == -ENOMEM)
			return ret;
		zt_debug("cubin cache: '%s' is not a valid image: decoding the cubin again", path);
	}
	ret = cubin_open(data, len, out);
	if (ret)
		return ret;
	ret = store(cache, path, *out, key, len);
	if (!ret && how)
		*how = CUBINCACHE_STORED;
	else if (ret)
		zt_debug("cubin cache: cannot write '%s': %s", path, strerror(-ret));
	return 0;
}
