// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers the unit tests share. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/testutil.h"

int run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

int file_offset(const char *path, const char *name, uint64_t *off, uint64_t *size)
{
	char cmd[1024], line[1024];
	unsigned long long vaddr = 0, sz = 0, o, va, fsz;
	int found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long s;
		char t, n[128];

		if (sscanf(line, "%llx %llx %c %127s", &va, &s, &t, n) == 4 && !strcmp(n, name)) {
			vaddr = va;
			sz = s;
			found = 1;
		}
	}
	pclose(p);
	if (!found)
		return -1;
	snprintf(cmd, sizeof(cmd), "readelf -lW %s", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	found = 0;
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%*x 0x%llx", &o, &va, &fsz) == 3 &&
		    vaddr >= va && vaddr < va + fsz) {
			*off = vaddr - va + o;
			found = 1;
		}
	}
	pclose(p);
	if (!found)
		return -1;
	if (size)
		*size = sz;
	return 0;
}

int write_text(const char *path, const char *text, unsigned mode)
{
	return write_bytes(path, text, strlen(text), mode);
}

int write_bytes(const char *path, const void *data, size_t len, unsigned mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);

	if (fd < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len || fchmod(fd, (mode_t)mode)) {
		close(fd);
		return -1;
	}
	return close(fd);
}
