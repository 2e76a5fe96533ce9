/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader of the per-process GPU files that libztcupti.so writes
 * (cupti/wire.h): zt record, running as root, reads them as they grow and
 * merges their records into zt.data.
 *
 * A file may have been written, or planted, by any user: the reader opens
 * it without following a symbolic link and without blocking (a FIFO or a
 * device is refused before anything is read), reports its owner so that
 * the caller can check it against the process's user, trusts no field
 * (every count, offset and length is checked against the bytes there, a
 * frame is at most ZG_FRAME_MAX bytes), and takes the pid of the records
 * from the file header, never from the file name.
 *
 * Reading is incremental: each ztgpu_reader_read() decodes the complete
 * frames after the last one it decoded. A frame still being written (the
 * file ends inside it) is left for the next call. A frame that fails its
 * CRC or does not decode ends the file: the call returns an error naming
 * the frame and its offset, the records of the frames before it stay where
 * they were put, and later calls return the same error. Each frame is
 * checked whole before any of its records is added.
 *
 * Launch stacks: a launch with ZG_L_STACK names a ZG_STACK of its file
 * (defined in the same call or an earlier one). The reader keeps those
 * stacks (user frames, leaf first) interned in a profile it owns; the
 * launches it adds carry ids of that profile's stacks
 * (ztgpu_reader_stacks()), or PROF_GPU_NO_STACK.
 */
#ifndef ZT_ZTGPU_H
#define ZT_ZTGPU_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/gpu.h"
#include "libprof/profile.h"

#define ZTGPU_MAX_STACKS (1u << 20) /* distinct stack ids one file may define */
#define ZTGPU_MAX_IPS (1u << 24)    /* frames of the distinct stacks of a file, in all */

struct ztgpu_reader;

/*
 * Open name relative to the directory dirfd (O_RDONLY | O_NOFOLLOW |
 * O_NONBLOCK | O_CLOEXEC) and check that it is a regular file. The file
 * header is read when it is there (else by the first read that finds it).
 * 0 and *out (free with ztgpu_reader_free()), or a negative errno with msg
 * (of size n) saying why: -ELOOP for a symbolic link, -EINVAL for a FIFO,
 * device, socket or directory (not opened for reading further), -EBADMSG
 * for a file that is not a GPU file (bad magic, an unknown version),
 * -ENOMEM, or open(2)'s error.
 */
int ztgpu_reader_open(int dirfd, const char *name, struct ztgpu_reader **out, char *msg, size_t n);
void ztgpu_reader_free(struct ztgpu_reader *r);

/* The file owner's uid, from fstat() at open: the caller checks it. */
uint32_t ztgpu_reader_uid(const struct ztgpu_reader *r);
/* The pid of the file header (the process that wrote it), 0 until the
 * header was read. */
uint32_t ztgpu_reader_pid(const struct ztgpu_reader *r);
/* Bytes of the file decoded so far (the offset of the next frame). */
uint64_t ztgpu_reader_offset(const struct ztgpu_reader *r);

/*
 * Decode the complete frames after the last call's into into (records
 * appended, strings interned in it; pid: the header's). Reads at most
 * about 64 MiB of frames per call: the caller drains a file by calling
 * until it returns 0. Returns the number of frames decoded (0: nothing
 * new), or a negative errno with msg: -EBADMSG for a frame that fails its
 * CRC or does not decode, or a bad header (the file ends there: every
 * later call returns it again), -ENOMEM, -EIO (pread failed).
 */
int ztgpu_reader_read(struct ztgpu_reader *r, struct prof_gpu *into, char *msg, size_t n);

/* The stacks the launches' stack ids refer to (owned by r, borrowed until
 * ztgpu_reader_free()): user frames only (nk == 0), leaf first. */
const struct profile *ztgpu_reader_stacks(const struct ztgpu_reader *r);

/*
 * A whole file image in memory (fuzzing, tests): header and complete
 * frames into into, launch stacks interned into stacks (whose ids the
 * launches carry); *pid (may be NULL) gets the header's pid. A short last
 * frame is ignored. 0, or -EBADMSG / -ENOMEM with msg (the records of the
 * frames before the bad one stay).
 */
int ztgpu_decode_mem(const void *buf, size_t len, struct prof_gpu *into, struct profile *stacks,
		     uint32_t *pid, char *msg, size_t n);

#endif
