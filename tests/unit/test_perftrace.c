// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of formats/perftrace.c (perf's tracing data, both ways) and
 * formats/tracefmt.c (tracepoint fields through libtraceevent, when built
 * with it): a round trip, every truncation, the refusals, and a
 * sched_switch record printed as perf script prints it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/perftrace.h"
#include "formats/tracefmt.h"

/* Linux 6.1's events/sched/sched_switch/format */
static const char sched_switch[] =
	"sched\0"
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & "
	"((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, "
	"\"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { "
	"0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", "
	"REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

/* A format whose field lies past any record zt keeps. */
static const char far_field[] =
	"evil\0name: far\nID: 9\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int x;\toffset:1000000;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"x=%d\", REC->x\n";

/* __print_hex() and __print_array() with lengths from the record's fields */
static const char hex_len[] =
	"test\0name: hexlen\nID: 11\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
	"\tfield:unsigned int len;\toffset:4;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned char buf[8];\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"len=%u buf=%s arr=%s\", REC->len, __print_hex(REC->buf, REC->len), "
	"__print_array(REC->buf, REC->len / 2, 2)\n";

static const char header_page[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
				  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static void trace_profile(struct profile *p)
{
	profile_init(p);
	assert_int_equal(profile_add_blob(p, PROF_BLOB_TRACE_HEADER, 0, 0, header_page,
					  sizeof(header_page) - 1),
			 0);
	assert_int_equal(profile_add_blob(p, PROF_BLOB_TRACE_FORMAT, 0, 0, sched_switch,
					  sizeof(sched_switch) - 1),
			 0);
	assert_int_equal(profile_add_blob(p, PROF_BLOB_TRACE_PRINTK, 0, 0, "0x1 : \"hi\"\n", 11),
			 0);
}

static void test_round_trip(void **state)
{
	struct profile p, q;
	struct zbuf b;
	uint64_t id = 0;
	size_t i, n;

	(void)state;
	trace_profile(&p);
	zbuf_init(&b);
	assert_int_equal(perftrace_write(&p, &b), 0);
	assert_memory_equal(b.data, "\027\010\104tracing0.6\0\0\010", 16);
	profile_init(&q);
	assert_int_equal(perftrace_parse(b.data, b.len, &q), 0);
	assert_int_equal(q.nr_blobs, 3);
	for (i = 0; i < 3; i++) {
		const struct prof_blob *x = profile_find_blob(&p, p.blobs[i].kind, UINT32_MAX);
		const struct prof_blob *y = profile_find_blob(&q, p.blobs[i].kind, UINT32_MAX);

		assert_non_null(y);
		assert_int_equal(x->len, y->len);
		assert_memory_equal(x->data, y->data, x->len);
	}
	assert_int_equal(perftrace_event_id(&q, "sched:sched_switch:k", &id), 0);
	assert_int_equal(id, 372);
	assert_int_equal(perftrace_event_id(&q, "sched:sched_wakeup", &id), -ENOENT);
	assert_int_equal(perftrace_event_id(&q, "sched_switch", &id), -ENOENT);
	profile_release(&q);

	/* cut anywhere before the formats end: refused, nothing added */
	for (n = 0; n < b.len; n++) {
		int ret;

		profile_init(&q);
		ret = perftrace_parse(b.data, n, &q);
		if (ret) {
			assert_int_equal(ret, -EBADMSG);
			assert_int_equal(q.nr_blobs, 0);
		} else {
			/* cut in the kallsyms or later: the formats are there */
			assert_non_null(profile_find_blob(&q, PROF_BLOB_TRACE_FORMAT, UINT32_MAX));
		}
		profile_release(&q);
	}
	/* big-endian data, 4-byte longs */
	for (i = 0; i < 2; i++) {
		uint8_t *m = malloc(b.len);

		memcpy(m, b.data, b.len);
		m[14 + i] = i ? 4 : 1;
		profile_init(&q);
		assert_int_equal(perftrace_parse(m, b.len, &q), -EPROTONOSUPPORT);
		profile_release(&q);
		free(m);
	}
	zbuf_reset(&b);
	profile_release(&p);
	profile_init(&p);
	assert_int_equal(perftrace_write(&p, &b), -ENOENT);
	profile_release(&p);
	zbuf_release(&b);
}

/* A sched_switch record: sleep (1234, S) to swapper/1. */
static size_t switch_record(uint8_t *r)
{
	uint16_t type = 372;
	int32_t pid = 1234, prio = 120, zero = 0;
	int64_t state = 1;

	memset(r, 0, 64);
	memcpy(r, &type, 2);
	memcpy(r + 4, &pid, 4);
	memcpy(r + 8, "sleep", 5);
	memcpy(r + 24, &pid, 4);
	memcpy(r + 28, &prio, 4);
	memcpy(r + 32, &state, 8);
	memcpy(r + 40, "swapper/1", 9);
	memcpy(r + 56, &zero, 4);
	memcpy(r + 60, &prio, 4);
	return 64;
}

static void test_print(void **state)
{
	struct tracefmt *t = NULL;
	struct profile p;
	struct zbuf out;
	uint8_t r[64];
	size_t n;

	(void)state;
	trace_profile(&p);
	assert_int_equal(profile_add_blob(&p, PROF_BLOB_TRACE_FORMAT, 0, 0, far_field,
					  sizeof(far_field) - 1),
			 0);
	if (!tracefmt_available()) {
		assert_int_equal(tracefmt_new(&p, &t), -ENOTSUP);
		profile_release(&p);
		skip();
	}
	assert_int_equal(tracefmt_new(&p, &t), 0);
	assert_int_equal(tracefmt_nr_events(t), 1);
	assert_int_equal(tracefmt_nr_bad(t), 1); /* far_field */
	zbuf_init(&out);
	n = switch_record(r);
	assert_int_equal(tracefmt_print(t, 1, r, n, &out), 0);
	zbuf_put_u8(&out, 0);
	assert_string_equal((char *)out.data,
			    "prev_comm=sleep prev_pid=1234 prev_prio=120 prev_state=S ==> "
			    "next_comm=swapper/1 next_pid=0 next_prio=120");
	/* control characters in a comm are not for a terminal */
	r[9] = '\033';
	zbuf_reset(&out);
	assert_int_equal(tracefmt_print(t, 1, r, n, &out), 0);
	assert_memory_equal(out.data, "prev_comm=s?eep", 15);
	/* cut short: the rest reads as zeros, and the next record is whole again */
	zbuf_reset(&out);
	assert_int_equal(tracefmt_print(t, 1, r, 30, &out), 0);
	zbuf_put_u8(&out, 0);
	assert_non_null(strstr((char *)out.data, "prev_state=R ==> next_comm= next_pid=0"));
	/* no format for its type */
	r[0] = 9;
	zbuf_reset(&out);
	assert_int_equal(tracefmt_print(t, 1, r, n, &out), -ENOENT);
	assert_int_equal(tracefmt_print(t, 1, r, 1, &out), -ENOENT);
	assert_int_equal(out.len, 0);
	tracefmt_free(t);
	zbuf_release(&out);
	profile_release(&p);
	profile_init(&p);
	assert_int_equal(tracefmt_new(&p, &t), -ENOENT);
	profile_release(&p);
}

/* libtraceevent trusts a __print_hex() length read from the record: a
 * hostile one (4 GiB) gets the fields raw, never a read past the record. */
static void test_print_hostile_length(void **state)
{
	struct tracefmt *t = NULL;
	struct profile p;
	struct zbuf out;
	uint8_t r[16] = {11, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};

	(void)state;
	trace_profile(&p);
	assert_int_equal(
		profile_add_blob(&p, PROF_BLOB_TRACE_FORMAT, 0, 0, hex_len, sizeof(hex_len) - 1),
		0);
	if (!tracefmt_available()) {
		profile_release(&p);
		skip();
	}
	assert_int_equal(tracefmt_new(&p, &t), 0);
	zbuf_init(&out);
	assert_int_equal(tracefmt_print(t, 0, r, sizeof(r), &out), 0);
	zbuf_put_u8(&out, 0);
	assert_non_null(strstr((char *)out.data, "len=4 buf=01 02 03 04 arr=513 1027"));
	memset(r + 4, 0xff, 4); /* len = 4294967295 */
	zbuf_reset(&out);
	assert_int_equal(tracefmt_print(t, 0, r, sizeof(r), &out), 0);
	zbuf_put_u8(&out, 0);
	assert_non_null(strstr((char *)out.data, "len=4294967295"));
	assert_null(strstr((char *)out.data, "buf=01 02 03 04 05 06 07 08 00"));
	tracefmt_free(t);
	zbuf_release(&out);
	profile_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_print_hostile_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
