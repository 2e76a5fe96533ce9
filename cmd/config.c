// SPDX-License-Identifier: GPL-2.0-or-later
/* zt config: the keys zt knows, loading /etc/ztconfig and ~/.ztconfig, and the command. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/config.h"
#include "cmd/opts.h"
#include "libprof/asuser.h"
#include "libprof/hist.h"

#define SYSTEM_CONFIG "/etc/ztconfig"

const struct cfg_key cfg_keys[] = {
	{"report.children", NULL, CFG_OPTION, CFG_BOOL, "report", "children",
	 "Children (callees included) next to Self when the recording has call graphs (default "
	 "true)"},
	{"report.sort", "report.sort_order", CFG_OPTION, CFG_SORT, "report", "sort",
	 "sort keys of zt report (default comm,dso,sym)"},
	{"report.call-graph", NULL, CFG_OPTION, CFG_STRING, "report", "call-graph",
	 "zt report's -g: graph, flat, folded, fractal or none, min%, caller|callee, ..."},
	{"report.percent-limit", NULL, CFG_OPTION, CFG_NUMBER, "report", "percent-limit",
	 "hide report entries below this overhead percentage"},
	{"call-graph.print-type", NULL, CFG_READ, CFG_STRING, "report", NULL,
	 "zt report's call chains: graph, flat, folded, fractal or none (when report.call-graph is "
	 "not set)"},
	{"call-graph.order", NULL, CFG_READ, CFG_STRING, "report", NULL,
	 "zt report's call chain order: caller or callee"},
	{"call-graph.threshold", NULL, CFG_READ, CFG_NUMBER, "report", NULL,
	 "zt report: call chains below this percentage are left out (default 0.5)"},
	{"call-graph.print-limit", NULL, CFG_READ, CFG_NUMBER, "report", NULL,
	 "zt report: at most this many call chains per entry (default 0: all)"},
	{"call-graph.record-mode", NULL, CFG_READ, CFG_CGMODE, "record", NULL,
	 "what -g of zt record records: fp or dwarf (record.call-graph wins)"},
	{"call-graph.dump-size", NULL, CFG_READ, CFG_NUMBER, "record", NULL,
	 "bytes of user stack per sample for dwarf call graphs (default 8192)"},
	{"record.freq", NULL, CFG_OPTION, CFG_STRING, "record", "freq",
	 "zt record's -F: sampling frequency in Hz, or max (default 4000)", "count"},
	{"record.call-graph", NULL, CFG_GMODE, CFG_CGMODE, "record", "call-graph",
	 "the call graph zt record -g records: fp or dwarf[,size] (perf's record.call-graph)"},
	{"top.children", NULL, CFG_OPTION, CFG_BOOL, "top", "children",
	 "zt top: Children next to Self with -g"},
	{"top.call-graph", NULL, CFG_GMODE, CFG_CGMODE, "top", "call-graph",
	 "the call graph zt top -g samples: fp"},
	{"symbols.symfs", NULL, CFG_OPTION, CFG_STRING, "*", "symfs",
	 "--symfs of every command that reads symbols: look for binaries and debug files under "
	 "DIR"},
	{"symbols.debug-dir", NULL, CFG_OPTION, CFG_STRING, "*", "debug-dir",
	 "--debug-dir: also look for debug files in DIR"},
	{"symbols.debuginfod", NULL, CFG_READ, CFG_STRING, "*", "debuginfod",
	 "false: do not ask debuginfod servers (--no-debuginfod); or the servers' URLs, used when "
	 "DEBUGINFOD_URLS is not set"},
	{"symbols.cache", NULL, CFG_OPTION, CFG_BOOL, "*", "symbol-cache",
	 "false: neither read nor write the GSYM cache (--no-symbol-cache)"},
	{"symbols.symdb", NULL, CFG_READ, CFG_STRING, NULL, NULL,
	 "the team symbol database (zt serve URL) of --symdb, when ZT_SYMDB is not set"},
	{"server.url", NULL, CFG_READ, CFG_STRING, NULL, NULL,
	 "the team server of zt push and zt symbols upload, when ZT_SERVER is not set"},
	{"server.token", NULL, CFG_READ, CFG_STRING, NULL, NULL,
	 "its token, when ZT_TOKEN is not set; used only from a file of mode 600"},
	{"colors.top", NULL, CFG_READ, CFG_COLOR, NULL, NULL,
	 "TUI color of overheads of 5% and more: FG, BG (default red, default)"},
	{"colors.medium", NULL, CFG_READ, CFG_COLOR, NULL, NULL,
	 "TUI color of overheads of 0.5% and more (default green, default)"},
	{"colors.normal", NULL, CFG_READ, CFG_COLOR, NULL, NULL,
	 "TUI color of everything else (default default, default)"},
	{"colors.selected", NULL, CFG_READ, CFG_COLOR, NULL, NULL,
	 "TUI color of the line under the cursor (default black, yellow)"},
	{"colors.root", NULL, CFG_READ, CFG_COLOR, NULL, NULL,
	 "TUI color of the title and status bars (default white, blue)"},
	{NULL},
};

const struct cfg_key *cfg_key_find(const char *key)
{
	const struct cfg_key *k;

	for (k = cfg_keys; k->key; k++)
		if (!strcmp(k->key, key) || (k->alias && !strcmp(k->alias, key)))
			return k;
	/* perf writes report.sort_order; its manual also says sort-order */
	if (!strcmp(key, "report.sort-order"))
		return cfg_key_find("report.sort");
	return NULL;
}

