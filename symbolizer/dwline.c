// SPDX-License-Identifier: GPL-2.0-or-later
/* DWARF line programs read as libdw 0.188's read_srclines reads them (see dwline.h). */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/leb128.h"
#include "symbolizer/dwline.h"

static const uint8_t *section(Elf *elf, size_t shstrndx, Elf_Scn *scn, const char *want,
			      size_t *len, int *bad)
{
	GElf_Shdr sh;
	const char *n;
	Elf_Data *d;

	if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)) ||
	    strcmp(n, want))
		return NULL;
	if ((sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS) {
		*bad = 1;
		return NULL;
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size != sh.sh_size) {
		*bad = 1;
		return NULL;
	}
	*len = d->d_size;
	return d->d_buf;
}

int dwl_sections_init(struct dwl_sections *s, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	int bad = 0;

	memset(s, 0, sizeof(*s));
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return -ENOTSUP;
	s->little = eh.e_ident[EI_DATA] == ELFDATA2LSB;
	while ((scn = elf_nextscn(elf, scn))) {
		const uint8_t *p;
		size_t len = 0;

		if ((p = section(elf, shstrndx, scn, ".debug_line", &len, &bad))) {
			s->line = p;
			s->line_len = len;
		} else if ((p = section(elf, shstrndx, scn, ".debug_str", &len, &bad))) {
			s->str = p;
			s->str_len = len;
		} else if ((p = section(elf, shstrndx, scn, ".debug_line_str", &len, &bad))) {
			s->line_str = p;
			s->line_str_len = len;
		}
	}
	return s->line && !bad ? 0 : -ENOTSUP;
}

void dwl_unit_init(struct dwl_unit *u)
{
	memset(u, 0, sizeof(*u));
}

void dwl_unit_release(struct dwl_unit *u)
{
	free(u->rows);
	free(u->runs);
	free(u->paths);
	free(u->names);
	free(u->tmp);
	dwl_unit_init(u);
}

/* ---- reading ---------------------------------------------------------- */

struct rd {
	const uint8_t *p, *end;
	int little, bad;
};

static uint64_t rd_n(struct rd *r, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->little ? i : n - 1 - i] << (8 * i);
	r->p += n;
	return v;
}

static inline uint64_t rd_uleb(struct rd *r)
{
	return zt_uleb(&r->p, r->end, &r->bad);
}

static inline int64_t rd_sleb(struct rd *r)
{
	return zt_sleb(&r->p, r->end, &r->bad);
}

static const char *rd_cstr(struct rd *r)
{
	const uint8_t *z = memchr(r->p, 0, (size_t)(r->end - r->p));
	const char *s = (const char *)r->p;

	if (!z) {
		r->bad = 1;
		r->p = r->end;
		return NULL;
	}
	r->p = z + 1;
	return s;
}

static const char *str_in(const uint8_t *sec, size_t len, uint64_t off)
{
	if (!sec || off >= len || !memchr(sec + off, 0, len - off))
		return NULL;
	return (const char *)sec + off;
}

/* One attribute of a DWARF 5 entry: *str for string forms, *num for
 * constants. Returns 0, or -ENOTSUP for a form not handled here. */
static int rd_form(const struct dwl_sections *s, struct rd *r, uint64_t form, unsigned offsz,
		   const char **str, uint64_t *num, int *is_str)
{
	*is_str = 0;
	switch (form) {
	case DW_FORM_string:
		*is_str = 1;
		*str = rd_cstr(r);
		return 0;
	case DW_FORM_line_strp:
	case DW_FORM_strp:
		*is_str = 1;
		*num = rd_n(r, offsz);
		*str = form == DW_FORM_strp ? str_in(s->str, s->str_len, *num)
					    : str_in(s->line_str, s->line_str_len, *num);
		if (!*str && !r->bad)
			return -ENOTSUP;
		return 0;
	case DW_FORM_udata:
		*num = rd_uleb(r);
		return 0;
	case DW_FORM_data1:
		*num = rd_n(r, 1);
		return 0;
	case DW_FORM_data2:
		*num = rd_n(r, 2);
		return 0;
	case DW_FORM_data4:
		*num = rd_n(r, 4);
		return 0;
	case DW_FORM_data8:
		*num = rd_n(r, 8);
		return 0;
	case DW_FORM_data16:
		if (r->end - r->p < 16)
			r->bad = 1;
		else
			r->p += 16;
		return 0;
	case DW_FORM_block: {
		uint64_t n = rd_uleb(r);

		if (n > (uint64_t)(r->end - r->p))
			r->bad = 1;
		else
			r->p += n;
		return 0;
	}
	default:
		return -ENOTSUP;
	}
}

