// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * OTel eBPF profiler FileIDs. The definition is libpf/fileid.go,
 * FileIDFromExecutableReader and FileIDFromKernelBuildID, in
 * github.com/open-telemetry/opentelemetry-ebpf-profiler (vectors from
 * libpf/fileid_test.go are in tests/unit/test_fileid.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/text.h"
#include "symbolizer/fileid.h"
#include "symbolizer/sha256.h"

#define PART 4096

struct part {
	const uint8_t *p;
	size_t n;
};

/* sha256(head || tail || be64(size))[0..16) */
static int digest(const struct part *head, const struct part *tail, uint64_t size,
		  struct zt_fileid *id)
{
	uint8_t md[ZT_SHA256_LEN], be[8];
	struct zt_sha256 h;
	int i;

	for (i = 0; i < 8; i++)
		be[i] = (uint8_t)(size >> (56 - 8 * i));
	zt_sha256_init(&h);
	zt_sha256_update(&h, head->p, head->n);
	zt_sha256_update(&h, tail->p, tail->n);
	zt_sha256_update(&h, be, 8);
	if (zt_sha256_final(&h, md))
		return -EIO;
	memcpy(id->b, md, ZT_FILEID_LEN);
	return 0;
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
	return zt_hex_encode(id->b, ZT_FILEID_LEN, out);
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

int fileid_parse_hex(const char *s, struct zt_fileid *id)
{
	struct zt_fileid t;

	if (zt_hex_decode(s, ZT_FILEID_LEN, t.b) || s[2 * ZT_FILEID_LEN])
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
