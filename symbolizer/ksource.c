// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel symbols for a recording: this host's, a kallsyms file or a vmlinux, relocated. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/text.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/kcache.h"
#include "symbolizer/ksource.h"
#include "symbolizer/ksubset.h"

#define KSOURCE_FILE_MAX (512u << 20) /* a kallsyms file larger than this is refused */

/* The address of line s[0..l) and the offset of what follows it (its
 * first blank); 0 when the line does not start with 1 to 16 hex digits
 * and a blank. */
static size_t line_addr(const char *s, size_t l, uint64_t *a)
{
	size_t j = 0;
	int v;

	*a = 0;
	while (j < l && j < 17 && (v = zt_hexval(s[j])) >= 0) {
		*a = *a << 4 | (uint64_t)v;
		j++;
	}
	if (!j || j > 16 || j >= l || (s[j] != ' ' && s[j] != '\t'))
		return 0;
	return j;
}

uint64_t ksyms_text_addr(const char *text, size_t len)
{
	const char *s = text, *end = text + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s), j;
		uint64_t a;

		/* "ffffffff81000000 T _text" */
		if ((j = line_addr(s, l, &a)) && l - j == 8 && !memcmp(s + j + 2, " _text", 6) &&
		    (s[j + 1] == 'T' || s[j + 1] == 't'))
			return a;
		s += l + 1;
	}
	return 0;
}

int ksyms_relocate(const char *text, size_t len, uint64_t delta, struct zbuf *out)
{
	const char *s = text, *end = text + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s), j;
		uint64_t a;

		if ((j = line_addr(s, l, &a))) {
			char addr[24];
			/* "ADDR t name\t[mod]": a module's symbol */
			int module = memchr(s + j, '[', l - j) && memchr(s + j, '\t', l - j);

			snprintf(addr, sizeof(addr), "%016llx",
				 (unsigned long long)(module || !a ? a : a + delta));
			zbuf_put(out, addr, 16);
			zbuf_put(out, s + j, l - j);
			zbuf_put_u8(out, '\n');
		}
		s += l + 1;
	}
	return out->err;
}

int ksyms_notes_build_id(const void *notes, size_t len, struct prof_build_id *bid)
{
	const uint8_t *p = notes, *end = p + len;

	bid->len = 0;
	while ((size_t)(end - p) >= 12) {
		uint32_t namesz, descsz, type;
		size_t nl, dl;

		memcpy(&namesz, p, 4);
		memcpy(&descsz, p + 4, 4);
		memcpy(&type, p + 8, 4);
		p += 12;
		nl = ((size_t)namesz + 3) & ~(size_t)3;
		dl = ((size_t)descsz + 3) & ~(size_t)3;
		if (nl > (size_t)(end - p) || dl > (size_t)(end - p - nl))
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(p, "GNU", 4) &&
		    descsz && descsz <= ZT_BUILD_ID_MAX) {
			bid->len = (uint8_t)descsz;
			memcpy(bid->data, p + nl, descsz);
			return 0;
		}
		p += nl + dl;
	}
	return -ENOENT;
}

