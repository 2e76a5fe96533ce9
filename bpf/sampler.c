// SPDX-License-Identifier: GPL-2.0-or-later
/* Loader of the BPF CPU sampler: perf events per CPU, ring buffer, filters. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/kunwind.h"
#include "bpf/sampler.h"
#include "bpf/zt.skel.h"
#include "libprof/log.h"

struct sampler {
	struct zt_bpf *skel;
	struct ring_buffer *rb;
	int *fds;
	struct bpf_link **links;
	int nr;
	const int *cpus;
	sampler_cb cb;
	void *ctx;
	struct perf_event_attr attr;
	struct bpf_link *launch; /* the USDT probe zt:launch, when attached */
	bool kunwind;
	bool python;
};

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = 0;
	zt_debug("libbpf: %s", msg);
	return 0;
}

static int handle(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	const struct zt_sample_event *e = data;
	size_t need;

	if (size < ZT_SAMPLE_HDR_SIZE)
		return 0;
	need = ZT_SAMPLE_HDR_SIZE + ((size_t)e->nk + e->nu + 2 * (size_t)ZT_EV_PY(e->flags)) * 8;
	if (ZT_EV_PY(e->flags) > ZT_BPF_MAX_PY || (ZT_EV_PY(e->flags) && e->flags & ZT_EV_USTACK))
		return 0;
	if (e->flags & ZT_EV_USTACK)
		need += ZT_USTACK_PART_SIZE + (size_t)e->ustack_len;
	if (size < need || e->ustack_len > ZT_USTACK_MAX)
		return 0;
	s->cb(s->ctx, e, size);
	return 0;
}

/* The ring for records with stack snapshots: about half a second of them
 * on every CPU, and at least what the caller asked for. */
static uint32_t ring_size(const struct sampler_opts *o)
{
	uint64_t rec = ZT_SAMPLE_HDR_SIZE + 2 * 8 * 32 + ZT_USTACK_PART_SIZE + o->ustack_size;
	uint64_t hz = 4000, want, sz = o->ringbuf_bytes;

	if (o->freq && o->freq_or_period)
		hz = o->freq_or_period;
	else if (o->type == PERF_TYPE_SOFTWARE && o->freq_or_period)
		hz = 1000000000ull / o->freq_or_period; /* ns */
	want = (uint64_t)(o->nr_cpus > 0 ? o->nr_cpus : 1) * (hz ? hz : 1) * rec / 2;

	while (sz < want && sz < (256u << 20))
		sz <<= 1;
	return (uint32_t)sz;
}

