// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The recording engine: the sampler and the side-band drained into a
 * zt.data writer, with what the samples need (see recorder.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bpf/perfev.h"
#include "bpf/procsynth.h"
#include "record/kunwind.h"
#include "record/mapfile.h"
#include "bpf/sampler.h"
#include "formats/ztdata.h"
#include "libprof/array.h"
#include "libprof/asuser.h"
#include "libprof/fileio.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/log.h"
#include "libprof/procfile.h"
#include "libprof/text.h"
#include "libprof/zbuf.h"
#include "record/gpurec.h"
#include "record/pyrec.h"
#include "record/recorder.h"

/* a stack with its Python frames: at most all the BPF record's frames */
#define PYBUF_FRAMES (2 * ZT_BPF_MAX_STACK + ZT_BPF_MAX_PY)
#include "record/target.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/kallsyms.h"
#include "symbolizer/kcache.h"
#include "symbolizer/ksubset.h"

#define PENDING_MAX_AGE 3 /* flushes an untracked side-band record waits */
/* x86-64: user addresses end here; the legacy vsyscall page */
#define USER_ADDR_END 0x0000800000000000ull
#define VSYSCALL_START 0xffffffffff600000ull

/*
 * Kernel symbols go into the recording as the kallsyms lines its kernel
 * frames need, flushed with the chunk of the samples that needed them, so
 * a recording cut short still names its kernel frames. /proc/kallsyms is
 * read once (from the per-boot cache when it can be) when the first chunk
 * with kernel frames is flushed.
 *
 * A recording handed to a sudo user who may not read kernel addresses
 * (kernel.kptr_restrict, kernel.perf_event_paranoid) holds none: each
 * kernel address becomes a slot address, KFAKE_BASE + (symbol index + 1) *
 * KFAKE_SLOT + its offset in the symbol, and the kallsyms lines name the
 * slots. Names and offsets survive; the kernel's layout does not. See
 * zt-data(5).
 */
#define KFAKE_BASE 0xffff900000000000ull
#define KFAKE_SLOT (1ull << 20) /* no symbol is longer (kallsyms.c) */
#define KFAKE_UNKNOWN (KFAKE_BASE - KFAKE_SLOT) /* an address in no symbol */















/* Side-band records of processes not (yet) known to matter. */
struct pending {
	bool is_mmap;
	unsigned age;
	struct prof_task t;
	struct prof_mmap m; /* m.path owned */
};

/* How much of a process's perf map or jitdump is already in the recording. */
struct perfmap_snap {
	uint32_t pid, kind; /* PROF_BLOB_PERFMAP or PROF_BLOB_JITDUMP */
	char *path;         /* as the process sees it: /tmp/perf-NSPID.map, or the jitdump's */
	int fd;             /* a jitdump open since it was mapped, or -1 */
	struct procfile_owner owner; /* whose it is (valid when have_owner) */
	bool have_owner;
	int refused;        /* why it was last refused (negative errno), 0 if not */
	off_t size;
	struct timespec mtime;
};

uint64_t recorder_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void note_jitdump(struct recorder *r, const struct prof_mmap *m);
static void snapshot_perfmap(struct recorder *r, uint32_t pid);
#define RESNAP_NS 100000000ull /* 100 ms */
static void kernel_new(struct recorder *r, uint64_t v);
static uint64_t kernel_hide(struct recorder *r, uint64_t ip);

static inline uint64_t u64set_hash_at(const void *s, uint32_t i)
{
	return zt_hash_mix(0, ((const struct u64set *)s)->k[i]);
}

/* Whether v is in s; if not, the empty slot where it goes in *slot (s has slots). */
static bool u64set_find(const struct u64set *s, uint64_t v, size_t *slot)
{
	size_t j;
	uint32_t i;

	for (j = zt_htab_first(&s->hash, zt_hash_mix(0, v)); zt_htab_get(&s->hash, j, &i);
	     j = zt_htab_next(&s->hash, j))
		if (s->k[i] == v)
			return true;
	*slot = j;
	return false;
}

static bool u64set_has(const struct u64set *s, uint64_t v)
{
	size_t j;

	return s->n && u64set_find(s, v, &j);
}

static int u64set_add(struct u64set *s, uint64_t v)
{
	size_t j;

	if (!v)
		return 0;
	if (s->n >= UINT32_MAX - 1 || zt_htab_reserve(&s->hash, 1, u64set_hash_at, s))
		return -ENOMEM;
	if (u64set_find(s, v, &j))
		return 0;
	if (ZT_GROW(s->k, s->cap, s->n + 1))
		return -ENOMEM;
	s->k[s->n] = v;
	zt_htab_set(&s->hash, j, (uint32_t)s->n++);
	return 0;
}

static void u64set_release(struct u64set *s)
{
	free(s->k);
	zt_htab_release(&s->hash);
	memset(s, 0, sizeof(*s));
}

static void note_err(struct recorder *r, int err)
{
	if (err && !r->err)
		r->err = err;
}

/* Keep a copy of a binary in the build-id cache (once per build id), read
 * through the process while it lives, so a binary deleted or rebuilt
 * afterwards still symbolizes. */
static void cache_binary(struct recorder *r, const struct prof_mmap *m)
{
	uint64_t key = 14695981039346656037ull;
	char p[PATH_MAX];
	struct stat st;
	size_t i;
	int fd, err;

	if (!r->cache_ok || !m->build_id.len || !mapfile_is_file(m))
		return;
	for (i = 0; i < m->build_id.len; i++)
		key = (key ^ m->build_id.data[i]) * 1099511628211ull;
	key |= 1;
	if (u64set_has(&r->bid_cached, key))
		return;
	u64set_add(&r->bid_cached, key);
	if (!buildid_cache_path(&r->cache, &m->build_id, p, sizeof(p)))
		return; /* there already */
	fd = mapfile_open(m, &st);
	if (fd < 0)
		return;
	err = buildid_cache_add_fd(&r->cache, &m->build_id, fd, m->path);
	if (err && err != -EEXIST)
		zt_debug("cannot cache '%s': %s", m->path, strerror(-err));
	close(fd);
}

/* Binaries are cached only for processes that get sampled: a system-wide
 * recording must not copy every binary of the machine. The mappings of the
 * others wait here until their process is sampled or the recording ends. */
static void defer_binary(struct recorder *r, const struct prof_mmap *m)
{
	struct prof_mmap *d;

	if (!r->cache_ok || !m->build_id.len || !mapfile_is_file(m))
		return;
	if (ZT_GROW(r->deferred, r->cap_deferred, r->nr_deferred + 1))
		return;
	d = &r->deferred[r->nr_deferred];
	*d = *m;
	d->path = strdup(m->path);
	if (d->path)
		r->nr_deferred++;
}

/* Cache the deferred binaries of the processes in set and drop them from
 * the list. */
static void cache_deferred(struct recorder *r, const struct u64set *set)
{
	size_t i, k = 0;

	for (i = 0; i < r->nr_deferred; i++) {
		struct prof_mmap *d = &r->deferred[i];

		if (u64set_has(set, d->pid)) {
			cache_binary(r, d);
			free(d->path);
		} else {
			r->deferred[k++] = *d;
		}
	}
	r->nr_deferred = k;
}

static void emit_task(struct recorder *r, const struct prof_task *t)
{
	if (r->ku)
		kunwind_task(r->ku, t);
	if (r->py)
		pyrec_task(r->py, t);
	note_err(r, ztdata_write_task(r->w, t));
}

static void emit_mmap(struct recorder *r, struct prof_mmap *m)
{
	mapfile_fill_build_id(&r->bids, m);
	if (r->ku)
		kunwind_mmap(r->ku, m);
	if (r->py)
		pyrec_mmap(r->py, m);
	if (u64set_has(&r->sampled, m->pid))
		cache_binary(r, m);
	else
		defer_binary(r, m);
	note_err(r, ztdata_write_mmap(r->w, m));
}

static void add_pending(struct recorder *r, const struct prof_task *t, const struct prof_mmap *m)
{
	struct pending *p;

	if (ZT_GROW(r->pend, r->cap_pend, r->nr_pend + 1)) {
		r->lost_events++;
		return;
	}
	p = &r->pend[r->nr_pend];
	memset(p, 0, sizeof(*p));
	if (m) {
		p->is_mmap = true;
		p->m = *m;
		p->m.path = strdup(m->path);
		if (!p->m.path) {
			r->lost_events++;
			return;
		}
	} else {
		p->t = *t;
	}
	r->nr_pend++;
}

static void track(struct recorder *r, uint32_t pid)
{
	if (pid && !u64set_has(&r->tracked, pid))
		note_err(r, u64set_add(&r->tracked, pid));
}

static void on_task(void *ctx, const struct prof_task *t)
{
	struct recorder *r = ctx;

	if (t->kind == PROF_TASK_FORK && t->pid != t->ppid &&
	    !ZT_GROW(r->forks, r->cap_forks, r->nr_forks + 1)) {
		r->forks[r->nr_forks].pid = t->pid;
		r->forks[r->nr_forks++].ppid = t->ppid;
	}
	if (!r->filtered) {
		emit_task(r, t);
		return;
	}
	if (t->kind == PROF_TASK_FORK && u64set_has(&r->tracked, t->ppid))
		track(r, t->pid);
	if (u64set_has(&r->tracked, t->pid))
		emit_task(r, t);
	else
		add_pending(r, t, NULL);
}

static void on_mmap(void *ctx, const struct prof_mmap *cm)
{
	struct recorder *r = ctx;
	struct prof_mmap m = *cm;

	if (!(m.prot & PROT_EXEC))
		return;
	note_jitdump(r, &m);
	if (!r->filtered || u64set_has(&r->tracked, m.pid))
		emit_mmap(r, &m);
	else
		add_pending(r, NULL, &m);
}

static void on_lost(void *ctx, uint64_t lost_samples, uint64_t lost_events)
{
	struct recorder *r = ctx;

	r->lost_samples += lost_samples;
	r->lost_events += lost_events;
}

/* -u: whether process pid is the user's, as perf decides it (the owner
 * of /proc/PID; the idle task, pid 0, is no user's), asked once a process. */
static bool uid_match(struct recorder *r, uint32_t pid)
{
	struct stat st;
	char p[32];
	bool in;

	if (!pid || u64set_has(&r->uid_out, pid))
		return false;
	if (u64set_has(&r->uid_in, pid))
		return true;
	snprintf(p, sizeof(p), "/proc/%u", pid);
	in = !stat(p, &st) && st.st_uid == r->uid;
	note_err(r, u64set_add(in ? &r->uid_in : &r->uid_out, pid));
	return in;
}

/* Whether a sample of process pid is kept: --exclude-perf leaves out zt's
 * own, -u those of other users. */
static bool sample_wanted(struct recorder *r, uint32_t pid)
{
	if (r->exclude_perf && pid == r->self_pid)
		return false;
	return !r->uid_str || uid_match(r, pid);
}

/* A sample into the file; false when it is left out (sample_wanted()). */
static bool write_sample(struct recorder *r, unsigned ev, uint64_t ts, uint64_t period, uint32_t pid,
			 uint32_t tid, uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu)
{
	if (!sample_wanted(r, pid))
		return false;
	if (!r->callgraph) {
		/* without -g only the sampled address is kept, as perf does (the
		 * BPF sampler sends only that; perf_event's ring has the chain) */
		if (nk)
			nk = 1, nu = 0;
		else if (nu)
			nu = 1;
	}
	if (r->filtered)
		track(r, pid);
	if (pid && !u64set_has(&r->sampled, pid)) {
		size_t snap = r->nr_pmaps;

		note_err(r, u64set_add(&r->sampled, pid));
		note_err(r, u64set_add(&r->new_sampled, pid));
		snapshot_perfmap(r, pid); /* short-lived JITs too */
		/* and once more soon: a JIT writes its map after its first
		 * samples, which reach here within a millisecond or two */
		if (r->nr_pmaps > snap && !ZT_GROW(r->resnap, r->cap_resnap, r->nr_resnap + 1)) {
			r->resnap[r->nr_resnap].snap = snap;
			r->resnap[r->nr_resnap++].at = recorder_now() + RESNAP_NS;
		}
	}
	if (r->want_kernel && nk) {
		if (r->hide_kaddr) {
			memcpy(r->kbuf, ips, (nk + nu) * sizeof(*ips));
			for (unsigned i = 0; i < nk; i++)
				r->kbuf[i] = kernel_hide(r, ips[i]);
			ips = r->kbuf;
		} else {
			for (unsigned i = 0; i < nk; i++)
				kernel_new(r, ips[i]);
		}
	}
	if (r->hide_kaddr) {
		/* a "user" frame in the kernel's half of the address space (a
		 * stale frame pointer's find) would give the kernel's layout
		 * away: the chain ends before it. The vsyscall page, user code
		 * up there, stays. */
		for (unsigned i = nk; i < nk + nu; i++) {
			if (ips[i] >= USER_ADDR_END &&
			    (ips[i] < VSYSCALL_START || ips[i] >= VSYSCALL_START + 0x1000)) {
				nu = i - nk;
				break;
			}
		}
	}
	note_err(r, ztdata_write_sample_ev(r->w, ev, ts, period, pid, tid, cpu, ips, nk, nu));
	r->samples++;
	return true;
}

/* The stack snapshot of the sample just written (--call-graph dwarf). */
static void write_ustack(struct recorder *r, uint32_t mask, const uint64_t *regs, const void *stack,
			 size_t len)
{
	note_err(r, ztdata_write_ustack(r->w, mask, regs, stack, len));
	r->ustacks++;
	r->ustack_bytes += len;
}

static void raw_kernel_word(void *ctx, uint64_t v)
{
	kernel_new(ctx, v);
}

/* The raw record of the sample just written (a tracepoint's fields). */
static void write_raw(struct recorder *r, const uint8_t *raw, uint32_t len)
{
	/* a tracepoint's fields may hold kernel addresses (pointers, call
	 * sites): not for a user who may not see them */
	if (r->hide_kaddr)
		return;
	note_err(r, ztdata_write_raw(r->w, raw, len));
	/* the symbols of its function pointers kept too (perf script names them) */
	if (r->want_kernel)
		prof_raw_kernel_words(raw, len, raw_kernel_word, r);
}

/* A CUDA launch the probe in libztcupti.so reported (zt record --gpu). */
static void on_bpf_launch(struct recorder *r, const struct zt_sample_event *e)
{
	const struct zt_ustack_part *u = sampler_ustack(e);
	const uint64_t *ips = (const uint64_t *)e->ips;
	unsigned nu = e->nu;

	if (!r->gr || !sample_wanted(r, e->pid))
		return;
	if (r->filtered)
		track(r, e->pid);
	if (e->pid && !u64set_has(&r->sampled, e->pid)) {
		note_err(r, u64set_add(&r->sampled, e->pid));
		note_err(r, u64set_add(&r->new_sampled, e->pid));
	}
	for (unsigned i = 0; i < nu; i++) {
		if (ips[i] >= USER_ADDR_END) {
			nu = i;
			break;
		}
	}
	if (r->py) {
		pyrec_poll(r->py, e->pid, e->ts);
		ips = pyrec_splice(r->py, e->pid, e->ts, ips, 0, nu, ips + e->nu,
				   ZT_EV_PY(e->flags), r->pybuf, PYBUF_FRAMES, &nu);
	}
	gpurec_launch(r->gr, r->w, e->ts, e->pid, e->tid, e->period, ips, nu);
	if (u) {
		/* --call-graph dwarf: unwound offline, as a sample's snapshot */
		note_err(r, ztdata_write_gpu_launch_ustack(r->w, (1u << PROF_UREGS) - 1,
							   (const uint64_t *)u->regs, u->data,
							   e->ustack_len));
	}
}

static void on_bpf_sample(void *ctx, const struct zt_sample_event *e, size_t size)
{
	const struct zt_ustack_part *u = sampler_ustack(e);

	if (e->flags & ZT_EV_LAUNCH) {
		on_bpf_launch(ctx, e);
		return;
	}

	struct recorder *r = ctx;
	const uint64_t *ips = (const uint64_t *)e->ips;
	unsigned nu = e->nu;

	if (r->py) {
		pyrec_poll(r->py, e->pid, e->ts);
		if (e->flags & ZT_EV_PY_FAIL)
			r->py_fail++;
		ips = pyrec_splice(r->py, e->pid, e->ts, ips, e->nk, e->nu, ips + e->nk + e->nu,
				   ZT_EV_PY(e->flags), r->pybuf, PYBUF_FRAMES, &nu);
	}
	if (!write_sample(r, 0, e->ts, e->period, e->pid, e->tid, e->cpu, ips, e->nk, nu))
		return;
	if (ZT_EV_STOP(e->flags) < ZT_UW_STOP_MAX)
		r->uw_stops[ZT_EV_STOP(e->flags)]++;
	if (u)
		write_ustack(ctx, (1u << PROF_UREGS) - 1, (const uint64_t *)u->regs, u->data,
			     e->ustack_len);
}

static void on_perf_sample(void *ctx, const struct perfev_sample *s)
{
	struct recorder *r = ctx;

	if (!write_sample(r, s->event, s->ts, s->period, s->pid, s->tid, s->cpu, s->ips, s->nk,
			  s->nu))
		return;
	if (s->uregs)
		write_ustack(r, s->uregs_mask, s->uregs, s->ustack, s->ustack_len);
	if (s->raw)
		write_raw(r, s->raw, s->raw_len);
}

/* At the end: binaries of sampled processes still waiting (through the
 * file path now, if the process is gone; its build id is checked), and
 * those of their parents, whose code forked children run. */
static void cache_sampled_binaries(struct recorder *r)
{
	struct u64set want = { 0 };
	size_t i, pass;

	for (i = 0; i < r->sampled.n; i++)
		u64set_add(&want, r->sampled.k[i]);
	for (pass = 0; pass < 4; pass++)
		for (i = 0; i < r->nr_forks; i++)
			if (u64set_has(&want, r->forks[i].pid))
				u64set_add(&want, r->forks[i].ppid);
	cache_deferred(r, &want);
	u64set_release(&want);
}

/* Move pending side-band of processes that turned out to matter. */
static void settle_pending(struct recorder *r, bool final)
{
	size_t i, k = 0;

	for (i = 0; i < r->nr_pend; i++) {
		struct pending *p = &r->pend[i];
		uint32_t pid = p->is_mmap ? p->m.pid : p->t.pid;

		if (u64set_has(&r->tracked, pid)) {
			if (p->is_mmap)
				emit_mmap(r, &p->m);
			else
				emit_task(r, &p->t);
		} else if (!final && ++p->age < PENDING_MAX_AGE) {
			r->pend[k++] = *p;
			continue;
		}
		if (p->is_mmap)
			free(p->m.path);
	}
	r->nr_pend = k;
}

/* Whether a user other than root sees real addresses in /proc/kallsyms
 * (the kernel's kallsyms_show_value(), without CAP_SYSLOG). */
static bool users_see_kaddr(void)
{
	char *a = NULL, *b = NULL;
	size_t n;
	bool ok = !zt_read_file("/proc/sys/kernel/kptr_restrict", 64, &a, &n) && atoi(a) == 0 &&
		  !zt_read_file("/proc/sys/kernel/perf_event_paranoid", 64, &b, &n) && atoi(b) <= 1;

	free(a);
	free(b);
	return ok;
}

/* Root working for a sudo user. */
static bool sudo_user(void)
{
	struct zt_user u;

	zt_user_init(&u);
	return u.active;
}

/* Read the kernel's symbols, once: ips/n are the addresses first needed
 * (they decide whether the cache will do). */
static void kernel_read(struct recorder *r, const uint64_t *ips, size_t n)
{
	char *d = NULL;
	size_t len;
	int cached, err;

	if (r->kernel_read)
		return;
	r->kernel_read = true;
	err = kcache_read(r->cache_ok ? &r->cache : NULL, ips, n, &d, &len, &cached);
	if (err) {
		zt_warn("cannot read /proc/kallsyms: %s: kernel frames stay unresolved", strerror(-err));
		r->kernel_off = true;
		return;
	}
	zt_info("kernel symbols from %s", cached ? "the cache" : "/proc/kallsyms");
	if (len <= 16 || !strncmp(d, "0000000000000000", 16)) {
		/* all-zero addresses (kptr_restrict) are worth nothing */
		zt_warn("kernel addresses are hidden (kernel.kptr_restrict): kernel frames stay unresolved");
		r->kernel_off = true;
		free(d);
		return;
	}
	if (!cached) {
		struct zbuf sorted;

		zbuf_init(&sorted);
		err = kallsyms_sorted_text(d, len, &sorted);
		free(d);
		if (err || sorted.err) {
			zbuf_release(&sorted);
			note_err(r, -ENOMEM);
			r->kernel_off = true;
			return;
		}
		d = (char *)sorted.data;
		len = sorted.len;
	}
	r->ktext = d;
	r->ktext_len = len;
	if (r->hide_kaddr && kallsyms_parse(d, len, &r->ktab)) {
		note_err(r, -ENOMEM);
		r->kernel_off = true;
	}
}

static void kernel_new(struct recorder *r, uint64_t v)
{
	if (u64set_has(&r->kips, v))
		return;
	if (u64set_add(&r->kips, v) || ZT_GROW(r->knew, r->cap_knew, r->nr_knew + 1)) {
		note_err(r, -ENOMEM);
		return;
	}
	r->knew[r->nr_knew++] = v;
}

/* The slot address standing for kernel address ip (see above). Every
 * kernel frame of every sample comes here: a small direct-mapped memo in
 * front of the bisection. */
static uint64_t kernel_hide(struct recorder *r, uint64_t ip)
{
	size_t h = zt_hash_mix(0, ip) & (sizeof(r->kmemo) / sizeof(r->kmemo[0]) - 1);
	uint64_t off, slot;
	long i;

	if (r->kmemo[h].ip == ip && ip)
		return r->kmemo[h].slot;
	i = r->ktab ? kallsyms_find(r->ktab, ip, &off) : -1;
	if (i < 0) {
		slot = KFAKE_UNKNOWN;
	} else {
		kernel_new(r, (uint64_t)i + 1);
		slot = KFAKE_BASE + ((uint64_t)i + 1) * KFAKE_SLOT + off;
	}
	r->kmemo[h].ip = ip;
	r->kmemo[h].slot = slot;
	return slot;
}

/* A blob into the recording. One larger than a recording holds is left
 * out with a warning (a symbol source less), never a failed recording.
 * Returns what the writer said. */
static int write_blob(struct recorder *r, uint32_t kind, uint32_t pid, uint64_t ts, const void *d,
		      size_t n)
{
	static const char *const what[] = {
		[PROF_BLOB_KALLSYMS] = "the kernel symbols",
		[PROF_BLOB_MODULES] = "/proc/modules",
		[PROF_BLOB_PERFMAP] = "a perf map",
		[PROF_BLOB_JITDUMP] = "a jitdump",
		[PROF_BLOB_TRACE_HEADER] = "the tracepoint header",
		[PROF_BLOB_TRACE_FORMAT] = "a tracepoint format",
	};
	const char *name =
		kind < sizeof(what) / sizeof(what[0]) && what[kind] ? what[kind] : "a blob";
	int err = ztdata_write_blob(r->w, kind, pid, ts, d, n);

	if (err == -E2BIG)
		zt_warn("%s of %zu bytes left out: a recording holds at most %u MiB in one piece",
			name, n, PROF_BLOB_MAX_MIB);
	else
		note_err(r, err);
	return err;
}

/* /proc/modules, with the load addresses zeroed when they are hidden (as
 * a user without the right to them reads it). */
static void write_modules(struct recorder *r)
{
	char *d, *p;
	size_t len;

	if (zt_read_file("/proc/modules", 16u << 20, &d, &len))
		return;
	for (p = d; r->hide_kaddr && (p = strstr(p, " 0x")); p += 3)
		for (size_t k = 3; zt_hexval(p[k]) >= 0; k++)
			p[k] = '0';
	write_blob(r, PROF_BLOB_MODULES, 0, r->t_start, d, len);
	free(d);
}

/* The kallsyms lines for the kernel frames written since the last call:
 * called before each flush. */
static void kernel_flush(struct recorder *r)
{
	struct zbuf out;
	size_t i;

	if (!r->nr_knew || r->kernel_off)
		return;
	if (!r->modules_written) {
		write_modules(r);
		r->modules_written = true;
	}
	kernel_read(r, r->knew, r->nr_knew);
	if (r->kernel_off)
		return;
	zbuf_init(&out);
	if (r->hide_kaddr) {
		if (!r->kfake_bounds) {
			char line[96];

			/* the range of the slots, as _text and _etext bound the kernel's */
			snprintf(line, sizeof(line), "%016llx T _text\n%016llx T _etext\n",
				 (unsigned long long)KFAKE_BASE,
				 (unsigned long long)(KFAKE_BASE + (kallsyms_count(r->ktab) + 1) * KFAKE_SLOT));
			zbuf_put(&out, line, strlen(line));
			r->kfake_bounds = true;
		}
		for (i = 0; i < r->nr_knew; i++) {
			const char *mod, *name = kallsyms_at(r->ktab, (size_t)(r->knew[i] - 1), &mod);
			char line[64];

			if (!name)
				continue;
			snprintf(line, sizeof(line), "%016llx t ",
				 (unsigned long long)(KFAKE_BASE + r->knew[i] * KFAKE_SLOT));
			zbuf_put(&out, line, strlen(line));
			zbuf_put(&out, name, strlen(name));
			if (!kallsyms_is_core(mod)) {
				zbuf_put_u8(&out, '\t');
				zbuf_put(&out, mod, strlen(mod));
			}
			zbuf_put_u8(&out, '\n');
		}
	} else {
		note_err(r, kallsyms_subset_sorted(r->ktext, r->ktext_len, r->knew, r->nr_knew, &out));
	}
	if (!out.err && out.len)
		write_blob(r, PROF_BLOB_KALLSYMS, 0, r->t_start, out.data, out.len);
	zbuf_release(&out);
	r->nr_knew = 0;
}

/* A perf map or jitdump refused (see procfile.h): said once under -v,
 * and kept for the report's symbol summary. */
static void refuse_file(struct recorder *r, struct perfmap_snap *ps, int err)
{
	char line[PATH_MAX + 160];
	const char *what = ps->kind == PROF_BLOB_PERFMAP ? "perf map" : "jitdump";
	int n;

	if (ps->refused == err)
		return;
	ps->refused = err;
	if (err == -ENOENT)
		return;
	zt_info("%s of pid %u not read: '%s' is %s", what, ps->pid, ps->path, procfile_why(err));
	n = snprintf(line, sizeof(line), "%s%s of pid %u ('%s': %s)", r->skipped.len ? "; " : "",
		     what, ps->pid, ps->path, procfile_why(err));
	if (n > 0 && r->skipped.len < 8192)
		zbuf_put(&r->skipped, line, strlen(line));
}

/* JIT runtimes append to /tmp/perf-PID.map (or a jit-PID.dump) and may
 * delete it when they exit: store what is new in it while the process
 * lives. The pieces, read in order, are the file: a perf map is cut at
 * line ends (later lines win over earlier ones), a jitdump anywhere.
 * zt reads these as root for a process of any user: see procfile.h for
 * what it refuses. */
static void snapshot_file(struct recorder *r, struct perfmap_snap *ps)
{
	char *d = NULL;
	struct stat st;
	off_t from;
	size_t n;
	int fd;

	if (!ps->have_owner)
		return;
	if (ps->fd >= 0) {
		int err = procfile_check(&ps->owner, ps->fd, PROCFILE_MAX, &st);

		if (err) {
			refuse_file(r, ps, err);
			return;
		}
		fd = ps->fd;
	} else {
		fd = procfile_open(&ps->owner, ps->path, PROCFILE_MAX, &st);
		if (fd < 0) {
			refuse_file(r, ps, fd);
			return;
		}
	}
	ps->refused = 0;
	if (ps->size == st.st_size && ps->mtime.tv_sec == st.st_mtim.tv_sec &&
	    ps->mtime.tv_nsec == st.st_mtim.tv_nsec)
		goto out;
	/* appended to: the new bytes only; rewritten (shorter): all again */
	from = st.st_size >= ps->size ? ps->size : 0;
	n = (size_t)(st.st_size - from);
	if (!(d = malloc(n ? n : 1)) || pread(fd, d, n, from) != (ssize_t)n)
		goto out;
	if (ps->kind == PROF_BLOB_PERFMAP) /* the rest of a line comes next time */
		while (n && d[n - 1] != '\n')
			n--;
	ps->size = from + (off_t)n;
	ps->mtime = st.st_mtim;
	/* n <= PROCFILE_MAX == PROF_BLOB_MAX fits; were it refused, the file is skipped */
	if (n && write_blob(r, ps->kind, ps->pid, recorder_now(), d, n) == -E2BIG)
		refuse_file(r, ps, -EFBIG);
out:
	free(d);
	if (fd != ps->fd)
		close(fd);
}

/* A new snapshot state for (pid, kind, path); NULL on ENOMEM. The owner
 * is read now, while the process lives. */
static struct perfmap_snap *snap_new(struct recorder *r, uint32_t pid, uint32_t kind, const char *path)
{
	struct perfmap_snap *ps;

	if (ZT_GROW(r->pmaps, r->cap_pmaps, r->nr_pmaps + 1))
		return NULL;
	ps = &r->pmaps[r->nr_pmaps];
	memset(ps, 0, sizeof(*ps));
	ps->fd = -1;
	ps->have_owner = !procfile_owner_init(&ps->owner, pid);
	if (kind == PROF_BLOB_PERFMAP) {
		char p[64];

		/* named by its pid in its own namespace, in its own /tmp */
		snprintf(p, sizeof(p), "/tmp/perf-%u.map", ps->have_owner ? ps->owner.nspid : pid);
		ps->path = strdup(p);
	} else {
		ps->path = strdup(path);
		r->nr_jitdumps++;
	}
	if (!ps->path)
		return NULL;
	ps->pid = pid;
	ps->kind = kind;
	r->nr_pmaps++;
	return ps;
}

/* A process seen in a sample for the first time: its perf map state, and
 * what of its files there is now (short-lived JITs too). */
static void snapshot_perfmap(struct recorder *r, uint32_t pid)
{
	struct perfmap_snap *ps = snap_new(r, pid, PROF_BLOB_PERFMAP, NULL);
	size_t i;

	if (ps)
		snapshot_file(r, ps);
	/* jitdumps this process mapped before (see on_mmap) */
	for (i = 0; r->nr_jitdumps && i < r->nr_pmaps; i++)
		if (r->pmaps[i].pid == pid && r->pmaps[i].kind == PROF_BLOB_JITDUMP)
			snapshot_file(r, &r->pmaps[i]);
}

/* The perf maps of processes first sampled RESNAP_NS ago, read again. */
static void resnap_due(struct recorder *r)
{
	uint64_t now;
	size_t i, k = 0;

	if (!r->nr_resnap)
		return;
	now = recorder_now();
	for (i = 0; i < r->nr_resnap; i++) {
		if (r->resnap[i].at > now)
			r->resnap[k++] = r->resnap[i];
		else if (r->resnap[i].snap < r->nr_pmaps) /* (entries stay where they are) */
			snapshot_file(r, &r->pmaps[r->resnap[i].snap]);
	}
	r->nr_resnap = k;
}

/* At each flush: what is new in the files of the sampled processes. */
static void snapshot_perfmaps(struct recorder *r)
{
	size_t i;

	for (i = 0; i < r->nr_pmaps; i++)
		if (u64set_has(&r->sampled, r->pmaps[i].pid))
			snapshot_file(r, &r->pmaps[i]);
}

/* perf's JIT interface: a runtime writes jit-PID.dump and maps it
 * executable, just so that the profiler learns its path. */
static void note_jitdump(struct recorder *r, const struct prof_mmap *m)
{
	const char *base = strrchr(m->path, '/');
	struct perfmap_snap *ps;
	size_t digits, i;
	char p[80];

	/* jit-N.dump: N is the pid in the process's own namespace */
	if (!base || strncmp(base + 1, "jit-", 4))
		return;
	digits = strspn(base + 5, "0123456789");
	if (!digits || strcmp(base + 5 + digits, ".dump"))
		return;
	for (ps = NULL, i = 0; r->nr_jitdumps && i < r->nr_pmaps && !ps; i++)
		if (r->pmaps[i].pid == m->pid && r->pmaps[i].kind == PROF_BLOB_JITDUMP &&
		    !strcmp(r->pmaps[i].path, m->path))
			ps = &r->pmaps[i];
	if (!ps)
		ps = snap_new(r, m->pid, PROF_BLOB_JITDUMP, m->path);
	if (!ps) {
		r->lost_events++;
		return;
	}
	if (ps->fd >= 0 || !ps->have_owner)
		return;
	/* the file the process mapped, whatever its path names later: a path
	 * swapped for a link after the mmap is never read */
	snprintf(p, sizeof(p), "/proc/%u/map_files/%llx-%llx", m->pid, (unsigned long long)m->start,
		 (unsigned long long)(m->start + m->len));
	ps->fd = open(p, O_RDONLY | O_CLOEXEC);
}

/* The event table (zt-data(5) EVENTS), and meta "events" as perf.data's reader sets it. */
static void write_events(struct recorder *r)
{
	struct perfev_event pe[EVSEL_MAX];
	unsigned n = target_perfev_events(r->tg, pe), i;
	char all[1024];
	size_t len = 0;

	for (i = 0; i < n; i++) {
		const struct evsel *e = &r->tg->evs[i];
		struct prof_event pv = { (char *)e->name, e->type, e->config, pe[i].freq_or_period,
					 (pe[i].freq ? PROF_EV_FREQ : 0) |
						 (e->exclude_user ? PROF_EV_EXCL_USER : 0) |
						 (e->exclude_kernel ? PROF_EV_EXCL_KERNEL : 0) };

		note_err(r, ztdata_write_event(r->w, &pv));
		len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", i ? "," : "", e->name);
		if (len >= sizeof(all))
			len = sizeof(all) - 1;
	}
	ztdata_write_meta(r->w, "events", all);
}

/* The tracefs formats of the tracepoints (blobs PROF_BLOB_TRACE_*), so
 * their raw records can be printed elsewhere: the page header once, then
 * each tracepoint's format after its system's name. */
static void write_trace_formats(struct recorder *r)
{
	bool header = false;

	for (size_t i = 0; i < r->tg->nr_evs; i++) {
		const struct evsel *e = &r->tg->evs[i];
		char *text = NULL, *c;
		size_t len, sl;
		int err;

		if (!evsel_is_tracepoint(e))
			continue;
		if (r->hide_kaddr) {
			zt_info("'%s' goes to a user who may not read kernel addresses: the "
				"tracepoints' fields, which may hold some, are not kept",
				r->output);
			return;
		}
		if (!header && !evsel_tracefs_format(NULL, NULL, &text, &len)) {
			write_blob(r, PROF_BLOB_TRACE_HEADER, 0, 0, text, len);
			free(text);
			text = NULL;
		}
		header = true;
		err = evsel_tracefs_format(e, NULL, &text, &len);
		c = strchr(e->event, ':');
		if (err || !c) {
			zt_warn("cannot read the format of tracepoint '%s' (%s): its fields will "
				"not be shown", e->event, strerror(err ? -err : EINVAL));
			continue;
		}
		sl = (size_t)(c - e->event);
		/* "SYSTEM\0" then the format text */
		c = malloc(sl + 1 + len);
		if (c) {
			memcpy(c, e->event, sl);
			c[sl] = 0;
			memcpy(c + sl + 1, text, len);
			write_blob(r, PROF_BLOB_TRACE_FORMAT, 0, 0, c, sl + 1 + len);
		} else {
			note_err(r, -ENOMEM);
		}
		free(c);
		free(text);
	}
}

/* What perf's header says of the machine (CPUDESC, CPUID, TOTAL_MEM),
 * from /proc/cpuinfo and /proc/meminfo; each only when found. */
static void write_machine_meta(struct recorder *r)
{
	char line[512], vendor[64] = "", desc[256] = "", num[64];
	int fam = -1, model = -1, step = -1;
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f && fgets(line, sizeof(line), f) && strcmp(line, "\n")) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += v[1] == ' ' ? 2 : 1;
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "vendor_id", 9))
			snprintf(vendor, sizeof(vendor), "%s", v);
		else if (!strncmp(line, "cpu family", 10))
			fam = atoi(v);
		else if (!strncmp(line, "model name", 10))
			snprintf(desc, sizeof(desc), "%s", v);
		else if (!strncmp(line, "model\t", 6))
			model = atoi(v);
		else if (!strncmp(line, "stepping", 8))
			step = atoi(v);
	}
	if (f)
		fclose(f);
	if (desc[0])
		ztdata_write_meta(r->w, "cpudesc", desc);
	if (vendor[0] && fam >= 0 && model >= 0 && step >= 0) {
		snprintf(line, sizeof(line), "%s,%d,%d,%d", vendor, fam, model, step);
		ztdata_write_meta(r->w, "cpuid", line);
	}
	f = fopen("/proc/meminfo", "re");
	if (f && fscanf(f, "MemTotal: %llu kB", &kb) == 1 && kb) {
		snprintf(num, sizeof(num), "%llu", kb);
		ztdata_write_meta(r->w, "total_mem_kb", num);
	}
	if (f)
		fclose(f);
	snprintf(num, sizeof(num), "%ld", sysconf(_SC_NPROCESSORS_CONF));
	ztdata_write_meta(r->w, "nr_cpus_avail", num);
}

