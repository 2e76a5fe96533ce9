/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Offline DWARF unwinding of user-stack snapshots (--call-graph dwarf):
 * the sample's user registers and a copy of its stack, walked with the CFI
 * (.eh_frame, else .debug_frame) of the binaries mapped at that time,
 * through elfutils' libdwfl frame API. The same code serves zt.data and
 * perf.data recordings.
 *
 * One Dwfl is kept per process generation (from exec or fork to the next),
 * with its modules reported as the unwinding first meets them and checked
 * again when the process maps more (a module replaced by a later mapping
 * starts the Dwfl again), so each binary's CFI is parsed once per process,
 * not once per sample.
 */
#ifndef ZT_UNWIND_H
#define ZT_UNWIND_H

#include <stdint.h>

#include "libprof/proctree.h"
#include "libprof/profile.h"
#include "symbolizer/buildid_cache.h"

struct unwinder;

/* Why an unwind stopped. */
enum unwind_stop {
	UNWIND_END = 0,      /* the outermost frame: CFI marks it, or a zero return address */
	UNWIND_STACK_END,    /* a read past the end of the snapshot: SIZE was too small */
	UNWIND_NO_MODULE,    /* an address in no file-backed mapping (JIT code, [unknown]) */
	UNWIND_NO_CFI,       /* a module without unwind information for the address */
	UNWIND_BAD,          /* anything else: no registers, corrupt stack, a loop */
	UNWIND_NR,
};

struct unwind_stats {
	uint64_t snapshots;       /* unwinds done */
	uint64_t frames;          /* user frames they gave (spliced ones included) */
	uint64_t spliced;         /* unwinds extended with the recorded chain's frames */
	uint64_t chained;         /* ... of them, with the kernel unwinder's (its first frames
				     the same as the unwind's) */
	uint64_t cut;             /* unwinds that reached the copy's end, not extended */
	uint64_t stop[UNWIND_NR]; /* by the reason the DWARF walk stopped */
	uint64_t dwfls;           /* Dwfls set up (one per process generation, and restarts) */
	uint64_t restarts;        /* ... set up again: a mapping replaced a reported module */
	uint64_t modules;         /* modules reported */
};

struct unwinder_opts {
	const char *symfs;              /* perf's --symfs: binaries are read under this root */
	const char *const *debug_dirs;  /* --debug-dir: NULL-terminated, or NULL */
	const struct buildid_cache *archive; /* an unpacked zt archive's binaries, or NULL */
};

/* An unwinder over p and pt (borrowed: both must outlive it). o may be
 * NULL. Binaries are found as the resolver finds them: the build-id cache
 * copy first, then the archive's, else the mapped path when its build id matches. Returns 0 or
 * -ENOMEM. */
int unwinder_new(const struct profile *p, const struct proctree *pt,
		 const struct unwinder_opts *o, struct unwinder **out);
void unwinder_free(struct unwinder *uw);

/*
 * Unwind the snapshot u of a sample of thread tid in process pid at time
 * ts into ips (at most max frames, leaf first: the sampled address, then
 * the callers' return addresses less one, in their call instructions, as
 * perf's DWARF unwinding gives them; the interrupted code under a signal
 * frame is its address as it is). fp/nfp: the sample's frame-pointer
 * chain, when it has one (leaf first); when the DWARF walk stops early
 * (the snapshot ended, or code without CFI) at a return address that is
 * in the chain, the chain's outer frames are appended as the chain has
 * them (return addresses). *stop gets why the DWARF walk stopped. Returns
 * the number of frames (0 when the snapshot has no usable registers), or
 * -ENOMEM.
 */
int unwinder_unwind(struct unwinder *uw, uint32_t pid, uint32_t tid, uint64_t ts,
		    const struct prof_ustack *u, const uint64_t *fp, unsigned nfp, uint64_t *ips,
		    unsigned max, enum unwind_stop *stop);

/*
 * Replace the user frames of sample u->sample of p with the unwinding of u,
 * keeping its kernel frames and using its present user frames as the
 * frame-pointer chain (p is the profile the unwinder was made over; its
 * stacks grow, its mappings and tasks must not change). A snapshot of a
 * sample p does not have is ignored. Returns 0 or -ENOMEM.
 */
int unwinder_apply(struct unwinder *uw, struct profile *p, const struct prof_ustack *u);

void unwinder_stats(const struct unwinder *uw, struct unwind_stats *st);
const char *unwind_stop_name(enum unwind_stop s);

#endif
