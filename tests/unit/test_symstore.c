/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symstore: frames named from a symbol store's directory (zt serve's
 * queries) by the session's resolver, as zt report names them: a C++
 * program compiled here, its GSYM in a store directory, the store's hooks
 * (asked before opening, and when no symbols were found), forgetting a
 * module whose symbols were replaced.
 */
#include <errno.h>
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
#include "libprof/proctree.h"
#include "session/symstore.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/symmod.h"

static char tmpdir[] = "/tmp/zt-test-symstore.XXXXXX";
static char prog[512], store[600];
static struct prof_build_id prog_bid;
static uint64_t off_outer; /* file offset of the function with the inlined call */

/* zt_ss::mix inlined into zt_ss_outer: an inline chain, a C++ name */
static const char prog_src[] =
	"namespace zt_ss { static inline __attribute__((always_inline)) unsigned mix(unsigned x)\n"
	"{ return x * 2654435761u + 7; } }\n"
	"__attribute__((noinline)) unsigned zt_ss_outer(unsigned x)\n"
	"{ unsigned s = 0; for (unsigned i = 0; i < x; i++) s += zt_ss::mix(s ^ i); return s; }\n"
	"int main(int argc, char **argv) { (void)argv; return (int)zt_ss_outer((unsigned)argc); }\n";

