// SPDX-License-Identifier: GPL-2.0-or-later
/* Instructions decoded with Capstone and written as objdump writes them. */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone.h>

#include "symbolizer/disasm.h"

/*
 * Capstone is loaded when the first decoder is made (dlopen), not linked:
 * linked statically, its decoder tables (1.4 MB of pointers) were relocated
 * at the start of every zt command, 340 of the 450 pages the dynamic loader
 * wrote, most of a warm 'zt symbolize' (a page fault each).
 */
static struct {
	cs_err (*open)(cs_arch arch, cs_mode mode, csh *handle);
	cs_err (*option)(csh handle, cs_opt_type type, size_t value);
	cs_insn *(*malloc)(csh handle);
	bool (*disasm_iter)(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
			    cs_insn *insn);
	void (*free)(cs_insn *insn, size_t count);
	cs_err (*close)(csh *handle);
	int ok;
} cs;
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

static void cs_load(void)
{
	void *h = dlopen("libcapstone.so.4", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
#define CS(field, name)                               \
	do {                                          \
		*(void **)&cs.field = dlsym(h, name); \
		if (!cs.field)                        \
			return;                       \
	} while (0)
	CS(open, "cs_open");
	CS(option, "cs_option");
	CS(malloc, "cs_malloc");
	CS(disasm_iter, "cs_disasm_iter");
	CS(free, "cs_free");
	CS(close, "cs_close");
#undef CS
	cs.ok = 1; /* the handle stays open for the process's life */
}

struct disasm {
	csh h;
	cs_insn *insn;
	unsigned machine;
	enum disasm_syntax syntax;
};

int disasm_new(unsigned machine, enum disasm_syntax syntax, struct disasm **out)
{
	struct disasm *d;
	cs_arch arch;
	cs_mode mode;

	*out = NULL;
	if (machine == EM_X86_64) {
		arch = CS_ARCH_X86;
		mode = CS_MODE_64;
	} else if (machine == EM_AARCH64) {
		arch = CS_ARCH_ARM64;
		mode = CS_MODE_LITTLE_ENDIAN;
	} else {
		return -ENOTSUP;
	}
	pthread_once(&cs_once, cs_load);
	if (!cs.ok)
		return -ELIBACC;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (cs.open(arch, mode, &d->h) != CS_ERR_OK) {
		free(d);
		return -ENOTSUP;
	}
	cs.option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
	if (machine == EM_X86_64 && syntax == DISASM_ATT)
		cs.option(d->h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	d->insn = cs.malloc(d->h);
	if (!d->insn) {
		cs.close(&d->h);
		free(d);
		return -ENOMEM;
	}
	d->machine = machine;
	d->syntax = machine == EM_X86_64 ? syntax : DISASM_INTEL;
	*out = d;
	return 0;
}

void disasm_free(struct disasm *d)
{
	if (!d)
		return;
	cs.free(d->insn, 1);
	cs.close(&d->h);
	free(d);
}

static void append(char *out, size_t n, size_t *len, const char *s, size_t l)
{
	if (*len + 1 >= n)
		return;
	if (l > n - 1 - *len)
		l = n - 1 - *len;
	memcpy(out + *len, s, l);
	*len += l;
	out[*len] = 0;
}

void disasm_objdump_ops(const char *in, enum disasm_syntax syntax, char *out, size_t n)
{
	size_t len = 0, i = 0;
	int paren = 0, bracket = 0;

	if (!n)
		return;
	out[0] = 0;
	while (in[i]) {
		char c = in[i];

		if (c == ',' && in[i + 1] == ' ') {
			append(out, n, &len, ",", 1);
			i += 2;
			continue;
		}
		if (c == '(')
			paren++;
		if (c == ')')
			paren--;
		if (c == '[')
			bracket++;
		if (c == ']')
			bracket--;
		/* Intel: "[rbp - 8]" as objdump's "[rbp-0x8]" */
		if (syntax == DISASM_INTEL && bracket > 0 && c == ' ' &&
		    (in[i + 1] == '+' || in[i + 1] == '-' || in[i + 1] == '*') &&
		    in[i + 2] == ' ') {
			append(out, n, &len, &in[i + 1], 1);
			i += 3;
			continue;
		}
		if (isdigit((unsigned char)c) &&
		    (i == 0 || !(isalnum((unsigned char)in[i - 1]) || in[i - 1] == '_' ||
				 in[i - 1] == '%' || in[i - 1] == '.'))) {
			size_t j = i, b = i;
			char num[32];
			int scale;

			while (b > 0 && in[b - 1] == ' ')
				b--;
			scale = (paren > 0 && b > 0 && in[b - 1] == ',') ||
				(i > 0 && in[i - 1] == '*') ||
				(i > 2 && in[i - 1] == '(' && in[i - 2] == 't'); /* %st(1) */

			if (c == '0' && (in[i + 1] == 'x' || in[i + 1] == 'X')) {
				j += 2;
				while (isxdigit((unsigned char)in[j]))
					j++;
				append(out, n, &len, &in[i], j - i);
				i = j;
				continue;
			}
			while (isdigit((unsigned char)in[j]))
				j++;
			if (scale || isalpha((unsigned char)in[j]) || in[j] == '_') {
				append(out, n, &len, &in[i], j - i);
			} else {
				snprintf(num, sizeof(num), "0x%llx",
					 (unsigned long long)strtoull(&in[i], NULL, 10));
				append(out, n, &len, num, strlen(num));
			}
			i = j;
			continue;
		}
		if (syntax == DISASM_INTEL && isalpha((unsigned char)c) &&
		    (i == 0 || !isalnum((unsigned char)in[i - 1]))) {
			static const char *const up[] = {
				"byte ptr",    "word ptr",    "dword ptr",
				"qword ptr",   "xmmword ptr", "ymmword ptr",
				"zmmword ptr", "tbyte ptr",   "xword ptr"};
			size_t k, l;

			for (k = 0; k < sizeof(up) / sizeof(up[0]); k++) {
				l = strlen(up[k]);
				if (!strncmp(&in[i], up[k], l)) {
					size_t m;

					for (m = 0; m < l; m++) {
						char u = (char)toupper((unsigned char)in[i + m]);

						append(out, n, &len, &u, 1);
					}
					i += l;
					break;
				}
			}
			if (k < sizeof(up) / sizeof(up[0]))
				continue;
		}
		append(out, n, &len, &c, 1);
		i++;
	}
}

/* Mnemonics whose AT&T size suffix objdump leaves out when a register
 * operand gives the size. */
static const char *const suffixed[] = {
	"mov", "movabs", "add",	  "sub",     "and",  "or",   "xor",  "cmp",   "test",
	"lea", "imul",	 "mul",	  "div",     "idiv", "inc",  "dec",  "neg",   "not",
	"shl", "shr",	 "sar",	  "sal",     "rol",  "ror",  "rcl",  "rcr",   "adc",
	"sbb", "xchg",	 "xadd",  "cmpxchg", "bt",   "bts",  "btr",  "btc",   "bsf",
	"bsr", "tzcnt",	 "lzcnt", "popcnt",  "shld", "shrd", "andn", "crc32",
};
/* ... and always in 64-bit code (push, pop, call, ...) */
static const char *const suffixed_always[] = {"push",  "pop",	"call", "jmp", "ret",
					      "leave", "pushf", "popf", "iret"};

static int in_list(const char *s, size_t l, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == l && !strncmp(s, list[i], l))
			return 1;
	return 0;
}

static void att_mnemonic(const cs_insn *in, char *out, size_t n)
{
	const cs_x86 *x = &in->detail->x86;
	const char *sp = strrchr(in->mnemonic, ' '), *m = sp ? sp + 1 : in->mnemonic;
	size_t l = strlen(m), at = (size_t)(m - in->mnemonic);
	int reg = 0;
	uint8_t i;
	char last = l ? m[l - 1] : 0;

	snprintf(out, n, "%s", in->mnemonic);
	if (l < 2 || (last != 'b' && last != 'w' && last != 'l' && last != 'q') || at + l > n)
		return;
	for (i = 0; i < x->op_count; i++) {
		x86_reg r = x->operands[i].reg;

		if (x->operands[i].type != X86_OP_REG)
			continue;
		/* movq to or from a vector register is an instruction of its own */
		if ((r >= X86_REG_MM0 && r <= X86_REG_MM7) ||
		    (r >= X86_REG_XMM0 && r <= X86_REG_ZMM31))
			return;
		reg = 1;
	}
	if (in_list(m, l - 1, suffixed_always,
		    sizeof(suffixed_always) / sizeof(suffixed_always[0])) ||
	    (reg && in_list(m, l - 1, suffixed, sizeof(suffixed) / sizeof(suffixed[0]))) ||
	    (reg && !strncmp(m, "cmov", 4)) ||
	    (!strncmp(in->mnemonic, "lock ", 5) &&
	     in_list(m, l - 1, suffixed, sizeof(suffixed) / sizeof(suffixed[0]))))
		out[at + l - 1] = 0;
}

/* Insert text at position at of s (n bytes). */
static void insert(char *s, size_t n, size_t at, const char *text)
{
	size_t l = strlen(s), t = strlen(text);

	if (l + t + 1 > n || at > l)
		return;
	memmove(s + at + t, s + at, l - at + 1);
	memcpy(s + at, text, t);
}

/* What objdump writes and Capstone 4 does not: the scale 1 of an index,
 * a zero 8-bit displacement, negative immediates as the operand's
 * unsigned value, the shift count 1 of D0/D1 left out, 66 90 as xchg. */
static void att_objdump(const cs_insn *in, char *mn, size_t mn_n, char *ops, size_t n)
{
	const cs_x86 *x = &in->detail->x86;
	char *p, *q;
	uint8_t i;

	if (in->size == 2 && in->bytes[0] == 0x66 && in->bytes[1] == 0x90) {
		snprintf(mn, mn_n, "xchg");
		snprintf(ops, n, "%%ax,%%ax");
		return;
	}
	if (!strcmp(mn, "movd") && (x->rex & 8)) /* 66 REX.W 0F 6E/7E */
		snprintf(mn, mn_n, "movq");
	if ((x->opcode[0] == 0xd0 || x->opcode[0] == 0xd1) && !strncmp(ops, "$0x1,", 5))
		memmove(ops, ops + 5, strlen(ops + 5) + 1);
	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		/* a displacement field that is 0 (mod 01 or 10, or a SIB without base) */
		if (op->type == X86_OP_MEM && !op->mem.disp && op->mem.base != X86_REG_RIP &&
		    ((x->modrm >> 6) == 1 || (x->modrm >> 6) == 2 ||
		     ((x->modrm >> 6) == 0 && (x->modrm & 7) == 4 && (x->sib & 7) == 5))) {
			for (p = ops; (p = strchr(p, '(')); p++)
				if (p == ops || p[-1] == ',' || p[-1] == ':')
					break;
			if (p)
				insert(ops, n, (size_t)(p - ops), "0x0");
		}
		if (op->type == X86_OP_MEM && op->mem.index != X86_REG_INVALID &&
		    op->mem.scale == 1 && (p = strchr(ops, '(')) && (q = strchr(p, ')')) &&
		    memchr(p, ',', (size_t)(q - p)))
			insert(ops, n, (size_t)(q - ops), ",1");
		if (op->type == X86_OP_IMM && op->imm < 0 && op->size && op->size <= 8 &&
		    (p = strstr(ops, "$-0x"))) {
			uint64_t v = (uint64_t)op->imm,
				 m = op->size >= 8 ? ~0ull : (1ull << (op->size * 8)) - 1;
			char num[32], rest[160];

			q = p + 4;
			while (isxdigit((unsigned char)*q))
				q++;
			snprintf(rest, sizeof(rest), "%s", q);
			snprintf(num, sizeof(num), "$0x%llx", (unsigned long long)(v & m));
			snprintf(p, n - (size_t)(p - ops), "%s%s", num, rest);
		}
	}
}

