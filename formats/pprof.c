/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof export: samples grouped, resolved and interned into pprof's tables,
 * packed by protobuf-c's generated code, then gzip'ed (see pprof.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "formats/pprof.h"
#include "formats/profile.pb-c.h"
#include "formats/stackgroups.h"
#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/strtab.h"
#include "libprof/text.h"
#include "libprof/frametab.h"
#include "libprof/gpu.h"

/*
 * An interning table of byte keys: each distinct key gets the next id
 * (0, 1, ...). Keys are kept back to back in one pool, each at an offset
 * aligned to 8 so that keys made of uint64_t can be used in place (the
 * string table is a zt_strtab).
 */
struct ptab {
	uint8_t *pool;
	size_t len, cap;
	struct pent {
		size_t off;
		size_t len;
		uint64_t hash;
	} *ents;
	size_t n, cap_ents;
	struct zt_htab idx; /* ents by key */
};

static void ptab_release(struct ptab *t)
{
	free(t->pool);
	free(t->ents);
	zt_htab_release(&t->idx);
}

static uint64_t hash_bytes(const void *key, size_t len)
{
	const uint8_t *b = key;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return zt_hash_mix(h, len);
}

static inline uint64_t ent_hash_at(const void *t, uint32_t i)
{
	return ((const struct ptab *)t)->ents[i].hash;
}

static const void *ptab_key(const struct ptab *t, size_t id)
{
	return t->pool + t->ents[id].off;
}

/* The id of key, added when new (*added set then, when added is not NULL). */
static int ptab_intern(struct ptab *t, const void *key, size_t len, uint32_t *id, int *added)
{
	uint64_t h = hash_bytes(key, len);
	size_t j, off;
	uint32_t i;

	if (added)
		*added = 0;
	if (zt_htab_reserve(&t->idx, 1, ent_hash_at, t))
		return -ENOMEM;
	for (j = zt_htab_first(&t->idx, h); zt_htab_get(&t->idx, j, &i);
	     j = zt_htab_next(&t->idx, j)) {
		const struct pent *e = &t->ents[i];

		if (e->hash == h && e->len == len && !memcmp(t->pool + e->off, key, len)) {
			*id = i;
			return 0;
		}
	}
	if (t->n >= UINT32_MAX - 1)
		return -E2BIG;
	off = (t->len + 7) & ~(size_t)7;
	if (len > SIZE_MAX - 8 - off)
		return -ENOMEM;
	if (ZT_GROW(t->pool, t->cap, off + len + 1) || ZT_GROW(t->ents, t->cap_ents, t->n + 1))
		return -ENOMEM;
	memcpy(t->pool + off, key, len);
	t->len = off + len;
	t->ents[t->n] = (struct pent){ off, len, h };
	zt_htab_set(&t->idx, j, (uint32_t)t->n);
	*id = (uint32_t)t->n++;
	if (added)
		*added = 1;
	return 0;
}

/* What a mapping gathers while frames are added. */
struct pmap_info {
	uint64_t lo, hi;
	uint8_t quality; /* best ZT_FRAME_* quality of its frames */
	uint8_t span;    /* lo/hi grow with the addresses seen */
};

struct pprof {
	const struct profile *p;
	const struct proctree *pt;
	struct frametab *ft;
	struct rstacks rs;     /* p, pt and ft as handed in */
	struct stackgroups sg; /* samples that resolve alike */
	int64_t *gcomm;	       /* per group: its thread name's string id */
	size_t cap_gcomm;
	struct zt_strtab strs; /* string_table: [0] is "" */
	struct ptab funcs, maps, locs, samples;
	struct pmap_info *mi;
	size_t cap_mi;
	int64_t *sv; /* per sample: its nv values (count, weight per event[, GPU samples,
			GPU ns]) */
	size_t cap_sv;
	unsigned nv;
	unsigned nev;	/* events: the values 2e and 2e + 1 are event e's */
	unsigned gv;	/* the GPU values' index: 2 * nev */
	uint64_t *gacc; /* per group and event: its samples and their weight (nev > 1) */
	size_t cap_gacc;
	const struct pprof_gpu *gpu; /* NULL: no GPU side */
	uint64_t *gkey;		     /* a GPU sample's key being built */
	size_t cap_gkey;
	char *scratch;
	size_t cap_scratch;
	uint64_t key[2 * ZT_MAX_FRAMES + 5]; /* the sample key being built */
	uint64_t lockey[2 * 64 + 3]; /* at most 63 frames an address (frametab) */
	const struct prof_blob *kbid; /* the kernel's build id, looked up once */
	int kbid_done;
};

/* Intern s with invalid UTF-8 and control characters replaced by '?'. */
static int str_id(struct pprof *pp, const char *s, int64_t *id)
{
	size_t n = strlen(s), i = 0, o = 0;
	const unsigned char *u = (const unsigned char *)s;
	uint32_t v = 0;
	int ret;

	if (n >= SIZE_MAX / 2 || ZT_GROW(pp->scratch, pp->cap_scratch, n + 1))
		return -ENOMEM;
	while (i < n) {
		unsigned c = u[i], len;
		uint32_t cp;

		if (c >= 0x20 && c < 0x7f) {
			pp->scratch[o++] = (char)c;
			i++;
		} else if (c >= 0x80 && (len = zt_utf8_seq(u + i, n - i, &cp)) &&
			   !(cp >= 0x80 && cp < 0xa0)) { /* not C1 controls */
			memcpy(pp->scratch + o, s + i, len);
			o += len;
			i += len;
		} else {
			pp->scratch[o++] = '?';
			i++;
		}
	}
	pp->scratch[o] = '\0';
	ret = zt_strtab_intern(&pp->strs, pp->scratch, o, &v);
	*id = v;
	return ret;
}

static void build_id_hex(const struct prof_build_id *b, char *out)
{
	if (b->len)
		prof_build_id_hex(b, out);
	else
		out[0] = '\0';
}

/* The mapping id (1-based; 0: none) of a resolved frame at addr, in mapping m. */
static int map_id(struct pprof *pp, const struct zt_frame *f, const struct prof_mmap *m,
		  uint64_t addr, uint64_t *id)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1];
	int64_t name, bid;
	uint64_t k[6];
	uint32_t v;
	int ret, added, span;

	*id = 0;
	if (!f->kernel && m) {
		/* a mapping of the process: as it was mapped */
		build_id_hex(&m->build_id, hex);
		if ((ret = str_id(pp, m->path, &name)) || (ret = str_id(pp, hex, &bid)))
			return ret;
		k[0] = 1, k[1] = m->start, k[2] = m->start + m->len, k[3] = m->pgoff;
		k[4] = (uint64_t)name, k[5] = (uint64_t)bid;
		span = 0;
	} else if (f->kernel || f->sym || (f->module && strcmp(f->module, "[unknown]"))) {
		/* the kernel, a module, JIT code outside any mapping: by name */
		const char *mod = f->module ? f->module : "[unknown]";

		hex[0] = '\0';
		if (m)
			build_id_hex(&m->build_id, hex);
		if (!hex[0] && f->kernel && !strcmp(mod, "[kernel.kallsyms]")) {
			const struct prof_blob *b;
			struct prof_build_id kb = { 0 };

			/* once: a pass over the profile's snapshots per frame would be
			 * quadratic in a file with many of them */
			if (!pp->kbid_done) {
				pp->kbid = profile_find_blob(pp->p, PROF_BLOB_KERNEL_BUILD_ID, UINT32_MAX);
				pp->kbid_done = 1;
			}
			b = pp->kbid;

			if (b && b->len && b->len <= ZT_BUILD_ID_MAX) {
				kb.len = (uint8_t)b->len;
				memcpy(kb.data, b->data, b->len);
				build_id_hex(&kb, hex);
			}
		}
		if ((ret = str_id(pp, mod, &name)) || (ret = str_id(pp, hex, &bid)))
			return ret;
		k[0] = 2, k[1] = 0, k[2] = 0, k[3] = 0, k[4] = (uint64_t)name, k[5] = (uint64_t)bid;
		span = 1;
	} else {
		return 0;
	}
	ret = ptab_intern(&pp->maps, k, sizeof(k), &v, &added);
	if (ret)
		return ret;
	if (added) {
		if (ZT_GROW(pp->mi, pp->cap_mi, (size_t)v + 1))
			return -ENOMEM;
		pp->mi[v] = (struct pmap_info){ span ? UINT64_MAX : m->start,
						span ? 0 : m->start + m->len, 0, (uint8_t)span };
	}
	if (pp->mi[v].span) {
		uint64_t lo = m ? m->start : addr, hi = m ? m->start + m->len : addr + 1;

		if (addr < lo || addr >= hi)
			lo = hi = addr, hi++;
		if (lo < pp->mi[v].lo)
			pp->mi[v].lo = lo;
		if (hi > pp->mi[v].hi)
			pp->mi[v].hi = hi;
	}
	if (f->quality > pp->mi[v].quality)
		pp->mi[v].quality = (uint8_t)f->quality;
	*id = (uint64_t)v + 1;
	return 0;
}

