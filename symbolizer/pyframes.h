/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python frames (prof_is_py() user addresses, libprof/profile.h) named
 * from the code objects the recording holds: the function is the code
 * object's qualified name, the module the base name of its file ("app.py",
 * the report's dso column), the position its file and the line of the
 * instruction (symbolizer/pyline.h). A frame whose code object is not in
 * the recording (an index past it) or could not be read
 * (PROF_PYCODE_UNREAD) has no name: module "[python]", offset the code
 * object's index, printed as other unnamed frames ("[python+0x2a]").
 */
#ifndef ZT_PYFRAMES_H
#define ZT_PYFRAMES_H

#include <stdint.h>

#include "libprof/profile.h"
#include "symbolizer/funcinfo.h"

#define PYFRAMES_MODULE "[python]" /* the module of a frame without a name */

struct pyframes;

/* What a Python address names. Strings are borrowed from the profile
 * (name, module, file) and from the pyframes (dir). */
struct pyframe {
	const char *sym;    /* the qualified name, NULL when unnamed */
	const char *module; /* the file's base name, or PYFRAMES_MODULE */
	/* named: the instruction (code unit) in the code object, 0 when
	 * unknown, so that address - offset is the same for every
	 * instruction of a code object (pyframes_func_ip()); unnamed: the
	 * code object's index */
	uint64_t offset;
	/* named: the one position (name = sym; dir the file's directory
	 * part, "" for none; file its base name, "" for none; line 0 when
	 * the line table gives none), as DWARF frames have theirs */
	struct fi_loc loc;
};

/* The names of p's Python frames (p borrowed: it must outlive pf). 0 or
 * -ENOMEM. */
int pyframes_new(const struct profile *p, struct pyframes **out);
void pyframes_free(struct pyframes *pf);

/* Name ip (prof_is_py(ip)) into *out. 0 or -ENOMEM. */
int pyframes_lookup(struct pyframes *pf, uint64_t ip, struct pyframe *out);

/* One address for every instruction of ip's code object (its instruction
 * 0): what orders and groups a Python function, as a native function's
 * start address does. */
static inline uint64_t pyframes_func_ip(uint64_t ip)
{
	return prof_py_ip(prof_py_code(ip), 0);
}

#endif
