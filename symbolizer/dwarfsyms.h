/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A module's symbols as a struct fi_table: function symbols of the ELF
 * symbol table, and DWARF functions, line tables and inline trees, read in
 * one pass per compile unit (libdw), never per address.
 */
#ifndef ZT_DWARFSYMS_H
#define ZT_DWARFSYMS_H

#include <libelf.h>

#include "symbolizer/funcinfo.h"

/*
 * Fill t (initialized by the caller, released by the caller on success and
 * failure alike) from ELF file elf_path and, when debug_path is given, the
 * DWARF of debug_path: a separate debug file (/usr/lib/debug/.build-id/...)
 * or elf_path itself when the DWARF is inside it.
 *
 * Functions: every FUNC/IFUNC symbol (and visible NOTYPE label) in an
 * executable section of the symbol tables perf takes, and every DWARF
 * subprogram with code. Tables as perf's dso__load: the .symtab of the
 * first file that has one (elf_path's, else the debug file's) and that
 * file's .dynsym, else elf_path's .dynsym; plus the "name@plt" PLT stubs
 * of pltsyms.h when perf loads a symbol of those tables (a named function
 * or object in a loaded section, or a label in code), as perf 6.1 does.
 * One name per address, chosen as perf does (symname_cmp(): sized, not
 * weak, global, fewer leading underscores, longer, first); sizeless ones
 * end at the next symbol or their section's end. Names follow
 * perf: the symbol's name when a symbol covers the function's start,
 * else DW_AT_linkage_name, else DW_AT_name; never demangled. Inlined
 * frames are named from DWARF, as are files and lines; symbols without a DWARF subprogram (assembly) get the line rows
 * that cover them too. A function with several address ranges (gcc's
 * hot/cold split, "foo" + "foo.cold") becomes one fi_func per contiguous
 * range, each with its own inline tree clipped to that range; the cold
 * part takes its own symbol's name ("foo.cold") as llvm-symbolizer shows.
 * File paths are those llvm-symbolizer and addr2line print (relative ones
 * under DW_AT_comp_dir), split into dir and base name. Addresses are
 * virtual addresses (st_value, DW_AT_low_pc) of ET_EXEC and ET_DYN files;
 * DWARF ranges outside executable sections (discarded functions) are
 * dropped. The build id goes to t->uuid. fi_finish() is called.
 *
 * *has_dwarf (may be NULL) is set to whether any DWARF line row was found.
 * Returns 0, -ENOEXEC when a file (either) is not an ELF executable or
 * shared object, or another negative errno (-ENOENT, -EACCES, -ENOMEM).
 * Damaged DWARF is skipped where it is damaged, not reported. Cost: one
 * pass over each CU's DIEs and line table; no per-address work.
 * Thread-safe for distinct tables.
 */
int dwarfsyms_extract(const char *elf_path, const char *debug_path, struct fi_table *t,
		      int *has_dwarf);

/*
 * The same on open ELF handles (borrowed; e.g. an in-memory ELF from
 * elf_memory()): symbols from symelf's tables (else dwelf's), DWARF from
 * dwelf (NULL: none; may equal symelf; symelf may be NULL when dwelf is
 * given). The handles must stay open for the call only.
 */
int dwarfsyms_extract_elf(Elf *symelf, Elf *dwelf, struct fi_table *t, int *has_dwarf);

/* The same for a binary elf with its MiniDebugInfo mini (.gnu_debugdata,
 * decompressed): mini's .symtab leaves out the names in elf's .dynsym, so
 * both are taken (as newer perf does; 6.1 does not read
 * .gnu_debugdata at all). */
int dwarfsyms_extract_minidebuginfo(Elf *elf, Elf *mini, struct fi_table *t, int *has_dwarf);

#endif
