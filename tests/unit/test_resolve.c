/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * resolve: a profile built in memory over a program compiled here, a
 * kallsyms snapshot and a perf map; names, module+offset fallbacks, the
 * build-id cache, and a replaced binary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/testutil.h"

#include "libprof/log.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/elfsym.h"
#include "libprof/frametab.h"
#include "symbolizer/resolve.h"

#define BASE 0x555555554000ull /* where the program is mapped */
#define PID 42

static char tmpdir[] = "/tmp/zt-test-resolve.XXXXXX";
static char prog[512];
static struct prof_build_id prog_bid;
static uint64_t off_alpha, off_beta; /* file offsets of the functions */

static const char prog_src[] =
	"__attribute__((noinline)) int zt_res_alpha(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int zt_res_beta(int x) { return zt_res_alpha(x) ^ 0x55; }\n"
	"int main(int argc, char **argv) { return zt_res_beta(argc); }\n";

static const char kallsyms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T zt_kfunc\n"
	"ffffffff81001100 t zt_khelper\n"
	"ffffffff81002000 T _etext\n"
	"ffffffffc0001000 t zt_modfunc\t[zt_mod]\n"
	"ffffffffc0001100 t zt_modfunc2\t[zt_mod]\n";

static const char perfmap_text[] =
	"7f0000001000 100 jit_fn\n"
	"7f0000001100 80 LazyCompile:*work js/app.js:12\n"
	"7f0000900000 10 jit_unmapped\n";

static int warnings;

static void count_warnings(enum zt_log_level level, const char *msg, void *ctx)
{
	if (level == ZT_LOG_WARN)
		warnings++;
}

static int setup(void **state)
{
	char path[600];
	FILE *f;

	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/prog.c", tmpdir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(prog_src, f);
	fclose(f);
	snprintf(prog, sizeof(prog), "%s/prog", tmpdir);
	if (run("cd %s && cc -O1 -fPIE -pie -Wl,--build-id=sha1 -o prog prog.c", tmpdir))
		return -1;
	if (elf_read_build_id(prog, &prog_bid) || !prog_bid.len)
		return -1;
	if (file_offset(prog, "zt_res_alpha", &off_alpha, NULL) ||
	    file_offset(prog, "zt_res_beta", &off_beta, NULL))
		return -1;
	snprintf(path, sizeof(path), "%s/cache", tmpdir);
	setenv("ZT_CACHE_DIR", path, 1);
	zt_log_set(count_warnings, NULL);
	return 0;
}

static int teardown(void **state)
{
	zt_log_set(NULL, NULL);
	run("rm -rf %s", tmpdir);
	return 0;
}

/* The program mapped whole at BASE in PID (file offset == address - BASE). */
static void add_prog(struct profile *p, uint32_t pid, const char *path,
		     const struct prof_build_id *bid)
{
	struct prof_mmap m = { .ts = 1, .pid = pid, .tid = pid, .start = BASE, .len = 0x10000,
			       .pgoff = 0, .prot = 5, .path = (char *)path };

	if (bid)
		m.build_id = *bid;
	assert_int_equal(profile_add_mmap(p, &m), 0);
}

static void make_profile(struct profile *p)
{
	struct prof_mmap anon = { .ts = 1, .pid = PID, .tid = PID, .start = 0x7f0000000000ull,
				  .len = 0x100000, .prot = 7, .path = "//anon" };

	profile_init(p);
	add_prog(p, PID, prog, &prog_bid);
	assert_int_equal(profile_add_mmap(p, &anon), 0);
	assert_int_equal(profile_add_blob(p, PROF_BLOB_KALLSYMS, 0, 0, kallsyms_text,
					  strlen(kallsyms_text)), 0);
	assert_int_equal(profile_add_blob(p, PROF_BLOB_PERFMAP, PID, 5, perfmap_text,
					  strlen(perfmap_text)), 0);
}

struct ctx {
	struct profile p;
	struct proctree *pt;
	struct resolver *r;
};

static void open_ctx(struct ctx *c)
{
	assert_int_equal(proctree_new(&c->p, &c->pt), 0);
	assert_int_equal(resolver_new(&c->p, c->pt, &c->r), 0);
}

static void close_ctx(struct ctx *c)
{
	resolver_free(c->r);
	proctree_free(c->pt);
	profile_release(&c->p);
}

static const char *name_of(struct ctx *c, uint32_t pid, uint64_t addr, int kernel,
			   struct resolve_frame *f)
{
	static char buf[256];

