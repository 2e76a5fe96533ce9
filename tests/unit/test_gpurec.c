// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of record/gpurec.c, without a GPU: the options, the directory
 * the CUDA processes write into, the environment a workload inherits, and
 * the merge of a process's file (written here) into zt.data. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "cupti/wire.h"
#include "formats/ztdata.h"
#include "libprof/gpu.h"
#include "libprof/log.h"
#include "libprof/profile.h"
#include "record/gpurec.h"

static char said[5][1024];

static void capture(enum zt_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	snprintf(said[level], sizeof(said[level]), "%s", msg);
}

static int setup(void **state)
{
	(void)state;
	memset(said, 0, sizeof(said));
	zt_log_set(capture, NULL);
	/* any file stands for the library: nothing loads it here */
	setenv("ZT_CUPTI_LIB", "/proc/self/exe", 1);
	unsetenv("CUDA_INJECTION64_PATH");
	unsetenv(ZG_ENV_DIR);
	unsetenv(ZG_ENV_OPTS);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	zt_log_set(NULL, NULL);
	return 0;
}

static void test_check(void **state)
{
	struct gpurec_opts o = { 0 };

	(void)state;
	assert_int_equal(gpurec_check(&o), 0);
	o.pcs = "sometimes";
	assert_int_equal(gpurec_check(&o), -1);
	assert_string_equal(said[ZT_LOG_ERROR], "unknown --gpu-pcs mode 'sometimes': use "
						"continuous, serialized or off");
	o.pcs = "serialized";
	o.pcs_period = 4;
	assert_int_equal(gpurec_check(&o), -1);
	assert_string_equal(said[ZT_LOG_ERROR],
			    "--gpu-pcs-period 4: give 5 to 31 (a period of 2^N GPU cycles)");
	o.pcs_period = 31;
	o.stacks = "guess";
	assert_int_equal(gpurec_check(&o), -1);
	assert_string_equal(said[ZT_LOG_ERROR],
			    "unknown launch stack mode 'guess': use usdt, unwind or off");
	o.stacks = "off";
	assert_int_equal(gpurec_check(&o), 0);
}

static void test_no_library(void **state)
{
	struct gpurec_opts o = { 0 };
	struct gpurec *g = (struct gpurec *)&o;

	(void)state;
	setenv("ZT_CUPTI_LIB", "/nonexistent/libztcupti.so", 1);
	assert_int_equal(gpurec_new(&o, &g), -1);
	assert_null(g);
	assert_string_equal(said[ZT_LOG_ERROR], "--gpu: ZT_CUPTI_LIB names "
						"'/nonexistent/libztcupti.so': No such file or "
						"directory");
}

static void test_directory(void **state)
{
	struct gpurec_opts o = { .pcs = "serialized", .pcs_period = 7, .stack_rate = 50,
				 .stacks = "unwind", .verbose = true, .workload = true };
	char lib[PATH_MAX], dir[64], want[PATH_MAX + 256];
	struct gpurec *g;
	struct stat st;

	(void)state;
	assert_non_null(realpath("/proc/self/exe", lib));
	assert_int_equal(gpurec_new(&o, &g), 0);
	assert_string_equal(gpurec_lib(g), lib);
	snprintf(dir, sizeof(dir), "%s", gpurec_dir(g));
	assert_true(!strncmp(dir, "/tmp/zt-gpu.", 12));
	/* a directory of its own, not a link: writable by every user, sticky,
	 * not listable by others */
	assert_int_equal(lstat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 01733);
	assert_int_equal(st.st_uid, geteuid());

	/* a workload inherits the variables */
	gpurec_export(g);
	assert_string_equal(getenv("CUDA_INJECTION64_PATH"), lib);
	assert_string_equal(getenv(ZG_ENV_DIR), dir);
	assert_string_equal(getenv(ZG_ENV_OPTS),
			    "pcs=serialized,pcs_period=7,stack_rate=50,stacks=unwind,verbose=1");
	gpurec_free(g);
	/* removed with its files */
	assert_int_equal(lstat(dir, &st), -1);
	assert_int_equal(errno, ENOENT);

	/* -a, -p: the variables are said, not set */
	unsetenv(ZG_ENV_DIR);
	o = (struct gpurec_opts){ 0 };
	assert_int_equal(gpurec_new(&o, &g), 0);
	gpurec_export(g);
	assert_null(getenv(ZG_ENV_DIR));
	snprintf(want, sizeof(want), "export CUDA_INJECTION64_PATH=%s %s=%s %s=pcs=continuous", lib,
		 ZG_ENV_DIR, gpurec_dir(g), ZG_ENV_OPTS);
	assert_non_null(strstr(said[ZT_LOG_WARN], want));
	gpurec_free(g);
}

