/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core profile model: owned arrays of events, interned stacks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/gpu.h"
#include "libprof/htab.h"
#include "libprof/profile.h"
#include "libprof/text.h"

/* the raw field sits in what was padding: samples without raws cost nothing more */
_Static_assert(sizeof(struct prof_sample) == 40, "struct prof_sample grew");

#define GROW(p, field) ZT_GROW((p)->field, (p)->cap_##field, (p)->nr_##field + 1)

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
}

void profile_release(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nr_meta; i++) {
		free(p->meta[i].key);
		free(p->meta[i].value);
	}
	for (i = 0; i < p->nr_mmaps; i++)
		free(p->mmaps[i].path);
	for (i = 0; i < p->nr_blobs; i++)
		free(p->blobs[i].data);
	for (i = 0; i < p->nr_events; i++)
		free(p->events[i].name);
	for (i = 0; i < p->nr_pycodes; i++) {
		free(p->pycodes[i].qualname);
		free(p->pycodes[i].filename);
		free(p->pycodes[i].linetable);
	}
	free(p->pycodes);
	free(p->events);
	free(p->meta);
	free(p->tasks);
	free(p->mmaps);
	free(p->samples);
	free(p->stacks);
	free(p->ips);
	free(p->blobs);
	free(p->raws);
	free(p->raw_bytes);
	zt_htab_release(&p->stack_hash);
	prof_gpu_free(p->gpu);
	profile_init(p);
}

int profile_set_meta(struct profile *p, const char *key, const char *value)
{
	char *v = strdup(value ? value : ""), *k;
	size_t i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->nr_meta; i++) {
		if (!strcmp(p->meta[i].key, key)) {
			free(p->meta[i].value);
			p->meta[i].value = v;
			return 0;
		}
	}
	k = strdup(key);
	if (!k || GROW(p, meta)) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	p->meta[p->nr_meta].key = k;
	p->meta[p->nr_meta].value = v;
	p->nr_meta++;
	return 0;
}

const char *profile_get_meta(const struct profile *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nr_meta; i++)
		if (!strcmp(p->meta[i].key, key))
			return p->meta[i].value;
	return NULL;
}

int profile_add_event(struct profile *p, const struct prof_event *e, uint32_t *idx)
{
	char *n = strdup(e->name ? e->name : "");

	if (!n || p->nr_events >= UINT32_MAX - 1 || GROW(p, events)) {
		free(n);
		return -ENOMEM;
	}
	p->events[p->nr_events] = *e;
	p->events[p->nr_events].name = n;
	if (idx)
		*idx = (uint32_t)p->nr_events;
	p->nr_events++;
	return 0;
}

const char *profile_event_name(const struct profile *p, uint32_t idx)
{
	if (idx < p->nr_events)
		return p->events[idx].name;
	return !p->nr_events && !idx ? profile_get_meta(p, "event") : NULL;
}

void profile_keep_event(struct profile *p, uint32_t idx)
{
	size_t i, k = 0;

	for (i = 0; i < p->nr_samples; i++) {
		if (p->samples[i].event != idx)
			continue;
		p->samples[k] = p->samples[i];
		p->samples[k++].event = 0;
	}
	p->nr_samples = k;
	if (idx < p->nr_events) {
		struct prof_event e = p->events[idx];

		for (i = 0; i < p->nr_events; i++)
			if (i != idx)
				free(p->events[i].name);
		p->events[0] = e;
		p->nr_events = 1;
		profile_set_meta(p, "event", e.name); /* -ENOMEM: the old name stays */
	}
}

void profile_event_list(const struct profile *p, char *buf, size_t n)
{
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; i < profile_nr_events(p) && len < n - 1; i++) {
		const char *name = profile_event_name(p, (uint32_t)i);
		int w = snprintf(buf + len, n - len, "%s%s", i ? ", " : "", name ? name : "?");

		if (w < 0)
			break;
		len += (size_t)w;
	}
}

void profile_time_span(const struct profile *p, uint64_t *first, uint64_t *last)
{
	size_t i;

	*first = p->nr_samples ? UINT64_MAX : 0;
	*last = 0;
	for (i = 0; i < p->nr_samples; i++) {
		uint64_t t = p->samples[i].ts;

		*first = t < *first ? t : *first;
		*last = t > *last ? t : *last;
	}
}

size_t profile_event_samples(const struct profile *p, uint32_t idx, struct prof_sample *out)
{
	size_t i, n = 0;
	int all = profile_nr_events(p) == 1;

	if (idx >= profile_nr_events(p))
		return 0;
	for (i = 0; i < p->nr_samples; i++) {
		if (!all && p->samples[i].event != idx)
			continue;
		if (out)
			out[n] = p->samples[i];
		n++;
	}
	return n;
}

int profile_add_task(struct profile *p, const struct prof_task *t)
{
	if (GROW(p, tasks))
		return -ENOMEM;
	p->tasks[p->nr_tasks] = *t;
	p->tasks[p->nr_tasks].comm[ZT_COMM_LEN - 1] = 0;
	p->nr_tasks++;
	return 0;
}

