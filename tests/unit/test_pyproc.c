/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record/pyproc: live CPython processes read from the outside. Each
 * interpreter on this machine (Debian's python3.11, a static executable;
 * pyenv's 3.11, 3.12 and 3.13, in libpython3.X.so) runs a script with a
 * known call chain, blocked in time.sleep(): its layout is checked against
 * the process (pyproc_open), its one thread found by its thread id, and its
 * Python frames read innermost first with their qualified names, file and
 * lines. A version absent here is skipped, not passed.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <gelf.h>

#include "record/pyproc.h"
#include "symbolizer/pyline.h"
#include "symbolizer/debugfind.h"

static const char script[] = "import time, threading\n"		     /* 1 */
			     "def zt_worker():\n"			     /* 2 */
			     "    while True:\n"			     /* 3 */
			     "        time.sleep(0.05)\n"		     /* 4 */
			     "def zt_leaf():\n"			     /* 5 */
			     "    t = threading.Thread(target=zt_worker, daemon=True)\n" /* 6 */
			     "    t.start()\n"			     /* 7 */
			     "    print('ready', t.native_id, flush=True)\n" /* 8 */
			     "    while True:\n"			     /* 9 */
			     "        time.sleep(0.05)\n"		     /* 10 */
			     "def zt_middle():\n"			     /* 11 */
			     "    zt_leaf()\n"			     /* 12 */
			     "class K:\n"				     /* 13 */
			     "    def zt_method(self):\n"		     /* 14 */
			     "        zt_middle()\n"			     /* 15 */
			     "K().zt_method()\n";			     /* 16 */

static char script_path[64];

static pid_t child = -1;
static uint32_t worker;   /* its thread's native id */
static int child_out = -1; /* its stdout, kept open while it runs */

static void stop(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (child_out >= 0)
		close(child_out);
	child = -1;
	child_out = -1;
}

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(script_path, sizeof(script_path), "/tmp/zt-pyproc-XXXXXX");
	fd = mkstemp(script_path);
	if (fd < 0 || write(fd, script, sizeof(script) - 1) != (ssize_t)(sizeof(script) - 1))
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	stop();
	unlink(script_path);
	return 0;
}

/* python running the script, blocked in its loop once it said "ready" */
static pid_t start(const char *python)
{
	int fds[2];
	char buf[64] = {0};
	pid_t pid;

	stop(); /* one a failed check left */

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(python, python, script_path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	child = pid;
	child_out = fds[0];
	worker = 0;
	/* its line, which may come in pieces */
	for (size_t got = 0; !strchr(buf, '\n');) {
		ssize_t r = pid > 0 && got < sizeof(buf) - 1 ? read(fds[0], buf + got, sizeof(buf) - 1 - got) : -1;

		if (r <= 0) {
			stop();
			return -1;
		}
		got += (size_t)r;
	}
	if (sscanf(buf, "ready %u", &worker) != 1)
		print_message("python said: %s\n", buf);
	usleep(20000); /* into time.sleep() */
	return pid;
}

/* The interpreter of pid: each executable file it maps, tried in turn,
 * its load bias from its mapping at offset 0. */
static int open_interp(struct pyproc *p, pid_t pid)
{
	char maps[64], line[4096], path[4096];
	FILE *f;
	int err = -ENOENT;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		char perm[8], dev[16];

		if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %4095s", &lo, &hi, perm, &off, dev, &ino,
			   path) != 7 ||
		    off || path[0] != '/')
			continue;
		{
			/* the first PT_LOAD's address (0 for a shared library) */
			FILE *e = fopen(path, "rb");
			unsigned char hdr[64];
			uint64_t phoff, vaddr = 0;
			uint16_t phnum, phentsize;
			int i;

			if (!e)
				continue;
			if (fread(hdr, 1, 64, e) != 64 || memcmp(hdr, "\177ELF", 4)) {
				fclose(e);
				continue;
			}
			memcpy(&phoff, hdr + 32, 8);
			memcpy(&phentsize, hdr + 54, 2);
			memcpy(&phnum, hdr + 56, 2);
			for (i = 0; i < phnum; i++) {
				unsigned char ph[56];
				uint32_t type;

				if (fseek(e, (long)(phoff + (uint64_t)i * phentsize), SEEK_SET) ||
				    fread(ph, 1, 56, e) != 56)
					break;
				memcpy(&type, ph, 4);
				if (type == 1) { /* PT_LOAD */
					memcpy(&vaddr, ph + 16, 8);
					break;
				}
			}
			fclose(e);
			err = pyproc_open(p, (uint32_t)pid, path, lo - (vaddr & ~0xfffull));
			if (err != -ENOENT)
				break;
		}
	}
	fclose(f);
	return err;
}

