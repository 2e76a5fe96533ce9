// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: DWARF + ELF symbol extraction (libelf/libdw) and GSYM encoding of the result. */
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/zbuf.h"
#include "symbolizer/dwarfsyms.h"
#include "symbolizer/gsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fi_table t;
	struct zbuf z;
	char *copy;
	Elf *e;
	int has = 0;

	if (!size)
		return 0;
	elf_version(EV_CURRENT);
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	e = elf_memory(copy, size);
	fi_table_init(&t);
	if (e && !dwarfsyms_extract_elf(e, e, &t, &has)) {
		zbuf_init(&z);
		gsym_encode(&t, &z);
		zbuf_release(&z);
	}
	fi_table_release(&t);
	elf_end(e);
	free(copy);
	return 0;
}
