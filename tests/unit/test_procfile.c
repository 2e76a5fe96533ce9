/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procfile: files opened as root for a profiled process are refused when a
 * link is on the way, when another user owns them, when hard-linked, when
 * not regular (a FIFO must not block), when too large; found inside the
 * process's root.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/testutil.h"

#include "libprof/procfile.h"

static char dir[] = "/tmp/zt-test-procfile.XXXXXX";

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	run("rm -rf %s", dir);
	return 0;
}

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

static void write_file(const char *name, const char *text)
{
	char p[256];
	FILE *f;

	path_of(p, sizeof(p), name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_owner(void **state)
{
	struct procfile_owner o;

	assert_int_equal(procfile_owner_init(&o, (uint32_t)getpid()), 0);
	assert_int_equal(o.pid, (uint32_t)getpid());
	assert_int_equal(o.nspid, (uint32_t)getpid()); /* no pid namespace of its own */
	assert_true(procfile_owned(&o, getuid()));
	assert_true(procfile_owned(&o, 0));
	assert_int_equal(procfile_owner_init(&o, 0x7ffffff0u), -ENOENT);
}

static void test_rules(void **state)
{
	struct procfile_owner o;
	struct stat st;
	char p[256], q[256], *d;
	size_t len;
	int fd;

	assert_int_equal(procfile_owner_init(&o, (uint32_t)getpid()), 0);
	write_file("map", "1000 10 fn\n");
	path_of(p, sizeof(p), "map");
	/* a plain file of the process's user: read */
	assert_int_equal(procfile_read(&o, p, PROCFILE_MAX, &d, &len), 0);
	assert_int_equal(len, 11);
	assert_memory_equal(d, "1000 10 fn\n", 11);
	free(d);
	/* a link as the last component, or on the way */
	path_of(q, sizeof(q), "link");
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(procfile_open(&o, q, PROCFILE_MAX, &st), -ELOOP);
	path_of(q, sizeof(q), "dirlink");
	assert_int_equal(symlink(dir, q), 0);
	path_of(q, sizeof(q), "dirlink/map");
	assert_int_equal(procfile_open(&o, q, PROCFILE_MAX, &st), -ELOOP);
	/* a second hard link */
	path_of(q, sizeof(q), "hard");
	assert_int_equal(link(p, q), 0);
	assert_int_equal(procfile_open(&o, p, PROCFILE_MAX, &st), -EINVAL);
	unlink(q);
	/* too large */
	assert_int_equal(procfile_open(&o, p, 5, &st), -EFBIG);
	/* a FIFO: refused, without waiting for a writer */
	path_of(q, sizeof(q), "fifo");
	assert_int_equal(mkfifo(q, 0600), 0);
	assert_int_equal(procfile_open(&o, q, PROCFILE_MAX, &st), -EINVAL);
	/* a directory */
	assert_int_equal(procfile_open(&o, dir, PROCFILE_MAX, &st), -EINVAL);
	/* missing; relative */
	path_of(q, sizeof(q), "none");
	assert_int_equal(procfile_open(&o, q, PROCFILE_MAX, &st), -ENOENT);
	assert_int_equal(procfile_open(&o, "map", PROCFILE_MAX, &st), -EINVAL);
	/* owned by another user than the process's or root */
	if (geteuid() == 0) {
		assert_int_equal(chown(p, 12345, 12345), 0);
		assert_int_equal(procfile_open(&o, p, PROCFILE_MAX, &st), -EPERM);
		assert_int_equal(chown(p, 0, 0), 0);
	}
	fd = procfile_open(&o, p, PROCFILE_MAX, &st);
	assert_true(fd >= 0);
	assert_int_equal(procfile_check(&o, fd, PROCFILE_MAX, &st), 0);
	close(fd);
	assert_string_equal(procfile_why(-ELOOP), "a symbolic link (not followed)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_rules),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
