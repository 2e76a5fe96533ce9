// SPDX-License-Identifier: GPL-2.0-or-later
/* server/query: selections, merged top/folded/pprof/flame, symbols from the store. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "formats/profile.pb-c.h"
#include "server/query.h"
#include "server/store.h"
#include "symbolizer/symmod.h"
#include "tests/unit/srvdata.h"
#include "tests/unit/testutil.h"

static char dir[] = "/tmp/zt-test-query.XXXXXX";
static const struct prof_build_id sym_bid = { 20, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
						    15, 16, 17, 18, 19, 20 } };

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	run("rm -rf %s", dir);
	return 0;
}

static struct zs_store *open_store(const char *sub)
{
	struct zs_store *s = NULL;
	char msg[256], path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (zs_store_open(path, NULL, &s, msg, sizeof(msg)))
		fail_msg("%s", msg);
	return s;
}

static void ingest(struct zs_store *s, const struct srv_rec_opts *o, const struct zs_label *l,
		   size_t nl, char id[65])
{
	struct zs_ingest_result r;
	struct zbuf b;
	char msg[256];

	zbuf_init(&b);
	assert_int_equal(srv_recording(&b, o), 0);
	if (zs_ingest_mem(s, b.data, b.len, l, nl, &r, msg, sizeof(msg)))
		fail_msg("%s", msg);
	if (id)
		memcpy(id, r.id, 65);
	zbuf_release(&b);
}

static char *text(struct zbuf *b)
{
	zbuf_put_u8(b, 0);
	b->len--;
	return (char *)b->data;
}

/* A gzipped pprof from the server, decoded. */
static Perftools__Profiles__Profile *pprof_unpack(const struct zbuf *b)
{
	static uint8_t raw[1 << 16];
	z_stream z = { 0 };
	Perftools__Profiles__Profile *p;

	assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	z.next_in = b->data, z.avail_in = (uInt)b->len, z.next_out = raw, z.avail_out = sizeof(raw);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	p = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	inflateEnd(&z);
	assert_non_null(p);
	return p;
}

static void test_merged(void **state)
{
	static struct zs_selection sel, none;
	struct zs_label la = { "env", "a" }, lb = { "env", "b" };
	struct srv_rec_opts o = { 0 };
	struct zs_store *s = open_store("m");
	struct zbuf b;
	char id0[65];

	ingest(s, &o, &la, 1, id0);
	o.variant = 1;
	ingest(s, &o, &lb, 1, NULL);
	zbuf_init(&b);
	memset(&sel, 0, sizeof(sel));
	assert_int_equal(zs_query_folded(s, &sel, &b), 0);
	assert_string_equal(text(&b), "app;[app+0x2000];[app+0x1000];kfunc 63\n"
				      "app;jitfn;[libnobid.so+0x2100] 42\n");
	zbuf_reset(&b);
	assert_int_equal(zs_query_top(s, &sel, 2, ZS_SORT_SELF, &b), 0);
	assert_string_equal(text(&b),
			    "{\"profiles\":2,\"samples\":10,\"weight\":105,\"type\":\"cpu\",\"unit\":\"nanoseconds\",\"functions\":["
			    "{\"name\":\"kfunc\",\"module\":\"[kernel.kallsyms]\",\"self\":63,\"children\":63},"
			    "{\"name\":\"[libnobid.so+0x2100]\",\"module\":\"libnobid.so\",\"self\":42,"
			    "\"children\":42}]}");
	zbuf_reset(&b);
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_CHILDREN, &b), 0);
	assert_string_equal(text(&b),
			    "{\"profiles\":2,\"samples\":10,\"weight\":105,\"type\":\"cpu\",\"unit\":\"nanoseconds\",\"functions\":["
			    "{\"name\":\"kfunc\",\"module\":\"[kernel.kallsyms]\",\"self\":63,\"children\":63}]}");
	zbuf_reset(&b);
	assert_int_equal(zs_query_top(s, &sel, 0, ZS_SORT_CHILDREN, &b), 0);
	assert_non_null(strstr(text(&b), "{\"name\":\"[app+0x2000]\",\"module\":\"app\",\"self\":0,"
					  "\"children\":63}"));
	/* by label, by id, and nothing */
	sel.labels[0] = la;
	sel.nr_labels = 1;
	zbuf_reset(&b);
	assert_int_equal(zs_query_folded(s, &sel, &b), 0);
	assert_string_equal(text(&b), "app;[app+0x2000];[app+0x1000];kfunc 30\n"
				      "app;jitfn;[libnobid.so+0x2100] 20\n");
	zbuf_reset(&b);
	memset(&sel, 0, sizeof(sel));
	sel.ids[0] = id0;
	sel.nr_ids = 1;
	assert_int_equal(zs_list_json(s, &sel, &b), 0);
	assert_non_null(strstr(text(&b), id0));
	none.host = "nohost";
	zbuf_reset(&b);
	assert_int_equal(zs_query_top(s, &none, 10, ZS_SORT_SELF, &b), 0);
	assert_string_equal(text(&b), "{\"profiles\":0,\"samples\":0,\"weight\":0,\"type\":\"\",\"unit\":\"\",\"functions\":[]}");
	/* flame and diff through the zt flame renderer */
	memset(&sel, 0, sizeof(sel));
	zbuf_reset(&b);
	assert_int_equal(zs_query_flame(s, &sel, NULL, &b), 0);
	assert_non_null(strstr(text(&b), "<svg"));
	assert_non_null(strstr(text(&b), "kfunc"));
	zbuf_reset(&b);
	assert_int_equal(zs_query_diff(s, &none, &sel, NULL, &b), 0);
	assert_non_null(strstr(text(&b), "<svg"));
	/* pprof: gzip, decodes, the same totals */
	zbuf_reset(&b);
	assert_int_equal(zs_query_pprof(s, &sel, &b), 0);
	{
		Perftools__Profiles__Profile *p = pprof_unpack(&b);
		int64_t total = 0;
		size_t i;

		for (i = 0; i < p->n_sample; i++)
			total += p->sample[i]->value[0];
		assert_int_equal(total, 10);
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	zbuf_release(&b);
	zs_store_close(s);
}

