/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt.data: the recording container (specified in man/zt-data.5).
 *
 * A fixed file header, then self-describing chunks, each
 * {type, flags, raw length, stored length, checksum, payload} with a zstd
 * payload, and a final index chunk. The writer is streaming: records are
 * buffered per kind and written as chunks on ztdata_writer_flush(), so a
 * recorder killed at any moment leaves a file readable up to its last
 * complete chunk. Stacks are deduplicated by the writer: each distinct
 * stack is written once, samples and GPU launches refer to it by id.
 * Version 1.2 adds GPU chunks (kernels, memory operations, launches,
 * PC-sampling buckets, stall tables, counters, cubins, overheads): a 1.1
 * reader skips them. Version 1.3 adds the EVENTS chunk (the event table)
 * and an event column after the SAMPLES columns: older readers skip the
 * one and ignore the other (every sample then reads as the first event).
 * Version 1.4 adds RAWS chunks (samples' raw records: a tracepoint's
 * fields) and the blob kinds of tracepoint formats (PROF_BLOB_TRACE_*):
 * older readers skip the one and keep the others as unknown blobs.
 * Version 1.5 adds PYCODES chunks (Python code objects, which the Python
 * frames of stacks name by index): older readers skip them.
 */
#ifndef ZT_ZTDATA_H
#define ZT_ZTDATA_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/gpu.h"
#include "libprof/profile.h"

#define ZTDATA_MAGIC "ZTDATA\r\n" /* 8 bytes; \r\n catches text-mode damage */
#define ZTDATA_VERSION 1

struct ztdata_writer;

/* Start a file on fd (borrowed; the caller closes it after
 * ztdata_writer_free()). Writes the file header at once. Returns NULL with
 * errno set on failure. */
struct ztdata_writer *ztdata_writer_new(int fd);
/* Free without flushing: what was not flushed is dropped. */
void ztdata_writer_free(struct ztdata_writer *w);

/* Buffer records; nothing reaches the file before ztdata_writer_flush().
 * Strings and arrays are copied. ips: kernel frames then user frames, leaf
 * first in each part, at most ZT_MAX_FRAMES each. Errors: -ENOMEM, -E2BIG
 * (a blob over 128 MiB, a string over 16 MiB), -EINVAL after
 * ztdata_writer_finish(). After a write or encoding error (-ENOSPC...)
 * every later call returns that same error. */
int ztdata_write_meta(struct ztdata_writer *w, const char *key, const char *value);
int ztdata_write_task(struct ztdata_writer *w, const struct prof_task *t);
/* Append an event to the file's event table (version 1.3): the first is
 * index 0, and so on; samples name them by index. A file without events
 * has one, named by meta "event". */
int ztdata_write_event(struct ztdata_writer *w, const struct prof_event *e);
int ztdata_write_mmap(struct ztdata_writer *w, const struct prof_mmap *m);
int ztdata_write_sample(struct ztdata_writer *w, uint64_t ts, uint64_t weight, uint32_t pid,
			uint32_t tid, uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu);
/* The same for a sample of event index event (written before by
 * ztdata_write_event(); -EINVAL otherwise, but 0 is always accepted). */
int ztdata_write_sample_ev(struct ztdata_writer *w, uint32_t event, uint64_t ts, uint64_t weight,
			   uint32_t pid, uint32_t tid, uint32_t cpu, const uint64_t *ips,
			   unsigned nk, unsigned nu);
int ztdata_write_blob(struct ztdata_writer *w, uint32_t kind, uint32_t pid, uint64_t ts,
		      const void *data, size_t len);
/* Attach a user-stack snapshot (--call-graph dwarf) to the sample written
 * last: regs are PROF_UREGS registers in DWARF order with a mask of those
 * present, stack holds len (at most PROF_USTACK_MAX) bytes from the stack
 * pointer up. Snapshots go into chunks of their own, after the samples they
 * belong to. Returns 0, -EINVAL when no sample precedes it (or it already
 * has one), -E2BIG, -ENOMEM. */
int ztdata_write_ustack(struct ztdata_writer *w, uint32_t regs_mask, const uint64_t *regs,
			const void *stack, size_t len);
/* Attach a raw record (PERF_SAMPLE_RAW: a tracepoint's fields) of len
 * bytes, at most PROF_RAW_MAX, to the sample written last (version 1.4).
 * Raw records go into RAWS chunks, after the samples they belong to; pair
 * them with PROF_BLOB_TRACE_* blobs (the formats that say what the bytes
 * are). 0, -EINVAL when no sample precedes it (or it already has one),
 * -E2BIG, -ENOMEM. */
int ztdata_write_raw(struct ztdata_writer *w, const void *data, size_t len);
/*
 * Append a Python code object to the file's table (version 1.5): the first
 * is index 0, the next 1, and so on in the order written, across flushes;
 * *idx (may be NULL) gets its index, which the Python frames of stacks name
 * (prof_py_ip()). Write it before the samples whose stacks name it: a flush
 * puts the code objects before the stacks. Strings and the line table are
 * copied. Nothing is written on -E2BIG (a qualname over
 * ZTDATA_PY_QUALNAME_MAX bytes, a filename over ZTDATA_PY_FILENAME_MAX, a
 * line table over PROF_PY_LINETABLE_MAX, past 2^32 - 1 code objects) or
 * -EINVAL (a line table length without bytes).
 */
