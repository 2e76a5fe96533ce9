/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.data reader: a file written by `perf record` (file mode, or pipe mode
 * from `perf record -o -`; this byte order, x86_64) read into the profile
 * model, zstd-compressed data included.
 */
#ifndef ZT_PERFDATA_H
#define ZT_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"

#define PERFDATA_MAGIC "PERFILE2" /* 8 bytes, the u64 0x32454c4946524550 */

/* Caps on what one file may make the reader produce. */
#define PERFDATA_DECOMP_RECORD_MAX (256u << 20) /* output of one COMPRESSED record */
#define PERFDATA_DECOMP_TOTAL_MIN (1ull << 30)  /* whole file: this plus 64x its size */

/* True when the first n bytes start like a perf.data file, in either byte
 * order, file or pipe mode (the reader then says what it cannot read). */
int perfdata_probe(const void *head, size_t n);

/* Which of the file's events the profile's samples come from. The default
 * (NULL opts, or event < 0 and no name) is the first event that is not
 * perf's side-band "dummy" event. */
struct perfdata_opts {
	int event;              /* index in the file's event list (`perf evlist` order,
				   dummy included), or -1 */
	const char *event_name; /* or by name: "cpu-clock" matches the file's
				   "cpu-clock" and "cpu-clock:ppp"; NULL for none */
	int all;                /* neither: keep the samples of every event but dummies,
				   each with its event's index in the profile's events */
};

/* What the reader found besides the records. */
struct perfdata_info {
	int truncated;          /* the file ends inside the data section (or its
				   feature sections are cut off): the rest is in p */
	int unfinished;         /* data size 0 in the header (perf record killed):
				   the records up to the end of the file were read */
	int dwarf;              /* --call-graph dwarf recording: samples get kernel
				   frames and the user leaf; the user stacks come in
				   perfdata_read_ustacks_*() for unwinding */
	uint64_t good_end;      /* offset just past the last data record read */
	uint64_t size;          /* bytes given to the reader */
	uint64_t data_offset, data_size; /* the data section as the header says */
	unsigned nr_events;     /* attrs in the file */
	int event;              /* index of the event read, -1 before it is known */
	uint64_t records;       /* data records, those inside compressed ones included */
	uint64_t samples;       /* samples of the selected event added to p */
	uint64_t samples_other; /* samples of the other events (skipped) */
	uint64_t samples_unknown; /* samples with an id of no event (skipped) */
	uint64_t compressed;    /* COMPRESSED/COMPRESSED2 records */
	uint64_t decompressed;  /* bytes they expanded to */
	uint64_t unknown;       /* records of unknown types (skipped by size) */
	unsigned bad_features;  /* malformed header feature sections (skipped) */
	char msg[256];          /* a warning or error, naming the offset ("" if none) */
};

/*
 * Read a whole perf.data image into p (initialized by the caller; what is
 * read is added to it). opts may be NULL. Returns 0 (then info says whether
 * the file was cut short: the readable part is in p), or a negative errno
 * with info->msg saying what and where:
 *   -EBADMSG  not a perf.data file, a corrupt header, attr or id section, or
 *             a data record that does not parse (the records before it are
 *             in p) or does not decompress
 *   -ENOTSUP  the other byte order, another
 *             architecture than x86_64, perf.data version 1
 *   -ENOENT   opts names an event the file does not have
 *   -ENOMEM
 *
 * The model gets:
 *  - meta: "sampler" = "perf", "hostname", "os_release", "arch", "nr_cpus"
 *    (online), "cpudesc", "perf_version", "cmdline", "event" (the selected
 *    event's name), "events" (the names of all events but dummies, comma
 *    separated, in file order), "freq" or "period" (of the selected event),
 *    "callchain" ("fp", "dwarf" or "none"), "time_start"/"time_end" (perf's
 *    first and last sample time; without that feature, the samples' range),
 *    "build_ids" (perf's build-id table in file order, host entries: a line
 *    "HEX PATH" each; absent without the table), "evlist" (every attr,
 *    dummies too, in file order: a line "NAME\tTYPE\tCONFIG\tPERIOD\tFLAGS"
 *    each, FLAGS of PROF_EV_*).
 *  - tasks from COMM (EXEC when perf flagged it), FORK, EXIT.
 *  - executable mappings from MMAP and MMAP2 (data mappings and guest
 *    mappings are left out); the kernel's (pid -1) under pid ZT_PID_KERNEL,
 *    perf's "[kernel.kallsyms]_text" renamed "[kernel.kallsyms]". Build ids
 *    from MMAP2 (--buildid-mmap), else from perf's build-id table by path;
 *    the kernel's build id also as a PROF_BLOB_KERNEL_BUILD_ID blob.
 *  - the event table: the selected event (index 0), or with opts->all every
 *    event but dummies, in file order (sample.event indexes it).
 *  - samples of the selected event(s): weight = period, cpu = UINT32_MAX when
 *    the event did not record it; stacks split at perf's context markers
 *    into kernel and user frames (at most ZT_MAX_FRAMES each, the outermost
 *    dropped); without a callchain, the sample ip alone.
 *  - lost_events += PERF_RECORD_LOST counts (records the kernel dropped,
 *    samples mostly), lost_samples += PERF_RECORD_LOST_SAMPLES counts.
 * Records are taken in file order (perf's are roughly time ordered;
 * consumers such as the proctree sort by time). No kallsyms blob: see
 * ksource_add() in symbolizer/ksource.h.
 */
int perfdata_read_mem(const void *data, size_t len, struct profile *p,
		      const struct perfdata_opts *opts, struct perfdata_info *info);
/* The same on a file, mapped read-only (a pipe is read into memory); also
 * returns -errno from open(2), and -ENOTSUP for a perf.data directory
 * (`perf record --threads`). */
int perfdata_read_file(const char *path, struct profile *p, const struct perfdata_opts *opts,
		       struct perfdata_info *info);

/*
 * The second pass over a --call-graph dwarf perf.data (info->dwarf after
 * perfdata_read_*()): hands each sample's user registers (PERF_SAMPLE_REGS_USER,
 * mapped to DWARF order) and user stack (PERF_SAMPLE_STACK_USER, its dynamic
 * size) to fn, in the order and with the indices the first pass gave the
 * selected event's samples in an empty profile. Samples with neither are
 * skipped. opts must be the first pass's. Returns 0, fn's nonzero return,
 * or the errors of perfdata_read_*() (info may be NULL).
 */
int perfdata_read_ustacks_mem(const void *data, size_t len, const struct perfdata_opts *opts,
			      prof_ustack_fn fn, void *arg, struct perfdata_info *info);
int perfdata_read_ustacks_file(const char *path, const struct perfdata_opts *opts,
			       prof_ustack_fn fn, void *arg, struct perfdata_info *info);


#endif
