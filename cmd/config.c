// SPDX-License-Identifier: GPL-2.0-or-later
/* The keys zt knows and loading /etc/ztconfig and ~/.ztconfig (the command is cmd/config_cmd.c). */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/config.h"
#include "libprof/asuser.h"
#include "libprof/hist.h"

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
	{"server.cacert", NULL, CFG_READ, CFG_STRING, NULL, NULL,
	 "the CA certificates (a PEM file) that verify its https certificate, when --cacert is not "
	 "given (before CURL_CA_BUNDLE and SSL_CERT_FILE)"},
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

const char *cmd_config_user_path(char *buf, size_t n)
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
	load_one(cmd, CMD_SYSTEM_CONFIG, (uid_t)-1);
	if (cmd_config_user_path(path, sizeof(path)))
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
