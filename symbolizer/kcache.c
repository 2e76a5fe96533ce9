// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc/kallsyms cached per boot and module set (see kcache.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/log.h"
#include "libprof/zbuf.h"
#include "symbolizer/kcache.h"
#include "symbolizer/ksubset.h"

#define KALLSYMS_MAX (256u << 20)

/* A text range of the kernel or a module. */
struct krange {
	uint64_t lo, hi;
};

/* Address of the line naming sym in kallsyms text, or 0. */
static uint64_t find_sym(const char *text, const char *sym)
{
	size_t sl = strlen(sym);
	const char *p = text;

	while ((p = strstr(p, sym))) {
		if (p - text >= 19 && p[-1] == ' ' && (p[sl] == '\n' || p[sl] == 0))
			return strtoull(p - 19, NULL, 16);
		p += sl;
	}
	return 0;
}

/* Kernel text and module ranges; n returned in *nr (caller frees). */
/* The core kernel's text ranges: _stext (or _text) to _etext, and the
 * boot code (it stays on the idle tasks' stacks); 0 to 2 of them. */
static size_t core_ranges(const char *kallsyms, struct krange r[2])
{
	size_t n = 0;

	r[n].lo = find_sym(kallsyms, "_stext");
	if (!r[n].lo)
		r[n].lo = find_sym(kallsyms, "_text");
	r[n].hi = find_sym(kallsyms, "_etext");
	if (r[n].lo && r[n].hi > r[n].lo)
		n++;
	r[n].lo = find_sym(kallsyms, "_sinittext");
	r[n].hi = find_sym(kallsyms, "_einittext");
	if (r[n].lo && r[n].hi > r[n].lo)
		n++;
	return n;
}

/* The core ranges, then each module's (from /proc/modules); *nr of them
 * (caller frees). */
static struct krange *text_ranges(const struct krange *core, size_t ncore, const char *modules,
				  size_t *nr)
{
	size_t cap = 0, n = ncore;
	struct krange *r = NULL;
	const char *line = modules;

	if (ZT_GROW(r, cap, ncore + 1))
		return NULL;
	memcpy(r, core, ncore * sizeof(*r));
	while (line && *line) {
		unsigned long long size, addr;
		char name[64];

		/* "name size refcount deps state 0xaddr ..." */
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &addr) == 3 && addr) {
			if (ZT_GROW(r, cap, n + 1)) {
				free(r);
				return NULL;
			}
			r[n++] = (struct krange){ addr, addr + size };
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	*nr = n;
	return r;
}

#define RANGES_TAG "#zt-core-ranges"

/* The cached file ends with a RANGES_TAG line: the core ranges, so that
 * using the cache needs no scan of its 100k lines. Parses it and cuts it
 * off *len; 0 when there is no such line. */
static size_t cached_ranges(const char *text, size_t *len, struct krange r[2])
{
	size_t end = *len, start, n = 0;
	const char *p;

	if (end && text[end - 1] == '\n')
		end--;
	start = end;
	while (start && text[start - 1] != '\n')
		start--;
	if (end - start < sizeof(RANGES_TAG) - 1 || memcmp(text + start, RANGES_TAG, sizeof(RANGES_TAG) - 1))
		return 0;
	p = text + start + sizeof(RANGES_TAG) - 1;
	while (n < 2) {
		unsigned long long lo, hi;
		int used = 0;

		if (sscanf(p, " %llx-%llx%n", &lo, &hi, &used) != 2 || !used)
			break;
		r[n++] = (struct krange){ lo, hi };
		p += used;
	}
	*len = start;
	return n;
}

static int covered(const struct krange *r, size_t nr, const uint64_t *ips, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nr && !(ips[i] >= r[j].lo && ips[i] < r[j].hi); j++)
			;
		if (j == nr)
			return 0;
	}
	return 1;
}

