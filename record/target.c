// SPDX-License-Identifier: GPL-2.0-or-later
/* Events, CPU and id lists, privileges of a live sampler (see target.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf/perfev.h"
#include "bpf/sampler.h"
#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/log.h"
#include "record/target.h"

/* -F: "max" or a number of Hz (NULL: 4000, perf's default), bounded by
 * kernel.perf_event_max_sample_rate with a warning. 0, or -EINVAL after a
 * message. */
static int parse_freq(const char *s, uint64_t *freq)
{
	long max = 100000;
	char *d, *end;
	size_t n;

	if (!zt_read_file("/proc/sys/kernel/perf_event_max_sample_rate", 4096, &d, &n)) {
		max = atol(d);
		free(d);
	}
	if (!s) {
		*freq = 4000;
	} else if (!strcmp(s, "max")) {
		*freq = (uint64_t)max;
	} else {
		*freq = strtoull(s, &end, 10);
		if (*end || !*freq || s[0] == '-') {
			zt_error("bad frequency '%s': give a number of Hz or 'max'", s);
			return -EINVAL;
		}
	}
	if (max > 0 && *freq > (uint64_t)max) {
		zt_warn("frequency %llu Hz is above the maximum of %ld Hz "
			"(kernel.perf_event_max_sample_rate): using %ld Hz",
			(unsigned long long)*freq, max, max);
		*freq = (uint64_t)max;
	}
	return 0;
}

/* t->ev0 (t->ev) from the first event. */
static void set_first(struct target *t)
{
	t->ev0.name = t->evs[0].name;
	t->ev0.type = t->evs[0].type;
	t->ev0.config = t->evs[0].config;
	t->ev = &t->ev0;
}

int target_parse_event(struct target *t)
{
	char err[512];
	int i;

	t->nr_evs = 0;
	for (i = 0; i < t->nr_event_args || (!i && !t->nr_event_args); i++) {
		const char *spec = t->nr_event_args ? t->event_args[i] : t->event;

		const char *filter = t->nr_event_args ? t->filter_args[i] : NULL;

		if (evsel_parse(spec, t->evs, &t->nr_evs, err, sizeof(err))) {
			zt_error("-e: %s", err);
			return -1;
		}
		if (!filter)
			continue;
		/* perf's rule: the last event of the -e */
		if (evsel_is_tracepoint(&t->evs[t->nr_evs - 1]))
			t->filters[t->nr_evs - 1] = filter;
		else
			zt_note("--filter '%s' has no effect on '%s': only tracepoints take a "
				"filter here (-e sched:sched_switch --filter 'prev_pid != 0')",
				filter, t->evs[t->nr_evs - 1].name);
	}
	if (t->all_user && t->all_kernel) {
		zt_error("--all-user and --all-kernel: give one of them (or neither: both)");
		return -1;
	}
	for (size_t k = 0; k < t->nr_evs; k++) {
		struct evsel *e = &t->evs[k];

		if (!strcmp(e->event, "dummy")) {
			zt_error("-e dummy: the side-band carrier has no samples to record: give a "
				 "sampling event (cpu-clock, page-faults, ...)");
			return -1;
		}
		/* perf: --all-user and --all-kernel override the modifiers */
		if (t->all_user)
			e->exclude_kernel = 1, e->exclude_user = 0;
		if (t->all_kernel)
			e->exclude_user = 1, e->exclude_kernel = 0;
	}
	if (!t->multi && (t->nr_evs > 1 || evsel_is_tracepoint(&t->evs[0]) ||
			  t->evs[0].exclude_user || t->evs[0].exclude_kernel)) {
		zt_error("-e '%s': give one software or hardware event without modifiers here "
			 "(several events, tracepoints and :u/:k are for zt record)",
			 t->nr_event_args ? t->event_args[0] : t->event);
		return -1;
	}
	set_first(t);
	if (t->freq_str && t->period) {
		zt_error("-F and -c cannot be used together");
		return -1;
	}
	t->freq = 0;
	if (!t->period && parse_freq(t->freq_str, &t->freq))
		return -1;
	return 0;
}

/* One "A" or "A-B" item of a list: 0 or -EINVAL/-ERANGE (a number too
 * large for strtol is >= max too). */
static int parse_range(const char *s, int max, long *lo, long *hi)
{
	char *end;

	*lo = strtol(s, &end, 10);
	if (end == s || *lo < 0)
		return -EINVAL;
	*hi = *lo;
	if (*end == '-') {
		s = end + 1;
		*hi = strtol(s, &end, 10);
		if (end == s || *hi < *lo)
			return -EINVAL;
	}
	if (*end)
		return -EINVAL;
	return *hi >= max ? -ERANGE : 0;
}