#define ZTDATA_PY_QUALNAME_MAX 1024
#define ZTDATA_PY_FILENAME_MAX 4096
int ztdata_write_pycode(struct ztdata_writer *w, const struct prof_pycode *c, uint32_t *idx);
/* Add to the lost-sample and lost-side-band-record counters. */
int ztdata_write_lost(struct ztdata_writer *w, uint64_t lost_samples, uint64_t lost_events);

/*
 * GPU records: every record of g (strings as text, so g's string ids do not
 * matter to the file). A launch's stack id refers to stacks' stacks (stacks
 * may be NULL when no launch has one); the stack is interned into the
 * file's stack table, in a STACKS chunk before the launches. A cubin whose
 * crc the file already has is skipped. Nothing is written on -EINVAL (a
 * stack id stacks does not have) or -E2BIG (a cubin over 128 MiB, a string
 * over 16 MiB); other errors are sticky, as above.
 */
int ztdata_write_gpu(struct ztdata_writer *w, const struct prof_gpu *g,
		     const struct profile *stacks);
/* A launch whose stack came from elsewhere (zt's BPF sampler at the USDT
 * probe): ips as for ztdata_write_sample() (NULL: no stack; l->stack is
 * ignored). */
int ztdata_write_gpu_launch(struct ztdata_writer *w, const struct prof_gpu_launch *l,
			    const uint64_t *ips, unsigned nk, unsigned nu);
/* Attach a user-stack snapshot (as ztdata_write_ustack()'s) to the launch
 * ztdata_write_gpu_launch() wrote last (--call-graph dwarf: zt's BPF
 * sampler took it at the USDT probe); readers hand it to the second pass
 * with prof_ustack.launch set. -EINVAL when no such launch precedes it
 * (or it already has one), -E2BIG, -ENOMEM. */
int ztdata_write_gpu_launch_ustack(struct ztdata_writer *w, uint32_t regs_mask,
				   const uint64_t *regs, const void *stack, size_t len);

/* Bytes of records buffered and not yet written (to flush early when large). */
size_t ztdata_writer_pending(const struct ztdata_writer *w);
/* Write everything buffered as complete chunks (meta, tasks, mmaps, blobs,
 * new code objects, new stacks, then samples, so every sample's stack and
 * the code objects its Python frames name precede it, then the samples'
 * stack snapshots, then the GPU chunks: meta, cubins, kernels, memory
 * operations, launches, PC samples, overheads). */
int ztdata_writer_flush(struct ztdata_writer *w);
/* Flush, then write the index chunk that marks the file complete. */
int ztdata_writer_finish(struct ztdata_writer *w);

struct ztdata_stats {
	uint64_t samples, stacks, bytes; /* bytes: file size so far */
};
void ztdata_writer_stats(const struct ztdata_writer *w, struct ztdata_stats *st);

/* What the reader found besides the records. */
struct ztdata_read_info {
	int complete;        /* the index chunk was there: the recorder finished */
	int truncated;       /* the file ends inside a chunk */
	uint64_t good_end;   /* offset just past the last chunk that was read */
	uint64_t size;       /* bytes given to the reader */
	unsigned chunks, skipped; /* chunks read; unknown chunk types skipped (and GPU chunks
				     with ZTDATA_READ_NO_GPU) */
	unsigned gpu_chunks;  /* GPU chunks (version 1.2) */
	unsigned ustack_chunks; /* chunks of stack snapshots (--call-graph dwarf): the first
				   pass passes over them, ztdata_read_ustacks_*() reads them */
	char msg[256];       /* a warning or error, naming the offset ("" if none) */
};

/* True when the first n bytes start like a zt.data file. */
int ztdata_probe(const void *head, size_t n);

/* Read a whole zt.data image into p (which must be initialized; GPU
 * records go to p->gpu, made when the file has some). Returns 0
 * (then info says whether the file was cut short: the readable part is in
 * p), or a negative errno with info->msg saying what and where:
 *   -EBADMSG         not a zt.data file, or a chunk fails its checksum or
 *                    does not decode (the records before it are in p)
 *   -EPROTONOSUPPORT a newer major version
 *   -ENOMEM
 */
int ztdata_read_mem(const void *data, size_t len, struct profile *p, struct ztdata_read_info *info);
/* ztdata_read_mem() with flags: ZTDATA_READ_NO_GPU leaves the GPU chunks out
 * (checksum and sequence checked, counted in info->skipped, not decoded:
 * p->gpu stays NULL), for readers that only want the CPU side. */
#define ZTDATA_READ_NO_GPU 1u
int ztdata_read_mem_flags(const void *data, size_t len, struct profile *p, unsigned flags,
			  struct ztdata_read_info *info);
/* The same on a file, mapped read-only (a pipe is read into memory); also
 * returns -errno from open(2). */
int ztdata_read_file(const char *path, struct profile *p, struct ztdata_read_info *info);

/*
 * The second pass over a file read by ztdata_read_*(): hands every user-stack
 * snapshot to fn, in sample order (prof_ustack.sample counts the file's
 * samples from 0, the same indices the first pass gave them in an empty
 * profile). Snapshots of samples past a damaged or missing part are not
 * given. Returns 0, fn's nonzero return, or the first pass's errors (with
 * info filled as it does; info may be NULL), and -EBADMSG for a USTACKS
 * chunk that does not decode, which the first pass does not look into (the
 * snapshots of the chunks before it were given); -EINVAL without fn.
 */
int ztdata_read_ustacks_mem(const void *data, size_t len, prof_ustack_fn fn, void *arg,
			    struct ztdata_read_info *info);
int ztdata_read_ustacks_file(const char *path, prof_ustack_fn fn, void *arg,
			     struct ztdata_read_info *info);

#endif
