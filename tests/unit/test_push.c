// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * net/push: the unwound image of a --call-graph dwarf recording opened by
 * the session (read back: the session's samples and stacks, no snapshot
 * chunks, the same bytes every time), the modules its samples touch, their
 * symbols for upload, and the rules of the configuration file.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/fakesrc.h"
#include "tests/unit/httpserv.h"
#include "tests/unit/testutil.h"

#include "formats/perfwrite.h"
#include "formats/ztdata.h"
#include "net/push.h"
#include "session/session.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/gsym.h"

#define BASE   0x555555554000ull
#define BASE2  0x7f0000000000ull
#define PID    42
#define PID2   43
#define KADDR  0xffffffff81001010ull
#define SECRET "ZT_SECRET=hunter2-in-the-environment"

static char tmpdir[] = "/tmp/zt-test-push.XXXXXX";
static char prog[512];
static struct prof_build_id prog_bid;
static uint64_t off_alpha, off_beta;

static const char prog_src[] =
	"__attribute__((noinline)) int zt_ps_alpha(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int zt_ps_beta(int x) { return zt_ps_alpha(x) ^ 0x55; }\n"
	"int main(int argc, char **argv) { return zt_ps_beta(argc); }\n";

static const char kallsyms[] = "ffffffff81000000 T _text\n"
			       "ffffffff81001000 T zt_kfunc\n"
			       "ffffffff81002000 T _etext\n";

static void path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* ---- a --call-graph dwarf recording -------------------------------------- */

/*
 * prog mapped in PID (with its build id) and a library without one; an
 * unknown blob kind, the kernel's symbols; samples with a kernel frame
 * and user frames, each with a stack snapshot holding SECRET.
 */
static void write_dwarf_recording(const char *path)
{
	struct ztdata_writer *w;
	struct prof_task t = {.ts = 1, .kind = PROF_TASK_COMM, .pid = PID, .tid = PID};
	struct prof_mmap m = {.ts = 1,
			      .pid = PID,
			      .tid = PID,
			      .start = BASE,
			      .len = 0x10000,
			      .prot = 5,
			      .path = prog,
			      .build_id = prog_bid};
	struct prof_mmap lib = {.ts = 1,
				.pid = PID,
				.tid = PID,
				.start = BASE2,
				.len = 0x10000,
				.prot = 5,
				.path = "/nonexistent/libnobid.so"};
	uint8_t stack[512];
	uint64_t regs[PROF_UREGS] = {0};
	int fd, i;

	memset(stack, 0, sizeof(stack));
	memcpy(stack + 64, SECRET, sizeof(SECRET));
	snprintf(t.comm, sizeof(t.comm), "zt-prog");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	w = ztdata_writer_new(fd);
	assert_non_null(w);
	assert_int_equal(ztdata_write_meta(w, "event", "cpu-clock"), 0);
	assert_int_equal(ztdata_write_meta(w, "callchain", "dwarf"), 0);
	assert_int_equal(ztdata_write_meta(w, "hostname", "testhost"), 0);
	assert_int_equal(ztdata_write_meta(w, "cmdline", "prog --flag"), 0);
	assert_int_equal(ztdata_write_task(w, &t), 0);
	assert_int_equal(ztdata_write_mmap(w, &m), 0);
	assert_int_equal(ztdata_write_mmap(w, &lib), 0);
	assert_int_equal(ztdata_write_blob(w, PROF_BLOB_KALLSYMS, 0, 0, kallsyms, strlen(kallsyms)),
			 0);
	assert_int_equal(ztdata_write_blob(w, 99, PID, 0, "private", 7), 0);
	for (i = 0; i < 6; i++) {
		uint64_t ips[3] = {KADDR, BASE + off_alpha + 2, BASE + off_beta + 1};
		uint64_t lips[1] = {BASE2 + 0x1234};

		if (i == 5)
			assert_int_equal(ztdata_write_sample(w, 100 + (uint64_t)i, 1000, PID, PID,
							     0, lips, 0, 1),
					 0);
		else
			assert_int_equal(ztdata_write_sample(w, 100 + (uint64_t)i, 1000, PID, PID,
							     (uint32_t)i % 2, ips, i % 2,
							     2 - (i % 2)),
					 0);
		regs[PROF_UREG_IP] = i == 5 ? lips[0] : BASE + off_alpha + 2;
		regs[PROF_UREG_SP] = 0x7ffd00000000ull;
		assert_int_equal(ztdata_write_ustack(w, (1u << PROF_UREG_IP) | (1u << PROF_UREG_SP),
						     regs, stack, sizeof(stack)),
				 0);
	}
	assert_int_equal(ztdata_write_lost(w, 3, 1), 0);
	assert_int_equal(ztdata_writer_finish(w), 0);
	ztdata_writer_free(w);
	assert_int_equal(close(fd), 0);
}

