/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * buildid_cache: where the cache lives (environment, sudo), adding verified
 * copies, no-op re-adds, mismatches, racing adders, ownership under sudo.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
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

#include "tests/unit/testutil.h"

#include "symbolizer/buildid_cache.h"
#include "symbolizer/elfsym.h"

static char tmpdir[] = "/tmp/zt-test-bidcache.XXXXXX";
static char cachedir[600];

static const struct prof_build_id id_a = {
	20, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 }
};
static const struct prof_build_id id_b = { 8, { 0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3 } };

static void clear_env(void)
{
	unsetenv("ZT_CACHE_DIR");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
}

static int setup(void **state)
{
	if (!mkdtemp(tmpdir))
		return -1;
	if (run("cd %s && printf 'int main(void) { return 0; }\\n' > p.c"
		" && cc -O1 -Wl,--build-id=0x0102030405060708090a0b0c0d0e0f1011121314 -o a p.c"
		" && cc -O1 -Wl,--build-id=0xdeadbeef00010203 -o b p.c"
		" && echo not an elf > text.txt",
		tmpdir) != 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	run("rm -rf %s", tmpdir);
	return 0;
}

/* a fresh, not yet existing cache directory for each test */
static int fresh_cache(void **state)
{
	static int n;

	clear_env();
	snprintf(cachedir, sizeof(cachedir), "%s/cache%d", tmpdir, ++n);
	setenv("ZT_CACHE_DIR", cachedir, 1);
	return 0;
}

static int open_file(const char *name)
{
	char path[700];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	return fd;
}

static int same_content(int fd, const char *path)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "cmp -s /proc/%d/fd/%d %s", (int)getpid(), fd, path);
	return system(cmd) == 0;
}

/* entries of dir other than . and .. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_init_dirs(void **state)
{
	struct buildid_cache c;
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	clear_env();
	setenv("ZT_CACHE_DIR", "/some/where", 1);
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	assert_int_equal(buildid_cache_init(&c), 0);
	assert_string_equal(c.dir, "/some/where");
	assert_false(c.user.active);
	buildid_cache_release(&c);

	unsetenv("ZT_CACHE_DIR");
	assert_int_equal(buildid_cache_init(&c), 0);
	assert_string_equal(c.dir, "/xdg/zt");
	buildid_cache_release(&c);

	/* a relative XDG_CACHE_HOME is ignored, as the spec says */
	setenv("XDG_CACHE_HOME", "relative", 1);
	setenv("HOME", "/home/someone", 1);
	assert_int_equal(buildid_cache_init(&c), 0);
	assert_string_equal(c.dir, "/home/someone/.cache/zt");
	buildid_cache_release(&c);
	buildid_cache_release(&c);

	if (geteuid() == 0) {
		struct passwd *pw = getpwuid(65534);
		char want[600];

		/* under sudo: the invoking user's home, whatever HOME says */
		setenv("SUDO_UID", "65534", 1);
		setenv("SUDO_GID", "65533", 1);
		unsetenv("XDG_CACHE_HOME");
		assert_int_equal(buildid_cache_init(&c), 0);
		assert_true(c.user.active);
		assert_int_equal(c.user.uid, 65534);
		assert_int_equal(c.user.gid, 65533);
		if (pw) {
			snprintf(want, sizeof(want), "%s/.cache/zt", pw->pw_dir);
			assert_string_equal(c.dir, want);
		}
		buildid_cache_release(&c);

		/* malformed ids are not trusted */
		setenv("SUDO_UID", "12abc", 1);
		assert_int_equal(buildid_cache_init(&c), 0);
		assert_false(c.user.active);
		assert_string_equal(c.dir, "/home/someone/.cache/zt");
		buildid_cache_release(&c);
	}
	if (home) {
		setenv("HOME", home, 1);
		free(home);
	}
	clear_env();
}

static void test_path_layout(void **state)
{
	struct buildid_cache c;
	struct prof_build_id bad = { 0 };
	char out[700], want[700];

	assert_int_equal(buildid_cache_init(&c), 0);
	assert_int_equal(buildid_cache_path(&c, &id_a, out, sizeof(out)), -ENOENT);
	snprintf(want, sizeof(want), "%s/buildid/01/02030405060708090a0b0c0d0e0f1011121314/elf",
		 cachedir);
	assert_string_equal(out, want);
	assert_int_equal(buildid_cache_path(&c, &id_b, out, sizeof(out)), -ENOENT);
	snprintf(want, sizeof(want), "%s/buildid/de/adbeef00010203/elf", cachedir);
	assert_string_equal(out, want);
	assert_int_equal(buildid_cache_path(&c, &id_a, out, 20), -ENAMETOOLONG);
	assert_int_equal(buildid_cache_path(&c, &bad, out, sizeof(out)), -EINVAL);
	buildid_cache_release(&c);
}

