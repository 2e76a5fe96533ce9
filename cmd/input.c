// SPDX-License-Identifier: GPL-2.0-or-later
/* Opening a recording for a command, with the session's progress as a command shows it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/input.h"

static void on_progress(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	struct cmd_progress *p = ctx;

	if (!p->what || strcmp(p->what, what)) {
		cmd_progress_start(p, what, total);
		p->what = what;
	}
	if (done < total) {
		cmd_progress_update(p, done);
		return;
	}
	cmd_progress_end(p);
	p->what = NULL;
}

int cmd_open_session(struct session *s, const char *path, const struct symopts *so, int force,
		     const char *event, int demangle)
{
	return cmd_open_session_events(s, path, so, force, event, demangle, 0);
}

int cmd_open_session_events(struct session *s, const char *path, const struct symopts *so,
			    int force, const char *event, int demangle, int all)
{
	struct cmd_progress prog = { 0 };
	struct session_opts o = { 0 };

	if (symopts_archive_for(so, path)) {
		memset(s, 0, sizeof(*s)); /* as session_open leaves it when it fails */
		return -1;
	}
	o.force = force;
	o.event = event;
	o.all_events = all;
	o.mo = &so->mo;
	o.kallsyms = so->kallsyms;
	o.vmlinux = so->kallsyms ? NULL : so->vmlinux;
	o.kcache = so->have_cache ? &so->cache : NULL;
	o.no_demangle = !demangle;
	o.no_unwind = so->no_unwind;
	o.python_glue = so->python_glue;
	o.full_signature = so->full_signature;
	o.progress = on_progress;
	o.progress_ctx = &prog;
	return session_open(s, path, &o);
}

void cmd_first_event(struct session *s, const char *option)
{
	char raw[512], list[512], first[128];
	const char *name;
	size_t nr = profile_nr_events(&s->prof);

	if (nr < 2)
		return;
	name = profile_event_name(&s->prof, 0);
	prof_sanitize(first, sizeof(first), name ? name : "?");
	profile_event_list(&s->prof, raw, sizeof(raw));
	prof_sanitize(list, sizeof(list), raw);
	cmd_note("'%s' has %zu events (%s): showing %s; choose one with %s NAME", s->path, nr,
		 list, first, option);
	profile_keep_event(&s->prof, 0);
}

const char *cmd_default_input(void)
{
	struct stat st;

	return !fstat(STDIN_FILENO, &st) && S_ISFIFO(st.st_mode) ? "-" : "zt.data";
}

int cmd_filters(struct rfilter *f, const struct cmd_filter_args *a)
{
	char err[512];
	int ret = 0;

	rfilter_init(f);
	if (!ret && a->comm)
		ret = rfilter_add_strs(&f->comms, &f->nr_comms, a->comm, err, sizeof(err));
	if (!ret && a->dso)
		ret = rfilter_add_strs(&f->dsos, &f->nr_dsos, a->dso, err, sizeof(err));
	if (!ret && a->symbols)
		ret = rfilter_add_syms(f, a->symbols, err, sizeof(err));
	if (!ret && a->pid)
		ret = rfilter_add_ids(&f->pids, &f->nr_pids, a->pid, err, sizeof(err));
	if (!ret && a->tid)
		ret = rfilter_add_ids(&f->tids, &f->nr_tids, a->tid, err, sizeof(err));
	if (!ret && a->cpu)
		ret = rfilter_add_cpus(f, a->cpu, err, sizeof(err));
	if (!ret && a->time)
		ret = rfilter_set_time(f, a->time, err, sizeof(err));
	if (ret) {
		cmd_error("%s", err);
		return -1;
	}
	return 0;
}

int cmd_check_cpu_filter(const struct session *s, const struct rfilter *f)
{
	const char *st = profile_get_meta(&s->prof, "sample_type");

	if (!f->nr_cpus || !st || strstr(st, "CPU"))
		return 0;
	cmd_error("'%s' has no CPU in its samples (record with -a or -C to have it): remove "
		  "-C/--cpu",
		  s->path);
	return -1;
}

/* "# name : value" of meta key (sanitized), when the recording has it. */
static void header_line(const struct profile *p, const char *name, const char *key,
			const char *suffix)
{
	const char *v = profile_get_meta(p, key);
	char buf[4096];

	if (!v || !*v)
		return;
	prof_sanitize(buf, sizeof(buf), v);
	printf("# %s : %s%s\n", name, buf, suffix);
}

static void print_ts(const char *name, uint64_t ns)
{
	printf("# %s : %llu.%06llu\n", name, (unsigned long long)(ns / 1000000000ull),
	       (unsigned long long)(ns % 1000000000ull / 1000));
}

/* perf's "# event : name = ..., type = ..., config = ..., { sample_period,
 * sample_freq } = ..., sample_type = ..., exclude_*, freq = 1" line;
 * type UINT32_MAX: not known. */
