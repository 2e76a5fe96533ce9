/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary bytes as perf's tracing data (HEADER_TRACING_DATA);
 * what parses is written back and must parse again to the same formats. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/perftrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t nr_formats(const struct profile *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nr_blobs; i++)
		n += p->blobs[i].kind == PROF_BLOB_TRACE_FORMAT;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p, q;
	struct zbuf b;
	uint64_t id;

	profile_init(&p);
	profile_init(&q);
	zbuf_init(&b);
	if (!perftrace_parse(data, size, &p) && nr_formats(&p)) {
		perftrace_event_id(&p, "sched:sched_switch", &id);
		if (!perftrace_write(&p, &b) &&
		    (perftrace_parse(b.data, b.len, &q) || nr_formats(&q) != nr_formats(&p)))
			abort();
	}
	zbuf_release(&b);
	profile_release(&q);
	profile_release(&p);
	return 0;
}