static void test_add(void **state)
{
	struct buildid_cache c;
	struct prof_build_id got;
	struct stat st1, st2;
	char path[700], dir[700];
	int fd = open_file("a");

	assert_int_equal(buildid_cache_init(&c), 0);
	/* the fd's position is not used nor moved */
	assert_int_equal(lseek(fd, 100, SEEK_SET), 100);
	assert_int_equal(buildid_cache_add_fd(&c, &id_a, fd, NULL), 0);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 100);
	assert_int_equal(buildid_cache_path(&c, &id_a, path, sizeof(path)), 0);
	assert_true(same_content(fd, path));
	assert_int_equal(elf_read_build_id(path, &got), 0);
	assert_memory_equal(&got, &id_a, sizeof(got));
	assert_int_equal(stat(path, &st1), 0);
	assert_int_equal(st1.st_mode & 07777, 0644);
	/* nothing but the file in its directory */
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	assert_int_equal(count_entries(dir), 1);

	/* a second add is a no-op: same file */
	assert_int_equal(buildid_cache_add_fd(&c, &id_a, fd, NULL), 0);
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	assert_int_equal(st1.st_mtim.tv_nsec, st2.st_mtim.tv_nsec);
	close(fd);

	/* a second build id lands next to it */
	fd = open_file("b");
	assert_int_equal(buildid_cache_add_fd(&c, &id_b, fd, NULL), 0);
	assert_int_equal(buildid_cache_path(&c, &id_b, path, sizeof(path)), 0);
	assert_true(same_content(fd, path));
	close(fd);
	buildid_cache_release(&c);
}

static void test_mismatch(void **state)
{
	struct buildid_cache c;
	char path[700], dir[700];
	int fd = open_file("b");

	assert_int_equal(buildid_cache_init(&c), 0);
	/* b's file under a's id: refused, nothing left behind */
	assert_int_equal(buildid_cache_add_fd(&c, &id_a, fd, NULL), -ESTALE);
	assert_int_equal(buildid_cache_path(&c, &id_a, path, sizeof(path)), -ENOENT);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	assert_int_equal(count_entries(dir), 0);
	close(fd);

	fd = open_file("text.txt");
	assert_int_equal(buildid_cache_add_fd(&c, &id_b, fd, NULL), -ESTALE);
	assert_int_equal(buildid_cache_path(&c, &id_b, path, sizeof(path)), -ENOENT);
	close(fd);
	buildid_cache_release(&c);
}

