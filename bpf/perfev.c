// SPDX-License-Identifier: GPL-2.0-or-later
/* perf_event rings: open, mmap, and decode side-band and sample records. */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bpf/perfev.h"
#include "libprof/array.h"
#include "libprof/log.h"

struct ring {
	int fd;
	int cpu;
	void *base;       /* NULL: output redirected to the ring of the same CPU */
	size_t data_size; /* power of two */
};

struct perfev {
	struct perfev_opts o;
	struct perfev_cbs cb;
	struct perf_event_attr attr; /* the first event's (sample_type and registers are all's) */
	struct perf_event_attr attrs[PERFEV_MAX_EVENTS]; /* with opts.events */
	const char *filters[PERFEV_MAX_EVENTS];		 /* their filters (borrowed) */
	unsigned nr_attrs;
	struct { uint64_t id; unsigned ev; } *ids; /* with several events: the event of an id */
	size_t nr_ids, cap_ids;
	size_t trail;                /* bytes of the sample_id_all trailer */
	struct ring *rings;
	int nr;
	size_t cap;
	uint8_t *tmp; /* a record that wraps around the ring end */
	size_t page;
	uint64_t ips[2 * ZT_MAX_FRAMES];
	uint64_t uregs[PROF_UREGS];
};

/* non-SAMPLE records end with TID, TIME and CPU (sample_id_all), and
 * with several events IDENTIFIER */
#define ID_TRAILER 24

/* perf's x86-64 user register numbers (asm/perf_regs.h) of the DWARF
 * registers, in DWARF order: ax dx cx bx si di bp sp r8-r15 ip */
static const uint8_t perf_reg_of[PROF_UREGS] = { 0, 3, 2, 1, 4, 5, 6, 7,
						  16, 17, 18, 19, 20, 21, 22, 23, 8 };
#define PERF_REGS_MAX 24

int perfev_new(const struct perfev_opts *o, const struct perfev_cbs *cbs, struct perfev **out)
{
	struct perfev *p;
	struct perf_event_attr *a;

	if (o->ustack_size > PROF_USTACK_MAX || o->ustack_size % 8 ||
	    o->nr_events > PERFEV_MAX_EVENTS || (o->nr_events && !o->events))
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->o = *o;
	if (o->nr_events) {
		/* the first event is the template */
		p->o.type = o->events[0].type;
		p->o.config = o->events[0].config;
		p->o.freq = o->events[0].freq;
		p->o.freq_or_period = o->events[0].freq_or_period;
	}
	p->trail = ID_TRAILER;
	p->cb = *cbs;
	p->page = (size_t)sysconf(_SC_PAGESIZE);
	if (!p->o.ring_pages || (p->o.ring_pages & (p->o.ring_pages - 1)))
		p->o.ring_pages = 64;
	p->tmp = malloc(65536);
	if (!p->tmp) {
		free(p);
		return -ENOMEM;
	}
	a = &p->attr;
	a->size = sizeof(*a);
	o = &p->o;
	if (o->type == UINT32_MAX) {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_DUMMY;
		a->sample_period = 1;
		a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	} else {
		a->type = o->type;
		a->config = o->config;
		a->freq = o->freq;
		a->sample_period = o->freq_or_period;
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
		if (o->callchain)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (o->ustack_size) {
			unsigned i;

			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			for (i = 0; i < PROF_UREGS; i++)
				a->sample_regs_user |= 1ull << perf_reg_of[i];
			a->sample_stack_user = o->ustack_size;
		}
		a->exclude_callchain_kernel = o->exclude_kernel;
	}
	a->exclude_kernel = o->exclude_kernel;
	a->exclude_hv = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->disabled = 1;
	a->enable_on_exec = o->enable_on_exec;
	a->inherit = o->inherit;
	a->watermark = 1;
	a->wakeup_watermark = o->prompt ? 1 : (uint32_t)(p->o.ring_pages * p->page / 4);
	if (o->sideband) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = 1;
	}
	if (o->nr_events > 1) {
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		p->trail = ID_TRAILER + 8;
	}
	for (unsigned i = 0; i < o->nr_events; i++) {
		const struct perfev_event *ev = &o->events[i];
		struct perf_event_attr *b = &p->attrs[i];

		*b = *a;
		b->type = ev->type;
		b->config = ev->config;
		b->freq = ev->freq;
		b->sample_period = ev->freq_or_period;
		b->exclude_user = ev->exclude_user;
		b->exclude_kernel = ev->exclude_kernel || o->exclude_kernel;
		b->exclude_callchain_kernel = o->exclude_kernel;
		if (ev->raw)
			b->sample_type |= PERF_SAMPLE_RAW;
		p->filters[i] = ev->filter;
		if (i) /* the side-band comes once */
			b->mmap = b->mmap2 = b->comm = b->comm_exec = b->task = b->build_id = 0;
	}
	p->nr_attrs = o->nr_events ? o->nr_events : 1;
	if (!o->nr_events)
		p->attrs[0] = *a;
	*out = p;
	return 0;
}

