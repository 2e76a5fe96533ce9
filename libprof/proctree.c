/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Processes over time: thread-name timelines and per-process address-space
 * generations, each flattened into sorted arrays searched by bisection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/proctree.h"

#define PT_MAX_DEPTH 32 /* fork chains followed by a lookup */

/* A task event on a timeline: a name (COMM/EXEC), or a creation (FORK,
 * comm NULL: the name is the creator's). */
struct pt_ev {
	uint64_t ts;
	uint32_t key; /* tid or pid, by timeline */
	uint32_t ppid, ptid;
	uint32_t order;
	const char *comm;
	uint64_t raw_ts; /* the event's own time: orders events that ts makes 0 */
};

/*
 * A generation of an address space, from ts until the next one. Its
 * mappings, in time order (pt->order[mts_first ..]), cut its addresses into
 * elementary intervals [pts[k], pts[k+1]); a persistent segment tree over
 * them has a version per prefix of the mappings: version c answers "the
 * latest of the first c mappings covering an interval" (c: the mappings at
 * or before a time), in O(log n) and O(n log n) space, however the mappings
 * nest (a growing anonymous region is reported whole at every mmap). A
 * plain bottom-up tree answers "the earliest covering at all".
 */
struct pt_gen {
	uint64_t ts;
	uint32_t parent;      /* inherit: the parent's pid */
	int inherit;          /* started by a FORK */
	uint32_t mts_first, mts_count; /* its mappings: times in pt->mts, indices in pt->order */
	uint32_t pts_first, nleaves;   /* interval bounds: pt->pts[pts_first .. + nleaves] */
	uint32_t roots_first;          /* pt->roots[roots_first + c]: the tree of c mappings */
	uint32_t mins_first;           /* pt->mins[mins_first .. + 2 * nleaves) */
};

/* A tree node: tag is 1 + the time-order position of the latest mapping
 * (in its version) covering the node's whole range, 0 for none. */
struct pt_node {
	uint32_t l, r;        /* children; node 0 is the empty tree */
	uint32_t tag;
};

struct pt_proc {
	uint32_t pid;
	uint32_t gen_first, gen_count;
};

struct proctree {
	const struct profile *p;
	uint64_t *ets;            /* effective time of each mmap */
	struct pt_ev *by_tid, *by_pid;
	size_t nr_by_tid, nr_by_pid;
	struct pt_proc *procs;
	size_t nr_procs;
	struct pt_gen *gens;
	size_t nr_gens;
	uint64_t *mts;
	uint32_t *order;          /* mmap indices by process, then time */
	uint64_t *pts;
	size_t nr_pts, cap_pts;
	struct pt_node *nodes;
	size_t nr_nodes, cap_nodes;
	uint32_t *roots;
	size_t nr_roots, cap_roots;
	uint32_t *mins;
	size_t nr_mins, cap_mins;
};

static uint64_t start_time(const struct profile *p)
{
	const char *s = profile_get_meta(p, "time_start");
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return 0;
	return v;
}

