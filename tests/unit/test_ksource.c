// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ksource: kernel symbols from a file or this host, relocated by _text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbolizer/kallsyms.h"
#include "symbolizer/ksource.h"
#include "testutil.h"

static char dir[64];

/* the same build in another boot: 0x20000000 higher; modules elsewhere */
static const char other_boot[] = "ffffffffa1000000 T _text\n"
				 "ffffffffa1000100 T startup_64\n"
				 "ffffffffa1000200 d some_data\n"
				 "ffffffffa1000400 T schedule\n"
				 "ffffffffa1100000 T _etext\n"
				 "ffffffffc0001000 t mod_fn\t[mymod]\n"
				 "ffffffffc0001080 t mod_fn2\t[mymod]\n"
				 "not a line\n";

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

/* An ELF note list as in /sys/kernel/notes: a "Linux" note, then GNU's. */
static size_t make_notes(uint8_t *out, uint8_t first)
{
	uint32_t h1[3] = { 6, 4, 0x101 }, h2[3] = { 4, 20, 3 };
	size_t n = 0;
	int i;

	memcpy(out + n, h1, 12);
	n += 12;
	memcpy(out + n, "Linux\0\0\0", 8);
	n += 8;
	memset(out + n, 1, 4);
	n += 4;
	memcpy(out + n, h2, 12);
	n += 12;
	memcpy(out + n, "GNU", 4);
	n += 4;
	for (i = 0; i < 20; i++)
		out[n++] = (uint8_t)(first + i);
	return n;
}

static void test_relocate(void **state)
{
	struct zbuf out;

	(void)state;
	assert_int_equal(ksyms_text_addr(other_boot, sizeof(other_boot) - 1), 0xffffffffa1000000ull);
	assert_int_equal(ksyms_text_addr("ffffffffa1000000 T _textx\n", 26), 0);
	assert_int_equal(ksyms_text_addr("", 0), 0);
	zbuf_init(&out);
	/* moved down: the delta wraps */
	assert_int_equal(ksyms_relocate(other_boot, sizeof(other_boot) - 1, (uint64_t)-0x20000000ll, &out), 0);
	zbuf_put_u8(&out, 0);
	assert_string_equal((char *)out.data, "ffffffff81000000 T _text\n"
					      "ffffffff81000100 T startup_64\n"
					      "ffffffff81000200 d some_data\n"
					      "ffffffff81000400 T schedule\n"
					      "ffffffff81100000 T _etext\n"
					      "ffffffffc0001000 t mod_fn\t[mymod]\n"
					      "ffffffffc0001080 t mod_fn2\t[mymod]\n");
	zbuf_release(&out);
	/* zero addresses (kptr_restrict) stay zero; a last line without newline */
	zbuf_init(&out);
	assert_int_equal(ksyms_relocate("0000000000000000 T a\nffff T b", 29, 0x10, &out), 0);
	zbuf_put_u8(&out, 0);
	assert_string_equal((char *)out.data, "0000000000000000 T a\n000000000001000f T b\n");
	zbuf_release(&out);
}

static void test_notes(void **state)
{
	uint8_t notes[128];
	struct prof_build_id b;
	size_t n = make_notes(notes, 7);

	(void)state;
	assert_int_equal(ksyms_notes_build_id(notes, n, &b), 0);
	assert_int_equal(b.len, 20);
	assert_int_equal(b.data[0], 7);
	assert_int_equal(b.data[19], 26);
	assert_int_equal(ksyms_notes_build_id(notes, 24, &b), -ENOENT); /* the Linux note only */
	assert_int_equal(ksyms_notes_build_id(notes, n - 1, &b), -ENOENT); /* cut short */
	assert_int_equal(b.len, 0);
}

/* A perf.data-like profile: the kernel mapping at the recorded _text, a
 * stack through schedule+0x10 and mod_fn+0x10. */
