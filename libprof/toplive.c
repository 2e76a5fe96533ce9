// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt top's live model: a growing profile of the machine, the interval's
 * samples grouped and resolved, a decaying history of resolved stacks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/toplive.h"
#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/procfile.h"
#include "libprof/hash.h"

#define NAME_MAX_LEN 1024  /* longest frame name kept */
#define COMPACT_SLACK 4096 /* tasks and mappings gained before exited ones are forgotten */
#define STRS_SLACK 65536   /* interned strings before the unused ones are forgotten */
#define PERFMAP_MAX (64u << 20) /* largest perf map read */

#define USES(l, k) ((l)->used >> (k) & 1u)

int live_init(struct live *l, const struct live_opts *o, uint64_t t_start)
{
	static const enum hist_key def[] = { HIST_KEY_DSO, HIST_KEY_SYM };
	struct hist_opts ho;
	char num[32];
	unsigned i;
	int ret;

	memset(l, 0, sizeof(*l));
	l->o = *o;
	if (!l->o.nr_keys) {
		memcpy(l->o.keys, def, sizeof(def));
		l->o.nr_keys = 2;
	}
	for (i = 0; i < l->o.nr_keys; i++)
		l->used |= 1u << l->o.keys[i];
	if (!l->o.callchain)
		l->o.chain = HIST_CHAIN_NONE;
	profile_init(&l->prof);
	profile_init(&l->ivs);
	sgroups_init(&l->sg);
	l->rs = &l->o.stacks->rs;
	ho = (struct hist_opts){ l->o.callchain, l->o.chain };
	ret = hist_init_opts(&l->hist, l->o.keys, l->o.nr_keys, &ho);
	if (ret)
		return ret;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)t_start);
	l->iv_start = t_start;
	l->scratch = malloc(2 * ZT_MAX_FRAMES * sizeof(*l->scratch));
	if (!l->scratch || profile_set_meta(&l->prof, "time_start", num))
		return -ENOMEM;
	return 0;
}

void live_release(struct live *l)
{
	free(l->ranges);
	profile_release(&l->prof);
	profile_release(&l->ivs);
	sgroups_release(&l->sg);
	hist_release(&l->hist);
	free(l->exits);
	free(l->samples);
	free(l->groups);
	free(l->stacks);
	free(l->frames);
	zt_htab_release(&l->shash);
	free(l->scratch);
	free(l->pm_seen);
	zt_htab_release(&l->pm_hash);
	memset(l, 0, sizeof(*l));
}

int live_task(struct live *l, const struct prof_task *t)
{
	/* exits matter only to forget processes (the tree has no use for them) */
	if (t->kind == PROF_TASK_EXIT) {
		if (ZT_GROW(l->exits, l->cap_exits, l->nr_exits + 1))
			return -ENOMEM;
		l->exits[l->nr_exits++] = *t;
		return 0;
	}
	l->dirty = 1;
	return profile_add_task(&l->prof, t);
}

int live_mmap(struct live *l, const struct prof_mmap *m)
{
	l->dirty = 1;
	return profile_add_mmap(&l->prof, m);
}

int live_kernel_symbols(struct live *l, const char *text, size_t len)
{
	return profile_add_blob(&l->prof, PROF_BLOB_KALLSYMS, 0, l->iv_start, text, len);
}

int live_sample(struct live *l, uint64_t ts, uint64_t weight, uint32_t pid, uint32_t tid,
		uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu)
{
	uint32_t stack;
	int ret;

	live_trim(l->o.callchain, &nk, &nu);
	ret = profile_intern_stack(&l->ivs, ips, nk, nu, &stack);
	if (ret)
		return ret;
	if (ZT_GROW(l->samples, l->cap_samples, l->nr_samples + 1))
		return -ENOMEM;
	l->samples[l->nr_samples++] = (struct live_sample){ ts, weight, pid, tid, cpu, stack };
	return 0;
}

/* ---- the tree and the symbolizer follow the profile ---- */

