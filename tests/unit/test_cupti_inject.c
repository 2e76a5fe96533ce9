/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shared object libztcupti.so as the CUDA driver sees it: exports
 * (InitializeInjection only), dependencies (libcupti, never libcuda), the
 * USDT note of zt:launch with its semaphore where libbpf looks for it;
 * then a harness that dlopens it with the real libcupti and no driver and
 * calls InitializeInjection in a child: it returns at once, prints nothing
 * (unless verbose=1) and leaves no file or a valid one whose warning says
 * CUPTI could not subscribe.
 */
#include <dlfcn.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/cupti/zgwalk.h"

#ifndef ZT_CUPTI_LIB
#error "ZT_CUPTI_LIB: the path of libztcupti.so"
#endif

/* a command's stdout, at most n - 1 bytes */
static void cmd_out(const char *cmd, char *out, size_t n)
{
	FILE *p = popen(cmd, "r");
	size_t len;

	assert_non_null(p);
	len = fread(out, 1, n - 1, p);
	out[len] = 0;
	pclose(p);
}

static void test_exports(void **state)
{
	char out[8192];

	cmd_out("nm -D --defined-only " ZT_CUPTI_LIB " | awk '{print $3}'", out, sizeof(out));
	assert_string_equal(out, "InitializeInjection\n");
	cmd_out("readelf -d " ZT_CUPTI_LIB, out, sizeof(out));
	assert_non_null(strstr(out, "[libcupti.so."));
	assert_null(strstr(out, "libcuda"));
	assert_non_null(strstr(out, "(RUNPATH)"));
	/* the semaphore is no dynamic symbol */
	cmd_out("nm -D " ZT_CUPTI_LIB, out, sizeof(out));
	assert_null(strstr(out, "semaphore"));
}

struct elf_view {
	int fd;
	Elf *e;
};

static Elf_Scn *section(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *s = NULL;
	size_t shstr;

	assert_int_equal(elf_getshdrstrndx(e, &shstr), 0);
	while ((s = elf_nextscn(e, s))) {
		const char *n;

		gelf_getshdr(s, sh);
		n = elf_strptr(e, shstr, sh->sh_name);
		if (n && !strcmp(n, name))
			return s;
	}
	return NULL;
}

/* the value and size of symbol name in .symtab (0 when absent), and its binding */
static uint64_t symbol(Elf *e, const char *name, uint64_t *size, int *bind)
{
	GElf_Shdr sh;
	Elf_Scn *s = section(e, ".symtab", &sh);
	Elf_Data *d;
	size_t i;

	if (!s)
		return 0;
	d = elf_getdata(s, NULL);
	for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *n;

		gelf_getsym(d, (int)i, &sym);
		n = elf_strptr(e, sh.sh_link, sym.st_name);
		if (n && !strcmp(n, name)) {
			*size = sym.st_size;
			*bind = GELF_ST_BIND(sym.st_info);
			return sym.st_value;
		}
	}
	return 0;
}

/* one note zt:launch, 3 u32 arguments, its semaphore in .probes in a
 * writable segment (where libbpf resolves it: by segment, not dynsym) */
static void test_usdt_note(void **state)
{
	uint64_t loc = 0, sema = 0, fn, fn_size = 0, sv, sv_size = 0;
	GElf_Shdr notes, probes;
	Elf_Scn *s;
	Elf_Data *d;
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, i, nphdr;
	int found = 0, bind = 0, in_rw = 0;
	Elf *e;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(ZT_CUPTI_LIB, O_RDONLY);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	s = section(e, ".note.stapsdt", &notes);
	assert_non_null(s);
	assert_int_equal(notes.sh_type, SHT_NOTE);
	d = elf_getdata(s, NULL);
	while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *desc = (const char *)d->d_buf + desc_off, *prov, *name, *args;
		uint64_t a[3];

		assert_string_equal((const char *)d->d_buf + name_off, "stapsdt");
		assert_int_equal(nh.n_type, 3);
		memcpy(a, desc, sizeof(a));
		prov = desc + sizeof(a);
		name = prov + strlen(prov) + 1;
		args = name + strlen(name) + 1;
		if (strcmp(prov, "zt") || strcmp(name, "launch"))
			continue;
		found++;
		loc = a[0];
		sema = a[2];
		/* three 4-byte arguments: correlation id, cbid, domain */
		assert_int_equal(strncmp(args, "4@", 2), 0);
		assert_non_null(strstr(args, " 4@"));
		assert_non_null(strstr(strstr(args, " 4@") + 1, " 4@"));
	}
	assert_int_equal(found, 1);
	/* the probe is in its one noinline function */
	fn = symbol(e, "zc_launch_probe", &fn_size, &bind);
	assert_true(fn && loc >= fn && loc < fn + fn_size);
	/* the semaphore: .probes, local, in a writable non-executable load segment */
	assert_non_null(section(e, ".probes", &probes));
	assert_true(sema >= probes.sh_addr && sema < probes.sh_addr + probes.sh_size);
	assert_true(probes.sh_flags & SHF_WRITE);
	assert_false(probes.sh_flags & SHF_EXECINSTR);
	sv = symbol(e, "zt_launch_semaphore", &sv_size, &bind);
	assert_int_equal(sv, sema);
	assert_int_equal(bind, STB_LOCAL);
	assert_int_equal(elf_getphdrnum(e, &nphdr), 0);
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		gelf_getphdr(e, (int)i, &ph);
		if (ph.p_type == PT_LOAD && sema >= ph.p_vaddr && sema < ph.p_vaddr + ph.p_memsz)
			in_rw = (ph.p_flags & PF_W) && !(ph.p_flags & PF_X);
	}
	assert_true(in_rw);
	elf_end(e);
	close(fd);
}

