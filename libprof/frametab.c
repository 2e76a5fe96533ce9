// SPDX-License-Identifier: GPL-2.0-or-later
/* The frame table: each unique sampled address resolved once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/frametab.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/text.h"

/* An address in an address space (a process at one set of mappings; the
 * kernel; a binary by build id, at file offsets; the Python frames of
 * every process), resolved once: its frames[first .. first+n), packed as
 * fn = first << 6 | n, n >= 1, and its mapping in that space (NULL in a
 * binary's space and Python's). The table is probed for every frame of
 * every stack: kept small. */
struct ft_memo {
	uint64_t addr;
	uint32_t space, fn;
	const struct prof_mmap *map;
};
#define FN_BITS 6
#define FN_MAX_N ((1u << FN_BITS) - 1)
#define FN_MAX_FIRST (UINT32_MAX >> FN_BITS)

/* An address space's key (its id: its index + 1). */
struct ft_space {
	uint64_t epoch;
	uint32_t pid;
};

#define SPACE_KERNEL UINT32_MAX      /* the pid of the kernel's space */
#define SPACE_FILE (UINT32_MAX - 1) /* the pid of a binary's space (epoch: its build id) */
/* the pid of the Python frames' space (prof_is_py()): a code object's
 * index names the same code object in every process, in no mapping */
#define SPACE_PY (UINT32_MAX - 2)

void frametab_init(struct frametab *ft, const struct proctree *pt, const struct frametab_source *src)
{
	memset(ft, 0, sizeof(*ft));
	ft->pt = pt;
	ft->src = *src;
}

void frametab_release(struct frametab *ft)
{
	free(ft->frames);
	free(ft->memo);
	zt_htab_release(&ft->mhash);
	free(ft->spaces);
	zt_htab_release(&ft->shash);
	memset(ft, 0, sizeof(*ft));
}

void frametab_reset(struct frametab *ft, const struct proctree *pt)
{
	ft->pt = pt;
	ft->nr_frames = ft->nr_addrs = 0;
	ft->nr_memo = ft->nr_spaces = 0;
	zt_htab_clear(&ft->mhash);
	zt_htab_clear(&ft->shash);
}

void frametab_seal(struct frametab *ft)
{
	struct zt_frame *f;

	free(ft->memo);
	free(ft->spaces);
	ft->memo = NULL;
	ft->spaces = NULL;
	ft->nr_memo = ft->cap_memo = ft->nr_spaces = ft->cap_spaces = 0;
	zt_htab_release(&ft->mhash);
	zt_htab_release(&ft->shash);
	if (ft->nr_frames && ft->nr_frames < ft->cap_frames &&
	    (f = realloc(ft->frames, ft->nr_frames * sizeof(*f)))) {
		ft->frames = f;
		ft->cap_frames = ft->nr_frames;
	}
}

int frametab_push(struct frametab *ft, const struct zt_frame *f)
{
	if (ZT_GROW(ft->frames, ft->cap_frames, ft->nr_frames + 1))
		return -ENOMEM;
	ft->frames[ft->nr_frames++] = *f;
	return 0;
}

static inline uint64_t space_hash_at(const void *ctx, uint32_t i)
{
	const struct ft_space *s = &((const struct frametab *)ctx)->spaces[i];

	return zt_hash_pair(s->epoch, s->pid);
}

/* The id of (epoch, pid), made when new. 0 or -ENOMEM. */
static int space_of(struct frametab *ft, uint64_t epoch, uint32_t pid, uint32_t *id)
{
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&ft->shash, 1, space_hash_at, ft))
		return -ENOMEM;
	for (j = zt_htab_first(&ft->shash, zt_hash_pair(epoch, pid));
	     zt_htab_get(&ft->shash, j, &i); j = zt_htab_next(&ft->shash, j)) {
		if (ft->spaces[i].epoch == epoch && ft->spaces[i].pid == pid) {
			*id = i + 1;
			return 0;
		}
	}
	if (ZT_GROW(ft->spaces, ft->cap_spaces, ft->nr_spaces + 1))
		return -ENOMEM;
	ft->spaces[ft->nr_spaces] = (struct ft_space){ epoch, pid };
	zt_htab_set(&ft->shash, j, (uint32_t)ft->nr_spaces++);
	*id = (uint32_t)ft->nr_spaces;
	return 0;
}

static inline uint64_t memo_hash_at(const void *ctx, uint32_t i)
{
	const struct ft_memo *a = &((const struct frametab *)ctx)->memo[i];

	return zt_hash_pair(a->addr, a->space);
}

