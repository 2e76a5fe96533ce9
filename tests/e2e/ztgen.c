/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Crafted zt.data worst cases for tests/e2e/t_badinput.sh, written with the
 * project's own writer: many processes, many mappings in one process, many
 * distinct stacks. Usage: ztgen pids|maps|stacks N OUT
 *
 * And realistic recordings for zt serve's load tests and benchmark (a fleet
 * of hosts running the same programs): ztgen fleet SEED OUT [SAMPLES]
 * writes a system-wide recording of 2 CPUs at 4 kHz (SAMPLES, default
 * 80000: 10 s), host and program chosen by SEED, stacks drawn (skewed) from
 * one pool of 4000 over 12 libraries with fixed build ids and a kernel with
 * its kallsyms lines; every SEED gives different bytes. ztgen fleet-syms N DIR
 * writes the symbols of those libraries (and of N programs) as GSYM files
 * DIR/<build id>.gsym: 2048 functions of 64 bytes each from vaddr 0x1000,
 * with a line row each; file offsets are vaddrs (load segment 0:0:200000).
 *
 * And a zt record --gpu recording with synthetic GPU records, for zt
 * script's tests: ztgen gpu N OUT [EXE OFF...] (see gen_gpu()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/ztdata.h"
#include "libprof/gpu.h"
#include "symbolizer/funcinfo.h"
#include "symbolizer/gsym.h"

#define T0 1000000000ull /* the recording's start, ns */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int comm(struct ztdata_writer *w, uint32_t pid)
{
	struct prof_task t = {.ts = T0, .kind = PROF_TASK_COMM, .pid = pid, .tid = pid};

	snprintf(t.comm, sizeof(t.comm), "p%u", pid);
	return ztdata_write_task(w, &t);
}

/* n processes, one sample each, its one user frame in no mapping */
static int gen_pids(struct ztdata_writer *w, uint32_t n)
{
	uint64_t ip = 0x1234;
	uint32_t i;
	int ret = 0;

	for (i = 1; i <= n && !ret; i++) {
		if (i % 1000 == 0)
			ret = comm(w, i);
		if (!ret)
			ret = ztdata_write_sample(w, T0 + i, 1, i, i, 0, &ip, 0, 1);
		if (!ret && ztdata_writer_pending(w) > (64u << 20))
			ret = ztdata_writer_flush(w);
	}
	return ret;
}

/* one process with n mappings (of files that do not exist), a sample in each */
static int gen_maps(struct ztdata_writer *w, uint32_t n)
{
	char path[64];
	uint32_t i;
	int ret = comm(w, 100);

	for (i = 0; i < n && !ret; i++) {
		struct prof_mmap m = {.ts = T0,
				      .pid = 100,
				      .tid = 100,
				      .start = 0x10000000ull + (uint64_t)i * 0x2000,
				      .len = 0x1000,
				      .prot = 5,
				      .path = path};

		snprintf(path, sizeof(path), "/nonexistent/zt-badinput/lib%u.so", i % 1000);
		ret = ztdata_write_mmap(w, &m);
	}
	for (i = 0; i < n && !ret; i++) {
		uint64_t ips[2] = {0x10000000ull + (uint64_t)i * 0x2000 + 0x10,
				   0x10000000ull + (uint64_t)(next_rand() % n) * 0x2000 + 0x20};

		ret = ztdata_write_sample(w, T0 + 1 + i, 1, 100, 100, 0, ips, 0, 2);
	}
	return ret;
}

/* one process, one mapping, n distinct stacks 8 frames deep */
static int gen_stacks(struct ztdata_writer *w, uint32_t n)
{
	struct prof_mmap m = {.ts = T0,
			      .pid = 100,
			      .tid = 100,
			      .start = 0x400000,
			      .len = 1 << 24,
			      .prot = 5,
			      .path = "/nonexistent/zt-badinput/app"};
	uint32_t i;
	int ret = comm(w, 100);

	if (!ret)
		ret = ztdata_write_mmap(w, &m);
	for (i = 0; i < n && !ret; i++) {
		uint64_t ips[8];
		unsigned k;

		/* a leaf of its own per stack, callers from a small set */
		ips[0] = 0x400000 + (i & 0xffffff);
		for (k = 1; k < 8; k++)
			ips[k] = 0x400000 + (next_rand() % 4096) * 16;
		ret = ztdata_write_sample(w, T0 + 1 + i, 1, 100, 100, 0, ips, 0, 8);
		if (!ret && ztdata_writer_pending(w) > (64u << 20))
			ret = ztdata_writer_flush(w);
	}
	return ret;
}