int profile_add_mmap(struct profile *p, const struct prof_mmap *m)
{
	char *path = strdup(m->path ? m->path : "");

	if (!path || GROW(p, mmaps)) {
		free(path);
		return -ENOMEM;
	}
	p->mmaps[p->nr_mmaps] = *m;
	if (p->mmaps[p->nr_mmaps].build_id.len > ZT_BUILD_ID_MAX)
		p->mmaps[p->nr_mmaps].build_id.len = 0;
	p->mmaps[p->nr_mmaps].path = path;
	p->nr_mmaps++;
	return 0;
}

int profile_add_sample(struct profile *p, const struct prof_sample *s)
{
	if (s->stack >= p->nr_stacks)
		return -EINVAL;
	if (GROW(p, samples))
		return -ENOMEM;
	p->samples[p->nr_samples++] = *s;
	return 0;
}

int profile_add_blob(struct profile *p, uint32_t kind, uint32_t pid, uint64_t ts,
		     const void *data, size_t len)
{
	uint8_t *d = malloc(len ? len : 1);

	if (!d || GROW(p, blobs)) {
		free(d);
		return -ENOMEM;
	}
	if (len)
		memcpy(d, data, len);
	p->blobs[p->nr_blobs++] = (struct prof_blob){ kind, pid, ts, d, len };
	return 0;
}

int profile_add_pycode(struct profile *p, const struct prof_pycode *c, uint32_t *idx)
{
	struct prof_pycode n = *c;

	if (p->nr_pycodes >= UINT32_MAX || c->linetable_len > PROF_PY_LINETABLE_MAX)
		return -E2BIG;
	n.qualname = strdup(c->qualname ? c->qualname : "");
	n.filename = strdup(c->filename ? c->filename : "");
	n.linetable = malloc(c->linetable_len ? c->linetable_len : 1);
	if (!n.qualname || !n.filename || !n.linetable || GROW(p, pycodes)) {
		free(n.qualname);
		free(n.filename);
		free(n.linetable);
		return -ENOMEM;
	}
	if (c->linetable_len)
		memcpy(n.linetable, c->linetable, c->linetable_len);
	if (idx)
		*idx = (uint32_t)p->nr_pycodes;
	p->pycodes[p->nr_pycodes++] = n;
	return 0;
}

int profile_add_raw(struct profile *p, const void *data, size_t len, uint32_t *ref)
{
	if (len > PROF_RAW_MAX)
		return -E2BIG;
	if (p->nr_raws >= UINT32_MAX - 1 || GROW(p, raws) ||
	    ZT_GROW(p->raw_bytes, p->cap_raw_bytes, p->nr_raw_bytes + len + 1))
		return -ENOMEM;
	if (len)
		memcpy(p->raw_bytes + p->nr_raw_bytes, data, len);
	p->raws[p->nr_raws++] = (struct prof_raw){ p->nr_raw_bytes, (uint32_t)len };
	p->nr_raw_bytes += len;
	*ref = (uint32_t)p->nr_raws;
	return 0;
}

const struct prof_blob *profile_find_blob(const struct profile *p, uint32_t kind, uint32_t pid)
{
	size_t i;

	for (i = 0; i < p->nr_blobs; i++)
		if (p->blobs[i].kind == kind && (pid == UINT32_MAX || p->blobs[i].pid == pid))
			return &p->blobs[i];
	return NULL;
}

