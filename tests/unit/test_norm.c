// SPDX-License-Identifier: GPL-2.0-or-later
/* server/norm: zt.data and pprof bodies to stacks of frame keys, and what is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/profile.pb-c.h"
#include "server/norm.h"
#include "tests/unit/srvdata.h"

static void key_of(const struct zs_norm *n, uint32_t f, struct zs_fkey *k)
{
	size_t len;
	const uint8_t *p = zs_norm_key(n, f, &len);

	assert_int_equal(zs_fkey_decode(p, len, k), 0);
}

/* The stack with count c, its frames decoded into k (at most 8). */
static const struct zs_nstack *find_stack(const struct zs_norm *n, uint64_t c, struct zs_fkey *k)
{
	size_t i, j;

	for (i = 0; i < n->nr_stacks; i++) {
		if (n->stacks[i].count != c)
			continue;
		for (j = 0; j < n->stacks[i].n && j < 8; j++)
			key_of(n, n->sframes[n->stacks[i].off + j], &k[j]);
		return &n->stacks[i];
	}
	fail_msg("no stack of count %llu", (unsigned long long)c);
	return NULL;
}

/* gpu: the recording has GPU chunks too, which the server leaves out */
static void ztdata_body(int gpu)
{
	struct srv_rec_opts o = { .gpu = gpu };
	struct zs_fkey k[8];
	const struct zs_nstack *s;
	struct zs_norm n;
	struct zbuf b;
	char msg[256];

	zbuf_init(&b);
	assert_int_equal(srv_recording(&b, &o), 0);
	zs_norm_init(&n);
	assert_int_equal(zs_norm_body(&n, b.data, b.len, 0, msg, sizeof(msg)), 0);
	assert_string_equal(n.format, "zt.data");
	assert_string_equal(n.host, "h1");
	assert_string_equal(n.command, "app");
	assert_string_equal(n.event, "cpu-clock");
	assert_int_equal(n.time_start, 1700000000);
	assert_int_equal(n.time_end, 1700000002);
	assert_int_equal(n.samples, 5);
	assert_int_equal(n.weight, 50);
	assert_int_equal(n.nr_stacks, 2);
	assert_int_equal(n.nr_bids, 1);
	assert_int_equal(n.bids[0].data[0], 0xaa);

	s = find_stack(&n, 3, k);
	assert_int_equal(s->n, 4);
	assert_int_equal(s->weight, 30);
	assert_int_equal(k[0].kind, ZS_FK_NAMED);
	assert_true(k[0].flags & ZS_FF_KERNEL);
	assert_string_equal(k[0].name, "kfunc");
	assert_string_equal(k[0].module, "[kernel.kallsyms]");
	assert_int_equal(k[1].kind, ZS_FK_ADDR);
	assert_int_equal(k[1].off, 0x1000);
	assert_int_equal(k[1].bid.len, 20);
	assert_string_equal(k[1].module, "app");
	assert_int_equal(k[2].off, 0x2000);
	assert_int_equal(k[3].kind, ZS_FK_NAMED);
	assert_true(k[3].flags & ZS_FF_ROOT);
	assert_string_equal(k[3].name, "app");

	s = find_stack(&n, 2, k);
	assert_int_equal(s->n, 3);
	assert_int_equal(k[0].kind, ZS_FK_UNRESOLVED);
	assert_string_equal(k[0].module, "libnobid.so");
	assert_int_equal(k[0].off, 0x2100);
	assert_int_equal(k[1].kind, ZS_FK_NAMED);
	assert_true(k[1].flags & ZS_FF_JIT);
	assert_string_equal(k[1].name, "jitfn");
	assert_string_equal(k[1].module, "[JIT] tid 100");
	zs_norm_release(&n);
	zbuf_release(&b);
}

static void test_ztdata(void **state)
{
	ztdata_body(0);
	ztdata_body(1);
}

static void expect_bad(const void *p, size_t len, int err, const char *needle)
{
	struct zs_norm n;
	char msg[256];

	zs_norm_init(&n);
	assert_int_equal(zs_norm_body(&n, p, len, 0, msg, sizeof(msg)), err);
	if (needle && !strstr(msg, needle))
		fail_msg("message '%s' lacks '%s'", msg, needle);
	zs_norm_release(&n);
}