static void write_meta(struct recorder *r, int argc, char **argv, const char *event, uint64_t freq,
		       uint64_t period, uint64_t t_start)
{
	struct utsname u;
	char buf[4096], num[32];
	size_t n = 0;
	int i;

	uname(&u);
	for (i = 0; i < argc && n < sizeof(buf) - 1; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "zt ", argv[i]);
	ztdata_write_meta(r->w, "cmdline", buf);
	ztdata_write_meta(r->w, "hostname", u.nodename);
	ztdata_write_meta(r->w, "os_release", u.release);
	ztdata_write_meta(r->w, "arch", u.machine);
	snprintf(num, sizeof(num), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	ztdata_write_meta(r->w, "nr_cpus", num);
	write_machine_meta(r);
	ztdata_write_meta(r->w, "event", event);
	write_events(r);
	write_trace_formats(r);
	ztdata_write_meta(r->w, "sampler", r->path_kind);
	ztdata_write_meta(r->w, "callchain", r->stack_size ? "dwarf" : r->callgraph ? "fp" : "none");
	if (r->callgraph)
		ztdata_write_meta(r->w, "unwinder", recorder_unwinder(r));
	if (r->stack_size) {
		snprintf(num, sizeof(num), "%u", r->stack_size);
		ztdata_write_meta(r->w, "stack_size", num);
	}
	if (freq) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)freq);
		ztdata_write_meta(r->w, "freq", num);
	} else {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)period);
		ztdata_write_meta(r->w, "period", num);
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long)t_start);
	ztdata_write_meta(r->w, "time_start", num);
	snprintf(num, sizeof(num), "%lld", (long long)time(NULL));
	ztdata_write_meta(r->w, "wallclock_start", num);
	ztdata_write_meta(r->w, "zt_version", "0.1.0");
	if (r->gr)
		ztdata_write_meta(r->w, "gpu", "cupti");
}

