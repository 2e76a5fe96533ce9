// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of record/recorder.c: side-band and samples fed through its
 * callbacks into a zt.data file read back (which processes are kept,
 * what a sample keeps of its stack, build ids, hidden kernel addresses,
 * the header), and, as root, a short live recording of a spinning child. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "formats/ztdata.h"
#include "libprof/fileio.h"
#include "libprof/log.h"
#include "libprof/profile.h"
#include "record/recorder.h"
#include "record/target.h"
#include "symbolizer/elfsym.h"

/* pids past pid_max: no such process, so nothing is read of them */
static uint32_t pid_base;

struct fixture {
	struct target tg;
	struct recorder r;
	char path[64];
	int fd;
	struct profile p; /* what was written, read back */
};

static int setup(void **state)
{
	static char *argv[] = { "record", "-g", NULL };
	struct fixture *f = calloc(1, sizeof(*f));
	char *d;
	size_t n;

	assert_non_null(f);
	pid_base = 4194304 + 10;
	if (!zt_read_file("/proc/sys/kernel/pid_max", 64, &d, &n)) {
		pid_base = (uint32_t)atol(d) + 10;
		free(d);
	}
	f->tg.event = "cpu-clock";
	f->tg.multi = 1;
	assert_int_equal(target_parse_event(&f->tg), 0);
	recorder_init(&f->r, &f->tg);
	f->r.output = "test.data";
	f->r.argc = 2;
	f->r.argv = argv;
	f->r.callgraph = 1;
	f->r.filtered = true;
	f->r.path_kind = "perf_event";
	snprintf(f->path, sizeof(f->path), "/tmp/zt-test-recorder.XXXXXX");
	f->fd = mkstemp(f->path);
	assert_true(f->fd >= 0);
	f->r.w = ztdata_writer_new(f->fd);
	assert_non_null(f->r.w);
	profile_init(&f->p);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	recorder_release(&f->r);
	target_release(&f->tg);
	profile_release(&f->p);
	close(f->fd);
	unlink(f->path);
	free(f);
	return 0;
}

/* End the file and read it back into f->p. */
static void finish(struct fixture *f)
{
	assert_int_equal(recorder_end_file(&f->r, true, 123456789), 0);
	assert_int_equal(ztdata_read_file(f->path, &f->p, NULL), 0);
}

static void task(struct fixture *f, uint32_t kind, uint32_t pid, uint32_t ppid, const char *comm)
{
	struct prof_task t = { .ts = 10, .kind = kind, .pid = pid, .tid = pid, .ppid = ppid };

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	f->r.cbs.task(f->r.cbs.ctx, &t);
}

static void map(struct fixture *f, uint32_t pid, const char *path, uint32_t prot)
{
	struct prof_mmap m = { .ts = 11, .pid = pid, .tid = pid, .start = 0x400000, .len = 0x1000,
			       .prot = prot, .path = (char *)path };

	f->r.cbs.mmap(f->r.cbs.ctx, &m);
}

static void sample(struct fixture *f, uint32_t pid, const uint64_t *ips, unsigned nk, unsigned nu)
{
	struct perfev_sample s = { .ts = 20, .period = 250000, .pid = pid, .tid = pid,
				   .ips = ips, .nk = nk, .nu = nu };

	f->r.cbs.sample(f->r.cbs.ctx, &s);
}

static bool has_task(const struct profile *p, uint32_t pid)
{
	for (size_t i = 0; i < p->nr_tasks; i++)
		if (p->tasks[i].pid == pid)
			return true;
	return false;
}

static const struct prof_mmap *find_map(const struct profile *p, uint32_t pid)
{
	for (size_t i = 0; i < p->nr_mmaps; i++)
		if (p->mmaps[i].pid == pid)
			return &p->mmaps[i];
	return NULL;
}

/* Only -p's processes, their children, and the processes sampled keep
 * their side-band; the rest waits, then goes. */
