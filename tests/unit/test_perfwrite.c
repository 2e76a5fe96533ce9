// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of formats/perfwrite.c: a real `perf record` of a workload
 * compiled here is read, written back, and opened by the real perf report
 * and perf script; the written file read back by formats/perfdata.c.
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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "formats/perfdata.h"
#include "formats/perfwrite.h"
#include "tests/unit/testutil.h"

/*
 * The reference recording uses -B --buildid-mmap: with -B alone, the kernel
 * here (6.18) flags its MMAP2 records PERF_RECORD_MISC_MMAP_BUILD_ID with a
 * build_id_size of 254 (the maj/min/ino bytes), and perf 6.1 then dies on
 * the file ("assertion failed at util/build-id.c:1010") whenever it reads
 * it; without -B, perf 6.1 sometimes dies in its build-id pass at the end of
 * perf record. --buildid-mmap makes the kernel send real build ids.
 */
static char dir[64];

static const char wl_src[] =
	"#include <stdlib.h>\n"
	"static volatile unsigned long sink;\n"
	"__attribute__((noinline)) void pw_hot(void)\n"
	"{\n"
	"	volatile unsigned long x = 0;\n"
	"	for (unsigned long i = 0; i < 200000; i++)\n"
	"		x = x * 3 + i;\n"
	"	sink = x;\n"
	"}\n"
	"__attribute__((noinline)) void pw_mid(void) { pw_hot(); }\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	long n = argc > 1 ? atol(argv[1]) : 1000;\n"
	"	for (long i = 0; i < n; i++)\n"
	"		pw_mid();\n"
	"	return 0;\n"
	"}\n";

/* Output of a shell command into out (NUL-terminated); its exit status.
 * perf 6.1 sometimes crashes (build-id.c assertion): retried up to 5 times. */
__attribute__((format(printf, 3, 4)))
static int capture(char *out, size_t n, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st = -1, i;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	for (i = 0; i < 5; i++) {
		FILE *f = popen(cmd, "r");
		size_t len = 0, k;

		if (!f)
			return -1;
		while (len < n - 1 && (k = fread(out + len, 1, n - 1 - len, f)) > 0)
			len += k;
		out[len] = 0;
		st = pclose(f);
		if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
	}
	return st;
}

static int group_setup(void **state)
{
	char path[128];
	FILE *f;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/zt-perfwrite-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/wl.c", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(wl_src, f);
	fclose(f);
	if (run("cd %s && gcc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer "
		"-fno-inline -o wl wl.c", dir))
		return -1;
	for (i = 0; i < 5; i++)
		if (!run("cd %s && perf record -q -B --buildid-mmap -e cpu-clock -F 999 -g "
			 "-o orig.data -- ./wl 3000 2>>log >/dev/null", dir) &&
		    !run("perf report -i %s/orig.data --stdio >/dev/null 2>&1", dir))
			return 0;
	fprintf(stderr, "test_perfwrite: perf record failed: see %s/log\n", dir);
	return -1;
}

static int group_teardown(void **state)
{
	(void)state;
	if (dir[0] && !getenv("ZT_KEEP"))
		run("rm -rf %s", dir);
	return 0;
}

static void write_file(const struct profile *p, const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(perfwrite_fd(p, fd), 0);
	assert_int_equal(close(fd), 0);
}

static void read_file(struct profile *p, const char *name, struct perfdata_info *info)
{
	char path[128];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	profile_init(p);
	memset(info, 0, sizeof(*info));
	ret = perfdata_read_file(path, p, NULL, info);
	if (ret)
		fprintf(stderr, "%s: %s\n", name, info->msg);
	assert_int_equal(ret, 0);
	assert_false(info->truncated);
	assert_int_equal(info->unknown, 0);
	assert_int_equal(info->bad_features, 0);
}

/* the first three rows of perf report (percent, comm, dso, symbol) */
static void report_rows(const char *name, char *out, size_t n)
{
	assert_int_equal(capture(out, n, "perf report -i %s/%s --stdio --no-children 2>/dev/null "
				 "| grep -E '^ +[0-9]+\\.[0-9]+%%' | head -3", dir, name), 0);
}

