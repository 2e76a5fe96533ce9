/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The source files a module's DWARF line tables name, as debuginfod
 * clients (gdb, debuginfod-find source) ask for them: absolute paths,
 * relative names joined to their unit's DW_AT_comp_dir, "." and ".."
 * components and repeated slashes resolved textually (never through the
 * file system). For zt symbols upload --with-debuginfo, which sends the
 * ones present on the build machine.
 */
#ifndef ZT_SRCFILES_H
#define ZT_SRCFILES_H

#include <stddef.h>

/*
 * The source files of the DWARF in the ELF file at path, each once, sorted:
 * *out an array of *n malloc'ed strings (srcfiles_free() frees it). Names
 * that cannot be made absolute ("<built-in>", a relative name without a
 * comp_dir) are left out. Returns 0, -ENOENT (not ELF, or no DWARF line tables), -ENOMEM, or -errno of opening path.
 */
int srcfiles_list(const char *path, char ***out, size_t *n);
void srcfiles_free(char **v, size_t n);

/*
 * in made absolute and normal into out (n bytes): joined to dir when
 * relative (dir may be NULL), "//" and "/./" collapsed, "x/.." removed
 * ("/.." stays "/"). Returns 0, -EINVAL (relative and no absolute dir,
 * or empty), -ENAMETOOLONG.
 */
int srcfiles_normalize(const char *dir, const char *in, char *out, size_t n);

#endif