static int func_id(struct pprof *pp, const char *name, const char *dir, const char *file,
		   uint64_t *id)
{
	int64_t k[2];
	uint32_t v = 0;
	int ret;

	ret = str_id(pp, name, &k[0]);
	if (ret)
		return ret;
	{
		size_t n = zt_src_path(NULL, 0, dir, file) + 1;
		char *path = malloc(n);

		if (!path)
			return -ENOMEM;
		zt_src_path(path, n, dir, file);
		ret = str_id(pp, path, &k[1]);
		free(path);
	}
	if (!ret)
		ret = ptab_intern(&pp->funcs, k, sizeof(k), &v, NULL);
	*id = (uint64_t)v + 1;
	return ret;
}

/* The location id (1-based) of addr, whose frames are r. Key: mapping id,
 * address, number of lines, then (function id, line) per line, innermost
 * first (the last one the function). */
static int loc_id(struct pprof *pp, uint64_t addr, const struct zt_frange *r, uint64_t *id)
{
	const struct zt_frame *f = frametab_frame(pp->ft, r->first + r->n - 1);
	uint64_t *k = pp->lockey, mid;
	char name[1024];
	unsigned i, n = r->n;
	uint32_t v = 0;
	int ret;

	ret = map_id(pp, f, r->map, addr, &mid);
	for (i = 0; i < n && !ret; i++) {
		const struct zt_frame *l = frametab_frame(pp->ft, r->first + i);

		ret = func_id(pp, l->sym ? l->sym : zt_frame_name(l, name, sizeof(name)), l->dir,
			      l->file, &k[3 + 2 * i]);
		k[4 + 2 * i] = l->line;
	}
	if (ret)
		return ret;
	k[0] = mid, k[1] = addr, k[2] = n;
	ret = ptab_intern(&pp->locs, k, (3 + 2 * (size_t)n) * sizeof(*k), &v, NULL);
	*id = (uint64_t)v + 1;
	return ret;
}

