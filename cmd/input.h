/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a recording for any command: zt.data (and perf.data, by magic), with the messages. */
#ifndef ZT_INPUT_H
#define ZT_INPUT_H

#include "cmd/symopts.h"
#include "libprof/profile.h"

/* Read path into p (initialized): zt.data, or perf.data (told apart by
 * their magic, whatever the name). A truncated file is read up to its last
 * complete part with a warning; a damaged one is an error naming the
 * offset, unless force (then its readable part, with a warning). event
 * picks one of a perf.data file's events by name (NULL: the first).
 * Kernel symbols come from so's --kallsyms or --vmlinux file when given
 * (replacing a zt.data file's own), else, for perf.data of this host's
 * kernel build, from /proc/kallsyms, relocated to the recorded boot's
 * _text (see symbolizer/ksource.h). Prints its own messages as
 * "zt CMD: ...". Returns 0, or -1 after an error message.
 * path must be a regular file (zt has no pipe mode): a pipe, a FIFO, a
 * device or a directory is refused without waiting or reading; the file is
 * opened and mapped once, and both passes read that image.
 * A --call-graph dwarf recording has its user stacks unwound here, with
 * binaries found under so's --symfs and --debug-dir (so may be NULL). */
int cmd_load_profile(const char *path, int force, const char *event, const struct symopts *so,
		     struct profile *p);

#endif
