// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading a recording for any command, with the messages users see. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "formats/ztdata.h"

int cmd_load_profile(const char *path, int force, struct profile *p)
{
	struct ztdata_read_info info;
	char head[8];
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cmd_error("cannot open '%s': %s%s", path, strerror(errno),
			  errno == ENOENT ? " (record one with 'zt record')" : "");
		return -1;
	}
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n == (ssize_t)sizeof(head) && !memcmp(head, "PERFILE2", 8)) {
		cmd_error("reading perf.data is not supported yet");
		return -1;
	}
	ret = ztdata_read_file(path, p, &info);
	if (ret == -EBADMSG && force && info.good_end > 0) {
		cmd_warn("'%s': %s: using what comes before it (--force)", path, info.msg);
	} else if (ret) {
		int partial = ret == -EBADMSG && info.good_end;

		cmd_error("'%s': %s%s", path, info.msg[0] ? info.msg : strerror(-ret),
			  partial ? " (use -f to read the part before it)" : "");
		return -1;
	} else if (info.msg[0]) {
		cmd_warn("'%s': %s", path, info.msg);
	}
	cmd_info("read %zu samples, %zu stacks, %zu mappings, %zu task events from '%s'", p->nr_samples,
		 p->nr_stacks, p->nr_mmaps, p->nr_tasks, path);
	return 0;
}
