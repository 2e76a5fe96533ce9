/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Go's pclntab (.gopclntab): the table every Go binary keeps, stripped
 * (go build -ldflags='-s -w') or not, for the runtime's own tracebacks:
 * function names and ranges, file:line of every PC, and the inline tree
 * (which inlined calls a PC belongs to, and where they were called). Read
 * into a struct fi_table as dwarfsyms.c fills it from DWARF: functions,
 * line rows (the innermost position, as DWARF's line table has it), and an
 * inline tree per function (root: the function; children: the calls
 * inlined into it, with their ranges, names and call sites).
 *
 * Layouts, by the header's magic: 0xfffffffb (Go 1.2-1.15: names and lines,
 * no inline trees), 0xfffffffa (1.16, 1.17), 0xfffffff0 (1.18, 1.19),
 * 0xfffffff1 (1.20 on); either byte order; pointers of 4 or 8 bytes. Every
 * read is checked against the bytes given: a damaged table is an error
 * (-EBADMSG), never a read past it.
 */
#ifndef ZT_GOPCLNTAB_H
#define ZT_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer/funcinfo.h"

#define GOPCLN_MAGIC_12	 0xfffffffbu /* Go 1.2 - 1.15 */
#define GOPCLN_MAGIC_116 0xfffffffau /* Go 1.16, 1.17 */
#define GOPCLN_MAGIC_118 0xfffffff0u /* Go 1.18, 1.19 */
#define GOPCLN_MAGIC_120 0xfffffff1u /* Go 1.20 and later */

/* File bytes [off, off + size) of the module are mapped at vaddr (a
 * PT_LOAD segment's file part). */
struct gopcln_seg {
	uint64_t off, vaddr, size;
};

/* Where a pclntab lies in a module's bytes, and what it needs from around
 * it. All borrowed. */
struct gopcln_src {
	const uint8_t *file; /* the module's bytes: every read stays inside them */
	size_t file_len;
	const struct gopcln_seg *segs; /* vaddr <-> file offset; NULL/0: identity */
	size_t nr_segs;
	size_t tab_off, tab_len; /* the table: file[tab_off, tab_off + tab_len) */
	uint64_t tab_vaddr;	 /* its address, 0: unknown */
	/* runtime.text, the base of 1.18+'s function offsets; 0: the header's */
	uint64_t text;
	/* go:func.* (moduledata.gofunc), the base of 1.18+'s funcdata offsets;
	 * 0: unknown, then no inline trees for those layouts (1.16's funcdata
	 * are addresses and need none) */
	uint64_t gofunc;
};

/* What a parse found. */
struct gopcln_info {
	uint32_t magic;
	unsigned ptrsize, quantum;
	uint64_t nr_funcs;   /* functions added */
	uint64_t nr_inlined; /* of them, with an inline tree */
	int by_search;	     /* found by searching the bytes, not by section */
	int no_gofunc;	     /* 1.18+ without moduledata.gofunc: no inline trees */
};

/*
 * Add the functions of the pclntab s describes to t (fi_finish() is
 * called), each with its name (also its dname: the name addr2line shows),
 * size, line rows and inline tree. info (may be NULL) gets what was found.
 * Returns 0, -ENOEXEC when the bytes do not start with a pclntab header,
 * -EBADMSG for a damaged table (an offset, a string or a pc-value table
 * past the end, functions out of order, a loop in an inline tree), or
 * -ENOMEM. On failure t may hold part of the functions: parse into a table
 * of its own.
 */
int gopclntab_parse(const struct gopcln_src *s, struct fi_table *t, struct gopcln_info *info);

/*
 * Find the pclntab in the bytes of a module whose section headers are gone:
 * the first place (4-byte aligned) with a header that holds up (magic, pad
 * bytes 0, quantum 1, 2 or 4, pointer size 4 or 8, offsets in order and
 * inside the bytes, a function table in order). *off gets its offset, *len
 * the bytes from there to the end of data. 0, or -ENOENT.
 */
int gopclntab_search(const uint8_t *data, size_t len, size_t *off, size_t *len_out);

/*
 * moduledata's text and gofunc for the pclntab at tab_vaddr: the
 * moduledata is found in the writable segments' bytes as the pointer-sized
 * word tab_vaddr followed by funcnametab's address. 0, or -ENOENT (then
 * *text and *gofunc are 0).
 */
int gopclntab_moduledata(const struct gopcln_src *s, uint64_t *text, uint64_t *gofunc);

/*
 * The pclntab of the ELF file at path (or of e, open in libelf, borrowed):
 * section .gopclntab (or .data.rel.ro.gopclntab), else, in a file without
 * section headers, searched for (gopclntab_search()); 1.18+'s gofunc and
 * (where the header holds 0) text from moduledata. On success t holds the
 * pclntab's functions plus those t had that lie outside all of them (the C
 * code of a cgo binary, with its DWARF or symbol-table names); t's build id
 * is kept. On failure t is as it was. Returns 0; -EEXIST when t has line
 * rows for code the pclntab covers (the binary's DWARF covers its Go code:
 * DWARF stays); -ENOENT (no pclntab: not a Go binary); -EBADMSG (damaged);
 * -ENOEXEC (not ELF); -ENOMEM; or -errno of open.
 */
struct Elf;
int gopclntab_extract_elf(struct Elf *e, struct fi_table *t, struct gopcln_info *info);
int gopclntab_extract(const char *path, struct fi_table *t, struct gopcln_info *info);

#endif
