/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU frame table: what the PC-sampling buckets of a profile (the
 * gpu_view's pcs, libprof/gpuview.h) resolved to, from the recorded
 * cubins. Each bucket gets a run of frames, innermost first: the device
 * functions inlined at its PC, the device function holding it, then its
 * callers up to the kernel the record names (the last frame, not
 * inlined). Filled by the session (session_gpu_frames(), which resolves
 * each unique (cubin, function, PC) once); read by every GPU view (report
 * --gpu, flame --gpu, script, folded, pprof, chrome-trace).
 *
 * Embedded: gpu_frametab_init() / gpu_frametab_release(). The table owns
 * its frames and strings (interned: equal strings have one pointer, so
 * consumers may key on pointers).
 */
#ifndef ZT_GPUFRAMES_H
#define ZT_GPUFRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/strtab.h"

/* Quality of a GPU frame: the values of ZT_FRAME_* (libprof/frametab.h). */
struct gpu_frame {
	const char *func; /* device function (demangled unless asked not to); never NULL */
	const char *dir;  /* directory of file, or NULL */
	const char *file; /* this frame's own position: the PC's row for the innermost frame,
			     the call site for outer ones; NULL when unknown */
	uint32_t line;	  /* 0 when unknown */
	uint8_t inlined;  /* inlined into the next frame */
	uint8_t quality;  /* ZT_FRAME_FULL: with a source line, ZT_FRAME_BASIC: the function
			     only (no line table), ZT_FRAME_NONE: no cubin or PC not in it
			     (func is then the record's function name) */
};

/* The frames of one bucket: frames[first .. first + n), n >= 1. */
struct gpu_frange {
	uint32_t first, n;
};

/* What one recorded cubin gave (for the report's symbol-quality summary). */
struct gpu_cubin_note {
	uint64_t crc;
	uint8_t quality; /* the best any of its PCs got (ZT_FRAME_*) */
	const char *why; /* when not full: "no line table (built without -lineinfo)",
			    "not recorded", "not a cubin", ...; NULL when full */
};

struct gpu_frametab {
	struct gpu_frame *frames;
	size_t nr_frames, cap_frames;
	struct gpu_frange *pcs; /* pcs[i]: the frames of the view's pcs[i] */
	size_t nr_pcs;
	uint64_t quality[3];	       /* unique (cubin, function, PC) resolved at each quality */
	struct gpu_cubin_note *cubins; /* each cubin the buckets name, in the order first seen */
	size_t nr_cubins, cap_cubins;
	/* private */
	struct zt_strtab strs;
};

void gpu_frametab_init(struct gpu_frametab *t);
void gpu_frametab_release(struct gpu_frametab *t);

/* s as one of the table's strings (interned). NULL on ENOMEM. */
const char *gpu_frametab_str(struct gpu_frametab *t, const char *s);
/* Append a frame (its strings must be the table's own). 0 or -ENOMEM. */
int gpu_frametab_push(struct gpu_frametab *t, const struct gpu_frame *f);
/* Room for n ranges in t->pcs (zeroed; nr_pcs set to n). 0 or -ENOMEM. */
int gpu_frametab_set_pcs(struct gpu_frametab *t, size_t n);
/* Append a cubin note (why interned). 0 or -ENOMEM. */
int gpu_frametab_add_cubin(struct gpu_frametab *t, uint64_t crc, int quality, const char *why);

/* The frames of bucket i (n set to their number; NULL and 0 out of range). */
const struct gpu_frame *gpu_frametab_pc(const struct gpu_frametab *t, size_t i, uint32_t *n);

/* "file.cu:42" with the file's base name into buf ("??:0" when unknown). Returns buf. */
char *gpu_frame_srcline(const struct gpu_frame *f, char *buf, size_t n);

#endif