static int count_ustack(void *arg, const struct prof_ustack *u)
{
	(*(int *)arg)++;
	return 0;
}

static void image_of(const char *path, struct zbuf *img)
{
	struct session s;

	assert_int_equal(session_open(&s, path, NULL), 0);
	zbuf_init(img);
	assert_int_equal(push_image(&s.prof, img), 0);
	session_close(&s);
}

static void test_image(void **state)
{
	char path[600];
	struct ztdata_read_info info;
	struct session s;
	struct profile q;
	struct zbuf img, again;
	size_t i;
	int n = 0;

	path_in(path, sizeof(path), "dwarf.zt");
	write_dwarf_recording(path);
	/* the input does carry snapshots */
	assert_int_equal(ztdata_read_ustacks_file(path, count_ustack, &n, NULL), 0);
	assert_int_equal(n, 6);

	assert_int_equal(session_open(&s, path, NULL), 0);
	zbuf_init(&img);
	assert_int_equal(push_image(&s.prof, &img), 0);
	assert_null(memmem(img.data, img.len, "hunter2", 7));

	profile_init(&q);
	assert_int_equal(ztdata_read_mem(img.data, img.len, &q, &info), 0);
	assert_true(info.complete);
	assert_false(info.truncated);
	assert_int_equal(info.ustack_chunks, 0);
	n = 0;
	assert_int_equal(ztdata_read_ustacks_mem(img.data, img.len, count_ustack, &n, NULL), 0);
	assert_int_equal(n, 0);

	/* the session's samples and (unwound) stacks, one for one */
	assert_int_equal(q.nr_samples, s.prof.nr_samples);
	assert_int_equal(q.nr_samples, 6);
	for (i = 0; i < q.nr_samples; i++) {
		const struct prof_sample *a = &s.prof.samples[i], *b = &q.samples[i];
		const struct prof_stack *sa = &s.prof.stacks[a->stack], *sb = &q.stacks[b->stack];

		assert_int_equal(a->ts, b->ts);
		assert_int_equal(a->weight, b->weight);
		assert_int_equal(a->pid, b->pid);
		assert_int_equal(a->tid, b->tid);
		assert_int_equal(a->cpu, b->cpu);
		assert_int_equal(sa->nk, sb->nk);
		assert_int_equal(sa->nu, sb->nu);
		assert_memory_equal(profile_stack_ips(&s.prof, a->stack),
				    profile_stack_ips(&q, b->stack),
				    (sa->nk + sa->nu) * sizeof(uint64_t));
	}
	assert_int_equal(q.nr_mmaps, 2);
	assert_int_equal(q.nr_tasks, 1);
	assert_int_equal(q.lost_samples, 3);
	assert_int_equal(q.lost_events, 1);
	assert_string_equal(profile_get_meta(&q, "hostname"), "testhost");
	assert_string_equal(profile_get_meta(&q, "cmdline"), "prog --flag");
	/* the kernel's symbols travel, a blob of unknown kind does not */
	assert_int_equal(q.nr_blobs, 1);
	assert_int_equal(q.blobs[0].kind, PROF_BLOB_KALLSYMS);
	assert_int_equal(q.blobs[0].len, strlen(kallsyms));
	assert_memory_equal(q.blobs[0].data, kallsyms, strlen(kallsyms));
	profile_release(&q);

	/* the same bytes from the same session, and from a new one */
	zbuf_init(&again);
	assert_int_equal(push_image(&s.prof, &again), 0);
	assert_int_equal(again.len, img.len);
	assert_memory_equal(again.data, img.data, img.len);
	zbuf_release(&again);
	session_close(&s);
	image_of(path, &again);
	assert_int_equal(again.len, img.len);
	assert_memory_equal(again.data, img.data, img.len);
	zbuf_release(&again);
	zbuf_release(&img);
}

