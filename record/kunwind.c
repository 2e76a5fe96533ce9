/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel unwinder's tables, kept in step with the side-band. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <gelf.h>
#include <libelf.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/log.h"
#include "record/kunwind.h"
#include "record/mapfile.h"
#include "symbolizer/cficache.h"
#include "symbolizer/cfitab.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/vdso.h"

_Static_assert(ZT_UW_CFA == CFITAB_CFA && ZT_UW_SIGNAL == CFITAB_SIGNAL &&
		       ZT_UW_UNSUPPORTED == CFITAB_UNSUPPORTED && ZT_UW_END == CFITAB_END &&
		       ZT_UW_PLT == CFITAB_PLT && ZT_UW_REG_FP == CFITAB_REG_FP &&
		       ZT_UW_FP_AT == CFITAB_FP_AT && ZT_UW_FP_UNDEF == CFITAB_FP_UNDEF,
	       "bpf/kunwind.h's rules are cfitab's");
_Static_assert(CFICACHE_MAX_SEGS == ZT_UW_SEGS, "segments");
_Static_assert(ZT_UW_PAGE_SHIFT == CFIPAGE_SHIFT, "pages");

enum ustate {
	U_NEW,	    /* not asked for yet, or evicted */
	U_BUILDING, /* with the worker */
	U_LOADED,
	U_NONE,	    /* no table (no CFI, unreadable, another file than the build id's) */
	U_NOROOM,   /* did not fit */
};

struct ufile {
	struct prof_build_id bid;
	uint32_t id;	/* in the maps (1-based), 0 while it has none */
	uint8_t state;	/* enum ustate */
	uint32_t refs;	/* process mappings of it */
	uint64_t used;	/* when last mapped (a tick), for eviction */
	uint32_t first, nr_entries;
	uint64_t *pages; /* its pages in the maps */
	uint32_t nr_pages;
};

struct umap {
	uint64_t start, len, pgoff;
	uint32_t file; /* index in files + 1 */
};

struct uproc {
	uint32_t pid;
	uint64_t exec_ts; /* mappings older than the last exec are gone */
	struct umap *maps; /* by start, not overlapping */
	size_t nr, cap;
};

struct job {
	struct job *next;
	size_t file; /* index in files */
	int fd;
	char *src; /* the file's path as the process named it (the sudo user's
		      read check before its table goes into their cache), or NULL */
	struct prof_build_id bid;
	/* the worker's answer */
	struct cfipages pages;
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	unsigned nr_segs;
	int err;
	bool cached;
	bool nostore; /* src lost (no memory): not cached, as its check cannot be made */
	uint64_t ns;
};

struct range {
	uint32_t first, nr;
};

/* Tables asked of the worker at most at once. */
#define MAX_JOBS 256

struct kunwind {
	struct kunwind_opts o;
	uint32_t *entries;	   /* the entries map, mapped */
	struct zt_uw_rule *rules; /* the rules map, mapped */
	size_t entries_bytes, rules_bytes;
	struct ufile *files;
	size_t nr_files, cap_files;
	struct zt_htab fhash; /* files by build id */
	uint32_t *id_file;    /* map id - 1 -> index in files + 1 (0: free) */
	uint32_t nr_ids;      /* ids handed out so far (the rest are free too) */
	struct uproc *procs;
	size_t nr_procs, cap_procs;
	struct zt_htab phash; /* procs by pid */
	struct zt_uw_rule *grules; /* = rules, what is in it */
	uint32_t nr_rules;
	struct zt_htab rhash;
	struct range *free; /* free entry ranges, by first */
	size_t nr_free, cap_free;
	uint64_t pages_used, entries_used;
	uint64_t tick;
	size_t vdso; /* the vDSO's index in files + 1, once known */
	bool vdso_tried;
	struct zt_uw_proc *pbuf; /* a process's map value being written */
	struct kunwind_stats st;
	size_t outstanding;  /* jobs with the worker */
	/* the worker */
	pthread_t thread;
	bool started, stop;
	pthread_mutex_t mu; /* everything: the worker loads tables itself */
	pthread_cond_t cv;
	struct job *todo, *todo_tail;
};

