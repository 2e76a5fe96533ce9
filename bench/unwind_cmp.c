// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Offline unwinding of --call-graph dwarf stack snapshots, two ways on the
 * same perf.data: zt's unwinder (elfutils libdwfl) and libunwind's remote
 * API (accessors over the snapshot and the mapped files, .eh_frame_hdr
 * lookups as perf's unwind-libunwind-local.c does them). Prints the speed
 * of each, frames per sample, and how far their call chains agree.
 * A benchmark, not part of zt (libunwind-dev is needed for it only):
 * `make bench-unwind-cmp` builds build/bench/unwind_cmp and runs it on
 * fresh recordings (bench/unwind_cmp.sh).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <libunwind.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "formats/perfdata.h"
#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/proctree.h"
#include "libprof/profile.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/resolve.h"
#include "symbolizer/unwind.h"
#include "symbolizer/vdso.h"

/* Not in libunwind's public headers: perf declares it the same way. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

#define MAX_FRAMES ZT_MAX_FRAMES
#define MAX_SPACES 512 /* address spaces kept at once, as zt's unwinder */
#define MAX_TRIED  64

static size_t lu_cache_size; /* -c: libunwind's per-space cache entries (0: its default) */
/* -p: libunwind's caching policy; UNW_CACHE_GLOBAL is perf's. Debian's
 * libunwind 1.6.2 makes two rt_sigprocmask calls (a signal-masking lock)
 * per unw_step() under either global or per-thread caching (counted with
 * strace); without a cache it is ~5x slower. */
static unw_caching_policy_t lu_policy = UNW_CACHE_GLOBAL;

/* ---- libunwind: files, modules, address spaces -------------------------- */

/* A binary, mapped once per path. */
struct lu_file {
	char *path;
	int ok; /* ELF with PT_LOADs, mapped */
	struct prof_build_id bid;
	const uint8_t *image;
	size_t size;
	struct {
		uint64_t off, vaddr, filesz, memsz;
	} load[16];
	unsigned nr_load;
	uint64_t vlo, vhi;  /* link-time range of the PT_LOADs */
	int have_table;	    /* .eh_frame_hdr with a usable search table */
	uint64_t hdr_vaddr; /* link-time address of .eh_frame_hdr */
	uint64_t table_off; /* of the search table, from hdr_vaddr */
	uint64_t fde_count;
};

/* A binary placed in one address space. */
struct lu_mod {
	uint64_t lo, hi, bias;
	struct lu_file *f;
};

struct lu_space {
	uint32_t pid;
	uint64_t epoch;
	unw_addr_space_t as;
	struct lu_mod *mods;
	unsigned nr_mods, cap_mods, last;
	const struct prof_mmap *tried[MAX_TRIED];
	unsigned nr_tried;
};

struct lu {
	const struct profile *p;
	const struct proctree *pt;
	struct buildid_cache cache; /* binaries found as zt's unwinder finds them */
	int have_cache;
	char vdso[4096]; /* this machine's vDSO as a file, "" before */
	int vdso_temp, vdso_err;
	struct lu_space *spaces; /* MAX_SPACES, nr_spaces in use */
	size_t nr_spaces;
	struct zt_htab spaces_hash; /* spaces by (pid, epoch) */
	struct lu_file **files;
	size_t cap_files, nr_files;
	struct zt_htab files_hash; /* files by path */
	uint64_t nr_as;	  /* address spaces created */
	uint64_t nr_mods; /* binaries placed in them */
	/* the sample being unwound */
	struct lu_space *cur;
	uint32_t pid;
	uint64_t ts;
	const struct prof_ustack *u;
	uint64_t sp;
	int past_end; /* a read above the snapshot's end */
};

/* Bytes of a DWARF pointer encoding's value (0: one we do not read). */
static unsigned enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		return 8;
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		return 4;
	default:
		return 0;
	}
}

