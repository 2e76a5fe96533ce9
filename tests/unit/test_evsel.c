// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of libprof/evsel.c: perf's -e syntax. */
#include <errno.h>
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

#include "libprof/evsel.h"

static void test_names(void **state)
{
	struct evsel ev[EVSEL_MAX];
	char err[512];
	size_t nr = 0;

	(void)state;
	assert_int_equal(evsel_parse("cpu-clock,page-faults", ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(evsel_parse("cs", ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(evsel_parse("cycles:u", ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(evsel_parse("sched:sched_switch", ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(evsel_parse("page-faults:k", ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(evsel_parse("cpu-clock:uk", ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(evsel_parse("syscalls:sys_enter_read:u", ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(nr, 8);
	assert_string_equal(ev[0].name, "cpu-clock");
	assert_int_equal(ev[0].type, EVSEL_TYPE_SOFTWARE);
	assert_int_equal(ev[0].config, 0);
	assert_int_equal(ev[1].config, 2);
	assert_string_equal(ev[2].name, "cs");
	assert_int_equal(ev[2].config, 3);
	assert_string_equal(ev[3].name, "cycles:u");
	assert_string_equal(ev[3].event, "cycles");
	assert_int_equal(ev[3].type, EVSEL_TYPE_HARDWARE);
	assert_true(ev[3].exclude_kernel);
	assert_false(ev[3].exclude_user);
	assert_true(evsel_is_tracepoint(&ev[4]));
	assert_string_equal(ev[4].event, "sched:sched_switch");
	assert_false(ev[4].modifiers);
	assert_true(ev[5].exclude_user);
	assert_false(ev[5].exclude_kernel);
	assert_false(ev[6].exclude_user);
	assert_false(ev[6].exclude_kernel);
	assert_true(ev[6].modifiers);
	assert_string_equal(ev[7].event, "syscalls:sys_enter_read");
	assert_true(ev[7].exclude_kernel);
	assert_string_equal(evsel_builtin_name(EVSEL_TYPE_SOFTWARE, 3), "context-switches");
	assert_string_equal(evsel_builtin_name(EVSEL_TYPE_HARDWARE, 1), "instructions");
	assert_null(evsel_builtin_name(EVSEL_TYPE_TRACEPOINT, 1));
}

static void test_refused(void **state)
{
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{"bogus", "unknown event 'bogus'"},
		{"", "empty event name"},
		{"cpu-clock,", "empty event name"},
		{"cpu-clock:x", "bad modifier 'x'"},
		{"cpu-clock:", "empty modifier"},
		{"cycles:pppp", "bad modifier"},
		{"cpu/cycles/", "PMU events"},
		{"{cycles,instructions}", "groups"},
		{"sched:*", "wildcards are not supported"},
		{"a b:c", "unknown event"},
	};
	struct evsel ev[EVSEL_MAX];
	char err[512], many[EVSEL_MAX * 12 + 16] = "";
	size_t i, nr;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nr = 0;
		assert_int_equal(evsel_parse(bad[i].spec, ev, &nr, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': '%s' does not say '%s'", bad[i].spec, err, bad[i].msg);
	}
	for (i = 0; i <= EVSEL_MAX; i++)
		strcat(many, i ? ",cs" : "cs");
	nr = 0;
	assert_int_equal(evsel_parse(many, ev, &nr, err, sizeof(err)), -E2BIG);
	assert_int_equal(nr, EVSEL_MAX);
}

/* Tracepoint ids from a tracefs tree. */
static void test_tracepoint_id(void **state)
{
	char root[] = "/tmp/zt-evsel.XXXXXX", p[256];
	struct evsel ev[2];
	char err[256];
	size_t nr = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/events", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/events/sched", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/events/sched/sched_switch", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/events/sched/sched_switch/id", root);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("372\n", f);
	fclose(f);
	assert_int_equal(evsel_parse("sched:sched_switch,sched:nosuch", ev, &nr, err, sizeof(err)),
			 0);
	assert_int_equal(evsel_tracepoint_id(&ev[0], root), 0);
	assert_int_equal(ev[0].config, 372);
	assert_int_equal(evsel_tracepoint_id(&ev[1], root), -ENOENT);
	unlink(p);
	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	assert_int_equal(system(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_tracepoint_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
