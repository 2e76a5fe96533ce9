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

/* The offsets zt reads in a version's structs. */
struct pyproc_layout {
	unsigned minor; /* 3.minor */
	/* _PyRuntime.interpreters.head; PyInterpreterState next, threads.head */
	uint32_t rt_interp_head, is_next, is_threads_head;
	/* PyThreadState next, thread_id (pthread_t), native_thread_id */
	uint32_t ts_next, ts_thread_id, ts_native_tid;
	/* the current frame: tstate->cframe->current_frame (3.11, 3.12;
	 * ts_cframe != 0) or tstate->current_frame (3.13) */
	uint32_t ts_cframe, cf_current_frame;
	/* _PyInterpreterFrame: code object (f_code, f_executable), previous,
	 * instruction (prev_instr: the one before the next; 3.13's instr_ptr:
	 * the current one), owner */
	uint32_t fr_code, fr_previous, fr_instr, fr_owner;
	/* PyCodeObject */
	uint32_t co_filename, co_name, co_qualname, co_firstlineno, co_linetable,
		co_code_adaptive;
	/* str: the data of a compact ASCII string and of a compact one */
	uint32_t str_ascii_data, str_compact_data;
};

/* The layout of 3.minor, or NULL for a version zt does not read. */
const struct pyproc_layout *pyproc_layout_of(unsigned minor);

/* The frame owner of C-stack shim frames (3.12+), skipped */
#define PYPROC_OWNED_BY_CSTACK 3

struct pyproc {
	uint32_t pid;
	unsigned minor;		/* 3.minor */
	uint64_t hexversion;	/* Py_Version (0 before 3.11) */
	uint64_t runtime;	/* _PyRuntime's address in the process */
	uint64_t code_type;	/* PyCode_Type's */
	uint64_t eval_lo, eval_hi; /* _PyEval_EvalFrameDefault's code */
	struct pyproc_layout lay;  /* checked against the process (3.13: its own) */
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

/* A thread's Python state: its PyThreadState and native thread id. */
struct pyproc_thread {
	uint64_t tstate;
	uint32_t tid;
};

/* The threads of every interpreter, at most max into out: how many, or a
 * negative errno. */
int pyproc_threads(const struct pyproc *p, struct pyproc_thread *out, int max);

/* A Python frame: its code object and its instruction (the code unit's
 * index in the code, the one executing or last executed). */
struct pyproc_frame {
	uint64_t code;
	int32_t lasti;
};

/* Thread tstate's Python frames, innermost first, at most max: how many,
 * or a negative errno. */
int pyproc_stack(const struct pyproc *p, uint64_t tstate, struct pyproc_frame *out, int max);

/* A code object as the report shows it. */
struct pyproc_code {
	char qualname[256];
	char filename[1024];
	int32_t firstlineno;
	uint8_t *linetable; /* co_linetable's bytes (malloc'ed) */
	size_t linetable_len;
};

/* Code object code read; pyproc_code_release() after. 0 or a negative
 * errno. */
int pyproc_code(const struct pyproc *p, uint64_t code, struct pyproc_code *c);
void pyproc_code_release(struct pyproc_code *c);

/* The source line of code unit lasti, from a 3.11+ location table (line
 * numbers from firstlineno); -1 where the table gives none. */
int pyproc_line(const uint8_t *table, size_t len, int32_t firstlineno, int32_t lasti);

#endif
