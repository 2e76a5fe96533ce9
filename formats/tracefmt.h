/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracepoint fields as perf script prints them (its "trace" field: what
 * libtraceevent's tep_print_event() makes of a raw record with the event's
 * print fmt, "prev_comm=sleep prev_pid=1234 ..."). The formats come from a
 * profile's PROF_BLOB_TRACE_* blobs (tracefs format texts, from zt record
 * or perf.data's tracing data). Built without libtraceevent (Debian's
 * libtraceevent-dev), tracefmt_new() says -ENOTSUP and nothing is printed.
 */
#ifndef ZT_TRACEFMT_H
#define ZT_TRACEFMT_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"
#include "libprof/zbuf.h"

struct tracefmt;

/* Whether this zt can print tracepoint fields (built with libtraceevent). */
int tracefmt_available(void);

/*
 * Parse p's tracepoint formats (p is only read, and may be released
 * after). Returns 0 and *out, or -ENOTSUP (no libtraceevent), -ENOENT (p
 * has no formats), -ENOMEM. Formats that do not parse are counted
 * (tracefmt_nr_bad()); their events print nothing.
 */
int tracefmt_new(const struct profile *p, struct tracefmt **out);
void tracefmt_free(struct tracefmt *t);
/* Formats that did not parse, and how many did. */
unsigned tracefmt_nr_bad(const struct tracefmt *t);
unsigned tracefmt_nr_events(const struct tracefmt *t);

/*
 * Kernel function names for fields printed as functions (%ps, %pS:
 * hrtimer_start's function=...), as perf names them from its kernel
 * symbols: fn gives the name of the function at addr and its start, or
 * NULL (the address is then printed). Without one, addresses are printed.
 */
typedef const char *(*tracefmt_ksym_fn)(void *ctx, uint64_t addr, uint64_t *start);
void tracefmt_set_ksym(struct tracefmt *t, tracefmt_ksym_fn fn, void *ctx);

/*
 * The fields of raw record raw (len bytes, recorded on cpu) appended to
 * out, control characters shown as '?'. The event is the one the record's
 * common_type names. A record shorter than its format reads as padded with
 * zeros (never past its end). 0, -ENOENT (no format for its type, or a
 * record too short for a type: nothing appended), -E2BIG (over
 * PROF_RAW_MAX), -ENOMEM.
 */
int tracefmt_print(struct tracefmt *t, uint32_t cpu, const void *raw, size_t len, struct zbuf *out);

#endif