static void print_event(const struct profile *p, const char *name, uint32_t type,
			uint64_t config, uint64_t period, int freq, uint32_t flags)
{
	const char *stype = profile_get_meta(p, "sample_type");
	char buf[512];

	prof_sanitize(buf, sizeof(buf), name);
	printf("# event : name = %s", buf);
	if (type != UINT32_MAX)
		printf(", type = %u", type);
	if (config)
		printf(", config = 0x%llx", (unsigned long long)config);
	if (period)
		printf(", { sample_period, sample_freq } = %llu", (unsigned long long)period);
	if (stype) {
		prof_sanitize(buf, sizeof(buf), stype);
		printf(", sample_type = %s", buf);
	} else {
		/* zt record's samples: address, thread, time, CPU, weight */
		printf(", sample_type = IP|TID|TIME|%sCPU|PERIOD",
		       profile_has_callchains(p) ? "CALLCHAIN|" : "");
	}
	if (flags & PROF_EV_EXCL_USER)
		printf(", exclude_user = 1");
	if (flags & PROF_EV_EXCL_KERNEL)
		printf(", exclude_kernel = 1");
	if (freq)
		printf(", freq = 1");
	printf("\n");
}

void cmd_print_header(const struct session *s)
{
	const struct profile *p = &s->prof;
	const char *sec = profile_get_meta(p, "perf_data_section"), *v;
	uint64_t first = UINT64_MAX, last = 0;
	unsigned long long doff, dsize;
	struct stat st;
	char buf[512];
	size_t i;

	printf("# ========\n");
	if (s->path && !stat(s->path, &st)) {
		char tbuf[64];
		struct tm tm;

		/* perf: the file's time, as ctime(3) */
		if (localtime_r(&st.st_mtime, &tm) &&
		    strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", &tm))
			printf("# captured on    : %s\n", tbuf);
	}
	if (sec && sscanf(sec, "%llu,%llu", &doff, &dsize) == 2) {
		printf("# header version : 1\n");
		printf("# data offset    : %llu\n", doff);
		printf("# data size      : %llu\n", dsize);
		printf("# feat offset    : %llu\n", doff + dsize);
	}
	header_line(p, "hostname", "hostname", "");
	header_line(p, "os release", "os_release", "");
	header_line(p, "perf version", "perf_version", "");
	header_line(p, "zt version", "zt_version", "");
	header_line(p, "arch", "arch", "");
	header_line(p, "nrcpus online", "nr_cpus", "");
	header_line(p, "nrcpus avail", "nr_cpus_avail", "");
	header_line(p, "cpudesc", "cpudesc", "");
	header_line(p, "cpuid", "cpuid", "");
	header_line(p, "total memory", "total_mem_kb", " kB");
	header_line(p, "cmdline", "cmdline", " "); /* perf: each word and a space */
	if (p->nr_events) {
		/* one line per event, as perf's */
		for (i = 0; i < p->nr_events; i++)
			print_event(p, p->events[i].name, p->events[i].type, p->events[i].config,
				    p->events[i].period, !!(p->events[i].flags & PROF_EV_FREQ),
				    p->events[i].flags);
	} else if ((v = profile_get_meta(p, "event"))) {
		const char *f = profile_get_meta(p, "freq"), *per = profile_get_meta(p, "period");
		int freq = f && strcmp(f, "0");

		print_event(p, v, UINT32_MAX, 0, strtoull(freq ? f : per ? per : "0", NULL, 10),
			    freq, 0);
	}
	for (i = 0; i < p->nr_samples; i++) {
		if (p->samples[i].ts < first)
			first = p->samples[i].ts;
		if (p->samples[i].ts > last)
			last = p->samples[i].ts;
	}
	if (first != UINT64_MAX) {
		print_ts("time of first sample", first);
		print_ts("time of last sample", last);
		printf("# sample duration : %10.3f ms\n", (double)(last - first) / 1e6);
	}
	/* the build ids of the modules mapped, as perf buildid-list shows them */
	for (i = 0; i < p->nr_mmaps; i++) {
		const struct prof_mmap *m = &p->mmaps[i];
		char hex[2 * ZT_BUILD_ID_MAX + 1];
		size_t j;

		if (!m->build_id.len)
			continue;
		for (j = 0; j < i; j++)
			if (p->mmaps[j].build_id.len && !strcmp(p->mmaps[j].path, m->path))
				break;
		if (j < i)
			continue;
		prof_sanitize(buf, sizeof(buf), m->path);
		printf("# build id : %s %s\n", prof_build_id_hex(&m->build_id, hex), buf);
	}
	/* what else the recording says, as it names it */
	for (i = 0; i < p->nr_meta; i++) {
		static const char *const shown[] = {
			"hostname",
			"os_release",
			"perf_version",
			"zt_version",
			"arch",
			"nr_cpus",
			"nr_cpus_avail",
			"cpudesc",
			"cpuid",
			"total_mem_kb",
			"cmdline",
			"sample_type",
			"perf_data_section",
			"perf_record_counts",
			"event",
			"build_ids", /* perf.data's build-id table: zt buildid-list shows it */
			"evlist",    /* perf.data's events: zt evlist shows them */
		};
		char key[128];
		size_t k;

		for (k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
			if (!strcmp(p->meta[i].key, shown[k]))
				break;
		if (k < sizeof(shown) / sizeof(shown[0]))
			continue;
		prof_sanitize(key, sizeof(key), p->meta[i].key);
		prof_sanitize(buf, sizeof(buf), p->meta[i].value);
		printf("# %s : %s\n", key, buf);
	}
	printf("# ========\n#\n");
}
