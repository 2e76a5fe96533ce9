/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A new kind of frame is one frame source and nothing else (issue 34): a
 * toy source (struct resolve_source) that names the addresses of one
 * mapping "toy_fn" in module "[toy]", given to the session and to the
 * server's store, and its frames seen in each consumer: the report model,
 * perf script's text, folded stacks, pprof, the Chrome trace and annotate's
 * functions on the command line's side, each given nothing but the
 * session's resolved stacks (session_stacks(): the frames the report
 * model resolved in one batch serve the others, which ask the source
 * nothing more);
 * zt serve's top, folded stacks, flame graph and pprof on the server's.
 * Without the source none of them has it.
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
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "formats/chrometrace.h"
#include "formats/folded.h"
#include "formats/perfscript.h"
#include "formats/pprof.h"
#include "formats/profile.pb-c.h"
#include "formats/stackgroups.h"
#include "libprof/fileio.h"
#include "libprof/rmodel.h"
#include "server/query.h"
#include "server/store.h"
#include "session/session.h"
#include "symbolizer/annotate.h"
#include "symbolizer/resolve.h"
#include "tests/unit/srvdata.h"
#include "tests/unit/testutil.h"

static char dir[] = "/tmp/zt-test-toysource.XXXXXX";
static char rec[600];
static struct zbuf body;
static unsigned asked;

/* The toy source: libnobid.so's addresses (the standard recording's
 * 0x7f0000000100, srvdata.h) are toy_fn's, in module "[toy]". */
static int toy_resolve(void *ctx, const struct profile *p, uint32_t pid, uint64_t ts,
		       const struct prof_mmap *m, uint64_t addr, struct resolve_frame *f)
{
	size_t l;

	(void)ctx, (void)p, (void)pid, (void)ts;
	asked++;
	if (!m || (l = strlen(m->path)) < 11 || strcmp(m->path + l - 11, "libnobid.so"))
		return 0;
	f->sym = "toy_fn";
	f->module = "[toy]";
	f->offset = addr - m->start;
	f->quality = SYMQ_BASIC;
	return 1;
}

static const struct resolve_source toy = {toy_resolve, NULL};