/* ---- the worker: tables built from the file (the cache is read before) ---- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void build(struct kunwind *k, struct job *j)
{
	struct prof_build_id got = { 0 };
	struct cfitab t;
	Elf *elf;
	int n;

	/* (the cache was read before the job was made: load_cached()) */
	j->nr_segs = 0;
	if (j->fd < 0) {
		j->err = -ENOENT;
		return;
	}
	/* the file opened must be the build id's */
	if (elf_read_build_id_fd(j->fd, &got) || got.len != j->bid.len ||
	    memcmp(got.data, j->bid.data, got.len)) {
		j->err = -ESTALE;
		return;
	}
	elf = elf_begin(j->fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		j->err = -EINVAL;
		return;
	}
	cfitab_init(&t);
	n = cficache_segs(elf, j->segs, CFICACHE_MAX_SEGS);
	if (n < 0) {
		j->err = n;
	} else {
		j->nr_segs = (unsigned)n;
		j->err = cfitab_build(elf, &t);
		if (j->err == -ENOENT) /* no CFI: cached as such */
			j->err = 0, t.nr = 0;
		if (!j->err)
			j->err = cfipages_build(&t, &j->pages);
	}
	cfitab_release(&t);
	elf_end(elf);
	if (!j->err && k->o.cache && !j->nostore) {
		int err = cficache_store(k->o.cache, &j->bid, &j->pages, j->segs, j->nr_segs,
					 j->src);

		if (err)
			zt_debug("kunwind: cannot cache a table: %s", strerror(-err));
	}
}

static void finish(struct kunwind *k, struct job *j);

/* The worker: builds tables with the lock released, loads them into the
 * maps with it held (at once: a short-lived process needs them now). */