static void make_profile(struct profile *p, const struct prof_build_id *bid)
{
	struct prof_mmap m = { 0 };
	uint64_t ips[3] = { 0xffffffff81000410, 0xffffffffc0001010, 0x401000 };
	uint32_t id;

	profile_init(p);
	profile_set_meta(p, "hostname", "rec-host");
	profile_set_meta(p, "os_release", "9.9-rec");
	m.pid = ZT_PID_KERNEL;
	m.start = m.pgoff = 0xffffffff81000000;
	m.len = 0x1000000;
	m.path = "[kernel.kallsyms]";
	assert_int_equal(profile_add_mmap(p, &m), 0);
	assert_int_equal(profile_intern_stack(p, ips, 2, 1, &id), 0);
	if (bid)
		assert_int_equal(profile_add_blob(p, PROF_BLOB_KERNEL_BUILD_ID, 0, 0, bid->data, bid->len), 0);
}

/* The name the profile's kallsyms give addr, "" when none. */
static const char *name_of(const struct profile *p, uint64_t addr, uint64_t *off)
{
	static char buf[64];
	const struct prof_blob *b = profile_find_blob(p, PROF_BLOB_KALLSYMS, UINT32_MAX);
	struct kallsyms *k;
	const char *s, *mod;

	buf[0] = 0;
	if (!b || kallsyms_parse((const char *)b->data, b->len, &k))
		return buf;
	s = kallsyms_lookup(k, addr, off, &mod);
	snprintf(buf, sizeof(buf), "%s", s ? s : "");
	kallsyms_free(k);
	return buf;
}

static void test_kallsyms_file(void **state)
{
	struct ksource_opts o = { 0 };
	struct ksource_info info;
	struct profile p;
	char path[128];
	uint64_t off = 0;
	size_t i, n;

	(void)state;
	path_of(path, sizeof(path), "shifted");
	write_file(path, other_boot, sizeof(other_boot) - 1);
	make_profile(&p, NULL);
	o.kallsyms = path;
	assert_int_equal(ksource_add(&p, &o, &info), 0);
	assert_int_equal(info.rec_text, 0xffffffff81000000ull);
	assert_int_equal(info.src_text, 0xffffffffa1000000ull);
	assert_int_equal(info.delta, (uint64_t)-0x20000000ll);
	assert_string_equal(name_of(&p, 0xffffffff81000410, &off), "schedule");
	assert_int_equal(off, 0x10);
	/* modules: as perf, where the file has them */
	assert_string_equal(name_of(&p, 0xffffffffc0001010, &off), "mod_fn");
	/* given again: the lines are replaced, not added to */
	assert_int_equal(ksource_add(&p, &o, &info), 0);
	for (i = n = 0; i < p.nr_blobs; i++)
		n += p.blobs[i].kind == PROF_BLOB_KALLSYMS;
	assert_int_equal(n, 1);
	profile_release(&p);

	/* no recorded _text (zt.data without one): not moved */
	make_profile(&p, NULL);
	p.mmaps[0].pgoff = 0;
	p.ips[p.stacks[0].off] = 0xffffffffa1000410;
	assert_int_equal(ksource_add(&p, &o, &info), 0);
	assert_int_equal(info.delta, 0);
	assert_string_equal(name_of(&p, 0xffffffffa1000410, &off), "schedule");
	profile_release(&p);

	/* a missing file */
	make_profile(&p, NULL);
	o.kallsyms = "/nonexistent/kallsyms";
	assert_int_equal(ksource_add(&p, &o, &info), -ENOENT);
	assert_null(profile_find_blob(&p, PROF_BLOB_KALLSYMS, UINT32_MAX));
	profile_release(&p);
}

