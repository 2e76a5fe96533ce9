// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Offline DWARF unwinding of user-stack snapshots with libdwfl: one Dwfl per
 * process generation, attached once to callbacks that serve the current
 * sample's registers and stack copy; modules reported lazily, on first use.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/log.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/debugfind.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/symmod.h"
#include "symbolizer/unwind.h"
#include "symbolizer/vdso.h"

#define MAX_SPACES 512   /* Dwfls kept at once; all are dropped past this */
#define MAX_RETRIES 32   /* modules reported while unwinding one sample */
#define MAX_TRIED 64     /* unusable mappings remembered per space */
#define MAX_LOAD 16      /* load segments kept per file */

/* A reported module (its Dwfl userdata). */
struct uw_mod {
	struct unwinder *uw;
	const struct prof_mmap *m; /* the mapping it was reported for */
	uint64_t bias;             /* its load bias (address - ELF vaddr) */
	uint32_t file;             /* its file (index in the unwinder's files) */
	uint64_t epoch;            /* the last address-space epoch it was checked in */
	int has_eh;                /* its file has .eh_frame: no debug file needed */
	struct uw_mod *next;
};

/* One process generation (exec, fork): later mappings join it lazily; a
 * module is checked against the mappings of each new epoch it is used in,
 * and the space is rebuilt when one no longer holds (a JIT mapping over it,
 * another library at its address). */
struct uw_space {
	uint32_t pid;
	uint64_t gen;            /* proctree_epoch() >> 32 */
	Dwfl *dwfl;              /* NULL: a restart failed (started again when used) */
	struct uw_mod *mods;
	const struct prof_mmap *tried[MAX_TRIED]; /* mappings that could not be reported */
	unsigned nr_tried;
};

/* A mapped file's load segments, once per path (a library appears in many
 * processes). */
struct uw_file {
	char *path;              /* host path as opened */
	int ok;
	int dyn;                 /* ET_DYN: placed by its mapping */
	int has_eh;              /* has .eh_frame: no separate debug file needed */
	uint64_t vaddr0;         /* first PT_LOAD's p_vaddr, aligned down */
	struct symmod_seg load[MAX_LOAD];
	size_t nr_load;
};

struct unwinder {
	const struct profile *p;
	const struct proctree *pt;
	struct buildid_cache cache;
	int have_cache;
	const struct buildid_cache *archive; /* borrowed, or NULL */
	char *symfs;
	struct debugfind_opts dfo;
	Dwfl_Callbacks cbs;
	char *debuginfo_path;
	Elf *arch_elf;            /* a bare x86-64 ELF header: the arch for attach */
	unsigned char arch_image[64];
	struct uw_space *spaces;  /* MAX_SPACES (NULL until used), nr_spaces in use */
	size_t nr_spaces;
	struct zt_htab spaces_hash; /* spaces by (pid, generation) */
	struct uw_file *files;
	size_t cap_files, nr_files;
	struct zt_htab files_hash; /* files by path */
	struct unwind_stats st;

	/* the sample being unwound */
	struct uw_space *cur;
	uint32_t pid, tid;
	uint64_t ts;
	const struct prof_ustack *u;
	uint64_t sp;
	uint64_t *ips;
	unsigned n, max;
	int past_end;             /* a read beyond the snapshot */
	int no_module;            /* stopped at an address in no usable module */
	int loop;
	int stale;                /* a module no longer matches the mappings */
	uint64_t epoch;           /* the sample's address-space epoch */
	uint64_t last_sp;         /* stack pointer of the last frame recorded */
	const struct prof_mmap *need; /* a mapping to report, then retry */
	uint64_t need_at;         /* the address in it that needs it */
};

const char *unwind_stop_name(enum unwind_stop s)
{
	static const char *const names[UNWIND_NR] = {
		"complete", "snapshot too small", "no module", "no unwind info", "bad stack",
	};

	return (unsigned)s < UNWIND_NR ? names[s] : "?";
}

/* ---- files --------------------------------------------------------------- */

