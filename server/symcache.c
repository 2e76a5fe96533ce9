// SPDX-License-Identifier: GPL-2.0-or-later
/* The symbolizer cache of zt serve: stored frames to shown frames (see symcache.h). */
#include "server/symcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/flame.h"
#include "libprof/array.h"
#include "libprof/frametab.h"
#include "libprof/text.h"
#include "server/norm.h"
#include "symbolizer/debuginfod.h"
#include "symbolizer/demangle.h"
#include "symbolizer/symmod.h"

struct symmod_ent {
	struct prof_build_id bid;
	struct symmod *m; /* NULL: none to be had (negative cache) */
};

struct zs_symcache {
	struct zs_sql *s;
	pthread_rwlock_t lock;
	struct zs_symframes **frames; /* by stored frame id */
	size_t nr_frames;
	struct symmod_ent *mods;
	size_t nr_mods, cap_mods;
	struct buildid_cache cache;
	struct symmod_opts mo;
	int debuginfod;
	uint64_t symbolized, hits; /* atomics */
};

int zs_symcache_new(struct zs_sql *s, const char *symdir, int debuginfod,
		    struct zs_symcache **out)
{
	struct zs_symcache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->s = s;
	pthread_rwlock_init(&c->lock, NULL);
	c->cache.dir = strdup(symdir);
	if (!c->cache.dir) {
		free(c);
		return -ENOMEM;
	}
	/* the store's symbols only: no binaries, no debug directories
	 * (symmod_open is given no path), no debuginfod inside symmod */
	c->mo.cache = &c->cache;
	c->mo.no_debuginfod = 1;
	c->debuginfod = !!debuginfod;
	*out = c;
	return 0;
}

static void symframes_free(struct zs_symframes *f)
{
	unsigned i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++)
		free(f->f[i].name);
	free(f);
}

void zs_symcache_free(struct zs_symcache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_frames; i++)
		symframes_free(c->frames[i]);
	free(c->frames);
	for (i = 0; i < c->nr_mods; i++)
		symmod_free(c->mods[i].m);
	free(c->mods);
	free(c->cache.dir);
	pthread_rwlock_destroy(&c->lock);
	free(c);
}

