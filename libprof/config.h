/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Configuration files in perf's perfconfig syntax (itself git's):
 *
 *	# a comment; so is ';'
 *	[report]
 *		children = false
 *		sort = "dso,sym"	; quoted values keep '#', ';' and blanks
 *
 * Keys are "section.name", case-insensitive (kept lowercase). A name alone
 * on its line means "true"; a '\' at the end of a value continues it on the
 * next line; in a value, \" \\ \n \t and \b are escapes. Never prints.
 */
#ifndef ZT_CONFIG_H
#define ZT_CONFIG_H

#include <stddef.h>
#include <sys/types.h>

#define ZT_CONFIG_MAX_FILE  (1u << 20) /* bytes of one file */
#define ZT_CONFIG_MAX_VALUE 4096       /* bytes of one value */
#define ZT_CONFIG_MAX_ITEMS 10000      /* items of one config */

struct zt_config_item {
	char *key;	   /* "section.name", lowercase; owned */
	char *value;	   /* owned */
	int file;	   /* index into the config's files, or -1 (parsed from memory) */
	int lineno;	   /* of the name */
	size_t start, end; /* the item's bytes in its text, line ends included */
};

struct zt_config_file {
	char *path;  /* owned */
	mode_t mode; /* permission bits when read */
	uid_t uid;
};

struct zt_config {
	struct zt_config_item *items; /* in file order; a later item of a key wins */
	size_t nr, cap;
	struct zt_config_file *files;
	size_t nr_files;
};

void zt_config_init(struct zt_config *c);
void zt_config_release(struct zt_config *c);

/*
 * Parse text (len bytes, need not be NUL-terminated) and append its items
 * to c, with file as their file index. Returns 0; -EBADMSG with msg
 * "NAME:LINE: what is wrong" (name names the text in it; c keeps the
 * items before the bad line); -E2BIG past the caps above; -ENOMEM.
 */
int zt_config_parse(struct zt_config *c, const char *text, size_t len, const char *name, int file,
		    char *msg, size_t msglen);

/*
 * Read and parse the file at path. zt runs as root, so the file is used
 * only when it is a regular file owned by root, by this user or by
 * also_uid (the sudo user; (uid_t)-1 for none), and writable by nobody
 * else (no group or other write bit). Returns 0; -ENOENT (no such file: no
 * message); -EPERM (msg says why and how to fix it); the errors of
 * zt_config_parse() (then none of the file's items are kept); other
 * -errno with msg.
 */
int zt_config_read_file(struct zt_config *c, const char *path, uid_t also_uid, char *msg,
			size_t msglen);

/* The last item of key, or NULL. */
const struct zt_config_item *zt_config_find(const struct zt_config *c, const char *key);
/* Its value, or NULL. */
const char *zt_config_get(const struct zt_config *c, const char *key);

/* perf's booleans: true/yes/on/1 and false/no/off/0 (any case); 1, 0, or
 * -EINVAL for anything else. */
int zt_config_bool(const char *value);

/* Whether key is "section.name" with a section and a name of [a-z0-9_-]
 * (the section may also hold '.'): 1 or 0. */
int zt_config_key_ok(const char *key);

/*
 * The text of a config file with key set to value (value NULL: every item
 * of key removed). The rest of the text, comments included, is kept: the
 * last item of key is rewritten in place (earlier ones removed), else the
 * item is added at the end of the key's last [section], else a new
 * [section] is added at the end. *out is malloc'ed and NUL-terminated.
 * Returns 0 (*changed says whether a removal found anything), -EBADMSG if
 * text does not parse (msg says where), -EINVAL for a bad key or a value
 * with a control character other than tab, -ENOMEM.
 */
int zt_config_edit(const char *text, size_t len, const char *key, const char *value, char **out,
		   size_t *outlen, int *changed, char *msg, size_t msglen);

#endif