/* dir + "/" + name as libdw joins them (name alone when absolute or dir is
 * NULL), into u->names; the offset of the result + 1 in *at. */
static int join(struct dwl_unit *u, const char *dir, const char *name, size_t *at)
{
	size_t dl = name[0] != '/' && dir ? strlen(dir) : 0, nl = strlen(name);
	size_t need = u->names_len + dl + 1 + nl + 1;
	char *p;

	if (need < u->names_len || ZT_GROW(u->names, u->names_cap, need))
		return -ENOMEM;
	p = u->names + u->names_len;
	*at = u->names_len + 1;
	if (name[0] != '/' && dir) {
		memcpy(p, dir, dl);
		p[dl++] = '/';
	}
	memcpy(p + dl, name, nl + 1);
	u->names_len += dl + nl + 1;
	return 0;
}

static int add_path(struct dwl_unit *u, size_t at)
{
	if (ZT_GROW(u->paths, u->cap_paths, u->nr_paths + 1))
		return -ENOMEM;
	/* offsets for now (names may move while it grows): made pointers at the end */
	u->paths[u->nr_paths++] = (const char *)(uintptr_t)at;
	return 0;
}

struct hdr {
	unsigned version, offsz, min_inst, max_ops, default_stmt, line_range, opcode_base;
	int line_base;
	const uint8_t *std_len; /* std_len[op] for 1 <= op < opcode_base */
	const uint8_t *prog, *end;
};

/* The directory and file tables (r at their start, ending at h->prog). */
static int read_tables(const struct dwl_sections *s, struct rd *r, const struct hdr *h,
		       const char *comp_dir, struct dwl_unit *u)
{
	const char **dirs = NULL;
	size_t ndirs = 0, cap = 0, at;
	int err = -EBADMSG;

	u->nr_paths = 0;
	u->names_len = 0;
	if (h->version < 5) {
		const char *d;

		if (ZT_GROW(dirs, cap, 1))
			return -ENOMEM;
		dirs[ndirs++] = comp_dir;
		while (r->p < r->end && *r->p) {
			d = rd_cstr(r);
			if (!d)
				goto out;
			if (ZT_GROW(dirs, cap, ndirs + 1)) {
				err = -ENOMEM;
				goto out;
			}
			dirs[ndirs++] = d;
		}
		if (r->p >= r->end)
			goto out;
		r->p++;
		/* file 0: libdw's "???" */
		if ((err = join(u, NULL, "???", &at)) || (err = add_path(u, at)))
			goto out;
		err = -EBADMSG;
		while (r->p < r->end && *r->p) {
			const char *name = rd_cstr(r);
			uint64_t di = rd_uleb(r);

			rd_uleb(r);
			rd_uleb(r);
			if (!name || r->bad)
				goto out;
			if (di >= ndirs) {
				err = -ENOTSUP; /* libdw's error, libdw's message */
				goto out;
			}
			if ((err = join(u, dirs[di], name, &at)) || (err = add_path(u, at)))
				goto out;
			err = -EBADMSG;
		}
		if (r->p >= r->end)
			goto out;
		r->p++;
	} else {
		for (int pass = 0; pass < 2; pass++) {
			uint64_t forms[256][2], n, i;
			unsigned nforms = (unsigned)rd_n(r, 1), k;
			int path_k = -1, idx_k = -1;

			for (k = 0; k < nforms; k++) {
				forms[k][0] = rd_uleb(r);
				forms[k][1] = rd_uleb(r);
				if (forms[k][0] == DW_LNCT_path)
					path_k = (int)k;
				else if (forms[k][0] == DW_LNCT_directory_index)
					idx_k = (int)k;
			}
			n = rd_uleb(r);
			if (pass && idx_k >= 0 && forms[idx_k][1] != DW_FORM_udata &&
			    forms[idx_k][1] != DW_FORM_data1 && forms[idx_k][1] != DW_FORM_data2 &&
			    forms[idx_k][1] != DW_FORM_data4 && forms[idx_k][1] != DW_FORM_data8) {
				err = -ENOTSUP;
				goto out;
			}
			if (r->bad || (nforms && (path_k < 0 || (pass && idx_k < 0))) ||
			    (!nforms && n) || (nforms && n > (uint64_t)(r->end - r->p) / nforms))
				goto out;
			for (i = 0; i < n; i++) {
				const char *name = NULL, *str = NULL;
				uint64_t di = UINT64_MAX, num = 0;
				int is_str;

				for (k = 0; k < nforms; k++) {
					if ((err = rd_form(s, r, forms[k][1], h->offsz, &str, &num,
							   &is_str)))
						goto out;
					err = -EBADMSG;
					if ((int)k == path_k) {
						if (!is_str)
							goto out;
						name = str;
					} else if ((int)k == idx_k && pass) {
						if (is_str) {
							err = -ENOTSUP;
							goto out;
						}
						di = num;
					}
				}
				if (r->bad || !name)
					goto out;
				if (!pass) {
					if (ZT_GROW(dirs, cap, ndirs + 1)) {
						err = -ENOMEM;
						goto out;
					}
					dirs[ndirs++] = name;
					continue;
				}
				if (di >= ndirs) {
					err = -ENOTSUP;
					goto out;
				}
				/* entry 0 is file 0 (libdw's "???" when there is none) */
				if ((err = join(u, dirs[di], name, &at)) || (err = add_path(u, at)))
					goto out;
				err = -EBADMSG;
			}
			if (pass && !u->nr_paths) {
				/* no files: index 0 is still libdw's "???" */
				if ((err = join(u, NULL, "???", &at)) || (err = add_path(u, at)))
					goto out;
			}
		}
	}
	if (r->p != h->prog)
		goto out;
	err = 0;
out:
	free(dirs);
	return err;
}

