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
	"zt serve token create --scope push|symbols|read|admin[,...] [--name NAME] [--project P] "
	"[--data-dir DIR]",
	"zt serve token import --scope push|symbols|read|admin[,...] [--name NAME] [--project P] "
	"[--data-dir DIR] < TOKEN",
	"zt serve token list [--data-dir DIR]",
	"zt serve token revoke NAME|ID [--data-dir DIR]",
	"zt serve project create NAME [--data-dir DIR]",
	"zt serve project list [--data-dir DIR]",
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
		       int64_t created, const char *project)
{
	char sc[64], when[32], nm[1024], pj[256];
	time_t t = (time_t)created;
	struct tm tm;
	FILE *f = ctx ? ctx : stdout;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	fprintf(f, "%s%-8s  %-24s  %-22s  %-16s  %s\n", ctx ? "  " : "", hash8,
		shown_name(name ? name : "", nm, sizeof(nm)), scopes_text(scopes, sc, sizeof(sc)),
		project && *project ? shown_name(project, pj, sizeof(pj)) : "*", when);
}

/* The tokens a revoke matched: the refusal, then each token. */
struct ambiguous {
	const char *what;
	int n;
};

static void ambiguous_one(void *ctx, const char *name, unsigned scopes, const char *hash8,
			  int64_t created, const char *project)
{
	struct ambiguous *a = ctx;

	if (!a->n++)
		cmd_error("'%s' is the name or id of several tokens: nothing revoked; give the id "
			  "of the one to revoke (8 or more hex digits of the first column):",
			  a->what);
	token_line(stderr, name, scopes, hash8, created, project);
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

/* --project of create and import: 0, or a usage error shown. */
static int check_project(const char *project)
{
	char nm[1024];

	if (!project || zs_project_name_ok(project))
		return 0;
	cmd_error("bad project name '%s': 1 to %d lowercase letters, digits, '-' and '_', "
		  "starting with a letter or digit",
		  shown_name(project, nm, sizeof(nm)), ZS_PROJECT_MAX);
	return -1;
}

static void no_project(const char *project)
{
	cmd_error("no project '%s': create it first ('zt serve project create %s')", project,
		  project);
}

/* A name another token has: the message. */
static void name_taken(const char *name)
{
	cmd_error("a token named '%s' exists: choose another --name, or revoke that token "
		  "first ('zt serve token revoke %s')",
		  name, name);
}

/* zt serve token SUB: its options, and the arguments after them (argv[rest..argc-1]) */
struct token_args {
	const char *dir, *scope, *name, *project;
	int argc, rest;
	char **argv;
};

/* beside a running server: tokens only, no recovery of its uploads */
static const struct zs_store_opts token_admin = {.admin_only = 1};

/* argv[0] is "token", argv[1] the subcommand. OPTS_OK, OPTS_HELP (the
 * usage shown) or OPTS_ERROR (the message shown). */
static int token_parse_options(struct token_args *t, int argc, char **argv)
{
	const struct opt options[] = {
		{OPT_STRING, 0, "scope", &t->scope, "scopes",
		 "create, import: push, symbols, read, admin (comma-separated; admin implies all)"},
		{OPT_STRING, 0, "name", &t->name, "name",
		 "create, import: a unique name to list and revoke it by (1 to 64 letters, "
		 "digits, . _ - @ : +)"},
		{OPT_STRING, 0, "project", &t->project, "project",
		 "create, import: the project the token's reads and writes stay in (default: "
		 "every project)"},
		{OPT_STRING, 'd', "data-dir", &t->dir, "dir",
		 "the server's data directory (./" DEFAULT_DIR ")"},
		OPT_EOL};
	int rc;

	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			opts_usage(stdout, serve_usage, options);
			return OPTS_HELP;
		}
		cmd_error("give a token subcommand: create, import, list or revoke (see 'zt serve -h')");
		return OPTS_ERROR;
	}
	cmd_setup("serve", 0);
	rc = opts_parse_permute("serve token", serve_usage, options, argc - 1, argv + 1, &t->rest);
	t->rest += 1; /* an index into argv */
	t->argc = argc;
	t->argv = argv;
	return rc;
}

