/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A command's session options from its symbol options, with progress shown on a terminal. */
#ifndef ZT_INPUT_H
#define ZT_INPUT_H

#include "cmd/cmd.h"
#include "cmd/symopts.h"
#include "session/session.h"

/* o from so (initialized by symopts_init): symbol sources, kernel symbol
 * files, --full-signature; progress lines through prog. force, event and
 * no_demangle are left for the command to set. */
void cmd_session_opts(const struct symopts *so, struct cmd_progress *prog, struct session_opts *o);

#endif
