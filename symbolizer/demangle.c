// SPDX-License-Identifier: GPL-2.0-or-later
/* C++ and Rust demangling through libiberty. */
#include <demangle.h>
#include <string.h>

#include "symbolizer/demangle.h"

char *zt_demangle(const char *name, int params)
{
	/* DMGL_AUTO: Itanium C++, and Rust (legacy hashes dropped, v0) */
	int opts = DMGL_ANSI | DMGL_AUTO | (params ? DMGL_PARAMS : 0);

	/* _Z...: Itanium C++ and legacy Rust; _R...: Rust v0 */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R' && name[1] != '_'))
		return NULL;
	return cplus_demangle(name, opts);
}
