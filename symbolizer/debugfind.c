// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Separate debug files: build-id directories, .gnu_debuglink (name + CRC32),
 * perf's --symfs prefix, and MiniDebugInfo (.gnu_debugdata, xz).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "libprof/array.h"
#include "symbolizer/debugfind.h"
#include "symbolizer/elfsym.h"

#define XZ_IN_MAX ((size_t)64 << 20)
#define XZ_OUT_MAX ((size_t)256 << 20)
#define XZ_MEMLIMIT ((uint64_t)128 << 20) /* xz -9 needs ~65 MiB */

static int elf_init(void)
{
	/* elf_version is idempotent and cheap */
	return elf_version(EV_CURRENT) == EV_NONE ? -ENOEXEC : 0;
}

static int fmt_path(char *out, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fmt_path(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(out, n, fmt, ap);
	va_end(ap);
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

static const char *symfs_of(const struct debugfind_opts *o)
{
	return o && o->symfs ? o->symfs : "";
}

/* The i-th debug directory and whether it lies under symfs; NULL past the end. */
static const char *debug_dir(const struct debugfind_opts *o, size_t i, int *under_symfs)
{
	size_t k = 0;

	if (o && o->debug_dirs) {
		for (; o->debug_dirs[k]; k++) {
			if (k == i) {
				*under_symfs = 0;
				return o->debug_dirs[k];
			}
		}
	}
	if (i == k && !(o && o->no_default_dir)) {
		*under_symfs = 1;
		return DEBUGFIND_DEFAULT_DIR;
	}
	return NULL;
}

/* Open path as ELF for reading: fills *fd and *elf. */
static int elf_open(const char *path, int *fd, Elf **elf)
{
	int ret = elf_init();

	*elf = NULL;
	*fd = -1;
	if (ret)
		return ret;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		if (*elf)
			elf_end(*elf);
		*elf = NULL;
		close(*fd);
		*fd = -1;
		return -ENOEXEC;
	}
	return 0;
}

static void elf_close(int fd, Elf *elf)
{
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* The raw contents of the section called name, or NULL. */
static Elf_Data *find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *s;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		s = elf_strptr(elf, shstrndx, sh.sh_name);
		if (s && !strcmp(s, name))
			return elf_rawdata(scn, NULL);
	}
	return NULL;
}

int debugfind_file_crc32(const char *path, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t k = read(fd, buf, sizeof(buf));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			ret = -errno;
			goto out;
		}
		if (!k)
			break;
		c = crc32(c, buf, (uInt)k);
	}
	*crc = (uint32_t)c;
out:
	close(fd);
	return ret;
}

int debugfind_debuglink(const char *elf_path, char *name, size_t n, uint32_t *crc)
{
	const unsigned char *p;
	Elf_Data *d;
	size_t len, off;
	Elf *elf;
	int fd, ret;
	uint32_t v;

	ret = elf_open(elf_path, &fd, &elf);
	if (ret)
		return ret;
	d = find_section(elf, ".gnu_debuglink");
	if (!d || !d->d_buf) {
		ret = -ENOENT;
		goto out;
	}
	/* NUL-terminated name, padding to 4, then a u32 CRC in the file's byte order */
	p = d->d_buf;
	len = strnlen((const char *)p, d->d_size);
	off = (len + 4) & ~(size_t)3;
	if (len == 0 || len == d->d_size || off + 4 > d->d_size || len >= n ||
	    memchr(p, '/', len) || !strcmp((const char *)p, ".") || !strcmp((const char *)p, "..")) {
		ret = -EBADMSG;
		goto out;
	}
	memcpy(name, p, len + 1);
	memcpy(&v, p + off, 4);
	if ((elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		v = __builtin_bswap32(v);
	*crc = v;
out:
	elf_close(fd, elf);
	return ret;
}

static int same_build_id(const char *path, const struct prof_build_id *bid)
{
	struct prof_build_id b;

	return elf_read_build_id(path, &b) == 0 && b.len == bid->len &&
	       !memcmp(b.data, bid->data, bid->len);
}

static int by_build_id(const struct debugfind_opts *o, const struct prof_build_id *bid,
		       char *out, size_t n)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1];
	const char *dir;
	int under, ret;
	size_t i;

	if (bid->len < 2)
		return -ENOENT;
	prof_build_id_hex(bid, hex);
	for (i = 0; (dir = debug_dir(o, i, &under)); i++) {
		ret = fmt_path(out, n, "%s%s/.build-id/%.2s/%s.debug", under ? symfs_of(o) : "",
			       dir, hex, hex + 2);
		if (ret)
			return ret;
		if (access(out, R_OK) == 0 && same_build_id(out, bid))
			return 0;
	}
	return -ENOENT;
}

