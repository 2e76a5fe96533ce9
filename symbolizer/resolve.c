/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The resolver: per address, the covering mapping from the proctree, then
 * kallsyms, the perf map, or the mapping's ELF symbols; Python frames
 * (in no mapping) from the profile's code objects; results cached per
 * (mapping, address), symbol tables per file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/log.h"
#include "libprof/text.h"
#include "libprof/zbuf.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/demangle.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/jitdump.h"
#include "symbolizer/kallsyms.h"
#include "symbolizer/perfmap.h"
#include "symbolizer/pyframes.h"
#include "symbolizer/resolve.h"
#include "symbolizer/vdso.h"

#define KEY_KERNEL UINT64_MAX /* frame key of kernel addresses */
/* frame key of Python frames: one code object index names the same code
 * object in every process (the profile's table), so they are keyed by the
 * address alone */
#define KEY_PY (UINT64_MAX - 1)

/* The symbols of one binary, by build id ("b:HEX") or path ("p:PATH"). */
struct rs_elf {
	char *key;
	const char *module; /* name for messages (borrowed from the profile) */
	struct symmod *e;   /* NULL: out of memory */
	int stale;          /* resolver_forget_module(): e closed, open again when asked */
};

/* A perf-map or jitdump snapshot of the profile: its pid, kind and index. */
struct rs_bref {
	uint32_t pid, kind, i;
};

/* The perf map and jitdump of one process. */
struct rs_pmap {
	uint32_t pid;
	struct perfmap *m; /* NULL: none */
	struct jitdump *jd; /* NULL: none */
	uint8_t *jd_data;  /* the jitdump pieces joined (jd borrows from it) */
	const char *module; /* "[JIT] tid PID", in r->owned: frames keep it while the array moves */
};

/* A demangled name, by its mangled name (both owned). */
struct rs_dm {
	char *in;
	const char *out;
};

/* A resolved address. Key: (mapping index + 1, 0 for none, or
 * KEY_KERNEL; the address; the pid where the perf map of the pid decides,
 * else 0). */
struct rs_frame {
	uint64_t a, b;
	uint32_t pid;
	uint32_t mi; /* f.map's index + 1, 0 for none: f.map again after resolver_update() */
	struct resolve_frame f;
};

struct resolver {
	const struct profile *p;
	struct symmod_opts mo;
	int demangle;
	int params;   /* demangled names keep their parameter lists */
	int no_files; /* resolver_opts.no_files */
	int no_memo;  /* resolver_opts.no_memo */
	const struct resolve_source *sources;
	size_t nr_sources;
	const struct resolve_store *store;
	struct fi_loc *scratch; /* resolver_resolve_module's inline chain */
	size_t cap_scratch;
	struct prof_build_id last_bid; /* ... and the module it asked last (len 0: none) */
	uint32_t last_elf;
	uint64_t counts[3];
	char **owned;       /* demangled names and inline chains, freed at the end */
	uint32_t *jit_pids; /* sorted pids with jitdump snapshots */
	size_t nr_jit_pids, cap_jit_pids;
	int jit_pids_done;
	size_t nr_owned, cap_owned;
	const struct proctree *pt;
	struct buildid_cache cache;
	int have_cache;
	struct kallsyms *ksyms;
	int ksyms_loaded;
	struct rs_elf *elfs;
	size_t nr_elfs, cap_elfs;
	struct zt_htab elf_hash; /* elfs by key */
	int32_t *map_elf;   /* per mapping: index into elfs, -1 not yet looked up */
	size_t nr_map_elf;
	struct rs_pmap *pmaps;
	size_t nr_pmaps, cap_pmaps;
	struct zt_htab pmap_hash; /* pmaps by pid */
	struct rs_bref *brefs; /* the perf-map and jitdump blobs by (pid, kind, order) */
	size_t nr_brefs;
	size_t brefs_of; /* the profile's number of blobs when they were sorted */
	struct rs_frame *frames;
	size_t nr_frames, cap_frames;
	struct zt_htab frame_hash; /* frames by key */
	struct rs_dm *dm; /* demangled names */
	size_t nr_dm, cap_dm;
	struct zt_htab dm_hash; /* dm by mangled name */
	struct pyframes *py;	/* Python frames' names, made when first asked */
	struct fi_loc py_loc; /* a Python frame's position without memo (no_memo) */
};

