/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The USDT probe zt:launch with libbpf 1.1, as zt record attaches it
 * (bpf_program__attach_usdt on provider "zt", name "launch"): the
 * semaphore rises while a program is attached (so stacks=auto fires the
 * probe instead of unwinding), the probe's three arguments arrive, and in
 * libztcupti.so itself libbpf resolves the hidden semaphore and the kernel
 * raises it when the library is mapped. Needs root (CAP_BPF, CAP_PERFMON):
 * skipped otherwise.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cupti/core.h"
#include "tests/unit/cupti/zgwalk.h"

#ifndef ZT_USDT_BPF
#error "ZT_USDT_BPF: the path of the test's BPF object"
#endif

/* core.c's semaphore: hidden, but this executable links core.o */
extern unsigned short zt_launch_semaphore;

static char libbpf_log[8192];

static int on_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(libbpf_log);

	if (level != LIBBPF_DEBUG && n < sizeof(libbpf_log) - 1)
		vsnprintf(libbpf_log + n, sizeof(libbpf_log) - n, fmt, ap);
	return 0;
}

static unsigned short semaphore(const volatile unsigned short *p)
{
	return *p;
}

/* the loaded test program, or a skip when this process may not load BPF */
static struct bpf_object *load(struct bpf_program **prog)
{
	struct bpf_object *obj;
	int err;

	if (geteuid() != 0) {
		print_message("SKIP: BPF needs root (CAP_BPF and CAP_PERFMON)\n");
		skip();
	}
	libbpf_set_print(on_libbpf);
	obj = bpf_object__open_file(ZT_USDT_BPF, NULL);
	assert_non_null(obj);
	assert_int_equal(libbpf_get_error(obj), 0);
	err = bpf_object__load(obj);
	if (err == -EPERM || err == -EACCES || err == -ENOSYS) {
		bpf_object__close(obj);
		print_message("SKIP: cannot load BPF here: %s\n", strerror(-err));
		skip();
	}
	if (err)
		fail_msg("bpf_object__load: %d: %s", err, libbpf_log);
	*prog = bpf_object__find_program_by_name(obj, "on_launch");
	assert_non_null(*prog);
	return obj;
}

static uint64_t hit(struct bpf_object *obj, uint32_t k)
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "hits"));
	uint64_t v = 0;

	assert_int_equal(bpf_map_lookup_elem(fd, &k, &v), 0);
	return v;
}

static uint32_t one_launch(const char *opts, uint32_t corr)
{
	char dir[64], path[256];
	struct zc_launch l = {zc_now(), 0, corr, 307, 1, 0, 0};
	struct zg_launch zl;
	struct zgw_file f;
	struct zc_opts o;
	struct zc *zc;
	size_t i;

	zc_opts_parse(&o, opts, NULL, 0);
	assert_non_null(zgwalk_tmpdir(dir, sizeof(dir)));
	zc = zc_new(&o);
	assert_int_equal(zc_open(zc, dir), 0);
	zc_launch_enter(zc, &l);
	zc_launch_exit(zc, corr);
	zc_finish(zc);
	assert_int_equal(zgwalk_find(dir, path, sizeof(path)), 0);
	if (zgwalk_load(&f, path))
		fail_msg("%s", f.err);
	assert_int_equal(zgwalk_count(&f, ZG_LAUNCH), 1);
	for (i = 0; i < f.nfr; i++)
		if (f.fr[i].type == ZG_LAUNCH)
			memcpy(&zl, f.fr[i].p, sizeof(zl));
	zgwalk_free(&f);
	zc_free(zc);
	zgwalk_rmdir(dir);
	return zl.flags;
}

/* attached: the semaphore is up, stacks=auto fires the probe with its arguments */
static void test_usdt_in_process(void **state)
{
	struct bpf_program *prog;
	struct bpf_object *obj = load(&prog);
	struct bpf_link *link;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = 0;
	assert_int_equal(semaphore(&zt_launch_semaphore), 0);
	assert_int_equal(one_launch("stacks=auto", 1), ZG_L_STACK);
	link = bpf_program__attach_usdt(prog, getpid(), exe, "zt", "launch", NULL);
	if (libbpf_get_error(link))
		fail_msg("bpf_program__attach_usdt: %ld: %s", libbpf_get_error(link), libbpf_log);
	assert_true(semaphore(&zt_launch_semaphore) >= 1);
	assert_int_equal(one_launch("stacks=auto", 4242), ZG_L_USDT);
	assert_int_equal(hit(obj, 0), 1);
	assert_int_equal(hit(obj, 1), 4242);
	assert_int_equal(hit(obj, 2), 307);
	assert_int_equal(hit(obj, 3), 1);
	/* over the rate: the probe does not fire */
	assert_int_equal(one_launch("stacks=auto,stack_rate=0", 7), 0);
	assert_int_equal(hit(obj, 0), 1);
	bpf_link__destroy(link);
	assert_int_equal(semaphore(&zt_launch_semaphore), 0);
	assert_int_equal(one_launch("stacks=auto", 2), ZG_L_STACK);
	bpf_object__close(obj);
}

struct find_lib {
	const char *path;
	uintptr_t base;
};

static int on_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_lib *f = arg;

	if (info->dlpi_name && !strcmp(info->dlpi_name, f->path)) {
		f->base = info->dlpi_addr;
		return 1;
	}
	return 0;
}

/* the semaphore's address in the library, from its zt:launch note */
static uint64_t lib_semaphore(void)
{
	size_t shstr, off = 0, name_off, desc_off;
	uint64_t sema = 0;
	Elf_Scn *s = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	int fd;
	Elf *e;

	elf_version(EV_CURRENT);
	fd = open(ZT_CUPTI_LIB, O_RDONLY);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &shstr), 0);
	while ((s = elf_nextscn(e, s))) {
		gelf_getshdr(s, &sh);
		if (!strcmp(elf_strptr(e, shstr, sh.sh_name), ".note.stapsdt")) {
			Elf_Data *d = elf_getdata(s, NULL);

			while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
				memcpy(&sema, (const char *)d->d_buf + desc_off + 16, 8);
		}
	}
	elf_end(e);
	close(fd);
	return sema;
}

/* libbpf finds the library's hidden semaphore; the kernel raises it once mapped */
static void test_usdt_library(void **state)
{
	struct bpf_program *prog;
	struct bpf_object *obj = load(&prog);
	struct find_lib fl = {ZT_CUPTI_LIB, 0};
	uint64_t sema = lib_semaphore();
	struct bpf_link *link;
	void *h;

	assert_true(sema != 0);
	link = bpf_program__attach_usdt(prog, getpid(), ZT_CUPTI_LIB, "zt", "launch", NULL);
	if (libbpf_get_error(link))
		fail_msg("bpf_program__attach_usdt on %s: %ld: %s", ZT_CUPTI_LIB,
			 libbpf_get_error(link), libbpf_log);
	h = dlopen(ZT_CUPTI_LIB, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	dl_iterate_phdr(on_phdr, &fl);
	assert_true(fl.base != 0);
	assert_true(semaphore((const unsigned short *)(fl.base + sema)) >= 1);
	bpf_link__destroy(link);
	assert_int_equal(semaphore((const unsigned short *)(fl.base + sema)), 0);
	dlclose(h);
	bpf_object__close(obj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usdt_in_process),
		cmocka_unit_test(test_usdt_library),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
