/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LLVM GSYM version 1 files: written from a struct fi_table, read in place
 * (mmap'ed or borrowed memory) with lookups that answer as llvm-gsymutil does.
 */
#ifndef ZT_GSYM_H
#define ZT_GSYM_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/zbuf.h"
#include "symbolizer/funcinfo.h"

#define GSYM_MAGIC 0x4753594du /* "GSYM" */
#define GSYM_VERSION 1
#define GSYM_HEADER_SIZE 48
#define GSYM_MAX_UUID 20
/* Inline trees deeper than this are dropped by the writer and rejected by
 * the reader (a bound on the recursion over outside input). */
#define GSYM_MAX_INLINE_DEPTH 64
/*
 * zt's own FunctionInfo InfoType, for what LLVM's types have no room for.
 * LLVM's lookups (llvm-gsymutil --address, llvm-symbolizer) skip unknown
 * types; the files stay valid GSYM v1. Written only when it says something.
 * Payload (ULEB128 numbers, but for the fixed-width tables):
 *   version (2; a reader ignores other versions), flags (FI_GAP: not a
 *   function, funcinfo.h), dname, gname, lname, gfile, lfile (string
 *   offsets, 0: none; see struct fi_func),
 *   NumNodes, a width W (1, 2 or 4 bytes), then the call column of each
 *   InlineInfo node in the order they are encoded (depth first, the root
 *   first), W bytes each, little-endian;
 *   NumRows, a width W, then {column, discriminator} of each LineTable row
 *   in order, W bytes each: a lookup reads its row's directly.
 */
#define GSYM_INFO_ZT 0x7a740001u
/*
 * zt's second InfoType, after the line table of a function with more than
 * GSYM_LCK_STEP rows: where decoding can start without reading the rows
 * before (the largest functions have thousands). u32 count, then per
 * checkpoint, after every GSYM_LCK_STEP-th row: u32 the offset of the next
 * opcode in the line table's record, u32 rows decoded so far, u32 file, u32
 * line, u64 the row's address minus the function's start (the image's byte
 * order). Other readers skip it as an unknown type.
 */
#define GSYM_INFO_ZT_LCK 0x7a740002u
#define GSYM_LCK_STEP 32

/*
 * Encode t (after fi_finish) as a GSYM v1 image appended to out, with
 * t->uuid (at most 20 bytes) as the UUID. The base address is the first
 * function's start. Functions without a name are left out (GSYM requires
 * one); line rows before their function's start are dropped, as are inline
 * nodes with no non-empty range inside their parent's ranges and nodes
 * deeper than GSYM_MAX_INLINE_DEPTH. An empty table gives a valid file with
 * no functions. Returns 0, -EINVAL (a file index past the file table),
 * -EOVERFLOW (a size or offset past 32 bits) or -ENOMEM; out->len is left
 * unchanged on failure.
 */
int gsym_encode(const struct fi_table *t, struct zbuf *out);
/* gsym_encode into path, atomically (a temporary file in the same directory,
 * then rename). Returns 0 or a negative errno. */
int gsym_write_file(const struct fi_table *t, const char *path);

/* A reader over one GSYM image. Opening checks the header and that every
 * table lies inside the image; function records are checked when a lookup
 * reads them. Both byte orders are accepted. */
struct gsym;

/* Map path read-only. Returns 0, -EBADMSG for a file that is not a valid
 * GSYM v1 image, or the errno of open/mmap. *out is freed by gsym_free. */
int gsym_open_file(const char *path, struct gsym **out);
/* Read an image in borrowed memory (no alignment needed): data must stay
 * valid and unchanged until gsym_free. Returns 0, -EBADMSG or -ENOMEM. */
int gsym_open_mem(const void *data, size_t len, struct gsym **out);
void gsym_free(struct gsym *g); /* accepts NULL */

/*
 * Look up a virtual address. Fills r as funcinfo.h defines it: locs[0] the
 * innermost (inlined) function with the line table's file:line for addr,
 * then each caller with the line of its call, locs[n-1] the real function.
 * Strings are borrowed from the image until gsym_free. As in LLVM, a
 * function of size 0 covers everything up to the next function's start (to
 * the end of the address space when it is the last one), and of several
 * line rows at one address the first counts (llvm-gsymutil-14). Unlike LLVM,
 * an address before the function's first line row gives the function's name
 * with no file and line instead of an error. More than FI_MAX_INLINE frames:
 * the innermost ones and the real function are kept, the middle is dropped.
 * Line rows of file 0 (the end of a line sequence) are no file and line.
 * Returns 0, -ENOENT when no function covers addr, or -EBADMSG when the
 * function's record is corrupt.
 */
int gsym_lookup(const struct gsym *g, uint64_t addr, struct fi_result *r);
/* The same, and the gaps between functions (r->gap set) too: for answers
 * as addr2line and llvm-symbolizer give them (gaps hold line rows and the
 * names those tools print; fi_result's dname/gname/lname, columns and
 * discriminators are filled by both). */
int gsym_lookup_all(const struct gsym *g, uint64_t addr, struct fi_result *r);

/* Number of function entries (address table entries). */
uint32_t gsym_nr_funcs(const struct gsym *g);
/* Entry i (< gsym_nr_funcs): start address, size (0: sizeless) and name
 * (borrowed). Returns 0, -ERANGE or -EBADMSG. */
int gsym_func(const struct gsym *g, uint32_t i, uint64_t *start, uint32_t *size, const char **name);
/* Whether any function of g has a file:line row (its symbols are "full",
 * not names only). */
int gsym_has_lines(const struct gsym *g);
/* The header's base address. */
uint64_t gsym_base_addr(const struct gsym *g);
/* The UUID (build ID): a pointer into the image's header, *len bytes (0..20). */
const uint8_t *gsym_uuid(const struct gsym *g, size_t *len);
/* The whole image g reads (borrowed: mapped or the caller's memory, valid
 * until gsym_free), *len bytes. */
const void *gsym_image(const struct gsym *g, size_t *len);

#endif
