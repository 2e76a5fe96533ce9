/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf maps of JIT code (/tmp/perf-PID.map): "START SIZE NAME" lines, hex
 * START and SIZE with or without 0x. Later lines win over earlier ones for
 * the same address (JITs append as they recompile).
 */
#ifndef ZT_PERFMAP_H
#define ZT_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

struct perfmap;

int perfmap_parse(const char *text, size_t len, struct perfmap **out);
void perfmap_free(struct perfmap *m);
size_t perfmap_count(const struct perfmap *m);
/* The entry containing addr: name (borrowed) and *off; NULL if none. */
const char *perfmap_lookup(const struct perfmap *m, uint64_t addr, uint64_t *off);

#endif