static const char *const color_names[] = {"default", "black",	  "red",     "green",
					  "yellow",  "blue",	  "magenta", "cyan",
					  "white",   "lightgray", "gray",    NULL};

static int color_ok(const char *s, size_t n)
{
	int i;

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (i = 0; color_names[i]; i++)
		if (strlen(color_names[i]) == n && !strncmp(color_names[i], s, n))
			return 1;
	return 0;
}

int cfg_check_value(const struct cfg_key *k, const char *v, char *msg, size_t n)
{
	char *end;

	switch (k->type) {
	case CFG_BOOL:
		if (zt_config_bool(v) < 0) {
			snprintf(msg, n, "'%s' is not a boolean: use true or false", v);
			return -1;
		}
		return 0;
	case CFG_NUMBER:
		errno = 0;
		if (strtod(v, &end) < 0 || end == v || *end || errno) {
			snprintf(msg, n, "'%s' is not a number", v);
			return -1;
		}
		return 0;
	case CFG_SORT: {
		char *list = strdup(v), *tok, *save = NULL;
		int ret = 0, nr = 0;

		if (!list)
			return -1;
		for (tok = strtok_r(list, ", ", &save); tok;
		     tok = strtok_r(NULL, ", ", &save), nr++) {
			enum hist_key hk;

			if (hist_key_parse(tok, &hk)) {
				snprintf(msg, n,
					 "'%s' is not a sort key: use comm, pid, tid, tgid, dso, "
					 "sym, srcline, cpu or symq",
					 tok);
				ret = -1;
				break;
			}
		}
		if (!ret && !nr) {
			snprintf(msg, n, "no sort key");
			ret = -1;
		}
		free(list);
		return ret;
	}
	case CFG_COLOR: {
		const char *comma = strchr(v, ',');

		if (!comma || !color_ok(v, (size_t)(comma - v)) ||
		    !color_ok(comma + 1, strlen(comma + 1))) {
			snprintf(msg, n,
				 "'%s' is not 'FOREGROUND, BACKGROUND': colors are default, black, "
				 "red, green, "
				 "yellow, blue, magenta, cyan, white, lightgray and gray",
				 v);
			return -1;
		}
		return 0;
	}
	case CFG_CGMODE:
		if (strcmp(v, "fp") && strcmp(v, "dwarf") && strncmp(v, "dwarf,", 6)) {
			snprintf(msg, n, "'%s' is not a call graph mode: use fp or dwarf", v);
			return -1;
		}
		return 0;
	case CFG_STRING:
		break;
	}
	if (!strcmp(k->key, "symbols.debuginfod") && !*v) {
		snprintf(msg, n, "an empty value: use false, or the servers' URLs");
		return -1;
	}
	return 0;
}

/* ---- loading ------------------------------------------------------------------- */

static struct zt_config config;
static int loaded;

