/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary bytes as a zt archive, unpacked into a private directory. */
#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolizer/symarchive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static int dfd = -1;

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void cleanup(void)
{
	if (dir[0])
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Everything unpacked must be a regular file or directory of the layout,
 * inside dir. */
static int check_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (strncmp(path, dir, strlen(dir)))
		abort();
	if (flag == FTW_SL || (!S_ISREG(sb->st_mode) && !S_ISDIR(sb->st_mode)))
		abort();
	if (S_ISREG(sb->st_mode)) {
		const char *rel = path + strlen(dir) + 1;
		enum symarchive_kind k = symarchive_name(rel);

		if (k == SYMARCHIVE_OTHER || k == SYMARCHIVE_UNSAFE || k == SYMARCHIVE_DIR)
			abort();
		if ((uint64_t)sb->st_size > SYMARCHIVE_MAX_ELF)
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symarchive_stats st;
	char err[512];
	int ret;

	if (dfd < 0) {
		/* in memory where there is a tmpfs: thousands of inputs a replay */
		snprintf(dir, sizeof(dir), "%s/zt-fuzz-archive.XXXXXX",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
		dfd = open(dir, O_RDONLY | O_DIRECTORY);
		if (dfd < 0)
			abort();
	}
	err[0] = 0;
	ret = symarchive_unpack_mem(data, size, dfd, &st, err, sizeof(err));
	if (ret && !err[0])
		abort(); /* every failure says why */
	if (!ret && !st.files)
		abort();
	nftw(dir, check_entry, 16, FTW_PHYS);
	/* empty it for the next input, keeping the directory itself */
	{
		char sub[96];

		snprintf(sub, sizeof(sub), "%s/buildid", dir);
		nftw(sub, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		snprintf(sub, sizeof(sub), "%s/gsym", dir);
		nftw(sub, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		unlinkat(dfd, "README", 0);
		unlinkat(dfd, "MANIFEST", 0);
	}
	return 0;
}
