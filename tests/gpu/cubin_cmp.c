// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt's cubin symbolizer (symbolizer/cubin.c) against CUPTI's own answer
 * (cuptiGetSassToSourceCorrelation, which works without a GPU): for every
 * cubin given, every function, every 16-byte PC of the function, the file,
 * directory and line of cubin_resolve()'s innermost frame must equal
 * CUPTI's. Prints the counts and each disagreement; exits 1 on a
 * disagreement not in the list below, or when no PC was compared.
 * -v prints every PC (both answers and zt's frames); -x ignores the list
 * of expected disagreements (so that the failure path can be tested).
 *
 * usage: cubin_cmp [-v] [-x] FILE.cubin...
 */
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/cubin.h"

/*
 * The disagreements worked out from the line program, and who is right.
 * Keep this list short and explained: each entry is one PC range of one
 * (cubin, function) where CUPTI gives the file and line named here and zt
 * another answer.
 *
 * rdc_sm75 and rdc_sm90 (rdc_a.cu + rdc_b.cu device-linked by nvlink):
 * rdc_b.cu's second unit keeps the line sequence of rdc_unused(), a
 * function nvlink dropped (no symbol, no section): a sequence at address
 * 0 whose DW_LNE_set_address has no relocation (readelf -r: .rel[a].
 * debug_line names only rdc_kernel_a, rdc_kernel_b and rdc_scale). Its one
 * row is rdc_b.cu:13 ("return x * 3.0f"), up to its end_sequence (0x80 on
 * sm_75, 0x100 on sm_90). CUPTI lays that orphan over the first kernel's
 * PCs below its end; rdc_kernel_a is all rdc_a.cu, and its own sequence
 * (relocated to it) says rdc_a.cu:8-13 there: zt is right. sm_100's nvlink
 * drops the orphan, and the two agree. The fuzz seed seed-rdc-sm90.cubin
 * (tests/fuzz/fuzz_cubin.c) is the same case: the orphan of the dropped
 * unused2(), c2.cu:3 up to 0x100, laid by CUPTI over k1, which is c1.cu.
 */
struct expect {
	const char *cubin; /* base name */
	const char *func;
	uint64_t pc_lo, pc_hi; /* [lo, hi) */
	const char *cupti_file;
	uint32_t cupti_line;
	const char *why;
};
static const struct expect expected[] = {
	{"rdc_sm75.cubin", "rdc_kernel_a", 0, 0x80, "rdc_b.cu", 13,
	 "CUPTI applies the orphan sequence of dropped rdc_unused()"},
	{"rdc_sm90.cubin", "rdc_kernel_a", 0, 0x100, "rdc_b.cu", 13,
	 "CUPTI applies the orphan sequence of dropped rdc_unused()"},
	{"seed-rdc-sm90.cubin", "k1", 0, 0x100, "c2.cu", 3,
	 "CUPTI applies the orphan sequence of dropped unused2()"},
};

struct cmp {
	const char *path, *base;
	const void *data;
	size_t len;
	struct cubin *c;
	int verbose;
	unsigned long pcs, agreed, disagreed, expected_dis, refused_funcs, unexpected;
};

static int same(const char *a, const char *b)
{
	if (!a || !*a)
		return !b || !*b;
	return b && !strcmp(a, b);
}

static int no_expected;

static const struct expect *find_expected(const struct cmp *m, const char *func, uint64_t pc,
					  const char *cupti_file, uint32_t cupti_line)
{
	const char *sl = cupti_file ? strrchr(cupti_file, '/') : NULL;
	const char *base = sl ? sl + 1 : cupti_file;

	for (size_t i = 0; !no_expected && i < sizeof(expected) / sizeof(expected[0]); i++)
		if (!strcmp(expected[i].cubin, m->base) && !strcmp(expected[i].func, func) &&
		    pc >= expected[i].pc_lo && pc < expected[i].pc_hi && base &&
		    !strcmp(expected[i].cupti_file, base) && expected[i].cupti_line == cupti_line)
			return &expected[i];
	return NULL;
}

static int one_func(void *ctx, const char *name, uint64_t size, int kernel)
{
	struct cmp *m = ctx;
	uint64_t pc;

	for (pc = 0; pc < size; pc += 16) {
		CUpti_GetSassToSourceCorrelationParams p = {
			.size = CUpti_GetSassToSourceCorrelationParamsSize,
			.cubin = m->data,
			.cubinSize = m->len,
			.functionName = name,
			.pcOffset = pc,
		};
		struct cubin_frame f[16];
		const struct cubin_frame *in;
		const struct expect *x;
		CUptiResult r = cuptiGetSassToSourceCorrelation(&p);
		int n, ok;

		if (r != CUPTI_SUCCESS) {
			/* CUPTI refuses the names of __noinline__ callees inside a
			 * kernel's section: their PCs are the kernel's */
			if (pc == 0) {
				printf("  %s: %s: CUPTI refuses the name (error %d)%s\n", m->base,
				       name, (int)r, kernel ? " [a kernel!]" : "");
				m->refused_funcs++;
				if (kernel)
					m->unexpected++;
				return 0;
			}
			printf("  %s: %s+0x%llx: CUPTI error %d\n", m->base, name,
			       (unsigned long long)pc, (int)r);
			m->unexpected++;
			continue;
		}
		n = cubin_resolve(m->c, name, pc, f, 16);
		in = n > 0 ? &f[0] : NULL;
		ok = in && same(p.fileName, in->file) && same(p.dirName, in->dir) &&
		     p.lineNumber == in->line;
		m->pcs++;
		if (ok) {
			m->agreed++;
		} else {
			m->disagreed++;
			x = find_expected(m, name, pc, p.fileName, p.lineNumber);
			if (x)
				m->expected_dis++;
			else
				m->unexpected++;
			printf("  %s %s: %s+0x%llx: CUPTI %s/%s:%u, zt %s/%s:%u%s%s\n",
			       x ? "expected" : "DISAGREE", m->base, name, (unsigned long long)pc,
			       p.dirName ? p.dirName : "(null)", p.fileName ? p.fileName : "(null)",
			       p.lineNumber, in && in->dir ? in->dir : "(null)",
			       in && in->file ? in->file : "(null)", in ? in->line : 0,
			       x ? ": " : "", x ? x->why : "");
		}
		if (m->verbose) {
			printf("    %s+0x%llx cupti %s:%u |", name, (unsigned long long)pc,
			       p.fileName ? p.fileName : "(null)", p.lineNumber);
			for (int i = 0; i < n; i++)
				printf(" %s%s@%s:%u", f[i].inlined ? "(inl)" : "", f[i].func,
				       f[i].file ? f[i].file : "?", f[i].line);
			printf("\n");
		}
		free(p.fileName);
		free(p.dirName);
	}
	return 0;
}

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *buf = NULL;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)n)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

