// SPDX-License-Identifier: GPL-2.0-or-later
/* zt config: list, get, set and unset the keys of ~/.ztconfig and /etc/ztconfig. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/config.h"
#include "cmd/opts.h"
#include "libprof/asuser.h"

/* ---- zt config ----------------------------------------------------------------- */

static void list_keys(FILE *f)
{
	const struct cfg_key *k;

	fprintf(f, "the keys zt knows:\n");
	for (k = cfg_keys; k->key; k++)
		fprintf(f, "  %-24s %s\n", k->key, k->help);
}

/* The whole file at path (empty when there is none) into *text: not
 * through a symlink, and only a file of root, of this user or of also_uid
 * (zt config may run as root in someone's home). 0 or -errno. */
static int slurp(const char *path, uid_t also_uid, char **text, size_t *len)
{
	struct stat st;
	size_t n = 0;
	ssize_t k;
	char *buf;
	int fd;

	*text = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (off_t)ZT_CONFIG_MAX_FILE ||
	    (st.st_uid != 0 && st.st_uid != geteuid() && st.st_uid != also_uid)) {
		int e = !S_ISREG(st.st_mode)			 ? -EINVAL
			: st.st_size > (off_t)ZT_CONFIG_MAX_FILE ? -EFBIG
								 : -EPERM;

		close(fd);
		return e;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (n < (size_t)st.st_size && (k = read(fd, buf + n, (size_t)st.st_size - n)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			k = -errno;
			free(buf);
			close(fd);
			return (int)k;
		}
		n += (size_t)k;
	}
	close(fd);
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

/* text into path, through a temporary file renamed over it: mode, and the
 * sudo user's when user is set. 0, or -1 after a message. */
static int write_atomic(const char *path, const char *text, size_t len, mode_t mode,
			const struct zt_user *user)
{
	char tmp[PATH_MAX];
	size_t off = 0;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		cmd_error("'%s': the path is too long", path);
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		cmd_error("cannot create '%s': %s", tmp, strerror(errno));
		return -1;
	}
	while (off < len) {
		ssize_t k = write(fd, text + off, len - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			goto fail;
		off += (size_t)k;
	}
	if (fchmod(fd, mode) || (user && user->active && fchown(fd, user->uid, user->gid)) ||
	    fsync(fd))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path)) {
		cmd_error("cannot replace '%s': %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
fail:
	cmd_error("cannot write '%s': %s", tmp, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return -1;
}

/* key=value pairs (value NULL: --unset) into the file at path. */
static int set_keys(const char *path, int system, char **args, int n, int unset)
{
	char *text = NULL, *out, msg[512];
	size_t len, outlen;
	struct stat st;
	mode_t mode = 0644;
	struct zt_user u;
	int i, ret, changed, any = 0, secret = 0;

	zt_user_init(&u);
	ret = slurp(path, u.active ? u.uid : (uid_t)-1, &text, &len);
	if (ret == -ELOOP)
		cmd_error("'%s' is a symbolic link: zt config does not write through it: "
			  "edit its target by hand",
			  path);
	else if (ret == -EPERM)
		cmd_error("'%s' is owned by another user: not changed", path);
	else if (ret == -EINVAL)
		cmd_error("'%s' is not a regular file: not changed", path);
	else if (ret)
		cmd_error("cannot read '%s': %s", path, strerror(-ret));
	if (ret)
		return ZT_EXIT_FAIL;
	if (!lstat(path, &st))
		mode = st.st_mode & 0755; /* kept, but never writable by others */
	for (i = 0; i < n; i++) {
		char *eq = strchr(args[i], '='), key[256];
		const char *value = unset ? NULL : eq + 1;
		const struct cfg_key *k;

		snprintf(key, sizeof(key), "%.*s", (int)(eq ? eq - args[i] : (long)strlen(args[i])),
			 args[i]);
		k = cfg_key_find(key);
		if (!strcmp(k->key, "server.token") && value)
			secret = 1;
		/* written under its own name; perf's spellings of it removed */
		const char *names[3] = {k->key, k->alias, NULL};
		int j;

		if (!strcmp(k->key, "report.sort"))
			names[2] = "report.sort-order";
		for (j = 0; j < 3; j++) {
			if (!names[j])
				continue;
			ret = zt_config_edit(text ? text : "", text ? len : 0, names[j],
					     j ? NULL : value, &out, &outlen, &changed, msg,
					     sizeof(msg));
			if (ret) {
				cmd_error("'%s': %s: fix it by hand", path, msg);
				free(text);
				return ZT_EXIT_FAIL;
			}
			free(text);
			text = out;
			len = outlen;
			any |= changed;
		}
	}
	if (secret)
		mode &= 0700;
	if (any)
		ret = write_atomic(path, text, len, mode, system ? NULL : &u);
	free(text);
	return ret ? ZT_EXIT_FAIL : ZT_EXIT_OK;
}

static void print_item(const char *key, const char *value)
{
	/* a token is a secret: not on a terminal or in a log by accident */
	if (!strcmp(key, "server.token"))
		value = "(set)";
	printf("%s=%s\n", key, value);
}

static const char *const config_usage[] = {
	"zt config [--user | --system] -l | --list",
	"zt config [--user | --system] section.name[=value]...",
	"zt config [--user | --system] --unset section.name...",
	NULL,
};

/* zt config's options, and how many of its names set or unset */
struct config_args {
	int list, user, system, unset, nset;
};

static int config_parse_options(struct config_args *a, int argc, char **argv, int *rest)
{
	const struct opt opts[] = {
		{OPT_BOOL, 'l', "list", &a->list, NULL,
		 "show the settings of the files read, name=value"},
		{OPT_BOOL, 0, "user", &a->user, NULL, "read or write only ~/.ztconfig"},
		{OPT_BOOL, 0, "system", &a->system, NULL, "read or write only /etc/ztconfig"},
		{OPT_BOOL, 0, "unset", &a->unset, NULL, "remove the names given from the file"},
		OPT_EOL,
	};

	return opts_parse_permute("config", config_usage, opts, argc, argv, rest);
}

/* The options together, and each name (or name=value) of argv[rest..]:
 * ZT_EXIT_OK or ZT_EXIT_USAGE (the message shown). */
static int config_check_args(struct config_args *a, int argc, char **argv, int rest)
{
	char msg[512];
	int i;

	if (a->user && a->system) {
		cmd_error("--user and --system: choose one");
		return ZT_EXIT_USAGE;
	}
	if (!a->list && rest >= argc) {
		cmd_error("nothing to do: give -l, or section.name to show, or section.name=value "
			  "to set");
		return ZT_EXIT_USAGE;
	}
	if (a->list && rest < argc) {
		cmd_error("-l takes no names: give one or the other");
		return ZT_EXIT_USAGE;
	}
	for (i = rest; i < argc; i++) {
		char *eq = strchr(argv[i], '='), key[256];
		const struct cfg_key *k;

		if ((eq ? (size_t)(eq - argv[i]) : strlen(argv[i])) >= sizeof(key)) {
			cmd_error("'%.40s...': not a key", argv[i]);
			return ZT_EXIT_USAGE;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(eq ? eq - argv[i] : (long)strlen(argv[i])),
			 argv[i]);
		k = cfg_key_find(key);
		if (!k) {
			cmd_error("'%s' is not a key zt knows: see the list below, or zt-config(1)",
				  key);
			list_keys(stderr);
			return ZT_EXIT_USAGE;
		}
		if (eq && a->unset) {
			cmd_error("--unset takes names without '=value': '%s'", argv[i]);
			return ZT_EXIT_USAGE;
		}
		if (eq && cfg_check_value(k, eq + 1, msg, sizeof(msg))) {
			cmd_error("%s: %s", k->key, msg);
			return ZT_EXIT_USAGE;
		}
		a->nset += eq || a->unset;
	}
	if (a->nset && a->nset != argc - rest) {
		cmd_error("give names to show or name=value pairs to set, not both");
		return ZT_EXIT_USAGE;
	}
	return ZT_EXIT_OK;
}

/* The settings read (of path alone, or of every file when NULL) to stdout:
 * each key once with -l, else the names of argv[rest..] that are set. */
static void config_show(const struct config_args *a, const char *path, int argc, char **argv,
			int rest)
{
	const struct zt_config *c = cmd_config("config");
	struct zt_config only;
	char msg[512];
	int i, ret;

	zt_config_init(&only);
	if (path) {
		struct zt_user u;

		zt_user_init(&u);
		ret = strcmp(path, "/dev/null")
			      ? zt_config_read_file(&only, path, u.active ? u.uid : (uid_t)-1, msg,
						    sizeof(msg))
			      : 0;
		if (ret && ret != -ENOENT)
			cmd_warn("%s", msg);
		c = &only;
	}
	if (a->list) {
		size_t j, k;

		/* each key once, at its first place, with its last value */
		for (j = 0; j < c->nr; j++) {
			for (k = 0; k < j; k++)
				if (!strcmp(c->items[k].key, c->items[j].key))
					break;
			if (k == j)
				print_item(c->items[j].key, zt_config_get(c, c->items[j].key));
		}
	} else {
		for (i = rest; i < argc; i++) {
			const struct cfg_key *k = cfg_key_find(argv[i]);
			const char *v = NULL;
			size_t j;

			for (j = 0; j < c->nr; j++)
				if (!strcmp(c->items[j].key, argv[i]) ||
				    !strcmp(c->items[j].key, k->key) ||
				    (k->alias && !strcmp(c->items[j].key, k->alias)))
					v = c->items[j].value;
			if (v)
				print_item(argv[i], v);
		}
	}
	zt_config_release(&only);
}

int cmd_config_cmd(int argc, char **argv)
{
	struct config_args a = {0};
	char upath[PATH_MAX];
	const char *path = NULL;
	int rest, ret;

	ret = config_parse_options(&a, argc, argv, &rest);
	cmd_setup("config", 0);
	if (ret == OPTS_HELP)
		return ZT_EXIT_OK;
	if (ret == OPTS_ERROR)
		return ZT_EXIT_USAGE;
	ret = config_check_args(&a, argc, argv, rest);
	if (ret != ZT_EXIT_OK)
		return ret;
	if (a.system)
		path = getenv("ZT_CONFIG") && *getenv("ZT_CONFIG") ? getenv("ZT_CONFIG")
								   : CMD_SYSTEM_CONFIG;
	else if (a.user || a.nset)
		path = getenv("ZT_CONFIG") && *getenv("ZT_CONFIG")
			       ? getenv("ZT_CONFIG")
			       : cmd_config_user_path(upath, sizeof(upath));
	if ((a.user || a.nset) && !path) {
		cmd_error("no home directory: set HOME");
		return ZT_EXIT_FAIL;
	}
	if (a.nset) {
		if (!strcmp(path, "/dev/null")) {
			cmd_error("ZT_CONFIG is /dev/null: nothing to write to");
			return ZT_EXIT_FAIL;
		}
		return set_keys(path, a.system, argv + rest, argc - rest, a.unset);
	}
	/* reading: one file, or all */
	config_show(&a, path, argc, argv, rest);
	return ZT_EXIT_OK;
}