static int file_load(struct lu_file *f)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t i, n;
	struct stat st;
	Elf *e = NULL;
	void *img;
	int fd, ret = -ENOEXEC;
	uint64_t hdr_off = 0, hdr_size = 0;

	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		goto out;
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED)
		goto out;
	f->image = img;
	f->size = (size_t)st.st_size;
	e = elf_memory((char *)img, f->size);
	if (!e || !gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64 || elf_getphdrnum(e, &n))
		goto out;
	f->vlo = UINT64_MAX;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if (ph.p_type == PT_GNU_EH_FRAME) {
			f->hdr_vaddr = ph.p_vaddr;
			hdr_off = ph.p_offset;
			hdr_size = ph.p_filesz;
		}
		if (ph.p_type != PT_LOAD || f->nr_load >= sizeof(f->load) / sizeof(f->load[0]))
			continue;
		f->load[f->nr_load].off = ph.p_offset;
		f->load[f->nr_load].vaddr = ph.p_vaddr;
		f->load[f->nr_load].filesz = ph.p_filesz;
		f->load[f->nr_load].memsz = ph.p_memsz;
		f->nr_load++;
		if ((ph.p_vaddr & ~0xfffull) < f->vlo)
			f->vlo = ph.p_vaddr & ~0xfffull;
		if (ph.p_vaddr + ph.p_memsz > f->vhi)
			f->vhi = ph.p_vaddr + ph.p_memsz;
	}
	if (!f->nr_load)
		goto out;
	/* .eh_frame_hdr: version 1, the encodings of eh_frame_ptr, fde_count
	 * and the table, eh_frame_ptr, fde_count (udata4 as every linker
	 * writes it), the table; libunwind's remote lookup wants the table as
	 * (datarel sdata4, datarel sdata4) pairs */
	if (hdr_size >= 8 && hdr_off <= f->size && hdr_size <= f->size - hdr_off) {
		const uint8_t *h = f->image + hdr_off;
		unsigned ptr = enc_size(h[1]);
		uint32_t cnt;

		if (h[0] == 1 && ptr && h[2] == 0x03 && h[3] == 0x3b && 4 + ptr + 4 <= hdr_size) {
			memcpy(&cnt, h + 4 + ptr, 4);
			f->fde_count = cnt;
			f->table_off = 4 + ptr + 4;
			f->have_table = f->table_off + f->fde_count * 8 <= hdr_size;
		}
	}
	elf_read_build_id_fd(fd, &f->bid);
	ret = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

static inline uint64_t file_hash_at(const void *lu, uint32_t i)
{
	return zt_hash_str(((const struct lu *)lu)->files[i]->path);
}

static struct lu_file *file_get(struct lu *lu, const char *path)
{
	struct lu_file *f;
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&lu->files_hash, 1, file_hash_at, lu))
		return NULL;
	for (j = zt_htab_first(&lu->files_hash, zt_hash_str(path));
	     zt_htab_get(&lu->files_hash, j, &i); j = zt_htab_next(&lu->files_hash, j))
		if (!strcmp(lu->files[i]->path, path))
			return lu->files[i];
	if (ZT_GROW(lu->files, lu->cap_files, lu->nr_files + 1))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	f->ok = !file_load(f);
	lu->files[lu->nr_files] = f;
	zt_htab_set(&lu->files_hash, j, (uint32_t)lu->nr_files++);
	return f;
}

/* The module of the current space that holds addr; adds the binary of an
 * executable mapping that covers it the first time. */
static struct lu_mod *mod_find(struct lu *lu, uint64_t addr)
{
	struct lu_space *s = lu->cur;
	const struct prof_mmap *m;
	struct lu_file *f;
	struct lu_mod *md;
	char path[4096];
	unsigned i;
	size_t l;

	if (s->nr_mods && addr >= s->mods[s->last].lo && addr < s->mods[s->last].hi)
		return &s->mods[s->last];
	for (i = 0; i < s->nr_mods; i++)
		if (addr >= s->mods[i].lo && addr < s->mods[i].hi) {
			s->last = i;
			return &s->mods[i];
		}
	m = proctree_map(lu->pt, lu->pid, lu->ts, addr);
	if (!m || (m->path[0] != '/' && strcmp(m->path, "[vdso]")))
		return NULL;
	for (i = 0; i < s->nr_tried; i++)
		if (s->tried[i] == m)
			return NULL;
	/* the binary as zt's unwinder finds it: the build-id cache copy, the
	 * host's vDSO, else the mapped path */
	if (m->build_id.len && lu->have_cache &&
	    !buildid_cache_path(&lu->cache, &m->build_id, path, sizeof(path))) {
		;
	} else if (m->path[0] == '[') {
		if (!lu->vdso[0] && !lu->vdso_err)
			lu->vdso_err = vdso_path(lu->p, lu->have_cache ? &lu->cache : NULL, &m->build_id,
						 lu->vdso, sizeof(lu->vdso), &lu->vdso_temp);
		if (lu->vdso_err)
			goto bad;
		snprintf(path, sizeof(path), "%s", lu->vdso);
	} else {
		l = strlen(m->path);
		if (l >= sizeof(path))
			goto bad;
		memcpy(path, m->path, l + 1);
		if (l > 10 && !strcmp(path + l - 10, " (deleted)"))
			path[l - 10] = 0;
	}
	f = file_get(lu, path);
	if (!f || !f->ok)
		goto bad;
	/* a binary replaced since the recording: its CFI would be wrong */
	if (m->build_id.len && f->bid.len &&
	    (m->build_id.len != f->bid.len || memcmp(m->build_id.data, f->bid.data, f->bid.len)))
		goto bad;
	for (i = 0; i < f->nr_load; i++)
		if (m->pgoff >= f->load[i].off && m->pgoff - f->load[i].off < f->load[i].filesz)
			break;
	if (i == f->nr_load)
		goto bad;
	if (s->nr_mods == s->cap_mods) {
		unsigned cap = s->cap_mods ? 2 * s->cap_mods : 16;
		struct lu_mod *t = realloc(s->mods, cap * sizeof(*t));

		if (!t)
			return NULL;
		s->mods = t;
		s->cap_mods = cap;
	}
	md = &s->mods[s->nr_mods];
	md->f = f;
	md->bias = m->start - m->pgoff + f->load[i].off - f->load[i].vaddr;
	md->lo = md->bias + f->vlo;
	md->hi = md->bias + f->vhi;
	if (addr < md->lo || addr >= md->hi)
		goto bad;
	s->last = s->nr_mods++;
	lu->nr_mods++;
	return md;
bad:
	if (s->nr_tried < MAX_TRIED)
		s->tried[s->nr_tried++] = m;
	return NULL;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct lu *lu = arg;
	struct lu_mod *md = mod_find(lu, ip);
	unw_dyn_info_t di;