void perfev_free(struct perfev *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nr; i++) {
		if (p->rings[i].base)
			munmap(p->rings[i].base, (p->o.ring_pages + 1) * p->page);
		close(p->rings[i].fd);
	}
	free(p->rings);
	free(p->ids);
	free(p->tmp);
	free(p);
}

int perfev_count(const struct perfev *p)
{
	return p->nr;
}

/* Open event ev's attr for (pid, cpu) into the ring of that CPU (made
 * when there is none), or with cpu -1 into lead's ring (-1: a ring of its
 * own). */
static int open_one(struct perfev *p, unsigned ev, pid_t pid, int cpu, int lead)
{
	size_t len = (p->o.ring_pages + 1) * p->page;
	struct perf_event_attr *a = &p->attrs[ev];
	void *base = NULL;
	int fd, err, i, to = lead;

	fd = (int)syscall(__NR_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EINVAL || errno == E2BIG) && a->build_id) {
		/* kernels before 5.12 have no build ids in MMAP2 */
		a->build_id = 0;
		p->attr.build_id = 0;
		fd = (int)syscall(__NR_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0) {
		err = -errno;
		return err == -EOPNOTSUPP || err == -ENODEV ? -ENOENT : err;
	}
	if (p->filters[ev] && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, p->filters[ev])) {
		/* EINVAL: a field or operator the tracepoint does not have */
		err = errno == EINVAL ? -EBADMSG : -errno;
		close(fd);
		return err;
	}
	if (ZT_GROW(p->rings, p->cap, p->nr + 1)) {
		close(fd);
		return -ENOMEM;
	}
	if (p->nr_attrs > 1) {
		uint64_t id;

		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) || ZT_GROW(p->ids, p->cap_ids, p->nr_ids + 1)) {
			err = errno ? -errno : -ENOMEM;
			close(fd);
			return err;
		}
		p->ids[p->nr_ids].id = id;
		p->ids[p->nr_ids++].ev = ev;
	}
	/* Events of one CPU share a ring (perf does the same): inherited
	 * per-task events cannot be mapped with cpu -1, and every ring
	 * counts against the user's perf_event_mlock_kb. */
	for (i = 0; cpu >= 0 && to < 0 && i < p->nr; i++)
		if (p->rings[i].cpu == cpu && p->rings[i].base)
			to = i;
	if (to >= 0) {
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, p->rings[to].fd)) {
			err = -errno;
			close(fd);
			return err;
		}
		p->rings[p->nr++] = (struct ring){ fd, cpu, NULL, 0 };
		return 0;
	}
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	p->rings[p->nr++] = (struct ring){ fd, cpu, base, p->o.ring_pages * p->page };
	return 0;
}

int perfev_open(struct perfev *p, pid_t pid, int cpu)
{
	int err, lead;
	unsigned i;

	err = open_one(p, 0, pid, cpu, -1);
	if (err)
		return err;
	/* the first event's ring, for the others with cpu -1 */
	lead = p->nr - 1;
	while (lead > 0 && !p->rings[lead].base)
		lead--;
	for (i = 1; i < p->nr_attrs; i++)
		if ((err = open_one(p, i, pid, cpu, cpu < 0 ? lead : -1)))
			return err;
	return 0;
}

static int ioctl_all(struct perfev *p, unsigned long req)
{
	int i;

	for (i = 0; i < p->nr; i++)
		if (ioctl(p->rings[i].fd, req, 0))
			return -errno;
	return 0;
}

int perfev_enable(struct perfev *p)
{
	return ioctl_all(p, PERF_EVENT_IOC_ENABLE);
}

int perfev_disable(struct perfev *p)
{
	return ioctl_all(p, PERF_EVENT_IOC_DISABLE);
}

/* Bounded little reader over one record. */
struct rd {
	const uint8_t *p, *end;
};

static int rd_u64(struct rd *r, uint64_t *v)
{
	if (r->end - r->p < 8)
		return -1;
	memcpy(v, r->p, 8);
	r->p += 8;
	return 0;
}

static int rd_u32x2(struct rd *r, uint32_t *a, uint32_t *b)
{
	if (r->end - r->p < 8)
		return -1;
	memcpy(a, r->p, 4);
	memcpy(b, r->p + 4, 4);
	r->p += 8;
	return 0;
}

static void trailer(const struct perfev *p, const uint8_t *rec, size_t size, uint64_t *ts,
		    uint32_t *cpu)
{
	size_t t = p->trail;

	*ts = 0;
	*cpu = 0;
	if (size < sizeof(struct perf_event_header) + t)
		return;
	memcpy(ts, rec + size - t + 8, 8);
	memcpy(cpu, rec + size - t + 16, 4);
}