int main(int argc, char **argv)
{
	unsigned long pcs = 0, agreed = 0, dis = 0, exp_dis = 0, refused = 0, unexpected = 0;
	int a = 1, verbose = 0;

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-v")) {
			verbose = 1;
		} else if (!strcmp(argv[a], "-x")) {
			no_expected = 1;
		} else {
			fprintf(stderr, "cubin_cmp: unknown option '%s'\n", argv[a]);
			return 2;
		}
	}
	if (a >= argc) {
		fprintf(stderr, "usage: cubin_cmp [-v] [-x] FILE.cubin...\n");
		return 2;
	}
	for (; a < argc; a++) {
		struct cmp m = {.path = argv[a], .verbose = verbose};
		const char *sl = strrchr(argv[a], '/');
		void *data;
		int ret;

		m.base = sl ? sl + 1 : argv[a];
		if (!(data = slurp(argv[a], &m.len))) {
			fprintf(stderr, "cubin_cmp: cannot read '%s'\n", argv[a]);
			return 1;
		}
		m.data = data;
		if ((ret = cubin_open(data, m.len, &m.c))) {
			fprintf(stderr, "cubin_cmp: '%s': %s\n", argv[a], strerror(-ret));
			return 1;
		}
		cubin_functions(m.c, one_func, &m);
		printf("%s: %lu PCs, %lu agreed, %lu disagreed (%lu expected), %lu functions "
		       "refused by CUPTI\n",
		       m.base, m.pcs, m.agreed, m.disagreed, m.expected_dis, m.refused_funcs);
		pcs += m.pcs;
		agreed += m.agreed;
		dis += m.disagreed;
		exp_dis += m.expected_dis;
		refused += m.refused_funcs;
		unexpected += m.unexpected;
		cubin_free(m.c);
		free(data);
	}
	printf("total: %lu PCs compared, %lu agreed, %lu disagreed (%lu expected, %lu "
	       "unexpected problems), %lu functions refused by CUPTI\n",
	       pcs, agreed, dis, exp_dis, unexpected, refused);
	return !pcs || unexpected ? 1 : 0;
}
