/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A Python code object's line table (co_linetable, read from the process
 * at record time): the line of an instruction. CPython 3.11 to 3.13 use
 * the same format, the location table (Objects/locations.md): entries of
 * a first byte (bit 7 set; the kind in bits 3-6; code units - 1 in bits
 * 0-2) and varints of 6-bit chunks. Every read is bounded by the table's
 * length: a damaged table gives no line, never a read past it.
 */
#ifndef ZT_PYLINE_H
#define ZT_PYLINE_H

#include <stddef.h>
#include <stdint.h>

/* The source line of code unit lasti, lines counted from firstlineno; -1
 * where the table gives none (no line, past the table, a bad table). */
int pyline_of(const uint8_t *table, size_t len, int32_t firstlineno, int32_t lasti);

#endif
