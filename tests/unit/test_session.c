/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session: recordings written here (zt.data by its writer, perf.data by
 * perfwrite) over a program compiled here, opened by their magic whatever
 * their name, and their addresses resolved through the session's frame
 * table; options, refused inputs, and the frame source on its own.
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
#include "tests/unit/testutil.h"

#include "formats/perfwrite.h"
#include "formats/ztdata.h"
#include "libprof/log.h"
#include "session/session.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/resolve.h"

#define BASE  0x555555554000ull /* where pid PID maps the program */
#define BASE2 0x566666660000ull /* where pid PID2 maps it */
#define PID   42
#define PID2  43
#define KTEXT 0xffffffff81000000ull /* the recorded kernel's _text */

static char tmpdir[] = "/tmp/zt-test-session.XXXXXX";
static char prog[512], cxx[512];
static struct prof_build_id prog_bid, cxx_bid;
static uint64_t off_alpha, off_beta, off_main, off_inl, off_f;
static char jit_map[64]; /* this process's /tmp/perf-PID.map while a test has one */

static const char prog_src[] =
	"static inline __attribute__((always_inline)) int zt_ss_inl(int x)\n"
	"{\n"
	"	volatile int v = x;\n"
	"	return v * v + 7;\n"
	"}\n"
	"__attribute__((noinline)) int zt_ss_outer(int x) { return zt_ss_inl(x) + zt_ss_inl(x + "
	"1); }\n"
	"__attribute__((noinline)) int zt_ss_alpha(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int zt_ss_beta(int x) { return zt_ss_alpha(x) ^ 0x55; }\n"
	"int main(int argc, char **argv) { return zt_ss_beta(argc) + zt_ss_outer(argc); }\n";

static const char cxx_src[] =
	"namespace ns {\n"
	"__attribute__((noinline)) int f(int x) { volatile int v = x; return v * 5 + 2; }\n"
	"}\n"
	"int main(int argc, char **argv) { return ns::f(argc); }\n";

/* the recorded kernel's symbols, and another boot's (_text 16 MiB higher) */
static const char kallsyms_rec[] = "ffffffff81000000 T _text\n"
				   "ffffffff81001000 T zt_krec\n"
				   "ffffffff81002000 T _etext\n";
static const char kallsyms_file[] = "ffffffff82000000 T _text\n"
				    "ffffffff82001000 T zt_kfile\n"
				    "ffffffff82001800 T zt_kfile2\n"
				    "ffffffff82002000 T _etext\n";

/* ---- the log ---- */

static char logbuf[16384];
static size_t loglen;

static void capture(enum zt_log_level level, const char *msg, void *ctx)
{
	static const char lv[] = "EWID";

	if (loglen < sizeof(logbuf))
		loglen += (size_t)snprintf(logbuf + loglen, sizeof(logbuf) - loglen, "%c %s\n",
					   lv[level], msg);
}

static void log_clear(void)
{
	loglen = 0;
	logbuf[0] = 0;
}

/* A message of level (E, W, I) holding a and b (b may be NULL). */
static void expect_log(char level, const char *a, const char *b)
{
	const char *l;

	for (l = logbuf; *l; l = strchr(l, '\n') + 1) {
		size_t n = strcspn(l, "\n");
		char line[2048];

		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		if (line[0] == level && strstr(line, a) && (!b || strstr(line, b)))
			return;
	}
	fail_msg("no %c message with '%s'%s%s%s in:\n%s", level, a, b ? " and '" : "", b ? b : "",
		 b ? "'" : "", logbuf);
}

/* How many messages of level were logged. */
static int nr_logged(char level)
{
	const char *l;
	int n = 0;

	for (l = logbuf; *l; l = strchr(l, '\n') + 1)
		n += *l == level;
	return n;
}

/* ---- recordings ---- */

static void path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

static void add_mmap(struct profile *p, uint32_t pid, uint64_t start, const char *path,
		     const struct prof_build_id *bid)
{
	struct prof_mmap m = {.ts = 1,
			      .pid = pid,
			      .tid = pid,
			      .start = start,
			      .len = 0x10000,
			      .prot = 5,
			      .path = (char *)path,
			      .build_id = *bid};

	assert_int_equal(profile_add_mmap(p, &m), 0);
}