static int push_row(struct dwl_unit *u, uint64_t addr, uint64_t file, int64_t line, uint64_t column,
		    uint64_t discr, int end)
{
	/* libdw's Dwarf_Line field widths: beyond them it fails the unit */
	if (file > UINT32_MAX || line < INT32_MIN || line > INT32_MAX || column > 0xffff)
		return -ENOTSUP;
	if (u->nr_rows == u->cap_rows && ZT_GROW(u->rows, u->cap_rows, u->nr_rows + 1))
		return -ENOMEM;
	u->rows[u->nr_rows++] = (struct dwl_row){addr,
						 (uint32_t)file,
						 (uint32_t)(int32_t)line,
						 (uint32_t)column,
						 (uint32_t)(discr & 0xffffff),
						 (uint32_t)end};
	return 0;
}

static inline int row_before(const struct dwl_row *a, const struct dwl_row *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	return a->end && !b->end;
}

static int run_cmp(const void *pa, const void *pb, void *rows)
{
	const struct dwl_run *a = pa, *b = pb;
	const struct dwl_row *x = &((const struct dwl_row *)rows)[a->start];
	const struct dwl_row *y = &((const struct dwl_row *)rows)[b->start];

	if (row_before(x, y))
		return -1;
	if (row_before(y, x))
		return 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The runs (the program's sequences, mostly) put in order whole, when
 * that gives the stable sort: sequences of different functions do not
 * interleave. Returns 1 when done, 0 when not possible, -ENOMEM. */
static int sort_runs(struct dwl_unit *u)
{
	struct dwl_row *r = u->rows;
	size_t n = u->nr_rows, i, k;

	/* an end of sequence at the address of the rows before it goes
	 * before them (swapping neighbours out of order keeps what a stable
	 * sort gives): then each sequence is one run */
	for (i = 1; i < n; i++) {
		struct dwl_row e = r[i];

		if (!e.end || r[i - 1].end || r[i - 1].addr != e.addr)
			continue;
		for (k = i; k > 0 && !r[k - 1].end && r[k - 1].addr == e.addr; k--)
			r[k] = r[k - 1];
		r[k] = e;
	}
	u->nr_runs = 0;
	for (i = 0; i < n; i = k) {
		for (k = i + 1; k < n && !row_before(&r[k], &r[k - 1]); k++)
			;
		if (ZT_GROW(u->runs, u->cap_runs, u->nr_runs + 1))
			return -ENOMEM;
		u->runs[u->nr_runs++] = (struct dwl_run){i, k};
	}
	qsort_r(u->runs, u->nr_runs, sizeof(*u->runs), run_cmp, r);
	for (i = 1; i < u->nr_runs; i++) {
		const struct dwl_run *a = &u->runs[i - 1], *b = &u->runs[i];
		const struct dwl_row *last = &r[a->end - 1], *first = &r[b->start];

		if (row_before(first, last) || (!row_before(last, first) && a->start > b->start))
			return 0;
	}
	return 1;
}

ZT_DEFINE_MERGE_SORT(merge_rows, struct dwl_row, row_before)

/* libdw's order: a stable sort by (address, end of sequence first); the
 * program's sequences are runs already, put in order whole or merged
 * pairwise */
static int sort_rows(struct dwl_unit *u)
{
	struct dwl_row *src = u->rows;
	size_t n = u->nr_rows, i;
	int err;

	u->nr_runs = 0;
	for (i = 1; i < n && !row_before(&src[i], &src[i - 1]); i++)
		;
	if (i < n && (err = sort_runs(u)))
		return err < 0 ? err : 0;
	/* sorted already, or merged below: one run */
	if (ZT_GROW(u->runs, u->cap_runs, 1))
		return -ENOMEM;
	u->runs[0] = (struct dwl_run){0, n};
	u->nr_runs = n ? 1 : 0;
	if (i >= n)
		return 0;
	if (ZT_GROW(u->tmp, u->cap_tmp, n))
		return -ENOMEM;
	src = merge_rows(u->rows, u->tmp, n);
	if (src != u->rows) {
		/* swap the buffers: the sorted one becomes rows */
		size_t c = u->cap_rows;

		u->tmp = u->rows;
		u->cap_rows = u->cap_tmp;
		u->cap_tmp = c;
		u->rows = src;
	}
	return 0;
}

static int run(struct hdr *h, struct rd *r, unsigned addr_size, struct dwl_unit *u)
{
	uint64_t addr = 0, file = 1, column = 0, discr = 0;
	int64_t line = 1;
	int err;
	const uint8_t *std = h->std_len;

	u->nr_rows = 0;
	while (r->p < r->end) {
		unsigned op = *r->p++;

		if (op >= h->opcode_base) {
			unsigned a = op - h->opcode_base;

			if (!h->line_range)
				return -EBADMSG;
			line += h->line_base + (int)(a % h->line_range);
			addr += (uint64_t)h->min_inst * (a / h->line_range);
			if ((err = push_row(u, addr, file, line, column, discr, 0)))
				return err;
			discr = 0;
		} else if (op == 0) {
			unsigned len, sub;

			if (r->end - r->p < 2)
				return -EBADMSG;
			len = *r->p++;
			if (len & 0x80)
				return -ENOTSUP; /* libdw reads one byte of the ULEB128 */
			if ((size_t)(r->end - r->p) < len)
				return -EBADMSG;
			sub = *r->p++;
			switch (sub) {
			case DW_LNE_end_sequence:
				if ((err = push_row(u, addr, file, line, column, discr, 1)))
					return err;
				addr = 0;
				file = 1;
				line = 1;
				column = 0;
				discr = 0;
				break;
			case DW_LNE_set_address:
				if ((size_t)(r->end - r->p) < addr_size)
					return -EBADMSG;
				addr = rd_n(r, addr_size);
				break;
			case DW_LNE_set_discriminator:
				if (h->opcode_base <= 4 || std[4] != 1)
					return -ENOTSUP;
				discr = rd_uleb(r);
				if (discr > UINT32_MAX)
					return -ENOTSUP;
				break;
			case DW_LNE_define_file:
			case DW_LNE_lo_user:	 /* NVIDIA's inlined call */
			case DW_LNE_lo_user + 1: /* and function name */
				return -ENOTSUP;
			default:
				if (!len)
					return -EBADMSG;
				r->p += len - 1;
				break;
			}
			/* libdw goes on where each case left it, whatever len said */
		} else if (op <= DW_LNS_set_isa) {
			uint64_t v;

			switch (op) {
			case DW_LNS_copy:
				if (std[op] != 0)
					return -ENOTSUP;
				if ((err = push_row(u, addr, file, line, column, discr, 0)))
					return err;
				discr = 0;
				break;
			case DW_LNS_advance_pc:
				if (std[op] != 1)
					return -ENOTSUP;
				v = rd_uleb(r);
				/* libdw multiplies in unsigned int */
				if (v > UINT32_MAX / (h->min_inst ? h->min_inst : 1))
					return -ENOTSUP;
				addr += (uint64_t)h->min_inst * v;
				break;
			case DW_LNS_advance_line: {
				int64_t d;

				if (std[op] != 1)
					return -ENOTSUP;
				d = rd_sleb(r);
				if (d < INT32_MIN || d > INT32_MAX)
					return -ENOTSUP;
				line += d;
				break;
			}
			case DW_LNS_set_file:
				if (std[op] != 1)
					return -ENOTSUP;
				file = rd_uleb(r);
				if (file > UINT32_MAX)
					return -ENOTSUP;
				break;
			case DW_LNS_set_column:
				if (std[op] != 1)
					return -ENOTSUP;
				column = rd_uleb(r);
				if (column > UINT32_MAX)
					return -ENOTSUP;
				break;
			case DW_LNS_negate_stmt:
			case DW_LNS_set_basic_block:
			case DW_LNS_set_prologue_end:
			case DW_LNS_set_epilogue_begin:
				if (std[op] != 0)
					return -ENOTSUP;
				break;
			case DW_LNS_const_add_pc:
				if (std[op] != 0 || !h->line_range)
					return -ENOTSUP;
				addr += (uint64_t)h->min_inst *
					((255 - h->opcode_base) / h->line_range);
				break;
			case DW_LNS_fixed_advance_pc:
				if (std[op] != 1 || r->end - r->p < 2)
					return -ENOTSUP;
				addr += rd_n(r, 2);
				break;
			case DW_LNS_set_isa:
				if (std[op] != 1)
					return -ENOTSUP;
				if (rd_uleb(r) > 255)
					return -ENOTSUP;
				break;
			}
		} else {
			for (unsigned n = std[op]; n > 0; n--)
				rd_uleb(r);
		}
		if (r->bad)
			return r->bad == 2 ? -ENOTSUP : -EBADMSG;
	}
	return 0;
}

int dwl_read(const struct dwl_sections *s, uint64_t off, unsigned addr_size, const char *comp_dir,
	     struct dwl_unit *u)
{
	struct rd r = {NULL, NULL, s->little, 0};
	struct hdr h;
	uint64_t len, hlen;
	size_t i;
	int err;

	u->nr_rows = 0;
	u->nr_paths = 0;
	if (!s->line || off >= s->line_len || (addr_size != 4 && addr_size != 8))
		return -ENOTSUP;
	memset(&h, 0, sizeof(h));
	r.p = s->line + off;
	r.end = s->line + s->line_len;
	len = rd_n(&r, 4);
	h.offsz = 4;
	if (len == 0xffffffffu) {
		len = rd_n(&r, 8);
		h.offsz = 8;
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return -EBADMSG;
	r.end = r.p + len;
	h.version = (unsigned)rd_n(&r, 2);
	if (h.version < 2 || h.version > 5)
		return -ENOTSUP;
	if (h.version >= 5 && (rd_n(&r, 1) != addr_size || rd_n(&r, 1) != 0))
		return -ENOTSUP;
	hlen = rd_n(&r, h.offsz);
	if (r.bad || hlen > (uint64_t)(r.end - r.p))
		return -EBADMSG;
	h.prog = r.p + hlen;
	h.end = r.end;
	h.min_inst = (unsigned)rd_n(&r, 1);
	h.max_ops = h.version >= 4 ? (unsigned)rd_n(&r, 1) : 1;
	if (h.max_ops != 1)
		return -ENOTSUP; /* VLIW op indexes: libdw's arithmetic */
	h.default_stmt = (unsigned)rd_n(&r, 1);
	h.line_base = (int8_t)rd_n(&r, 1);
	h.line_range = (unsigned)rd_n(&r, 1);
	h.opcode_base = (unsigned)rd_n(&r, 1);
	if (r.bad || !h.opcode_base || (size_t)(h.prog - r.p) < h.opcode_base - 1)
		return -EBADMSG;
	h.std_len = r.p - 1;
	r.p += h.opcode_base - 1;
	{
		struct rd t = {r.p, h.prog, s->little, 0};

		if ((err = read_tables(s, &t, &h, comp_dir, u)))
			return err == -EBADMSG ? -ENOTSUP : err;
		if (t.bad)
			return -ENOTSUP;
	}
	for (i = 0; i < u->nr_paths; i++)
		u->paths[i] = u->names + ((uintptr_t)u->paths[i] - 1);
	r.p = h.prog;
	/* at most a row per byte of program: no copies while it grows
	 * (pages never written cost nothing) */
	if (ZT_GROW(u->rows, u->cap_rows, (size_t)(h.end - h.prog) + 1))
		return -ENOMEM;
	if ((err = run(&h, &r, addr_size, u)))
		return err;
	if ((err = sort_rows(u)))
		return err;
	if (u->nr_runs)
		u->rows[u->runs[u->nr_runs - 1].end - 1].end = 1;
	return 0;
}