int resolver_new(const struct profile *p, const struct proctree *pt, struct resolver **out)
{
	return resolver_new_opts(p, pt, NULL, out);
}

int resolver_new_opts(const struct profile *p, const struct proctree *pt,
		      const struct resolver_opts *o, struct resolver **out)
{
	struct resolver *r = calloc(1, sizeof(*r));
	size_t i;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->p = p;
	r->pt = pt;
	r->demangle = !(o && o->no_demangle);
	r->params = o && o->full_signature;
	r->no_files = o && o->no_files;
	r->no_memo = o && o->no_memo;
	r->store = o ? o->store : NULL;
	if (o && o->nr_sources) {
		r->sources = o->sources;
		r->nr_sources = o->nr_sources;
	}
	r->map_elf = malloc((p && p->nr_mmaps ? p->nr_mmaps : 1) * sizeof(*r->map_elf));
	if (!r->map_elf) {
		resolver_free(r);
		return -ENOMEM;
	}
	for (i = 0; p && i < p->nr_mmaps; i++)
		r->map_elf[i] = -1;
	r->nr_map_elf = p ? p->nr_mmaps : 0;
	/* without a cache directory (no home), binaries are read from their paths */
	r->have_cache = !r->no_files && buildid_cache_init(&r->cache) == 0 && r->cache.dir;
	if (o && o->mo) {
		r->mo = *o->mo;
	} else {
		r->mo.cache = r->have_cache ? &r->cache : NULL;
	}
	*out = r;
	return 0;
}

void resolver_free(struct resolver *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_elfs; i++) {
		free(r->elfs[i].key);
		symmod_free(r->elfs[i].e);
	}
	for (i = 0; i < r->nr_owned; i++)
		free(r->owned[i]);
	free(r->owned);
	free(r->scratch);
	free(r->jit_pids);
	for (i = 0; i < r->nr_pmaps; i++) {
		perfmap_free(r->pmaps[i].m);
		jitdump_free(r->pmaps[i].jd);
		free(r->pmaps[i].jd_data);
	}
	if (r->have_cache)
		buildid_cache_release(&r->cache);
	kallsyms_free(r->ksyms);
	free(r->elfs);
	zt_htab_release(&r->elf_hash);
	free(r->map_elf);
	free(r->pmaps);
	zt_htab_release(&r->pmap_hash);
	free(r->brefs);
	free(r->frames);
	zt_htab_release(&r->frame_hash);
	for (i = 0; i < r->nr_dm; i++)
		free(r->dm[i].in);
	free(r->dm);
	zt_htab_release(&r->dm_hash);
	pyframes_free(r->py);
	free(r);
}

/* The module name of a mapping (borrowed from its path where possible). */
static const char *map_module(const struct prof_mmap *m)
{
	if (prof_path_is_anon(m->path))
		return "[anon]";
	if (m->path[0] == '[')
		return m->path;
	return zt_base_name(m->path);
}

/* The kallsyms table, parsed on first use (NULL if the profile has none). */
static struct kallsyms *get_ksyms(struct resolver *r)
{
	struct zbuf text;
	size_t i, n = 0;

	if (r->ksyms_loaded)
		return r->ksyms;
	r->ksyms_loaded = 1;
	/* a recording stores the lines each chunk needed: all of them, joined */
	zbuf_init(&text);
	for (i = 0; i < r->p->nr_blobs; i++) {
		const struct prof_blob *b = &r->p->blobs[i];

		if (b->kind != PROF_BLOB_KALLSYMS)
			continue;
		zbuf_put(&text, b->data, b->len);
		zbuf_put_u8(&text, '\n');
		n++;
	}
	if (!n) {
		zbuf_release(&text);
		return NULL;
	}
	if (text.err || kallsyms_parse((const char *)text.data, text.len, &r->ksyms))
		r->ksyms = NULL;
	zbuf_release(&text);
	if (r->ksyms && !kallsyms_count(r->ksyms))
		zt_info("the recorded kallsyms have no addresses (kptr_restrict?): "
			"kernel frames stay unresolved");
	return r->ksyms;
}

/* The snapshots of one kind in refs[0..n) (one pid's, in order) joined,
 * each followed by sep unless it is 0. NULL when there are none. */
