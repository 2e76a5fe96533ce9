// SPDX-License-Identifier: GPL-2.0-or-later
/* zt archive files: a zstd-compressed tar of binaries and GSYM tables by build id. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libprof/fileio.h"
#include "symbolizer/larchive.h"
#include "symbolizer/symarchive.h"

/* ---- names ---------------------------------------------------------------- */

/* The number of lowercase hex digits at s when it is in [min, max], else 0. */
static size_t hex_run(const char *s, size_t min, size_t max)
{
	size_t i = 0;

	while ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))
		i++;
	return i >= min && i <= max ? i : 0;
}

enum symarchive_kind symarchive_name(const char *name)
{
	const size_t idmax = 2 * ZT_BUILD_ID_MAX;
	char buf[256];
	const char *p;
	size_t len, k;

	if (name[0] == '/')
		return SYMARCHIVE_UNSAFE;
	for (p = name; *p; p++) {
		/* a ".." component anywhere */
		if (p[0] == '.' && p[1] == '.' && (p == name || p[-1] == '/') &&
		    (p[2] == '/' || !p[2]))
			return SYMARCHIVE_UNSAFE;
	}
	if (!strncmp(name, "./", 2))
		name += 2;
	len = strlen(name);
	if (!len || len >= sizeof(buf))
		return SYMARCHIVE_OTHER;
	memcpy(buf, name, len + 1);
	if (buf[len - 1] == '/') {
		buf[--len] = 0;
		if (!strcmp(buf, "buildid") || !strcmp(buf, "gsym"))
			return SYMARCHIVE_DIR;
		if (!strncmp(buf, "buildid/", 8) && hex_run(buf + 8, 2, 2) == 2) {
			if (!buf[10])
				return SYMARCHIVE_DIR;
			if (buf[10] == '/' && (k = hex_run(buf + 11, 1, idmax - 2)) && !buf[11 + k])
				return SYMARCHIVE_DIR;
		}
		return SYMARCHIVE_OTHER;
	}
	if (!strcmp(buf, "buildid") || !strcmp(buf, "gsym"))
		return SYMARCHIVE_DIR; /* a directory entry without its '/' */
	if (!strcmp(buf, "README") || !strcmp(buf, "MANIFEST"))
		return SYMARCHIVE_TEXT;
	if (!strncmp(buf, "buildid/", 8) && hex_run(buf + 8, 2, 2) == 2 && buf[10] == '/') {
		k = hex_run(buf + 11, 1, idmax - 2);
		if (k && !buf[11 + k])
			return SYMARCHIVE_DIR;
		if (k && !strcmp(buf + 11 + k, "/elf"))
			return SYMARCHIVE_ELF;
		return SYMARCHIVE_OTHER;
	}
	if (!strncmp(buf, "gsym/", 5) && (k = hex_run(buf + 5, 2, idmax))) {
		if (!strcmp(buf + 5 + k, ".gsym"))
			return SYMARCHIVE_GSYM;
		if (!strcmp(buf + 5 + k, ".meta"))
			return SYMARCHIVE_META;
	}
	return SYMARCHIVE_OTHER;
}

/* ---- writing -------------------------------------------------------------- */

struct symarchive_writer {
	struct archive *a;
};

int symarchive_writer_new(int fd, struct symarchive_writer **out, char *err, size_t n)
{
	struct symarchive_writer *w;
	int ret;

	*out = NULL;
	if ((ret = zt_la_ready(err, n)))
		return ret;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->a = zt_la.write_new())) {
		free(w);
		snprintf(err, n, "out of memory");
		return -ENOMEM;
	}
	if (zt_la.write_add_filter_zstd(w->a) != ARCHIVE_OK ||
	    zt_la.write_set_format_pax_restricted(w->a) != ARCHIVE_OK ||
	    zt_la.write_open_fd(w->a, fd) != ARCHIVE_OK) {
		snprintf(err, n, "%s", zt_la_error(w->a));
		symarchive_writer_free(w);
		return -EIO;
	}
	*out = w;
	return 0;
}