/* Samples into groups: stack, pid, tid, thread name, epoch. */
static int group_samples(struct pprof *pp)
{
	const struct profile *p = pp->p;
	size_t i;
	int ret;

	for (i = 0; i < p->nr_samples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const char *c = proctree_comm(pp->pt, s->pid, s->tid, s->ts);
		char buf[32];
		uint32_t g;
		int added;

		ret = stackgroups_add(&pp->sg, s, c, s->tid, &g, &added);
		if (ret)
			return ret;
		if (pp->nev > 1) {
			/* a group has samples of several events: each one's apart */
			size_t at = 2 * ((size_t)g * pp->nev + (s->event < pp->nev ? s->event : 0));

			if (added) {
				size_t n = 2 * pp->sg.nr * pp->nev, old = pp->cap_gacc;

				if (ZT_GROW(pp->gacc, pp->cap_gacc, n))
					return -ENOMEM;
				memset(pp->gacc + old, 0, (pp->cap_gacc - old) * sizeof(*pp->gacc));
			}
			pp->gacc[at]++;
			pp->gacc[at + 1] += s->weight;
		}
		if (!added)
			continue;
		/* a name first seen starts a group: its string id in sample order */
		if (ZT_GROW(pp->gcomm, pp->cap_gcomm, pp->sg.nr))
			return -ENOMEM;
		ret = str_id(pp, prof_comm_or_pid(c, s->pid, buf, sizeof(buf)), &pp->gcomm[g]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The sample of key k (with n locations), its values zeroed when new. */
static int sample_add(struct pprof *pp, const uint64_t *k, size_t n, uint32_t *s)
{
	int added, ret;
	unsigned j;

	ret = ptab_intern(&pp->samples, k, (5 + n) * sizeof(*k), s, &added);
	if (ret || !added)
		return ret;
	if (ZT_GROW(pp->sv, pp->cap_sv, pp->nv * ((size_t)*s + 1)))
		return -ENOMEM;
	for (j = 0; j < pp->nv; j++)
		pp->sv[pp->nv * *s + j] = 0;
	return 0;
}

/* Resolve each group's frames; groups that end up alike share a sample.
 * Sample key: pid, tid, thread name id, stall reason's string id (0: none),
 * number of locations, location ids. */
static int resolve_groups(struct pprof *pp)
{
	size_t g;
	int ret;

	for (g = 0; g < pp->sg.nr; g++) {
		const struct stackgroup *gr = &pp->sg.groups[g];
		const struct zt_frange *r;
		const uint64_t *ips;
		unsigned i, n;
		uint64_t *k = pp->key;
		uint32_t s;

		ret = stackgroups_resolve(&pp->sg, (uint32_t)g, 2 * ZT_MAX_FRAMES, &ips, &r, &n);
		if (ret)
			return ret;
		k[0] = gr->pid, k[1] = gr->tid, k[2] = (uint64_t)pp->gcomm[g], k[3] = 0, k[4] = n;
		for (i = 0; i < n; i++) {
			ret = loc_id(pp, ips[i], &r[i], &k[5 + i]);
			if (ret)
				return ret;
		}
		ret = sample_add(pp, k, n, &s);
		if (ret)
			return ret;
		if (pp->nev == 1) {
			pp->sv[pp->nv * s] += (int64_t)gr->nr;
			pp->sv[pp->nv * s + 1] += (int64_t)gr->weight;
			continue;
		}
		for (i = 0; i < 2 * pp->nev; i++)
			pp->sv[pp->nv * s + i] += (int64_t)pp->gacc[2 * g * pp->nev + i];
	}
	return 0;
}

/* The CPU samples (of every event) that sample i holds. */
static uint64_t sample_nr(const struct pprof *pp, size_t i)
{
	uint64_t n = 0;
	unsigned e;

	for (e = 0; e < pp->nev; e++)
		n += (uint64_t)pp->sv[pp->nv * i + 2 * e];
	return n;
}

static uint64_t meta_u64(const struct profile *p, const char *key)
{
	const char *v = profile_get_meta(p, key);

	return v ? strtoull(v, NULL, 10) : 0;
}


static int gzip_write(int fd, const uint8_t *buf, size_t len)
{
	uint8_t out[65536];
	z_stream z = { 0 };
	int ret = 0, zr = Z_OK;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)buf;
	do {
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;

		z.avail_in = (uInt)chunk;
		len -= chunk;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
			if (zr == Z_STREAM_ERROR) {
				ret = -EIO;
				goto out;
			}
			ret = zt_write_all(fd, out, sizeof(out) - z.avail_out);
			if (ret)
				goto out;
		} while (z.avail_out == 0);
	} while (len);
	if (zr != Z_STREAM_END)
		ret = -EIO;
out:
	deflateEnd(&z);
	return ret;
}

/* Whether an event's weights are nanoseconds: cpu-clock, task-clock. */
static int clock_event(const char *ev)
{
	size_t n = ev ? strcspn(ev, ":/") : 0;

	return (n == 9 && !strncmp(ev, "cpu-clock", n)) ||
	       (n == 10 && !strncmp(ev, "task-clock", n));
}

/*
 * Event e's two sample types, t[0..1] its samples' (type, unit) and
 * t[2..3] its weights', and its period. One event: ("samples", "count")
 * and ("cpu", "nanoseconds") or (EVENT, "count"); several: each one's
 * ("EVENT_samples", "count") and (EVENT, "nanoseconds" or "count").
 */
static int event_types(struct pprof *pp, uint32_t e, int64_t t[4], int64_t *period)
{
	const struct profile *p = pp->p;
	const char *ev = profile_event_name(p, e);
	uint64_t per = meta_u64(p, "period"), freq = meta_u64(p, "freq"), sum = 0, n = 0;
	int clock = clock_event(ev), ret;
	char name[300];
	size_t i;

	if (pp->nev > 1 && e < p->nr_events) {
		per = p->events[e].flags & PROF_EV_FREQ ? 0 : p->events[e].period;
		freq = p->events[e].flags & PROF_EV_FREQ ? p->events[e].period : 0;
	}
	if (pp->nev > 1) {
		snprintf(name, sizeof(name), "%.280s_samples", ev && *ev ? ev : "events");
		ret = str_id(pp, name, &t[0]);
	} else {
		ret = str_id(pp, "samples", &t[0]);
	}
	if (!ret)
		ret = str_id(pp, "count", &t[1]);
	if (!ret)
		ret = str_id(pp, clock && pp->nev == 1 ? "cpu" : ev && *ev ? ev : "events", &t[2]);
	if (!ret)
		ret = str_id(pp, clock ? "nanoseconds" : "count", &t[3]);
	if (clock && !per && freq)
		per = 1000000000ull / freq;
	for (i = 0; !per && i < p->nr_samples; i++) {
		if (pp->nev > 1 && p->samples[i].event != e)
			continue;
		sum += p->samples[i].weight;
		n++;
	}
	if (!per && n)
		per = sum / n;
	*period = (int64_t)per;
	return ret;
}

/* Informational comments: what was recorded, where, what was lost. */
static int add_comments(struct pprof *pp, int64_t *c, size_t *n)
{
	const char *cmd = profile_get_meta(pp->p, "cmdline");
	const char *host = profile_get_meta(pp->p, "hostname");
	const char *rel = profile_get_meta(pp->p, "os_release");
	char buf[512];
	int ret = 0;

	*n = 0;
	if (cmd && *cmd)
		ret = str_id(pp, cmd, &c[(*n)++]);
	if (!ret && host && *host) {
		snprintf(buf, sizeof(buf), "host %s%s%s", host, rel ? ", Linux " : "", rel ? rel : "");
		ret = str_id(pp, buf, &c[(*n)++]);
	}
	if (!ret && pp->p->lost_samples) {
		snprintf(buf, sizeof(buf), "%llu samples lost",
			 (unsigned long long)pp->p->lost_samples);
		ret = str_id(pp, buf, &c[(*n)++]);
	}
	return ret;
}

/* Whether comm (a thread name, maybe cut to 15 characters) names path. */
static int comm_names(const char *comm, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(comm);

	base = base ? base + 1 : path;
	return n && !strncmp(base, comm, n) && (!base[n] || n == ZT_COMM_LEN - 1);
}

/*
 * The index of the main binary, which pprof wants as mapping[0]: the
 * process mapping most sampled among those named as their thread is, else
 * the most sampled process mapping, else 0.
 */
static size_t main_mapping(const struct pprof *pp)
{
	uint64_t best[2] = { 0, 0 }, *score;
	size_t i, j, pick = 0;

	if (!pp->maps.n || !(score = calloc(2 * pp->maps.n, sizeof(*score))))
		return 0;
	for (i = 0; i < pp->samples.n; i++) {
		const uint64_t *k = ptab_key(&pp->samples, i);
		const char *comm = zt_strtab_str(&pp->strs, (uint32_t)k[2]);

		for (j = 0; j < k[4]; j++) {
			uint64_t mid = ((const uint64_t *)ptab_key(&pp->locs, k[5 + j] - 1))[0];
			const uint64_t *mk;

			if (!mid || pp->mi[mid - 1].span)
				continue;
			mk = ptab_key(&pp->maps, mid - 1);
			score[2 * (mid - 1) + 1] += sample_nr(pp, i);
			if (comm_names(comm, zt_strtab_str(&pp->strs, (uint32_t)mk[4])))
				score[2 * (mid - 1)] += sample_nr(pp, i);
		}
	}
	for (i = 0; i < pp->maps.n; i++) {
		if (score[2 * i] > best[0] || (!best[0] && score[2 * i + 1] > best[1])) {
			best[0] = score[2 * i];
			best[1] = score[2 * i + 1];
			pick = i;
		}
	}
	free(score);
	return pick;
}

/* Mapping id 1 and the main binary's (index m) trade places. */
static uint64_t swap_id(uint64_t id, size_t m)
{
	return id == m + 1 ? 1 : id == 1 ? m + 1 : id;
}

/* The tables as protobuf-c messages, packed, gzip'ed. */
static int emit(struct pprof *pp, int fd)
{
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType *vt = NULL, **vtp = NULL,
				       per_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	Perftools__Profiles__Sample *sm = NULL, **smp = NULL;
	Perftools__Profiles__Label *lb = NULL, **lbp = NULL;
	Perftools__Profiles__Mapping *mp = NULL, **mpp = NULL;
	Perftools__Profiles__Location *lc = NULL, **lcp = NULL;
	Perftools__Profiles__Line *ln = NULL, **lnp = NULL;
	Perftools__Profiles__Function *fn = NULL, **fnp = NULL;
	char **strs = NULL;
	uint8_t *buf = NULL;
	int64_t comments[3], k_pid, k_tid, k_thread, k_stall, period = 0, t[4];
	size_t i, nl = 0, ncom, len, main_map;
	int ret;

	vt = calloc(pp->nv, sizeof(*vt));
	vtp = calloc(pp->nv, sizeof(*vtp));
	if (!vt || !vtp) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < pp->nv; i++) {
		perftools__profiles__value_type__init(&vt[i]);
		vtp[i] = &vt[i];
	}
	/* each event's samples and weights; the period is the first one's */
	for (i = 0; i < pp->nev; i++) {
		int64_t per;

		if ((ret = event_types(pp, (uint32_t)i, t, &per)))
			goto out;
		vt[2 * i].type = t[0], vt[2 * i].unit = t[1];
		vt[2 * i + 1].type = t[2], vt[2 * i + 1].unit = t[3];
		if (!i)
			period = per;
	}
	if ((ret = str_id(pp, "pid", &k_pid)) || (ret = str_id(pp, "tid", &k_tid)) ||
	    (ret = str_id(pp, "thread", &k_thread)) || (ret = str_id(pp, "stall", &k_stall)) ||
	    (ret = add_comments(pp, comments, &ncom)))
		goto out;
	per_type = vt[1];
	if (pp->gpu && ((ret = str_id(pp, "gpu_samples", &vt[pp->gv].type)) ||
			(ret = str_id(pp, "count", &vt[pp->gv].unit)) ||
			(ret = str_id(pp, "gpu_time", &vt[pp->gv + 1].type)) ||
			(ret = str_id(pp, "nanoseconds", &vt[pp->gv + 1].unit))))
		goto out;

	for (i = 0; i < pp->locs.n; i++)
		nl += ((const uint64_t *)ptab_key(&pp->locs, i))[2];
	/* mapping ids: the main binary's and the first's swap places */
	main_map = main_mapping(pp);
	ret = -ENOMEM;
	sm = calloc(pp->samples.n + 1, sizeof(*sm));
	smp = calloc(pp->samples.n + 1, sizeof(*smp));
	lb = calloc(4 * pp->samples.n + 1, sizeof(*lb));
	lbp = calloc(4 * pp->samples.n + 1, sizeof(*lbp));
	mp = calloc(pp->maps.n + 1, sizeof(*mp));
	mpp = calloc(pp->maps.n + 1, sizeof(*mpp));
	lc = calloc(pp->locs.n + 1, sizeof(*lc));
	lcp = calloc(pp->locs.n + 1, sizeof(*lcp));
	ln = calloc(nl + 1, sizeof(*ln));
	lnp = calloc(nl + 1, sizeof(*lnp));
	fn = calloc(pp->funcs.n + 1, sizeof(*fn));
	fnp = calloc(pp->funcs.n + 1, sizeof(*fnp));
	strs = calloc(zt_strtab_count(&pp->strs) + 1, sizeof(*strs));
	if (!sm || !smp || !lb || !lbp || !mp || !mpp || !lc || !lcp || !ln || !lnp || !fn ||
	    !fnp || !strs)
		goto out;

	for (i = 0; i < pp->samples.n; i++) {
		const uint64_t *k = ptab_key(&pp->samples, i);
		Perftools__Profiles__Label *l = &lb[4 * i];
		unsigned j;

		perftools__profiles__sample__init(&sm[i]);
		smp[i] = &sm[i];
		sm[i].n_location_id = k[4];
		sm[i].location_id = (uint64_t *)&k[5];
		sm[i].n_value = pp->nv;
		sm[i].value = &pp->sv[pp->nv * i];
		for (j = 0; j < 4; j++) {
			perftools__profiles__label__init(&l[j]);
			lbp[4 * i + j] = &l[j];
		}
		l[0].key = k_pid, l[0].num = (int64_t)k[0];
		l[1].key = k_tid, l[1].num = (int64_t)k[1];
		l[2].key = k_thread, l[2].str = (int64_t)k[2];
		l[3].key = k_stall, l[3].str = (int64_t)k[3];
		sm[i].n_label = k[3] ? 4 : 3;
		sm[i].label = &lbp[4 * i];
	}
	for (i = 0; i < pp->maps.n; i++) {
		const uint64_t *k = ptab_key(&pp->maps, i);
		const struct pmap_info *m = &pp->mi[i];

		perftools__profiles__mapping__init(&mp[i]);
		mpp[swap_id(i + 1, main_map) - 1] = &mp[i];
		mp[i].id = swap_id(i + 1, main_map);
		mp[i].memory_start = m->lo;
		mp[i].memory_limit = m->hi;
		mp[i].file_offset = k[3];
		mp[i].filename = (int64_t)k[4];
		mp[i].build_id = (int64_t)k[5];
		mp[i].has_functions = m->quality >= ZT_FRAME_BASIC;
		mp[i].has_filenames = mp[i].has_line_numbers = mp[i].has_inline_frames =
			m->quality >= ZT_FRAME_FULL;
	}
	nl = 0;
	for (i = 0; i < pp->locs.n; i++) {
		const uint64_t *k = ptab_key(&pp->locs, i);
		size_t j;

		perftools__profiles__location__init(&lc[i]);
		lcp[i] = &lc[i];
		lc[i].id = i + 1;
		lc[i].mapping_id = k[0] ? swap_id(k[0], main_map) : 0;
		lc[i].address = k[1];
		lc[i].n_line = k[2];
		lc[i].line = &lnp[nl];
		for (j = 0; j < k[2]; j++, nl++) {
			perftools__profiles__line__init(&ln[nl]);
			lnp[nl] = &ln[nl];
			ln[nl].function_id = k[3 + 2 * j];
			ln[nl].line = (int64_t)k[4 + 2 * j];
		}
	}
	for (i = 0; i < pp->funcs.n; i++) {
		const int64_t *k = ptab_key(&pp->funcs, i);

		perftools__profiles__function__init(&fn[i]);
		fnp[i] = &fn[i];
		fn[i].id = i + 1;
		fn[i].name = fn[i].system_name = k[0];
		fn[i].filename = k[1];
	}
	for (i = 0; i < zt_strtab_count(&pp->strs); i++)
		strs[i] = (char *)zt_strtab_str(&pp->strs, (uint32_t)i);

	prof.n_sample_type = pp->nv;
	prof.sample_type = vtp;
	prof.n_sample = pp->samples.n;
	prof.sample = smp;
	prof.n_mapping = pp->maps.n;
	prof.mapping = mpp;
	prof.n_location = pp->locs.n;
	prof.location = lcp;
	prof.n_function = pp->funcs.n;
	prof.function = fnp;
	prof.n_string_table = zt_strtab_count(&pp->strs);
	prof.string_table = strs;
	prof.time_nanos = (int64_t)(meta_u64(pp->p, "wallclock_start") * 1000000000ull);
	{
		uint64_t t0 = meta_u64(pp->p, "time_start"), t1 = meta_u64(pp->p, "time_end");

		if (!t1)
			for (i = 0; i < pp->p->nr_samples; i++)
				if (pp->p->samples[i].ts > t1)
					t1 = pp->p->samples[i].ts;
		prof.duration_nanos = t0 && t1 > t0 ? (int64_t)(t1 - t0) : 0;
	}
	prof.period_type = &per_type;
	prof.period = period;
	prof.n_comment = ncom;
	prof.comment = comments;
	prof.default_sample_type = vt[1].type;

	len = perftools__profiles__profile__get_packed_size(&prof);
	buf = malloc(len ? len : 1);
	if (!buf)
		goto out;
	if (perftools__profiles__profile__pack(&prof, buf) != len) {
		ret = -EIO;
		goto out;
	}
	ret = gzip_write(fd, buf, len);
out:
	free(vt);
	free(vtp);
	free(buf);
	free(sm);
	free(smp);
	free(lb);
	free(lbp);
	free(mp);
	free(mpp);
	free(lc);
	free(lcp);
	free(ln);
	free(lnp);
	free(fn);
	free(fnp);
	free(strs);
	return ret;
}

