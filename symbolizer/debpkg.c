// SPDX-License-Identifier: GPL-2.0-or-later
/* Debian packages read for their debug files: see debpkg.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libprof/fileio.h"
#include "symbolizer/debpkg.h"
#include "symbolizer/larchive.h"

#define CHUNK 65536

/* The data member, read through the outer (ar) archive. */
struct inner {
	struct archive *outer;
	char buf[CHUNK];
};

static la_ssize_t inner_read(struct archive *a, void *ctx, const void **buf)
{
	struct inner *in = ctx;

	(void)a;
	*buf = in->buf;
	return zt_la.read_data(in->outer, in->buf, sizeof(in->buf));
}

int debpkg_is_name(const char *path)
{
	size_t n = strlen(path);

	return (n > 4 && !strcmp(path + n - 4, ".deb")) || (n > 5 && !strcmp(path + n - 5, ".ddeb"));
}

/* A debug file's name in the data member: under usr/lib/debug/ (an
 * optional leading "./"), without ".." components. */
static const char *debug_name(const char *name)
{
	if (!strncmp(name, "./", 2))
		name += 2;
	if (strncmp(name, "usr/lib/debug/", 14) || strstr(name, "/../") || strstr(name, "/./"))
		return NULL;
	return name;
}

/* The entry's data into a new file in dir: 0 with path set, 1 when it is
 * not an ELF file or too large (skipped), or a negative errno. */
static int write_entry(struct archive *a, struct archive_entry *e, const char *dir, unsigned seq,
		       char *path, size_t pn, uint64_t *size, char *err, size_t n)
{
	char buf[CHUNK];
	uint64_t total = 0;
	la_ssize_t got;
	int fd, ret = 0;

	if (zt_la.entry_size_is_set(e) && (uint64_t)zt_la.entry_size(e) > DEBPKG_FILE_MAX)
		return 1;
	snprintf(path, pn, "%s/debug-%u", dir, seq);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, n, "cannot create '%s': %s", path, strerror(errno));
		return ret;
	}
	while ((got = zt_la.read_data(a, buf, sizeof(buf))) > 0) {
		if (!total && (got < 4 || memcmp(buf, "\177ELF", 4))) {
			ret = 1; /* not an ELF file */
			break;
		}
		total += (uint64_t)got;
		if (total > DEBPKG_FILE_MAX) {
			ret = 1;
			break;
		}
		if ((ret = zt_write_all(fd, buf, (size_t)got))) {
			snprintf(err, n, "cannot write '%s': %s", path, strerror(-ret));
			break;
		}
	}
	if (got < 0 && !ret) {
		ret = -EBADMSG;
		snprintf(err, n, "damaged data: %s", zt_la_error(a));
	}
	if (close(fd) && !ret) {
		ret = -errno;
		snprintf(err, n, "cannot write '%s': %s", path, strerror(errno));
	}
	if (!ret && !total)
		ret = 1; /* empty */
	if (ret)
		unlink(path);
	*size = total;
	return ret;
}

/* The tar of data member (the outer archive positioned on it). */
static int read_data_member(struct archive *outer, const char *dir, debpkg_fn fn, void *ctx,
			    struct debpkg_stats *st, char *err, size_t n)
{
	struct inner *in = malloc(sizeof(*in));
	struct archive *a = NULL;
	struct archive_entry *e;
	unsigned seq = 0;
	int ret = 0, r;

	if (!in || !(a = zt_la.read_new())) {
		free(in);
		snprintf(err, n, "out of memory");
		return -ENOMEM;
	}
	in->outer = outer;
	zt_la.read_support_filter_xz(a);
	zt_la.read_support_filter_zstd(a);
	zt_la.read_support_filter_gzip(a);
	zt_la.read_support_filter_none(a);
	zt_la.read_support_format_tar(a);
	if (zt_la.read_open(a, in, NULL, inner_read, NULL) != ARCHIVE_OK) {
		snprintf(err, n, "damaged package: its data member cannot be read as a tar (%s)",
			 zt_la_error(a));
		ret = -EBADMSG;
		goto out;
	}
	while ((r = zt_la.read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		const char *pathname = zt_la.entry_pathname(e), *name;
		struct debpkg_file f;
		char path[4096];
		uint64_t size = 0;

		if (!pathname || zt_la.entry_filetype(e) != AE_IFREG || !(name = debug_name(pathname))) {
			st->skipped++;
			continue;
		}
		r = write_entry(a, e, dir, seq++, path, sizeof(path), &size, err, n);
		if (r < 0) {
			ret = r;
			goto out;
		}
		if (r) {
			if (size > DEBPKG_FILE_MAX || (zt_la.entry_size_is_set(e) &&
						       (uint64_t)zt_la.entry_size(e) > DEBPKG_FILE_MAX))
				st->too_big++;
			else
				st->skipped++;
			continue;
		}
		f = (struct debpkg_file){name, path, size};
		st->files++;
		ret = fn(ctx, &f);
		unlink(path);
		if (ret)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		snprintf(err, n, "damaged data member: %s", zt_la_error(a));
		ret = -EBADMSG;
	}
out:
	zt_la.read_free(a);
	free(in);
	return ret;
}

int debpkg_read(const char *path, const char *dir, debpkg_fn fn, void *ctx,
		struct debpkg_stats *st, char *err, size_t n)
{
	struct debpkg_stats own;
	struct archive *a;
	struct archive_entry *e;
	int ret, r, fd, have_magic = 0, have_data = 0;

	if (!st)
		st = &own;
	memset(st, 0, sizeof(*st));
	if ((ret = zt_la_ready(err, n)))
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, n, "%s", strerror(errno));
		return ret;
	}
	a = zt_la.read_new();
	if (!a) {
		close(fd);
		snprintf(err, n, "out of memory");
		return -ENOMEM;
	}
	zt_la.read_support_format_ar(a);
	zt_la.read_support_filter_none(a);
	if (zt_la.read_open_fd(a, fd, CHUNK) != ARCHIVE_OK) {
		snprintf(err, n, "not a Debian package (an ar archive): %s", zt_la_error(a));
		ret = -EBADMSG;
		goto out;
	}
	while ((r = zt_la.read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		const char *name = zt_la.entry_pathname(e);

		if (!name)
			continue;
		if (!strcmp(name, "debian-binary")) {
			char v[8] = {0};

			if (zt_la.read_data(a, v, sizeof(v) - 1) >= 4 && !strncmp(v, "2.", 2))
				have_magic = 1;
		} else if (!strncmp(name, "data.tar", 8) && have_magic && !have_data) {
			have_data = 1;
			ret = read_data_member(a, dir, fn, ctx, st, err, n);
			if (ret)
				goto out;
		}
	}
	if (r != ARCHIVE_EOF) {
		snprintf(err, n, "damaged package: %s", zt_la_error(a));
		ret = -EBADMSG;
	} else if (!have_magic || !have_data) {
		snprintf(err, n, "not a Debian package (no %s)",
			 !have_magic ? "debian-binary 2.x" : "data.tar member");
		ret = -EBADMSG;
	}
out:
	zt_la.read_free(a);
	close(fd);
	return ret;
}
