// SPDX-License-Identifier: GPL-2.0-or-later
/* This machine's vDSO as a file, for symbols and unwind tables of [vdso] frames. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "symbolizer/elfsym.h"
#include "symbolizer/vdso.h"

static int same_id(const struct prof_build_id *a, const struct prof_build_id *b)
{
	return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* 0 if the file at buf has build id want; else -ESTALE (or -errno), a
 * temporary copy unlinked */
static int check_id(char *buf, const struct prof_build_id *want, int *temp)
{
	struct prof_build_id fb = { 0 };
	int ret = elf_read_build_id(buf, &fb);

	if (!ret && !same_id(&fb, want))
		ret = -ESTALE;
	if (ret && *temp) {
		unlink(buf);
		*temp = 0;
	}
	if (ret)
		buf[0] = 0;
	return ret;
}

int vdso_self_image(const void **img, size_t *len)
{
	unsigned long lo = 0, hi = 0;
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2;
	fclose(f);
	if (!found || hi <= lo || hi - lo > (1ul << 20))
		return -ENOENT;
	*img = (const void *)lo;
	*len = hi - lo;
	return 0;
}

int vdso_host_copy(const struct profile *p, const struct buildid_cache *c,
		   const struct prof_build_id *want, char *buf, size_t n, int *temp)
{
	const char *host = profile_get_meta(p, "hostname");
	const char *rel = profile_get_meta(p, "os_release");
	char tmp[PATH_MAX];
	const void *img;
	size_t len;
	struct utsname u;
	struct stat st;
	int fd, ret;
	ssize_t w;

	*temp = 0;
	if (want && !want->len)
		want = NULL;
	/* with the recorded build id, the image itself tells whether it is ours */
	if (uname(&u) || (!want && (!host || !rel || strcmp(host, u.nodename) ||
				    strcmp(rel, u.release))))
		return -EXDEV;
	if (c) {
		if (snprintf(buf, n, "%s/vdso-%s.so", c->dir, u.release) >= (int)n)
			return -ENAMETOOLONG;
		if (!stat(buf, &st) && st.st_size > 0)
			return want ? check_id(buf, want, temp) : 0;
	}
	ret = vdso_self_image(&img, &len);
	if (ret)
		return ret;
	if (c && !buildid_cache_store(c, buf, img, len, NULL))
		return want ? check_id(buf, want, temp) : 0;
	/* no cache, or none writable (a sudo user's that cannot be made): a temporary copy */
	if (snprintf(tmp, sizeof(tmp), "/tmp/zt-vdso-XXXXXX") >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	w = write(fd, img, len);
	if (close(fd) || w != (ssize_t)len) {
		unlink(tmp);
		return -EIO;
	}
	*temp = 1;
	snprintf(buf, n, "%s", tmp);
	return want ? check_id(buf, want, temp) : 0;
}

int vdso_path(const struct profile *p, const struct buildid_cache *c,
	      const struct prof_build_id *want, char *buf, size_t n, int *temp)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1];
	const char *home = getenv("HOME");
	int ret = vdso_host_copy(p, c, want, buf, n, temp);

	if (!ret || !want || !want->len || !home || !*home)
		return ret;
	/* another kernel's: perf record keeps a copy in its build-id cache */
	if (snprintf(buf, n, "%s/.debug/[vdso]/%s/vdso", home, prof_build_id_hex(want, hex)) >=
	    (int)n)
		return -ENAMETOOLONG;
	return check_id(buf, want, temp);
}

