// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the perf.data reader on arbitrary bytes (must not crash or leak). */
#include <stddef.h>
#include <stdint.h>

#include "formats/perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfdata_opts o = { 1, NULL };
	struct perfdata_info info;
	struct profile p;

	profile_init(&p);
	perfdata_read_mem(data, size, &p, NULL, &info);
	profile_release(&p);
	/* the second event's path (a two-event file), on the same bytes */
	if (size > 104) {
		profile_init(&p);
		perfdata_read_mem(data, size, &p, &o, &info);
		profile_release(&p);
	}
	return 0;
}
