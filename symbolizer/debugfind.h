/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding the separate debug file of an ELF, the way gdb and libdwfl do:
 * by GNU build id under DIR/.build-id/, then by .gnu_debuglink name + CRC32;
 * and MiniDebugInfo (.gnu_debugdata: an xz-compressed ELF with a .symtab).
 */
#ifndef ZT_DEBUGFIND_H
#define ZT_DEBUGFIND_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"

#define DEBUGFIND_DEFAULT_DIR "/usr/lib/debug"

/* Where to look. All fields may be zero: then only /usr/lib/debug, no symfs.
 *
 * symfs (perf's --symfs ROOT): elf_path names the file as the profiled
 * system saw it; it is read at ROOT/elf_path, and every place derived from
 * it (its directory, its .debug/ subdirectory, the default debug directory)
 * lies under ROOT too. debug_dirs (--debug-dir, tried in order before the
 * default) are host paths and are not prefixed. */
struct debugfind_opts {
	const char *symfs;              /* NULL or "": none */
	const char *const *debug_dirs;  /* NULL-terminated list, or NULL */
	int no_default_dir;             /* skip DEBUGFIND_DEFAULT_DIR */
};

/* Find the separate debug file for elf_path and write its (host) path into
 * out. bid is elf_path's build id when the caller knows it (from the
 * recording); NULL or len 0 reads it from the file. Tried in order:
 *   1. build id: DIR/.build-id/xx/rest.debug for each debug dir, accepted
 *      when that file carries the same build id;
 *   2. .gnu_debuglink NAME: dirname(elf_path)/NAME, dirname/.debug/NAME,
 *      DIR/dirname/NAME for each debug dir (gdb's rule), accepted only when
 *      zlib's crc32 over the whole candidate equals the link's CRC.
 * Returns 0, -ENOENT when no debug file was found (also when elf_path has no
 * build id and no debuglink, or when bid is given and elf_path is gone),
 * -ENAMETOOLONG, or, without bid, a negative errno from reading elf_path
 * (-ENOEXEC when it is not ELF). */
int debugfind(const struct debugfind_opts *o, const char *elf_path,
	      const struct prof_build_id *bid, char *out, size_t n);

/* The .gnu_debuglink of an ELF: the debug file's base name (NUL-terminated
 * into name, at most n bytes) and its CRC32. Returns 0, -ENOENT when there
 * is no such section, -EBADMSG when it is malformed or the name contains '/'
 * or is too long for n. */
int debugfind_debuglink(const char *elf_path, char *name, size_t n, uint32_t *crc);

/* zlib crc32 of a whole file (the .gnu_debuglink CRC). 0 or negative errno. */
int debugfind_file_crc32(const char *path, uint32_t *crc);

/* MiniDebugInfo: the .gnu_debugdata section of elf_path (a host path; apply
 * symfs yourself), xz-decompressed into a new heap buffer (*elf_image,
 * *len; the caller frees it) holding an ELF whose .symtab has the local
 * function symbols that .dynsym lacks (open it with elfsym_open_mem() or
 * elf_memory()). Returns 0, -ENOENT when the section is absent, -EBADMSG
 * for corrupt xz data or a result that is not ELF, -EFBIG past the caps
 * (64 MiB compressed, 256 MiB decompressed), -ENOMEM, or the errno of
 * reading the file. */
int debugfind_minidebuginfo(const char *elf_path, void **elf_image, size_t *len);
/* The same decompression over a section already in memory. */
int debugfind_unxz(const void *xz, size_t xz_len, void **out, size_t *out_len);

#endif