static int put_header(struct symarchive_writer *w, const char *name, uint64_t size, char *err,
		      size_t n)
{
	struct archive_entry *e;
	int ret = 0;

	if (symarchive_name(name) == SYMARCHIVE_OTHER ||
	    symarchive_name(name) == SYMARCHIVE_UNSAFE || symarchive_name(name) == SYMARCHIVE_DIR) {
		snprintf(err, n, "'%s' is not a name of a zt archive's files", name);
		return -EINVAL;
	}
	e = zt_la.entry_new();
	if (!e) {
		snprintf(err, n, "out of memory");
		return -ENOMEM;
	}
	zt_la.entry_set_pathname(e, name);
	zt_la.entry_set_size(e, (la_int64_t)size);
	zt_la.entry_set_filetype(e, AE_IFREG);
	zt_la.entry_set_perm(e, 0644);
	zt_la.entry_set_mtime(e, time(NULL), 0);
	if (zt_la.write_header(w->a, e) != ARCHIVE_OK) {
		snprintf(err, n, "%s", zt_la_error(w->a));
		ret = -EIO;
	}
	zt_la.entry_free(e);
	return ret;
}

static int put_data(struct symarchive_writer *w, const void *data, size_t len, char *err, size_t n)
{
	size_t off = 0;

	while (off < len) {
		la_ssize_t k = zt_la.write_data(w->a, (const char *)data + off, len - off);

		if (k <= 0) {
			snprintf(err, n, "%s", zt_la_error(w->a));
			return -EIO;
		}
		off += (size_t)k;
	}
	return 0;
}

int symarchive_add(struct symarchive_writer *w, const char *name, const void *data, size_t len,
		   char *err, size_t n)
{
	int ret = put_header(w, name, len, err, n);

	return ret ? ret : put_data(w, data, len, err, n);
}

int symarchive_add_fd(struct symarchive_writer *w, const char *name, int fd, char *err, size_t n)
{
	char buf[1 << 15];
	uint64_t left;
	struct stat st;
	off_t off = 0;
	int ret;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, n, "not a regular file");
		return -EINVAL;
	}
	if ((ret = put_header(w, name, (uint64_t)st.st_size, err, n)))
		return ret;
	/* exactly the size the header says, even if the file changes meanwhile */
	for (left = (uint64_t)st.st_size; left;) {
		ssize_t k = pread(fd, buf, left < sizeof(buf) ? left : sizeof(buf), off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			ret = k < 0 ? -errno : -EIO;
			snprintf(err, n, "reading it: %s",
				 k < 0 ? strerror(errno) : "it got shorter");
			return ret;
		}
		if ((ret = put_data(w, buf, (size_t)k, err, n)))
			return ret;
		off += k;
		left -= (uint64_t)k;
	}
	return 0;
}

int symarchive_writer_close(struct symarchive_writer *w, char *err, size_t n)
{
	int ret = 0;

	if (zt_la.write_close(w->a) != ARCHIVE_OK) {
		snprintf(err, n, "%s", zt_la_error(w->a));
		ret = -EIO;
	}
	symarchive_writer_free(w);
	return ret;
}

void symarchive_writer_free(struct symarchive_writer *w)
{
	if (!w)
		return;
	if (w->a)
		zt_la.write_free(w->a);
	free(w);
}

/* ---- reading -------------------------------------------------------------- */

