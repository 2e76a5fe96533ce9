/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writer of a process's GPU file ($ZT_GPU_DIR/gpu-PID-NS.zg, format in
 * wire.h): creation (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, append-only),
 * the file header, and frames appended whole, each by one write(2). A
 * write that fails part-way is cut off again (ftruncate) so that the file
 * stays a run of complete frames; the frame is lost and counted.
 *
 * A frame builder (struct zgw_frame) fills one frame in fixed buffers
 * allocated once (ZGW_REC_MAX bytes of records, ZGW_POOL_MAX of strings),
 * so that flushing never needs memory the cap may refuse. Strings given to
 * it must be stable (interned) pointers: the pool is deduplicated by
 * pointer, per frame.
 *
 * Not thread-safe: one flusher at a time (the owner locks).
 */
#ifndef ZT_CUPTI_ZGW_H
#define ZT_CUPTI_ZGW_H

#include <stddef.h>
#include <stdint.h>

#include "cupti/mem.h"
#include "cupti/wire.h"

#define ZGW_REC_MAX  (1u << 20)	  /* record bytes per frame */
#define ZGW_POOL_MAX (256u << 10) /* string pool bytes per frame */
#define ZGW_STR_MAX  (16u << 10)  /* longer strings are cut (kernel names, ...) */

struct zgw {
	int fd;		      /* -1: no file */
	uint64_t size;	      /* bytes of the file: header and complete frames */
	int err;	      /* errno of the last failed write, or 0 */
	uint64_t frames;      /* frames written */
	uint64_t frames_lost; /* frames a failed write dropped */
	char name[64];	      /* gpu-PID-NS.zg */
};

/* No file yet (fd -1). */
void zgw_init(struct zgw *w);
/* Create dir/gpu-PID-NS.zg and write its header: 0, or -errno (no file). */
int zgw_open(struct zgw *w, const char *dir, uint32_t pid, uint64_t start_ns);
/* Close the file (fd -1 after). */
void zgw_close(struct zgw *w);

/*
 * Append one frame: buf holds sizeof(struct zg_frame_hdr) bytes of room
 * and then len payload bytes; the header is filled in there (type, len,
 * crc32 of the payload, count) and the whole written by one write(2).
 * 0, -EINVAL (len over ZG_FRAME_MAX), -EBADF (no file), or -errno of the
 * failed write (the file cut back to its last complete frame).
 */
int zgw_write(struct zgw *w, uint32_t type, uint32_t count, void *buf, size_t len);
/* The same for a payload of two parts (a then b), without a copy: one
 * writev(2), for a cubin written where CUPTI lends it. */
int zgw_write2(struct zgw *w, uint32_t type, uint32_t count, const void *a, size_t alen,
	       const void *b, size_t blen);

struct zgw_frame {
	uint8_t *buf;	/* header room, records, then the pool copied in at the end */
	size_t rec_len; /* record bytes */
	uint8_t *pool;
	size_t pool_len;
	uint32_t type, count;
	struct zgw_pstr {
		const char *s;
		uint32_t off;
	} * pidx; /* pointer -> pool offset */
	size_t pidx_nr;
	struct zc_mem *mem;
	int ok; /* buffers allocated */
};

/* The frame buffers, taken from mem (about 1.4 MiB): 0, or -ENOMEM. */
int zgw_frame_init(struct zgw_frame *f, struct zc_mem *mem);
void zgw_frame_release(struct zgw_frame *f);

/* Start a frame of this type (an unwritten one is dropped). */
void zgw_frame_begin(struct zgw_frame *f, uint32_t type);
/* Room for one record of n bytes, zeroed, counted: a pointer valid until the
 * next call; NULL when the frame is full (write it and begin again). */
void *zgw_frame_rec(struct zgw_frame *f, size_t n);
/* Undo the last zgw_frame_rec of n bytes (a record whose strings did not fit). */
void zgw_frame_unrec(struct zgw_frame *f, size_t n);
/* The pool offset of the interned string s (len bytes, at most ZGW_STR_MAX),
 * added once per frame: 0, or -ENOSPC when the pool is full. */
int zgw_frame_str(struct zgw_frame *f, const char *s, uint32_t len, uint32_t *off);
/* Whether the frame holds no record. */
static inline int zgw_frame_empty(const struct zgw_frame *f)
{
	return f->count == 0;
}
/* Write the frame (pool after the records) if it holds records, then begin
 * another of the same type: 0 or zgw_write()'s error. */
int zgw_frame_flush(struct zgw_frame *f, struct zgw *w);

#endif