/* ---- fleet ---------------------------------------------------------------- */

#define FLEET_LIBS 12
#define FLEET_PROCS 6
#define FLEET_STACKS 4000
#define FLEET_KSYMS 64
#define FLEET_KBASE 0xffffffff81000000ull

static const char *const fleet_lib[FLEET_LIBS] = {
	"/opt/fleet/bin/app", "/opt/fleet/lib/libc.so.6",
	"/opt/fleet/lib/libm.so.6", "/opt/fleet/lib/libstdc++.so.6",
	"/opt/fleet/lib/libssl.so.3", "/opt/fleet/lib/libcrypto.so.3",
	"/opt/fleet/lib/libz.so.1", "/opt/fleet/lib/libzstd.so.1",
	"/opt/fleet/lib/libsqlite3.so.0", "/opt/fleet/lib/libpython3.11.so",
	"/opt/fleet/lib/libgcc_s.so.1", "/opt/fleet/lib/libpthread.so.0",
};

static uint64_t fleet_lib_start(unsigned lib)
{
	return 0x7f0000000000ull + (uint64_t)lib * 0x10000000ull;
}

/* fixed per library (and, for the program, lib 0, per program) */
static void fleet_build_id(unsigned lib, unsigned prog, struct prof_build_id *b)
{
	unsigned k;

	b->len = 20;
	for (k = 0; k < 20; k++)
		b->data[k] = (uint8_t)(0x11 * (lib + 1) + k * 7 + (lib ? 0 : prog));
}

static int fleet_syms(unsigned nprogs, const char *dir)
{
	unsigned lib, prog, j;
	int ret = 0;

	for (lib = 0; lib < FLEET_LIBS && !ret; lib++) {
		for (prog = 0; prog < (lib ? 1 : nprogs) && !ret; prog++) {
			struct prof_build_id b;
			struct fi_table t;
			char path[4096], hex[2 * ZT_BUILD_ID_MAX + 1], name[64];
			const char *base = strrchr(fleet_lib[lib], '/') + 1;
			uint32_t file;

			fleet_build_id(lib, prog, &b);
			fi_table_init(&t);
			memcpy(t.uuid, b.data, b.len);
			t.uuid_len = b.len;
			snprintf(name, sizeof(name), "%s.c", base);
			file = fi_file(&t, "/src/fleet", name);
			for (j = 0; j < 2048 && !ret; j++) {
				struct fi_func *f;

				snprintf(name, sizeof(name), "%s_fn%u", lib ? base : "app", j);
				f = fi_add_func(&t, 0x1000 + j * 0x40ull, 0x40, fi_str(&t, name));
				if (!f || fi_add_line(f, 0x1000 + j * 0x40ull, file, 10 + j))
					ret = -ENOMEM;
			}
			if (!ret)
				ret = fi_finish(&t);
			snprintf(path, sizeof(path), "%s/%s.gsym", dir, prof_build_id_hex(&b, hex));
			if (!ret)
				ret = gsym_write_file(&t, path);
			fi_table_release(&t);
		}
	}
	return ret;
}

