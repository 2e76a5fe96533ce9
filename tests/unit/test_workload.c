// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of record/workload.c: a command held until started, its exec
 * failure reported, its output sent to standard error on request. */
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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/workload.h"

static void test_held_then_run(void **state)
{
	char dir[] = "/tmp/zt-test-workload.XXXXXX", mark[64];
	char *argv[] = { "touch", mark, NULL };
	struct workload wl;
	struct stat st;
	int status;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(mark, sizeof(mark), "%s/ran", dir);
	assert_int_equal(workload_prepare(&wl, argv, false), 0);
	assert_true(wl.pid > 0);
	/* held: it has not run yet */
	usleep(50000);
	assert_int_equal(waitpid(wl.pid, &status, WNOHANG), 0);
	assert_int_equal(stat(mark, &st), -1);
	assert_int_equal(workload_start(&wl), 0);
	assert_int_equal(wl.go_fd, -1);
	assert_int_equal(wl.err_fd, -1);
	assert_int_equal(waitpid(wl.pid, &status, 0), wl.pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(stat(mark, &st), 0);
	unlink(mark);
	rmdir(dir);
}

static void test_exec_fails(void **state)
{
	char *argv[] = { "/nonexistent/command", NULL };
	struct workload wl;
	int status;

	(void)state;
	assert_int_equal(workload_prepare(&wl, argv, false), 0);
	assert_int_equal(workload_start(&wl), -ENOENT);
	assert_int_equal(waitpid(wl.pid, &status, 0), wl.pid);
	assert_int_equal(WEXITSTATUS(status), 127);
}

/* to_stderr: what the command writes on standard output arrives on
 * standard error (the recording is on standard output). */
static void test_to_stderr(void **state)
{
	char *argv[] = { "echo", "hello", NULL };
	char buf[16] = "";
	struct workload wl;
	int p[2], saved, status;

	(void)state;
	assert_int_equal(pipe(p), 0);
	saved = dup(STDERR_FILENO);
	dup2(p[1], STDERR_FILENO);
	assert_int_equal(workload_prepare(&wl, argv, true), 0);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(p[1]);
	assert_int_equal(workload_start(&wl), 0);
	assert_int_equal(waitpid(wl.pid, &status, 0), wl.pid);
	assert_int_equal(read(p[0], buf, sizeof(buf) - 1), 6);
	assert_string_equal(buf, "hello\n");
	close(p[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_then_run),
		cmocka_unit_test(test_exec_fails),
		cmocka_unit_test(test_to_stderr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
