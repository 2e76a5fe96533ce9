/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The annotate model (perf annotate's): which functions have samples at
 * their own code, and for one function its machine code, read from the
 * ELF file the symbol chain finds (build-id cache, the recorded path,
 * --symfs, debuginfod; -k/--vmlinux for the kernel), disassembled
 * (symbolizer/disasm.h), each instruction with the samples taken at it
 * (the sample's leaf address: perf annotate's count), and the source
 * lines of each instruction from DWARF (symmod: the inline chain too, so
 * the lines of an inlined function show where its code landed), laid out
 * as rows of source and instructions as objdump -S interleaves them.
 * A Python function (zt record -g's Python frames) has no machine code:
 * its annotation is its source lines, each with the samples whose
 * innermost Python frame is the function at an instruction of that line
 * (annotation_build_python()).
 * Nothing here prints.
 */
#ifndef ZT_ANNOTATE_H
#define ZT_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"
#include "libprof/rstacks.h"
#include "symbolizer/disasm.h"
#include "symbolizer/symmod.h"

/* A function with samples at its own code (perf annotate's unit). */
struct ann_sym {
	const char *name;	     /* borrowed from the frame table */
	const char *module;	     /* "hot", "libc.so.6", "[kernel.kallsyms]" */
	const struct prof_mmap *map; /* a mapping of its module (path, build id), or NULL */
	uint64_t start; /* its start in the module's file (file offset; kernel: address) */
	int kernel;
	uint64_t weight, nr;	   /* its samples' period and count */
	size_t first_hit, nr_hits; /* its addresses in ann_profile.hits */
	/* a Python function: start is its code object's address
	 * (prof_py_ip(code, 0)), map NULL, and its samples are those whose
	 * innermost Python frame it is, native frames above it or not (a
	 * sample counts for its leaf function and for this one) */
	int python;
};

/* Samples at one address of a function. */
struct ann_hit {
	uint64_t off; /* from the function's start; Python: the instruction (code
			 unit), PROF_PY_NO_LASTI when unknown */
	uint64_t weight, nr;
};

/* Which samples count: those in these modules (perf's -d/--dsos, by name
 * or path; none: all), and with by_event, of a profile with several
 * events, only those of event (prof_sample.event). Borrowed. */
struct ann_filter {
	const char *const *dsos;
	size_t nr_dsos;
	int by_event;
	uint32_t event;
};

struct ann_profile {
	struct ann_sym *syms; /* most weight first (a sample's Python function
				 beside its leaf: the weights add up to more than total) */
	size_t nr_syms;
	struct ann_hit *hits;
	size_t nr_hits;
	uint64_t total, total_nr; /* every sample of the event */
	const struct profile *p;  /* the recording (borrowed): [vdso] code */
};

/* The functions with samples in rs's profile (resolved through rs; what
 * it names is borrowed and needed while ap lives), at their samples' leaf
 * addresses, and the Python functions at their samples' innermost Python
 * frames. 0 or -ENOMEM. */
int ann_profile_build(struct ann_profile *ap, const struct rstacks *rs,
		      const struct ann_filter *f);
void ann_profile_release(struct ann_profile *ap);
/* The function named name (and in module, when not NULL: a name or a
 * path's base name), the one with most samples when several are. NULL
 * when none has samples. */
const struct ann_sym *ann_profile_find(const struct ann_profile *ap, const char *name,
				       const char *module);

/* A function of p without samples, by its name and module (a name or a
 * path's base name), for annotating a caller: 0 with *out filled (start
 * ANN_BY_NAME: found in the ELF symbols by name), -ENOENT when no
 * mapping of p is that module. */
#define ANN_BY_NAME UINT64_MAX
int ann_sym_by_name(const struct profile *p, const char *name, const char *module,
		    struct ann_sym *out);

struct ann_opts {
	const struct symmod_opts *mo; /* symbol sources: cache, --symfs, debuginfod, ... */
	const char *vmlinux;	      /* kernel code from this ELF file (-k), or NULL */
	enum disasm_syntax syntax;
	int demangle; /* names of inlined functions demangled */
};

/* One instruction. */
struct ann_insn {
	struct disasm_insn d;
	uint64_t off;	     /* from the function's start */
	uint64_t weight, nr; /* samples at it */
	const char *target;  /* "zt_hot_a+0x20": where a direct jump or call goes, or NULL */
	const char *mem;     /* "sink": what a RIP-relative operand names, or NULL */
	int32_t jump_to;     /* a jump inside the function: the index of its target, else -1 */
	uint32_t loc;	     /* its source position: locs[loc] (0: none) */
};

/* A source position: the innermost function of an instruction (an inlined
 * one, depth > 0, or the function itself) and its file and line. */
struct ann_loc {
	const char *func;
	const char *file; /* as DWARF names it, the directory joined; NULL: unknown */
	uint32_t line;
	uint32_t depth;	       /* inlined functions around it */
	const char *call_file; /* depth > 0: where it was inlined (the caller's line) */
	uint32_t call_line;
};

enum ann_row_kind {
	ANN_ROW_INSN,	/* insn */
	ANN_ROW_SOURCE, /* line of file, text (NULL: the file cannot be read) */
	ANN_ROW_FUNC,	/* code of another function starts: loc's func (inlined, or back) */
};

struct ann_row {
	enum ann_row_kind kind;
	uint32_t insn; /* ANN_ROW_INSN; a Python function's ANN_ROW_SOURCE: its index in lines */
	uint32_t loc;  /* ANN_ROW_SOURCE, ANN_ROW_FUNC */
	uint32_t line; /* ANN_ROW_SOURCE */
	const char *text;
};

/* A line of a Python function, with its samples (those at an instruction
 * of the line). */
struct ann_line {
	uint32_t line;
	uint64_t weight, nr;
	const char *text; /* the line in the file, NULL: not read (source_err) */
};

struct annotation {
	char *name, *module;
	char *path;	/* the ELF file the code was read from; Python: the .py file */
	uint64_t start; /* the function's virtual address in that file */
	uint64_t size;
	unsigned machine; /* EM_X86_64, EM_AARCH64 */
	struct ann_insn *insns;
	size_t nr_insns;
	struct ann_loc *locs; /* locs[0]: none */
	size_t nr_locs;
	uint64_t weight, nr;	  /* the samples in the function */
	uint64_t total, total_nr; /* of the recording (global percentages) */
	int have_source;	  /* some instruction has a source line; Python: text read */
	/* a Python function (annotation_build_python()): no instructions; its
	 * lines from the code object's first line to the last line any of its
	 * instructions or samples is on */
	int python;
	struct ann_line *lines;
	size_t nr_lines;
	uint64_t unplaced_weight, unplaced_nr; /* its samples at no known line */
	const char *source_err; /* why the lines have no text ("cannot read ..."), or NULL */
	/* private */
	struct ann_priv *priv;
};

/*
 * Annotate s (of ap): find its code, disassemble it, count its samples,
 * attach source positions. 0, or a negative errno with a reason for the
 * user in err (n bytes): -ENOENT (no file with its code: "no vmlinux ...",
 * "'/path' is gone ..."), -ENOEXEC (not ELF, or no code there),
 * -ENOTSUP (a machine the disassembler does not know), -ENOMEM.
 */
int annotation_build(struct annotation *a, const struct ann_profile *ap, const struct ann_sym *s,
		     const struct ann_opts *o, char *err, size_t n);
/*
 * Annotate s, a Python function (s->python) of ap: the samples of each
 * line of its code object (line of each instruction from the recorded
 * location table, CPython 3.11+), and the lines' text read from the file
 * the code object names, now (a regular file of 4 MiB at most; else
 * source_err says why and the lines have no text). 0, or -ENOMEM, or
 * -EINVAL (not a Python function, its code object not in the recording)
 * with a reason in err. annotation_build() answers -ENOENT for one: it
 * has no machine code.
 */
int annotation_build_python(struct annotation *a, const struct ann_profile *ap,
			    const struct ann_sym *s, char *err, size_t n);
void annotation_release(struct annotation *a);

/*
 * The rows to show: with source, objdump -S's layout (before the first
 * instruction of a new position, the lines of its file from after the
 * last one shown, five lines of context at most, or the line alone when
 * going back; a function header where the code of an inlined function
 * starts or ends); without, the instructions only; a Python function's:
 * a source row for each of its lines (insn: its index in lines). Borrowed
 * until the next call or annotation_release(). 0 or -ENOMEM.
 */
int annotation_rows(struct annotation *a, int source, const struct ann_row **rows, size_t *n);

/* Instruction indexes by samples, most first (only those with samples):
 * perf's hottest-first order (TAB); a Python function's: indexes in
 * lines. Borrowed like the rows. */
int annotation_hottest(struct annotation *a, const uint32_t **order, size_t *n);

/* perf's srcline of instruction i ("hot.c:26", "??:0"), a Python
 * function's of lines[i] ("app.py:12"): into buf. */
char *annotation_srcline(const struct annotation *a, size_t i, char *buf, size_t n);

#endif