/* A perf.data file carries no kernel symbols: those the session gives it
 * (here from --kallsyms) travel in the image as kallsyms lines. */
static void test_image_perf(void **state)
{
	const uint64_t ips[2] = {KADDR, BASE + off_alpha + 2};
	struct session_opts o = {0};
	struct ztdata_read_info info;
	struct session s;
	struct profile p, q;
	struct zbuf img;
	char path[600], ks[600];
	const struct prof_blob *b;
	int fd;

	profile_init(&p);
	assert_int_equal(profile_set_meta(&p, "event", "cpu-clock"), 0);
	assert_int_equal(fake_task(&p, PROF_TASK_COMM, 1, PID, PID, "zt-prog"), 0);
	assert_int_equal(fake_mmap(&p, PID, 1, BASE, 0x10000, 0, prog, NULL), 0);
	p.mmaps[0].build_id = prog_bid;
	assert_int_equal(fake_sample(&p, 100, 1, PID, PID, 0, ips, 1, 1), 0);
	path_in(path, sizeof(path), "kernel.perf");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(perfwrite_fd(&p, fd), 0);
	assert_int_equal(close(fd), 0);
	profile_release(&p);

	path_in(ks, sizeof(ks), "kallsyms");
	assert_int_equal(write_text(ks, kallsyms, 0644), 0);
	o.kallsyms = ks;
	assert_int_equal(session_open(&s, path, &o), 0);
	assert_true(s.perf);
	zbuf_init(&img);
	assert_int_equal(push_image(&s.prof, &img), 0);
	profile_init(&q);
	assert_int_equal(ztdata_read_mem(img.data, img.len, &q, &info), 0);
	assert_int_equal(q.nr_samples, 1);
	assert_int_equal(q.stacks[q.samples[0].stack].nk, 1);
	b = profile_find_blob(&q, PROF_BLOB_KALLSYMS, UINT32_MAX);
	assert_non_null(b);
	assert_non_null(memmem(b->data, b->len, "zt_kfunc", 8));
	profile_release(&q);
	zbuf_release(&img);
	session_close(&s);
}

/* ---- the modules sampled -------------------------------------------------- */

