// SPDX-License-Identifier: GPL-2.0-or-later
/* Python frames at record time: see pyrec.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf/pywalk.h"
#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/log.h"
#include "record/mapfile.h"
#include "record/pyproc.h"
#include "record/pyrec.h"
#include "symbolizer/symmod.h"

/* An interpreter whose process is still loading (its pointers not yet
 * relocated) is checked again this often, this many times. */
#define RETRY_NS 2000000ull
#define RETRIES 250    /* then every RETRY_SLOW_NS, for RETRY_FOR_NS in all */
#define RETRY_SLOW_NS 50000000ull
#define RETRY_FOR_NS 10000000000ull
#define LIVE_MS 10
/* The most bytes of code objects a recording keeps: a process that makes
 * code objects without end (exec() in a loop) does not fill the disk */
#define CODE_BYTES_MAX (256ull << 20)

/* P_ENDED: exited or exec'd; the samples it sent before are still spliced */
enum { P_WAIT = 1, P_READY, P_ENDED, P_GONE };

struct pyp {
	uint32_t pid;
	uint8_t state;	/* P_* */
	uint16_t tries;
	uint64_t next;	/* when to check again */
	uint64_t since;	/* when it was first checked */
	struct pyproc pp;
};

struct pycache {
	uint32_t pid, idx;
	uint64_t addr;
	uint32_t stamp;
};

struct pyrec {
	struct pyrec_ops ops;
	struct pyp *procs;
	size_t nr_procs, cap_procs;
	struct zt_htab phash; /* procs by pid */
	struct pycache *codes;
	size_t nr_codes, cap_codes;
	struct zt_htab chash; /* codes by (pid, address) */
	size_t nr_wait;	      /* procs in P_WAIT */
	size_t nr_live;	      /* procs in P_READY */
	uint64_t bytes;	      /* of the code objects read (names and line tables) */
	int over;	      /* ... past CODE_BYTES_MAX: said once */
	char **warned;	      /* interpreters a message was given for */
	size_t nr_warned, cap_warned;
	struct pyrec_stats st;
};

static inline uint64_t proc_hash(const void *ctx, uint32_t i)
{
	const struct pyrec *pr = ctx;

	return zt_hash_mix(0x9e3779b97f4a7c15ull, pr->procs[i].pid);
}