static void test_perf_opens(void **state)
{
	static char a[1 << 16], b[1 << 16];
	struct perfdata_info info;
	struct profile p;

	(void)state;
	read_file(&p, "orig.data", &info);
	assert_true(p.nr_samples > 50);
	/* perf 6.1 synthesizes the kernel's map as an MMAP2 of prot 0, which the
	 * reader leaves out: the writer then makes it from kallsyms' _text */
	if (!profile_find_blob(&p, PROF_BLOB_KALLSYMS, UINT32_MAX)) {
		static char ks[512];

		assert_int_equal(capture(ks, sizeof(ks), "%s", "grep -wE '_text|_etext' /proc/kallsyms"),
				 0);
		assert_int_equal(profile_add_blob(&p, PROF_BLOB_KALLSYMS, 0, 0, ks, strlen(ks)), 0);
	}
	write_file(&p, "out.data");
	profile_release(&p);

	/* perf report: opens it, same top rows, the hot function first */
	assert_int_equal(capture(a, sizeof(a), "perf report -i %s/out.data --stdio --no-children "
				 ">/dev/null 2>&1", dir), 0);
	report_rows("orig.data", a, sizeof(a));
	report_rows("out.data", b, sizeof(b));
	assert_non_null(strstr(a, "pw_hot"));
	assert_true(strstr(a, "pw_hot") < strchr(a, '\n'));
	assert_string_equal(a, b);

	/* perf script: same number of samples, same first lines */
	assert_int_equal(capture(a, sizeof(a), "perf script -i %s/orig.data 2>/dev/null | "
				 "grep -c '^[^[:space:]]'", dir), 0);
	assert_int_equal(capture(b, sizeof(b), "perf script -i %s/out.data 2>/dev/null | "
				 "grep -c '^[^[:space:]]'", dir), 0);
	assert_true(atoi(a) > 50);
	assert_string_equal(a, b);
	assert_int_equal(capture(a, sizeof(a), "perf script -i %s/orig.data 2>/dev/null | head -50",
				 dir), 0);
	assert_int_equal(capture(b, sizeof(b), "perf script -i %s/out.data 2>/dev/null | head -50",
				 dir), 0);
	assert_string_equal(a, b);
	/* and the whole of it */
	assert_int_equal(capture(a, sizeof(a), "cd %s && perf script -i orig.data >orig.txt "
				 "2>/dev/null && perf script -i out.data >out.txt 2>/dev/null && "
				 "cmp orig.txt out.txt", dir), 0);
}