static int resolve_new(struct frametab *ft, uint32_t pid, uint64_t ts, uint64_t addr, int kernel,
		       uint32_t *fn);

void frametab_transient(struct frametab *ft)
{
	ft->transient = 1;
}

/* A transient table's resolve: every address through the source, the
 * frames from the start of the table. */
static int resolve_transient(struct frametab *ft, uint32_t pid, uint64_t ts, const uint64_t *ips,
			     unsigned nk, unsigned n, struct zt_frange *out)
{
	unsigned i;
	uint32_t fn;
	int ret;

	ft->nr_frames = 0;
	for (i = 0; i < n; i++) {
		ret = resolve_new(ft, pid, ts, ips[i], i < nk, &fn);
		if (ret)
			return ret;
		out[i].first = fn >> FN_BITS;
		out[i].n = fn & FN_MAX_N;
		/* as frametab_resolve() maps them: the source's mapping (the
		 * resolver's is the tree's), else the tree's */
		out[i].map = ft->frames[out[i].first + out[i].n - 1].map;
		if (!out[i].map && i >= nk)
			out[i].map = proctree_map(ft->pt, pid, ts, ips[i]);
	}
	return 0;
}

int frametab_reserve(struct frametab *ft, size_t n)
{
	size_t cap = 4096;

	while (cap < 4 * n && cap < (1u << 24))
		cap *= 2;
	/* slots for cap / 2 entries: a load of at most 1/4 for n */
	if (cap / 2 <= ft->nr_memo)
		return 0;
	return zt_htab_reserve(&ft->mhash, cap / 2 - ft->nr_memo, memo_hash_at, ft);
}

/* The entry of (addr, space); NULL with *slot the empty slot where it goes. */
static inline struct ft_memo *memo_find(struct frametab *ft, uint64_t addr, uint32_t space,
					size_t *slot)
{
	size_t j;
	uint32_t i;

	for (j = zt_htab_first(&ft->mhash, zt_hash_pair(addr, space));
	     zt_htab_get(&ft->mhash, j, &i); j = zt_htab_next(&ft->mhash, j)) {
		if (ft->memo[i].addr == addr && ft->memo[i].space == space)
			return &ft->memo[i];
	}
	*slot = j;
	return NULL;
}

/* Room for two more entries. 0 or -ENOMEM. */
static inline int memo_room(struct frametab *ft)
{
	if (ft->nr_memo + 2 >= UINT32_MAX || zt_htab_reserve(&ft->mhash, 2, memo_hash_at, ft))
		return -ENOMEM;
	/* checked here: zt_grow() is a call (per frame) */
	if (ft->nr_memo + 2 > ft->cap_memo && ZT_GROW(ft->memo, ft->cap_memo, ft->nr_memo + 2))
		return -ENOMEM;
	return 0;
}

/* Add an entry in slot j (after memo_find; room made for it). */
static inline struct ft_memo *memo_add(struct frametab *ft, size_t j, const struct ft_memo *a)
{
	ft->memo[ft->nr_memo] = *a;
	zt_htab_set(&ft->mhash, j, (uint32_t)ft->nr_memo);
	return &ft->memo[ft->nr_memo++];
}

/* Resolve addr through the source: its packed frames in *fn. */
static int resolve_new(struct frametab *ft, uint32_t pid, uint64_t ts, uint64_t addr, int kernel,
		       uint32_t *fn)
{
	size_t first = ft->nr_frames, n;
	int ret;

	if (first > FN_MAX_FIRST)
		return -E2BIG;
	ret = ft->src.resolve(ft->src.ctx, ft, pid, ts, addr, kernel);
	if (ret)
		return ret;
	n = ft->nr_frames - first;
	if (!n || n > FN_MAX_N)
		return -EINVAL; /* a source gives 1 .. FI_MAX_INLINE + 1 frames */
	ft->nr_addrs++;
	*fn = (uint32_t)first << FN_BITS | (uint32_t)n;
	return 0;
}

