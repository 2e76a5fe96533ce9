/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the agent's queue: the byte bound, the oldest dropped first, the order, the spool.
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

#include "net/agentq.h"

/* A piece of n bytes, each the value v. */
static int add(struct agentq *q, size_t n, int v, uint64_t samples, struct agentq_drop *d)
{
	unsigned char buf[4096];

	assert_true(n <= sizeof(buf));
	memset(buf, v, n);
	return agentq_add(q, buf, n, samples, 10 * (uint64_t)v, 10 * (uint64_t)v + 10, d);
}

/* The head's image: n bytes of value v. */
static void head_is(struct agentq *q, size_t n, int v)
{
	struct zbuf b;
	const void *data;
	size_t len, i;

	zbuf_init(&b);
	assert_int_equal(agentq_head_image(q, &b, &data, &len), 0);
	assert_int_equal(len, n);
	for (i = 0; i < n; i++)
		assert_int_equal(((const unsigned char *)data)[i], v);
	zbuf_release(&b);
}

static void test_order(void **state)
{
	struct agentq q;
	struct agentq_drop d;
	int v;

	(void)state;
	assert_int_equal(agentq_init(&q, 1000, -1, &d), 0);
	assert_null(agentq_head(&q));
	for (v = 1; v <= 5; v++) {
		assert_int_equal(add(&q, 100, v, (uint64_t)v, &d), 0);
		assert_int_equal(d.pieces, 0);
	}
	assert_int_equal(q.bytes, 500);
	for (v = 1; v <= 5; v++) {
		const struct agentq_item *it = agentq_head(&q);

		assert_non_null(it);
		assert_int_equal(it->seq, (uint64_t)v);
		assert_int_equal(it->samples, (uint64_t)v);
		assert_int_equal(it->t_start, 10 * (uint64_t)v);
		head_is(&q, 100, v);
		agentq_pop(&q);
	}
	assert_null(agentq_head(&q));
	assert_int_equal(q.bytes, 0);
	agentq_pop(&q); /* empty: nothing */
	agentq_release(&q);
}

static void test_bound(void **state)
{
	struct agentq q;
	struct agentq_drop d;
	int v;

	(void)state;
	assert_int_equal(agentq_init(&q, 250, -1, &d), 0);
	assert_int_equal(add(&q, 100, 1, 7, &d), 0);
	assert_int_equal(add(&q, 100, 2, 8, &d), 0);
	assert_int_equal(d.pieces, 0);
	/* the third does not fit: the oldest goes */
	assert_int_equal(add(&q, 100, 3, 9, &d), 0);
	assert_int_equal(d.pieces, 1);
	assert_int_equal(d.samples, 7);
	assert_int_equal(d.bytes, 100);
	assert_int_equal(q.bytes, 200);
	assert_int_equal(agentq_head(&q)->seq, 2);
	/* a large one pushes out both */
	assert_int_equal(add(&q, 240, 4, 10, &d), 0);
	assert_int_equal(d.pieces, 2);
	assert_int_equal(d.samples, 17);
	assert_int_equal(q.n, 1);
	head_is(&q, 240, 4);
	/* larger than the bound alone: refused, nothing dropped */
	assert_int_equal(add(&q, 251, 5, 11, &d), -E2BIG);
	assert_int_equal(d.pieces, 0);
	assert_int_equal(q.n, 1);
	/* exactly the bound fits, alone */
	assert_int_equal(add(&q, 250, 6, 12, &d), 0);
	assert_int_equal(d.pieces, 1);
	assert_int_equal(q.bytes, 250);
	assert_int_equal(agentq_head(&q)->seq, 5); /* the refused one took no number */
	agentq_pop(&q);
	/* many, in a long run: the array compacts, the order holds */
	for (v = 1; v <= 200; v++) {
		assert_int_equal(add(&q, 50, v, 1, &d), 0);
		if (v > 5)
			assert_int_equal(d.pieces, 1);
	}
	assert_int_equal(q.n, 5);
	for (v = 196; v <= 200; v++) {
		head_is(&q, 50, v);
		agentq_pop(&q);
	}
	agentq_release(&q);
}

static char tmpdir[64];

static int setup_dir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/zt-agentq.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) ? -1 : 0;
}

