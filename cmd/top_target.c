// SPDX-License-Identifier: GPL-2.0-or-later
/* Events, CPU and id lists, privileges of a live sampler (see top_target.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/perfev.h"
#include "cmd/cmd.h"
#include "cmd/top_target.h"
#include "libprof/array.h"
#include "libprof/fileio.h"

static const struct target_event target_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
};

const char target_event_names[] = "cycles, cpu-clock, task-clock or instructions";

const struct target_event *target_event_find(const char *name)
{
	const struct target_event *e;

	for (e = target_events; e < target_events + sizeof(target_events) / sizeof(*e); e++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

/* One "A" or "A-B" item of a list: 0 or -EINVAL/-ERANGE. */
static int parse_range(const char *s, int max, long *lo, long *hi)
{
	char *end;

	errno = 0;
	*lo = strtol(s, &end, 10);
	if (end == s || *lo < 0 || errno)
		return -EINVAL;
	*hi = *lo;
	if (*end == '-') {
		s = end + 1;
		*hi = strtol(s, &end, 10);
		if (end == s || *hi < *lo || errno)
			return -EINVAL;
	}
	if (*end)
		return -EINVAL;
	return *hi >= max ? -ERANGE : 0;
}

int target_parse_list(const char *s, int max, int **out, int *nr)
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

int target_online_cpus(int **out, int *nr)
{
	char *text, buf[32];
	size_t len;
	int err;

	if (zt_read_file("/sys/devices/system/cpu/online", 1 << 16, &text, &len)) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		snprintf(buf, sizeof(buf), "0-%ld", c > 0 ? c - 1 : 0);
		return target_parse_list(buf, INT_MAX, out, nr);
	}
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	text[len] = 0;
	err = target_parse_list(text, INT_MAX, out, nr);
	free(text);
	return err;
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

bool target_bpf_loadable(void)
{
	const char *btf = getenv("ZT_BTF_VMLINUX");

	if (!btf)
		btf = "/sys/kernel/btf/vmlinux";
	if (!access(btf, R_OK))
		return true;
	cmd_warn("this kernel has no BTF ('%s' is missing: it needs CONFIG_DEBUG_INFO_BTF=y): "
		 "the BPF sampler cannot load, sampling through perf_event instead", btf);
	return false;
}

void target_privileges_error(const char *what, const char *missing)
{
	cmd_error("%s needs root or %s, which this process does not have: run it with sudo, "
		  "or grant them with 'sudo setcap cap_bpf,cap_perfmon+ep $(command -v zt)'", what, missing);
}

void target_open_error(int err, const char *msg, const char *event)
{
	const char *why = msg && msg[0] ? msg : strerror(-err);

	if (err == -EPERM || err == -EACCES)
		cmd_error("not allowed to sample (%s): run as root, or grant CAP_BPF and CAP_PERFMON, "
			  "or lower kernel.perf_event_paranoid", why);
	else if (err == -ESRCH)
		cmd_error("the process to sample no longer exists");
	else if (err == -ENOENT)
		cmd_error("event '%s' is not available on this machine: try -e cpu-clock", event);
	else
		cmd_error("cannot start sampling: %s", why);
}

int target_parse_freq(const char *s, uint64_t *freq)
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
			cmd_error("bad frequency '%s': give a number of Hz or 'max'", s);
			return -EINVAL;
		}
	}
	if (max > 0 && *freq > (uint64_t)max) {
		cmd_warn("frequency %llu Hz is above the maximum of %ld Hz "
			 "(kernel.perf_event_max_sample_rate): using %ld Hz",
			 (unsigned long long)*freq, max, max);
		*freq = (uint64_t)max;
	}
	return 0;
}

uint32_t target_ringbuf_bytes(int nr_cpus, uint64_t hz)
{
	uint64_t want = (uint64_t)(nr_cpus > 0 ? nr_cpus : 1) * (hz ? hz : 1) * 128, sz = 2u << 20;

	while (sz < want && sz < (64u << 20))
		sz <<= 1;
	return (uint32_t)sz;
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

/* Every CPU of cpus for one thread. */
static int open_on_cpus(struct perfev *pev, int tid, const int *cpus, int nr_cpus)
{
	int c, err = 0;

	for (c = 0; c < nr_cpus && !err; c++)
		err = perfev_open(pev, tid, cpus[c]);
	return err;
}

int target_open_threads(struct perfev *pev, const int *ids, int n, bool threads, const int *cpus,
			int nr_cpus)
{
	int j, err = 0;

	for (j = 0; j < n && !err; j++) {
		char dir[64];
		struct dirent *de;
		DIR *d;

		if (threads) {
			err = open_on_cpus(pev, ids[j], cpus, nr_cpus);
			continue;
		}
		snprintf(dir, sizeof(dir), "/proc/%d/task", ids[j]);
		d = opendir(dir);
		if (!d)
			return -ESRCH;
		while (!err && (de = readdir(d)))
			if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
				err = open_on_cpus(pev, atoi(de->d_name), cpus, nr_cpus);
		closedir(d);
	}
	return err;
}