/* The kernel unwinder's tables for the sampler's maps. 0, or -1 after a
 * message. */
static int open_kunwind(struct recorder *r)
{
	int err = kunwind_for_sampler(r->smp, r->cache_ok ? &r->cache : NULL, &r->ku);

	if (err) {
		zt_error("cannot set up the kernel unwinder's tables: %s", strerror(-err));
		return -1;
	}
	return 0;
}

const char *recorder_unwinder(const struct recorder *r)
{
	if (!r->callgraph)
		return "none";
	if (r->stack_size)
		return "dwarf";
	return r->use_bpf && !r->fp_only ? "kernel" : "fp";
}

static int py_add_code(void *ctx, const struct prof_pycode *c, uint32_t *idx)
{
	struct recorder *r = ctx;
	int err = ztdata_write_pycode(r->w, c, idx);

	note_err(r, err);
	return err;
}

static int py_set_proc(void *ctx, uint32_t pid, const void *pp)
{
	struct recorder *r = ctx;

	if (!pp) {
		sampler_py_del(r->smp, pid);
		return 0;
	}
	return sampler_py_set(r->smp, pid, pp);
}

static int open_python(struct recorder *r)
{
	const struct pyrec_ops ops = {py_add_code, py_set_proc, r};

	r->pybuf = malloc(PYBUF_FRAMES * sizeof(*r->pybuf));
	if (!r->pybuf || pyrec_new(&ops, &r->py)) {
		zt_error("out of memory");
		return -1;
	}
	return 0;
}

