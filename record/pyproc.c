/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A live CPython process, read from the outside. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include "record/pyproc.h"
#include "symbolizer/debugfind.h"

/*
 * The layouts, from each version's own headers (offsetof() of the fields
 * named in pyproc.h, x86-64; Debian's 3.11.2 and 3.11.7 alike), checked at
 * run time against the process (pyproc_open()).
 */
static const struct zt_py_layout layouts[] = {
	{
		.minor = 11,
		.rt_interp_head = 40, .is_next = 0, .is_threads_head = 16,
		.ts_next = 8, .ts_thread_id = 152, .ts_native_tid = 160,
		.ts_cframe = 56, .cf_current_frame = 8,
		.fr_code = 32, .fr_previous = 48, .fr_instr = 56, .fr_owner = 69, .fr_is_entry = 68,
		.co_filename = 112, .co_name = 120, .co_qualname = 128, .co_firstlineno = 72,
		.co_linetable = 136, .co_code_adaptive = 184,
		.str_ascii_data = 48, .str_compact_data = 72,
	},
	{
		.minor = 12,
		.rt_interp_head = 40, .is_next = 0, .is_threads_head = 72,
		.ts_next = 8, .ts_thread_id = 136, .ts_native_tid = 144,
		.ts_cframe = 56, .cf_current_frame = 0,
		.fr_code = 0, .fr_previous = 8, .fr_instr = 56, .fr_owner = 70,
		.co_filename = 112, .co_name = 120, .co_qualname = 128, .co_firstlineno = 68,
		.co_linetable = 136, .co_code_adaptive = 192,
		.str_ascii_data = 40, .str_compact_data = 56,
	},
	{
		.minor = 13,
		.rt_interp_head = 632, .is_next = 7264, .is_threads_head = 7344,
		.ts_next = 8, .ts_thread_id = 152, .ts_native_tid = 160,
		.ts_cframe = 0, .cf_current_frame = 72,
		.fr_code = 0, .fr_previous = 8, .fr_instr = 56, .fr_owner = 70,
		.co_filename = 112, .co_name = 120, .co_qualname = 128, .co_firstlineno = 68,
		.co_linetable = 136, .co_code_adaptive = 200,
		.str_ascii_data = 40, .str_compact_data = 56,
	},
};

/* The longest co_linetable read (bytes) */
#define MAX_LINETABLE (1u << 20)

const struct zt_py_layout *pyproc_layout_of(unsigned minor)
{
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

/* len bytes of process memory at addr: 0 or -ESRCH (gone, unmapped). */
static int rd(const struct pyproc *p, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};

	if (!addr)
		return -ESRCH;
	return process_vm_readv((pid_t)p->pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -ESRCH;
}

static int rd64(const struct pyproc *p, uint64_t addr, uint64_t *v)
{
	return rd(p, addr, v, sizeof(*v));
}

/* ---- the interpreter's file ---- */

struct syms {
	uint64_t runtime, version, code_type, eval, eval_size, cold, cold_size;
	bool have_version;
	uint64_t version_value;
};

/* The value at virtual address va in the file's sections (8 bytes). */
static bool read_va(Elf *elf, uint64_t va, uint64_t *v)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || va < sh.sh_addr ||
		    va + 8 > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || va - sh.sh_addr + 8 > d->d_size)
			return false;
		memcpy(v, (const char *)d->d_buf + (va - sh.sh_addr), 8);
		return true;
	}
	return false;
}

static void find_syms(Elf *elf, struct syms *s)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || (name[0] != '_' && name[0] != 'P'))
				continue;
			if (!strcmp(name, "_PyRuntime")) {
				s->runtime = sym.st_value;
			} else if (!strcmp(name, "Py_Version")) {
				s->version = sym.st_value;
			} else if (!strcmp(name, "PyCode_Type")) {
				s->code_type = sym.st_value;
			} else if (!strcmp(name, "_PyEval_EvalFrameDefault")) {
				s->eval = sym.st_value;
				s->eval_size = sym.st_size;
			} else if (!strcmp(name, "_PyEval_EvalFrameDefault.cold")) {
				s->cold = sym.st_value;
				s->cold_size = sym.st_size;
			}
		}
	}
	if (s->version)
		s->have_version = read_va(elf, s->version, &s->version_value);
}

static int file_syms(const char *path, struct syms *s)
{
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return -EINVAL;
	}
	if (elf_kind(elf) == ELF_K_ELF)
		find_syms(elf, s);
	elf_end(elf);
	close(fd);
	return s->runtime ? 0 : -ENOENT;
}

/* ---- the checks against the process ---- */

/* 3.11, 3.12: the code type's member table names the co_* fields with
 * their offsets. */
