/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary bytes as a Debian package, its debug files written
 * into a private directory one at a time and removed after each. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/fileio.h"
#include "symbolizer/debpkg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], in[96];

static void cleanup(void)
{
	if (dir[0]) {
		unlink(in);
		rmdir(dir);
	}
}

/* each file handed over is a regular ELF file in dir, of its size */
static int on_file(void *ctx, const struct debpkg_file *f)
{
	struct stat st;

	(void)ctx;
	if (strncmp(f->path, dir, strlen(dir)) || lstat(f->path, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size != f->size || f->size > DEBPKG_FILE_MAX ||
	    strncmp(f->name, "usr/lib/debug/", 14))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct debpkg_stats st;
	char err[512];
	int fd, ret;

	if (!dir[0]) {
		/* in memory where there is a tmpfs */
		snprintf(dir, sizeof(dir), "%s/zt-fuzz-debpkg.XXXXXX",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
		if (!mkdtemp(dir))
			abort();
		snprintf(in, sizeof(in), "%s.deb", dir);
		atexit(cleanup);
	}
	fd = open(in, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || zt_write_all(fd, data, size) || close(fd))
		abort();
	err[0] = 0;
	ret = debpkg_read(in, dir, on_file, NULL, &st, err, sizeof(err));
	if (ret && !err[0])
		abort(); /* every failure says why */
	if (rmdir(dir)) /* nothing left behind */
		abort();
	if (mkdir(dir, 0700))
		abort();
	return 0;
}