	if (!md || !md->f->have_table)
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = md->lo;
	di.end_ip = md->hi;
	di.u.rti.segbase = md->bias + md->f->hdr_vaddr;
	di.u.rti.table_data = di.u.rti.segbase + md->f->table_off;
	/* in words: fde_count pairs of 32-bit values */
	di.u.rti.table_len = md->f->fde_count * 8 / sizeof(unw_word_t);
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees the table-format info it allocated itself */
	(void)as, (void)pi, (void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	(void)as, (void)dil, (void)arg;
	return -UNW_ENOINFO;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write, void *arg)
{
	struct lu *lu = arg;
	const struct prof_ustack *u = lu->u;
	struct lu_mod *md;
	uint64_t va;
	unsigned i;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	*valp = 0; /* libunwind's fallbacks may use it even after an error */
	if (addr >= lu->sp && u->len >= 8 && addr - lu->sp <= u->len - 8) {
		memcpy(valp, u->data + (addr - lu->sp), 8);
		return 0;
	}
	md = mod_find(lu, addr);
	if (!md) {
		if (addr >= lu->sp)
			lu->past_end = 1;
		return -UNW_EINVAL;
	}
	/* from the file: libunwind reads CFI and the table word by word */
	va = addr - md->bias;
	for (i = 0; i < md->f->nr_load; i++) {
		const typeof(md->f->load[0]) *l = &md->f->load[i];
		uint64_t n, o;

		if (va < l->vaddr || va - l->vaddr >= l->memsz)
			continue;
		*valp = 0;
		o = va - l->vaddr;
		if (o >= l->filesz)
			return 0; /* .bss */
		n = l->filesz - o < 8 ? l->filesz - o : 8;
		if (l->off + o > md->f->size || n > md->f->size - (l->off + o))
			return -UNW_EINVAL;
		memcpy(valp, md->f->image + l->off + o, n);
		return 0;
	}
	return -UNW_EINVAL;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp, int write, void *arg)
{
	struct lu *lu = arg;

	(void)as;
	if (!write)
		*valp = 0;
	/* libunwind's x86-64 numbering is DWARF's: rax rdx rcx rbx rsi rdi
	 * rbp rsp r8-r15 rip, the snapshot's order */
	if (write || reg < 0 || reg >= PROF_UREGS || !(lu->u->regs_mask & (1u << reg)))
		return -UNW_EBADREG;
	*valp = lu->u->regs[reg];
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t n, unw_word_t *off,
			 void *arg)
{
	(void)as, (void)addr, (void)buf, (void)n, (void)off, (void)arg;
	return -UNW_ENOINFO;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

static void spaces_drop(struct lu *lu)
{
	size_t i;

	for (i = 0; i < lu->nr_spaces; i++) {
		unw_destroy_addr_space(lu->spaces[i].as);
		free(lu->spaces[i].mods);
	}
	memset(lu->spaces, 0, lu->nr_spaces * sizeof(*lu->spaces));
	lu->nr_spaces = 0;
	zt_htab_clear(&lu->spaces_hash);
}

static inline uint64_t space_hash_at(const void *lu, uint32_t i)
{
	const struct lu_space *s = &((const struct lu *)lu)->spaces[i];

	return zt_hash_pair(s->epoch, s->pid);
}

static struct lu_space *space_get(struct lu *lu, uint32_t pid, uint64_t epoch)
{
	uint64_t h = zt_hash_pair(epoch, pid);
	struct lu_space *s;
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&lu->spaces_hash, 1, space_hash_at, lu))
		return NULL;
	for (j = zt_htab_first(&lu->spaces_hash, h); zt_htab_get(&lu->spaces_hash, j, &i);
	     j = zt_htab_next(&lu->spaces_hash, j))
		if (lu->spaces[i].pid == pid && lu->spaces[i].epoch == epoch)
			return &lu->spaces[i];
	if (lu->nr_spaces >= MAX_SPACES) {
		spaces_drop(lu);
		j = zt_htab_first(&lu->spaces_hash, h); /* empty now */
	}
	s = &lu->spaces[lu->nr_spaces];
	s->as = unw_create_addr_space(&accessors, 0);
	if (!s->as)
		return NULL;
	/* cache the CFI state of each address across unwinds */
	unw_set_caching_policy(s->as, lu_policy);
	if (lu_cache_size)
		unw_set_cache_size(s->as, lu_cache_size, 0);
	s->pid = pid;
	s->epoch = epoch;
	zt_htab_set(&lu->spaces_hash, j, (uint32_t)lu->nr_spaces++);
	lu->nr_as++;
	return s;
}

