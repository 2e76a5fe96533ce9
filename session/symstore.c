// SPDX-License-Identifier: GPL-2.0-or-later
/* Frames named from a symbol store, and a resolver's answer as frames (see symstore.h). */
#include "session/symstore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/buildid_cache.h"

struct symstore {
	struct buildid_cache cache;
	struct symmod_opts mo;
	struct resolver *res;
};

int symstore_new(const struct symstore_opts *o, struct symstore **out)
{
	struct symstore *s = calloc(1, sizeof(*s));
	struct resolver_opts ro = { 0 };

	*out = NULL;
	if (!s || !(s->cache.dir = strdup(o->dir))) {
		free(s);
		return -ENOMEM;
	}
	/* the store's symbols only: no binaries, no debug directories (none
	 * is given a path), no debuginfod inside symmod */
	s->mo.cache = &s->cache;
	s->mo.no_debuginfod = 1;
	ro.mo = &s->mo;
	ro.store = o->hooks;
	ro.no_memo = 1; /* the caller keeps the frames */
	if (resolver_new_opts(NULL, NULL, &ro, &s->res)) {
		symstore_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void symstore_free(struct symstore *s)
{
	if (!s)
		return;
	resolver_free(s->res);
	free(s->cache.dir);
	free(s);
}

void symstore_forget(struct symstore *s, const struct prof_build_id *bid)
{
	resolver_forget_module(s->res, bid);
}

int symstore_frames(struct symstore *s, const char *module, const struct prof_build_id *bid,
		    uint64_t off, zt_frame_fn fn, void *ctx)
{
	struct resolve_frame f;
	int ret = resolver_resolve_module(s->res, module, bid, off, &f);

	if (ret)
		return ret;
	return session_frames_of(&f, off, fn, ctx);
}

int session_frames_of(const struct resolve_frame *f, uint64_t addr, zt_frame_fn fn, void *ctx)
{
	struct zt_frame z = { 0 };
	const struct fi_loc *l;
	unsigned k;
	int ret;

	z.module = f->module;
	z.map = f->map;
	z.offset = f->offset;
	z.kernel = (uint8_t)f->kernel;
	z.quality = (uint8_t)f->quality;
	z.jit = (uint8_t)!!f->jit;
	/* in the module's file (the same in every process), for ordering */
	z.addr = f->sym ? addr - f->offset : addr;
	if (f->map)
		z.addr = prof_mmap_offset(f->map, z.addr);
	/* perf's --inline: the functions inlined at this address, innermost first */
	for (k = 0; f->sym && k + 1 < f->nr_locs; k++) {
		struct zt_frame in = z;

		l = &f->locs[k];
		in.sym = l->name ? l->name : "??";
		in.inlined = 1;
		in.dir = l->dir;
		in.line = l->line;
		if (l->file && *l->file) {
			in.file = l->file;
			if (l->line) {
				in.sfile = l->file;
				in.sline = l->line;
			}
		}
		ret = fn(ctx, &in);
		if (ret)
			return ret;
	}
	z.sym = f->sym;
	l = f->nr_locs ? &f->locs[f->nr_locs - 1] : NULL;
	if (l) {
		z.dir = l->dir;
		z.line = l->line;
		if (l->file && *l->file)
			z.file = l->file;
	}
	l = f->nr_locs ? &f->locs[0] : NULL;
	if (l && l->file && *l->file && l->line) {
		z.sfile = l->file;
		z.sline = l->line;
	}
	return fn(ctx, &z);
}
