/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python frames at record time (issue 36): which processes run a CPython
 * zt reads (record/pyproc.c, told by their mappings), their layout handed
 * to the BPF program (bpf/pywalk.h), and each sample's Python frames
 * spliced into its user stack where the interpreter's evaluation loop
 * stands, as prof_py_ip() frames (libprof/profile.h) whose code objects
 * are read from the process once, while it lives, and stored with the
 * recording (the add callback).
 *
 * A stack's user part, leaf first, becomes: the native frames above the
 * innermost Python frame, the Python frames of the innermost run of the
 * evaluation loop (innermost first), that run's native eval-loop frame,
 * the native frames between it and the next run, ... and the Python
 * frames left when the native walk ended early, at the end.
 */
#ifndef ZT_RECORD_PYREC_H
#define ZT_RECORD_PYREC_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"

struct pyrec;

struct pyrec_ops {
	/* store code object c (its strings borrowed for the call): its index
	 * in *idx (the index prof_py_ip() frames use). 0 or a negative errno. */
	int (*add_code)(void *ctx, const struct prof_pycode *c, uint32_t *idx);
	/* give the BPF program pid's interpreter (pp), or take it back (pp
	 * NULL). 0 or a negative errno. */
	int (*set_proc)(void *ctx, uint32_t pid, const void *pp);
	void *ctx;
};

int pyrec_new(const struct pyrec_ops *ops, struct pyrec **out);
void pyrec_free(struct pyrec *pr);

/* The side-band: an executable mapping, a task event (exec and exit
 * forget a process; a fork's child keeps its parent's interpreter). */
void pyrec_mmap(struct pyrec *pr, const struct prof_mmap *m);
void pyrec_task(struct pyrec *pr, const struct prof_task *t);
/* A sample of pid at now (CLOCK_MONOTONIC ns) was seen: an interpreter
 * that could not be checked yet (its process still loading) is checked
 * again, at most every few milliseconds. */
void pyrec_poll(struct pyrec *pr, uint32_t pid, uint64_t now);
/* The same for every such interpreter whose time has come: the
 * milliseconds until the samples should be read next (the next check, or
 * soon while Python processes live: their code objects are read before
 * they end), -1 when nothing waits. */
int pyrec_tick(struct pyrec *pr, uint64_t now);

/*
 * The stack of a sample of pid at ts: ips[0 .. nk) kernel frames, ips[nk
 * .. nk + nu) user frames, py the sample's npy Python frames as the BPF
 * program sends them (two words each: code object, instruction | flags <<
 * 32). Into out (room for cap), the stack with the Python frames spliced
 * in: its user frames in *nu_out. Returns out, or ips itself (*nu_out =
 * nu) when nothing was spliced.
 */
const uint64_t *pyrec_splice(struct pyrec *pr, uint32_t pid, uint64_t ts, const uint64_t *ips,
			     unsigned nk, unsigned nu, const uint64_t *py, unsigned npy,
			     uint64_t *out, size_t cap, unsigned *nu_out);

/* A new file: code objects are stored again (their indexes are a file's). */
void pyrec_new_file(struct pyrec *pr);

struct pyrec_stats {
	uint64_t procs;	     /* processes whose Python frames were read */
	uint64_t frames;     /* Python frames recorded */
	uint64_t codes;	     /* code objects read */
	uint64_t unread;     /* code objects that could not be read */
	uint64_t read_ns;    /* time spent reading code objects */
	uint64_t unspliced;  /* Python frames without an eval-loop frame to go under */
};
void pyrec_get_stats(const struct pyrec *pr, struct pyrec_stats *st);

/* Messages about processes zt found but does not read (an unsupported
 * version...), one a file, through the library log. */

#endif