static struct lu *lu_new(const struct profile *p, const struct proctree *pt)
{
	struct lu *lu = calloc(1, sizeof(*lu));

	if (!lu)
		return NULL;
	lu->p = p;
	lu->pt = pt;
	lu->have_cache = !buildid_cache_init(&lu->cache);
	lu->spaces = calloc(MAX_SPACES, sizeof(*lu->spaces));
	if (!lu->spaces) {
		free(lu);
		return NULL;
	}
	return lu;
}

static void lu_free(struct lu *lu)
{
	size_t i;

	if (!lu)
		return;
	spaces_drop(lu);
	free(lu->spaces);
	zt_htab_release(&lu->spaces_hash);
	for (i = 0; i < lu->nr_files; i++) {
		struct lu_file *f = lu->files[i];

		if (f->image)
			munmap((void *)f->image, f->size);
		free(f->path);
		free(f);
	}
	free(lu->files);
	zt_htab_release(&lu->files_hash);
	if (lu->vdso_temp)
		unlink(lu->vdso);
	if (lu->have_cache)
		buildid_cache_release(&lu->cache);
	free(lu);
}

/* How a libunwind walk ended. */
enum lu_stop { LU_END, LU_PAST_END, LU_NO_INFO, LU_BAD, LU_NR };
static const char *const lu_stop_names[LU_NR] = {
	"complete",
	"snapshot too small",
	"no unwind info",
	"bad stack",
};

static int lu_unwind(struct lu *lu, uint32_t pid, uint64_t ts, const struct prof_ustack *u,
		     uint64_t *ips, unsigned max, enum lu_stop *stop)
{
	const uint32_t need = 1u << PROF_UREG_IP | 1u << PROF_UREG_SP;
	unw_cursor_t c;
	unw_word_t ip;
	unsigned n = 0;
	int r;

	*stop = LU_BAD;
	if ((u->regs_mask & need) != need || !u->regs[PROF_UREG_IP] || !max)
		return 0;
	lu->cur = space_get(lu, pid, proctree_epoch(lu->pt, pid, ts));
	if (!lu->cur)
		return -ENOMEM;
	lu->pid = pid;
	lu->ts = ts;
	lu->u = u;
	lu->sp = u->regs[PROF_UREG_SP];
	lu->past_end = 0;
	ips[n++] = u->regs[PROF_UREG_IP];
	r = unw_init_remote(&c, lu->cur->as, lu);
	while (!r && n < max) {
		r = unw_step(&c);
		if (r <= 0)
			break;
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip) {
			r = 0;
			break;
		}
		/* a return address one byte back, as zt's unwinder and perf's keep it */
		ips[n++] = unw_is_signal_frame(&c) > 0 ? ip : ip - 1;
		r = 0;
	}
	if (lu->past_end)
		*stop = LU_PAST_END;
	else if (r == 0 && n < max)
		*stop = LU_END;
	else if (r == -UNW_ENOINFO || r == -UNW_EUNSPEC)
		*stop = LU_NO_INFO;
	else
		*stop = LU_BAD;
	lu->cur = NULL;
	lu->u = NULL;
	return (int)n;
}

/* ---- the two passes ------------------------------------------------------ */