	struct zt_frame z = { 0 };

	assert_int_equal(resolver_resolve(c->r, pid, 10, addr, kernel, f), 0);
	z.sym = f->sym;
	z.module = f->module;
	z.map = f->map;
	z.offset = f->offset;
	z.kernel = (uint8_t)f->kernel;
	return zt_frame_name(&z, buf, sizeof(buf));
}

static void test_user_symbols(void **state)
{
	struct resolve_frame f, g;
	const char *first;
	char moved[600];
	struct ctx c;

	make_profile(&c.p);
	open_ctx(&c);
	assert_string_equal(name_of(&c, PID, BASE + off_alpha + 2, 0, &f), "zt_res_alpha");
	assert_string_equal(f.module, "prog");
	assert_int_equal(f.offset, 2);
	assert_int_equal(f.kernel, 0);
	assert_ptr_equal(f.map, &c.p.mmaps[0]);
	first = f.sym;
	assert_string_equal(name_of(&c, PID, BASE + off_beta, 0, &f), "zt_res_beta");
	assert_int_equal(f.offset, 0);
	/* cached: the same answer, same strings */
	assert_string_equal(name_of(&c, PID, BASE + off_alpha + 2, 0, &g), "zt_res_alpha");
	assert_ptr_equal(g.sym, first);
	/* in the file but in no function: module and file offset */
	assert_string_equal(name_of(&c, PID, BASE + 0x10, 0, &f), "[prog+0x10]");
	assert_null(f.sym);
	assert_int_equal(f.offset, 0x10);
	/* in no mapping and not in the perf map */
	assert_string_equal(name_of(&c, PID, 0x1234, 0, &f), "[unknown]");
	assert_string_equal(f.module, "[unknown]");
	assert_null(f.map);
	/* another process: no mappings at all */
	assert_string_equal(name_of(&c, PID + 1, BASE + off_alpha, 0, &f), "[unknown]");
	/* the symbol table stays open: removing the file changes nothing */
	snprintf(moved, sizeof(moved), "%s.moved", prog);
	assert_int_equal(rename(prog, moved), 0);
	assert_string_equal(name_of(&c, PID, BASE + off_beta + 1, 0, &f), "zt_res_beta");
	assert_int_equal(rename(moved, prog), 0);
	assert_int_equal(warnings, 0);
	close_ctx(&c);
}

static void test_jit_and_kernel(void **state)
{
	struct resolve_frame f;
	struct ctx c;

	make_profile(&c.p);
	open_ctx(&c);
	/* anonymous memory: the perf map of the process */
	assert_string_equal(name_of(&c, PID, 0x7f0000001010ull, 0, &f), "jit_fn");
	assert_string_equal(f.module, "[JIT] tid 42");
	assert_int_equal(f.offset, 0x10);
	assert_string_equal(name_of(&c, PID, 0x7f0000001100ull, 0, &f),
			    "LazyCompile:*work js/app.js:12");
	/* anonymous, not in the perf map */
	assert_string_equal(name_of(&c, PID, 0x7f0000002000ull, 0, &f), "[anon+0x2000]");
	/* in no mapping, but in the perf map */
	assert_string_equal(name_of(&c, PID, 0x7f0000900004ull, 0, &f), "jit_unmapped");
	/* another pid has no perf map */
	assert_string_equal(name_of(&c, PID + 1, 0x7f0000900004ull, 0, &f), "[unknown]");

	/* kernel, from the kallsyms snapshot */
	assert_string_equal(name_of(&c, PID, 0xffffffff81001010ull, 1, &f), "zt_kfunc");
	assert_string_equal(f.module, "[kernel.kallsyms]");
	assert_int_equal(f.offset, 0x10);
	assert_int_equal(f.kernel, 1);
	assert_string_equal(name_of(&c, PID, 0xffffffff81001104ull, 1, &f), "zt_khelper");
	assert_string_equal(name_of(&c, PID, 0xffffffffc0001104ull, 1, &f), "zt_modfunc2");
	assert_string_equal(f.module, "[zt_mod]");
	assert_string_equal(name_of(&c, 0, 0xffffffff80000000ull, 1, &f),
			    "[kernel.kallsyms+0xffffffff80000000]");
	assert_null(f.sym);
	close_ctx(&c);
}

