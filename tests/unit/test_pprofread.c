// SPDX-License-Identifier: GPL-2.0-or-later
/* formats/pprofread: a pprof body read into the profile model, and the session's frames of it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/pprofread.h"
#include "formats/profile.pb-c.h"
#include "formats/stackgroups.h"
#include "libprof/zbuf.h"
#include "session/session.h"
#include "tests/unit/srvdata.h"

typedef Perftools__Profiles__Profile PProfile;

#define LONG_THREAD "a thread name much longer than sixteen bytes"

/* A pprof of three types (samples, cpu, alloc; default cpu), two mappings
 * (the second with a build id), four functions, four locations: 1 two
 * lines (inl inlined into main), 2 unnamed in mapping 2, 3 one line (work)
 * in no mapping, 4 a line without a name after one with (odd). Samples:
 * [1] 4/4000 thread LONG_THREAD; [2 1] 1/1000; [3 4 1] 2/0; [1] 0/0
 * (dropped). deep: one more sample of `deep` locations 1. */
static void make(struct zbuf *out, int gz, size_t deep, int bad)
{
	static char *strs[] = { "",	"samples", "count",	   "cpu",	  "nanoseconds",
				"alloc", "bytes",   "main",	   "inl",	  "work",
				"/usr/bin/srv", "/lib/libx.so", "0102030405", "thread", LONG_THREAD,
				"src/main.c", "" };
	Perftools__Profiles__ValueType vt[3] = { PERFTOOLS__PROFILES__VALUE_TYPE__INIT,
						 PERFTOOLS__PROFILES__VALUE_TYPE__INIT,
						 PERFTOOLS__PROFILES__VALUE_TYPE__INIT };
	Perftools__Profiles__ValueType *vtp[3] = { &vt[0], &vt[1], &vt[2] };
	Perftools__Profiles__Mapping m[2] = { PERFTOOLS__PROFILES__MAPPING__INIT,
					      PERFTOOLS__PROFILES__MAPPING__INIT };
	Perftools__Profiles__Mapping *mp[2] = { &m[0], &m[1] };
	Perftools__Profiles__Function f[4] = {
		PERFTOOLS__PROFILES__FUNCTION__INIT, PERFTOOLS__PROFILES__FUNCTION__INIT,
		PERFTOOLS__PROFILES__FUNCTION__INIT, PERFTOOLS__PROFILES__FUNCTION__INIT
	};
	Perftools__Profiles__Function *fp[4] = { &f[0], &f[1], &f[2], &f[3] };
	Perftools__Profiles__Line ln[5] = {
		PERFTOOLS__PROFILES__LINE__INIT, PERFTOOLS__PROFILES__LINE__INIT,
		PERFTOOLS__PROFILES__LINE__INIT, PERFTOOLS__PROFILES__LINE__INIT,
		PERFTOOLS__PROFILES__LINE__INIT
	};
	Perftools__Profiles__Line *lp[5] = { &ln[0], &ln[1], &ln[2], &ln[3], &ln[4] };
	Perftools__Profiles__Location l[4] = {
		PERFTOOLS__PROFILES__LOCATION__INIT, PERFTOOLS__PROFILES__LOCATION__INIT,
		PERFTOOLS__PROFILES__LOCATION__INIT, PERFTOOLS__PROFILES__LOCATION__INIT
	};
	Perftools__Profiles__Location *lpp[4] = { &l[0], &l[1], &l[2], &l[3] };
	Perftools__Profiles__Label lab = PERFTOOLS__PROFILES__LABEL__INIT, *labp = &lab;
	Perftools__Profiles__Sample s[5] = {
		PERFTOOLS__PROFILES__SAMPLE__INIT, PERFTOOLS__PROFILES__SAMPLE__INIT,
		PERFTOOLS__PROFILES__SAMPLE__INIT, PERFTOOLS__PROFILES__SAMPLE__INIT,
		PERFTOOLS__PROFILES__SAMPLE__INIT
	};
	Perftools__Profiles__Sample *sp[5] = { &s[0], &s[1], &s[2], &s[3], &s[4] };
	PProfile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	uint64_t loc0[1] = { 1 }, loc1[2] = { 2, 1 }, loc2[3] = { 3, 4, 1 }, *dl = NULL;
	int64_t v0[3] = { 4, 4000, 9 }, v1[3] = { 1, 1000, 9 }, v2[3] = { 2, 0, 9 },
		v3[3] = { 0, 0, 9 }, v4[3] = { 1, 1, 1 };
	uint8_t *buf;
	size_t len, i;

	vt[0].type = 1, vt[0].unit = 2, vt[1].type = 3, vt[1].unit = 4, vt[2].type = 5,
	vt[2].unit = 6;
	m[0].id = 1, m[0].memory_start = 0x1000, m[0].memory_limit = 0x9000, m[0].filename = 10;
	m[1].id = 7, m[1].memory_start = 0x10000, m[1].memory_limit = 0x20000;
	m[1].file_offset = 0x100, m[1].filename = 11, m[1].build_id = 12;
	f[0].id = 1, f[0].name = 7, f[0].filename = 15;
	f[1].id = 2, f[1].name = 8;
	f[2].id = 3, f[2].name = 9;
	f[3].id = 4, f[3].name = bad ? 99 : 16; /* no name, nor system name */
	ln[0].function_id = 2, ln[0].line = 3, ln[1].function_id = 1, ln[1].line = 42;
	ln[2].function_id = 3, ln[3].function_id = 2, ln[4].function_id = 4;
	l[0].id = 1, l[0].mapping_id = 1, l[0].address = 0x1100, l[0].n_line = 2, l[0].line = lp;
	l[1].id = 2, l[1].mapping_id = 7, l[1].address = 0x10010;
	l[2].id = 3, l[2].address = 0x77, l[2].n_line = 1, l[2].line = lp + 2;
	l[3].id = 4, l[3].mapping_id = 1, l[3].address = 0x1300, l[3].n_line = 2, l[3].line = lp + 3;
	lab.key = 13, lab.str = 14;
	s[0].n_location_id = 1, s[0].location_id = loc0, s[0].n_value = 3, s[0].value = v0;
	s[0].n_label = 1, s[0].label = &labp;
	s[1].n_location_id = 2, s[1].location_id = loc1, s[1].n_value = 3, s[1].value = v1;
	s[2].n_location_id = 3, s[2].location_id = loc2, s[2].n_value = 3, s[2].value = v2;
	s[3].n_location_id = 1, s[3].location_id = loc0, s[3].n_value = 3, s[3].value = v3;
	if (deep) {
		dl = malloc(deep * sizeof(*dl));
		assert_non_null(dl);
		for (i = 0; i < deep; i++)
			dl[i] = i % 2 ? 3 : 2; /* a frame each */
		s[4].n_location_id = deep, s[4].location_id = dl, s[4].n_value = 3;
		s[4].value = v4;
	}
	p.n_sample_type = 3, p.sample_type = vtp, p.n_sample = deep ? 5 : 4, p.sample = sp;
	p.default_sample_type = 3;
	p.n_mapping = 2, p.mapping = mp, p.n_location = 4, p.location = lpp;
	p.n_function = 4, p.function = fp, p.n_string_table = 17, p.string_table = strs;
	p.time_nanos = 1700000000123456789ll, p.duration_nanos = 10000000000ll;
	len = perftools__profiles__profile__get_packed_size(&p);
	buf = malloc(len);
	assert_non_null(buf);
	perftools__profiles__profile__pack(&p, buf);
	free(dl);
	if (!gz)
		zbuf_put(out, buf, len);
	else
		assert_int_equal(srv_gzip(out, buf, len), 0);
	free(buf);
}