static uint8_t *join_blobs(const struct profile *p, const struct rs_bref *refs, size_t n,
			   uint32_t kind, char sep, size_t *len)
{
	size_t i, total = 0;
	uint8_t *d;

	*len = 0;
	for (i = 0; i < n; i++)
		if (refs[i].kind == kind)
			total += p->blobs[refs[i].i].len + (sep ? 1 : 0);
	if (!total || !(d = malloc(total)))
		return NULL;
	for (i = 0; i < n; i++) {
		const struct prof_blob *b = &p->blobs[refs[i].i];

		if (refs[i].kind != kind)
			continue;
		memcpy(d + *len, b->data, b->len);
		*len += b->len;
		if (sep)
			d[(*len)++] = (uint8_t)sep;
	}
	return d;
}

static int bref_cmp(const void *a, const void *b)
{
	const struct rs_bref *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The perf-map and jitdump snapshots of pid: *n of them from *refs on.
 * Sorted once (again when zt top has added snapshots), so that a profile
 * of many processes costs O(log n) per process, not a pass over every
 * snapshot. 0 or -ENOMEM. */
static int pid_blobs(struct resolver *r, uint32_t pid, const struct rs_bref **refs, size_t *n)
{
	size_t lo = 0, hi, i;

	*n = 0;
	*refs = NULL;
	if (r->brefs_of != r->p->nr_blobs) {
		for (i = 0, hi = 0; i < r->p->nr_blobs; i++)
			hi += r->p->blobs[i].kind == PROF_BLOB_PERFMAP ||
			      r->p->blobs[i].kind == PROF_BLOB_JITDUMP;
		free(r->brefs);
		r->brefs = NULL;
		r->nr_brefs = 0;
		if (hi && !(r->brefs = malloc(hi * sizeof(*r->brefs))))
			return -ENOMEM;
		r->brefs_of = r->p->nr_blobs;
		for (i = 0; hi && i < r->p->nr_blobs; i++) {
			const struct prof_blob *b = &r->p->blobs[i];

			if (b->kind == PROF_BLOB_PERFMAP || b->kind == PROF_BLOB_JITDUMP)
				r->brefs[r->nr_brefs++] = (struct rs_bref){ b->pid, b->kind, (uint32_t)i };
		}
		if (r->nr_brefs)
			qsort(r->brefs, r->nr_brefs, sizeof(*r->brefs), bref_cmp);
	}
	hi = r->nr_brefs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->brefs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < r->nr_brefs && r->brefs[i].pid == pid; i++)
		(*n)++;
	*refs = *n ? &r->brefs[lo] : NULL;
	return 0;
}

static inline uint64_t pmap_hash_at(const void *r, uint32_t i)
{
	return zt_hash_mix(0, ((const struct resolver *)r)->pmaps[i].pid);
}

static int own(struct resolver *r, void *p);

/* The perf map and jitdump of pid, from their snapshots in the profile
 * (in order: later perf-map lines win). A process without snapshots (most
 * of them) gets the one empty answer: no entry, no allocation. */
static const struct rs_pmap *get_pmap(struct resolver *r, uint32_t pid)
{
	static const struct rs_pmap none;
	const struct rs_bref *refs;
	struct rs_pmap *pm;
	size_t j, n, len;
	uint32_t i;
	char *text, *module;

	if (pid_blobs(r, pid, &refs, &n))
		return NULL;
	if (!n)
		return &none;
	if (zt_htab_reserve(&r->pmap_hash, 1, pmap_hash_at, r))
		return NULL;
	for (j = zt_htab_first(&r->pmap_hash, zt_hash_mix(0, pid));
	     zt_htab_get(&r->pmap_hash, j, &i); j = zt_htab_next(&r->pmap_hash, j))
		if (r->pmaps[i].pid == pid)
			return &r->pmaps[i];
	if (asprintf(&module, "[JIT] tid %u", pid) < 0)
		return NULL;
	if (own(r, module)) {
		free(module);
		return NULL;
	}
	if (ZT_GROW(r->pmaps, r->cap_pmaps, r->nr_pmaps + 1))
		return NULL;
	pm = &r->pmaps[r->nr_pmaps];
	memset(pm, 0, sizeof(*pm));
	pm->pid = pid;
	pm->module = module;
	text = (char *)join_blobs(r->p, refs, n, PROF_BLOB_PERFMAP, '\n', &len);
	if (text && perfmap_parse(text, len, &pm->m))
		pm->m = NULL;
	free(text);
	pm->jd_data = join_blobs(r->p, refs, n, PROF_BLOB_JITDUMP, 0, &len);
	if (pm->jd_data && jitdump_parse(pm->jd_data, len, &pm->jd)) {
		pm->jd = NULL;
		free(pm->jd_data);
		pm->jd_data = NULL;
	}
	zt_htab_set(&r->pmap_hash, j, (uint32_t)r->nr_pmaps++);
	return pm;
}