static void add_comm(struct profile *p, uint32_t pid, uint32_t tid, const char *comm)
{
	assert_int_equal(fake_task(p, PROF_TASK_COMM, 1, pid, tid, comm), 0);
}

static void add_sample(struct profile *p, uint64_t ts, uint64_t weight, uint32_t pid, uint32_t tid,
		       uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu)
{
	assert_int_equal(fake_sample(p, ts, weight, pid, tid, cpu, ips, nk, nu), 0);
}

#define NR_SAMPLES 5

/*
 * The program in two processes (at BASE in PID, "zt-prog" with a thread
 * "zt-worker"; at BASE2 in PID2, "zt-other"); samples: alpha;beta;main
 * three times in PID, the inline site once in its thread, alpha;beta;main
 * once in PID2.
 */
static void make_profile(struct profile *p)
{
	const uint64_t a1[3] = {BASE + off_alpha + 2, BASE + off_beta + 1, BASE + off_main + 1};
	const uint64_t a2[3] = {BASE2 + off_alpha + 2, BASE2 + off_beta + 1, BASE2 + off_main + 1};
	const uint64_t in[1] = {BASE + off_inl};

	profile_init(p);
	assert_int_equal(profile_set_meta(p, "event", "cpu-clock"), 0);
	assert_int_equal(profile_set_meta(p, "freq", "1000"), 0);
	add_comm(p, PID, PID, "zt-prog");
	add_comm(p, PID, PID + 100, "zt-worker");
	add_comm(p, PID2, PID2, "zt-other");
	add_mmap(p, PID, BASE, prog, &prog_bid);
	add_mmap(p, PID2, BASE2, prog, &prog_bid);
	add_sample(p, 100, 1000000, PID, PID, 0, a1, 0, 3);
	add_sample(p, 101, 1000000, PID, PID, 0, a1, 0, 3);
	add_sample(p, 102, 1000000, PID, PID, 1, a1, 0, 3);
	add_sample(p, 110, 2000000, PID, PID + 100, 1, in, 0, 1);
	add_sample(p, 120, 1000000, PID2, PID2, 3, a2, 0, 3);
}

/* p as zt.data at path; with split, the records after the first split
 * samples are flushed apart, and *split_off is where they start. */
static void write_zt(const struct profile *p, const char *path, size_t split, off_t *split_off)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct ztdata_writer *w;
	size_t i;

	assert_true(fd >= 0);
	w = ztdata_writer_new(fd);
	assert_non_null(w);
	for (i = 0; i < p->nr_meta; i++)
		assert_int_equal(ztdata_write_meta(w, p->meta[i].key, p->meta[i].value), 0);
	for (i = 0; i < p->nr_tasks; i++)
		assert_int_equal(ztdata_write_task(w, &p->tasks[i]), 0);
	for (i = 0; i < p->nr_mmaps; i++)
		assert_int_equal(ztdata_write_mmap(w, &p->mmaps[i]), 0);
	for (i = 0; i < p->nr_blobs; i++) {
		const struct prof_blob *b = &p->blobs[i];

		assert_int_equal(ztdata_write_blob(w, b->kind, b->pid, b->ts, b->data, b->len), 0);
	}
	for (i = 0; i < p->nr_samples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const struct prof_stack *st = &p->stacks[s->stack];

		if (split && i == split) {
			assert_int_equal(ztdata_writer_flush(w), 0);
			*split_off = lseek(fd, 0, SEEK_END);
		}
		assert_int_equal(ztdata_write_sample(w, s->ts, s->weight, s->pid, s->tid, s->cpu,
						     profile_stack_ips(p, s->stack), st->nk,
						     st->nu),
				 0);
	}
	assert_int_equal(ztdata_writer_finish(w), 0);
	ztdata_writer_free(w);
	assert_int_equal(close(fd), 0);
}

static void write_perf(const struct profile *p, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(perfwrite_fd(p, fd), 0);
	assert_int_equal(close(fd), 0);
}

/* ---- resolving ---- */

/* The frames of addr in pid at ts through ft (over pt) into *r; the
 * printable name of the function (the last frame) into buf. */
