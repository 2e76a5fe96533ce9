/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A live CPython process, read from the outside (issue 36's first step):
 * which interpreter it runs (Py_Version, 3.11 to 3.13), where that
 * interpreter's runtime state is (_PyRuntime, in the executable or in
 * libpython3.X.so), the struct layout of that version (a table, checked
 * against what the process itself says: the code type's member table, and
 * 3.13's _Py_DebugOffsets), its threads, each thread's Python frames (code
 * object and instruction), and a code object's names and line table,
 * turned into lines with the version's location-table format.
 *
 * Memory is read with process_vm_readv(): bounded reads that fail
 * cleanly on a process that changes or exits under them; every chain
 * followed (interpreters, threads, frames) has a bound, so a loop in a
 * hostile or half-written process ends.
 */
#ifndef ZT_RECORD_PYPROC_H
#define ZT_RECORD_PYPROC_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/pywalk.h"

/* The layout of 3.minor, or NULL for a version zt does not read. */
const struct zt_py_layout *pyproc_layout_of(unsigned minor);

struct pyproc {
	uint32_t pid;
	unsigned minor;		/* 3.minor */
	uint64_t hexversion;	/* Py_Version (0 before 3.11) */
	uint64_t runtime;	/* _PyRuntime's address in the process */
	uint64_t code_type;	/* PyCode_Type's */
	uint64_t eval_lo, eval_hi; /* _PyEval_EvalFrameDefault's code */
	uint64_t cold_lo, cold_hi; /* its .cold part (gcc's unlikely paths), from the
				      file's .symtab or its debug file; 0 unknown */
	struct zt_py_layout lay;   /* checked against the process */
};

/*
 * The interpreter of process pid in the ELF file at path (the executable,
 * or libpython3.X.so, as the process maps it: path as seen from here),
 * loaded at bias (its addresses + bias in the process). 0; -ENOENT when
 * the file has no CPython runtime; -ENOTSUP for a version zt does not
 * read (p->minor says which); -EPROTO when the process's own tables
 * disagree with zt's layout; -ESRCH when the process cannot be read;
 * -EINVAL, -ENOMEM.
 */
int pyproc_open(struct pyproc *p, uint32_t pid, const char *path, uint64_t bias);

/* The process's own tables checked against p's layout again (after
 * pyproc_open() gave -EPROTO or -ESRCH for a process still loading: its
 * pointers not yet relocated): 0, -EPROTO, -ESRCH or -ENOTSUP. */
int pyproc_check(struct pyproc *p);

/* The PyThreadState of native thread tid (bpf/pywalk.h's walk): 1 with
 * *tstate, 0 when no interpreter has it, -ESRCH. */
int pyproc_thread(const struct pyproc *p, uint32_t tid, uint64_t *tstate);

/* Thread tstate's Python frames, innermost first, at most max
 * (bpf/pywalk.h's walk): how many, or -ESRCH. */
int pyproc_stack(const struct pyproc *p, uint64_t tstate, struct zt_py_frame *out, int max);

/* A code object as the report shows it. */
struct pyproc_code {
	char qualname[256];
	char filename[1024];
	int32_t firstlineno;
	uint32_t stamp;     /* bpf/pywalk.h's zt_py_stamp() of it */
	uint8_t *linetable; /* co_linetable's bytes (malloc'ed) */
	size_t linetable_len;
};

/* Code object code read; pyproc_code_release() after. 0 or a negative
 * errno. */
int pyproc_code(const struct pyproc *p, uint64_t code, struct pyproc_code *c);
void pyproc_code_release(struct pyproc_code *c);

#endif