/* Open the symbols for mapping m: from the build-id cache copy of the
 * binary, else the zt archive's, else the file at its path if it is the recorded binary (else
 * offsets only, with a warning). symmod takes it from there: the GSYM
 * cache, DWARF, debug files, debuginfod. NULL only on ENOMEM. */
static struct symmod *open_elf(struct resolver *r, const struct prof_mmap *m)
{
	char path[PATH_MAX], hex[2 * ZT_BUILD_ID_MAX + 1], fhex[2 * ZT_BUILD_ID_MAX + 1];
	struct prof_build_id fb = { 0 };
	struct symmod *sm = NULL;
	size_t n;

	if (m->build_id.len && r->have_cache &&
	    !buildid_cache_path(&r->cache, &m->build_id, path, sizeof(path)))
		goto open;
	/* the copy in the zt archive of the recording (zt report --archive) */
	if (m->build_id.len && r->mo.archive &&
	    !buildid_cache_path(r->mo.archive, &m->build_id, path, sizeof(path)))
		goto open;
	if (!strcmp(m->path, "[vdso]")) {
		int temp = 0;

		if (vdso_path(r->p, r->have_cache ? &r->cache : NULL, &m->build_id, path,
			      sizeof(path), &temp))
			path[0] = 0;
		if (symmod_open(&r->mo, path[0] ? path : NULL,
				m->build_id.len ? &m->build_id : NULL, &sm))
			sm = NULL;
		if (temp)
			unlink(path);
		return sm;
	}
	/* a binary deleted after it was mapped: try the path it had */
	n = strlen(m->path);
	if (m->path[0] != '/' || n >= sizeof(path)) {
		path[0] = 0;
		goto open;
	}
	memcpy(path, m->path, n + 1);
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		path[n - 10] = 0;
	if (m->build_id.len && !elf_read_build_id(path, &fb) && fb.len &&
	    (fb.len != m->build_id.len || memcmp(fb.data, m->build_id.data, fb.len))) {
		zt_warn("'%s' is not the binary that was recorded (build id %s, recorded %s): "
			"showing offsets in it",
			path, prof_build_id_hex(&fb, fhex), prof_build_id_hex(&m->build_id, hex));
	}
open:
	if (symmod_open(&r->mo, path[0] ? path : NULL, m->build_id.len ? &m->build_id : NULL, &sm))
		return NULL;
	if (symmod_quality(sm) != SYMQ_FULL)
		zt_info("'%s': %s symbols only: %s", path[0] ? path : m->path,
			symmod_quality(sm) == SYMQ_BASIC ? "basic" : "no", symmod_why(sm));
	if (symmod_remote_served(sm) == 1 || strstr(symmod_source(sm), SYMMOD_SOURCE_GO_PCLNTAB))
		zt_info("'%s': symbols from %s", path[0] ? path : m->path, symmod_source(sm));
	return sm;
}

static inline uint64_t elf_hash_at(const void *r, uint32_t i)
{
	return zt_hash_str(((const struct resolver *)r)->elfs[i].key);
}

/* The module's symbols opened by build id alone (resolver_resolve_module):
 * the store's hooks first, then symmod through mo's cache. */
static struct symmod *open_bid(struct resolver *r, const struct prof_build_id *bid)
{
	const struct resolve_store *st = r->store;
	struct symmod *sm = NULL;

	if (st && st->prepare)
		st->prepare(st->ctx, bid);
	if (symmod_open(&r->mo, NULL, bid, &sm))
		return NULL;
	/* none, or names only (a stripped binary's upload): the store's
	 * other ways (a stored debug file, its debuginfod upstreams) may have
	 * better; what they make replaces the stored symbols only if better */
	if (st && st->missing &&
	    ((symmod_quality(sm) == SYMQ_NONE && !strcmp(symmod_why(sm), "binary not found")) ||
	     symmod_quality(sm) == SYMQ_BASIC) &&
	    !st->missing(st->ctx, bid)) {
		symmod_free(sm);
		sm = NULL;
		if (symmod_open(&r->mo, NULL, bid, &sm))
			return NULL;
	}
	return sm;
}