static int fleet(struct ztdata_writer *w, unsigned seed, unsigned long nsamples)
{
	static uint64_t pool[FLEET_STACKS][40];
	static unsigned nk[FLEET_STACKS], nu[FLEET_STACKS];
	char buf[256], *ks = NULL;
	size_t kslen = 0;
	FILE *f;
	unsigned i, k, p;
	unsigned long s;
	int ret = 0;

	/* the same pool for every seed: the fleet runs the same code */
	rng = 0x2545f4914f6cdd1dull;
	for (i = 0; i < FLEET_STACKS; i++) {
		nk[i] = next_rand() % 4 == 0 ? 1 + next_rand() % 6 : 0;
		nu[i] = 3 + next_rand() % 30;
		for (k = 0; k < nk[i]; k++)
			pool[i][k] = FLEET_KBASE + (next_rand() % FLEET_KSYMS) * 0x1000 + 0x10 +
				     next_rand() % 0x100;
		for (k = 0; k < nu[i]; k++) {
			unsigned lib = k == nu[i] - 1 ? 0 : (unsigned)(next_rand() % FLEET_LIBS);

			pool[i][nk[i] + k] = fleet_lib_start(lib) + 0x1000 + (next_rand() % 2048) * 0x40 +
					     next_rand() % 0x40;
		}
	}
	rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed * 0x100000001b3ull);
	snprintf(buf, sizeof(buf), "host%02u", seed % 10);
	ret = ztdata_write_meta(w, "hostname", buf);
	snprintf(buf, sizeof(buf), "zt record -a -g -F 4000 -- app%u --serve", seed % 5);
	if (!ret)
		ret = ztdata_write_meta(w, "cmdline", buf);
	if (!ret)
		ret = ztdata_write_meta(w, "nr_cpus", "2");
	if (!ret)
		ret = ztdata_write_meta(w, "freq", "4000");
	snprintf(buf, sizeof(buf), "%llu", 1000000000ull + nsamples / 2 * 250000ull);
	if (!ret)
		ret = ztdata_write_meta(w, "time_end", buf);
	snprintf(buf, sizeof(buf), "%u", 1763000000u + seed * 60u);
	if (!ret)
		ret = ztdata_write_meta(w, "wallclock_start", buf);
	/* the kernel symbols the samples need */
	f = open_memstream(&ks, &kslen);
	if (!f)
		return -ENOMEM;
	for (i = 0; i < FLEET_KSYMS; i++)
		fprintf(f, "%llx T kfunc_%u\n", (unsigned long long)(FLEET_KBASE + i * 0x1000ull), i);
	if (fclose(f))
		return -ENOMEM;
	if (!ret)
		ret = ztdata_write_blob(w, PROF_BLOB_KALLSYMS, ZT_PID_KERNEL, T0, ks, kslen);
	free(ks);
	for (p = 0; p < FLEET_PROCS && !ret; p++) {
		uint32_t pid = 1000 + p;
		struct prof_task t = {.ts = T0, .kind = PROF_TASK_COMM, .pid = pid, .tid = pid};

		snprintf(t.comm, sizeof(t.comm), p ? "worker-%u" : "app%u", p ? p : seed % 5);
		ret = ztdata_write_task(w, &t);
		for (i = 0; i < FLEET_LIBS && !ret; i++) {
			struct prof_mmap m = {.ts = T0, .pid = pid, .tid = pid,
					      .start = fleet_lib_start(i), .len = 0x200000,
					      .pgoff = 0, .prot = 5, .path = (char *)fleet_lib[i]};

			if (!i) {
				snprintf(buf, sizeof(buf), "/opt/fleet/bin/app%u", seed % 5);
				m.path = buf;
			}
			fleet_build_id(i, seed % 5, &m.build_id);
			ret = ztdata_write_mmap(w, &m);
		}
	}
	for (s = 0; s < nsamples && !ret; s++) {
		/* skewed: a few hot stacks, a long tail */
		uint64_t a = next_rand() % FLEET_STACKS, b = next_rand() % FLEET_STACKS;
		unsigned id = (unsigned)(a * b / FLEET_STACKS);
		uint32_t pid = 1000 + id % FLEET_PROCS;

		ret = ztdata_write_sample(w, T0 + s / 2 * 250000ull + s % 2, 250000, pid, pid,
					  (uint32_t)(s % 2), pool[id], nk[id], nu[id]);
		if (!ret && ztdata_writer_pending(w) > (16u << 20))
			ret = ztdata_writer_flush(w);
	}
	return ret;
}

/* ---- gpu ------------------------------------------------------------------ */

#define GPU_BASE 0x555555554000ull /* where EXE is mapped (file offset 0) */
#define GPU_PID 4242		   /* "trainer": thread 4243 ("launcher") launches */
#define GPU_PID2 4343		   /* "infer": kernels without launches, lost records */
#define GPU_CRC 0x1234abcd5678ef01ull

static const char *const gpu_names[4] = { "_Z10matmul_f32PKfS0_Pfi",
					  "_ZN5torch6native11relu_kernelIfEEvPT_i",
					  "_Z11softmax_fwdPfi", "vector_add" };