static uint64_t fnv64(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* mkdir -p of a directory for root's eyes only: what it makes is 0700,
 * and the directory must end up a real one owned by this user. */
static int make_private_dir(const char *dir)
{
	struct stat st;
	int err = buildid_cache_mkdirs(dir, 0700);

	if (err)
		return err;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return -EPERM;
	return 0;
}

/* The cached copy, read only when it is this user's own regular file. */
static int read_private(const char *path, char **text, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	ret = zt_read_fd(fd, KALLSYMS_MAX, (unsigned char **)text, len);
	close(fd);
	return ret;
}

/* The cache holds the text symbols only, sorted by address, so lookups in
 * it bisect instead of reading every line. */
static void save(const char *cdir, const char *dir, const char *path,
		 const char *all, size_t all_len)
{
	char tmp[PATH_MAX];
	struct zbuf sorted;
	const char *text;
	size_t off = 0, len;
	int fd;

	zbuf_init(&sorted);
	if (kallsyms_sorted_text(all, all_len, &sorted) || !sorted.len) {
		zbuf_release(&sorted);
		return;
	}
	{
		struct krange core[2];
		size_t nc = core_ranges(all, core), i;

		zbuf_put(&sorted, RANGES_TAG, sizeof(RANGES_TAG) - 1);
		for (i = 0; i < nc; i++) {
			char b[48];

			snprintf(b, sizeof(b), " %llx-%llx", (unsigned long long)core[i].lo,
				 (unsigned long long)core[i].hi);
			zbuf_put(&sorted, b, strlen(b));
		}
		zbuf_put_u8(&sorted, '\n');
	}
	text = (const char *)sorted.data;
	len = sorted.len;
	if (make_private_dir(cdir) || make_private_dir(dir))
		goto out;
	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	while (off < len) {
		ssize_t k = write(fd, text + off, len - off);

		if (k <= 0 && errno != EINTR)
			break;
		if (k > 0)
			off += (size_t)k;
	}
	if (close(fd) || off != len || rename(tmp, path))
		unlink(tmp);
out:
	zbuf_release(&sorted);
}

int kcache_read(const struct buildid_cache *c, const uint64_t *ips, size_t n, char **text,
		size_t *len, int *from_cache)
{
	char *mods = NULL, *boot = NULL, *cached = NULL, *cdir = NULL, dir[PATH_MAX], path[PATH_MAX];
	size_t mlen = 0, blen = 0, clen = 0, nr = 0;
	struct krange *r = NULL;
	int err, usable = 0;

	*from_cache = 0;
	/* kernel addresses: root's own cache, never a sudo user's */
	if (!c || !(cdir = buildid_cache_root_dir(c)) || zt_read_file("/proc/sys/kernel/random/boot_id", KALLSYMS_MAX, &boot, &blen) || blen < 8)
		goto live;
	boot[strcspn(boot, "\n")] = 0;
	if (zt_read_file("/proc/modules", KALLSYMS_MAX, &mods, &mlen))
		mlen = 0;
	if (snprintf(dir, sizeof(dir), "%s/kallsyms", cdir) >= (int)sizeof(dir) ||
	    snprintf(path, sizeof(path), "%s/%s-%016llx.sorted", dir, boot,
		     (unsigned long long)fnv64(mods ? mods : "", mlen)) >= (int)sizeof(path))
		goto live;
	if (!read_private(path, &cached, &clen)) {
		struct krange core[2];
		size_t nc = cached_ranges(cached, &clen, core);

		r = nc ? text_ranges(core, nc, mods ? mods : "", &nr) : NULL;
		usable = r && covered(r, nr, ips, n);
		free(r);
		if (usable) {
			*text = cached;
			*len = clen;
			*from_cache = 1;
			free(mods);
			free(boot);
			free(cdir);
			return 0;
		}
		free(cached);
	}
	err = zt_read_file("/proc/kallsyms", KALLSYMS_MAX, text, len);
	if (!err && *len > 16 && strncmp(*text, "0000000000000000", 16))
		save(cdir, dir, path, *text, *len);
	free(mods);
	free(boot);
	free(cdir);
	return err;
live:
	free(mods);
	free(boot);
	free(cdir);
	return zt_read_file("/proc/kallsyms", KALLSYMS_MAX, text, len);
}
