// SPDX-License-Identifier: GPL-2.0-or-later
/* One module's symbols: found, extracted once into GSYM, cached by build id. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/log.h"
#include "libprof/zbuf.h"
#include "symbolizer/debuginfod.h"
#include "symbolizer/dwarfsyms.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/fileid.h"
#include "symbolizer/gopclntab.h"
#include "symbolizer/gsym.h"
#include "symbolizer/symmod.h"

#define META_MAGIC "zt-symmod 12" /* bump when extraction changes: older caches are rebuilt */
/* the previous one, whose full tables are as good as new ones (12 added
 * Go's pclntab, which only betters tables that were not full): kept */
#define META_MAGIC_FULL_OK "zt-symmod 11"
#define REMOTE_SOURCE "symbol database" /* how the remote's answers' sources start */


struct symmod {
	struct gsym *g;      /* NULL: no symbols at all */
	struct zbuf image;   /* the GSYM image when not mapped from the cache */
	struct symmod_seg *segs;
	size_t nr_segs, cap_segs;
	enum symq q;
	int remote; /* symmod_remote_served() */
	char why[128];
	char source[PATH_MAX];
};

void symmod_remote_release(struct symmod_remote *a)
{
	free(a->image);
	a->image = NULL;
	a->len = 0;
}

int symmod_remote_served(const struct symmod *m)
{
	return m->remote;
}

enum symq symmod_quality(const struct symmod *m)
{
	return m->q;
}

const char *symmod_why(const struct symmod *m)
{
	return m->why;
}

const char *symmod_source(const struct symmod *m)
{
	return m->source;
}

void symmod_free(struct symmod *m)
{
	if (!m)
		return;
	gsym_free(m->g);
	zbuf_release(&m->image);
	free(m->segs);
	free(m);
}

int symmod_image(const struct symmod *m, const void **data, size_t *len)
{
	if (!m->g)
		return -ENOENT;
	*data = gsym_image(m->g, len);
	return 0;
}

size_t symmod_segments(const struct symmod *m, struct symmod_seg *segs, size_t max)
{
	memcpy(segs, m->segs, (m->nr_segs < max ? m->nr_segs : max) * sizeof(*segs));
	return m->nr_segs;
}

int symmod_elf_segments_of(struct Elf *e, int code_only, struct symmod_seg *segs, size_t max,
			   size_t *nr)
{
	uint64_t delta = 0;
	int have_delta = 0;
	size_t i, n;

	*nr = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n))
		return -ENOEXEC;
	/* the vaddr - offset delta of the first segment that kept contents */
	for (i = 0; i < n && !have_delta; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_filesz &&
		    ph.p_vaddr >= ph.p_offset) {
			delta = ph.p_vaddr - ph.p_offset;
			have_delta = 1;
		}
	}
	for (i = 0; i < n; i++) {
		struct symmod_seg sg;
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    (code_only && !(ph.p_flags & PF_X)))
			continue;
		sg = (struct symmod_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
		if (!ph.p_filesz) {
			/* a debug file's: objcopy moved GNU ld's to offset 0 */
			if (!ph.p_offset && ph.p_vaddr != delta) {
				if (!have_delta || ph.p_vaddr < delta)
					continue; /* where it was is lost */
				sg.off = ph.p_vaddr - delta;
			}
			sg.size = ph.p_memsz;
		}
		if (*nr < max)
			segs[*nr] = sg;
		++*nr;
	}
	return 0;
}

int symmod_elf_segments(const char *path, int code_only, struct symmod_seg *segs, size_t max,
			size_t *nr)
{
	Elf *e;
	int fd, err;

	*nr = 0;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = symmod_elf_segments_of(e, code_only, segs, max, nr);
	elf_end(e);
	close(fd);
	return err;
}

/* PT_LOAD segments of an ELF file. */
static int read_segments(const char *path, struct symmod *m)
{
	size_t n;
	int err = symmod_elf_segments(path, 0, NULL, 0, &n);

	if (err)
		return err;
	if (ZT_GROW(m->segs, m->cap_segs, n))
		return -ENOMEM;
	err = symmod_elf_segments(path, 0, m->segs, n, &m->nr_segs);
	return err;
}