static void test_ztdata_refused(void **state)
{
	struct srv_rec_opts o = { 0 };
	struct zbuf b;
	uint8_t *c;

	zbuf_init(&b);
	assert_int_equal(srv_recording(&b, &o), 0);
	expect_bad(b.data, b.len - 7, -EBADMSG, "incomplete");            /* truncated */
	c = malloc(b.len);
	memcpy(c, b.data, b.len);
	c[b.len / 2] ^= 0x5a; /* a chunk fails its checksum */
	expect_bad(c, b.len, -EBADMSG, NULL);
	memcpy(c, b.data, b.len);
	c[0] = 'X'; /* wrong magic: not zt.data, and not pprof either */
	expect_bad(c, b.len, -EMEDIUMTYPE, "not a zt.data or pprof");
	free(c);
	expect_bad("", 0, -EMEDIUMTYPE, NULL);

	zbuf_reset(&b);
	o.unfinished = 1;
	assert_int_equal(srv_recording(&b, &o), 0);
	expect_bad(b.data, b.len, -EBADMSG, "incomplete");
	zbuf_reset(&b);
	o.unfinished = 0;
	o.snapshot = 1;
	assert_int_equal(srv_recording(&b, &o), 0);
	expect_bad(b.data, b.len, -EBADMSG, "zt push");
	zbuf_release(&b);
}

/* What make_pprof_with changes in the good pprof: bad_ref, a location's
 * mapping id that no mapping has; v0: sample[0]'s values when n_v0 (1..3). */
struct pp_tweak {
	int bad_ref;
	size_t n_v0;
	int64_t v0[3];
	uint64_t loc0;	   /* sample[0]'s location id, when not 0 */
	uint64_t fn0_id;   /* function[0]'s id, when not 0 */
	int64_t fn0_name;  /* function[0]'s name, when not 0 */
	int64_t label_key; /* sample[0]'s label key, when not 0 */
};

static void make_pprof_with(struct zbuf *out, int gz, const struct pp_tweak *t);

/* A pprof: two samples, one with an inlined function, one unsymbolized
 * with a build id, plus a label thread. */
static void make_pprof(struct zbuf *out, int gz, int bad_ref)
{
	struct pp_tweak t = {.bad_ref = bad_ref};

	make_pprof_with(out, gz, &t);
}

