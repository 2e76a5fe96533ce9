/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Recordings for the zt serve tests, written in memory (linked into every test binary). */
#ifndef ZT_TESTS_SRVDATA_H
#define ZT_TESTS_SRVDATA_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"
#include "libprof/zbuf.h"

/* The standard test recording of process 100 ("app", host "h1"):
 *   /usr/bin/app at 0x400000 (build id bid, file offset 0)
 *   /lib/libnobid.so at 0x7f0000000000 (no build id, file offset 0x2000)
 *   kallsyms: kfunc at 0xffffffff81001000; perf map: jitfn at 0x7e0000000000
 *   stack A x 3 (weight 10): kfunc <- app+0x1000 <- app+0x2000
 *   stack B x 2 (weight 10): libnobid+0x2100 <- jitfn
 * Variant v changes the weights (so the bodies and ids differ); snapshot
 * adds a user-stack snapshot; unfinished leaves the index out; gpu adds
 * GPU records (kernels, a launch with a stack of its own, PC samples, a
 * cubin), which zt serve leaves out. */
struct srv_rec_opts {
	unsigned variant;
	int snapshot, unfinished, gpu;
	const struct prof_build_id *bid; /* NULL: aa bb cc ... */
	uint64_t off_a, off_b;          /* app's sampled file offsets (0: 0x1000, 0x2000) */
	unsigned extra_stacks;          /* more distinct stacks, one sample each */
	const char *event;              /* NULL: cpu-clock */
	int64_t wall;                   /* the wall clock at the start (0: 1700000000) */
	uint32_t pid;                   /* the process (0: 100, "app") */
	const char *comm;
	unsigned later;                 /* the second stack's samples this many s later */
};

int srv_recording(struct zbuf *out, const struct srv_rec_opts *o);

/* len bytes at data gzip-compressed into out (a pushed pprof's body). 0
 * or -1. */
int srv_gzip(struct zbuf *out, const void *data, size_t len);

#endif