static const char *resolve1(struct frametab *ft, const struct proctree *pt, uint32_t pid,
			    uint64_t ts, uint64_t addr, int kernel, struct zt_frange *r, char *buf,
			    size_t n)
{
	assert_int_equal(frametab_resolve(ft, pid, ts, proctree_epoch(pt, pid, ts), &addr,
					  kernel ? 1 : 0, 1, r),
			 0);
	assert_true(r->n >= 1);
	return zt_frame_name(frametab_frame(ft, r->first + r->n - 1), buf, n);
}

/* The name of the function at addr (a user address of pid at ts 200). */
static const char *sym_at(struct frametab *ft, const struct proctree *pt, uint32_t pid,
			  uint64_t addr, char *buf, size_t n)
{
	struct zt_frange r;

	return resolve1(ft, pt, pid, 200, addr, 0, &r, buf, n);
}

/* An address in zt_ss_outer that resolves to an inline chain. */
static int find_inline_site(void)
{
	uint64_t off_outer, size_outer, o;
	struct profile p;
	struct proctree *pt;
	struct resolver *r;
	int ret = -1;

	if (file_offset(prog, "zt_ss_outer", &off_outer, &size_outer))
		return -1;
	profile_init(&p);
	add_mmap(&p, PID, BASE, prog, &prog_bid);
	if (proctree_new(&p, &pt))
		return -1;
	if (resolver_new(&p, pt, &r) == 0) {
		for (o = 0; o < size_outer && ret; o++) {
			struct resolve_frame f;

			if (!resolver_resolve(r, PID, 10, BASE + off_outer + o, 0, &f) &&
			    f.nr_locs >= 2 && !strcmp(f.locs[0].name, "zt_ss_inl")) {
				off_inl = off_outer + o;
				ret = 0;
			}
		}
		resolver_free(r);
	}
	proctree_free(pt);
	profile_release(&p);
	return ret;
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
	if (file_offset(prog, "zt_ss_alpha", &off_alpha, NULL) ||
	    file_offset(prog, "zt_ss_beta", &off_beta, NULL) ||
	    file_offset(prog, "main", &off_main, NULL) || find_inline_site())
		return -1;
	/* C++ when there is a compiler for it */
	path_in(path, sizeof(path), "cxx.cc");
	if (write_text(path, cxx_src, 0644))
		return -1;
	if (!run("command -v g++ >/dev/null 2>&1") &&
	    !run("cd %s && g++ -O1 -g -fPIE -pie -Wl,--build-id=sha1 -o cxx cxx.cc", tmpdir)) {
		path_in(cxx, sizeof(cxx), "cxx");
		if (elf_read_build_id(cxx, &cxx_bid) || !cxx_bid.len ||
		    file_offset(cxx, "_ZN2ns1fEi", &off_f, NULL))
			return -1;
	}
	path_in(path, sizeof(path), "kallsyms");
	if (write_text(path, kallsyms_file, 0644))
		return -1;
	if (run("mkdir %s/a", tmpdir))
		return -1;
	zt_log_set(capture, NULL);
	return 0;
}

static int teardown(void **state)
{
	zt_log_set(NULL, NULL);
	if (jit_map[0])
		unlink(jit_map);
	run("rm -rf %s", tmpdir);
	return 0;
}

/* ---- tests ---- */

