// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf.data writer (layout: tools/perf/util/header.c perf_session__write_header,
 * write_build_id & co., include/uapi/linux/perf_event.h): the mirror of
 * formats/perfdata.c, one event, file mode, this byte order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "formats/perfwrite.h"
#include "formats/perftrace.h"

#define HDR_SIZE 104
#define ATTR_SIZE (sizeof(struct perf_event_attr) + 16)
#define NAME_ALIGN 64

enum {
	FEAT_TRACING_DATA = 1, FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_VERSION = 5,
	FEAT_ARCH = 6, FEAT_NRCPUS = 7, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12,
	FEAT_SAMPLE_TIME = 21,
};

#define REC_FINISHED_ROUND 68
#define ROUND_EVERY 8192 /* records between FINISHED_ROUNDs */

#define MISC_COMM_EXEC (1u << 13)
#define MISC_MMAP_BUILD_ID (1u << 14)
#define MISC_BUILD_ID_SIZE (1u << 15)

/* and PERF_SAMPLE_CPU when the samples have cpus (perf record -a, -C),
 * PERF_SAMPLE_CALLCHAIN when they have call chains (perf record -g) */
#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define EVENT_ID 1      /* the id of the first event; event i has EVENT_ID + i */

#define REC_MAX 65535 /* records have a u16 size */

/* Output buffered in memory, written with pwrite at known offsets. */
struct wr {
	int fd;
	uint64_t off; /* file offset of buf[0] */
	uint8_t *buf;
	size_t len, cap;
	int err;
	int has_cpu;  /* PERF_SAMPLE_CPU: in samples and trailers */
	int chains;   /* PERF_SAMPLE_CALLCHAIN: in samples */
	int multi;    /* several events: PERF_SAMPLE_IDENTIFIER in samples and trailers */
	const struct perf_event_attr *attrs; /* by event index (one: all samples the first's) */
	size_t nr_attrs;
	uint8_t rec[REC_MAX + 1];
	size_t rlen;
};