static int update_tree(struct live *l)
{
	int ret;

	if (!l->dirty && l->rs->pt)
		return 0;
	ret = rstacks_live_follow(l->o.stacks, &l->prof);
	if (ret)
		return ret;
	l->dirty = 0;
	return 0;
}

/* ---- grouping the interval's samples ---- */

static int group_samples(struct live *l, size_t *nr_groups)
{
	size_t i;

	sgroups_release(&l->sg);
	sgroups_init(&l->sg);
	for (i = 0; i < l->nr_samples; i++) {
		const struct live_sample *s = &l->samples[i];
		struct sgroup_key k = { s->stack, s->pid, USES(l, HIST_KEY_TID) ? s->tid : 0,
					rstacks_comm(l->rs, s->pid, s->tid, s->ts),
					proctree_epoch(l->rs->pt, s->pid, s->ts) };
		struct live_group *g;
		uint32_t gi;
		int is_new;

		if (USES(l, HIST_KEY_CPU))
			k.epoch = zt_hash_mix(k.epoch, (uint64_t)s->cpu + 1);
		k.epoch = frametab_epoch(l->rs->ft, s->pid, s->ts, k.epoch);
		if (sgroups_find(&l->sg, &k, &gi, &is_new))
			return -ENOMEM;
		if (is_new) {
			if (ZT_GROW(l->groups, l->cap_groups, l->sg.nr))
				return -ENOMEM;
			l->groups[gi] = (struct live_group){ s->stack, s->pid, s->tid, s->cpu, k.comm,
							     k.epoch, s->ts, 0, 0 };
		}
		g = &l->groups[gi];
		g->weight += s->weight;
		g->nr++;
		l->last.samples++;
		l->last.weight += s->weight;
		if (l->ivs.stacks[s->stack].nk)
			l->last.kernel++;
	}
	*nr_groups = l->sg.nr;
	return 0;
}

/* ---- JIT code: perf maps ---- */

static inline uint64_t pid_hash(uint32_t pid)
{
	return zt_hash_mix(0, pid + 1ull);
}

static inline uint64_t pm_hash_at(const void *l, uint32_t i)
{
	return pid_hash(((const struct live *)l)->pm_seen[i]);
}

/* Whether pid is new to the set (and now in it); -ENOMEM. */
static int pm_first(struct live *l, uint32_t pid)
{
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&l->pm_hash, 1, pm_hash_at, l))
		return -ENOMEM;
	for (j = zt_htab_first(&l->pm_hash, pid_hash(pid)); zt_htab_get(&l->pm_hash, j, &i);
	     j = zt_htab_next(&l->pm_hash, j))
		if (l->pm_seen[i] == pid)
			return 0;
	if (ZT_GROW(l->pm_seen, l->cap_pm_seen, l->nr_pm_seen + 1))
		return -ENOMEM;
	l->pm_seen[l->nr_pm_seen] = pid;
	zt_htab_set(&l->pm_hash, j, (uint32_t)l->nr_pm_seen++);
	return 1;
}

/* The perf maps of the processes sampled for the first time, into the
 * profile before the resolver looks for them. */
