// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * OTel eBPF profiler FileIDs. The definition is libpf/fileid.go,
 * FileIDFromExecutableReader and FileIDFromKernelBuildID, in
 * github.com/open-telemetry/opentelemetry-ebpf-profiler (vectors from
 * libpf/fileid_test.go are in tests/unit/test_fileid.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolizer/fileid.h"

#define PART 4096

struct part {
	const uint8_t *p;
	size_t n;
};

/* sha256(head || tail || be64(size))[0..16) */
static int digest(const struct part *head, const struct part *tail, uint64_t size,
		  struct zt_fileid *id)
{
	unsigned char md[EVP_MAX_MD_SIZE], be[8];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;
	int i, ret = 0;

	for (i = 0; i < 8; i++)
		be[i] = (unsigned char)(size >> (56 - 8 * i));
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -ENOMEM;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(ctx, head->p, head->n) != 1 ||
	    EVP_DigestUpdate(ctx, tail->p, tail->n) != 1 || EVP_DigestUpdate(ctx, be, 8) != 1 ||
	    EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen < ZT_FILEID_LEN) {
		ret = -EIO;
		goto out;
	}
	memcpy(id->b, md, ZT_FILEID_LEN);
out:
	EVP_MD_CTX_free(ctx);
	return ret;
}

int fileid_from_mem(const void *data, size_t len, struct zt_fileid *id)
{
	size_t n = len < PART ? len : PART;
	const uint8_t *p = len ? data : (const uint8_t *)"";
	struct part head = { p, n }, tail = { p + len - n, n };

	return digest(&head, &tail, len, id);
}

static int pread_all(int fd, uint8_t *buf, size_t n, off_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = pread(fd, buf + done, n - done, off + (off_t)done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (!k)
			return -EIO;
		done += (size_t)k;
	}
	return 0;
}

int fileid_from_fd(int fd, struct zt_fileid *id)
{
	uint8_t hb[PART], tb[PART];
	struct part head, tail;
	struct stat st;
	size_t n;
	int ret;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	n = (uint64_t)st.st_size < PART ? (size_t)st.st_size : PART;
	ret = pread_all(fd, hb, n, 0);
	if (!ret)
		ret = pread_all(fd, tb, n, st.st_size - (off_t)n);
	if (ret)
		return ret;
	head = (struct part){ hb, n };
	tail = (struct part){ tb, n };
	return digest(&head, &tail, (uint64_t)st.st_size, id);
}

int fileid_from_path(const char *path, struct zt_fileid *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = fileid_from_fd(fd, id);
	close(fd);
	return ret;
}

void fileid_from_kernel_build_id(const struct prof_build_id *b, struct zt_fileid *id)
{
	/* FNV-1a, 128 bits: offset basis and prime from the FNV spec (Go's hash/fnv) */
	const unsigned __int128 prime = ((unsigned __int128)1 << 88) + 0x13b;
	unsigned __int128 h = ((unsigned __int128)0x6c62272e07bb0142ULL << 64) | 0x62b821756295c58dULL;
	char hex[2 * ZT_BUILD_ID_MAX + 1];
	const char *s;
	int i;

	prof_build_id_hex(b, hex);
	for (s = hex; *s; s++) {
		h ^= (unsigned char)*s;
		h *= prime;
	}
	for (i = 0; i < ZT_FILEID_LEN; i++)
		id->b[i] = (uint8_t)(h >> (120 - 8 * i));
}

char *fileid_hex(const struct zt_fileid *id, char out[ZT_FILEID_HEX_LEN])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < ZT_FILEID_LEN; i++) {
		out[2 * i] = digits[id->b[i] >> 4];
		out[2 * i + 1] = digits[id->b[i] & 15];
	}
	out[2 * ZT_FILEID_LEN] = 0;
	return out;
}

char *fileid_base64(const struct zt_fileid *id, char out[ZT_FILEID_B64_LEN])
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned acc = 0;
	int i, bits = 0, o = 0;

	for (i = 0; i < ZT_FILEID_LEN; i++) {
		acc = (acc << 8 | id->b[i]) & 0xffff;
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			out[o++] = tab[(acc >> bits) & 63];
		}
	}
	if (bits)
		out[o++] = tab[(acc << (6 - bits)) & 63];
	out[o] = 0;
	return out;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int fileid_parse_hex(const char *s, struct zt_fileid *id)
{
	struct zt_fileid t;
	int i;

	for (i = 0; i < ZT_FILEID_LEN; i++) {
		int hi = hexval(s[2 * i]), lo = hi < 0 ? -1 : hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		t.b[i] = (uint8_t)(hi << 4 | lo);
	}
	if (s[2 * ZT_FILEID_LEN])
		return -EINVAL;
	*id = t;
	return 0;
}

void fileid_words(const struct zt_fileid *id, uint64_t *hi, uint64_t *lo)
{
	int i;

	*hi = *lo = 0;
	for (i = 0; i < 8; i++) {
		*hi = *hi << 8 | id->b[i];
		*lo = *lo << 8 | id->b[8 + i];
	}
}
