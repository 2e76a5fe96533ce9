// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of record/target.c: -e/-F/-c into events, -p/-t/-C into
 * lists, the privilege probe, and the sampler options that follow. */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "bpf/perfev.h"
#include "bpf/sampler.h"
#include "libprof/fileio.h"
#include "libprof/log.h"
#include "record/target.h"

/* The messages the target says, the last of each level. */
static char said[5][1024];
static int nr_said;

static void capture(enum zt_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	snprintf(said[level], sizeof(said[level]), "%s", msg);
	nr_said++;
}

static int setup(void **state)
{
	(void)state;
	memset(said, 0, sizeof(said));
	nr_said = 0;
	zt_log_set(capture, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	zt_log_set(NULL, NULL);
	return 0;
}

static void target_zero(struct target *t, int multi)
{
	memset(t, 0, sizeof(*t));
	t->event = "cycles";
	t->multi = multi;
}

/* perf_event_max_sample_rate, which bounds -F */
static uint64_t max_rate(void)
{
	char *d;
	size_t n;
	uint64_t v = 100000;

	if (!zt_read_file("/proc/sys/kernel/perf_event_max_sample_rate", 4096, &d, &n)) {
		v = strtoull(d, NULL, 10);
		free(d);
	}
	return v;
}

static void test_default_event(void **state)
{
	struct target t;
	uint64_t want = max_rate() < 4000 ? max_rate() : 4000;

	(void)state;
	target_zero(&t, 1);
	assert_int_equal(target_parse_event(&t), 0);
	assert_int_equal(t.nr_evs, 1);
	assert_string_equal(t.ev->name, "cycles");
	assert_int_equal(t.ev->type, PERF_TYPE_HARDWARE);
	assert_int_equal(t.freq, want);
	assert_true(target_bpf_events(&t));
	assert_int_equal(nr_said, 0);
	target_release(&t);
}

static void test_events_and_modifiers(void **state)
{
	struct perfev_event pe[EVSEL_MAX];
	struct target t;

	(void)state;
	target_zero(&t, 1);
	t.event_args[t.nr_event_args++] = "cpu-clock:u,page-faults";
	t.event_args[t.nr_event_args++] = "sched:sched_switch";
	t.filter_args[1] = "prev_pid != 0";
	t.freq_str = "99";
	assert_int_equal(target_parse_event(&t), 0);
	assert_int_equal(t.nr_evs, 3);
	assert_string_equal(t.ev->name, "cpu-clock:u");
	assert_int_equal(t.ev->type, PERF_TYPE_SOFTWARE);
	assert_int_equal(t.ev->config, PERF_COUNT_SW_CPU_CLOCK);
	assert_true(t.evs[0].exclude_kernel);
	assert_false(t.evs[0].exclude_user);
	assert_string_equal(t.evs[1].name, "page-faults");
	assert_true(evsel_is_tracepoint(&t.evs[2]));
	/* the filter goes with the tracepoint it followed */
	assert_null(t.filters[0]);
	assert_null(t.filters[1]);
	assert_string_equal(t.filters[2], "prev_pid != 0");
	assert_int_equal(t.freq, 99);
	/* several events: not for the BPF sampler */
	assert_false(target_bpf_events(&t));
	/* perf_event: sampled at -F, the tracepoint every event, with its raw record */
	assert_int_equal(target_perfev_events(&t, pe), 3);
	assert_true(pe[0].freq);
	assert_int_equal(pe[0].freq_or_period, 99);
	assert_true(pe[0].exclude_kernel);
	assert_false(pe[2].freq);
	assert_int_equal(pe[2].freq_or_period, 1);
	assert_true(pe[2].raw);
	assert_string_equal(pe[2].filter, "prev_pid != 0");
	assert_null(pe[1].filter);
	target_release(&t);
}

static void test_all_user_kernel(void **state)
{
	struct target t;

	(void)state;
	target_zero(&t, 1);
	t.event_args[t.nr_event_args++] = "cycles:u";
	t.all_kernel = 1;
	assert_int_equal(target_parse_event(&t), 0);
	/* --all-kernel overrides the modifier, as perf's */
	assert_true(t.evs[0].exclude_user);
	assert_false(t.evs[0].exclude_kernel);
	/* kernel only: not for the BPF sampler */
	assert_false(target_bpf_events(&t));

	target_zero(&t, 1);
	t.all_user = t.all_kernel = 1;
	assert_int_equal(target_parse_event(&t), -1);
	assert_string_equal(said[ZT_LOG_ERROR],
			    "--all-user and --all-kernel: give one of them (or neither: both)");
}

static void test_refused(void **state)
{
	struct target t;

	(void)state;
	target_zero(&t, 1);
	t.event = "bogus";
	assert_int_equal(target_parse_event(&t), -1);
	assert_true(!strncmp(said[ZT_LOG_ERROR], "-e: unknown event 'bogus'", 25));

	target_zero(&t, 1);
	t.event = "dummy";
	assert_int_equal(target_parse_event(&t), -1);
	assert_true(!strncmp(said[ZT_LOG_ERROR], "-e dummy: the side-band carrier", 31));

	target_zero(&t, 1);
	t.freq_str = "abc";
	assert_int_equal(target_parse_event(&t), -1);
	assert_string_equal(said[ZT_LOG_ERROR],
			    "bad frequency 'abc': give a number of Hz or 'max'");

	target_zero(&t, 1);
	t.freq_str = "0";
	assert_int_equal(target_parse_event(&t), -1);

	target_zero(&t, 1);
	t.freq_str = "100";
	t.period = 1000;
	assert_int_equal(target_parse_event(&t), -1);
	assert_string_equal(said[ZT_LOG_ERROR], "-F and -c cannot be used together");

	/* zt top (multi 0): one plain event */
	target_zero(&t, 0);
	t.event_args[t.nr_event_args++] = "cpu-clock:u";
	assert_int_equal(target_parse_event(&t), -1);
	assert_true(strstr(said[ZT_LOG_ERROR], "give one software or hardware event") != NULL);
}

static void test_rate(void **state)
{
	struct sampler_opts so = { 0 };
	struct target t;
	uint64_t max = max_rate();
	char big[32];

	(void)state;
	/* above the kernel's maximum: the maximum, with a warning */
	target_zero(&t, 1);
	snprintf(big, sizeof(big), "%llu", (unsigned long long)max + 1);
	t.freq_str = big;
	assert_int_equal(target_parse_event(&t), 0);
	assert_int_equal(t.freq, max);
	assert_true(strstr(said[ZT_LOG_WARN], "(kernel.perf_event_max_sample_rate)") != NULL);

	target_zero(&t, 1);
	t.freq_str = "max";
	assert_int_equal(target_parse_event(&t), 0);
	assert_int_equal(t.freq, max);

	/* -c: a period, no frequency */
	target_zero(&t, 1);
	t.event = "cpu-clock";
	t.period = 250000;
	assert_int_equal(target_parse_event(&t), 0);
	assert_int_equal(t.freq, 0);
	t.cpu_list = "0";
	assert_int_equal(target_parse_ids(&t), 0);
	target_sampler_opts(&t, &so);
	assert_false(so.freq);
	assert_int_equal(so.freq_or_period, 250000);
	assert_int_equal(so.nr_cpus, 1);
	assert_true(so.follow_children);
	/* a power of two from 2 to 64 MB */
	assert_true(so.ringbuf_bytes >= (2u << 20) && so.ringbuf_bytes <= (64u << 20));
	assert_int_equal(so.ringbuf_bytes & (so.ringbuf_bytes - 1), 0);
	target_release(&t);
}

static void test_filter_note(void **state)
{
	struct target t;

	(void)state;
	target_zero(&t, 1);
	t.event_args[t.nr_event_args++] = "cycles";
	t.filter_args[0] = "x";
	assert_int_equal(target_parse_event(&t), 0);
	assert_null(t.filters[0]);
	assert_string_equal(said[ZT_LOG_NOTE],
			    "--filter 'x' has no effect on 'cycles': only tracepoints take a "
			    "filter here (-e sched:sched_switch --filter 'prev_pid != 0')");
}

static void *idle_thread(void *arg)
{
	int *tid = arg;

	*tid = (int)syscall(SYS_gettid);
	pause();
	return NULL;
}

static void test_ids(void **state)
{
	struct target t;
	char list[64], msg[64], *d;
	long pid_max = 4194304;
	size_t n;
	pthread_t th;
	volatile int tid = 0;

	(void)state;
	if (!zt_read_file("/proc/sys/kernel/pid_max", 64, &d, &n)) {
		pid_max = atol(d);
		free(d);
	}
	target_zero(&t, 1);
	snprintf(list, sizeof(list), "%d,1", (int)getpid());
	t.pids = list;
	assert_int_equal(target_parse_ids(&t), 0);
	assert_int_equal(t.nr_pids, 2);
	assert_int_equal(t.pid_list[0], getpid());
	assert_int_equal(t.pid_list[1], 1);
	assert_true(target_alive(&t));
	/* no -C: the online CPUs */
	assert_int_equal(t.nr_cpus, sysconf(_SC_NPROCESSORS_ONLN));
	target_release(&t);
	assert_null(t.pid_list);

	target_zero(&t, 1);
	t.pids = "abc";
	assert_int_equal(target_parse_ids(&t), -EINVAL);
	assert_string_equal(said[ZT_LOG_ERROR], "bad process id list 'abc'");

	target_zero(&t, 1);
	t.tids = "1,x";
	assert_int_equal(target_parse_ids(&t), -EINVAL);
	assert_string_equal(said[ZT_LOG_ERROR], "bad thread id list '1,x'");

	/* past pid_max: no such process */
	target_zero(&t, 1);
	snprintf(list, sizeof(list), "%ld", pid_max + 1);
	t.pids = list;
	assert_int_equal(target_parse_ids(&t), -ESRCH);
	snprintf(msg, sizeof(msg), "process %ld does not exist", pid_max + 1);
	assert_string_equal(said[ZT_LOG_ERROR], msg);
	target_release(&t);

	target_zero(&t, 1);
	t.cpu_list = "0-x";
	assert_int_equal(target_parse_ids(&t), -EINVAL);
	assert_string_equal(said[ZT_LOG_ERROR], "bad CPU list '0-x'");

	target_zero(&t, 1);
	snprintf(list, sizeof(list), "%ld", sysconf(_SC_NPROCESSORS_CONF));
	t.cpu_list = list;
	assert_int_equal(target_parse_ids(&t), -EINVAL);
	assert_true(strstr(said[ZT_LOG_ERROR], ": no such CPU") != NULL);

	target_zero(&t, 1);
	t.cpu_list = "0";
	assert_int_equal(target_parse_ids(&t), 0);
	assert_int_equal(t.nr_cpus, 1);
	assert_int_equal(t.cpus[0], 0);
	target_release(&t);

	/* -t: a thread of this process; its thread group is this process */
	assert_int_equal(pthread_create(&th, NULL, idle_thread, (void *)&tid), 0);
	while (!tid)
		usleep(1000);
	target_zero(&t, 1);
	snprintf(list, sizeof(list), "%d", tid);
	t.tids = list;
	assert_int_equal(target_parse_ids(&t), 0);
	assert_int_equal(t.nr_tids, 1);
	assert_int_equal(t.tid_list[0], tid);
	assert_true(target_alive(&t));
	assert_int_equal(target_tgid(tid), getpid());
	target_release(&t);
	pthread_cancel(th);
	pthread_join(th, NULL);
}

static void test_privileges(void **state)
{
	const char *missing = "unset";
	bool ok = target_privileged(&missing);

	(void)state;
	if (geteuid() == 0) {
		/* root needs nothing more */
		assert_true(ok);
		assert_string_equal(missing, "");
	} else if (!ok) {
		assert_true(!strcmp(missing, "CAP_BPF and CAP_PERFMON") ||
			    !strcmp(missing, "CAP_BPF") || !strcmp(missing, "CAP_PERFMON"));
	}
	target_privileges_error("system-wide recording (-a)", "CAP_BPF");
	assert_string_equal(said[ZT_LOG_ERROR],
			    "system-wide recording (-a) needs root or CAP_BPF, which this process "
			    "does not have: run it with sudo, or grant them with 'sudo setcap "
			    "cap_bpf,cap_perfmon+ep $(command -v zt)'");
}

static void test_btf(void **state)
{
	(void)state;
	setenv("ZT_BTF_VMLINUX", "/nonexistent/vmlinux", 1);
	assert_false(target_bpf_loadable());
	assert_true(strstr(said[ZT_LOG_WARN], "'/nonexistent/vmlinux' is missing") != NULL);
	setenv("ZT_BTF_VMLINUX", "/proc/self/exe", 1);
	assert_true(target_bpf_loadable());
	unsetenv("ZT_BTF_VMLINUX");
}

static void test_open_error(void **state)
{
	struct target t;

	(void)state;
	target_zero(&t, 1);
	assert_int_equal(target_parse_event(&t), 0);
	target_open_error(&t, -ESRCH, "", "record");
	assert_string_equal(said[ZT_LOG_ERROR], "the process to record no longer exists");
	target_open_error(&t, -EIO, "the ring is gone", "record");
	assert_string_equal(said[ZT_LOG_ERROR], "cannot start sampling: the ring is gone");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_default_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_and_modifiers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_user_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_note, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_privileges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_btf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_error, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