static int check_members(const struct pyproc *p)
{
	static const struct {
		const char *name;
		size_t at;
	} want[] = {
		{"co_filename", offsetof(struct zt_py_layout, co_filename)},
		{"co_name", offsetof(struct zt_py_layout, co_name)},
		{"co_qualname", offsetof(struct zt_py_layout, co_qualname)},
		{"co_firstlineno", offsetof(struct zt_py_layout, co_firstlineno)},
		{"co_linetable", offsetof(struct zt_py_layout, co_linetable)},
	};
	uint64_t members, e[5];
	unsigned found = 0;
	int i, j;

	/* PyTypeObject.tp_members; PyMemberDef {name, type, offset, flags,
	 * doc}: 40 bytes */
	if (rd64(p, p->code_type + 240, &members))
		return -ESRCH;
	for (i = 0; i < 64; i++) {
		char name[32] = {0};

		if (rd(p, members + 40 * (uint64_t)i, e, sizeof(e)))
			return -ESRCH;
		if (!e[0])
			break;
		if (rd(p, e[0], name, sizeof(name) - 1))
			continue;
		for (j = 0; j < 5; j++) {
			uint32_t off;

			if (strcmp(name, want[j].name))
				continue;
			memcpy(&off, (const char *)&p->lay + want[j].at, sizeof(off));
			if (e[2] != off)
				return -EPROTO;
			found |= 1u << j;
		}
	}
	return found == 0x1f ? 0 : -EPROTO;
}

/* 3.13: _PyRuntime starts with _Py_DebugOffsets ("xdebugpy"), the offsets
 * the interpreter itself publishes for tools like this one. */
static int check_debug_offsets(struct pyproc *p)
{
	uint64_t d[44];
	struct zt_py_layout *l = &p->lay;

	if (rd(p, p->runtime, d, sizeof(d)))
		return -ESRCH;
	if (memcmp(d, "xdebugpy", 8) || (d[1] >> 24 & 0xff) != 3 || (d[1] >> 16 & 0xff) != p->minor)
		return -EPROTO;
	if (d[2]) /* a free-threaded build: other structs */
		return -ENOTSUP;
	/* runtime_state at 24, interpreter_state at 48, thread_state at 152,
	 * interpreter_frame at 224, code_object at 272 */
	if (d[5] != l->rt_interp_head || d[8] != l->is_next || d[9] != l->is_threads_head ||
	    d[21] != l->ts_next || d[23] != l->cf_current_frame || d[24] != l->ts_thread_id ||
	    d[25] != l->ts_native_tid || d[29] != l->fr_previous || d[30] != l->fr_code ||
	    d[31] != l->fr_instr || d[33] != l->fr_owner || d[35] != l->co_filename ||
	    d[36] != l->co_name || d[37] != l->co_qualname || d[38] != l->co_linetable ||
	    d[39] != l->co_firstlineno || d[43] != l->co_code_adaptive)
		return -EPROTO;
	return 0;
}

int pyproc_open(struct pyproc *p, uint32_t pid, const char *path, uint64_t bias)
{
	const struct zt_py_layout *l;
	struct syms s;
	int err;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	memset(&s, 0, sizeof(s));
	err = file_syms(path, &s);
	if (err)
		return err;
	if (!s.cold) { /* a stripped interpreter: the .cold part from its debug file */
		char dbg[4096];
		struct syms d;

		memset(&d, 0, sizeof(d));
		if (!debugfind(NULL, path, NULL, dbg, sizeof(dbg))) {
			file_syms(dbg, &d);
			if (d.eval == s.eval) { /* the same build's */
				s.cold = d.cold;
				s.cold_size = d.cold_size;
			}
		}
	}
	if (!s.have_version || (s.version_value >> 24 & 0xff) != 3)
		return -ENOTSUP; /* before 3.11 (no Py_Version), or not CPython 3 */
	p->hexversion = s.version_value;
	p->minor = (unsigned)(s.version_value >> 16 & 0xff);
	l = pyproc_layout_of(p->minor);
	if (!l || !s.code_type || !s.eval)
		return -ENOTSUP;
	p->lay = *l;
	p->runtime = s.runtime + bias;
	p->code_type = s.code_type + bias;
	p->eval_lo = s.eval + bias;
	p->eval_hi = p->eval_lo + s.eval_size;
	if (s.cold && s.cold_size) {
		p->cold_lo = s.cold + bias;
		p->cold_hi = p->cold_lo + s.cold_size;
	}
	return pyproc_check(p);
}

int pyproc_check(struct pyproc *p)
{
	return p->minor >= 13 ? check_debug_offsets(p) : check_members(p);
}

