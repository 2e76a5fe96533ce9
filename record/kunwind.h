/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel unwinder's user side: keeps the BPF program's unwind tables
 * (bpf/kunwind.h) in step with the side-band. Each executable file a
 * process maps gets, once per build id, its table (symbolizer/cfitab.h's
 * pages: from the on-disk cache at once, in the side-band's call, or else
 * built afresh on a worker thread, off the sampling path), loaded into the
 * maps once for every process that maps
 * it; each process gets its mappings to file and offset, copied at fork,
 * cleared at exec, dropped at exit. A file no process maps any more stays
 * loaded while there is room, for the next process that maps it; the
 * least recently used ones make room for new ones.
 *
 * Bounds (struct kunwind_opts): the processes, files, pages and entries
 * the maps hold, and 65,536 distinct rules. A worker thread builds the
 * tables and loads them into the maps as soon as they are ready; the
 * calls below may come from one other thread.
 */
#ifndef ZT_RECORD_KUNWIND_H
#define ZT_RECORD_KUNWIND_H

#include <stdint.h>

#include "bpf/kunwind.h"
#include "bpf/sampler.h"
#include "libprof/profile.h"
#include "symbolizer/buildid_cache.h"

/* The defaults: 8,192 processes, 4,096 files, 65,536 pages (4 GiB of code)
 * and 4 Mi entries: 17 MiB of kernel memory from the start (the entries
 * and rules), then 6 KiB a process and about 64 bytes a page as used. */
#define KUNWIND_PROCS 8192u
#define KUNWIND_FILES 4096u
#define KUNWIND_PAGES 65536u
#define KUNWIND_ENTRIES (4u << 20)

struct kunwind_opts {
	struct sampler_uw_maps maps; /* the sampler's, sized as below */
	uint32_t max_procs, max_files, max_pages, max_entries;
	const struct buildid_cache *cache; /* tables on disk by build id, or NULL */
	/* Opens the file of mapping m for reading (a descriptor the caller
	 * then owns, or a negative errno); checked against m's build id. */
	int (*open_file)(void *ctx, const struct prof_mmap *m);
	void *ctx;
};

struct kunwind_stats {
	uint64_t files;     /* files seen with a build id */
	uint64_t loaded;    /* tables loaded into the maps (again after an eviction too) */
	uint64_t no_cfi;    /* files without CFI (or unreadable) */
	uint64_t no_room;   /* tables that did not fit */
	uint64_t evicted;   /* tables dropped to make room */
	uint64_t cached;    /* tables read from the disk cache */
	uint64_t built;     /* ... built afresh */
	uint64_t build_ns;  /* the time spent reading and building them */
	uint64_t pending;   /* tables not ready when asked */
	uint64_t deferred;  /* asked while 256 were being built: asked again at the next mapping */
	uint64_t entries, pages, rules; /* in the maps now */
	uint64_t maps_over; /* process mappings left out: more than ZT_UW_MAPS */
};

struct kunwind;

/* 0, -ENOMEM, -EINVAL (bad sizes), or the errno of mapping the maps. */
int kunwind_new(const struct kunwind_opts *o, struct kunwind **out);
/* Stops the worker (waits for the table it builds). */
void kunwind_free(struct kunwind *k);

/* A sampler's options for the kernel unwinder (so->kunwind) with the
 * default bounds. */
void kunwind_sampler_opts(struct sampler_opts *so);
/* The tables for sampler smp's maps with the default bounds, the files
 * opened by record/mapfile.h, cache as given (or NULL). As kunwind_new(). */
int kunwind_for_sampler(const struct sampler *smp, const struct buildid_cache *cache,
			struct kunwind **out);

/* The side-band: an executable mapping of a process (m's path is read
 * only for the vDSO and for opening the file); a fork, exec or exit. */
void kunwind_mmap(struct kunwind *k, const struct prof_mmap *m);
void kunwind_task(struct kunwind *k, const struct prof_task *t);
void kunwind_get_stats(struct kunwind *k, struct kunwind_stats *st);

#endif