static int cmp_sample(const void *x, const void *y)
{
	const struct prof_sample *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static void test_roundtrip(void **state)
{
	struct perfdata_info i1, i2;
	struct profile p, q;
	size_t i;

	(void)state;
	read_file(&p, "orig.data", &i1);
	write_file(&p, "rt.data");
	read_file(&q, "rt.data", &i2);

	assert_int_equal(q.nr_samples, p.nr_samples);
	/* the writer puts samples in time order; perf writes them per ring,
	 * mostly but not always in time order: compare both sorted */
	qsort(p.samples, p.nr_samples, sizeof(*p.samples), cmp_sample);
	qsort(q.samples, q.nr_samples, sizeof(*q.samples), cmp_sample);
	for (i = 0; i < p.nr_samples; i++) {
		const struct prof_sample *s = &p.samples[i], *t = &q.samples[i];
		const struct prof_stack *a = &p.stacks[s->stack], *b = &q.stacks[t->stack];

		assert_int_equal(s->ts, t->ts);
		assert_int_equal(s->weight, t->weight);
		assert_int_equal(s->pid, t->pid);
		assert_int_equal(s->tid, t->tid);
		assert_int_equal(s->cpu, t->cpu);
		assert_int_equal(a->nk, b->nk);
		assert_int_equal(a->nu, b->nu);
		assert_memory_equal(profile_stack_ips(&p, s->stack), profile_stack_ips(&q, t->stack),
				    (a->nk + a->nu) * sizeof(uint64_t));
	}
	assert_int_equal(q.nr_mmaps, p.nr_mmaps);
	for (i = 0; i < p.nr_mmaps; i++) {
		const struct prof_mmap *a = &p.mmaps[i];
		size_t j;

		/* the order may differ between equal times: find it */
		for (j = 0; j < q.nr_mmaps; j++) {
			const struct prof_mmap *b = &q.mmaps[j];

			if (a->ts == b->ts && a->pid == b->pid && a->start == b->start &&
			    a->len == b->len && a->pgoff == b->pgoff &&
			    !strcmp(a->path, b->path) && a->build_id.len == b->build_id.len &&
			    !memcmp(a->build_id.data, b->build_id.data, a->build_id.len))
				break;
		}
		assert_true(j < q.nr_mmaps);
	}
	assert_int_equal(q.nr_tasks, p.nr_tasks);
	for (i = 0; i < p.nr_tasks; i++) {
		const struct prof_task *a = &p.tasks[i];
		size_t j;

		for (j = 0; j < q.nr_tasks; j++)
			if (!memcmp(a, &q.tasks[j], sizeof(*a)))
				break;
		assert_true(j < q.nr_tasks);
	}
	assert_string_equal(profile_get_meta(&q, "event"), profile_get_meta(&p, "event"));
	assert_string_equal(profile_get_meta(&q, "freq"), profile_get_meta(&p, "freq"));
	assert_string_equal(profile_get_meta(&q, "hostname"), profile_get_meta(&p, "hostname"));
	assert_string_equal(profile_get_meta(&q, "os_release"),
			    profile_get_meta(&p, "os_release"));
	assert_string_equal(profile_get_meta(&q, "nr_cpus"), profile_get_meta(&p, "nr_cpus"));
	assert_string_equal(profile_get_meta(&q, "cmdline"), profile_get_meta(&p, "cmdline"));
	assert_string_equal(profile_get_meta(&q, "time_start"),
			    profile_get_meta(&p, "time_start"));
	assert_string_equal(profile_get_meta(&q, "time_end"), profile_get_meta(&p, "time_end"));
	assert_string_equal(profile_get_meta(&q, "callchain"), "fp");
	assert_string_equal(profile_get_meta(&q, "arch"), "x86_64");
	profile_release(&p);
	profile_release(&q);
}

/* A profile made by hand, as the zt.data reader would: no kernel mapping
 * (the kallsyms blob's _text gives one), build ids, unsorted records. */
static void test_synthetic(void **state)
{
	static const char ks[] = "ffffffff81000000 T _stext\nffffffff81000000 T _text\n"
				 "ffffffff81001000 T do_thing\nffffffff81e00000 T _etext\n";
	static const uint8_t kbid[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					  11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	struct prof_mmap m = { 0 };
	struct prof_task t = { 0 };
	struct prof_sample s = { 0 };
	struct perfdata_info info;
	struct profile p, q;
	uint64_t ips[4] = { 0xffffffff81001010ull, 0x401010, 0x401100, 0x401200 };
	char out[4096];
	size_t i;

	(void)state;
	profile_init(&p);
	assert_int_equal(profile_set_meta(&p, "event", "cycles:u"), 0);
	assert_int_equal(profile_set_meta(&p, "period", "100000"), 0);
	assert_int_equal(profile_set_meta(&p, "hostname", "h"), 0);
	assert_int_equal(profile_add_blob(&p, PROF_BLOB_KALLSYMS, 0, 0, ks, sizeof(ks) - 1), 0);
	assert_int_equal(profile_add_blob(&p, PROF_BLOB_KERNEL_BUILD_ID, 0, 0, kbid, 20), 0);
	/* the sample first: the writer sorts by time */
	assert_int_equal(profile_intern_stack(&p, ips, 1, 3, &s.stack), 0);
	s.ts = 3000;
	s.weight = 100000;
	s.pid = s.tid = 42;
	s.cpu = 1;
	assert_int_equal(profile_add_sample(&p, &s), 0);
	s.ts = 2500;
	assert_int_equal(profile_intern_stack(&p, ips + 1, 0, 3, &s.stack), 0);
	assert_int_equal(profile_add_sample(&p, &s), 0);
	m.ts = 2000;
	m.pid = m.tid = 42;
	m.start = 0x400000;
	m.len = 0x2000;
	m.prot = 5;
	m.flags = 2;
	m.build_id.len = 20;
	memset(m.build_id.data, 0xab, 20);
	m.path = (char *)"/opt/app/bin/app";
	assert_int_equal(profile_add_mmap(&p, &m), 0);
	t.ts = 1000;
	t.kind = PROF_TASK_EXEC;
	t.pid = t.tid = 42;
	strcpy(t.comm, "app");
	assert_int_equal(profile_add_task(&p, &t), 0);
	t.ts = 500;
	t.kind = PROF_TASK_FORK;
	t.ppid = t.ptid = 1;
	t.comm[0] = 0;
	assert_int_equal(profile_add_task(&p, &t), 0);
	write_file(&p, "syn.data");

	read_file(&q, "syn.data", &info);
	assert_int_equal(q.nr_samples, 2);
	assert_int_equal(q.samples[0].ts, 2500);
	assert_int_equal(q.samples[1].ts, 3000);
	assert_int_equal(q.samples[1].cpu, 1);
	assert_int_equal(q.stacks[q.samples[1].stack].nk, 1);
	assert_int_equal(q.stacks[q.samples[1].stack].nu, 3);
	assert_memory_equal(profile_stack_ips(&q, q.samples[1].stack), ips, sizeof(ips));
	assert_int_equal(q.nr_tasks, 2);
	assert_int_equal(q.tasks[0].kind, PROF_TASK_FORK);
	assert_int_equal(q.tasks[1].kind, PROF_TASK_EXEC);
	assert_string_equal(q.tasks[1].comm, "app");
	assert_int_equal(q.nr_mmaps, 2);
	assert_int_equal(q.mmaps[0].pid, ZT_PID_KERNEL);
	assert_string_equal(q.mmaps[0].path, "[kernel.kallsyms]");
	assert_int_equal(q.mmaps[0].start, 0xffffffff81000000ull);
	assert_int_equal(q.mmaps[0].pgoff, 0xffffffff81000000ull);
	assert_int_equal(q.mmaps[0].len, 0xe00000);
	assert_string_equal(q.mmaps[1].path, "/opt/app/bin/app");
	assert_int_equal(q.mmaps[1].build_id.len, 20);
	assert_memory_equal(q.mmaps[1].build_id.data, m.build_id.data, 20);
	assert_non_null(profile_find_blob(&q, PROF_BLOB_KERNEL_BUILD_ID, UINT32_MAX));
	assert_memory_equal(profile_find_blob(&q, PROF_BLOB_KERNEL_BUILD_ID, UINT32_MAX)->data,
			    kbid, 20);
	assert_string_equal(profile_get_meta(&q, "event"), "cycles:u");
	assert_string_equal(profile_get_meta(&q, "period"), "100000");
	assert_string_equal(profile_get_meta(&q, "hostname"), "h");
	assert_string_equal(profile_get_meta(&q, "time_start"), "2500");
	assert_string_equal(profile_get_meta(&q, "time_end"), "3000");
	for (i = 0; i < q.nr_mmaps; i++)
		assert_true(q.mmaps[i].path[0]);

	/* perf opens it too, and names the event as written */
	assert_int_equal(capture(out, sizeof(out), "perf script -i %s/syn.data 2>/dev/null", dir),
			 0);
	assert_non_null(strstr(out, "app"));
	assert_non_null(strstr(out, "cycles:u"));
	assert_int_equal(capture(out, sizeof(out), "perf buildid-list -i %s/syn.data 2>/dev/null",
				 dir), 0);
	assert_non_null(strstr(out, "0102030405060708090a0b0c0d0e0f1011121314 [kernel.kallsyms]"));
	assert_non_null(strstr(out, "abababababababababababababababababababab /opt/app/bin/app"));
	profile_release(&p);
	profile_release(&q);
}

/* A recording without call chains (perf record without -g): samples
 * without PERF_SAMPLE_CALLCHAIN, their own address only; perf reads it. */
static void test_no_callchain(void **state)
{
	static const uint64_t ku = 0xffffffff81001010ull, u = 0x401010;
	struct prof_mmap m = {0};
	struct prof_sample s = {0};
	struct perfdata_info info;
	struct profile p, q;
	char out[4096];

	(void)state;
	profile_init(&p);
	assert_int_equal(profile_set_meta(&p, "callchain", "none"), 0);
	assert_int_equal(profile_intern_stack(&p, &u, 0, 1, &s.stack), 0);
	s.ts = 2000;
	s.weight = 1000;
	s.pid = s.tid = 42;
	s.cpu = UINT32_MAX;
	assert_int_equal(profile_add_sample(&p, &s), 0);
	assert_int_equal(profile_intern_stack(&p, &ku, 1, 0, &s.stack), 0);
	s.ts = 3000;
	assert_int_equal(profile_add_sample(&p, &s), 0);
	m.ts = 1000;
	m.pid = m.tid = 42;
	m.start = 0x400000;
	m.len = 0x2000;
	m.path = (char *)"/opt/app/bin/app";
	assert_int_equal(profile_add_mmap(&p, &m), 0);
	write_file(&p, "nocc.data");

	read_file(&q, "nocc.data", &info);
	assert_string_equal(profile_get_meta(&q, "sample_type"), "IP|TID|TIME|PERIOD");
	assert_string_equal(profile_get_meta(&q, "callchain"), "none");
	assert_int_equal(q.nr_samples, 2);
	assert_int_equal(q.stacks[q.samples[0].stack].nk + q.stacks[q.samples[0].stack].nu, 1);
	assert_int_equal(profile_stack_ips(&q, q.samples[0].stack)[0], u);
	assert_int_equal(q.stacks[q.samples[1].stack].nk, 1);
	assert_int_equal(profile_stack_ips(&q, q.samples[1].stack)[0], ku);
	assert_int_equal(capture(out, sizeof(out),
				 "perf script -i %s/nocc.data -F ip 2>/dev/null | tr -d ' '", dir),
			 0);
	assert_string_equal(out, "401010\nffffffff81001010\n");
	profile_release(&p);
	profile_release(&q);
}

/* Several events: one attr each, samples tagged; read back with every
 * event, and perf report shows a section per event. */
static void test_events(void **state)
{
	struct prof_event ev[2] = { { "cpu-clock", 1, 0, 4000, PROF_EV_FREQ },
				    { "sched:sched_switch", 2, 300, 1, PROF_EV_EXCL_USER } };
	struct perfdata_opts all = { -1, NULL, 1 };
	struct prof_sample s = { 0 };
	struct perfdata_info info;
	uint64_t ips[2] = { 0xffffffff81001010ull, 0x401010 };
	struct profile p, q;
	char path[128], out[4096];
	size_t i, n[2] = { 0, 0 };

	(void)state;
	profile_init(&p);
	assert_int_equal(profile_set_meta(&p, "event", "cpu-clock"), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(profile_add_event(&p, &ev[i], NULL), 0);
	assert_int_equal(profile_intern_stack(&p, ips, 1, 1, &s.stack), 0);
	s.pid = s.tid = 42;
	s.cpu = UINT32_MAX;
	for (i = 0; i < 7; i++) {
		s.ts = 1000 + i;
		s.event = i % 3 == 0;
		s.weight = s.event ? 1 : 250000;
		assert_int_equal(profile_add_sample(&p, &s), 0);
	}
	write_file(&p, "events.data");
	snprintf(path, sizeof(path), "%s/events.data", dir);
	profile_init(&q);
	assert_int_equal(perfdata_read_file(path, &q, &all, &info), 0);
	assert_int_equal(q.nr_events, 2);
	assert_string_equal(q.events[0].name, "cpu-clock");
	assert_string_equal(q.events[1].name, "sched:sched_switch");
	assert_true(q.events[0].flags & PROF_EV_FREQ);
	assert_true(q.events[1].flags & PROF_EV_EXCL_USER);
	assert_int_equal(q.nr_samples, 7);
	for (i = 0; i < q.nr_samples; i++) {
		n[q.samples[i].event]++;
		assert_int_equal(q.samples[i].weight, q.samples[i].event ? 1 : 250000);
	}
	assert_int_equal(n[0], 4);
	assert_int_equal(n[1], 3);
	profile_release(&q);
	profile_release(&p);
	assert_int_equal(capture(out, sizeof(out),
				 "perf report -i %s --stdio 2>/dev/null | grep '^# Samples'", path),
			 0);
	assert_non_null(strstr(out, "# Samples: 4  of event 'cpu-clock'\n"
					    "# Samples: 3  of event 'sched:sched_switch'"));
}

static void test_pipe(void **state)
{
	struct profile p;
	int fds[2];

	(void)state;
	profile_init(&p);
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(perfwrite_fd(&p, fds[1]), -ESPIPE);
	close(fds[0]);
	close(fds[1]);
	profile_release(&p);
}

static void test_empty(void **state)
{
	struct perfdata_info info;
	struct profile p, q;

	(void)state;
	profile_init(&p);
	write_file(&p, "empty.data");
	read_file(&q, "empty.data", &info);
	assert_int_equal(q.nr_samples, 0);
	assert_string_equal(profile_get_meta(&q, "event"), "cpu-clock");
	profile_release(&p);
	profile_release(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_opens),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_no_callchain),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
