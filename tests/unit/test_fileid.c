/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fileid: OTel's own test vectors (libpf/fileid_test.go), and files of every
 * interesting size around the 4 KiB head/tail checked against Python's
 * hashlib computing the definition independently.
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
#include <unistd.h>

#include <cmocka.h>

#include "symbolizer/fileid.h"

static char tmpdir[] = "/tmp/zt-test-fileid.XXXXXX";

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd);
}

static void test_otel_vectors(void **state)
{
	static const uint8_t elf[] = { 0x7f, 'E', 'L', 'F', 0x00, 0x01, 0x02, 0x03, 0x04 };
	struct prof_build_id kb = { 16, { 0xf8, 0xe1, 0xcf, 0x0f, 0x60, 0x55, 0x80, 0x98, 0xed, 0xae,
					  0xc1, 0x64, 0xac, 0x77, 0x49, 0xdf } };
	struct zt_fileid id;
	char hex[ZT_FILEID_HEX_LEN], b64[ZT_FILEID_B64_LEN];
	uint64_t hi, lo;

	/* TestFileIDFromExecutableReader */
	assert_int_equal(fileid_from_mem(elf, sizeof(elf), &id), 0);
	assert_string_equal(fileid_hex(&id, hex), "caf6e5907166ac76eef618e5f7f59cd9");
	fileid_words(&id, &hi, &lo);
	assert_true(hi == 0xcaf6e5907166ac76ULL && lo == 0xeef618e5f7f59cd9ULL);
	/* TestFileIDFromKernelBuildID */
	fileid_from_kernel_build_id(&kb, &id);
	assert_string_equal(fileid_hex(&id, hex), "026a2d6a60ee6b4eb8ec85adf2e76f4d");
	/* TestFileIDBase64: NewFileID(0x12345678124397f5, 0x876543218774849e) */
	assert_int_equal(fileid_parse_hex("12345678124397F5876543218774849e", &id), 0);
	assert_string_equal(fileid_base64(&id, b64), "EjRWeBJDl_WHZUMhh3SEng");
	assert_int_equal(fileid_parse_hex("12345678124397ff87654321877484a8", &id), 0);
	assert_string_equal(fileid_base64(&id, b64), "EjRWeBJDl_-HZUMhh3SEqA");
	/* TestInvalidFileIDs */
	assert_int_equal(fileid_parse_hex("600DCAFE4A11000", &id), -EINVAL);
	assert_int_equal(fileid_parse_hex("600DCAFE4A110000F2BF38C493F5FB9G", &id), -EINVAL);
	assert_int_equal(fileid_parse_hex("600DCAFE4A110000F2BF38C493F5FB921", &id), -EINVAL);
	assert_int_equal(fileid_parse_hex("600DCAFE4A110000F2BF38C493F5FB92", &id), 0);
	assert_string_equal(fileid_hex(&id, hex), "600dcafe4a110000f2bf38c493f5fb92");
}

/* the definition, written again in Python */
static void python_fileid(const char *path, char out[ZT_FILEID_HEX_LEN])
{
	char cmd[1024], line[128];
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import hashlib,sys\n"
		 "d=open(sys.argv[1],\"rb\").read(); n=min(4096,len(d))\n"
		 "print(hashlib.sha256(d[:n]+d[len(d)-n:]+len(d).to_bytes(8,\"big\")).hexdigest()[:32])' %s",
		 path);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(pclose(f), 0);
	line[strcspn(line, "\n")] = 0;
	assert_int_equal(strlen(line), 32);
	memcpy(out, line, ZT_FILEID_HEX_LEN);
}

static void test_sizes_against_python(void **state)
{
	static const size_t sizes[] = { 0, 1, 9, 4095, 4096, 4097, 8191, 8192, 8193, 12345, 1 << 20 };
	char path[512], want[ZT_FILEID_HEX_LEN], hex[ZT_FILEID_HEX_LEN];
	char self[512];
	struct zt_fileid a, b, c;
	uint8_t *buf;
	ssize_t k;
	size_t i, j;

	buf = malloc(1 << 20);
	assert_non_null(buf);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t x = 12345 + (uint32_t)i;
		int fd;

		for (j = 0; j < sizes[i]; j++) {
			x = x * 1103515245 + 12345;
			buf[j] = (uint8_t)(x >> 16);
		}
		snprintf(path, sizeof(path), "%s/f%zu", tmpdir, sizes[i]);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, buf, sizes[i]), (ssize_t)sizes[i]);
		/* the fd's offset is left where it was */
		assert_int_equal(lseek(fd, 3, SEEK_SET), 3);
		assert_int_equal(fileid_from_fd(fd, &a), 0);
		assert_int_equal(lseek(fd, 0, SEEK_CUR), 3);
		close(fd);
		assert_int_equal(fileid_from_path(path, &b), 0);
		assert_int_equal(fileid_from_mem(sizes[i] ? buf : NULL, sizes[i], &c), 0);
		python_fileid(path, want);
		assert_string_equal(fileid_hex(&a, hex), want);
		assert_memory_equal(a.b, b.b, ZT_FILEID_LEN);
		assert_memory_equal(a.b, c.b, ZT_FILEID_LEN);
	}
	free(buf);
	/* a real ELF: this test binary */
	k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(k > 0);
	self[k] = 0;
	assert_int_equal(fileid_from_path(self, &a), 0);
	python_fileid(self, want);
	assert_string_equal(fileid_hex(&a, hex), want);
}

static void test_errors(void **state)
{
	struct zt_fileid id;
	int fd;

	assert_int_equal(fileid_from_path("/nonexistent/x", &id), -ENOENT);
	assert_int_equal(fileid_from_path("/", &id), -EINVAL);
	fd = open("/proc/self/stat", O_RDONLY);
	assert_true(fd >= 0);
	/* a /proc file: stat says size 0, hashed as empty (it is a regular file) */
	assert_int_equal(fileid_from_fd(fd, &id), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_otel_vectors),
		cmocka_unit_test(test_sizes_against_python),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
