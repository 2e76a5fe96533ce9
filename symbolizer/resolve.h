/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The resolver: sampled addresses of a profile to frames {function,
 * module, offset, file:line and inline chain, quality}, from kallsyms
 * (kernel), perf maps (JIT code), and the mapped binaries through symmod
 * (GSYM cache, DWARF, debug files, debuginfod, ELF symbols; the build-id
 * cache copy of a binary first). Each unique (mapping, address) is
 * resolved once; each module is opened once.
 */
#ifndef ZT_RESOLVE_H
#define ZT_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/proctree.h"
#include "libprof/profile.h"
#include "symbolizer/symmod.h"

struct resolver;

struct resolve_frame {
	const char *sym;    /* function name, or NULL when unresolved */
	const char *module; /* "libc.so.6", "[kernel.kallsyms]", "[ext4]", "[JIT] tid 42",
			       "[unknown]" when the address is in no mapping */
	uint64_t offset;    /* from the function start; unresolved: file offset in module
			       (the address itself for kernel or unknown addresses) */
	const struct prof_mmap *map; /* the covering mapping, or NULL */
	int kernel;
	enum symq quality;  /* FULL: DWARF; BASIC: a name only; NONE: module+offset */
	const struct fi_loc *locs; /* the inline chain, innermost first (locs[nr_locs-1] is
				      the function sym names), or NULL; borrowed */
	unsigned nr_locs;
	int jit; /* named by a perf map or jitdump */
};

/*
 * A source of frames besides the built-in ones (kallsyms, perf maps and
 * jitdumps, binaries through symmod): a new kind of frame (an
 * interpreter's functions, ...) is one more source, and shows in every
 * output, zt serve's included. Asked first, in order, for each user
 * address (m: its mapping in pid at ts, or NULL): returns 1 with f's sym,
 * module, offset and quality set (strings that outlive the resolver; an
 * inline chain in locs when it has one), 0 when it does not name the
 * address, or a negative errno. Its answers are cached as the others are:
 * by mapping and address, or in anonymous memory by process and address.
 * Kernel addresses are not asked.
 */
struct resolve_source {
	int (*resolve)(void *ctx, const struct profile *p, uint32_t pid, uint64_t ts,
		       const struct prof_mmap *m, uint64_t addr, struct resolve_frame *f);
	void *ctx;
};

/*
 * A symbol store (zt serve's): modules named by build id alone, whose
 * symbols are in mo's cache directory (the GSYM cache layout), resolved
 * with resolver_resolve_module(). Either hook may be NULL.
 */
struct resolve_store {
	/* before bid's symbols are opened: bring them into the directory
	 * (from a remote store) when they can be had */
	void (*prepare)(void *ctx, const struct prof_build_id *bid);
	/* none were found for bid, or names only: make better ones (from a
	 * stored binary or debug file, or fetched); 0 when it did, and they
	 * are opened again */
	int (*missing)(void *ctx, const struct prof_build_id *bid);
	void *ctx;
};

struct resolver_opts {
	const struct symmod_opts *mo; /* NULL: the default cache, debuginfod per DEBUGINFOD_URLS */
	int no_demangle;              /* keep C++/Rust names mangled */
	int full_signature;           /* demangled C++ names keep their parameter lists
					 (perf -v); default: without, as perf shows them */
	/* names only from what the profile holds (its kallsyms lines, perf
	 * maps and jitdumps): no binary, cache or debug file is opened (zt
	 * serve, to which the paths in a pushed profile are only names).
	 * Frames of files come back unresolved, with their mapping and file
	 * offset, for the caller to symbolize from elsewhere. */
	int no_files;
	const struct resolve_source *sources; /* asked before the built-in ones (borrowed) */
	size_t nr_sources;
	/* the caller keeps what each address gave (a frame table): the
	 * resolver keeps no copy of its answers (quality counts then count
	 * every answer) */
	int no_memo;
	const struct resolve_store *store; /* resolver_resolve_module's hooks (borrowed) */
};

/*
 * A resolver over p and pt (both borrowed: they must outlive it; both
 * NULL for a resolver of resolver_resolve_module() only). Cached
 * binaries are looked up in the build-id cache of buildid_cache_init()
 * ($ZT_CACHE_DIR, ...). Returns 0 or -ENOMEM.
 */
int resolver_new(const struct profile *p, const struct proctree *pt, struct resolver **out);
/* The same with options (o may be NULL; o->mo is borrowed). */
int resolver_new_opts(const struct profile *p, const struct proctree *pt,
		      const struct resolver_opts *o, struct resolver **out);
void resolver_free(struct resolver *r);

/*
 * Resolve addr sampled in process pid at time ts (is_kernel: a kernel
 * frame). Fills *f; its strings are borrowed until resolver_free() (or
 * profile_release() for module names taken from mapping paths). Failures
 * to find a symbol are not errors: they give sym == NULL. Returns 0 or
 * -ENOMEM. A binary whose build id does not match the recording's is not
 * used (warned once per module through zt_warn).
 */
int resolver_resolve(struct resolver *r, uint32_t pid, uint64_t ts, uint64_t addr, int is_kernel,
		     struct resolve_frame *f);

/*
 * Resolve file offset off of the module with build id bid, named module
 * (borrowed), by the same rules as a sampled address: zt serve names the
 * frames of its stored profiles with it. The module's symbols are opened
 * once (o->store's hooks first), by build id only, and nothing is kept of
 * the answer: f's inline chain (locs) is valid until the next call or
 * resolver_forget_module(), its names until resolver_free(). 0 or -ENOMEM.
 */
int resolver_resolve_module(struct resolver *r, const char *module,
			    const struct prof_build_id *bid, uint64_t off, struct resolve_frame *f);
/* Close bid's symbols (they were replaced): the next call opens them again. */
void resolver_forget_module(struct resolver *r, const struct prof_build_id *bid);

/*
 * For a profile that grows while it is resolved (zt top): the profile got
 * new tasks and mappings since resolver_new() or the last update, appended
 * only (a mapping keeps its index; the arrays may have moved), and pt is a
 * new tree over it, to be used from now on (the old one may be freed
 * after this call). Frames resolved so far stay cached (their map pointers
 * are moved along), modules stay open. Blobs are not read again: kernel
 * symbols and perf maps must be in the profile before the first frame that
 * needs them. Returns 0 or -ENOMEM (the resolver is unchanged).
 */
int resolver_update(struct resolver *r, const struct proctree *pt);

/* Whether pid's frames depend on the sample's time, not only on the
 * address (JIT code in a jitdump is replaced over time). */
int resolver_time_sensitive(struct resolver *r, uint32_t pid);

/* Unique frames resolved so far at each quality (index: enum symq). */
void resolver_quality_counts(const struct resolver *r, uint64_t counts[3]);
/* Each module opened that gave less than full symbols: cb(module name, its
 * quality, why). */
void resolver_weak_modules(const struct resolver *r,
			   void (*cb)(void *ctx, const char *module, enum symq q, const char *why),
			   void *ctx);

/* Each module opened whose symbols came from its Go .gopclntab. */
void resolver_pclntab_modules(const struct resolver *r, void (*cb)(void *ctx, const char *module),
			      void *ctx);
/* Each module opened whose symbols came from the remote symbol database
 * (symmod_opts.remote_gsym): cb(module name, where they came from: "symbol
 * database URL", fetched: 1 asked in this run, 0 an earlier answer kept in
 * the GSYM cache). */
void resolver_remote_modules(const struct resolver *r,
			     void (*cb)(void *ctx, const char *module, const char *source,
					int fetched),
			     void *ctx);

#endif