static int read_perfmaps(struct live *l, size_t nr_groups)
{
	size_t i;

	for (i = 0; i < nr_groups; i++) {
		uint32_t pid = l->groups[i].pid;
		struct procfile_owner owner;
		char path[64], *text;
		size_t len;
		int ret = pid ? pm_first(l, pid) : 0;

		if (ret <= 0) {
			if (ret)
				return ret;
			continue;
		}
		/* as zt record reads it: see procfile.h */
		if (procfile_owner_init(&owner, pid))
			continue;
		snprintf(path, sizeof(path), "/tmp/perf-%u.map", owner.nspid);
		if (procfile_read(&owner, path, PERFMAP_MAX, &text, &len))
			continue;
		ret = profile_add_blob(&l->prof, PROF_BLOB_PERFMAP, pid, l->groups[i].ts, text, len);
		free(text);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- the history ---- */

/* The frames of group g into l->scratch, with only the fields the keys
 * use (so that stacks alike under the keys are one history stack). */
static int resolve_group(struct live *l, const struct live_group *g, unsigned *n_out)
{
	const struct prof_stack *st = &l->ivs.stacks[g->stack];
	const uint64_t *ips = profile_stack_ips(&l->ivs, g->stack);
	unsigned i, n = (unsigned)st->nk + st->nu;
	char name[NAME_MAX_LEN];
	uint32_t comm = 0;
	int ret = 0;

	if (USES(l, HIST_KEY_COMM) || USES(l, HIST_KEY_PID) || USES(l, HIST_KEY_TID))
		ret = hist_intern_clean(&l->hist, prof_comm_or_pid(g->comm, g->pid, name, sizeof(name)),
					&comm);
	if (!ret && ZT_GROW(l->ranges, l->cap_ranges, n ? n : 1))
		ret = -ENOMEM;
	if (!ret)
		ret = frametab_resolve(l->rs->ft, g->pid, g->ts, g->epoch, ips, st->nk, n, l->ranges);
	for (i = 0; i < n && !ret; i++) {
		struct hist_frame *h = &l->scratch[i];
		const struct zt_frange *r = &l->ranges[i];
		const struct zt_frame *f = rstacks_frame(l->rs, r->first + r->n - 1);

		memset(h, 0, sizeof(*h));
		h->comm = comm;
		h->pid = USES(l, HIST_KEY_PID) || USES(l, HIST_KEY_TID) ? g->pid : 0;
		h->tid = USES(l, HIST_KEY_TID) ? g->tid : 0;
		h->cpu = USES(l, HIST_KEY_CPU) ? g->cpu : 0;
		h->kernel = f->kernel;
		h->symq = USES(l, HIST_KEY_SYMQ) ? f->quality : 0;
		ret = hist_intern_clean(&l->hist, f->module, &h->dso);
		if (!ret)
			ret = hist_intern_clean(&l->hist, zt_frame_name(f, name, sizeof(name)), &h->sym);
		if (!ret && USES(l, HIST_KEY_SRCLINE))
			ret = hist_intern_clean(&l->hist, zt_frame_srcline(f, name, sizeof(name)),
						&h->srcline);
	}
	*n_out = n;
	return ret;
}

/* Frames are compared as bytes: resolve_group() zeroes them, padding included. */
static uint64_t frames_hash(const struct hist_frame *f, unsigned n)
{
	return zt_hash_mix(zt_hash_bytes(f, n * sizeof(*f)), n);
}

/* Index the history afresh (its stacks or their hashes changed). */
static int shash_rebuild(struct live *l)
{
	size_t i;
	int ret;

	/* the slots do not shrink: the history grows back between decays */
	ret = zt_htab_reset(&l->shash,
			    l->nr_stacks > l->shash.cap / 2 ? l->nr_stacks : l->shash.cap / 2);
	for (i = 0; !ret && i < l->nr_stacks; i++)
		zt_htab_add(&l->shash, l->stacks[i].hash, (uint32_t)i);
	return ret;
}

static inline uint64_t stack_hash_at(const void *l, uint32_t i)
{
	return ((const struct live *)l)->stacks[i].hash;
}

/* Add weight to the history stack of frames f[0..n), made if new. */
static int history_add(struct live *l, const struct hist_frame *f, unsigned n, uint64_t weight,
		       uint64_t nr)
{
	uint64_t h = frames_hash(f, n);
	struct live_stack *s;
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&l->shash, 1, stack_hash_at, l))
		return -ENOMEM;
	for (j = zt_htab_first(&l->shash, h); zt_htab_get(&l->shash, j, &i);
	     j = zt_htab_next(&l->shash, j)) {
		s = &l->stacks[i];
		if (s->hash == h && s->n == n && !memcmp(l->frames + s->off, f, n * sizeof(*f))) {
			s->weight += weight;
			s->nr += nr;
			return 0;
		}
	}
	if (l->nr_frames + n > UINT32_MAX || ZT_GROW(l->stacks, l->cap_stacks, l->nr_stacks + 1) ||
	    ZT_GROW(l->frames, l->cap_frames, l->nr_frames + n + 1))
		return -ENOMEM;
	memcpy(l->frames + l->nr_frames, f, n * sizeof(*f));
	l->stacks[l->nr_stacks] = (struct live_stack){ (uint32_t)l->nr_frames, n, weight, nr, h };
	zt_htab_set(&l->shash, j, (uint32_t)l->nr_stacks++);
	l->nr_frames += n;
	return 0;
}

