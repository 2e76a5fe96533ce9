/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the one SHA-256 wrapper: FIPS 180-2 vectors, pieces, files. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbolizer/sha256.h"

#define EMPTY	  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define ABC	  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define ABC56	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
#define MILLION_A "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
#define TWO_56	  "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"

static void test_one_piece(void **state)
{
	char hex[ZT_SHA256_HEX_LEN];
	uint8_t md[ZT_SHA256_LEN];

	(void)state;
	assert_int_equal(zt_sha256_hex("", 0, hex), 0);
	assert_string_equal(hex, EMPTY);
	assert_int_equal(zt_sha256_hex("abc", 3, hex), 0);
	assert_string_equal(hex, ABC);
	assert_int_equal(zt_sha256_hex(TWO_56, strlen(TWO_56), hex), 0);
	assert_string_equal(hex, ABC56);
	assert_int_equal(zt_sha256("abc", 3, md), 0);
	assert_int_equal(md[0], 0xba);
	assert_int_equal(md[31], 0xad);
}

/* a million 'a' in pieces of every size from 1 to 199 bytes */
static void test_pieces(void **state)
{
	static char a[200];
	uint8_t md[ZT_SHA256_LEN], ref[ZT_SHA256_LEN];
	char *all = malloc(1000000);
	struct zt_sha256 h;
	size_t done = 0, k = 1;

	(void)state;
	assert_non_null(all);
	memset(a, 'a', sizeof(a));
	memset(all, 'a', 1000000);
	zt_sha256_init(&h);
	while (done < 1000000) {
		size_t n = 1000000 - done < k ? 1000000 - done : k;

		zt_sha256_update(&h, a, n);
		done += n;
		k = k % 199 + 1;
	}
	zt_sha256_update(&h, NULL, 0);
	assert_int_equal(zt_sha256_final(&h, md), 0);
	assert_null(h.ctx);
	assert_int_equal(zt_sha256(all, 1000000, ref), 0);
	assert_memory_equal(md, ref, sizeof(md));
	{
		char hex[ZT_SHA256_HEX_LEN];

		assert_int_equal(zt_sha256_hex(all, 1000000, hex), 0);
		assert_string_equal(hex, MILLION_A);
	}
	free(all);
	/* nothing fed: the empty message */
	zt_sha256_init(&h);
	assert_int_equal(zt_sha256_final(&h, md), 0);
	assert_int_equal(zt_sha256("", 0, ref), 0);
	assert_memory_equal(md, ref, sizeof(md));
}

static void test_fd(void **state)
{
	char path[] = "/tmp/zt-test-sha256.XXXXXX", hex[ZT_SHA256_HEX_LEN], want[ZT_SHA256_HEX_LEN];
	uint8_t md[ZT_SHA256_LEN], ref[ZT_SHA256_LEN];
	size_t n = 3 * 65536 + 123;
	char *buf = malloc(n);
	int fd = mkstemp(path);

	(void)state;
	assert_non_null(buf);
	assert_true(fd >= 0);
	unlink(path);
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(i * 7 + 3);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	/* the whole file, the file offset left where it was */
	assert_int_equal(zt_sha256_fd(fd, ZT_SHA256_ALL, md), 0);
	assert_int_equal(zt_sha256(buf, n, ref), 0);
	assert_memory_equal(md, ref, sizeof(md));
	assert_int_equal(lseek(fd, 0, SEEK_CUR), (off_t)n);
	/* its first bytes, across a read's size and not */
	assert_int_equal(zt_sha256_fd(fd, 65536 + 1, md), 0);
	assert_int_equal(zt_sha256(buf, 65536 + 1, ref), 0);
	assert_memory_equal(md, ref, sizeof(md));
	assert_int_equal(zt_sha256_fd(fd, 0, md), 0);
	assert_int_equal(zt_sha256("", 0, ref), 0);
	assert_memory_equal(md, ref, sizeof(md));
	/* more than there is: the file shrank */
	assert_int_equal(zt_sha256_fd(fd, n + 1, md), -EIO);
	/* the exact length, in hex */
	assert_int_equal(zt_sha256_fd_hex(fd, n, hex), 0);
	assert_int_equal(zt_sha256_hex(buf, n, want), 0);
	assert_string_equal(hex, want);
	/* a bad descriptor */
	assert_int_equal(zt_sha256_fd(-1, ZT_SHA256_ALL, md), -EBADF);
	close(fd);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_piece),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