static int perf_open(struct perf_event_attr *a, int cpu)
{
	int fd = (int)syscall(__NR_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int sampler_open(const struct sampler_opts *o, sampler_cb cb, void *ctx, struct sampler **out,
		 char *msg, size_t msglen)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = o->btf_path);
	uint32_t ring = o->ustack_size ? ring_size(o) : o->ringbuf_bytes;
	struct sampler *s;
	int i, err, ncpu;

	*out = NULL;
	msg[0] = 0;
	libbpf_set_print(libbpf_log);
	if (o->ustack_size > ZT_USTACK_MAX || o->ustack_size % 8)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cb = cb;
	s->ctx = ctx;
	s->cpus = o->cpus;
	s->fds = calloc(o->nr_cpus, sizeof(*s->fds));
	s->links = calloc(o->nr_cpus, sizeof(*s->links));
	if (!s->fds || !s->links) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < o->nr_cpus; i++)
		s->fds[i] = -1;

	/* The perf events first: they tell whether the event type exists and
	 * whether we may sample system-wide, before any BPF is loaded. */
	s->attr.size = sizeof(s->attr);
	s->attr.type = o->type;
	s->attr.config = o->config;
	s->attr.freq = o->freq;
	s->attr.sample_period = o->freq_or_period;
	s->attr.exclude_kernel = o->exclude_kernel;
	s->attr.disabled = 1;
	for (i = 0; i < o->nr_cpus; i++) {
		s->fds[i] = perf_open(&s->attr, o->cpus[i]);
		if (s->fds[i] < 0) {
			err = s->fds[i];
			snprintf(msg, msglen, "perf_event_open on CPU %d: %s", o->cpus[i], strerror(-err));
			if (err == -EOPNOTSUPP || err == -ENODEV)
				err = -ENOENT;
			goto fail;
		}
		s->nr = i + 1;
	}

	s->skel = zt_bpf__open_opts(&oo);
	if (!s->skel) {
		err = -errno;
		snprintf(msg, msglen, "cannot open the BPF object: %s", strerror(-err));
		goto fail;
	}
	s->skel->rodata->filter_mode = o->filter_mode;
	s->skel->rodata->follow_children = o->follow_children;
	s->skel->rodata->callchain = o->callchain;
	s->skel->rodata->ustack_size = o->ustack_size;
	s->skel->rodata->wakeup_bytes = ring / 4;
	err = bpf_map__set_max_entries(s->skel->maps.events, ring);
	if (err)
		goto fail;
	/* the snapshot scratch: one entry per possible CPU (ids may have holes) */
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		err = ncpu ? ncpu : -EINVAL;
		goto fail;
	}
	err = bpf_map__set_max_entries(s->skel->maps.uscratch, o->ustack_size ? (uint32_t)ncpu : 1);
	if (err)
		goto fail;
	if (o->kunwind && (!o->callchain || !o->uw_procs || !o->uw_files ||
			   !o->uw_pages || !o->uw_entries)) {
		err = -EINVAL;
		goto fail;
	}
	s->kunwind = o->kunwind;
	s->skel->rodata->kunwind = o->kunwind;
	if ((err = bpf_map__set_max_entries(s->skel->maps.uw_procs, o->kunwind ? o->uw_procs : 1)) ||
	    (err = bpf_map__set_max_entries(s->skel->maps.uw_files, o->kunwind ? o->uw_files : 1)) ||
	    (err = bpf_map__set_max_entries(s->skel->maps.uw_pages, o->kunwind ? o->uw_pages : 1)) ||
	    (err = bpf_map__set_max_entries(s->skel->maps.uw_entries,
					    o->kunwind ? (o->uw_entries + 1) / 2 : 1)) ||
	    (err = bpf_map__set_max_entries(s->skel->maps.uw_rules, o->kunwind ? ZT_UW_RULES : 1)))
		goto fail;
	s->python = o->python;
	s->skel->rodata->python = o->python;
	if ((err = bpf_map__set_max_entries(s->skel->maps.py_procs, o->python ? SAMPLER_PY_PROCS : 1)) ||
	    (err = bpf_map__set_max_entries(s->skel->maps.py_threads,
					    o->python ? SAMPLER_PY_THREADS : 1)) ||
	    (err = bpf_map__set_max_entries(s->skel->maps.py_codes,
					    o->python ? SAMPLER_PY_CODES : 1)))
		goto fail;
	if (o->filter_mode != ZT_FILTER_TGID && !o->kunwind && !o->python)
		bpf_program__set_autoload(s->skel->progs.zt_fork, false);
	if (!o->launches)
		bpf_program__set_autoload(s->skel->progs.zt_launch, false);
	err = zt_bpf__load(s->skel);
	if (err == -EACCES && !geteuid()) {
		/* root: not a matter of privileges but the verifier's refusal */
		snprintf(msg, msglen, "the kernel's verifier refused the BPF program (-vv shows "
			 "its log)");
		err = -EINVAL;
		goto fail;
	}
	if (err) {
		snprintf(msg, msglen, "the kernel refused the BPF program: %s", strerror(-err));
		goto fail;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), handle, s, NULL);
	if (!s->rb) {
		err = -errno;
		snprintf(msg, msglen, "cannot map the BPF ring buffer: %s", strerror(-err));
		goto fail;
	}
	*out = s;
	return 0;
fail:
	sampler_free(s);
	return err;
}

void sampler_free(struct sampler *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++) {
		bpf_link__destroy(s->links[i]);
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	}
	bpf_link__destroy(s->launch);
	ring_buffer__free(s->rb);
	zt_bpf__destroy(s->skel);
	free(s->fds);
	free(s->links);
	free(s);
}

