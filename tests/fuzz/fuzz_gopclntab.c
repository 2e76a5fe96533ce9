// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: Go's pclntab. The input is an 8-byte little-endian address
 * of go:func.* then a module's bytes, mapped at their own offsets, with the
 * table at its start (the corpus: tables of each layout built as
 * test_gopclntab builds them); the table is parsed, encoded as GSYM and
 * looked up, and searched for and its moduledata looked for as in a binary
 * without section headers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/zbuf.h"
#include "symbolizer/gopclntab.h"
#include "symbolizer/gsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gopcln_src s;
	struct gopcln_info info;
	struct fi_table t;
	struct gsym *g = NULL;
	struct zbuf z;
	uint64_t gofunc = 0, text, md_gofunc;
	size_t i, off, len;
	uint8_t *copy;

	if (size < 8)
		return 0;
	for (i = 0; i < 8; i++)
		gofunc |= (uint64_t)data[i] << (8 * i);
	/* a copy of its own size: ASan sees any read past it */
	copy = malloc(size - 8 ? size - 8 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 8, size - 8);
	memset(&s, 0, sizeof(s));
	s.file = copy;
	s.file_len = size - 8;
	s.tab_len = size - 8;
	s.gofunc = gofunc;
	fi_table_init(&t);
	if (!gopclntab_parse(&s, &t, &info)) {
		if (info.nr_funcs > t.nr_funcs || info.nr_inlined > info.nr_funcs)
			abort();
		zbuf_init(&z);
		if (!gsym_encode(&t, &z) && !gsym_open_mem(z.data, z.len, &g)) {
			for (i = 0; i < t.nr_funcs; i++) {
				struct fi_result r;

				gsym_lookup(g, t.funcs[i].start + t.funcs[i].size / 2, &r);
			}
			gsym_free(g);
		}
		zbuf_release(&z);
	}
	fi_table_release(&t);
	if (!gopclntab_search(copy, size - 8, &off, &len)) {
		if (off > size - 8 || len > size - 8 - off)
			abort();
		s.tab_off = off;
		s.tab_len = len;
		s.tab_vaddr = off ? off : 8;
		gopclntab_moduledata(&s, &text, &md_gofunc);
	}
	free(copy);
	return 0;
}
