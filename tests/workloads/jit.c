// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test workload that "JITs" code: copies a spin loop into anonymous
 * executable memory, announces it in /tmp/perf-PID.map as zt_jit_spin (as
 * JIT runtimes do), runs it for SECS seconds, then deletes the map file
 * before exiting, so only a snapshot taken while recording can name it.
 *   jit SECS          the perf map way
 *   jit SECS dump     the jitdump way (perf's JIT interface): jit-PID.dump in
 *                     the current directory, mapped executable so profilers
 *                     see it; the code is "recompiled" half way: the same
 *                     address gets new code, zt_jit_v2 replacing zt_jit_v1
 * x86-64 only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* mov ecx, 0x100000; 1: dec ecx; jnz 1b; ret */
static const unsigned char spin[] = { 0xb9, 0x00, 0x00, 0x10, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };

/* perf's tools/perf/util/jitdump.h */
struct jit_header {
	uint32_t magic, version, total_size, elf_mach, pad1, pid;
	uint64_t timestamp, flags;
};
struct jit_load {
	uint32_t id, total_size;
	uint64_t timestamp;
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void jit_load(FILE *f, const char *name, const unsigned char *code, size_t size, uint64_t index)
{
	struct jit_load r = { 0, (uint32_t)(sizeof(r) + strlen(name) + 1 + sizeof(spin)), mono_ns(),
			      (uint32_t)getpid(), (uint32_t)getpid(), (uintptr_t)code, (uintptr_t)code, size,
			      index };

	fwrite(&r, sizeof(r), 1, f);
	fwrite(name, strlen(name) + 1, 1, f);
	fwrite(spin, sizeof(spin), 1, f);
	fflush(f);
}

static void spin_until(void (*fn)(void), double end)
{
	struct timespec ts;

	do {
		fn();
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

static int jitdump(double secs, unsigned char *code)
{
	struct jit_header h = { 0x4A695444, 1, sizeof(h), 62 /* EM_X86_64 */, 0, (uint32_t)getpid(), 0, 0 };
	char path[64];
	struct timespec ts;
	void *marker;
	double start;
	FILE *f;

	snprintf(path, sizeof(path), "jit-%d.dump", getpid());
	f = fopen(path, "w+");
	if (!f)
		return 1;
	h.timestamp = mono_ns();
	fwrite(&h, sizeof(h), 1, f);
	fflush(f);
	/* the marker mapping: executable, so it shows up in MMAP records */
	marker = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(f), 0);
	if (marker == MAP_FAILED)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	start = ts.tv_sec + ts.tv_nsec / 1e9;
	memcpy(code + 64, spin, sizeof(spin));
	jit_load(f, "zt_jit_v1", code + 64, sizeof(spin), 1);
	spin_until((void (*)(void))(code + 64), start + secs / 2);
	memcpy(code + 64, spin, sizeof(spin)); /* recompiled in place */
	jit_load(f, "zt_jit_v2", code + 64, sizeof(spin), 2);
	spin_until((void (*)(void))(code + 64), start + secs);
	munmap(marker, 4096);
	fclose(f);
	unlink(path);
	return 0;
}

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
	if (argc > 2 && !strcmp(argv[2], "dump"))
		return jitdump(secs, code);
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
