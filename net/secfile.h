/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small files that hold a secret (zt push's configuration with its token,
 * zt serve's S3 keys): read only when they are safe, and parsed as
 * "key = value" lines. Never prints: errors are negative errnos with a
 * sentence in the caller's buffer that never quotes the file's content.
 */
#ifndef ZT_NET_SECFILE_H
#define ZT_NET_SECFILE_H

#include <stddef.h>

/*
 * The whole file at path into *text (NUL-terminated, *len bytes; the
 * caller releases it with zt_secfile_free(), which wipes it), when it is a
 * regular file opened without following a symlink, owned by this user,
 * with no permission for group or others, and at most max bytes. what
 * names the secret in the messages ("a token", "S3 keys").
 * Returns 0; -ENOENT (no such file: no message); -EPERM (not safe: msg says
 * what and to run chmod 600); -EFBIG; -ENOMEM; other -errno from reading.
 */
int zt_secfile_read(const char *path, const char *what, size_t max, char **text, size_t *len,
		    char *msg, size_t msglen);
void zt_secfile_free(char *text, size_t len); /* accepts NULL */

/*
 * The next "key = value" line of text, parsed in place: *cursor starts at
 * the text and moves on, *lineno counts lines (start it at 0). Blank lines
 * and lines starting with '#' are skipped; key and value are trimmed of
 * blanks (a value may be empty). Returns 1 with *key and *val set, 0 at
 * the end, -EBADMSG for a line without '=' (*lineno is its number).
 */
int zt_secfile_next(char **cursor, int *lineno, char **key, char **val);

#endif