/* The sampler, falling back to another event as target_fallback() says.
 * 0, or -1 after a message. */
int recorder_open(struct recorder *r)
{
	struct target *tg = r->tg;
	struct sampler_opts so = { 0 };
	char msg[256];
	int err;

	target_sampler_opts(tg, &so);
	so.filter_mode = tg->tids || (r->filtered && r->no_inherit) ? ZT_FILTER_TID
			 : r->filtered ? ZT_FILTER_TGID : ZT_FILTER_ALL;
	so.follow_children = !r->no_inherit;
	if (r->ring_pages) {
		/* -m is per CPU, as perf's rings; the BPF ring is one for all */
		uint64_t want = (uint64_t)r->ring_pages * (uint64_t)sysconf(_SC_PAGESIZE) *
				(uint64_t)(tg->nr_cpus > 0 ? tg->nr_cpus : 1), sz = 4096;

		while (sz < want && sz < (256u << 20))
			sz <<= 1;
		so.ringbuf_bytes = (uint32_t)sz;
	}
	so.callchain = r->callgraph;
	so.ustack_size = r->stack_size;
	/* with --call-graph dwarf too: the chain recorded with each snapshot,
	 * which extends a DWARF unwind that runs off the copy's end */
	if (r->callgraph && !r->fp_only)
		kunwind_sampler_opts(&so);
	/* Python frames with the walks done in the kernel (not beside
	 * snapshots, whose stacks are unwound offline) */
	so.python = r->python && r->callgraph && !r->stack_size;
	so.launches = r->gr && (!r->gpu_stacks || !strcmp(r->gpu_stacks, "usdt"));
	do {
		struct perfev_event pe[EVSEL_MAX];

		so.type = tg->ev->type;
		so.config = tg->ev->config;
		so.exclude_kernel = tg->evs[0].exclude_kernel;
		if (r->use_bpf) {
			err = sampler_open(&so, on_bpf_sample, r, &r->smp, msg, sizeof(msg));
			if (err == -EINVAL && so.kunwind) {
				/* a kernel whose verifier refuses the walk (before
				 * bpf_loop(), Linux 5.17): frame pointers, as perf */
				zt_warn("the kernel unwinder cannot load here (%s): user stacks "
					"by frame pointers, as --call-graph fp", msg);
				so.kunwind = false;
				r->fp_only = true;
				err = sampler_open(&so, on_bpf_sample, r, &r->smp, msg,
						   sizeof(msg));
			}
		} else {
			struct perfev_opts po = {
				.events = pe, .nr_events = target_perfev_events(tg, pe),
				.exclude_kernel = !r->privileged,
				.callchain = r->callgraph != 0, .ustack_size = r->stack_size,
				.sideband = true, .enable_on_exec = r->filtered && r->traced > 0,
				.inherit = r->filtered && !tg->tids && !r->no_inherit,
				/* snapshots: 8 KiB a sample; unprivileged, perf_event_mlock_kb
				 * (516 KiB a CPU) caps the rings */
				.ring_pages = r->ring_pages ? r->ring_pages
					      : r->privileged ? (r->stack_size ? 512 : 256)
							      : (r->stack_size ? 128 : 64),
			};

			msg[0] = 0;
			err = perfev_new(&po, &r->cbs, &r->pev);
			if (!err)
				err = !r->filtered ? target_open_cpus(tg, r->pev, -1)
				      : r->traced > 0 ? target_open_cpus(tg, r->pev, r->traced)
						      : target_open_threads(tg, r->pev);
			if (err) {
				perfev_free(r->pev);
				r->pev = NULL;
			}
		}
	} while (err && target_fallback(tg, err));
	if (err && r->gr && r->traced > 0) {
		/* a container without perf_event_open, say: the GPU side still
		 * comes from the library, and its launch stacks from libunwind */
		zt_warn("--gpu: cannot sample the CPU (%s%s%s): recording the GPU side only, "
			"launch stacks unwound in the process",
			strerror(err < 0 ? -err : err), msg[0] ? ": " : "", msg);
		r->gpu_only = true;
		r->use_bpf = false;
		r->path_kind = "none";
		return 0;
	}
	if (err) {
		target_open_error(tg, err, msg, "record");
		return -1;
	}
	if (r->smp && so.launches)
		gpurec_usdt(r->gr, sampler_attach_launches(r->smp, gpurec_lib(r->gr)));
	if (r->smp && so.kunwind && open_kunwind(r) < 0)
		return -1;
	if (r->smp && so.python && open_python(r) < 0)
		return -1;
	return 0;
}

