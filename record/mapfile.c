/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The file behind a process's mapping, and its build id. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libprof/array.h"
#include "libprof/procfile.h"
#include "record/mapfile.h"
#include "symbolizer/elfsym.h"

struct mapfile_id {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	struct prof_build_id bid;
};

int mapfile_open(const struct prof_mmap *m, struct stat *st)
{
	char p[64];
	int fd;

	snprintf(p, sizeof(p), "/proc/%u/map_files/%llx-%llx", m->pid, (unsigned long long)m->start,
		 (unsigned long long)(m->start + m->len));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && m->path[0] == '/')
		fd = procfile_open_in_root(m->pid, m->path, 0);
	if (fd >= 0 && (fstat(fd, st) || !S_ISREG(st->st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

bool mapfile_is_file(const struct prof_mmap *m)
{
	return m->path[0] == '/' && strncmp(m->path, "/memfd:", 7) && strncmp(m->path, "//anon", 6);
}

void mapfile_ids_release(struct mapfile_ids *ids)
{
	free(ids->v);
	ids->v = NULL;
	ids->nr = ids->cap = 0;
}

void mapfile_fill_build_id(struct mapfile_ids *ids, struct prof_mmap *m)
{
	struct stat st;
	size_t i;
	int fd;

	if (m->build_id.len || !mapfile_is_file(m))
		return;
	fd = mapfile_open(m, &st);
	if (fd < 0)
		return;
	for (i = 0; i < ids->nr; i++) {
		const struct mapfile_id *b = &ids->v[i];

		if (b->dev == st.st_dev && b->ino == st.st_ino && b->mtime.tv_sec == st.st_mtim.tv_sec &&
		    b->mtime.tv_nsec == st.st_mtim.tv_nsec) {
			m->build_id = b->bid;
			close(fd);
			return;
		}
	}
	elf_read_build_id_fd(fd, &m->build_id);
	if (!ZT_GROW(ids->v, ids->cap, ids->nr + 1))
		ids->v[ids->nr++] = (struct mapfile_id){ st.st_dev, st.st_ino, st.st_mtim, m->build_id };
	close(fd);
}
