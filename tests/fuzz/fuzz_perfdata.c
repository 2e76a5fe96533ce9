// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the perf.data reader on arbitrary bytes (must not crash or leak). */
#include <stddef.h>
#include <stdint.h>

#include "formats/perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	size_t samples;
	volatile unsigned sum;
};

/* every snapshot byte is touched (ASan catches a bad length), and each
 * names a sample the first pass read */
static int on_ustack(void *arg, const struct prof_ustack *u)
{
	struct seen *s = arg;
	size_t i;

	if (u->sample >= s->samples)
		__builtin_trap();
	for (i = 0; i < u->len; i++)
		s->sum += u->data[i];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfdata_opts o = { 1, NULL };
	struct perfdata_info info;
	struct profile p;

	profile_init(&p);
	if (!perfdata_read_mem(data, size, &p, NULL, &info) && info.dwarf) {
		struct seen s = { p.nr_samples, 0 };

		perfdata_read_ustacks_mem(data, size, NULL, on_ustack, &s, &info);
	}
	profile_release(&p);
	/* the second event's path (a two-event file), on the same bytes */
	if (size > 104) {
		profile_init(&p);
		perfdata_read_mem(data, size, &p, &o, &info);
		profile_release(&p);
	}
	return 0;
}
