/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The capture core of libztcupti.so (see core.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "cupti/core.h"
#include "cupti/mem.h"
#include "cupti/pcagg.h"
#include "cupti/strtab.h"
#include "cupti/unwind.h"
#include "cupti/zgw.h"
#include "libprof/hash.h"
#include "libprof/htab.h"

/*
 * The USDT probe zt:launch and its semaphore. The kernel increments the
 * semaphore while a uprobe is attached to the probe (libbpf finds it
 * through .note.stapsdt, in a writable segment: the .probes section); it
 * is hidden, never exported. The probe has one site, in zc_launch_probe().
 */
__extension__ unsigned short zt_launch_semaphore __attribute__((unused, section(".probes")));

#define RING 512u /* launches a thread holds before the writer takes them */

enum { ZC_IDLE, ZC_RUNNING, ZC_DONE };

/* A growable array taken from the memory budget. */
struct vec {
	uint8_t *p;
	size_t n, cap; /* elements */
	size_t esz;
	size_t taken; /* bytes taken from the budget */
};

struct pkernel {
	struct zg_kernel k;
	const char *name; /* interned, or NULL */
	uint32_t name_len;
};

struct pstall {
	uint32_t context, index;
	const char *name;
	uint32_t name_len;
};

struct pinfo {
	const char *key, *value; /* interned */
	uint32_t key_len, value_len;
};

/* What the writer takes at a flush. */
struct pending {
	struct vec kernels, memops, overheads, launches, stacks, stalls, infos;
};

struct zc_thread {
	/* the owner's side */
	uint32_t head;
	uint32_t tid;
	uint64_t tat; /* token bucket: the theoretical arrival time of the next stack */
	_Atomic uint64_t launches, stacks, ratelimited;
	_Atomic int dead; /* the thread ended: the writer frees this */
	struct zc_thread *next;
	/* the writer's side */
	_Alignas(64) _Atomic uint32_t head_pub;
	_Atomic uint32_t tail;
	struct zg_launch ring[RING];
};

struct stack_ent {
	uint64_t hash;
	size_t off; /* into stack_ips */
	uint32_t n;
};

struct zc {
	struct zc_opts o;
	uint64_t id; /* for the threads' TLS: which core their state belongs to */
	uint32_t pid;
	uint64_t start_ns;
	_Atomic int state;
	struct zc_mem mem;
	struct zgw w;
	struct zgw_frame fb;

	pthread_mutex_t lock; /* pend, threads, stacks, strs, cubin and graph sets */
	struct pending pend;
	struct zc_thread *threads;
	pthread_key_t key;
	int key_ok;
	struct zc_strtab strs; /* kernel names, stall reasons, info */
	struct vec stack_ents, stack_ips;
	struct zt_htab stack_idx;
	struct vec cubin_crcs;
	struct zt_htab cubin_idx;
	struct vec graphs; /* {exec id, graph id} */
	struct zt_htab graph_idx;
	size_t idx_taken;		  /* bytes of the indexes above */
	uint64_t stack_cost, stack_burst; /* token bucket: ns a stack costs, burst window */

	pthread_mutex_t pcs_lock;
	struct zc_pcagg pcs;

	pthread_mutex_t flush_lock; /* one flusher; the frame builder */
	struct zg_counters last_counters;
	int counters_written;

	/* the writer thread */
	pthread_mutex_t wait_lock;
	pthread_cond_t wait_cond;
	pthread_t writer;
	int writer_on, stop;
	void (*tick)(void *);
	void *tick_arg;

	/* counters not kept per thread */
	_Atomic uint64_t dropped_records, pc_total, pc_dropped, pc_nonuser, pc_hw_full;
	_Atomic uint64_t mem_dropped, cubins;
	uint64_t gone_launches, gone_stacks, gone_ratelimited; /* of freed threads, under lock */
};

struct zc_tls {
	uint64_t owner; /* zc->id of t */
	struct zc_thread *t;
	uint32_t depth; /* launch callbacks entered and not left */
	uint32_t outer; /* the outermost one's correlation id */
};

static __thread struct zc_tls tls;
static _Atomic uint64_t next_id = 1;
static _Atomic int forked; /* this process is a fork child of the one that started */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void)
{
	atomic_store(&forked, 1);
}

static void atfork_setup(void)
{
	pthread_atfork(NULL, NULL, on_fork_child);
}