/* PERF_SAMPLE_REGS_USER (the ABI, then the registers of sample_regs_user
 * in bit order) and PERF_SAMPLE_STACK_USER (size, size bytes, the size
 * actually copied), which follow the call chain. */
static void user_stack(struct perfev *p, struct rd *r, struct perfev_sample *s)
{
	uint64_t abi, pregs[PERF_REGS_MAX] = { 0 }, size, dyn;
	const uint8_t *data;
	unsigned i;

	if (rd_u64(r, &abi))
		return;
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		for (i = 0; i < PERF_REGS_MAX; i++)
			if ((p->attr.sample_regs_user & (1ull << i)) && rd_u64(r, &pregs[i]))
				return;
	}
	if (rd_u64(r, &size) || !size || size > (uint64_t)(r->end - r->p))
		size = 0;
	data = r->p;
	dyn = 0;
	if (size) {
		r->p += size;
		if (rd_u64(r, &dyn) || dyn > size)
			dyn = 0;
	}
	/* a 32-bit task's registers are not the DWARF x86-64 ones: no snapshot */
	if (abi != PERF_SAMPLE_REGS_ABI_64)
		return;
	for (i = 0; i < PROF_UREGS; i++)
		p->uregs[i] = pregs[perf_reg_of[i]];
	s->uregs = p->uregs;
	s->uregs_mask = (1u << PROF_UREGS) - 1;
	s->ustack = data;
	s->ustack_len = (size_t)dyn;
}

/* PERF_SAMPLE_RAW: a u32 size, then size bytes (the kernel pads the
 * record so that the two end 8-aligned; size counts the padding). */
static int raw_record(struct rd *r, struct perfev_sample *s)
{
	uint32_t n;

	if (r->end - r->p < 4)
		return -1;
	memcpy(&n, r->p, 4);
	if (n > (size_t)(r->end - r->p) - 4)
		return -1;
	s->raw = r->p + 4;
	s->raw_len = n;
	r->p += 4 + (size_t)n;
	return 0;
}

static void do_sample(struct perfev *p, const uint8_t *rec, size_t size)
{
	struct rd r = { rec + sizeof(struct perf_event_header), rec + size };
	struct perfev_sample s = { 0 };
	uint64_t ip, nr = 0, i, ctx = PERF_CONTEXT_USER, st;
	uint32_t res;
	unsigned nk = 0, nu = 0;

	if (p->attr.sample_type & PERF_SAMPLE_IDENTIFIER) {
		uint64_t id;
		size_t k;

		if (rd_u64(&r, &id))
			return;
		for (k = 0; k < p->nr_ids && p->ids[k].id != id; k++)
			;
		if (k == p->nr_ids)
			return; /* no event of ours */
		s.event = p->ids[k].ev;
	}
	/* the sample's own event's fields: only some events have RAW */
	st = p->attrs[s.event].sample_type;
	if (rd_u64(&r, &ip) || rd_u32x2(&r, &s.pid, &s.tid) || rd_u64(&r, &s.ts) ||
	    rd_u32x2(&r, &s.cpu, &res) || rd_u64(&r, &s.period))
		return;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (rd_u64(&r, &nr) || nr > (uint64_t)(r.end - r.p) / 8)
			return;
	}
	/* first pass: kernel frames; second: user frames */
	for (i = 0; i < nr; i++) {
		uint64_t v;

		memcpy(&v, r.p + 8 * i, 8);
		if (v >= PERF_CONTEXT_MAX) {
			ctx = v;
			continue;
		}
		if (ctx == PERF_CONTEXT_KERNEL && nk < ZT_MAX_FRAMES)
			p->ips[nk++] = v;
	}
	ctx = PERF_CONTEXT_USER;
	for (i = 0; i < nr; i++) {
		uint64_t v;

		memcpy(&v, r.p + 8 * i, 8);
		if (v >= PERF_CONTEXT_MAX) {
			ctx = v;
			continue;
		}
		if (ctx == PERF_CONTEXT_USER && nu < ZT_MAX_FRAMES)
			p->ips[nk + nu++] = v;
	}
	if (!nr) {
		p->ips[0] = ip;
		if (ip >= 0x8000000000000000ull)
			nk = 1;
		else
			nu = 1;
	}
	s.ips = p->ips;
	s.nk = nk;
	s.nu = nu;
	r.p += nr * 8;
	/* RAW comes after CALLCHAIN, before REGS_USER (perf_output_sample()) */
	if ((st & PERF_SAMPLE_RAW) && raw_record(&r, &s))
		return;
	if (st & PERF_SAMPLE_REGS_USER)
		user_stack(p, &r, &s);
	if (p->cb.sample)
		p->cb.sample(p->cb.ctx, &s);
}