/* The location behind address a. */
static const struct pprof_loc *loc_at(const struct pprof_body *b, uint64_t a)
{
	const struct pprof_loc *l = pprof_body_loc(b, a);

	assert_non_null(l);
	return l;
}

static void test_read(void **state)
{
	int64_t t, d;
	int gz;

	(void)state;
	for (gz = 0; gz < 2; gz++) {
		struct profile p;
		struct pprof_body *b;
		const struct pprof_loc *l;
		const uint64_t *ips, *counts;
		struct zbuf z;
		char msg[256] = "";
		size_t nl, nf;

		zbuf_init(&z);
		make(&z, gz, 0, 0);
		profile_init(&p);
		assert_int_equal(pprof_read_mem(z.data, z.len, 0, &p, &b, msg, sizeof(msg)), 0);
		assert_string_equal(msg, "");
		/* the weight type is the event, the count beside each sample */
		assert_int_equal(p.nr_events, 1);
		assert_string_equal(profile_event_name(&p, 0), "cpu");
		assert_int_equal(p.nr_samples, 3); /* the one of zeros dropped */
		counts = pprof_body_counts(b);
		assert_non_null(counts);
		assert_int_equal(p.samples[0].weight, 4000);
		assert_int_equal(counts[0], 4);
		assert_int_equal(p.samples[1].weight, 1000);
		assert_int_equal(counts[1], 1);
		assert_int_equal(p.samples[2].weight, 0);
		assert_int_equal(counts[2], 2);
		/* threads: the labeled one whole, the others the command's */
		assert_string_equal(pprof_body_command(b), "srv");
		assert_int_equal(p.samples[0].pid, PPROF_PID);
		assert_string_equal(pprof_body_thread(b, p.samples[0].tid), LONG_THREAD);
		assert_int_equal(p.samples[1].tid, PPROF_PID);
		assert_string_equal(pprof_body_thread(b, PPROF_PID), "srv");
		assert_null(pprof_body_thread(b, 99));
		pprof_body_times(b, &t, &d);
		assert_int_equal(t, 1700000000123456789ll);
		assert_int_equal(d, 10000000000ll);
		/* stacks: a user address per location, leaf first */
		assert_int_equal(p.stacks[p.samples[1].stack].nk, 0);
		assert_int_equal(p.stacks[p.samples[1].stack].nu, 2);
		ips = profile_stack_ips(&p, p.samples[1].stack);
		assert_int_equal(ips[1], profile_stack_ips(&p, p.samples[0].stack)[0]);
		l = loc_at(b, ips[1]); /* inl inlined into main */
		assert_int_equal(l->named, 2);
		assert_int_equal(l->nr_lines, 2);
		assert_string_equal(l->lines[0].name, "inl");
		assert_int_equal(l->lines[0].line, 3);
		assert_string_equal(l->lines[1].name, "main");
		assert_string_equal(l->lines[1].file, "src/main.c");
		assert_string_equal(l->module, "srv");
		l = loc_at(b, ips[0]); /* unnamed: its file offset in libx.so */
		assert_int_equal(l->named, 0);
		assert_string_equal(l->module, "libx.so");
		assert_int_equal(l->offset, 0x10010 - 0x10000 + 0x100);
		ips = profile_stack_ips(&p, p.samples[2].stack);
		assert_int_equal(p.stacks[p.samples[2].stack].nu, 3);
		l = loc_at(b, ips[0]); /* named, in no mapping */
		assert_string_equal(l->module, "");
		assert_string_equal(l->lines[0].name, "work");
		l = loc_at(b, ips[1]); /* a named line, then one without a name */
		assert_int_equal(l->named, 1);
		assert_int_equal(l->nr_lines, 2);
		assert_string_equal(l->lines[1].name, "");
		assert_null(pprof_body_loc(b, 0));
		/* a mapping only for the unnamed location's frame, with its build id */
		assert_int_equal(p.nr_mmaps, 1);
		assert_string_equal(p.mmaps[0].path, "/lib/libx.so");
		assert_int_equal(p.mmaps[0].build_id.len, 5);
		assert_int_equal(p.mmaps[0].build_id.data[4], 5);
		pprof_body_size(b, &nl, &nf);
		assert_int_equal(nl, 4);
		assert_int_equal(nf, 2 + 1 + 1 + 2);
		pprof_body_free(b);
		profile_release(&p);
		zbuf_release(&z);
	}
}