/* s holds make_profile()'s recording: samples, processes, names. */
static void check_session(struct session *s)
{
	const uint64_t a1[3] = {BASE + off_alpha + 2, BASE + off_beta + 1, BASE + off_main + 1};
	const char *names[3] = {"zt_ss_alpha", "zt_ss_beta", "main"};
	struct zt_frange r[3], r2[3];
	const struct zt_frame *f, *fo;
	const struct prof_mmap *m;
	uint64_t q[3];
	struct profile exp;
	char buf[256];
	size_t i;
	unsigned k;

	make_profile(&exp);
	assert_int_equal(s->prof.nr_samples, NR_SAMPLES);
	for (i = 0; i < NR_SAMPLES; i++) {
		const struct prof_sample *g = &s->prof.samples[i], *e = &exp.samples[i];
		const struct prof_stack *gs = &s->prof.stacks[g->stack],
					*es = &exp.stacks[e->stack];

		assert_int_equal(g->ts, e->ts);
		assert_int_equal(g->weight, e->weight);
		assert_int_equal(g->pid, e->pid);
		assert_int_equal(g->tid, e->tid);
		assert_int_equal(g->cpu, e->cpu);
		assert_int_equal(gs->nk, es->nk);
		assert_int_equal(gs->nu, es->nu);
		assert_memory_equal(profile_stack_ips(&s->prof, g->stack),
				    profile_stack_ips(&exp, e->stack), (es->nk + es->nu) * 8u);
	}
	profile_release(&exp);

	/* the process tree */
	assert_string_equal(proctree_comm(s->pt, PID, PID, 100), "zt-prog");
	assert_string_equal(proctree_comm(s->pt, PID, PID + 100, 110), "zt-worker");
	assert_string_equal(proctree_comm(s->pt, PID2, PID2, 120), "zt-other");
	m = proctree_map(s->pt, PID, 100, BASE + off_alpha);
	assert_non_null(m);
	assert_string_equal(m->path, prog);
	assert_int_equal(m->start, BASE);
	assert_int_equal(m->build_id.len, prog_bid.len);
	assert_memory_equal(m->build_id.data, prog_bid.data, prog_bid.len);
	m = proctree_map(s->pt, PID2, 120, BASE2 + off_alpha);
	assert_non_null(m);
	assert_int_equal(m->start, BASE2);
	assert_null(proctree_map(s->pt, PID2, 120, BASE + off_alpha));

	/* names through the frame table */
	assert_int_equal(s->ft.nr_addrs, 0);
	assert_int_equal(
		frametab_resolve(&s->ft, PID, 100, proctree_epoch(s->pt, PID, 100), a1, 0, 3, r),
		0);
	for (k = 0; k < 3; k++) {
		assert_int_equal(r[k].n, 1);
		f = frametab_frame(&s->ft, r[k].first);
		assert_string_equal(f->sym, names[k]);
		assert_string_equal(f->module, "prog");
		assert_int_equal(f->quality, ZT_FRAME_FULL);
		assert_false(f->inlined);
		assert_string_equal(f->file, "prog.c"); /* as cc was given it, in dir */
		assert_string_equal(f->dir, tmpdir);
	}
	assert_int_equal(frametab_frame(&s->ft, r[0].first)->offset, 2);
	assert_int_equal(frametab_frame(&s->ft, r[0].first)->addr, off_alpha);
	assert_int_equal(s->ft.nr_addrs, 3);

	/* the inline site: zt_ss_inl inlined into zt_ss_outer */
	assert_string_equal(
		resolve1(&s->ft, s->pt, PID, 110, BASE + off_inl, 0, r, buf, sizeof(buf)),
		"zt_ss_outer");
	assert_int_equal(r[0].n, 2);
	f = frametab_frame(&s->ft, r[0].first);
	assert_string_equal(f->sym, "zt_ss_inl");
	assert_true(f->inlined);
	assert_string_equal(f->file, "prog.c");
	assert_string_equal(f->sfile, "prog.c");
	assert_true(f->line == 3 || f->line == 4); /* in zt_ss_inl's body */
	assert_int_equal(f->sline, f->line);
	fo = frametab_frame(&s->ft, r[0].first + 1);
	assert_false(fo->inlined);
	assert_string_equal(fo->sym, "zt_ss_outer");
	assert_int_equal(fo->line, 6); /* where zt_ss_inl was inlined */
	assert_int_equal(fo->sline, f->line);
	assert_int_equal(fo->addr, f->addr);
	assert_int_equal(s->ft.nr_addrs, 4);

	/* the same offsets in the other process: the same frames, not resolved again */
	{
		const uint64_t a2[3] = {BASE2 + off_alpha + 2, BASE2 + off_beta + 1,
					BASE2 + off_main + 1};

		assert_int_equal(frametab_resolve(&s->ft, PID, 100, proctree_epoch(s->pt, PID, 100),
						  a1, 0, 3, r),
				 0);
		assert_int_equal(frametab_resolve(&s->ft, PID2, 120,
						  proctree_epoch(s->pt, PID2, 120), a2, 0, 3, r2),
				 0);
	}
	for (k = 0; k < 3; k++) {
		assert_int_equal(r2[k].first, r[k].first);
		assert_int_equal(r2[k].n, 1);
		assert_non_null(r2[k].map);
		assert_int_equal(r2[k].map->start, BASE2);
		assert_int_equal(r[k].map->start, BASE);
	}
	assert_int_equal(s->ft.nr_addrs, 4);
	/* an address in no mapping */
	assert_string_equal(sym_at(&s->ft, s->pt, PID, 0x1234, buf, sizeof(buf)), "[unknown]");
	assert_int_equal(s->ft.nr_addrs, 5);
	session_quality_counts(s, q);
	assert_int_equal(q[ZT_FRAME_FULL], 4);
	assert_int_equal(q[ZT_FRAME_BASIC], 0);
	assert_int_equal(q[ZT_FRAME_NONE], 1);
}