/* candidate accepted: readable, not the binary itself, CRC matches */
static int debuglink_ok(const char *cand, const struct stat *bin, uint32_t crc)
{
	struct stat st;
	uint32_t c;

	if (stat(cand, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (bin && st.st_dev == bin->st_dev && st.st_ino == bin->st_ino)
		return 0;
	return debugfind_file_crc32(cand, &c) == 0 && c == crc;
}

static int by_debuglink(const struct debugfind_opts *o, const char *elf_path, const char *real,
			char *out, size_t n)
{
	char name[256], dir[4096];
	const char *slash, *dd;
	struct stat bst;
	uint32_t crc;
	int under, ret;
	size_t i;

	ret = debugfind_debuglink(real, name, sizeof(name), &crc);
	if (ret)
		return ret == -EBADMSG ? -ENOENT : ret;
	slash = strrchr(elf_path, '/');
	if (!slash)
		ret = fmt_path(dir, sizeof(dir), ".");
	else if (slash == elf_path)
		ret = fmt_path(dir, sizeof(dir), "/");
	else
		ret = fmt_path(dir, sizeof(dir), "%.*s", (int)(slash - elf_path), elf_path);
	if (ret)
		return ret;
	if (stat(real, &bst) < 0)
		return -errno;

	ret = fmt_path(out, n, "%s%s/%s", symfs_of(o), dir, name);
	if (ret)
		return ret;
	if (debuglink_ok(out, &bst, crc))
		return 0;
	ret = fmt_path(out, n, "%s%s/.debug/%s", symfs_of(o), dir, name);
	if (ret)
		return ret;
	if (debuglink_ok(out, &bst, crc))
		return 0;
	for (i = 0; (dd = debug_dir(o, i, &under)); i++) {
		/* gdb: DEBUGDIR + the binary's absolute directory */
		ret = fmt_path(out, n, "%s%s%s%s/%s", under ? symfs_of(o) : "", dd,
			       dir[0] == '/' ? "" : "/", dir, name);
		if (ret)
			return ret;
		if (debuglink_ok(out, &bst, crc))
			return 0;
	}
	return -ENOENT;
}

int debugfind(const struct debugfind_opts *o, const char *elf_path,
	      const struct prof_build_id *bid, char *out, size_t n)
{
	struct prof_build_id own = { 0 };
	char real[4096];
	int ret, have_file;

	ret = fmt_path(real, sizeof(real), "%s%s", symfs_of(o), elf_path);
	if (ret)
		return ret;
	have_file = access(real, R_OK) == 0;
	if (!bid || !bid->len) {
		ret = elf_read_build_id(real, &own);
		if (ret)
			return ret;
		bid = &own;
		have_file = 1;
	}
	ret = by_build_id(o, bid, out, n);
	if (ret != -ENOENT)
		return ret;
	if (!have_file)
		return -ENOENT;
	ret = by_debuglink(o, elf_path, real, out, n);
	if (ret == -ENOEXEC && bid != &own)
		ret = -ENOENT;
	return ret;
}

int debugfind_unxz(const void *xz, size_t xz_len, void **out, size_t *out_len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t *buf = NULL;
	size_t cap = 0;
	lzma_ret lr;
	int ret = 0;

	if (xz_len > XZ_IN_MAX)
		return -EFBIG;
	if (lzma_stream_decoder(&s, XZ_MEMLIMIT, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = xz;
	s.avail_in = xz_len;
	for (;;) {
		if (s.avail_out == 0) {
			size_t used = s.total_out, want = cap ? cap * 2 : xz_len * 4 + 4096;

			if (cap >= XZ_OUT_MAX) {
				ret = -EFBIG;
				goto out;
			}
			if (want > XZ_OUT_MAX)
				want = XZ_OUT_MAX;
			if (ZT_GROW(buf, cap, want)) {
				ret = -ENOMEM;
				goto out;
			}
			s.next_out = buf + used;
			s.avail_out = cap - used;
		}
		lr = lzma_code(&s, LZMA_FINISH);
		if (lr == LZMA_STREAM_END)
			break;
		if (lr == LZMA_OK)
			continue;
		ret = lr == LZMA_MEM_ERROR ? -ENOMEM : lr == LZMA_MEMLIMIT_ERROR ? -EFBIG : -EBADMSG;
		goto out;
	}
	if (s.total_out < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG)) {
		ret = -EBADMSG;
		goto out;
	}
	*out = buf;
	*out_len = s.total_out;
	buf = NULL;
out:
	lzma_end(&s);
	free(buf);
	return ret;
}

int debugfind_minidebuginfo(const char *elf_path, void **elf_image, size_t *len)
{
	Elf_Data *d;
	Elf *elf;
	int fd, ret;

	ret = elf_open(elf_path, &fd, &elf);
	if (ret)
		return ret;
	d = find_section(elf, ".gnu_debugdata");
	if (!d || !d->d_buf || !d->d_size)
		ret = -ENOENT;
	else
		ret = debugfind_unxz(d->d_buf, d->d_size, elf_image, len);
	elf_close(fd, elf);
	return ret;
}