/* "0,2-5": the numbers in *out (malloc'ed, *nr of them, in order).
 * Returns 0, -EINVAL (bad syntax or empty), -ERANGE (a number >= max) or
 * -ENOMEM. */
static int parse_list(const char *s, int max, int **out, int *nr)
{
	int *v = NULL, n = 0, err = 0;
	size_t cap = 0;
	char *copy = strdup(s), *item, *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item && !err; item = strtok_r(NULL, ",", &save)) {
		long lo, hi;

		err = parse_range(item, max, &lo, &hi);
		for (; !err && lo <= hi; lo++) {
			if (ZT_GROW(v, cap, (size_t)n + 1))
				err = -ENOMEM;
			else
				v[n++] = (int)lo;
		}
	}
	free(copy);
	if (!err && !n)
		err = -EINVAL;
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*nr = n;
	return 0;
}

static int online_cpus(int **out, int *nr)
{
	char *text, buf[32];
	size_t len;
	int err;

	if (zt_read_file("/sys/devices/system/cpu/online", 1 << 16, &text, &len)) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		snprintf(buf, sizeof(buf), "0-%ld", c > 0 ? c - 1 : 0);
		return parse_list(buf, INT_MAX, out, nr);
	}
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	text[len] = 0;
	err = parse_list(text, INT_MAX, out, nr);
	free(text);
	return err;
}

static bool process_exists(int pid)
{
	return !kill(pid, 0) || errno != ESRCH;
}

/* A thread's own /proc/TID entry exists even for non-leaders. */
static bool thread_exists(int tid)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/task/%d", tid, tid);
	if (!access(p, F_OK))
		return true;
	snprintf(p, sizeof(p), "/proc/%d", tid);
	return !access(p, F_OK);
}

int target_parse_ids(struct target *t)
{
	int i, err;

	if (t->pids && parse_list(t->pids, INT_MAX, &t->pid_list, &t->nr_pids)) {
		zt_error("bad process id list '%s'", t->pids);
		return -EINVAL;
	}
	if (t->tids && parse_list(t->tids, INT_MAX, &t->tid_list, &t->nr_tids)) {
		zt_error("bad thread id list '%s'", t->tids);
		return -EINVAL;
	}
	for (i = 0; i < t->nr_pids; i++) {
		if (!process_exists(t->pid_list[i])) {
			zt_error("process %d does not exist", t->pid_list[i]);
			return -ESRCH;
		}
	}
	for (i = 0; i < t->nr_tids; i++) {
		if (!thread_exists(t->tid_list[i])) {
			zt_error("thread %d does not exist", t->tid_list[i]);
			return -ESRCH;
		}
	}
	if (t->cpu_list) {
		err = parse_list(t->cpu_list, (int)sysconf(_SC_NPROCESSORS_CONF), &t->cpus,
				 &t->nr_cpus);
		if (err) {
			zt_error("bad CPU list '%s'%s", t->cpu_list,
				 err == -ERANGE ? ": no such CPU" : "");
			return -EINVAL;
		}
	} else if (online_cpus(&t->cpus, &t->nr_cpus)) {
		zt_error("cannot read the list of online CPUs");
		return -ENOENT;
	}
	return 0;
}

bool target_alive(const struct target *t)
{
	char p[64];
	int i;

	for (i = 0; i < t->nr_pids; i++)
		if (process_exists(t->pid_list[i]))
			return true;
	for (i = 0; i < t->nr_tids; i++) {
		snprintf(p, sizeof(p), "/proc/%d", t->tid_list[i]);
		if (!access(p, F_OK))
			return true;
	}
	return false;
}

void target_release(struct target *t)
{
	free(t->pid_list);
	free(t->tid_list);
	free(t->cpus);
	t->pid_list = t->tid_list = t->cpus = NULL;
	t->nr_pids = t->nr_tids = t->nr_cpus = 0;
}

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39

bool target_privileged(const char **missing)
{
	char line[256];
	uint64_t caps = 0;
	bool bpf, perfmon;
	FILE *f;

	*missing = "";
	if (geteuid() == 0)
		return true;
	f = fopen("/proc/self/status", "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "CapEff:", 7))
				caps = strtoull(line + 7, NULL, 16);
		fclose(f);
	}
	bpf = caps >> CAP_BPF_BIT & 1;
	perfmon = (caps >> CAP_PERFMON_BIT & 1) || (caps >> CAP_SYS_ADMIN_BIT & 1);
	if (bpf && perfmon)
		return true;
	*missing = !bpf && !perfmon ? "CAP_BPF and CAP_PERFMON" : !bpf ? "CAP_BPF" : "CAP_PERFMON";
	return false;
}

void target_privileges_error(const char *what, const char *missing)
{
	zt_error("%s needs root or %s, which this process does not have: run it with sudo, "
		 "or grant them with 'sudo setcap cap_bpf,cap_perfmon+ep $(command -v zt)'",
		 what, missing);
}