static int setup(void **state)
{
	int fd, ret;

	if (!mkdtemp(dir))
		return -1;
	zbuf_init(&body);
	if (srv_recording(&body, &(struct srv_rec_opts){0}))
		return -1;
	snprintf(rec, sizeof(rec), "%s/rec.zt", dir);
	fd = open(rec, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	ret = zt_write_all(fd, body.data, body.len);
	return close(fd) || ret ? -1 : 0;
}

static int teardown(void **state)
{
	zbuf_release(&body);
	run("rm -rf %s", dir);
	return 0;
}

/* The function names of a gzipped pprof, each followed by a space, into out. */
static void pprof_functions(const void *gz, size_t len, char *out, size_t n)
{
	static uint8_t raw[1 << 18];
	z_stream z = {0};
	Perftools__Profiles__Profile *p;
	size_t i;

	assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	z.next_in = (Bytef *)gz, z.avail_in = (uInt)len, z.next_out = raw, z.avail_out = sizeof(raw);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	p = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	inflateEnd(&z);
	assert_non_null(p);
	out[0] = 0;
	for (i = 0; i < p->n_function; i++)
		snprintf(out + strlen(out), n - strlen(out), "%s ", p->string_table[p->function[i]->name]);
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* ---- the command line's consumers, through the session --------------------------------- */

struct cli {
	char report[256];   /* the report model's rows: "dso sym" lines */
	struct zbuf script; /* perf script's text */
	struct zbuf folded; /* folded stacks */
	char pprof[256];    /* pprof's function names, space-separated */
	struct zbuf trace;  /* the Chrome trace */
	char annotate[256]; /* annotate's functions: "module name" lines */
	unsigned asked_after; /* the source's calls after the report model's batch */
};

static void cli_outputs(const struct session_opts *so, struct cli *out)
{
	const struct hist_entry **rows;
	struct perfscript_fmt fmt = {.fields = PERFSCRIPT_F_IP | PERFSCRIPT_F_SYM |
					       PERFSCRIPT_F_SYMOFF | PERFSCRIPT_F_DSO,
				     .callchain = 1};
	struct stackgroups sg;
	struct rmodel_opts ro = {0};
	struct zbuf line;
	const struct rstacks *rs;
	struct ann_profile ap;
	struct session s;
	struct rmodel m;
	size_t i, n;
	unsigned batch;
	int fd;

	memset(out, 0, sizeof(*out));
	zbuf_init(&out->script);
	zbuf_init(&out->folded);
	zbuf_init(&out->trace);
	zbuf_init(&line);
	assert_int_equal(session_open(&s, rec, so), 0);
	/* every consumer gets the one handle, nothing else of the session */
	rs = session_stacks(&s);
	assert_ptr_equal(rs->prof, &s.prof);
	/* report: every group resolved at once */
	assert_int_equal(rmodel_init(&m, rs, NULL, NULL), 0);
	batch = asked;
	assert_int_equal(rmodel_build(&m, &ro), 0);
	assert_int_equal(rmodel_sort(&m, 0, &rows, &n), 0);
	for (i = 0; i < n; i++)
		snprintf(out->report + strlen(out->report), sizeof(out->report) - strlen(out->report),
			 "%s %s\n", hist_str(&m.hist, rows[i]->f.dso), hist_str(&m.hist, rows[i]->f.sym));
	rmodel_release(&m);
	/* script and folded: each group of samples' stack */
	stackgroups_init(&sg, rs);
	for (i = 0; i < s.prof.nr_samples; i++) {
		const struct zt_frange *r;
		const uint64_t *ips;
		uint32_t gi;
		unsigned nf;
		int is_new;

		assert_int_equal(stackgroups_add(&sg, &s.prof.samples[i], NULL, 0, &gi, &is_new), 0);
		if (!is_new)
			continue;
		assert_int_equal(stackgroups_resolve(&sg, gi, 64, &ips, &r, &nf), 0);
		assert_int_equal(perfscript_stack(&out->script, &fmt, rs, sg.groups[gi].pid, ips, r,
						  nf),
				 0);
		{
			/* the stack's addresses one at a time: the same frames */
			struct zt_frange whole[64];
			const struct zt_frange *one;
			const uint64_t *ips1;
			unsigned k, nk1, n1;

			memcpy(whole, r, nf * sizeof(*r));
			stackgroups_addrs(&sg, gi, 64, &ips1, &nk1, &n1);
			assert_ptr_equal(ips1, ips);
			assert_int_equal(n1, nf);
			assert_int_equal(nk1, s.prof.stacks[sg.groups[gi].stack].nk);
			for (k = 0; k < nf; k++) {
				assert_int_equal(stackgroups_resolve_one(&sg, gi, k, &one), 0);
				assert_memory_equal(one, &whole[k], sizeof(*one));
			}
			assert_int_equal(stackgroups_resolve_one(&sg, gi, nf + 200, &one), -EINVAL);
			assert_int_equal(stackgroups_resolve(&sg, gi, 64, &ips, &r, &nf), 0);
		}
		zbuf_reset(&line);
		assert_int_equal(folded_stack(&line, "app", rs, sg.groups[gi].pid, ips, r, nf, 0),
				 0);
		zbuf_put(&out->folded, line.data, line.len);
		zbuf_put_u8(&out->folded, '\n');
	}
	stackgroups_release(&sg);
	zbuf_release(&line);
	zbuf_put_u8(&out->script, 0);
	zbuf_put_u8(&out->folded, 0);
	/* pprof */
	fd = memfd_create("pprof", 0);
	assert_true(fd >= 0);
	assert_int_equal(pprof_write(rs, NULL, fd), 0);
	{
		static uint8_t gz[1 << 16];
		ssize_t len = pread(fd, gz, sizeof(gz), 0);

		assert_true(len > 0);
		pprof_functions(gz, (size_t)len, out->pprof, sizeof(out->pprof));
	}
	close(fd);
	/* convert --to chrome-trace */
	fd = memfd_create("trace", 0);
	assert_true(fd >= 0);
	assert_int_equal(chrometrace_write(&(struct chrometrace_in){.rs = rs}, fd), 0);
	{
		static char js[1 << 16];
		ssize_t len = pread(fd, js, sizeof(js), 0);

		assert_true(len > 0);
		zbuf_put(&out->trace, js, (size_t)len);
		zbuf_put_u8(&out->trace, 0);
	}
	close(fd);
	/* annotate */
	assert_int_equal(ann_profile_build(&ap, rs, NULL), 0);
	for (i = 0; i < ap.nr_syms; i++)
		snprintf(out->annotate + strlen(out->annotate),
			 sizeof(out->annotate) - strlen(out->annotate), "%s %s\n", ap.syms[i].module,
			 ap.syms[i].name ? ap.syms[i].name : "?");
	ann_profile_release(&ap);
	out->asked_after = asked - batch;
	session_close(&s);
}

static void cli_release(struct cli *c)
{
	zbuf_release(&c->script);
	zbuf_release(&c->folded);
	zbuf_release(&c->trace);
}

/* ---- zt serve's consumers, through the store ------------------------------------------- */

struct srv {
	struct zbuf top, folded, flame;
	char pprof[256];
};

static void srv_outputs(const char *sub, const struct zs_store_opts *so, struct srv *out)
{
	static struct zs_selection sel;
	struct zs_ingest_result r;
	struct zs_store *s = NULL;
	char path[700], msg[256];
	struct zbuf gz;

	memset(out, 0, sizeof(*out));
	zbuf_init(&out->top);
	zbuf_init(&out->folded);
	zbuf_init(&out->flame);
	zbuf_init(&gz);
	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (zs_store_open(path, so, &s, msg, sizeof(msg)))
		fail_msg("%s", msg);
	if (zs_ingest_mem(s, body.data, body.len, NULL, 0, &r, msg, sizeof(msg)))
		fail_msg("%s", msg);
	memset(&sel, 0, sizeof(sel));
	assert_int_equal(zs_query_top(s, &sel, 0, ZS_SORT_SELF, &out->top), 0);
	assert_int_equal(zs_query_folded(s, &sel, &out->folded), 0);
	assert_int_equal(zs_query_flame(s, &sel, NULL, &out->flame), 0);
	assert_int_equal(zs_query_pprof(s, &sel, &gz), 0);
	pprof_functions(gz.data, gz.len, out->pprof, sizeof(out->pprof));
	zbuf_put_u8(&out->top, 0);
	zbuf_put_u8(&out->folded, 0);
	zbuf_put_u8(&out->flame, 0);
	zbuf_release(&gz);
	zs_store_close(s);
}

static void srv_release(struct srv *s)
{
	zbuf_release(&s->top);
	zbuf_release(&s->folded);
	zbuf_release(&s->flame);
}

static const char *str(const struct zbuf *b)
{
	return (const char *)b->data;
}

static void test_cli(void **state)
{
	struct session_opts so = {.sources = &toy, .nr_sources = 1};
	struct cli with, without;

	asked = 0;
	cli_outputs(&so, &with);
	assert_true(asked > 0);
	assert_non_null(strstr(with.report, "[toy] toy_fn\n"));
	/* perf script names the mapping's file, as perf does */
	assert_non_null(strstr(str(&with.script), " toy_fn+0x100 (/lib/libnobid.so)\n"));
	assert_non_null(strstr(str(&with.folded), ";toy_fn"));
	assert_non_null(strstr(with.pprof, "toy_fn "));
	assert_non_null(strstr(str(&with.trace), "\"toy_fn\""));
	assert_non_null(strstr(with.annotate, "[toy] toy_fn\n"));
	/* the report model's batch resolved what every other consumer shows */
	assert_int_equal(with.asked_after, 0);
	/* its other frames as before: the perf map's JIT function, the kernel's */
	assert_non_null(strstr(with.report, "[kernel.kallsyms] kfunc\n"));
	assert_non_null(strstr(str(&with.folded), "jitfn;toy_fn"));

	cli_outputs(NULL, &without);
	assert_null(strstr(without.report, "toy_fn"));
	assert_null(strstr(str(&without.script), "toy_fn"));
	assert_null(strstr(str(&without.folded), "toy_fn"));
	assert_null(strstr(without.pprof, "toy_fn"));
	assert_null(strstr(str(&without.trace), "toy_fn"));
	assert_null(strstr(without.annotate, "toy_fn"));
	assert_non_null(strstr(without.report, "libnobid.so [libnobid.so+0x2100]\n"));
	cli_release(&with);
	cli_release(&without);
}

static void test_server(void **state)
{
	struct zs_store_opts so = {.sources = &toy, .nr_sources = 1};
	struct srv with, without;

	asked = 0;
	srv_outputs("with", &so, &with);
	assert_true(asked > 0);
	assert_non_null(strstr(str(&with.top), "{\"name\":\"toy_fn\",\"module\":\"[toy]\",\"self\":20,"));
	assert_non_null(strstr(str(&with.folded), "app;jitfn;toy_fn 20\n"));
	assert_non_null(strstr(str(&with.flame), "<title>toy_fn\nmodule: [toy]\n"));
	assert_non_null(strstr(with.pprof, "toy_fn "));

	srv_outputs("without", NULL, &without);
	assert_null(strstr(str(&without.top), "toy_fn"));
	assert_null(strstr(str(&without.folded), "toy_fn"));
	assert_null(strstr(str(&without.flame), "toy_fn"));
	assert_null(strstr(without.pprof, "toy_fn"));
	assert_non_null(strstr(str(&without.folded), "app;jitfn;[libnobid.so+0x2100] 20\n"));
	srv_release(&with);
	srv_release(&without);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli),
		cmocka_unit_test(test_server),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