/* The symbols of key ("b:HEX" or "p:PATH"; copied when kept), opened
 * once: of mapping m, else by build id bid. *idx: their index in r->elfs. */
static int get_elf_key(struct resolver *r, const char *key, const struct prof_mmap *m,
		       const struct prof_build_id *bid, const char *module, uint32_t *idx)
{
	struct rs_elf *el;
	char *kept;
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&r->elf_hash, 1, elf_hash_at, r))
		return -ENOMEM;
	for (j = zt_htab_first(&r->elf_hash, zt_hash_str(key)); zt_htab_get(&r->elf_hash, j, &i);
	     j = zt_htab_next(&r->elf_hash, j)) {
		if (!strcmp(r->elfs[i].key, key)) {
			el = &r->elfs[i];
			if (el->stale && bid) {
				el->stale = 0;
				el->e = open_bid(r, bid);
			}
			*idx = i;
			return 0;
		}
	}
	if (r->nr_elfs >= INT32_MAX || ZT_GROW(r->elfs, r->cap_elfs, r->nr_elfs + 1) ||
	    !(kept = strdup(key)))
		return -ENOMEM;
	el = &r->elfs[r->nr_elfs];
	*el = (struct rs_elf){ .key = kept, .module = module };
	el->e = m ? open_elf(r, m) : open_bid(r, bid);
	zt_htab_set(&r->elf_hash, j, (uint32_t)r->nr_elfs);
	*idx = (uint32_t)r->nr_elfs++;
	return 0;
}

/* The key of a build id's symbols in r->elfs ("b:HEX"), into out. */
static const char *bid_key(const struct prof_build_id *bid, char out[2 * ZT_BUILD_ID_MAX + 3])
{
	out[0] = 'b';
	out[1] = ':';
	prof_build_id_hex(bid, out + 2);
	return out;
}

/* The symbol table of mapping index mi, opened once per file. */
static int get_elf(struct resolver *r, size_t mi, const struct symmod **out)
{
	const struct prof_mmap *m = &r->p->mmaps[mi];
	char bk[2 * ZT_BUILD_ID_MAX + 3], *pk = NULL;
	uint32_t i;
	int ret;

	if (r->map_elf[mi] >= 0) {
		*out = r->elfs[r->map_elf[mi]].e;
		return 0;
	}
	if (!m->build_id.len && asprintf(&pk, "p:%s", m->path) < 0)
		return -ENOMEM;
	ret = get_elf_key(r, pk ? pk : bid_key(&m->build_id, bk), m, NULL, map_module(m), &i);
	free(pk);
	if (ret)
		return ret;
	r->map_elf[mi] = (int32_t)i;
	*out = r->elfs[i].e;
	return 0;
}

/* Keep p until resolver_free(). */
static int own(struct resolver *r, void *p)
{
	if (ZT_GROW(r->owned, r->cap_owned, r->nr_owned + 1))
		return -ENOMEM;
	r->owned[r->nr_owned++] = p;
	return 0;
}

static inline uint64_t dm_hash_at(const void *r, uint32_t i)
{
	return zt_hash_str(((const struct resolver *)r)->dm[i].in);
}

/* A name as shown: demangled (without parameters, as perf shows it, unless
 * full_signature) unless turned off; each mangled name demangled once,
 * owned by the resolver. */
static const char *shown_name(struct resolver *r, const char *name)
{
	char *d, *in;
	size_t j;
	uint32_t i;

	if (!r->demangle || !name || name[0] != '_')
		return name;
	if (zt_htab_reserve(&r->dm_hash, 1, dm_hash_at, r) ||
	    ZT_GROW(r->dm, r->cap_dm, r->nr_dm + 1))
		return name;
	for (j = zt_htab_first(&r->dm_hash, zt_hash_str(name)); zt_htab_get(&r->dm_hash, j, &i);
	     j = zt_htab_next(&r->dm_hash, j))
		if (!strcmp(r->dm[i].in, name))
			return r->dm[i].out;
	if (!(d = zt_demangle(name, r->params)))
		return name;
	if (own(r, d)) {
		free(d);
		return name;
	}
	if ((in = strdup(name))) {
		r->dm[r->nr_dm] = (struct rs_dm){ in, d };
		zt_htab_set(&r->dm_hash, j, (uint32_t)r->nr_dm++);
	}
	return d;
}

/* Fill f from a symmod answer: the function (outermost frame), its
 * offset, the inline chain (copied, into r->scratch when scratch, else
 * kept until resolver_free(): the answer's strings stay borrowed from the
 * module). */