bool target_bpf_loadable(void)
{
	const char *btf = getenv("ZT_BTF_VMLINUX");

	if (!btf)
		btf = "/sys/kernel/btf/vmlinux";
	if (!access(btf, R_OK))
		return true;
	zt_warn("this kernel has no BTF ('%s' is missing: it needs CONFIG_DEBUG_INFO_BTF=y): "
		"the BPF sampler cannot load, sampling through perf_event instead", btf);
	return false;
}

void target_sampler_opts(const struct target *t, struct sampler_opts *so)
{
	/* the reader drains the ring every 100 ms; a bigger ring costs memory
	 * and the time the kernel takes to clear it */
	uint64_t hz = !t->period ? t->freq
		      : t->ev->type == PERF_TYPE_SOFTWARE ? 1000000000ull / t->period : 4000;
	uint64_t want = (uint64_t)(t->nr_cpus > 0 ? t->nr_cpus : 1) * (hz ? hz : 1) * 128;
	uint64_t sz = 2u << 20;

	while (sz < want && sz < (64u << 20))
		sz <<= 1;
	so->cpus = t->cpus;
	so->nr_cpus = t->nr_cpus;
	so->freq = !t->period;
	so->freq_or_period = t->period ? t->period : t->freq;
	so->follow_children = true;
	so->ringbuf_bytes = (uint32_t)sz;
}

/* cycles with its modifiers, as cpu-clock (perf's evsel__fallback). */
static void to_cpu_clock(struct evsel *e)
{
	const char *mods = strchr(e->name, ':');
	char name[EVSEL_NAME_MAX];

	snprintf(name, sizeof(name), "cpu-clock%s", mods ? mods : "");
	memcpy(e->name, name, sizeof(name));
	snprintf(e->event, sizeof(e->event), "cpu-clock");
	e->type = PERF_TYPE_SOFTWARE;
	e->config = PERF_COUNT_SW_CPU_CLOCK;
}

bool target_fallback(struct target *t, int err)
{
	if (err != -ENOENT || t->ev->type != PERF_TYPE_HARDWARE || t->nr_evs != 1 ||
	    t->evs[0].config != PERF_COUNT_HW_CPU_CYCLES)
		return false;
	/* no PMU (VMs): perf falls back to cpu-clock too */
	zt_info("'%s' is not available here (no hardware PMU): using cpu-clock", t->ev->name);
	to_cpu_clock(&t->evs[0]);
	set_first(t);
	return true;
}

/* No tracefs where it belongs (a chroot or a container with /sys bound
 * without its submounts): mount it there, as perf does. 0, or -1. */
static int mount_tracefs(void)
{
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		return -1;
	zt_info("mounted tracefs on /sys/kernel/tracing (as perf does)");
	return 0;
}

int target_check_events(struct target *t)
{
	for (size_t k = 0; k < t->nr_evs; k++) {
		struct evsel *e = &t->evs[k];
		struct perf_event_attr a = { 0 };
		int fd, err;

		if (evsel_is_tracepoint(e)) {
			err = evsel_tracepoint_id(e, NULL);
			if (err == -ENODEV && !mount_tracefs())
				err = evsel_tracepoint_id(e, NULL);
			if (err == -ENOENT) {
				char dir[EVSEL_NAME_MAX], *c;

				snprintf(dir, sizeof(dir), "%s", e->event);
				if ((c = strchr(dir, ':')))
					*c = '/';
				zt_error("unknown tracepoint '%s': there is no "
					 "/sys/kernel/tracing/events/%s (see 'perf list "
					 "tracepoint')", e->event, dir);
			} else if (err == -EACCES || err == -EPERM) {
				zt_error("tracepoint '%s': not allowed to read its id in "
					 "/sys/kernel/tracing: run as root (or give this user "
					 "tracefs access)", e->event);
			} else if (err == -ENODEV) {
				zt_error("tracepoint '%s': no tracefs here, and it could not be "
					 "mounted: mount it with 'mount -t tracefs nodev "
					 "/sys/kernel/tracing'", e->event);
			} else if (err) {
				zt_error("tracepoint '%s': cannot read its id: %s", e->event,
					 strerror(-err));
			}
			if (err)
				return -1;
			continue;
		}
		if (e->type != PERF_TYPE_HARDWARE)
			continue;
		/* a counter on this thread says whether the machine has the event */
		a.size = sizeof(a);
		a.type = e->type;
		a.config = e->config;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.disabled = 1;
		fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		err = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		if (err != ENOENT && err != EOPNOTSUPP && err != ENODEV)
			continue;
		if (e->config == PERF_COUNT_HW_CPU_CYCLES) {
			zt_info("'%s' is not available here (no hardware PMU): using cpu-clock",
				e->name);
			to_cpu_clock(e);
			continue;
		}
		zt_error("event '%s' is not supported on this machine (no hardware PMU for it): "
			 "use cpu-clock, or a software event (%s)", e->name,
			 evsel_known(PERF_TYPE_SOFTWARE));
		return -1;
	}
	set_first(t);
	return 0;
}

