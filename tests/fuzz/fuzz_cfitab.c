/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary bytes as an ELF image, its unwind table built
 * from its CFI, then looked up across it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "symbolizer/cfitab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfitab t;
	char *img;
	Elf *e;
	size_t i;

	elf_version(EV_CURRENT);
	img = malloc(size ? size : 1);
	if (!img)
		return 0;
	memcpy(img, data, size);
	e = elf_memory(img, size);
	cfitab_init(&t);
	if (e && !cfitab_build(e, &t)) {
		for (i = 0; i < t.nr; i++) {
			if (t.rows[i].kind > CFITAB_UNSUPPORTED ||
			    (i && t.rows[i].addr <= t.rows[i - 1].addr) ||
			    cfitab_lookup(&t, t.rows[i].addr) != &t.rows[i])
				abort();
		}
		cfitab_lookup(&t, 0);
		cfitab_lookup(&t, UINT64_MAX);
	}
	cfitab_release(&t);
	if (e)
		elf_end(e);
	free(img);
	return 0;
}