uint64_t zc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void count(_Atomic uint64_t *c, uint64_t n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

/* a counter only its thread writes: no locked instruction */
static inline void count_own(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* ---- vectors --------------------------------------------------------- */

static void vec_init(struct vec *v, size_t esz)
{
	memset(v, 0, sizeof(*v));
	v->esz = esz;
}

static void vec_release(struct zc *zc, struct vec *v)
{
	free(v->p);
	zc_mem_give(&zc->mem, v->taken);
	vec_init(v, v->esz);
}

/* room for n more elements: a pointer to the first, or NULL at the cap */
static void *vec_add(struct zc *zc, struct vec *v, size_t n)
{
	void *p;

	if (n > v->cap - v->n) {
		size_t cap = v->cap ? v->cap : 64, more;
		uint8_t *np;

		while (cap - v->n < n) {
			if (cap > SIZE_MAX / 2 / v->esz)
				return NULL;
			cap *= 2;
		}
		more = (cap - v->cap) * v->esz;
		if (!zc_mem_take(&zc->mem, more))
			return NULL;
		np = realloc(v->p, cap * v->esz);
		if (!np) {
			zc_mem_give(&zc->mem, more);
			return NULL;
		}
		v->p = np;
		v->cap = cap;
		v->taken += more;
	}
	p = v->p + v->n * v->esz;
	v->n += n;
	return p;
}

static int vec_push(struct zc *zc, struct vec *v, const void *e)
{
	void *p = vec_add(zc, v, 1);

	if (!p)
		return -1;
	memcpy(p, e, v->esz);
	return 0;
}

/* an index ready for one more item, its growth taken from the budget: 0 or -1 */
static int idx_reserve(struct zc *zc, struct zt_htab *t, zt_htab_hash_fn *hash, const void *ctx)
{
	size_t g = zc_htab_grow_bytes(t, 1);

	if (g && !zc_mem_take(&zc->mem, g))
		return -1;
	if (zt_htab_reserve(t, 1, hash, ctx)) {
		zc_mem_give(&zc->mem, g);
		return -1;
	}
	zc->idx_taken += g;
	return 0;
}

static void pending_init(struct pending *p)
{
	vec_init(&p->kernels, sizeof(struct pkernel));
	vec_init(&p->memops, sizeof(struct zg_memop));
	vec_init(&p->overheads, sizeof(struct zg_overhead));
	vec_init(&p->launches, sizeof(struct zg_launch));
	vec_init(&p->stacks, sizeof(uint64_t));
	vec_init(&p->stalls, sizeof(struct pstall));
	vec_init(&p->infos, sizeof(struct pinfo));
}

static void pending_release(struct zc *zc, struct pending *p)
{
	vec_release(zc, &p->kernels);
	vec_release(zc, &p->memops);
	vec_release(zc, &p->overheads);
	vec_release(zc, &p->launches);
	vec_release(zc, &p->stacks);
	vec_release(zc, &p->stalls);
	vec_release(zc, &p->infos);
	pending_init(p);
}

/* ---- lifecycle ------------------------------------------------------- */

static void thread_gone(void *p);

struct zc *zc_new(const struct zc_opts *o)
{
	struct zc *zc = calloc(1, sizeof(*zc));

	if (!zc)
		return NULL;
	pthread_once(&atfork_once, atfork_setup);
	zc->o = *o;
	if (zc->o.flush_ms == 0 || zc->o.flush_ms > ZC_FLUSH_MS_MAX)
		zc->o.flush_ms = ZC_FLUSH_MS_MAX;
	zc->id = atomic_fetch_add(&next_id, 1);
	zc->pid = (uint32_t)getpid();
	zc->start_ns = zc_now();
	zc->mem.cap = (size_t)(zc->o.mem_mb ? zc->o.mem_mb : 64) << 20;
	zgw_init(&zc->w);
	pthread_mutex_init(&zc->lock, NULL);
	pthread_mutex_init(&zc->pcs_lock, NULL);
	pthread_mutex_init(&zc->flush_lock, NULL);
	pthread_mutex_init(&zc->wait_lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&zc->wait_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	pending_init(&zc->pend);
	zc_strtab_init(&zc->strs, &zc->mem);
	vec_init(&zc->stack_ents, sizeof(struct stack_ent));
	vec_init(&zc->stack_ips, sizeof(uint64_t));
	vec_init(&zc->cubin_crcs, sizeof(uint64_t));
	vec_init(&zc->graphs, 2 * sizeof(uint32_t));
	zt_htab_init(&zc->stack_idx);
	zt_htab_init(&zc->cubin_idx);
	zt_htab_init(&zc->graph_idx);
	zc_pcagg_init(&zc->pcs, &zc->mem);
	if (zc->o.stack_rate) {
		zc->stack_cost = 1000000000ull / zc->o.stack_rate;
		/* a full bucket holds one second of stacks */
		zc->stack_burst = 1000000000ull - zc->stack_cost;
	}
	zc->key_ok = pthread_key_create(&zc->key, thread_gone) == 0;
	if (zc->o.stacks != ZC_STACKS_OFF && zc->o.stack_rate)
		zc_unwind_init();
	return zc;
}

int zc_open(struct zc *zc, const char *dir)
{
	int ret;

	if (atomic_load(&zc->state) != ZC_IDLE)
		return -EALREADY;
	if (!zc->key_ok)
		return -EAGAIN;
	if (!dir || !*dir)
		return -ENOENT;
	ret = zgw_frame_init(&zc->fb, &zc->mem);
	if (ret)
		return ret;
	ret = zgw_open(&zc->w, dir, zc->pid, zc->start_ns);
	if (ret) {
		zgw_frame_release(&zc->fb);
		return ret;
	}
	atomic_store(&zc->state, ZC_RUNNING);
	return 0;
}

int zc_active(const struct zc *zc)
{
	return zc && atomic_load_explicit(&zc->state, memory_order_relaxed) == ZC_RUNNING &&
	       !atomic_load_explicit(&forked, memory_order_relaxed);
}

const struct zc_opts *zc_get_opts(const struct zc *zc)
{
	return &zc->o;
}

const char *zc_file_name(const struct zc *zc)
{
	return zc->w.fd >= 0 || zc->w.frames ? zc->w.name : "";
}

size_t zc_mem_used(const struct zc *zc)
{
	return atomic_load(&((struct zc *)zc)->mem.used);
}

size_t zc_mem_peak(const struct zc *zc)
{
	return atomic_load(&((struct zc *)zc)->mem.peak);
}

static void *writer_main(void *arg)
{
	struct zc *zc = arg;

	pthread_setname_np(pthread_self(), "zt-gpu");
	pthread_mutex_lock(&zc->wait_lock);
	while (!zc->stop) {
		struct timespec ts;
		uint64_t at = zc_now() + (uint64_t)zc->o.flush_ms * 1000000ull;

		ts.tv_sec = (time_t)(at / 1000000000ull);
		ts.tv_nsec = (long)(at % 1000000000ull);
		while (!zc->stop &&
		       pthread_cond_timedwait(&zc->wait_cond, &zc->wait_lock, &ts) == 0)
			;
		if (zc->stop)
			break;
		pthread_mutex_unlock(&zc->wait_lock);
		if (zc->tick)
			zc->tick(zc->tick_arg);
		zc_flush(zc);
		pthread_mutex_lock(&zc->wait_lock);
	}
	pthread_mutex_unlock(&zc->wait_lock);
	return NULL;
}

int zc_start(struct zc *zc, void (*tick)(void *arg), void *arg)
{
	sigset_t all, old;
	int ret;

	if (!zc_active(zc) || zc->writer_on)
		return -EINVAL;
	zc->tick = tick;
	zc->tick_arg = arg;
	/* the host's signal handlers never run on our thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&zc->writer, NULL, writer_main, zc);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ret)
		zc->writer_on = 1;
	return ret;
}

static int flush_all(struct zc *zc, int final);

void zc_finish(struct zc *zc)
{
	int was;

	if (!zc)
		return;
	was = atomic_exchange(&zc->state, ZC_DONE);
	if (was == ZC_DONE)
		return;
	if (atomic_load(&forked)) {
		/* a fork child: the writer thread and the file are the parent's */
		zgw_close(&zc->w);
		return;
	}
	if (zc->writer_on) {
		pthread_mutex_lock(&zc->wait_lock);
		zc->stop = 1;
		pthread_cond_signal(&zc->wait_cond);
		pthread_mutex_unlock(&zc->wait_lock);
		pthread_join(zc->writer, NULL);
		zc->writer_on = 0;
	}
	if (was == ZC_RUNNING) {
		flush_all(zc, 1);
		pthread_mutex_lock(&zc->flush_lock);
		zgw_close(&zc->w);
		pthread_mutex_unlock(&zc->flush_lock);
	}
}

void zc_free(struct zc *zc)
{
	struct zc_thread *t, *next;

	if (!zc)
		return;
	zc_finish(zc);
	for (t = zc->threads; t; t = next) {
		next = t->next;
		zc_mem_give(&zc->mem, sizeof(*t));
		free(t);
	}
	if (tls.owner == zc->id)
		tls = (struct zc_tls){0};
	if (zc->key_ok)
		pthread_key_delete(zc->key);
	pending_release(zc, &zc->pend);
	zc_strtab_release(&zc->strs);
	vec_release(zc, &zc->stack_ents);
	vec_release(zc, &zc->stack_ips);
	vec_release(zc, &zc->cubin_crcs);
	vec_release(zc, &zc->graphs);
	zt_htab_release(&zc->stack_idx);
	zt_htab_release(&zc->cubin_idx);
	zt_htab_release(&zc->graph_idx);
	zc_mem_give(&zc->mem, zc->idx_taken);
	zc_pcagg_release(&zc->pcs);
	zgw_frame_release(&zc->fb);
	zgw_close(&zc->w);
	pthread_mutex_destroy(&zc->lock);
	pthread_mutex_destroy(&zc->pcs_lock);
	pthread_mutex_destroy(&zc->flush_lock);
	pthread_mutex_destroy(&zc->wait_lock);
	pthread_cond_destroy(&zc->wait_cond);
	free(zc);
}

/* ---- info and warnings ----------------------------------------------- */

static void info_locked(struct zc *zc, const char *key, size_t kl, const char *value, size_t vl)
{
	struct pinfo in;

	in.key = zc_strtab_intern(&zc->strs, key, kl);
	in.value = zc_strtab_intern(&zc->strs, value, vl);
	in.key_len = (uint32_t)kl;
	in.value_len = (uint32_t)vl;
	if (!in.key || !in.value || vec_push(zc, &zc->pend.infos, &in))
		count(&zc->mem_dropped, 1);
}

/* a string of an info pair: no NUL inside, at most ZGW_STR_MAX */
static size_t info_len(const char *s)
{
	return strnlen(s, ZGW_STR_MAX);
}

void zc_info(struct zc *zc, const char *key, const char *value)
{
	if (!zc_active(zc) || !key || !value)
		return;
	pthread_mutex_lock(&zc->lock);
	info_locked(zc, key, info_len(key), value, info_len(value));
	pthread_mutex_unlock(&zc->lock);
}

void zc_warn(struct zc *zc, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (zc && zc->o.verbose)
		fprintf(stderr, "zt gpu: %s\n", msg);
	zc_info(zc, "warning", msg);
}

/* ---- threads and launches -------------------------------------------- */

static void thread_gone(void *p)
{
	struct zc_thread *t = p;

	if (tls.t == t)
		tls = (struct zc_tls){0};
	atomic_store_explicit(&t->dead, 1, memory_order_release);
}

/* the calling thread's state for zc: a new one on its first launch, NULL at the cap */
static __attribute__((noinline)) struct zc_thread *thread_new(struct zc *zc)
{
	struct zc_thread *t;

	if (!zc_mem_take(&zc->mem, sizeof(*t)))
		return NULL;
	t = aligned_alloc(64, sizeof(*t));
	if (!t) {
		zc_mem_give(&zc->mem, sizeof(*t));
		return NULL;
	}
	memset(t, 0, sizeof(*t));
	t->tid = (uint32_t)gettid();
	pthread_mutex_lock(&zc->lock);
	t->next = zc->threads;
	zc->threads = t;
	pthread_mutex_unlock(&zc->lock);
	pthread_setspecific(zc->key, t);
	tls.t = t;
	return t;
}

/* the writer's side (under zc->lock): move t's launches to pending */
static void ring_drain(struct zc *zc, struct zc_thread *t)
{
	uint32_t h = atomic_load_explicit(&t->head_pub, memory_order_acquire);
	uint32_t tl = atomic_load_explicit(&t->tail, memory_order_relaxed);
	size_t n = h - tl, dropped = 0;

	while (n) {
		uint32_t at = tl & (RING - 1);
		size_t run = RING - at < n ? RING - at : n;
		struct zg_launch *dst = vec_add(zc, &zc->pend.launches, run);

		if (dst)
			memcpy(dst, &t->ring[at], run * sizeof(*dst));
		else
			dropped += run;
		tl += (uint32_t)run;
		n -= run;
	}
	atomic_store_explicit(&t->tail, tl, memory_order_release);
	if (dropped)
		count(&zc->mem_dropped, dropped);
}

static __attribute__((noinline)) void ring_full(struct zc *zc, struct zc_thread *t)
{
	pthread_mutex_lock(&zc->lock);
	ring_drain(zc, t);
	pthread_mutex_unlock(&zc->lock);
}

static inline uint64_t stack_ent_hash(const void *ctx, uint32_t i)
{
	const struct zc *zc = ctx;

	return ((const struct stack_ent *)zc->stack_ents.p)[i].hash;
}

/* the id of this stack (1, 2, ...), a new ZG_STACK entry the first time; 0 at the cap */
static uint32_t stack_intern(struct zc *zc, const uint64_t *ips, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, *dst;
	struct stack_ent *e, ne;
	uint32_t id = 0, i;
	size_t j;

	for (i = 0; i < n; i++)
		h = zt_hash_mix(h, ips[i]);
	pthread_mutex_lock(&zc->lock);
	if (zc->stack_idx.cap) {
		for (j = zt_htab_first(&zc->stack_idx, h); zt_htab_get(&zc->stack_idx, j, &i);
		     j = zt_htab_next(&zc->stack_idx, j)) {
			e = (struct stack_ent *)zc->stack_ents.p + i;
			if (e->hash == h && e->n == n &&
			    !memcmp((uint64_t *)zc->stack_ips.p + e->off, ips, n * sizeof(*ips))) {
				id = i + 1;
				goto out;
			}
		}
	}
	if (zc->stack_ents.n >= UINT32_MAX - 1 ||
	    idx_reserve(zc, &zc->stack_idx, stack_ent_hash, zc))
		goto out;
	/* the ZG_STACK entry {id, n, ips[n]} in 64-bit words, and the copy kept for dedup */
	dst = vec_add(zc, &zc->pend.stacks, 1 + (size_t)n);
	if (!dst)
		goto out;
	ne = (struct stack_ent){h, zc->stack_ips.n, n};
	if (!vec_add(zc, &zc->stack_ips, n)) {
		zc->pend.stacks.n -= 1 + (size_t)n;
		goto out;
	}
	if (vec_push(zc, &zc->stack_ents, &ne)) {
		zc->stack_ips.n -= n;
		zc->pend.stacks.n -= 1 + (size_t)n;
		goto out;
	}
	memcpy((uint64_t *)zc->stack_ips.p + ne.off, ips, n * sizeof(*ips));
	id = (uint32_t)zc->stack_ents.n;
	dst[0] = (uint64_t)id | (uint64_t)n << 32;
	memcpy(dst + 1, ips, n * sizeof(*ips));
	zt_htab_add(&zc->stack_idx, h, id - 1);
out:
	pthread_mutex_unlock(&zc->lock);
	if (!id)
		count(&zc->mem_dropped, 1);
	return id;
}

/* The one site of the USDT probe zt:launch (arg1 correlation id, arg2
 * cbid, arg3 domain). noinline and noclone: BPF attaches to one address. */
__attribute__((noinline, noclone)) void zc_launch_probe(uint32_t corr, uint32_t cbid,
							uint32_t domain);
__attribute__((noinline, noclone)) void zc_launch_probe(uint32_t corr, uint32_t cbid,
							uint32_t domain)
{
	STAP_PROBE3(zt, launch, corr, cbid, domain);
}

static inline int tracer_attached(void)
{
	return *(volatile unsigned short *)&zt_launch_semaphore != 0;
}

/* an admitted launch's stack: its ZG_L_* flag, *stack set for ZG_L_STACK */
static __attribute__((noinline)) uint32_t launch_stack(struct zc *zc, struct zc_thread *t,
						       const struct zc_launch *in, uint32_t *stack)
{
	uint64_t ips[ZC_UNWIND_MAX];
	int n;

	if (zc->o.stacks == ZC_STACKS_USDT ||
	    (zc->o.stacks == ZC_STACKS_AUTO && tracer_attached())) {
		zc_launch_probe(in->corr, in->cbid, in->domain);
		count_own(&t->stacks);
		return ZG_L_USDT;
	}
	n = zc_unwind(ips, ZC_UNWIND_MAX, in->caller);
	if (n <= 0)
		return 0;
	*stack = stack_intern(zc, ips, (uint32_t)n);
	if (!*stack)
		return 0;
	count_own(&t->stacks);
	return ZG_L_STACK;
}

/* the token bucket (GCRA): whether a stack fits in this thread's rate now */
static inline int admit(const struct zc *zc, struct zc_thread *t, uint64_t now)
{
	uint64_t tat = t->tat > now ? t->tat : now;

	if (tat - now > zc->stack_burst)
		return 0;
	t->tat = tat + zc->stack_cost;
	return 1;
}

void zc_launch_enter(struct zc *zc, const struct zc_launch *in)
{
	struct zc_tls *s = &tls;
	struct zc_thread *t;
	struct zg_launch *l;
	uint32_t h, flags;

	if (!zc_active(zc))
		return;
	if (__builtin_expect(s->owner != zc->id, 0))
		*s = (struct zc_tls){.owner = zc->id};
	t = s->t;
	if (__builtin_expect(!t, 0)) {
		t = thread_new(zc);
		if (!t) {
			s->depth++; /* keep the nesting right, the record is lost */
			count(&zc->mem_dropped, 1);
			return;
		}
	}
	h = t->head;
	if (__builtin_expect(h - atomic_load_explicit(&t->tail, memory_order_acquire) >= RING, 0))
		ring_full(zc, t);
	l = &t->ring[h & (RING - 1)];
	l->ts = in->now;
	l->tid = t->tid;
	l->corr = in->corr;
	l->cbid = in->cbid;
	l->domain = in->domain;
	l->graph_id = in->graph_id;
	l->stack = 0;
	flags = in->graph ? ZG_L_GRAPH : 0;
	if (s->depth++) {
		flags |= ZG_L_NESTED;
		l->outer_corr = s->outer;
	} else {
		l->outer_corr = 0;
		s->outer = in->corr;
		count_own(&t->launches);
		if (zc->stack_cost && zc->o.stacks != ZC_STACKS_OFF) {
			if (admit(zc, t, in->now)) {
				flags |= launch_stack(zc, t, in, &l->stack);
			} else {
				flags |= ZG_L_RATELIMITED;
				count_own(&t->ratelimited);
			}
		}
	}
	l->flags = flags;
	t->head = h + 1;
	atomic_store_explicit(&t->head_pub, h + 1, memory_order_release);
}

int zc_launch_exit(struct zc *zc, uint32_t corr)
{
	struct zc_tls *s = &tls;

	if (!zc || s->owner != zc->id || !s->depth)
		return 0;
	/* the outermost call's exit ends the nesting, whatever inner exit
	 * went missing; an exit of no open call at depth 1 is not ours */
	if (corr == s->outer) {
		s->depth = 0;
		return 1;
	}
	if (s->depth > 1)
		s->depth--;
	return 0;
}

/* ---- activity records ------------------------------------------------ */

void zc_kernel(struct zc *zc, const struct zg_kernel *k, const char *name)
{
	struct pkernel pk;

	if (!zc_active(zc))
		return;
	pk.k = *k;
	pk.name = NULL;
	pk.name_len = 0;
	pthread_mutex_lock(&zc->lock);
	if (name) {
		size_t n = strnlen(name, ZGW_STR_MAX);

		pk.name = zc_strtab_intern(&zc->strs, name, n);
		pk.name_len = pk.name ? (uint32_t)n : 0;
	}
	if ((name && !pk.name) || vec_push(zc, &zc->pend.kernels, &pk))
		count(&zc->mem_dropped, 1);
	pthread_mutex_unlock(&zc->lock);
}

void zc_memop(struct zc *zc, const struct zg_memop *m)
{
	if (!zc_active(zc))
		return;
	pthread_mutex_lock(&zc->lock);
	if (vec_push(zc, &zc->pend.memops, m))
		count(&zc->mem_dropped, 1);
	pthread_mutex_unlock(&zc->lock);
}

void zc_overhead(struct zc *zc, const struct zg_overhead *o)
{
	if (!zc_active(zc))
		return;
	pthread_mutex_lock(&zc->lock);
	if (vec_push(zc, &zc->pend.overheads, o))
		count(&zc->mem_dropped, 1);
	pthread_mutex_unlock(&zc->lock);
}

void zc_dropped_records(struct zc *zc, uint64_t n)
{
	if (zc_active(zc) && n)
		count(&zc->dropped_records, n);
}

/* ---- cubins, stalls, PC sampling ------------------------------------- */

static inline uint64_t cubin_hash(const void *ctx, uint32_t i)
{
	const struct zc *zc = ctx;

	return zt_hash_mix(0, ((const uint64_t *)zc->cubin_crcs.p)[i]);
}

/* under lock: whether crc is known; with add, make it known (1: added) */
static int cubin_mark(struct zc *zc, uint64_t crc, int add)
{
	uint64_t h = zt_hash_mix(0, crc);
	uint32_t i;
	size_t j;

	if (zc->cubin_idx.cap) {
		for (j = zt_htab_first(&zc->cubin_idx, h); zt_htab_get(&zc->cubin_idx, j, &i);
		     j = zt_htab_next(&zc->cubin_idx, j))
			if (((uint64_t *)zc->cubin_crcs.p)[i] == crc)
				return 0;
	}
	if (!add)
		return 1;
	if (idx_reserve(zc, &zc->cubin_idx, cubin_hash, zc) || vec_push(zc, &zc->cubin_crcs, &crc))
		return -ENOMEM;
	zt_htab_add(&zc->cubin_idx, h, (uint32_t)(zc->cubin_crcs.n - 1));
	return 1;
}

int zc_cubin_known(struct zc *zc, uint64_t crc)
{
	int known;

	if (!zc_active(zc))
		return 1;
	pthread_mutex_lock(&zc->lock);
	known = cubin_mark(zc, crc, 0) == 0;
	pthread_mutex_unlock(&zc->lock);
	return known;
}

int zc_cubin(struct zc *zc, uint64_t crc, uint32_t module_id, uint32_t context, const void *data,
	     size_t size)
{
	struct zg_cubin zcb = {crc, module_id, context, size};
	int ret;

	if (!zc_active(zc))
		return 0;
	if (size > ZG_FRAME_MAX - sizeof(struct zg_cubin))
		return -EFBIG;
	pthread_mutex_lock(&zc->lock);
	ret = cubin_mark(zc, crc, 1);
	pthread_mutex_unlock(&zc->lock);
	if (ret <= 0) {
		if (ret)
			count(&zc->mem_dropped, 1);
		return ret;
	}
	/*
	 * Written here, from CUPTI's bytes, by one writev(2): no copy and
	 * nothing taken from the budget. PyTorch loads a dozen modules of
	 * megabytes at once; held until the next flush, they met the cap on
	 * an H200 (tests/gpu/H200-RUN-2.md). A module load waits at most for
	 * a flush in progress.
	 */
	pthread_mutex_lock(&zc->flush_lock);
	ret = zgw_write2(&zc->w, ZG_CUBIN, 1, &zcb, sizeof(zcb), data, size);
	pthread_mutex_unlock(&zc->flush_lock);
	if (ret)
		return ret;
	count(&zc->cubins, 1);
	return 1;
}

void zc_stalls(struct zc *zc, uint32_t context, size_t n, const uint32_t *index,
	       const char *const *names)
{
	size_t i;

	if (!zc_active(zc))
		return;
	pthread_mutex_lock(&zc->lock);
	for (i = 0; i < n; i++) {
		size_t len = names[i] ? strnlen(names[i], ZGW_STR_MAX) : 0;
		struct pstall s = {context, index[i], NULL, (uint32_t)len};

		s.name = zc_strtab_intern(&zc->strs, names[i] ? names[i] : "", len);
		if (!s.name || vec_push(zc, &zc->pend.stalls, &s))
			count(&zc->mem_dropped, 1);
	}
	pthread_mutex_unlock(&zc->lock);
}

void zc_pcs_totals(struct zc *zc, uint64_t total, uint64_t dropped, uint64_t nonuser,
		   int hw_buffer_full)
{
	if (!zc_active(zc))
		return;
	count(&zc->pc_total, total);
	count(&zc->pc_dropped, dropped);
	count(&zc->pc_nonuser, nonuser);
	if (hw_buffer_full)
		count(&zc->pc_hw_full, 1);
}

void zc_pcs_pc(struct zc *zc, uint64_t crc, uint64_t pc_offset, uint32_t function_index,
	       uint32_t corr, uint32_t context, const char *function_name, const uint32_t *pairs,
	       size_t n)
{
	struct zc_pcs_pc pc = {crc, pc_offset, function_index, corr, context, function_name};
	size_t dropped;

	if (!zc_active(zc) || !n)
		return;
	pthread_mutex_lock(&zc->pcs_lock);
	dropped = zc_pcagg_add(&zc->pcs, &pc, pairs, n);
	pthread_mutex_unlock(&zc->pcs_lock);
	if (dropped)
		count(&zc->mem_dropped, dropped);
}

/* ---- graphs ---------------------------------------------------------- */

static inline uint64_t graph_hash(const void *ctx, uint32_t i)
{
	const struct zc *zc = ctx;

	return zt_hash_mix(0, ((const uint32_t *)zc->graphs.p)[2 * i]);
}

/* under lock: the index of exec_id's pair, or -1 */
static long graph_find(struct zc *zc, uint32_t exec_id)
{
	uint64_t h = zt_hash_mix(0, exec_id);
	uint32_t i;
	size_t j;

	if (!zc->graph_idx.cap)
		return -1;
	for (j = zt_htab_first(&zc->graph_idx, h); zt_htab_get(&zc->graph_idx, j, &i);
	     j = zt_htab_next(&zc->graph_idx, j))
		if (((uint32_t *)zc->graphs.p)[2 * i] == exec_id)
			return i;
	return -1;
}

void zc_graph_exec(struct zc *zc, uint32_t exec_id, uint32_t graph_id)
{
	uint32_t pair[2] = {exec_id, graph_id};
	long i;

	if (!zc_active(zc))
		return;
	pthread_mutex_lock(&zc->lock);
	i = graph_find(zc, exec_id);
	if (i >= 0)
		((uint32_t *)zc->graphs.p)[2 * i + 1] = graph_id;
	else if (!idx_reserve(zc, &zc->graph_idx, graph_hash, zc) &&
		 !vec_push(zc, &zc->graphs, pair))
		zt_htab_add(&zc->graph_idx, zt_hash_mix(0, exec_id), (uint32_t)(zc->graphs.n - 1));
	pthread_mutex_unlock(&zc->lock);
}

uint32_t zc_graph_of_exec(struct zc *zc, uint32_t exec_id)
{
	uint32_t g = 0;
	long i;

	if (!zc_active(zc))
		return 0;
	pthread_mutex_lock(&zc->lock);
	i = graph_find(zc, exec_id);
	if (i >= 0)
		g = ((uint32_t *)zc->graphs.p)[2 * i + 1];
	pthread_mutex_unlock(&zc->lock);
	return g;
}

/* ---- memory ---------------------------------------------------------- */

int zc_mem_take_bytes(struct zc *zc, size_t n)
{
	return zc_mem_take(&zc->mem, n);
}

void zc_mem_give_bytes(struct zc *zc, size_t n)
{
	zc_mem_give(&zc->mem, n);
}

void zc_mem_dropped(struct zc *zc, uint64_t n)
{
	count(&zc->mem_dropped, n);
}

void zc_counters(struct zc *zc, struct zg_counters *c)
{
	struct zc_thread *t;

	memset(c, 0, sizeof(*c));
	c->dropped_records = atomic_load(&zc->dropped_records);
	c->pc_total_samples = atomic_load(&zc->pc_total);
	c->pc_dropped_samples = atomic_load(&zc->pc_dropped);
	c->pc_nonuser_samples = atomic_load(&zc->pc_nonuser);
	c->pc_hw_buffer_full = atomic_load(&zc->pc_hw_full);
	c->mem_dropped = atomic_load(&zc->mem_dropped);
	c->cubins = atomic_load(&zc->cubins);
	pthread_mutex_lock(&zc->lock);
	c->launches = zc->gone_launches;
	c->launch_stacks = zc->gone_stacks;
	c->launch_ratelimited = zc->gone_ratelimited;
	for (t = zc->threads; t; t = t->next) {
		c->launches += atomic_load_explicit(&t->launches, memory_order_relaxed);
		c->launch_stacks += atomic_load_explicit(&t->stacks, memory_order_relaxed);
		c->launch_ratelimited +=
			atomic_load_explicit(&t->ratelimited, memory_order_relaxed);
	}
	pthread_mutex_unlock(&zc->lock);
}

/* ---- the writer -------------------------------------------------------- */

/* under lock: every thread's launches to pending; threads that ended freed */
static void threads_drain(struct zc *zc)
{
	struct zc_thread **pp = &zc->threads, *t;

	while ((t = *pp)) {
		int dead = atomic_load_explicit(&t->dead, memory_order_acquire);

		ring_drain(zc, t);
		if (!dead) {
			pp = &t->next;
			continue;
		}
		*pp = t->next;
		zc->gone_launches += atomic_load(&t->launches);
		zc->gone_stacks += atomic_load(&t->stacks);
		zc->gone_ratelimited += atomic_load(&t->ratelimited);
		zc_mem_give(&zc->mem, sizeof(*t));
		free(t);
	}
}

struct wctx {
	struct zc *zc;
	int err; /* the first write error */
};

static void frame_out(struct wctx *c)
{
	int ret = zgw_frame_flush(&c->zc->fb, &c->zc->w);

	if (ret && !c->err)
		c->err = ret;
}

/* room for a record of n bytes and its string (s may be NULL): the record
 * (zeroed), *off the string's pool offset; NULL when it cannot fit at all */
static void *frame_rec(struct wctx *c, size_t n, const char *s, uint32_t len, uint32_t *off)
{
	struct zgw_frame *f = &c->zc->fb;
	int tries;
	void *r;

	for (tries = 0; tries < 2; tries++) {
		r = zgw_frame_rec(f, n);
		if (r && (!s || zgw_frame_str(f, s, len, off) == 0))
			return r;
		if (r)
			zgw_frame_unrec(f, n);
		if (zgw_frame_empty(f))
			break;
		frame_out(c);
	}
	count(&c->zc->mem_dropped, 1);
	return NULL;
}

static void write_infos(struct wctx *c, struct vec *v)
{
	struct pinfo *in = (struct pinfo *)v->p;
	size_t i;

	zgw_frame_begin(&c->zc->fb, ZG_INFO);
	for (i = 0; i < v->n; i++) {
		size_t n = (size_t)in[i].key_len + in[i].value_len + 2;
		char *r = frame_rec(c, n, NULL, 0, NULL);

		if (!r)
			continue;
		memcpy(r, in[i].key, in[i].key_len);
		memcpy(r + in[i].key_len + 1, in[i].value, in[i].value_len);
	}
	frame_out(c);
}

static void write_stalls(struct wctx *c, struct vec *v)
{
	struct pstall *s = (struct pstall *)v->p;
	size_t i;

	zgw_frame_begin(&c->zc->fb, ZG_STALLS);
	for (i = 0; i < v->n; i++) {
		uint32_t off = 0;
		struct zg_stall *r = frame_rec(c, sizeof(*r), s[i].name, s[i].name_len, &off);

		if (!r)
			continue;
		*r = (struct zg_stall){s[i].context, s[i].index, off, s[i].name_len};
	}
	frame_out(c);
}

static void write_stacks(struct wctx *c, struct vec *v)
{
	uint64_t *w = (uint64_t *)v->p;
	size_t i = 0;

	zgw_frame_begin(&c->zc->fb, ZG_STACK);
	while (i < v->n) {
		size_t n = 1 + (w[i] >> 32);
		void *r = frame_rec(c, n * sizeof(*w), NULL, 0, NULL);

		if (r)
			memcpy(r, w + i, n * sizeof(*w));
		i += n;
	}
	frame_out(c);
}

/* fixed-size records without strings */
static void write_fixed(struct wctx *c, uint32_t type, struct vec *v)
{
	size_t i;

	zgw_frame_begin(&c->zc->fb, type);
	for (i = 0; i < v->n; i++) {
		void *r = frame_rec(c, v->esz, NULL, 0, NULL);

		if (r)
			memcpy(r, v->p + i * v->esz, v->esz);
	}
	frame_out(c);
}

static void write_kernels(struct wctx *c, struct vec *v)
{
	struct pkernel *k = (struct pkernel *)v->p;
	size_t i;

	zgw_frame_begin(&c->zc->fb, ZG_KERNEL);
	for (i = 0; i < v->n; i++) {
		uint32_t off = 0;
		struct zg_kernel *r = frame_rec(c, sizeof(*r), k[i].name, k[i].name_len, &off);

		if (!r)
			continue;
		*r = k[i].k;
		r->name_off = k[i].name ? off : 0;
		r->name_len = k[i].name ? k[i].name_len : 0;
	}
	frame_out(c);
}

static void write_pcs(struct wctx *c, struct zc_pcs_batch *b)
{
	size_t i;

	zgw_frame_begin(&c->zc->fb, ZG_PCS);
	for (i = 0; i < b->nr; i++) {
		const struct zc_pcs_bucket *s = &b->b[i];
		uint32_t off = 0;
		struct zg_pcs *r = frame_rec(c, sizeof(*r), s->name, s->name_len, &off);

		if (!r)
			continue;
		r->cubin_crc = s->k.crc;
		r->pc_offset = s->k.pc;
		r->samples = s->samples;
		r->function_index = s->k.fn;
		r->stall = s->k.stall;
		r->corr = s->k.corr;
		r->context = s->k.ctx;
		r->name_off = s->name ? off : 0;
		r->name_len = s->name ? s->name_len : 0;
	}
	frame_out(c);
}

static void write_counters(struct wctx *c, int final)
{
	uint8_t buf[sizeof(struct zg_frame_hdr) + sizeof(struct zg_counters)];
	struct zg_counters now;
	int ret;

	zc_counters(c->zc, &now);
	if (!final && c->zc->counters_written && !memcmp(&now, &c->zc->last_counters, sizeof(now)))
		return;
	memcpy(buf + sizeof(struct zg_frame_hdr), &now, sizeof(now));
	ret = zgw_write(&c->zc->w, ZG_COUNTERS, 1, buf, sizeof(now));
	if (ret) {
		if (!c->err)
			c->err = ret;
		return;
	}
	c->zc->last_counters = now;
	c->zc->counters_written = 1;
}

static int flush_all(struct zc *zc, int final)
{
	struct wctx c = {zc, 0};
	struct zc_pcs_batch pcs;
	struct pending p;

	pthread_mutex_lock(&zc->flush_lock);
	if (zc->w.fd < 0) {
		pthread_mutex_unlock(&zc->flush_lock);
		return -EBADF;
	}
	/* take what is pending; the callbacks go on filling fresh buffers */
	pthread_mutex_lock(&zc->lock);
	threads_drain(zc);
	p = zc->pend;
	pending_init(&zc->pend);
	pthread_mutex_unlock(&zc->lock);
	pthread_mutex_lock(&zc->pcs_lock);
	zc_pcagg_take(&zc->pcs, &pcs);
	pthread_mutex_unlock(&zc->pcs_lock);

	/* a launch's stack is written before it, a PC's stall table before it */
	if (p.infos.n)
		write_infos(&c, &p.infos);
	if (p.stalls.n)
		write_stalls(&c, &p.stalls);
	if (p.stacks.n)
		write_stacks(&c, &p.stacks);
	if (p.launches.n)
		write_fixed(&c, ZG_LAUNCH, &p.launches);
	if (p.kernels.n)
		write_kernels(&c, &p.kernels);
	if (p.memops.n)
		write_fixed(&c, ZG_MEMOP, &p.memops);
	if (p.overheads.n)
		write_fixed(&c, ZG_OVERHEAD, &p.overheads);
	if (pcs.nr)
		write_pcs(&c, &pcs);
	write_counters(&c, final);
	pthread_mutex_unlock(&zc->flush_lock);

	pending_release(zc, &p);
	zc_pcagg_batch_free(&pcs);
	return c.err;
}

int zc_flush(struct zc *zc)
{
	if (!zc_active(zc))
		return 0;
	return flush_all(zc, 0);
}
