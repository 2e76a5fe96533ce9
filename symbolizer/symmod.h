/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbols of one module (an executable or shared library), from the
 * best source there is, turned once into a GSYM table and cached by build
 * id: the next lookup in the same binary does no ELF or DWARF parsing.
 *
 * Sources, best first: the GSYM cache ($cache/gsym/<id>.gsym, id: the GNU
 * build id, or the OpenTelemetry file id of a binary without one); the
 * binary's DWARF, or its separate debug file (build-id directories,
 * .gnu_debuglink, --debug-dir, --symfs); debuginfod (unless turned off);
 * a Go binary's .gopclntab (names, lines and inline trees: full symbols,
 * source "go pclntab"; also for the Go code of a cgo binary whose DWARF
 * is its C code's alone); MiniDebugInfo; the ELF symbol tables; a remote
 * symbol database (the
 * opts' remote_gsym), whose answer replaces the local one when it is
 * better (full DWARF over the symbol table's names) and is then cached.
 * Names come from the symbol table, files, lines and inline chains from
 * DWARF.
 */
#ifndef ZT_SYMMOD_H
#define ZT_SYMMOD_H

#include <stdint.h>

#include "libprof/profile.h"
#include "libprof/zbuf.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/debugfind.h"
#include "symbolizer/funcinfo.h"

/* symmod_source() of a module named from a Go binary's .gopclntab (that of
 * a cgo binary whose DWARF covers only its C code ends with it) */
#define SYMMOD_SOURCE_GO_PCLNTAB "go pclntab"

enum symq {
	SYMQ_NONE = 0,  /* module + offset only */
	SYMQ_BASIC = 1, /* function names (ELF symbols) */
	SYMQ_FULL = 2,  /* DWARF (or Go's pclntab): function, file, line, inline chain */
};

/* A loadable segment of a module: file offsets [off, off+size) are
 * mapped at vaddr (a `load` line of the cache's .meta file). */
struct symmod_seg {
	uint64_t off, vaddr, size;
};

/* The most load segments a remote answer carries (X-ZT-Symbol-Load). */
#define SYMMOD_REMOTE_MAX_SEGS 16

/* What a remote symbol database answered for one module (see remote_gsym). */
struct symmod_remote {
	void *image; /* the GSYM image, malloc'ed; freed by symmod_remote_release() */
	size_t len;
	int q; /* the quality it says the image has (enum symq), or -1 when it did not
		  say: then judged from the image (file:line rows or not) */
	/* its load segments (file offset, vaddr, size): used for a module whose
	 * binary is not on this machine (the binary's own are used when it is) */
	struct symmod_seg segs[SYMMOD_REMOTE_MAX_SEGS];
	size_t nr_segs;
	char source[256]; /* where it came from, for the summary and the cache's
			     meta: "symbol database http://host:port" (it must start
			     "symbol database"); "": "symbol database" */
};

void symmod_remote_release(struct symmod_remote *a);

struct symmod_opts {
	const struct buildid_cache *cache; /* GSYM cache; NULL: none */
	/* an unpacked zt archive (symbolizer/symarchive.h), read only, or NULL
	 * (or its dir NULL): its GSYM tables, made on the recording's machine,
	 * are used for a module the cache has no full symbols for, before any
	 * local source; they are not copied into the cache. Its binaries are
	 * looked up by the callers (resolve, annotate, unwind) with
	 * buildid_cache_path(). */
	const struct buildid_cache *archive;
	struct debugfind_opts find;
	int no_debuginfod;
	/* symbol-table names only (zt symbols upload --no-dwarf): no DWARF, no
	 * separate debug file, no debuginfod, no remote; MiniDebugInfo (names
	 * only) is still read. The GSYM cache is neither read nor written. */
	int no_dwarf;
	/* progress of debuginfod downloads (what: the module), or NULL */
	void (*progress)(void *ctx, const char *what, long done, long total);
	void *progress_ctx;
	/*
	 * The seam for a remote symbol database (the team server, zt report
	 * --symdb): asked once per symmod_open() for a module whose local
	 * sources (or GSYM cache entry) gave less than full symbols, by build
	 * id (or file id). Fills *a (zeroed by the caller, a->q = -1) and
	 * returns 0, or returns a negative errno when it has nothing (-ENOENT:
	 * not there; anything else: it failed, which it reports itself). An
	 * answer better than what the module had replaces it and is written to
	 * the GSYM cache with its segments and source, so the next open needs
	 * no remote. Called by whichever thread calls symmod_open() (so from
	 * several at once if they do). NULL: no remote database.
	 */
	int (*remote_gsym)(void *ctx, const struct prof_build_id *id, struct symmod_remote *a);
	void *remote_ctx;
};

struct symmod;

/*
 * Open the symbols of the binary at path (as the process saw it; may be
 * gone when the cache has its symbols) whose build id is bid (NULL or len 0:
 * read it from the file). A file whose build id differs from bid is not
 * used. Never fails for want of symbols: the module then has SYMQ_NONE and
 * symmod_why() says why. Returns 0 or -ENOMEM.
 */
int symmod_open(const struct symmod_opts *o, const char *path, const struct prof_build_id *bid,
		struct symmod **out);
void symmod_free(struct symmod *m);

enum symq symmod_quality(const struct symmod *m);
/* Why the quality is not SYMQ_FULL ("" when it is), e.g. "no debug info". */
const char *symmod_why(const struct symmod *m);
/* Where the symbols came from ("DWARF in the binary", "/usr/lib/debug/...",
 * "debuginfod", "go pclntab", "symbol table", "symbol database URL", ""), as the GSYM
 * cache's meta file keeps it for a cached module. */
const char *symmod_source(const struct symmod *m);
/* Whether m's symbols came from the remote database (remote_gsym): 1 this
 * symmod_open() took them from it; 2 from the GSYM cache, which kept an
 * earlier answer (symmod_source() names the database); 0 not. */
int symmod_remote_served(const struct symmod *m);

/* Look up a file offset (address - mapping start + mapping pgoff) or a
 * virtual address. Strings in r are borrowed until symmod_free().
 * Returns 0, or -ENOENT when no function covers it. */
int symmod_lookup_offset(const struct symmod *m, uint64_t off, struct fi_result *r);
int symmod_lookup_vaddr(const struct symmod *m, uint64_t vaddr, struct fi_result *r);
/* The same, gaps between functions included (gsym_lookup_all): for
 * answers as addr2line and llvm-symbolizer give them. */
int symmod_lookup_offset_all(const struct symmod *m, uint64_t off, struct fi_result *r);
int symmod_lookup_vaddr_all(const struct symmod *m, uint64_t vaddr, struct fi_result *r);
/* The virtual address of a file offset (-ENOENT: in no loadable segment):
 * symmod_seg_vaddr() on the module's segments. */
int symmod_offset_to_vaddr(const struct symmod *m, uint64_t off, uint64_t *vaddr);

/*
 * The ELF virtual address of file offset off, through the load segment of
 * segs (n of them) whose file bytes hold it: 0, or -ENOENT when none does.
 * This is zt's one conversion from a sampled address to the ELF's own
 * addresses, whatever the linker made of p_offset and p_vaddr (GNU ld,
 * gold, lld: -z separate-code or not, PIE or at a base as prelink leaves
 * them): the offset is the kernel's (prof_mmap_offset(): address -
 * mapping start + mapping pgoff), the segment the one that holds the
 * offset, not the one the mapping's pgoff falls in (lld packs segments
 * into shared pages: its read-only segment and its code both start in
 * page 0 of the file, at different vaddr - offset distances). Used by the
 * symbolizer (symmod_offset_to_vaddr()), the unwinder (a module's load
 * bias) and zt annotate.
 */
int symmod_seg_vaddr(const struct symmod_seg *segs, size_t n, uint64_t off, uint64_t *vaddr);

/*
 * The PT_LOAD segments of the ELF file at path (code_only: the executable
 * ones) into segs, at most max; *nr gets how many there are. A separate
 * debug file keeps its binary's program headers, but objcopy
 * --only-keep-debug of GNU ld's output moves to offset 0 a segment whose
 * contents it drops (p_filesz 0; lld's keep their offsets, as eu-strip -f
 * does): such a segment is placed at the vaddr - offset delta of the first
 * segment that kept contents, where GNU ld puts it, and sized by p_memsz.
 * 0, -ENOEXEC (not ELF) or -errno of open.
 */
int symmod_elf_segments(const char *path, int code_only, struct symmod_seg *segs, size_t max,
			size_t *nr);
/* The same of an ELF file open in libelf (borrowed); -ENOEXEC for a NULL
 * e or one that is not ELF. */
struct Elf;
int symmod_elf_segments_of(struct Elf *e, int code_only, struct symmod_seg *segs, size_t max,
			   size_t *nr);

/*
 * The text of a GSYM cache entry's .meta file ($cache/gsym/<id>.meta, next
 * to <id>.gsym), appended to out: what symmod_open() reads back as the
 * module's quality, why, source and load segments. For stores that fill
 * such a directory themselves (zt serve's symbol store). 0 or -ENOMEM;
 * -EINVAL for a why or source with a newline.
 */
int symmod_meta_format(struct zbuf *out, enum symq q, const char *why, const char *source,
		       const struct symmod_seg *segs, size_t nr_segs);

/* The GSYM image m's lookups read (borrowed until symmod_free): what zt
 * push uploads. -ENOENT when m has no symbols at all. */
int symmod_image(const struct symmod *m, const void **data, size_t *len);
/* m's loadable segments (file offset, virtual address, size: the "load"
 * lines of the cache's .meta file) into segs, at most max; returns how
 * many m has (which may be more than max). */
size_t symmod_segments(const struct symmod *m, struct symmod_seg *segs, size_t max);

/* Extract path's symbols (with its debug file, found as symmod_open does)
 * into a GSYM file at out_path; *q gets the quality. For
 * 'zt symbols extract'. Returns 0 or a negative errno. */
int symmod_extract(const struct symmod_opts *o, const char *path, const char *out_path,
		   enum symq *q);
/* The same, the GSYM written to fd (borrowed: a file the caller created). */
int symmod_extract_fd(const struct symmod_opts *o, const char *path, int fd, enum symq *q);

#endif