static void test_modules(void **state)
{
	const uint64_t s1[3] = {KADDR, BASE + off_alpha, BASE + off_beta};
	const uint64_t s2[1] = {BASE2 + 0x10};
	const uint64_t s3[1] = {0x600000001000ull};
	struct push_module *mods;
	struct profile p;
	struct proctree *pt;
	char bid2[21];
	size_t n;

	memcpy(bid2, prog_bid.data, 20);
	bid2[20] = 0;
	profile_init(&p);
	assert_int_equal(fake_mmap(&p, PID, 1, BASE, 0x10000, 0, prog, NULL), 0);
	p.mmaps[0].build_id = prog_bid;
	/* the same binary in another process: listed once */
	assert_int_equal(fake_mmap(&p, PID2, 1, BASE, 0x10000, 0, prog, NULL), 0);
	p.mmaps[1].build_id = prog_bid;
	assert_int_equal(fake_mmap(&p, PID, 1, BASE2, 0x10000, 0, "/lib/notsampled.so",
				   "AAAAAAAAAAAAAAAAAAAA"),
			 0);
	assert_int_equal(fake_mmap(&p, PID2, 1, BASE2, 0x10000, 0, "/lib/nobid.so", NULL), 0);
	assert_int_equal(fake_mmap(&p, ZT_PID_KERNEL, 1, 0xffffffff81000000ull, 0x1000000, 0,
				   "[kernel.kallsyms]", "KKKKKKKKKKKKKKKKKKKK"),
			 0);
	assert_int_equal(fake_sample(&p, 10, 1, PID, PID, 0, s1, 1, 2), 0);
	assert_int_equal(fake_sample(&p, 11, 1, PID, PID, 0, s1, 1, 2), 0);
	assert_int_equal(fake_sample(&p, 12, 1, PID2, PID2, 0, s1 + 1, 0, 2), 0);
	assert_int_equal(fake_sample(&p, 13, 1, PID2, PID2, 0, s2, 0, 1), 0);
	assert_int_equal(fake_sample(&p, 14, 1, PID2, PID2, 0, s3, 0, 1), 0);
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_int_equal(push_modules(&(struct rstacks){&p, pt, NULL}, &mods, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(mods[0].id.len, prog_bid.len);
	assert_memory_equal(mods[0].id.data, prog_bid.data, prog_bid.len);
	assert_string_equal(mods[0].path, prog);
	free(mods);
	proctree_free(pt);
	profile_release(&p);
}

static void test_symbols(void **state)
{
	struct buildid_cache cache;
	struct symmod_opts o = {0};
	struct push_module mod = {prog_bid, prog}, gone = {{20, {1, 2, 3}}, "/nonexistent/x"};
	struct push_symbols s;
	struct gsym *g;
	const uint8_t *uuid;
	size_t ulen;
	char msg[256];
	int pass;

	assert_int_equal(buildid_cache_init(&cache), 0);
	o.cache = &cache;
	o.no_debuginfod = 1;
	/* from the binary, then from the cache it went into */
	for (pass = 0; pass < 2; pass++) {
		char away[600];

		/* the second time the binary is gone: only the cache has them */
		snprintf(away, sizeof(away), "%s.away", prog);
		if (pass == 1)
			assert_int_equal(rename(prog, away), 0);
		assert_int_equal(push_symbols_open(&o, &mod, &s, msg, sizeof(msg)), 0);
		assert_int_equal(s.q, SYMQ_FULL);
		assert_string_equal(s.quality, "full");
		assert_non_null(s.image);
		assert_int_equal(gsym_open_mem(s.image, s.len, &g), 0);
		uuid = gsym_uuid(g, &ulen);
		assert_int_equal(ulen, prog_bid.len);
		assert_memory_equal(uuid, prog_bid.data, ulen);
		assert_true(gsym_nr_funcs(g) >= 3);
		gsym_free(g);
		assert_true(!strncmp(s.load, "0:0:", 4));
		assert_non_null(strchr(s.load, ','));
		push_symbols_close(&s);
		if (pass == 1)
			assert_int_equal(rename(away, prog), 0);
		if (pass == 0) {
			char hex[2 * ZT_BUILD_ID_MAX + 1], gpath[1024];

			prof_build_id_hex(&prog_bid, hex);
			snprintf(gpath, sizeof(gpath), "%s/gsym/%s.gsym", cache.dir, hex);
			assert_int_equal(access(gpath, R_OK), 0);
		}
	}
	assert_int_equal(push_symbols_open(&o, &gone, &s, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "not found"));
	buildid_cache_release(&cache);
}

/* The quality of symbols on the wire: symbols/missing's answer lines
 * ("ID" none, "ID QUALITY" worse than full, unnamed: full) and what a
 * PUT's answer says (the quality stored, replaced, or kept with 412). */
static void test_quality(void **state)
{
	static const char missing[] = "0a0a\r\n0b0b basic\n0c0c sparkling\n0e0e none\n";
	struct answer script[] = {
		{200, NULL, missing, 0},
		{200, NULL,
		 "{\"id\":\"0a0a\",\"created\":false,\"quality\":\"full\",\"replaced\":\"basic\"}"
		 "\n",
		 0},
		{412, "X-ZT-Symbol-Quality: full\r\n", "{\"error\":\"kept\"}\n", 0},
		{201, NULL, "{\"id\":\"0a0a\",\"created\":true}\n", 0},
	};
	struct push_module mods[5] = {{{2, {0x0a, 0x0a}}, "a"},
				      {{2, {0x0b, 0x0b}}, "b"},
				      {{2, {0x0c, 0x0c}}, "c"},
				      {{2, {0x0d, 0x0d}}, "d"},
				      {{2, {0x0e, 0x0e}}, "e"}};
	struct push_symbols sym = {.image = "GSYM", .len = 4, .q = SYMQ_FULL, .quality = "full"};
	struct push_put_answer pa;
	struct zt_http_opts o = {NULL};
	struct zt_http_resp r;
	struct zt_http *h;
	struct server srv;
	int8_t have[5];
	char url[64], msg[256];
	int i;

	(void)state;
	assert_string_equal(push_quality_name(SYMQ_NONE), "none");
	assert_string_equal(push_quality_name(SYMQ_BASIC), "basic");
	assert_string_equal(push_quality_name(SYMQ_FULL), "full");
	assert_string_equal(push_quality_name(-1), "?");
	assert_int_equal(push_quality_parse("full"), SYMQ_FULL);
	assert_int_equal(push_quality_parse("functions"), SYMQ_BASIC);
	assert_int_equal(push_quality_parse("none"), SYMQ_NONE);
	assert_int_equal(push_quality_parse("great"), -1);

	server_start(&srv, script, 4);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", srv.port);
	o.base_url = url;
	o.tries = 1;
	assert_int_equal(zt_http_new(&o, &h, msg, sizeof(msg)), 0);
	zt_http_resp_init(&r);
	assert_int_equal(push_missing(h, mods, 5, have, &r, msg, sizeof(msg)), 0);
	assert_string_equal(srv.first_line[0], "POST /api/v1/symbols/missing HTTP/1.1");
	assert_string_equal(srv.body[0], "0a0a\n0b0b\n0c0c\n0d0d\n0e0e\n");
	assert_int_equal(have[0], -1);	       /* none */
	assert_int_equal(have[1], SYMQ_BASIC); /* worse than full */
	assert_int_equal(have[2], SYMQ_FULL);  /* a word not known: not used */
	assert_int_equal(have[3], SYMQ_FULL);  /* not named: full */
	assert_int_equal(have[4], SYMQ_NONE);
	for (i = 0; i < 3; i++) {
		zt_http_resp_release(&r);
		zt_http_resp_init(&r);
		assert_int_equal(
			push_put_symbols(h, &mods[0].id, &sym, 0, NULL, &r, msg, sizeof(msg)), 0);
		push_put_answer(&r, &pa);
		if (i == 0) /* better than the server's: stored over them */
			assert_true(pa.stored == SYMQ_FULL && pa.replaced == SYMQ_BASIC &&
				    pa.kept == -1);
		else if (i == 1) /* the server keeps its own */
			assert_true(pa.stored == -1 && pa.replaced == -1 && pa.kept == SYMQ_FULL);
		else /* an older server's answer says nothing of qualities */
			assert_true(pa.stored == -1 && pa.replaced == -1 && pa.kept == -1);
	}
	assert_string_equal(srv.first_line[1], "PUT /api/v1/symbols/0a0a HTTP/1.1");
	zt_http_resp_release(&r);
	zt_http_free(h);
	server_stop(&srv);
}

/* ---- the configuration file ---------------------------------------------- */

static void test_config(void **state)
{
	char path[600], link[600], dir[600], msg[1024], out[700];
	struct push_config c;

	path_in(path, sizeof(path), "config");
	assert_int_equal(write_text(path,
				    "# zt push\n"
				    "server = http://zt.example:7070\n"
				    "   token=s3cret  \n"
				    "\n"
				    "colour = never\n",
				    0600),
			 0);
	assert_int_equal(push_config_read(path, &c, msg, sizeof(msg)), 0);
	assert_string_equal(c.server, "http://zt.example:7070");
	assert_string_equal(c.token, "s3cret");
	push_config_release(&c);
	assert_null(c.token);

	/* readable, or writable, by others: refused, with the fix */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(push_config_read(path, &c, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "chmod 600"));
	assert_null(strstr(msg, "s3cret"));
	assert_null(c.token);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(push_config_read(path, &c, msg, sizeof(msg)), -EPERM);
	assert_int_equal(chmod(path, 0620), 0);
	assert_int_equal(push_config_read(path, &c, msg, sizeof(msg)), -EPERM);
	assert_int_equal(chmod(path, 0400), 0);
	assert_int_equal(push_config_read(path, &c, msg, sizeof(msg)), 0);
	push_config_release(&c);
	assert_int_equal(chmod(path, 0600), 0);

	/* not through a symlink, not a directory, not someone else's */
	path_in(link, sizeof(link), "config-link");
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(push_config_read(link, &c, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "symbolic link"));
	path_in(dir, sizeof(dir), "config-dir");
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(push_config_read(dir, &c, msg, sizeof(msg)), -EPERM);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(push_config_read(path, &c, msg, sizeof(msg)), -EPERM);
		assert_non_null(strstr(msg, "not owned by you"));
		assert_int_equal(chown(path, 0, 0), 0);
	}

	/* no file: nothing, and no message; a bad line: named */
	path_in(out, sizeof(out), "no-such-config");
	assert_int_equal(push_config_read(out, &c, msg, sizeof(msg)), -ENOENT);
	assert_null(c.server);
	assert_int_equal(write_text(path, "server = http://a\ntoken s3cret\n", 0600), 0);
	assert_int_equal(push_config_read(path, &c, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, ":2:"));
	assert_null(strstr(msg, "s3cret"));
	assert_null(c.server);

	/* where it is */
	setenv("XDG_CONFIG_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(push_config_path(out, sizeof(out)), 0);
	assert_string_equal(out, "/xdg/zt/config");
	setenv("XDG_CONFIG_HOME", "relative", 1);
	assert_int_equal(push_config_path(out, sizeof(out)), 0);
	assert_string_equal(out, "/home/u/.config/zt/config");
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(push_config_path(out, sizeof(out)), 0);
	assert_string_equal(out, "/home/u/.config/zt/config");
	unsetenv("HOME");
	assert_int_equal(push_config_path(out, sizeof(out)), -ENOENT);
}

/* ---- the API's answers -------------------------------------------------------- */

static void test_answers(void **state)
{
	struct zt_http_resp r;
	struct zt_http_opts o = {"http://127.0.0.1:1"};
	struct zt_http *h;
	struct push_result res;
	const char *bad[] = {"=v"};
	char out[128], msg[256];

	zt_http_resp_init(&r);
	r.status = 400;
	zbuf_put(&r.body, "{\"error\":\"not a zt.data file: \\\"x\\\"\\n\\u001b[31m\"}", 49);
	push_answer_error(&r, out, sizeof(out));
	assert_string_equal(out, "not a zt.data file: \"x\" ?[31m");
	zbuf_reset(&r.body);
	zbuf_put(&r.body, "<html>\r\nbad gateway", 19);
	push_answer_error(&r, out, sizeof(out));
	assert_string_equal(out, "<html>?");
	zbuf_reset(&r.body);
	r.status = 502;
	push_answer_error(&r, out, sizeof(out));
	assert_string_equal(out, "HTTP status 502");

	/* a bad label is refused before anything is sent */
	o.tries = 1;
	assert_int_equal(zt_http_new(&o, &h, msg, sizeof(msg)), 0);
	assert_int_equal(push_profile(h, "x", 1, bad, 1, &res, &r, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(r.tries, 0);
	assert_non_null(strstr(msg, "=v"));
	zt_http_free(h);
	zt_http_resp_release(&r);
}

static int setup(void **state)
{
	char path[600];

	if (!mkdtemp(tmpdir))
		return -1;
	path_in(path, sizeof(path), "cache");
	setenv("ZT_CACHE_DIR", path, 1);
	path_in(path, sizeof(path), "prog.c");
	if (write_text(path, prog_src, 0644))
		return -1;
	path_in(prog, sizeof(prog), "prog");
	if (run("cd %s && cc -O2 -g -fPIE -pie -Wl,--build-id=sha1 -o prog prog.c", tmpdir))
		return -1;
	if (elf_read_build_id(prog, &prog_bid) || !prog_bid.len)
		return -1;
	if (file_offset(prog, "zt_ps_alpha", &off_alpha, NULL) ||
	    file_offset(prog, "zt_ps_beta", &off_beta, NULL))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	run("rm -rf %s", tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_image),	cmocka_unit_test(test_image_perf),
		cmocka_unit_test(test_modules), cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_config),	cmocka_unit_test(test_answers),
		cmocka_unit_test(test_quality),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