static int bid_eq(const struct prof_build_id *a, const struct prof_build_id *b)
{
	return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

void zs_symcache_drop(struct zs_symcache *c, const struct prof_build_id *bid)
{
	size_t i;

	if (!c)
		return;
	pthread_rwlock_wrlock(&c->lock);
	for (i = 0; i < c->nr_frames; i++)
		if (c->frames[i] && c->frames[i]->bid.len && bid_eq(&c->frames[i]->bid, bid)) {
			symframes_free(c->frames[i]);
			c->frames[i] = NULL;
		}
	for (i = 0; i < c->nr_mods; i++)
		if (bid_eq(&c->mods[i].bid, bid)) {
			symmod_free(c->mods[i].m);
			c->mods[i] = c->mods[--c->nr_mods];
			break;
		}
	pthread_rwlock_unlock(&c->lock);
}

/* The executable segments of a binary or of its debug file (fetched by
 * us from debuginfod), as push sends them (X-ZT-Symbol-Load). */
static unsigned elf_segments(const char *path, struct zs_symbol_meta *m)
{
	struct symmod_seg sg[16];
	size_t n, i;

	m->nr_segs = 0;
	if (symmod_elf_segments(path, 1, sg, 16, &n))
		return 0;
	for (i = 0; i < n && i < 16; i++) {
		m->segs[i].off = sg[i].off;
		m->segs[i].vaddr = sg[i].vaddr;
		m->segs[i].size = sg[i].size;
	}
	m->nr_segs = (unsigned)i;
	return m->nr_segs;
}

/* A GSYM made of the debug file (else the executable) the store keeps for
 * bid, fetched first from the debuginfod upstreams when it has none and
 * there are some; kept in the store. 0 when stored. Called with c->lock
 * held for writing: the store's put must not drop (c->lock again). */
static int gsym_from_files(struct zs_symcache *c, const struct prof_build_id *bid)
{
	struct symmod_opts xo = { .no_debuginfod = 1 };
	struct zs_symbol_meta meta = { 0 };
	char *path, *exe, tmp[4096], hex[41];
	enum symq q = SYMQ_NONE;
	int err, fd, created, fetched = 0;

	prof_build_id_hex(bid, hex);
	path = zs_symfile_local_path(c->s, hex, ZS_KIND_DEBUGINFO);
	if (!path && c->debuginfod && !zs_sql_symfile_upstream(c->s, hex, ZS_KIND_DEBUGINFO, NULL)) {
		path = zs_symfile_local_path(c->s, hex, ZS_KIND_DEBUGINFO);
		fetched = 1;
	}
	exe = zs_symfile_local_path(c->s, hex, ZS_KIND_EXECUTABLE);
	if (!exe && c->debuginfod && path &&
	    !zs_sql_symfile_upstream(c->s, hex, ZS_KIND_EXECUTABLE, NULL))
		exe = zs_symfile_local_path(c->s, hex, ZS_KIND_EXECUTABLE);
	/* the segments from the executable when there is one: exact */
	if (exe)
		elf_segments(exe, &meta);
	if (!path) {
		path = exe;
		exe = NULL;
	}
	free(exe);
	if (!path)
		return -ENOENT;
	if (!meta.nr_segs)
		elf_segments(path, &meta);
	snprintf(tmp, sizeof(tmp), "%s/dbg.XXXXXX", zs_sql_tmpdir(c->s));
	fd = mkstemp(tmp);
	if (fd < 0) {
		free(path);
		return -errno;
	}
	close(fd);
	err = symmod_extract(&xo, path, tmp, &q);
	free(path);
	if (err) {
		unlink(tmp);
		return err;
	}
	meta.quality = (int)q;
	meta.source = fetched ? "debuginfod" : "stored debug file";
	return zs_sql_symbol_put_nodrop(c->s, hex, tmp, &meta, 1, &created, NULL, 0);
}

/* The symbols of bid (c->lock held for writing). NULL: none. */
static struct symmod *get_mod(struct zs_symcache *c, const struct prof_build_id *bid)
{
	struct symmod *m = NULL;
	size_t i;

	char hex[41];

	for (i = 0; i < c->nr_mods; i++)
		if (bid_eq(&c->mods[i].bid, bid))
			return c->mods[i].m;
	prof_build_id_hex(bid, hex);
	zs_symbol_fetch_remote(c->s, hex); /* the symbolizer reads DIR */
	if (symmod_open(&c->mo, NULL, bid, &m))
		return NULL;
	if (symmod_quality(m) == SYMQ_NONE && !strcmp(symmod_why(m), "binary not found") &&
	    !gsym_from_files(c, bid)) {
		symmod_free(m);
		m = NULL;
		if (symmod_open(&c->mo, NULL, bid, &m))
			return NULL;
	}
	if (symmod_quality(m) == SYMQ_NONE && !strcmp(symmod_why(m), "binary not found")) {
		symmod_free(m);
		m = NULL; /* remembered: not asked again until symbols are put */
	}
	if (ZT_GROW(c->mods, c->cap_mods, c->nr_mods + 1)) {
		symmod_free(m);
		return NULL;
	}
	c->mods[c->nr_mods++] = (struct symmod_ent){ *bid, m };
	return m;
}

static struct zs_symframes *sf_new(unsigned n)
{
	return calloc(1, sizeof(struct zs_symframes) + n * sizeof(struct zs_dframe));
}

/* A shown frame: name, module and source path in one allocation. */
static int df_set(struct zs_dframe *d, const char *name, const char *module,
		  const struct fi_loc *pos, uint8_t kind)
{
	size_t nl = strlen(name), ml = strlen(module);
	size_t fl = pos ? zt_src_path(NULL, 0, pos->dir, pos->file) : 0;

	d->name = malloc(nl + ml + fl + 3);
	if (!d->name)
		return -ENOMEM;
	memcpy(d->name, name, nl + 1);
	memcpy(d->name + nl + 1, module, ml + 1);
	d->module = d->name + nl + 1;
	d->file = d->name + nl + ml + 2;
	zt_src_path(d->name + nl + ml + 2, fl + 1, fl ? pos->dir : NULL, fl ? pos->file : NULL);
	d->line = pos ? pos->line : 0;
	d->kind = kind;
	return 0;
}

/* "[module+0x1f0]": an unresolved frame named as every output names it. */
static void unresolved_name(char *buf, size_t n, const char *mod, uint64_t off, int kernel)
{
	struct zt_frame f = {.module = mod, .offset = off, .kernel = (uint8_t)!!kernel};

	zt_frame_name(&f, buf, n);
}

static struct zs_symframes *symbolize(struct zs_symcache *c, const uint8_t *key, size_t len)
{
	struct zs_symframes *sf = NULL;
	struct zs_fkey k;
	char buf[512];
	unsigned i;

	if (zs_fkey_decode(key, len, &k))
		k = (struct zs_fkey){ .kind = ZS_FK_UNRESOLVED, .module = "[damaged]" };
	if (k.kind == ZS_FK_ADDR) {
		struct symmod *m = get_mod(c, &k.bid);
		struct fi_result r;

		if (m && !symmod_lookup_offset(m, k.off, &r) && r.n) {
			if (!(sf = sf_new(r.n)))
				return NULL;
			sf->bid = k.bid;
			sf->n = r.n;
			for (i = 0; i < r.n; i++) {
				const char *nm = r.locs[i].name ? r.locs[i].name : "";
				char *dm = zt_demangle(nm, 0);
				int err = df_set(&sf->f[i], dm ? dm : nm, k.module, &r.locs[i],
						 i + 1 < r.n ? FLAME_INLINED : FLAME_USER);

				free(dm);
				if (err) {
					symframes_free(sf);
					return NULL;
				}
			}
			return sf;
		}
		if (!(sf = sf_new(1)))
			return NULL;
		sf->bid = k.bid;
		sf->n = 1;
		unresolved_name(buf, sizeof(buf), k.module, k.off, 0);
		if (df_set(&sf->f[0], buf, k.module, NULL, FLAME_UNRESOLVED)) {
			free(sf);
			return NULL;
		}
		return sf;
	}
	if (!(sf = sf_new(1)))
		return NULL;
	sf->n = 1;
	if (k.kind == ZS_FK_NAMED) {
		uint8_t kind = k.flags & ZS_FF_ROOT ? FLAME_PROCESS : k.flags & ZS_FF_KERNEL ? FLAME_KERNEL
			: k.flags & ZS_FF_JIT ? FLAME_JIT : k.flags & ZS_FF_INLINED ? FLAME_INLINED
			: FLAME_USER;

		sf->f[0].root = !!(k.flags & ZS_FF_ROOT);
		if (df_set(&sf->f[0], k.name, k.module, NULL, kind)) {
			free(sf);
			return NULL;
		}
		return sf;
	}
	unresolved_name(buf, sizeof(buf), k.module, k.off, k.flags & ZS_FF_KERNEL);
	if (df_set(&sf->f[0], buf, k.module, NULL, FLAME_UNRESOLVED)) {
		free(sf);
		return NULL;
	}
	return sf;
}

int zs_symcache_fill(struct zs_symcache *c, const struct zs_mem *m, const uint8_t *need,
		     size_t nr, struct zs_symframes *const **frames)
{
	uint64_t made = 0, hits = 0;

	for (;;) {
		size_t i, miss = 0;

		pthread_rwlock_rdlock(&c->lock);
		for (i = 0; i < nr && !miss; i++)
			miss = need[i] && (i >= c->nr_frames || !c->frames[i]);
		if (!miss) {
			for (i = 0; i < nr; i++)
				hits += need[i];
			__atomic_add_fetch(&c->symbolized, made, __ATOMIC_RELAXED);
			__atomic_add_fetch(&c->hits, hits > made ? hits - made : 0, __ATOMIC_RELAXED);
			*frames = c->frames;
			return 0;
		}
		pthread_rwlock_unlock(&c->lock);
		pthread_rwlock_wrlock(&c->lock);
		if (nr > c->nr_frames) {
			struct zs_symframes **f = realloc(c->frames, nr * sizeof(*f));

			if (!f) {
				pthread_rwlock_unlock(&c->lock);
				return -ENOMEM;
			}
			memset(f + c->nr_frames, 0, (nr - c->nr_frames) * sizeof(*f));
			c->frames = f;
			c->nr_frames = nr;
		}
		for (i = 0; i < nr; i++) {
			size_t len;
			const uint8_t *key;

			if (!need[i] || c->frames[i])
				continue;
			key = m->keys.data + m->key_off[i];
			len = (size_t)(m->key_off[i + 1] - m->key_off[i]);
			c->frames[i] = symbolize(c, key, len);
			if (!c->frames[i]) {
				pthread_rwlock_unlock(&c->lock);
				return -ENOMEM;
			}
			made++;
		}
		pthread_rwlock_unlock(&c->lock);
	}
}
void zs_symcache_unlock(struct zs_symcache *c)
{
	pthread_rwlock_unlock(&c->lock);
}

void zs_symcache_counts(struct zs_symcache *c, uint64_t *symbolized, uint64_t *hits)
{
	*symbolized = __atomic_load_n(&c->symbolized, __ATOMIC_RELAXED);
	*hits = __atomic_load_n(&c->hits, __ATOMIC_RELAXED);
}