/* mkdir -p of the directories of name (relative, checked) in dirfd. */
static int make_parents(int dirfd, const char *name)
{
	char buf[256];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", name) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = strchr(buf, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		if (mkdirat(dirfd, buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}


/* One regular file's data into a new file name in dirfd. */
static int unpack_file(struct archive *a, const char *name, uint64_t cap, int dirfd,
		       struct symarchive_stats *st, char *err, size_t n)
{
	char buf[1 << 15];
	uint64_t got = 0;
	int fd, ret = 0;

	if ((ret = make_parents(dirfd, name))) {
		snprintf(err, n, "cannot make the directories of '%s': %s", name, strerror(-ret));
		return ret;
	}
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, n,
			 errno == EEXIST ? "'%s' is in the archive twice"
					 : "cannot create '%s': %s",
			 name, strerror(errno));
		return ret;
	}
	for (;;) {
		la_ssize_t k = zt_la.read_data(a, buf, sizeof(buf));

		if (k == 0)
			break;
		if (k < 0) {
			snprintf(err, n, "'%s': %s", name, zt_la_error(a));
			ret = -EBADMSG;
			break;
		}
		got += (uint64_t)k;
		if (got > cap || st->bytes + got > SYMARCHIVE_MAX_TOTAL) {
			snprintf(err, n,
				 "'%s' is larger than zt reads (%llu MiB a file of its kind, %llu "
				 "MiB in all)",
				 name, (unsigned long long)(cap >> 20),
				 (unsigned long long)(SYMARCHIVE_MAX_TOTAL >> 20));
			ret = -EFBIG;
			break;
		}
		if ((ret = zt_write_all(fd, buf, (size_t)k))) {
			snprintf(err, n, "cannot write '%s': %s", name, strerror(-ret));
			break;
		}
	}
	if (close(fd) && !ret) {
		ret = -errno;
		snprintf(err, n, "cannot write '%s': %s", name, strerror(errno));
	}
	if (!ret) {
		st->files++;
		st->bytes += got;
	}
	return ret;
}