static int token_create(const struct token_args *t)
{
	char tok[65], sc[64];
	struct zs_store *s;
	unsigned mask;
	int rc, ret = ZT_EXIT_OK;

	if (!t->scope) {
		cmd_error("give the token's scopes: --scope push|symbols|read|admin[,...]");
		return ZT_EXIT_USAGE;
	}
	mask = zs_scope_parse(t->scope);
	if (!mask) {
		cmd_error("bad scope '%s': push, symbols, read or admin, comma-separated",
			  t->scope);
		return ZT_EXIT_USAGE;
	}
	if (t->rest < t->argc) {
		cmd_error("unexpected argument '%s'", t->argv[t->rest]);
		return ZT_EXIT_USAGE;
	}
	if (check_name(t->name) || check_project(t->project))
		return ZT_EXIT_USAGE;
	s = open_store(t->dir, &token_admin);
	if (!s)
		return ZT_EXIT_FAIL;
	rc = zs_token_create_in(s, mask, t->name, t->project, tok);
	if (rc == -ENOTUNIQ) {
		name_taken(t->name);
		ret = ZT_EXIT_FAIL;
	} else if (rc == -ENOENT) {
		no_project(t->project);
		ret = ZT_EXIT_FAIL;
	} else if (rc) {
		cmd_error("cannot create the token in '%s': %s", t->dir, strerror(-rc));
		ret = ZT_EXIT_FAIL;
	} else {
		printf("%s\n", tok);
		fprintf(stderr,
			"zt serve: token%s%s created with scopes %s%s%s: it is shown only "
			"once; a running server takes it within a second\n",
			t->name ? " " : "", t->name ? t->name : "",
			scopes_text(mask, sc, sizeof(sc)), t->project ? " in project " : "",
			t->project ? t->project : "");
	}
	explicit_bzero(tok, sizeof(tok));
	zs_store_close(s);
	return ret;
}

static int token_import(const struct token_args *t)
{
	char line[1100], sc[64];
	struct zs_store *s;
	size_t n;
	unsigned mask = t->scope ? zs_scope_parse(t->scope) : 0;
	int rc, ret = ZT_EXIT_OK;

	if (!mask) {
		cmd_error("give the token's scopes: --scope push|symbols|read|admin[,...]");
		return ZT_EXIT_USAGE;
	}
	if (t->rest < t->argc) {
		cmd_error("unexpected argument '%s': the token comes on standard input",
			  t->argv[t->rest]);
		return ZT_EXIT_USAGE;
	}
	if (check_name(t->name) || check_project(t->project))
		return ZT_EXIT_USAGE;
	if (!fgets(line, sizeof(line), stdin)) {
		cmd_error("give the token on standard input (one line)");
		return ZT_EXIT_USAGE;
	}
	n = strcspn(line, "\r\n");
	line[n] = 0;
	s = open_store(t->dir, &token_admin);
	if (!s) {
		explicit_bzero(line, sizeof(line));
		return ZT_EXIT_FAIL;
	}
	rc = zs_token_import_in(s, mask, t->name, t->project, line, n);
	explicit_bzero(line, sizeof(line));
	if (rc == -ENOENT) {
		no_project(t->project);
		ret = ZT_EXIT_FAIL;
	} else if (rc == -EINVAL) {
		cmd_error("not a token zt takes: 16 to 1024 printable characters, no blank");
		ret = ZT_EXIT_USAGE;
	} else if (rc == -EEXIST) {
		cmd_error("'%s' has that token already", t->dir);
		ret = ZT_EXIT_FAIL;
	} else if (rc == -ENOTUNIQ) {
		name_taken(t->name);
		ret = ZT_EXIT_FAIL;
	} else if (rc) {
		cmd_error("cannot import the token into '%s': %s", t->dir, strerror(-rc));
		ret = ZT_EXIT_FAIL;
	} else {
		fprintf(stderr,
			"zt serve: token%s%s imported with scopes %s; a running server takes it "
			"within a second\n",
			t->name ? " " : "", t->name ? t->name : "",
			scopes_text(mask, sc, sizeof(sc)));
	}
	zs_store_close(s);
	return ret;
}

