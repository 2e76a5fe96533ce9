/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt's configuration (perf's perfconfig): /etc/ztconfig, then ~/.ztconfig
 * (a later value wins), or only $ZT_CONFIG when it is set (/dev/null: no
 * file). The keys zt knows, what each sets, and the loaded configuration
 * that the option parser (cmd/opts.c) and a few commands read. It does not
 * depend on cmd/opts.h: the command zt config (cmd/config_cmd.c) does.
 */
#ifndef ZT_CMD_CONFIG_H
#define ZT_CMD_CONFIG_H

#include "libprof/config.h"

#define CMD_SYSTEM_CONFIG "/etc/ztconfig"

/* What a key does. */
enum cfg_kind {
	CFG_OPTION, /* the default of a long option (opt) of command cmd ("*": any that has it) */
	CFG_GMODE,  /* the --call-graph mode that -g of cmd stands for (perf's record.call-graph) */
	CFG_READ,   /* read where it is used (server URL and token, colors, ...) */
};

enum cfg_type { CFG_STRING, CFG_BOOL, CFG_NUMBER, CFG_SORT, CFG_COLOR, CFG_CGMODE };

struct cfg_key {
	const char *key;   /* canonical name */
	const char *alias; /* perf's spelling, or NULL */
	enum cfg_kind kind;
	enum cfg_type type;
	const char *cmd, *opt;
	const char *help;
	const char *unless; /* CFG_OPTION: not applied when this option is on the command line */
};

/* The table, ended by an entry with key NULL. */
extern const struct cfg_key cfg_keys[];

/* The entry of key or of its alias, or NULL. */
const struct cfg_key *cfg_key_find(const char *key);

/* Check value for k; 0, or -1 with a reason in msg. */
int cfg_check_value(const struct cfg_key *k, const char *value, char *msg, size_t n);

/*
 * The configuration, loaded on the first call: files that are unsafe or do
 * not parse are left out with a warning "zt CMD: warning: ..." (cmd names
 * the command). Never NULL; lives until exit.
 */
const struct zt_config *cmd_config(const char *cmd);

/* The value of key (canonical or alias; the later file wins), or NULL; *it
 * (may be NULL) gets its item. */
const char *cmd_config_get(const char *key, const struct zt_config_item **it);

/* ~/.ztconfig (of $HOME, else of the passwd entry) into buf; NULL when
 * there is no home or it does not fit. */
const char *cmd_config_user_path(char *buf, size_t n);

/* Where the item came from ("/etc/ztconfig:3"), into buf. */
const char *cmd_config_where(const struct zt_config_item *it, char *buf, size_t n);

/* Whether the item's file is private (no permission for group or others):
 * secrets (server.token) are taken only from such a file. */
int cmd_config_private(const struct zt_config_item *it);

/* server.token when it comes from a private file, else NULL (with a
 * warning, once, when a file that others may read holds one). */
const char *cmd_config_token(void);

#endif
