/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command zt record runs: forked and held until sampling runs, so
 * that its first instruction is recorded, then let exec. The caller waits
 * for it (waitpid) and closes what is still open of go_fd and err_fd.
 */
#ifndef ZT_RECORD_WORKLOAD_H
#define ZT_RECORD_WORKLOAD_H

#include <stdbool.h>
#include <sys/types.h>

/* The command to record, forked and held until sampling runs. */
struct workload {
	pid_t pid;
	int go_fd;  /* write a byte to start it */
	int err_fd; /* exec failure reports errno here; EOF means exec worked */
};

/* Fork argv (argv[0] searched in PATH), held. to_stderr: its standard
 * output goes to standard error (the recording is on standard output).
 * 0, or a negative errno. */
int workload_prepare(struct workload *wl, char **argv, bool to_stderr);
/* Start it; returns 0, or the exec errno as a negative number. */
int workload_start(struct workload *wl);

#endif