static void *worker(void *arg)
{
	struct kunwind *k = arg;

	pthread_mutex_lock(&k->mu);
	for (;;) {
		struct job *j;
		uint64_t t0;

		while (!k->todo && !k->stop)
			pthread_cond_wait(&k->cv, &k->mu);
		if (k->stop)
			break;
		j = k->todo;
		k->todo = j->next;
		if (!k->todo)
			k->todo_tail = NULL;
		pthread_mutex_unlock(&k->mu);
		t0 = now_ns();
		build(k, j);
		j->ns = now_ns() - t0;
		if (j->fd >= 0)
			close(j->fd);
		j->fd = -1;
		pthread_mutex_lock(&k->mu);
		finish(k, j);
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

static void job_free(struct job *j)
{
	if (j->fd >= 0)
		close(j->fd);
	cfipages_release(&j->pages);
	free(j->src);
	free(j);
}

/* ---- the maps ---- */

static void *map_mmap(int fd, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

static uint64_t bid_hash(const struct prof_build_id *b)
{
	return zt_hash_bytes(b->data, b->len);
}

static uint64_t file_hash_at(const void *ctx, uint32_t i)
{
	const struct kunwind *k = ctx;

	return bid_hash(&k->files[i].bid);
}

static uint64_t proc_hash_at(const void *ctx, uint32_t i)
{
	const struct kunwind *k = ctx;

	return zt_hash_mix(0, k->procs[i].pid);
}

static uint64_t rule_hash_at(const void *ctx, uint32_t i)
{
	const struct kunwind *k = ctx;

	return zt_hash_bytes(&k->grules[i], sizeof(k->grules[i]));
}

int kunwind_new(const struct kunwind_opts *o, struct kunwind **out)
{
	struct kunwind *k;
	int err;

	*out = NULL;
	if (!o->max_procs || !o->max_files || !o->max_pages || !o->max_entries)
		return -EINVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->o = *o;
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv, NULL);
	k->entries_bytes = page_round((size_t)(o->max_entries + 1) / 2 * sizeof(struct zt_uw_entry2));
	k->rules_bytes = page_round((size_t)ZT_UW_RULES * sizeof(struct zt_uw_rule));
	k->entries = map_mmap(o->maps.entries, k->entries_bytes);
	k->rules = map_mmap(o->maps.rules, k->rules_bytes);
	k->grules = k->rules;
	k->id_file = calloc(o->max_files, sizeof(*k->id_file));
	k->pbuf = calloc(1, sizeof(*k->pbuf));
	k->free = calloc(1, sizeof(*k->free));
	if (!k->entries || !k->rules) {
		err = -errno;
		goto fail;
	}
	if (!k->id_file || !k->pbuf || !k->free) {
		err = -ENOMEM;
		goto fail;
	}
	k->free[0] = (struct range){ 0, o->max_entries };
	k->nr_free = k->cap_free = 1;
	err = -pthread_create(&k->thread, NULL, worker, k);
	if (err)
		goto fail;
	k->started = true;
	*out = k;
	return 0;
fail:
	kunwind_free(k);
	return err;
}

void kunwind_sampler_opts(struct sampler_opts *so)
{
	so->kunwind = true;
	so->uw_procs = KUNWIND_PROCS;
	so->uw_files = KUNWIND_FILES;
	so->uw_pages = KUNWIND_PAGES;
	so->uw_entries = KUNWIND_ENTRIES;
}

static int open_mapped(void *ctx, const struct prof_mmap *m)
{
	struct stat st;

	(void)ctx;
	return mapfile_open(m, &st);
}

int kunwind_for_sampler(const struct sampler *smp, const struct buildid_cache *cache,
			struct kunwind **out)
{
	struct kunwind_opts ko = {
		.max_procs = KUNWIND_PROCS, .max_files = KUNWIND_FILES,
		.max_pages = KUNWIND_PAGES, .max_entries = KUNWIND_ENTRIES,
		.cache = cache, .open_file = open_mapped,
	};
	int err = sampler_uw_maps(smp, &ko.maps);

	*out = NULL;
	return err ? err : kunwind_new(&ko, out);
}

void kunwind_free(struct kunwind *k)
{
	size_t i;

	if (!k)
		return;
	if (k->started) {
		pthread_mutex_lock(&k->mu);
		k->stop = true;
		pthread_cond_broadcast(&k->cv);
		pthread_mutex_unlock(&k->mu);
		pthread_join(k->thread, NULL);
	}
	while (k->todo) {
		struct job *j = k->todo;

		k->todo = j->next;
		job_free(j);
	}
	for (i = 0; i < k->nr_files; i++)
		free(k->files[i].pages);
	for (i = 0; i < k->nr_procs; i++)
		free(k->procs[i].maps);
	free(k->files);
	free(k->procs);
	zt_htab_release(&k->fhash);
	zt_htab_release(&k->phash);
	zt_htab_release(&k->rhash);
	if (k->entries)
		munmap(k->entries, k->entries_bytes);
	if (k->rules)
		munmap(k->rules, k->rules_bytes);
	free(k->id_file);
	free(k->pbuf);
	free(k->free);
	pthread_mutex_destroy(&k->mu);
	pthread_cond_destroy(&k->cv);
	free(k);
}

/* ---- files ---- */

/* b's file (created), or -1 without memory. */
static long file_of(struct kunwind *k, const struct prof_build_id *b)
{
	uint64_t h = bid_hash(b);
	struct ufile *f;
	uint32_t i;
	size_t j;

	if (zt_htab_reserve(&k->fhash, 1, file_hash_at, k))
		return -1;
	for (j = zt_htab_first(&k->fhash, h); zt_htab_get(&k->fhash, j, &i);
	     j = zt_htab_next(&k->fhash, j))
		if (k->files[i].bid.len == b->len && !memcmp(k->files[i].bid.data, b->data, b->len))
			return i;
	if (ZT_GROW(k->files, k->cap_files, k->nr_files + 1))
		return -1;
	f = &k->files[k->nr_files];
	memset(f, 0, sizeof(*f));
	f->bid = *b;
	zt_htab_set(&k->fhash, j, (uint32_t)k->nr_files);
	k->st.files++;
	return (long)k->nr_files++;
}

static void put_file_state(struct kunwind *k, const struct ufile *f, unsigned state,
			   const struct cfi_seg *segs, unsigned nr_segs)
{
	struct zt_uw_file v = { .state = state };
	uint32_t key = f->id;
	unsigned i;

	for (i = 0; i < nr_segs && i < ZT_UW_SEGS; i++) {
		v.segs[i].off = segs[i].offset;
		v.segs[i].end = segs[i].offset + segs[i].filesz;
		v.segs[i].adj = (long long)(segs[i].vaddr - segs[i].offset);
	}
	v.nsegs = i;
	if (bpf_map_update_elem(k->o.maps.files, &key, &v, BPF_ANY))
		zt_debug("kunwind: file map: %s", strerror(errno));
}

/* Give entries [first, first + nr) back, merged with their neighbours. */
static void range_free(struct kunwind *k, uint32_t first, uint32_t nr)
{
	size_t i = 0;

	if (!nr)
		return;
	while (i < k->nr_free && k->free[i].first < first)
		i++;
	if (i && k->free[i - 1].first + k->free[i - 1].nr == first) {
		k->free[i - 1].nr += nr;
		if (i < k->nr_free && first + nr == k->free[i].first) {
			k->free[i - 1].nr += k->free[i].nr;
			memmove(&k->free[i], &k->free[i + 1], (k->nr_free - i - 1) * sizeof(*k->free));
			k->nr_free--;
		}
		return;
	}
	if (i < k->nr_free && first + nr == k->free[i].first) {
		k->free[i].first = first;
		k->free[i].nr += nr;
		return;
	}
	if (ZT_GROW(k->free, k->cap_free, k->nr_free + 1))
		return; /* leaked: only room lost */
	memmove(&k->free[i + 1], &k->free[i], (k->nr_free - i) * sizeof(*k->free));
	k->free[i] = (struct range){ first, nr };
	k->nr_free++;
}

/* nr entries (first fit): 0 with *first, -ENOSPC. */
static int range_alloc(struct kunwind *k, uint32_t nr, uint32_t *first)
{
	size_t i;

	for (i = 0; i < k->nr_free; i++) {
		if (k->free[i].nr < nr)
			continue;
		*first = k->free[i].first;
		k->free[i].first += nr;
		k->free[i].nr -= nr;
		if (!k->free[i].nr) {
			memmove(&k->free[i], &k->free[i + 1], (k->nr_free - i - 1) * sizeof(*k->free));
			k->nr_free--;
		}
		return 0;
	}
	return -ENOSPC;
}

/* Drop f's table from the maps (its id stays while processes refer to it). */
static void unload(struct kunwind *k, struct ufile *f)
{
	uint32_t i;

	if (f->state != U_LOADED)
		return;
	put_file_state(k, f, ZT_UW_FILE_NONE, NULL, 0);
	for (i = 0; i < f->nr_pages; i++) {
		struct zt_uw_page_key key = { f->id, (uint32_t)f->pages[i] };

		bpf_map_delete_elem(k->o.maps.pages, &key);
	}
	k->pages_used -= f->nr_pages;
	k->entries_used -= f->nr_entries;
	range_free(k, f->first, f->nr_entries);
	free(f->pages);
	f->pages = NULL;
	f->nr_pages = 0;
	f->nr_entries = 0;
	f->state = U_NEW;
}

/* Give f's id back (no process maps it, it holds nothing). */
static void release_id(struct kunwind *k, struct ufile *f)
{
	if (!f->id)
		return;
	k->id_file[f->id - 1] = 0;
	f->id = 0;
}

/* Make room by dropping the least recently used tables no process maps:
 * true when one was dropped. */
static bool evict_one(struct kunwind *k, const struct ufile *keep)
{
	struct ufile *best = NULL;
	size_t i;

	for (i = 0; i < k->nr_files; i++) {
		struct ufile *f = &k->files[i];

		if (f != keep && !f->refs && f->state == U_LOADED && (!best || f->used < best->used))
			best = f;
	}
	if (!best)
		return false;
	unload(k, best);
	release_id(k, best);
	k->st.evicted++;
	return true;
}

/* An id in the maps for f: 0, -ENOSPC. */
static int take_id(struct kunwind *k, struct ufile *f)
{
	uint32_t i;

	if (f->id)
		return 0;
	for (;;) {
		if (k->nr_ids < k->o.max_files) {
			i = k->nr_ids++;
			break;
		}
		for (i = 0; i < k->o.max_files && k->id_file[i]; i++)
			;
		if (i < k->o.max_files)
			break;
		if (!evict_one(k, f))
			return -ENOSPC;
	}
	k->id_file[i] = (uint32_t)(f - k->files) + 1;
	f->id = i + 1;
	return 0;
}

/* The global index of rule r: 0 or -ENOSPC. */
static int rule_index(struct kunwind *k, const struct cfipage_rule *r, uint16_t *out)
{
	struct zt_uw_rule v;
	uint64_t h;
	uint32_t i;
	size_t j;

	memset(&v, 0, sizeof(v));
	v.cfa_off = r->cfa_off;
	v.fp_off = r->fp_off;
	v.kind = r->kind;
	v.cfa_reg = r->cfa_reg;
	v.fp = r->fp;
	v.bx = r->bx;
	v.bx_off = r->bx_off;
	h = zt_hash_bytes(&v, sizeof(v));
	if (zt_htab_reserve(&k->rhash, 1, rule_hash_at, k))
		return -ENOMEM;
	for (j = zt_htab_first(&k->rhash, h); zt_htab_get(&k->rhash, j, &i);
	     j = zt_htab_next(&k->rhash, j))
		if (!memcmp(&k->grules[i], &v, sizeof(v))) {
			*out = (uint16_t)i;
			return 0;
		}
	if (k->nr_rules >= ZT_UW_RULES)
		return -ENOSPC;
	k->grules[k->nr_rules] = v;
	zt_htab_set(&k->rhash, j, k->nr_rules);
	*out = (uint16_t)k->nr_rules++;
	return 0;
}

/* The worker's table for f into the maps. */
static void load(struct kunwind *k, struct ufile *f, struct job *j)
{
	const struct cfipages *p = &j->pages;
	uint16_t *remap = NULL;
	uint32_t first = 0;
	size_t i;
	int err = 0;

	if (j->err || !p->nr_pages || !j->nr_segs) {
		if (j->err)
			zt_debug("kunwind: no table: %s", strerror(-j->err));
		f->state = U_NONE;
		k->st.no_cfi++;
		put_file_state(k, f, ZT_UW_FILE_NONE, NULL, 0);
		return;
	}
	if (p->nr_entries > k->o.max_entries || p->nr_pages > k->o.max_pages) {
		err = -ENOSPC;
		goto out;
	}
	remap = malloc(p->nr_rules * sizeof(*remap));
	f->pages = malloc(p->nr_pages * sizeof(*f->pages));
	if (!remap || !f->pages) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nr_rules && !err; i++)
		err = rule_index(k, &p->rules[i], &remap[i]);
	if (err)
		goto out;
	while (k->pages_used + p->nr_pages > k->o.max_pages ||
	       range_alloc(k, (uint32_t)p->nr_entries, &first))
		if (!evict_one(k, f)) {
			err = -ENOSPC;
			goto out;
		}
	for (i = 0; i < p->nr_entries; i++)
		k->entries[first + i] = p->entries[i].lo | (uint32_t)remap[p->entries[i].rule] << 16;
	f->first = first;
	f->nr_entries = (uint32_t)p->nr_entries;
	k->entries_used += p->nr_entries;
	for (i = 0; i < p->nr_pages; i++) {
		struct zt_uw_page_key key = { f->id, (uint32_t)p->pages[i].page };
		struct zt_uw_page v = { first + p->pages[i].first, p->pages[i].nr };

		if (bpf_map_update_elem(k->o.maps.pages, &key, &v, BPF_ANY)) {
			err = -errno;
			break;
		}
		f->pages[f->nr_pages++] = p->pages[i].page;
		k->pages_used++;
	}
	f->state = U_LOADED;
	if (err) {
		unload(k, f);
		goto out;
	}
	put_file_state(k, f, ZT_UW_FILE_LOADED, j->segs, j->nr_segs);
	k->st.loaded++;
out:
	free(remap);
	if (err) {
		zt_debug("kunwind: table not loaded: %s", strerror(-err));
		free(f->pages);
		f->pages = NULL;
		f->nr_pages = 0;
		f->state = U_NOROOM;
		k->st.no_room++;
		put_file_state(k, f, ZT_UW_FILE_NONE, NULL, 0);
	}
}

/* Ask the worker for f's table, from fd (taken; -1: only the cache) of
 * the file at src (or NULL); the lock held. */
static void request(struct kunwind *k, struct ufile *f, int fd, const char *src)
{
	struct job *j;

	if (take_id(k, f)) {
		f->state = U_NOROOM;
		k->st.no_room++;
		if (fd >= 0)
			close(fd);
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		if (fd >= 0)
			close(fd);
		return;
	}
	j->file = (size_t)(f - k->files);
	j->fd = fd;
	j->src = src && src[0] == '/' ? strdup(src) : NULL;
	j->nostore = src && src[0] == '/' && !j->src;
	j->bid = f->bid;
	cfipages_init(&j->pages);
	f->state = U_BUILDING;
	put_file_state(k, f, ZT_UW_FILE_PENDING, NULL, 0);
	if (k->todo_tail)
		k->todo_tail->next = j;
	else
		k->todo = j;
	k->todo_tail = j;
	k->outstanding++;
	pthread_cond_signal(&k->cv);
}

/* A job the worker has done: its table into the maps (the lock held). */
static void finish(struct kunwind *k, struct job *j)
{
	struct ufile *f = &k->files[j->file];

	k->outstanding--;
	if (j->cached)
		k->st.cached++;
	else if (!j->err)
		k->st.built++;
	k->st.build_ns += j->ns;
	if (f->state == U_BUILDING)
		load(k, f, j);
	job_free(j);
}

/*
 * f's table from the cache, loaded at once (the lock held): a cached table
 * is read in well under a millisecond, sooner than the worker would wake
 * up to it, and a new process's first samples need it. false where the
 * cache does not hold it (the worker builds it from the file).
 */
static bool load_cached(struct kunwind *k, struct ufile *f)
{
	uint64_t t0 = now_ns();
	struct job *j;

	if (!k->o.cache)
		return false;
	j = calloc(1, sizeof(*j));
	if (!j)
		return false;
	j->fd = -1;
	j->file = (size_t)(f - k->files);
	j->bid = f->bid;
	cfipages_init(&j->pages);
	if (cficache_load(k->o.cache, &j->bid, &j->pages, j->segs, &j->nr_segs) ||
	    take_id(k, f)) {
		job_free(j);
		return false;
	}
	j->cached = true;
	j->ns = now_ns() - t0;
	f->state = U_BUILDING;
	k->outstanding++;
	finish(k, j);
	return true;
}

/* ---- the vDSO: this machine's image, the same in every process ---- */

static void vdso_file(struct kunwind *k)
{
	struct prof_build_id b = { 0 };
	const void *img;
	size_t len;
	long i;
	int fd;

	k->vdso_tried = true;
	if (vdso_self_image(&img, &len))
		return;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, img, len) != (ssize_t)len || elf_read_build_id_fd(fd, &b) || !b.len) {
		close(fd);
		return;
	}
	i = file_of(k, &b);
	if (i < 0) {
		close(fd);
		return;
	}
	k->vdso = (size_t)i + 1;
	if (load_cached(k, &k->files[i]))
		close(fd);
	else
		request(k, &k->files[i], fd, NULL);
}

