// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading a recording for any command, with the messages users see. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "formats/perfdata.h"
#include "formats/ztdata.h"

static int load_perf(const char *path, int force, const char *event, struct profile *p)
{
	struct perfdata_opts o = { -1, event };
	struct perfdata_info info;
	int ret, k;

	ret = perfdata_read_file(path, p, &o, &info);
	if (ret == -EBADMSG && force && info.good_end > info.data_offset) {
		cmd_warn("'%s': %s: using what comes before it (--force)", path, info.msg);
	} else if (ret) {
		int partial = ret == -EBADMSG && info.good_end > info.data_offset;

		cmd_error("'%s': %s%s", path, info.msg[0] ? info.msg : strerror(-ret),
			  partial ? " (use -f to read the part before it)" : "");
		return -1;
	} else if (info.msg[0]) {
		cmd_warn("'%s': %s", path, info.msg);
	}
	if (info.dwarf)
		cmd_warn("'%s' was recorded with --call-graph dwarf, which zt cannot unwind yet: "
			 "showing kernel frames and the sampled user address only", path);
	/* perf.data carries no kernel symbols: this machine's, if it made the file */
	k = perfdata_add_host_kallsyms(p, NULL);
	if (k && k != -EEXIST)
		cmd_info("kernel frames stay unresolved: %s",
			 k == -EXDEV ? "recorded on another machine or kernel"
			 : k == -ESTALE ? "recorded before the last boot" : strerror(-k));
	cmd_info("read %zu samples of '%s' (%u events in the file), %zu mappings, %zu task events from '%s'",
		 p->nr_samples, profile_get_meta(p, "event") ? profile_get_meta(p, "event") : "?",
		 info.nr_events, p->nr_mmaps, p->nr_tasks, path);
	return 0;
}

int cmd_load_profile(const char *path, int force, const char *event, struct profile *p)
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
	if (n > 0 && perfdata_probe(head, (size_t)n))
		return load_perf(path, force, event, p);
	if (event)
		cmd_warn("--event is for perf.data files: '%s' has one event", path);
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
