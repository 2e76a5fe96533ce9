/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OpenTelemetry eBPF profiler's 128-bit FileID, a file identity for
 * binaries without a GNU build id, computed exactly as the profiler does
 * (open-telemetry/opentelemetry-ebpf-profiler, libpf/fileid.go).
 */
#ifndef ZT_FILEID_H
#define ZT_FILEID_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"

#define ZT_FILEID_LEN 16
#define ZT_FILEID_HEX_LEN 33    /* 32 digits + NUL */
#define ZT_FILEID_B64_LEN 23    /* 22 characters + NUL */

/* The 16 bytes in order. OTel's Hash128 words: hi = big-endian u64 of
 * b[0..7], lo = big-endian u64 of b[8..15]. */
struct zt_fileid {
	uint8_t b[ZT_FILEID_LEN];
};

/* FileIDFromExecutableReader: SHA-256 over the first min(4096, size) bytes,
 * then the last min(4096, size) bytes (both overlap when size < 8192), then
 * size as 8 bytes big-endian; the FileID is the first 16 bytes of the digest.
 * The fd version reads with pread (the file offset is untouched; fd is
 * borrowed) and needs a regular file. Return 0 or a negative errno
 * (-EINVAL: not a regular file; -EIO: the file shrank while read; -ENOMEM). */
int fileid_from_fd(int fd, struct zt_fileid *id);
int fileid_from_path(const char *path, struct zt_fileid *id);
int fileid_from_mem(const void *data, size_t len, struct zt_fileid *id);

/* FileIDFromKernelBuildID, for vmlinux and modules: FNV-1a-128 of the build
 * id as a lower-case hex string (the digest is the FileID, big-endian). */
void fileid_from_kernel_build_id(const struct prof_build_id *b, struct zt_fileid *id);

/* Text forms: 32 lower-case hex digits (hi then lo, as OTel's String());
 * base64url without padding (22 characters, OTel's Base64()). Return out. */
char *fileid_hex(const struct zt_fileid *id, char out[ZT_FILEID_HEX_LEN]);
char *fileid_base64(const struct zt_fileid *id, char out[ZT_FILEID_B64_LEN]);
/* Parse 32 hex digits (either case); 0 or -EINVAL. */
int fileid_parse_hex(const char *s, struct zt_fileid *id);
void fileid_words(const struct zt_fileid *id, uint64_t *hi, uint64_t *lo);

#endif