static int take_result(struct resolver *r, const struct symmod *e, const struct fi_result *res,
		       struct resolve_frame *f, int scratch)
{
	struct fi_loc *locs;
	unsigned i;

	if (scratch) {
		if (ZT_GROW(r->scratch, r->cap_scratch, res->n))
			return -ENOMEM;
		locs = r->scratch;
	} else if (!(locs = malloc(res->n * sizeof(*locs))) || own(r, locs)) {
		free(locs);
		return -ENOMEM;
	}
	for (i = 0; i < res->n; i++) {
		locs[i] = res->locs[i];
		locs[i].name = shown_name(r, res->locs[i].name);
	}
	f->locs = locs;
	f->nr_locs = res->n;
	f->sym = locs[res->n - 1].name;
	f->offset = res->offset;
	f->quality = symmod_quality(e) == SYMQ_FULL && res->locs[0].line ? SYMQ_FULL : SYMQ_BASIC;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int resolver_time_sensitive(struct resolver *r, uint32_t pid)
{
	size_t i;

	if (!r->jit_pids_done) {
		/* the pids with jitdump snapshots, found once */
		r->jit_pids_done = 1;
		for (i = 0; i < r->p->nr_blobs; i++)
			if (r->p->blobs[i].kind == PROF_BLOB_JITDUMP &&
			    !ZT_GROW(r->jit_pids, r->cap_jit_pids, r->nr_jit_pids + 1))
				r->jit_pids[r->nr_jit_pids++] = r->p->blobs[i].pid;
		if (r->nr_jit_pids)
			qsort(r->jit_pids, r->nr_jit_pids, sizeof(*r->jit_pids), cmp_u32);
	}
	return r->nr_jit_pids &&
	       bsearch(&pid, r->jit_pids, r->nr_jit_pids, sizeof(*r->jit_pids), cmp_u32) != NULL;
}

void resolver_quality_counts(const struct resolver *r, uint64_t counts[3])
{
	memcpy(counts, r->counts, sizeof(r->counts));
}

void resolver_weak_modules(const struct resolver *r,
			   void (*cb)(void *ctx, const char *module, enum symq q, const char *why),
			   void *ctx)
{
	size_t i;

	for (i = 0; i < r->nr_elfs; i++)
		if (r->elfs[i].e && symmod_quality(r->elfs[i].e) != SYMQ_FULL)
			cb(ctx, r->elfs[i].module, symmod_quality(r->elfs[i].e), symmod_why(r->elfs[i].e));
}

void resolver_pclntab_modules(const struct resolver *r, void (*cb)(void *ctx, const char *module),
			      void *ctx)
{
	size_t n = strlen(SYMMOD_SOURCE_GO_PCLNTAB), l, i;
	const char *s;

	for (i = 0; i < r->nr_elfs; i++) {
		if (!r->elfs[i].e || !(s = symmod_source(r->elfs[i].e)))
			continue;
		l = strlen(s);
		if (l >= n && !strcmp(s + l - n, SYMMOD_SOURCE_GO_PCLNTAB))
			cb(ctx, r->elfs[i].module);
	}
}

void resolver_remote_modules(const struct resolver *r,
			     void (*cb)(void *ctx, const char *module, const char *source,
					int fetched),
			     void *ctx)
{
	size_t i;

	for (i = 0; i < r->nr_elfs; i++)
		if (r->elfs[i].e && symmod_remote_served(r->elfs[i].e))
			cb(ctx, r->elfs[i].module, symmod_source(r->elfs[i].e),
			   symmod_remote_served(r->elfs[i].e) == 1);
}

static void resolve_kernel(struct resolver *r, uint64_t ts, uint64_t addr, struct resolve_frame *f)
{
	struct kallsyms *k = get_ksyms(r);
	const char *module = NULL;

	f->kernel = 1;
	f->map = proctree_map(r->pt, ZT_PID_KERNEL, ts, addr);
	if (k) {
		f->sym = kallsyms_lookup(k, addr, &f->offset, &module);
		if (f->sym) {
			f->module = module ? module : "[kernel.kallsyms]";
			f->quality = SYMQ_BASIC;
			return;
		}
	}
	f->module = "[kernel.kallsyms]";
	f->offset = addr;
}

/* A Python frame (prof_is_py(addr)): named from the profile's code
 * objects, in no mapping. Its position is kept until resolver_free(), or
 * without memo until the next one. */
static int resolve_py(struct resolver *r, uint64_t addr, struct resolve_frame *f)
{
	struct pyframe py;
	struct fi_loc *loc = &r->py_loc;
	int ret;

	if (!r->py && (ret = pyframes_new(r->p, &r->py)))
		return ret;
	if ((ret = pyframes_lookup(r->py, addr, &py)))
		return ret;
	f->module = py.module;
	f->offset = py.offset;
	if (!py.sym) {
		f->quality = SYMQ_NONE;
		return 0;
	}
	if (!r->no_memo && (!(loc = malloc(sizeof(*loc))) || own(r, loc))) {
		free(loc);
		return -ENOMEM;
	}
	*loc = py.loc;
	f->sym = py.sym;
	f->locs = loc;
	f->nr_locs = 1;
	f->quality = SYMQ_FULL;
	return 0;
}

static int resolve_user(struct resolver *r, uint32_t pid, uint64_t ts, const struct prof_mmap *m,
			uint64_t addr, struct resolve_frame *f)
{
	const struct symmod *e = NULL;
	struct fi_result res;
	uint64_t off;
	size_t i;
	int ret;

	/* in no mapping, and nothing else names them */
	if (prof_is_py(addr))
		return resolve_py(r, addr, f);
	for (i = 0; i < r->nr_sources; i++) {
		ret = r->sources[i].resolve(r->sources[i].ctx, r->p, pid, ts, m, addr, f);
		if (ret < 0)
			return ret;
		if (ret) {
			f->map = m;
			f->kernel = 0;
			if (!f->module)
				f->module = m ? map_module(m) : "[unknown]";
			return 0;
		}
		memset(f, 0, sizeof(*f));
	}
	f->map = m;
	if (!m || prof_path_is_anon(m->path)) {
		const struct rs_pmap *pm = get_pmap(r, pid);

		if (!pm)
			return -ENOMEM;
		if (pm->jd) {
			const struct jitdump_region *jr = jitdump_lookup(pm->jd, addr, ts, NULL);

			if (jr && jr->name[0]) {
				f->sym = jr->name;
				f->offset = addr - jr->start;
				f->module = pm->module;
				f->quality = SYMQ_BASIC;
				f->jit = 1;
				return 0;
			}
		}
		if (pm->m && (f->sym = perfmap_lookup(pm->m, addr, &f->offset))) {
			f->module = pm->module;
			f->quality = SYMQ_BASIC;
			f->jit = 1;
			return 0;
		}
		if (!m) {
			f->module = "[unknown]";
			f->offset = addr;
			return 0;
		}
		f->module = map_module(m);
		f->offset = addr - m->start;
		return 0;
	}
	f->module = map_module(m);
	off = prof_mmap_offset(m, addr);
	f->offset = off;
	if (r->no_files)
		return 0;
	ret = get_elf(r, (size_t)(m - r->p->mmaps), &e);
	if (ret)
		return ret;
	if (!e || symmod_lookup_offset(e, off, &res) || !res.n)
		return 0;
	return take_result(r, e, &res, f, 0);
}

int resolver_resolve_module(struct resolver *r, const char *module,
			    const struct prof_build_id *bid, uint64_t off, struct resolve_frame *f)
{
	char key[2 * ZT_BUILD_ID_MAX + 3];
	const struct symmod *e;
	struct fi_result res;
	uint32_t i;
	int ret;

	memset(f, 0, sizeof(*f));
	f->module = module;
	f->offset = off;
	if (!bid->len || r->no_files)
		return 0;
	if (r->last_bid.len == bid->len && !memcmp(r->last_bid.data, bid->data, bid->len) &&
	    !r->elfs[r->last_elf].stale) {
		i = r->last_elf; /* a query asks one module's frames in a row */
	} else {
		ret = get_elf_key(r, bid_key(bid, key), NULL, bid, "", &i);
		if (ret)
			return ret;
		r->last_bid = *bid;
		r->last_elf = i;
	}
	e = r->elfs[i].e;
	if (!e || symmod_lookup_offset(e, off, &res) || !res.n)
		return 0;
	return take_result(r, e, &res, f, 1);
}

void resolver_forget_module(struct resolver *r, const struct prof_build_id *bid)
{
	char key[2 * ZT_BUILD_ID_MAX + 3];
	size_t j;
	uint32_t i;

	if (!r->nr_elfs)
		return; /* nothing opened: an empty table */
	bid_key(bid, key);
	for (j = zt_htab_first(&r->elf_hash, zt_hash_str(key)); zt_htab_get(&r->elf_hash, j, &i);
	     j = zt_htab_next(&r->elf_hash, j))
		if (!strcmp(r->elfs[i].key, key)) {
			symmod_free(r->elfs[i].e);
			r->elfs[i].e = NULL;
			r->elfs[i].stale = 1;
			return;
		}
}

static uint64_t frame_hash_of(uint64_t a, uint64_t b, uint32_t pid)
{
	return zt_hash_mix(zt_hash_mix(zt_hash_mix(0x9e3779b97f4a7c15ull, a), b), pid);
}

static inline uint64_t frame_hash_at(const void *r, uint32_t i)
{
	const struct rs_frame *c = &((const struct resolver *)r)->frames[i];

	return frame_hash_of(c->a, c->b, c->pid);
}

int resolver_resolve(struct resolver *r, uint32_t pid, uint64_t ts, uint64_t addr, int is_kernel,
		     struct resolve_frame *f)
{
	struct resolve_frame nf = { 0 };
	const struct prof_mmap *m = NULL;
	uint64_t a = KEY_KERNEL;
	uint32_t kpid = 0, i;
	size_t j;
	int ret;