int symmod_seg_vaddr(const struct symmod_seg *segs, size_t n, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (off >= segs[i].off && off - segs[i].off < segs[i].size) {
			*vaddr = off - segs[i].off + segs[i].vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int symmod_offset_to_vaddr(const struct symmod *m, uint64_t off, uint64_t *vaddr)
{
	/* no segments known (ET_REL, a GSYM given alone): offsets are addresses */
	if (!m->nr_segs) {
		*vaddr = off;
		return 0;
	}
	return symmod_seg_vaddr(m->segs, m->nr_segs, off, vaddr);
}

int symmod_lookup_vaddr(const struct symmod *m, uint64_t vaddr, struct fi_result *r)
{
	if (!m->g)
		return -ENOENT;
	return gsym_lookup(m->g, vaddr, r) ? -ENOENT : 0;
}

int symmod_lookup_vaddr_all(const struct symmod *m, uint64_t vaddr, struct fi_result *r)
{
	if (!m->g)
		return -ENOENT;
	return gsym_lookup_all(m->g, vaddr, r) ? -ENOENT : 0;
}

int symmod_lookup_offset_all(const struct symmod *m, uint64_t off, struct fi_result *r)
{
	uint64_t vaddr;

	if (symmod_offset_to_vaddr(m, off, &vaddr))
		return -ENOENT;
	return symmod_lookup_vaddr_all(m, vaddr, r);
}

int symmod_lookup_offset(const struct symmod *m, uint64_t off, struct fi_result *r)
{
	uint64_t vaddr;

	if (symmod_offset_to_vaddr(m, off, &vaddr))
		return -ENOENT;
	return symmod_lookup_vaddr(m, vaddr, r);
}

/* ---- the cache: DIR/gsym/<id>.gsym and <id>.meta ------------------------ */

static int cache_paths(const struct buildid_cache *c, const struct prof_build_id *bid, char *gsym,
		       char *meta, size_t n)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1];

	if (!c || !c->dir || !bid || bid->len < 2)
		return -ENOENT;
	prof_build_id_hex(bid, hex);
	if (snprintf(gsym, n, "%s/gsym/%s.gsym", c->dir, hex) >= (int)n ||
	    snprintf(meta, n, "%s/gsym/%s.meta", c->dir, hex) >= (int)n)
		return -ENAMETOOLONG;
	return 0;
}

/* The meta file: quality, why, source and the load segments, as text.
 * 0; 1 for a meta of META_MAGIC_FULL_OK; a negative errno. */
