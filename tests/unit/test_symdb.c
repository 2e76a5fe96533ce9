/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbol database as a symbol source: symmod's remote seam with a fake
 * remote over a program compiled here (a cached basic entry upgraded and
 * replaced, a binary not on this machine placed by the remote's segments,
 * a basic answer kept basic, a failing remote, an answer for another
 * binary, symbol-table names only), and net/symdb's client against a
 * scripted HTTP server (headers, 404 asked once, 401 and a closed port
 * said once, then not asked again).
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

#include "tests/unit/httpserv.h"
#include "tests/unit/testutil.h"

#include "libprof/fileio.h"
#include "libprof/log.h"
#include "net/symdb.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/gsym.h"
#include "symbolizer/symmod.h"

static char tmpdir[] = "/tmp/zt-test-symdb.XXXXXX";
static char prog[512], nodbg[512], stripped[512], gone[512];
static struct prof_build_id prog_bid;
static uint64_t off_hot, size_hot; /* file offset and size of sd_hot */
static struct buildid_cache cache;
static char *full_img, *basic_img;
static size_t full_len, basic_len;
static struct symmod_seg prog_segs[SYMMOD_REMOTE_MAX_SEGS];
static size_t nr_prog_segs;

static const char prog_src[] =
	"volatile int sd_rounds = 2000;\n"
	"static inline __attribute__((always_inline)) unsigned long sd_mix(unsigned long v)\n"
	"{\n"
	"	for (int i = 0; i < sd_rounds; i++)\n"
	"		v = v * 6364136223846793005ul + (v >> 7) + 1442695040888963407ul;\n"
	"	return v;\n"
	"}\n"
	"__attribute__((noinline)) unsigned long sd_hot(unsigned long s)\n"
	"{\n"
	"	return sd_mix(s) ^ s;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	(void)argv;\n"
	"	return (int)sd_hot((unsigned long)argc);\n"
	"}\n";

/* ---- the fake remote ------------------------------------------------------- */

static struct fake {
	const void *img;
	size_t len;
	int q;	       /* what it says (-1: nothing) */
	int with_segs; /* it sends prog's load segments (1), or wrong ones (2) */
	int err;       /* it fails with this */
	int calls;
} fake;

static int fake_remote(void *ctx, const struct prof_build_id *id, struct symmod_remote *a)
{
	struct fake *f = ctx;

	(void)id;
	f->calls++;
	assert_null(a->image);
	assert_int_equal(a->q, -1);
	if (f->err)
		return f->err;
	a->image = malloc(f->len);
	assert_non_null(a->image);
	memcpy(a->image, f->img, f->len);
	a->len = f->len;
	a->q = f->q;
	if (f->with_segs == 1) {
		memcpy(a->segs, prog_segs, nr_prog_segs * sizeof(*prog_segs));
		a->nr_segs = nr_prog_segs;
	} else if (f->with_segs == 2) {
		/* wrong ones: the binary's own must be used when it is here */
		a->segs[0] = (struct symmod_seg){0, 0x7000000, 0x100000};
		a->nr_segs = 1;
	}
	snprintf(a->source, sizeof(a->source), "symbol database http://test");
	return 0;
}

static void fake_set(const void *img, size_t len, int q, int with_segs, int err)
{
	fake = (struct fake){img, len, q, with_segs, err, 0};
}

static struct symmod_opts opts(int with_remote)
{
	struct symmod_opts o = {0};

	o.cache = &cache;
	o.no_debuginfod = 1;
	if (with_remote) {
		o.remote_gsym = fake_remote;
		o.remote_ctx = &fake;
	}
	return o;
}

/* ---- setup ----------------------------------------------------------------- */

