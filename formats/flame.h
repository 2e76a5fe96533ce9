/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Flame graphs: a tree of frames built from stacks (from a profile, or from
 * folded text "a;b;c 42" as stackcollapse-perf.pl writes it), written as one
 * standalone interactive SVG (embedded CSS and JavaScript: click to zoom,
 * search by regular expression, a tooltip per frame).
 */
#ifndef ZT_FLAME_H
#define ZT_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libprof/htab.h"
#include "libprof/strtab.h"

/* What a frame is: each kind has its own palette (with --colors=kind). */
enum flame_kind {
	FLAME_USER,	  /* native user code with a symbol */
	FLAME_KERNEL,	  /* kernel or kernel module */
	FLAME_JIT,	  /* JIT-compiled code (perf maps, jitdump) */
	FLAME_INLINED,	  /* a function inlined into its caller */
	FLAME_UNRESOLVED, /* no symbol: "[module+0x1f0]", "[unknown]" */
	FLAME_PROCESS,	  /* the thread name heading a stack */
	/* GPU stacks (formats/gpufolded.h), a palette of their own: */
	FLAME_GPU_KERNEL,  /* a kernel ("_[g]") */
	FLAME_GPU_FUNC,	   /* a device function it calls ("_[gd]") */
	FLAME_GPU_INLINED, /* a device function inlined ("_[gi]") */
	FLAME_GPU_LINE,	   /* a PC's source line ("_[gl]") */
	FLAME_GPU_STALL,   /* a stall reason ("_[gs]") */
	FLAME_NR_KINDS
};

/* One frame of a stack; the strings are copied. module and srcline may be
 * NULL. */
struct flame_frame {
	const char *name;
	const char *module;
	const char *srcline; /* "file.c:42" */
	enum flame_kind kind;
};

struct flame_node {
	uint32_t name, module, srcline; /* string ids (0: none) */
	uint32_t parent, child, next;	/* FLAME_NONE at the end */
	uint32_t depth;			/* the root "all" is 0 */
	uint8_t kind;
	uint64_t value[2]; /* samples through this frame: [0] the graph, [1] the other
			      profile of a differential graph */
};

#define FLAME_NONE	UINT32_MAX
#define FLAME_MAX_DEPTH 16384 /* longer stacks are cut at this many frames */

/*
 * The tree. Node 0 is the root ("all"). reverse: stacks are added leaf
 * first (callee-rooted). All strings are owned. Embedded: flame_init and
 * flame_release.
 */
/* A frame by the ids of its strings (flame_intern(); 0 is "", none) and
 * its kind. */
struct flame_idframe {
	uint32_t name, module, srcline;
	enum flame_kind kind;
};

struct flame {
	struct flame_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct zt_htab nhash; /* (parent, name, module, kind) -> node index */
	struct zt_strtab strs; /* id 0 is "" */
	int reverse;
	int process_first; /* folded text: each stack's first frame is a process name
			      (FLAME_PROCESS), as zt's GPU stacks have it */
	uint64_t total[2];
	struct flame_frame *scratch; /* a reversed stack */
	size_t scratch_cap;
	struct flame_idframe *ids; /* flame_add_stack()'s frames by ids */
	size_t ids_cap;
	/* the last folded line's frames, to reuse the prefix it shares with
	 * the next (folded text is sorted) */
	char *prev;
	size_t prev_len, prev_cap, prev_depth, prev_dcap;
	size_t *prev_ends; /* each frame's end in prev */
	size_t cap_prev_nodes;
	uint32_t *prev_nodes;
};

int flame_init(struct flame *f);
void flame_release(struct flame *f);
const char *flame_str(const struct flame *f, uint32_t id);

/* Add a stack of n frames (frames[0] the outermost caller) counted count
 * times into value[which] (0 or 1). 0, -ENOMEM, or -EINVAL (which). */
int flame_add_stack(struct flame *f, const struct flame_frame *frames, size_t n, uint64_t count,
		    int which);

/* For a caller that meets the same frames in many stacks (zt serve's
 * stored frames), stacks added by ids (flame_intern(), flame_add_stack_ids()). */
/* s's id (s NULL: "", id 0). 0 or -ENOMEM. */
int flame_intern(struct flame *f, const char *s, uint32_t *id);
/* flame_add_stack() by ids. */
int flame_add_stack_ids(struct flame *f, const struct flame_idframe *frames, size_t n,
			uint64_t count, int which);

/*
 * Parse folded text (len bytes, no NUL needed): lines "f1;f2;...;leaf COUNT",
 * counted into value[which]. flamegraph.pl's annotations give kinds: a
 * "_[k]" suffix kernel, "_[j]" JIT, "_[i]" inlined, and zt's GPU ones
 * "_[g]" kernel, "_[gd]" device function, "_[gi]" inlined device
 * function, "_[gl]" source line, "_[gs]" stall reason (the suffix is
 * removed); "[...]" names are unresolved. Lines that do not parse are skipped and
 * counted in *bad (may be NULL). 0 or -ENOMEM.
 */
int flame_parse_folded(struct flame *f, const char *buf, size_t len, int which, size_t *bad);

/* The child of parent with this frame (for tests and walkers), or FLAME_NONE. */
uint32_t flame_find_child(const struct flame *f, uint32_t parent, const char *name);

struct flame_svg_opts {
	const char *title;    /* NULL: "Flame Graph" ("Icicle Graph" inverted) */
	const char *subtitle; /* NULL: none */
	unsigned width;	      /* image width in pixels; 0: 1200 */
	double minwidth;      /* frames narrower than this many pixels are left out; <0: 0.1 */
	const char *colors;   /* a palette of flame_palette_valid(); NULL: "kind" */
	int inverted;	      /* icicle: the root on top */
	int diff;	      /* value[0] is the new profile, value[1] the old: red grew */
	const char *unit;     /* "samples" */
	size_t max_frames;    /* 0: no limit; else the narrowest frames are left out until at
			       * most this many are drawn, and the subtitle says so */
};

/* Whether name is a palette: kind, hot, mem, io, java, js, red, green, blue, aqua. */
int flame_palette_valid(const char *name);
extern const char flame_palettes[]; /* "kind, hot, ..." for messages */

/* Write the SVG. 0, or a negative errno (-EIO: a write failed). */
int flame_write_svg(const struct flame *f, FILE *out, const struct flame_svg_opts *o);

#endif