/* ---- processes ---- */

static struct uproc *proc_of(struct kunwind *k, uint32_t pid, bool create)
{
	uint64_t h = zt_hash_mix(0, pid);
	uint32_t i;
	size_t j;

	if (!k->nr_procs && !create)
		return NULL;
	if (create && zt_htab_reserve(&k->phash, 1, proc_hash_at, k))
		return NULL;
	for (j = zt_htab_first(&k->phash, h); zt_htab_get(&k->phash, j, &i);
	     j = zt_htab_next(&k->phash, j))
		if (k->procs[i].pid == pid)
			return &k->procs[i];
	if (!create || ZT_GROW(k->procs, k->cap_procs, k->nr_procs + 1))
		return NULL;
	memset(&k->procs[k->nr_procs], 0, sizeof(k->procs[0]));
	k->procs[k->nr_procs].pid = pid;
	zt_htab_set(&k->phash, j, (uint32_t)k->nr_procs);
	return &k->procs[k->nr_procs++];
}

/* p's mappings into the map (none: its entry deleted). */
static void put_proc(struct kunwind *k, const struct uproc *p)
{
	struct zt_uw_proc *v = k->pbuf;
	size_t i;
	unsigned n = 0;

	if (!p->nr) {
		bpf_map_delete_elem(k->o.maps.procs, &p->pid);
		return;
	}
	for (i = 0; i < p->nr; i++) {
		const struct umap *m = &p->maps[i];
		const struct ufile *f = m->file ? &k->files[m->file - 1] : NULL;

		if (!f || !f->id)
			continue;
		if (n == ZT_UW_MAPS) {
			k->st.maps_over++;
			break;
		}
		v->maps[n++] = (struct zt_uw_map){ m->start, m->pgoff,
						   m->len > UINT32_MAX ? UINT32_MAX : (uint32_t)m->len,
						   f->id };
	}
	v->nr = n;
	if (bpf_map_update_elem(k->o.maps.procs, &p->pid, v, BPF_ANY))
		zt_debug("kunwind: process map: %s", strerror(errno));
}