static int gpu_task(struct ztdata_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
	struct prof_task t = {.ts = T0, .kind = PROF_TASK_COMM, .pid = pid, .tid = tid};

	snprintf(t.comm, sizeof(t.comm), "%s", name);
	return ztdata_write_task(w, &t);
}

/* A kernel of pid: names[name], starting at start, lasting dur. */
static int gpu_kernel(struct prof_gpu *g, uint32_t pid, unsigned name, uint64_t start,
		      uint64_t dur, uint32_t corr, uint32_t graph)
{
	struct prof_gpu_kernel k = {.start = start, .end = start + dur, .pid = pid, .corr = corr,
				    .device = 0, .context = 1, .stream = 7 + name % 2,
				    .graph_id = graph, .graph_node_id = graph ? 3 : 0,
				    .grid = {256u << name, 1, 1}, .block = {128, 1, 1},
				    .regs = 32 + 8 * name, .smem_static = 0,
				    .smem_dynamic = 1024 * name};
	int ret = prof_gpu_intern(g, gpu_names[name], strlen(gpu_names[name]), &k.name);

	return ret ? ret : prof_gpu_add_kernel(g, &k);
}

static int gpu_launch(struct prof_gpu *g, struct profile *st, uint64_t ts, uint32_t corr,
		      uint32_t flags, uint32_t outer, const uint64_t *ips, unsigned n)
{
	struct prof_gpu_launch l = {.ts = ts, .pid = GPU_PID, .tid = GPU_PID + 1, .corr = corr,
				    .outer_corr = outer, .cbid = 211, .domain = outer ? 1 : 2,
				    .flags = flags, .stack = PROF_GPU_NO_STACK};
	int ret = 0;

	if (flags & PROF_GPU_L_GRAPH)
		l.graph_id = 9;
	if (ips && (ret = profile_intern_stack(st, ips, 0, n, &l.stack)))
		return ret;
	return prof_gpu_add_launch(g, &l);
}

/* Records of no time: stall tables, a cubin, PC samples (every batch adds
 * to the same buckets), counters, info strings. */
static int gpu_untimed(struct prof_gpu *g, int last)
{
	static const char *const stalls[] = {"long_scoreboard", "barrier", "not_selected",
					     "selected"};
	uint8_t cubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
	unsigned i, f, pc;
	int ret = 0;

	for (i = 0; i < 4 && !ret; i++) {
		struct prof_gpu_stall s = {.pid = GPU_PID, .context = 1, .index = i};

		ret = prof_gpu_intern(g, stalls[i], strlen(stalls[i]), &s.name);
		if (!ret)
			ret = prof_gpu_add_stall(g, &s);
	}
	if (!ret)
		ret = prof_gpu_add_cubin(g, GPU_CRC, GPU_PID, 3, 1, cubin, sizeof(cubin));
	for (f = 0; f < 2 && !ret; f++) {
		for (pc = 0; pc < 10 && !ret; pc++) {
			struct prof_gpu_pcs s = {.cubin_crc = GPU_CRC, .pc_offset = pc * 16,
						 .samples = 1 + pc % 3, .pid = GPU_PID, .context = 1,
						 .function_index = f, .stall = pc % 2 ? 0 : 3 - f};

			ret = prof_gpu_intern(g, gpu_names[f], strlen(gpu_names[f]), &s.function);
			if (!ret)
				ret = prof_gpu_add_pcs(g, &s);
		}
	}
	if (!ret && last) {
		struct prof_gpu_counters c = {.pid = GPU_PID, .launches = 0, .cubins = 1};
		struct prof_gpu_counters c2 = {.pid = GPU_PID2, .dropped_records = 5};
		struct prof_gpu_overhead o = {.start = T0 + 50000, .end = T0 + 51000, .pid = GPU_PID,
					      .kind = 1u << 16, .object_kind = 2,
					      .object_id = {GPU_PID, GPU_PID + 1}};

		ret = prof_gpu_set_counters(g, &c);
		if (!ret)
			ret = prof_gpu_set_counters(g, &c2);
		if (!ret)
			ret = prof_gpu_add_overhead(g, &o);
		if (!ret)
			ret = prof_gpu_add_info(g, GPU_PID, "cupti_version", "23");
		if (!ret)
			ret = prof_gpu_add_info(g, GPU_PID2, "warning",
						"PC sampling is not supported on this device");
	}
	return ret;
}

