/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof import: a pprof body (Google's profile.proto, gzip-compressed or
 * raw) read into the profile model, as zt serve receives pushed profiles
 * (session_open_pushed_pprof()). The body is validated whole: a refusal
 * names the field and its value ("bad pprof: location[3] (id 4) refers to
 * mapping id 9, which no mapping has").
 *
 * What the profile gets:
 *  - one process, PPROF_PID, whose threads are the samples' "thread"
 *    labels (a thread, tid 2, 3, ..., per string of the table a label
 *    names; the last non-empty "thread" label of a sample is its
 *    thread), the samples without one being the process's own thread
 *    (tid PPROF_PID), named after the main binary
 *    (pprof_body_command()). COMM tasks name them, cut to ZT_COMM_LEN;
 *    pprof_body_thread() gives the whole name.
 *  - one event, the weight type (default_sample_type, else the last):
 *    each pprof sample gives a sample of its value of that type as the
 *    weight, at time 0, and its value of the count type ("samples", else
 *    the first) as its count (pprof_body_counts()); a sample whose two
 *    values are 0 is dropped. Both values add up below 2^63 over the
 *    samples.
 *  - stacks of user addresses only, leaf first, one address per location
 *    the sample refers to, cut as zt serve always cut them (a location
 *    whose frames would take the stack, with its thread's root, past
 *    2 * ZT_MAX_FRAMES + 1 frames, a frame per named line or one for a
 *    location without, is left out, and the next ones tried): the
 *    addresses are the locations' own, made up (a location's index in a
 *    range of its mapping's), since locations are what pprof stacks name.
 *  - a mapping per pprof mapping that a sampled location without named
 *    lines refers to (whose frame is the mapping's file and offset), at
 *    that range, with the mapping's file name as path and its build id
 *    (hex in the pprof, 2 to 40 digits; else none).
 * What the model has no room for stays in the struct pprof_body: each
 * sampled location's lines (pprof_body_loc(): for the frame source that
 * names the addresses, session/), the samples' counts, whole thread
 * names, the command, and the times.
 */
#ifndef ZT_PPROFREAD_H
#define ZT_PPROFREAD_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"

#define PPROF_PID 1 /* the process of a pprof's samples */
/* A body's largest size decompressed, when the caller gives none. */
#define PPROF_DEFAULT_MAX_DECODED (512ull << 20)

struct pprof_body;

/* A line of a location: its function's name (else its system name; ""
 * when it has neither: such a line names nothing), file ("" when unknown)
 * and line number (0 when unknown). Strings borrowed from the body. */
struct pprof_line {
	const char *name, *file;
	uint32_t line;
};

/*
 * What a location's address stands for. With named lines: lines[0 ..
 * nr_lines), innermost first (pprof's order: the last is the function the
 * others are inlined into), unnamed ones included. Without: module and
 * offset, as a frame to be named elsewhere: its file offset (the address
 * as it is when it lies outside its mapping, or has none); the build id
 * is its mapping's in the profile. module: the base name of its mapping's
 * file, "" for none, or for a location without named lines "[unknown]"
 * then.
 */
struct pprof_loc {
	const char *module;
	uint64_t offset;
	const struct pprof_line *lines;
	uint32_t nr_lines, named; /* named: how many lines have a name */
};

/*
 * Read the len bytes at data (borrowed for the call) into p (initialized,
 * empty) and a new body *out (the profile's strings and addresses are
 * explained by it: free it after the last lookup). max_decoded caps a
 * gzip-compressed body's decompressed size (0: PPROF_DEFAULT_MAX_DECODED).
 * Returns 0 or
 *   -EMEDIUMTYPE  raw bytes that do not look like a pprof profile
 *   -EBADMSG      damaged gzip data, or a pprof that is not well formed
 *   -EFBIG        larger than max_decoded once decompressed
 *   -ENOMEM
 * with msg (may be NULL) saying why ("bad pprof: ...", "bad gzip data in
 * the pprof: ...", "the pprof is larger than N bytes decompressed";
 * nothing for -EMEDIUMTYPE and -ENOMEM). On failure p holds what was read
 * and *out is NULL.
 */
int pprof_read_mem(const void *data, size_t len, uint64_t max_decoded, struct profile *p,
		   struct pprof_body **out, char *msg, size_t msglen);
void pprof_body_free(struct pprof_body *b);

/* The location a stack address of the profile stands for, or NULL for
 * an address it does not have. */
const struct pprof_loc *pprof_body_loc(const struct pprof_body *b, uint64_t addr);
/* The index of that location (below pprof_body_nr_locs()), or SIZE_MAX. */
size_t pprof_body_loc_index(const struct pprof_body *b, uint64_t addr);
/* How many locations the profile has. */
size_t pprof_body_nr_locs(const struct pprof_body *b);
/* How many locations the samples refer to (each one address), and the
 * frames they give (a line each, or one without lines). */
void pprof_body_size(const struct pprof_body *b, size_t *locs, size_t *frames);
/* The count of each sample of the profile (indexed as p->samples), or
 * NULL when the counts are the weights (one sample type, or the count
 * type is the default one). */
const uint64_t *pprof_body_counts(const struct pprof_body *b);
/* The whole name of thread tid of PPROF_PID, or NULL for another tid. */
const char *pprof_body_thread(const struct pprof_body *b, uint32_t tid);
/* The name of the profile's process: the base name of the first
 * mapping's file, unless empty or bracketed ("[vdso]"), else "pprof". */
const char *pprof_body_command(const struct pprof_body *b);
/* The unit of the weight type ("nanoseconds", "count", ...; "" when the
 * pprof does not say). */
const char *pprof_body_unit(const struct pprof_body *b);
/* pprof's time_nanos and duration_nanos (0 when not given). */
void pprof_body_times(const struct pprof_body *b, int64_t *time_nanos, int64_t *duration_nanos);

#endif