static int setup(void **state)
{
	struct symmod_opts o = {.no_debuginfod = 1};
	char path[600], src[600];
	enum symq q;

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(src, sizeof(src), "%s/prog.c", tmpdir);
	snprintf(prog, sizeof(prog), "%s/prog", tmpdir);
	snprintf(nodbg, sizeof(nodbg), "%s/prog.nodbg", tmpdir);
	snprintf(stripped, sizeof(stripped), "%s/prog.stripped", tmpdir);
	snprintf(gone, sizeof(gone), "%s/no/such/prog", tmpdir);
	if (write_text(src, prog_src, 0644) ||
	    run("cd %s && cc -g -O2 -Wl,--build-id=sha1 -o prog prog.c && "
		"objcopy --strip-debug prog prog.nodbg && strip -s -o prog.stripped prog",
		tmpdir))
		return -1;
	if (elf_read_build_id(prog, &prog_bid) || !prog_bid.len ||
	    file_offset(prog, "sd_hot", &off_hot, &size_hot))
		return -1;
	if (symmod_elf_segments(prog, 0, prog_segs, SYMMOD_REMOTE_MAX_SEGS, &nr_prog_segs) ||
	    !nr_prog_segs || nr_prog_segs > SYMMOD_REMOTE_MAX_SEGS)
		return -1;
	/* what a server would hold: the full and the names-only GSYM */
	snprintf(path, sizeof(path), "%s/full.gsym", tmpdir);
	if (symmod_extract(&o, prog, path, &q) || q != SYMQ_FULL ||
	    zt_read_file(path, 64 << 20, &full_img, &full_len))
		return -1;
	o.no_dwarf = 1;
	snprintf(path, sizeof(path), "%s/basic.gsym", tmpdir);
	if (symmod_extract(&o, prog, path, &q) || q != SYMQ_BASIC ||
	    zt_read_file(path, 64 << 20, &basic_img, &basic_len))
		return -1;
	snprintf(path, sizeof(path), "%s/cache", tmpdir);
	setenv("ZT_CACHE_DIR", path, 1);
	return buildid_cache_init(&cache);
}

static int teardown(void **state)
{
	(void)state;
	buildid_cache_release(&cache);
	free(full_img);
	free(basic_img);
	run("rm -rf %s", tmpdir);
	return 0;
}

/* Each test starts with an empty cache. */
static int empty_cache(void **state)
{
	(void)state;
	return run("rm -rf %s/cache", tmpdir);
}

/* ---- checks ---------------------------------------------------------------- */

/* sd_hot found by file offset, with its file:line and, somewhere in it,
 * the inlined sd_mix (full); or its name alone (basic). */
static void check_hot(const struct symmod *m, enum symq q)
{
	struct fi_result r;
	int inlined = 0, lines = 0;
	uint64_t o;

	assert_int_equal(symmod_lookup_offset(m, off_hot, &r), 0);
	assert_string_equal(r.locs[r.n - 1].name, "sd_hot");
	for (o = off_hot; o < off_hot + size_hot; o++) {
		if (symmod_lookup_offset(m, o, &r))
			continue;
		assert_string_equal(r.locs[r.n - 1].name, "sd_hot");
		if (r.locs[0].line && !strcmp(r.locs[0].file, "prog.c"))
			lines++;
		if (r.n >= 2 && !strcmp(r.locs[0].name, "sd_mix"))
			inlined++;
	}
	if (q == SYMQ_FULL) {
		assert_true(lines > 0);
		assert_true(inlined > 0);
	} else {
		assert_int_equal(lines, 0);
		assert_int_equal(inlined, 0);
	}
}

/* The quality the cache's meta file holds for prog, -1 when none. */
static int cached_quality(void)
{
	char path[700], hex[2 * ZT_BUILD_ID_MAX + 1], *text, *p;
	size_t n;
	int q = -1;

	snprintf(path, sizeof(path), "%s/cache/gsym/%s.meta", tmpdir,
		 prof_build_id_hex(&prog_bid, hex));
	if (zt_read_file(path, 1 << 20, &text, &n))
		return -1;
	p = strstr(text, "\nquality ");
	if (p)
		q = atoi(p + 9);
	free(text);
	return q;
}

static int cached_has(const char *what)
{
	char path[700], hex[2 * ZT_BUILD_ID_MAX + 1], *text;
	size_t n;
	int has;

	snprintf(path, sizeof(path), "%s/cache/gsym/%s.meta", tmpdir,
		 prof_build_id_hex(&prog_bid, hex));
	if (zt_read_file(path, 1 << 20, &text, &n))
		return 0;
	has = strstr(text, what) != NULL;
	free(text);
	return has;
}

/* ---- symmod and its remote ------------------------------------------------- */