static void test_recorded_kallsyms(void **state)
{
	struct ksource_opts o = { 0 };
	struct ksource_info info;
	struct profile p;
	char path[128];
	uint64_t off;
	static const char old[] = "ffffffff81000000 T _text\nffffffff81000400 T old_name\n";
	static const char fake[] = "ffff900000000000 T _text\nffff900000100000 t schedule\n";

	(void)state;
	path_of(path, sizeof(path), "shifted");
	write_file(path, other_boot, sizeof(other_boot) - 1);
	/* zt.data: its own lines, _text in them, no kernel mapping */
	make_profile(&p, NULL);
	p.mmaps[0].pgoff = 0;
	assert_int_equal(profile_add_blob(&p, PROF_BLOB_KALLSYMS, 0, 0, old, strlen(old)), 0);
	assert_int_equal(ksource_add(&p, &o, &info), -EEXIST);
	assert_string_equal(name_of(&p, 0xffffffff81000410, &off), "old_name");
	o.kallsyms = path;
	assert_int_equal(ksource_add(&p, &o, &info), 0);
	assert_int_equal(info.rec_text, 0xffffffff81000000ull);
	assert_string_equal(name_of(&p, 0xffffffff81000410, &off), "schedule");
	profile_release(&p);

	/* slot addresses of a recording made for a user without kernel addresses */
	make_profile(&p, NULL);
	p.mmaps[0].pgoff = 0;
	assert_int_equal(profile_add_blob(&p, PROF_BLOB_KALLSYMS, 0, 0, fake, sizeof(fake) - 1), 0);
	assert_int_equal(ksource_add(&p, &o, &info), -ENOTSUP);
	profile_release(&p);
}

static void test_host(void **state)
{
	struct ksource_opts o = { 0 };
	struct ksource_info info;
	struct prof_build_id bid = { 20, { 0 } }, other = { 20, { 0 } };
	struct profile p;
	char ks[128], notes_path[128], zeros[128];
	uint8_t notes[128];
	uint64_t off;
	size_t n = make_notes(notes, 7);
	int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		bid.data[i] = (uint8_t)(7 + i);
		other.data[i] = (uint8_t)(100 + i);
	}
	path_of(ks, sizeof(ks), "host-kallsyms");
	write_file(ks, other_boot, sizeof(other_boot) - 1);
	path_of(notes_path, sizeof(notes_path), "notes");
	write_file(notes_path, notes, n);
	path_of(zeros, sizeof(zeros), "zeros");
	write_file(zeros, "0000000000000000 T _text\n0000000000000000 T fn\n", 47);
	o.host_kallsyms = ks;
	o.host_notes = notes_path;
	o.host_name = "this-host";
	o.host_release = "1.0-this";

	/* the same build (build ids equal), another boot: relocated */
	make_profile(&p, &bid);
	assert_int_equal(ksource_add(&p, &o, &info), 0);
	assert_true(info.same_build);
	assert_int_equal(info.delta, (uint64_t)-0x20000000ll);
	assert_string_equal(name_of(&p, 0xffffffff81000410, &off), "schedule");
	assert_int_equal(ksource_add(&p, &o, &info), -EEXIST);
	profile_release(&p);

	/* another build: not used, whatever the host names */
	make_profile(&p, &other);
	profile_set_meta(&p, "hostname", "this-host");
	profile_set_meta(&p, "os_release", "1.0-this");
	assert_int_equal(ksource_add(&p, &o, &info), -EXDEV);
	assert_null(profile_find_blob(&p, PROF_BLOB_KALLSYMS, UINT32_MAX));
	profile_release(&p);

	/* no recorded build id: hostname and release decide */
	make_profile(&p, NULL);
	assert_int_equal(ksource_add(&p, &o, &info), -EXDEV);
	profile_set_meta(&p, "hostname", "this-host");
	profile_set_meta(&p, "os_release", "1.0-this");
	o.host_kallsyms = zeros;
	assert_int_equal(ksource_add(&p, &o, &info), -EACCES);
	o.host_kallsyms = ks;
	assert_int_equal(ksource_add(&p, &o, &info), 0);
	assert_string_equal(name_of(&p, 0xffffffff81000410, &off), "schedule");
	profile_release(&p);
}

