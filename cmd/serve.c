/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zt serve: the team server (HTTP API v1 and web page over the embedded store), and its tokens. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "libprof/units.h"
#include "net/secfile.h"
#include "server/chstore.h"
#include "server/httpd.h"
#include "server/route.h"
#include "server/store.h"
#include "server/token.h"
#include "server/s3store.h"
#include "symbolizer/debuginfod.h"

#define DEFAULT_DIR    "zt-serve"
#define DEFAULT_LISTEN "127.0.0.1:7070"
#define STOP_GRACE_MS  30000

static const char *const serve_usage[] = {
	"zt serve [--listen HOST:PORT] [--data-dir DIR] [--public-read] [<options>]",
	"zt serve token create --scope push|symbols|read|admin[,...] [--name NAME] [--data-dir "
	"DIR]",
	"zt serve token import --scope push|symbols|read|admin[,...] [--name NAME] [--data-dir "
	"DIR] < TOKEN",
	"zt serve token list [--data-dir DIR]",
	"zt serve token revoke NAME|ID [--data-dir DIR]",
	NULL,
};

/* "512M", "1GiB", "4096": bytes, not 0. 0 or -1. */
static int parse_size(const char *s, uint64_t *out)
{
	return zt_parse_size(s, ZT_SIZE_LONG_UNIT, out) || !*out ? -1 : 0;
}

/* A PEM file's contents (at most 1 MiB), or NULL with a message shown. */
static char *read_pem(const char *path, const char *what)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t got = 0;

	if (fd < 0) {
		cmd_error("cannot open the TLS %s '%s': %s", what, path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > (1 << 20)) {
		cmd_error("the TLS %s '%s' is not a PEM file (a regular file under 1 MiB)", what,
			  path);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			cmd_error("cannot read the TLS %s '%s': %s", what, path,
				  n < 0 ? strerror(errno) : "short file");
			free(buf);
			buf = NULL;
			goto out;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	if (!strstr(buf, "-----BEGIN ")) {
		cmd_error("the TLS %s '%s' is not PEM (no -----BEGIN line)", what, path);
		free(buf);
		buf = NULL;
	}
out:
	close(fd);
	return buf;
}

static const char *scopes_text(unsigned s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", s & ZS_SCOPE_PUSH ? "push," : "",
		 s & ZS_SCOPE_SYMBOLS ? "symbols," : "", s & ZS_SCOPE_READ ? "read," : "",
		 s & ZS_SCOPE_ADMIN ? "admin," : "");
	if (*buf)
		buf[strlen(buf) - 1] = '\0';
	return buf;
}

static struct zs_store *open_store(const char *dir, const struct zs_store_opts *so)
{
	struct zs_store *s = NULL;
	char msg[512] = "";
	int rc;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		cmd_error("cannot create the data directory '%s': %s", dir, strerror(errno));
		return NULL;
	}
	rc = zs_store_open(dir, so, &s, msg, sizeof(msg));
	if (rc) {
		cmd_error("cannot open the store in '%s': %s", dir, msg[0] ? msg : strerror(-rc));
		return NULL;
	}
	return s;
}

/* ---- zt serve token ... ------------------------------------------------------- */

/* A token name as shown: a catalogue of an older zt may hold any bytes
 * in a name, so a backslash, a blank and what is not printable ASCII are
 * escaped (\\, \n, \x1b...): a name can neither move the cursor nor
 * forge a row. Cut at 1 KiB. */
