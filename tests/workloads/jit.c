// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test workload that "JITs" code: copies a spin loop into anonymous
 * executable memory, announces it in /tmp/perf-PID.map as zt_jit_spin (as
 * JIT runtimes do), runs it for SECS seconds, then deletes the map file
 * before exiting, so only a snapshot taken while recording can name it.
 * x86-64 only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* mov ecx, 0x100000; 1: dec ecx; jnz 1b; ret */
static const unsigned char spin[] = { 0xb9, 0x00, 0x00, 0x10, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end;
	char path[64];
	struct timespec ts;
	void (*fn)(void);
	unsigned char *code;
	FILE *f;

	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code + 64, spin, sizeof(spin));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx zt_jit_spin\n", (unsigned long)(code + 64), sizeof(spin));
	fclose(f);
	fn = (void (*)(void))(code + 64);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	do {
		fn();
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	unlink(path);
	return 0;
}