static void test_filtered_sideband(void **state)
{
	struct fixture *f = *state;
	uint32_t a = pid_base, child = pid_base + 1, later = pid_base + 2, other = pid_base + 3;
	uint64_t ips[] = { 0x401000 };

	recorder_track(&f->r, a);
	task(f, PROF_TASK_COMM, a, 0, "tracked");
	task(f, PROF_TASK_FORK, child, a, "");
	task(f, PROF_TASK_COMM, later, 0, "later");
	map(f, later, "/nonexistent/liblater.so", PROT_READ | PROT_EXEC);
	map(f, later, "/nonexistent/data", PROT_READ); /* not executable: never kept */
	task(f, PROF_TASK_COMM, other, 0, "other");
	map(f, other, "/nonexistent/libother.so", PROT_READ | PROT_EXEC);
	sample(f, later, ips, 0, 1);
	recorder_flush(&f->r); /* later is sampled now: its side-band settles */
	finish(f);

	assert_true(has_task(&f->p, a));
	assert_true(has_task(&f->p, child)); /* forked by a tracked process */
	assert_true(has_task(&f->p, later));
	assert_false(has_task(&f->p, other));
	assert_int_equal(f->p.nr_mmaps, 1);
	assert_int_equal(f->p.mmaps[0].pid, later);
	assert_string_equal(f->p.mmaps[0].path, "/nonexistent/liblater.so");
	assert_null(find_map(&f->p, other));
	assert_int_equal(f->p.nr_samples, 1);
	assert_int_equal(f->p.samples[0].pid, later);
	assert_int_equal(f->r.samples, 1);
}

/* Without -g a sample keeps its first address only, as perf's. */
static void test_callchain(void **state)
{
	struct fixture *f = *state;
	uint64_t k[] = { 0xffffffff81000010ull, 0xffffffff81000020ull, 0x401000, 0x402000 };
	uint64_t u[] = { 0x401000, 0x402000, 0x403000 };
	const struct prof_stack *s;

	f->r.filtered = false;
	sample(f, pid_base, k, 2, 2);
	sample(f, pid_base, u, 0, 3);
	f->r.callgraph = 0;
	sample(f, pid_base, k, 2, 2);
	sample(f, pid_base, u, 0, 3);
	finish(f);

	assert_int_equal(f->p.nr_samples, 4);
	s = &f->p.stacks[f->p.samples[0].stack];
	assert_int_equal(s->nk, 2);
	assert_int_equal(s->nu, 2);
	s = &f->p.stacks[f->p.samples[1].stack];
	assert_int_equal(s->nk, 0);
	assert_int_equal(s->nu, 3);
	s = &f->p.stacks[f->p.samples[2].stack];
	assert_int_equal(s->nk, 1);
	assert_int_equal(s->nu, 0);
	assert_int_equal(profile_stack_ips(&f->p, f->p.samples[2].stack)[0], k[0]);
	s = &f->p.stacks[f->p.samples[3].stack];
	assert_int_equal(s->nk, 0);
	assert_int_equal(s->nu, 1);
	assert_int_equal(profile_stack_ips(&f->p, f->p.samples[3].stack)[0], u[0]);
}

/* --exclude-perf leaves zt's own samples out, -u those of other users. */
static void test_sample_wanted(void **state)
{
	struct fixture *f = *state;
	uint64_t ips[] = { 0x401000 };

	f->r.filtered = false;
	f->r.exclude_perf = 1;
	f->r.self_pid = (uint32_t)getpid();
	sample(f, (uint32_t)getpid(), ips, 0, 1);
	sample(f, 1, ips, 0, 1);
	assert_int_equal(f->r.samples, 1);
	f->r.exclude_perf = 0;
	/* -u: this process belongs to its user, not to another */
	f->r.uid_str = "someone";
	f->r.uid = geteuid() + 1;
	sample(f, (uint32_t)getpid(), ips, 0, 1);
	assert_int_equal(f->r.samples, 1);
	finish(f);
	assert_int_equal(f->p.nr_samples, 1);
	assert_int_equal(f->p.samples[0].pid, 1);
}

/* A mapping without a build id (from /proc, or a kernel before 5.12)
 * gets the file's; the process gone, the file is read in this root. */
static void test_build_id(void **state)
{
	struct fixture *f = *state;
	struct prof_build_id want = { 0 };
	char exe[PATH_MAX];
	const struct prof_mmap *m;

	assert_non_null(realpath("/proc/self/exe", exe));
	assert_int_equal(elf_read_build_id(exe, &want), 0);
	assert_true(want.len > 0);
	f->r.filtered = false;
	map(f, pid_base, exe, PROT_READ | PROT_EXEC);
	map(f, pid_base + 1, exe, PROT_READ | PROT_EXEC); /* the same file: read once */
	finish(f);
	assert_int_equal(f->p.nr_mmaps, 2);
	m = find_map(&f->p, pid_base);
	assert_non_null(m);
	assert_int_equal(m->build_id.len, want.len);
	assert_memory_equal(m->build_id.data, want.data, want.len);
	assert_memory_equal(f->p.mmaps[1].build_id.data, want.data, want.len);
	assert_int_equal(f->r.bids.nr, 1);
}

/* For a user who may not see kernel addresses: a kernel frame becomes a
 * symbol slot (here: the slot of an address in no symbol), and a "user"
 * frame in the kernel's half ends the chain; the vsyscall page stays. */