static inline uint64_t code_hash(const void *ctx, uint32_t i)
{
	const struct pyrec *pr = ctx;

	return zt_hash_pair(pr->codes[i].pid, pr->codes[i].addr ^ (uint64_t)pr->codes[i].stamp << 48);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int pyrec_new(const struct pyrec_ops *ops, struct pyrec **out)
{
	struct pyrec *pr = calloc(1, sizeof(*pr));

	*out = pr;
	if (!pr)
		return -ENOMEM;
	pr->ops = *ops;
	zt_htab_init(&pr->phash);
	zt_htab_init(&pr->chash);
	return 0;
}

void pyrec_free(struct pyrec *pr)
{
	size_t i;

	if (!pr)
		return;
	for (i = 0; i < pr->nr_warned; i++)
		free(pr->warned[i]);
	free(pr->warned);
	free(pr->procs);
	free(pr->codes);
	zt_htab_release(&pr->phash);
	zt_htab_release(&pr->chash);
	free(pr);
}

/* pid's entry, or NULL; with add, made (zeroed) when missing. */
static struct pyp *proc_get(struct pyrec *pr, uint32_t pid, bool add)
{
	uint64_t h = zt_hash_mix(0x9e3779b97f4a7c15ull, pid);
	uint32_t i;
	size_t j;

	if (pr->phash.cap)
		for (j = zt_htab_first(&pr->phash, h); zt_htab_get(&pr->phash, j, &i);
		     j = zt_htab_next(&pr->phash, j))
			if (pr->procs[i].pid == pid)
				return &pr->procs[i];
	if (!add || ZT_GROW(pr->procs, pr->cap_procs, pr->nr_procs + 1) ||
	    zt_htab_reserve(&pr->phash, 1, proc_hash, pr))
		return NULL;
	i = (uint32_t)pr->nr_procs++;
	memset(&pr->procs[i], 0, sizeof(pr->procs[i]));
	pr->procs[i].pid = pid;
	zt_htab_add(&pr->phash, h, i);
	return &pr->procs[i];
}

/* Whether a mapped file may be a CPython interpreter: python3.X (a
 * virtualenv's python is a link to it), libpython3.X.so. */
static bool python_name(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strncmp(b, "python", 6) || !strncmp(b, "libpython", 9);
}

/* A message about an interpreter, once per file. */
static bool first_warning(struct pyrec *pr, const char *path)
{
	size_t i;
	char *d;

	for (i = 0; i < pr->nr_warned; i++)
		if (!strcmp(pr->warned[i], path))
			return false;
	d = strdup(path);
	if (!d || ZT_GROW(pr->warned, pr->cap_warned, pr->nr_warned + 1)) {
		free(d);
		return true;
	}
	pr->warned[pr->nr_warned++] = d;
	return true;
}

static void ready(struct pyrec *pr, struct pyp *p)
{
	struct zt_py_proc z;

	memset(&z, 0, sizeof(z));
	z.lay = p->pp.lay;
	z.runtime = p->pp.runtime;
	if (pr->ops.set_proc(pr->ops.ctx, p->pid, &z)) {
		p->state = P_GONE;
		return;
	}
	p->state = P_READY;
	pr->nr_live++;
	pr->st.procs++;
	zt_debug("process %u: Python 3.%u, _PyRuntime at %#llx", p->pid, p->pp.minor,
		 (unsigned long long)p->pp.runtime);
}

/* The version in an interpreter's file name (python3.10, libpython3.9.so),
 * "3.10", for one without Py_Version; NULL when it has none. */
static const char *name_version(const char *path)
{
	static char v[16];
	const char *b = path ? strrchr(path, '/') : NULL, *at;
	unsigned major, minor;

	b = b ? b + 1 : path;
	if (!b || !(at = strstr(b, "python")) ||
	    sscanf(at + 6, "%u.%u", &major, &minor) != 2 || major > 9 || minor > 99)
		return NULL;
	snprintf(v, sizeof(v), "%u.%u", major, minor);
	return v;
}

/* pyproc_open()'s or pyproc_check()'s answer for p. */
static void settle(struct pyrec *pr, struct pyp *p, int err, const char *path)
{
	if (p->state == P_WAIT)
		pr->nr_wait--;
	if (!err) {
		ready(pr, p);
		return;
	}
	if ((err == -EPROTO || err == -ESRCH) && p->next - p->since < RETRY_FOR_NS) {
		p->state = P_WAIT; /* loading still: relocations not done */
		pr->nr_wait++;
		return;
	}
	p->state = P_GONE;
	if (err == -ENOENT || !first_warning(pr, path ? path : "?"))
		return;
	if (err == -ENOTSUP && p->pp.minor)
		zt_warn("process %u runs Python 3.%u (%s): zt reads the frames of 3.11 to 3.13, "
			"its samples have native frames only", p->pid, p->pp.minor, path ? path : "?");
	else if (err == -ENOTSUP && name_version(path))
		zt_warn("process %u runs Python %s (%s): zt reads the frames of 3.11 to 3.13, its "
			"samples have native frames only", p->pid, name_version(path), path);
	else if (err == -ENOTSUP)
		zt_warn("process %u runs a Python before 3.11 (%s): zt reads the frames of 3.11 "
			"to 3.13, its samples have native frames only", p->pid, path ? path : "?");
	else if (err == -EPROTO)
		zt_warn("process %u: Python 3.%u in %s does not have the structures zt expects "
			"(its own tables disagree): its samples have native frames only",
			p->pid, p->pp.minor, path ? path : "?");
}

void pyrec_mmap(struct pyrec *pr, const struct prof_mmap *m)
{
	struct symmod_seg segs[16];
	char fdpath[64];
	struct stat st;
	struct pyp *p;
	uint64_t v;
	size_t n;
	int fd, err;

	if (!m->path || !python_name(m->path) || !mapfile_is_file(m))
		return;
	p = proc_get(pr, m->pid, true);
	if (!p || p->state == P_READY || p->state == P_WAIT)
		return; /* one interpreter a process (an ended one's pid may come again) */
	fd = mapfile_open(m, &st);
	if (fd < 0)
		return;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	if (symmod_elf_segments(fdpath, 1, segs, 16, &n) || symmod_seg_vaddr(segs, n < 16 ? n : 16,
									     m->pgoff, &v)) {
		close(fd);
		return;
	}
	err = pyproc_open(&p->pp, m->pid, fdpath, m->start - v);
	close(fd);
	p->tries = 0;
	p->since = now_ns();
	p->next = p->since + RETRY_NS;
	p->state = 0;
	settle(pr, p, err, m->path);
}

static void retry(struct pyrec *pr, struct pyp *p, uint64_t now)
{
	if (p->tries < UINT16_MAX)
		p->tries++;
	p->next = now + (p->tries < RETRIES ? RETRY_NS : RETRY_SLOW_NS);
	settle(pr, p, pyproc_check(&p->pp), NULL);
}

void pyrec_poll(struct pyrec *pr, uint32_t pid, uint64_t now)
{
	struct pyp *p = pr->nr_wait ? proc_get(pr, pid, false) : NULL;

	if (p && p->state == P_WAIT && now >= p->next)
		retry(pr, p, now);
}

int pyrec_tick(struct pyrec *pr, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	size_t i;

	for (i = 0; pr->nr_wait && i < pr->nr_procs; i++) {
		struct pyp *p = &pr->procs[i];

		if (p->state != P_WAIT)
			continue;
		if (now >= p->next)
			retry(pr, p, now);
		if (p->state == P_WAIT && p->next < next)
			next = p->next;
	}
	/* while Python processes live, the samples are read within
	 * LIVE_MS: their new code objects are read before the process
	 * ends (a short program's, all of them) */
	if (next == UINT64_MAX)
		return pr->nr_live ? LIVE_MS : -1;
	next = next <= now ? 0 : (next - now + 999999) / 1000000;
	return (int)(pr->nr_live && next > LIVE_MS ? LIVE_MS : next);
}

void pyrec_task(struct pyrec *pr, const struct prof_task *t)
{
	struct pyp *p, *c;

	if (!pr->phash.nr)
		return;
	if (t->kind == PROF_TASK_FORK && t->pid != t->ppid) {
		/* the child runs its parent's interpreter: ready, or still
		 * being checked (a fork early in the parent's start) */
		p = proc_get(pr, t->ppid, false);
		if (!p || (p->state != P_READY && p->state != P_WAIT))
			return;
		c = proc_get(pr, t->pid, true); /* may move p */
		p = proc_get(pr, t->ppid, false);
		if (!c || !p || c->state == P_READY || c->state == P_WAIT)
			return;
		c->pp = p->pp;
		c->pp.pid = t->pid;
		c->tries = p->tries;
		c->since = p->since;
		c->next = p->next;
		if (p->state == P_WAIT) {
			c->state = P_WAIT;
			pr->nr_wait++;
		} else {
			/* the BPF program copied the parent's entry if it had it
			 * then: given here in any case */
			ready(pr, c);
		}
		return;
	}
	if ((t->kind == PROF_TASK_EXEC || (t->kind == PROF_TASK_EXIT && t->pid == t->tid)) &&
	    (p = proc_get(pr, t->pid, false)) && p->state != P_GONE) {
		if (p->state == P_READY) {
			pr->ops.set_proc(pr->ops.ctx, p->pid, NULL);
			pr->nr_live--;
		}
		if (p->state == P_WAIT)
			pr->nr_wait--;
		p->state = p->state == P_READY ? P_ENDED : P_GONE;
	}
}

static bool in_eval(const struct pyproc *pp, uint64_t ip)
{
	return (ip >= pp->eval_lo && ip < pp->eval_hi) || (ip >= pp->cold_lo && ip < pp->cold_hi);
}

/* The frame of code object addr at instruction word w (ZT_EV_PY) in p:
 * each code object read once, told from one that took its place later
 * by its stamp. */
static uint64_t code_ip(struct pyrec *pr, struct pyp *p, uint64_t ts, uint64_t addr, uint64_t w)
{
	uint32_t i, lasti = (uint32_t)w, idx = UINT32_MAX, stamp = (uint32_t)(w >> 36);
	uint64_t h = zt_hash_pair(p->pid, addr ^ (uint64_t)stamp << 48), t0;
	struct pyproc_code c;
	struct prof_pycode pc;
	size_t j;
	int err;

	if (zt_htab_reserve(&pr->chash, 1, code_hash, pr))
		return prof_py_ip(UINT32_MAX, lasti);
	for (j = zt_htab_first(&pr->chash, h); zt_htab_get(&pr->chash, j, &i);
	     j = zt_htab_next(&pr->chash, j))
		if (pr->codes[i].pid == p->pid && pr->codes[i].addr == addr &&
		    pr->codes[i].stamp == stamp)
			return prof_py_ip(pr->codes[i].idx, lasti);
	if (ZT_GROW(pr->codes, pr->cap_codes, pr->nr_codes + 1))
		return prof_py_ip(UINT32_MAX, lasti);
	t0 = now_ns();
	memset(&pc, 0, sizeof(pc));
	memset(&c, 0, sizeof(c));
	err = pr->bytes > CODE_BYTES_MAX ? -E2BIG : pyproc_code(&p->pp, addr, &c);
	if (!err && (c.stamp & ZT_PY_STAMP_MASK) != stamp) {
		pyproc_code_release(&c); /* another code object there now */
		err = -ESTALE;
	}
	if (!err)
		pr->bytes += c.linetable_len + strlen(c.qualname) + strlen(c.filename);
	if (err == -E2BIG && !pr->over) {
		pr->over = 1;
		zt_warn("more than %u MiB of Python code objects read: the frames of new ones "
			"are left unnamed ([python+0x...])", (unsigned)(CODE_BYTES_MAX >> 20));
	}
	pc.ts = ts;
	pc.addr = addr;
	pc.pid = p->pid;
	pc.minor = (uint16_t)p->pp.minor;
	if (err) {
		pc.flags = PROF_PYCODE_UNREAD;
		pr->st.unread++;
	} else {
		pc.firstlineno = c.firstlineno;
		pc.qualname = c.qualname;
		pc.filename = c.filename;
		pc.linetable = c.linetable;
		pc.linetable_len = (uint32_t)c.linetable_len;
	}
	pr->st.codes++;
	if (pr->ops.add_code(pr->ops.ctx, &pc, &idx))
		idx = UINT32_MAX;
	if (!err)
		pyproc_code_release(&c);
	pr->st.read_ns += now_ns() - t0;
	pr->codes[pr->nr_codes] = (struct pycache){p->pid, idx, addr, stamp};
	zt_htab_set(&pr->chash, j, (uint32_t)pr->nr_codes++);
	return prof_py_ip(idx, lasti);
}

const uint64_t *pyrec_splice(struct pyrec *pr, uint32_t pid, uint64_t ts, const uint64_t *ips,
			     unsigned nk, unsigned nu, const uint64_t *py, unsigned npy,
			     uint64_t *out, size_t cap, unsigned *nu_out)
{
	struct pyp *p = npy && pr->phash.nr ? proc_get(pr, pid, false) : NULL;
	unsigned i, k = 0;
	size_t o;

	*nu_out = nu;
	if (!p || (p->state != P_READY && p->state != P_ENDED) || (size_t)nk + nu + npy > cap)
		return ips;
	memcpy(out, ips, nk * sizeof(*ips));
	o = nk;
	for (i = nk; i < nk + nu; i++) {
		if (k < npy && in_eval(&p->pp, ips[i])) {
			/* the run of the loop this frame is: its Python frames, up
			 * to the one that began it */
			bool entry;

			do {
				entry = py[2 * k + 1] >> 32 & ZT_PY_ENTRY;
				out[o++] = code_ip(pr, p, ts, py[2 * k], py[2 * k + 1]);
				k++;
			} while (k < npy && !entry);
		}
		out[o++] = ips[i];
	}
	pr->st.unspliced += npy - k;
	for (; k < npy; k++) /* the native walk ended early: the rest below it */
		out[o++] = code_ip(pr, p, ts, py[2 * k], py[2 * k + 1]);
	pr->st.frames += npy;
	*nu_out = (unsigned)(o - nk);
	return out;
}

void pyrec_new_file(struct pyrec *pr)
{
	pr->nr_codes = 0;
	zt_htab_clear(&pr->chash);
}

void pyrec_get_stats(const struct pyrec *pr, struct pyrec_stats *st)
{
	*st = pr->st;
}