/*
 * Process GPU_PID ("trainer") runs n steps of 1 ms on thread 4243: a CPU
 * sample in main <- step <- leaf, and the launch of kernel i % 4 (with
 * its stack: the EXE offsets given, leaf first, or three made-up ones)
 * which runs 20 us later for 300 us and more. Every 10th launch has no
 * stack (over the rate), every 10th + 5 one from the BPF sampler
 * (USDT), every 10th + 7 is a runtime launch whose stack is its nested
 * driver launch's; a graph launch (graph 9) is followed by two kernels of
 * the graph. Copies to the GPU first, a memset, a copy back last; PC
 * samples of the first two kernels in every batch of 100 steps (summed
 * by zt script); GPU_PID2 ("infer") has three kernels of no launch.
 */
static int gen_gpu(struct ztdata_writer *w, uint32_t n, const char *exe, char **offs, int noffs)
{
	struct prof_mmap m = {.ts = T0, .pid = GPU_PID, .tid = GPU_PID, .start = GPU_BASE,
			      .len = 0x200000, .prot = 5,
			      .path = (char *)(exe ? exe : "/nonexistent/zt-gpu/trainer")};
	uint64_t ips[16] = {GPU_BASE + 0x1100, GPU_BASE + 0x1200, GPU_BASE + 0x1300};
	unsigned nips = 3, i;
	struct prof_gpu *g = prof_gpu_new();
	struct profile st;
	int ret;

	if (!g)
		return -ENOMEM;
	profile_init(&st);
	for (i = 0; exe && (int)i < noffs && i < 16; i++)
		ips[i] = GPU_BASE + strtoull(offs[i], NULL, 16);
	if (exe && noffs)
		nips = i;
	ret = gpu_task(w, GPU_PID, GPU_PID, "trainer");
	if (!ret)
		ret = gpu_task(w, GPU_PID, GPU_PID + 1, "launcher");
	if (!ret)
		ret = gpu_task(w, GPU_PID2, GPU_PID2, "infer");
	if (!ret)
		ret = ztdata_write_mmap(w, &m);
	for (i = 0; i < 3 && !ret; i++) {
		struct prof_gpu_memop c = {.start = T0 + 1000 + i * 10000, .bytes = 1u << 20,
					   .pid = GPU_PID, .corr = 100000 + i, .context = 1,
					   .stream = 7, .kind = PROF_GPU_MEMCPY, .copy_kind = 1,
					   .src_kind = i ? 2 : 1, .dst_kind = 3};

		c.end = c.start + 100000; /* 10.49 GB/s */
		ret = prof_gpu_add_memop(g, &c);
	}
	for (i = 0; i < n && !ret; i++) {
		uint64_t t = T0 + 100000 + (uint64_t)i * 1000000, ts = t + 100000;
		uint32_t corr = 2 * i + 1;

		ret = ztdata_write_sample(w, t, 1000000, GPU_PID, GPU_PID + 1, 0, ips, 0, nips);
		if (ret)
			break;
		if (i % 10 == 0) {
			ret = gpu_launch(g, &st, ts, corr, PROF_GPU_L_RATELIMITED, 0, NULL, 0);
		} else if (i % 10 == 5) {
			struct prof_gpu_launch l = {.ts = ts, .pid = GPU_PID, .tid = GPU_PID + 1,
						    .corr = corr, .cbid = 211, .domain = 2,
						    .flags = PROF_GPU_L_USDT};

			ret = ztdata_write_gpu_launch(w, &l, ips, 0, nips);
		} else if (i % 10 == 7) {
			ret = gpu_launch(g, &st, ts, corr, 0, 0, NULL, 0);
			if (!ret)
				ret = gpu_launch(g, &st, ts + 10, 1000000 + corr,
						 PROF_GPU_L_STACK | PROF_GPU_L_NESTED, corr, ips, nips);
		} else {
			ret = gpu_launch(g, &st, ts, corr, PROF_GPU_L_STACK, 0, ips, nips);
		}
		if (!ret)
			ret = gpu_kernel(g, GPU_PID, i % 4, ts + 20000, 300000 + 50000 * (i % 4),
					 corr, 0);
		if (!ret && i == n / 2) {
			ret = gpu_launch(g, &st, ts + 500000, 5000000, PROF_GPU_L_STACK |
					 PROF_GPU_L_GRAPH, 0, ips, nips);
			if (!ret)
				ret = gpu_kernel(g, GPU_PID, 2, ts + 600000, 10000, 0, 9);
			if (!ret)
				ret = gpu_kernel(g, GPU_PID, 3, ts + 620000, 10000, 0, 9);
		}
		if (!ret && i < 3)
			ret = gpu_kernel(g, GPU_PID2, 3, t + 50000, 5000, 7 + i, 0);
		if (!ret && i % 100 == 99) {
			ret = gpu_untimed(g, 0);
			if (!ret)
				ret = ztdata_write_gpu(w, g, &st);
			if (!ret)
				ret = ztdata_writer_flush(w);
			prof_gpu_clear(g);
		}
	}
	if (!ret) {
		struct prof_gpu_memop s = {.start = T0 + 100000 + (uint64_t)n * 1000000,
					   .bytes = 4096, .pid = GPU_PID, .corr = 200000,
					   .context = 1, .stream = 7, .value = 0,
					   .kind = PROF_GPU_MEMSET, .dst_kind = 3};
		struct prof_gpu_memop c = s;

		s.end = s.start + 2000;
		c.kind = PROF_GPU_MEMCPY;
		c.corr++;
		c.copy_kind = 2;
		c.src_kind = 3;
		c.dst_kind = 1;
		c.bytes = 1u << 20;
		c.start = s.end + 1000;
		c.end = c.start + 200000;
		ret = prof_gpu_add_memop(g, &s);
		if (!ret)
			ret = prof_gpu_add_memop(g, &c);
	}
	if (!ret)
		ret = gpu_untimed(g, 1);
	if (!ret)
		ret = ztdata_write_gpu(w, g, &st);
	prof_gpu_free(g);
	profile_release(&st);
	return ret;
}