/* perf top's decay: every entry loses an eighth a refresh; those whose
 * samples decayed to nothing go. zero: all go. */
static int decay(struct live *l, int zero)
{
	size_t i, k = 0;
	uint32_t off = 0;

	for (i = 0; i < l->nr_stacks && !zero; i++) {
		struct live_stack s = l->stacks[i];

		s.weight -= s.weight / 8;
		s.nr = s.nr * 7 / 8;
		if (!s.nr || !s.weight)
			continue;
		memmove(l->frames + off, l->frames + s.off, s.n * sizeof(*l->frames));
		s.off = off;
		off += s.n;
		l->stacks[k++] = s;
	}
	l->nr_stacks = k;
	l->nr_frames = off;
	return shash_rebuild(l);
}

/* Too many interned strings no history frame uses (names of processes
 * and functions long gone): intern the used ones afresh. */
static int prune_strings(struct live *l)
{
	struct hist fresh;
	struct hist_opts ho = { l->o.callchain, l->o.chain };
	size_t nr_strs = zt_strtab_count(&l->hist.strs), i;
	uint32_t *map;
	int ret;

	if (nr_strs < STRS_SLACK || nr_strs < 8 * (l->nr_frames + 1))
		return 0;
	map = malloc(nr_strs * sizeof(*map));
	if (!map)
		return -ENOMEM;
	memset(map, 0xff, nr_strs * sizeof(*map));
	ret = hist_init_opts(&fresh, l->o.keys, l->o.nr_keys, &ho);
	for (i = 0; i < l->nr_frames && !ret; i++) {
		struct hist_frame *f = &l->frames[i];
		uint32_t *ids[] = { &f->comm, &f->dso, &f->sym, &f->srcline };
		size_t k;

		for (k = 0; k < sizeof(ids) / sizeof(ids[0]) && !ret; k++) {
			uint32_t old = *ids[k];

			if (map[old] == UINT32_MAX)
				ret = hist_intern(&fresh, hist_str(&l->hist, old), &map[old]);
			*ids[k] = map[old];
		}
	}
	free(map);
	if (ret) {
		hist_release(&fresh);
		return ret;
	}
	hist_release(&l->hist);
	l->hist = fresh;
	/* the frames changed: so did their hashes */
	for (i = 0; i < l->nr_stacks; i++)
		l->stacks[i].hash = frames_hash(l->frames + l->stacks[i].off, l->stacks[i].n);
	return shash_rebuild(l);
}

/* ---- forgetting processes that exited ---- */

