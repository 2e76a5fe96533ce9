// SPDX-License-Identifier: GPL-2.0-or-later
/* The team server's URL and token for the commands that talk to it. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/config.h"
#include "cmd/remote.h"

int remote_scrub_token(int argc, char **argv, struct remote_args *a)
{
	static const char name[] = "--token";
	int i;

	a->nr_dups = 0;
	a->dups = calloc((size_t)argc + 1, sizeof(*a->dups));
	if (!a->dups)
		return -ENOMEM;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq;
		size_t k;
		char *d;

		if (!strcmp(arg, "--"))
			break;
		if (strncmp(arg, "--tok", 5))
			continue;
		eq = strchr(arg, '=');
		k = eq ? (size_t)(eq - arg) : strlen(arg);
		if (k > sizeof(name) - 1 || strncmp(arg, name, k))
			continue; /* not a prefix of --token */
		if (eq) {
			d = strdup(arg);
			explicit_bzero(argv[i] + k + 1, strlen(eq + 1));
			if (d) /* else the option is left empty: refused later */
				argv[i] = a->dups[a->nr_dups++] = d;
		} else if (i + 1 < argc) {
			d = strdup(argv[i + 1]);
			explicit_bzero(argv[i + 1], strlen(argv[i + 1]));
			if (d)
				argv[i + 1] = a->dups[a->nr_dups++] = d;
			i++;
		}
	}
	return 0;
}

void remote_args_release(struct remote_args *a)
{
	int i;

	for (i = 0; i < a->nr_dups; i++) {
		explicit_bzero(a->dups[i], strlen(a->dups[i]));
		free(a->dups[i]);
	}
	free(a->dups);
	a->dups = NULL;
	a->nr_dups = 0;
}

int remote_settings(const char **server, const char **token, struct push_config *cfg,
		    const char *what)
{
	char path[PATH_MAX], msg[PATH_MAX + 256];
	int ret;

	if (!*server && getenv("ZT_SERVER") && *getenv("ZT_SERVER"))
		*server = getenv("ZT_SERVER");
	if (!*token && getenv("ZT_TOKEN") && *getenv("ZT_TOKEN"))
		*token = getenv("ZT_TOKEN");
	/* then ~/.ztconfig (or /etc/ztconfig), then the older ~/.config/zt/config */
	if (!*server)
		*server = cmd_config_get("server.url", NULL);
	if (!*token)
		*token = cmd_config_token();
	if ((!*server || !*token) && !push_config_path(path, sizeof(path))) {
		ret = push_config_read(path, cfg, msg, sizeof(msg));
		if (ret && ret != -ENOENT) {
			cmd_error("%s", msg);
			return ZT_EXIT_FAIL;
		}
		if (!*server)
			*server = cfg->server;
		if (!*token)
			*token = cfg->token;
	}
	if (!*server || !**server) {
		cmd_error("no server: give --server URL, set ZT_SERVER, or run 'zt config "
			  "server.url=URL'");
		return ZT_EXIT_USAGE;
	}
	if (!*token)
		cmd_warn("no token (--token, ZT_TOKEN or 'zt config server.token=T'): the "
			 "server may refuse %s", what);
	return 0;
}