static int setup(void **state)
{
	char path[600];

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/prog.cc", tmpdir);
	if (write_text(path, prog_src, 0644))
		return -1;
	snprintf(prog, sizeof(prog), "%s/prog", tmpdir);
	if (run("cd %s && c++ -O2 -g -fPIE -pie -Wl,--build-id=sha1 -o prog prog.cc", tmpdir))
		return -1;
	if (elf_read_build_id(prog, &prog_bid) || !prog_bid.len)
		return -1;
	if (file_offset(prog, "_Z11zt_ss_outerj", &off_outer, NULL))
		return -1;
	snprintf(store, sizeof(store), "%s/store", tmpdir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	run("rm -rf %s", tmpdir);
	return 0;
}

/* The program's GSYM into the store directory, as the server keeps it. */
static void put_gsym(void)
{
	struct buildid_cache c = { .dir = store };
	struct symmod_opts mo = { .cache = &c, .no_debuginfod = 1 };
	struct symmod *m = NULL;

	assert_int_equal(symmod_open(&mo, prog, &prog_bid, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	symmod_free(m);
}

struct hooks {
	int prepared, missing, make; /* calls; make: put the GSYM when missing */
};

static void h_prepare(void *ctx, const struct prof_build_id *bid)
{
	(void)bid;
	((struct hooks *)ctx)->prepared++;
}

static int h_missing(void *ctx, const struct prof_build_id *bid)
{
	struct hooks *h = ctx;

	(void)bid;
	h->missing++;
	if (!h->make)
		return -ENOENT;
	put_gsym();
	return 0;
}

struct got {
	char names[8][128], files[8][256];
	unsigned lines[8], inl[8], n;
};

static int take(void *ctx, const struct zt_frame *f)
{
	struct got *g = ctx;

	assert_true(g->n < 8);
	zt_frame_name(f, g->names[g->n], sizeof(g->names[0]));
	snprintf(g->files[g->n], sizeof(g->files[0]), "%s", f->file ? f->file : "");
	g->lines[g->n] = f->line;
	g->inl[g->n] = f->inlined;
	g->n++;
	return 0;
}

/* the frames of an address inside the loop (where mix's code is inlined) */
static void frames_in_loop(struct symstore *s, struct got *best)
{
	memset(best, 0, sizeof(*best));
	for (uint64_t o = off_outer; o < off_outer + 64; o++) {
		struct got g = { 0 };

		assert_int_equal(symstore_frames(s, "prog", &prog_bid, o, take, &g), 0);
		if (g.n > best->n)
			*best = g;
	}
}

/* A store over an empty directory (with the program's GSYM when gsym),
 * its hooks counting into h (rs: theirs, kept by the caller). */
static struct symstore *open_store(struct hooks *h, struct resolve_store *rs, int gsym)
{
	struct symstore_opts o = { .dir = store, .hooks = rs };
	struct symstore *s;

	*rs = (struct resolve_store){ h_prepare, h_missing, h };
	run("rm -rf %s", store);
	if (gsym)
		put_gsym();
	assert_int_equal(symstore_new(&o, &s), 0);
	return s;
}

static void test_named_as_report(void **state)
{
	struct hooks h = { 0 };
	struct resolve_store rs;
	struct symstore *s = open_store(&h, &rs, 1);
	struct got g;

	(void)state;
	frames_in_loop(s, &g);
	/* mix inlined into zt_ss_outer, innermost first, names demangled
	 * without parameters (as zt report shows them), files and lines */
	assert_int_equal(g.n, 2);
	assert_string_equal(g.names[0], "mix"); /* DWARF names an inlined static function so */
	assert_int_equal(g.inl[0], 1);
	assert_string_equal(g.names[1], "zt_ss_outer");
	assert_int_equal(g.inl[1], 0);
	assert_non_null(strstr(g.files[0], "prog.cc"));
	assert_int_equal(g.lines[1], 4); /* the call's line in zt_ss_outer */
	/* every offset of the function named as the command line's resolver
	 * names the same binary's address, mapped in a recorded process */
	{
		struct prof_mmap mm = { .ts = 1, .pid = 7, .tid = 7, .start = 0x555555554000ull,
					.len = 0x10000, .prot = 5, .path = prog, .build_id = prog_bid };
		struct resolver_opts ro = { .mo = &(struct symmod_opts){ .no_debuginfod = 1 } };
		struct profile p;
		struct proctree *pt;
		struct resolver *r;

		profile_init(&p);
		assert_int_equal(profile_add_mmap(&p, &mm), 0);
		assert_int_equal(proctree_new(&p, &pt), 0);
		assert_int_equal(resolver_new_opts(&p, pt, &ro, &r), 0);
		for (uint64_t x = off_outer; x < off_outer + 64; x++) {
			struct got a = { 0 }, b = { 0 };
			struct resolve_frame f;

			assert_int_equal(resolver_resolve(r, 7, 10, mm.start + x, 0, &f), 0);
			assert_int_equal(session_frames_of(&f, mm.start + x, take, &a), 0);
			assert_int_equal(symstore_frames(s, "prog", &prog_bid, x, take, &b), 0);
			assert_int_equal(a.n, b.n);
			for (unsigned k = 0; k < a.n; k++) {
				assert_string_equal(a.names[k], b.names[k]);
				assert_string_equal(a.files[k], b.files[k]);
				assert_int_equal(a.lines[k], b.lines[k]);
				assert_int_equal(a.inl[k], b.inl[k]);
			}
		}
		resolver_free(r);
		proctree_free(pt);
		profile_release(&p);
	}
	/* opened once: the hook asked once, never told of missing symbols */
	assert_int_equal(h.prepared, 1);
	assert_int_equal(h.missing, 0);
	/* an offset outside every function: module and offset, as every output */
	memset(&g, 0, sizeof(g));
	assert_int_equal(symstore_frames(s, "prog", &prog_bid, 0x7fffff, take, &g), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.names[0], "[prog+0x7fffff]");
	/* no build id: unresolved, the store not asked */
	memset(&g, 0, sizeof(g));
	assert_int_equal(symstore_frames(s, "[vdso]", &(struct prof_build_id){ 0 }, 0x10, take, &g),
			 0);
	assert_string_equal(g.names[0], "[vdso+0x10]");
	assert_int_equal(h.prepared, 1);
	symstore_free(s);
}

static void test_missing_then_made(void **state)
{
	struct hooks h = { 0 };
	struct resolve_store rs;
	struct symstore *s = open_store(&h, &rs, 0);
	struct got g;

	(void)state;
	/* none in the store, none made: unresolved, asked once */
	frames_in_loop(s, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(strncmp(g.names[0], "[prog+0x", 8), 0);
	assert_int_equal(h.missing, 1);
	assert_int_equal(h.prepared, 1);
	/* symbols put later: forgotten, opened again on the next ask */
	put_gsym();
	frames_in_loop(s, &g);
	assert_int_equal(g.n, 1); /* remembered until told */
	symstore_forget(s, &prog_bid);
	frames_in_loop(s, &g);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.names[1], "zt_ss_outer");
	assert_int_equal(h.prepared, 2);
	symstore_free(s);

	/* the missing hook makes them: opened again at once */
	h = (struct hooks){ .make = 1 };
	s = open_store(&h, &rs, 0);
	frames_in_loop(s, &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(h.missing, 1);
	symstore_forget(s, &(struct prof_build_id){ .len = 2, .data = { 1, 2 } }); /* not opened: no-op */
	symstore_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_as_report),
		cmocka_unit_test(test_missing_then_made),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