static void check_released(struct session *s)
{
	assert_null(s->pt);
	assert_null(s->src);
	assert_null(s->prof.samples);
	assert_int_equal(s->prof.nr_samples, 0);
	assert_null(s->ft.frames);
	session_close(s); /* again: harmless */
}

/* session_open(path) fails with an error naming path (and b). */
static void expect_refused(const char *path, const struct session_opts *o, const char *b)
{
	struct session s;

	log_clear();
	assert_int_equal(session_open(&s, path, o), -1);
	expect_log('E', path, b);
	check_released(&s);
}

/* 1. zt.data written by the writer. */
static void test_ztdata(void **state)
{
	struct session s;
	struct profile p;
	char path[600];

	make_profile(&p);
	path_in(path, sizeof(path), "rec.zt");
	write_zt(&p, path, 0, NULL);
	profile_release(&p);
	log_clear();
	assert_int_equal(session_open(&s, path, NULL), 0);
	assert_int_equal(s.perf, 0);
	assert_string_equal(s.path, path);
	assert_int_equal(nr_logged('E') + nr_logged('W'), 0);
	expect_log('I', "read 5 samples", path);
	check_session(&s);
	session_close(&s);
	assert_null(s.pt);
	session_close(&s);
}

/* 2. Told apart by magic, not by name: perf.data named zt.data and back. */
static void test_by_magic(void **state)
{
	struct session_opts o = {0};
	struct session s;
	struct profile p;
	char zt_named[600], perf_named[600];

	make_profile(&p);
	path_in(zt_named, sizeof(zt_named), "a/zt.data");
	path_in(perf_named, sizeof(perf_named), "a/perf.data");
	write_perf(&p, zt_named);
	write_zt(&p, perf_named, 0, NULL);
	profile_release(&p);

	log_clear();
	assert_int_equal(session_open(&s, zt_named, NULL), 0);
	assert_int_equal(s.perf, 1);
	assert_int_equal(nr_logged('E'), 0);
	check_session(&s);
	assert_string_equal(profile_get_meta(&s.prof, "event"), "cpu-clock");
	session_close(&s);

	log_clear();
	assert_int_equal(session_open(&s, perf_named, NULL), 0);
	assert_int_equal(s.perf, 0);
	assert_int_equal(nr_logged('E'), 0);
	check_session(&s);
	session_close(&s);

	/* --event: both name their events, an unknown one is refused */
	o.event = "cycles";
	expect_refused(zt_named, &o, "no event 'cycles'");
	expect_refused(perf_named, &o, "no event 'cycles'");
	o.event = "cpu-clock";
	log_clear();
	assert_int_equal(session_open(&s, perf_named, &o), 0);
	assert_int_equal(s.prof.nr_samples, NR_SAMPLES);
	session_close(&s);
}

/* perf.data gets this host's /tmp/perf-PID.map (as perf report reads it);
 * zt.data has its own perf maps (none here). */
