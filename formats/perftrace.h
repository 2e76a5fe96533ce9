/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf's tracing data (perf.data's HEADER_TRACING_DATA feature section, or
 * a pipe's PERF_RECORD_HEADER_TRACING_DATA payload; written by perf's
 * util/trace-event-info.c, read by util/trace-event-read.c): the tracefs
 * texts that say how tracepoint records are laid out. Untrusted input:
 * every length is checked against the bytes left.
 *
 * Layout, in the file's byte order: "\027\010\104tracing", a version
 * string ("0.6") and its NUL, u8 big-endian flag, u8 sizeof(long), u32
 * page size; "header_page\0", u64 size, the text; "header_event\0", u64
 * size, the text; u32 count of ftrace formats, each u64 size and text;
 * u32 count of systems, each a NUL-terminated name, u32 count of formats,
 * each u64 size and text; u32 size and /proc/kallsyms text; u32 size and
 * printk_formats text; from version 0.6 u64 size and saved_cmdlines text.
 */
#ifndef ZT_PERFTRACE_H
#define ZT_PERFTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"
#include "libprof/zbuf.h"

#define PERFTRACE_MAX (256u << 20) /* a tracing data section this large is refused */

/*
 * Add the formats of d (len bytes) to p as blobs: the page header
 * (PROF_BLOB_TRACE_HEADER), each event's format after its system's name
 * (PROF_BLOB_TRACE_FORMAT; ftrace's own under "ftrace"), and the printk
 * formats (PROF_BLOB_TRACE_PRINTK). kallsyms and saved_cmdlines are not
 * kept (zt has its own). Returns 0; -EBADMSG (p unchanged) when d does not
 * parse; -EPROTONOSUPPORT for big-endian data or longs that are not 8
 * bytes (zt prints x86-64 records); -ENOMEM. A section cut short after the
 * event formats still gives them (0).
 */
int perftrace_parse(const void *d, size_t len, struct profile *p);

/*
 * The tracing data of p's PROF_BLOB_TRACE_* blobs appended to out, as
 * perf 6.1 writes it (version 0.6, little-endian, 8-byte longs; no ftrace
 * formats, kallsyms or saved_cmdlines), formats grouped by system in
 * order of first appearance. 0, -ENOENT (p has no formats) or -ENOMEM.
 */
int perftrace_write(const struct profile *p, struct zbuf *out);

/* The id ("ID: N" of its format) of tracepoint name ("SYS:NAME", maybe
 * with modifiers after) among p's formats: 0 and *id, or -ENOENT. */
int perftrace_event_id(const struct profile *p, const char *name, uint64_t *id);

#endif