struct result { /* one unwinder's chains, per snapshot */
	uint64_t *ips;
	size_t nr_ips, cap_ips;
	size_t *off;	/* snapshot i: ips[off[i] .. off[i+1]) */
	size_t *sample; /* its sample index */
	uint8_t *stop;
	size_t n, cap;
};

struct pass {
	const struct profile *p;
	int which; /* 0: libdwfl, 1: libunwind */
	struct unwinder *uw;
	struct lu *lu;
	struct result *res; /* NULL: timing only */
	double ns;	    /* spent inside the unwinders */
	uint64_t snapshots, frames, bytes;
	uint64_t stops[8];
	uint64_t spaces, modules, files; /* set up by the unwinder (cold pass) */
	int err;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int result_add(struct result *r, size_t sample, const uint64_t *ips, unsigned n, int stop)
{
	if (r->n + 1 >= r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 4096;
		size_t *o = realloc(r->off, cap * sizeof(*o));
		uint8_t *st;

		if (!o)
			return -ENOMEM;
		r->off = o;
		if (!(o = realloc(r->sample, cap * sizeof(*o))))
			return -ENOMEM;
		r->sample = o;
		if (!(st = realloc(r->stop, cap)))
			return -ENOMEM;
		r->stop = st;
		r->cap = cap;
	}
	if (r->nr_ips + n > r->cap_ips) {
		size_t cap = r->cap_ips ? 2 * r->cap_ips : 65536;
		uint64_t *t;

		while (cap < r->nr_ips + n)
			cap *= 2;
		if (!(t = realloc(r->ips, cap * sizeof(*t))))
			return -ENOMEM;
		r->ips = t;
		r->cap_ips = cap;
	}
	if (!r->n)
		r->off[0] = 0;
	memcpy(r->ips + r->nr_ips, ips, n * sizeof(*ips));
	r->nr_ips += n;
	r->sample[r->n] = sample;
	r->stop[r->n] = (uint8_t)stop;
	r->off[++r->n] = r->nr_ips;
	return 0;
}

static void result_release(struct result *r)
{
	free(r->ips);
	free(r->off);
	free(r->sample);
	free(r->stop);
	memset(r, 0, sizeof(*r));
}

static int on_ustack(void *arg, const struct prof_ustack *u)
{
	struct pass *ps = arg;
	const struct prof_sample *s;
	uint64_t ips[MAX_FRAMES];
	enum unwind_stop dstop = UNWIND_BAD;
	enum lu_stop lstop = LU_BAD;
	double t0, t1;
	int n, stop;

	if (u->sample >= ps->p->nr_samples)
		return 0;
	s = &ps->p->samples[u->sample];
	t0 = now_ns();
	if (ps->which == 0)
		n = unwinder_unwind(ps->uw, s->pid, s->tid, s->ts, u, NULL, 0, ips, MAX_FRAMES,
				    &dstop);
	else
		n = lu_unwind(ps->lu, s->pid, s->ts, u, ips, MAX_FRAMES, &lstop);
	t1 = now_ns();
	if (n < 0) {
		ps->err = n;
		return 1;
	}
	stop = ps->which == 0 ? (int)dstop : (int)lstop;
	ps->ns += t1 - t0;
	ps->snapshots++;
	ps->frames += (unsigned)n;
	ps->bytes += u->len;
	ps->stops[stop & 7]++;
	if (ps->res && result_add(ps->res, u->sample, ips, (unsigned)n, stop)) {
		ps->err = -ENOMEM;
		return 1;
	}
	return 0;
}

/* One unwinder made fresh, over every snapshot twice: cold (its setup
 * and every binary's first use counted: what one `zt report` pays) and
 * warm (the same unwinder again, its caches filled: the steady state). */
static int run_pass(const char *path, const struct profile *p, const struct proctree *pt, int which,
		    struct result *res, struct pass *cold, struct pass *warm)
{
	struct pass ps = {.p = p, .which = which, .res = res};
	struct unwinder *uw = NULL;
	struct lu *lu = NULL;
	double t0;
	int ret, k;