int frametab_resolve(struct frametab *ft, uint32_t pid, uint64_t ts, uint64_t epoch,
		     const uint64_t *ips, unsigned nk, unsigned n, struct zt_frange *out)
{
	uint32_t uspace = 0, kspace = 0, pyspace = 0;
	unsigned i;
	int ret;

	if (ft->transient)
		return resolve_transient(ft, pid, ts, ips, nk, n, out);
	if ((nk && (ret = space_of(ft, 0, SPACE_KERNEL, &kspace))) ||
	    (n > nk && (ret = space_of(ft, epoch, pid, &uspace))))
		return ret;
	for (i = 0; i < n; i++) {
		int kernel = i < nk, py = !kernel && prof_is_py(ips[i]);
		uint32_t space = kernel ? kspace : uspace;
		const struct ft_memo *a;
		size_t ja;

		if (py) {
			if (!pyspace && (ret = space_of(ft, 0, SPACE_PY, &pyspace)))
				return ret;
			space = pyspace;
		}
		if (memo_room(ft))
			return -ENOMEM;
		a = memo_find(ft, ips[i], space, &ja);
		if (!a) {
			const struct prof_mmap *mm =
				kernel || py ? NULL : proctree_map(ft->pt, pid, ts, ips[i]);
			uint64_t off = 0;
			uint32_t bspace = 0, fn;
			const struct ft_memo *b;
			size_t jb = 0;

			/* a binary's offset resolves alike in every process that maps it */
			if (mm && mm->build_id.len && !ft->src.per_process) {
				off = prof_mmap_offset(mm, ips[i]);
				ret = space_of(ft, zt_hash_bytes(mm->build_id.data, mm->build_id.len),
					       SPACE_FILE, &bspace);
				if (ret)
					return ret;
				b = memo_find(ft, off, bspace, &jb);
				if (b) {
					a = memo_add(ft, ja,
						     &(struct ft_memo){ ips[i], space, b->fn, mm });
					goto found;
				}
			}
			size_t nr_memo = ft->nr_memo, cap = ft->mhash.cap;

			ret = resolve_new(ft, pid, ts, ips[i], kernel, &fn);
			if (ret)
				return ret;
			if (kernel) /* the kernel's mapping (module), as the source found it */
				mm = ft->frames[(fn >> FN_BITS) + (fn & FN_MAX_N) - 1].map;
			/* the slots again only if the source touched the table (a
			 * reentrant one): else ja and jb are where the two go */
			if (ft->nr_memo != nr_memo || ft->mhash.cap != cap) {
				if (memo_room(ft))
					return -ENOMEM;
				a = memo_find(ft, ips[i], space, &ja);
				if (bspace && memo_find(ft, off, bspace, &jb))
					bspace = 0;
			}
			if (!a)
				a = memo_add(ft, ja, &(struct ft_memo){ ips[i], space, fn, mm });
			/* b's slot was found before a went in: a may have taken it */
			if (bspace && (!ft->mhash.slots[jb] || !memo_find(ft, off, bspace, &jb)))
				memo_add(ft, jb, &(struct ft_memo){ off, bspace, fn, NULL });
		}
found:
		out[i].first = a->fn >> FN_BITS;
		out[i].n = a->fn & FN_MAX_N;
		out[i].map = a->map;
	}
	return 0;
}

int frametab_time_sensitive(struct frametab *ft, uint32_t pid)
{
	return ft->src.time_sensitive && ft->src.time_sensitive(ft->src.ctx, pid);
}

uint64_t frametab_epoch(struct frametab *ft, uint32_t pid, uint64_t ts, uint64_t epoch)
{
	return frametab_time_sensitive(ft, pid) ? zt_hash_mix(epoch, ts) : epoch;
}

char *zt_frame_name(const struct zt_frame *f, char *buf, size_t n)
{
	const char *mod = f->module ? f->module : "[unknown]";
	size_t ml = strlen(mod);

	if (!n)
		return buf;
	if (f->sym)
		zt_str_copy(buf, n, f->sym);
	else if (!f->kernel && !f->map && !strcmp(mod, "[unknown]"))
		snprintf(buf, n, "[unknown]");
	else if (ml >= 2 && mod[0] == '[' && mod[ml - 1] == ']')
		snprintf(buf, n, "[%.*s+0x%llx]", (int)(ml - 2), mod + 1,
			 (unsigned long long)f->offset);
	else
		snprintf(buf, n, "[%s+0x%llx]", mod, (unsigned long long)f->offset);
	return buf;
}

char *zt_frame_srcline(const struct zt_frame *f, char *buf, size_t n)
{
	const char *base;

	if (f->sfile) {
		base = strrchr(f->sfile, '/');
		snprintf(buf, n, "%s:%u", base ? base + 1 : f->sfile, f->sline);
	} else if (f->kernel && f->sym && f->quality != ZT_FRAME_NONE) {
		/* perf's get_srcline() without line information: the function
		 * and the decimal offset into it */
		snprintf(buf, n, "%s+%llu", f->sym, (unsigned long long)f->offset);
	} else {
		snprintf(buf, n, "??:0");
	}
	return buf;
}