static const char *shown_name(const char *name, char *out, size_t n)
{
	size_t o = 0;

	for (; *name && o + 8 < n; name++) {
		unsigned char c = (unsigned char)*name;

		if (c == '\\')
			o += (size_t)snprintf(out + o, n - o, "\\\\");
		else if (c == '\n')
			o += (size_t)snprintf(out + o, n - o, "\\n");
		else if (c <= ' ' || c >= 0x7f)
			o += (size_t)snprintf(out + o, n - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
	return o ? out : "-";
}

/* One token a line: its id (hash prefix), name, scopes, creation time; to
 * stdout (list) or, indented, to stderr (the tokens a revoke matched). */
static void token_line(void *ctx, const char *name, unsigned scopes, const char *hash8,
		       int64_t created)
{
	char sc[64], when[32], nm[1024];
	time_t t = (time_t)created;
	struct tm tm;
	FILE *f = ctx ? ctx : stdout;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	fprintf(f, "%s%-8s  %-24s  %-22s  %s\n", ctx ? "  " : "", hash8,
		shown_name(name ? name : "", nm, sizeof(nm)), scopes_text(scopes, sc, sizeof(sc)),
		when);
}

/* The tokens a revoke matched: the refusal, then each token. */
struct ambiguous {
	const char *what;
	int n;
};

static void ambiguous_one(void *ctx, const char *name, unsigned scopes, const char *hash8,
			  int64_t created)
{
	struct ambiguous *a = ctx;

	if (!a->n++)
		cmd_error("'%s' is the name or id of several tokens: nothing revoked; give the id "
			  "of the one to revoke (8 or more hex digits of the first column):",
			  a->what);
	token_line(stderr, name, scopes, hash8, created);
}

/* --name of create and import: 0, or a usage error shown. */
static int check_name(const char *name)
{
	size_t n, i;

	if (!name || zs_token_name_ok(name))
		return 0;
	n = strlen(name);
	if (n > ZS_TOKEN_NAME_MAX)
		cmd_error("bad --name: %zu bytes, and a token name has at most %d bytes", n,
			  ZS_TOKEN_NAME_MAX);
	else if (!n)
		cmd_error(
			"bad --name: give 1 to %d bytes of letters, digits and . _ - @ : +, or no "
			"--name",
			ZS_TOKEN_NAME_MAX);
	else {
		for (i = 0; i < n && zs_token_name_ok((char[2]){name[i], 0}); i++)
			;
		cmd_error("bad --name: byte %zu is not allowed: a token name is 1 to %d bytes of "
			  "letters, digits and . _ - @ : +",
			  i + 1, ZS_TOKEN_NAME_MAX);
	}
	return -1;
}

/* A name another token has: the message. */
static void name_taken(const char *name)
{
	cmd_error("a token named '%s' exists: choose another --name, or revoke that token "
		  "first ('zt serve token revoke %s')",
		  name, name);
}

static int cmd_serve_token(int argc, char **argv)
{
	const char *dir = DEFAULT_DIR, *scope = NULL, *name = NULL, *sub;
	/* beside a running server: tokens only, no recovery of its uploads */
	const struct zs_store_opts admin = {.admin_only = 1};
	const struct opt options[] = {
		{OPT_STRING, 0, "scope", &scope, "scopes",
		 "create, import: push, symbols, read, admin (comma-separated; admin implies all)"},
		{OPT_STRING, 0, "name", &name, "name",
		 "create, import: a unique name to list and revoke it by (1 to 64 letters, "
		 "digits, . _ - @ : +)"},
		{OPT_STRING, 'd', "data-dir", &dir, "dir",
		 "the server's data directory (./" DEFAULT_DIR ")"},
		OPT_EOL};
	struct zs_store *s;
	int rest, ret = ZT_EXIT_OK;

	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			opts_usage(stdout, serve_usage, options);
			return ZT_EXIT_OK;
		}
		cmd_error("give a token subcommand: create, import, list or revoke (see 'zt serve -h')");
		return ZT_EXIT_USAGE;
	}
	sub = argv[1];
	cmd_setup("serve", 0);
	switch (opts_parse_permute("serve token", serve_usage, options, argc - 1, argv + 1,
				   &rest)) {
	case OPTS_HELP:
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		return ZT_EXIT_USAGE;
	}
	rest += 1; /* an index into argv */
	if (!strcmp(sub, "create")) {
		char tok[65], sc[64];
		unsigned mask;
		int rc;

		if (!scope) {
			cmd_error("give the token's scopes: --scope push|symbols|read|admin[,...]");
			return ZT_EXIT_USAGE;
		}
		mask = zs_scope_parse(scope);
		if (!mask) {
			cmd_error("bad scope '%s': push, symbols, read or admin, comma-separated",
				  scope);
			return ZT_EXIT_USAGE;
		}
		if (rest < argc) {
			cmd_error("unexpected argument '%s'", argv[rest]);
			return ZT_EXIT_USAGE;
		}
		if (check_name(name))
			return ZT_EXIT_USAGE;
		s = open_store(dir, &admin);
		if (!s)
			return ZT_EXIT_FAIL;
		rc = zs_token_create(s, mask, name, tok);
		if (rc == -ENOTUNIQ) {
			name_taken(name);
			ret = ZT_EXIT_FAIL;
		} else if (rc) {
			cmd_error("cannot create the token in '%s': %s", dir, strerror(-rc));
			ret = ZT_EXIT_FAIL;
		} else {
			printf("%s\n", tok);
			fprintf(stderr,
				"zt serve: token%s%s created with scopes %s: it is shown only "
				"once; a running server takes it within a second\n",
				name ? " " : "", name ? name : "",
				scopes_text(mask, sc, sizeof(sc)));
		}
		explicit_bzero(tok, sizeof(tok));
	} else if (!strcmp(sub, "import")) {
		char line[1100];
		size_t n;
		unsigned mask = scope ? zs_scope_parse(scope) : 0;
		int rc;

		if (!mask) {
			cmd_error("give the token's scopes: --scope push|symbols|read|admin[,...]");
			return ZT_EXIT_USAGE;
		}
		if (rest < argc) {
			cmd_error("unexpected argument '%s': the token comes on standard input", argv[rest]);
			return ZT_EXIT_USAGE;
		}
		if (check_name(name))
			return ZT_EXIT_USAGE;
		if (!fgets(line, sizeof(line), stdin)) {
			cmd_error("give the token on standard input (one line)");
			return ZT_EXIT_USAGE;
		}
		n = strcspn(line, "\r\n");
		line[n] = 0;
		s = open_store(dir, &admin);
		if (!s) {
			explicit_bzero(line, sizeof(line));
			return ZT_EXIT_FAIL;
		}
		rc = zs_token_import(s, mask, name, line, n);
		explicit_bzero(line, sizeof(line));
		if (rc == -EINVAL) {
			cmd_error("not a token zt takes: 16 to 1024 printable characters, no blank");
			ret = ZT_EXIT_USAGE;
		} else if (rc == -EEXIST) {
			cmd_error("'%s' has that token already", dir);
			ret = ZT_EXIT_FAIL;
		} else if (rc == -ENOTUNIQ) {
			name_taken(name);
			ret = ZT_EXIT_FAIL;
		} else if (rc) {
			cmd_error("cannot import the token into '%s': %s", dir, strerror(-rc));
			ret = ZT_EXIT_FAIL;
		} else {
			char sc[64];

			fprintf(stderr,
				"zt serve: token%s%s imported with scopes %s; a running server takes it "
				"within a second\n",
				name ? " " : "", name ? name : "", scopes_text(mask, sc, sizeof(sc)));
		}
	} else if (!strcmp(sub, "list")) {
		if (rest < argc) {
			cmd_error("unexpected argument '%s'", argv[rest]);
			return ZT_EXIT_USAGE;
		}
		s = open_store(dir, &admin);
		if (!s)
			return ZT_EXIT_FAIL;
		if (zs_token_list(s, token_line, NULL)) {
			cmd_error("cannot list the tokens of '%s'", dir);
			ret = ZT_EXIT_FAIL;
		}
	} else if (!strcmp(sub, "revoke")) {
		char nm[1024];
		const char *what;
		struct ambiguous amb = {0};
		int rc;

		if (rest != argc - 1) {
			cmd_error("give one token to revoke: its name or its id (8 or more hex "
				  "digits of the first column of 'token list')");
			return ZT_EXIT_USAGE;
		}
		what = shown_name(argv[rest], nm, sizeof(nm));
		amb.what = what;
		s = open_store(dir, &admin);
		if (!s)
			return ZT_EXIT_FAIL;
		rc = zs_token_revoke(s, argv[rest], ambiguous_one, &amb);
		if (rc == -ENOTUNIQ) {
			ret = ZT_EXIT_FAIL;
		} else if (rc == -ENOENT) {
			cmd_error("no token named '%s' or with that id: see 'zt serve token list'",
				  what);
			ret = ZT_EXIT_FAIL;
		} else if (rc) {
			cmd_error("cannot revoke '%s': %s", what, strerror(-rc));
			ret = ZT_EXIT_FAIL;
		} else if (cmd_verbosity >= 0) {
			fprintf(stderr, "zt serve: token '%s' revoked\n", what);
		}
	} else {
		cmd_error("'%s' is not a token subcommand: create, import, list or revoke", sub);
		return ZT_EXIT_USAGE;
	}
	zs_store_close(s);
	return ret;
}