/*
 * no_files (zt serve): kernel and JIT frames named from the profile as
 * before; a binary's frames unresolved with their mapping and file offset,
 * no file opened: nothing lands in the build-id cache.
 */
static void test_no_files(void **state)
{
	struct resolve_frame f;
	struct ctx c;
	char cache[600], want[64];

	run("rm -rf %s/cache", tmpdir);
	make_profile(&c.p);
	assert_int_equal(proctree_new(&c.p, &c.pt), 0);
	assert_int_equal(resolver_new_opts(&c.p, c.pt, &(struct resolver_opts){.no_files = 1}, &c.r),
			 0);
	snprintf(want, sizeof(want), "[prog+0x%llx]", (unsigned long long)off_alpha + 2);
	assert_string_equal(name_of(&c, PID, BASE + off_alpha + 2, 0, &f), want);
	assert_null(f.sym);
	assert_string_equal(f.module, "prog");
	assert_int_equal(f.offset, off_alpha + 2);
	assert_ptr_equal(f.map, &c.p.mmaps[0]);
	assert_string_equal(name_of(&c, PID, 0x7f0000001010ull, 0, &f), "jit_fn");
	assert_string_equal(f.module, "[JIT] tid 42");
	assert_string_equal(name_of(&c, PID, 0x7f0000002000ull, 0, &f), "[anon+0x2000]");
	assert_string_equal(name_of(&c, PID, 0xffffffff81001010ull, 1, &f), "zt_kfunc");
	assert_int_equal(f.kernel, 1);
	snprintf(cache, sizeof(cache), "%s/cache", tmpdir);
	assert_int_not_equal(access(cache, F_OK), 0);
	assert_int_equal(warnings, 0);
	close_ctx(&c);
}

/* no_memo (a frame table keeps the answers): the same answers, each
 * address asked twice counted twice. */
static void test_no_memo(void **state)
{
	struct resolve_frame f;
	uint64_t q[3] = {0};
	struct ctx c;
	int k;

	(void)state;
	make_profile(&c.p);
	assert_int_equal(proctree_new(&c.p, &c.pt), 0);
	assert_int_equal(resolver_new_opts(&c.p, c.pt,
					   &(struct resolver_opts){.no_files = 1, .no_memo = 1},
					   &c.r),
			 0);
	for (k = 0; k < 2; k++) {
		assert_string_equal(name_of(&c, PID, 0x7f0000001010ull, 0, &f), "jit_fn");
		assert_int_equal(f.jit, 1);
		assert_string_equal(name_of(&c, PID, 0xffffffff81001010ull, 1, &f), "zt_kfunc");
		assert_int_equal(f.kernel, 1);
		assert_null(name_of(&c, PID, BASE + off_alpha + 2, 0, &f) && f.sym ? "" : NULL);
		assert_ptr_equal(f.map, &c.p.mmaps[0]);
	}
	resolver_quality_counts(c.r, q);
	assert_int_equal(q[0] + q[1] + q[2], 6);
	close_ctx(&c);
}

/* A profile that grows while it is resolved (zt top): new mappings and a
 * new tree, the frames resolved before kept, their map pointers moved. */
static void test_growing_profile(void **state)
{
	struct resolve_frame f;
	struct proctree *pt2;
	const char *first;
	struct ctx c;
	int i;

	make_profile(&c.p);
	open_ctx(&c);
	assert_string_equal(name_of(&c, PID, BASE + off_alpha, 0, &f), "zt_res_alpha");
	first = f.sym;
	/* a process the resolver has not seen: nothing yet */
	assert_string_equal(name_of(&c, PID + 7, BASE + off_beta, 0, &f), "[unknown]");
	/* it maps the program; enough mappings that the array moves */
	add_prog(&c.p, PID + 7, prog, &prog_bid);
	for (i = 0; i < 100; i++) {
		struct prof_mmap m = { .ts = 2, .pid = 1000 + i, .tid = 1000 + i, .start = BASE,
				       .len = 0x1000, .prot = 5, .path = "/nonexistent" };

		assert_int_equal(profile_add_mmap(&c.p, &m), 0);
	}
	assert_int_equal(proctree_new(&c.p, &pt2), 0);
	assert_int_equal(resolver_update(c.r, pt2), 0);
	proctree_free(c.pt);
	c.pt = pt2;
	assert_string_equal(name_of(&c, PID + 7, BASE + off_beta, 0, &f), "zt_res_beta");
	assert_ptr_equal(f.map, &c.p.mmaps[c.p.nr_mmaps - 101]);
	/* the frame resolved before: cached, its map in the moved array */
	assert_string_equal(name_of(&c, PID, BASE + off_alpha, 0, &f), "zt_res_alpha");
	assert_ptr_equal(f.sym, first);
	assert_ptr_equal(f.map, &c.p.mmaps[0]);
	assert_string_equal(name_of(&c, 1042, BASE + 4, 0, &f), "[nonexistent+0x4]");
	close_ctx(&c);
}