static int token_list(const struct token_args *t)
{
	struct zs_store *s;
	int ret = ZT_EXIT_OK;

	if (t->rest < t->argc) {
		cmd_error("unexpected argument '%s'", t->argv[t->rest]);
		return ZT_EXIT_USAGE;
	}
	s = open_store(t->dir, &token_admin);
	if (!s)
		return ZT_EXIT_FAIL;
	if (zs_token_list(s, token_line, NULL)) {
		cmd_error("cannot list the tokens of '%s'", t->dir);
		ret = ZT_EXIT_FAIL;
	}
	zs_store_close(s);
	return ret;
}

static int token_revoke(const struct token_args *t)
{
	char nm[1024];
	const char *what, *arg;
	struct ambiguous amb = {0};
	struct zs_store *s;
	int rc, ret = ZT_EXIT_OK;

	if (t->rest != t->argc - 1) {
		cmd_error("give one token to revoke: its name or its id (8 or more hex "
			  "digits of the first column of 'token list')");
		return ZT_EXIT_USAGE;
	}
	arg = t->argv[t->rest];
	what = shown_name(arg, nm, sizeof(nm));
	amb.what = what;
	s = open_store(t->dir, &token_admin);
	if (!s)
		return ZT_EXIT_FAIL;
	rc = zs_token_revoke(s, arg, ambiguous_one, &amb);
	if (rc == -ENOTUNIQ) {
		ret = ZT_EXIT_FAIL;
	} else if (rc == -ENOENT) {
		cmd_error("no token named '%s' or with that id: see 'zt serve token list'", what);
		ret = ZT_EXIT_FAIL;
	} else if (rc) {
		cmd_error("cannot revoke '%s': %s", what, strerror(-rc));
		ret = ZT_EXIT_FAIL;
	} else if (cmd_verbosity >= 0) {
		fprintf(stderr, "zt serve: token '%s' revoked\n", what);
	}
	zs_store_close(s);
	return ret;
}

static int cmd_serve_token(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(const struct token_args *t);
	} subs[] = {{"create", token_create},
		    {"import", token_import},
		    {"list", token_list},
		    {"revoke", token_revoke}};
	struct token_args t = {.dir = DEFAULT_DIR};

	switch (token_parse_options(&t, argc, argv)) {
	case OPTS_HELP:
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		return ZT_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(argv[1], subs[i].name))
			return subs[i].fn(&t);
	cmd_error("'%s' is not a token subcommand: create, import, list or revoke", argv[1]);
	return ZT_EXIT_USAGE;
}

/* ---- zt serve project ... ----------------------------------------------------- */

static void project_line(void *ctx, const char *name, int64_t created, uint64_t profiles,
			 uint64_t tokens)
{
	char when[32] = "-";
	time_t t = (time_t)created;
	struct tm tm;

	(void)ctx;
	if (created)
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	printf("%-24s  %10llu profiles  %4llu tokens  %s\n", name, (unsigned long long)profiles,
	       (unsigned long long)tokens, when);
}