/* ---- zt serve ------------------------------------------------------------------ */

/* --debuginfod-upstream URL (repeatable) and --debuginfod URLS: one
 * space-separated list, as DEBUGINFOD_URLS takes it. */
struct upstreams {
	char text[8192];
};

static int add_upstream(const struct opt *o, const char *arg)
{
	struct upstreams *u = o->value;
	size_t n = strlen(u->text);

	if (strpbrk(arg, "\n\r") ||
	    snprintf(u->text + n, sizeof(u->text) - n, "%s%s", n ? " " : "", arg) >=
		    (int)(sizeof(u->text) - n)) {
		fprintf(stderr, "zt serve: bad or too many debuginfod upstream URLs\n");
		return -1;
	}
	return 0;
}

/* --clickhouse URL, repeatable, or several in one (space- or comma-separated) */
static int add_ch_url(const struct opt *o, const char *arg)
{
	struct zs_ch_opts *c = o->value;
	char *copy = strdup(arg), *tok, *save = NULL;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save)) {
		if (c->nr_urls >= ZS_CH_MAX_SERVERS) {
			fprintf(stderr, "zt serve: at most %d --clickhouse URLs\n", ZS_CH_MAX_SERVERS);
			return -1; /* the copy stays: the URLs point into it */
		}
		c->urls[c->nr_urls++] = tok;
	}
	return 0;
}

