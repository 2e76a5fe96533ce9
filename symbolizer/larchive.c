// SPDX-License-Identifier: GPL-2.0-or-later
/* libarchive, loaded when first needed: see larchive.h. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "symbolizer/larchive.h"

struct zt_la zt_la;
static pthread_once_t la_once = PTHREAD_ONCE_INIT;

static void la_load(void)
{

	void *h = dlopen("libarchive.so.13", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(zt_la.why, sizeof(zt_la.why),
			 "cannot load libarchive (libarchive.so.13): install the Debian package "
			 "'libarchive13'");
		return;
	}
#define LA(field, name)                                                                        \
	do {                                                                                   \
		*(void **)&zt_la.field = dlsym(h, name);                                          \
		if (!zt_la.field) {                                                               \
			snprintf(zt_la.why, sizeof(zt_la.why), "libarchive.so.13 lacks %s: too old", \
				 name);                                                        \
			return;                                                                \
		}                                                                              \
	} while (0)
	LA(write_new, "archive_write_new");
	LA(write_add_filter_zstd, "archive_write_add_filter_zstd");
	LA(write_set_format_pax_restricted, "archive_write_set_format_pax_restricted");
	LA(write_open_fd, "archive_write_open_fd");
	LA(write_header, "archive_write_header");
	LA(write_data, "archive_write_data");
	LA(write_close, "archive_write_close");
	LA(write_free, "archive_write_free");
	LA(read_new, "archive_read_new");
	LA(read_support_filter_zstd, "archive_read_support_filter_zstd");
	LA(read_support_filter_none, "archive_read_support_filter_none");
	LA(read_support_format_tar, "archive_read_support_format_tar");
	LA(read_open_fd, "archive_read_open_fd");
	LA(read_open_memory, "archive_read_open_memory");
	LA(read_next_header, "archive_read_next_header");
	LA(read_data, "archive_read_data");
	LA(read_free, "archive_read_free");
	LA(read_support_format_ar, "archive_read_support_format_ar");
	LA(read_support_filter_xz, "archive_read_support_filter_xz");
	LA(read_support_filter_gzip, "archive_read_support_filter_gzip");
	LA(read_open, "archive_read_open");
	LA(read_data_skip, "archive_read_data_skip");
	LA(error_string, "archive_error_string");
	LA(entry_new, "archive_entry_new");
	LA(entry_free, "archive_entry_free");
	LA(entry_set_pathname, "archive_entry_set_pathname");
	LA(entry_set_size, "archive_entry_set_size");
	LA(entry_set_filetype, "archive_entry_set_filetype");
	LA(entry_set_perm, "archive_entry_set_perm");
	LA(entry_set_mtime, "archive_entry_set_mtime");
	LA(entry_pathname, "archive_entry_pathname");
	LA(entry_filetype, "archive_entry_filetype");
	LA(entry_size, "archive_entry_size");
	LA(entry_size_is_set, "archive_entry_size_is_set");
	LA(entry_hardlink, "archive_entry_hardlink");
	LA(entry_symlink, "archive_entry_symlink");
#undef LA
	zt_la.ok = 1; /* the handle stays open for the process's life */
}

int zt_la_ready(char *err, size_t n)
{
	pthread_once(&la_once, la_load);
	if (zt_la.ok)
		return 0;
	snprintf(err, n, "%s", zt_la.why);
	return -ENOSYS;
}

const char *zt_la_error(struct archive *a)
{
	const char *s = a ? zt_la.error_string(a) : NULL;

	return s ? s : "unknown libarchive error";
}