/* ---- the GPU side: PC samples and kernel time, under their launch stacks ---- */

#define NO_LAUNCH UINT32_MAX

/* A launch stack: its thread and resolved locations (leaf first) in lloc. */
struct lstack {
	uint32_t pid, tid;
	int64_t comm;
	size_t off, n;
};

/* GPU time of kernels of one (process, kernel name) launched from one launch stack. */
struct ktime {
	uint32_t pid, name, lgroup, pad;
	uint64_t ns;
};

struct gpuside {
	struct stackgroups lsg;
	struct lstack *ls;
	size_t cap_ls;
	uint64_t *lloc;
	size_t nr_lloc, cap_lloc;
	struct ptab kt_idx; /* (pid, name, lgroup) -> index into kt */
	struct ktime *kt;
	size_t cap_kt;
	struct ptab pcs_idx; /* the view's buckets by (pid, crc, function, pc, stall) */
	uint64_t *share;     /* scratch of gpu_pcs_record: weights, then parts */
	size_t cap_share;
};

/* The launch stack group of l (NO_LAUNCH: none), its locations resolved once. */
static int launch_group(struct pprof *pp, struct gpuside *gs, const struct prof_gpu_launch *l,
			uint32_t *gi)
{
	struct prof_sample smp;
	const struct zt_frange *r;
	const uint64_t *ips;
	const char *c;
	char buf[32];
	unsigned i, n;
	int is_new, ret;

	*gi = NO_LAUNCH;
	if (!l || l->stack == PROF_GPU_NO_STACK || l->stack >= pp->p->nr_stacks)
		return 0;
	smp = (struct prof_sample){.ts = l->ts, .pid = l->pid, .tid = l->tid, .stack = l->stack};
	c = proctree_comm(pp->pt, l->pid, l->tid, l->ts);
	ret = stackgroups_add(&gs->lsg, &smp, c, l->tid, gi, &is_new);
	if (ret || !is_new)
		return ret;
	if (ZT_GROW(gs->ls, gs->cap_ls, (size_t)*gi + 1))
		return -ENOMEM;
	gs->ls[*gi] = (struct lstack){l->pid, l->tid, 0, gs->nr_lloc, 0};
	ret = str_id(pp, prof_comm_or_pid(c, l->pid, buf, sizeof(buf)), &gs->ls[*gi].comm);
	if (!ret)
		ret = stackgroups_resolve(&gs->lsg, *gi, 2 * ZT_MAX_FRAMES, &ips, &r, &n);
	if (ret)
		return ret;
	if (ZT_GROW(gs->lloc, gs->cap_lloc, gs->nr_lloc + n))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if ((ret = loc_id(pp, ips[i], &r[i], &gs->lloc[gs->nr_lloc + i])))
			return ret;
	gs->nr_lloc += n;
	gs->ls[*gi].n = n;
	return 0;
}

