/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The frame table: what the sampled addresses of a profile resolved to,
 * each unique address once. An address gives one or more frames: the
 * functions inlined at it, innermost first, then the function its code
 * belongs to. Every consumer of resolved stacks (the report and top
 * models, script, the folded and pprof writers) reads frames from here,
 * through the stacks handle that holds the table (libprof/rstacks.h);
 * the table asks its resolver (the session's symbolizer, or a test's) only
 * for addresses it has not seen, and an offset in a binary with a build id
 * is resolved once whichever processes map it.
 */
#ifndef ZT_FRAMETAB_H
#define ZT_FRAMETAB_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/htab.h"
#include "libprof/proctree.h"
#include "libprof/profile.h"

/* Quality of a frame's symbols (the symbolizer's enum symq). */
enum { ZT_FRAME_NONE = 0, ZT_FRAME_BASIC = 1, ZT_FRAME_FULL = 2 };

/* One frame. Strings are borrowed from the resolver (stable for the
 * table's life: consumers may key on their pointers). */
struct zt_frame {
	const char *sym;    /* function name (the inlined one for inline frames); NULL: none */
	const char *module; /* "libc.so.6", "[kernel.kallsyms]", "[JIT] tid 42", "[unknown]" */
	const struct prof_mmap *map; /* a covering mapping (of the process that resolved the
					address first: see zt_frange.map), or NULL */
	uint64_t offset;    /* from the function's start; unresolved: the file offset in the
			       module (the address itself for kernel or unknown addresses) */
	uint64_t addr;      /* in the module's file: the function's start (the address when
			       unresolved): orders frames the same in every process */
	const char *dir, *file; /* this frame's own position; file NULL when unknown */
	uint32_t line;
	uint32_t sline;     /* the innermost position of the address (perf's srcline) */
	const char *sfile;  /* ... its file, or NULL when unknown */
	uint8_t kernel;
	uint8_t quality;    /* ZT_FRAME_* */
	uint8_t inlined;    /* a function inlined into the next frame */
	uint8_t jit;        /* named by a perf map or a jitdump (JIT code) */
};

/* The frames of one address: frames[first .. first+n), n >= 1, the last
 * one the function (not inlined); map: the mapping covering the address
 * in the sample's process at its time (the kernel's for kernel
 * addresses), or NULL. */
struct zt_frange {
	uint32_t first, n;
	const struct prof_mmap *map;
};

struct frametab;

/*
 * What a table asks for an address it has not seen: resolve addr, sampled
 * in process pid at time ts (kernel: a kernel frame), and append its frames
 * with frametab_push() (inline frames innermost first, then the function;
 * at least one). 0 or a negative errno.
 */
struct frametab_source {
	int (*resolve)(void *ctx, struct frametab *ft, uint32_t pid, uint64_t ts, uint64_t addr,
		       int kernel);
	/* Whether pid's frames depend on the sample's time (JIT code replaced
	 * over time), not only on its address and mappings; NULL: never. */
	int (*time_sensitive)(void *ctx, uint32_t pid);
	/* For a profile that grows (zt top): resolve from now on in p (grown:
	 * tasks and mappings appended, or another profile) with pt, a new tree
	 * over it; p NULL: forget everything (the profile is about to be
	 * replaced). Called by the table's user, before frametab_reset(). NULL
	 * for sources of a profile that does not change. 0 or -ENOMEM. */
	int (*follow)(void *ctx, const struct profile *p, const struct proctree *pt);
	void *ctx;
	/* Each process's addresses asked apart, also in binaries with a build
	 * id (else an offset resolves once whichever processes map it): for a
	 * source that names a file's frames by the mapping's own path and
	 * does not read the file (zt serve's ingest). */
	int per_process;
};

struct ft_memo;
struct ft_space;

struct frametab {
	struct zt_frame *frames;
	size_t nr_frames, cap_frames;
	size_t nr_addrs; /* unique addresses resolved */
	/* private */
	const struct proctree *pt;
	struct frametab_source src;
	struct ft_memo *memo; /* (address space, address) -> its frames */
	size_t nr_memo, cap_memo;
	struct zt_htab mhash;	 /* memo by (address space, address) */
	struct ft_space *spaces; /* address spaces, id i + 1 */
	size_t nr_spaces, cap_spaces;
	struct zt_htab shash; /* spaces by key */
	int transient;	      /* frametab_transient() */
};

/* An empty table resolving through src (copied; its ctx borrowed), with
 * pt (borrowed) telling which mapping covers an address. */
void frametab_init(struct frametab *ft, const struct proctree *pt, const struct frametab_source *src);
void frametab_release(struct frametab *ft);
/* Forget every address and frame (the strings they borrowed may go); pt
 * is the tree to use from now on. */
void frametab_reset(struct frametab *ft, const struct proctree *pt);
/* The table is complete (a report resolved every group at once): free
 * what only lookups need (the address index) and the frames' spare room.
 * Frames stay; a later frametab_resolve() starts a new index, giving an
 * address seen before new frames. */
void frametab_seal(struct frametab *ft);
/* A table that keeps nothing: each frametab_resolve() asks the source for
 * every address anew and its frames stay valid only until the next call
 * (for a consumer that keeps what it needs of each stack and meets most
 * addresses once, zt serve's ingest: no index to probe and grow). */
void frametab_transient(struct frametab *ft);
/* Room for about n addresses, to spare growing the table. 0 or -ENOMEM. */
int frametab_reserve(struct frametab *ft, size_t n);

/* For sources: append a frame. 0 or -ENOMEM. */
int frametab_push(struct frametab *ft, const struct zt_frame *f);

/*
 * The frames of ips[0 .. n), sampled in process pid at time ts: ips[0 ..
 * nk) kernel addresses, the rest user addresses of pid's address space
 * epoch (proctree_epoch(), or any value that differs where the mappings
 * do). out[i] gets the frames of ips[i]. 0 or a negative errno (-E2BIG
 * past 2^26 frames).
 */
int frametab_resolve(struct frametab *ft, uint32_t pid, uint64_t ts, uint64_t epoch,
		     const uint64_t *ips, unsigned nk, unsigned n, struct zt_frange *out);

/* Whether pid's frames depend on the sample's time (see frametab_source). */
int frametab_time_sensitive(struct frametab *ft, uint32_t pid);
/* The address-space key of a sample of pid at ts whose mappings are at
 * epoch: epoch itself, or for a time-sensitive pid (JIT code replaced
 * over time) one of the sample's own. */
uint64_t frametab_epoch(struct frametab *ft, uint32_t pid, uint64_t ts, uint64_t epoch);

static inline const struct zt_frame *frametab_frame(const struct frametab *ft, uint32_t i)
{
	return &ft->frames[i];
}

/*
 * The printable name of a frame into buf: the function, "[module+0x1f0]"
 * with the file offset when unresolved ("[kernel.kallsyms+0x...]" for
 * bracketed module names), "[unknown]" when in no mapping. Not sanitized.
 * Returns buf.
 */
char *zt_frame_name(const struct zt_frame *f, char *buf, size_t n);

/* perf's srcline of a frame into buf: "file.c:42" with the base name of
 * its innermost position; when unknown, "function+123" (the decimal offset
 * into it) for a kernel function, as perf, else "??:0". Returns buf. */
char *zt_frame_srcline(const struct zt_frame *f, char *buf, size_t n);

#endif