/* Refusals say which field, as zt serve answers them. */
static void test_refusals(void **state)
{
	static const uint8_t junk[] = "not a profile at all";
	struct pprof_body *b = (struct pprof_body *)1;
	struct profile p;
	struct zbuf z;
	char msg[256];

	(void)state;
	profile_init(&p);
	msg[0] = 0;
	assert_int_equal(pprof_read_mem(junk, sizeof(junk), 0, &p, &b, msg, sizeof(msg)),
			 -EMEDIUMTYPE);
	assert_null(b);
	profile_release(&p);

	zbuf_init(&z);
	make(&z, 1, 0, 1);
	profile_init(&p);
	msg[0] = 0;
	assert_int_equal(pprof_read_mem(z.data, z.len, 0, &p, &b, msg, sizeof(msg)), -EBADMSG);
	assert_string_equal(msg, "bad pprof: function[3].name is 99, past the 17 strings of "
				 "string_table");
	profile_release(&p);
	/* cut short: damaged gzip data */
	profile_init(&p);
	msg[0] = 0;
	assert_int_equal(pprof_read_mem(z.data, z.len / 2, 0, &p, &b, msg, sizeof(msg)), -EBADMSG);
	assert_string_equal(msg, "bad gzip data in the pprof: truncated");
	profile_release(&p);
	zbuf_release(&z);

	zbuf_init(&z);
	make(&z, 1, 0, 0);
	profile_init(&p);
	msg[0] = 0;
	assert_int_equal(pprof_read_mem(z.data, z.len, 100, &p, &b, msg, sizeof(msg)), -EFBIG);
	assert_string_equal(msg, "the pprof is larger than 100 bytes decompressed");
	profile_release(&p);
	zbuf_release(&z);
}