static int unpack(struct archive *a, int dirfd, struct symarchive_stats *st, char *err, size_t n)
{
	struct archive_entry *e;
	uint64_t entries = 0;
	int r;

	while ((r = zt_la.read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		const char *name = zt_la.entry_pathname(e);
		enum symarchive_kind kind;
		unsigned type = zt_la.entry_filetype(e);
		uint64_t cap, size;
		char clean[256];
		int ret;

		if (++entries > SYMARCHIVE_MAX_ENTRIES) {
			snprintf(err, n, "more than %u entries: not a zt archive",
				 SYMARCHIVE_MAX_ENTRIES);
			return -EFBIG;
		}
		if (!name) {
			snprintf(err, n, "entry %llu has no name", (unsigned long long)entries);
			return -EBADMSG;
		}
		kind = symarchive_name(name);
		if (kind == SYMARCHIVE_UNSAFE) {
			snprintf(err, n,
				 "entry %llu: '%.200s' reaches outside the archive's directory",
				 (unsigned long long)entries, name);
			return -EBADMSG;
		}
		if (zt_la.entry_hardlink(e) || zt_la.entry_symlink(e) ||
		    (type != AE_IFREG && type != AE_IFDIR)) {
			snprintf(err, n,
				 "entry %llu: '%.200s' is a link or a special file: zt archives "
				 "hold regular files only",
				 (unsigned long long)entries, name);
			return -EBADMSG;
		}
		if (kind == SYMARCHIVE_OTHER) {
			st->skipped++;
			continue;
		}
		if (kind == SYMARCHIVE_DIR || type == AE_IFDIR) {
			if (kind != SYMARCHIVE_DIR || type != AE_IFDIR) {
				snprintf(err, n,
					 "entry %llu: '%.200s' is a %s where zt archives have a %s",
					 (unsigned long long)entries, name,
					 type == AE_IFDIR ? "directory" : "file",
					 type == AE_IFDIR ? "file" : "directory");
				return -EBADMSG;
			}
			continue; /* made as the files need them */
		}
		cap = kind == SYMARCHIVE_ELF	? SYMARCHIVE_MAX_ELF
		      : kind == SYMARCHIVE_GSYM ? SYMARCHIVE_MAX_GSYM
						: SYMARCHIVE_MAX_TEXT;
		size = zt_la.entry_size_is_set(e) && zt_la.entry_size(e) > 0 ? (uint64_t)zt_la.entry_size(e)
								       : 0;
		if (size > cap) {
			snprintf(err, n, "'%.200s' is larger than zt reads (%llu MiB)", name,
				 (unsigned long long)(cap >> 20));
			return -EFBIG;
		}
		snprintf(clean, sizeof(clean), "%s", strncmp(name, "./", 2) ? name : name + 2);
		if ((ret = unpack_file(a, clean, cap, dirfd, st, err, n)))
			return ret;
	}
	if (r != ARCHIVE_EOF) {
		snprintf(err, n, "%s", zt_la_error(a));
		return -EBADMSG;
	}
	if (!st->files) {
		snprintf(err, n, "no files of a zt archive in it");
		return -EBADMSG;
	}
	return 0;
}

static struct archive *reader(char *err, size_t n)
{
	struct archive *a;

	if (zt_la_ready(err, n))
		return NULL;
	a = zt_la.read_new();
	if (!a) {
		snprintf(err, n, "out of memory");
		return NULL;
	}
	/* tar, plain or zstd: nothing more of libarchive's formats is exposed */
	zt_la.read_support_filter_zstd(a);
	zt_la.read_support_filter_none(a);
	zt_la.read_support_format_tar(a);
	return a;
}

int symarchive_unpack_fd(int fd, int dirfd, struct symarchive_stats *st, char *err, size_t n)
{
	struct archive *a = reader(err, n);
	int ret;

	memset(st, 0, sizeof(*st));
	if (!a)
		return zt_la.ok ? -ENOMEM : -ENOSYS;
	if (zt_la.read_open_fd(a, fd, 1 << 16) != ARCHIVE_OK) {
		snprintf(err, n, "%s", zt_la_error(a));
		zt_la.read_free(a);
		return -EBADMSG;
	}
	ret = unpack(a, dirfd, st, err, n);
	zt_la.read_free(a);
	return ret;
}

int symarchive_unpack_mem(const void *data, size_t len, int dirfd, struct symarchive_stats *st,
			  char *err, size_t n)
{
	struct archive *a = reader(err, n);
	int ret;

	memset(st, 0, sizeof(*st));
	if (!a)
		return zt_la.ok ? -ENOMEM : -ENOSYS;
	if (zt_la.read_open_memory(a, data, len) != ARCHIVE_OK) {
		snprintf(err, n, "%s", zt_la_error(a));
		zt_la.read_free(a);
		return -EBADMSG;
	}
	ret = unpack(a, dirfd, st, err, n);
	zt_la.read_free(a);
	return ret;
}

/* ---- opening ------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_tree(const char *dir)
{
	/* depth first, links not followed (there are none: only this module
	 * wrote in it, in a directory no one else can write to) */
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int symarchive_open(struct symarchive *a, const char *path, char *err, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	struct stat st;
	int fd, dfd, ret;

	memset(a, 0, sizeof(*a));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, n, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (S_ISDIR(st.st_mode)) {
		/* unpacked already (tar --zstd -xf FILE -C DIR): read as it is */
		close(fd);
		a->cache.dir = realpath(path, NULL);
		if (!a->cache.dir) {
			snprintf(err, n, "%s", strerror(errno));
			return -errno;
		}
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, n, "not a regular file or a directory");
		return -EINVAL;
	}
	if (snprintf(dir, sizeof(dir), "%s/zt-archive.XXXXXX",
		     tmp && tmp[0] == '/' ? tmp : "/tmp") >= (int)sizeof(dir) ||
	    !mkdtemp(dir)) {
		ret = -errno;
		snprintf(err, n, "cannot make a directory to unpack it in: %s", strerror(errno));
		close(fd);
		return ret ? ret : -ENAMETOOLONG;
	}
	a->temp = 1;
	a->cache.dir = strdup(dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (!a->cache.dir || dfd < 0) {
		ret = a->cache.dir ? -errno : -ENOMEM;
		snprintf(err, n, "%s", strerror(-ret));
		close(fd);
		if (dfd >= 0)
			close(dfd);
		if (!a->cache.dir)
			rmdir(dir);
		symarchive_close(a);
		return ret;
	}
	ret = symarchive_unpack_fd(fd, dfd, &a->st, err, n);
	close(fd);
	close(dfd);
	if (ret)
		symarchive_close(a);
	return ret;
}

void symarchive_close(struct symarchive *a)
{
	if (a->temp && a->cache.dir)
		remove_tree(a->cache.dir);
	free(a->cache.dir);
	a->cache.dir = NULL;
	a->temp = 0;
}
