/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Chrome trace export: samples merged into per-thread flame-chart slices,
 * GPU records on per-stream tracks, launches and their flows, all gathered
 * as events, sorted by time, then written as JSON (see chrometrace.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/chrometrace.h"
#include "formats/gpuscript.h"
#include "formats/stackgroups.h"
#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/strtab.h"
#include "libprof/zbuf.h"

/* a string literal */
#define PUT_LIT(b, s) zbuf_put((b), (s), sizeof(s) - 1)
#define FLUSH_AT      (1u << 20)
#define LAUNCH_MAX_NS 1000	 /* a launch slice is at most 1 us long */
#define LAUNCH_DEPTH  UINT32_MAX /* sorts after the frames it nests in */
#define NO_GROUP      UINT32_MAX

enum { E_SLICE = 1, E_LAUNCH, E_FLOW_S, E_KERNEL, E_MEMOP, E_FLOW_F };

struct cev {
	uint64_t ts, dur;
	uint32_t pid, tid, kind, depth;
	uint32_t a, b; /* SLICE: name id, event; LAUNCH: launch index, stack group; FLOW: id;
			  KERNEL, MEMOP: record index */
	uint32_t x, y; /* LAUNCH: the gpu_ev kind and index it is named after */
};

/* a time on a thread: sample boundaries, launches, threads' first events */
struct tts {
	uint32_t pid, tid;
	uint64_t ts;
};

/* a GPU track: (device, process, context, stream) */
struct track {
	uint32_t device, pid, context, stream;
	uint32_t tid;	/* in the trace: its first lane's (1, 2, ... per device) */
	uint8_t shared; /* its device serves several processes */
	/* lanes: records that overlap an earlier one of the track (programmatic
	 * dependent launches, or clocks that disagree) go on a lane of their own,
	 * each lane a thread, so that a thread's slices nest */
	uint64_t *lane_end;
	uint32_t nlanes, cap_lanes;
};

/* an open frame slice of the thread being built */
struct open {
	uint32_t name;
	uint64_t start;
};

struct ct {
	const struct chrometrace_in *in;
	const struct prof_gpu *g;
	int fd;
	struct zbuf out;
	uint64_t t0;
	struct cev *ev;
	size_t nr_ev, cap_ev;
	struct zt_strtab names; /* frame names */
	/* per sample stack group: its names root first, in gnames */
	struct stackgroups sg;
	uint32_t *gnames;
	size_t nr_gnames, cap_gnames;
	struct {
		uint32_t off, n;
	} * gr;
	size_t cap_gr;
	/* per launch stack group: its JSON array text in ltext */
	struct stackgroups lsg;
	struct zbuf ltext;
	struct {
		size_t off, len;
	} * lg;
	size_t cap_lg;
	struct tts *bnd; /* sample boundaries */
	size_t nr_bnd, cap_bnd;
	struct tts *lts; /* launches shown */
	size_t nr_lts, cap_lts;
	struct tts *thr; /* threads: their events' times */
	size_t nr_thr, cap_thr;
	struct track *tracks;
	size_t nr_tracks, cap_tracks;
	uint8_t *launch_seen; /* per launch: its slice is made */
	uint32_t flows;
	int started; /* an event was written */
};

/* ---- JSON text ---- */

/*
 * Times are written in units of 1/1024 us (0.977 ns): such a number is
 * exact as a double, and so is the sum ts + dur a reader computes for the
 * end of an "X" event. With three decimals of a us, a child's end could
 * come out a hair after its parent's, or a slice's end after the next
 * one's start, and readers (speedscope) nest them wrongly.
 */
static uint64_t units(uint64_t ns)
{
	return ns / 125 * 128 + (ns % 125 * 128 + 62) / 125; /* ns * 1.024, rounded */
}

/* u units as microseconds: the exact decimal of u / 1024 */
static void put_units(struct zbuf *b, uint64_t u)
{
	uint64_t frac = (u & 1023) * 9765625; /* / 1e10 */
	char digits[11];
	int n = 10;

	if (!frac) {
		zbuf_putf(b, "%" PRIu64, u >> 10);
		return;
	}
	snprintf(digits, sizeof(digits), "%010" PRIu64, frac);
	while (digits[n - 1] == '0')
		n--;
	zbuf_putf(b, "%" PRIu64 ".%.*s", u >> 10, n, digits);
}


static int flush(struct ct *c, int force)
{
	int ret;

	if (c->out.err)
		return c->out.err;
	if (!force && c->out.len < FLUSH_AT)
		return 0;
	ret = zt_write_all(c->fd, c->out.data, c->out.len);
	zbuf_reset(&c->out);
	return ret;
}

/* ---- gathering ---- */

static int add_ev(struct ct *c, const struct cev *e)
{
	if (ZT_GROW(c->ev, c->cap_ev, c->nr_ev + 1))
		return -ENOMEM;
	c->ev[c->nr_ev++] = *e;
	return 0;
}

static int add_tts(struct tts **arr, size_t *nr, size_t *cap, uint32_t pid, uint32_t tid,
		   uint64_t ts)
{
	if (zt_grow((void **)arr, cap, *nr + 1, sizeof(**arr)))
		return -ENOMEM;
	(*arr)[(*nr)++] = (struct tts){pid, tid, ts};
	return 0;
}

static int tts_cmp(const void *a, const void *b)
{
	const struct tts *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The first time after ts on thread (pid, tid) in arr (sorted), or UINT64_MAX. */
static uint64_t next_after(const struct tts *arr, size_t n, uint32_t pid, uint32_t tid, uint64_t ts)
{
	struct tts key = {pid, tid, ts};
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first element > key */
		size_t mid = lo + (hi - lo) / 2;

		if (tts_cmp(&arr[mid], &key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && arr[lo].pid == pid && arr[lo].tid == tid)
		return arr[lo].ts;
	return UINT64_MAX;
}

/* The names of sample group gi, root first, into gnames (once). */
static int group_names(struct ct *c, uint32_t gi)
{
	const struct zt_frange *r;
	const uint64_t *ips;
	char buf[1024];
	unsigned n, i;
	uint32_t k;
	int ret;

	if (ZT_GROW(c->gr, c->cap_gr, (size_t)gi + 1))
		return -ENOMEM;
	ret = stackgroups_resolve(&c->sg, gi, UINT32_MAX, &ips, &r, &n);
	if (ret)
		return ret;
	c->gr[gi].off = (uint32_t)c->nr_gnames;
	for (i = n; i-- > 0;) {
		for (k = r[i].n; k-- > 0;) {
			const struct zt_frame *f = frametab_frame(c->in->rs->ft, r[i].first + k);
			uint32_t id;

			ret = zt_strtab_intern_str(&c->names, zt_frame_name(f, buf, sizeof(buf)),
						   &id);
			if (ret)
				return ret;
			if (c->nr_gnames >= UINT32_MAX - 1 ||
			    ZT_GROW(c->gnames, c->cap_gnames, c->nr_gnames + 1))
				return -ENOMEM;
			c->gnames[c->nr_gnames++] = id;
		}
	}
	c->gr[gi].n = (uint32_t)(c->nr_gnames - c->gr[gi].off);
	return 0;
}

/* The event of sample s (0 with one event), as lanes are numbered. */
static uint32_t sample_event(const struct profile *p, const struct prof_sample *s)
{
	if (profile_nr_events(p) < 2)
		return 0;
	return s->event < CHROMETRACE_MAX_EVENTS ? s->event : CHROMETRACE_MAX_EVENTS - 1;
}

/* The thread of sample s in the trace: its own for the first event, a lane
 * of its own for each other one (the slices of a thread must nest). */
static uint32_t sample_tid(const struct profile *p, const struct prof_sample *s)
{
	return s->tid % CHROMETRACE_EVENT_TIDS + sample_event(p, s) * CHROMETRACE_EVENT_TIDS;
}

/* The sampling period: how long a sample stands for. */
static uint64_t sample_period(const struct profile *p, const struct prof_sample *s)
{
	const char *ev = profile_get_meta(p, "event"), *freq = profile_get_meta(p, "freq");
	size_t n;
	uint64_t f = 0;

	if (profile_nr_events(p) > 1 && s->event < p->nr_events) {
		const struct prof_event *e = &p->events[s->event];

		ev = e->name;
		freq = NULL;
		f = e->flags & PROF_EV_FREQ ? e->period : 0;
	} else if (freq) {
		f = strtoull(freq, NULL, 10);
	}
	n = ev ? strcspn(ev, ":/") : 0;
	if (ev &&
	    ((n == 9 && !strncmp(ev, "cpu-clock", n)) ||
	     (n == 10 && !strncmp(ev, "task-clock", n))) &&
	    s->weight && s->weight < 10000000000ull)
		return s->weight;
	if (f > 0 && f <= 1000000000ull)
		return 1000000000ull / f;
	return 1000000;
}

static const struct prof_sample *sample_at(const struct profile *p, const uint32_t *order, size_t i)
{
	return &p->samples[order[i]];
}

static int sample_cmp_r(const void *a, const void *b, void *arg)
{
	const struct profile *p = arg;
	const struct prof_sample *x = &p->samples[*(const uint32_t *)a],
				 *y = &p->samples[*(const uint32_t *)b];

	uint32_t xt = sample_tid(p, x), yt = sample_tid(p, y);

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (xt != yt)
		return xt < yt ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* close the open slices from depth d up, at ts */
static int close_from(struct ct *c, const struct prof_sample *s, struct open *op, unsigned *nop,
		      unsigned d, uint64_t ts)
{
	int ret;

	while (*nop > d) {
		struct open *o = &op[--*nop];
		struct cev e = {.ts = o->start,
				.dur = ts - o->start,
				.pid = s->pid,
				.tid = sample_tid(c->in->rs->prof, s),
				.kind = E_SLICE,
				.depth = *nop,
				.a = o->name,
				.b = sample_event(c->in->rs->prof, s)};

		if ((ret = add_ev(c, &e)))
			return ret;
	}
	return 0;
}

/* The CPU samples as slices: per thread, in time order, frames merged while they agree. */
static int cpu_slices(struct ct *c)
{
	const struct profile *p = c->in->rs->prof;
	struct open *op = NULL;
	size_t cap_op = 0, i;
	unsigned nop = 0;
	uint64_t prev_end = 0;
	uint32_t *order = NULL;
	int ret = 0;

	if (!p->nr_samples)
		return 0;
	if (!(order = malloc(p->nr_samples * sizeof(*order))))
		return -ENOMEM;
	for (i = 0; i < p->nr_samples; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, p->nr_samples, sizeof(*order), sample_cmp_r, (void *)p);
	for (i = 0; i < p->nr_samples && !ret; i++) {
		const struct prof_sample *s = sample_at(p, order, i);
		const struct prof_sample *nx =
			i + 1 < p->nr_samples ? sample_at(p, order, i + 1) : NULL;
		uint64_t per = sample_period(p, s), end = s->ts + per;
		uint32_t tid = sample_tid(p, s), gi;
		unsigned d, k;
		int is_new;

		if (nx && (nx->pid != s->pid || sample_tid(p, nx) != tid))
			nx = NULL;
		if (nx && (nx->ts < end || nx->ts - s->ts <= per + per / 2))
			end = nx->ts;
		if (end <= s->ts)
			continue; /* a second sample at the same time */
		if ((ret = stackgroups_add(&c->sg, s, NULL, 0, &gi, &is_new)))
			break;
		if (is_new && (ret = group_names(c, gi)))
			break;
		if ((ret = add_tts(&c->thr, &c->nr_thr, &c->cap_thr, s->pid, tid, s->ts)) ||
		    (ret = add_tts(&c->bnd, &c->nr_bnd, &c->cap_bnd, s->pid, tid, s->ts)) ||
		    (ret = add_tts(&c->bnd, &c->nr_bnd, &c->cap_bnd, s->pid, tid, end)))
			break;
		if (nop && prev_end != s->ts)
			ret = close_from(c, s, op, &nop, 0, prev_end);
		for (d = 0; !ret && d < nop && d < c->gr[gi].n &&
			    op[d].name == c->gnames[c->gr[gi].off + d];
		     d++)
			;
		if (!ret)
			ret = close_from(c, s, op, &nop, d, s->ts);
		if (!ret && ZT_GROW(op, cap_op, c->gr[gi].n + 1))
			ret = -ENOMEM;
		for (k = d; !ret && k < c->gr[gi].n; k++)
			op[nop++] = (struct open){c->gnames[c->gr[gi].off + k], s->ts};
		prev_end = end;
		if (!ret && !nx)
			ret = close_from(c, s, op, &nop, 0, end);
	}
	free(op);
	free(order);
	return ret;
}

static int track_cmp(const void *a, const void *b)
{
	const struct track *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->context != y->context)
		return x->context < y->context ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

static int add_track(struct ct *c, uint32_t device, uint32_t pid, uint32_t context, uint32_t stream)
{
	if (ZT_GROW(c->tracks, c->cap_tracks, c->nr_tracks + 1))
		return -ENOMEM;
	c->tracks[c->nr_tracks++] =
		(struct track){.device = device, .pid = pid, .context = context, .stream = stream};
	return 0;
}

/* The GPU tracks: sorted, unique, numbered per device. */
static int gpu_tracks(struct ct *c)
{
	const struct prof_gpu *g = c->g;
	size_t i, n = 0, first = 0;
	int ret = 0;

	for (i = 0; i < g->nr_kernels && !ret; i++)
		ret = add_track(c, g->kernels[i].device, g->kernels[i].pid, g->kernels[i].context,
				g->kernels[i].stream);
	for (i = 0; i < g->nr_memops && !ret; i++)
		ret = add_track(c, g->memops[i].device, g->memops[i].pid, g->memops[i].context,
				g->memops[i].stream);
	if (ret || !c->nr_tracks)
		return ret;
	qsort(c->tracks, c->nr_tracks, sizeof(*c->tracks), track_cmp);
	for (i = 0; i < c->nr_tracks; i++)
		if (!n || track_cmp(&c->tracks[n - 1], &c->tracks[i]))
			c->tracks[n++] = c->tracks[i];
	c->nr_tracks = n;
	for (i = 0; i < n; i++) {
		size_t j;

		if (i && c->tracks[i].device != c->tracks[i - 1].device)
			first = i;
		for (j = first; j < n && c->tracks[j].device == c->tracks[i].device; j++)
			if (c->tracks[j].pid != c->tracks[i].pid)
				c->tracks[i].shared = 1;
	}
	return 0;
}

/* The lane of a record [start, end) on its track (records come by start time):
 * *ti the track's index, *lane the lane's. 0 or -ENOMEM. */
static int track_lane(struct ct *c, uint32_t device, uint32_t pid, uint32_t context,
		      uint32_t stream, uint64_t start, uint64_t end, uint32_t *ti, uint32_t *lane)
{
	struct track key = {.device = device, .pid = pid, .context = context, .stream = stream};
	struct track *t = bsearch(&key, c->tracks, c->nr_tracks, sizeof(key), track_cmp);
	uint32_t l;

	if (!t)
		return -EINVAL; /* cannot be: every record made a track */
	*ti = (uint32_t)(t - c->tracks);
	for (l = 0; l < t->nlanes && t->lane_end[l] > start; l++)
		;
	if (l == t->nlanes) {
		size_t cap = t->cap_lanes;

		if (ZT_GROW(t->lane_end, cap, (size_t)l + 1))
			return -ENOMEM;
		t->cap_lanes = (uint32_t)cap;
		t->nlanes++;
	}
	t->lane_end[l] = end > start ? end : start;
	*lane = l;
	return 0;
}

/* Thread ids of the lanes, 1, 2, ... per device; the GPU events get theirs. */
static void lane_tids(struct ct *c)
{
	uint32_t next = 1;
	size_t i;

	for (i = 0; i < c->nr_tracks; i++) {
		if (i && c->tracks[i].device != c->tracks[i - 1].device)
			next = 1;
		c->tracks[i].tid = next;
		next += c->tracks[i].nlanes;
	}
	for (i = 0; i < c->nr_ev; i++) {
		struct cev *e = &c->ev[i];

		if (e->kind == E_KERNEL || e->kind == E_MEMOP || e->kind == E_FLOW_F)
			e->tid = c->tracks[e->x].tid + e->y;
	}
}

static const char *gpu_name(const struct ct *c, uint32_t id)
{
	const char *s = c->in->gpu_name ? c->in->gpu_name(c->in->ctx, id) : NULL;

	return s ? s : prof_gpu_str(c->g, id);
}

/* launch l's stack as a JSON array, once per stack group: *gi its group */
static int launch_stack(struct ct *c, const struct prof_gpu_launch *l, uint32_t *gi)
{
	struct prof_sample smp = {.ts = l->ts, .pid = l->pid, .tid = l->tid, .stack = l->stack};
	const struct zt_frange *r;
	const uint64_t *ips;
	char buf[1024];
	unsigned n, i, k;
	int is_new, ret;

	*gi = NO_GROUP;
	if (l->stack == PROF_GPU_NO_STACK || l->stack >= c->in->rs->prof->nr_stacks)
		return 0;
	ret = stackgroups_add(&c->lsg, &smp, NULL, 0, gi, &is_new);
	if (ret || !is_new)
		return ret;
	if (ZT_GROW(c->lg, c->cap_lg, (size_t)*gi + 1))
		return -ENOMEM;
	ret = stackgroups_resolve(&c->lsg, *gi, UINT32_MAX, &ips, &r, &n);
	if (ret)
		return ret;
	c->lg[*gi].off = c->ltext.len;
	zbuf_put_u8(&c->ltext, '[');
	for (i = 0; i < n; i++) {
		for (k = 0; k < r[i].n; k++) {
			const struct zt_frame *f = frametab_frame(c->in->rs->ft, r[i].first + k);
			char one[1200];

			snprintf(one, sizeof(one), "%s (%s)", zt_frame_name(f, buf, sizeof(buf)),
				 f->module ? f->module : "[unknown]");
			if (i || k)
				zbuf_put_u8(&c->ltext, ',');
			zbuf_put_json_str(&c->ltext, one);
		}
	}
	zbuf_put_u8(&c->ltext, ']');
	c->lg[*gi].len = c->ltext.len - c->lg[*gi].off;
	return c->ltext.err;
}

/* The GPU records, their launches and the flows between them. */
static int gpu_events(struct ct *c)
{
	const struct gpu_view *v = c->in->gv;
	const struct prof_gpu *g = c->g;
	size_t i;
	int ret;

	if ((ret = gpu_tracks(c)))
		return ret;
	if (g->nr_launches && !(c->launch_seen = calloc(g->nr_launches, 1)))
		return -ENOMEM;
	for (i = 0; i < v->nr_ev; i++) {
		const struct gpu_ev *e = &v->ev[i];
		const struct prof_gpu_kernel *k =
			e->kind == GPU_EV_KERNEL ? &g->kernels[e->idx] : NULL;
		const struct prof_gpu_memop *m =
			e->kind == GPU_EV_MEMOP ? &g->memops[e->idx] : NULL;
		const struct prof_gpu_launch *l;
		struct cev ev = {0};
		uint32_t pid, corr, graph, dev, ctx, stream, ti, lane;
		uint64_t start, end;

		if (!k && !m)
			continue; /* overheads are not shown */
		pid = k ? k->pid : m->pid;
		corr = k ? k->corr : m->corr;
		graph = k ? k->graph_id : m->graph_id;
		dev = k ? k->device : m->device;
		ctx = k ? k->context : m->context;
		stream = k ? k->stream : m->stream;
		start = k ? k->start : m->start;
		end = k ? k->end : m->end;
		ev = (struct cev){.ts = start,
				  .dur = end > start ? end - start : 0,
				  .pid = CHROMETRACE_GPU_PID + dev,
				  .kind = k ? E_KERNEL : E_MEMOP,
				  .a = e->idx};
		if ((ret = track_lane(c, dev, pid, ctx, stream, start, end, &ti, &lane)))
			return ret;
		ev.x = ti, ev.y = lane;
		if ((ret = add_ev(c, &ev)))
			return ret;
		l = gpu_view_launch(v, pid, corr, graph, start);
		if (!l)
			continue;
		if (!c->launch_seen[l - g->launches]) {
			struct cev le = {.ts = l->ts,
					 .pid = l->pid,
					 .tid = l->tid,
					 .kind = E_LAUNCH,
					 .depth = LAUNCH_DEPTH,
					 .a = (uint32_t)(l - g->launches),
					 .x = e->kind,
					 .y = e->idx};

			c->launch_seen[l - g->launches] = 1;
			if ((ret = launch_stack(c, l, &le.b)) || (ret = add_ev(c, &le)) ||
			    (ret = add_tts(&c->lts, &c->nr_lts, &c->cap_lts, l->pid, l->tid,
					   l->ts)) ||
			    (ret = add_tts(&c->thr, &c->nr_thr, &c->cap_thr, l->pid, l->tid,
					   l->ts)))
				return ret;
		}
		c->flows++;
		ev = (struct cev){
			.ts = l->ts, .pid = l->pid, .tid = l->tid, .kind = E_FLOW_S, .a = c->flows};
		if ((ret = add_ev(c, &ev)))
			return ret;
		ev = (struct cev){.ts = start,
				  .pid = CHROMETRACE_GPU_PID + dev,
				  .kind = E_FLOW_F,
				  .a = c->flows,
				  .x = ti,
				  .y = lane};
		if ((ret = add_ev(c, &ev)))
			return ret;
	}
	return 0;
}

/* Each launch slice ends before the next sample boundary or launch of its thread. */
static void launch_durations(struct ct *c)
{
	size_t i;

	if (c->nr_bnd)
		qsort(c->bnd, c->nr_bnd, sizeof(*c->bnd), tts_cmp);
	if (c->nr_lts)
		qsort(c->lts, c->nr_lts, sizeof(*c->lts), tts_cmp);
	for (i = 0; i < c->nr_ev; i++) {
		struct cev *e = &c->ev[i];
		uint64_t nb, nl, dur = LAUNCH_MAX_NS;

		if (e->kind != E_LAUNCH)
			continue;
		nb = next_after(c->bnd, c->nr_bnd, e->pid, e->tid, e->ts);
		nl = next_after(c->lts, c->nr_lts, e->pid, e->tid, e->ts);
		if (nb != UINT64_MAX && nb - e->ts < dur)
			dur = nb - e->ts;
		if (nl != UINT64_MAX && nl - e->ts < dur)
			dur = nl - e->ts;
		e->dur = dur;
	}
}

static int ev_cmp(const void *a, const void *b)
{
	const struct cev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->a < y->a ? -1 : x->a > y->a;
}

/* ---- writing ---- */

/* an event's start: a comma before every one but the first */
static void put_head(struct ct *c, const char *ph, uint32_t pid, uint32_t tid)
{
	zbuf_putf(&c->out, "%s{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u", c->started ? ",\n" : "", ph, pid,
		tid);
	c->started = 1;
}

static void put_meta(struct ct *c, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	struct zbuf *b = &c->out;

	put_head(c, "M", pid, tid);
	zbuf_putf(b, ",\"name\":\"%s\",\"args\":{\"name\":", what);
	zbuf_put_json_str(b, name);
	PUT_LIT(b, "}}");
}

static void put_sort(struct ct *c, const char *what, uint32_t pid, uint32_t tid, uint64_t idx)
{
	struct zbuf *b = &c->out;

	put_head(c, "M", pid, tid);
	zbuf_putf(b, ",\"name\":\"%s\",\"args\":{\"sort_index\":%" PRIu64 "}}", what, idx);
}

/* process_name and thread_name of the recorded processes and threads */
static int cpu_meta(struct ct *c)
{
	size_t i;
	uint32_t last_pid = 0, tid;
	int ret = 0, named = 0, several = profile_nr_events(c->in->rs->prof) > 1;
	char name[320];

	if (c->nr_thr)
		qsort(c->thr, c->nr_thr, sizeof(*c->thr), tts_cmp);
	for (i = 0; i < c->nr_thr && !ret; i++) {
		const struct tts *t = &c->thr[i];
		char buf[32];
		const char *n;

		/* named at its last event: after an exec, by the program it ran
		 * (a sample taken while zt record's child was still execing
		 * has the name before) */
		if (i + 1 < c->nr_thr && t->pid == c->thr[i + 1].pid && t->tid == c->thr[i + 1].tid)
			continue;
		if (!named || t->pid != last_pid) {
			n = rstacks_comm(c->in->rs, t->pid, t->pid, t->ts);
			put_meta(c, "process_name", t->pid, 0,
				 prof_comm_or_pid(n, t->pid, buf, sizeof(buf)));
			put_sort(c, "process_sort_index", t->pid, 0, t->pid);
			last_pid = t->pid;
			named = 1;
		}
		tid = t->tid % CHROMETRACE_EVENT_TIDS;
		n = prof_comm_or_pid(rstacks_comm(c->in->rs, t->pid, tid, t->ts), tid, buf,
				     sizeof(buf));
		if (several) { /* a lane per event: "hot [page-faults]" */
			const char *ev =
				profile_event_name(c->in->rs->prof, t->tid / CHROMETRACE_EVENT_TIDS);

			snprintf(name, sizeof(name), "%s [%s]", n, ev ? ev : "?");
			n = name;
		}
		put_meta(c, "thread_name", t->pid, t->tid, n);
		ret = flush(c, 0);
	}
	return ret;
}

static void gpu_meta(struct ct *c)
{
	size_t i;

	for (i = 0; i < c->nr_tracks; i++) {
		const struct track *t = &c->tracks[i];
		uint32_t pid = CHROMETRACE_GPU_PID + t->device, l;
		char name[96];

		if (!i || t->device != c->tracks[i - 1].device) {
			snprintf(name, sizeof(name), "GPU %u", t->device);
			put_meta(c, "process_name", pid, 0, name);
			put_sort(c, "process_sort_index", pid, 0, (uint64_t)pid);
		}
		for (l = 0; l < t->nlanes; l++) {
			int n = snprintf(name, sizeof(name), "stream %u", t->stream);

			if (t->shared)
				n += snprintf(name + n, sizeof(name) - (size_t)n, " (pid %u)",
					      t->pid);
			if (l)
				snprintf(name + n, sizeof(name) - (size_t)n, " overlap %u", l);
			put_meta(c, "thread_name", pid, t->tid + l, name);
			put_sort(c, "thread_sort_index", pid, t->tid + l, t->tid + l);
		}
	}
}

/*
 * ts, and with dur != DUR_NONE the duration, from the rounded ends: ends
 * that meet stay equal. DUR_EARLY (the slices of a CPU thread) ends one
 * unit early: a stack's slices end a hair before the next stack's begin, so
 * no reader has to order an end and a start at one time. speedscope does
 * that wrongly when a name ends and begins there at different depths (two
 * "[unknown]" frames, say): it opens the new slice first and pairs the rest
 * of the ends with the wrong slices. All of a thread's slices shift
 * alike, so they still nest.
 */
enum { DUR_NONE, DUR_EXACT, DUR_EARLY };

static void put_times(struct ct *c, const struct cev *e, int dur)
{
	uint64_t u = units(e->ts - c->t0), d;

	PUT_LIT(&c->out, ",\"ts\":");
	put_units(&c->out, u);
	if (dur == DUR_NONE)
		return;
	d = units(e->ts + e->dur - c->t0) - u;
	if (dur == DUR_EARLY && d)
		d--;
	PUT_LIT(&c->out, ",\"dur\":");
	put_units(&c->out, d);
}

/* the name a launch slice shows: "launch KERNEL" or "launch memcpy HtoD" */
static void launch_name(struct ct *c, const struct cev *e, char *buf, size_t n)
{
	if (e->x == GPU_EV_KERNEL) {
		snprintf(buf, n, "launch %s", gpu_name(c, c->g->kernels[e->y].name));
	} else {
		const struct prof_gpu_memop *m = &c->g->memops[e->y];
		const char *k = gpuscript_copy_kind(m->copy_kind);

		if (m->kind == PROF_GPU_MEMSET)
			snprintf(buf, n, "launch memset");
		else
			snprintf(buf, n, "launch memcpy %s", k ? k : "?");
	}
}

static void put_kernel(struct ct *c, const struct cev *e)
{
	const struct prof_gpu_kernel *k = &c->g->kernels[e->a];
	struct zbuf *b = &c->out;

	put_head(c, "X", e->pid, e->tid);
	put_times(c, e, DUR_EXACT);
	PUT_LIT(b, ",\"cat\":\"cuda\",\"name\":");
	zbuf_put_json_str(b, gpu_name(c, k->name));
	zbuf_putf(b,
		",\"args\":{\"grid\":\"%u,%u,%u\",\"block\":\"%u,%u,%u\",\"regs\":%u,"
		"\"smem_static\":%u,\"smem_dynamic\":%u,\"local_mem\":%u,",
		k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->regs,
		k->smem_static, k->smem_dynamic, k->local_mem);
	zbuf_putf(b, "\"corr\":%u,\"context\":%u,\"stream\":%u,\"pid\":%u", k->corr, k->context,
		k->stream, k->pid);
	if (k->graph_id)
		zbuf_putf(b, ",\"graph\":%u", k->graph_id);
	PUT_LIT(b, ",\"mangled\":");
	zbuf_put_json_str(b, prof_gpu_str(c->g, k->name));
	PUT_LIT(b, "}}");
}

static void put_memop(struct ct *c, const struct cev *e)
{
	const struct prof_gpu_memop *m = &c->g->memops[e->a];
	const char *kind = gpuscript_copy_kind(m->copy_kind);
	const char *src = gpuscript_mem_kind(m->src_kind), *dst = gpuscript_mem_kind(m->dst_kind);
	struct zbuf *b = &c->out;

	put_head(c, "X", e->pid, e->tid);
	put_times(c, e, DUR_EXACT);
	if (m->kind == PROF_GPU_MEMSET) {
		PUT_LIT(b, ",\"cat\":\"cuda\",\"name\":\"memset\"");
		zbuf_putf(b, ",\"args\":{\"bytes\":%" PRIu64 ",\"value\":%u", m->bytes, m->value);
	} else {
		zbuf_putf(b, ",\"cat\":\"cuda\",\"name\":\"memcpy %s\"", kind ? kind : "?");
		zbuf_putf(b,
			",\"args\":{\"bytes\":%" PRIu64
			",\"kind\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\"",
			m->bytes, kind ? kind : "?", src ? src : "?", dst ? dst : "?");
	}
	zbuf_putf(b, ",\"corr\":%u,\"context\":%u,\"stream\":%u,\"pid\":%u}}", m->corr, m->context,
		m->stream, m->pid);
}

static void put_event(struct ct *c, const struct cev *e)
{
	struct zbuf *b = &c->out;
	char name[1100];

	switch (e->kind) {
	case E_SLICE:
		put_head(c, "X", e->pid, e->tid);
		put_times(c, e, DUR_EARLY);
		if (profile_nr_events(c->in->rs->prof) > 1) { /* the event's name as the category */
			const char *ev = profile_event_name(c->in->rs->prof, e->b);

			PUT_LIT(b, ",\"cat\":");
			zbuf_put_json_str(b, ev ? ev : "?");
			PUT_LIT(b, ",\"name\":");
		} else {
			PUT_LIT(b, ",\"cat\":\"cpu\",\"name\":");
		}
		zbuf_put_json_str(b, zt_strtab_str(&c->names, e->a));
		zbuf_put_u8(b, '}');
		break;
	case E_LAUNCH: {
		const struct prof_gpu_launch *l = &c->g->launches[e->a];

		put_head(c, "X", e->pid, e->tid);
		put_times(c, e, DUR_EARLY);
		launch_name(c, e, name, sizeof(name));
		PUT_LIT(b, ",\"cat\":\"cuda\",\"name\":");
		zbuf_put_json_str(b, name);
		zbuf_putf(b, ",\"args\":{\"corr\":%u,\"cbid\":%u", l->corr, l->cbid);
		if (e->b != NO_GROUP) {
			PUT_LIT(b, ",\"stack\":");
			zbuf_put(b, c->ltext.data + c->lg[e->b].off, c->lg[e->b].len);
		} else if (l->flags & PROF_GPU_L_RATELIMITED) {
			PUT_LIT(b, ",\"stack\":\"ratelimited\"");
		} else {
			PUT_LIT(b, ",\"stack\":\"none\"");
		}
		PUT_LIT(b, "}}");
		break;
	}
	case E_FLOW_S:
	case E_FLOW_F:
		put_head(c, e->kind == E_FLOW_S ? "s" : "f", e->pid, e->tid);
		put_times(c, e, DUR_NONE);
		zbuf_putf(b, ",\"cat\":\"cuda\",\"name\":\"launch\",\"id\":%u%s}", e->a,
			e->kind == E_FLOW_F ? ",\"bp\":\"e\"" : "");
		break;
	case E_KERNEL:
		put_kernel(c, e);
		break;
	case E_MEMOP:
		put_memop(c, e);
		break;
	}
}

static int write_trace(struct ct *c)
{
	const struct profile *p = c->in->rs->prof;
	const char *cmd = profile_get_meta(p, "cmdline"), *host = profile_get_meta(p, "hostname");
	size_t i;
	int ret;

	PUT_LIT(&c->out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"zt\"");
	if (cmd) {
		PUT_LIT(&c->out, ",\"cmdline\":");
		zbuf_put_json_str(&c->out, cmd);
	}
	if (host) {
		PUT_LIT(&c->out, ",\"hostname\":");
		zbuf_put_json_str(&c->out, host);
	}
	PUT_LIT(&c->out, "},\n\"traceEvents\":[\n");
	if ((ret = cpu_meta(c)))
		return ret;
	gpu_meta(c);
	for (i = 0; i < c->nr_ev; i++) {
		put_event(c, &c->ev[i]);
		if ((ret = flush(c, 0)))
			return ret;
	}
	PUT_LIT(&c->out, "\n]}\n");
	return flush(c, 1);
}

int chrometrace_write(const struct chrometrace_in *in, int fd)
{
	struct ct *c = calloc(1, sizeof(*c));
	size_t i;
	int ret = 0;

	if (!c)
		return -ENOMEM;
	c->in = in;
	c->fd = fd;
	c->g = in->gv && in->rs->prof->gpu ? in->rs->prof->gpu : NULL;
	zbuf_init(&c->out);
	zbuf_init(&c->ltext);
	zt_strtab_init(&c->names);
	stackgroups_init(&c->sg, in->rs);
	stackgroups_init(&c->lsg, in->rs);
	ret = cpu_slices(c);
	if (!ret && c->g)
		ret = gpu_events(c);
	if (!ret) {
		lane_tids(c);
		launch_durations(c);
		c->t0 = UINT64_MAX;
		for (i = 0; i < c->nr_ev; i++)
			if (c->ev[i].ts < c->t0)
				c->t0 = c->ev[i].ts;
		if (c->t0 == UINT64_MAX)
			c->t0 = 0;
		if (c->nr_ev)
			qsort(c->ev, c->nr_ev, sizeof(*c->ev), ev_cmp);
	}
	if (!ret)
		ret = write_trace(c);
	zt_strtab_release(&c->names);
	stackgroups_release(&c->sg);
	stackgroups_release(&c->lsg);
	free(c->gnames);
	free(c->gr);
	free(c->lg);
	free(c->bnd);
	free(c->lts);
	free(c->thr);
	for (i = 0; i < c->nr_tracks; i++)
		free(c->tracks[i].lane_end);
	free(c->tracks);
	free(c->launch_seen);
	free(c->ev);
	zbuf_release(&c->ltext);
	zbuf_release(&c->out);
	free(c);
	return ret;
}
