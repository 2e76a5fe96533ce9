/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cubincache: decoded cubins cached by the SHA-256 of their bytes: stored
 * 0600 under DIR/cubin/, loaded back answering as the decoded cubin, and
 * every doubtful file (damaged, truncated, another cubin's, a link, open
 * to others' writes) decoded afresh and replaced; no cache or an
 * unwritable one is no error; under sudo the files are the user's; the
 * session resolves a recording's GPU PCs through the cache it was given.
 * The cubins are small EM_CUDA ELF files made here with libelf.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
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

#include "formats/ztdata.h"
#include "libprof/fileio.h"
#include "libprof/gpuview.h"
#include "session/session.h"
#include "symbolizer/cubincache.h"

static char tmpdir[] = "/tmp/zt-test-cubincache.XXXXXX";
static char cachedir[600];
static uint8_t *cub_a, *cub_b;
static size_t len_a, len_b;

/* A cubin: kernel "kern" (size ksize) holding the __noinline__ callee
 * "$kern$_Z6calleef" at 0x40..0x80, and kernel "other". */
static uint8_t *make_cubin(const char *name, uint64_t ksize, size_t *len)
{
	static const char shstr[] = "\0.shstrtab\0.strtab\0.symtab\0.text.kern\0.text.other";
	static const char str[] = "\0kern\0other\0$kern$_Z6calleef";
	static uint8_t text[0x1000];
	Elf64_Sym syms[4] = {
		{0},
		{.st_name = 12,
		 .st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC),
		 .st_shndx = 4,
		 .st_value = 0x40,
		 .st_size = 0x40},
		{.st_name = 1,
		 .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		 .st_other = 0x10,
		 .st_shndx = 4,
		 .st_value = 0,
		 .st_size = ksize},
		{.st_name = 6,
		 .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		 .st_other = 0x10,
		 .st_shndx = 5,
		 .st_value = 0,
		 .st_size = 0x80},
	};
	const struct test_scn scns[] = {
		{1, SHT_STRTAB, 0, 0, shstr, sizeof(shstr), 0, 0, 0},
		{11, SHT_STRTAB, 0, 0, str, sizeof(str), 0, 0, 0},
		{19, SHT_SYMTAB, 0, 0, syms, sizeof(syms), 2, 2, sizeof(Elf64_Sym)},
		{27, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, text, ksize, 3, 0, 0},
		{38, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, text, 0x80, 3, 0, 0},
	};
	char path[700];
	struct stat st;
	uint8_t *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(test_write_elf(fd, ET_EXEC, CUBIN_EM_CUDA, scns, 5), 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static int setup(void **state)
{
	if (!mkdtemp(tmpdir) || chmod(tmpdir, 0755))
		return -1;
	cub_a = make_cubin("a.cubin", 0x100, &len_a);
	cub_b = make_cubin("b.cubin", 0x200, &len_b);
	return 0;
}

static int teardown(void **state)
{
	free(cub_a);
	free(cub_b);
	run("rm -rf %s", tmpdir);
	return 0;
}

static int fresh_cache(void **state)
{
	static int n;

	unsetenv("XDG_CACHE_HOME");
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	snprintf(cachedir, sizeof(cachedir), "%s/cache%d", tmpdir, ++n);
	setenv("ZT_CACHE_DIR", cachedir, 1);
	return 0;
}

/* a and b answer the same at every PC of every function, and past them */
static void same_answers(const struct cubin *a, const struct cubin *b)
{
	static const char *const fns[] = {"kern", "other", "$kern$_Z6calleef", "nope"};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		for (uint64_t pc = 0; pc < 0x240; pc += 16) {
			struct cubin_frame fa[8], fb[8];
			int na = cubin_resolve(a, fns[i], pc, fa, 8);
			int nb = cubin_resolve(b, fns[i], pc, fb, 8);

			assert_int_equal(na, nb);
			for (int k = 0; k < na; k++) {
				assert_string_equal(fa[k].func, fb[k].func);
				assert_int_equal(fa[k].line, fb[k].line);
				assert_int_equal(fa[k].inlined, fb[k].inlined);
				assert_true(!fa[k].file == !fb[k].file);
				if (fa[k].file)
					assert_string_equal(fa[k].file, fb[k].file);
			}
		}
}

static void path_of(const struct buildid_cache *bc, const uint8_t *d, size_t l, char *out)
{
	uint8_t key[CUBINCACHE_KEY_LEN];

	assert_int_equal(cubincache_key(d, l, key), 0);
	assert_int_equal(cubincache_path(bc, key, out, 700), 0);
}

static void test_key_path(void **state)
{
	struct buildid_cache bc;
	uint8_t key[CUBINCACHE_KEY_LEN];
	char path[700], want[700];

	assert_int_equal(buildid_cache_init(&bc), 0);
	assert_int_equal(cubincache_key("abc", 3, key), 0);
	assert_int_equal(cubincache_path(&bc, key, path, sizeof(path)), 0);
	snprintf(want, sizeof(want),
		 "%s/cubin/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.zcubin",
		 cachedir);
	assert_string_equal(path, want);
	assert_int_equal(cubincache_path(&bc, key, path, 20), -ENAMETOOLONG);
	assert_int_equal(cubincache_path(NULL, key, path, sizeof(path)), -ENOENT);
	buildid_cache_release(&bc);
}

static void test_no_cache(void **state)
{
	enum cubincache_how how = CUBINCACHE_LOADED;
	struct cubin *c;
	struct stat st;

	assert_int_equal(cubincache_open(cub_a, len_a, NULL, &c, &how), 0);
	assert_int_equal(how, CUBINCACHE_DECODED);
	cubin_free(c);
	assert_int_equal(cubincache_open("not a cubin", 11, NULL, &c, NULL), -EINVAL);
	assert_null(c);
	assert_true(stat(cachedir, &st) && errno == ENOENT);
}

static void test_not_cubin(void **state)
{
	struct buildid_cache bc;
	struct cubin *c;
	struct stat st;

	assert_int_equal(buildid_cache_init(&bc), 0);
	assert_int_equal(cubincache_open("not a cubin", 11, &bc, &c, NULL), -EINVAL);
	assert_null(c);
	/* nothing written for it */
	assert_true(stat(cachedir, &st) && errno == ENOENT);
	buildid_cache_release(&bc);
}

static void test_store_load(void **state)
{
	struct buildid_cache bc;
	enum cubincache_how how;
	struct cubin *fresh, *c1, *c2, *cb;
	char path[700], dir[700];
	struct stat st;

	assert_int_equal(buildid_cache_init(&bc), 0);
	assert_int_equal(cubin_open(cub_a, len_a, &fresh), 0);
	assert_int_equal(cubincache_open(cub_a, len_a, &bc, &c1, &how), 0);
	assert_int_equal(how, CUBINCACHE_STORED);
	path_of(&bc, cub_a, len_a, path);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(dir, sizeof(dir), "%s/cubin", cachedir);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(cubincache_open(cub_a, len_a, &bc, &c2, &how), 0);
	assert_int_equal(how, CUBINCACHE_LOADED);
	same_answers(fresh, c1);
	same_answers(fresh, c2);
	assert_int_equal(cubin_has_lines(fresh), cubin_has_lines(c2));
	/* another cubin: its own file, its own answers */
	assert_int_equal(cubincache_open(cub_b, len_b, &bc, &cb, &how), 0);
	assert_int_equal(how, CUBINCACHE_STORED);
	cubin_free(cb);
	assert_int_equal(cubincache_open(cub_b, len_b, &bc, &cb, &how), 0);
	assert_int_equal(how, CUBINCACHE_LOADED);
	{
		struct cubin_frame f[4];

		/* kern is 0x200 bytes long in b, 0x100 in a */
		assert_int_equal(cubin_resolve(cb, "kern", 0x1f0, f, 4), 1);
		assert_int_equal(cubin_resolve(c2, "kern", 0x1f0, f, 4), 0);
	}
	cubin_free(cb);
	cubin_free(fresh);
	cubin_free(c1);
	cubin_free(c2);
	buildid_cache_release(&bc);
}

/* Every bad file at the cubin's path is decoded over, and replaced by a
 * good one. */
static void expect_redo(const struct buildid_cache *bc, const char *path)
{
	enum cubincache_how how;
	struct cubin *c, *fresh;
	struct stat st;

	assert_int_equal(cubincache_open(cub_a, len_a, bc, &c, &how), 0);
	assert_int_equal(how, CUBINCACHE_STORED);
	assert_int_equal(cubin_open(cub_a, len_a, &fresh), 0);
	same_answers(fresh, c);
	cubin_free(c);
	cubin_free(fresh);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(cubincache_open(cub_a, len_a, bc, &c, &how), 0);
	assert_int_equal(how, CUBINCACHE_LOADED);
	cubin_free(c);
}

static void test_bad_files(void **state)
{
	struct buildid_cache bc;
	struct cubin *c;
	char path[700], pb[700], victim[700];
	uint8_t *d;
	size_t n;
	struct stat st;

	assert_int_equal(buildid_cache_init(&bc), 0);
	assert_int_equal(cubincache_open(cub_a, len_a, &bc, &c, NULL), 0);
	cubin_free(c);
	path_of(&bc, cub_a, len_a, path);
	assert_int_equal(zt_read_file(path, 1 << 20, (char **)&d, &n), 0);

	/* a flipped byte in the image */
	d[n - 1] ^= 0x55;
	assert_int_equal(write_bytes(path, d, n, 0600), 0);
	expect_redo(&bc, path);
	d[n - 1] ^= 0x55;
	/* truncated: to the header, and inside it */
	assert_int_equal(write_bytes(path, d, n - 1, 0600), 0);
	expect_redo(&bc, path);
	assert_int_equal(write_bytes(path, d, 40, 0600), 0);
	expect_redo(&bc, path);
	assert_int_equal(write_bytes(path, "", 0, 0600), 0);
	expect_redo(&bc, path);
	/* a newer format version */
	d[8]++;
	assert_int_equal(write_bytes(path, d, n, 0600), 0);
	expect_redo(&bc, path);
	d[8]--;
	/* open to others' writes: not trusted */
	assert_int_equal(write_bytes(path, d, n, 0666), 0);
	expect_redo(&bc, path);
	/* another cubin's valid file under this one's name */
	assert_int_equal(cubincache_open(cub_b, len_b, &bc, &c, NULL), 0);
	cubin_free(c);
	path_of(&bc, cub_b, len_b, pb);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(link(pb, path), 0);
	expect_redo(&bc, path);
	/* a link to a good file elsewhere: not followed, and replaced by a
	 * file, its target untouched */
	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	assert_int_equal(write_bytes(victim, d, n, 0600), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(victim, path), 0);
	expect_redo(&bc, path);
	assert_int_equal(lstat(victim, &st), 0);
	assert_int_equal((size_t)st.st_size, n);
	/* a directory in the way: decoded, nothing cached, no error */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	{
		enum cubincache_how how;

		assert_int_equal(cubincache_open(cub_a, len_a, &bc, &c, &how), 0);
		assert_int_equal(how, CUBINCACHE_DECODED);
		cubin_free(c);
	}
	free(d);
	buildid_cache_release(&bc);
}

static void test_unwritable(void **state)
{
	struct buildid_cache bc;
	enum cubincache_how how;
	struct cubin *c;

	setenv("ZT_CACHE_DIR", "/proc/zt-no-such-dir", 1);
	assert_int_equal(buildid_cache_init(&bc), 0);
	assert_int_equal(cubincache_open(cub_a, len_a, &bc, &c, &how), 0);
	assert_int_equal(how, CUBINCACHE_DECODED);
	assert_int_equal(cubin_resolve(c, "other", 0x10, (struct cubin_frame[2]){0}, 2), 1);
	cubin_free(c);
	buildid_cache_release(&bc);
}

/* root under sudo: the user's files, made by the user, read back by root */
static void test_sudo(void **state)
{
	struct buildid_cache bc;
	enum cubincache_how how;
	struct cubin *c;
	char path[700];
	struct stat st;

	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(tmpdir, 0777), 0);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	assert_int_equal(buildid_cache_init(&bc), 0);
	assert_true(bc.user.active);
	assert_int_equal(cubincache_open(cub_a, len_a, &bc, &c, &how), 0);
	assert_int_equal(how, CUBINCACHE_STORED);
	cubin_free(c);
	path_of(&bc, cub_a, len_a, path);
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(cubincache_open(cub_a, len_a, &bc, &c, &how), 0);
	assert_int_equal(how, CUBINCACHE_LOADED);
	cubin_free(c);
	/* a file of a third user in the user's cache: not trusted */
	assert_int_equal(chown(path, 1, 1), 0);
	assert_int_equal(cubincache_open(cub_a, len_a, &bc, &c, &how), 0);
	assert_int_not_equal(how, CUBINCACHE_LOADED);
	cubin_free(c);
	buildid_cache_release(&bc);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_int_equal(chmod(tmpdir, 0755), 0);
}

/* A zt.data with cubin a and PC buckets in kern (one in the callee, one
 * past kern's end), at path. */
static void write_recording(const char *path)
{
	struct prof_gpu *g = prof_gpu_new();
	struct ztdata_writer *w;
	struct profile st;
	uint32_t fn;
	int fd;

	assert_non_null(g);
	profile_init(&st);
	assert_int_equal(prof_gpu_intern(g, "kern", 4, &fn), 0);
	for (int i = 0; i < 3; i++) {
		static const uint64_t pcs[] = {0x10, 0x50, 0x400};
		struct prof_gpu_pcs p = {.cubin_crc = 0xc0b1,
					 .pc_offset = pcs[i],
					 .samples = 3,
					 .pid = 100,
					 .context = 1,
					 .function = fn};

		assert_int_equal(prof_gpu_add_pcs(g, &p), 0);
	}
	assert_int_equal(prof_gpu_add_cubin(g, 0xc0b1, 100, 1, 1, cub_a, len_a), 0);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	w = ztdata_writer_new(fd);
	assert_non_null(w);
	assert_int_equal(ztdata_write_gpu(w, g, &st), 0);
	assert_int_equal(ztdata_writer_finish(w), 0);
	ztdata_writer_free(w);
	close(fd);
	prof_gpu_free(g);
	profile_release(&st);
}

/* session_gpu_frames() of the recording, with this cache (or none) */
static void session_frames(const char *path, const struct buildid_cache *bc)
{
	struct symmod_opts mo = {.cache = bc};
	struct session_opts so = {.mo = &mo};
	struct gpu_frametab t;
	struct gpu_view v;
	struct session s;
	uint32_t n;

	assert_int_equal(session_open(&s, path, &so), 0);
	assert_non_null(s.prof.gpu);
	assert_int_equal(gpu_view_init(&v, s.prof.gpu), 0);
	assert_int_equal(v.nr_pcs, 3);
	gpu_frametab_init(&t);
	assert_int_equal(session_gpu_frames(&s, &v, &t), 0);
	for (size_t i = 0; i < v.nr_pcs; i++) {
		const struct gpu_frame *f = gpu_frametab_pc(&t, i, &n);

		if (v.pcs[i].pc == 0x400) { /* past kern: its name, no cubin frame */
			assert_int_equal(n, 1);
			assert_int_equal(f[0].quality, ZT_FRAME_NONE);
			assert_string_equal(f[0].func, "kern");
		} else if (v.pcs[i].pc == 0x50) { /* the callee, then kern */
			assert_int_equal(n, 2);
			assert_non_null(strstr(f[0].func, "callee"));
			assert_string_equal(f[1].func, "kern");
		} else {
			assert_int_equal(n, 1);
			assert_string_equal(f[0].func, "kern");
		}
	}
	gpu_frametab_release(&t);
	gpu_view_release(&v);
	session_close(&s);
}

static void test_session(void **state)
{
	struct buildid_cache bc;
	char rec[700], path[700];
	struct stat st;

	snprintf(rec, sizeof(rec), "%s/gpu.zt.data", tmpdir);
	write_recording(rec);
	assert_int_equal(buildid_cache_init(&bc), 0);
	path_of(&bc, cub_a, len_a, path);
	/* no cache (--no-symbol-cache): nothing written */
	session_frames(rec, NULL);
	assert_true(stat(cachedir, &st) && errno == ENOENT);
	/* the session's cache: the cubin stored, then answers from it */
	session_frames(rec, &bc);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	session_frames(rec, &bc);
	buildid_cache_release(&bc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_key_path, fresh_cache),
		cmocka_unit_test_setup(test_no_cache, fresh_cache),
		cmocka_unit_test_setup(test_not_cubin, fresh_cache),
		cmocka_unit_test_setup(test_store_load, fresh_cache),
		cmocka_unit_test_setup(test_bad_files, fresh_cache),
		cmocka_unit_test_setup(test_unwritable, fresh_cache),
		cmocka_unit_test_setup(test_sudo, fresh_cache),
		cmocka_unit_test_setup(test_session, fresh_cache),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
