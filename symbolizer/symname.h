/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which of two names at one address to show: the choice ELF tables and kallsyms share. */
#ifndef ZT_SYMNAME_H
#define ZT_SYMNAME_H

/* Negative when a is the better name, positive when b is, 0 when neither:
 * fewer leading underscores ("malloc" over "__libc_malloc"), then shorter. */
int symname_pref(const char *a, const char *b);

/* How much a symbol's binding speaks for its name (from st_info): GLOBAL
 * and GNU_UNIQUE 3, WEAK 2, LOCAL 1, others 0. */
int symname_bind_rank(unsigned char st_info);

#endif
