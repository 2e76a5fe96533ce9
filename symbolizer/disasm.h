/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One machine instruction at a time, through Capstone (x86-64 and
 * AArch64), written the way objdump writes it where that is cheap: AT&T
 * syntax by default (the size suffix only where no register gives the
 * size, hexadecimal immediates and displacements, no space after commas),
 * or Intel syntax. Direct branch and call targets and the address of
 * RIP-relative operands come with the text, for annotations to name.
 */
#ifndef ZT_DISASM_H
#define ZT_DISASM_H

#include <stddef.h>
#include <stdint.h>

enum disasm_syntax { DISASM_ATT = 0, DISASM_INTEL = 1 };

/* disasm_insn.flags */
enum {
	DISASM_JUMP = 1, /* a jump, conditional or not */
	DISASM_CALL = 2,
	DISASM_RET = 4,
	DISASM_BAD = 8, /* bytes that decode to no instruction */
};

#define DISASM_MAX_BYTES 16

struct disasm_insn {
	uint64_t addr;
	unsigned len; /* bytes, >= 1 */
	uint8_t bytes[DISASM_MAX_BYTES];
	char mnemonic[32];
	char ops[160]; /* the operands ("%rsp,%rbp"), "" when none */
	unsigned flags;
	int has_target;
	uint64_t target; /* a direct jump's or call's destination */
	int has_mem;
	uint64_t mem; /* the address a RIP-relative (PC-relative) operand names */
};

struct disasm;

/* A decoder for ELF machine (EM_X86_64 or EM_AARCH64) in syntax (AT&T or
 * Intel: x86 only). 0, -ENOTSUP for another machine, -ELIBACC when
 * Capstone (libcapstone.so.4, loaded on the first call) cannot be loaded,
 * -ENOMEM. */
int disasm_new(unsigned machine, enum disasm_syntax syntax, struct disasm **out);
void disasm_free(struct disasm *d);

/* Decode the instruction at code[0 .. len), at address addr, into out.
 * Returns 0; or -EINVAL when the bytes are no instruction: out is then
 * one byte (x86) or four (AArch64) of "(bad)" with DISASM_BAD. len 0:
 * -ENODATA. */
int disasm_one(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
	       struct disasm_insn *out);

/* The operands of AT&T or Intel text from Capstone in objdump's spelling
 * (exported for the unit tests): commas without spaces, decimal numbers
 * as hexadecimal (not scale factors nor register numbers), Intel's "qword
 * ptr" in capitals. out has n bytes. */
void disasm_objdump_ops(const char *in, enum disasm_syntax syntax, char *out, size_t n);

#endif
