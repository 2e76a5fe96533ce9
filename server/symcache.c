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
#include "libprof/hash.h"
#include "libprof/frametab.h"
#include "libprof/text.h"
#include "server/norm.h"
#include "session/symstore.h"

struct zs_symcache {
	struct zs_sql *s;
	pthread_rwlock_t lock;
	struct zs_symframes **frames; /* by stored frame id */
	size_t nr_frames;
	struct symstore *ss;          /* the session's resolver over the store's symbols */
	struct resolve_store hooks;
	int debuginfod;
	uint64_t symbolized, hits; /* atomics */
};

/* Before a build id's symbols are opened: the remote store's GSYM into
 * the directory the resolver reads. */
static void hook_prepare(void *ctx, const struct prof_build_id *bid)
{
	struct zs_symcache *c = ctx;
	char hex[41];

	zs_symbol_fetch_remote(c->s, prof_build_id_hex(bid, hex));
}

/* None found: a GSYM made of a stored debug file or binary (fetched from
 * the debuginfod upstreams first when enabled). Called with c->lock held
 * for writing: the store's put must not drop (c->lock again). */
static int hook_missing(void *ctx, const struct prof_build_id *bid)
{
	struct zs_symcache *c = ctx;
	char hex[41];

	return zs_symbol_make(c->s, prof_build_id_hex(bid, hex), c->debuginfod);
}

int zs_symcache_new(struct zs_sql *s, const char *symdir, int debuginfod,
		    struct zs_symcache **out)
{
	struct zs_symcache *c = calloc(1, sizeof(*c));
	struct symstore_opts so = { .dir = symdir };

	if (!c)
		return -ENOMEM;
	c->s = s;
	c->debuginfod = !!debuginfod;
	c->hooks = (struct resolve_store){ hook_prepare, hook_missing, c };
	so.hooks = &c->hooks;
	if (symstore_new(&so, &c->ss)) {
		free(c);
		return -ENOMEM;
	}
	pthread_rwlock_init(&c->lock, NULL);
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
	symstore_free(c->ss);
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
	symstore_forget(c->ss, bid);
	pthread_rwlock_unlock(&c->lock);
}

static struct zs_symframes *sf_new(unsigned n)
{
	return calloc(1, sizeof(struct zs_symframes) + n * sizeof(struct zs_dframe));
}

/* A shown frame: name, module and source path (dir, file: NULL when
 * unknown) in one allocation. */
static int df_set(struct zs_dframe *d, const char *name, const char *module, const char *dir,
		  const char *file, uint32_t line, uint8_t kind)
{
	size_t nl = strlen(name), ml = strlen(module);
	size_t fl = file ? zt_src_path(NULL, 0, dir, file) : 0;

	d->name = malloc(nl + ml + fl + 3);
	if (!d->name)
		return -ENOMEM;
	memcpy(d->name, name, nl + 1);
	memcpy(d->name + nl + 1, module, ml + 1);
	d->module = d->name + nl + 1;
	d->file = d->name + nl + ml + 2;
	zt_src_path(d->name + nl + ml + 2, fl + 1, fl ? dir : NULL, fl ? file : NULL);
	d->line = file ? line : 0;
	d->kind = kind;
	d->hash = zt_hash_mix(zt_hash_str(d->name), zt_hash_str(d->module));
	d->file_hash = zt_hash_str(d->file);
	return 0;
}

/* The frames of one stored address, as symstore_frames gives them. */
struct collect {
	const char *module;
	struct zs_dframe *f;
	size_t n, cap;
};

static int collect_frame(void *ctx, const struct zt_frame *z)
{
	struct collect *co = ctx;
	char buf[512];

	if (ZT_GROW(co->f, co->cap, co->n + 1))
		return -ENOMEM;
	co->f[co->n] = (struct zs_dframe){ 0 };
	zt_frame_name(z, buf, sizeof(buf));
	/* the module as stored (the recording's name of the file) */
	if (df_set(&co->f[co->n], buf, co->module, z->dir, z->file, z->line,
		   z->inlined ? FLAME_INLINED : z->sym ? FLAME_USER : FLAME_UNRESOLVED))
		return -ENOMEM;
	co->n++;
	return 0;
}

/* "[module+0x1f0]": an unresolved frame named as every output names it. */
static void unresolved_name(char *buf, size_t n, const char *mod, uint64_t off, int kernel)
{
	struct zt_frame f = {.module = mod, .offset = off, .kernel = (uint8_t)!!kernel};

	zt_frame_name(&f, buf, n);
}

/* A stored address, named by the session's resolver from the store's symbols. */
static struct zs_symframes *symbolize_addr(struct zs_symcache *c, const struct zs_fkey *k)
{
	struct zs_symframes *sf = NULL;
	struct collect co = { .module = k->module };
	size_t i;

	if (!symstore_frames(c->ss, k->module, &k->bid, k->off, collect_frame, &co) &&
	    (sf = sf_new((unsigned)co.n))) {
		sf->bid = k->bid;
		sf->n = (unsigned)co.n;
		memcpy(sf->f, co.f, co.n * sizeof(*co.f));
		co.n = 0;
	}
	for (i = 0; i < co.n; i++)
		free(co.f[i].name);
	free(co.f);
	return sf;
}

static struct zs_symframes *symbolize(struct zs_symcache *c, const uint8_t *key, size_t len)
{
	struct zs_symframes *sf = NULL;
	struct zs_fkey k;
	char buf[512];

	if (zs_fkey_decode(key, len, &k))
		k = (struct zs_fkey){ .kind = ZS_FK_UNRESOLVED, .module = "[damaged]" };
	if (k.kind == ZS_FK_ADDR)
		return symbolize_addr(c, &k);
	if (!(sf = sf_new(1)))
		return NULL;
	sf->n = 1;
	if (k.kind == ZS_FK_NAMED) {
		uint8_t kind = k.flags & ZS_FF_ROOT ? FLAME_PROCESS : k.flags & ZS_FF_KERNEL ? FLAME_KERNEL
			: k.flags & ZS_FF_JIT ? FLAME_JIT : k.flags & ZS_FF_INLINED ? FLAME_INLINED
			: FLAME_USER;

		sf->f[0].root = !!(k.flags & ZS_FF_ROOT);
		if (df_set(&sf->f[0], k.name, k.module, NULL, NULL, 0, kind)) {
			free(sf);
			return NULL;
		}
		return sf;
	}
	unresolved_name(buf, sizeof(buf), k.module, k.off, k.flags & ZS_FF_KERNEL);
	if (df_set(&sf->f[0], buf, k.module, NULL, NULL, 0, FLAME_UNRESOLVED)) {
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