static void make_gsym(const char *prog, const char *gsym, const char *fn)
{
	struct symmod_opts so = { .no_debuginfod = 1 };
	enum symq q;

	assert_int_equal(run("printf 'int %s(int x){return x*3;}\\nint main(int c,char**v){return %s(c);}\\n'"
			     " | cc -g -O1 -x c - -o %s"
			     " -Wl,--build-id=0x0102030405060708090a0b0c0d0e0f1011121314",
			     fn, fn, prog),
			 0);
	assert_int_equal(symmod_extract(&so, prog, gsym, &q), 0);
}

static void put_sym(struct zs_store *s, const char *gsym, const char *load)
{
	struct zs_symbol_meta m = { .quality = 2 };
	char tmp[600], msg[256];
	struct zs_symbol_put put;

	assert_int_equal(zs_symbol_meta_parse_load(load, &m), 0);
	snprintf(tmp, sizeof(tmp), "%s/sym", zs_store_tmpdir(s));
	assert_int_equal(run("cp %s %s", gsym, tmp), 0);
	if (zs_symbol_put_file(s, "0102030405060708090a0b0c0d0e0f1011121314", tmp, &m, 0, &put, msg,
			       sizeof(msg)))
		fail_msg("%s", msg);
}

static void test_symbolized(void **state)
{
	static struct zs_selection sel;
	struct zs_store *s = open_store("sym");
	struct srv_rec_opts o = { .bid = &sym_bid };
	char prog[600], gsym[600], load[64];
	uint64_t off;
	struct zbuf b;

	snprintf(prog, sizeof(prog), "%s/p1", dir);
	snprintf(gsym, sizeof(gsym), "%s/p1.gsym", dir);
	make_gsym(prog, gsym, "zt_q_first");
	assert_int_equal(file_offset(prog, "zt_q_first", &off, NULL), 0);
	o.off_a = off + 1;
	ingest(s, &o, NULL, 0, NULL);
	zbuf_init(&b);
	assert_int_equal(zs_query_folded(s, &sel, &b), 0);
	assert_non_null(strstr(text(&b), "[app+0x"));
	/* the identity segment: file offsets are addresses in this binary's text */
	snprintf(load, sizeof(load), "0:0:%llx", 1ull << 24);
	put_sym(s, gsym, load);
	zbuf_reset(&b);
	assert_int_equal(zs_query_folded(s, &sel, &b), 0);
	assert_non_null(strstr(text(&b), ";zt_q_first;kfunc 30\n"));
	/* file:line: top's hottest line, the flame's tooltip, pprof's lines */
	zbuf_reset(&b);
	assert_int_equal(zs_query_top(s, &sel, 0, ZS_SORT_SELF, &b), 0);
	assert_non_null(strstr(text(&b), "{\"name\":\"zt_q_first\",\"module\":\"app\",\"self\":0,"
					  "\"children\":30,\"file\":\""));
	assert_non_null(strstr(text(&b), "<stdin>\",\"line\":1}"));
	/* frames without lines have none */
	assert_non_null(strstr(text(&b), "\"module\":\"[kernel.kallsyms]\",\"self\":30,"
					  "\"children\":30}"));
	zbuf_reset(&b);
	assert_int_equal(zs_query_flame(s, &sel, NULL, &b), 0);
	assert_non_null(strstr(text(&b), "zt_q_first\nmodule: app\nsource: &lt;stdin&gt;:1\n"));
	zbuf_reset(&b);
	assert_int_equal(zs_query_pprof(s, &sel, &b), 0);
	{
		Perftools__Profiles__Profile *p = pprof_unpack(&b);
		const Perftools__Profiles__Function *fn = NULL;
		const Perftools__Profiles__Mapping *mp = NULL;
		const char *f;
		size_t i, j, lines = 0;

		for (i = 0; i < p->n_function; i++)
			if (!strcmp(p->string_table[p->function[i]->name], "zt_q_first"))
				fn = p->function[i];
		assert_non_null(fn);
		f = p->string_table[fn->filename];
		assert_true(strlen(f) > 8 && !strcmp(f + strlen(f) - 8, "/<stdin>"));
		for (i = 0; i < p->n_location; i++)
			for (j = 0; j < p->location[i]->n_line; j++)
				if (p->location[i]->line[j]->function_id == fn->id) {
					assert_int_equal(p->location[i]->line[j]->line, 1);
					assert_true(p->location[i]->mapping_id > 0 &&
						    p->location[i]->mapping_id <= p->n_mapping);
					mp = p->mapping[p->location[i]->mapping_id - 1];
					lines++;
				}
		assert_int_equal(lines, 1);
		assert_string_equal(p->string_table[mp->filename], "app");
		assert_string_equal(p->string_table[mp->build_id],
				    "0102030405060708090a0b0c0d0e0f1011121314");
		assert_true(mp->has_functions && mp->has_filenames && mp->has_line_numbers);
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	/* replaced: the new names, at once */
	snprintf(prog, sizeof(prog), "%s/p2", dir);
	snprintf(gsym, sizeof(gsym), "%s/p2.gsym", dir);
	make_gsym(prog, gsym, "zt_q_other");
	put_sym(s, gsym, load);
	zbuf_reset(&b);
	assert_int_equal(zs_query_folded(s, &sel, &b), 0);
	assert_non_null(strstr(text(&b), ";zt_q_other;kfunc 30\n"));
	zbuf_release(&b);
	zs_store_close(s);
}

/* An upload of the id's GSYM (quality q said) without --force: 0 or -EEXIST. */
static int put_better(struct zs_store *s, const char *gsym, const char *load, int q)
{
	struct zs_symbol_meta m = {.quality = q};
	struct zs_symbol_put put;
	char tmp[600], msg[256];

	assert_int_equal(zs_symbol_meta_parse_load(load, &m), 0);
	snprintf(tmp, sizeof(tmp), "%s/sym", zs_store_tmpdir(s));
	assert_int_equal(run("cp %s %s", gsym, tmp), 0);
	return zs_symbol_put_file(s, "0102030405060708090a0b0c0d0e0f1011121314", tmp, &m, 1, &put,
				  msg, sizeof(msg));
}

/* Names first (a stripped binary's push), then full symbols without
 * --force: the views show file:line at once; names again change nothing. */
static void test_better_symbols(void **state)
{
	static struct zs_selection sel;
	struct zs_store *s = open_store("better");
	struct srv_rec_opts o = {.bid = &sym_bid};
	struct symmod_opts so = {.no_debuginfod = 1, .no_dwarf = 1};
	char prog[600], full[600], basic[600], load[64];
	uint64_t off;
	struct zbuf b;
	enum symq q;

	snprintf(prog, sizeof(prog), "%s/pb", dir);
	snprintf(full, sizeof(full), "%s/pb.gsym", dir);
	snprintf(basic, sizeof(basic), "%s/pb-basic.gsym", dir);
	make_gsym(prog, full, "zt_q_better");
	assert_int_equal(symmod_extract(&so, prog, basic, &q), 0);
	assert_int_equal(q, SYMQ_BASIC);
	assert_int_equal(file_offset(prog, "zt_q_better", &off, NULL), 0);
	o.off_a = off + 1;
	ingest(s, &o, NULL, 0, NULL);
	snprintf(load, sizeof(load), "0:0:%llx", 1ull << 24);
	assert_int_equal(put_better(s, basic, load, 1), 0);
	zbuf_init(&b);
	assert_int_equal(zs_query_top(s, &sel, 0, ZS_SORT_SELF, &b), 0);
	assert_non_null(strstr(text(&b), "{\"name\":\"zt_q_better\",\"module\":\"app\",\"self\":0,"
					 "\"children\":30}"));
	assert_int_equal(put_better(s, full, load, 2), 0);
	zbuf_reset(&b);
	assert_int_equal(zs_query_top(s, &sel, 0, ZS_SORT_SELF, &b), 0);
	assert_non_null(strstr(text(&b), "{\"name\":\"zt_q_better\",\"module\":\"app\",\"self\":0,"
					 "\"children\":30,\"file\":\""));
	assert_int_equal(put_better(s, basic, load, 1), -EEXIST);
	zbuf_reset(&b);
	assert_int_equal(zs_query_folded(s, &sel, &b), 0);
	assert_non_null(strstr(text(&b), ";zt_q_better;kfunc 30\n"));
	zbuf_reset(&b);
	assert_int_equal(zs_query_top(s, &sel, 0, ZS_SORT_SELF, &b), 0);
	assert_non_null(strstr(text(&b), "\"children\":30,\"file\":\""));
	zbuf_release(&b);
	zs_store_close(s);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Not a benchmark: the merged query's time for a modest store, printed. */
static void test_many(void **state)
{
	static struct zs_selection sel;
	struct zs_store *s = open_store("many");
	struct srv_rec_opts o = { .extra_stacks = 300 };
	struct zs_store_stats st;
	struct zbuf b;
	double t0, t1, t2;
	unsigned i;

	t0 = now();
	for (i = 0; i < 100; i++) {
		o.variant = i;
		ingest(s, &o, NULL, 0, NULL);
	}
	t1 = now();
	zbuf_init(&b);
	assert_int_equal(zs_query_top(s, &sel, 10, ZS_SORT_SELF, &b), 0);
	t2 = now();
	assert_non_null(strstr(text(&b), "\"profiles\":100,\"samples\":30500,"));
	zbuf_reset(&b);
	{
		double w0 = now();

		assert_int_equal(zs_query_top(s, &sel, 10, ZS_SORT_SELF, &b), 0);
		printf("# 100 profiles x 305 stacks: ingest %.3f s, top cold %.4f s, warm %.4f s\n",
		       t1 - t0, t2 - t1, now() - w0);
	}
	zs_store_stats(s, &st);
	assert_int_equal(st.profiles, 100);
	zbuf_release(&b);
	zs_store_close(s);
}

/* A selection's matchers (server/selector.h) on the SQLite store. */
static void sel_query(struct zs_selection *sel, const char *q)
{
	char msg[256];

	zs_selection_release(sel);
	memset(sel, 0, sizeof(*sel));
	if (zs_selector_parse(q, strlen(q), &sel->match, msg, sizeof(msg)))
		fail_msg("%s: %s", q, msg);
}

static void test_selectors(void **state)
{
	static struct zs_selection sel, many[2];
	struct zs_label prod = { "env", "prod" }, dev = { "env", "dev" }, eu = { "env", "prod-eu" };
	struct srv_rec_opts a = { 0 }, b = { .event = "page-faults", .variant = 1 },
			    c = { .wall = 1700000100, .pid = 200, .comm = "other", .later = 30,
				  .variant = 2 };
	struct zs_store *s = open_store("sel");
	struct zbuf o;

	(void)state;
	ingest(s, &a, &prod, 1, NULL);
	ingest(s, &b, &dev, 1, NULL);
	ingest(s, &c, &eu, 1, NULL);
	zbuf_init(&o);
	/* several types: refused, naming them */
	memset(&sel, 0, sizeof(sel));
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_SELF, &o), -EDOM);
	assert_non_null(strstr(zs_store_error(), "2 types (cpu, page-faults)"));
	/* one type: values are the weights (cpu time) */
	sel_query(&sel, "{__name__=\"cpu\"}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_SELF, &o), 0);
	assert_non_null(strstr(text(&o), "{\"profiles\":2,\"samples\":10,\"weight\":110,"
					  "\"type\":\"cpu\",\"unit\":\"nanoseconds\""));
	sel_query(&sel, "page-faults");
	zbuf_reset(&o);
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_SELF, &o), 0);
	assert_non_null(strstr(text(&o), "\"samples\":5,\"weight\":55,\"type\":\"page-faults\","
					  "\"unit\":\"count\""));
	/* matchers: =~ anchored, !=, !~, host and command columns */
	sel_query(&sel, "cpu{env=~\"prod.*\"}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_SELF, &o), 0);
	assert_non_null(strstr(text(&o), "{\"profiles\":2,"));
	sel_query(&sel, "cpu{env=~\"prod\"}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_SELF, &o), 0);
	assert_non_null(strstr(text(&o), "{\"profiles\":1,\"samples\":5,\"weight\":50,"));
	sel_query(&sel, "cpu{env!=\"prod\",host=\"h1\",command=~\"a.p\"}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_SELF, &o), 0);
	assert_non_null(strstr(text(&o), "{\"profiles\":1,\"samples\":5,\"weight\":60,"));
	sel_query(&sel, "cpu{env!~\"prod.*\"}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_SELF, &o), 0);
	assert_non_null(strstr(text(&o), "{\"profiles\":0,"));
	/* the process: comm, pid */
	sel_query(&sel, "cpu{comm=\"other\"}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_folded(s, &sel, &o), 0);
	assert_string_equal(text(&o), "other;[app+0x2000];[app+0x1000];kfunc 36\n"
				      "other;jitfn;[libnobid.so+0x2100] 24\n");
	sel_query(&sel, "cpu{pid!=\"200\"}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_folded(s, &sel, &o), 0);
	assert_string_equal(text(&o), "app;[app+0x2000];[app+0x1000];kfunc 30\n"
				      "app;jitfn;[libnobid.so+0x2100] 20\n");
	/* the time: samples by their own 10 s bucket */
	sel_query(&sel, "cpu");
	sel.from = 1700000100;
	sel.to = 1700000109;
	zbuf_reset(&o);
	assert_int_equal(zs_query_folded(s, &sel, &o), 0);
	assert_string_equal(text(&o), "other;[app+0x2000];[app+0x1000];kfunc 36\n");
	sel.from = 1700000125;
	sel.to = 0;
	zbuf_reset(&o);
	assert_int_equal(zs_query_folded(s, &sel, &o), 0);
	assert_string_equal(text(&o), "other;jitfn;[libnobid.so+0x2100] 24\n");
	/* the timeline */
	sel.from = 1700000000;
	sel.to = 1700000139;
	zbuf_reset(&o);
	assert_int_equal(zs_query_timeline(s, &sel, 10, &o), 0);
	assert_non_null(strstr(text(&o), "\"type\":\"cpu\",\"unit\":\"nanoseconds\",\"from\":1700000000,"
					  "\"to\":1700000140,\"step\":10,"));
	assert_non_null(strstr(text(&o), "[[1700000000,50],[1700000010,0],"));
	assert_non_null(strstr(text(&o), "[1700000100,36],[1700000110,0],[1700000120,0],"
					  "[1700000130,24]]}"));
	zbuf_reset(&o);
	assert_int_equal(zs_query_timeline(s, &sel, 100, &o), 0);
	assert_non_null(strstr(text(&o), "\"points\":[[1700000000,50],[1700000100,60]]}"));
	/* the list: paged, with its total */
	sel_query(&sel, "{env=~\"prod.*|dev\"}");
	sel.limit = 1;
	sel.offset = 1;
	zbuf_reset(&o);
	assert_int_equal(zs_list_json(s, &sel, &o), 0);
	assert_non_null(strstr(text(&o), "}],\"total\":3}"));
	assert_non_null(strstr(text(&o), "\"type\":\"page-faults\",\"unit\":\"count\",\"value\":55"));
	sel_query(&sel, "{comm=\"other\"}");
	zbuf_reset(&o);
	assert_int_equal(zs_list_json(s, &sel, &o), 0);
	assert_non_null(strstr(text(&o), "\"total\":1}"));
	assert_non_null(strstr(text(&o), "\"labels\":{\"env\":\"prod-eu\"}"));
	/* discovery */
	memset(many, 0, sizeof(many));
	zbuf_reset(&o);
	assert_int_equal(zs_query_label_names(s, many, 1, &o), 0);
	assert_string_equal(text(&o), "{\"status\":\"success\",\"data\":[\"__name__\",\"comm\","
				      "\"command\",\"env\",\"host\",\"pid\"]}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_label_values(s, many, 1, "env", &o), 0);
	assert_string_equal(text(&o),
			    "{\"status\":\"success\",\"data\":[\"dev\",\"prod\",\"prod-eu\"]}");
	sel_query(&many[0], "page-faults");
	sel_query(&many[1], "{comm=\"x\",env=\"prod-eu\"}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_label_values(s, many, 2, "env", &o), 0);
	assert_string_equal(text(&o), "{\"status\":\"success\",\"data\":[\"dev\",\"prod-eu\"]}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_label_values(s, many, 2, "__name__", &o), 0);
	assert_string_equal(text(&o), "{\"status\":\"success\",\"data\":[\"cpu\",\"page-faults\"]}");
	sel_query(&many[0], "cpu");
	zbuf_reset(&o);
	assert_int_equal(zs_query_label_values(s, many, 1, "comm", &o), 0);
	assert_string_equal(text(&o), "{\"status\":\"success\",\"data\":[\"app\",\"other\"]}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_label_values(s, many, 1, "pid", &o), 0);
	assert_string_equal(text(&o), "{\"status\":\"success\",\"data\":[\"100\",\"200\"]}");
	zs_selection_release(&many[0]);
	zs_selection_release(&many[1]);
	zs_selection_release(&sel);
	zbuf_release(&o);
	zs_store_close(s);
}

static void project_cb(void *ctx, const char *name, int64_t created, uint64_t profiles,
		       uint64_t tokens)
{
	char *out = ctx;

	snprintf(out + strlen(out), 256 - strlen(out), "%s:%llu:%llu:%d,", name,
		 (unsigned long long)profiles, (unsigned long long)tokens, created > 0);
}

/* Projects: tokens in one, profiles kept apart, the default project's
 * profiles including those pushed before projects. */
static void test_projects(void **state)
{
	static struct zs_selection sel;
	struct zs_label la[2] = { { "env", "a" }, { ZS_PROJECT_LABEL, "team-a" } },
			lb[2] = { { "env", "b" }, { ZS_PROJECT_LABEL, "default" } },
			lc = { "env", "c" };
	struct srv_rec_opts a = { 0 }, b = { .variant = 1 }, c = { .variant = 2 };
	struct zs_store *s = open_store("proj");
	char ida[65], idb[65], idc[65], tok[65], pj[ZS_PROJECT_MAX + 1], list[256] = "";
	struct zbuf o;

	(void)state;
	assert_int_equal(zs_project_create(s, "team-a"), 0);
	assert_int_equal(zs_project_create(s, "team-a"), -EEXIST);
	assert_int_equal(zs_project_create(s, "default"), -EEXIST);
	assert_int_equal(zs_project_create(s, "Team"), -EINVAL);
	assert_int_equal(zs_project_create(s, "-x"), -EINVAL);
	assert_true(zs_project_known(s, "team-a"));
	assert_true(zs_project_known(s, "default"));
	assert_false(zs_project_known(s, "team-b"));
	assert_int_equal(zs_token_create_in(s, ZS_SCOPE_READ, "ra", "team-b", tok), -ENOENT);
	assert_int_equal(zs_token_create_in(s, ZS_SCOPE_READ, "ra", "team-a", tok), 0);
	assert_int_equal(zs_token_check_in(s, tok, 64, pj), ZS_SCOPE_READ);
	assert_string_equal(pj, "team-a");
	assert_int_equal(zs_token_create_in(s, ZS_SCOPE_ADMIN, "all", NULL, tok), 0);
	assert_int_not_equal(zs_token_check_in(s, tok, 64, pj), 0);
	assert_string_equal(pj, "");
	ingest(s, &a, la, 2, ida);
	ingest(s, &b, lb, 2, idb);
	ingest(s, &c, &lc, 1, idc); /* as before projects: the default's */
	zbuf_init(&o);
	memset(&sel, 0, sizeof(sel));
	sel.project = "team-a";
	assert_int_equal(zs_list_json(s, &sel, &o), 0);
	assert_non_null(strstr(text(&o), ida));
	assert_null(strstr(text(&o), idb));
	assert_non_null(strstr(text(&o), "\"total\":1}"));
	/* the store's label is never shown */
	assert_null(strstr(text(&o), ZS_PROJECT_LABEL));
	sel.project = "default";
	zbuf_reset(&o);
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_SELF, &o), 0);
	assert_non_null(strstr(text(&o), "{\"profiles\":2,"));
	sel.project = NULL;
	zbuf_reset(&o);
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_SELF, &o), 0);
	assert_non_null(strstr(text(&o), "{\"profiles\":3,"));
	/* a selector cannot reach the store's label */
	sel_query(&sel, "{__project__=\"team-a\"}");
	zbuf_reset(&o);
	assert_int_equal(zs_query_top(s, &sel, 1, ZS_SORT_SELF, &o), 0);
	assert_non_null(strstr(text(&o), "{\"profiles\":0,"));
	zs_selection_release(&sel);
	memset(&sel, 0, sizeof(sel));
	zbuf_reset(&o);
	assert_int_equal(zs_query_label_names(s, &sel, 1, &o), 0);
	assert_null(strstr(text(&o), "__project__"));
	zbuf_reset(&o);
	assert_int_equal(zs_query_label_values(s, &sel, 1, ZS_PROJECT_LABEL, &o), 0);
	assert_string_equal(text(&o), "{\"status\":\"success\",\"data\":[]}");
	sel.project = "team-a";
	zbuf_reset(&o);
	assert_int_equal(zs_query_label_values(s, &sel, 1, "env", &o), 0);
	assert_string_equal(text(&o), "{\"status\":\"success\",\"data\":[\"a\"]}");
	/* by id */
	assert_int_equal(zs_profile_in_project(s, ida, "team-a"), 0);
	assert_int_equal(zs_profile_in_project(s, ida, "default"), -ENOENT);
	assert_int_equal(zs_profile_in_project(s, idc, "default"), 0);
	assert_int_equal(zs_profile_projects(s, ida), 1);
	/* the same body pushed into the default project too: in both */
	ingest(s, &a, lb + 1, 1, NULL);
	assert_int_equal(zs_profile_in_project(s, ida, "default"), 0);
	assert_int_equal(zs_profile_projects(s, ida), 2);
	assert_int_equal(zs_project_list(s, project_cb, list), 0);
	assert_string_equal(list, "default:3:0:0,team-a:1:1:1,");
	zbuf_release(&o);
	zs_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merged),
		cmocka_unit_test(test_symbolized),
		cmocka_unit_test(test_better_symbols),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_selectors),
		cmocka_unit_test(test_projects),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