static int file_load(struct uw_file *f)
{
	GElf_Ehdr eh;
	size_t i, n;
	Elf *e;
	int fd, ret = -ENOEXEC;

	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &n))
		goto out;
	f->dyn = eh.e_type == ET_DYN;
	/* libdwfl places an ET_DYN module by its first PT_LOAD, aligned down */
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
			f->vaddr0 = ph.p_align > 1 ? ph.p_vaddr & ~(ph.p_align - 1) : ph.p_vaddr;
			break;
		}
	}
	if (symmod_elf_segments_of(e, 0, f->load, MAX_LOAD, &n))
		goto out;
	f->nr_load = n < MAX_LOAD ? n : MAX_LOAD;
	if (f->nr_load)
		ret = 0;
	{
		size_t shstrndx;
		Elf_Scn *scn = NULL;

		if (!elf_getshdrstrndx(e, &shstrndx))
			while ((scn = elf_nextscn(e, scn))) {
				GElf_Shdr sh;
				const char *nm;

				if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
				    (nm = elf_strptr(e, shstrndx, sh.sh_name)) && !strcmp(nm, ".eh_frame")) {
					f->has_eh = 1;
					break;
				}
			}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

static inline uint64_t file_hash_at(const void *uw, uint32_t i)
{
	return zt_hash_str(((const struct unwinder *)uw)->files[i].path);
}

/* The file at path, loaded once (borrowed until the next call); NULL
 * without memory. */
static struct uw_file *file_get(struct unwinder *uw, const char *path)
{
	struct uw_file *f;
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&uw->files_hash, 1, file_hash_at, uw) ||
	    uw->nr_files >= UINT32_MAX - 1 || ZT_GROW(uw->files, uw->cap_files, uw->nr_files + 1))
		return NULL;
	for (j = zt_htab_first(&uw->files_hash, zt_hash_str(path));
	     zt_htab_get(&uw->files_hash, j, &i); j = zt_htab_next(&uw->files_hash, j))
		if (!strcmp(uw->files[i].path, path))
			return &uw->files[i];
	f = &uw->files[uw->nr_files];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	zt_htab_set(&uw->files_hash, j, (uint32_t)uw->nr_files++);
	f->ok = !file_load(f);
	return f;
}

/* The host path of the binary mapped by m, into out (*temp: a temporary
 * file the caller unlinks). */
static int host_path(struct unwinder *uw, const struct prof_mmap *m, char *out, size_t n, int *temp)
{
	struct prof_build_id fb = { 0 };
	size_t l;

	*temp = 0;
	if (m->build_id.len && uw->have_cache && !buildid_cache_path(&uw->cache, &m->build_id, out, n))
		return 0;
	if (m->build_id.len && uw->archive && !buildid_cache_path(uw->archive, &m->build_id, out, n))
		return 0;
	if (!strcmp(m->path, "[vdso]")) {
		return vdso_path(uw->p, uw->have_cache ? &uw->cache : NULL, &m->build_id, out, n,
				 temp);
	}
	if (m->path[0] != '/')
		return -ENOENT;
	if (snprintf(out, n, "%s%s", uw->symfs ? uw->symfs : "", m->path) >= (int)n)
		return -ENAMETOOLONG;
	l = strlen(out);
	if (l > 10 && !strcmp(out + l - 10, " (deleted)"))
		out[l - 10] = 0;
	if (access(out, R_OK))
		return -errno;
	/* a binary replaced since: its CFI would be wrong */
	if (m->build_id.len && !elf_read_build_id(out, &fb) && fb.len &&
	    (fb.len != m->build_id.len || memcmp(fb.data, m->build_id.data, fb.len))) {
		if (*temp)
			unlink(out);
		*temp = 0;
		return -ESTALE;
	}
	return 0;
}