static void test_host_perf_map(void **state)
{
	const uint64_t jit = 0x7f0000000000ull, ip = jit + 0x1010;
	uint32_t pid = (uint32_t)getpid();
	char zt[600], perf[600], buf[256];
	const struct zt_frame *f;
	struct zt_frange r;
	struct session s;
	struct profile p;
	struct prof_build_id none = {0};

	profile_init(&p);
	add_comm(&p, pid, pid, "zt-jit");
	add_mmap(&p, pid, jit, "//anon", &none);
	add_sample(&p, 100, 1, pid, pid, 0, &ip, 0, 1);
	path_in(zt, sizeof(zt), "jit.zt");
	path_in(perf, sizeof(perf), "jit.perf");
	write_zt(&p, zt, 0, NULL);
	write_perf(&p, perf);
	profile_release(&p);
	snprintf(jit_map, sizeof(jit_map), "/tmp/perf-%u.map", pid);
	assert_int_equal(write_text(jit_map, "7f0000001000 100 zt_jit_fn\n", 0644), 0);

	log_clear();
	assert_int_equal(session_open(&s, perf, NULL), 0);
	expect_log('I', "JIT symbols from 1 /tmp/perf-PID.map file", NULL);
	assert_string_equal(resolve1(&s.ft, s.pt, pid, 100, ip, 0, &r, buf, sizeof(buf)),
			    "zt_jit_fn");
	f = frametab_frame(&s.ft, r.first);
	assert_int_equal(f->offset, 0x10);
	snprintf(buf, sizeof(buf), "[JIT] tid %u", pid);
	assert_string_equal(f->module, buf);
	session_close(&s);

	log_clear();
	assert_int_equal(session_open(&s, zt, NULL), 0);
	assert_null(strstr(logbuf, "JIT symbols"));
	resolve1(&s.ft, s.pt, pid, 100, ip, 0, &r, buf, sizeof(buf));
	assert_null(frametab_frame(&s.ft, r.first)->sym);
	session_close(&s);
	unlink(jit_map);
	jit_map[0] = 0;
}

/* 3. no_demangle and full_signature on a C++ function. */
static void test_cxx_names(void **state)
{
	struct session_opts o = {0};
	struct session s;
	struct profile p;
	char path[600], buf[256];
	const uint64_t ip = BASE + off_f + 1;

	if (!cxx[0]) {
		print_message("g++ not found: C++ names not checked\n");
		skip();
	}
	profile_init(&p);
	add_comm(&p, PID, PID, "cxx");
	add_mmap(&p, PID, BASE, cxx, &cxx_bid);
	add_sample(&p, 100, 1, PID, PID, 0, &ip, 0, 1);
	path_in(path, sizeof(path), "cxx.zt");
	write_zt(&p, path, 0, NULL);
	profile_release(&p);

	assert_int_equal(session_open(&s, path, &o), 0);
	assert_string_equal(sym_at(&s.ft, s.pt, PID, ip, buf, sizeof(buf)), "ns::f");
	session_close(&s);
	o.full_signature = 1;
	assert_int_equal(session_open(&s, path, &o), 0);
	assert_string_equal(sym_at(&s.ft, s.pt, PID, ip, buf, sizeof(buf)), "ns::f(int)");
	session_close(&s);
	o.full_signature = 0;
	o.no_demangle = 1;
	assert_int_equal(session_open(&s, path, &o), 0);
	assert_string_equal(sym_at(&s.ft, s.pt, PID, ip, buf, sizeof(buf)), "_ZN2ns1fEi");
	session_close(&s);
}

/* The kernel address ip of s (in PID at 100) resolves to name+off. */
static void expect_kernel_frame(struct session *s, uint64_t ip, const char *name, uint64_t off)
{
	const struct zt_frame *f;
	struct zt_frange r;
	char buf[256];

	assert_string_equal(resolve1(&s->ft, s->pt, PID, 100, ip, 1, &r, buf, sizeof(buf)), name);
	assert_int_equal(r.n, 1);
	f = frametab_frame(&s->ft, r.first);
	assert_string_equal(f->module, "[kernel.kallsyms]");
	assert_true(f->kernel);
	assert_int_equal(f->offset, off);
}

/* 3. --kallsyms replaces a zt.data file's kernel symbols, moved to the
 * recorded _text; a --kallsyms file that is not there is an error. */