static uint64_t eff_ts(uint64_t ts, uint64_t start)
{
	return ts <= start ? 0 : ts;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct pt_ev *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* events before the first sample all count from the start, in their
	 * own order (perf.data holds them per ring buffer, not in time order:
	 * a new thread's COMM may come before the FORK that made it) */
	if (x->raw_ts != y->raw_ts)
		return x->raw_ts < y->raw_ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Order mmap indices by (pid, effective time, index); ctx is the tree. */
static int mmap_idx_cmp(const void *a, const void *b, void *ctx)
{
	const struct proctree *pt = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct prof_mmap *x = &pt->p->mmaps[i], *y = &pt->p->mmaps[j];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (pt->ets[i] != pt->ets[j])
		return pt->ets[i] < pt->ets[j] ? -1 : 1;
	if (x->ts != y->ts) /* both before the first sample: their own order */
		return x->ts < y->ts ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* A generation boundary of process pid. */
struct pt_bnd {
	uint64_t ts;
	uint32_t pid, ppid, order;
	int fork;
	uint64_t raw_ts; /* the event's own time (ts may be made 0) */
};

static int bnd_cmp(const void *a, const void *b)
{
	const struct pt_bnd *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->raw_ts != y->raw_ts)
		return x->raw_ts < y->raw_ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t map_end(const struct prof_mmap *m)
{
	return m->len > UINT64_MAX - m->start ? UINT64_MAX : m->start + m->len;
}

/* Index of v in the sorted unique array pts[0..n). */
static size_t point_index(const uint64_t *pts, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pts[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Version of the tree at node with [a, b) of its leaves [lo, hi) tagged:
 * the path to them copied, the rest shared. */
static int tree_insert(struct proctree *pt, uint32_t node, size_t lo, size_t hi, size_t a, size_t b,
		       uint32_t tag, uint32_t *out)
{
	uint32_t nn, l, r;
	size_t mid;
	int ret;

	if (b <= lo || hi <= a) {
		*out = node;
		return 0;
	}
	if (pt->nr_nodes >= UINT32_MAX)
		return -E2BIG;
	if (ZT_GROW(pt->nodes, pt->cap_nodes, pt->nr_nodes + 1))
		return -ENOMEM;
	nn = (uint32_t)pt->nr_nodes++;
	pt->nodes[nn] = pt->nodes[node];
	if (a <= lo && hi <= b) {
		pt->nodes[nn].tag = tag;
		*out = nn;
		return 0;
	}
	mid = lo + (hi - lo) / 2;
	if ((ret = tree_insert(pt, pt->nodes[node].l, lo, mid, a, b, tag, &l)) ||
	    (ret = tree_insert(pt, pt->nodes[node].r, mid, hi, a, b, tag, &r)))
		return ret;
	pt->nodes[nn].l = l;
	pt->nodes[nn].r = r;
	*out = nn;
	return 0;
}

/* The highest tag on the path to leaf k of n. */
static uint32_t tree_query(const struct proctree *pt, uint32_t node, size_t n, size_t k)
{
	size_t lo = 0, hi = n, mid;
	uint32_t best = 0;

	while (node) {
		const struct pt_node *x = &pt->nodes[node];

		if (x->tag > best)
			best = x->tag;
		if (hi - lo <= 1)
			break;
		mid = lo + (hi - lo) / 2;
		if (k < mid) {
			node = x->l;
			hi = mid;
		} else {
			node = x->r;
			lo = mid;
		}
	}
	return best;
}

/* The bottom-up tree of earliest tags (m[1 .. 2n), leaves at n ..): tags
 * come in increasing order, so the first one set on a node is its least. */
static void mins_insert(uint32_t *m, size_t n, size_t a, size_t b, uint32_t tag)
{
	for (a += n, b += n; a < b; a >>= 1, b >>= 1) {
		if (a & 1) {
			if (!m[a])
				m[a] = tag;
			a++;
		}
		if (b & 1) {
			b--;
			if (!m[b])
				m[b] = tag;
		}
	}
}

static uint32_t mins_query(const uint32_t *m, size_t n, size_t k)
{
	uint32_t best = 0;
	size_t x;

	for (x = k + n; x >= 1; x >>= 1)
		if (m[x] && (!best || m[x] < best))
			best = m[x];
	return best;
}

/*
 * The trees of one generation; idx[0..n) are its mappings sorted by time.
 */
static int build_tree(struct proctree *pt, struct pt_gen *g, const uint32_t *idx, size_t n)
{
	const struct profile *p = pt->p;
	uint64_t *pts;
	size_t npts = 0, nl, i, j;
	uint32_t root = 0;
	int ret;

	g->pts_first = (uint32_t)pt->nr_pts;
	g->nleaves = 0;
	g->roots_first = (uint32_t)pt->nr_roots;
	g->mins_first = (uint32_t)pt->nr_mins;
	if (pt->nr_pts + 2 * n > UINT32_MAX || pt->nr_roots + n + 1 > UINT32_MAX ||
	    pt->nr_mins + 4 * n > UINT32_MAX)
		return -E2BIG;
	if (ZT_GROW(pt->pts, pt->cap_pts, pt->nr_pts + 2 * n + 1) ||
	    ZT_GROW(pt->roots, pt->cap_roots, pt->nr_roots + n + 1))
		return -ENOMEM;
	pts = pt->pts + pt->nr_pts;
	for (i = 0; i < n; i++) {
		const struct prof_mmap *m = &p->mmaps[idx[i]];

		if (!m->len)
			continue;
		pts[npts++] = m->start;
		pts[npts++] = map_end(m);
	}
	if (npts) {
		qsort(pts, npts, sizeof(*pts), u64_cmp);
		for (i = 1, j = 1; i < npts; i++)
			if (pts[i] != pts[j - 1])
				pts[j++] = pts[i];
		npts = j;
	}
	nl = npts > 1 ? npts - 1 : 0;
	pt->nr_pts += npts;
	g->nleaves = (uint32_t)nl;
	if (ZT_GROW(pt->mins, pt->cap_mins, pt->nr_mins + 2 * nl + 1))
		return -ENOMEM;
	memset(pt->mins + pt->nr_mins, 0, (2 * nl + 1) * sizeof(*pt->mins));
	pt->nr_mins += 2 * nl + 1;
	pt->roots[pt->nr_roots++] = 0;
	for (i = 0; i < n; i++) {
		const struct prof_mmap *m = &p->mmaps[idx[i]];

		if (m->len && nl) {
			const uint64_t *ps = pt->pts + g->pts_first;
			size_t a = point_index(ps, npts, m->start), b = point_index(ps, npts, map_end(m));

			if ((ret = tree_insert(pt, root, 0, nl, a, b, (uint32_t)i + 1, &root)))
				return ret;
			mins_insert(pt->mins + g->mins_first, nl, a, b, (uint32_t)i + 1);
		}
		pt->roots[pt->nr_roots++] = root;
	}
	return 0;
}

static int build_timelines(struct proctree *pt, uint64_t start)
{
	const struct profile *p = pt->p;
	size_t i;

	pt->by_tid = calloc(p->nr_tasks ? p->nr_tasks : 1, sizeof(*pt->by_tid));
	pt->by_pid = calloc(p->nr_tasks ? p->nr_tasks : 1, sizeof(*pt->by_pid));
	if (!pt->by_tid || !pt->by_pid)
		return -ENOMEM;
	for (i = 0; i < p->nr_tasks; i++) {
		const struct prof_task *t = &p->tasks[i];
		struct pt_ev e = { eff_ts(t->ts, start), 0, t->ppid, t->ptid, (uint32_t)i, NULL, t->ts };

		if (t->kind == PROF_TASK_COMM || t->kind == PROF_TASK_EXEC) {
			e.comm = t->comm;
			e.key = t->tid;
			pt->by_tid[pt->nr_by_tid++] = e;
			e.key = t->pid;
			pt->by_pid[pt->nr_by_pid++] = e;
		} else if (t->kind == PROF_TASK_FORK && t->tid != t->ptid) {
			e.key = t->tid;
			pt->by_tid[pt->nr_by_tid++] = e;
		}
	}
	qsort(pt->by_tid, pt->nr_by_tid, sizeof(*pt->by_tid), ev_cmp);
	qsort(pt->by_pid, pt->nr_by_pid, sizeof(*pt->by_pid), ev_cmp);
	return 0;
}

/* Generation boundaries of every process: EXECs, and FORKs of new
 * processes, sorted by pid and time. */
static int collect_boundaries(const struct profile *p, uint64_t start, struct pt_bnd **out,
			      size_t *nr)
{
	struct pt_bnd *b = calloc(p->nr_tasks ? p->nr_tasks : 1, sizeof(*b));
	size_t i, n = 0;

	if (!b)
		return -ENOMEM;
	for (i = 0; i < p->nr_tasks; i++) {
		const struct prof_task *t = &p->tasks[i];

		if (t->kind == PROF_TASK_EXEC ||
		    (t->kind == PROF_TASK_FORK && t->pid != t->ppid))
			b[n++] = (struct pt_bnd){ eff_ts(t->ts, start), t->pid, t->ppid, (uint32_t)i,
						  t->kind == PROF_TASK_FORK, t->ts };
	}
	qsort(b, n, sizeof(*b), bnd_cmp);
	*out = b;
	*nr = n;
	return 0;
}

static int build_spaces(struct proctree *pt, uint64_t start)
{
	const struct profile *p = pt->p;
	struct pt_bnd *bnd = NULL;
	uint32_t *idx = NULL, *pids = NULL;
	size_t nbnd = 0, npids = 0, i, j, bi = 0, mi = 0;
	int ret = -ENOMEM;

	if (p->nr_mmaps > UINT32_MAX || p->nr_tasks > UINT32_MAX)
		return -E2BIG;
	pt->ets = malloc((p->nr_mmaps ? p->nr_mmaps : 1) * sizeof(*pt->ets));
	pt->mts = malloc((p->nr_mmaps ? p->nr_mmaps : 1) * sizeof(*pt->mts));
	idx = malloc((p->nr_mmaps ? p->nr_mmaps : 1) * sizeof(*idx));
	if (!pt->ets || !pt->mts || !idx)
		goto out;
	ret = collect_boundaries(p, start, &bnd, &nbnd);
	if (ret)
		goto out;
	for (i = 0; i < p->nr_mmaps; i++) {
		pt->ets[i] = eff_ts(p->mmaps[i].ts, start);
		idx[i] = (uint32_t)i;
	}
	qsort_r(idx, p->nr_mmaps, sizeof(*idx), mmap_idx_cmp, pt);

	pids = malloc((p->nr_mmaps + nbnd + 1) * sizeof(*pids));
	pt->procs = calloc(p->nr_mmaps + nbnd + 1, sizeof(*pt->procs));
	/* one generation per process, plus one per boundary */
	pt->gens = calloc(p->nr_mmaps + 2 * nbnd + 1, sizeof(*pt->gens));
	if (!pids || !pt->procs || !pt->gens) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nr_mmaps; i++)
		pids[npids++] = p->mmaps[i].pid;
	for (i = 0; i < nbnd; i++)
		pids[npids++] = bnd[i].pid;
	qsort(pids, npids, sizeof(*pids), u32_cmp);

	for (i = 0; i < npids; i++) {
		struct pt_proc *pr;
		size_t b0, m0, m1, g;
		uint32_t pid = pids[i];

		if (i && pids[i] == pids[i - 1])
			continue;
		pr = &pt->procs[pt->nr_procs++];
		pr->pid = pid;
		pr->gen_first = (uint32_t)pt->nr_gens;
		while (bi < nbnd && bnd[bi].pid < pid)
			bi++;
		b0 = bi;
		while (bi < nbnd && bnd[bi].pid == pid)
			bi++;
		/* generation 0 runs from the beginning, then one per boundary */
		pt->gens[pt->nr_gens++] = (struct pt_gen){ .ts = 0 };
		for (j = b0; j < bi; j++)
			pt->gens[pt->nr_gens++] = (struct pt_gen){
				.ts = bnd[j].ts, .parent = bnd[j].ppid, .inherit = bnd[j].fork,
			};
		pr->gen_count = (uint32_t)(pt->nr_gens - pr->gen_first);

		while (mi < p->nr_mmaps && p->mmaps[idx[mi]].pid < pid)
			mi++;
		m0 = mi;
		while (mi < p->nr_mmaps && p->mmaps[idx[mi]].pid == pid)
			mi++;
		/* mappings are sorted by time: split them among the generations */
		for (g = 0, m1 = m0; g < pr->gen_count; g++) {
			struct pt_gen *ge = &pt->gens[pr->gen_first + g];
			uint64_t until = g + 1 < pr->gen_count ? ge[1].ts : UINT64_MAX;
			size_t k = m1;

			while (m1 < mi && (pt->ets[idx[m1]] < until || g + 1 == pr->gen_count))
				m1++;
			ge->mts_first = (uint32_t)k;
			ge->mts_count = (uint32_t)(m1 - k);
			for (j = k; j < m1; j++)
				pt->mts[j] = pt->ets[idx[j]];
			ret = build_tree(pt, ge, idx + k, m1 - k);
			if (ret)
				goto out;
		}
	}
	ret = 0;
out:
	free(bnd);
	pt->order = idx;
	free(pids);
	return ret;
}

int proctree_new(const struct profile *p, struct proctree **out)
{
	struct proctree *pt = calloc(1, sizeof(*pt));
	uint64_t start = start_time(p);
	int ret;

	*out = NULL;
	if (!pt)
		return -ENOMEM;
	pt->p = p;
	if (ZT_GROW(pt->nodes, pt->cap_nodes, 1)) {
		free(pt);
		return -ENOMEM;
	}
	memset(pt->nodes, 0, sizeof(*pt->nodes)); /* node 0: the empty tree */
	pt->nr_nodes = 1;
	ret = build_timelines(pt, start);
	if (!ret)
		ret = build_spaces(pt, start);
	if (ret) {
		proctree_free(pt);
		return ret;
	}
	*out = pt;
	return 0;
}

void proctree_free(struct proctree *pt)
{
	if (!pt)
		return;
	free(pt->ets);
	free(pt->by_tid);
	free(pt->by_pid);
	free(pt->procs);
	free(pt->gens);
	free(pt->mts);
	free(pt->order);
	free(pt->pts);
	free(pt->nodes);
	free(pt->roots);
	free(pt->mins);
	free(pt);
}

/* Index just past the last event of key with ts <= t (the range of key
 * starts at *first). */
static size_t ev_upper(const struct pt_ev *ev, size_t n, uint32_t key, uint64_t t, size_t *first)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ev[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ev[mid].key < key || (ev[mid].key == key && ev[mid].ts <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const char *comm_after(const struct pt_ev *ev, size_t n, size_t i, uint32_t key)
{
	for (; i < n && ev[i].key == key; i++)
		if (ev[i].comm)
			return ev[i].comm;
	return NULL;
}

static const char *comm_at(const struct proctree *pt, uint32_t pid, uint32_t tid, uint64_t ts,
			   int depth)
{
	size_t first, i, j;
	const char *c;

	i = ev_upper(pt->by_tid, pt->nr_by_tid, tid, ts, &first);
	if (i > first) {
		const struct pt_ev *e = &pt->by_tid[i - 1];

		if (e->comm)
			return e->comm;
		if (depth < PT_MAX_DEPTH) {
			c = comm_at(pt, e->ppid, e->ptid, e->ts, depth + 1);
			if (c)
				return c;
		}
	}
	j = ev_upper(pt->by_pid, pt->nr_by_pid, pid, ts, &first);
	if (j > first)
		return pt->by_pid[j - 1].comm;
	c = comm_after(pt->by_tid, pt->nr_by_tid, i, tid);
	if (c)
		return c;
	return comm_after(pt->by_pid, pt->nr_by_pid, j, pid);
}

const char *proctree_comm(const struct proctree *pt, uint32_t pid, uint32_t tid, uint64_t ts)
{
	return comm_at(pt, pid, tid, ts, 0);
}

static const struct pt_proc *find_proc(const struct proctree *pt, uint32_t pid)
{
	size_t lo = 0, hi = pt->nr_procs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pt->procs[mid].pid < pid)
			lo = mid + 1;
		else if (pt->procs[mid].pid > pid)
			hi = mid;
		else
			return &pt->procs[mid];
	}
	return NULL;
}

/* The generation in force at ts (generation 0 starts at time 0). */
static size_t find_gen(const struct proctree *pt, const struct pt_proc *pr, uint64_t ts)
{
	const struct pt_gen *g = pt->gens + pr->gen_first;
	size_t lo = 1, hi = pr->gen_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return pr->gen_first + lo - 1;
}

/* Number of times in t[0..n) that are <= v. */
static size_t count_le(const uint64_t *t, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* strict: no clock-skew fallback (a parent's space as of a fork) */
static const struct prof_mmap *gen_lookup(const struct proctree *pt, const struct pt_gen *g,
					  uint64_t ts, uint64_t addr, int strict)
{
	const uint64_t *pts = pt->pts + g->pts_first;
	size_t n = g->nleaves, k;
	uint32_t t;

	if (!n)
		return NULL;
	/* the interval [pts[k], pts[k+1]) holding addr */
	k = count_le(pts, n + 1, addr);
	if (!k || k > n)
		return NULL;
	k--;
	/* latest mapped at or before ts; else the earliest (clock skew) */
	t = tree_query(pt, pt->roots[g->roots_first + count_le(pt->mts + g->mts_first, g->mts_count, ts)],
		       n, k);
	if (!t && !strict)
		t = mins_query(pt->mins + g->mins_first, n, k);
	return t ? &pt->p->mmaps[pt->order[g->mts_first + t - 1]] : NULL;
}

const struct prof_mmap *proctree_map(const struct proctree *pt, uint32_t pid, uint64_t ts,
				     uint64_t addr)
{
	int depth;

	for (depth = 0; depth < PT_MAX_DEPTH; depth++) {
		const struct pt_proc *pr = find_proc(pt, pid);
		const struct pt_gen *g;
		const struct prof_mmap *m;

		if (!pr)
			return NULL;
		g = &pt->gens[find_gen(pt, pr, ts)];
		m = gen_lookup(pt, g, ts, addr, depth > 0);
		if (m || !g->inherit || g->parent == pid)
			return m;
		pid = g->parent;
		ts = g->ts;
	}
	return NULL;
}

/* Narrow [*from, *until) to the times between ev's neighbours of t for key. */
static void ev_window(const struct pt_ev *ev, size_t n, uint32_t key, uint64_t t, uint64_t *from,
		      uint64_t *until)
{
	size_t first, i = ev_upper(ev, n, key, t, &first);

	if (i > first && ev[i - 1].ts > *from)
		*from = ev[i - 1].ts;
	if (i < n && ev[i].key == key && ev[i].ts < *until)
		*until = ev[i].ts;
}

void proctree_thread_at(const struct proctree *pt, uint32_t pid, uint32_t tid, uint64_t ts,
			const char **comm, uint64_t *epoch, uint64_t *from, uint64_t *until)
{
	const struct pt_proc *pr = find_proc(pt, pid);

	*comm = comm_at(pt, pid, tid, ts, 0);
	*epoch = proctree_epoch(pt, pid, ts);
	/* the comm changes only at an event of the thread or the process; the
	 * epoch at a new generation or a mapping of the current one */
	*from = 0;
	*until = UINT64_MAX;
	ev_window(pt->by_tid, pt->nr_by_tid, tid, ts, from, until);
	ev_window(pt->by_pid, pt->nr_by_pid, pid, ts, from, until);
	if (pr) {
		size_t gi = find_gen(pt, pr, ts), c;
		const struct pt_gen *g = &pt->gens[gi];
		const uint64_t *mts = pt->mts + g->mts_first;

		if (gi > pr->gen_first && g->ts > *from)
			*from = g->ts;
		if (gi + 1 < pr->gen_first + pr->gen_count && pt->gens[gi + 1].ts < *until)
			*until = pt->gens[gi + 1].ts;
		c = count_le(mts, g->mts_count, ts);
		if (c && mts[c - 1] > *from)
			*from = mts[c - 1];
		if (c < g->mts_count && mts[c] < *until)
			*until = mts[c];
	}
}

uint64_t proctree_epoch(const struct proctree *pt, uint32_t pid, uint64_t ts)
{
	const struct pt_proc *pr = find_proc(pt, pid);
	const struct pt_gen *g;
	size_t gi;

	if (!pr)
		return 0;
	gi = find_gen(pt, pr, ts);
	g = &pt->gens[gi];
	return (uint64_t)(gi - pr->gen_first) << 32 |
	       count_le(pt->mts + g->mts_first, g->mts_count, ts);
}