static int check_python(const char *python, unsigned minor)
{
	static const struct {
		const char *name;
		int line;
	} want[] = {{"zt_leaf", 10}, {"zt_middle", 12}, {"K.zt_method", 15}, {"<module>", 16}};
	struct pyproc p;
	struct zt_py_frame fr[32];
	uint64_t ts;
	pid_t pid;
	int n, i, err;

	if (access(python, X_OK))
		return 0;
	pid = start(python);
	assert_true(pid > 0);
	err = open_interp(&p, pid);
	if (err)
		print_message("%s: pyproc_open: %s (3.%u)\n", python, strerror(-err), p.minor);
	assert_int_equal(err, 0);
	assert_int_equal(p.minor, minor);
	assert_true(p.eval_lo && p.eval_hi > p.eval_lo);
	/* a table that disagrees with the process is caught, not read */
	{
		struct pyproc bad = p;

		assert_int_equal(pyproc_check(&bad), 0);
		bad.lay.co_qualname += 8;
		assert_int_equal(pyproc_check(&bad), -EPROTO);
	}
	/* the eval loop's .cold part, where the compiler split one off: from
	 * the debug file of Debian's stripped python3.11 (python3.11-dbg;
	 * 7.5 KB), pyenv's libpython's .symtab (3.13.0's has none) */
	{
		char dbg[4096];

		print_message("%s: eval loop %#llx-%#llx, .cold %#llx-%#llx\n", python,
			      (unsigned long long)p.eval_lo, (unsigned long long)p.eval_hi,
			      (unsigned long long)p.cold_lo, (unsigned long long)p.cold_hi);
		if (!strncmp(python, "/usr/bin/", 9) &&
		    !debugfind(NULL, python, NULL, dbg, sizeof(dbg)))
			assert_true(p.cold_lo && p.cold_hi - p.cold_lo > 1024);
		if (p.cold_lo)
			assert_true(p.cold_hi > p.cold_lo &&
				    (p.cold_hi <= p.eval_lo || p.cold_lo >= p.eval_hi));
	}
	/* the main thread by its id; no thread of another id */
	assert_int_equal(pyproc_thread(&p, (uint32_t)pid + 100000, &ts), 0);
	assert_int_equal(pyproc_thread(&p, (uint32_t)pid, &ts), 1);
	n = pyproc_stack(&p, ts, fr, 32);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		struct pyproc_code c;
		int line;

		assert_int_equal(pyproc_code(&p, fr[i].code, &c), 0);
		line = pyline_of(c.linetable, c.linetable_len, c.firstlineno, fr[i].lasti);
		print_message("%s: #%d %s (%s:%d)\n", python, i, c.qualname, c.filename, line);
		assert_string_equal(c.qualname, want[i].name);
		assert_string_equal(c.filename, script_path);
		assert_int_equal(line, want[i].line);
		/* one run of the evaluation loop: Python calls Python inside it,
		 * the module's frame began it */
		assert_int_equal(fr[i].flags & ZT_PY_ENTRY, i == n - 1 ? ZT_PY_ENTRY : 0);
		/* the stamp the walk saw is the code object's */
		assert_int_equal(fr[i].stamp, c.stamp);
		assert_int_not_equal(c.stamp, 0);
		pyproc_code_release(&c);
	}
	/* the other thread: zt_worker, under threading's bootstrap */
	if (minor >= 11) {
		struct pyproc_code c;

		assert_true(worker > 0);
		assert_int_equal(pyproc_thread(&p, worker, &ts), 1);
		n = pyproc_stack(&p, ts, fr, 32);
		assert_true(n >= 2);
		assert_int_equal(pyproc_code(&p, fr[0].code, &c), 0);
		assert_string_equal(c.qualname, "zt_worker");
		assert_int_equal(pyline_of(c.linetable, c.linetable_len, c.firstlineno, fr[0].lasti), 4);
		pyproc_code_release(&c);
		assert_int_equal(pyproc_code(&p, fr[n - 1].code, &c), 0);
		print_message("%s: thread %u: %d frames, the outermost %s\n", python, worker, n,
			      c.qualname);
		assert_string_equal(c.qualname, "Thread._bootstrap");
		assert_true(fr[n - 1].flags & ZT_PY_ENTRY); /* run from the thread's C start */
		pyproc_code_release(&c);
	}
	stop();
	return 1;
}