static void test_kallsyms(void **state)
{
	const uint64_t ips[3] = {KTEXT + 0x1010, KTEXT + 0x1810, BASE + off_alpha + 2};
	struct session_opts o = {0};
	struct session s;
	struct profile p;
	char path[600], ks[600], missing[600], buf[256];

	profile_init(&p);
	add_comm(&p, PID, PID, "zt-prog");
	add_mmap(&p, PID, BASE, prog, &prog_bid);
	assert_int_equal(
		profile_add_blob(&p, PROF_BLOB_KALLSYMS, 0, 0, kallsyms_rec, strlen(kallsyms_rec)),
		0);
	add_sample(&p, 100, 1, PID, PID, 0, ips, 2, 1);
	path_in(path, sizeof(path), "kernel.zt");
	write_zt(&p, path, 0, NULL);
	profile_release(&p);

	/* the file's own */
	assert_int_equal(session_open(&s, path, &o), 0);
	expect_kernel_frame(&s, ips[0], "zt_krec", 0x10);
	expect_kernel_frame(&s, ips[1], "zt_krec", 0x810);
	session_close(&s);

	/* --kallsyms: another boot's, moved by the recorded _text */
	path_in(ks, sizeof(ks), "kallsyms");
	o.kallsyms = ks;
	log_clear();
	assert_int_equal(session_open(&s, path, &o), 0);
	expect_log('I', "kernel symbols from", ks);
	expect_kernel_frame(&s, ips[0], "zt_kfile", 0x10);
	expect_kernel_frame(&s, ips[1], "zt_kfile2", 0x10);
	assert_string_equal(sym_at(&s.ft, s.pt, PID, ips[2], buf, sizeof(buf)), "zt_ss_alpha");
	session_close(&s);

	/* a --kallsyms file that is not there */
	path_in(missing, sizeof(missing), "no-such-kallsyms");
	o.kallsyms = missing;
	log_clear();
	assert_int_equal(session_open(&s, path, &o), -1);
	expect_log('E', missing, "No such file");
	check_released(&s);
}

/* 4. Inputs that are not recordings. */
static void test_refused(void **state)
{
	char path[600];

	path_in(path, sizeof(path), "missing.data");
	expect_refused(path, NULL, "zt record");
	expect_refused(tmpdir, NULL, "directory");
	path_in(path, sizeof(path), "fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10); /* a reader that waits for a writer fails here, not forever */
	expect_refused(path, NULL, "not a regular file");
	alarm(0);
	expect_refused("/dev/zero", NULL, "not a regular file");
	path_in(path, sizeof(path), "empty.data");
	assert_int_equal(write_text(path, "", 0644), 0);
	expect_refused(path, NULL, "empty file");
}

/* 4. A damaged zt.data: an error, or with force its part before the damage;
 * a truncated one: its complete part, with a warning. */
static void test_damaged(void **state)
{
	struct session_opts o = {0};
	struct session s;
	struct profile p;
	char path[600], buf[256];
	off_t split = 0;
	struct stat st;
	int fd;

	make_profile(&p);
	path_in(path, sizeof(path), "damaged.zt");
	write_zt(&p, path, 3, &split);
	profile_release(&p);
	assert_true(split > 16);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > split + 24 + 4);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\xde\xad\xbe\xef", 4, split + 24), 4);
	assert_int_equal(close(fd), 0);

	expect_refused(path, &o, "-f");
	o.force = 1;
	log_clear();
	assert_int_equal(session_open(&s, path, &o), 0);
	expect_log('W', path, "--force");
	assert_int_equal(s.prof.nr_samples, 3);
	assert_string_equal(proctree_comm(s.pt, PID, PID, 100), "zt-prog");
	assert_string_equal(sym_at(&s.ft, s.pt, PID, BASE + off_beta + 1, buf, sizeof(buf)),
			    "zt_ss_beta");
	session_close(&s);

	/* cut inside the chunk after the split: no force needed */
	assert_int_equal(truncate(path, split + 10), 0);
	o.force = 0;
	log_clear();
	assert_int_equal(session_open(&s, path, &o), 0);
	expect_log('W', path, NULL);
	assert_int_equal(nr_logged('E'), 0);
	assert_int_equal(s.prof.nr_samples, 3);
	session_close(&s);
}