static uint64_t stack_hash(const uint64_t *ips, unsigned nk, unsigned nu)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)nk << 32 | nu);
	unsigned i;

	for (i = 0; i < nk + nu; i++) {
		h ^= ips[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return h;
}

static int stack_equal(const struct profile *p, uint32_t id, const uint64_t *ips,
		       unsigned nk, unsigned nu)
{
	const struct prof_stack *s = &p->stacks[id];

	return s->nk == nk && s->nu == nu &&
	       (!(nk + nu) || !memcmp(p->ips + s->off, ips, (size_t)(nk + nu) * sizeof(*ips)));
}

static inline uint64_t stack_hash_at(const void *ctx, uint32_t id)
{
	const struct profile *p = ctx;
	const struct prof_stack *s = &p->stacks[id];

	return stack_hash(p->ips + s->off, s->nk, s->nu);
}

/* Index every stack again (some were appended without the index). */
static int rehash(struct profile *p)
{
	size_t i;

	if (zt_htab_reset(&p->stack_hash, p->nr_stacks + 1))
		return -ENOMEM;
	for (i = 0; i < p->nr_stacks; i++)
		zt_htab_add(&p->stack_hash, stack_hash_at(p, (uint32_t)i), (uint32_t)i);
	p->hash_stale = 0;
	return 0;
}

static int append_stack(struct profile *p, const uint64_t *ips, unsigned nk, unsigned nu,
			uint32_t *id)
{
	size_t n = (size_t)nk + nu;

	if (p->nr_stacks >= UINT32_MAX - 1 || p->nr_ips > UINT32_MAX - n)
		return -E2BIG;
	if (GROW(p, stacks))
		return -ENOMEM;
	if (ZT_GROW(p->ips, p->cap_ips, p->nr_ips + n))
		return -ENOMEM;
	if (n)
		memcpy(p->ips + p->nr_ips, ips, n * sizeof(*ips));
	p->stacks[p->nr_stacks] = (struct prof_stack){ (uint32_t)p->nr_ips, nk, nu };
	p->nr_ips += n;
	*id = (uint32_t)p->nr_stacks++;
	return 0;
}

int profile_append_stack(struct profile *p, const uint64_t *ips, unsigned nk, unsigned nu,
			 uint32_t *id)
{
	if (nk > ZT_MAX_FRAMES || nu > ZT_MAX_FRAMES)
		return -EINVAL;
	p->hash_stale = 1;
	return append_stack(p, ips, nk, nu, id);
}

static int intern_stack(struct profile *p, const uint64_t *ips, unsigned nk, unsigned nu,
			uint32_t *id)
{
	struct zt_htab *t = &p->stack_hash;
	size_t j;
	uint32_t i;
	int ret;

	if (p->hash_stale ? rehash(p) : zt_htab_reserve(t, 1, stack_hash_at, p))
		return -ENOMEM;
	for (j = zt_htab_first(t, stack_hash(ips, nk, nu)); zt_htab_get(t, j, &i);
	     j = zt_htab_next(t, j)) {
		if (stack_equal(p, i, ips, nk, nu)) {
			*id = i;
			return 0;
		}
	}
	ret = append_stack(p, ips, nk, nu, id);
	if (!ret)
		zt_htab_set(t, j, *id);
	return ret;
}

int profile_intern_stack(struct profile *p, const uint64_t *ips, unsigned nk, unsigned nu,
			 uint32_t *id)
{
	if (nk > ZT_MAX_FRAMES || nu > ZT_MAX_FRAMES)
		return -EINVAL;
	return intern_stack(p, ips, nk, nu, id);
}

int profile_intern_ustack(struct profile *p, const uint64_t *ips, unsigned nu, uint32_t *id)
{
	if (nu > 2 * ZT_MAX_FRAMES)
		return -EINVAL;
	return intern_stack(p, ips, 0, nu, id);
}

char *prof_build_id_hex(const struct prof_build_id *b, char *out)
{
	return zt_hex_encode(b->data, b->len < ZT_BUILD_ID_MAX ? b->len : ZT_BUILD_ID_MAX, out);
}

int prof_build_id_from_hex(const char *hex, size_t n, struct prof_build_id *b)
{
	struct prof_build_id t;

	if (n < 2 || n > 2 * ZT_BUILD_ID_MAX || n % 2 || zt_hex_decode(hex, n / 2, t.data))
		return -EINVAL;
	t.len = (uint8_t)(n / 2);
	*b = t;
	return 0;
}

void prof_sanitize(char *out, size_t n, const char *in)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i + 1 < n && in[i]; i++)
		out[i] = ((unsigned char)in[i] < 0x20 || in[i] == 0x7f) ? '?' : in[i];
	out[i] = 0;
}

const char *prof_uw_stop_name(unsigned i)
{
	static const char *const names[PROF_UW_NR] = {
		"none", "end", "fp_end", "no_table", "not_ready", "unsupported", "fault", "depth",
	};

	return i < PROF_UW_NR ? names[i] : "?";
}

int profile_unwind_stops(const struct profile *p, uint64_t c[PROF_UW_NR])
{
	const char *v = profile_get_meta(p, "unwind_stops"), *q;
	unsigned i;

	memset(c, 0, PROF_UW_NR * sizeof(*c));
	if (!v)
		return 0;
	while (*v) {
		size_t n = strcspn(v, "=,");

		q = v + n;
		if (*q == '=') {
			for (i = 0; i < PROF_UW_NR; i++)
				if (strlen(prof_uw_stop_name(i)) == n &&
				    !strncmp(v, prof_uw_stop_name(i), n))
					c[i] = strtoull(q + 1, NULL, 10);
			q += 1 + strcspn(q + 1, ",");
		}
		v = *q ? q + 1 : q;
	}
	return 1;
}

int profile_has_callchains(const struct profile *p)
{
	const char *cc = profile_get_meta(p, "callchain");
	size_t i;

	if (cc)
		return strcmp(cc, "none") != 0;
	for (i = 0; i < p->nr_stacks; i++)
		if (p->stacks[i].nk + p->stacks[i].nu > 1)
			return 1;
	return 0;
}

const char *prof_comm_or_pid(const char *comm, uint32_t pid, char *buf, size_t n)
{
	if (comm)
		return comm;
	if (pid)
		snprintf(buf, n, ":%u", pid);
	else
		snprintf(buf, n, "swapper");
	return buf;
}
