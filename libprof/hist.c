/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Histogram of frames by sort keys with Children and Self: an entry table
 * hashed on the selected keys, and a string interner for their values.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/hist.h"
#include "libprof/htab.h"
#include "libprof/profile.h"
#include "libprof/rborder.h"

static const char *const key_names[] = {
	[HIST_KEY_COMM] = "comm",
	[HIST_KEY_PID] = "tgid",
	[HIST_KEY_DSO] = "dso",
	[HIST_KEY_SYM] = "sym",
	[HIST_KEY_SRCLINE] = "srcline",
	[HIST_KEY_SYMQ] = "symq",
	[HIST_KEY_TID] = "pid",
	[HIST_KEY_CPU] = "cpu",
	[HIST_KEY_PARENT] = "parent",
};

int hist_key_parse(const char *name, enum hist_key *key)
{
	size_t i;

	/* perf's pid key is the thread (tid:comm); tgid is the process */
	if (!strcmp(name, "tid") || !strcmp(name, "thread")) {
		*key = HIST_KEY_TID;
		return 0;
	}
	if (!strcmp(name, "symbol")) {
		*key = HIST_KEY_SYM;
		return 0;
	}
	for (i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++) {
		if (!strcmp(name, key_names[i])) {
			*key = (enum hist_key)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *hist_key_name(enum hist_key key)
{
	return (unsigned)key < sizeof(key_names) / sizeof(key_names[0]) ? key_names[key] : "?";
}

const char *hist_key_title(enum hist_key k)
{
	switch (k) {
	case HIST_KEY_COMM:
		return "Command";
	case HIST_KEY_PID:
		return "Tgid:Command";
	case HIST_KEY_TID:
		return "Pid:Command";
	case HIST_KEY_DSO:
		return "Shared Object";
	case HIST_KEY_SYM:
		return "Symbol";
	case HIST_KEY_SRCLINE:
		return "Source:Line";
	case HIST_KEY_SYMQ:
		return "Symbols";
	case HIST_KEY_CPU:
		return "CPU";
	case HIST_KEY_PARENT:
		return "Parent symbol";
	}
	return "";
}

int hist_key_width(const struct hist_entry *e, enum hist_key k, int len, int dso_list)
{
	if (!e->f.symq && k == HIST_KEY_SYM && len < 22)
		return 22;
	if (!e->f.symq && k == HIST_KEY_DSO && !dso_list && len < 16)
		return 16;
	return len;
}

const char *hist_key_text(const struct hist *h, const struct hist_entry *e, enum hist_key k,
			  char *buf, size_t n)
{
	static const char *const q[] = { "none", "basic", "full" };

	switch (k) {
	case HIST_KEY_COMM:
		return hist_str(h, e->f.comm);
	case HIST_KEY_PID:
	case HIST_KEY_TID: {
		char name[256];

		snprintf(buf, n, "%7u:%s", k == HIST_KEY_PID ? e->f.pid : e->f.tid,
			 hist_thread_name(h, e, k, name, sizeof(name)));
		return buf;
	}
	case HIST_KEY_DSO:
		return hist_str(h, e->f.dso);
	case HIST_KEY_SYM:
		if (e->f.unmapped) /* perf: "%#.16llx" (0 without its 0x) */
			snprintf(buf, n, "[%c] %#.16llx", e->f.kernel ? 'k' : '.',
				 (unsigned long long)e->f.addr);
		else
			snprintf(buf, n, "[%c] %s", e->f.kernel ? 'k' : '.', hist_str(h, e->f.sym));
		return buf;
	case HIST_KEY_SRCLINE:
		return hist_str(h, e->f.srcline);
	case HIST_KEY_SYMQ:
		return q[e->f.symq < 3 ? e->f.symq : 0];
	case HIST_KEY_CPU:
		snprintf(buf, n, "%.3d", (int32_t)e->f.cpu); /* perf's: no CPU (-1) is -001 */
		return buf;
	case HIST_KEY_PARENT:
		return hist_str(h, e->f.parent);
	}
	return "";
}

int hist_init(struct hist *h, const enum hist_key *keys, unsigned nr_keys)
{
	return hist_init_opts(h, keys, nr_keys, NULL);
}

int hist_init_opts(struct hist *h, const enum hist_key *keys, unsigned nr_keys,
		   const struct hist_opts *o)
{
	static const enum hist_key def[] = { HIST_KEY_COMM, HIST_KEY_DSO, HIST_KEY_SYM };
	unsigned i, j;

	memset(h, 0, sizeof(*h));
	h->opts.children = 1;
	if (o)
		h->opts = *o;
	cc_init(&h->cc);
	if (!nr_keys) {
		keys = def;
		nr_keys = 3;
	}
	for (i = 0; i < nr_keys; i++) {
		if ((unsigned)keys[i] >= HIST_MAX_KEYS)
			return -EINVAL;
		for (j = 0; j < h->nr_keys && h->keys[j] != keys[i]; j++)
			;
		if (j == h->nr_keys)
			h->keys[h->nr_keys++] = keys[i];
	}
	return 0;
}

int hist_reset(struct hist *h, const enum hist_key *keys, unsigned nr_keys,
	       const struct hist_opts *o)
{
	struct hist keep = *h;
	int ret;

	free(h->entries);
	zt_htab_release(&h->ehash);
	free(h->sorted);
	cc_release(&h->cc);
	ret = hist_init_opts(h, keys, nr_keys, o);
	h->strs = keep.strs;
	h->ckeys = keep.ckeys;
	h->ckeys_cap = keep.ckeys_cap;
	h->corders = keep.corders;
	h->corders_cap = keep.corders_cap;
	h->cidx = keep.cidx;
	h->cidx_cap = keep.cidx_cap;
	h->thread_name = keep.thread_name;
	h->thread_ctx = keep.thread_ctx;
	return ret;
}

void hist_release(struct hist *h)
{
	zt_strtab_release(&h->strs);
	free(h->entries);
	zt_htab_release(&h->ehash);
	free(h->sorted);
	free(h->ckeys);
	free(h->corders);
	free(h->cidx);
	cc_release(&h->cc);
	memset(h, 0, sizeof(*h));
}

int hist_intern(struct hist *h, const char *s, uint32_t *id)
{
	return zt_strtab_intern_str(&h->strs, s, id);
}

int hist_intern_clean(struct hist *h, const char *s, uint32_t *id)
{
	char buf[1024];

	prof_sanitize(buf, sizeof(buf), s);
	return hist_intern(h, buf, id);
}

const char *hist_str(const struct hist *h, uint32_t id)
{
	return zt_strtab_str(&h->strs, id);
}

const char *hist_thread_name(const struct hist *h, const struct hist_entry *e, enum hist_key k,
			     char *buf, size_t n)
{
	const char *s = NULL;

	if (h->thread_name)
		s = h->thread_name(h->thread_ctx, e->f.pid, k == HIST_KEY_PID ? e->f.pid : e->f.tid);
	if (!s)
		return hist_str(h, e->f.comm);
	prof_sanitize(buf, n, s);
	return buf;
}

static uint64_t frame_hash(const struct hist *h, const struct hist_frame *f)
{
	uint64_t v = 0x9e3779b97f4a7c15ull;
	unsigned i;

	for (i = 0; i < h->nr_keys; i++) {
		switch (h->keys[i]) {
		case HIST_KEY_COMM:
			v = zt_hash_mix(v, f->comm);
			break;
		case HIST_KEY_PID:
			v = zt_hash_mix(v, (uint64_t)f->pid << 8 | 1);
			break;
		case HIST_KEY_DSO:
			v = zt_hash_mix(v, (uint64_t)f->dso << 8 | 2);
			break;
		case HIST_KEY_SYM:
			v = zt_hash_mix(v, (uint64_t)f->sym << 8 | 3 | (uint64_t)f->kernel << 4);
			v = zt_hash_mix(v, (uint64_t)f->dso << 8 | 9);
			if (!f->inlined)
				v = zt_hash_mix(v, f->addr);
			break;
		case HIST_KEY_SRCLINE:
			v = zt_hash_mix(v, (uint64_t)f->srcline << 8 | 5);
			break;
		case HIST_KEY_SYMQ:
			v = zt_hash_mix(v, (uint64_t)f->symq << 8 | 6);
			break;
		case HIST_KEY_TID:
			v = zt_hash_mix(v, (uint64_t)f->tid << 8 | 7);
			break;
		case HIST_KEY_CPU:
			v = zt_hash_mix(v, (uint64_t)f->cpu << 8 | 8);
			break;
		case HIST_KEY_PARENT:
			v = zt_hash_mix(v, (uint64_t)f->parent << 8 | 10);
			break;
		}
	}
	return v;
}

static inline uint64_t entry_hash_at(const void *ctx, uint32_t i)
{
	const struct hist *h = ctx;

	return frame_hash(h, &h->entries[i].f);
}

static int frame_equal(const struct hist *h, const struct hist_frame *a, const struct hist_frame *b)
{
	unsigned i;

	for (i = 0; i < h->nr_keys; i++) {
		switch (h->keys[i]) {
		case HIST_KEY_COMM:
			if (a->comm != b->comm)
				return 0;
			break;
		case HIST_KEY_PID:
			if (a->pid != b->pid)
				return 0;
			break;
		case HIST_KEY_DSO:
			if (a->dso != b->dso)
				return 0;
			break;
		case HIST_KEY_SYM:
			/* perf's sort__sym_cmp: the function in its module, not the name
			 * (overloads demangled without parameters stay apart) */
			if (a->sym != b->sym || a->kernel != b->kernel || a->dso != b->dso ||
			    (!a->inlined && a->addr != b->addr))
				return 0;
			break;
		case HIST_KEY_SRCLINE:
			if (a->srcline != b->srcline)
				return 0;
			break;
		case HIST_KEY_SYMQ:
			if (a->symq != b->symq)
				return 0;
			break;
		case HIST_KEY_TID:
			if (a->tid != b->tid)
				return 0;
			break;
		case HIST_KEY_CPU:
			if (a->cpu != b->cpu)
				return 0;
			break;
		case HIST_KEY_PARENT:
			if (a->parent != b->parent)
				return 0;
			break;
		}
	}
	return 1;
}

static struct hist_entry *find_entry(struct hist *h, const struct hist_frame *f)
{
	size_t j;
	uint32_t i;
	struct hist_entry *e;

	if (zt_htab_reserve(&h->ehash, 1, entry_hash_at, h))
		return NULL;
	for (j = zt_htab_first(&h->ehash, frame_hash(h, f)); zt_htab_get(&h->ehash, j, &i);
	     j = zt_htab_next(&h->ehash, j)) {
		e = &h->entries[i];
		if (frame_equal(h, &e->f, f))
			return e;
	}
	if (ZT_GROW(h->entries, h->cap_entries, h->nr_entries + 1))
		return NULL;
	e = &h->entries[h->nr_entries];
	memset(e, 0, sizeof(*e));
	e->f = *f;
	e->chain = CC_NONE;
	if (h->opts.chain != HIST_CHAIN_NONE && !h->opts.lazy_chains && cc_new_root(&h->cc, &e->chain))
		return NULL;
	zt_htab_set(&h->ehash, j, (uint32_t)h->nr_entries);
	h->nr_entries++;
	return e;
}

/* Add the chain keys[from..n) to e's tree. */
static int add_chain(struct hist *h, struct hist_entry *e, size_t from, size_t n,
		     uint64_t weight, uint64_t nr)
{
	return cc_add(&h->cc, e->chain, h->ckeys + from, h->corders + from, n - from, weight, nr);
}

/* The sample's chain keys in chain order (callee: leaf first) into h->ckeys. */
static int chain_keys(struct hist *h, const struct hist_frame *frames, size_t n, int callee)
{
	size_t i;

	if (ZT_GROW(h->ckeys, h->ckeys_cap, n) || ZT_GROW(h->corders, h->corders_cap, n) ||
	    ZT_GROW(h->cidx, h->cidx_cap, n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct hist_frame *f = &frames[callee ? i : n - 1 - i];

		h->ckeys[i] = hist_chain_key(f);
		h->corders[i] = f->addr;
	}
	return 0;
}

/* Self: the innermost function that is not inlined (perf's sample symbol);
 * inlined frames above it only have Children. */
static size_t self_frame(const struct hist_frame *frames, size_t n)
{
	size_t i = 0;

	while (i + 1 < n && frames[i].inlined)
		i++;
	return i;
}

/* The leading frames outside the chain (hist_frame.outside). */
static size_t nr_outside(const struct hist_frame *frames, size_t n)
{
	size_t i = 0;

	while (i < n && frames[i].outside)
		i++;
	return i;
}

/* perf: the leaf's entry gets the whole stack; with children, every other
 * entry the stack from its first place in chain order on. h->cidx holds the
 * n entries of the chain in chain order, leaf_ei is the leaf's entry; only
 * entries with a tree get paths. */
static int add_chains(struct hist *h, size_t n, uint32_t leaf_ei, uint64_t weight, uint64_t nr)
{
	struct hist_entry *leaf = &h->entries[leaf_ei];
	size_t i;
	int ret = 0;

	if (leaf->chain != CC_NONE)
		ret = add_chain(h, leaf, 0, n, weight, nr);
	if (ret || !h->opts.children)
		return ret;
	h->serial++;
	leaf->last = h->serial;
	for (i = 0; i < n; i++) {
		struct hist_entry *e = &h->entries[h->cidx[i]]; /* i-th in chain order */

		if (e->last == h->serial)
			continue;
		e->last = h->serial;
		if (e->chain != CC_NONE) {
			ret = add_chain(h, e, i, n, weight, nr);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int hist_add_sample(struct hist *h, const struct hist_frame *frames, size_t n,
		    uint64_t weight, uint64_t nr)
{
	return hist_add_sample_at(h, frames, n, weight, nr, NULL);
}

int hist_add_sample_at(struct hist *h, const struct hist_frame *frames, size_t n,
		       uint64_t weight, uint64_t nr, uint32_t *eidx)
{
	int chains = h->opts.chain != HIST_CHAIN_NONE && !h->opts.lazy_chains;
	int callee = h->opts.chain == HIST_CHAIN_CALLEE;
	size_t i, self_at, k;
	uint32_t leaf_ei = 0;
	int ret;

	h->total += weight;
	h->total_nr += nr;
	h->serial++;
	if (!n)
		return 0;
	self_at = self_frame(frames, n);
	k = nr_outside(frames, n);
	if (chains && (ret = chain_keys(h, frames + k, n - k, callee)))
		return ret;
	for (i = 0; i < n; i++) {
		struct hist_entry *e = find_entry(h, &frames[i]);
		/* perf's max_depth: the entry's own samples append the whole
		 * chain, another entry the chain from its place on, in chain
		 * order (caller: from the outermost frame in) */
		size_t d = i == self_at ? n - k : i < k ? 0 : callee ? n - i : i + 1 - k;
		uint32_t depth = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;

		if (!e)
			return -ENOMEM;
		if (frames[i].first < e->f.first) {
			e->f.first = frames[i].first;
			e->f.first_tid = frames[i].first_tid;
		}
		if (i == self_at) {
			e->self += weight;
			e->self_nr += nr;
			leaf_ei = (uint32_t)(e - h->entries);
		}
		if (chains && i >= k)
			h->cidx[callee ? i - k : n - 1 - i] = (uint32_t)(e - h->entries);
		if (eidx)
			eidx[i] = (uint32_t)(e - h->entries);
		if (depth > e->depth)
			e->depth = depth;
		if (e->last != h->serial) {
			e->last = h->serial;
			e->children += weight;
			e->children_nr += nr;
		}
	}
	return chains ? add_chains(h, n - k, leaf_ei, weight, nr) : 0;
}

int hist_want_chains(struct hist *h, uint64_t min_weight)
{
	size_t i;

	for (i = 0; i < h->nr_entries; i++) {
		struct hist_entry *e = &h->entries[i];

		if (e->chain == CC_NONE && (h->opts.children ? e->children : e->self) >= min_weight &&
		    cc_new_root(&h->cc, &e->chain))
			return -ENOMEM;
	}
	return 0;
}

int hist_add_chains(struct hist *h, const struct hist_frame *frames, size_t n,
		    uint64_t weight, uint64_t nr)
{
	return hist_add_chains_at(h, frames, NULL, n, weight, nr);
}

int hist_add_chains_at(struct hist *h, const struct hist_frame *frames, const uint32_t *eidx,
		       size_t n, uint64_t weight, uint64_t nr)
{
	int callee = h->opts.chain == HIST_CHAIN_CALLEE;
	size_t i, self_at, k;
	uint32_t leaf_ei = 0;
	int ret, any = 0;

	if (!n || h->opts.chain == HIST_CHAIN_NONE)
		return 0;
	if (eidx) { /* nothing to do unless an entry on the stack has a tree */
		for (i = 0; i < n && !any; i++)
			any = h->entries[eidx[i]].chain != CC_NONE;
		if (!any)
			return 0;
	}
	self_at = self_frame(frames, n);
	k = nr_outside(frames, n);
	ret = chain_keys(h, frames + k, n - k, callee);
	for (i = 0; !ret && i < n; i++) {
		uint32_t ei;

		if (eidx) {
			ei = eidx[i];
		} else {
			struct hist_entry *e = find_entry(h, &frames[i]);

			if (!e)
				return -ENOMEM;
			ei = (uint32_t)(e - h->entries);
		}
		if (i == self_at)
			leaf_ei = ei;
		if (i >= k)
			h->cidx[callee ? i - k : n - 1 - i] = ei;
	}
	return ret ? ret : add_chains(h, n - k, leaf_ei, weight, nr);
}

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

/* perf's cmp_null(): an entry without the thing (no function, no parent) last */
static int cmp_missing(int a_missing, int b_missing)
{
	return a_missing - b_missing;
}

static int str_cmp(const struct hist *h, uint32_t a, uint32_t b)
{
	return a == b ? 0 : strcmp(hist_str(h, a), hist_str(h, b));
}

static int key_cmp(const struct hist *h, enum hist_key k, const struct hist_entry *a,
		   const struct hist_entry *b)
{
	int r = 0;

	switch (k) {
	case HIST_KEY_COMM:
		return str_cmp(h, a->f.comm, b->f.comm);
	case HIST_KEY_PID:
		return cmp_u32(a->f.pid, b->f.pid);
	case HIST_KEY_DSO: /* perf's _sort__dso_cmp(): no module (no mapping) last */
		r = cmp_missing(a->f.unmapped, b->f.unmapped);
		return r ? r : str_cmp(h, a->f.dso, b->f.dso);
	case HIST_KEY_SYM:
		/* perf's sort__sym_sort: by name, no function last, two without alike */
		r = cmp_missing(!a->f.symq, !b->f.symq);
		if (r || !a->f.symq)
			return r;
		r = str_cmp(h, a->f.sym, b->f.sym);
		return r ? r : (int)!!a->f.kernel - (int)!!b->f.kernel;
	case HIST_KEY_SRCLINE:
		return str_cmp(h, a->f.srcline, b->f.srcline);
	case HIST_KEY_SYMQ:
		return (int)b->f.symq - (int)a->f.symq;
	case HIST_KEY_TID:
		return cmp_u32(a->f.tid, b->f.tid);
	case HIST_KEY_CPU: /* perf's int: no CPU (-1) first */
		return (int32_t)a->f.cpu < (int32_t)b->f.cpu   ? -1
		       : (int32_t)a->f.cpu > (int32_t)b->f.cpu ? 1
							       : 0;
	case HIST_KEY_PARENT:
		r = cmp_missing(!strcmp(hist_str(h, a->f.parent), "[other]"),
				!strcmp(hist_str(h, b->f.parent), "[other]"));
		return r ? r : str_cmp(h, a->f.parent, b->f.parent);
	}
	return 0;
}

int hist_key_cmp(const struct hist *h, enum hist_key k, const struct hist_entry *a,
		 const struct hist_entry *b)
{
	return key_cmp(h, k, a, b);
}

static int grp_self(const struct hist *h, size_t i)
{
	unsigned j;

	for (j = 0; h->grp && j < h->grp_nr; j++)
		if (h->grp[i * h->grp_nr + j])
			return 1;
	return 0;
}

/*
 * Sorting by values made once per sort: each item's sort values in turn,
 * compared as unsigned numbers (smaller first), so that a comparison reads
 * a few numbers in a row, not entries and strings. Strings are their
 * ranks in strcmp order among those the sorted entries name.
 */
struct sort_vals {
	uint64_t *v;   /* nv per item */
	unsigned nv;
	/* perf's __hpp__sort_acc() at Children's value (index rule_at,
	 * UINT_MAX: none): of equal Children, within a thread (tid) the
	 * caller (more depth) above its callee, the other way with callee
	 * chains */
	unsigned rule_at;
	uint32_t *tid, *depth;
	int callee;
	int tie_by_index; /* equal items by their index (perf's tree of entries) */
};

static int vals_cmp(const struct sort_vals *sv, uint32_t a, uint32_t b)
{
	const uint64_t *x = sv->v + (size_t)a * sv->nv, *y = sv->v + (size_t)b * sv->nv;
	unsigned j;

	for (j = 0; j < sv->nv; j++) {
		if (x[j] != y[j])
			return x[j] < y[j] ? -1 : 1;
		if (j == sv->rule_at && sv->tid[a] == sv->tid[b] && sv->depth[a] != sv->depth[b])
			return (sv->depth[a] > sv->depth[b]) != sv->callee ? -1 : 1;
	}
	return sv->tie_by_index ? cmp_u32(a, b) : 0;
}

static int vals_qcmp(const void *pa, const void *pb, void *ctx)
{
	return vals_cmp(ctx, *(const uint32_t *)pa, *(const uint32_t *)pb);
}

static int vals_rbcmp(uint32_t a, uint32_t b, void *ctx)
{
	return vals_cmp(ctx, a, b);
}

static int id_qcmp(const void *pa, const void *pb, void *ctx)
{
	return strcmp(hist_str(ctx, *(const uint32_t *)pa), hist_str(ctx, *(const uint32_t *)pb));
}

/* The ranks of the strings that the n entries s name as comm, module,
 * function, source line and parent, in strcmp order (an id they do not
 * name: 0). NULL: no memory. */
static uint32_t *make_ranks(const struct hist *h, const struct hist_entry *const *s, size_t n)
{
	size_t nr = zt_strtab_count(&h->strs), u = 0, i;
	uint32_t *rank = calloc(nr ? nr : 1, sizeof(*rank)), *ids;

	ids = malloc((5 * n + 1) * sizeof(*ids));
	if (!rank || !ids) {
		free(rank);
		free(ids);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		const uint32_t f[5] = {s[i]->f.comm, s[i]->f.dso, s[i]->f.sym, s[i]->f.srcline,
				       s[i]->f.parent};
		unsigned j;

		for (j = 0; j < 5; j++)
			if (f[j] < nr && !rank[f[j]]) {
				rank[f[j]] = 1;
				ids[u++] = f[j];
			}
	}
	qsort_r(ids, u, sizeof(*ids), id_qcmp, (void *)h);
	for (i = 0; i < u; i++)
		rank[ids[i]] = (uint32_t)i;
	free(ids);
	return rank;
}

/* key_cmp()'s order of key k as a number: e's value, with the strings'
 * ranks (nr of them). */
static uint64_t key_val(const struct hist *h, const uint32_t *rank, size_t nr, enum hist_key k,
			const struct hist_entry *e)
{
#define RANK(id) ((id) < nr ? (uint64_t)rank[id] : 0)
	switch (k) {
	case HIST_KEY_COMM:
		return RANK(e->f.comm);
	case HIST_KEY_PID:
		return e->f.pid;
	case HIST_KEY_DSO:
		return (uint64_t)!!e->f.unmapped << 32 | RANK(e->f.dso);
	case HIST_KEY_SYM:
		return !e->f.symq ? UINT64_MAX : RANK(e->f.sym) << 1 | !!e->f.kernel;
	case HIST_KEY_SRCLINE:
		return RANK(e->f.srcline);
	case HIST_KEY_SYMQ:
		return UINT8_MAX - e->f.symq;
	case HIST_KEY_TID:
		return e->f.tid;
	case HIST_KEY_CPU:
		return (uint64_t)((int64_t)(int32_t)e->f.cpu - INT32_MIN);
	case HIST_KEY_PARENT:
		return (uint64_t)!strcmp(hist_str(h, e->f.parent), "[other]") << 32 |
		       RANK(e->f.parent);
	}
#undef RANK
	return 0;
}

/* The order of perf's entry tree (hists->entries_collapsed), in which its
 * entries go into the sorted one: by the keys' se_cmp(), ascending, where
 * a function is its module and address (unresolved ones after), of equal
 * ones the first made first. The values of the k entries s into sv. */
static int tree_vals(const struct hist *h, const struct hist_entry *const *s, size_t k,
		     const uint32_t *rank, struct sort_vals *sv)
{
	size_t nr = zt_strtab_count(&h->strs), i;
	unsigned j, n = 0;

	memset(sv, 0, sizeof(*sv));
	for (j = 0; j < h->nr_keys; j++)
		n += h->keys[j] == HIST_KEY_SYM ? 2 : 1;
	sv->nv = n;
	sv->tie_by_index = 1;
	sv->rule_at = UINT_MAX;
	if (!(sv->v = malloc((k * n + 1) * sizeof(*sv->v))))
		return -ENOMEM;
	for (i = 0; i < k; i++) {
		const struct hist_entry *e = s[i];
		uint64_t *v = sv->v + i * n;

		for (j = 0; j < h->nr_keys; j++) {
			if (h->keys[j] != HIST_KEY_SYM) {
				*v++ = key_val(h, rank, nr, h->keys[j], e);
				continue;
			}
			*v++ = (uint64_t)!e->f.symq << 32 | (e->f.dso < nr ? rank[e->f.dso] : 0);
			*v++ = e->f.addr;
		}
	}
	return 0;
}

/* The values of the k entries s by spec (perf's sort list) into sv. */
static int spec_vals(const struct hist *h, const struct hist_sortspec *spec,
		     const struct hist_entry *const *s, size_t k, const uint32_t *rank,
		     struct sort_vals *sv)
{
	size_t nr = zt_strtab_count(&h->strs), i;
	unsigned j, g, n = 0;

	memset(sv, 0, sizeof(*sv));
	for (j = 0; j < spec->nr; j++)
		n += (spec->by[j] == HIST_BY_SELF || spec->by[j] == HIST_BY_PERIOD) && h->grp
			     ? 1 + h->grp_nr
			     : 1;
	sv->nv = n;
	sv->rule_at = UINT_MAX;
	sv->callee = h->opts.chain == HIST_CHAIN_CALLEE;
	sv->v = malloc((k * n + 1) * sizeof(*sv->v));
	sv->tid = malloc((k + 1) * sizeof(*sv->tid));
	sv->depth = malloc((k + 1) * sizeof(*sv->depth));
	if (!sv->v || !sv->tid || !sv->depth)
		return -ENOMEM;
	for (i = 0; i < k; i++) {
		const struct hist_entry *e = s[i];
		const uint64_t *grp = h->grp ? h->grp + (size_t)(e - h->entries) * h->grp_nr : NULL;
		uint64_t *v = sv->v + i * n;
		unsigned at = 0;

		sv->tid[i] = e->f.first_tid;
		sv->depth[i] = e->depth;
		for (j = 0; j < spec->nr; j++) {
			switch (spec->by[j]) {
			case HIST_BY_CHILDREN:
				if (h->opts.chain != HIST_CHAIN_NONE)
					sv->rule_at = at;
				v[at++] = ~e->children;
				break;
			case HIST_BY_SELF:
			case HIST_BY_PERIOD:
				v[at++] = ~e->self;
				for (g = 0; grp && g < h->grp_nr; g++)
					v[at++] = ~grp[g];
				break;
			case HIST_BY_SAMPLES:
				v[at++] = ~e->self_nr;
				break;
			default:
				v[at++] = key_val(h, rank, nr, (enum hist_key)(spec->by[j] - HIST_BY_KEY),
						  e);
			}
		}
	}
	return 0;
}

static void vals_release(struct sort_vals *sv)
{
	free(sv->v);
	free(sv->tid);
	free(sv->depth);
	memset(sv, 0, sizeof(*sv));
}

/* The order of the k entries s as perf's: they go from their tree
 * (tree_vals()) into the sorted one in turn (__hists__insert_output_entry():
 * an equal one after), and as the comparison is not transitive only a
 * tree built alike gives its order. s reordered, order[] their sorted
 * sequence. 0 or -ENOMEM. */
static int perf_order(const struct hist *h, const struct hist_sortspec *spec,
		      const struct hist_entry **s, size_t k, uint32_t *order)
{
	const struct hist_entry **t = malloc((k + 1) * sizeof(*t));
	uint32_t *rank = make_ranks(h, s, k);
	struct sort_vals sv = {0};
	size_t i;
	int ret = -ENOMEM;

	if (!t || !rank)
		goto out;
	ret = tree_vals(h, s, k, rank, &sv);
	if (ret)
		goto out;
	for (i = 0; i < k; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, k, sizeof(*order), vals_qcmp, &sv);
	for (i = 0; i < k; i++)
		t[i] = s[order[i]];
	memcpy(s, t, k * sizeof(*s));
	vals_release(&sv);
	ret = spec_vals(h, spec, s, k, rank, &sv);
	if (!ret)
		ret = rborder(k, vals_rbcmp, &sv, order);
out:
	vals_release(&sv);
	free(rank);
	free(t);
	return ret;
}

int hist_sort_by(struct hist *h, const struct hist_sortspec *spec, double percent_limit,
		 const struct hist_entry ***out, size_t *n)
{
	const struct hist_entry **s;
	uint32_t *order;
	size_t i, k = 0, j = 0;
	int ret;

	s = realloc(h->sorted, (h->nr_entries ? h->nr_entries : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	h->sorted = s;
	for (i = 0; i < h->nr_entries; i++)
		if (spec->all || h->entries[i].self_nr || grp_self(h, i))
			s[k++] = &h->entries[i];
	order = malloc((k ? k : 1) * sizeof(*order));
	ret = order ? perf_order(h, spec, s, k, order) : -ENOMEM;
	if (ret) {
		free(order);
		return ret;
	}
	for (i = 0; i < k; i++) {
		const struct hist_entry *e = s[order[i]];
		uint64_t v = spec->limit_children ? e->children : e->self;

		order[i] = (uint32_t)(e - h->entries);
		if (!hist_sortspec_shows(h, spec, e))
			order[i] = UINT32_MAX;
		else if (percent_limit > 0 &&
			 (!h->total || (double)v * 100.0 / (double)h->total < percent_limit))
			order[i] = UINT32_MAX;
	}
	for (i = 0; i < k; i++)
		if (order[i] != UINT32_MAX)
			s[j++] = &h->entries[order[i]];
	free(order);
	*out = s;
	*n = j;
	return 0;
}

void hist_sortspec_default(struct hist_sortspec *s, int children, const enum hist_key *keys,
			   unsigned nr_keys)
{
	const char *filter = s->sym_filter;
	unsigned i;

	memset(s, 0, sizeof(*s));
	s->sym_filter = filter;
	s->all = s->limit_children = children;
	if (children)
		s->by[s->nr++] = HIST_BY_CHILDREN;
	s->by[s->nr++] = HIST_BY_SELF;
	for (i = 0; i < nr_keys && s->nr < HIST_MAX_BY; i++)
		s->by[s->nr++] = HIST_BY_KEY + (int)keys[i];
}

int hist_sortspec_shows(const struct hist *h, const struct hist_sortspec *s,
			const struct hist_entry *e)
{
	return !s->sym_filter || (e->f.symq && strstr(hist_str(h, e->f.sym), s->sym_filter));
}

int hist_sort(struct hist *h, int children, double percent_limit, const struct hist_entry ***out,
	      size_t *n)
{
	struct hist_sortspec spec = {.nr = 0};

	hist_sortspec_default(&spec, children == 1, h->keys, h->nr_keys);
	spec.all = children != 0;
	return hist_sort_by(h, &spec, percent_limit, out, n);
}