/* Room for a GPU sample key of n locations in pp->gkey. */
static int gkey_room(struct pprof *pp, size_t n)
{
	return ZT_GROW(pp->gkey, pp->cap_gkey, 5 + n) ? -ENOMEM : 0;
}

/* Add value v at index vi to the sample of GPU locations gl[0..ng) over launch
 * stack lg (NO_LAUNCH: the process pid alone), with stall label stall. */
static int gpu_sample(struct pprof *pp, struct gpuside *gs, const uint64_t *gl, size_t ng,
		      uint32_t lg, uint32_t pid, int64_t stall, unsigned vi, uint64_t v)
{
	size_t nl = lg == NO_LAUNCH ? 0 : gs->ls[lg].n;
	uint64_t *k;
	uint32_t s;
	int ret;

	if (!v)
		return 0;
	if ((ret = gkey_room(pp, ng + nl)))
		return ret;
	k = pp->gkey;
	if (lg == NO_LAUNCH) {
		const char *c = proctree_comm(pp->pt, pid, pid, 0);
		char buf[32];
		int64_t cid;

		if ((ret = str_id(pp, prof_comm_or_pid(c, pid, buf, sizeof(buf)), &cid)))
			return ret;
		k[0] = pid, k[1] = pid, k[2] = (uint64_t)cid;
	} else {
		k[0] = gs->ls[lg].pid, k[1] = gs->ls[lg].tid, k[2] = (uint64_t)gs->ls[lg].comm;
	}
	k[3] = (uint64_t)stall, k[4] = ng + nl;
	memcpy(k + 5, gl, ng * sizeof(*gl));
	if (nl)
		memcpy(k + 5 + ng, gs->lloc + gs->ls[lg].off, nl * sizeof(*k));
	if ((ret = sample_add(pp, k, ng + nl, &s)))
		return ret;
	pp->sv[pp->nv * s + vi] += (int64_t)v;
	return 0;
}