/* 5. The frame source on its own, over a profile that grows. */
static void test_source(void **state)
{
	struct session_source *ss;
	struct frametab_source src;
	struct frametab ft;
	struct proctree *pt, *pt2;
	struct profile p, q;
	char buf[256];
	size_t i;

	profile_init(&p);
	add_comm(&p, PID, PID, "zt-prog");
	add_mmap(&p, PID, BASE, prog, &prog_bid);
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_int_equal(session_source_new(NULL, &ss), 0);
	assert_non_null(ss);
	assert_int_equal(session_source_follow(ss, &p, pt), 0);
	session_source_get(ss, &src);
	assert_non_null(src.resolve);
	assert_non_null(src.follow);
	assert_ptr_equal(src.ctx, ss);
	frametab_init(&ft, pt, &src);
	assert_string_equal(sym_at(&ft, pt, PID, BASE + off_alpha + 2, buf, sizeof(buf)),
			    "zt_ss_alpha");
	assert_string_equal(sym_at(&ft, pt, PID, BASE + off_beta + 1, buf, sizeof(buf)),
			    "zt_ss_beta");
	assert_int_equal(ft.nr_addrs, 2);
	assert_false(frametab_time_sensitive(&ft, PID));

	/* grown: mappings appended (the array moves), a new tree */
	for (i = 0; i < 64; i++)
		add_mmap(&p, 1000 + (uint32_t)i, BASE, "/nonexistent/lib.so",
			 &(struct prof_build_id){0});
	add_mmap(&p, PID2, BASE2, prog, &prog_bid);
	assert_int_equal(proctree_new(&p, &pt2), 0);
	assert_int_equal(src.follow(src.ctx, &p, pt2), 0);
	frametab_reset(&ft, pt2);
	proctree_free(pt);
	assert_int_equal(ft.nr_addrs, 0);
	assert_string_equal(sym_at(&ft, pt2, PID2, BASE2 + off_alpha + 2, buf, sizeof(buf)),
			    "zt_ss_alpha");
	assert_string_equal(sym_at(&ft, pt2, PID, BASE + off_beta + 1, buf, sizeof(buf)),
			    "zt_ss_beta");
	assert_string_equal(sym_at(&ft, pt2, PID, BASE + off_main + 1, buf, sizeof(buf)), "main");
	assert_string_equal(sym_at(&ft, pt2, 1005, BASE + 0x10, buf, sizeof(buf)), "[lib.so+0x10]");
	assert_int_equal(ft.nr_addrs, 4);
	{
		const struct zt_frame *f;
		struct zt_frange r;

		resolve1(&ft, pt2, PID2, 200, BASE2 + off_alpha + 2, 0, &r, buf, sizeof(buf));
		f = frametab_frame(&ft, r.first);
		assert_ptr_equal(f->map, &p.mmaps[p.nr_mmaps - 1]);
	}

	/* no profile: the resolver goes; then another profile, the program
	 * elsewhere */
	assert_int_equal(session_source_follow(ss, NULL, NULL), 0);
	frametab_reset(&ft, NULL);
	assert_false(frametab_time_sensitive(&ft, PID));
	proctree_free(pt2);
	profile_release(&p);
	profile_init(&q);
	add_mmap(&q, PID, BASE2, prog, &prog_bid);
	assert_int_equal(proctree_new(&q, &pt), 0);
	assert_int_equal(session_source_follow(ss, &q, pt), 0);
	frametab_reset(&ft, pt);
	assert_string_equal(sym_at(&ft, pt, PID, BASE2 + off_alpha + 2, buf, sizeof(buf)),
			    "zt_ss_alpha");
	assert_string_equal(sym_at(&ft, pt, PID, BASE + off_alpha + 2, buf, sizeof(buf)),
			    "[unknown]");
	assert_int_equal(ft.nr_addrs, 2);

	frametab_release(&ft);
	session_source_free(ss);
	session_source_free(NULL);
	proctree_free(pt);
	profile_release(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ztdata),	      cmocka_unit_test(test_by_magic),
		cmocka_unit_test(test_cxx_names),     cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_host_perf_map), cmocka_unit_test(test_refused),
		cmocka_unit_test(test_damaged),	      cmocka_unit_test(test_source),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