static void test_spool(void **state)
{
	char dir[128], path[256], msg[512];
	struct agentq q;
	struct agentq_drop d;
	struct stat st;
	int fd, v;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool", tmpdir);
	fd = agentq_open_spool(dir, msg, sizeof(msg));
	assert_true(fd >= 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* a second agent on it: refused while the first holds it */
	assert_int_equal(agentq_open_spool(dir, msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, "in use"));
	assert_int_equal(agentq_init(&q, 350, fd, &d), 0);
	assert_int_equal(q.n, 0);
	for (v = 1; v <= 3; v++)
		assert_int_equal(add(&q, 100, v, (uint64_t)v * 10, &d), 0);
	snprintf(path, sizeof(path), "%s/piece-00000000000000000001-10.zt", dir);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, 100);
	assert_null(agentq_head(&q)->data); /* on disk, not in memory */
	head_is(&q, 100, 1);
	agentq_pop(&q);
	assert_int_equal(access(path, F_OK), -1); /* its file goes with it */
	agentq_release(&q);

	/* a restart: the pieces still there come first, in order; leftovers
	 * of a crash go; what is not a piece stays untouched */
	snprintf(path, sizeof(path), "%s/.tmp-piece-00000000000000000009-1.zt", dir);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	snprintf(path, sizeof(path), "%s/piece-00000000000000000001-99.zt", dir);
	assert_int_equal(symlink("/etc/passwd", path), 0); /* a link named as a piece: ignored */
	fd = agentq_open_spool(dir, msg, sizeof(msg));
	assert_true(fd >= 0);
	assert_int_equal(agentq_init(&q, 350, fd, &d), 0);
	assert_int_equal(d.pieces, 0);
	assert_int_equal(q.n, 2);
	assert_int_equal(q.bytes, 200);
	assert_int_equal(agentq_head(&q)->seq, 2);
	assert_int_equal(agentq_head(&q)->samples, 20);
	snprintf(path, sizeof(path), "%s/.tmp-piece-00000000000000000009-1.zt", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	assert_int_equal(access(path, F_OK), 0);
	/* new pieces go on after the old ones */
	assert_int_equal(add(&q, 100, 4, 40, &d), 0);
	assert_int_equal(d.pieces, 0);
	assert_int_equal(add(&q, 100, 5, 50, &d), 0);
	assert_int_equal(d.pieces, 1); /* 400 > 350: the oldest (seq 2) goes */
	assert_int_equal(d.samples, 20);
	for (v = 3; v <= 5; v++) {
		assert_int_equal(agentq_head(&q)->seq, (uint64_t)v);
		head_is(&q, 100, v);
		agentq_pop(&q);
	}
	assert_null(agentq_head(&q));
	assert_int_equal(add(&q, 100, 6, 60, &d), 0);
	agentq_release(&q);

	/* reopened with a smaller bound: the oldest past it dropped at once */
	fd = agentq_open_spool(dir, msg, sizeof(msg));
	assert_true(fd >= 0);
	assert_int_equal(agentq_init(&q, 50, fd, &d), 0);
	assert_int_equal(d.pieces, 1);
	assert_int_equal(d.samples, 60);
	assert_int_equal(q.n, 0);
	agentq_release(&q);
}

static void test_spool_refused(void **state)
{
	char dir[128], link[128], msg[512];
	int fd;

	(void)state;
	/* a symbolic link to a directory: refused, not followed */
	snprintf(dir, sizeof(dir), "%s/real", tmpdir);
	snprintf(link, sizeof(link), "%s/link", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(agentq_open_spool(link, msg, sizeof(msg)), -ELOOP);
	assert_non_null(strstr(msg, "symbolic link"));
	/* a dangling one too (mkdir does not make its target) */
	snprintf(link, sizeof(link), "%s/dangling", tmpdir);
	assert_int_equal(symlink("/nonexistent/zt-spool", link), 0);
	assert_true(agentq_open_spool(link, msg, sizeof(msg)) < 0);
	/* writable by others */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(agentq_open_spool(dir, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "chmod 700"));
	assert_int_equal(chmod(dir, 0755), 0);
	fd = agentq_open_spool(dir, msg, sizeof(msg));
	assert_true(fd >= 0);
	close(fd);
	/* another user's */
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_int_equal(agentq_open_spool(dir, msg, sizeof(msg)), -EPERM);
		assert_non_null(strstr(msg, "belongs to uid 65534"));
	}
	/* a file */
	snprintf(dir, sizeof(dir), "%s/file", tmpdir);
	close(open(dir, O_WRONLY | O_CREAT, 0600));
	assert_true(agentq_open_spool(dir, msg, sizeof(msg)) < 0);
	/* no parent */
	snprintf(dir, sizeof(dir), "%s/no/such", tmpdir);
	assert_int_equal(agentq_open_spool(dir, msg, sizeof(msg)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_bound),
		cmocka_unit_test_setup_teardown(test_spool, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_spool_refused, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
