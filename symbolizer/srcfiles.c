// SPDX-License-Identifier: GPL-2.0-or-later
/* The source files named by a module's DWARF line tables (libdw). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "symbolizer/srcfiles.h"

int srcfiles_normalize(const char *dir, const char *in, char *out, size_t n)
{
	char buf[8192];
	size_t len = 0, k;
	const char *p, *e;
	int w;

	if (!in || !*in)
		return -EINVAL;
	if (in[0] == '/')
		w = snprintf(buf, sizeof(buf), "%s", in);
	else if (dir && dir[0] == '/')
		w = snprintf(buf, sizeof(buf), "%s/%s", dir, in);
	else
		return -EINVAL;
	if (w < 0 || (size_t)w >= sizeof(buf))
		return -ENAMETOOLONG;
	if (n < 2)
		return -ENAMETOOLONG;
	/* component by component into out: len is out's length, out[0] = '/' */
	out[0] = '/';
	len = 1;
	for (p = buf; *p; p = e) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		k = (size_t)(e - p);
		if (k == 1 && p[0] == '.')
			continue;
		if (k == 2 && p[0] == '.' && p[1] == '.') {
			/* drop the last component (at the root: stays at the root) */
			while (len > 1 && out[len - 1] != '/')
				len--;
			if (len > 1)
				len--;
			continue;
		}
		if (len + (len > 1) + k + 1 > n)
			return -ENAMETOOLONG;
		if (len > 1)
			out[len++] = '/';
		memcpy(out + len, p, k);
		len += k;
	}
	out[len] = 0;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void srcfiles_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Append s (a copy) to the vector. 0 or -ENOMEM. */
static int push(char ***v, size_t *n, size_t *cap, const char *s)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		char **nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	if (!((*v)[*n] = strdup(s)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

int srcfiles_list(const char *path, char ***out, size_t *nout)
{
	char **v = NULL, norm[4096];
	size_t n = 0, cap = 0, i, j;
	Dwarf *dw;
	int fd, err = 0, any = 0;

	*out = NULL;
	*nout = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		close(fd);
		return -ENOENT; /* not ELF, or no DWARF in it */
	}
	/* units of every kind (DWARF 5 type and skeleton units too) */
	{
		Dwarf_CU *cu = NULL;
		Dwarf_Die cudie, sub;
		uint8_t ut;

		while (!err && !dwarf_get_units(dw, cu, &cu, NULL, &ut, &cudie, &sub)) {
			Dwarf_Files *files;
			Dwarf_Attribute a;
			const char *comp;
			size_t nf;

			if (dwarf_getsrcfiles(&cudie, &files, &nf))
				continue;
			any = 1;
			comp = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &a));
			for (i = 0; i < nf && !err; i++) {
				const char *name = dwarf_filesrc(files, i, NULL, NULL);

				if (!name || !*name || name[0] == '<')
					continue;
				if (srcfiles_normalize(comp, name, norm, sizeof(norm)))
					continue;
				err = push(&v, &n, &cap, norm);
			}
		}
	}
	dwarf_end(dw);
	close(fd);
	if (err) {
		srcfiles_free(v, n);
		return err;
	}
	if (!any) {
		srcfiles_free(v, n);
		return -ENOENT;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (i = j = 0; i < n; i++) {
		if (j && !strcmp(v[j - 1], v[i])) {
			free(v[i]);
			continue;
		}
		v[j++] = v[i];
	}
	*out = v;
	*nout = j;
	return 0;
}