static void test_debian_311(void **state)
{
	(void)state;
	if (!check_python("/usr/bin/python3.11", 11))
		skip();
}

static void test_pyenv_311(void **state)
{
	(void)state;
	if (!check_python("/root/.pyenv/versions/3.11.7/bin/python3.11", 11))
		skip();
}

static void test_pyenv_312(void **state)
{
	(void)state;
	if (!check_python("/root/.pyenv/versions/3.12.1/bin/python3.12", 12))
		skip();
}

static void test_pyenv_313(void **state)
{
	(void)state;
	if (!check_python("/root/.pyenv/versions/3.13.0/bin/python3.13", 13))
		skip();
}

/* A Python before 3.11 (no Py_Version): named, not read. */
static void test_old_version(void **state)
{
	const char *py = "/root/.pyenv/versions/3.10.13/bin/python3.10";
	struct pyproc p;
	pid_t pid;

	(void)state;
	if (access(py, X_OK))
		skip();
	pid = start(py);
	assert_true(pid > 0);
	assert_int_equal(open_interp(&p, pid), -ENOTSUP);
	stop();
}

/* Location tables by hand: each entry kind, and bad ones. */
static void test_lines(void **state)
{
	/* 2 units line 10 (one-line form 0: +0, with columns), 1 unit none,
	 * 3 units +2 (one-line form 2), 1 unit -3 (no-columns form, svarint
	 * 7 = -3), 1 unit long form +1 (svarint 2), 2 units short form */
	static const uint8_t t[] = {
		0x80 | 10 << 3 | 1, 4, 9,
		0x80 | 15 << 3 | 0,
		0x80 | 12 << 3 | 2, 0, 5,
		0x80 | 13 << 3 | 0, 7,
		0x80 | 14 << 3 | 0, 2, 0, 1, 3,
		0x80 | 3 << 3 | 1, 0x12,
	};
	static const uint8_t bad[] = {0x05, 0x80};
	static const uint8_t loop[] = {0x80 | 14 << 3, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f};

	(void)state;
	assert_int_equal(pyline_of(t, sizeof(t), 10, 0), 10);
	assert_int_equal(pyline_of(t, sizeof(t), 10, 1), 10);
	assert_int_equal(pyline_of(t, sizeof(t), 10, 2), -1);
	assert_int_equal(pyline_of(t, sizeof(t), 10, 3), 12);
	assert_int_equal(pyline_of(t, sizeof(t), 10, 5), 12);
	assert_int_equal(pyline_of(t, sizeof(t), 10, 6), 9);
	assert_int_equal(pyline_of(t, sizeof(t), 10, 7), 10);
	assert_int_equal(pyline_of(t, sizeof(t), 10, 8), 10);
	assert_int_equal(pyline_of(t, sizeof(t), 10, 9), 10);
	assert_int_equal(pyline_of(t, sizeof(t), 10, 10), -1); /* past the table */
	assert_int_equal(pyline_of(t, sizeof(t), 10, -1), -1);
	assert_int_equal(pyline_of(bad, sizeof(bad), 1, 0), -1);
	/* a varint that does not end: read to the table's end, no hang */
	assert_true(pyline_of(loop, sizeof(loop), 1, 0) >= -1);
	assert_int_equal(pyline_of(NULL, 0, 1, 0), -1);
}

/* The layouts zt has, and none for others. */
static void test_layouts(void **state)
{
	(void)state;
	assert_non_null(pyproc_layout_of(11));
	assert_non_null(pyproc_layout_of(12));
	assert_non_null(pyproc_layout_of(13));
	assert_null(pyproc_layout_of(10));
	assert_null(pyproc_layout_of(14));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),	   cmocka_unit_test(test_lines),
		cmocka_unit_test(test_debian_311), cmocka_unit_test(test_pyenv_311),
		cmocka_unit_test(test_pyenv_312), cmocka_unit_test(test_pyenv_313),
		cmocka_unit_test(test_old_version),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
