/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ELF symbol tables (libelf): a sorted table of FUNC symbols of one file
 * (.symtab, else .dynsym; and the one of a separate debug file when given),
 * looked up by *file offset* as sampled addresses give them
 * (addr - mapping start + mapping pgoff), plus GNU build-id reading.
 */
#ifndef ZT_ELFSYM_H
#define ZT_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"

struct elfsym;

/* Open path and load its symbols. Returns 0 or a negative errno
 * (-ENOENT, -EACCES, -ENOEXEC for not-ELF or damaged ELF). A file without
 * any symbols opens fine and finds nothing. */
int elfsym_open(const char *path, struct elfsym **out);
/* The same on an image in memory (copied; used by fuzzing and tests). */
int elfsym_open_mem(const void *data, size_t len, struct elfsym **out);
void elfsym_free(struct elfsym *e);

/* The function containing file offset off. Returns its name (borrowed until
 * elfsym_free(), demangling is not done here) and sets *sym_off to
 * off's distance from the symbol start; NULL when no symbol covers off. */
const char *elfsym_lookup(const struct elfsym *e, uint64_t off, uint64_t *sym_off);
size_t elfsym_count(const struct elfsym *e);
/* The GNU build id of the opened file (len 0 when there is none). */
const struct prof_build_id *elfsym_build_id(const struct elfsym *e);

/* Read the GNU build id of a file or an open fd (fd is not closed).
 * Returns 0 (b->len == 0 when the file has none) or a negative errno. */
int elf_read_build_id(const char *path, struct prof_build_id *b);
int elf_read_build_id_fd(int fd, struct prof_build_id *b);

/* Whether fd (borrowed) is an ELF file whose headers and sections are all
 * inside it, for tools that must say what is wrong with a file they cannot
 * read (as addr2line does). Returns 0; -ENOEXEC for a file that is not ELF
 * (or not a regular file); -EBADMSG for a damaged or truncated one; -ENOMEM;
 * or a negative errno from fstat. why (n bytes) gets what is wrong:
 * "file format not recognized", "section headers past the end of the
 * file (file truncated?)", ... */
int elf_check_fd(int fd, char *why, size_t n);

/* Whether the ELF file on fd (borrowed) carries DWARF: a .debug_info or
 * .debug_line section with contents (compressed or not, .zdebug_* too).
 * 1, or 0 (also for a file that is not ELF). */
int elf_fd_has_dwarf(int fd);

#endif