	t0 = now_ns();
	if (which == 0)
		ret = unwinder_new(p, pt, NULL, &uw);
	else
		ret = (lu = lu_new(p, pt)) ? 0 : -ENOMEM;
	if (ret)
		return ret;
	ps.ns = now_ns() - t0;
	for (k = 0; k < 2 && !ret; k++) {
		ps.uw = uw;
		ps.lu = lu;
		ret = perfdata_read_ustacks_file(path, NULL, on_ustack, &ps, NULL);
		if (ps.err)
			ret = ps.err;
		else if (ret > 0)
			ret = -EIO;
		*(k ? warm : cold) = ps;
		memset(&ps, 0, sizeof(ps));
		ps.p = p;
		ps.which = which;
	}
	if (uw) {
		struct unwind_stats st;

		unwinder_stats(uw, &st);
		cold->spaces = st.dwfls;
		cold->modules = st.modules;
	} else {
		cold->spaces = lu->nr_as;
		cold->modules = lu->nr_mods;
		cold->files = lu->nr_files;
	}
	t0 = now_ns();
	unwinder_free(uw);
	lu_free(lu);
	cold->ns += now_ns() - t0;
	cold->uw = warm->uw = NULL;
	cold->lu = warm->lu = NULL;
	return ret;
}

/* ---- comparison ---------------------------------------------------------- */

/* The function of frame i of a chain (both unwinders keep return
 * addresses one byte back, in their call instructions). */
static const char *frame_sym(struct resolver *r, const struct prof_sample *s, const uint64_t *ips,
			     size_t i)
{
	struct resolve_frame f;

	if (resolver_resolve(r, s->pid, s->ts, ips[i], 0, &f) || !f.sym)
		return NULL;
	return f.sym;
}

/* The outermost frame is where a thread starts: _start, or clone/clone3
 * for the other threads. */
static int is_root(const char *sym)
{
	return sym && (!strcmp(sym, "_start") || !strcmp(sym, "clone") || !strcmp(sym, "clone3") ||
		       !strcmp(sym, "__clone") || !strcmp(sym, "__clone3") ||
		       !strcmp(sym, "__GI___clone") || !strcmp(sym, "__GI___clone3") ||
		       !strcmp(sym, "thread_start"));
}

static void print_chain(struct resolver *r, const struct prof_sample *s, const uint64_t *ips,
			size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 14; i++) {
		const char *sym = frame_sym(r, s, ips, i);

		if (sym)
			printf(" %s", sym);
		else
			printf(" %#llx", (unsigned long long)ips[i]);
	}
	if (n > 14)
		printf(" ... (%zu frames)", n);
	printf("\n");
}

/* Return addresses in no executable mapping: not code, so not frames (a
 * guess gone wrong). */