/* ~/.ztconfig into buf; NULL when there is no home. */
static const char *user_path(char *buf, size_t n)
{
	const char *home = getenv("HOME");
	struct passwd *pw;
	int k;

	if (!home || !*home) {
		pw = getpwuid(geteuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || !*home)
		return NULL;
	k = snprintf(buf, n, "%s/.ztconfig", strcmp(home, "/") ? home : "");
	return k < 0 || (size_t)k >= n ? NULL : buf;
}

static void load_one(const char *cmd, const char *path, uid_t sudo_uid)
{
	char msg[PATH_MAX + 256];
	int ret;

	if (!strcmp(path, "/dev/null"))
		return;
	ret = zt_config_read_file(&config, path, sudo_uid, msg, sizeof(msg));
	if (ret && ret != -ENOENT)
		fprintf(stderr, "zt %s: warning: %s\n", cmd, msg);
}

const struct zt_config *cmd_config(const char *cmd)
{
	const char *env = getenv("ZT_CONFIG");
	char path[PATH_MAX];
	struct zt_user u;

	if (loaded)
		return &config;
	loaded = 1;
	zt_config_init(&config);
	zt_user_init(&u);
	if (env && *env) {
		load_one(cmd, env, u.active ? u.uid : (uid_t)-1);
		return &config;
	}
	load_one(cmd, SYSTEM_CONFIG, (uid_t)-1);
	if (user_path(path, sizeof(path)))
		load_one(cmd, path, u.active ? u.uid : (uid_t)-1);
	return &config;
}

const char *cmd_config_get(const char *key, const struct zt_config_item **out)
{
	const struct zt_config *c = cmd_config("config");
	const struct cfg_key *k = cfg_key_find(key);
	const struct zt_config_item *best = NULL, *it;
	size_t i;

	/* the later of the canonical name and perf's alias */
	for (i = 0; i < c->nr; i++) {
		it = &c->items[i];
		if (!strcmp(it->key, key) ||
		    (k &&
		     (!strcmp(it->key, k->key) || (k->alias && !strcmp(it->key, k->alias)) ||
		      (!strcmp(k->key, "report.sort") && !strcmp(it->key, "report.sort-order")))))
			best = it;
	}
	if (out)
		*out = best;
	return best ? best->value : NULL;
}

const char *cmd_config_where(const struct zt_config_item *it, char *buf, size_t n)
{
	if (it->file >= 0 && (size_t)it->file < config.nr_files)
		snprintf(buf, n, "%s:%d", config.files[it->file].path, it->lineno);
	else
		snprintf(buf, n, "line %d", it->lineno);
	return buf;
}

int cmd_config_private(const struct zt_config_item *it)
{
	return it->file >= 0 && (size_t)it->file < config.nr_files &&
	       !(config.files[it->file].mode & 077);
}

const char *cmd_config_token(void)
{
	static int warned;
	const struct zt_config_item *it;
	const char *v = cmd_config_get("server.token", &it);
	char where[PATH_MAX + 32];

	if (!v || !*v)
		return NULL;
	if (cmd_config_private(it))
		return v;
	if (!warned++)
		cmd_warn("server.token in %s is not used: others may read that file: run 'chmod "
			 "600' on it",
			 cmd_config_where(it, where, sizeof(where)));
	return NULL;
}

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

int cmd_config_cmd(int argc, char **argv)
{
	int list = 0, user = 0, system = 0, unset = 0, rest, i, nset = 0, ret;
	char upath[PATH_MAX], msg[512];
	const char *path = NULL;
	const struct opt opts[] = {
		{OPT_BOOL, 'l', "list", &list, NULL,
		 "show the settings of the files read, name=value"},
		{OPT_BOOL, 0, "user", &user, NULL, "read or write only ~/.ztconfig"},
		{OPT_BOOL, 0, "system", &system, NULL, "read or write only /etc/ztconfig"},
		{OPT_BOOL, 0, "unset", &unset, NULL, "remove the names given from the file"},
		OPT_EOL,
	};
	struct zt_config only;
	const struct zt_config *c;

	ret = opts_parse_permute("config", config_usage, opts, argc, argv, &rest);
	cmd_setup("config", 0);
	if (ret == OPTS_HELP)
		return ZT_EXIT_OK;
	if (ret == OPTS_ERROR)
		return ZT_EXIT_USAGE;
	if (user && system) {
		cmd_error("--user and --system: choose one");
		return ZT_EXIT_USAGE;
	}
	if (!list && rest >= argc) {
		cmd_error("nothing to do: give -l, or section.name to show, or section.name=value "
			  "to set");
		return ZT_EXIT_USAGE;
	}
	if (list && rest < argc) {
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
		if (eq && unset) {
			cmd_error("--unset takes names without '=value': '%s'", argv[i]);
			return ZT_EXIT_USAGE;
		}
		if (eq && cfg_check_value(k, eq + 1, msg, sizeof(msg))) {
			cmd_error("%s: %s", k->key, msg);
			return ZT_EXIT_USAGE;
		}
		nset += eq || unset;
	}
	if (nset && nset != argc - rest) {
		cmd_error("give names to show or name=value pairs to set, not both");
		return ZT_EXIT_USAGE;
	}
	if (system)
		path = getenv("ZT_CONFIG") && *getenv("ZT_CONFIG") ? getenv("ZT_CONFIG")
								   : SYSTEM_CONFIG;
	else if (user || nset)
		path = getenv("ZT_CONFIG") && *getenv("ZT_CONFIG")
			       ? getenv("ZT_CONFIG")
			       : user_path(upath, sizeof(upath));
	if ((user || nset) && !path) {
		cmd_error("no home directory: set HOME");
		return ZT_EXIT_FAIL;
	}
	if (nset) {
		if (!strcmp(path, "/dev/null")) {
			cmd_error("ZT_CONFIG is /dev/null: nothing to write to");
			return ZT_EXIT_FAIL;
		}
		return set_keys(path, system, argv + rest, argc - rest, unset);
	}
	/* reading: one file, or all */
	c = cmd_config("config");
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
	if (list) {
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
	return ZT_EXIT_OK;
}