/* ---- the dlopen harness ------------------------------------------------- */

struct run {
	int status;
	double secs;
	char out[4096]; /* what the child printed */
	int ret;	/* InitializeInjection's, from the child's exit status */
};

/* in a child: env ZT_GPU_DIR=dir (NULL: unset), ZT_GPU_OPTS=opts; dlopen,
 * InitializeInjection (twice with again), dlclose, exit */
static void run_child(struct run *r, const char *dir, const char *opts, int again)
{
	char outpath[] = "/tmp/zt-cupti-out.XXXXXX";
	struct timespec t0, t1;
	int fd = mkstemp(outpath);
	pid_t pid;
	ssize_t n;

	assert_true(fd >= 0);
	fflush(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int (*init)(void);
		void *h;
		int ret;

		alarm(30);
		dup2(fd, 1);
		dup2(fd, 2);
		if (dir)
			setenv("ZT_GPU_DIR", dir, 1);
		else
			unsetenv("ZT_GPU_DIR");
		if (opts)
			setenv("ZT_GPU_OPTS", opts, 1);
		else
			unsetenv("ZT_GPU_OPTS");
		h = dlopen(ZT_CUPTI_LIB, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			_exit(100);
		}
		*(void **)&init = dlsym(h, "InitializeInjection");
		if (!init)
			_exit(101);
		ret = init();
		if (again && init() != ret)
			_exit(102);
		dlclose(h);
		exit(ret);
	}
	assert_int_equal(waitpid(pid, &r->status, 0), pid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	lseek(fd, 0, SEEK_SET);
	n = read(fd, r->out, sizeof(r->out) - 1);
	r->out[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(outpath);
	if (!WIFEXITED(r->status))
		fail_msg("child died: status %d, output: %s", r->status, r->out);
	r->ret = WEXITSTATUS(r->status);
}

static size_t files_in(const char *dir)
{
	char path[256];
	size_t n = 0;
	FILE *p;

	snprintf(path, sizeof(path), "ls -A %s | wc -l", dir);
	p = popen(path, "r");
	if (!p || fscanf(p, "%zu", &n) != 1)
		n = (size_t)-1;
	if (p)
		pclose(p);
	return n;
}

static void test_inject_no_driver(void **state)
{
	struct zgw_file f;
	struct run r;
	char dir[64], path[256];
	const char *w;

	assert_non_null(zgwalk_tmpdir(dir, sizeof(dir)));
	run_child(&r, dir, NULL, 1);
	if (r.ret != 1)
		fail_msg("InitializeInjection: exit %d: %s", r.ret, r.out);
	assert_string_equal(r.out, ""); /* quiet without verbose=1 */
	assert_true(r.secs < 5);
	/* one valid file, whose warning says why there are no GPU records */
	assert_int_equal(zgwalk_find(dir, path, sizeof(path)), 0);
	assert_int_equal(files_in(dir), 1);
	if (zgwalk_load(&f, path))
		fail_msg("%s", f.err);
	w = zgwalk_info(&f, "warning", 0);
	assert_non_null(w);
	assert_non_null(strstr(w, "CUPTI could not subscribe"));
	assert_non_null(zgwalk_info(&f, "cupti_version", 0));
	assert_true(strstr(zgwalk_info(&f, "library", 0), "libztcupti.so") != NULL);
	assert_int_equal(zgwalk_count(&f, ZG_COUNTERS), 1);
	{
		struct stat st;

		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
	}
	zgwalk_free(&f);
	zgwalk_rmdir(dir);

	/* verbose=1: the warning on stderr too */
	assert_non_null(zgwalk_tmpdir(dir, sizeof(dir)));
	run_child(&r, dir, "verbose=1", 0);
	assert_int_equal(r.ret, 1);
	assert_non_null(strstr(r.out, "zt gpu: CUPTI could not subscribe"));
	assert_int_equal(files_in(dir), 1);
	zgwalk_rmdir(dir);

	/* no ZT_GPU_DIR, or one that does not exist: no file, not a word */
	assert_non_null(zgwalk_tmpdir(dir, sizeof(dir)));
	run_child(&r, NULL, NULL, 0);
	assert_int_equal(r.ret, 1);
	assert_string_equal(r.out, "");
	snprintf(path, sizeof(path), "%s/missing", dir);
	run_child(&r, path, NULL, 0);
	assert_int_equal(r.ret, 1);
	assert_string_equal(r.out, "");
	assert_int_equal(files_in(dir), 0);
	run_child(&r, path, "verbose=1", 0);
	assert_non_null(strstr(r.out, "cannot create a file in"));
	zgwalk_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exports),
		cmocka_unit_test(test_usdt_note),
		cmocka_unit_test(test_inject_no_driver),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