static int cmd_serve_project(int argc, char **argv)
{
	struct token_args t = {.dir = DEFAULT_DIR};
	struct zs_store *s;
	int rc, ret = ZT_EXIT_OK;
	const struct opt options[] = {
		{OPT_STRING, 'd', "data-dir", &t.dir, "dir",
		 "the server's data directory (./" DEFAULT_DIR ")"},
		OPT_EOL};

	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			opts_usage(stdout, serve_usage, options);
			return ZT_EXIT_OK;
		}
		cmd_error("give a project subcommand: create or list (see 'zt serve -h')");
		return ZT_EXIT_USAGE;
	}
	cmd_setup("serve", 0);
	switch (opts_parse_permute("serve project", serve_usage, options, argc - 1, argv + 1,
				   &t.rest)) {
	case OPTS_HELP:
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		return ZT_EXIT_USAGE;
	}
	t.rest += 1;
	if (!strcmp(argv[1], "create")) {
		if (t.rest != argc - 1) {
			cmd_error("give one project name to create");
			return ZT_EXIT_USAGE;
		}
		if (check_project(argv[t.rest]))
			return ZT_EXIT_USAGE;
	} else if (!strcmp(argv[1], "list")) {
		if (t.rest < argc) {
			cmd_error("unexpected argument '%s'", argv[t.rest]);
			return ZT_EXIT_USAGE;
		}
	} else {
		cmd_error("'%s' is not a project subcommand: create or list", argv[1]);
		return ZT_EXIT_USAGE;
	}
	s = open_store(t.dir, &token_admin);
	if (!s)
		return ZT_EXIT_FAIL;
	if (argv[1][0] == 'c') {
		rc = zs_project_create(s, argv[t.rest]);
		if (rc == -EEXIST) {
			cmd_error("project '%s' exists", argv[t.rest]);
			ret = ZT_EXIT_FAIL;
		} else if (rc) {
			cmd_error("cannot create project '%s' in '%s': %s", argv[t.rest], t.dir,
				  strerror(-rc));
			ret = ZT_EXIT_FAIL;
		} else if (cmd_verbosity >= 0) {
			fprintf(stderr,
				"zt serve: project '%s' created: give its tokens with 'zt serve "
				"token create --project %s'\n",
				argv[t.rest], argv[t.rest]);
		}
	} else if (zs_project_list(s, project_line, NULL)) {
		cmd_error("cannot list the projects of '%s'", t.dir);
		ret = ZT_EXIT_FAIL;
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

/* zt serve: its options, what they become, and what it holds while it runs
 * (released by serve_release()) */
struct serve {
	const char *listen, *dir, *cert, *key, *max_body_s, *s3_url, *max_source_s, *max_per_id_s,
		*max_store_s, *min_rate_s, *ch_creds;
	struct zt_s3_opts s3o;
	struct upstreams up;
	struct zs_ch_opts ch;
	int retention_days, public_read, threads, timeout, max_conns, max_per_client,
		header_timeout, max_sources, verbose, quiet;
	uint64_t min_rate, max_body;
	struct sockaddr_storage ss;
	socklen_t sl;
	struct zs_store_opts so;
	struct zh_opts ho;

	char *cert_pem, *key_pem, *ch_text;
	size_t ch_len;
	struct zs_remote remote;
	struct zs_store *s;
	struct retention ret_ctx;
	pthread_t ret_thread;
	int ret_started;
	struct zh *h;
};

static int serve_parse_options(struct serve *sv, int argc, char **argv, int *rest)
{
	const struct opt options[] = {
		{OPT_STRING, 'l', "listen", &sv->listen, "host:port",
		 "address to serve on (" DEFAULT_LISTEN
		 "); other than loopback only once a token exists"},
		{OPT_STRING, 'd', "data-dir", &sv->dir, "dir",
		 "the store: catalogue, recordings, symbols (./" DEFAULT_DIR ")"},
		{OPT_BOOL, 0, "public-read", &sv->public_read, NULL,
		 "reads (list, queries, page data, metrics) need no token"},
		{OPT_STRING, 0, "tls-cert", &sv->cert, "file",
		 "serve HTTPS with this PEM certificate (chain)"},
		{OPT_STRING, 0, "tls-key", &sv->key, "file", "the PEM private key of --tls-cert"},
		{OPT_CALLBACK, 0, "debuginfod-upstream", &sv->up, "url",
		 "ask this debuginfod server for what the store lacks: symbols, and files "
		 "asked for on /buildid/ (repeatable, or space-separated)",
		 add_upstream},
		{OPT_CALLBACK, 0, "debuginfod", &sv->up, "urls",
		 "the same as --debuginfod-upstream", add_upstream},
		{OPT_STRING, 0, "symbols-s3", &sv->s3_url, "url",
		 "keep symbol files in this S3 bucket too, shared by several servers: "
		 "s3://BUCKET[/PREFIX] or http(s)://HOST:PORT/BUCKET[/PREFIX]"},
		{OPT_STRING, 0, "s3-endpoint", &sv->s3o.endpoint, "url",
		 "with an s3:// URL: an S3-compatible server (http(s)://HOST[:PORT]), not AWS"},
		{OPT_STRING, 0, "s3-region", &sv->s3o.region, "region",
		 "the bucket's region (default: AWS_REGION, AWS_DEFAULT_REGION, us-east-1)"},
		{OPT_STRING, 0, "s3-credentials", &sv->s3o.credentials, "file",
		 "the S3 keys: access_key = and secret_key = lines, mode 0600 (default: "
		 "ZT_S3_CREDENTIALS, else AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"},
		{OPT_CALLBACK, 0, "clickhouse", &sv->ch, "url",
		 "keep profiles in ClickHouse at this HTTP URL (http://HOST:8123), not in the data "
		 "directory; with a cluster, each shard's server (repeatable, or comma-separated)",
		 add_ch_url},
		{OPT_STRING, 0, "clickhouse-cluster", &sv->ch.cluster, "name",
		 "the servers' cluster (remote_servers): tables on each shard, read through "
		 "Distributed tables"},
		{OPT_STRING, 0, "clickhouse-database", &sv->ch.database, "name",
		 "ClickHouse's database for zt's tables (zt)"},
		{OPT_STRING, 0, "clickhouse-user", &sv->ch.user, "user",
		 "ClickHouse's user (default)"},
		{OPT_STRING, 0, "clickhouse-credentials", &sv->ch_creds, "file",
		 "user = and password = lines for ClickHouse, mode 0600 (default: "
		 "ZT_CLICKHOUSE_CREDENTIALS)"},
		{OPT_INT, 0, "retention", &sv->retention_days, "days",
		 "drop profiles recorded more than this many days ago, every hour (0: keep all)"},
		{OPT_STRING, 0, "max-body", &sv->max_body_s, "size",
		 "largest upload, decoded (512M)"},
		{OPT_STRING, 0, "max-source-size", &sv->max_source_s, "size",
		 "largest source file uploaded for debuginfod clients (64M)"},
		{OPT_INT, 0, "max-sources", &sv->max_sources, "n",
		 "source files kept for one build id (65536)"},
		{OPT_STRING, 0, "max-symbols-per-id", &sv->max_per_id_s, "size",
		 "symbol files of one build id together: GSYM, debug file, executable, sources "
		 "(4G)"},
		{OPT_STRING, 0, "max-symbol-store", &sv->max_store_s, "size",
		 "every symbol file together (no limit); what the server fetches itself counts "
		 "but is not refused"},
		{OPT_INT, 0, "threads", &sv->threads, "n",
		 "queries and ingests worked on at once; others wait their turn (2)"},
		{OPT_INT, 0, "max-connections", &sv->max_conns, "n",
		 "connections at once, a thread each (256)"},
		{OPT_INT, 0, "max-connections-per-client", &sv->max_per_client, "n",
		 "connections at once from one IP address (64)"},
		{OPT_INT, 0, "timeout", &sv->timeout, "seconds",
		 "close connections idle this long; the longest wait for a query's turn (30)"},
		{OPT_INT, 0, "header-timeout", &sv->header_timeout, "seconds",
		 "a request's line and headers must arrive within this (20)"},
		{OPT_STRING, 0, "min-body-rate", &sv->min_rate_s, "size",
		 "bytes a second an upload must average after --header-timeout (1K)"},
		{OPT_COUNT, 'v', "verbose", &sv->verbose, NULL,
		 "more messages (libmicrohttpd's too)"},
		{OPT_BOOL, 'q', "quiet", &sv->quiet, NULL, "no access log, errors only"},
		OPT_EOL};

	return opts_parse("serve", serve_usage, options, argc, argv, rest);
}

/* The values of the options that need no file or server: ZT_EXIT_OK or
 * ZT_EXIT_USAGE (the message shown). */
static int serve_check_options(struct serve *sv)
{
	const struct {
		const char *opt, *arg;
		uint64_t *v;
	} sizes[] = {{"--max-source-size", sv->max_source_s, &sv->so.max_source_size},
		     {"--max-symbols-per-id", sv->max_per_id_s, &sv->so.max_symbols_per_id},
		     {"--max-symbol-store", sv->max_store_s, &sv->so.max_symbol_store}};

	if (zr_parse_listen(sv->listen, &sv->ss, &sv->sl)) {
		cmd_error("bad --listen '%s': give HOST:PORT with a numeric host, e.g. "
			  "127.0.0.1:7070 "
			  "or [::1]:7070",
			  sv->listen);
		return ZT_EXIT_USAGE;
	}
	if (sv->max_body_s && parse_size(sv->max_body_s, &sv->max_body)) {
		cmd_error("bad --max-body '%s': bytes, or a number with K, M or G", sv->max_body_s);
		return ZT_EXIT_USAGE;
	}
	if (sv->min_rate_s && (parse_size(sv->min_rate_s, &sv->min_rate) || !sv->min_rate ||
			       sv->min_rate > (1u << 30))) {
		cmd_error("bad --min-body-rate '%s': bytes a second (1 to 1G), or a number with K "
			  "or M",
			  sv->min_rate_s);
		return ZT_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (sizes[i].arg && parse_size(sizes[i].arg, sizes[i].v)) {
			cmd_error("bad %s '%s': bytes, or a number with K, M or G", sizes[i].opt,
				  sizes[i].arg);
			return ZT_EXIT_USAGE;
		}
	if (sv->max_sources < 1) {
		cmd_error("bad --max-sources %d: 1 or more", sv->max_sources);
		return ZT_EXIT_USAGE;
	}
	sv->so.max_sources = (uint64_t)sv->max_sources;
	if (sv->threads < 1 || sv->threads > 64 || sv->timeout < 1 || sv->timeout > 3600 ||
	    sv->max_conns < 4 || sv->max_conns > 8192 || sv->max_per_client < 1 ||
	    sv->max_per_client > sv->max_conns || sv->header_timeout < 1 ||
	    sv->header_timeout > 3600) {
		cmd_error("--threads 1..64, --timeout 1..3600, --header-timeout 1..3600, "
			  "--max-connections 4..8192, --max-connections-per-client 1 to "
			  "--max-connections");
		return ZT_EXIT_USAGE;
	}
	if (!sv->cert != !sv->key) {
		cmd_error("give both --tls-cert and --tls-key, or neither");
		return ZT_EXIT_USAGE;
	}
	return ZT_EXIT_OK;
}

/* The TLS files, the S3 symbol store, ClickHouse's credentials, then the
 * store; the checks of the options that go with them in between, in this
 * order. ZT_EXIT_OK or the exit code (the message shown). */
static int serve_open(struct serve *sv)
{
	char msg[512];
	int rc;

	if (sv->cert) {
		sv->cert_pem = read_pem(sv->cert, "certificate");
		sv->key_pem = sv->cert_pem ? read_pem(sv->key, "key") : NULL;
		if (!sv->key_pem)
			return ZT_EXIT_FAIL;
	}
	/* blank: none, as libdebuginfod takes DEBUGINFOD_URLS */
	sv->so.debuginfod = sv->up.text[strspn(sv->up.text, " \t\n")] != '\0';
	sv->so.max_body = sv->max_body;
	if (!sv->s3_url && (sv->s3o.endpoint || sv->s3o.region || sv->s3o.credentials)) {
		cmd_error("--s3-endpoint, --s3-region and --s3-credentials go with --symbols-s3 URL");
		return ZT_EXIT_USAGE;
	}
	if (sv->s3_url) {
		rc = zs_s3store_new(sv->s3_url, &sv->s3o, &sv->remote, msg, sizeof(msg));
		if (rc) {
			cmd_error("--symbols-s3: %s", msg);
			return ZT_EXIT_FAIL;
		}
		sv->so.remote = &sv->remote;
	}
	if (!sv->ch.nr_urls && (sv->ch.cluster || sv->ch.database || sv->ch.user || sv->ch_creds)) {
		cmd_error("--clickhouse-cluster, -database, -user and -credentials go with "
			  "--clickhouse URL");
		return ZT_EXIT_USAGE;
	}
	if (sv->retention_days < 0 || sv->retention_days > 100000) {
		cmd_error("--retention: a number of days, 0 (keep all) to 100000");
		return ZT_EXIT_USAGE;
	}
	if (sv->ch.nr_urls) {
		if (!sv->ch_creds)
			sv->ch_creds = getenv("ZT_CLICKHOUSE_CREDENTIALS");
		if (sv->ch_creds && *sv->ch_creds &&
		    ch_credentials(sv->ch_creds, &sv->ch, &sv->ch_text, &sv->ch_len))
			return ZT_EXIT_FAIL;
		sv->so.clickhouse = &sv->ch;
	}
	sv->s = open_store(sv->dir, &sv->so);
	if (!sv->s)
		return ZT_EXIT_FAIL;
	if (sv->ch.nr_urls && cmd_verbosity >= 0)
		fprintf(stderr, "zt serve: profiles in ClickHouse %s at %s%s%s%s\n",
			zs_store_ch_version(sv->s), sv->ch.urls[0],
			sv->ch.nr_urls > 1 ? " and others" : "", sv->ch.cluster ? ", cluster " : "",
			sv->ch.cluster ? sv->ch.cluster : "");
	return ZT_EXIT_OK;
}

/* Before the server: the retention thread, the debuginfod client, and
 * the refusal to serve beyond this machine with no token. 0 or -1 (the
 * message shown). */
static int serve_prepare(struct serve *sv)
{
	if (sv->retention_days) {
		sv->ret_ctx.s = sv->s;
		sv->ret_ctx.days = (unsigned)sv->retention_days;
		if (pthread_create(&sv->ret_thread, NULL, retention_run, &sv->ret_ctx)) {
			cmd_error("cannot start the retention thread");
			return -1;
		}
		sv->ret_started = 1;
	}
	if (sv->so.debuginfod) {
		/* the client's cache in the data directory, not in the home of
		 * whoever runs the server; set before any thread starts */
		char *abs = realpath(sv->dir, NULL), cache[4096];

		if (!abs ||
		    snprintf(cache, sizeof(cache), "%s/debuginfod-cache", abs) >=
			    (int)sizeof(cache) ||
		    zt_debuginfod_configure(sv->up.text, cache)) {
			cmd_error("cannot set up the debuginfod client for '%s'", sv->dir);
			free(abs);
			return -1;
		}
		free(abs);
	}
	if (!zr_addr_is_loopback(&sv->ss) && zs_token_count(sv->s) == 0) {
		cmd_error("refusing to serve on '%s', beyond this machine, while no token exists: "
			  "create one first ('zt serve token create --scope push --data-dir %s'), "
			  "or listen on 127.0.0.1",
			  sv->listen, sv->dir);
		return -1;
	}
	if (!zr_addr_is_loopback(&sv->ss) && !sv->cert)
		cmd_warn("serving plain HTTP beyond this machine: tokens travel in clear text; "
			 "give --tls-cert and --tls-key, or put a TLS proxy in front");
	return 0;
}

/* "zt serve: serving http://127.0.0.1:7070/ from 'DIR'" */
static void print_serving(const struct serve *sv)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (sv->ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)&sv->ss)->sin6_addr, host,
			  sizeof(host));
	else
		inet_ntop(AF_INET, &((const struct sockaddr_in *)&sv->ss)->sin_addr, host,
			  sizeof(host));
	fprintf(stderr, "zt serve: serving %s://%s%s%s:%u/ from '%s'%s\n",
		sv->cert ? "https" : "http", sv->ss.ss_family == AF_INET6 ? "[" : "", host,
		sv->ss.ss_family == AF_INET6 ? "]" : "", zh_port(sv->h), sv->dir,
		sv->public_read ? " (reads open to all)" : "");
}

