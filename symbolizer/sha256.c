// SPDX-License-Identifier: GPL-2.0-or-later
/* SHA-256 over libcrypto's EVP: in one piece, in pieces, and of a file. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "libprof/text.h"
#include "symbolizer/sha256.h"

#define READ_CHUNK (1 << 16)

int zt_sha256(const void *p, size_t n, uint8_t md[ZT_SHA256_LEN])
{
	unsigned int len = 0;

	return EVP_Digest(p, n, md, &len, EVP_sha256(), NULL) == 1 && len == ZT_SHA256_LEN
		       ? 0
		       : -ENOMEM;
}

void zt_sha256_init(struct zt_sha256 *h)
{
	h->err = 0;
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(h->ctx);
		h->ctx = NULL;
		h->err = -ENOMEM;
	}
}

void zt_sha256_update(struct zt_sha256 *h, const void *p, size_t n)
{
	if (h->err || !n)
		return;
	if (EVP_DigestUpdate(h->ctx, p, n) != 1)
		h->err = -ENOMEM;
}

int zt_sha256_final(struct zt_sha256 *h, uint8_t md[ZT_SHA256_LEN])
{
	unsigned int len = 0;
	int err = h->err;

	if (!err && (EVP_DigestFinal_ex(h->ctx, md, &len) != 1 || len != ZT_SHA256_LEN))
		err = -ENOMEM;
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
	h->err = err;
	return err;
}

int zt_sha256_fd(int fd, uint64_t len, uint8_t md[ZT_SHA256_LEN])
{
	uint8_t *buf = malloc(READ_CHUNK);
	struct zt_sha256 h;
	uint64_t off = 0;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	zt_sha256_init(&h);
	while (!h.err && off < len) {
		size_t want = len - off < READ_CHUNK ? (size_t)(len - off) : READ_CHUNK;
		ssize_t k = pread(fd, buf, want, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			err = -errno;
			break;
		}
		if (!k) {
			if (len != ZT_SHA256_ALL)
				err = -EIO; /* the file shrank */
			break;
		}
		zt_sha256_update(&h, buf, (size_t)k);
		off += (uint64_t)k;
	}
	free(buf);
	if (err) {
		zt_sha256_final(&h, md); /* releases it */
		return err;
	}
	return zt_sha256_final(&h, md);
}

int zt_sha256_fd_hex(int fd, uint64_t len, char hex[ZT_SHA256_HEX_LEN])
{
	uint8_t md[ZT_SHA256_LEN];
	int err = zt_sha256_fd(fd, len, md);

	if (!err)
		zt_hex_encode(md, sizeof(md), hex);
	return err;
}

int zt_sha256_hex(const void *p, size_t n, char hex[ZT_SHA256_HEX_LEN])
{
	uint8_t md[ZT_SHA256_LEN];
	int err = zt_sha256(p, n, md);

	if (!err)
		zt_hex_encode(md, sizeof(md), hex);
	return err;
}
