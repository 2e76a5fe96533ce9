/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary text as folded stacks, both ways round, then the SVG. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/flame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flame_svg_opts o = {.minwidth = 0};
	int rev;

	for (rev = 0; rev < 2; rev++) {
		struct flame f;
		FILE *null;
		size_t bad = 0, i;

		if (flame_init(&f))
			return 0;
		f.reverse = rev;
		if (!flame_parse_folded(&f, (const char *)data, size, 0, &bad)) {
			/* line by line (no prefix reuse): the same tree */
			struct flame g;
			const uint8_t *p = data, *end = data + size;

			if (!rev && !flame_init(&g)) {
				while (p < end) {
					const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
					size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

					if (flame_parse_folded(&g, (const char *)p, l, 0, NULL))
						break;
					p += l + 1;
				}
				if (p >= end &&
				    (g.nr_nodes != f.nr_nodes || g.total[0] != f.total[0]))
					abort();
				for (i = 0; p >= end && i < f.nr_nodes; i++)
					if (g.nodes[i].value[0] != f.nodes[i].value[0] ||
					    g.nodes[i].parent != f.nodes[i].parent)
						abort();
				flame_release(&g);
			}
			/* every count reached the root; children never outweigh parents */
			for (i = 1; i < f.nr_nodes; i++)
				if (f.nodes[i].value[0] > f.nodes[f.nodes[i].parent].value[0])
					abort();
			null = fopen("/dev/null", "w");
			if (null) {
				o.inverted = rev;
				if (flame_write_svg(&f, null, &o))
					abort();
				fclose(null);
			}
		}
		flame_release(&f);
	}
	return 0;
}