/* The location (mapping 0) of GPU frames f[0..n): an inline chain ending in its function. */
static int gpu_loc(struct pprof *pp, uint64_t addr, const struct gpu_frame *f, unsigned n,
		   uint64_t *id)
{
	uint64_t *k = pp->lockey;
	unsigned i;
	uint32_t v = 0;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		ret = func_id(pp, f[i].func, f[i].dir, f[i].file, &k[3 + 2 * i]);
		k[4 + 2 * i] = f[i].line;
	}
	if (ret)
		return ret;
	k[0] = 0, k[1] = addr, k[2] = n;
	ret = ptab_intern(&pp->locs, k, (3 + 2 * (size_t)n) * sizeof(*k), &v, NULL);
	*id = (uint64_t)v + 1;
	return ret;
}

/* The name a kernel is shown by. */
static const char *gpu_name(const struct pprof *pp, uint32_t id)
{
	const char *s = pp->gpu->gpu_name ? pp->gpu->gpu_name(pp->gpu->ctx, id) : NULL;

	return s ? s : prof_gpu_str(pp->gpu->gv->g, id);
}

/* Kernels: their time under their launch stacks (and per stack, for the PC samples). */
static int gpu_kernels(struct pprof *pp, struct gpuside *gs)
{
	const struct gpu_view *v = pp->gpu->gv;
	const struct prof_gpu *g = v->g;
	size_t i;
	int ret = 0;

	for (i = 0; i < g->nr_kernels && !ret; i++) {
		const struct prof_gpu_kernel *k = &g->kernels[i];
		struct prof_gpu_launch tmp;
		const struct prof_gpu_launch *l = gpu_view_with_stack(
			v, gpu_view_launch(v, k->pid, k->corr, k->graph_id, k->start), &tmp);
		struct gpu_frame f = {.func = gpu_name(pp, k->name)};
		uint64_t ns = k->end > k->start ? k->end - k->start : 0, loc;
		uint32_t key[3], ki;
		uint32_t lg;
		int added;

		if ((ret = launch_group(pp, gs, l, &lg)) || (ret = gpu_loc(pp, 0, &f, 1, &loc)) ||
		    (ret = gpu_sample(pp, gs, &loc, 1, lg, k->pid, 0, pp->gv + 1, ns)))
			break;
		key[0] = k->pid, key[1] = k->name, key[2] = lg;
		if ((ret = ptab_intern(&gs->kt_idx, key, sizeof(key), &ki, &added)))
			break;
		if (added) {
			if (ZT_GROW(gs->kt, gs->cap_kt, (size_t)ki + 1)) {
				ret = -ENOMEM;
				break;
			}
			gs->kt[ki] = (struct ktime){k->pid, k->name, lg, 0, 0};
		}
		gs->kt[ki].ns += ns;
	}
	return ret;
}