/* The threads of process pid, into the sampler's thread filter. */
static void add_threads(struct recorder *r, int pid)
{
	struct dirent *de;
	char dir[64];
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			sampler_add_tid(r->smp, (uint32_t)atoi(de->d_name));
	closedir(d);
}

/* With BPF, the kernel's side-band comes from perf_event apart, and the
 * sampler learns which processes to keep. 0, or -1 after a message. */
int recorder_open_sideband(struct recorder *r)
{
	struct target *tg = r->tg;

	if (!r->use_bpf)
		return 0;
	if (target_sideband(tg, &r->cbs, r->smp, tg->cpu_list && !tg->all_cpus, r->ku != NULL,
			    &r->sideband))
		return -1;
	if (r->traced > 0)
		sampler_add_tgid(r->smp, (uint32_t)r->traced);
	if (r->filtered && r->no_inherit && !tg->tids) {
		/* --no-inherit: the threads there now, by thread id */
		int i;

		if (r->traced > 0)
			sampler_add_tid(r->smp, (uint32_t)r->traced);
		for (i = 0; i < tg->nr_pids; i++)
			add_threads(r, tg->pid_list[i]);
	}
	return 0;
}

/* A file's header: the meta data (zt record's own command line from
 * r->argv) and the events; tracepoints record every event unless -c. */