/* recorders adding the same binary at once all succeed */
static void test_race(void **state)
{
	struct buildid_cache c;
	char path[700], dir[700];
	pid_t kids[6];
	int fd = open_file("a"), i, status;

	assert_int_equal(buildid_cache_init(&c), 0);
	for (i = 0; i < 6; i++) {
		kids[i] = fork();
		assert_true(kids[i] >= 0);
		if (kids[i] == 0)
			_exit(buildid_cache_add_fd(&c, &id_a, fd, NULL) == 0 ? 0 : 1);
	}
	for (i = 0; i < 6; i++) {
		assert_int_equal(waitpid(kids[i], &status, 0), kids[i]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(buildid_cache_path(&c, &id_a, path, sizeof(path)), 0);
	assert_true(same_content(fd, path));
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	assert_int_equal(count_entries(dir), 1);
	close(fd);
	buildid_cache_release(&c);
}

/* under sudo, everything created belongs to the invoking user, who made
 * it: the cache lives in a directory of theirs */
static void test_sudo_owner(void **state)
{
	struct buildid_cache c;
	struct stat st;
	char path[700], home[300], *p;
	int fd;

	if (geteuid() != 0) {
		skip();
		return;
	}
	assert_int_equal(chmod(tmpdir, 0755), 0);
	snprintf(home, sizeof(home), "%s/home-owner", tmpdir);
	assert_int_equal(mkdir(home, 0755), 0);
	assert_int_equal(chown(home, 65534, 65533), 0);
	snprintf(cachedir, sizeof(cachedir), "%s/.cache/zt", home);
	setenv("ZT_CACHE_DIR", cachedir, 1);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65533", 1);
	assert_int_equal(buildid_cache_init(&c), 0);
	assert_string_equal(c.dir, cachedir);
	fd = open_file("a");
	assert_int_equal(buildid_cache_add_fd(&c, &id_a, fd, NULL), 0);
	close(fd);
	assert_int_equal(buildid_cache_path(&c, &id_a, path, sizeof(path)), 0);
	/* the file and each directory up to the user's own */
	for (;;) {
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_uid, 65534);
		assert_int_equal(st.st_gid, 65533);
		if (!strcmp(path, home))
			break;
		p = strrchr(path, '/');
		assert_non_null(p);
		*p = 0;
	}
	/* what existed before is left alone */
	assert_int_equal(stat(tmpdir, &st), 0);
	assert_int_equal(st.st_uid, 0);
	/* any other write to the cache, the same way */
	snprintf(path, sizeof(path), "%s/gsym/x.gsym", cachedir);
	assert_int_equal(buildid_cache_store(&c, path, "abc", 3, NULL), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	/* outside the cache: refused */
	snprintf(path, sizeof(path), "%s/elsewhere", tmpdir);
	assert_int_equal(buildid_cache_store(&c, path, "abc", 3, NULL), -EINVAL);
	buildid_cache_release(&c);
	clear_env();
}

/* under sudo, root never does for the user what the user could not: no
 * directory made where they cannot write (a SUDO_UID whose home is
 * /nonexistent, a planted link to a root directory), no copy of a file
 * they cannot read */
static void test_sudo_limits(void **state)
{
	struct buildid_cache c;
	struct stat st;
	char path[700], home[300], rootdir[300], link[400];
	int fd;

	if (geteuid() != 0) {
		skip();
		return;
	}
	assert_int_equal(chmod(tmpdir, 0755), 0);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);

	/* a cache in a directory of root's */
	snprintf(cachedir, sizeof(cachedir), "%s/rootonly/zt", tmpdir);
	setenv("ZT_CACHE_DIR", cachedir, 1);
	assert_int_equal(buildid_cache_init(&c), 0);
	fd = open_file("a");
	assert_int_equal(buildid_cache_add_fd(&c, &id_a, fd, NULL), -EACCES);
	snprintf(path, sizeof(path), "%s/rootonly", tmpdir);
	assert_int_not_equal(stat(path, &st), 0);
	buildid_cache_release(&c);

	/* the user's cache is a link to a directory of root's */
	snprintf(home, sizeof(home), "%s/home-limits", tmpdir);
	snprintf(rootdir, sizeof(rootdir), "%s/secret", tmpdir);
	assert_int_equal(mkdir(home, 0755), 0);
	assert_int_equal(chown(home, 65534, 65534), 0);
	assert_int_equal(mkdir(rootdir, 0700), 0);
	snprintf(link, sizeof(link), "%s/cache", home);
	assert_int_equal(symlink(rootdir, link), 0);
	snprintf(cachedir, sizeof(cachedir), "%s/zt", link);
	setenv("ZT_CACHE_DIR", cachedir, 1);
	assert_int_equal(buildid_cache_init(&c), 0);
	assert_int_equal(buildid_cache_add_fd(&c, &id_a, fd, NULL), -EACCES);
	assert_int_equal(stat(rootdir, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(count_entries(rootdir), 0);
	buildid_cache_release(&c);
	close(fd);

	/* a binary only root may read is not copied into the user's cache */
	snprintf(cachedir, sizeof(cachedir), "%s/zt", home);
	setenv("ZT_CACHE_DIR", cachedir, 1);
	assert_int_equal(buildid_cache_init(&c), 0);
	snprintf(path, sizeof(path), "%s/b", tmpdir);
	assert_int_equal(chmod(path, 0700), 0);
	fd = open_file("b");
	assert_int_equal(buildid_cache_add_fd(&c, &id_b, fd, path), -EACCES);
	assert_int_equal(buildid_cache_path(&c, &id_b, path, sizeof(path)), -ENOENT);
	/* readable by all: copied, and the user's */
	snprintf(path, sizeof(path), "%s/b", tmpdir);
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(buildid_cache_add_fd(&c, &id_b, fd, path), 0);
	assert_int_equal(buildid_cache_path(&c, &id_b, path, sizeof(path)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	close(fd);
	buildid_cache_release(&c);
	clear_env();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_dirs),
		cmocka_unit_test_setup(test_path_layout, fresh_cache),
		cmocka_unit_test_setup(test_add, fresh_cache),
		cmocka_unit_test_setup(test_mismatch, fresh_cache),
		cmocka_unit_test_setup(test_race, fresh_cache),
		cmocka_unit_test_setup(test_sudo_owner, fresh_cache),
		cmocka_unit_test_setup(test_sudo_limits, fresh_cache),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
