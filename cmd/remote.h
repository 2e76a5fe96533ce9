/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the commands that talk to a team server share (zt push, zt symbols
 * upload): the --token value kept out of /proc/PID/cmdline, the server
 * URL and token from the options, then ZT_SERVER and ZT_TOKEN, then the
 * configuration file; the CA certificates that verify an https server,
 * and what a connection that failed is told as.
 */
#ifndef ZT_CMD_REMOTE_H
#define ZT_CMD_REMOTE_H

#include "net/push.h"

/* The remote settings of a command. */
struct remote_args {
	char **dups; /* copies of --token values (wiped and freed by remote_args_release) */
	int nr_dups;
};

/*
 * --token T would be in /proc/PID/cmdline for as long as zt runs: its value
 * is copied off and its bytes in argv zeroed before anything else (the
 * option parser then sees the copy). Returns 0 or -ENOMEM.
 */
int remote_scrub_token(int argc, char **argv, struct remote_args *a);
void remote_args_release(struct remote_args *a);

/*
 * *server and *token as given (NULL when not), completed from ZT_SERVER,
 * ZT_TOKEN, then the configuration file (read only when one is still
 * missing; cfg keeps its strings). what names the request for the
 * no-token warning ("the push"). Returns 0, or an exit code after a
 * message (no server: ZT_EXIT_USAGE; an unsafe or bad config file:
 * ZT_EXIT_FAIL).
 */
int remote_settings(const char **server, const char **token, struct push_config *cfg,
		    const char *what);

/* The exit code of zt push and zt symbols upload when the server cannot be
 * reached: refused, not resolved, timed out, reset, TLS failed, or its
 * certificate not verified. */
enum { REMOTE_EXIT_UNREACHABLE = 4 };

/* The CA certificates that verify an https server (what zt_http_opts takes). */
struct remote_ca {
	const char *file; /* a PEM file, or NULL */
	const char *dir;  /* a directory of hashed certificates (SSL_CERT_DIR), or NULL */
	const char *from; /* where they were named: "--cacert", "server.cacert", the
			     environment variable; NULL: none, libcurl's (the system's) */
};

/*
 * ca from --cacert (cacert, or NULL), else server.cacert of the
 * configuration, else the environment (zt_http_ca_env(): CURL_CA_BUNDLE,
 * else SSL_CERT_FILE and SSL_CERT_DIR), else none. The file named is
 * checked when server is an https:// URL. Returns 0, or ZT_EXIT_FAIL
 * after a message naming it (cannot be opened, a directory).
 */
int remote_ca(const char *cacert, const char *server, struct remote_ca *ca);

/*
 * A request to server that failed with err (a zt_http_request() errno, why
 * its words) at TLS: said plainly, with what to do ("cannot verify URL's
 * certificate: WHY: give the CA with --cacert FILE (or SSL_CERT_FILE)"),
 * and its exit code returned: REMOTE_EXIT_UNREACHABLE, or ZT_EXIT_FAIL for
 * CA certificates that cannot be used (-ENOKEY). Any other err: 0, nothing
 * said.
 */
int remote_tls_failed(int err, const char *server, const struct remote_ca *ca, const char *why);

/* Whether err (a zt_http_request() errno) means the server could not be
 * reached (REMOTE_EXIT_UNREACHABLE): a connection, transfer, TLS or
 * certificate failure. */
int remote_unreachable(int err);

#endif
