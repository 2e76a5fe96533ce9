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
 * without one are ignored; of several rows at one address the last wins;
 * decoding starts at header_length; NVIDIA's extended opcode 0x90 gives
 * the inline context (the call-site row and the inlined function's name
 * in .debug_str), from which the inline frames come. Device functions
 * are the FUNC symbols: a __noinline__ callee of a whole-program cubin is
 * a LOCAL FUNC inside its caller kernel's section, so the function of a
 * PC is the innermost symbol of the kernel's section containing it.
 * Device-linked cubins (nvlink) have one unit per translation unit and
 * callees in sections of their own.
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
 * even for a PC inside a __noinline__ callee). Frames go to out[0 .. max)
 * innermost first: the inlined functions, then the device function that
 * holds the PC (the callee's symbol for a PC inside a __noinline__
 * callee), then, when that is not func itself, the frames of its caller
 * chain up to func as far as the cubin tells them (at least func itself,
 * marked not inlined). Each frame has its own position: the innermost
 * one the row at pc, the outer ones their call sites when the line
 * table says them.
 *
 * Returns the number of frames (>= 1, at most max), 0 when func is not a
 * function of this cubin or pc lies outside it, or a negative errno.
 * Without line info every frame has file NULL and line 0.
 */
int cubin_resolve(const struct cubin *c, const char *func, uint64_t pc, struct cubin_frame *out,
		  size_t max);

/* The functions of the cubin: cb(name (mangled), section size, whether it
 * is a kernel (a section of its own, st_other 0x10 or .nv.info entry)) for
 * each; stop and return cb's value when it is not 0. */
int cubin_functions(const struct cubin *c,
		    int (*cb)(void *ctx, const char *name, uint64_t size, int kernel), void *ctx);

/*
 * The decoded cubin (symbols, line rows, inline contexts, strings) as one
 * flat little-endian image, for the on-disk symbol cache: cubin_save()
 * appends it to *buf and *len (realloc'ed; the caller frees), cubin_load()
 * reads one back (checked: a damaged or foreign image is -EINVAL, never a
 * crash). A loaded cubin answers exactly as the one saved.
 */
int cubin_save(const struct cubin *c, uint8_t **buf, size_t *len);
int cubin_load(const void *data, size_t len, struct cubin **out);

#endif