/* Serve until SIGTERM or SIGINT (SIGHUP: nothing yet), then finish the
 * requests in flight. 0 or -1 (the message shown). */
static int serve_run(struct serve *sv)
{
	struct zh_opts *ho = &sv->ho;
	char msg[512];
	sigset_t set;
	unsigned left;
	int sig = 0;

	/* the daemon's threads inherit this mask: the signals come to sigwait */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	ho->store = sv->s;
	ho->listen = sv->listen;
	ho->public_read = sv->public_read;
	ho->tls_cert = sv->cert_pem;
	ho->tls_key = sv->key_pem;
	ho->max_body = sv->max_body;
	ho->threads = (unsigned)sv->threads;
	ho->max_conns = (unsigned)sv->max_conns;
	ho->timeout_s = (unsigned)sv->timeout;
	ho->max_conns_per_client = (unsigned)sv->max_per_client;
	ho->header_timeout_s = (unsigned)sv->header_timeout;
	ho->min_body_rate = sv->min_rate;
	ho->access_log = access_log;
	ho->error_log = error_log;
	if (zh_start(ho, &sv->h, msg, sizeof(msg))) {
		cmd_error("%s", msg);
		return -1;
	}
	if (cmd_verbosity >= 0)
		print_serving(sv);
	while (sigwait(&set, &sig) == 0 && sig == SIGHUP)
		; /* nothing to reload yet */
	if (cmd_verbosity >= 0)
		fprintf(stderr, "zt serve: %s: finishing the requests in flight, then stopping\n",
			strsignal(sig));
	left = zh_stop(sv->h, STOP_GRACE_MS);
	sv->h = NULL;
	if (left) {
		cmd_error("%u requests were still running after %d s: stopped anyway", left,
			  STOP_GRACE_MS / 1000);
		return -1;
	}
	return 0;
}

