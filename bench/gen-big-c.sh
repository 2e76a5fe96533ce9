#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Write a large C file for the symbolizer benchmark: N groups of functions
# (about 25 lines each: 4000 groups ~ 100k lines), with static inline helpers
# that -O2 inlines, loops, and calls between groups.
# Usage: bench/gen-big-c.sh [GROUPS] > big.c
n=${1:-4000}
awk -v n="$n" 'BEGIN {
	print "#include <stdio.h>\n#include <stdlib.h>\nvolatile unsigned long sink;"
	for (i = 0; i < n; i++) {
		printf "static inline unsigned long mix_%d(unsigned long x)\n{\n", i
		printf "\tx ^= x >> %d;\n\tx *= 0x9e3779b97f4a7c15ul + %d;\n", (i % 31) + 1, i
		printf "\treturn x ^ (x << %d);\n}\n\n", (i % 13) + 1
		printf "static inline unsigned long step_%d(unsigned long x, int k)\n{\n", i
		printf "\tif (k & 1)\n\t\tx = mix_%d(x);\n\telse\n\t\tx += %d;\n\treturn x;\n}\n\n", i, i
		printf "__attribute__((noinline)) unsigned long func_%d(unsigned long x)\n{\n", i
		printf "\tfor (int k = 0; k < %d; k++)\n\t\tx = step_%d(x, k);\n", (i % 7) + 2, i
		if (i > 0)
			printf "\tif (x & 1)\n\t\tx += func_%d(x >> 1);\n", int(i / 2)
		printf "\treturn x;\n}\n\n"
	}
	print "int main(int argc, char **argv)\n{\n\tunsigned long x = argc;"
	printf "\tfor (int i = 0; i < %d; i += 97)\n\t\tswitch (i %% 4) {\n", n
	print "\t\tcase 0: x += func_0(x); break;\n\t\tdefault: x ^= func_1(x); break;\n\t\t}"
	print "\tsink = x;\n\treturn 0;\n}"
}'
