/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Folded stacks as stackcollapse-perf.pl (FlameGraph) writes them from
 * perf script's default output: "comm;outermost;...;leaf COUNT" a line,
 * one per distinct stack, in byte order. The stack of a sample is built
 * from its resolved frames as perf script shows them (formats/perfscript.h)
 * under the script's default rules: the process name before the first
 * " PID/TID ", spaces made '_'; the "+0xOFF" and the "(...)" argument
 * lists dropped; quotes removed; ';' made ':'; "a->b" names split; an
 * unknown symbol named "[module]" after its module's base name; java's
 * "Lpkg/Class;" without its "L"; inlined frames marked "_[i]".
 * The writers fill buffers or write through a callback; they do not print.
 */
#ifndef ZT_FOLDED_H
#define ZT_FOLDED_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/frametab.h"
#include "libprof/htab.h"
#include "libprof/rstacks.h"
#include "libprof/zbuf.h"

/* stackcollapse-perf.pl's name for a process from the header's comm:
 * the text before the first " DIGITS[/DIGITS] ", at least two characters,
 * spaces made '_'; into out (size n > 0, cut to fit). */
void folded_comm(const char *comm, char *out, size_t n);

/*
 * One frame's text as perf script prints it after the address, "SYM[+0xOFF]
 * (DSO)" (a NUL-terminated string, changed in place), appended to b as
 * stackcollapse-perf.pl makes it: ";name" (or several for "a->b"); nothing
 * for a line the script skips. java: the process is a java one. 0 or
 * -ENOMEM.
 */
int folded_frame(struct zbuf *b, char *text, int java);

/*
 * The folded stack of a sample into b (emptied first; NUL-terminated, the
 * NUL not counted): comm (as perf script shows the thread, sanitized) and
 * the frames of n resolved addresses of process pid, leaf first (ips[i],
 * r[i] frames of rs, as for perfscript_walk()), written root first; with
 * inline_frames, inlined functions as frames of their own. 0 or -ENOMEM.
 */
int folded_stack(struct zbuf *b, const char *comm, const struct rstacks *rs, uint32_t pid,
		 const uint64_t *ips, const struct zt_frange *r, unsigned n, int inline_frames);

/* Distinct folded stacks and their counts. Embedded: folded_set_init() and
 * folded_set_release(); the stacks are copied. */
struct folded_set {
	struct folded_entry *ents;
	size_t nr, cap;
	struct zt_htab hash; /* ents by stack */
};

void folded_set_init(struct folded_set *fs);
void folded_set_release(struct folded_set *fs);
/* Count stack (a NUL-terminated folded stack) count times more. 0 or -ENOMEM. */
int folded_set_add(struct folded_set *fs, const char *stack, uint64_t count);

/* Where output goes: write n bytes of buf; non-zero stops the writer. */
typedef int (*folded_write_fn)(void *ctx, const void *buf, size_t n);

/* The set as folded text, "stack COUNT\n" a stack in byte order (sorted in
 * place), through write. 0, or write's non-zero return. */
int folded_set_write(struct folded_set *fs, folded_write_fn write, void *ctx);

#endif
