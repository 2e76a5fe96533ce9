/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A strict reader of libztcupti.so's GPU files for the tests, written from
 * cupti/wire.h alone (the real reader is formats/ztgpu.c): it checks the
 * file header, every frame's length and CRC, that fixed records and their
 * string pools fill each payload exactly, and that no byte trails the last
 * frame. Tests then look records up by type.
 */
#ifndef ZT_TESTS_ZGWALK_H
#define ZT_TESTS_ZGWALK_H

#include <stddef.h>
#include <stdint.h>

#include "cupti/wire.h"

struct zgw_fr {
	uint32_t type, len, crc, count;
	const uint8_t *p; /* payload */
};

struct zgw_file {
	uint8_t *data;
	size_t len;
	struct zg_file_hdr hdr;
	struct zgw_fr *fr;
	size_t nfr;
	char err[256]; /* why zgwalk_load failed */
};

/* Read and check path: 0, or -1 with f->err set (f freed by zgwalk_free either way). */
int zgwalk_load(struct zgw_file *f, const char *path);
void zgwalk_free(struct zgw_file *f);

/* The one *.zg file in dir into path: 0, or -1 (none, or several). */
int zgwalk_find(const char *dir, char *path, size_t n);

/* Records of a type over all frames. */
size_t zgwalk_count(const struct zgw_file *f, uint32_t type);
/* Frames of a type. */
size_t zgwalk_frames(const struct zgw_file *f, uint32_t type);

/* The fixed record size of a type with a fixed part, else 0. */
size_t zgwalk_rec_size(uint32_t type);

/* Calls fn for every record of type (fixed-size types): rec points into the
 * payload (unaligned-safe copies are the callback's job), fr is its frame. */
void zgwalk_each(const struct zgw_file *f, uint32_t type,
		 void (*fn)(const struct zgw_fr *fr, const void *rec, void *arg), void *arg);

/* A pool string of a frame of fixed records (checked in bounds by the load). */
const char *zgwalk_str(const struct zgw_fr *fr, uint32_t off);

/* The value of the nth (0-based) ZG_INFO entry with this key, or NULL. */
const char *zgwalk_info(const struct zgw_file *f, const char *key, int nth);

/* The last ZG_COUNTERS (0 when there is one). */
int zgwalk_counters(const struct zgw_file *f, struct zg_counters *c);

/* Stack id -> its frames: the number of ips (0 when unknown), the first
 * max of them copied to ips. */
uint32_t zgwalk_stack(const struct zgw_file *f, uint32_t id, uint64_t *ips, uint32_t max);

/* Collectors for zgwalk_each: the first ZGW_KEEP records of a type (n
 * counts them all), PC buckets with their function names. */
#define ZGW_KEEP 64
struct zgw_launches {
	struct zg_launch l[ZGW_KEEP];
	size_t n;
};
void zgwalk_get_launch(const struct zgw_fr *fr, const void *rec, void *arg);
struct zgw_pcs_list {
	struct zg_pcs p[ZGW_KEEP];
	char name[ZGW_KEEP][32];
	size_t n;
};
void zgwalk_get_pcs(const struct zgw_fr *fr, const void *rec, void *arg);

/* A fresh directory under /tmp (its name in buf), or NULL. */
char *zgwalk_tmpdir(char *buf, size_t n);
/* Remove dir and the files in it. */
void zgwalk_rmdir(const char *dir);

#endif
