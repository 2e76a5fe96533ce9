// SPDX-License-Identifier: GPL-2.0-or-later
/* Frames named from a symbol store, and a resolver's answer as frames (see symstore.h). */
#include "session/symstore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/log.h"
#include "libprof/text.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/debuginfod.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/fileid.h"
#include "symbolizer/gsym.h"
#include "symbolizer/symmod.h"

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

/* ---- the files of a symbol store ---- */

int symstore_check_elf(int fd, const struct prof_build_id *id, int *dwarf, char *msg, size_t msglen)
{
	struct prof_build_id b;
	char why[160], hex[2 * ZT_BUILD_ID_MAX + 1];
	int err = elf_check_fd(fd, why, sizeof(why));

	if (err == -ENOEXEC) {
		zt_say(msg, msglen, "not an ELF file");
		return -EBADMSG;
	}
	if (err) {
		zt_say(msg, msglen, "a damaged ELF file: %s", why);
		return -EBADMSG;
	}
	if (elf_read_build_id_fd(fd, &b)) {
		zt_say(msg, msglen, "cannot read the ELF file's build id");
		return -EBADMSG;
	}
	if (b.len) {
		if (b.len != id->len || memcmp(b.data, id->data, b.len)) {
			zt_hex_encode(b.data, b.len, hex);
			zt_say(msg, msglen,
			       "the ELF file's build id is %s, not the id it is put under", hex);
			return -EBADMSG;
		}
	} else {
		struct zt_fileid f;

		if (id->len != ZT_FILEID_LEN || fileid_from_fd(fd, &f) ||
		    memcmp(f.b, id->data, ZT_FILEID_LEN)) {
			zt_say(msg, msglen,
			       "the ELF file has no GNU build id and its file id is not the id "
			       "it is put under");
			return -EBADMSG;
		}
	}
	*dwarf = elf_fd_has_dwarf(fd);
	return 0;
}

int symstore_check_gsym(const void *data, size_t len, const struct prof_build_id *b, char *msg,
			size_t msglen)
{
	struct gsym *g;
	const uint8_t *u;
	size_t ul;
	int err = 0;

	if (gsym_open_mem(data, len, &g)) {
		zt_say(msg, msglen, "not a GSYM v1 image");
		return -EBADMSG;
	}
	u = gsym_uuid(g, &ul);
	if (ul ? (ul != b->len || memcmp(u, b->data, ul)) : b->len != ZT_FILEID_LEN) {
		zt_say(msg, msglen, "the GSYM's UUID is not the id it is stored under");
		err = -EBADMSG;
	}
	gsym_free(g);
	return err;
}

unsigned symstore_code_segments(const char *path, struct symstore_seg *segs, unsigned max)
{
	struct symmod_seg sg[16];
	size_t n, i;

	if (symmod_elf_segments(path, 1, sg, 16, &n))
		return 0;
	for (i = 0; i < n && i < 16 && i < max; i++)
		segs[i] = (struct symstore_seg){ sg[i].off, sg[i].vaddr, sg[i].size };
	return (unsigned)i;
}

int symstore_make_gsym(const char *path, const char *out, int *quality)
{
	struct symmod_opts xo = { .no_debuginfod = 1 };
	enum symq q = SYMQ_NONE;
	int err = symmod_extract(&xo, path, out, &q);

	*quality = (int)q;
	return err;
}

int symstore_meta_format(struct zbuf *out, int quality, const char *why, const char *source,
			 const struct symstore_seg *segs, size_t nr)
{
	struct symmod_seg sg[SYMMOD_REMOTE_MAX_SEGS];
	size_t i;

	for (i = 0; i < nr && i < SYMMOD_REMOTE_MAX_SEGS; i++)
		sg[i] = (struct symmod_seg){ segs[i].off, segs[i].vaddr, segs[i].size };
	return symmod_meta_format(out, (enum symq)quality, why, source, sg, i);
}

int symstore_mkdirs(const char *dir)
{
	return buildid_cache_mkdirs(dir, 0700);
}

int symstore_debuginfod_find(const struct prof_build_id *bid, enum symstore_want what,
			     const char *src, char **path)
{
	if (what == SYMSTORE_SOURCE)
		return zt_debuginfod_find_source(bid, src, NULL, NULL, path);
	return zt_debuginfod_find(bid, what == SYMSTORE_EXECUTABLE, NULL, NULL, path);
}