static int ktime_cmp(const void *a, const void *b)
{
	const struct ktime *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->lgroup < y->lgroup ? -1 : x->lgroup > y->lgroup;
}

/* The PC samples of one record r, its frames' locations gl[0..ng): under the
 * launch with its correlation id (serialized mode), else shared among the
 * launch stacks of its kernel by their GPU time (continuous mode). */
static int gpu_pcs_record(struct pprof *pp, struct gpuside *gs, const struct prof_gpu_pcs *r,
			  const uint64_t *gl, size_t ng, int64_t stall)
{
	const struct gpu_view *v = pp->gpu->gv;
	struct ktime key = {r->pid, r->function, 0, 0, 0};
	size_t lo = 0, hi = v->g->nr_kernels ? gs->kt_idx.n : 0, i, e;
	unsigned __int128 tot = 0;
	uint64_t *w, *part;
	uint32_t lg;
	int ret;

	if (r->corr) {
		struct prof_gpu_launch tmp;

		ret = launch_group(pp, gs,
				   gpu_view_with_stack(v, gpu_view_launch(v, r->pid, r->corr, 0, 0),
						       &tmp),
				   &lg);
		return ret ? ret
			   : gpu_sample(pp, gs, gl, ng, lg, r->pid, stall, pp->gv, r->samples);
	}
	while (lo < hi) { /* the first entry of (pid, function) */
		size_t mid = lo + (hi - lo) / 2;

		if (ktime_cmp(&gs->kt[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (e = lo; e < gs->kt_idx.n && gs->kt[e].pid == r->pid && gs->kt[e].name == r->function;
	     e++)
		tot += gs->kt[e].ns;
	if (!tot) /* no kernel of that name timed: no launch stack */
		return gpu_sample(pp, gs, gl, ng, NO_LAUNCH, r->pid, stall, pp->gv, r->samples);
	if (ZT_GROW(gs->share, gs->cap_share, (e - lo) * 2))
		return -ENOMEM;
	w = gs->share;
	part = w + (e - lo);
	for (i = lo; i < e; i++)
		w[i - lo] = gs->kt[i].ns;
	ret = gpu_share(r->samples, w, e - lo, part);
	for (i = lo; i < e && !ret; i++)
		ret = gpu_sample(pp, gs, gl, ng, gs->kt[i].lgroup, r->pid, stall, pp->gv,
				 part[i - lo]);
	return ret;
}

static int gpu_samples(struct pprof *pp)
{
	const struct gpu_view *v = pp->gpu->gv;
	const struct gpu_frametab *t = pp->gpu->gft;
	const struct prof_gpu *g = v->g;
	struct gpuside gs = {0};
	uint64_t *gl = NULL;
	size_t cap_gl = 0, i;
	int ret;

	stackgroups_init(&gs.lsg, &pp->rs);
	ret = gpu_kernels(pp, &gs);
	if (!ret && gs.kt_idx.n)
		qsort(gs.kt, gs.kt_idx.n, sizeof(*gs.kt), ktime_cmp);
	/* the view's buckets numbered as the view has them (each key is new) */
	for (i = 0; i < v->nr_pcs && !ret; i++) {
		const struct gpu_pcsum *b = &v->pcs[i];
		uint64_t key[5] = {b->pid, b->crc, b->function, b->pc, b->stall};
		uint32_t id;

		ret = ptab_intern(&gs.pcs_idx, key, sizeof(key), &id, NULL);
	}
	for (i = 0; i < g->nr_pcs && !ret; i++) {
		const struct prof_gpu_pcs *r = &g->pcs[i];
		uint64_t key[5] = {r->pid, r->cubin_crc, r->function, r->pc_offset, r->stall};
		const struct gpu_frame *f;
		struct gpu_frame one;
		const char *sn;
		char sbuf[32];
		int64_t stall;
		uint32_t id, n, j, run;
		size_t ng = 0;
		int added;

		if ((ret = ptab_intern(&gs.pcs_idx, key, sizeof(key), &id, &added)))
			break;
		/* a subset reason's samples are counted under their reason */
		if (!added && id < v->nr_pcs && v->pcs[id].subset)
			continue;
		f = added ? NULL : gpu_frametab_pc(t, id, &n);
		if (!f) { /* not in the view or not resolved: the record's function alone */
			one = (struct gpu_frame){.func = gpu_name(pp, r->function)};
			f = &one;
			n = 1;
		}
		if (ZT_GROW(gl, cap_gl, n)) {
			ret = -ENOMEM;
			break;
		}
		/* a location per run of inlined frames and the function they end in */
		for (j = 0; j < n && !ret; j += run) {
			for (run = 1; j + run < n && f[j + run - 1].inlined && run < 64; run++)
				;
			ret = gpu_loc(pp, j ? 0 : r->pc_offset, f + j, run, &gl[ng++]);
		}
		sn = prof_gpu_stall_name(g, r->pid, r->context, r->stall);
		if (!sn) {
			snprintf(sbuf, sizeof(sbuf), "stall_%u", r->stall);
			sn = sbuf;
		}
		if (!ret && !(ret = str_id(pp, sn, &stall)))
			ret = gpu_pcs_record(pp, &gs, r, gl, ng, stall);
	}
	free(gl);
	stackgroups_release(&gs.lsg);
	free(gs.ls);
	free(gs.lloc);
	free(gs.share);
	ptab_release(&gs.kt_idx);
	free(gs.kt);
	ptab_release(&gs.pcs_idx);
	return ret;
}

int pprof_write(const struct rstacks *rs, const struct pprof_gpu *gpu, int fd)
{
	const struct profile *p = rs->prof;
	struct pprof *pp = calloc(1, sizeof(*pp));
	int64_t empty;
	int ret;

	if (!pp)
		return -ENOMEM;
	pp->p = p;
	pp->pt = rs->pt;
	pp->ft = rs->ft;
	pp->rs = *rs;
	pp->gpu = gpu && gpu->gv && gpu->gv->g ? gpu : NULL;
	pp->nev = (unsigned)profile_nr_events(p);
	if (pp->nev > PPROF_MAX_EVENTS) {
		free(pp);
		return -E2BIG;
	}
	pp->gv = 2 * pp->nev;
	pp->nv = pp->gv + (pp->gpu ? 2 : 0);
	stackgroups_init(&pp->sg, rs);
	ret = str_id(pp, "", &empty); /* string_table[0] must be "" */
	if (!ret)
		ret = group_samples(pp);
	if (!ret)
		ret = resolve_groups(pp);
	if (!ret && pp->gpu)
		ret = gpu_samples(pp);
	if (!ret)
		ret = emit(pp, fd);
	zt_strtab_release(&pp->strs);
	ptab_release(&pp->funcs);
	ptab_release(&pp->maps);
	ptab_release(&pp->locs);
	ptab_release(&pp->samples);
	stackgroups_release(&pp->sg);
	free(pp->gcomm);
	free(pp->gacc);
	free(pp->mi);
	free(pp->sv);
	free(pp->gkey);
	free(pp->scratch);
	free(pp);
	return ret;
}
