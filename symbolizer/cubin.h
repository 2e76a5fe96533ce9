/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Offline symbolization of NVIDIA GPU code: a cubin (an ELF file with
 * e_machine 190, EM_CUDA) read with libelf, and a (kernel, PC offset)
 * pair -- the form CUPTI's PC-sampling records carry -- resolved to the
 * device functions and CUDA source lines at that PC.
 *
 * The line table is the cubin's .debug_line (nvcc -lineinfo), read as
 * NVIDIA writes it, not as generic DWARF tools do (notes: ebpf-cupti.md
 * 4.5.1): each function's sequence starts at address 0 and is tied to its
 * function only by the relocation (REL or RELA, the section whose sh_info
 * is .debug_line's index) on its DW_LNE_set_address operand; sequences
 * without one are ignored (nvlink keeps those of functions it dropped);
 * of several rows at one address the last wins, so the row of a PC is the
 * last one at the greatest address <= PC, as CUPTI answers; decoding
 * starts at header_length (4 more bytes follow the file table); NVIDIA's
 * extended opcode 0x90 (ULEB context, ULEB name offset) gives the inline
 * context: the 1-based number, in its sequence, of the call-site row
 * (rows that repeat the previous row's address and line not counted) and
 * the inlined function's name in .debug_str, relative to the unit's base
 * (those 4 bytes; where they are 0 in a later unit of a device-linked
 * cubin, the units' strings still follow one another, and the base is
 * taken as the end of the last string the earlier units named). From
 * these come the inline frames, nested as deep as the contexts go.
 * Device functions are the FUNC symbols: a __noinline__ callee of a
 * whole-program cubin is a LOCAL FUNC "$<kernel>$<callee>" inside its
 * caller kernel's section, so the function of a PC is the innermost
 * symbol of the kernel's section containing it. Device-linked cubins
 * (nvlink) have one unit per translation unit, each with its own
 * directory and file tables, and callees in sections of their own;
 * functions without a sequence resolve to names only.
 *
 * Everything is decoded at open into per-section sorted rows and a sorted
 * name index: cubin_resolve() is two binary searches and a short walk,
 * with no allocation.
 *
 * Embedded nowhere: cubin_open() / cubin_free(). Strings returned are
 * owned by the struct cubin and valid until cubin_free(). The bytes given
 * to cubin_open() are copied (or decoded up front): the caller may free
 * them afterwards. Thread-compatible: one struct cubin may be read by
 * several threads at once once opened.
 */
#ifndef ZT_CUBIN_H
#define ZT_CUBIN_H

#include <stddef.h>
#include <stdint.h>

#define CUBIN_EM_CUDA 190

struct cubin;

/* Whether data looks like a cubin (an ELF64 file with e_machine 190). */
int cubin_is_cubin(const void *data, size_t len);

/*
 * Read a cubin from len bytes. 0 and *out, or a negative errno: -EINVAL
 * for bytes that are not a cubin or are damaged (a bad line table is not
 * an error: its functions resolve to names only), -ENOMEM.
 */
int cubin_open(const void *data, size_t len, struct cubin **out);
void cubin_free(struct cubin *c);

/* Whether the cubin has a source line table (built with -lineinfo or -G). */
int cubin_has_lines(const struct cubin *c);

/* One frame at a PC. */
struct cubin_frame {
	const char *func; /* the device function, mangled as in the cubin ("" if unknown) */
	const char *dir;  /* directory of file, NULL when none */
	const char *file; /* source file of this frame's position, NULL when unknown */
	uint32_t line;	  /* 0 when unknown */
	uint8_t inlined;  /* inlined into the next frame */
};

/*
 * The frames at PC offset pc of the function named func (mangled, as
 * PC-sampling records name it: the kernel, whose section holds the PC,
 * even for a PC inside a __noinline__ callee; pc is relative to func's
 * own start, its section's start for kernels). Frames go to
 * out[0 .. max) innermost first: the inlined functions, then the device
 * function that holds the PC (for a PC inside a __noinline__ callee, the
 * callee, named without the "$<kernel>$" prefix its symbol has, e.g.
 * "_Z6calleef"), then, when that is not func itself, func (not inlined,
 * without a position: the call site of a __noinline__ callee is not in
 * the line table). Each frame has its own position: the innermost one
 * the row at pc, each outer one the call site of the frame inside it.
 * An inlined function whose name cannot be read has func "".
 *
 * Returns the number of frames (>= 1, at most max), 0 when func is not a
 * function of this cubin, pc lies outside it, or max is 0. Without line
 * info every frame has file NULL and line 0.
 */
int cubin_resolve(const struct cubin *c, const char *func, uint64_t pc, struct cubin_frame *out,
		  size_t max);

/* The functions of the cubin: cb(name (mangled, as in the symbol table,
 * the name cubin_resolve() takes), size, whether it is a kernel (st_other
 * has 0x10, CUDA's entry-point flag)) for each, by section then address;
 * stop and return cb's value when it is not 0. */
int cubin_functions(const struct cubin *c,
		    int (*cb)(void *ctx, const char *name, uint64_t size, int kernel), void *ctx);

/*
 * The decoded cubin (symbols, line rows, inline contexts, strings) as one
 * flat little-endian image, for the on-disk symbol cache: cubin_save()
 * appends it to *buf and *len (realloc'ed; the caller frees), cubin_load()
 * reads one back (checked: a damaged or foreign image is -EINVAL, never a
 * crash: every offset, index, count and order is checked). A loaded
 * cubin answers exactly as the one saved, and saves to the same bytes.
 * The image has a version: an image of another version is -EINVAL (the
 * cache then decodes the cubin again).
 */
int cubin_save(const struct cubin *c, uint8_t **buf, size_t *len);
int cubin_load(const void *data, size_t len, struct cubin **out);

#endif