static void serve_release(struct serve *sv)
{
	zh_stop(sv->h, 0);
	if (sv->ret_started) {
		pthread_mutex_lock(&sv->ret_ctx.lock);
		sv->ret_ctx.stop = 1;
		pthread_cond_signal(&sv->ret_ctx.cond);
		pthread_mutex_unlock(&sv->ret_ctx.lock);
		pthread_join(sv->ret_thread, NULL);
	}
	zs_store_close(sv->s);
	zt_secfile_free(sv->ch_text, sv->ch_len);
	if (sv->remote.ops)
		sv->remote.ops->free(sv->remote.ctx);
	free(sv->cert_pem);
	if (sv->key_pem) {
		explicit_bzero(sv->key_pem, strlen(sv->key_pem));
		free(sv->key_pem);
	}
}

int cmd_serve(int argc, char **argv)
{
	/* static, as its parts were: the --clickhouse URLs point into copies
	 * that stay to the end (add_ch_url) */
	static struct serve sv = {
		.listen = DEFAULT_LISTEN,
		.dir = DEFAULT_DIR,
		.threads = 2,
		.timeout = 30,
		.max_conns = 256,
		.max_per_client = 64,
		.header_timeout = 20,
		.max_sources = ZS_DEFAULT_MAX_SOURCES,
		.min_rate = 1024,
		.max_body = 512ull << 20,
		.ret_ctx = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER}};
	int rest, ret;

	/* what the server and its libraries (libdebuginfod's cache) write
	 * under the data directory is for its user alone */
	umask(077);
	if (argc >= 2 && !strcmp(argv[1], "token"))
		return cmd_serve_token(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "project"))
		return cmd_serve_project(argc - 1, argv + 1);
	switch (serve_parse_options(&sv, argc, argv, &rest)) {
	case OPTS_HELP:
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		return ZT_EXIT_USAGE;
	}
	cmd_setup("serve", sv.quiet ? -1 : sv.verbose);
	if (rest < argc) {
		cmd_error("unexpected argument '%s' (see 'zt serve -h')", argv[rest]);
		return ZT_EXIT_USAGE;
	}
	ret = serve_check_options(&sv);
	if (ret != ZT_EXIT_OK)
		return ret;
	ret = serve_open(&sv);
	if (ret == ZT_EXIT_OK && (serve_prepare(&sv) || serve_run(&sv)))
		ret = ZT_EXIT_FAIL;
	serve_release(&sv);
	return ret;
}