static int exit_cmp(const void *a, const void *b)
{
	const struct prof_task *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Whether thread (or process, tid == pid) tid exited at or after ts and
 * before cutoff: what it had at ts is gone for good. */
static int exited(const struct live *l, uint32_t tid, uint64_t ts, uint64_t cutoff)
{
	size_t lo = 0, hi = l->nr_exits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct prof_task *e = &l->exits[mid];

		if (e->tid < tid || (e->tid == tid && e->ts < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->nr_exits && l->exits[lo].tid == tid && l->exits[lo].ts < cutoff;
}

/*
 * Once the profile has grown well past its size after the last time, keep
 * only what living processes and threads need: a fresh profile, tree and
 * resolver (modules open again from the GSYM cache on demand). Exits
 * before the interval began are final: their samples are in.
 */
static int compact(struct live *l)
{
	const struct profile *p = &l->prof;
	uint64_t cutoff = l->iv_start;
	struct profile np;
	size_t i, k;
	int ret = 0;

	if (!l->nr_exits || p->nr_tasks + p->nr_mmaps < 2 * l->base_size + COMPACT_SLACK)
		return 0;
	qsort(l->exits, l->nr_exits, sizeof(*l->exits), exit_cmp);
	profile_init(&np);
	for (i = 0; i < p->nr_meta && !ret; i++)
		ret = profile_set_meta(&np, p->meta[i].key, p->meta[i].value);
	/* perf maps of processes gone go; the others stay looked for */
	l->nr_pm_seen = 0;
	zt_htab_clear(&l->pm_hash);
	for (i = 0; i < p->nr_blobs && !ret; i++) {
		const struct prof_blob *b = &p->blobs[i];

		if (b->kind == PROF_BLOB_PERFMAP && exited(l, b->pid, b->ts, cutoff))
			continue;
		ret = profile_add_blob(&np, b->kind, b->pid, b->ts, b->data, b->len);
		if (!ret && b->kind == PROF_BLOB_PERFMAP)
			ret = pm_first(l, b->pid) < 0 ? -ENOMEM : 0;
	}
	for (i = 0; i < p->nr_tasks && !ret; i++) {
		const struct prof_task *t = &p->tasks[i];

		if (!exited(l, t->pid, t->ts, cutoff) && !exited(l, t->tid, t->ts, cutoff))
			ret = profile_add_task(&np, t);
	}
	for (i = 0; i < p->nr_mmaps && !ret; i++) {
		const struct prof_mmap *m = &p->mmaps[i];

		if (m->pid == ZT_PID_KERNEL || !exited(l, m->pid, m->ts, cutoff))
			ret = profile_add_mmap(&np, m);
	}
	if (ret) {
		profile_release(&np);
		return ret;
	}
	for (i = k = 0; i < l->nr_exits; i++)
		if (l->exits[i].ts >= cutoff)
			l->exits[k++] = l->exits[i];
	l->nr_exits = k;
	/* a fresh symbolizer for the fresh profile */
	rstacks_live_follow(l->o.stacks, NULL); /* cannot fail */
	profile_release(&l->prof);
	l->prof = np;
	l->dirty = 1;
	l->base_size = np.nr_tasks + np.nr_mmaps;
	l->compactions++;
	return 0;
}

/* ---- a refresh ---- */

static int rebuild_hist(struct live *l)
{
	struct hist_opts ho = { l->o.callchain, l->o.chain };
	size_t i;
	int ret = hist_reset(&l->hist, l->o.keys, l->o.nr_keys, &ho);

	for (i = 0; i < l->nr_stacks && !ret; i++) {
		const struct live_stack *s = &l->stacks[i];

		ret = hist_add_sample(&l->hist, l->frames + s->off, s->n, s->weight, s->nr);
	}
	return ret;
}

int live_refresh(struct live *l, int zero, uint64_t now)
{
	size_t nr_groups = 0, i;
	int ret = 0;

	memset(&l->last, 0, sizeof(l->last));
	if (l->nr_samples)
		ret = update_tree(l);
	if (!ret)
		ret = group_samples(l, &nr_groups);
	if (!ret)
		ret = read_perfmaps(l, nr_groups);
	if (!ret)
		ret = decay(l, zero);
	for (i = 0; i < nr_groups && !ret; i++) {
		const struct live_group *g = &l->groups[i];
		unsigned n;

		ret = resolve_group(l, g, &n);
		if (!ret)
			ret = history_add(l, l->scratch, n, g->weight, g->nr);
	}
	if (!ret)
		ret = prune_strings(l);
	if (!ret)
		ret = rebuild_hist(l);
	l->samples_total += l->last.samples;
	/* the next interval */
	profile_release(&l->ivs);
	profile_init(&l->ivs);
	l->nr_samples = 0;
	if (!ret)
		ret = compact(l);
	l->iv_start = now;
	return ret;
}
