/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.data writer: a profile written as a perf.data file (file mode, this
 * byte order, x86_64) that `perf report` and `perf script` open.
 */
#ifndef ZT_PERFWRITE_H
#define ZT_PERFWRITE_H

#include "libprof/profile.h"

/*
 * Write p to fd (a regular file: the header is written last, with pwrite,
 * at offset 0; the file is truncated to what was written). p is only read.
 *
 * The file holds p's events, one attr each (type, config, rate and
 * exclusions from p's event table; a tracepoint with cpu-clock's type and
 * config, as perf would want its tracing data, and its own name in
 * HEADER_EVENT_DESC), the side-band with the first, and with several events
 * PERF_SAMPLE_IDENTIFIER (event i has id i + 1) in samples and trailers.
 * Without an event table: one event, software cpu-clock, or task-clock when
 * p's meta "event" says so (any other event is written with cpu-clock's
 * attr and its own name in HEADER_EVENT_DESC); freq or period from the meta
 * "freq" or "period" (default: freq 4000); samples with ip, tid, time, cpu,
 * period and, when p has call chains (profile_has_callchains(): perf
 * record -g), a callchain [PERF_CONTEXT_KERNEL, kernel frames,
 * PERF_CONTEXT_USER, user frames]; without, the sample's own address only,
 * as perf record without -g writes. Side-band records: COMM (COMM_EXEC for exec), FORK, EXIT, MMAP
 * for the kernel (pid -1, "[kernel.kallsyms]_text"; synthesized from the kallsyms blob's _text when
 * p has no kernel mapping) and its modules, MMAP2 with the build id for user mappings. Everything
 * is sorted by time, side-band before samples at equal times. Header features: BUILD_ID (every
 * mapping with a build id, and the kernel's), HOSTNAME, OSRELEASE, VERSION,
 * ARCH, NRCPUS, CMDLINE, EVENT_DESC, SAMPLE_TIME.
 *
 * Returns 0, or a negative errno: -ENOMEM, -ESPIPE (fd cannot be written at
 * an offset), -EFBIG (a stack too deep for one record), or -errno of pwrite.
 */
int perfwrite_fd(const struct profile *p, int fd);

#endif