static void make_pprof_with(struct zbuf *out, int gz, const struct pp_tweak *t)
{
	int bad_ref = t->bad_ref;
	static char *strs[] = { "", "samples", "count", "cpu", "nanoseconds", "main", "inl",
				"/usr/bin/srv", "0102030405", "thread", "worker 1", "../../etc/shadow" };
	Perftools__Profiles__Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt[2] = { PERFTOOLS__PROFILES__VALUE_TYPE__INIT,
						 PERFTOOLS__PROFILES__VALUE_TYPE__INIT };
	Perftools__Profiles__ValueType *vtp[2] = { &vt[0], &vt[1] };
	Perftools__Profiles__Mapping m[2] = { PERFTOOLS__PROFILES__MAPPING__INIT,
					      PERFTOOLS__PROFILES__MAPPING__INIT };
	Perftools__Profiles__Mapping *mp[2] = { &m[0], &m[1] };
	Perftools__Profiles__Function f[2] = { PERFTOOLS__PROFILES__FUNCTION__INIT,
					       PERFTOOLS__PROFILES__FUNCTION__INIT };
	Perftools__Profiles__Function *fp[2] = { &f[0], &f[1] };
	Perftools__Profiles__Line ln[2] = { PERFTOOLS__PROFILES__LINE__INIT,
					    PERFTOOLS__PROFILES__LINE__INIT };
	Perftools__Profiles__Line *lp[2] = { &ln[0], &ln[1] };
	Perftools__Profiles__Location l[3] = { PERFTOOLS__PROFILES__LOCATION__INIT,
					       PERFTOOLS__PROFILES__LOCATION__INIT,
					       PERFTOOLS__PROFILES__LOCATION__INIT };
	Perftools__Profiles__Location *lpp[3] = { &l[0], &l[1], &l[2] };
	Perftools__Profiles__Label lab = PERFTOOLS__PROFILES__LABEL__INIT, *labp = &lab;
	Perftools__Profiles__Sample s[2] = { PERFTOOLS__PROFILES__SAMPLE__INIT,
					     PERFTOOLS__PROFILES__SAMPLE__INIT };
	Perftools__Profiles__Sample *sp[2] = { &s[0], &s[1] };
	uint64_t loc0[1] = { 1 }, loc1[2] = { 2, 3 };
	int64_t v0[3] = {4, 4000, 0}, v1[2] = {1, 1000};
	uint8_t buf[4096];
	size_t len;

	vt[0].type = 1, vt[0].unit = 2, vt[1].type = 3, vt[1].unit = 4;
	m[0].id = 1, m[0].memory_start = 0x1000, m[0].memory_limit = 0x9000, m[0].filename = 7;
	m[1].id = 2, m[1].memory_start = 0x10000, m[1].memory_limit = 0x20000, m[1].file_offset = 0x100;
	m[1].filename = 11, m[1].build_id = 8;
	f[0].id = 1, f[0].name = 5, f[1].id = 2, f[1].name = 6;
	ln[0].function_id = 2, ln[1].function_id = 1;
	l[0].id = 1, l[0].mapping_id = 1, l[0].address = 0x1100, l[0].n_line = 2, l[0].line = lp;
	l[1].id = 2, l[1].mapping_id = 2, l[1].address = 0x10010;
	l[2].id = 3, l[2].mapping_id = bad_ref ? 9 : 1, l[2].address = 0x1200, l[2].n_line = 1,
	l[2].line = lp + 1;
	lab.key = t->label_key ? t->label_key : 9, lab.str = 10;
	if (t->n_v0)
		memcpy(v0, t->v0, sizeof(v0));
	if (t->loc0)
		loc0[0] = t->loc0;
	if (t->fn0_id)
		f[0].id = t->fn0_id;
	if (t->fn0_name)
		f[0].name = t->fn0_name;
	s[0].n_location_id = 1, s[0].location_id = loc0, s[0].value = v0;
	s[0].n_value = t->n_v0 ? t->n_v0 : 2;
	s[0].n_label = 1, s[0].label = &labp;
	s[1].n_location_id = 2, s[1].location_id = loc1, s[1].n_value = 2, s[1].value = v1;
	p.n_sample_type = 2, p.sample_type = vtp, p.n_sample = 2, p.sample = sp;
	p.n_mapping = 2, p.mapping = mp, p.n_location = 3, p.location = lpp;
	p.n_function = 2, p.function = fp, p.n_string_table = 12, p.string_table = strs;
	p.time_nanos = 1700000000123456789ll, p.duration_nanos = 10000000000ll;
	len = perftools__profiles__profile__get_packed_size(&p);
	assert_true(len < sizeof(buf));
	perftools__profiles__profile__pack(&p, buf);
	if (!gz)
		zbuf_put(out, buf, len);
	else
		assert_int_equal(srv_gzip(out, buf, len), 0);
}

