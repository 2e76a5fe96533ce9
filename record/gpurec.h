/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt record --gpu: the recorder's side of the GPU capture. It finds
 * libztcupti.so, makes the directory the CUDA processes write their files
 * into (cupti/wire.h), puts CUDA_INJECTION64_PATH, ZT_GPU_DIR and
 * ZT_GPU_OPTS into the environment a workload inherits (or prints them for
 * -a and -p), merges the processes' records into zt.data as they arrive,
 * and takes the kernel launches zt's BPF sampler saw at the USDT probe.
 * Messages go through libprof/log.h (zt_error, zt_warn), which cmd/ prints.
 */
#ifndef ZT_RECORD_GPUREC_H
#define ZT_RECORD_GPUREC_H

#include <stdbool.h>
#include <stdint.h>

struct ztdata_writer;
struct gpurec;

struct gpurec_opts {
	const char *pcs;       /* PC sampling: continuous, serialized or off (NULL: continuous) */
	int pcs_period;        /* 2^N cycles, 5..31; 0: CUPTI's default */
	int stack_rate;        /* launch stacks per second per thread; 0: the library's default */
	const char *stacks;    /* launch stacks: usdt, unwind or off (NULL: usdt when the BPF
				  sampler attaches to the probe, else unwind) */
	const char *extra;     /* --gpu-opts: more of the library's options (key=N,...):
				  pcs_hwbuf_mb, pcs_scratch_mb, pcs_sleep_ms, mem_mb, flush_ms */
	bool verbose;          /* -v: the library says what it does on the program's stderr */
	bool workload;         /* zt record runs the command: the variables go into its
				  environment; else they are printed for the user to export */
};

/* Check the options: 0, or -1 after a message (a usage error). */
int gpurec_check(const struct gpurec_opts *o);
/* Find the library, make the directory, check the options and the
 * environment. Returns 0, or -1 after a message. */
int gpurec_new(const struct gpurec_opts *o, struct gpurec **out);
void gpurec_free(struct gpurec *g); /* removes the directory and its files */

/* The library's absolute path (for sampler_attach_launches). */
const char *gpurec_lib(const struct gpurec *g);
/* The directory the CUDA processes write their files into (ZT_GPU_DIR). */
const char *gpurec_dir(const struct gpurec *g);
/* The BPF sampler attached to the library's launch probe (or could not, err < 0). */
void gpurec_usdt(struct gpurec *g, int err);
/* Set the variables in this process's environment (before the workload is
 * forked), or print them for -a and -p. */
void gpurec_export(struct gpurec *g);

/* A launch the BPF sampler saw at the probe: ips are the thread's user
 * frames, leaf first. */
void gpurec_launch(struct gpurec *g, struct ztdata_writer *w, uint64_t ts, uint32_t pid,
		   uint32_t tid, uint64_t arg, const uint64_t *ips, unsigned nu);
/* Merge what the processes wrote since the last call into w. Returns 0 or
 * the writer's negative errno. */
int gpurec_poll(struct gpurec *g, struct ztdata_writer *w);
/* After the last poll: what was recorded, and what went wrong, said once. */
void gpurec_summary(const struct gpurec *g);

#endif
