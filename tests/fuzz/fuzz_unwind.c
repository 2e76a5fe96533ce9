// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the DWARF unwinder on arbitrary stack copies and registers,
 * over this process's own binaries (real CFI). Input: 17 registers, then the
 * stack. The instruction pointer, and stack words whose top byte is 0xaa,
 * are moved into this binary's code, so the walk meets real unwind tables.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libprof/proctree.h"
#include "symbolizer/unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct profile prof;
static struct proctree *pt;
static struct unwinder *uw;

static void setup(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024], perm[8], path[512];
	unsigned long lo, hi, off;

	setenv("ZT_CACHE_DIR", "/nonexistent/zt-fuzz-cache", 1);
	profile_init(&prof);
	while (f && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %511s", &lo, &hi, perm, &off, path) < 4 ||
		    perm[2] != 'x' || path[0] != '/')
			continue;
		struct prof_mmap m = { .pid = 1, .tid = 1, .start = lo, .len = hi - lo, .pgoff = off,
				       .prot = 5, .path = path };
		if (profile_add_mmap(&prof, &m))
			abort();
	}
	if (f)
		fclose(f);
	if (proctree_new(&prof, &pt) || unwinder_new(&prof, pt, NULL, &uw))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t stack[PROF_USTACK_MAX];
	const uint64_t code = (uint64_t)(uintptr_t)&LLVMFuzzerTestOneInput;
	struct prof_ustack u = { 0 };
	uint64_t ips[128], fp[4];
	enum unwind_stop stop;
	size_t i;

	if (!uw)
		setup();
	if (size < PROF_UREGS * 8)
		return 0;
	memcpy(u.regs, data, PROF_UREGS * 8);
	u.regs_mask = (uint32_t)(u.regs[0] & ((1u << PROF_UREGS) - 1)) | 1u << PROF_UREG_IP |
		      1u << PROF_UREG_SP;
	u.regs[PROF_UREG_IP] = code + (u.regs[PROF_UREG_IP] & 0xfff);
	u.regs[PROF_UREG_SP] = 0x7ff000000000ull + (u.regs[PROF_UREG_SP] & 0xff8);
	u.len = size - PROF_UREGS * 8;
	if (u.len > sizeof(stack))
		u.len = sizeof(stack);
	memcpy(stack, data + PROF_UREGS * 8, u.len);
	for (i = 0; i + 8 <= u.len; i += 8) {
		uint64_t w;

		memcpy(&w, stack + i, 8);
		if (w >> 56 == 0xaa) {
			w = code + (w & 0xfff);
			memcpy(stack + i, &w, 8);
		}
	}
	u.data = stack;
	fp[0] = u.regs[PROF_UREG_IP];
	fp[1] = code + 16;
	fp[2] = code + 32;
	fp[3] = code + 48;
	int n = unwinder_unwind(uw, 1, 1, 0, &u, fp, 4, ips, 128, &stop);
	if (n < 0 || n > 128 || stop >= UNWIND_NR)
		abort();
	return 0;
}
