/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ZT_GPU_OPTS, the options zt record hands to libztcupti.so (see wire.h). */
#ifndef ZT_CUPTI_OPTS_H
#define ZT_CUPTI_OPTS_H

#include <stddef.h>

enum zc_pcs_mode { ZC_PCS_CONTINUOUS, ZC_PCS_SERIALIZED, ZC_PCS_OFF };

enum zc_stacks {
	ZC_STACKS_AUTO,	  /* the probe when a tracer is attached to it, else unwind */
	ZC_STACKS_USDT,	  /* always fire the probe zt:launch */
	ZC_STACKS_UNWIND, /* always capture in-process with libunwind */
	ZC_STACKS_OFF,
};

struct zc_opts {
	enum zc_pcs_mode pcs;
	unsigned pcs_period; /* 0: CUPTI's default; else 5..31 (2^N cycles) */
	/* CUPTI's PC-sampling buffers and worker threads; 0: CUPTI's default */
	unsigned pcs_hwbuf_mb;	/* the hardware buffer (CUPTI: 512 MB) */
	unsigned pcs_scratch_mb; /* the buffer of decoded PCs (CUPTI: 1 MB, ~5500 PCs) */
	unsigned pcs_sleep_ms;	/* CUPTI's worker threads' sleep (CUPTI: 100 ms) */
	enum zc_stacks stacks;
	unsigned stack_rate; /* launch stacks per second per thread; 0: none */
	unsigned flush_ms;   /* 1..1000 */
	unsigned mem_mb;     /* ZC_MEM_MB_MIN..65536 */
	int verbose;	     /* warnings also on the host's stderr */
};

#define ZC_FLUSH_MS_MAX 1000
#define ZC_MEM_MB_MIN	4 /* the file writer alone takes 1.7 MiB of it */

/* The defaults: continuous PC sampling, automatic stacks at 100/s per
 * thread, a flush every 500 ms, a 64 MiB cap, quiet. */
void zc_opts_default(struct zc_opts *o);

/*
 * Parse s ("key=value,key=value", NULL or "" for none) over the defaults
 * into *o. Unknown keys are ignored (a newer zt may pass more); a known key
 * with a bad value keeps its default (flush_ms above 1000 becomes 1000) and
 * is named in bad (NUL-terminated, cut to badlen) for one warning. Returns
 * the number of bad values.
 */
int zc_opts_parse(struct zc_opts *o, const char *s, char *bad, size_t badlen);

/* "continuous", "serialized", "off"; "auto", "usdt", "unwind", "off". */
const char *zc_pcs_mode_name(enum zc_pcs_mode m);
const char *zc_stacks_name(enum zc_stacks s);

#endif
