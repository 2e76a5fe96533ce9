/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the commands that talk to a team server share (zt push, zt symbols
 * upload): the --token value kept out of /proc/PID/cmdline, and the server
 * URL and token from the options, then ZT_SERVER and ZT_TOKEN, then the
 * configuration file.
 */
#ifndef ZT_CMD_REMOTE_H
#define ZT_CMD_REMOTE_H

#include "net/push.h"

/* The remote settings of a command. */
struct remote_args {
	char **dups; /* copies of --token values (wiped and freed by remote_args_release) */
	int nr_dups;
};

/*
 * --token T would be in /proc/PID/cmdline for as long as zt runs: its value
 * is copied off and its bytes in argv zeroed before anything else (the
 * option parser then sees the copy). Returns 0 or -ENOMEM.
 */
int remote_scrub_token(int argc, char **argv, struct remote_args *a);
void remote_args_release(struct remote_args *a);

/*
 * *server and *token as given (NULL when not), completed from ZT_SERVER,
 * ZT_TOKEN, then the configuration file (read only when one is still
 * missing; cfg keeps its strings). what names the request for the
 * no-token warning ("the push"). Returns 0, or an exit code after a
 * message (no server: ZT_EXIT_USAGE; an unsafe or bad config file:
 * ZT_EXIT_FAIL).
 */
int remote_settings(const char **server, const char **token, struct push_config *cfg,
		    const char *what);

#endif