	if (!is_kernel && prof_is_py(addr)) {
		a = KEY_PY; /* in no mapping, the same in every process */
	} else if (!is_kernel) {
		m = proctree_map(r->pt, pid, ts, addr);
		a = m ? (uint64_t)(m - r->p->mmaps) + 1 : 0;
		if (!m || prof_path_is_anon(m->path))
			kpid = pid;
	}
	if (kpid) {
		/* code in a jitdump is replaced over time: answer by sample time */
		const struct rs_pmap *pm = get_pmap(r, pid);

		if (!pm)
			return -ENOMEM;
		if (pm->jd) {
			memset(f, 0, sizeof(*f));
			return resolve_user(r, pid, ts, m, addr, f);
		}
	}
	if (r->no_memo) {
		memset(f, 0, sizeof(*f));
		if (is_kernel)
			resolve_kernel(r, ts, addr, f);
		else if ((ret = resolve_user(r, pid, ts, m, addr, f)))
			return ret;
		r->counts[f->quality]++;
		return 0;
	}
	if (zt_htab_reserve(&r->frame_hash, 1, frame_hash_at, r))
		return -ENOMEM;
	for (j = zt_htab_first(&r->frame_hash, frame_hash_of(a, addr, kpid));
	     zt_htab_get(&r->frame_hash, j, &i); j = zt_htab_next(&r->frame_hash, j)) {
		const struct rs_frame *c = &r->frames[i];

		if (c->a == a && c->b == addr && c->pid == kpid) {
			*f = c->f;
			return 0;
		}
	}
	if (is_kernel) {
		resolve_kernel(r, ts, addr, &nf);
	} else {
		ret = resolve_user(r, pid, ts, m, addr, &nf);
		if (ret)
			return ret;
	}
	if (ZT_GROW(r->frames, r->cap_frames, r->nr_frames + 1))
		return -ENOMEM;
	r->frames[r->nr_frames] = (struct rs_frame){ a, addr, kpid,
						     nf.map ? (uint32_t)(nf.map - r->p->mmaps) + 1 : 0, nf };
	r->counts[nf.quality]++;
	zt_htab_set(&r->frame_hash, j, (uint32_t)r->nr_frames);
	r->nr_frames++;
	*f = nf;
	return 0;
}

int resolver_update(struct resolver *r, const struct proctree *pt)
{
	const struct profile *p = r->p;
	size_t i;

	if (p->nr_mmaps > r->nr_map_elf) {
		int32_t *m = realloc(r->map_elf, p->nr_mmaps * sizeof(*m));

		if (!m)
			return -ENOMEM;
		for (i = r->nr_map_elf; i < p->nr_mmaps; i++)
			m[i] = -1;
		r->map_elf = m;
		r->nr_map_elf = p->nr_mmaps;
	}
	/* the mappings array may have moved: the cached frames point into it */
	for (i = 0; i < r->nr_frames; i++)
		r->frames[i].f.map = r->frames[i].mi ? &p->mmaps[r->frames[i].mi - 1] : NULL;
	r->pt = pt;
	return 0;
}