int ksyms_from_vmlinux(const char *path, struct zbuf *out, struct prof_build_id *bid)
{
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh, symsh;
	uint64_t text = 0;
	Elf_Data *d;
	size_t i, nsyms, nsec;
	int fd, ret = -ENOEXEC;
	uint8_t *exec = NULL; /* per section: executable */
	Elf *e;

	bid->len = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrnum(e, &nsec))
		goto out;
	exec = calloc(nsec ? nsec : 1, 1);
	if (!exec) {
		ret = -ENOMEM;
		goto out;
	}
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			goto out;
		if (elf_ndxscn(scn) < nsec)
			exec[elf_ndxscn(scn)] = (sh.sh_flags & SHF_EXECINSTR) != 0;
		if (sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
			symsh = sh;
		}
	}
	if (!symscn || !symsh.sh_entsize || !(d = elf_getdata(symscn, NULL)))
		goto out;
	nsyms = symsh.sh_size / symsh.sh_entsize;
	for (i = 0; i < nsyms; i++) {
		GElf_Sym s;
		const char *name;
		char addr[24];
		int type;

		if (!gelf_getsym(d, (int)i, &s) ||
		    !(name = elf_strptr(e, symsh.sh_link, s.st_name)) || !name[0])
			continue;
		type = GELF_ST_TYPE(s.st_info);
		if (!strcmp(name, "_text")) {
			text = s.st_value;
			snprintf(addr, sizeof(addr), "%016llx T ", (unsigned long long)s.st_value);
		} else if (s.st_value && s.st_shndx != SHN_UNDEF && s.st_shndx < nsec &&
			   exec[s.st_shndx] && name[0] != '.' && name[0] != '$' &&
			   (type == STT_FUNC || type == STT_NOTYPE)) {
			snprintf(addr, sizeof(addr), "%016llx t ", (unsigned long long)s.st_value);
		} else {
			continue;
		}
		zbuf_put(out, addr, 19);
		zbuf_put(out, name, strlen(name));
		zbuf_put_u8(out, '\n');
	}
	ret = out->err ? out->err : text ? 0 : -ENOENT;
	if (!ret && elf_read_build_id_fd(fd, bid))
		bid->len = 0; /* no readable build id: unknown */
out:
	free(exec);
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/* ---- a recording's kernel ---------------------------------------------- */

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The kernel addresses of p's stacks, each once, sorted (*v: caller frees;
 * a hash pass first, stacks repeat their kernel frames many times). */
struct kwords {
	uint64_t *v;
	size_t n, cap;
	int err;
};

static void add_kword(void *ctx, uint64_t w)
{
	struct kwords *k = ctx;

	if (k->err || ZT_GROW(k->v, k->cap, k->n + 1))
		k->err = -ENOMEM;
	else
		k->v[k->n++] = w;
}

/* The kernel addresses p needs symbols for: its stacks' kernel frames, and
 * the kernel code addresses in its tracepoints' raw records. */
static int kernel_ips(const struct profile *p, uint64_t **out, size_t *nout)
{
	size_t i, n, k = 0;
	struct zt_htab t = { 0 };
	struct kwords kw = { NULL, 0, 0, 0 };
	uint64_t *v;

	kw.cap = p->nr_ips ? p->nr_ips : 1;
	kw.v = malloc(kw.cap * sizeof(*kw.v));
	if (!kw.v)
		return -ENOMEM;
	for (i = 0; i < p->nr_stacks; i++) {
		const uint64_t *ips = profile_stack_ips(p, (uint32_t)i);

		for (unsigned j = 0; j < p->stacks[i].nk; j++)
			if (ips[j])
				kw.v[kw.n++] = ips[j];
	}
	for (i = 0; i < p->nr_raws; i++)
		prof_raw_kernel_words(p->raw_bytes + p->raws[i].off, p->raws[i].len, add_kword,
				      &kw);
	if (kw.err) {
		free(kw.v);
		return kw.err;
	}
	v = kw.v;
	n = kw.n;
	if (zt_htab_reset(&t, n)) { /* room for all */
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		size_t j;
		uint32_t u;
		int seen = 0;

		for (j = zt_htab_first(&t, zt_hash_mix(v[i], 0)); !seen && zt_htab_get(&t, j, &u);
		     j = zt_htab_next(&t, j))
			seen = v[u] == v[i];
		if (!seen) { /* kept, in v[0..k) */
			v[k] = v[i];
			zt_htab_set(&t, j, (uint32_t)k++);
		}
	}
	zt_htab_release(&t);
	qsort(v, k, sizeof(*v), u64_cmp);
	*out = v;
	*nout = k;
	return 0;
}

/* The recorded kernel's _text: the pgoff of perf's kernel mapping, else the
 * _text line of the recorded kallsyms (zt record stores it); 0: unknown. */
static uint64_t recorded_text(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nr_mmaps; i++) {
		const struct prof_mmap *m = &p->mmaps[i];

		if (m->pid == ZT_PID_KERNEL && !strcmp(m->path, "[kernel.kallsyms]") && m->pgoff)
			return m->pgoff;
	}
	for (i = 0; i < p->nr_blobs; i++) {
		const struct prof_blob *b = &p->blobs[i];
		uint64_t t;

		if (b->kind == PROF_BLOB_KALLSYMS && (t = ksyms_text_addr((const char *)b->data, b->len)))
			return t;
	}
	return 0;
}

