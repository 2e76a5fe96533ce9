// SPDX-License-Identifier: GPL-2.0-or-later
/* The command zt record runs, held until sampling runs (see workload.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "record/workload.h"

/* to_stderr: the recording goes to standard output, so the command's own
 * output goes to standard error instead (as perf does for a pipe). */
int workload_prepare(struct workload *wl, char **argv, bool to_stderr)
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC))
		return -errno;
	wl->pid = fork();
	if (wl->pid < 0)
		return -errno;
	if (!wl->pid) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		signal(SIGPIPE, SIG_DFL);
		if (to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	wl->go_fd = go[1];
	wl->err_fd = er[0];
	return 0;
}

int workload_start(struct workload *wl)
{
	int e = 0;
	ssize_t n;

	if (write(wl->go_fd, "g", 1) != 1)
		return -errno;
	close(wl->go_fd);
	wl->go_fd = -1;
	n = read(wl->err_fd, &e, sizeof(e));
	close(wl->err_fd);
	wl->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? -e : 0;
}