static int load_meta(const char *path, struct symmod *m)
{
	char *d, *line, *save = NULL;
	size_t n;
	int ok = 0;

	if (zt_read_file(path, 1 << 20, &d, &n))
		return -ENOENT;
	for (line = strtok_r(d, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b, c;
		int q;

		if (!strcmp(line, META_MAGIC)) {
			ok = 1;
		} else if (!strcmp(line, META_MAGIC_FULL_OK)) {
			ok = 2;
		} else if (sscanf(line, "quality %d", &q) == 1 && q >= SYMQ_NONE && q <= SYMQ_FULL) {
			m->q = (enum symq)q;
		} else if (!strncmp(line, "why ", 4)) {
			snprintf(m->why, sizeof(m->why), "%s", line + 4);
		} else if (!strncmp(line, "source ", 7)) {
			snprintf(m->source, sizeof(m->source), "%s", line + 7);
		} else if (sscanf(line, "load %llx %llx %llx", &a, &b, &c) == 3) {
			if (ZT_GROW(m->segs, m->cap_segs, m->nr_segs + 1))
				break;
			m->segs[m->nr_segs++] = (struct symmod_seg){ a, b, c };
		}
	}
	free(d);
	return ok ? ok - 1 : -EBADMSG;
}

/* The cache's meta: 0 when current, or older but full; else -ESTALE or
 * load_meta's error. */
static int cached_meta(const char *path, struct symmod *m)
{
	int r = load_meta(path, m);

	return r == 1 && m->q != SYMQ_FULL ? -ESTALE : r < 0 ? r : 0;
}

int symmod_meta_format(struct zbuf *out, enum symq q, const char *why, const char *source,
		       const struct symmod_seg *segs, size_t nr_segs)
{
	char line[128];
	size_t i;

	why = why ? why : "";
	source = source ? source : "";
	if (strchr(why, '\n') || strchr(source, '\n'))
		return -EINVAL;
	snprintf(line, sizeof(line), "%s\nquality %d\nwhy ", META_MAGIC, (int)q);
	zbuf_put(out, line, strlen(line));
	zbuf_put(out, why, strlen(why));
	zbuf_put(out, "\nsource ", 8);
	zbuf_put(out, source, strlen(source));
	zbuf_put_u8(out, '\n');
	for (i = 0; i < nr_segs; i++) {
		snprintf(line, sizeof(line), "load %llx %llx %llx\n", (unsigned long long)segs[i].off,
			 (unsigned long long)segs[i].vaddr, (unsigned long long)segs[i].size);
		zbuf_put(out, line, strlen(line));
	}
	return out->err ? -ENOMEM : 0;
}

/* The meta file next to the GSYM, written with it into the cache. */
static void save_meta(const struct symmod_opts *o, const char *path, const struct symmod *m,
		      const char *src)
{
	struct zbuf text;

	zbuf_init(&text);
	if (!symmod_meta_format(&text, m->q, m->why, m->source, m->segs, m->nr_segs))
		buildid_cache_store(o->cache, path, text.data, text.len, src);
	zbuf_release(&text);
}


/* Write data to path through a temporary file (new, not through a link)
 * and a rename, so readers never see half a file. */
static int write_atomic(const void *data, size_t len, const char *path)
{
	char tmp[PATH_MAX];
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	err = zt_write_all(fd, data, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* ---- extraction ------------------------------------------------------------ */

static void progress_cb(void *ctx, long done, long total)
{
	const struct symmod_opts *o = ctx;

	if (o->progress)
		o->progress(o->progress_ctx, "debuginfod", done, total);
}

/* The symbols of path with its MiniDebugInfo (.gnu_debugdata: an
 * xz-compressed ELF whose .symtab has the functions .dynsym lacks) into
 * t, replacing what t had. -ENOENT when there is none. */
static int minidebuginfo(const char *path, struct fi_table *t)
{
	Elf *main_elf = NULL, *mini = NULL;
	void *img = NULL;
	size_t len;
	int fd = -1, err, has = 0;

	err = debugfind_minidebuginfo(path, &img, &len);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	main_elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	mini = elf_memory(img, len);
	if (!main_elf || !mini) {
		err = -ENOEXEC;
		goto out;
	}
	fi_table_release(t);
	fi_table_init(t);
	err = dwarfsyms_extract_minidebuginfo(main_elf, mini, t, &has);
out:
	elf_end(mini);
	elf_end(main_elf);
	if (fd >= 0)
		close(fd);
	free(img);
	return err;
}

/* The symbol tables' names of path only (symmod_opts.no_dwarf), or its
 * MiniDebugInfo's, which has names only too. */
static int extract_names(const char *path, struct fi_table *t, struct symmod *m)
{
	int err = dwarfsyms_extract(path, NULL, t, NULL);

	if (err)
		return err;
	if (!minidebuginfo(path, t))
		snprintf(m->source, sizeof(m->source), "MiniDebugInfo (.gnu_debugdata)");
	else
		snprintf(m->source, sizeof(m->source), "symbol table");
	m->q = t->nr_funcs ? SYMQ_BASIC : SYMQ_NONE;
	snprintf(m->why, sizeof(m->why), "%s",
		 t->nr_funcs ? "names only (DWARF not read)" : "stripped: no symbols");
	return 0;
}

/* The Go code of the binary at path from its pclntab into t, the
 * functions t has outside it staying (a cgo binary's C code): 0 when it
 * was taken; 1 when there is none, or t's DWARF covers it; -ENOMEM. A
 * damaged one is said, and *bad set for the why. */
static int go_pclntab(const char *path, struct fi_table *t, const char **bad)
{
	int err = gopclntab_extract(path, t, NULL);

	if (err == -ENOMEM)
		return err;
	if (!err)
		return 0;
	if (err != -ENOENT && err != -EEXIST) {
		zt_warn("'%s': its Go pclntab cannot be read (%s): symbol table names only", path,
			strerror(-err));
		*bad = " (go pclntab damaged)";
	}
	return 1;
}

/* Build the fi_table of the binary at path: its DWARF, or a separate debug
 * file, or debuginfod's, else a Go binary's pclntab, else the symbol
 * tables. Sets m's quality, why and source. */
static int extract(const struct symmod_opts *o, const char *path, const char *target,
		   const struct prof_build_id *bid, struct fi_table *t, struct symmod *m)
{
	char dbg[PATH_MAX], *dl = NULL;
	const char *go_bad = "";
	int has_dwarf = 0, err;

	if (o->no_dwarf)
		return extract_names(path, t, m);
	/* DWARF in the binary itself first: the common case of a -g build */
	err = dwarfsyms_extract(path, path, t, &has_dwarf);
	if (err)
		return err;
	if (has_dwarf) {
		m->q = SYMQ_FULL;
		/* a cgo binary whose DWARF is its C code's alone (go build
		 * -ldflags=-w): its Go code from the pclntab */
		if ((err = go_pclntab(path, t, &go_bad)) < 0)
			return err;
		snprintf(m->source, sizeof(m->source), "DWARF in the binary%s",
			 err ? "" : ", " SYMMOD_SOURCE_GO_PCLNTAB);
		return 0;
	}
	/* debugfind puts --symfs before the path the process saw itself */
	if (!debugfind(&o->find, target, bid, dbg, sizeof(dbg))) {
		snprintf(m->source, sizeof(m->source), "%s", dbg);
	} else if (!o->no_debuginfod && bid && bid->len &&
		   !zt_debuginfod_find(bid, 0, progress_cb, (void *)o, &dl)) {
		snprintf(dbg, sizeof(dbg), "%s", dl);
		snprintf(m->source, sizeof(m->source), "debuginfod");
		free(dl);
	} else {
		dbg[0] = 0;
	}
	if (dbg[0]) {
		fi_table_release(t);
		fi_table_init(t);
		err = dwarfsyms_extract(path, dbg, t, &has_dwarf);
		if (err)
			return err;
	}
	if (has_dwarf) {
		m->q = SYMQ_FULL;
		if ((err = go_pclntab(path, t, &go_bad)) < 0)
			return err;
		if (!err && strlen(m->source) + 16 < sizeof(m->source))
			strcat(m->source, ", " SYMMOD_SOURCE_GO_PCLNTAB);
		return 0;
	}
	/* a Go binary without DWARF (go build -ldflags='-s -w'): its pclntab
	 * has names, lines and inline trees; symbol-table names stay for the
	 * code outside it (cgo's C code) */
	if ((err = go_pclntab(path, t, &go_bad)) < 0)
		return err;
	if (!err) {
		m->q = SYMQ_FULL;
		m->why[0] = 0;
		snprintf(m->source, sizeof(m->source), "%s", SYMMOD_SOURCE_GO_PCLNTAB);
		return 0;
	}
	if (!dbg[0] && !minidebuginfo(path, t)) {
		/* Fedora-style .gnu_debugdata: local function names, no lines */
		m->q = t->nr_funcs ? SYMQ_BASIC : SYMQ_NONE;
		snprintf(m->why, sizeof(m->why), "no debug info (MiniDebugInfo names only)");
		snprintf(m->source, sizeof(m->source), "MiniDebugInfo (.gnu_debugdata)");
		return 0;
	}
	if (t->nr_funcs) {
		m->q = SYMQ_BASIC;
		snprintf(m->why, sizeof(m->why), "no debug info%s", go_bad);
		if (!dbg[0])
			snprintf(m->source, sizeof(m->source), "symbol table");
		return 0;
	}
	m->q = SYMQ_NONE;
	snprintf(m->why, sizeof(m->why), "stripped: no symbols, no debug info%s", go_bad);
	return 0;
}

static int build(const struct symmod_opts *o, const char *path, const char *target,
		 const struct prof_build_id *bid, const struct prof_build_id *key, struct symmod *m)
{
	struct fi_table t;
	int err;

	fi_table_init(&t);
	err = read_segments(path, m);
	if (!err)
		err = extract(o, path, target, bid, &t, m);
	if (!err && !t.uuid_len && key && key->len) {
		/* no GNU build id: the table is marked with the file id it is keyed by */
		memcpy(t.uuid, key->data, key->len);
		t.uuid_len = (uint8_t)key->len;
	}
	if (!err) {
		err = gsym_encode(&t, &m->image);
		if (!err)
			err = gsym_open_mem(m->image.data, m->image.len, &m->g);
	}
	fi_table_release(&t);
	return err;
}

static int file_matches(const char *path, const struct prof_build_id *bid)
{
	struct prof_build_id fb = { 0 };

	if (!bid || !bid->len)
		return 1;
	if (elf_read_build_id(path, &fb))
		return 0;
	return fb.len == bid->len && !memcmp(fb.data, bid->data, bid->len);
}

/* The quality of an image a remote did not say the quality of: full
 * when any function has a file:line row. */
static enum symq image_quality(const struct gsym *g)
{
	if (gsym_has_lines(g))
		return SYMQ_FULL;
	return gsym_nr_funcs(g) ? SYMQ_BASIC : SYMQ_NONE;
}

/* The last source: a remote symbol database (the team server), when the
 * caller gave one; it answers with a whole GSYM image, taken when it is
 * better than what m has. Its segments are used when m has none (the
 * binary is not here). Returns 0 (whether or not it had the module) or
 * -ENOMEM. */
static int remote(const struct symmod_opts *o, const struct prof_build_id *bid, struct symmod *m)
{
	struct symmod_remote a;
	struct gsym *g = NULL;
	const uint8_t *uuid;
	size_t ulen, i;
	enum symq q;
	int err = 0;

	if (!o->remote_gsym || o->no_dwarf || !bid || !bid->len)
		return 0;
	memset(&a, 0, sizeof(a));
	a.q = -1;
	if (o->remote_gsym(o->remote_ctx, bid, &a) || !a.image)
		goto out;
	if (gsym_open_mem(a.image, a.len, &g))
		goto out; /* a bad answer: keep what we had */
	uuid = gsym_uuid(g, &ulen);
	if (ulen && (ulen != bid->len || memcmp(uuid, bid->data, ulen)))
		goto out; /* symbols of another binary */
	q = a.q >= SYMQ_NONE && a.q <= SYMQ_FULL ? (enum symq)a.q : image_quality(g);
	/* better, or names for more functions (a stripped binary's "basic"
	 * may be its PLT entries alone) */
	if (q < m->q || (q == m->q && gsym_nr_funcs(g) <= (m->g ? gsym_nr_funcs(m->g) : 0)))
		goto out;
	gsym_free(g);
	g = NULL;
	zbuf_reset(&m->image);
	zbuf_put(&m->image, a.image, a.len);
	if (m->image.err) {
		err = -ENOMEM;
		goto out;
	}
	gsym_free(m->g);
	m->g = NULL;
	if (gsym_open_mem(m->image.data, m->image.len, &m->g)) {
		m->q = SYMQ_NONE; /* cannot be: the same bytes opened above */
		goto out;
	}
	if (!m->nr_segs && a.nr_segs) {
		if (a.nr_segs > SYMMOD_REMOTE_MAX_SEGS)
			a.nr_segs = SYMMOD_REMOTE_MAX_SEGS;
		if (ZT_GROW(m->segs, m->cap_segs, a.nr_segs)) {
			err = -ENOMEM;
			goto out;
		}
		for (i = 0; i < a.nr_segs; i++)
			m->segs[i] = a.segs[i];
		m->nr_segs = a.nr_segs;
	}
	m->q = q;
	m->remote = 1;
	snprintf(m->why, sizeof(m->why), "%s",
		 q == SYMQ_FULL ? "" : q == SYMQ_BASIC ? "names only (symbol database)" : "");
	snprintf(m->source, sizeof(m->source), "%s",
		 !strncmp(a.source, REMOTE_SOURCE, strlen(REMOTE_SOURCE)) ? a.source : REMOTE_SOURCE);
out:
	gsym_free(g);
	symmod_remote_release(&a);
	return err;
}

/* The archive's symbols of bid into m (o->archive: an unpacked zt
 * archive), when it has them, they are marked with bid, and they are
 * better than what m has: 0; else -ENOENT, m as it was. */
static int from_archive(const struct symmod_opts *o, const struct prof_build_id *bid,
			struct symmod *m)
{
	char gpath[PATH_MAX], mpath[PATH_MAX];
	struct symmod *a;
	const uint8_t *uuid;
	size_t ulen;
	int ret = -ENOENT;

	if (!o->archive || cache_paths(o->archive, bid, gpath, mpath, sizeof(gpath)) ||
	    access(gpath, F_OK))
		return -ENOENT;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOENT;
	zbuf_init(&a->image);
	if (load_meta(mpath, a) < 0 || gsym_open_file(gpath, &a->g) || (m->g && a->q <= m->q))
		goto out;
	/* a table for another binary is not used, whatever its name says */
	uuid = gsym_uuid(a->g, &ulen);
	if (ulen != bid->len || memcmp(uuid, bid->data, ulen))
		goto out;
	gsym_free(m->g);
	free(m->segs);
	m->g = a->g;
	m->segs = a->segs;
	m->nr_segs = a->nr_segs;
	m->cap_segs = a->cap_segs;
	m->q = a->q;
	m->remote = 0;
	snprintf(m->why, sizeof(m->why), "%s", a->why);
	snprintf(m->source, sizeof(m->source), "zt archive (%.*s)", (int)sizeof(m->source) - 16,
		 a->source);
	a->g = NULL;
	a->segs = NULL;
	ret = 0;
out:
	symmod_free(a);
	return ret;
}

/* m into the cache under bid: the image and its meta (src: the file they
 * were made from, or NULL). */
static void store(const struct symmod_opts *o, const struct prof_build_id *bid,
		  const struct symmod *m, const char *src)
{
	char gpath[PATH_MAX], mpath[PATH_MAX];
	const void *img;
	size_t len;

	if (!o->cache || o->no_dwarf || !m->g || cache_paths(o->cache, bid, gpath, mpath, sizeof(gpath)))
		return;
	img = gsym_image(m->g, &len);
	/* the sudo user's cache gets symbols of what they can read only */
	if (!buildid_cache_store(o->cache, gpath, img, len, src))
		save_meta(o, mpath, m, src);
}

int symmod_open(const struct symmod_opts *o, const char *path, const struct prof_build_id *bid,
		struct symmod **out)
{
	char gpath[PATH_MAX], mpath[PATH_MAX], real[PATH_MAX];
	struct prof_build_id fb = { 0 };
	struct symmod *m = calloc(1, sizeof(*m));
	int err, key_is_fileid = 0, from_file = 0;

	if (!m)
		return -ENOMEM;
	zbuf_init(&m->image);
	*out = m;
	snprintf(real, sizeof(real), "%s%s", o->find.symfs ? o->find.symfs : "", path ? path : "");
	if (!bid || !bid->len)
		from_file = 1; /* the id is read from the file: no need to check it against it */
	if ((!bid || !bid->len) && path) {
		struct zt_fileid fid;

		if (!elf_read_build_id(real, &fb) && fb.len) {
			bid = &fb;
		} else if (!fileid_from_path(real, &fid)) {
			/* no GNU build id: keyed by the OpenTelemetry file id */
			fb.len = ZT_FILEID_LEN;
			memcpy(fb.data, fid.b, ZT_FILEID_LEN);
			bid = &fb;
			key_is_fileid = 1;
		}
	}
	/* warm: the cached GSYM, no ELF or DWARF reading at all; less than
	 * full symbols there: the archive's or the remote's may be better */
	if (!o->no_dwarf && !cache_paths(o->cache, bid, gpath, mpath, sizeof(gpath)) &&
	    !cached_meta(mpath, m) && !gsym_open_file(gpath, &m->g)) {
		if (m->q != SYMQ_FULL)
			from_archive(o, bid, m);
		if (!strncmp(m->source, REMOTE_SOURCE, strlen(REMOTE_SOURCE)))
			m->remote = 2; /* an earlier answer of the remote, kept */
		if (m->q == SYMQ_FULL || !o->remote_gsym)
			return 0;
		if (remote(o, bid, m))
			return -ENOMEM;
		if (m->remote == 1)
			store(o, bid, m, NULL);
		return 0;
	}
	gsym_free(m->g);
	m->g = NULL;
	m->nr_segs = 0;
	m->q = SYMQ_NONE;
	m->why[0] = m->source[0] = 0;
	if (!o->no_dwarf && !from_archive(o, bid, m))
		return 0;
	if (!path || access(real, R_OK)) {
		snprintf(m->why, sizeof(m->why), "binary not found");
		goto remote_only;
	}
	if (!key_is_fileid && !from_file && !file_matches(real, bid)) {
		snprintf(m->why, sizeof(m->why), "the file is not the recorded binary (build id differs)");
		goto remote_only;
	}
	err = build(o, real, path, key_is_fileid ? NULL : bid, bid, m);
	if (err == -ENOMEM)
		return err;
	if (err) {
		gsym_free(m->g);
		m->g = NULL;
		m->q = SYMQ_NONE;
		snprintf(m->why, sizeof(m->why), "cannot read it: %s", strerror(-err));
	}
	if (m->q != SYMQ_FULL && remote(o, bid, m) == -ENOMEM)
		return -ENOMEM;
	/* the segments are the binary's, whoever gave the symbols */
	store(o, bid, m, real);
	return 0;
remote_only:
	/* nothing here to read: the remote's symbols, with its segments */
	if (remote(o, bid, m))
		return -ENOMEM;
	if (m->remote == 1)
		store(o, bid, m, NULL);
	return 0;
}

/* path's symbols into a new module (its GSYM in m->image), *q its quality. */
static int extract_module(const struct symmod_opts *o, const char *path, struct symmod **mp,
			  enum symq *q)
{
	struct symmod *m = calloc(1, sizeof(*m));
	struct prof_build_id key = { 0 };
	struct zt_fileid fid;
	int err;

	if (!m)
		return -ENOMEM;
	zbuf_init(&m->image);
	if ((elf_read_build_id(path, &key) || !key.len) && !fileid_from_path(path, &fid)) {
		key.len = ZT_FILEID_LEN; /* named by its file id: marked with it */
		memcpy(key.data, fid.b, ZT_FILEID_LEN);
	}
	err = build(o, path, path, NULL, &key, m);
	*q = m->q;
	if (err)
		symmod_free(m);
	else
		*mp = m;
	return err;
}

int symmod_extract(const struct symmod_opts *o, const char *path, const char *out_path,
		   enum symq *q)
{
	struct symmod *m;
	int err = extract_module(o, path, &m, q);

	if (err)
		return err;
	err = write_atomic(m->image.data, m->image.len, out_path);
	symmod_free(m);
	return err;
}

int symmod_extract_fd(const struct symmod_opts *o, const char *path, int fd, enum symq *q)
{
	struct symmod *m;
	int err = extract_module(o, path, &m, q);

	if (err)
		return err;
	err = zt_write_all(fd, m->image.data, m->image.len);
	symmod_free(m);
	return err;
}
