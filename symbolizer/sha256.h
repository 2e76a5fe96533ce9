/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 (libcrypto's EVP) for every module that needs one: file ids, the
 * cubin cache, the S3 client's payload sums, the server's ids and etags.
 * In symbolizer/, the lowest folder that links libcrypto (libprof/ does
 * not) and one that symbolizer/, net/ and server/ may all include.
 */
#ifndef ZT_SHA256_H
#define ZT_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ZT_SHA256_LEN	  32
#define ZT_SHA256_HEX_LEN 65 /* 64 lowercase hex digits and a NUL */

/* The SHA-256 of the n bytes at p into md. 0 or -ENOMEM. */
int zt_sha256(const void *p, size_t n, uint8_t md[ZT_SHA256_LEN]);

/*
 * A SHA-256 fed in pieces: zt_sha256_init(), zt_sha256_update() any number
 * of times, then zt_sha256_final(), which always releases what init took.
 * A failure (out of memory) is kept and returned by final.
 */
struct zt_sha256 {
	void *ctx; /* EVP_MD_CTX; NULL after a failure */
	int err;
};

void zt_sha256_init(struct zt_sha256 *h);
void zt_sha256_update(struct zt_sha256 *h, const void *p, size_t n);
/* The digest into md and the context released: 0, or -ENOMEM (md unset). */
int zt_sha256_final(struct zt_sha256 *h, uint8_t md[ZT_SHA256_LEN]);

/* len: the whole file, up to its end */
#define ZT_SHA256_ALL UINT64_MAX

/*
 * The SHA-256 of fd's first len bytes (ZT_SHA256_ALL: up to the end), read
 * with pread (the file offset is left alone) into md. 0, -EIO when the file
 * ends before len, -errno of a read, or -ENOMEM.
 */
int zt_sha256_fd(int fd, uint64_t len, uint8_t md[ZT_SHA256_LEN]);

/* The same as 64 lowercase hex digits and a NUL. */
int zt_sha256_fd_hex(int fd, uint64_t len, char hex[ZT_SHA256_HEX_LEN]);
int zt_sha256_hex(const void *p, size_t n, char hex[ZT_SHA256_HEX_LEN]);

#endif
