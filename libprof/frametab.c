// SPDX-License-Identifier: GPL-2.0-or-later
/* The frame table: each unique sampled address resolved once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/frametab.h"
#include "libprof/hash.h"

/* An address in an address space (a process at one set of mappings; the
 * kernel; a binary by build id, at file offsets), resolved once: its
 * frames[first .. first+n), packed as fn = first << 6 | n, n >= 1 (0: an
 * empty slot), and its mapping in that space (NULL in a binary's space).
 * The table is probed for every frame of every stack: kept small. */
struct ft_memo {
	uint64_t addr;
	uint32_t space, fn;
	const struct prof_mmap *map;
};
#define FN_BITS 6
#define FN_MAX_N ((1u << FN_BITS) - 1)
#define FN_MAX_FIRST (UINT32_MAX >> FN_BITS)

/* An address space's key and its id (0: an empty slot). */
struct ft_space {
	uint64_t epoch;
	uint32_t pid, id;
};

#define SPACE_KERNEL UINT32_MAX      /* the pid of the kernel's space */
#define SPACE_FILE (UINT32_MAX - 1) /* the pid of a binary's space (epoch: its build id) */

void frametab_init(struct frametab *ft, const struct proctree *pt, const struct frametab_source *src)
{
	memset(ft, 0, sizeof(*ft));
	ft->pt = pt;
	ft->src = *src;
}

void frametab_release(struct frametab *ft)
{
	free(ft->frames);
	free(ft->mtab);
	free(ft->stab);
	memset(ft, 0, sizeof(*ft));
}

void frametab_reset(struct frametab *ft, const struct proctree *pt)
{
	ft->pt = pt;
	ft->nr_frames = ft->nr_addrs = 0;
	ft->nr_memo = ft->nr_spaces = 0;
	if (ft->mtab)
		memset(ft->mtab, 0, ft->mcap * sizeof(*ft->mtab));
	if (ft->stab)
		memset(ft->stab, 0, ft->scap * sizeof(*ft->stab));
}

int frametab_push(struct frametab *ft, const struct zt_frame *f)
{
	if (ZT_GROW(ft->frames, ft->cap_frames, ft->nr_frames + 1))
		return -ENOMEM;
	ft->frames[ft->nr_frames++] = *f;
	return 0;
}

/* The id of (epoch, pid), made when new. 0 or -ENOMEM. */
static int space_of(struct frametab *ft, uint64_t epoch, uint32_t pid, uint32_t *id)
{
	size_t j;

	if ((ft->nr_spaces + 1) * 2 > ft->scap) {
		size_t ncap = ft->scap ? ft->scap * 2 : 256, q;
		struct ft_space *t = calloc(ncap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (q = 0; q < ft->scap; q++) {
			if (!ft->stab[q].id)
				continue;
			for (j = zt_hash_pair(ft->stab[q].epoch, ft->stab[q].pid) & (ncap - 1); t[j].id;
			     j = (j + 1) & (ncap - 1))
				;
			t[j] = ft->stab[q];
		}
		free(ft->stab);
		ft->stab = t;
		ft->scap = ncap;
	}
	for (j = zt_hash_pair(epoch, pid) & (ft->scap - 1); ft->stab[j].id; j = (j + 1) & (ft->scap - 1)) {
		if (ft->stab[j].epoch == epoch && ft->stab[j].pid == pid) {
			*id = ft->stab[j].id;
			return 0;
		}
	}
	ft->stab[j] = (struct ft_space){ epoch, pid, (uint32_t)++ft->nr_spaces };
	*id = ft->stab[j].id;
	return 0;
}

static int memo_grow(struct frametab *ft, size_t ncap)
{
	struct ft_memo *t = calloc(ncap, sizeof(*t));
	size_t q, j;

	if (!t)
		return -ENOMEM;
	for (q = 0; ft->mtab && q < ft->mcap; q++) {
		const struct ft_memo *a = &ft->mtab[q];

		if (!a->fn)
			continue;
		j = zt_hash_pair(a->addr, a->space) & (ncap - 1);
		while (t[j].fn)
			j = (j + 1) & (ncap - 1);
		t[j] = *a;
	}
	free(ft->mtab);
	ft->mtab = t;
	ft->mcap = ncap;
	return 0;
}

int frametab_reserve(struct frametab *ft, size_t n)
{
	size_t cap = 4096;

	while (cap < 4 * n && cap < (1u << 24))
		cap *= 2;
	return cap > ft->mcap ? memo_grow(ft, cap) : 0;
}

/* The entry of (addr, space), or the empty slot where it goes. */
static struct ft_memo *memo_slot(struct frametab *ft, uint64_t addr, uint32_t space)
{
	size_t j = zt_hash_pair(addr, space) & (ft->mcap - 1);
	struct ft_memo *a;

	for (a = &ft->mtab[j]; a->fn; a = &ft->mtab[j]) {
		if (a->addr == addr && a->space == space)
			break;
		j = (j + 1) & (ft->mcap - 1);
	}
	return a;
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
	uint32_t uspace = 0, kspace = 0;
	unsigned i;
	int ret;

	if ((nk && (ret = space_of(ft, 0, SPACE_KERNEL, &kspace))) ||
	    (n > nk && (ret = space_of(ft, epoch, pid, &uspace))))
		return ret;
	for (i = 0; i < n; i++) {
		int kernel = i < nk;
		uint32_t space = kernel ? kspace : uspace;
		struct ft_memo *a;

		if ((ft->nr_memo + 2) * 2 > ft->mcap && memo_grow(ft, ft->mcap ? ft->mcap * 2 : 4096))
			return -ENOMEM; /* room for two entries */
		a = memo_slot(ft, ips[i], space);
		if (!a->fn) {
			const struct prof_mmap *mm = kernel ? NULL : proctree_map(ft->pt, pid, ts, ips[i]);
			uint64_t off = 0;
			uint32_t bspace = 0, fn;
			struct ft_memo *b = NULL;

			/* a binary's offset resolves alike in every process that maps it */
			if (mm && mm->build_id.len) {
				off = ips[i] - mm->start + mm->pgoff;
				ret = space_of(ft, zt_hash_bytes(mm->build_id.data, mm->build_id.len),
					       SPACE_FILE, &bspace);
				if (ret)
					return ret;
				b = memo_slot(ft, off, bspace);
				if (b->fn) {
					*a = (struct ft_memo){ ips[i], space, b->fn, mm };
					ft->nr_memo++;
					goto found;
				}
			}
			ret = resolve_new(ft, pid, ts, ips[i], kernel, &fn);
			if (ret)
				return ret;
			/* its slot again: the source may not have touched the
			 * table, but be safe against a reentrant one */
			if (kernel) /* the kernel's mapping (module), as the source found it */
				mm = ft->frames[(fn >> FN_BITS) + (fn & FN_MAX_N) - 1].map;
			a = memo_slot(ft, ips[i], space);
			*a = (struct ft_memo){ ips[i], space, fn, mm };
			ft->nr_memo++;
			if (b) {
				/* its slot again: a may have taken the one found before */
				b = memo_slot(ft, off, bspace);
				*b = (struct ft_memo){ off, bspace, fn, NULL };
				ft->nr_memo++;
			}
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

char *zt_frame_name(const struct zt_frame *f, char *buf, size_t n)
{
	const char *mod = f->module ? f->module : "[unknown]";
	size_t ml = strlen(mod);

	if (!n)
		return buf;
	if (f->sym)
		snprintf(buf, n, "%s", f->sym);
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
	} else {
		snprintf(buf, n, "??:0");
	}
	return buf;
}
