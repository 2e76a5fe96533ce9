/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The on-disk cache of unwind tables by build id: DIR/cfi/<id>.cfi, a
 * checked little-endian image of a struct cfipages and the file's code
 * segments (the layout is in cficache.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#include "libprof/hash.h"
#include "libprof/le.h"
#include "symbolizer/cficache.h"

#define HDR_LEN	  40
#define HDR_CSUM  32 /* where the checksum is: the bytes before it are hashed */
#define SEG_LEN	  24
#define RULE_LEN  16
#define PAGE_LEN  16
#define ENTRY_LEN 4
#define MAX_RULES (UINT16_MAX + 1u)

static const char magic[6] = "ZTCFI";

/* The file's size for these counts (no overflow: the counts are 32-bit). */
static uint64_t file_size(uint64_t segs, uint64_t rules, uint64_t pages, uint64_t entries)
{
	return HDR_LEN + SEG_LEN * segs + RULE_LEN * rules + PAGE_LEN * pages + ENTRY_LEN * entries;
}

/* The checksum of an image whose header is at d (len bytes in all). */
static uint64_t checksum(const uint8_t *d, size_t len)
{
	return zt_hash_pair(zt_hash_bytes(d, HDR_CSUM), zt_hash_bytes(d + HDR_LEN, len - HDR_LEN));
}

/* Whether segment s maps somewhere: bytes in the file, ends that do not wrap. */
static int seg_ok(const struct cfi_seg *s)
{
	return s->filesz && s->offset + s->filesz > s->offset && s->vaddr + s->filesz > s->vaddr;
}

/* Everything a BPF program relies on in a table (cficache.h). */
static int check(const struct cfipages *p, const struct cfi_seg *segs, unsigned nr_segs)
{
	uint64_t next = 0;
	size_t i;

	if (nr_segs > CFICACHE_MAX_SEGS || p->nr_rules > MAX_RULES || p->nr_pages > CFIPAGES_MAX ||
	    p->nr_entries > UINT32_MAX)
		return -EINVAL;
	for (i = 0; i < nr_segs; i++)
		if (!seg_ok(&segs[i]))
			return -EINVAL;
	for (i = 0; i < p->nr_rules; i++) {
		const struct cfipage_rule *r = &p->rules[i];

		if (r->kind >= CFITAB_NKINDS || r->cfa_reg > CFITAB_REG_BX ||
		    r->fp > CFITAB_FP_UNDEF || r->bx > CFITAB_FP_UNDEF)
			return -EINVAL;
	}
	for (i = 0; i < p->nr_pages; i++) {
		const struct cfipage *pg = &p->pages[i];
		const struct cfipage_entry *e;

		if (pg->page > UINT64_MAX >> CFIPAGE_SHIFT || (i && pg->page <= pg[-1].page) ||
		    pg->first != next || !pg->nr || pg->nr > p->nr_entries - next)
			return -EINVAL;
		e = &p->entries[pg->first];
		for (uint32_t j = 0; j < pg->nr; j++)
			if (e[j].rule >= p->nr_rules || (j ? e[j].lo <= e[j - 1].lo : e[j].lo != 0))
				return -EINVAL;
		next += pg->nr;
	}
	return next == p->nr_entries ? 0 : -EINVAL;
}

int cficache_encode(const struct cfipages *p, const struct cfi_seg *segs, unsigned nr_segs,
		    void **out, size_t *len)
{
	uint64_t size;
	uint8_t *d, *w;
	size_t i;

	*out = NULL;
	*len = 0;
	if (check(p, segs, nr_segs))
		return -EINVAL;
	size = file_size(nr_segs, p->nr_rules, p->nr_pages, p->nr_entries);
	if (size > SIZE_MAX)
		return -ENOMEM;
	d = malloc((size_t)size);
	if (!d)
		return -ENOMEM;
	memcpy(d, magic, sizeof(magic));
	zt_put_le(d + 6, CFICACHE_VERSION, 2);
	zt_put_le(d + 8, CFIPAGE_SHIFT, 4);
	zt_put_le(d + 12, nr_segs, 4);
	zt_put_le(d + 16, p->nr_rules, 4);
	zt_put_le(d + 20, p->nr_pages, 4);
	zt_put_le(d + 24, p->nr_entries, 4);
	zt_put_le(d + 28, 0, 4);
	w = d + HDR_LEN;
	for (i = 0; i < nr_segs; i++, w += SEG_LEN) {
		zt_put_le(w, segs[i].offset, 8);
		zt_put_le(w + 8, segs[i].vaddr, 8);
		zt_put_le(w + 16, segs[i].filesz, 8);
	}
	for (i = 0; i < p->nr_rules; i++, w += RULE_LEN) {
		const struct cfipage_rule *r = &p->rules[i];

		zt_put_le(w, (uint32_t)r->cfa_off, 4);
		zt_put_le(w + 4, (uint32_t)r->fp_off, 4);
		w[8] = r->kind;
		w[9] = r->cfa_reg;
		w[10] = r->fp;
		w[11] = r->bx;
		zt_put_le(w + 12, (uint32_t)r->bx_off, 4);
	}
	for (i = 0; i < p->nr_pages; i++, w += PAGE_LEN) {
		zt_put_le(w, p->pages[i].page, 8);
		zt_put_le(w + 8, p->pages[i].first, 4);
		zt_put_le(w + 12, p->pages[i].nr, 4);
	}
	for (i = 0; i < p->nr_entries; i++, w += ENTRY_LEN) {
		zt_put_le(w, p->entries[i].lo, 2);
		zt_put_le(w + 2, p->entries[i].rule, 2);
	}
	zt_put_le(d + HDR_CSUM, checksum(d, (size_t)size), 8);
	*out = d;
	*len = (size_t)size;
	return 0;
}

/* n elements of size sz, or NULL for none (*err set when out of memory). */
static void *alloc_array(size_t n, size_t sz, int *err)
{
	void *a;

	if (!n)
		return NULL;
	a = calloc(n, sz);
	if (!a)
		*err = -ENOMEM;
	return a;
}

int cficache_decode(const void *data, size_t len, struct cfipages *p, struct cfi_seg *segs,
		    unsigned *nr_segs)
{
	const uint8_t *d = data, *r;
	uint32_t ns, nr, np, ne;
	size_t i;
	int ret = 0;

	cfipages_release(p);
	*nr_segs = 0;
	if (len < HDR_LEN || memcmp(d, magic, sizeof(magic)) ||
	    zt_get_le(d + 6, 2) != CFICACHE_VERSION || zt_get_le(d + 8, 4) != CFIPAGE_SHIFT ||
	    zt_get_le(d + 28, 4) != 0)
		return -EINVAL;
	ns = (uint32_t)zt_get_le(d + 12, 4);
	nr = (uint32_t)zt_get_le(d + 16, 4);
	np = (uint32_t)zt_get_le(d + 20, 4);
	ne = (uint32_t)zt_get_le(d + 24, 4);
	/* every count bounded before any size is computed from it */
	if (ns > CFICACHE_MAX_SEGS || nr > MAX_RULES || np > CFIPAGES_MAX ||
	    file_size(ns, nr, np, ne) != len || zt_get_le(d + HDR_CSUM, 8) != checksum(d, len))
		return -EINVAL;

	/* each array is at most len bytes: no overflow in the allocations */
	p->rules = alloc_array(nr, sizeof(*p->rules), &ret);
	p->pages = alloc_array(np, sizeof(*p->pages), &ret);
	p->entries = alloc_array(ne, sizeof(*p->entries), &ret);
	if (ret)
		goto out;
	p->nr_rules = p->cap_rules = nr;
	p->nr_pages = p->cap_pages = np;
	p->nr_entries = p->cap_entries = ne;
	r = d + HDR_LEN;
	for (i = 0; i < ns; i++, r += SEG_LEN)
		segs[i] = (struct cfi_seg){zt_get_le(r, 8), zt_get_le(r + 8, 8), zt_get_le(r + 16, 8)};
	for (i = 0; i < nr; i++, r += RULE_LEN) {
		struct cfipage_rule *u = &p->rules[i];

		u->cfa_off = (int32_t)(uint32_t)zt_get_le(r, 4);
		u->fp_off = (int32_t)(uint32_t)zt_get_le(r + 4, 4);
		u->kind = r[8];
		u->cfa_reg = r[9];
		u->fp = r[10];
		u->bx = r[11];
		u->bx_off = (int32_t)(uint32_t)zt_get_le(r + 12, 4);
	}
	for (i = 0; i < np; i++, r += PAGE_LEN)
		p->pages[i] = (struct cfipage){zt_get_le(r, 8), (uint32_t)zt_get_le(r + 8, 4),
					       (uint32_t)zt_get_le(r + 12, 4)};
	for (i = 0; i < ne; i++, r += ENTRY_LEN)
		p->entries[i] =
			(struct cfipage_entry){(uint16_t)zt_get_le(r, 2), (uint16_t)zt_get_le(r + 2, 2)};
	ret = check(p, segs, ns);
	if (!ret)
		*nr_segs = ns;
out:
	if (ret)
		cfipages_release(p);
	return ret;
}

int cficache_segs(Elf *elf, struct cfi_seg *segs, unsigned max)
{
	GElf_Ehdr eh;
	size_t n, i;
	unsigned count = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64 ||
	    !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 || elf_getphdrnum(elf, &n) || !n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		struct cfi_seg s;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -EINVAL;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		s = (struct cfi_seg){ph.p_offset, ph.p_vaddr, ph.p_filesz};
		if (!seg_ok(&s))
			return -EINVAL;
		if (count < max)
			segs[count] = s;
		count++;
	}
	if (count > max)
		return -E2BIG;
	return count > INT_MAX ? -E2BIG : (int)count;
}