void recorder_write_header(struct recorder *r, uint64_t t_start)
{
	struct target *tg = r->tg;
	bool every = evsel_is_tracepoint(&tg->evs[0]) && !tg->period;

	write_meta(r, r->argc, r->argv, tg->ev->name, every ? 0 : tg->freq,
		   every ? 1 : tg->period, t_start);
}

/* --gpu without a sampler, so without side-band: the workload's mappings
 * (for its launch stacks), synthesized again whenever /proc/PID/maps
 * changed, checked every 50 ms (a large process's maps, PyTorch's, take
 * the kernel a millisecond or two to write), every 5 ms at first. */
static void gpu_only_maps(struct recorder *r)
{
	char path[64], buf[16384];
	uint64_t h = 0, t = recorder_now();
	ssize_t n;
	int fd;

	/* every 5 ms in the workload's first half second: a short CUDA
	 * program may be gone before a 50 ms check sees its libraries */
	if (r->traced <= 0 ||
	    t - r->maps_checked < (t - r->t_start < 500000000ull ? 5000000ull : 50000000ull))
		return;
	r->maps_checked = t;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)r->traced);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		h = zt_hash_pair(h, zt_hash_bytes(buf, (size_t)n));
	close(fd);
	if (h == r->maps_hash)
		return;
	r->maps_hash = h;
	procsynth_pid(r->traced, recorder_now(), &r->cbs);
}

