/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The session: the one path from a recording to resolved stacks that every
 * command takes (report, script, flame, convert; top over a live profile).
 * It opens a zt.data or perf.data by its magic, reads it from one mapped
 * image (both passes of a --call-graph dwarf recording), adds the kernel
 * and JIT symbols the recording needs, builds the one process tree, unwinds
 * the user-stack snapshots, and resolves addresses into a frame table
 * (libprof/frametab.h) with one set of symbol options: each unique (build
 * id, file offset) once, whichever processes map it.
 *
 * Consumers take the session's resolved stacks as one handle,
 * session_stacks() (libprof/rstacks.h): the profile's samples with their
 * stacks of resolved frames, CPU and GPU launch stacks alike; the tree,
 * the frame table and the resolver stay the session's.
 *
 * zt serve takes the same path: a pushed body is opened from memory with
 * the server's rules (session_open_pushed), and the frames its store
 * keeps by (build id, file offset) are named at query time by the same
 * resolver over the store's symbols (session/symstore.h). A new kind of
 * frame is one more resolve_source (symbolizer/resolve.h) given in
 * session_opts, and shows in every output, the server's included.
 *
 * Messages go through the library log (libprof/log.h), which commands
 * print as "zt CMD: ...".
 */
#ifndef ZT_SESSION_H
#define ZT_SESSION_H

#include <stdint.h>

#include "libprof/frametab.h"
#include "libprof/gpuframes.h"
#include "libprof/gpuview.h"
#include "libprof/proctree.h"
#include "libprof/profile.h"
#include "libprof/rfilter.h"
#include "libprof/rstacks.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/resolve.h"
#include "symbolizer/symmod.h"

struct pprof_body;

struct session_opts {
	int force;         /* a damaged file: read the part before the damage (with a warning) */
	const char *event; /* the event to read by name (NULL: the first, or all_events) */
	int all_events;    /* no event named: keep every event's samples (prof_sample.event
			      indexes prof.events); else only the one event, as event 0 */
	/* symbol sources: binaries and debug files (mo->find.symfs and
	 * debug_dirs also serve the unwinder), GSYM cache, debuginfod, the
	 * remote seam; NULL: the defaults */
	const struct symmod_opts *mo;
	const char *kallsyms, *vmlinux; /* kernel symbols from these files (--kallsyms, -k) */
	const struct buildid_cache *kcache; /* the per-boot kallsyms cache, or NULL */
	/* frame sources asked before the built-in ones (symbolizer/resolve.h:
	 * a new kind of frame is one of these); borrowed */
	const struct resolve_source *sources;
	size_t nr_sources;
	/* names only from the recording itself (its kernel symbols, perf maps
	 * and jitdumps) and the sources: no binary, debug file, cache or
	 * debuginfod is asked (zt serve's ingest; file frames keep their build
	 * id and offset, named at query time) */
	int no_files;
	int no_demangle;    /* keep C++/Rust names mangled */
	int no_unwind;      /* a --call-graph dwarf recording's chains as recorded (zt's
			       kernel unwinder's, or frame pointers): the copies not unwound */
	int full_signature; /* demangled C++ names keep their parameter lists */
	/* Python stacks as recorded: the interpreter's frames between Python
	 * frames (its evaluation loop, its call machinery) kept; default:
	 * folded out (libprof/pyfold.h) */
	int python_glue;
	/* long work (what: "unwinding user stacks"): called with done from 0
	 * to total, and once with done == total at the end; NULL: none */
	void (*progress)(void *ctx, const char *what, uint64_t done, uint64_t total);
	void *progress_ctx;
};

/*
 * A symbolizer as a frame-table source (the resolver with the session's
 * name options), following a profile: made by session_source_new() for a
 * profile the caller grows (zt top), or inside a session.
 */
struct session_source;

int session_source_new(const struct session_opts *o, struct session_source **out);
void session_source_free(struct session_source *ss);
/*
 * Point ss at profile p (borrowed) and its tree pt: the first time, or
 * for another profile, a new resolver; for the same profile grown (tasks
 * and mappings appended) and a new tree over it, the resolver follows,
 * keeping what it resolved; p NULL: no profile (the resolver goes).
 * Frame tables using ss must be reset to pt. 0 or -ENOMEM.
 */
