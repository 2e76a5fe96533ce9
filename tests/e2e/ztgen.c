/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Crafted zt.data worst cases for tests/e2e/t_badinput.sh, written with the
 * project's own writer: many processes, many mappings in one process, many
 * distinct stacks. Usage: ztgen pids|maps|stacks N OUT
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/ztdata.h"

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

int main(int argc, char **argv)
{
	struct ztdata_writer *w;
	unsigned long n;
	int fd, ret;

	if (argc != 4 || (n = strtoul(argv[2], NULL, 0)) == 0 || n > 100000000) {
		fprintf(stderr, "usage: ztgen pids|maps|stacks N OUT\n");
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
