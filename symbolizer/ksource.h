/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel symbols for a recording, chosen as perf chooses them: this host's
 * /proc/kallsyms, a kallsyms file (--kallsyms) or an ELF vmlinux
 * (-k/--vmlinux), relocated to where the recorded kernel was (KASLR moves
 * _text at every boot: perf's kallsyms__delta and map->reloc), and cut to
 * the lines the recording's kernel frames need: a PROF_BLOB_KALLSYMS blob,
 * as zt record stores one.
 */
#ifndef ZT_KSOURCE_H
#define ZT_KSOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"
#include "libprof/zbuf.h"
#include "symbolizer/buildid_cache.h"

/* zt record's slot addresses for a user who may not see kernel addresses
 * (zt-data(5)): a recording whose _text is this holds no real addresses. */
#define KSOURCE_FAKE_TEXT 0xffff900000000000ull

/* The address of "_text" in kallsyms text (len bytes), or 0 when it has none. */
uint64_t ksyms_text_addr(const char *text, size_t len);

/*
 * Append text's lines to out with the core kernel's addresses moved by
 * delta (added modulo 2^64: a move down is a delta above 2^63). Module
 * symbols ("ADDR t NAME\t[mod]") stay where they are, as in perf, which
 * places them by the recorded module mappings: modules are loaded at
 * addresses of their own, not moved with _text. Lines that do not parse
 * are dropped. Returns 0 or -ENOMEM.
 */
int ksyms_relocate(const char *text, size_t len, uint64_t delta, struct zbuf *out);

/*
 * The code symbols of an ELF vmlinux (.symtab: functions, and the untyped
 * labels of executable sections such as entry_SYSCALL_64) as kallsyms lines
 * "ADDR t NAME" at their link-time addresses, _text as "ADDR T _text",
 * appended to out; its GNU build id into *bid (len 0 when it has none).
 * Returns 0, -ENOEXEC (not ELF, or no symbol table), -ENOENT (no _text
 * symbol: not a kernel), -ENOMEM, or -errno from opening it.
 */
int ksyms_from_vmlinux(const char *path, struct zbuf *out, struct prof_build_id *bid);

/* The GNU build id among ELF notes (the format of /sys/kernel/notes).
 * Returns 0, or -ENOENT when there is none. */
int ksyms_notes_build_id(const void *notes, size_t len, struct prof_build_id *bid);

struct ksource_opts {
	const char *kallsyms; /* --kallsyms FILE, or NULL */
	const char *vmlinux;  /* -k FILE, or NULL (kallsyms wins when both are given) */
	const struct buildid_cache *cache; /* the per-boot cache of /proc/kallsyms, or NULL */
	/* for tests, NULL otherwise: this host's kallsyms, notes and uname */
	const char *host_kallsyms, *host_notes, *host_name, *host_release;
};

/* What ksource_add() and ksource_live() did, for messages. */
struct ksource_info {
	const char *source;   /* "/proc/kallsyms", or the file given */
	uint64_t rec_text;    /* the recorded (or live) kernel's _text; 0: unknown */
	uint64_t src_text;    /* _text in the source; 0: unknown */
	uint64_t delta;       /* added to the source's addresses (0 without both) */
	int same_build;       /* no option: the recording is of this host's kernel build */
	struct prof_build_id rec_bid, src_bid; /* len 0: unknown */
};

/*
 * Give p, a recording read from a file, kernel symbols:
 *  - with o->kallsyms or o->vmlinux, from that file, replacing any the
 *    recording carries (zt.data's), relocated by the recorded _text (the
 *    pgoff of perf's "[kernel.kallsyms]" mapping, else the _text of the
 *    recorded kallsyms lines) minus the file's; without a recorded _text,
 *    not moved. A vmlinux whose build id is not the recorded kernel's (when
 *    both are known) is not used, as perf does not use it.
 *  - without, when p has none: this host's /proc/kallsyms when p is of
 *    this kernel build (the recorded kernel build id equals the one in
 *    /sys/kernel/notes; without a recorded one, hostname and release equal
 *    uname()'s), relocated when p comes from another boot; with
 *    /proc/modules as a PROF_BLOB_MODULES blob when nothing moved.
 * Returns 0, or
 *   -EEXIST   p has kernel symbols and no option was given (nothing done)
 *   -EXDEV    no option, and p is of another kernel build or host
 *   -EKEYREJECTED  the vmlinux's build id is not the recording's
 *   -ENOTSUP  p's kernel addresses are zt record's slots (hidden at record
 *             time): no file can place them; p keeps its symbols
 *   -EACCES   the source's addresses are all zero (kptr_restrict)
 *   -ENOENT   the vmlinux has no _text symbol
 *   -ENOEXEC  the vmlinux is not ELF or has no symbol table
 *   -ENOMEM, or -errno from reading a file.
 * info (may be NULL) says what was used.
 */
int ksource_add(struct profile *p, const struct ksource_opts *o, struct ksource_info *info);

/*
 * For a live profile of this kernel (zt top): the whole kallsyms text of
 * o->kallsyms or o->vmlinux (one must be given) relocated by live_text
 * (this kernel's _text, from /proc/kallsyms; 0: not moved) minus the
 * file's, into a new buffer (*text, *len; caller frees). A vmlinux must
 * have this kernel's build id (from /sys/kernel/notes) when both are
 * known. The errors of ksource_add() (-EINVAL with no file given).
 */
int ksource_live(const struct ksource_opts *o, uint64_t live_text, char **text, size_t *len,
		 struct ksource_info *info);

#endif