int cficache_path(const struct buildid_cache *c, const struct prof_build_id *b, char *out, size_t n)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1];
	int len;

	if (n)
		out[0] = 0;
	if (!c || !c->dir || !b || b->len < 2 || b->len > ZT_BUILD_ID_MAX)
		return -EINVAL;
	prof_build_id_hex(b, hex);
	len = snprintf(out, n, "%s/cfi/%s.cfi", c->dir, hex);
	if (len < 0 || (size_t)len >= n) {
		if (n)
			out[0] = 0;
		return -ENAMETOOLONG;
	}
	return 0;
}

/* All of the regular file at path (at most CFICACHE_MAX_FILE bytes),
 * opened without following a link or blocking on a FIFO. */
static int read_entry(const char *path, uint8_t **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	size_t off = 0, n;
	struct stat st;
	uint8_t *b = NULL;
	int ret = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -ESPIPE;
		goto out;
	}
	if (st.st_size < 0 || (unsigned long long)st.st_size > CFICACHE_MAX_FILE) {
		ret = -EFBIG;
		goto out;
	}
	n = (size_t)st.st_size;
	b = malloc(n ? n : 1);
	if (!b) {
		ret = -ENOMEM;
		goto out;
	}
	/* short reads; a file that shrank is read to its end (and then
	 * found malformed), one that grew only up to its size at open */
	while (off < n) {
		ssize_t r = read(fd, b + off, n - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			goto out;
		}
		if (r == 0)
			break;
		off += (size_t)r;
	}
	*buf = b;
	*len = off;
	b = NULL;
out:
	free(b);
	close(fd);
	return ret;
}

int cficache_load(const struct buildid_cache *c, const struct prof_build_id *b, struct cfipages *p,
		  struct cfi_seg *segs, unsigned *nr_segs)
{
	char path[PATH_MAX];
	uint8_t *d;
	size_t len;
	int ret;

	cfipages_release(p);
	*nr_segs = 0;
	ret = cficache_path(c, b, path, sizeof(path));
	if (!ret)
		ret = read_entry(path, &d, &len);
	if (ret)
		return ret;
	ret = cficache_decode(d, len, p, segs, nr_segs);
	free(d);
	return ret;
}

int cficache_store(const struct buildid_cache *c, const struct prof_build_id *b,
		   const struct cfipages *p, const struct cfi_seg *segs, unsigned nr_segs,
		   const char *src)
{
	char path[PATH_MAX];
	void *d;
	size_t len;
	int ret;

	ret = cficache_path(c, b, path, sizeof(path));
	if (ret)
		return ret;
	ret = cficache_encode(p, segs, nr_segs, &d, &len);
	if (ret)
		return ret;
	ret = buildid_cache_store(c, path, d, len, src);
	free(d);
	return ret;
}