static int wr_flush(struct wr *w)
{
	size_t done = 0;

	while (!w->err && done < w->len) {
		ssize_t n = pwrite(w->fd, w->buf + done, w->len - done, (off_t)(w->off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			w->err = -errno;
		} else if (n == 0) {
			w->err = -EIO;
		} else {
			done += (size_t)n;
		}
	}
	w->off += w->len;
	w->len = 0;
	return w->err;
}

static void put(struct wr *w, const void *p, size_t n)
{
	if (w->err)
		return;
	if (w->cap - w->len < n) {
		size_t cap = w->cap ? w->cap : 1u << 20;
		uint8_t *nb;

		while (cap - w->len < n)
			cap *= 2;
		nb = realloc(w->buf, cap);
		if (!nb) {
			w->err = -ENOMEM;
			return;
		}
		w->buf = nb;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	if (w->len >= (1u << 20))
		wr_flush(w);
}

static void put_u32(struct wr *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put_u64(struct wr *w, uint64_t v)
{
	put(w, &v, 8);
}

static uint64_t wr_pos(const struct wr *w)
{
	return w->off + w->len;
}

/* header.c do_write_string: u32 len (NUL included, padded to 64), the bytes */
static void put_str(struct wr *w, const char *s)
{
	static const uint8_t zero[NAME_ALIGN];
	size_t l = strlen(s), padded = (l + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	put_u32(w, (uint32_t)padded);
	put(w, s, l);
	put(w, zero, padded - l);
}

/* ---- one record at a time in w->rec ------------------------------------ */

static void rec_start(struct wr *w, uint32_t type, uint16_t misc)
{
	memset(w->rec, 0, 8);
	memcpy(w->rec, &type, 4);
	memcpy(w->rec + 4, &misc, 2);
	w->rlen = 8;
}

static int rec_put(struct wr *w, const void *p, size_t n)
{
	if (n > REC_MAX - w->rlen)
		return -EFBIG;
	memcpy(w->rec + w->rlen, p, n);
	w->rlen += n;
	return 0;
}

static int rec_u32(struct wr *w, uint32_t v)
{
	return rec_put(w, &v, 4);
}

static int rec_u64(struct wr *w, uint64_t v)
{
	return rec_put(w, &v, 8);
}

/* a NUL-terminated name padded to 8 bytes (perf's PERF_ALIGN(len + 1, 8)) */
static int rec_name(struct wr *w, const char *s, size_t max)
{
	static const uint8_t zero[8];
	size_t l = strnlen(s, max);
	int ret;

	if ((ret = rec_put(w, s, l)))
		return ret;
	return rec_put(w, zero, 8 - l % 8);
}

/* the sample_id_all trailer: TID, TIME, [CPU] */
static int rec_trailer(struct wr *w, uint32_t pid, uint32_t tid, uint64_t ts)
{
	int ret = rec_u32(w, pid);

	ret = ret ? ret : rec_u32(w, tid);
	ret = ret ? ret : rec_u64(w, ts);
	if (w->has_cpu)
		ret = ret ? ret : rec_u64(w, 0);
	if (w->multi) /* side-band is the first event's */
		ret = ret ? ret : rec_u64(w, EVENT_ID);
	return ret;
}

static void rec_end(struct wr *w)
{
	uint16_t size = (uint16_t)w->rlen;

	memcpy(w->rec + 6, &size, 2);
	put(w, w->rec, w->rlen);
}

/* ---- the records ------------------------------------------------------- */

static int is_kernel_text(const struct prof_mmap *m)
{
	return m->pid == ZT_PID_KERNEL && !strncmp(m->path, "[kernel.kallsyms]", 17);
}

static int write_task(struct wr *w, const struct prof_task *t)
{
	int ret = 0;

	switch (t->kind) {
	case PROF_TASK_COMM:
	case PROF_TASK_EXEC:
		rec_start(w, PERF_RECORD_COMM, PERF_RECORD_MISC_USER |
				 (t->kind == PROF_TASK_EXEC ? MISC_COMM_EXEC : 0));
		ret = rec_u32(w, t->pid);
		ret = ret ? ret : rec_u32(w, t->tid);
		ret = ret ? ret : rec_name(w, t->comm, sizeof(t->comm));
		break;
	case PROF_TASK_FORK:
	case PROF_TASK_EXIT:
		rec_start(w, t->kind == PROF_TASK_FORK ? PERF_RECORD_FORK : PERF_RECORD_EXIT, 0);
		ret = rec_u32(w, t->pid);
		ret = ret ? ret : rec_u32(w, t->ppid);
		ret = ret ? ret : rec_u32(w, t->tid);
		ret = ret ? ret : rec_u32(w, t->ptid);
		ret = ret ? ret : rec_u64(w, t->ts);
		break;
	default:
		return 0;
	}
	ret = ret ? ret : rec_trailer(w, t->pid, t->tid, t->ts);
	if (!ret)
		rec_end(w);
	return ret;
}

/* The kernel and its modules as perf synthesizes them: MMAP, pid -1. */
static int write_kernel_mmap(struct wr *w, const struct prof_mmap *m)
{
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s%s", m->path,
		 is_kernel_text(m) && !strcmp(m->path, "[kernel.kallsyms]") ? "_text" : "");
	rec_start(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	ret = rec_u32(w, UINT32_MAX);
	ret = ret ? ret : rec_u32(w, 0);
	ret = ret ? ret : rec_u64(w, m->start);
	ret = ret ? ret : rec_u64(w, m->len);
	ret = ret ? ret : rec_u64(w, m->pgoff);
	ret = ret ? ret : rec_name(w, path, sizeof(path));
	ret = ret ? ret : rec_trailer(w, UINT32_MAX, 0, m->ts);
	if (!ret)
		rec_end(w);
	return ret;
}

static int write_mmap(struct wr *w, const struct prof_mmap *m)
{
	uint8_t bid[24] = { 0 };
	uint16_t misc = PERF_RECORD_MISC_USER;
	int ret;

	if (m->pid == ZT_PID_KERNEL)
		return write_kernel_mmap(w, m);
	if (m->build_id.len) {
		misc |= MISC_MMAP_BUILD_ID;
		bid[0] = m->build_id.len; /* build_id_size, 3 reserved bytes, build_id[20] */
		memcpy(bid + 4, m->build_id.data, m->build_id.len);
	}
	rec_start(w, PERF_RECORD_MMAP2, misc);
	ret = rec_u32(w, m->pid);
	ret = ret ? ret : rec_u32(w, m->tid);
	ret = ret ? ret : rec_u64(w, m->start);
	ret = ret ? ret : rec_u64(w, m->len);
	ret = ret ? ret : rec_u64(w, m->pgoff);
	ret = ret ? ret : rec_put(w, bid, sizeof(bid));
	ret = ret ? ret : rec_u32(w, m->prot ? m->prot : 5);  /* PROT_READ|PROT_EXEC */
	ret = ret ? ret : rec_u32(w, m->flags ? m->flags : 2); /* MAP_PRIVATE */
	ret = ret ? ret : rec_name(w, m->path, 4096);
	ret = ret ? ret : rec_trailer(w, m->pid, m->tid, m->ts);
	if (!ret)
		rec_end(w);
	return ret;
}

/* PERF_SAMPLE_RAW: u32 size, the bytes, zeros up to 8-byte alignment (the
 * kernel's padding, counted in size); a sample without a raw record gets
 * 4 zero bytes. */
static int write_raw(struct wr *w, const struct profile *p, const struct prof_sample *s)
{
	static const uint8_t zero[8];
	size_t len = 0, padded;
	const uint8_t *raw = profile_sample_raw(p, s, &len);
	int ret;

	padded = ((len + 4 + 7) & ~(size_t)7) - 4;
	ret = rec_u32(w, (uint32_t)padded);
	ret = ret ? ret : rec_put(w, raw ? raw : zero, len);
	return ret ? ret : rec_put(w, zero, padded - len);
}

static int write_sample(struct wr *w, const struct profile *p, const struct prof_sample *s)
{
	const struct prof_stack *st = &p->stacks[s->stack];
	const uint64_t *ips = profile_stack_ips(p, s->stack);
	uint64_t nr = (uint64_t)st->nk + st->nu + !!st->nk + !!st->nu;
	int ret;

	rec_start(w, PERF_RECORD_SAMPLE, st->nk ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	ret = w->multi ? rec_u64(w, EVENT_ID + s->event) : 0;
	ret = ret ? ret : rec_u64(w, st->nk + st->nu ? ips[0] : 0);
	ret = ret ? ret : rec_u32(w, s->pid);
	ret = ret ? ret : rec_u32(w, s->tid);
	ret = ret ? ret : rec_u64(w, s->ts);
	if (w->has_cpu)
		ret = ret ? ret : rec_u64(w, s->cpu == UINT32_MAX ? 0 : s->cpu);
	ret = ret ? ret : rec_u64(w, s->weight);
	if (!ret && w->chains) {
		ret = rec_u64(w, nr);
		if (!ret && st->nk) {
			ret = rec_u64(w, PERF_CONTEXT_KERNEL);
			ret = ret ? ret : rec_put(w, ips, st->nk * sizeof(*ips));
		}
		if (!ret && st->nu) {
			ret = rec_u64(w, PERF_CONTEXT_USER);
			ret = ret ? ret : rec_put(w, ips + st->nk, st->nu * sizeof(*ips));
		}
	}
	if (!ret && (w->attrs[s->event < w->nr_attrs ? s->event : 0].sample_type & PERF_SAMPLE_RAW))
		ret = write_raw(w, p, s);
	if (!ret)
		rec_end(w);
	return ret;
}

/* ---- the data section: everything merged by time ------------------------ */

enum { K_TASK, K_MMAP, K_SAMPLE }; /* side-band before samples at equal times */

struct ent {
	uint64_t ts;
	uint32_t kind;
	uint32_t idx; /* file order within a kind */
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* _text (and _etext) from the kallsyms blob ("ffffffff81000000 T _text"):
 * 0 when it has none */
static uint64_t kallsyms_text(const struct profile *p, uint64_t *etext)
{
	const struct prof_blob *b = profile_find_blob(p, PROF_BLOB_KALLSYMS, UINT32_MAX);
	uint64_t text = 0;
	char line[256];
	size_t i = 0;

	*etext = 0;
	while (b && i < b->len) {
		size_t l = 0;
		unsigned long long a;
		char t, name[128];

		while (i < b->len && b->data[i] != '\n') {
			if (l < sizeof(line) - 1)
				line[l++] = (char)b->data[i];
			i++;
		}
		i++;
		line[l] = 0;
		if (sscanf(line, "%llx %c %127s", &a, &t, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = a;
		else if (!strcmp(name, "_etext"))
			*etext = a;
	}
	return text;
}

static int write_data(struct wr *w, const struct profile *p, const struct prof_mmap *ktext)
{
	size_t n = p->nr_tasks + p->nr_mmaps + p->nr_samples, i, k = 0;
	struct ent *e;
	int ret = 0;

	if (n < p->nr_samples || n > SIZE_MAX / sizeof(*e) || n > UINT32_MAX)
		return -ENOMEM;
	e = malloc((n ? n : 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (i = 0; i < p->nr_tasks; i++)
		e[k++] = (struct ent){ p->tasks[i].ts, K_TASK, (uint32_t)i };
	for (i = 0; i < p->nr_mmaps; i++)
		e[k++] = (struct ent){ p->mmaps[i].ts, K_MMAP, (uint32_t)i };
	for (i = 0; i < p->nr_samples; i++)
		e[k++] = (struct ent){ p->samples[i].ts, K_SAMPLE, (uint32_t)i };
	qsort(e, n, sizeof(*e), ent_cmp);
	if (ktext)
		ret = write_kernel_mmap(w, ktext);
	for (i = 0; i < n && !ret && !w->err; i++) {
		if (e[i].kind == K_TASK)
			ret = write_task(w, &p->tasks[e[i].idx]);
		else if (e[i].kind == K_MMAP)
			ret = write_mmap(w, &p->mmaps[e[i].idx]);
		else if (p->samples[e[i].idx].stack < p->nr_stacks)
			ret = write_sample(w, p, &p->samples[e[i].idx]);
		if (!ret && i % ROUND_EVERY == ROUND_EVERY - 1) {
			rec_start(w, REC_FINISHED_ROUND, 0);
			rec_end(w);
		}
	}
	if (!ret && n) {
		rec_start(w, REC_FINISHED_ROUND, 0);
		rec_end(w);
	}
	free(e);
	return ret ? ret : w->err;
}

/* ---- header features ---------------------------------------------------- */

struct bid_ent {
	const char *path;
	const struct prof_build_id *b;
	int kernel;
};

static int bid_cmp(const void *a, const void *b)
{
	const struct bid_ent *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (x->b->len != y->b->len)
		return x->b->len < y->b->len ? -1 : 1;
	return memcmp(x->b->data, y->b->data, x->b->len);
}

static void put_build_id(struct wr *w, const char *path, const struct prof_build_id *b,
			 int kernel)
{
	static const uint8_t zero[NAME_ALIGN];
	size_t l = strlen(path), padded = (l + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	uint8_t rec[36] = { 0 };
	uint16_t misc = (uint16_t)((kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
				   MISC_BUILD_ID_SIZE);
	uint16_t size = (uint16_t)(sizeof(rec) + padded);
	int32_t pid = -1; /* the host machine, as perf writes it */

	if (sizeof(rec) + padded > REC_MAX)
		return;
	memcpy(rec + 4, &misc, 2);
	memcpy(rec + 6, &size, 2);
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, b->data, b->len);
	rec[32] = b->len;
	put(w, rec, sizeof(rec));
	put(w, path, l);
	put(w, zero, padded - l);
}

static int feat_build_id(struct wr *w, const struct profile *p)
{
	const struct prof_blob *kb = profile_find_blob(p, PROF_BLOB_KERNEL_BUILD_ID, UINT32_MAX);
	struct prof_build_id kbid = { 0 };
	struct bid_ent *v;
	size_t i, n = 0;

	v = malloc((p->nr_mmaps ? p->nr_mmaps : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->nr_mmaps; i++) {
		const struct prof_mmap *m = &p->mmaps[i];

		if (!m->build_id.len)
			continue;
		if (m->pid == ZT_PID_KERNEL && is_kernel_text(m)) {
			kbid = m->build_id;
			continue;
		}
		v[n++] = (struct bid_ent){ m->path, &m->build_id, m->pid == ZT_PID_KERNEL };
	}
	if (kb && kb->len) {
		kbid.len = (uint8_t)(kb->len > ZT_BUILD_ID_MAX ? ZT_BUILD_ID_MAX : kb->len);
		memcpy(kbid.data, kb->data, kbid.len);
	}
	if (kbid.len)
		put_build_id(w, "[kernel.kallsyms]", &kbid, 1);
	if (n)
		qsort(v, n, sizeof(*v), bid_cmp);
	for (i = 0; i < n; i++)
		if (!i || bid_cmp(&v[i - 1], &v[i]))
			put_build_id(w, v[i].path, v[i].b, v[i].kernel);
	free(v);
	return w->err;
}

static const char *meta_or(const struct profile *p, const char *key, const char *def)
{
	const char *v = profile_get_meta(p, key);

	return v && *v ? v : def;
}

static void feat_cmdline(struct wr *w, const struct profile *p)
{
	const char *s = meta_or(p, "cmdline", "zt");
	char arg[4096];
	uint32_t nr = 0;
	const char *q;

	/* the model keeps the arguments joined with spaces */
	for (q = s; *q;) {
		while (*q == ' ')
			q++;
		if (!*q)
			break;
		nr++;
		while (*q && *q != ' ')
			q++;
	}
	put_u32(w, nr);
	for (q = s; *q;) {
		size_t l = 0;

		while (*q == ' ')
			q++;
		if (!*q)
			break;
		while (*q && *q != ' ') {
			if (l < sizeof(arg) - 1)
				arg[l++] = *q;
			q++;
		}
		arg[l] = 0;
		put_str(w, arg);
	}
}

/* The attr of event idx of p: its type, config, rate and exclusions from
 * the event table; without one, cpu-clock or task-clock as the meta say. */
static void fill_attr(struct perf_event_attr *a, const struct profile *p, const struct wr *w,
		      uint32_t idx)
{
	const char *ev = meta_or(p, "event", "cpu-clock");
	const char *freq = profile_get_meta(p, "freq"), *period = profile_get_meta(p, "period");
	const struct prof_event *e = idx < p->nr_events ? &p->events[idx] : NULL;
	uint64_t tp_id;

	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = !strncmp(ev, "task-clock", 10) && (!ev[10] || ev[10] == ':') ?
			    PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK;
	if (period && !freq) {
		a->sample_period = strtoull(period, NULL, 10);
		if (!a->sample_period)
			a->sample_period = 1;
	} else {
		a->freq = 1;
		a->sample_freq = freq ? strtoull(freq, NULL, 10) : 4000;
		if (!a->sample_freq)
			a->sample_freq = 4000;
	}
	if (e && e->type <= PERF_TYPE_SOFTWARE) {
		a->type = e->type;
		a->config = e->config;
	}
	if (e && e->type == PERF_TYPE_TRACEPOINT &&
	    !perftrace_event_id(p, e->name ? e->name : "", &tp_id)) {
		a->config = tp_id;
		/* its format is in the tracing data: perf prints its fields */
		a->type = PERF_TYPE_TRACEPOINT;
		a->sample_type |= PERF_SAMPLE_RAW;
	}
	if (e) {
		/* a tracepoint without its format keeps cpu-clock's type: perf
		 * would want it in the tracing data */
		a->freq = !!(e->flags & PROF_EV_FREQ);
		a->sample_period = e->period ? e->period : a->freq ? 4000 : 1;
		a->exclude_user = !!(e->flags & PROF_EV_EXCL_USER);
		a->exclude_kernel = !!(e->flags & PROF_EV_EXCL_KERNEL);
	}
	a->sample_type |= SAMPLE_TYPE | (w->has_cpu ? PERF_SAMPLE_CPU : 0) |
			  (w->chains ? PERF_SAMPLE_CALLCHAIN : 0) |
			  (w->multi ? PERF_SAMPLE_IDENTIFIER : 0);
	a->disabled = 1;
	a->inherit = 1;
	a->enable_on_exec = 1;
	a->sample_id_all = 1;
	a->exclude_guest = 1;
	if (idx) /* the side-band comes with the first event, as perf's */
		return;
	a->mmap = 1;
	a->comm = 1;
	a->task = 1;
	a->mmap2 = 1;
	a->comm_exec = 1;
}

static void feat_event_desc(struct wr *w, const struct profile *p,
			    const struct perf_event_attr *a)
{
	uint32_t i, n = w->multi ? (uint32_t)p->nr_events : 1;

	put_u32(w, n);
	put_u32(w, (uint32_t)sizeof(*a));
	for (i = 0; i < n; i++) {
		const char *name = profile_event_name(p, i);

		put(w, &a[i], sizeof(*a));
		put_u32(w, 1);
		put_str(w, name ? name : meta_or(p, "event", "cpu-clock"));
		put_u64(w, EVENT_ID + i);
	}
}

static void feat_nrcpus(struct wr *w, const struct profile *p)
{
	const char *v = profile_get_meta(p, "nr_cpus");
	unsigned long n = v ? strtoul(v, NULL, 10) : 0;
	size_t i;

	if (!n || n > 1u << 20) {
		n = 1;
		for (i = 0; i < p->nr_samples; i++)
			if (p->samples[i].cpu != UINT32_MAX && p->samples[i].cpu >= n)
				n = p->samples[i].cpu + 1ul;
	}
	put_u32(w, (uint32_t)n);
	put_u32(w, (uint32_t)n);
}

static void feat_sample_time(struct wr *w, const struct profile *p)
{
	const char *a = profile_get_meta(p, "time_start"), *b = profile_get_meta(p, "time_end");
	uint64_t first = 0, last = 0;
	size_t i;

	if (a && b) {
		first = strtoull(a, NULL, 10);
		last = strtoull(b, NULL, 10);
	} else {
		for (i = 0; i < p->nr_samples; i++) {
			if (!i || p->samples[i].ts < first)
				first = p->samples[i].ts;
			if (p->samples[i].ts > last)
				last = p->samples[i].ts;
		}
	}
	put_u64(w, first);
	put_u64(w, last);
}

/* HEADER_TRACING_DATA: the tracepoint formats (formats/perftrace.h) */
static int feat_tracing_data(struct wr *w, const struct profile *p)
{
	struct zbuf b;
	int ret;

	zbuf_init(&b);
	ret = perftrace_write(p, &b);
	if (!ret)
		put(w, b.data, b.len);
	zbuf_release(&b);
	return ret;
}

static const unsigned feats[] = {
	FEAT_TRACING_DATA, FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH,
	FEAT_NRCPUS, FEAT_CMDLINE, FEAT_EVENT_DESC, FEAT_SAMPLE_TIME,
};
#define NR_FEATS (sizeof(feats) / sizeof(*feats))

/* The table of {offset, size}, then the sections, in bit order. */
static int write_features(struct wr *w, const struct profile *p,
			  const struct perf_event_attr *a, uint8_t bitmap[32])
{
	uint64_t table = wr_pos(w), sec[NR_FEATS][2];
	unsigned use[NR_FEATS];
	size_t i, nu = 0;
	int ret = 0;

	/* the tracing data only with tracepoint formats to write */
	for (i = 0; i < NR_FEATS; i++)
		if (feats[i] != FEAT_TRACING_DATA ||
		    profile_find_blob(p, PROF_BLOB_TRACE_FORMAT, UINT32_MAX))
			use[nu++] = feats[i];
	for (i = 0; i < nu; i++) {
		bitmap[use[i] / 8] |= (uint8_t)(1u << (use[i] % 8));
		put_u64(w, 0);
		put_u64(w, 0);
	}
	for (i = 0; i < nu && !ret; i++) {
		sec[i][0] = wr_pos(w);
		switch (use[i]) {
		case FEAT_TRACING_DATA:
			ret = feat_tracing_data(w, p);
			break;
		case FEAT_BUILD_ID:
			ret = feat_build_id(w, p);
			break;
		case FEAT_HOSTNAME:
			put_str(w, meta_or(p, "hostname", "unknown"));
			break;
		case FEAT_OSRELEASE:
			put_str(w, meta_or(p, "os_release", "unknown"));
			break;
		case FEAT_VERSION:
			put_str(w, meta_or(p, "perf_version", "zt"));
			break;
		case FEAT_ARCH:
			put_str(w, "x86_64");
			break;
		case FEAT_NRCPUS:
			feat_nrcpus(w, p);
			break;
		case FEAT_CMDLINE:
			feat_cmdline(w, p);
			break;
		case FEAT_EVENT_DESC:
			feat_event_desc(w, p, a);
			break;
		case FEAT_SAMPLE_TIME:
			feat_sample_time(w, p);
			break;
		}
		sec[i][1] = wr_pos(w) - sec[i][0];
	}
	if (ret || wr_flush(w))
		return ret ? ret : w->err;
	/* the table is behind us now: patch it in the file */
	for (i = 0; i < nu; i++) {
		ssize_t n = pwrite(w->fd, sec[i], 16, (off_t)(table + 16 * i));

		if (n != 16)
			return n < 0 ? -errno : -EIO;
	}
	return 0;
}

int perfwrite_fd(const struct profile *p, int fd)
{
	struct perf_event_attr *attr;
	struct prof_mmap ktext = { 0 };
	uint64_t ids_off = HDR_SIZE, attrs_off, data_off, data_end, nev;
	uint8_t hdr[HDR_SIZE] = { 0 }, bitmap[32] = { 0 };
	struct stat st;
	struct wr *w;
	uint64_t v, etext;
	ssize_t n;
	size_t i;
	int ret, have_ktext = 0;

	if (lseek(fd, 0, SEEK_CUR) < 0)
		return -ESPIPE;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	for (i = 0; i < p->nr_samples && !w->has_cpu; i++)
		w->has_cpu = p->samples[i].cpu != UINT32_MAX;
	w->multi = p->nr_events > 1;
	w->chains = profile_has_callchains(p);
	nev = w->multi ? p->nr_events : 1;
	attrs_off = ids_off + 8 * nev;
	attr = calloc(nev, sizeof(*attr));
	if (!attr) {
		free(w);
		return -ENOMEM;
	}
	for (i = 0; i < nev; i++)
		fill_attr(&attr[i], p, w, (uint32_t)i);
	w->attrs = attr;
	w->nr_attrs = nev;

	for (i = 0; i < p->nr_mmaps; i++)
		have_ktext |= is_kernel_text(&p->mmaps[i]);
	if (!have_ktext && (ktext.start = kallsyms_text(p, &etext))) {
		ktext.pid = ZT_PID_KERNEL;
		ktext.len = etext > ktext.start ? etext - ktext.start : ~0ull - ktext.start;
		ktext.pgoff = ktext.start;
		ktext.path = (char *)"[kernel.kallsyms]";
	}

	/* header placeholder, the events' ids, their attrs */
	put(w, hdr, sizeof(hdr));
	for (i = 0; i < nev; i++)
		put_u64(w, EVENT_ID + i);
	for (i = 0; i < nev; i++) {
		put(w, &attr[i], sizeof(*attr));
		put_u64(w, ids_off + 8 * i);
		put_u64(w, 8);
	}
	data_off = wr_pos(w);
	ret = write_data(w, p, ktext.start ? &ktext : NULL);
	if (ret)
		goto out;
	data_end = wr_pos(w);
	ret = write_features(w, p, attr, bitmap);
	if (ret)
		goto out;

	memcpy(hdr, "PERFILE2", 8);
	v = HDR_SIZE;
	memcpy(hdr + 8, &v, 8);
	v = ATTR_SIZE;
	memcpy(hdr + 16, &v, 8);
	memcpy(hdr + 24, &attrs_off, 8);
	v = ATTR_SIZE * nev;
	memcpy(hdr + 32, &v, 8);
	memcpy(hdr + 40, &data_off, 8);
	v = data_end - data_off;
	memcpy(hdr + 48, &v, 8);
	memcpy(hdr + 72, bitmap, sizeof(bitmap));
	n = pwrite(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr)) {
		ret = n < 0 ? -errno : -EIO;
		goto out;
	}
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && ftruncate(fd, (off_t)w->off) < 0)
		ret = -errno;
out:
	free(attr);
	free(w->buf);
	free(w);
	return ret;
}
