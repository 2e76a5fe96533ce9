// SPDX-License-Identifier: GPL-2.0-or-later
/* The team server's URL and token for the commands that talk to it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/config.h"
#include "cmd/remote.h"
#include "net/client.h"

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

int remote_ca(const char *cacert, const char *server, struct remote_ca *ca)
{
	const char *cfg = cmd_config_get("server.cacert", NULL);
	struct stat st;
	int fd;

	*ca = (struct remote_ca){0};
	if (cacert) {
		ca->file = cacert;
		ca->from = "--cacert";
	} else if (cfg && *cfg) {
		ca->file = cfg;
		ca->from = "server.cacert";
	} else if (!zt_http_ca_env(&ca->file, &ca->dir, &ca->from)) {
		return 0;
	}
	/* said now, not as libcurl's "error setting certificate file" after
	 * the recording is read; no matter for a plain http:// server */
	if (!ca->file || strncmp(server, "https://", 8))
		return 0;
	fd = open(ca->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cmd_error("cannot read the CA certificates '%s' (%s): %s", ca->file, ca->from,
			  strerror(errno));
		return ZT_EXIT_FAIL;
	}
	if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		close(fd);
		cmd_error("'%s' (%s) is a directory: give a PEM file of CA certificates (a "
			  "directory of hashed ones: SSL_CERT_DIR)",
			  ca->file, ca->from);
		return ZT_EXIT_FAIL;
	}
	close(fd);
	return 0;
}

int remote_tls_failed(int err, const char *server, const struct remote_ca *ca, const char *why)
{
	const char *what = ca->file ? ca->file : ca->dir, *hint;
	char with[PATH_MAX + 64] = "";

	switch (err) {
	case -EKEYREJECTED:
		/* libcurl's words say which check failed: a CA is the usual fix */
		if (strstr(why, "host name"))
			hint = "it is not for this host: give the server by a name or address its "
			       "certificate has";
		else if (strstr(why, "expired") || strstr(why, "not yet valid"))
			hint = "see its dates (and this machine's clock)";
		else if (what)
			hint = "give the CA that signed it with --cacert FILE";
		else
			hint = "give the CA with --cacert FILE (or SSL_CERT_FILE)";
		if (what)
			snprintf(with, sizeof(with), " with the CA certificates '%s' (%s)", what,
				 ca->from);
		cmd_error("cannot verify %s's certificate%s: %s: %s", server, with, why, hint);
		return REMOTE_EXIT_UNREACHABLE;
	case -ENOKEY:
		if (what)
			cmd_error("cannot use the CA certificates '%s' (%s): %s: %s", what,
				  ca->from, why, "give a PEM file of CA certificates");
		else
			cmd_error("cannot use the system's CA certificates: %s", why);
		return ZT_EXIT_FAIL;
	case -EPROTO:
		cmd_error("cannot set up TLS with %s: %s%s", server, why,
			  strstr(why, "wrong version number") ? ": is it an http:// server?" : "");
		return REMOTE_EXIT_UNREACHABLE;
	default:
		return 0;
	}
}

int remote_unreachable(int err)
{
	switch (err) {
	case -ECONNREFUSED:
	case -EHOSTUNREACH:
	case -ETIMEDOUT:
	case -ECONNRESET:
	case -EIO: /* libcurl's other failures of a transfer */
	case -EPROTO:
	case -EKEYREJECTED:
		return 1;
	default:
		return 0;
	}
}