static void test_hidden_kernel(void **state)
{
	struct fixture *f = *state;
	uint64_t ips[] = { 0xffffffff81234567ull, 0x401000, 0xffffffffff600400ull, 0x402000,
			   0xffff888000001000ull, 0x403000 };
	const uint64_t *got;
	const struct prof_stack *s;

	f->r.filtered = false;
	f->r.hide_kaddr = true;
	f->r.want_kernel = true;
	f->r.kernel_read = f->r.kernel_off = true; /* no kallsyms here */
	sample(f, pid_base, ips, 1, 5);
	finish(f);
	assert_int_equal(f->p.nr_samples, 1);
	s = &f->p.stacks[f->p.samples[0].stack];
	got = profile_stack_ips(&f->p, f->p.samples[0].stack);
	assert_int_equal(s->nk, 1);
	assert_int_equal(got[0], 0xffff900000000000ull - (1ull << 20));
	assert_int_equal(s->nu, 3);
	assert_int_equal(got[1], 0x401000);
	assert_int_equal(got[2], 0xffffffffff600400ull);
	assert_int_equal(got[3], 0x402000);
}

/* The header says what was recorded and how. */
static void test_header(void **state)
{
	struct fixture *f = *state;

	recorder_write_header(&f->r, 5000);
	finish(f);
	assert_string_equal(profile_get_meta(&f->p, "cmdline"), "zt record -g");
	assert_string_equal(profile_get_meta(&f->p, "event"), "cpu-clock");
	assert_string_equal(profile_get_meta(&f->p, "events"), "cpu-clock");
	assert_string_equal(profile_get_meta(&f->p, "sampler"), "perf_event");
	assert_string_equal(profile_get_meta(&f->p, "callchain"), "fp");
	assert_string_equal(profile_get_meta(&f->p, "time_start"), "5000");
	assert_string_equal(profile_get_meta(&f->p, "time_end"), "123456789");
	assert_int_equal(strtoull(profile_get_meta(&f->p, "freq"), NULL, 10), f->tg.freq);
	assert_int_equal(f->p.nr_events, 1);
	assert_string_equal(f->p.events[0].name, "cpu-clock");
	assert_null(profile_get_meta(&f->p, "gpu"));
}

static void spin(void)
{
	volatile uint64_t x = 0;

	for (;;)
		x++;
}

/* Root with BPF (or perf_event): 0.3 s of a spinning child through the
 * engine, as zt record -p CHILD runs it. */
static void test_live(void **state)
{
	struct fixture *f = *state;
	const char *missing;
	char pidstr[16];
	uint64_t t0;
	pid_t child;
	size_t i;

	if (geteuid() != 0) {
		print_message("not root: no live recording\n");
		skip();
	}
	child = fork();
	assert_true(child >= 0);
	if (!child)
		spin();
	snprintf(pidstr, sizeof(pidstr), "%d", (int)child);
	f->tg.pids = pidstr;
	assert_int_equal(target_parse_ids(&f->tg), 0);
	f->r.privileged = target_privileged(&missing);
	f->r.use_bpf = f->r.privileged && target_bpf_events(&f->tg) && target_bpf_loadable();
	f->r.want_kernel = f->r.privileged;
	f->r.path_kind = f->r.use_bpf ? "bpf" : "perf_event";
	recorder_track(&f->r, (uint32_t)child);
	assert_int_equal(recorder_open(&f->r), 0);
	assert_int_equal(recorder_open_sideband(&f->r), 0);
	f->r.t_start = recorder_now();
	recorder_write_header(&f->r, f->r.t_start);
	assert_int_equal(recorder_start(&f->r), 0);
	t0 = recorder_now();
	while (recorder_now() - t0 < 300000000ull)
		assert_int_equal(recorder_drain(&f->r), 0);
	recorder_flush(&f->r);
	recorder_stop(&f->r);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_int_equal(recorder_end_file(&f->r, true, f->r.t_end), 0);
	assert_int_equal(ztdata_read_file(f->path, &f->p, NULL), 0);

	assert_string_equal(profile_get_meta(&f->p, "sampler"), f->r.path_kind);
	assert_true(f->p.nr_samples > 0);
	for (i = 0; i < f->p.nr_samples; i++)
		assert_int_equal(f->p.samples[i].pid, child);
	assert_int_equal(f->r.samples, f->p.nr_samples);
	/* the child's mappings, synthesized from /proc at the start */
	assert_non_null(find_map(&f->p, (uint32_t)child));
	assert_true(has_task(&f->p, (uint32_t)child));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_filtered_sideband, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_wanted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hidden_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live, setup, teardown),
	};

	zt_log_set(NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
