// SPDX-License-Identifier: GPL-2.0-or-later
/* C++ and Rust demangling through libiberty. */
#include <demangle.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/demangle.h"

#define PLT_SUFFIX "@plt"

static char *demangle(const char *name, int params)
{
	/* DMGL_AUTO: Itanium C++, and Rust (legacy hashes dropped, v0) */
	int opts = DMGL_ANSI | DMGL_AUTO | (params ? DMGL_PARAMS : 0);

	/* _Z...: Itanium C++ and legacy Rust; _R...: Rust v0 */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R' && name[1] != '_'))
		return NULL;
	return cplus_demangle(name, opts);
}

/* A PLT stub's "NAME@plt" (pltsyms.h) as perf names it: NAME demangled,
 * then "@plt" (libiberty drops the suffix, or with parameters fails). */
static char *demangle_plt(const char *name, size_t len, int params)
{
	char *base = strndup(name, len), *d, *out = NULL;

	if (!base)
		return NULL;
	d = demangle(base, params);
	if (d && (out = malloc(strlen(d) + sizeof(PLT_SUFFIX))))
		strcat(strcpy(out, d), PLT_SUFFIX);
	free(d);
	free(base);
	return out;
}

char *zt_demangle(const char *name, int params)
{
	size_t n = name ? strlen(name) : 0, k = strlen(PLT_SUFFIX);

	if (n > k && !strcmp(name + n - k, PLT_SUFFIX))
		return demangle_plt(name, n - k, params);
	return demangle(name, params);
}
