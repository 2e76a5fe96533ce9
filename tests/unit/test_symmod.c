/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symmod: symmod_seg_vaddr(), the one file offset -> ELF vaddr conversion,
 * on the load segments of each linker's layout (lld's segments sharing file
 * pages, GNU ld with and without -z separate-code, a PIE at a nonzero base,
 * a debug file's segments without contents), and symmod_elf_segments_of()
 * on this test binary's own segments.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbolizer/symmod.h"

static uint64_t at(const struct symmod_seg *s, size_t n, uint64_t off)
{
	uint64_t v = UINT64_MAX;

	assert_int_equal(symmod_seg_vaddr(s, n, off, &v), 0);
	return v;
}

static void none(const struct symmod_seg *s, size_t n, uint64_t off)
{
	uint64_t v = 0;

	assert_int_equal(symmod_seg_vaddr(s, n, off, &v), -ENOENT);
}

/* gcc -fuse-ld=lld: R at 0/0, R E at 0x990/0x1990, RW at 0xf80/0x2f80 and
 * 0x1158/0x4158 (readelf -lW). The code's mapping has pgoff 0, which the R
 * segment holds too: the code's offsets must go through the R E segment. */
static void test_lld(void **state)
{
	static const struct symmod_seg s[] = {
		{0x0, 0x0, 0x98c},
		{0x990, 0x1990, 0x5f0},
		{0xf80, 0x2f80, 0x1d8},
		{0x1158, 0x4158, 0x68},
	};

	(void)state;
	assert_int_equal(at(s, 4, 0xb04), 0x1b04); /* nf_leaf's hot loop */
	assert_int_equal(at(s, 4, 0x990), 0x1990);
	assert_int_equal(at(s, 4, 0xf7f), 0x1f7f);
	assert_int_equal(at(s, 4, 0x100), 0x100); /* .rodata, in the same page */
	assert_int_equal(at(s, 4, 0x1160), 0x4160);
	none(s, 4, 0x98e);  /* between two segments' bytes */
	none(s, 4, 0x11c0); /* past the last */
}

/* GNU ld, -z separate-code (Debian's default) and -z noseparate-code: code
 * at a page of its own, or in the first segment; a PIE at 0x10000000
 * (-Ttext-segment, as prelink leaves one). */
static void test_gnu(void **state)
{
	static const struct symmod_seg sep[] = {
		{0x0, 0x0, 0x6a0},
		{0x1000, 0x1000, 0x3c5},
		{0x2000, 0x2000, 0x1cc},
		{0x2db8, 0x3db8, 0x260},
	};
	static const struct symmod_seg nosep[] = {
		{0x0, 0x0, 0x9bc},
		{0xdb8, 0x1db8, 0x260},
	};
	static const struct symmod_seg based[] = {
		{0x0, 0x10000000, 0x6a0},
		{0x1000, 0x10001000, 0x3c5},
		{0x2db8, 0x10003db8, 0x260},
	};

	(void)state;
	assert_int_equal(at(sep, 4, 0x1139), 0x1139);
	assert_int_equal(at(sep, 4, 0x2dc0), 0x3dc0);
	none(sep, 4, 0x800);
	assert_int_equal(at(nosep, 2, 0x5a9), 0x5a9);
	assert_int_equal(at(nosep, 2, 0xdc0), 0x1dc0);
	assert_int_equal(at(based, 3, 0x1139), 0x10001139);
	assert_int_equal(at(based, 3, 0x10), 0x10000010);
}

/* No segments: nothing converts (symmod_offset_to_vaddr() takes offsets as
 * addresses then, for a module without program headers). */
static void test_empty(void **state)
{
	(void)state;
	none(NULL, 0, 0);
	none(NULL, 0, 0x1234);
}

/* This binary's own segments, read from its ELF open in libelf: the
 * offset of each segment's first byte is its p_vaddr. */
static void test_self(void **state)
{
	struct symmod_seg segs[32];
	size_t n, i, k = 0, phnum;
	Elf *e;
	int fd;

	(void)state;
	elf_version(EV_CURRENT);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(e);
	assert_int_equal(symmod_elf_segments_of(e, 0, segs, 32, &n), 0);
	assert_true(n >= 2 && n <= 32);
	assert_int_equal(elf_getphdrnum(e, &phnum), 0);
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		assert_non_null(gelf_getphdr(e, (int)i, &ph));
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		k++;
		assert_int_equal(at(segs, n, ph.p_offset), ph.p_vaddr);
		assert_int_equal(at(segs, n, ph.p_offset + ph.p_filesz - 1),
				 ph.p_vaddr + ph.p_filesz - 1);
	}
	assert_true(k >= 2);
	/* code only */
	assert_int_equal(symmod_elf_segments_of(e, 1, segs, 32, &n), 0);
	assert_true(n >= 1 && n < k);
	elf_end(e);
	close(fd);
	assert_int_equal(symmod_elf_segments_of(NULL, 0, segs, 32, &n), -ENOEXEC);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lld),
		cmocka_unit_test(test_gnu),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