static void test_cached_basic_then_remote_full(void **state)
{
	struct symmod_opts o = opts(0);
	struct symmod *m;

	(void)state;
	/* names only here: cached as basic */
	assert_int_equal(symmod_open(&o, nodbg, &prog_bid, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_BASIC);
	assert_int_equal(symmod_remote_served(m), 0);
	symmod_free(m);
	assert_int_equal(cached_quality(), SYMQ_BASIC);

	/* the cached basic entry still asks the remote, whose full answer wins
	 * and replaces the cache entry */
	o = opts(1);
	fake_set(full_img, full_len, SYMQ_FULL, 0, 0);
	assert_int_equal(symmod_open(&o, nodbg, &prog_bid, &m), 0);
	assert_int_equal(fake.calls, 1);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	assert_int_equal(symmod_remote_served(m), 1);
	assert_string_equal(symmod_source(m), "symbol database http://test");
	assert_string_equal(symmod_why(m), "");
	check_hot(m, SYMQ_FULL);
	symmod_free(m);
	assert_int_equal(cached_quality(), SYMQ_FULL);
	assert_true(cached_has("source symbol database http://test\n"));

	/* from the cache now: the remote is not asked */
	assert_int_equal(symmod_open(&o, nodbg, &prog_bid, &m), 0);
	assert_int_equal(fake.calls, 1);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	assert_int_equal(symmod_remote_served(m), 2);
	check_hot(m, SYMQ_FULL);
	symmod_free(m);
}

static void test_binary_absent(void **state)
{
	struct symmod_opts o = opts(1);
	struct symmod *m;
	struct symmod_seg segs[SYMMOD_REMOTE_MAX_SEGS];
	size_t i, n;

	(void)state;
	/* no binary: the remote's image placed by the remote's segments */
	fake_set(full_img, full_len, SYMQ_FULL, 1, 0);
	assert_int_equal(symmod_open(&o, gone, &prog_bid, &m), 0);
	assert_int_equal(fake.calls, 1);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	n = symmod_segments(m, segs, SYMMOD_REMOTE_MAX_SEGS);
	assert_int_equal(n, nr_prog_segs);
	for (i = 0; i < n; i++)
		assert_memory_equal(&segs[i], &prog_segs[i], sizeof(segs[i]));
	check_hot(m, SYMQ_FULL);
	symmod_free(m);
	assert_int_equal(cached_quality(), SYMQ_FULL);
	assert_true(cached_has("\nload "));

	/* and cached with them: a second open needs no remote at all */
	o = opts(0);
	assert_int_equal(symmod_open(&o, gone, &prog_bid, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	assert_int_equal(symmod_remote_served(m), 2);
	assert_int_equal(symmod_segments(m, segs, SYMMOD_REMOTE_MAX_SEGS), nr_prog_segs);
	check_hot(m, SYMQ_FULL);
	symmod_free(m);
}

static void test_binary_present_keeps_its_segments(void **state)
{
	struct symmod_opts o = opts(1);
	struct symmod *m;

	(void)state;
	/* the stripped binary is here: its segments, whatever the remote says */
	fake_set(full_img, full_len, SYMQ_FULL, 2, 0);
	assert_int_equal(symmod_open(&o, stripped, &prog_bid, &m), 0);
	assert_int_equal(fake.calls, 1);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	assert_int_equal(symmod_remote_served(m), 1);
	check_hot(m, SYMQ_FULL);
	symmod_free(m);
	assert_int_equal(cached_quality(), SYMQ_FULL);
}

static void test_remote_basic(void **state)
{
	struct symmod_opts o = opts(1);
	struct symmod *m;

	(void)state;
	/* a stripped binary has nothing: a basic answer is better, and basic */
	fake_set(basic_img, basic_len, SYMQ_BASIC, 0, 0);
	assert_int_equal(symmod_open(&o, stripped, &prog_bid, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_BASIC);
	assert_int_equal(symmod_remote_served(m), 1);
	assert_string_not_equal(symmod_why(m), "");
	check_hot(m, SYMQ_BASIC);
	symmod_free(m);
	assert_int_equal(cached_quality(), SYMQ_BASIC);

	/* cached basic: asked again (once per open), still basic; no quality
	 * said: judged from the image, which has no file:line rows */
	fake_set(basic_img, basic_len, -1, 0, 0);
	assert_int_equal(symmod_open(&o, stripped, &prog_bid, &m), 0);
	assert_int_equal(fake.calls, 1);
	assert_int_equal(symmod_quality(m), SYMQ_BASIC);
	assert_int_equal(symmod_remote_served(m), 2); /* the earlier answer, kept */
	symmod_free(m);

	/* nothing cached, no quality said, a full image: judged full */
	empty_cache(NULL);
	fake_set(full_img, full_len, -1, 0, 0);
	assert_int_equal(symmod_open(&o, stripped, &prog_bid, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	check_hot(m, SYMQ_FULL);
	symmod_free(m);
}

static void test_remote_fails(void **state)
{
	struct symmod_opts o = opts(1);
	struct symmod_remote junk = {0};
	struct symmod *m;
	char *bad;

	(void)state;
	fake_set(NULL, 0, -1, 0, -EHOSTDOWN);
	assert_int_equal(symmod_open(&o, nodbg, &prog_bid, &m), 0);
	assert_int_equal(fake.calls, 1);
	assert_int_equal(symmod_quality(m), SYMQ_BASIC);
	assert_int_equal(symmod_remote_served(m), 0);
	assert_string_equal(symmod_source(m), "symbol table");
	check_hot(m, SYMQ_BASIC);
	symmod_free(m);
	assert_int_equal(cached_quality(), SYMQ_BASIC);
	/* the cached basic entry, asked again: still basic */
	assert_int_equal(symmod_open(&o, nodbg, &prog_bid, &m), 0);
	assert_int_equal(fake.calls, 2);
	assert_int_equal(symmod_quality(m), SYMQ_BASIC);
	symmod_free(m);

	/* no binary, a failing remote: nothing, and nothing cached */
	empty_cache(NULL);
	assert_int_equal(symmod_open(&o, gone, &prog_bid, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_NONE);
	assert_string_equal(symmod_why(m), "binary not found");
	symmod_free(m);
	assert_int_equal(cached_quality(), -1);

	/* not a GSYM image: ignored */
	bad = strdup("not a gsym image at all, not at all");
	fake_set(bad, strlen(bad), SYMQ_FULL, 1, 0);
	assert_int_equal(symmod_open(&o, gone, &prog_bid, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_NONE);
	symmod_free(m);
	free(bad);

	/* symbols of another binary (its UUID is not the build id): ignored */
	{
		struct prof_build_id other = prog_bid;

		other.data[0] ^= 0xff;
		fake_set(full_img, full_len, SYMQ_FULL, 1, 0);
		assert_int_equal(symmod_open(&o, gone, &other, &m), 0);
		assert_int_equal(fake.calls, 1);
		assert_int_equal(symmod_quality(m), SYMQ_NONE);
		symmod_free(m);
	}
	symmod_remote_release(&junk); /* on an empty answer: nothing */
}

static void test_no_dwarf(void **state)
{
	struct symmod_opts o = opts(1);
	struct symmod *m;
	char path[600], gdir[600];

	(void)state;
	/* a cached full entry is there, and a remote: neither is used */
	fake_set(full_img, full_len, SYMQ_FULL, 0, 0);
	assert_int_equal(symmod_open(&o, stripped, &prog_bid, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	symmod_free(m);
	fake.calls = 0;
	o.no_dwarf = 1;
	assert_int_equal(symmod_open(&o, prog, &prog_bid, &m), 0);
	assert_int_equal(fake.calls, 0);
	assert_int_equal(symmod_quality(m), SYMQ_BASIC);
	assert_int_equal(symmod_remote_served(m), 0);
	assert_string_equal(symmod_source(m), "symbol table");
	check_hot(m, SYMQ_BASIC);
	symmod_free(m);

	/* nor is the cache written */
	empty_cache(NULL);
	assert_int_equal(symmod_open(&o, prog, &prog_bid, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_BASIC);
	symmod_free(m);
	snprintf(gdir, sizeof(gdir), "%s/cache/gsym", tmpdir);
	assert_int_not_equal(access(gdir, F_OK), 0);

	/* extract: names only, no file:line rows in the file */
	snprintf(path, sizeof(path), "%s/nd.gsym", tmpdir);
	{
		enum symq q;
		struct gsym *g;
		struct fi_result r;
		uint64_t vaddr = 0;
		size_t i;

		assert_int_equal(symmod_extract(&o, prog, path, &q), 0);
		assert_int_equal(q, SYMQ_BASIC);
		assert_int_equal(gsym_open_file(path, &g), 0);
		for (i = 0; i < nr_prog_segs; i++)
			if (off_hot >= prog_segs[i].off &&
			    off_hot < prog_segs[i].off + prog_segs[i].size)
				vaddr = off_hot - prog_segs[i].off + prog_segs[i].vaddr;
		assert_int_equal(gsym_lookup(g, vaddr, &r), 0);
		assert_string_equal(r.locs[r.n - 1].name, "sd_hot");
		assert_int_equal(r.n, 1);
		assert_int_equal(r.locs[0].line, 0);
		gsym_free(g);
	}
}

/* ---- net/symdb ------------------------------------------------------------- */

static char warned[8][512];
static int nr_warned;

static void catch_warnings(enum zt_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == ZT_LOG_WARN && nr_warned < 8)
		snprintf(warned[nr_warned++], sizeof(warned[0]), "%s", msg);
}

static void db_open(struct symdb *d, int port, const char *token)
{
	struct symdb_opts o = {0};
	char url[64], msg[256];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	o.url = url;
	o.token = token;
	assert_int_equal(symdb_init(d, &o, msg, sizeof(msg)), 0);
	nr_warned = 0;
	zt_log_set(catch_warnings, NULL);
}

static struct prof_build_id id_of(uint8_t b)
{
	struct prof_build_id id = {.len = 20};

	memset(id.data, b, 20);
	return id;
}

static void test_client_answers(void **state)
{
	static const char hdrs[] = "X-ZT-Symbol-Quality: basic\r\n"
				   "X-ZT-Symbol-Load: 0:0:638, 1000:1000:20d\r\n";
	struct answer script[] = {
		{200, hdrs, NULL, 0},
		{404, NULL, NULL, 0},
		{200, NULL, NULL, 0},
		{401, NULL, "{\"error\":\"no\"}", 0},
	};
	struct prof_build_id a = id_of(0xab), b = id_of(0xcd), c = id_of(0x01);
	struct symmod_remote r;
	struct server s;
	struct symdb d;
	char expect[128];

	(void)state;
	script[0].body = full_img; /* a binary body, NULs and all */
	script[0].body_len = full_len;
	script[2].body = basic_img;
	script[2].body_len = basic_len;
	server_start(&s, script, 4);
	db_open(&d, s.port, "t0ken");

	memset(&r, 0, sizeof(r));
	r.q = -1;
	assert_int_equal(symdb_get(&d, &a, &r), 0);
	assert_int_equal(r.len, full_len);
	assert_memory_equal(r.image, full_img, full_len);
	assert_int_equal(r.q, SYMQ_BASIC);
	assert_int_equal(r.nr_segs, 2);
	assert_int_equal(r.segs[1].off, 0x1000);
	assert_int_equal(r.segs[1].size, 0x20d);
	snprintf(expect, sizeof(expect), "symbol database http://127.0.0.1:%d", s.port);
	assert_string_equal(r.source, expect);
	symmod_remote_release(&r);
	assert_null(r.image);

	/* 404: not there, silently, and not asked again */
	memset(&r, 0, sizeof(r));
	r.q = -1;
	assert_int_equal(symdb_get(&d, &b, &r), -ENOENT);
	assert_int_equal(symdb_get(&d, &b, &r), -ENOENT);
	assert_null(r.image);

	/* no headers: no quality said, no segments */
	assert_int_equal(symdb_get(&d, &c, &r), 0);
	assert_int_equal(r.q, -1);
	assert_int_equal(r.nr_segs, 0);
	assert_int_equal(r.len, basic_len);
	symmod_remote_release(&r);

	/* 401: said once, then the server is off for the run */
	memset(&r, 0, sizeof(r));
	r.q = -1;
	assert_int_equal(symdb_get(&d, &b, &r), -ENOENT); /* still remembered */
	c.data[0] = 0x02;
	assert_int_equal(symdb_get(&d, &c, &r), -EHOSTDOWN);
	c.data[0] = 0x03;
	assert_int_equal(symdb_get(&d, &c, &r), -EHOSTDOWN);
	assert_int_equal(nr_warned, 1);
	assert_non_null(strstr(warned[0], "refused the token (401)"));
	assert_non_null(strstr(warned[0], "continuing without it"));
	assert_null(strstr(warned[0], "t0ken"));
	symdb_release(&d);
	server_stop(&s);
	assert_int_equal(s.served, 4);
	snprintf(expect, sizeof(expect), "GET /api/v1/symbols/%s HTTP/1.1",
		 "abababababababababababababababababababab");
	assert_string_equal(s.first_line[0], expect);
	assert_string_equal(s.auth[0], "Bearer t0ken");
	zt_log_set(NULL, NULL);
}

static void test_client_down(void **state)
{
	struct prof_build_id a = id_of(0xab), b = id_of(0xcd);
	struct symmod_remote r = {.q = -1};
	struct answer script[] = {{503, NULL, NULL, 0}, {503, NULL, NULL, 0}};
	struct server s;
	struct symdb d;
	uint64_t t0;
	int port, fd;

	(void)state;
	/* a closed port: quick, said once, then not asked again */
	fd = listen_loopback(&port);
	close(fd);
	db_open(&d, port, NULL);
	t0 = now_ms();
	assert_int_equal(symdb_get(&d, &a, &r), -EHOSTDOWN);
	assert_int_equal(symdb_get(&d, &b, &r), -EHOSTDOWN);
	assert_true(now_ms() - t0 < 3000);
	assert_int_equal(d.asked, 1);
	assert_int_equal(nr_warned, 1);
	assert_non_null(strstr(warned[0], "did not answer ("));
	assert_non_null(strstr(warned[0], ": continuing without it"));
	symdb_release(&d);

	/* a server that keeps failing: the same */
	server_start(&s, script, 2);
	db_open(&d, s.port, NULL);
	assert_int_equal(symdb_get(&d, &a, &r), -EHOSTDOWN);
	assert_int_equal(symdb_get(&d, &b, &r), -EHOSTDOWN);
	assert_int_equal(nr_warned, 1);
	assert_non_null(strstr(warned[0], "answered 503"));
	symdb_release(&d);
	server_stop(&s);
	assert_int_equal(s.served, 2); /* two tries of one request */
	assert_null(r.image);
	zt_log_set(NULL, NULL);
}

static void test_parse_load(void **state)
{
	struct symmod_seg segs[4];
	size_t n;

	(void)state;
	assert_int_equal(symdb_parse_load("0:0:638,1000:1000:20d,2dd0:3dd0:24c", segs, 4, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(segs[2].off, 0x2dd0);
	assert_int_equal(segs[2].vaddr, 0x3dd0);
	assert_int_equal(segs[2].size, 0x24c);
	assert_int_equal(symdb_parse_load("", segs, 4, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(symdb_parse_load("A:b:C", segs, 4, &n), 0);
	assert_int_equal(segs[0].off, 0xa);
	assert_int_equal(symdb_parse_load("0:0", segs, 4, &n), -EINVAL);
	assert_int_equal(symdb_parse_load("0:0:1,", segs, 4, &n), 0);
	assert_int_equal(symdb_parse_load("0:0:1;2:2:2", segs, 4, &n), -EINVAL);
	assert_int_equal(symdb_parse_load("-1:0:1", segs, 4, &n), -EINVAL);
	assert_int_equal(symdb_parse_load("0x1:0:1", segs, 4, &n), -EINVAL);
	assert_int_equal(symdb_parse_load("11112222333344445:0:1", segs, 4, &n), -EINVAL);
	assert_int_equal(symdb_parse_load("1:1:1,2:2:2,3:3:3,4:4:4,5:5:5", segs, 4, &n), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_cached_basic_then_remote_full, empty_cache),
		cmocka_unit_test_setup(test_binary_absent, empty_cache),
		cmocka_unit_test_setup(test_binary_present_keeps_its_segments, empty_cache),
		cmocka_unit_test_setup(test_remote_basic, empty_cache),
		cmocka_unit_test_setup(test_remote_fails, empty_cache),
		cmocka_unit_test_setup(test_no_dwarf, empty_cache),
		cmocka_unit_test(test_client_answers),
		cmocka_unit_test(test_client_down),
		cmocka_unit_test(test_parse_load),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
