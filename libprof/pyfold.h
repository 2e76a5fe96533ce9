/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Python glue fold: zt record splices the Python frames of each
 * interpreter invocation into user stacks where its evaluation loop ran
 * them (libprof/profile.h: prof_is_py()). Leaf first, a stack is: native
 * frames of a C extension, the Python frames of the innermost invocation,
 * the native frame of the evaluation loop that ran them
 * (_PyEval_EvalFrameDefault), the interpreter's call machinery
 * (_PyEval_Vector, _PyFunction_Vectorcall, PyObject_Call ...), the Python
 * frames of the next invocation, its evaluation loop, ..., then the
 * interpreter's entry (PyEval_EvalCode, Py_RunMain, main, libc).
 *
 * The fold removes the evaluation-loop frame that follows each run of
 * Python frames and, between two runs, the native frames in the
 * interpreter's own module (the mapping, by path, that covers that
 * evaluation-loop frame in the sample's process at its time), so Python
 * calls Python directly. Native frames leafward of the innermost Python
 * frame and callerward of the outermost one stay, as do native frames of
 * other modules between two runs (a C extension calling back into
 * Python). An evaluation-loop frame in no known mapping, and what follows
 * it, stay as they are.
 */
#ifndef ZT_PYFOLD_H
#define ZT_PYFOLD_H

#include <stdint.h>

#include "libprof/proctree.h"
#include "libprof/profile.h"

/* Meta key (value "folded") of a profile whose stacks were folded: a
 * profile written from one (zt push's image, zt convert) is not folded
 * twice (the entry's first frame would read as an evaluation loop). */
#define PYFOLD_META	   "python_glue"
#define PYFOLD_META_FOLDED "folded"

struct pyfold_stats {
	uint64_t stacks; /* distinct (stack, address space) folded to fewer frames */
	uint64_t frames; /* frames they lost */
};

/*
 * The user part u[0 .. nu) of a stack sampled in process pid at ts, folded
 * into out (room for nu; may not be u): its length.
 */
unsigned pyfold_user(const struct proctree *pt, uint32_t pid, uint64_t ts, const uint64_t *u,
		     unsigned nu, uint64_t *out);

/*
 * Fold the stacks of p's samples and GPU launches (pt: a tree over p):
 * each stack with Python frames, per address space (pid and
 * proctree_epoch()), is folded once into a new interned stack, which its
 * samples then name; stacks without Python frames are left alone (one
 * scan each). A profile marked PYFOLD_META is left alone; one with Python
 * frames is marked. st (may be NULL) gets what changed. 0 or -ENOMEM (p's
 * samples may then name some folded stacks, others not).
 */
int pyfold_profile(struct profile *p, const struct proctree *pt, struct pyfold_stats *st);

#endif