static void x86_detail(const cs_insn *in, struct disasm_insn *out)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t i;

	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type == X86_OP_IMM && (out->flags & (DISASM_JUMP | DISASM_CALL))) {
			out->has_target = 1;
			out->target = (uint64_t)op->imm;
		}
		if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP) {
			out->has_mem = 1;
			out->mem = in->address + in->size + (uint64_t)op->mem.disp;
		}
	}
}

static void arm64_detail(const cs_insn *in, struct disasm_insn *out)
{
	const cs_arm64 *a = &in->detail->arm64;
	uint8_t i;

	for (i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_IMM &&
		    (out->flags & (DISASM_JUMP | DISASM_CALL))) {
			out->has_target = 1;
			out->target = (uint64_t)a->operands[i].imm;
		}
}

int disasm_one(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
	       struct disasm_insn *out)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t a = addr;
	uint8_t g;

	memset(out, 0, sizeof(*out));
	out->addr = addr;
	if (!len)
		return -ENODATA;
	if (!cs.disasm_iter(d->h, &p, &left, &a, d->insn)) {
		out->len = d->machine == EM_AARCH64 && len >= 4 ? 4 : 1;
		memcpy(out->bytes, code, out->len);
		snprintf(out->mnemonic, sizeof(out->mnemonic), "(bad)");
		out->flags = DISASM_BAD;
		return -EINVAL;
	}
	out->len = d->insn->size;
	memcpy(out->bytes, d->insn->bytes,
	       out->len < DISASM_MAX_BYTES ? out->len : DISASM_MAX_BYTES);
	for (g = 0; g < d->insn->detail->groups_count; g++) {
		uint8_t grp = d->insn->detail->groups[g];

		if (grp == CS_GRP_JUMP)
			out->flags |= DISASM_JUMP;
		else if (grp == CS_GRP_CALL)
			out->flags |= DISASM_CALL;
		else if (grp == CS_GRP_RET)
			out->flags |= DISASM_RET;
	}
	if (d->machine == EM_X86_64) {
		if (d->syntax == DISASM_ATT)
			att_mnemonic(d->insn, out->mnemonic, sizeof(out->mnemonic));
		else
			snprintf(out->mnemonic, sizeof(out->mnemonic), "%s", d->insn->mnemonic);
		x86_detail(d->insn, out);
		disasm_objdump_ops(d->insn->op_str, d->syntax, out->ops, sizeof(out->ops));
		if (d->syntax == DISASM_ATT)
			att_objdump(d->insn, out->mnemonic, sizeof(out->mnemonic), out->ops,
				    sizeof(out->ops));
	} else {
		const char *m = d->insn->mnemonic;

		snprintf(out->mnemonic, sizeof(out->mnemonic), "%s", m);
		/* Capstone 4 puts few AArch64 branches in groups */
		if (!strcmp(m, "bl") || !strcmp(m, "blr"))
			out->flags |= DISASM_CALL;
		else if (!strcmp(m, "ret"))
			out->flags |= DISASM_RET;
		else if (!strcmp(m, "b") || !strncmp(m, "b.", 2) || !strcmp(m, "br") ||
			 !strcmp(m, "cbz") || !strcmp(m, "cbnz") || !strcmp(m, "tbz") ||
			 !strcmp(m, "tbnz"))
			out->flags |= DISASM_JUMP;
		arm64_detail(d->insn, out);
		snprintf(out->ops, sizeof(out->ops), "%s", d->insn->op_str);
	}
	return 0;
}