static void drop_map(struct kunwind *k, const struct umap *m)
{
	struct ufile *f;

	if (!m->file)
		return;
	f = &k->files[m->file - 1];
	if (f->refs)
		f->refs--;
}

static void clear_proc(struct kunwind *k, struct uproc *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		drop_map(k, &p->maps[i]);
	p->nr = 0;
}

static void add_map(struct kunwind *k, const struct prof_mmap *m);

void kunwind_mmap(struct kunwind *k, const struct prof_mmap *m)
{
	pthread_mutex_lock(&k->mu);
	add_map(k, m);
	pthread_mutex_unlock(&k->mu);
}

static void add_map(struct kunwind *k, const struct prof_mmap *m)
{
	struct uproc *p;
	struct umap nm;
	size_t i, at, n;
	long fi = -1;

	if (!(m->prot & PROT_EXEC) || !m->len || !m->pid)
		return;
	p = proc_of(k, m->pid, true);
	if (!p || m->ts < p->exec_ts)
		return;
	if (!strcmp(m->path, "[vdso]")) {
		if (!k->vdso_tried)
			vdso_file(k);
		fi = k->vdso ? (long)k->vdso - 1 : -1;
	} else if (m->build_id.len && m->path[0] == '/') {
		fi = file_of(k, &m->build_id);
	}
	nm = (struct umap){ m->start, m->len, m->pgoff, fi >= 0 ? (uint32_t)fi + 1 : 0 };
	/* what the new mapping covers is gone */
	for (i = n = 0; i < p->nr; i++) {
		const struct umap *o = &p->maps[i];

		if (o->start < nm.start + nm.len && nm.start < o->start + o->len)
			drop_map(k, o);
		else
			p->maps[n++] = *o;
	}
	p->nr = n;
	if (fi >= 0) {
		struct ufile *f = &k->files[fi];

		for (at = 0; at < p->nr && p->maps[at].start < nm.start; at++)
			;
		if (ZT_GROW(p->maps, p->cap, p->nr + 1))
			return;
		memmove(&p->maps[at + 1], &p->maps[at], (p->nr - at) * sizeof(*p->maps));
		p->maps[at] = nm;
		p->nr++;
		f->refs++;
		f->used = ++k->tick;
		if (f->state == U_NEW && !load_cached(k, f)) {
			if (k->outstanding >= MAX_JOBS) {
				/* a burst of new binaries: this one is asked
				 * for again when a process maps it next (each
				 * job holds a descriptor) */
				k->st.deferred++;
			} else {
				int fd = k->o.open_file ? k->o.open_file(k->o.ctx, m) : -1;

				request(k, f, fd < 0 ? -1 : fd, m->path);
			}
		}
		if (f->state == U_BUILDING)
			k->st.pending++;
	}
	put_proc(k, p);
}