/* A stack deeper than the recorder keeps: 2 * ZT_MAX_FRAMES addresses of
 * a frame each, with the root. */
static void test_deep(void **state)
{
	struct pprof_body *b;
	struct profile p;
	struct zbuf z;
	char msg[256] = "";

	(void)state;
	zbuf_init(&z);
	make(&z, 0, 3000, 0);
	profile_init(&p);
	assert_int_equal(pprof_read_mem(z.data, z.len, 0, &p, &b, msg, sizeof(msg)), 0);
	assert_int_equal(p.nr_samples, 4);
	assert_int_equal(p.stacks[p.samples[3].stack].nu, 2 * ZT_MAX_FRAMES);
	pprof_body_free(b);
	profile_release(&p);
	zbuf_release(&z);
}

/* The session names the locations through its frame table: lines as
 * inline chains, unnamed locations as module and offset in the mapping
 * with the build id. */
static void test_session(void **state)
{
	struct session s;
	struct stackgroups g;
	const struct rstacks *rs;
	const struct zt_frange *r;
	const struct zt_frame *f;
	const uint64_t *ips;
	struct zbuf z;
	char msg[256] = "";
	uint32_t idx;
	unsigned n;
	int added;

	(void)state;
	zbuf_init(&z);
	make(&z, 1, 0, 0);
	assert_int_equal(session_open_pushed_pprof(&s, z.data, z.len, 0, NULL, msg, sizeof(msg)),
			 0);
	assert_non_null(session_pprof(&s));
	rs = session_stacks(&s);
	stackgroups_init(&g, rs);
	/* [2 1]: libx.so+0x110, then inl inlined into main */
	assert_int_equal(stackgroups_add(&g, &s.prof.samples[1], NULL, 0, &idx, &added), 0);
	assert_int_equal(stackgroups_resolve(&g, idx, 2 * ZT_MAX_FRAMES, &ips, &r, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].n, 1);
	f = rstacks_frame(rs, r[0].first);
	assert_null(f->sym);
	assert_string_equal(f->module, "libx.so");
	assert_int_equal(f->offset, 0x110);
	assert_non_null(r[0].map);
	assert_int_equal(r[0].map->build_id.len, 5);
	assert_int_equal(r[1].n, 2);
	f = rstacks_frame(rs, r[1].first);
	assert_string_equal(f->sym, "inl");
	assert_true(f->inlined);
	f = rstacks_frame(rs, r[1].first + 1);
	assert_string_equal(f->sym, "main");
	assert_false(f->inlined);
	assert_string_equal(f->file, "src/main.c");
	assert_int_equal(f->line, 42);
	/* [3 4 1]: work (no mapping, no module), then a named line inlined
	 * into one without a name */
	assert_int_equal(stackgroups_add(&g, &s.prof.samples[2], NULL, 0, &idx, &added), 0);
	assert_int_equal(stackgroups_resolve(&g, idx, 2 * ZT_MAX_FRAMES, &ips, &r, &n), 0);
	assert_int_equal(n, 3);
	f = rstacks_frame(rs, r[0].first);
	assert_string_equal(f->sym, "work");
	assert_string_equal(f->module, "");
	assert_null(r[0].map);
	assert_int_equal(r[1].n, 2);
	assert_string_equal(rstacks_frame(rs, r[1].first)->sym, "inl");
	assert_true(rstacks_frame(rs, r[1].first)->inlined);
	assert_string_equal(rstacks_frame(rs, r[1].first + 1)->sym, "");
	stackgroups_release(&g);
	session_close(&s);

	/* raw bytes that are no pprof */
	assert_int_equal(session_open_pushed_pprof(&s, "junk", 4, 0, NULL, msg, sizeof(msg)),
			 -EMEDIUMTYPE);
	assert_string_equal(msg, "not a pprof profile");
	zbuf_release(&z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_session),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