int session_source_follow(struct session_source *ss, const struct profile *p,
			  const struct proctree *pt);
/* The frametab_source of ss (valid while ss lives). */
void session_source_get(struct session_source *ss, struct frametab_source *src);

/*
 * The session of a profile that grows (zt top): the symbolizer with the
 * session's options, and the stacks handle over the profile the caller
 * grows (libprof/toplive.h follows it with rstacks_live_follow()), which
 * owns the tree and the frame table.
 */
struct session_live;

int session_live_new(const struct session_opts *o, struct session_live **out);
/* After the handle's last user (the top model) is released. */
void session_live_free(struct session_live *sl);
/* The stacks handle of sl (valid while sl lives). */
struct rstacks_live *session_live_stacks(struct session_live *sl);

struct session {
	const char *path;    /* borrowed */
	int perf;            /* read from a perf.data file */
	struct profile prof; /* what the file holds, stacks unwound (read-only data) */
	/* private: consumers reach them through session_stacks() */
	struct proctree *pt; /* its processes over time */
	struct frametab ft;  /* its addresses, resolved as the consumers ask */
	struct session_source *src;
	struct rstacks rs;   /* session_stacks(): over prof, pt and ft */
	struct session_pprof *pp; /* a pushed pprof's body and frame source, or NULL */
};

/*
 * Read path into s: zt.data or perf.data (told apart by their magic,
 * whatever the name). A truncated file is read up to its last complete
 * part with a warning; a damaged one is an error naming the offset,
 * unless o->force. Kernel symbols come from --kallsyms or -k when given
 * (replacing a zt.data file's own), else, for perf.data of this host's
 * kernel build, from /proc/kallsyms, relocated to the recorded boot's
 * _text (symbolizer/ksource.h); perf.data also gets this host's
 * /tmp/perf-PID.map files, read as perf reads them. A --call-graph dwarf
 * recording has its user stacks unwound; then the stacks of Python
 * programs lose the interpreter's frames between Python frames
 * (libprof/pyfold.h) unless o->python_glue. path must be a regular file (a
 * pipe, FIFO, device or directory is refused without waiting or reading);
 * it is opened and mapped once.
 * Returns 0, or -1 after an error message (s is then released).
 */
int session_open(struct session *s, const char *path, const struct session_opts *o);
void session_close(struct session *s);

/*
 * Read a pushed zt.data body (zt serve's ingest) into s, as
 * session_open() reads a file, with the server's rules: the recording
 * must be complete (end with its index chunk) and hold no user-stack
 * snapshots (zt push unwinds --call-graph dwarf recordings before it
 * sends them); GPU records are checked, not kept; with several events,
 * the first is kept; Python stacks are folded as session_open() folds
 * them (once: not those of a profile folded before it was pushed,
 * PYFOLD_META); names come from the recording only (o->no_files is
 * implied: no file of this host is opened). Its frame table keeps nothing
 * (frametab_transient(): each stack's frames are valid until the next
 * stack is resolved; its consumer keeps what it needs). data is borrowed for the
 * call. Nothing is logged: 0, or -EBADMSG with msg saying why ("bad
 * zt.data: ...", "incomplete zt.data: ...") or -ENOMEM; s is released on
 * failure.
 */
int session_open_pushed(struct session *s, const void *data, size_t len,
			const struct session_opts *o, char *msg, size_t msglen);

/*
 * Read a pushed pprof body (gzip-compressed or raw) into s, as
 * session_open_pushed() reads a zt.data, with the server's rules: the body
 * is validated whole (formats/pprofread.h says what the profile gets, and
 * max_decoded); o->no_files is implied. The locations' names reach the
 * frame table through a frame source asked before o's (symbolizer/
 * resolve.h): a location with named lines gives their frames, innermost
 * first, each line an inline frame of the next (a line without a name
 * gives a frame named "", which names nothing); one without gives its
 * module and file offset, unresolved, in the mapping that holds its
 * mapping's build id. Its frame table keeps nothing, as
 * session_open_pushed()'s. data is borrowed for the call. Nothing is logged:
 * 0, or pprof_read_mem()'s errors with msg saying why (-EMEDIUMTYPE: "not
 * a pprof profile"); s is released on failure.
 */
