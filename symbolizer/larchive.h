/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libarchive, loaded when first needed (dlopen), not linked: linked, it
 * and what it needs (ICU, libxml2, nettle...) would load at the start of
 * every zt command. The functions zt uses, for zt archive files
 * (symbolizer/symarchive.h) and Debian packages (symbolizer/debpkg.h).
 */
#ifndef ZT_LARCHIVE_H
#define ZT_LARCHIVE_H

#include <archive.h>
#include <archive_entry.h>
#include <stddef.h>
#include <time.h>

struct zt_la {

	struct archive *(*write_new)(void);
	int (*write_add_filter_zstd)(struct archive *);
	int (*write_set_format_pax_restricted)(struct archive *);
	int (*write_open_fd)(struct archive *, int);
	int (*write_header)(struct archive *, struct archive_entry *);
	la_ssize_t (*write_data)(struct archive *, const void *, size_t);
	int (*write_close)(struct archive *);
	int (*write_free)(struct archive *);
	struct archive *(*read_new)(void);
	int (*read_support_filter_zstd)(struct archive *);
	int (*read_support_filter_none)(struct archive *);
	int (*read_support_format_tar)(struct archive *);
	int (*read_open_fd)(struct archive *, int, size_t);
	int (*read_open_memory)(struct archive *, const void *, size_t);
	int (*read_next_header)(struct archive *, struct archive_entry **);
	la_ssize_t (*read_data)(struct archive *, void *, size_t);
	int (*read_free)(struct archive *);
	int (*read_support_format_ar)(struct archive *);
	int (*read_support_filter_xz)(struct archive *);
	int (*read_support_filter_gzip)(struct archive *);
	int (*read_open)(struct archive *, void *, archive_open_callback *, archive_read_callback *,
			 archive_close_callback *);
	int (*read_data_skip)(struct archive *);
	const char *(*error_string)(struct archive *);
	struct archive_entry *(*entry_new)(void);
	void (*entry_free)(struct archive_entry *);
	void (*entry_set_pathname)(struct archive_entry *, const char *);
	void (*entry_set_size)(struct archive_entry *, la_int64_t);
	void (*entry_set_filetype)(struct archive_entry *, unsigned int);
	void (*entry_set_perm)(struct archive_entry *, __LA_MODE_T);
	void (*entry_set_mtime)(struct archive_entry *, time_t, long);
	const char *(*entry_pathname)(struct archive_entry *);
	__LA_MODE_T (*entry_filetype)(struct archive_entry *);
	la_int64_t (*entry_size)(struct archive_entry *);
	int (*entry_size_is_set)(struct archive_entry *);
	const char *(*entry_hardlink)(struct archive_entry *);
	const char *(*entry_symlink)(struct archive_entry *);
	int ok;
	char why[160];
};

/* The table: valid once zt_la_ready() said 0. */
extern struct zt_la zt_la;

/* Load libarchive (once): 0, or -ENOSYS with why in err. */
int zt_la_ready(char *err, size_t n);
/* a's last error, never NULL */
const char *zt_la_error(struct archive *a);

#endif
