/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary bytes as x86-64 (AT&T, Intel) and AArch64 code,
 * each instruction written out; and the bytes as operand text to respell. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "symbolizer/disasm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(unsigned machine, enum disasm_syntax syntax, const uint8_t *data, size_t size)
{
	struct disasm *d;
	struct disasm_insn in;
	size_t i;

	if (disasm_new(machine, syntax, &d))
		return;
	for (i = 0; i < size;) {
		disasm_one(d, data + i, size - i, 0x1000 + i, &in);
		if (!in.len || in.len > size - i || in.len > DISASM_MAX_BYTES ||
		    strlen(in.mnemonic) >= sizeof(in.mnemonic) || strlen(in.ops) >= sizeof(in.ops))
			abort();
		i += in.len;
	}
	disasm_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[512], out[160];

	if (size > 4096)
		size = 4096;
	walk(EM_X86_64, DISASM_ATT, data, size);
	walk(EM_X86_64, DISASM_INTEL, data, size);
	walk(EM_AARCH64, DISASM_ATT, data, size);
	memcpy(text, data, size < sizeof(text) - 1 ? size : sizeof(text) - 1);
	text[size < sizeof(text) - 1 ? size : sizeof(text) - 1] = 0;
	disasm_objdump_ops(text, DISASM_ATT, out, sizeof(out));
	disasm_objdump_ops(text, DISASM_INTEL, out, sizeof(out));
	if (strlen(out) >= sizeof(out))
		abort();
	return 0;
}