static void task(struct kunwind *k, const struct prof_task *t);

void kunwind_task(struct kunwind *k, const struct prof_task *t)
{
	pthread_mutex_lock(&k->mu);
	task(k, t);
	pthread_mutex_unlock(&k->mu);
}

static void task(struct kunwind *k, const struct prof_task *t)
{
	struct uproc *p, *pp;
	size_t i;

	switch (t->kind) {
	case PROF_TASK_FORK:
		/* a new process runs its parent's mappings (no side-band for
		 * them); a thread shares its process's */
		if (t->pid == t->ppid || !(pp = proc_of(k, t->ppid, false)) || !pp->nr)
			return;
		p = proc_of(k, t->pid, true);
		pp = proc_of(k, t->ppid, false); /* procs may have moved */
		if (!p || !pp)
			return;
		clear_proc(k, p);
		if (ZT_GROW(p->maps, p->cap, pp->nr))
			return;
		memcpy(p->maps, pp->maps, pp->nr * sizeof(*p->maps));
		p->nr = pp->nr;
		p->exec_ts = t->ts;
		for (i = 0; i < p->nr; i++)
			if (p->maps[i].file)
				k->files[p->maps[i].file - 1].refs++;
		put_proc(k, p);
		return;
	case PROF_TASK_EXEC:
		p = proc_of(k, t->pid, true);
		if (!p)
			return;
		clear_proc(k, p);
		p->exec_ts = t->ts;
		put_proc(k, p);
		return;
	case PROF_TASK_EXIT:
		if (t->pid != t->tid || !(p = proc_of(k, t->pid, false)))
			return;
		clear_proc(k, p);
		put_proc(k, p);
		free(p->maps); /* a busy machine's many short processes */
		p->maps = NULL;
		p->cap = 0;
		return;
	default:
		return;
	}
}

void kunwind_get_stats(struct kunwind *k, struct kunwind_stats *st)
{
	pthread_mutex_lock(&k->mu);
	*st = k->st;
	st->entries = k->entries_used;
	st->pages = k->pages_used;
	st->rules = k->nr_rules;
	pthread_mutex_unlock(&k->mu);
}
