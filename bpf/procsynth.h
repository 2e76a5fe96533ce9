/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthesized side-band for processes that exist when recording starts
 * (perf's "synthesize"): COMM per thread and executable mappings from
 * /proc, given to the same callbacks as the kernel's records.
 */
#ifndef ZT_PROCSYNTH_H
#define ZT_PROCSYNTH_H

#include <stdint.h>
#include <sys/types.h>

#include "bpf/perfev.h"

/* One process (all its threads). Returns 0, or -ESRCH if it is gone. */
int procsynth_pid(pid_t pid, uint64_t ts, const struct perfev_cbs *cbs);
/* Every process; the ones that vanish meanwhile are skipped. */
int procsynth_all(uint64_t ts, const struct perfev_cbs *cbs);
/* Parse one /proc/PID/maps line; returns 0 if it is an executable mapping
 * (path borrowed from line, which is modified). */
int procsynth_parse_maps_line(char *line, struct prof_mmap *m);

#endif