void recorder_stop(struct recorder *r)
{
	if (r->use_bpf) {
		sampler_stop(r->smp);
		sampler_poll(r->smp, 0);
		sampler_get_stats(r->smp, &r->sst);
		r->lost_samples += r->sst.lost;
	} else if (r->pev) {
		perfev_disable(r->pev);
		perfev_drain(r->pev);
	}
	if (r->sideband)
		perfev_drain(r->sideband);
	r->t_end = recorder_now();
}

_Static_assert(PROF_UW_NR == ZT_UW_STOP_MAX && PROF_UW_DEPTH == ZT_UW_STOP_DEPTH &&
		       PROF_UW_NOT_READY == ZT_UW_STOP_NOT_READY,
	       "libprof's names of the kernel unwinder's stops");

/* Why the kernel unwinder's walks of this file's samples ended (meta
 * "unwind_stops", zt-data(5)), and the tables it had. */
static void write_unwind_stops(struct recorder *r)
{
	struct kunwind_stats ks;
	char buf[512];
	size_t n = 0;
	unsigned i;

	for (i = 0; i < ZT_UW_STOP_MAX; i++) {
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s=%llu", i ? "," : "",
				      prof_uw_stop_name(i),
				      (unsigned long long)r->uw_stops[i]);
		r->uw_stops_all[i] += r->uw_stops[i];
		r->uw_stops[i] = 0;
	}
	note_err(r, ztdata_write_meta(r->w, "unwind_stops", buf));
	kunwind_get_stats(r->ku, &ks);
	snprintf(buf, sizeof(buf),
		 "files=%llu,loaded=%llu,no_cfi=%llu,no_room=%llu,evicted=%llu,cached=%llu,"
		 "built=%llu,build_ms=%llu,entries=%llu,pages=%llu,rules=%llu,maps_over=%llu,"
		 "deferred=%llu",
		 (unsigned long long)ks.files, (unsigned long long)ks.loaded,
		 (unsigned long long)ks.no_cfi, (unsigned long long)ks.no_room,
		 (unsigned long long)ks.evicted, (unsigned long long)ks.cached,
		 (unsigned long long)ks.built, (unsigned long long)(ks.build_ns / 1000000),
		 (unsigned long long)ks.entries, (unsigned long long)ks.pages,
		 (unsigned long long)ks.rules, (unsigned long long)ks.maps_over,
		 (unsigned long long)ks.deferred);
	note_err(r, ztdata_write_meta(r->w, "unwind_tables", buf));
}

/* What the Python frames of this file cost and missed (meta "python",
 * zt-data(5)). */
static void write_python_stats(struct recorder *r)
{
	struct pyrec_stats st;
	char buf[256];

	pyrec_get_stats(r->py, &st);
	snprintf(buf, sizeof(buf),
		 "procs=%llu,frames=%llu,codes=%llu,unread=%llu,read_ms=%llu,unspliced=%llu,"
		 "failed_samples=%llu",
		 (unsigned long long)(st.procs - r->py_last.procs),
		 (unsigned long long)(st.frames - r->py_last.frames),
		 (unsigned long long)(st.codes - r->py_last.codes),
		 (unsigned long long)(st.unread - r->py_last.unread),
		 (unsigned long long)((st.read_ns - r->py_last.read_ns) / 1000000),
		 (unsigned long long)(st.unspliced - r->py_last.unspliced),
		 (unsigned long long)r->py_fail);
	r->py_last = st;
	r->py_fail = 0;
	note_err(r, ztdata_write_meta(r->w, "python", buf));
}

/* What is still pending, the counts, the end time and the index into the
 * file. 0, or -1 after a message. */