static void remove_blobs(struct profile *p, uint32_t kind)
{
	size_t i, k = 0;

	for (i = 0; i < p->nr_blobs; i++) {
		if (p->blobs[i].kind == kind)
			free(p->blobs[i].data);
		else
			p->blobs[k++] = p->blobs[i];
	}
	p->nr_blobs = k;
}

static int same_bid(const struct prof_build_id *a, const struct prof_build_id *b)
{
	return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* Whether the recording (build id rec, or host and release) is of this
 * host's kernel build. */
static int host_build(const struct ksource_opts *o, const struct prof_build_id *rec,
		      const char *host, const char *rel, struct prof_build_id *self)
{
	const char *un = o->host_name, *ur = o->host_release;
	struct utsname u;
	char *notes = NULL;
	size_t len;

	self->len = 0;
	if (!zt_read_file(o->host_notes ? o->host_notes : "/sys/kernel/notes", 1u << 20, &notes, &len))
		ksyms_notes_build_id(notes, len, self);
	free(notes);
	if (rec->len && self->len)
		return same_bid(rec, self);
	if (!un || !ur) {
		if (uname(&u))
			return 0;
		un = un ? un : u.nodename;
		ur = ur ? ur : u.release;
		return host && rel && !strcmp(host, un) && !strcmp(rel, ur);
	}
	return host && rel && !strcmp(host, un) && !strcmp(rel, ur);
}

/* The source's text into *d (a kallsyms file, a vmlinux's lines, or this
 * host's kallsyms through the cache, good for the n addresses in v). */
static int read_source(const struct ksource_opts *o, const uint64_t *v, size_t n, char **d,
		       size_t *len, struct ksource_info *info)
{
	struct zbuf z;
	int cached, ret;

	if (o->kallsyms) {
		info->source = o->kallsyms;
		return zt_read_file(o->kallsyms, KSOURCE_FILE_MAX, d, len);
	}
	if (o->vmlinux) {
		info->source = o->vmlinux;
		zbuf_init(&z);
		ret = ksyms_from_vmlinux(o->vmlinux, &z, &info->src_bid);
		if (ret) {
			zbuf_release(&z);
			return ret;
		}
		*d = (char *)z.data;
		*len = z.len;
		return 0;
	}
	info->source = o->host_kallsyms ? o->host_kallsyms : "/proc/kallsyms";
	if (o->host_kallsyms)
		return zt_read_file(o->host_kallsyms, KSOURCE_FILE_MAX, d, len);
	/* /proc/kallsyms costs ~70 ms of kernel time: the per-boot cache */
	return kcache_read(o->cache, v, n, d, len, &cached);
}

static int hidden(const char *d, size_t len)
{
	return len <= 16 || !strncmp(d, "0000000000000000", 16);
}

int ksource_add(struct profile *p, const struct ksource_opts *o, struct ksource_info *info)
{
	const struct prof_blob *kb = profile_find_blob(p, PROF_BLOB_KERNEL_BUILD_ID, UINT32_MAX);
	int opt = o->kallsyms || o->vmlinux, have = !!profile_find_blob(p, PROF_BLOB_KALLSYMS, UINT32_MAX);
	struct ksource_info dummy;
	struct zbuf rel, out;
	uint64_t *v = NULL;
	char *d = NULL;
	size_t n = 0, len = 0;
	int ret;

	info = info ? info : &dummy;
	memset(info, 0, sizeof(*info));
	if (have && !opt)
		return -EEXIST;
	info->rec_text = recorded_text(p);
	if (have && info->rec_text == KSOURCE_FAKE_TEXT)
		return -ENOTSUP;
	if (kb && kb->len && kb->len <= ZT_BUILD_ID_MAX) {
		info->rec_bid.len = (uint8_t)kb->len;
		memcpy(info->rec_bid.data, kb->data, kb->len);
	}
	if (!opt) {
		struct prof_build_id self;

		info->same_build = host_build(o, &info->rec_bid, profile_get_meta(p, "hostname"),
					      profile_get_meta(p, "os_release"), &self);
		info->src_bid = self;
		if (!info->same_build)
			return -EXDEV;
	}
	ret = kernel_ips(p, &v, &n);
	if (ret)
		return ret;
	ret = read_source(o, v, n, &d, &len, info);
	if (ret)
		goto out;
	/* perf checks a vmlinux's build id (symsrc__init) and does not use one that differs */
	if (o->vmlinux && !o->kallsyms && info->rec_bid.len &&
	    !same_bid(&info->rec_bid, &info->src_bid)) {
		ret = -EKEYREJECTED;
		goto out;
	}
	if (hidden(d, len)) {
		ret = -EACCES;
		goto out;
	}
	info->src_text = ksyms_text_addr(d, len);
	if (info->rec_text && info->src_text)
		info->delta = info->rec_text - info->src_text;
	zbuf_init(&rel);
	zbuf_init(&out);
	if (info->delta) {
		/* the lines the samples need, picked from the source as it is
		 * (core kernel addresses moved back by delta, module ones as
		 * they are: modules are not moved), then only those relocated,
		 * not the whole ~10 MB table */
		uint64_t *w = malloc(2 * (n ? n : 1) * sizeof(*w));
		size_t i;

		if (!w) {
			ret = -ENOMEM;
			goto rel_out;
		}
		for (i = 0; i < n; i++) {
			w[2 * i] = v[i];
			w[2 * i + 1] = v[i] - info->delta;
		}
		ret = kallsyms_subset(d, len, w, 2 * n, &rel);
		free(w);
		if (!ret && rel.err)
			ret = rel.err;
		if (!ret)
			ret = ksyms_relocate((const char *)rel.data, rel.len, info->delta, &out);
	} else {
		ret = kallsyms_subset(d, len, v, n, &out);
	}
	if (!ret && out.err)
		ret = out.err;
	if (!ret) {
		if (opt) /* perf's options override what the recording carries */
			remove_blobs(p, PROF_BLOB_KALLSYMS);
		ret = profile_add_blob(p, PROF_BLOB_KALLSYMS, 0, 0, out.data, out.len);
	}
rel_out:
	zbuf_release(&rel);
	zbuf_release(&out);
	free(d);
	d = NULL;
	/* this host's module list only when it is the recording's */
	if (!ret && !opt && !info->delta && !o->host_kallsyms &&
	    !profile_find_blob(p, PROF_BLOB_MODULES, UINT32_MAX) &&
	    !zt_read_file("/proc/modules", 16u << 20, &d, &len))
		ret = profile_add_blob(p, PROF_BLOB_MODULES, 0, 0, d, len);
out:
	free(v);
	free(d);
	return ret;
}

int ksource_live(const struct ksource_opts *o, uint64_t live_text, char **text, size_t *len,
		 struct ksource_info *info)
{
	struct ksource_info dummy;
	struct zbuf rel;
	char *d = NULL;
	size_t n = 0;
	int ret;

	info = info ? info : &dummy;
	memset(info, 0, sizeof(*info));
	if (!o->kallsyms && !o->vmlinux)
		return -EINVAL;
	info->rec_text = live_text;
	ret = read_source(o, NULL, 0, &d, &n, info);
	if (ret)
		return ret;
	if (o->vmlinux && !o->kallsyms) {
		char *notes = NULL;
		size_t nl;

		if (!zt_read_file(o->host_notes ? o->host_notes : "/sys/kernel/notes", 1u << 20, &notes,
				  &nl))
			ksyms_notes_build_id(notes, nl, &info->rec_bid);
		free(notes);
		if (info->rec_bid.len && !same_bid(&info->rec_bid, &info->src_bid)) {
			free(d);
			return -EKEYREJECTED;
		}
	}
	if (hidden(d, n)) {
		free(d);
		return -EACCES;
	}
	info->src_text = ksyms_text_addr(d, n);
	if (live_text && info->src_text)
		info->delta = live_text - info->src_text;
	zbuf_init(&rel);
	ret = ksyms_relocate(d, n, info->delta, &rel);
	free(d);
	if (ret) {
		zbuf_release(&rel);
		return ret;
	}
	*text = (char *)rel.data;
	*len = rel.len;
	return 0;
}
