// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc scanning: COMM and executable mappings of existing processes. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bpf/procsynth.h"

int procsynth_parse_maps_line(char *line, struct prof_mmap *m)
{
	unsigned long long start, end, off, ino;
	char perms[8], dev[16];
	int pos = 0;
	char *path, *nl;

	if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &start, &end, perms, &off, dev, &ino, &pos) < 6)
		return -EINVAL;
	if (strlen(perms) < 4 || perms[2] != 'x' || end <= start)
		return -ENOENT;
	path = line + pos;
	nl = strchr(path, '\n');
	if (nl)
		*nl = 0;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->len = end - start;
	m->pgoff = off;
	m->prot = PROT_EXEC | (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->path = path[0] ? path : "//anon";
	return 0;
}

static void synth_threads(pid_t pid, uint64_t ts, const struct perfev_cbs *cbs)
{
	char dir[64], path[384];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct prof_task t = { .ts = ts, .kind = PROF_TASK_COMM, .pid = (uint32_t)pid };
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		t.tid = (uint32_t)strtoul(de->d_name, NULL, 10);
		snprintf(path, sizeof(path), "%s/%s/comm", dir, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(t.comm, sizeof(t.comm), f)) {
			t.comm[strcspn(t.comm, "\n")] = 0;
			if (cbs->task)
				cbs->task(cbs->ctx, &t);
		}
		fclose(f);
	}
	closedir(d);
}

int procsynth_pid(pid_t pid, uint64_t ts, const struct perfev_cbs *cbs)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	synth_threads(pid, ts, cbs);
	while (getline(&line, &cap, f) > 0) {
		struct prof_mmap m;

		if (procsynth_parse_maps_line(line, &m))
			continue;
		m.ts = ts;
		m.pid = m.tid = (uint32_t)pid;
		if (cbs->mmap)
			cbs->mmap(cbs->ctx, &m);
	}
	free(line);
	fclose(f);
	return 0;
}

int procsynth_all(uint64_t ts, const struct perfev_cbs *cbs)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		procsynth_pid((pid_t)strtol(de->d_name, NULL, 10), ts, cbs);
	}
	closedir(d);
	return 0;
}
