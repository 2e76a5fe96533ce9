/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers the unit tests share (linked into every test binary). */
#ifndef ZT_TESTUTIL_H
#define ZT_TESTUTIL_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* system() of a printf-formatted shell command (at most 8 KiB). */
int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The file offset of function name in the ELF file path (from nm and the
 * program headers) into *off, its size into *size (size may be NULL).
 * 0, or -1 when nm or readelf do not place it. */
int file_offset(const char *path, const char *name, uint64_t *off, uint64_t *size);

/* Write text to path (created or truncated) with this mode, which is set
 * even on an existing file. 0, or -1 with errno. */
int write_text(const char *path, const char *text, unsigned mode);
/* The same with len bytes of data. */
int write_bytes(const char *path, const void *data, size_t len, unsigned mode);

/* A section of an ELF file a test writes (elf_begin(ELF_C_WRITE)). */
struct test_scn {
	uint32_t name; /* offset in the section name table */
	uint32_t type;
	uint64_t flags, addr;
	const void *buf; /* the contents, borrowed until elf_update() */
	size_t size;
	uint32_t link, info;
	uint64_t entsize;
};

/* Write to fd an ELF64 little-endian file of this type and machine whose
 * sections are scns[0..n) (byte data, alignment 1), the first of them
 * (section 1) the section name table. 0, or -1 (libelf failed). */
int test_write_elf(int fd, uint16_t type, uint16_t machine, const struct test_scn *scns, size_t n);

#endif