int main(int argc, char **argv)
{
	struct ztdata_writer *w;
	unsigned long n;
	int fd, ret;

	if (argc == 4 && !strcmp(argv[1], "fleet-syms")) {
		ret = fleet_syms((unsigned)strtoul(argv[2], NULL, 0), argv[3]);
		if (ret)
			fprintf(stderr, "ztgen: cannot write symbols to '%s': %s\n", argv[3], strerror(-ret));
		return ret ? 1 : 0;
	}

	if ((argc != 4 && !(argc == 5 && !strcmp(argv[1], "fleet")) &&
	     !(argc > 4 && !strcmp(argv[1], "gpu"))) ||
	    (n = strtoul(argv[2], NULL, 0)) == 0 || n > 100000000) {
		fprintf(stderr, "usage: ztgen pids|maps|stacks N OUT, ztgen fleet SEED OUT [SAMPLES], "
				"ztgen gpu N OUT [EXE OFF...]\n");
		return 2;
	}
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !(w = ztdata_writer_new(fd))) {
		fprintf(stderr, "ztgen: cannot create '%s': %s\n", argv[3], strerror(errno));
		return 1;
	}
	ret = ztdata_write_meta(w, "time_start", "1000000000");
	if (!ret)
		ret = ztdata_write_meta(w, "event", "cpu-clock");
	if (!ret)
		ret = ztdata_write_meta(w, "callchain", "fp");
	if (!ret && !strcmp(argv[1], "pids"))
		ret = gen_pids(w, (uint32_t)n);
	else if (!ret && !strcmp(argv[1], "maps"))
		ret = gen_maps(w, (uint32_t)n);
	else if (!ret && !strcmp(argv[1], "stacks"))
		ret = gen_stacks(w, (uint32_t)n);
	else if (!ret && !strcmp(argv[1], "gpu"))
		ret = gen_gpu(w, (uint32_t)n, argc > 4 ? argv[4] : NULL, argv + 5, argc > 5 ? argc - 5 : 0);
	else if (!ret && !strcmp(argv[1], "fleet"))
		ret = fleet(w, (unsigned)n, argc == 5 ? strtoul(argv[4], NULL, 0) : 80000);
	else if (!ret)
		ret = -EINVAL;
	if (!ret)
		ret = ztdata_writer_finish(w);
	ztdata_writer_free(w);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret) {
		fprintf(stderr, "ztgen: cannot write '%s': %s\n", argv[3], strerror(-ret));
		return 1;
	}
	return 0;
}
