/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Demangling of C++ (Itanium ABI) and Rust (legacy and v0) names, through
 * libiberty's demangler (the one binutils and perf use).
 */
#ifndef ZT_DEMANGLE_H
#define ZT_DEMANGLE_H

/* The demangled form of name as a new string (caller frees), or NULL when
 * name is not mangled (or on ENOMEM): then the caller keeps name.
 * With params, C++ names keep their parameter lists (perf shows them so
 * with -v); without, they are perf's default "llvm::Value::getMetadata".
 * A PLT stub's "NAME@plt" keeps its suffix: "operator new@plt". */
char *zt_demangle(const char *name, int params);

#endif