int session_open_pushed_pprof(struct session *s, const void *data, size_t len,
			      uint64_t max_decoded, const struct session_opts *o, char *msg,
			      size_t msglen);
/* What a session opened by session_open_pushed_pprof() read beyond its
 * profile (whole thread names, the command, the times), else NULL. Valid
 * until session_close(). */
const struct pprof_body *session_pprof(const struct session *s);

/*
 * The resolved stacks of s (an open session), the one handle its consumers
 * take: s's profile, and its stacks resolved through the session's tree,
 * frame table and resolver. Valid until session_close().
 */
const struct rstacks *session_stacks(const struct session *s);

/*
 * Resolve the PC-sampling buckets of v (a view of s->prof.gpu) into t (an
 * initialized, empty table): t->pcs[i] gets the frames of v->pcs[i], from
 * the cubin recorded with the bucket's CRC (symbolizer/cubin.h), each
 * unique (cubin, function, PC) resolved once; names demangled unless the
 * session keeps them mangled. A bucket whose cubin is missing or
 * unreadable gets one frame, its function's name, at ZT_FRAME_NONE, and
 * t->cubins says why. 0 or -ENOMEM.
 */
int session_gpu_frames(struct session *s, const struct gpu_view *v, struct gpu_frametab *t);

/*
 * Apply the filters f (--pid, --tid, --comm, --time) to the GPU records of
 * s (gpu_select(): they go from s->prof.gpu), before any view of them is
 * made: the one place the GPU side of report, flame and script is
 * filtered. Percents of --time are of the samples' time span, or without
 * samples of the GPU records'. 0 or -ENOMEM.
 */
int session_select_gpu(struct session *s, const struct rfilter *f);

/*
 * The GPU side of a session as its consumers take it (report --gpu,
 * script, flame --gpu, convert): the records the filters select, their
 * view, the PC samples' frames, and the names of kernels as shown. One
 * path, so that every output names a kernel and a GPU frame alike.
 */
struct session_gpu {
	struct gpu_view v;      /* the selected records (v.g NULL: none) */
	struct gpu_frametab ft; /* v's PC-sampling buckets resolved (when frames) */
	int had_pcs;            /* the recording has PC samples (before the filters) */
	/* private */
	const struct prof_gpu *g;
	char **names; /* shown names by string id, made when first asked */
	int demangle, full_signature;
};

/*
 * Ready sg for s's GPU records: select them by f (--pid, --tid, --comm,
 * --time; NULL: all, see session_select_gpu), view them and, when frames,
 * resolve their PC samples (session_gpu_frames). Without GPU records sg is
 * empty (sg->v.g NULL) and 0 is returned. 0 or -ENOMEM; sg is to be closed
 * either way.
 */
int session_gpu_open(struct session *s, const struct rfilter *f, int frames,
		     struct session_gpu *sg);
void session_gpu_close(struct session_gpu *sg);
/*
 * The name of the GPU records' string id (a kernel's, a PC sample's
 * function) as every output shows it: demangled unless the session keeps
 * names mangled, with parameter lists under full_signature, as the GPU
 * frames' names are. Made once per id; valid until sg is closed. "" for
 * an id the records do not have; NULL without GPU records.
 */
const char *session_gpu_name(struct session_gpu *sg, uint32_t id);
/* session_gpu_name() as a callback (ctx: the struct session_gpu). */
const char *session_gpu_name_cb(void *ctx, uint32_t id);

/* Unique frames resolved so far at each quality (ZT_FRAME_*). */
void session_quality_counts(const struct session *s, uint64_t counts[3]);
/* Each module opened that gave less than full symbols: cb(module, its
 * quality, why). */
void session_weak_modules(const struct session *s,
			  void (*cb)(void *ctx, const char *module, enum symq q, const char *why),
			  void *ctx);
/* Each module whose symbols came from its Go .gopclntab. */
void session_pclntab_modules(const struct session *s, void (*cb)(void *ctx, const char *module),
			     void *ctx);
/* resolver_remote_modules() of the session's resolver. */
void session_remote_modules(const struct session *s,
			    void (*cb)(void *ctx, const char *module, const char *source,
				       int fetched),
			    void *ctx);

#endif
