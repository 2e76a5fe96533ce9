// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the zt.data reader on arbitrary bytes (must not crash or leak). */
#include <stddef.h>
#include <stdint.h>

#include "formats/ztdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ztdata_read_info info;
	struct profile p;

	profile_init(&p);
	ztdata_read_mem(data, size, &p, &info);
	profile_release(&p);
	return 0;
}