static void test_vmlinux(void **state)
{
	struct ksource_opts o = { 0 };
	struct ksource_info info;
	struct prof_build_id bid = { 20, { 0 } }, got;
	struct profile p;
	struct zbuf z;
	char src[128], elf[128], plain[128];
	uint64_t off;
	int i;
	static const char code[] = "__asm__(\".text\\n.globl _text\\n_text:\\n nop\\n\");\n"
				   "void schedule(void) { for (;;) ; }\n"
				   "void do_syscall_64(void) { for (;;) ; }\n"
				   "void _start(void) { schedule(); }\n";

	(void)state;
	for (i = 0; i < 20; i++)
		bid.data[i] = (uint8_t)(0xa0 + i);
	path_of(src, sizeof(src), "v.c");
	path_of(elf, sizeof(elf), "vmlinux");
	path_of(plain, sizeof(plain), "not-a-kernel");
	write_file(src, code, sizeof(code) - 1);
	/* linked at another boot's _text, with the recording's build id */
	assert_int_equal(run("cc -O1 -fno-pic -no-pie -mcmodel=kernel -nostdlib -static "
			     "-Wl,--build-id=0xa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3 "
			     "-Wl,-Ttext=0xffffffffa1000000 -o %s %s",
			     elf, src), 0);
	zbuf_init(&z);
	assert_int_equal(ksyms_from_vmlinux(elf, &z, &got), 0);
	assert_int_equal(got.len, 20);
	assert_memory_equal(got.data, bid.data, 20);
	zbuf_put_u8(&z, 0);
	assert_non_null(strstr((char *)z.data, "ffffffffa1000000 T _text\n"));
	assert_non_null(strstr((char *)z.data, " t schedule\n"));
	assert_non_null(strstr((char *)z.data, " t do_syscall_64\n"));
	zbuf_release(&z);
	assert_int_equal(ksyms_from_vmlinux(src, &z, &got), -ENOEXEC);
	zbuf_release(&z);

	/* schedule is at _text + 1: the recorded address is 0xffffffff81000001 + 1 */
	make_profile(&p, &bid);
	p.stacks[0].nk = 1;
	p.ips[p.stacks[0].off] = 0xffffffff81000002;
	o.vmlinux = elf;
	assert_int_equal(ksource_add(&p, &o, &info), 0);
	assert_int_equal(info.delta, (uint64_t)-0x20000000ll);
	assert_string_equal(name_of(&p, 0xffffffff81000002, &off), "schedule");
	assert_int_equal(off, 1);
	profile_release(&p);

	/* a vmlinux of another build: not used (perf's symsrc__init) */
	bid.data[0] ^= 1;
	make_profile(&p, &bid);
	assert_int_equal(ksource_add(&p, &o, &info), -EKEYREJECTED);
	assert_null(profile_find_blob(&p, PROF_BLOB_KALLSYMS, UINT32_MAX));
	profile_release(&p);

	/* no _text: not a kernel */
	assert_int_equal(run("cc -O1 -nostdlib -static -o %s -x c - <<'EOF'\nvoid _start(void) { for (;;) ; }\nEOF",
			     plain), 0);
	make_profile(&p, NULL);
	o.vmlinux = plain;
	assert_int_equal(ksource_add(&p, &o, &info), -ENOENT);
	profile_release(&p);
}

static void test_live(void **state)
{
	struct ksource_opts o = { 0 };
	struct ksource_info info;
	char path[128], *text = NULL;
	size_t len;

	(void)state;
	path_of(path, sizeof(path), "shifted");
	write_file(path, other_boot, sizeof(other_boot) - 1);
	assert_int_equal(ksource_live(&o, 0xffffffff81000000, &text, &len, &info), -EINVAL);
	o.kallsyms = path;
	assert_int_equal(ksource_live(&o, 0xffffffff81000000, &text, &len, &info), 0);
	assert_int_equal(ksyms_text_addr(text, len), 0xffffffff81000000ull);
	assert_non_null(memmem(text, len, "ffffffff81000400 T schedule\n", 28));
	free(text);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/zt-ksource-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return run("rm -rf '%s'", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relocate),	  cmocka_unit_test(test_notes),
		cmocka_unit_test(test_kallsyms_file),	  cmocka_unit_test(test_recorded_kallsyms),
		cmocka_unit_test(test_host),		  cmocka_unit_test(test_vmlinux),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