/* ---- address spaces ------------------------------------------------------ */

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	const struct uw_mod *um;
	char out[PATH_MAX];
	int fd;

	(void)mod, (void)modname, (void)base, (void)debuglink_file, (void)debuglink_crc;
	/* libdwfl asks for .debug_frame whenever .eh_frame gives no next frame,
	 * the outermost frame of every stack included: loading (and inflating)
	 * a whole debug file for that took 60% of the time. Binaries with
	 * .eh_frame do not need one. */
	um = *userdata;
	if (!file_name || !um || um->has_eh)
		return -1;
	/* found as the symbolizer finds it (no debuginfod: unwinding must not
	 * wait on the network) */
	if (debugfind(&um->uw->dfo, file_name, NULL, out, sizeof(out)))
		return -1;
	fd = open(out, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	*debuginfo_file_name = strdup(out);
	return fd;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwinder *uw = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = uw;
	return uw->tid ? (pid_t)uw->tid : 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

static int snap_word(const struct prof_ustack *u, uint64_t addr, uint64_t *v)
{
	uint64_t sp = u->regs[PROF_UREG_SP];

	if (addr < sp || u->len < 8 || addr - sp > u->len - 8)
		return -1;
	memcpy(v, u->data + (addr - sp), 8);
	return 0;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *uw = arg;
	uint64_t v;

	(void)dwfl;
	if (!snap_word(uw->u, addr, &v)) {
		*result = v;
		return true;
	}
	if (addr >= uw->sp)
		uw->past_end = 1;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *uw = arg;
	const struct prof_ustack *u = uw->u;
	unsigned i = 0;

	/* each run of recorded registers (DWARF numbering is the layout) */
	while (i < PROF_UREGS) {
		unsigned j = i;
		Dwarf_Word v[PROF_UREGS];

		if (!(u->regs_mask & (1u << i))) {
			i++;
			continue;
		}
		while (j < PROF_UREGS && (u->regs_mask & (1u << j))) {
			v[j - i] = u->regs[j];
			j++;
		}
		if (!dwfl_thread_state_registers(thread, (int)i, j - i, v))
			return false;
		i = j;
	}
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static void space_clear(struct uw_space *s)
{
	struct uw_mod *um, *next;

	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (um = s->mods; um; um = next) {
		next = um->next;
		free(um);
	}
	memset(s, 0, sizeof(*s));
}

static void space_drop_all(struct unwinder *uw)
{
	size_t i;

	for (i = 0; i < uw->nr_spaces; i++)
		space_clear(&uw->spaces[i]);
	uw->nr_spaces = 0;
	zt_htab_clear(&uw->spaces_hash);
}

static inline uint64_t space_hash_at(const void *uw, uint32_t i)
{
	const struct uw_space *s = &((const struct unwinder *)uw)->spaces[i];

	return zt_hash_pair(s->gen, s->pid);
}

/* A fresh Dwfl for s: 0, or -1 (s left empty). */
static int space_start(struct unwinder *uw, struct uw_space *s, uint32_t pid, uint64_t gen)
{
	s->dwfl = dwfl_begin(&uw->cbs);
	if (!s->dwfl)
		return -1;
	if (!dwfl_attach_state(s->dwfl, uw->arch_elf, pid ? (pid_t)pid : 1, &thread_cbs, uw)) {
		zt_debug("unwind: cannot attach to address space %u: %s", pid, dwfl_errmsg(-1));
		dwfl_end(s->dwfl);
		s->dwfl = NULL;
		return -1;
	}
	s->pid = pid;
	s->gen = gen;
	uw->st.dwfls++;
	return 0;
}

static struct uw_space *space_get(struct unwinder *uw, uint32_t pid, uint64_t gen)
{
	uint64_t h = zt_hash_pair(gen, pid);
	struct uw_space *s;
	size_t j;
	uint32_t i;

	if (!uw->spaces && !(uw->spaces = calloc(MAX_SPACES, sizeof(*uw->spaces))))
		return NULL;
	if (zt_htab_reserve(&uw->spaces_hash, 1, space_hash_at, uw))
		return NULL;
	for (j = zt_htab_first(&uw->spaces_hash, h); zt_htab_get(&uw->spaces_hash, j, &i);
	     j = zt_htab_next(&uw->spaces_hash, j)) {
		s = &uw->spaces[i];
		if (s->pid == pid && s->gen == gen)
			return s->dwfl || !space_start(uw, s, pid, gen) ? s : NULL;
	}
	if (uw->nr_spaces >= MAX_SPACES) {
		space_drop_all(uw);
		j = zt_htab_first(&uw->spaces_hash, h); /* empty now */
	}
	s = &uw->spaces[uw->nr_spaces];
	if (space_start(uw, s, pid, gen))
		return NULL;
	zt_htab_set(&uw->spaces_hash, j, (uint32_t)uw->nr_spaces++);
	return s;
}

/* The space's modules no longer match the mappings: start it again. */
static int space_restart(struct unwinder *uw, struct uw_space *s)
{
	uint32_t pid = s->pid;
	uint64_t gen = s->gen;

	space_clear(s);
	s->pid = pid; /* still its key when it cannot start: started again when next used */
	s->gen = gen;
	if (space_start(uw, s, pid, gen))
		return -1;
	uw->st.restarts++;
	return 0;
}

/* The load bias (address - ELF vaddr) of file f mapped by m, from an
 * address addr in m: through the segment that holds addr's file offset,
 * not the one m's pgoff falls in (lld's code shares its first page with
 * the read-only segment before it, at another vaddr - offset distance).
 * 0, or -ENOENT when addr's offset is in no segment. */
static int file_bias(const struct uw_file *f, const struct prof_mmap *m, uint64_t addr,
		     uint64_t *bias)
{
	uint64_t v;

	if (!f->dyn) {
		*bias = 0;
		return 0;
	}
	if (symmod_seg_vaddr(f->load, f->nr_load, prof_mmap_offset(m, addr), &v))
		return -ENOENT;
	*bias = addr - v;
	return 0;
}

/* Whether mapping m (holding addr) still maps the binary um was reported
 * for, at the same place. */
static int same_module(const struct unwinder *uw, const struct uw_mod *um,
		       const struct prof_mmap *m, uint64_t addr)
{
	uint64_t bias;

	if (m == um->m)
		return 1;
	return m && !strcmp(m->path, um->m->path) && m->build_id.len == um->m->build_id.len &&
	       !memcmp(m->build_id.data, um->m->build_id.data, m->build_id.len) &&
	       !file_bias(&uw->files[um->file], m, addr, &bias) && bias == um->bias;
}

static int tried(const struct uw_space *s, const struct prof_mmap *m)
{
	unsigned i;

	for (i = 0; i < s->nr_tried; i++)
		if (s->tried[i] == m)
			return 1;
	return 0;
}

/* Report the binary of mapping m (addr: the address in it that needs it)
 * to the current space. 0, -EEXIST when libdwfl refused it and the space
 * has other modules (one may be in the way), -ENOMEM, or -1 when it
 * cannot be used (remembered, so it is not tried again). */
static int report(struct unwinder *uw, const struct prof_mmap *m, uint64_t addr)
{
	struct uw_space *s = uw->cur;
	char path[PATH_MAX];
	struct uw_file *f = NULL;
	uint64_t bias = 0, base = 0;
	Dwfl_Module *mod = NULL;
	const char *name;
	int temp = 0;

	if (!host_path(uw, m, path, sizeof(path), &temp))
		f = file_get(uw, path);
	if (f && f->ok) {
		/* libdwfl takes an ET_DYN module's place as bias + vaddr0 */
		if (file_bias(f, m, addr, &bias))
			f = NULL;
		else if (f->dyn)
			base = bias + f->vaddr0;
	}
	if (f && f->ok) {
		name = strrchr(m->path, '/');
		name = name ? name + 1 : m->path;
		dwfl_report_begin_add(s->dwfl);
		mod = dwfl_report_elf(s->dwfl, name, path, -1, base, false);
		dwfl_report_end(s->dwfl, NULL, NULL);
		if (!mod) {
			zt_debug("unwind: cannot use '%s': %s", path, dwfl_errmsg(-1));
			if (s->mods) { /* perhaps over a module of an older epoch */
				if (temp)
					unlink(path);
				return -EEXIST;
			}
		}
	}
	if (temp)
		unlink(path);
	if (mod) {
		struct uw_mod *um = calloc(1, sizeof(*um));
		void **ud = NULL;

		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		if (!um || !ud) {
			free(um);
			return -ENOMEM;
		}
		um->uw = uw;
		um->m = m;
		um->bias = bias;
		um->file = (uint32_t)(f - uw->files);
		um->epoch = uw->epoch;
		um->has_eh = f->has_eh;
		um->next = s->mods;
		s->mods = um;
		*ud = um;
		uw->st.modules++;
		return 0;
	}
	if (s->nr_tried < MAX_TRIED)
		s->tried[s->nr_tried++] = m;
	return -1;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwinder *uw = arg;
	Dwarf_Addr pc, look;
	Dwarf_Word cfa = 0;
	bool act = false;
	const struct prof_mmap *m;
	Dwfl_Module *mod;

	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	if (!pc)
		return DWARF_CB_ABORT; /* a zero return address ends the chain */
	/* a return address is kept one byte back, in its call instruction, as
	 * perf's DWARF unwinding keeps it: the call's function and line, not
	 * the next instruction's (the start of another function after a call
	 * that does not return) */
	look = act ? pc : pc - 1;
	mod = dwfl_addrmodule(uw->cur->dwfl, look);
	if (mod) {
		void **ud = NULL;
		struct uw_mod *um;

		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		um = ud ? *ud : NULL;
		/* reported in another epoch: is it still what is mapped there? */
		if (um && um->epoch != uw->epoch) {
			m = proctree_map(uw->pt, uw->pid, uw->ts, look);
			if (!same_module(uw, um, m, look)) {
				uw->stale = 1;
				return DWARF_CB_ABORT;
			}
			um->epoch = uw->epoch;
		}
	} else {
		m = proctree_map(uw->pt, uw->pid, uw->ts, look);
		if (m && !tried(uw->cur, m) && (m->path[0] == '/' || !strcmp(m->path, "[vdso]"))) {
			uw->need = m;
			uw->need_at = look;
			return DWARF_CB_ABORT;
		}
		if (uw->n < uw->max && dwfl_frame_reg(state, 7, &cfa) == 0) {
			uw->ips[uw->n++] = look;
			uw->last_sp = cfa;
		}
		uw->no_module = 1;
		return DWARF_CB_ABORT;
	}
	if (uw->n >= uw->max || dwfl_frame_reg(state, 7, &cfa))
		return DWARF_CB_ABORT;
	/* the same frame again (a CFI rule that does not move): stop */
	if (uw->n && cfa == uw->last_sp && look == uw->ips[uw->n - 1]) {
		uw->loop = 1;
		return DWARF_CB_ABORT;
	}
	uw->last_sp = cfa;
	uw->ips[uw->n++] = look;
	return DWARF_CB_OK;
}

/*
 * Where the frame-pointer chain carries on after a DWARF walk that stopped
 * early. Each return address has its own stack slot: the DWARF frame i
 * (i >= 1) was read from its stack pointer - 8, the chain's frame j from
 * its frame pointer + 8. The chain is replayed inside the copy from the
 * sampled rbp (as the sampler walked it) to find its first frame whose
 * slot lies beyond the last DWARF frame's (matching by address, not by
 * value: a recursion repeats return addresses). Returns that index in fp,
 * or nfp for none.
 */
static unsigned splice_at(const struct prof_ustack *u, const uint64_t *fp, unsigned nfp,
			  uint64_t last_slot)
{
	uint64_t bp = u->regs_mask & 1u << PROF_UREG_BP ? u->regs[PROF_UREG_BP] : 0, ra, next;
	unsigned j;

	for (j = 1; j < nfp; j++) {
		if (snap_word(u, bp + 8, &ra))
			return bp + 8 > last_slot ? j : nfp; /* beyond the copy */
		if (ra != fp[j] || snap_word(u, bp, &next))
			return nfp; /* not the chain the sampler walked */
		if (bp + 8 > last_slot)
			return j;
		if (next <= bp)
			return nfp;
		bp = next;
	}
	return nfp;
}

/* Whether the first k frames of the recorded chain are the k unwound
 * (more than the sampled address alone): a caller's frame here is its
 * return address - 1 (frame_cb), as in zt record's kernel unwinder's
 * chain; a frame-pointer chain has the return address. */
static bool chain_agrees(const uint64_t *ips, unsigned k, const uint64_t *chain)
{
	unsigned i;

	if (k < 2 || ips[0] != chain[0])
		return false;
	for (i = 1; i < k; i++)
		if (ips[i] != chain[i] && ips[i] != chain[i] - 1)
			return false;
	return true;
}

int unwinder_unwind(struct unwinder *uw, uint32_t pid, uint32_t tid, uint64_t ts,
		    const struct prof_ustack *u, const uint64_t *fp, unsigned nfp, uint64_t *ips,
		    unsigned max, enum unwind_stop *stop)
{
	const uint32_t need = 1u << PROF_UREG_IP | 1u << PROF_UREG_SP;
	int ret = -1, tries, restarted = 0;
	unsigned i, k;

	*stop = UNWIND_BAD;
	uw->st.snapshots++;
	if ((u->regs_mask & need) != need || !u->regs[PROF_UREG_IP] || !max) {
		uw->st.stop[UNWIND_BAD]++;
		return 0;
	}
	uw->epoch = proctree_epoch(uw->pt, pid, ts);
	uw->cur = space_get(uw, pid, uw->epoch >> 32);
	if (!uw->cur)
		return -ENOMEM;
	uw->pid = pid;
	uw->tid = tid;
	uw->ts = ts;
	uw->u = u;
	uw->sp = u->regs[PROF_UREG_SP];
	uw->ips = ips;
	uw->max = max;
	for (tries = 0; tries <= MAX_RETRIES; tries++) {
		uw->n = 0;
		uw->past_end = uw->no_module = uw->loop = 0;
		uw->last_sp = u->regs[PROF_UREG_SP];
		uw->need = NULL;
		uw->stale = 0;
		ret = dwfl_getthread_frames(uw->cur->dwfl, tid ? (pid_t)tid : 1, frame_cb, uw);
		if (uw->stale) {
			/* once per sample: after it, every module is of this epoch */
			if (restarted++ || space_restart(uw, uw->cur)) {
				uw->cur = NULL;
				uw->st.stop[UNWIND_BAD]++;
				*stop = UNWIND_BAD;
				k = 0;
				goto fallback;
			}
			continue;
		}
		if (!uw->need)
			break;
		ret = report(uw, uw->need, uw->need_at);
		if (ret == -ENOMEM)
			return ret;
		if (ret == -EEXIST && !restarted++) {
			/* over a module of an older epoch: start again */
			if (space_restart(uw, uw->cur))
				return -ENOMEM;
			continue;
		}
		if (ret && tries == MAX_RETRIES)
			break;
	}
	/* libdwfl takes a return address it cannot read for the outermost
	 * frame: a read past the copy tells the two apart */
	if (uw->need || uw->no_module) {
		*stop = UNWIND_NO_MODULE;
	} else if (uw->past_end) {
		*stop = UNWIND_STACK_END;
	} else if (ret == 0) {
		*stop = UNWIND_END;
	} else if (uw->loop || uw->n >= max) {
		*stop = UNWIND_BAD;
	} else if (ret == DWARF_CB_ABORT) {
		*stop = UNWIND_END; /* a zero return address */
	} else {
		*stop = uw->n ? UNWIND_NO_CFI : UNWIND_BAD;
	}
	uw->st.stop[*stop]++;
	k = uw->n;
fallback:
	if (!k) {
		/* not even the first frame: start from the sampled address */
		ips[k++] = u->regs[PROF_UREG_IP];
	}
	/* ended early: carry on with the recorded chain's outer frames. The
	 * kernel unwinder's chain (zt record's, from the same CFI) has every
	 * frame unwound here as its first ones: it goes on from there; a
	 * frame-pointer chain is found in the copy */
	if (*stop != UNWIND_END && nfp > k && k < max && chain_agrees(ips, k, fp)) {
		uw->st.spliced++;
		uw->st.chained++;
		for (i = k; i < nfp && k < max; i++)
			ips[k++] = fp[i];
	} else if (*stop != UNWIND_END && nfp > 1 && k < max) {
		uint64_t slot = (k > 1 ? uw->last_sp : u->regs[PROF_UREG_SP]) - 8;

		i = splice_at(u, fp, nfp, slot);
		if (i < nfp)
			uw->st.spliced++;
		else if (*stop == UNWIND_STACK_END)
			uw->st.cut++;
		for (; i < nfp && k < max; i++)
			ips[k++] = fp[i];
	} else if (*stop == UNWIND_STACK_END) {
		uw->st.cut++;
	}
	uw->st.frames += k;
	uw->cur = NULL;
	uw->u = NULL;
	return (int)k;
}

int unwinder_apply(struct unwinder *uw, struct profile *p, const struct prof_ustack *u)
{
	uint64_t buf[2 * ZT_MAX_FRAMES], fp[ZT_MAX_FRAMES];
	enum unwind_stop stop;
	struct prof_sample *s;
	const uint64_t *ips;
	unsigned nk, nu;
	int n;

	if (u->sample >= p->nr_samples)
		return 0;
	s = &p->samples[u->sample];
	nk = p->stacks[s->stack].nk;
	nu = p->stacks[s->stack].nu;
	ips = profile_stack_ips(p, s->stack);
	/* kernel frames kept; the present user frames are the FP chain */
	memcpy(buf, ips, nk * sizeof(*buf));
	memcpy(fp, ips + nk, nu * sizeof(*fp));
	n = unwinder_unwind(uw, s->pid, s->tid, s->ts, u, fp, nu, buf + nk, ZT_MAX_FRAMES, &stop);
	if (n <= 0)
		return n;
	return profile_intern_stack(p, buf, nk, (unsigned)n, &s->stack);
}

/* ---- lifetime ------------------------------------------------------------ */

int unwinder_new(const struct profile *p, const struct proctree *pt,
		 const struct unwinder_opts *o, struct unwinder **out)
{
	struct unwinder *uw = calloc(1, sizeof(*uw));
	Elf64_Ehdr *eh;

	if (!uw)
		return -ENOMEM;
	uw->p = p;
	uw->pt = pt;
	uw->have_cache = !buildid_cache_init(&uw->cache);
	uw->archive = o ? o->archive : NULL;
	if (o && o->symfs && o->symfs[0] && !(uw->symfs = strdup(o->symfs))) {
		unwinder_free(uw);
		return -ENOMEM;
	}
	/* file names reach find_debuginfo with the symfs root in them already */
	uw->dfo.debug_dirs = o ? o->debug_dirs : NULL; /* borrowed, as the header says */
	elf_version(EV_CURRENT);
	eh = (Elf64_Ehdr *)uw->arch_image;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	uw->arch_elf = elf_memory((char *)uw->arch_image, sizeof(uw->arch_image));
	if (!uw->arch_elf) {
		unwinder_free(uw);
		return -ENOMEM;
	}
	uw->cbs.find_elf = dwfl_build_id_find_elf;
	uw->cbs.find_debuginfo = find_debuginfo;
	uw->cbs.section_address = dwfl_offline_section_address;
	uw->cbs.debuginfo_path = &uw->debuginfo_path;
	*out = uw;
	return 0;
}

void unwinder_free(struct unwinder *uw)
{
	size_t i;

	if (!uw)
		return;
	space_drop_all(uw);
	free(uw->spaces);
	zt_htab_release(&uw->spaces_hash);
	for (i = 0; i < uw->nr_files; i++)
		free(uw->files[i].path);
	free(uw->files);
	zt_htab_release(&uw->files_hash);
	if (uw->arch_elf)
		elf_end(uw->arch_elf);
	if (uw->have_cache)
		buildid_cache_release(&uw->cache);
	free(uw->symfs);
	free(uw);
}

void unwinder_stats(const struct unwinder *uw, struct unwind_stats *st)
{
	*st = uw->st;
}