static unsigned bogus_frames(const struct proctree *pt, const struct prof_sample *s,
			     const uint64_t *ips, size_t n)
{
	unsigned k = 0;
	size_t i;

	for (i = 1; i < n; i++)
		k += !proctree_map(pt, s->pid, s->ts, ips[i]);
	return k;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* Shares (percent) compare() hands back for the summary line. */
enum { C_SAME, C_DLONGER, C_LLONGER, C_DIVERGE, C_DBOGUS, C_LBOGUS, C_NR };

static int compare(const struct profile *p, const struct proctree *pt, const struct result *d,
		   const struct result *l, int verbose, double out[C_NR])
{
	uint64_t same = 0, dlonger = 0, llonger = 0, diverge = 0, droot = 0, lroot = 0;
	uint64_t div_droot = 0, div_lroot = 0, first_diff[4] = {0}, nboth = 0;
	uint64_t dbogus = 0, lbogus = 0, dbf = 0, lbf = 0;
	struct resolver *r;
	size_t i, j, k, shown = 0;

	if (resolver_new(p, pt, &r))
		return -ENOMEM;
	for (i = 0, j = 0; i < d->n && j < l->n;) {
		const struct prof_sample *s;
		const uint64_t *a, *b;
		size_t na, nb;
		int ra, rb;

		if (d->sample[i] != l->sample[j]) {
			if (d->sample[i] < l->sample[j])
				i++;
			else
				j++;
			continue;
		}
		s = &p->samples[d->sample[i]];
		a = d->ips + d->off[i];
		na = d->off[i + 1] - d->off[i];
		b = l->ips + l->off[j];
		nb = l->off[j + 1] - l->off[j];
		nboth++;
		ra = na && is_root(frame_sym(r, s, a, na - 1));
		rb = nb && is_root(frame_sym(r, s, b, nb - 1));
		droot += ra;
		lroot += rb;
		if ((k = bogus_frames(pt, s, a, na))) {
			dbogus++;
			dbf += k;
		}
		if ((k = bogus_frames(pt, s, b, nb))) {
			lbogus++;
			lbf += k;
		}
		for (k = 0; k < na && k < nb && a[k] == b[k]; k++)
			;
		if (k == na && k == nb) {
			same++;
		} else if (k == nb) {
			dlonger++;
		} else if (k == na) {
			llonger++;
		} else {
			diverge++;
			div_droot += ra;
			div_lroot += rb;
			first_diff[k < 1 ? 0 : k < 2 ? 1 : k < 4 ? 2 : 3]++;
		}
		if (verbose && !(k == na && k == nb) && shown < (size_t)verbose * 4) {
			shown++;
			printf("    sample %zu (pid %u): first difference at frame %zu\n",
			       d->sample[i], s->pid, k);
			printf("      libdwfl   (%s):", unwind_stop_name(d->stop[i]));
			print_chain(r, s, a, na);
			printf("      libunwind (%s):", lu_stop_names[l->stop[j]]);
			print_chain(r, s, b, nb);
		}
		i++;
		j++;
	}
	printf("  agreement over %llu snapshots:\n", (unsigned long long)nboth);
	printf("    same call chain (raw addresses):     %6.2f%%\n", pct(same, nboth));
	printf("    libdwfl's chain longer (a prefix):   %6.2f%%\n", pct(dlonger, nboth));
	printf("    libunwind's chain longer (a prefix): %6.2f%%\n", pct(llonger, nboth));
	printf("    different frames:                    %6.2f%%", pct(diverge, nboth));
	if (diverge)
		printf("  (first at frame 1: %llu, 2-3: %llu, 4+: %llu; reaching _start/clone "
		       "there:"
		       " libdwfl %llu, libunwind %llu)",
		       (unsigned long long)first_diff[1], (unsigned long long)first_diff[2],
		       (unsigned long long)first_diff[3], (unsigned long long)div_droot,
		       (unsigned long long)div_lroot);
	printf("\n    outermost frame _start or clone*:     libdwfl %6.2f%%, libunwind %6.2f%%\n",
	       pct(droot, nboth), pct(lroot, nboth));
	printf("    chains with return addresses outside any code mapping (bogus):"
	       " libdwfl %.2f%% (%llu frames), libunwind %.2f%% (%llu frames)\n",
	       pct(dbogus, nboth), (unsigned long long)dbf, pct(lbogus, nboth),
	       (unsigned long long)lbf);
	out[C_SAME] = pct(same, nboth);
	out[C_DLONGER] = pct(dlonger, nboth);
	out[C_LLONGER] = pct(llonger, nboth);
	out[C_DIVERGE] = pct(diverge, nboth);
	out[C_DBOGUS] = pct(dbogus, nboth);
	out[C_LBOGUS] = pct(lbogus, nboth);
	resolver_free(r);
	return 0;
}

/* ---- main ---------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"usage: unwind_cmp [-r RUNS] [-c ENTRIES] [-p global|thread|none] [-s] [-v] "
		"PERF.DATA...\n"
		"  unwinds every --call-graph dwarf snapshot with libdwfl (zt's unwinder)\n"
		"  and with libunwind's remote API; prints speed and agreement\n"
		"  -r RUNS     timed runs of each, best kept (default 3)\n"
		"  -c ENTRIES  libunwind's per-address-space CFI cache size (default: its own)\n"
		"  -p POLICY   libunwind's caching: global (the default, as perf), thread, none\n"
		"  -s          also a tab-separated summary line per file (\"summary\" first)\n"
		"  -v          show chains that differ (-vv more)\n");
	exit(129);
}

static double sps(const struct pass *b)
{
	return b->ns > 0 ? (double)b->snapshots / (b->ns / 1e9) : 0;
}

static void print_speed(const char *what, const struct pass *b)
{
	printf("  %-28s %10.0f %10.2f %8.2f %10.1f ms\n", what, sps(b),
	       b->snapshots ? b->ns / 1e3 / (double)b->snapshots : 0,
	       b->snapshots ? (double)b->frames / (double)b->snapshots : 0, b->ns / 1e6);
}

static int summary; /* -s */

static int one_file(const char *path, int runs, int verbose)
{
	double c[C_NR] = {0};
	struct perfdata_info info = {0};
	struct profile p;
	struct proctree *pt = NULL;
	struct result res[2] = {{0}};
	struct pass cold[2], warm[2], bc[2], bw[2];
	double t0, read_ms;
	int ret, run, w;
	unsigned i;

	profile_init(&p);
	t0 = now_ns();
	ret = perfdata_read_file(path, &p, NULL, &info);
	if (ret) {
		fprintf(stderr, "unwind_cmp: cannot read '%s': %s\n", path,
			info.msg[0] ? info.msg : strerror(-ret));
		goto out;
	}
	if (!info.dwarf) {
		fprintf(stderr, "unwind_cmp: '%s' is not a --call-graph dwarf recording\n", path);
		ret = -EINVAL;
		goto out;
	}
	if ((ret = proctree_new(&p, &pt)))
		goto out;
	read_ms = (now_ns() - t0) / 1e6;
	/* alternate the two, so that both see the same machine load; the first
	 * run of each keeps its chains for the comparison */
	for (run = 0; run < runs; run++) {
		for (w = 0; w < 2; w++) {
			ret = run_pass(path, &p, pt, w, run ? NULL : &res[w], &cold[w], &warm[w]);
			if (ret) {
				fprintf(stderr, "unwind_cmp: %s pass over '%s' failed: %s\n",
					w ? "libunwind" : "libdwfl", path, strerror(-ret));
				goto out;
			}
			if (!run || cold[w].ns < bc[w].ns)
				bc[w] = cold[w];
			if (!run || warm[w].ns < bw[w].ns)
				bw[w] = warm[w];
		}
	}
	printf("%s: %zu samples, %llu stack snapshots (%.0f bytes each on average), read in %.0f "
	       "ms\n",
	       path, p.nr_samples, (unsigned long long)bc[0].snapshots,
	       bc[0].snapshots ? (double)bc[0].bytes / (double)bc[0].snapshots : 0, read_ms);
	printf("  %-28s %10s %10s %8s %13s   (unwinding only, best of %d)\n", "", "samples/s",
	       "us/sample", "frames", "time", runs);
	print_speed("libdwfl, cold (zt)", &bc[0]);
	print_speed("libunwind, cold", &bc[1]);
	print_speed("libdwfl, warm caches (zt)", &bw[0]);
	print_speed("libunwind, warm caches", &bw[1]);
	printf("  libdwfl speed / libunwind's: cold %.2fx, warm %.2fx\n",
	       bc[0].ns > 0 ? bc[1].ns / bc[0].ns : 0, bw[0].ns > 0 ? bw[1].ns / bw[0].ns : 0);
	printf("  set up: libdwfl %llu Dwfls, %llu modules reported; libunwind %llu address spaces,"
	       " %llu modules placed, %llu files mapped\n",
	       (unsigned long long)cold[0].spaces, (unsigned long long)cold[0].modules,
	       (unsigned long long)cold[1].spaces, (unsigned long long)cold[1].modules,
	       (unsigned long long)cold[1].files);
	printf("  how the walks ended:\n    libdwfl:  ");
	for (i = 0; i < UNWIND_NR; i++)
		if (cold[0].stops[i])
			printf(" %s %.1f%%", unwind_stop_name(i),
			       pct(cold[0].stops[i], cold[0].snapshots));
	printf("\n    libunwind:");
	for (i = 0; i < LU_NR; i++)
		if (cold[1].stops[i])
			printf(" %s %.1f%%", lu_stop_names[i],
			       pct(cold[1].stops[i], cold[1].snapshots));
	printf("\n");
	ret = compare(&p, pt, &res[0], &res[1], verbose, c);
	/* one line for scripts: speeds (samples/s), then shares (percent) */
	if (!ret && summary)
		printf("summary\t%s\t%llu\t%.0f\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%."
		       "2f"
		       "\t%.2f\t%.2f\n",
		       path, (unsigned long long)bc[0].snapshots, sps(&bc[0]), sps(&bc[1]),
		       sps(&bw[0]), sps(&bw[1]), pct(cold[0].stops[UNWIND_END], cold[0].snapshots),
		       pct(cold[1].stops[LU_END], cold[1].snapshots), c[C_SAME], c[C_DLONGER],
		       c[C_LLONGER], c[C_DIVERGE], c[C_DBOGUS], c[C_LBOGUS]);
out:
	result_release(&res[0]);
	result_release(&res[1]);
	proctree_free(pt);
	profile_release(&p);
	return ret;
}

int main(int argc, char **argv)
{
	int c, runs = 3, verbose = 0, i, fails = 0;

	while ((c = getopt(argc, argv, "c:p:r:svh")) != -1) {
		switch (c) {
		case 'c':
			lu_cache_size = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			if (!strcmp(optarg, "global"))
				lu_policy = UNW_CACHE_GLOBAL;
			else if (!strcmp(optarg, "thread"))
				lu_policy = UNW_CACHE_PER_THREAD;
			else if (!strcmp(optarg, "none"))
				lu_policy = UNW_CACHE_NONE;
			else
				usage();
			break;
		case 'r':
			runs = atoi(optarg);
			if (runs < 1)
				usage();
			break;
		case 's':
			summary = 1;
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	elf_version(EV_CURRENT);
	for (i = optind; i < argc; i++) {
		if (one_file(argv[i], runs, verbose))
			fails++;
		fflush(stdout);
	}
	if (fflush(stdout) || ferror(stdout))
		return 1;
	return fails ? 1 : 0;
}