bool target_bpf_events(const struct target *t)
{
	return t->nr_evs == 1 && !evsel_is_tracepoint(&t->evs[0]) && !t->evs[0].exclude_user;
}

unsigned target_perfev_events(const struct target *t, struct perfev_event *out)
{
	size_t k;

	for (k = 0; k < t->nr_evs; k++) {
		const struct evsel *e = &t->evs[k];
		bool tp = evsel_is_tracepoint(e);

		out[k] = (struct perfev_event){ .type = e->type, .config = e->config,
						.freq = !t->period && !tp,
						.freq_or_period = t->period ? t->period
								  : tp	    ? 1
									    : t->freq,
						.exclude_user = e->exclude_user,
						.exclude_kernel = e->exclude_kernel,
						.raw = tp,
						.filter = t->filters[k] };
	}
	return (unsigned)k;
}

void target_open_error(const struct target *t, int err, const char *msg, const char *verb)
{
	const char *why = msg && msg[0] ? msg : strerror(-err);

	if (err == -EPERM || err == -EACCES)
		zt_error("not allowed to sample (%s): run as root, or grant CAP_BPF and CAP_PERFMON, "
			 "or lower kernel.perf_event_paranoid", why);
	else if (err == -ESRCH)
		zt_error("the process to %s no longer exists", verb);
	else if (err == -ENOENT)
		zt_error("event '%s' is not available on this machine: try -e cpu-clock",
			 t->ev->name);
	else if (err == -EBADMSG)
		zt_error("the kernel refused a --filter: check its fields and operators against "
			 "the tracepoint's format (/sys/kernel/tracing/events/SYSTEM/NAME/format)");
	else
		zt_error("cannot start sampling: %s", why);
}

void target_sampler_filter(const struct target *t, struct sampler *smp)
{
	int i;

	for (i = 0; i < t->nr_pids; i++)
		sampler_add_tgid(smp, (uint32_t)t->pid_list[i]);
	for (i = 0; i < t->nr_tids; i++)
		sampler_add_tid(smp, (uint32_t)t->tid_list[i]);
}

int target_open_cpus(const struct target *t, struct perfev *pev, int tid)
{
	int c, err = 0;

	for (c = 0; c < t->nr_cpus && !err; c++)
		err = perfev_open(pev, tid, t->cpus[c]);
	return err;
}

int target_open_threads(const struct target *t, struct perfev *pev)
{
	bool threads = t->tids != NULL;
	const int *ids = threads ? t->tid_list : t->pid_list;
	int j, n = threads ? t->nr_tids : t->nr_pids, err = 0;

	for (j = 0; j < n && !err; j++) {
		char dir[64];
		struct dirent *de;
		DIR *d;

		if (threads) {
			err = target_open_cpus(t, pev, ids[j]);
			continue;
		}
		snprintf(dir, sizeof(dir), "/proc/%d/task", ids[j]);
		d = opendir(dir);
		if (!d)
			return -ESRCH;
		while (!err && (de = readdir(d)))
			if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
				err = target_open_cpus(t, pev, atoi(de->d_name));
		closedir(d);
	}
	return err;
}

int target_tgid(int tid)
{
	char p[64], line[128];
	int tgid = tid;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/status", tid);
	f = fopen(p, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5))
			tgid = atoi(line + 5);
	fclose(f);
	return tgid;
}

int target_open_sideband(const struct target *t, struct perfev *sb, bool every_cpu)
{
	int *all = NULL, nall = 0, i, j, err = target_open_cpus(t, sb, -1);

	if (err || !every_cpu || online_cpus(&all, &nall))
		return err;
	for (j = 0; !err && j < nall; j++) {
		bool have = false;

		for (i = 0; i < t->nr_cpus; i++)
			have |= t->cpus[i] == all[j];
		if (!have)
			err = perfev_open(sb, -1, all[j]);
	}
	free(all);
	return err;
}

int target_sideband(const struct target *t, const struct perfev_cbs *cbs, struct sampler *smp,
		    bool every_cpu, bool prompt, struct perfev **out)
{
	struct perfev_opts po = { .type = UINT32_MAX, .sideband = true, .ring_pages = 128,
				  .prompt = prompt };
	int err = perfev_new(&po, cbs, out);

	if (!err)
		err = target_open_sideband(t, *out, every_cpu);
	if (err) {
		zt_error("cannot open the side-band events: %s", strerror(-err));
		return -1;
	}
	target_sampler_filter(t, smp);
	return 0;
}