static void test_pprof(void **state)
{
	struct zs_fkey k[8];
	const struct zs_nstack *s;
	struct zs_norm n;
	struct zbuf b;
	char msg[256];
	int gz;

	for (gz = 0; gz < 2; gz++) {
		zbuf_init(&b);
		make_pprof(&b, gz, 0);
		zs_norm_init(&n);
		assert_int_equal(zs_norm_body(&n, b.data, b.len, 0, msg, sizeof(msg)), 0);
		assert_string_equal(n.format, "pprof");
		assert_string_equal(n.command, "srv");
		assert_string_equal(n.event, "cpu");
		assert_int_equal(n.samples, 5);
		assert_int_equal(n.weight, 5000);
		assert_int_equal(n.time_start, 1700000000);
		assert_int_equal(n.time_end, 1700000011);
		s = find_stack(&n, 4, k);
		assert_int_equal(s->n, 3);
		assert_string_equal(k[0].name, "inl");
		assert_true(k[0].flags & ZS_FF_INLINED);
		assert_string_equal(k[1].name, "main");
		assert_string_equal(k[1].module, "srv");
		assert_string_equal(k[2].name, "worker 1");
		s = find_stack(&n, 1, k);
		assert_int_equal(s->n, 3);
		assert_int_equal(k[0].kind, ZS_FK_ADDR);
		assert_int_equal(k[0].off, 0x110);
		assert_int_equal(k[0].bid.len, 5);
		assert_string_equal(k[0].module, "shadow"); /* a name, never opened */
		assert_string_equal(k[1].name, "main");
		assert_string_equal(k[2].name, "srv"); /* no thread label: the command */
		zs_norm_release(&n);
		zbuf_reset(&b);
		make_pprof(&b, gz, 1);
		expect_bad(b.data, b.len, -EBADMSG, "bad pprof");
		if (gz) {
			expect_bad(b.data, b.len / 2, -EBADMSG, "gzip");
			zs_norm_init(&n);
			assert_int_equal(zs_norm_body(&n, b.data, b.len, 16, msg, sizeof(msg)), -EFBIG);
			zs_norm_release(&n);
		}
		zbuf_release(&b);
	}
}

/* Every refusal of a pprof names the field and the value that was wrong. */
static void test_pprof_refusals(void **state)
{
	static const struct {
		struct pp_tweak t;
		const char *msg;
	} cases[] = {
		{{.n_v0 = 2, .v0 = {-3, 4000}}, "sample[0].value[0] is -3"},
		{{.n_v0 = 2, .v0 = {4, -1}}, "sample[0].value[1] is -1"},
		{{.n_v0 = 3, .v0 = {4, 4000, 7}}, "sample[0] has 3 values for 2 sample types"},
		{{.n_v0 = 1, .v0 = {4}}, "sample[0] has 1 values for 2 sample types"},
		{{.n_v0 = 2, .v0 = {INT64_MAX, 4000}},
		 "sample[1].value[0] is 1: the samples' value[0] add up past 9223372036854775807"},
		{{.bad_ref = 1}, "location[2] (id 3) refers to mapping id 9, which no mapping has"},
		{{.loc0 = 42}, "sample[0].location_id[0] is 42, which no location has"},
		{{.fn0_id = 2}, "function[1] has id 2, as function[0] has"},
		{{.fn0_name = 99}, "function[0].name is 99, past the 12 strings of string_table"},
		{{.label_key = -2},
		 "sample[0].label[0].key is -2, past the 12 strings of string_table"},
	};
	struct zs_norm n;
	struct zbuf b;
	char msg[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		zbuf_init(&b);
		make_pprof_with(&b, 1, &cases[i].t);
		zs_norm_init(&n);
		assert_int_equal(zs_norm_body(&n, b.data, b.len, 0, msg, sizeof(msg)), -EBADMSG);
		if (!strstr(msg, cases[i].msg))
			fail_msg("case %zu: message '%s' lacks '%s'", i, msg, cases[i].msg);
		if (strncmp(msg, "bad pprof: ", 11))
			fail_msg("case %zu: message '%s' does not start 'bad pprof: '", i, msg);
		zs_norm_release(&n);
		zbuf_release(&b);
	}
}

static void test_keys(void **state)
{
	struct zs_fkey k = { .kind = ZS_FK_NAMED, .module = "m", .name = "f" }, d;
	struct zbuf b;

	zbuf_init(&b);
	assert_int_equal(zs_fkey_encode(&b, &k), 0);
	assert_int_equal(zs_fkey_decode(b.data, b.len, &d), 0);
	assert_string_equal(d.name, "f");
	assert_int_equal(zs_fkey_decode(b.data, b.len - 1, &d), -EBADMSG);
	b.data[0] = 9;
	assert_int_equal(zs_fkey_decode(b.data, b.len, &d), -EBADMSG);
	zbuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ztdata), cmocka_unit_test(test_ztdata_refused),
		cmocka_unit_test(test_pprof),  cmocka_unit_test(test_pprof_refusals),
		cmocka_unit_test(test_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