static int add_key(int map_fd, uint32_t key)
{
	uint8_t one = 1;

	return bpf_map_update_elem(map_fd, &key, &one, BPF_ANY) ? -errno : 0;
}

int sampler_uw_maps(const struct sampler *s, struct sampler_uw_maps *m)
{
	if (!s->kunwind)
		return -ENOENT;
	m->procs = bpf_map__fd(s->skel->maps.uw_procs);
	m->files = bpf_map__fd(s->skel->maps.uw_files);
	m->pages = bpf_map__fd(s->skel->maps.uw_pages);
	m->entries = bpf_map__fd(s->skel->maps.uw_entries);
	m->rules = bpf_map__fd(s->skel->maps.uw_rules);
	return 0;
}

int sampler_py_set(struct sampler *s, uint32_t tgid, const struct zt_py_proc *pp)
{
	if (!s->python)
		return -ENOENT;
	return bpf_map_update_elem(bpf_map__fd(s->skel->maps.py_procs), &tgid, pp, BPF_ANY) ? -errno
											    : 0;
}

void sampler_py_del(struct sampler *s, uint32_t tgid)
{
	if (s->python)
		bpf_map_delete_elem(bpf_map__fd(s->skel->maps.py_procs), &tgid);
}

int sampler_add_tgid(struct sampler *s, uint32_t tgid)
{
	return add_key(bpf_map__fd(s->skel->maps.tgids), tgid);
}

int sampler_add_tid(struct sampler *s, uint32_t tid)
{
	return add_key(bpf_map__fd(s->skel->maps.tids), tid);
}

int sampler_start(struct sampler *s)
{
	int i, err;

	if (s->skel->progs.zt_fork && bpf_program__autoload(s->skel->progs.zt_fork)) {
		err = zt_bpf__attach(s->skel);
		if (err)
			return err;
	}
	for (i = 0; i < s->nr; i++) {
		s->links[i] = bpf_program__attach_perf_event(s->skel->progs.zt_sample, s->fds[i]);
		if (!s->links[i])
			return -errno;
	}
	return 0;
}

int sampler_attach_launches(struct sampler *s, const char *lib)
{
	if (!bpf_program__autoload(s->skel->progs.zt_launch))
		return -EINVAL;
	if (s->launch)
		return -EEXIST;
	/* every process, present and future, that maps lib (the filter maps
	 * still choose which ones are kept) */
	s->launch = bpf_program__attach_usdt(s->skel->progs.zt_launch, -1, lib, "zt", "launch", NULL);
	return s->launch ? 0 : -errno;
}

void sampler_stop(struct sampler *s)
{
	int i;

	for (i = 0; i < s->nr; i++)
		ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	bpf_link__destroy(s->launch);
	s->launch = NULL;
}

int sampler_poll(struct sampler *s, int timeout_ms)
{
	int n = ring_buffer__poll(s->rb, timeout_ms), m;

	if (n < 0 && n != -EINTR)
		return n;
	/* records arrive without wakeups (BPF_RB_NO_WAKEUP): read them all */
	m = ring_buffer__consume(s->rb);
	return m < 0 ? m : (n > 0 ? n : 0) + m;
}

int sampler_fd(const struct sampler *s)
{
	return ring_buffer__epoll_fd(s->rb);
}

void sampler_get_stats(const struct sampler *s, struct sampler_stats *st)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(s->skel->maps.stats), i;
	struct bpf_prog_info info;
	uint32_t len = sizeof(info), k;
	uint64_t *v;

	memset(st, 0, sizeof(*st));
	v = ncpu > 0 ? calloc(ncpu, sizeof(*v)) : NULL;
	for (k = 0; v && k < ZT_STAT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (i = 0; i < ncpu; i++) {
			if (k == ZT_STAT_SAMPLES)
				st->samples += v[i];
			else
				st->lost += v[i];
		}
	}
	free(v);
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(s->skel->progs.zt_sample), &info, &len)) {
		st->run_ns = info.run_time_ns;
		st->run_cnt = info.run_cnt;
	}
}