int recorder_end_file(struct recorder *r, bool final, uint64_t t_end)
{
	char num[32];

	if (r->filtered)
		settle_pending(r, final);
	snapshot_perfmaps(r);
	if (r->gr)
		note_err(r, gpurec_poll(r->gr, r->w));
	cache_sampled_binaries(r);
	kernel_flush(r);
	note_err(r, ztdata_write_lost(r->w, r->lost_samples, r->lost_events));
	if (r->skipped.len) {
		zbuf_put_u8(&r->skipped, 0);
		if (!r->skipped.err)
			note_err(r, ztdata_write_meta(r->w, "skipped_files",
						      (const char *)r->skipped.data));
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long)t_end);
	note_err(r, ztdata_write_meta(r->w, "time_end", num));
	if (r->use_bpf && r->sst.run_cnt) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)r->sst.run_ns);
		ztdata_write_meta(r->w, "bpf_run_ns", num);
	}
	if (r->ku)
		write_unwind_stops(r);
	if (r->py)
		write_python_stats(r);
	note_err(r, ztdata_writer_finish(r->w));
	if (r->err) {
		if (!strcmp(r->output, "-"))
			zt_error("cannot write to standard output: %s%s", strerror(-r->err),
				 r->err == -EPIPE ? " (the command reading it ended)" : "");
		else
			zt_error("cannot write '%s': %s", r->output, strerror(-r->err));
		return -1;
	}
	return 0;
}

/* What each file needs of its own: the kernel's symbols and modules for
 * its kernel frames, the whole perf maps of its processes. */
static void reset_file_state(struct recorder *r)
{
	size_t i;

	u64set_release(&r->kips);
	r->nr_knew = 0;
	r->modules_written = false;
	r->kfake_bounds = false;
	memset(r->kmemo, 0, sizeof(r->kmemo));
	for (i = 0; i < r->nr_pmaps; i++) {
		r->pmaps[i].size = 0;
		memset(&r->pmaps[i].mtime, 0, sizeof(r->pmaps[i].mtime));
	}
	r->lost_samples = r->lost_events = 0;
	if (r->py)
		pyrec_new_file(r->py);
}

void recorder_init(struct recorder *r, struct target *tg)
{
	memset(r, 0, sizeof(*r));
	r->tg = tg;
	r->cbs = (struct perfev_cbs){ on_perf_sample, on_task, on_mmap, on_lost, r };
}

void recorder_track(struct recorder *r, uint32_t pid)
{
	track(r, pid);
}

bool recorder_must_hide_kaddr(bool handed_over, bool stream)
{
	return (handed_over || (stream && sudo_user())) && !users_see_kaddr();
}

void recorder_read_kernel(struct recorder *r)
{
	kernel_read(r, NULL, 0);
}

int recorder_start(struct recorder *r)
{
	struct target *tg = r->tg;
	int err, i;

	/* side-band first, then existing processes, then the samples */
	if (r->sideband)
		perfev_enable(r->sideband);
	if (!r->filtered)
		procsynth_all(r->t_start, &r->cbs);
	for (i = 0; i < tg->nr_pids; i++)
		procsynth_pid(tg->pid_list[i], r->t_start, &r->cbs);
	for (i = 0; i < tg->nr_tids; i++) {
		int tgid = target_tgid(tg->tid_list[i]);

		track(r, (uint32_t)tgid);
		procsynth_pid(tgid, r->t_start, &r->cbs);
	}
	err = r->use_bpf    ? sampler_start(r->smp)
	      : r->gpu_only ? 0
			    : (r->filtered && r->traced > 0 ? 0 : perfev_enable(r->pev));
	if (err) {
		zt_error("cannot start sampling: %s", strerror(-err));
		return -1;
	}
	return 0;
}

int recorder_drain(struct recorder *r)
{
	int err;

	if (r->use_bpf && r->ku && r->sideband) {
		/* the kernel unwinder wants new processes' mappings at once: the
		 * side-band wakes the wait too */
		struct pollfd fds[257];
		int n = 1;

		int wait = 100, due = r->py ? pyrec_tick(r->py, recorder_now()) : -1;

		/* an interpreter still loading is checked again soon: its
		 * Python frames start then */
		if (due >= 0 && due < wait)
			wait = due;
		fds[0] = (struct pollfd){ .fd = sampler_fd(r->smp), .events = POLLIN };
		n += perfev_pollfds(r->sideband, fds + 1, 256);
		if (poll(fds, (nfds_t)n, wait) < 0 && errno != EINTR) {
			zt_error("waiting for samples failed: %s", strerror(errno));
			return -1;
		}
		if (r->sideband)
			perfev_drain(r->sideband);
		if (r->py)
			pyrec_tick(r->py, recorder_now());
		err = sampler_poll(r->smp, 0);
		if (err < 0 && err != -EINTR) {
			zt_error("reading samples failed: %s", strerror(-err));
			return -1;
		}
	} else if (r->use_bpf) {
		int wait = 100, due = r->py ? pyrec_tick(r->py, recorder_now()) : -1;

		err = sampler_poll(r->smp, due >= 0 && due < wait ? due : wait);
		if (err < 0 && err != -EINTR) {
			zt_error("reading samples failed: %s", strerror(-err));
			return -1;
		}
	} else if (r->pev) {
		perfev_wait(r->pev, 100);
		perfev_drain(r->pev);
	} else {
		poll(NULL, 0, recorder_now() - r->t_start < 500000000ull ? 2 : 10);
		gpu_only_maps(r);
	}
	if (r->sideband)
		perfev_drain(r->sideband);
	resnap_due(r);
	if (r->new_sampled.n) {
		cache_deferred(r, &r->new_sampled);
		u64set_release(&r->new_sampled);
	}
	return 0;
}

bool recorder_flush_due(const struct recorder *r)
{
	/* snapshots compress better in larger chunks */
	return ztdata_writer_pending(r->w) > (r->stack_size ? 16u << 20 : 4u << 20);
}

void recorder_flush(struct recorder *r)
{
	if (r->filtered)
		settle_pending(r, false);
	snapshot_perfmaps(r);
	kernel_flush(r);
	if (r->gr) {
		/* the sampler's launch stacks first: a launch the
		 * library has written was in the ring already, and
		 * gpurec_poll() drops the library's record of it */
		if (r->use_bpf)
			sampler_poll(r->smp, 0);
		note_err(r, gpurec_poll(r->gr, r->w));
	}
	note_err(r, ztdata_writer_flush(r->w));
}

void recorder_new_file(struct recorder *r, uint64_t t)
{
	size_t i, n;

	reset_file_state(r);
	recorder_write_header(r, t);
	if (!r->filtered) {
		procsynth_all(t, &r->cbs);
		return;
	}
	for (i = 0, n = r->tracked.n; i < n; i++)
		procsynth_pid((pid_t)r->tracked.k[i], t, &r->cbs);
}

void recorder_release(struct recorder *r)
{
	kunwind_free(r->ku);
	pyrec_free(r->py);
	free(r->pybuf);
	sampler_free(r->smp);
	perfev_free(r->pev);
	perfev_free(r->sideband);
	ztdata_writer_free(r->w);
	for (size_t k = 0; k < r->nr_pend; k++)
		if (r->pend[k].is_mmap)
			free(r->pend[k].m.path);
	free(r->pend);
	mapfile_ids_release(&r->bids);
	u64set_release(&r->tracked);
	u64set_release(&r->sampled);
	u64set_release(&r->uid_in);
	u64set_release(&r->uid_out);
	for (size_t k = 0; k < r->nr_pmaps; k++) {
		free(r->pmaps[k].path);
		if (r->pmaps[k].fd >= 0)
			close(r->pmaps[k].fd);
	}
	zbuf_release(&r->skipped);
	u64set_release(&r->new_sampled);
	for (size_t k = 0; k < r->nr_deferred; k++)
		free(r->deferred[k].path);
	free(r->deferred);
	free(r->forks);
	free(r->resnap);
	free(r->pmaps);
	u64set_release(&r->bid_cached);
	u64set_release(&r->kips);
	free(r->knew);
	free(r->ktext);
	kallsyms_free(r->ktab);
	if (r->cache_ok)
		buildid_cache_release(&r->cache);
}