/* user = and password = of a 0600 file: into c (the text kept in *text) */
static int ch_credentials(const char *path, struct zs_ch_opts *c, char **text, size_t *len)
{
	char msg[256], *cur, *k, *v;
	int line = 0, rc;

	rc = zt_secfile_read(path, "ClickHouse credentials", 4096, text, len, msg, sizeof(msg));
	if (rc) {
		cmd_error("--clickhouse-credentials: %s", rc == -ENOENT ? "no such file" : msg);
		return -1;
	}
	cur = *text;
	while ((rc = zt_secfile_next(&cur, &line, &k, &v)) == 1) {
		if (!strcmp(k, "user"))
			c->user = v;
		else if (!strcmp(k, "password"))
			c->password = v;
		else {
			cmd_error("--clickhouse-credentials '%s', line %d: unknown key '%s' (user, password)",
				  path, line, k);
			return -1;
		}
	}
	if (rc < 0) {
		cmd_error("--clickhouse-credentials '%s', line %d: not 'key = value'", path, line);
		return -1;
	}
	return 0;
}

/* --retention: every hour, the days past it dropped */
struct retention {
	struct zs_store *s;
	unsigned days;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;
};

static void *retention_run(void *arg)
{
	struct retention *r = arg;

	pthread_mutex_lock(&r->lock);
	while (!r->stop) {
		struct timespec until;
		char msg[512] = "";
		unsigned dropped = 0;
		int rc;

		pthread_mutex_unlock(&r->lock);
		rc = zs_store_retention(r->s, r->days, &dropped, msg, sizeof(msg));
		if (rc)
			cmd_warn("--retention: %s (tried again in an hour)",
				 msg[0] ? msg : strerror(-rc));
		else if (dropped && cmd_verbosity >= 0)
			fprintf(stderr, "zt serve: --retention %u: dropped %u day(s) of profiles\n",
				r->days, dropped);
		pthread_mutex_lock(&r->lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 3600;
		while (!r->stop && pthread_cond_timedwait(&r->cond, &r->lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/* One line per request on stderr: time, client, method, path (no query), code, bytes, ms. */
static void access_log(void *ctx, const struct zh_access *a)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	(void)ctx;
	if (cmd_verbosity < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", gmtime_r(&ts.tv_sec, &tm));
	pthread_mutex_lock(&log_lock);
	fprintf(stderr, "%s.%03ldZ %s %s %s %u in=%" PRIu64 " out=%" PRIu64 " %.1fms%s%s%s%s%s\n",
		when, ts.tv_nsec / 1000000, a->client, a->method, a->path, a->code, a->bytes_in,
		a->bytes_out, a->ms, strcmp(a->end, "ok") ? " " : "",
		strcmp(a->end, "ok") ? a->end : "", a->error ? " error=\"" : "",
		a->error ? a->error : "", a->error ? "\"" : "");
	pthread_mutex_unlock(&log_lock);
}

static void error_log(void *ctx, const char *msg)
{
	(void)ctx;
	if (cmd_verbosity < 1)
		return;
	pthread_mutex_lock(&log_lock);
	fprintf(stderr, "zt serve: libmicrohttpd: %s\n", msg);
	pthread_mutex_unlock(&log_lock);
}

int cmd_serve(int argc, char **argv)
{
	const char *listen = DEFAULT_LISTEN, *dir = DEFAULT_DIR, *cert = NULL, *key = NULL,
		   *debuginfod, *max_body_s = NULL, *s3_url = NULL, *max_source_s = NULL,
		   *max_per_id_s = NULL, *max_store_s = NULL;
	struct zt_s3_opts s3o = {0};
	struct zs_remote remote = {0};
	static struct upstreams up;
	static struct zs_ch_opts ch;
	const char *ch_creds = NULL;
	char *ch_text = NULL;
	size_t ch_len = 0;
	int retention_days = 0;
	struct retention ret_ctx = {.lock = PTHREAD_MUTEX_INITIALIZER,
				    .cond = PTHREAD_COND_INITIALIZER};
	pthread_t ret_thread;
	int ret_started = 0;
	int public_read = 0, threads = 2, timeout = 30, max_conns = 256, verbose = 0, quiet = 0;
	int max_per_client = 64, header_timeout = 20;
	const char *min_rate_s = NULL;
	uint64_t min_rate = 1024;
	int max_sources = ZS_DEFAULT_MAX_SOURCES;
	const struct opt options[] = {
		{OPT_STRING, 'l', "listen", &listen, "host:port",
		 "address to serve on (" DEFAULT_LISTEN
		 "); other than loopback only once a token exists"},
		{OPT_STRING, 'd', "data-dir", &dir, "dir",
		 "the store: catalogue, recordings, symbols (./" DEFAULT_DIR ")"},
		{OPT_BOOL, 0, "public-read", &public_read, NULL,
		 "reads (list, queries, page data, metrics) need no token"},
		{OPT_STRING, 0, "tls-cert", &cert, "file",
		 "serve HTTPS with this PEM certificate (chain)"},
		{OPT_STRING, 0, "tls-key", &key, "file", "the PEM private key of --tls-cert"},
		{OPT_CALLBACK, 0, "debuginfod-upstream", &up, "url",
		 "ask this debuginfod server for what the store lacks: symbols, and files "
		 "asked for on /buildid/ (repeatable, or space-separated)",
		 add_upstream},
		{OPT_CALLBACK, 0, "debuginfod", &up, "urls", "the same as --debuginfod-upstream",
		 add_upstream},
		{OPT_STRING, 0, "symbols-s3", &s3_url, "url",
		 "keep symbol files in this S3 bucket too, shared by several servers: "
		 "s3://BUCKET[/PREFIX] or http(s)://HOST:PORT/BUCKET[/PREFIX]"},
		{OPT_STRING, 0, "s3-endpoint", &s3o.endpoint, "url",
		 "with an s3:// URL: an S3-compatible server (http(s)://HOST[:PORT]), not AWS"},
		{OPT_STRING, 0, "s3-region", &s3o.region, "region",
		 "the bucket's region (default: AWS_REGION, AWS_DEFAULT_REGION, us-east-1)"},
		{OPT_STRING, 0, "s3-credentials", &s3o.credentials, "file",
		 "the S3 keys: access_key = and secret_key = lines, mode 0600 (default: "
		 "ZT_S3_CREDENTIALS, else AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"},
		{OPT_CALLBACK, 0, "clickhouse", &ch, "url",
		 "keep profiles in ClickHouse at this HTTP URL (http://HOST:8123), not in the data "
		 "directory; with a cluster, each shard's server (repeatable, or comma-separated)",
		 add_ch_url},
		{OPT_STRING, 0, "clickhouse-cluster", &ch.cluster, "name",
		 "the servers' cluster (remote_servers): tables on each shard, read through "
		 "Distributed tables"},
		{OPT_STRING, 0, "clickhouse-database", &ch.database, "name",
		 "ClickHouse's database for zt's tables (zt)"},
		{OPT_STRING, 0, "clickhouse-user", &ch.user, "user", "ClickHouse's user (default)"},
		{OPT_STRING, 0, "clickhouse-credentials", &ch_creds, "file",
		 "user = and password = lines for ClickHouse, mode 0600 (default: "
		 "ZT_CLICKHOUSE_CREDENTIALS)"},
		{OPT_INT, 0, "retention", &retention_days, "days",
		 "drop profiles recorded more than this many days ago, every hour (0: keep all)"},
		{OPT_STRING, 0, "max-body", &max_body_s, "size", "largest upload, decoded (512M)"},
		{OPT_STRING, 0, "max-source-size", &max_source_s, "size",
		 "largest source file uploaded for debuginfod clients (64M)"},
		{OPT_INT, 0, "max-sources", &max_sources, "n",
		 "source files kept for one build id (65536)"},
		{OPT_STRING, 0, "max-symbols-per-id", &max_per_id_s, "size",
		 "symbol files of one build id together: GSYM, debug file, executable, sources "
		 "(4G)"},
		{OPT_STRING, 0, "max-symbol-store", &max_store_s, "size",
		 "every symbol file together (no limit); what the server fetches itself counts "
		 "but is not refused"},
		{OPT_INT, 0, "threads", &threads, "n",
		 "queries and ingests worked on at once; others wait their turn (2)"},
		{OPT_INT, 0, "max-connections", &max_conns, "n",
		 "connections at once, a thread each (256)"},
		{OPT_INT, 0, "max-connections-per-client", &max_per_client, "n",
		 "connections at once from one IP address (64)"},
		{OPT_INT, 0, "timeout", &timeout, "seconds",
		 "close connections idle this long; the longest wait for a query's turn (30)"},
		{OPT_INT, 0, "header-timeout", &header_timeout, "seconds",
		 "a request's line and headers must arrive within this (20)"},
		{OPT_STRING, 0, "min-body-rate", &min_rate_s, "size",
		 "bytes a second an upload must average after --header-timeout (1K)"},
		{OPT_COUNT, 'v', "verbose", &verbose, NULL, "more messages (libmicrohttpd's too)"},
		{OPT_BOOL, 'q', "quiet", &quiet, NULL, "no access log, errors only"},
		OPT_EOL};
	struct zs_store_opts so = {0};
	struct zh_opts ho = {0};
	struct sockaddr_storage ss;
	socklen_t sl;
	struct zs_store *s = NULL;
	struct zh *h = NULL;
	char *cert_pem = NULL, *key_pem = NULL, msg[512];
	sigset_t set;
	int rest, sig = 0, ret = ZT_EXIT_FAIL, rc;
	uint64_t max_body = 512ull << 20;
	unsigned left;

	/* what the server and its libraries (libdebuginfod's cache) write
	 * under the data directory is for its user alone */
	umask(077);
	if (argc >= 2 && !strcmp(argv[1], "token"))
		return cmd_serve_token(argc - 1, argv + 1);
	switch (opts_parse("serve", serve_usage, options, argc, argv, &rest)) {
	case OPTS_HELP:
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		return ZT_EXIT_USAGE;
	}
	cmd_setup("serve", quiet ? -1 : verbose);
	if (rest < argc) {
		cmd_error("unexpected argument '%s' (see 'zt serve -h')", argv[rest]);
		return ZT_EXIT_USAGE;
	}
	if (zr_parse_listen(listen, &ss, &sl)) {
		cmd_error("bad --listen '%s': give HOST:PORT with a numeric host, e.g. "
			  "127.0.0.1:7070 "
			  "or [::1]:7070",
			  listen);
		return ZT_EXIT_USAGE;
	}
	if (max_body_s && parse_size(max_body_s, &max_body)) {
		cmd_error("bad --max-body '%s': bytes, or a number with K, M or G", max_body_s);
		return ZT_EXIT_USAGE;
	}
	if (min_rate_s && (parse_size(min_rate_s, &min_rate) || !min_rate || min_rate > (1u << 30))) {
		cmd_error("bad --min-body-rate '%s': bytes a second (1 to 1G), or a number with K "
			  "or M", min_rate_s);
		return ZT_EXIT_USAGE;
	}
	{
		const struct {
			const char *opt, *arg;
			uint64_t *v;
		} sizes[] = {{"--max-source-size", max_source_s, &so.max_source_size},
			     {"--max-symbols-per-id", max_per_id_s, &so.max_symbols_per_id},
			     {"--max-symbol-store", max_store_s, &so.max_symbol_store}};

		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			if (sizes[i].arg && parse_size(sizes[i].arg, sizes[i].v)) {
				cmd_error("bad %s '%s': bytes, or a number with K, M or G",
					  sizes[i].opt, sizes[i].arg);
				return ZT_EXIT_USAGE;
			}
	}
	if (max_sources < 1) {
		cmd_error("bad --max-sources %d: 1 or more", max_sources);
		return ZT_EXIT_USAGE;
	}
	so.max_sources = (uint64_t)max_sources;
	if (threads < 1 || threads > 64 || timeout < 1 || timeout > 3600 || max_conns < 4 ||
	    max_conns > 8192 || max_per_client < 1 || max_per_client > max_conns ||
	    header_timeout < 1 || header_timeout > 3600) {
		cmd_error("--threads 1..64, --timeout 1..3600, --header-timeout 1..3600, "
			  "--max-connections 4..8192, --max-connections-per-client 1 to "
			  "--max-connections");
		return ZT_EXIT_USAGE;
	}
	if (!cert != !key) {
		cmd_error("give both --tls-cert and --tls-key, or neither");
		return ZT_EXIT_USAGE;
	}
	if (cert) {
		cert_pem = read_pem(cert, "certificate");
		key_pem = cert_pem ? read_pem(key, "key") : NULL;
		if (!key_pem)
			goto out;
	}
	debuginfod = up.text;
	/* blank: none, as libdebuginfod takes DEBUGINFOD_URLS */
	so.debuginfod = debuginfod && debuginfod[strspn(debuginfod, " \t\n")];
	so.max_body = max_body;
	if (!s3_url && (s3o.endpoint || s3o.region || s3o.credentials)) {
		cmd_error("--s3-endpoint, --s3-region and --s3-credentials go with --symbols-s3 URL");
		ret = ZT_EXIT_USAGE;
		goto out;
	}
	if (s3_url) {
		rc = zs_s3store_new(s3_url, &s3o, &remote, msg, sizeof(msg));
		if (rc) {
			cmd_error("--symbols-s3: %s", msg);
			goto out;
		}
		so.remote = &remote;
	}
	if (!ch.nr_urls && (ch.cluster || ch.database || ch.user || ch_creds)) {
		cmd_error("--clickhouse-cluster, -database, -user and -credentials go with "
			  "--clickhouse URL");
		ret = ZT_EXIT_USAGE;
		goto out;
	}
	if (retention_days < 0 || retention_days > 100000) {
		cmd_error("--retention: a number of days, 0 (keep all) to 100000");
		ret = ZT_EXIT_USAGE;
		goto out;
	}
	if (ch.nr_urls) {
		if (!ch_creds)
			ch_creds = getenv("ZT_CLICKHOUSE_CREDENTIALS");
		if (ch_creds && *ch_creds && ch_credentials(ch_creds, &ch, &ch_text, &ch_len))
			goto out;
		so.clickhouse = &ch;
	}
	s = open_store(dir, &so);
	if (!s)
		goto out;
	if (ch.nr_urls && cmd_verbosity >= 0)
		fprintf(stderr, "zt serve: profiles in ClickHouse %s at %s%s%s%s\n",
			zs_store_ch_version(s), ch.urls[0], ch.nr_urls > 1 ? " and others" : "",
			ch.cluster ? ", cluster " : "", ch.cluster ? ch.cluster : "");
	if (retention_days) {
		ret_ctx.s = s;
		ret_ctx.days = (unsigned)retention_days;
		if (pthread_create(&ret_thread, NULL, retention_run, &ret_ctx)) {
			cmd_error("cannot start the retention thread");
			goto out;
		}
		ret_started = 1;
	}
	if (so.debuginfod) {
		/* the client's cache in the data directory, not in the home of
		 * whoever runs the server; set before any thread starts */
		char *abs = realpath(dir, NULL), cache[4096];

		if (!abs || snprintf(cache, sizeof(cache), "%s/debuginfod-cache", abs) >=
				    (int)sizeof(cache) ||
		    zt_debuginfod_configure(debuginfod, cache)) {
			cmd_error("cannot set up the debuginfod client for '%s'", dir);
			free(abs);
			goto out;
		}
		free(abs);
	}
	if (!zr_addr_is_loopback(&ss) && zs_token_count(s) == 0) {
		cmd_error("refusing to serve on '%s', beyond this machine, while no token exists: "
			  "create one first ('zt serve token create --scope push --data-dir %s'), "
			  "or listen on 127.0.0.1",
			  listen, dir);
		goto out;
	}
	if (!zr_addr_is_loopback(&ss) && !cert)
		cmd_warn("serving plain HTTP beyond this machine: tokens travel in clear text; "
			 "give --tls-cert and --tls-key, or put a TLS proxy in front");

	/* the daemon's threads inherit this mask: the signals come to sigwait */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	ho.store = s;
	ho.listen = listen;
	ho.public_read = public_read;
	ho.tls_cert = cert_pem;
	ho.tls_key = key_pem;
	ho.max_body = max_body;
	ho.threads = (unsigned)threads;
	ho.max_conns = (unsigned)max_conns;
	ho.timeout_s = (unsigned)timeout;
	ho.max_conns_per_client = (unsigned)max_per_client;
	ho.header_timeout_s = (unsigned)header_timeout;
	ho.min_body_rate = min_rate;
	ho.access_log = access_log;
	ho.error_log = error_log;
	rc = zh_start(&ho, &h, msg, sizeof(msg));
	if (rc) {
		cmd_error("%s", msg);
		goto out;
	}
	if (cmd_verbosity >= 0) {
		char host[INET6_ADDRSTRLEN] = "?";

		if (ss.ss_family == AF_INET6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host,
				  sizeof(host));
		else
			inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host,
				  sizeof(host));
		fprintf(stderr, "zt serve: serving %s://%s%s%s:%u/ from '%s'%s\n",
			cert ? "https" : "http", ss.ss_family == AF_INET6 ? "[" : "", host,
			ss.ss_family == AF_INET6 ? "]" : "", zh_port(h), dir,
			public_read ? " (reads open to all)" : "");
	}
	while (sigwait(&set, &sig) == 0 && sig == SIGHUP)
		; /* nothing to reload yet */
	if (cmd_verbosity >= 0)
		fprintf(stderr, "zt serve: %s: finishing the requests in flight, then stopping\n",
			strsignal(sig));
	left = zh_stop(h, STOP_GRACE_MS);
	h = NULL;
	if (left) {
		cmd_error("%u requests were still running after %d s: stopped anyway", left,
			  STOP_GRACE_MS / 1000);
		goto out;
	}
	ret = ZT_EXIT_OK;
out:
	zh_stop(h, 0);
	if (ret_started) {
		pthread_mutex_lock(&ret_ctx.lock);
		ret_ctx.stop = 1;
		pthread_cond_signal(&ret_ctx.cond);
		pthread_mutex_unlock(&ret_ctx.lock);
		pthread_join(ret_thread, NULL);
	}
	zs_store_close(s);
	zt_secfile_free(ch_text, ch_len);
	if (remote.ops)
		remote.ops->free(remote.ctx);
	free(cert_pem);
	if (key_pem) {
		explicit_bzero(key_pem, strlen(key_pem));
		free(key_pem);
	}
	return ret;
}