/* A JIT frame's module name stays valid when many more processes get
 * their (empty) perf maps looked up afterwards. */
static void test_jit_module_stays(void **state)
{
	struct resolve_frame f;
	struct ctx c;
	uint32_t pid;

	make_profile(&c.p);
	open_ctx(&c);
	assert_string_equal(name_of(&c, PID, 0x7f0000001010ull, 0, &f), "jit_fn");
	for (pid = 1000; pid < 1300; pid++)
		assert_string_equal(name_of(&c, pid, 0x1234, 0, &f), "[unknown]");
	assert_string_equal(name_of(&c, PID, 0x7f0000001010ull, 0, &f), "jit_fn");
	assert_string_equal(f.module, "[JIT] tid 42");
	close_ctx(&c);
}

static void test_build_id_cache(void **state)
{
	struct buildid_cache bc;
	struct resolve_frame f;
	char cached[1024], gone[600];
	struct ctx c;

	/* the binary is gone from its path; its copy is in the cache */
	assert_int_equal(buildid_cache_init(&bc), 0);
	buildid_cache_path(&bc, &prog_bid, cached, sizeof(cached));
	assert_int_equal(run("mkdir -p $(dirname %s) && cp %s %s", cached, prog, cached), 0);
	snprintf(gone, sizeof(gone), "%s/gone/prog", tmpdir);
	profile_init(&c.p);
	add_prog(&c.p, PID, gone, &prog_bid);
	open_ctx(&c);
	assert_string_equal(name_of(&c, PID, BASE + off_alpha, 0, &f), "zt_res_alpha");
	assert_string_equal(f.module, "prog");
	close_ctx(&c);
	assert_int_equal(run("rm -rf %s/cache", tmpdir), 0);
	buildid_cache_release(&bc);

	/* deleted while it ran: the path without " (deleted)" */
	snprintf(gone, sizeof(gone), "%s (deleted)", prog);
	profile_init(&c.p);
	add_prog(&c.p, PID, gone, &prog_bid);
	open_ctx(&c);
	assert_string_equal(name_of(&c, PID, BASE + off_beta, 0, &f), "zt_res_beta");
	close_ctx(&c);
	assert_int_equal(warnings, 0);
}

static void test_replaced_binary(void **state)
{
	struct prof_build_id other = prog_bid;
	struct resolve_frame f;
	struct ctx c;
	char want[64];

	/* the file at the path is not the one recorded: offsets only, one warning */
	other.data[0] ^= 0xff;
	profile_init(&c.p);
	add_prog(&c.p, PID, prog, &other);
	add_prog(&c.p, PID + 1, prog, &other);
	open_ctx(&c);
	warnings = 0;
	snprintf(want, sizeof(want), "[prog+0x%llx]", (unsigned long long)off_alpha);
	assert_string_equal(name_of(&c, PID, BASE + off_alpha, 0, &f), want);
	assert_null(f.sym);
	assert_string_equal(f.module, "prog");
	snprintf(want, sizeof(want), "[prog+0x%llx]", (unsigned long long)off_beta + 3);
	assert_string_equal(name_of(&c, PID + 1, BASE + off_beta + 3, 0, &f), want);
	assert_int_equal(warnings, 1);
	close_ctx(&c);

	/* no build id recorded: the path is trusted */
	profile_init(&c.p);
	add_prog(&c.p, PID, prog, NULL);
	open_ctx(&c);
	assert_string_equal(name_of(&c, PID, BASE + off_alpha, 0, &f), "zt_res_alpha");
	close_ctx(&c);
	assert_int_equal(warnings, 1);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_symbols),
		cmocka_unit_test(test_jit_and_kernel),
		cmocka_unit_test(test_no_files),
		cmocka_unit_test(test_no_memo),
		cmocka_unit_test(test_growing_profile),
		cmocka_unit_test(test_jit_module_stays),
		cmocka_unit_test(test_build_id_cache),
		cmocka_unit_test(test_replaced_binary),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
