/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary bytes as an ELF image, its unwind table built
 * from its CFI and put in pages, then looked up across it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "symbolizer/cfitab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfipages p;
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
			if (t.rows[i].kind >= CFITAB_NKINDS ||
			    (i && t.rows[i].addr <= t.rows[i - 1].addr) ||
			    cfitab_lookup(&t, t.rows[i].addr) != &t.rows[i])
				abort();
		}
		cfitab_lookup(&t, 0);
		cfitab_lookup(&t, UINT64_MAX);
		/* the pages give each row's rule at its start */
		cfipages_init(&p);
		if (!cfipages_build(&t, &p))
			for (i = 0; i < t.nr; i++) {
				const struct cfipage_rule *r = cfipages_lookup(&p, t.rows[i].addr);

				if (t.rows[i].kind == CFITAB_NONE ? r && r->kind != CFITAB_NONE
								  : !r || r->kind != t.rows[i].kind)
					abort();
			}
		cfipages_lookup(&p, UINT64_MAX);
		cfipages_release(&p);
	}
	cfitab_release(&t);
	if (e)
		elf_end(e);
	free(img);
	return 0;
}