/* ---- threads and frames: bpf/pywalk.h's walk ---- */

static int rd_py(const void *ctx, unsigned long long *v, unsigned long long addr)
{
	return rd(ctx, addr, v, sizeof(*v));
}

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define ZT_PY_READ(ctx, dst, addr) rd_py((ctx), &(dst), (addr))
#define ZT_PY_READ_BLOCK(ctx, buf, len, addr) rd((ctx), (addr), (buf), (len))
#include "bpf/pywalk.h"

int pyproc_thread(const struct pyproc *p, uint32_t tid, uint64_t *tstate)
{
	unsigned long long ts = 0;
	int ret = zt_py_thread(p, &p->lay, p->runtime, tid, &ts);

	*tstate = ts;
	return ret < 0 ? -ESRCH : ret;
}

int pyproc_stack(const struct pyproc *p, uint64_t tstate, struct zt_py_frame *out, int max)
{
	int n = zt_py_frames(p, &p->lay, tstate, out, max);

	return n < 0 ? -ESRCH : n;
}

/* ---- code objects ---- */

/* Python str at addr into buf (UTF-8, at most n - 1 bytes, cut at a
 * character). */
static int read_str(const struct pyproc *p, uint64_t addr, char *buf, size_t n)
{
	const struct zt_py_layout *l = &p->lay;
	uint64_t hdr[5];
	uint32_t state, kind;
	size_t len, i, o = 0;
	uint8_t raw[1024];

	buf[0] = 0;
	if (rd(p, addr, hdr, sizeof(hdr)))
		return -ESRCH;
	len = (size_t)hdr[2];
	state = (uint32_t)hdr[4];
	kind = state >> 2 & 7;
	if (!(state & 1u << 5) || (kind != 1 && kind != 2 && kind != 4))
		return -EPROTO; /* not compact: not a code object's name */
	if (len > sizeof(raw) / kind)
		len = sizeof(raw) / kind;
	if (rd(p, addr + ((state & 1u << 6) ? l->str_ascii_data : l->str_compact_data), raw,
	       len * kind))
		return -ESRCH;
	for (i = 0; i < len; i++) {
		uint32_t c = kind == 1 ? raw[i] : kind == 2 ? ((uint16_t *)raw)[i] : ((uint32_t *)raw)[i];
		char u[4];
		size_t k;

		if (c < 0x80) {
			u[0] = (char)c, k = 1;
		} else if (c < 0x800) {
			u[0] = (char)(0xc0 | c >> 6), u[1] = (char)(0x80 | (c & 63)), k = 2;
		} else if (c < 0x10000) {
			u[0] = (char)(0xe0 | c >> 12), u[1] = (char)(0x80 | (c >> 6 & 63));
			u[2] = (char)(0x80 | (c & 63)), k = 3;
		} else {
			u[0] = (char)(0xf0 | (c >> 18 & 7)), u[1] = (char)(0x80 | (c >> 12 & 63));
			u[2] = (char)(0x80 | (c >> 6 & 63)), u[3] = (char)(0x80 | (c & 63)), k = 4;
		}
		if (o + k >= n)
			break;
		memcpy(buf + o, u, k);
		o += k;
	}
	buf[o] = 0;
	return 0;
}

int pyproc_code(const struct pyproc *p, uint64_t code, struct pyproc_code *c)
{
	const struct zt_py_layout *l = &p->lay;
	uint64_t qual, file, table, size;
	int err;

	memset(c, 0, sizeof(*c));
	if (rd64(p, code + l->co_qualname, &qual) || rd64(p, code + l->co_filename, &file) ||
	    rd64(p, code + l->co_linetable, &table) ||
	    rd(p, code + l->co_firstlineno, &c->firstlineno, sizeof(c->firstlineno)))
		return -ESRCH;
	c->stamp = zt_py_stamp(file, qual, table);
	if ((err = read_str(p, qual, c->qualname, sizeof(c->qualname))) ||
	    (err = read_str(p, file, c->filename, sizeof(c->filename))))
		return err;
	/* bytes: ob_size at 16, the bytes at 32 */
	if (rd64(p, table + 16, &size))
		return -ESRCH;
	if (size > MAX_LINETABLE)
		return -EPROTO;
	c->linetable = malloc(size ? size : 1);
	if (!c->linetable)
		return -ENOMEM;
	c->linetable_len = size;
	if (size && rd(p, table + 32, c->linetable, size)) {
		pyproc_code_release(c);
		return -ESRCH;
	}
	return 0;
}

void pyproc_code_release(struct pyproc_code *c)
{
	free(c->linetable);
	c->linetable = NULL;
	c->linetable_len = 0;
}