static void do_record(struct perfev *p, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	struct rd r = { rec + sizeof(*h), rec + size - p->trail };
	uint64_t ts;
	uint32_t cpu;

	if (h->type == PERF_RECORD_SAMPLE) {
		do_sample(p, rec, size);
		return;
	}
	trailer(p, rec, size, &ts, &cpu);
	if (r.end < r.p)
		return;
	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		struct prof_mmap m = { .ts = ts };
		const uint8_t *f;
		uint64_t v;
		char path[4096];
		size_t n;

		if (rd_u32x2(&r, &m.pid, &m.tid) || rd_u64(&r, &m.start) || rd_u64(&r, &m.len) ||
		    rd_u64(&r, &m.pgoff) || r.end - r.p < 32)
			return;
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m.build_id.len = r.p[0] <= ZT_BUILD_ID_MAX ? r.p[0] : 0;
			memcpy(m.build_id.data, r.p + 4, ZT_BUILD_ID_MAX);
		}
		r.p += 24;
		if (rd_u32x2(&r, &m.prot, &m.flags))
			return;
		f = r.p;
		n = strnlen((const char *)f, (size_t)(r.end - f));
		if (n >= sizeof(path))
			n = sizeof(path) - 1;
		memcpy(path, f, n);
		path[n] = 0;
		m.path = path;
		(void)v;
		if (p->cb.mmap)
			p->cb.mmap(p->cb.ctx, &m);
		break;
	}
	case PERF_RECORD_COMM: {
		struct prof_task t = { .ts = ts, .kind = PROF_TASK_COMM };
		size_t n;

		if (rd_u32x2(&r, &t.pid, &t.tid))
			return;
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
			t.kind = PROF_TASK_EXEC;
		n = strnlen((const char *)r.p, (size_t)(r.end - r.p));
		if (n >= ZT_COMM_LEN)
			n = ZT_COMM_LEN - 1;
		memcpy(t.comm, r.p, n);
		if (p->cb.task)
			p->cb.task(p->cb.ctx, &t);
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct prof_task t = { .kind = h->type == PERF_RECORD_FORK ? PROF_TASK_FORK : PROF_TASK_EXIT };

		if (rd_u32x2(&r, &t.pid, &t.ppid) || rd_u32x2(&r, &t.tid, &t.ptid) || rd_u64(&r, &t.ts))
			return;
		if (p->cb.task)
			p->cb.task(p->cb.ctx, &t);
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t id, lost;

		if (rd_u64(&r, &id) || rd_u64(&r, &lost))
			return;
		/* a sampling ring loses samples and side-band alike; count as samples there */
		if (p->cb.lost)
			p->cb.lost(p->cb.ctx, p->o.type == UINT32_MAX ? 0 : lost,
				   p->o.type == UINT32_MAX ? lost : 0);
		break;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		uint64_t lost;

		if (!rd_u64(&r, &lost) && p->cb.lost)
			p->cb.lost(p->cb.ctx, lost, 0);
		break;
	}
	default:
		break;
	}
}

static int drain_ring(struct perfev *p, struct ring *rg)
{
	struct perf_event_mmap_page *meta = rg->base;
	const uint8_t *data = (const uint8_t *)rg->base + p->page;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	size_t mask = rg->data_size - 1;
	int n = 0;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & mask, first;
		const uint8_t *rec;

		if (head - tail < sizeof(h))
			break;
		first = rg->data_size - off;
		if (first >= sizeof(h)) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			memcpy(&h, data + off, first);
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (first >= h.size) {
			rec = data + off;
		} else {
			memcpy(p->tmp, data + off, first);
			memcpy(p->tmp + first, data, h.size - first);
			rec = p->tmp;
		}
		do_record(p, rec, h.size);
		tail += h.size;
		n++;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

int perfev_drain(struct perfev *p)
{
	int i, n = 0;

	for (i = 0; i < p->nr; i++)
		if (p->rings[i].base)
			n += drain_ring(p, &p->rings[i]);
	return n;
}

int perfev_pollfds(const struct perfev *p, struct pollfd *fds, int max)
{
	int i, n = 0;

	for (i = 0; i < p->nr && n < max; i++)
		if (p->rings[i].base)
			fds[n++] = (struct pollfd){ .fd = p->rings[i].fd, .events = POLLIN };
	return n;
}

int perfev_wait(struct perfev *p, int timeout_ms)
{
	struct pollfd fds[256];
	int i, n = 0, r;

	for (i = 0; i < p->nr && n < 256; i++)
		if (p->rings[i].base)
			fds[n++] = (struct pollfd){ .fd = p->rings[i].fd, .events = POLLIN };
	r = poll(fds, (nfds_t)n, timeout_ms);
	return r < 0 ? -errno : r;
}