/* The file libztcupti.so writes: a header and one frame of one kernel. */
static void write_zg(const char *path, uint32_t pid, const char *kname)
{
	struct zg_file_hdr h = { .version = ZG_VERSION, .hdr_size = sizeof(h), .pid = pid };
	struct {
		struct zg_kernel k;
		char pool[32];
	} pl = { .k = { .start = 1000, .end = 2500, .corr = 9, .grid = { 4, 1, 1 },
			.block = { 128, 1, 1 }, .name_len = (uint32_t)strlen(kname) } };
	size_t len = sizeof(pl.k) + strlen(kname);
	struct zg_frame_hdr f = { ZG_KERNEL, (uint32_t)len, 0, 1 };
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	memcpy(h.magic, ZG_MAGIC, sizeof(h.magic));
	memcpy(pl.pool, kname, strlen(kname));
	f.crc = (uint32_t)crc32(0, (const Bytef *)&pl, (uInt)len);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, &h, sizeof(h)), sizeof(h));
	assert_int_equal(write(fd, &f, sizeof(f)), sizeof(f));
	assert_int_equal(write(fd, &pl, len), (ssize_t)len);
	close(fd);
}

static void test_poll(void **state)
{
	struct gpurec_opts o = { .workload = true };
	char out[] = "/tmp/zt-test-gpurec.XXXXXX", secret[] = "/tmp/zt-test-gpusecret.XXXXXX";
	char path[PATH_MAX];
	struct ztdata_writer *w;
	struct profile p;
	struct gpurec *g;
	struct stat st;
	int fd, sfd;

	(void)state;
	assert_int_equal(gpurec_new(&o, &g), 0);
	fd = mkstemp(out);
	assert_true(fd >= 0);
	w = ztdata_writer_new(fd);
	assert_non_null(w);

	/* a link planted in the directory is neither read nor followed when
	 * the directory is cleaned */
	sfd = mkstemp(secret);
	assert_true(sfd >= 0);
	assert_int_equal(write(sfd, "keep", 4), 4);
	close(sfd);
	snprintf(path, sizeof(path), "%s/gpu-%d-2.zg", gpurec_dir(g), (int)getpid());
	assert_int_equal(symlink(secret, path), 0);

	snprintf(path, sizeof(path), "%s/gpu-%d-1.zg", gpurec_dir(g), (int)getpid());
	write_zg(path, (uint32_t)getpid(), "_Z6vecaddPfS_");
	assert_int_equal(gpurec_poll(g, w), 0);
	assert_non_null(strstr(said[ZT_LOG_WARN], "-2.zg' not read"));
	/* nothing new: nothing more */
	assert_int_equal(gpurec_poll(g, w), 0);
	gpurec_summary(g);
	assert_string_equal(said[ZT_LOG_WARN],
			    "GPU: 1 process, 1 kernels, 0 launches (0 with stacks), 0 memory copies "
			    "and sets, 0 PC samples, 0 cubins");
	assert_int_equal(ztdata_writer_finish(w), 0);
	ztdata_writer_free(w);
	close(fd);
	gpurec_free(g);
	assert_int_equal(stat(secret, &st), 0);
	assert_int_equal(st.st_size, 4);
	unlink(secret);

	profile_init(&p);
	assert_int_equal(ztdata_read_file(out, &p, NULL), 0);
	assert_non_null(p.gpu);
	assert_int_equal(p.gpu->nr_kernels, 1);
	assert_int_equal(p.gpu->kernels[0].pid, getpid());
	assert_int_equal(p.gpu->kernels[0].start, 1000);
	assert_int_equal(p.gpu->kernels[0].end, 2500);
	assert_int_equal(p.gpu->kernels[0].grid[0], 4);
	assert_int_equal(p.gpu->kernels[0].block[0], 128);
	assert_string_equal(prof_gpu_str(p.gpu, p.gpu->kernels[0].name), "_Z6vecaddPfS_");
	profile_release(&p);
	unlink(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_library, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_poll, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
