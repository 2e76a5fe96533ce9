// SPDX-License-Identifier: GPL-2.0-or-later
/* zt symbols: symbol files for a build: extract them, or upload them to a team server. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/outfile.h"
#include "cmd/remote.h"
#include "cmd/symopts.h"
#include "libprof/zbuf.h"
#include "net/push.h"
#include "net/symup.h"
#include "libprof/array.h"
#include "symbolizer/debpkg.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/fileid.h"
#include "symbolizer/symmod.h"

static const char *const extract_usage[] = {
	"zt symbols extract [<options>] FILE... -o DIR",
	NULL,
};

static int cmd_symbols_extract(int argc, char **argv)
{
	struct symopts so = { .use_debuginfod = 1, .use_cache = 1 };
	const char *outdir = NULL;
	const struct opt options[] = {
		{ OPT_STRING, 'o', "output", &outdir, "dir", "write DIR/<build id>.gsym for each FILE" },
		SYMOPTS_OPTIONS(so),
		OPT_EOL
	};
	int rest, i, ret = ZT_EXIT_OK;

	switch (opts_parse_permute("symbols extract", extract_usage, options, argc, argv, &rest)) {
	case OPTS_HELP:
		symopts_release(&so);
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		symopts_release(&so);
		return ZT_EXIT_USAGE;
	}
	cmd_setup("symbols", so.verbose);
	if (!outdir || rest >= argc) {
		cmd_error("give the files and -o DIR (see 'zt symbols extract -h')");
		symopts_release(&so);
		return ZT_EXIT_USAGE;
	}
	if (mkdir(outdir, 0755) && errno != EEXIST) {
		cmd_error("cannot create '%s': %s", outdir, strerror(errno));
		symopts_release(&so);
		return ZT_EXIT_FAIL;
	}
	if (symopts_init(&so, "symbols"))
		return ZT_EXIT_FAIL;
	for (i = rest; i < argc; i++) {
		char id[2 * ZT_BUILD_ID_MAX + 1], out[PATH_MAX];
		struct prof_build_id b = { 0 };
		struct outfile of;
		struct zt_fileid fid;
		enum symq q;
		int err;

		/* named by GNU build id, or by file id when there is none */
		if (!elf_read_build_id(argv[i], &b) && b.len) {
			prof_build_id_hex(&b, id);
		} else if ((err = fileid_from_path(argv[i], &fid))) {
			cmd_error("cannot read '%s': %s", argv[i], strerror(-err));
			ret = ZT_EXIT_FAIL;
			continue;
		} else {
			fileid_hex(&fid, id);
		}
		snprintf(out, sizeof(out), "%s/%s.gsym", outdir, id);
		if (outfile_create(&of, out, 0644, 0)) {
			outfile_release(&of);
			ret = ZT_EXIT_FAIL;
			continue;
		}
		err = symmod_extract_fd(&so.mo, argv[i], of.fd, &q);
		if (err) {
			cmd_error("cannot extract the symbols of '%s': %s", argv[i], strerror(-err));
			outfile_release(&of); /* the new file goes */
			ret = ZT_EXIT_FAIL;
			continue;
		}
		if (outfile_commit(&of, false) || (err = outfile_release(&of))) {
			if (err)
				cmd_error("cannot write '%s': %s", out, strerror(-err));
			outfile_release(&of);
			ret = ZT_EXIT_FAIL;
			continue;
		}
		printf("%s %s %s\n", out, push_quality_name(q), argv[i]);
		if (q != SYMQ_FULL)
			cmd_warn("'%s' has %s symbols only (%s)", argv[i], push_quality_name(q),
				 q == SYMQ_BASIC ? "no debug info: build with -g" : "stripped");
	}
	symopts_release(&so);
	return ret;
}

/* ---- zt symbols upload ---------------------------------------------------------- */

/* Exit codes of zt symbols upload, for CI scripts. */
enum {
	UP_EXIT_OK = 0,
	UP_EXIT_FAILED = 1,
	UP_EXIT_USAGE = 2,
	UP_EXIT_UNREACHABLE = REMOTE_EXIT_UNREACHABLE,
};

static const char *const upload_usage[] = {
	"zt symbols upload --server URL [--force] [--dry-run] [--description TEXT] [--no-dwarf]\n"
	"                  [--with-debuginfo] [--json] [-j N] [--cacert FILE] PATH...",
	NULL,
};

static const char *const status_names[] = {"pending", "uploaded", "skipped", "would-upload",
					   "failed"};

struct upload {
	int json, tty;
	size_t counts[SYMUP_FAILED + 1];
	uint64_t bytes;
	uint64_t last_ns; /* the bar on a terminal */
	int bar;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void bar_clear(struct upload *u)
{
	if (u->bar)
		fputs("\r\033[K", stderr);
	u->bar = 0;
}

static void human(char *out, size_t n, uint64_t b)
{
	if (b >= 10000000)
		snprintf(out, n, "%.0f MB", (double)b / 1e6);
	else if (b >= 1000000)
		snprintf(out, n, "%.1f MB", (double)b / 1e6);
	else
		snprintf(out, n, "%.1f KB", (double)b / 1e3);
}

/* What a file sent, for its line: "full, 12.3 KB, debug file, binary, 3 sources". */
static void sent_text(const struct symup_file *f, char *out, size_t n)
{
	char size[32];
	int k;

	human(size, sizeof(size), f->bytes);
	k = snprintf(out, n, "%s%s, %s", f->kinds & SYMUP_GSYM ? push_quality_name(f->q) : "",
		     f->kinds & SYMUP_GSYM ? "" : "no GSYM", size);
	if (k > 0 && (size_t)k < n && f->kinds & SYMUP_DEBUGINFO)
		k += snprintf(out + k, n - (size_t)k, ", debug file");
	if (k > 0 && (size_t)k < n && f->kinds & SYMUP_EXECUTABLE)
		k += snprintf(out + k, n - (size_t)k, ", binary");
	if (k > 0 && (size_t)k < n && f->nr_sources)
		snprintf(out + k, n - (size_t)k, ", %u source file%s", f->nr_sources,
			 f->nr_sources == 1 ? "" : "s");
}

/* One file ended (called one at a time): its line, or the bar. */
static void upload_done(void *ctx, const struct symup_file *f, size_t done, size_t total)
{
	struct upload *u = ctx;
	char what[160], size[32];

	u->counts[f->st]++;
	if (f->st == SYMUP_UPLOADED || f->st == SYMUP_WOULD_UPLOAD)
		u->bytes += f->bytes;
	if (f->st == SYMUP_FAILED) {
		bar_clear(u);
		cmd_error("%s: %s", f->path, f->err);
	} else if (f->kept && !u->json && u->tty && cmd_verbosity == 0) {
		/* the line of the file is not shown: what was kept is said */
		bar_clear(u);
		cmd_note("kept the server's %s symbols for %s (this upload: %s): %s",
			 push_quality_name(f->server_q), f->id, push_quality_name(f->q), f->path);
	} else if (!u->json && (!u->tty || cmd_verbosity > 0)) {
		bar_clear(u);
		if (f->st == SYMUP_SKIPPED) {
			printf("skipped       %s  %s: %s\n", f->id, f->path, f->note);
		} else {
			sent_text(f, what, sizeof(what));
			printf("%-13s %s  %s (%s)%s%s\n", status_names[f->st], f->id, f->path, what,
			       f->note[0] ? ": " : "", f->note);
		}
		fflush(stdout);
	}
	if (u->tty && !u->json && cmd_verbosity >= 0) {
		uint64_t now = mono_ns();

		if (done == total || now - u->last_ns >= 100000000ull) {
			unsigned k = total ? (unsigned)(30 * done / total) : 30, i;
			char bar[31];

			for (i = 0; i < 30; i++)
				bar[i] = i < k ? '#' : ' ';
			bar[30] = 0;
			human(size, sizeof(size), u->bytes);
			fprintf(stderr, "\rzt symbols: [%s] %zu/%zu files, %s", bar, done, total,
				size);
			u->bar = 1;
			u->last_ns = now;
		}
	}
}

static void put(struct zbuf *z, const char *s)
{
	zbuf_put(z, s, strlen(s));
}

static void json_summary(const char *server, const struct symup_list *l, const struct upload *u,
			 int dry_run)
{
	struct zbuf z;
	size_t i;

	zbuf_init(&z);
	put(&z, "{\"server\":");
	zbuf_put_json_str(&z, server);
	put(&z, dry_run ? ",\"dry_run\":true" : ",\"dry_run\":false");
	{
		char c[200];

		snprintf(c, sizeof(c),
			 ",\"uploaded\":%zu,\"skipped\":%zu,\"would_upload\":%zu,\"failed\":%zu,"
			 "\"bytes\":%llu,\"files\":[",
			 u->counts[SYMUP_UPLOADED], u->counts[SYMUP_SKIPPED],
			 u->counts[SYMUP_WOULD_UPLOAD], u->counts[SYMUP_FAILED],
			 (unsigned long long)u->bytes);
		put(&z, c);
	}
	for (i = 0; i < l->n; i++) {
		const struct symup_file *f = &l->v[i];
		char c[200];

		put(&z, i ? ",{\"path\":" : "{\"path\":");
		zbuf_put_json_str(&z, f->path);
		put(&z, f->is_fileid ? ",\"file_id\":" : ",\"build_id\":");
		zbuf_put_json_str(&z, f->id);
		put(&z, ",\"status\":");
		zbuf_put_json_str(&z, status_names[f->st]);
		snprintf(c, sizeof(c),
			 ",\"quality\":\"%s\",\"bytes\":%llu,\"gsym\":%s,\"debuginfo\":%s,"
			 "\"executable\":%s,\"sources\":%u",
			 f->kinds & SYMUP_GSYM ? push_quality_name(f->q) : "",
			 (unsigned long long)f->bytes, f->kinds & SYMUP_GSYM ? "true" : "false",
			 f->kinds & SYMUP_DEBUGINFO ? "true" : "false",
			 f->kinds & SYMUP_EXECUTABLE ? "true" : "false", f->nr_sources);
		put(&z, c);
		if (f->server_q >= 0) {
			put(&z, ",\"server_quality\":");
			zbuf_put_json_str(&z, push_quality_name(f->server_q));
		}
		if (f->replaced >= 0) {
			put(&z, ",\"replaced\":");
			zbuf_put_json_str(&z, push_quality_name(f->replaced));
		}
		put(&z, f->kept ? ",\"kept\":true" : ",\"kept\":false");
		if (f->note[0]) {
			put(&z, ",\"note\":");
			zbuf_put_json_str(&z, f->note);
		}
		if (f->st == SYMUP_FAILED) {
			put(&z, ",\"error\":");
			zbuf_put_json_str(&z, f->err);
		}
		zbuf_put_u8(&z, '}');
	}
	put(&z, "]}\n");
	if (!z.err)
		fwrite(z.data, 1, z.len, stdout);
	else
		cmd_error("out of memory writing the JSON summary");
	zbuf_release(&z);
}

/* zt symbols upload: its options, and what it holds */
struct upload_cmd {
	const char *server, *token, *description, *cacert;
	struct remote_ca ca; /* the CA certificates of an https server */
	int force, dry_run, no_dwarf, with_debuginfo, json, jobs, retries, timeout, quiet, verbose;
	struct symopts so;
	struct push_config cfg;
	struct symup_list l;
	struct upload u; /* what the uploads did */
	char **debs;	 /* Debian packages given, or found in the folders given */
	size_t nr_debs, cap_debs;
};

/* The packages under a folder (a mirror: nftw has no context argument) */
static struct upload_cmd *walk_cmd;
static int walk_err;

static int add_deb(struct upload_cmd *c, const char *path)
{
	char *d = strdup(path);

	if (!d || ZT_GROW(c->debs, c->cap_debs, c->nr_debs + 1)) {
		free(d);
		return -ENOMEM;
	}
	c->debs[c->nr_debs++] = d;
	return 0;
}

static int walk_deb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_F && S_ISREG(st->st_mode) && debpkg_is_name(path) &&
	    (walk_err = add_deb(walk_cmd, path)))
		return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int upload_parse_options(struct upload_cmd *c, int argc, char **argv, int *rest)
{
	const struct opt options[] = {
		{OPT_STRING, 0, "server", &c->server, "url",
		 "the zt serve to upload to (default: ZT_SERVER, or server.url of zt "
		 "config)"},
		{OPT_STRING, 0, "token", &c->token, "token",
		 "a token with the symbols scope (better: ZT_TOKEN, or server.token of "
		 "zt config, in a file of mode 0600)"},
		{OPT_BOOL, 'f', "force", &c->force, NULL,
		 "upload even what the server has, replacing it (better or not)"},
		{OPT_BOOL, 'n', "dry-run", &c->dry_run, NULL,
		 "check and extract, say what would be uploaded, send nothing"},
		{OPT_STRING, 0, "description", &c->description, "text",
		 "kept with the symbols on the server (a version, a CI job)"},
		{OPT_BOOL, 0, "no-dwarf", &c->no_dwarf, NULL,
		 "symbol-table names only: no DWARF files, lines or inline frames"},
		{OPT_BOOL, 0, "with-debuginfo", &c->with_debuginfo, NULL,
		 "also the debug file, the binary and its source files, for debuginfod "
		 "clients (gdb, perf)"},
		{OPT_BOOL, 0, "json", &c->json, NULL, "a JSON summary on stdout"},
		{OPT_INT, 'j', "jobs", &c->jobs, "n", "files at once (default: the CPUs)"},
		{OPT_INT, 0, "retries", &c->retries, "n",
		 "tries again this many times on network errors, 5xx and 429 (default 3)"},
		{OPT_INT, 0, "timeout", &c->timeout, "s",
		 "give up a connection silent for S seconds (default 30)"},
		{OPT_STRING, 0, "cacert", &c->cacert, "file",
		 "verify an https server with the CA certificates of this PEM file (default: "
		 "server.cacert of zt config, CURL_CA_BUNDLE, SSL_CERT_FILE, the system's)"},
		{OPT_CALLBACK, 0, "debug-dir", &c->so, "dir",
		 "also look for debug files in DIR (repeatable)", symopts_add_debug_dir},
		{OPT_BOOL, 'q', "quiet", &c->quiet, NULL, "failures only, no progress bar"},
		{OPT_COUNT, 'v', "verbose", &c->verbose, NULL, "a line per file on a terminal too"},
		OPT_EOL,
	};

	return opts_parse_permute("symbols upload", upload_usage, options, argc, argv, rest);
}

/* The options' values, PATH... given, the server and token settled: -1 to
 * go on, or UP_EXIT_USAGE or UP_EXIT_FAILED (the message shown). */
static int upload_check_options(struct upload_cmd *c, int argc, int rest)
{
	int err;

	if (rest >= argc) {
		cmd_error("give the files or directories to upload (see 'zt symbols upload -h')");
		return UP_EXIT_USAGE;
	}
	if (c->jobs < 0 || c->jobs > 64 || c->retries < 0 || c->retries > 100 || c->timeout <= 0 ||
	    c->timeout > 86400) {
		cmd_error("-j takes 1 to 64, --retries 0 to 100, --timeout 1 to 86400 seconds");
		return UP_EXIT_USAGE;
	}
	if (c->description && strlen(c->description) > 1024) {
		cmd_error("--description takes at most 1024 bytes");
		return UP_EXIT_USAGE;
	}
	if (c->no_dwarf && c->with_debuginfo) {
		cmd_error("--no-dwarf and --with-debuginfo contradict each other: give one");
		return UP_EXIT_USAGE;
	}
	err = remote_settings(&c->server, &c->token, &c->cfg, "the upload");
	if (err)
		return err == ZT_EXIT_USAGE ? UP_EXIT_USAGE : UP_EXIT_FAILED;
	if (remote_ca(c->cacert, c->server, &c->ca))
		return UP_EXIT_FAILED;
	return -1;
}

/* The ELF files of each PATH (a file or a directory) in the list; those
 * that cannot be read counted as failed. 0, or -1 out of memory. */
static int upload_collect(struct upload_cmd *c, int argc, char **argv, int rest)
{
	char msg[PATH_MAX + 512];
	int i, err;

	for (i = rest; i < argc; i++) {
		struct stat st;

		/* Debian packages: a .deb or .ddeb, or those under a folder */
		if (!stat(argv[i], &st) && S_ISREG(st.st_mode) && debpkg_is_name(argv[i])) {
			if (add_deb(c, argv[i])) {
				cmd_error("out of memory");
				return -1;
			}
			continue;
		}
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
			walk_cmd = c;
			walk_err = 0;
			nftw(argv[i], walk_deb, 32, FTW_PHYS);
			if (walk_err) {
				cmd_error("out of memory");
				return -1;
			}
		}
		err = symup_list_add(&c->l, argv[i], msg, sizeof(msg));
		if (err == -ENOMEM) {
			cmd_error("out of memory");
			return -1;
		}
		if (err) {
			cmd_error("%s", msg);
			c->u.counts[SYMUP_FAILED]++;
		}
	}
	if (!c->l.n && !c->nr_debs && !c->u.counts[SYMUP_FAILED])
		cmd_warn("no ELF executables, shared libraries or Debian packages found under the "
			 "paths given");
	if (c->nr_debs)
		qsort(c->debs, c->nr_debs, sizeof(*c->debs), cmp_str);
	return 0;
}

/* A package's debug file, kept under dir/files at its path in the package
 * (which debpkg checked: under usr/lib/debug/, no ".."), for the uploads
 * after the whole package is read. */
struct keep {
	const char *dir;
	unsigned n;
};

static int keep_file(void *ctx, const struct debpkg_file *f)
{
	struct keep *k = ctx;
	char path[PATH_MAX], *s;
	int n = snprintf(path, sizeof(path), "%s/files/%s", k->dir, f->name);

	if (n < 0 || (size_t)n >= sizeof(path))
		return 0; /* a name too long: left out */
	for (s = path + strlen(k->dir) + 1; (s = strchr(s + 1, '/'));) {
		*s = 0;
		if (mkdir(path, 0700) && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	if (link(f->path, path))
		return errno == EEXIST ? 0 : -errno; /* the same path twice: the first kept */
	k->n++;
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Why the uploads stopped (err and msg of symup_run()), said: a TLS
 * failure plainly, with what to do. */
static void say_stopped(const struct upload_cmd *c, int err, const char *msg)
{
	char pre[512];
	size_t k;

	/* symup's "cannot reach URL: " before libcurl's words */
	snprintf(pre, sizeof(pre), "cannot reach %s: ", c->server);
	k = strlen(pre);
	if (!remote_tls_failed(err, c->server, &c->ca, strncmp(msg, pre, k) ? msg : msg + k))
		cmd_error("stopped: %s", msg);
}

/* The uploads of the debug files of package i of c (o: the uploads'
 * options). 0, or a symup_run() error (the run stops). */
static int upload_deb(struct upload_cmd *c, struct symup_opts *o, size_t i, unsigned jobs)
{
	char dir[] = "/tmp/zt-symbols-deb.XXXXXX", msg[PATH_MAX + 512], files[sizeof(dir) + 8];
	struct debpkg_stats st;
	struct symup_list l;
	struct keep k;
	int err;

	if (!mkdtemp(dir)) {
		cmd_error("cannot make a temporary directory: %s", strerror(errno));
		c->u.counts[SYMUP_FAILED]++;
		return 0;
	}
	snprintf(files, sizeof(files), "%s/files", dir);
	k = (struct keep){dir, 0};
	if (mkdir(files, 0700)) {
		err = -errno;
		snprintf(msg, sizeof(msg), "%s", strerror(errno));
	} else {
		err = debpkg_read(c->debs[i], dir, keep_file, &k, &st, msg, sizeof(msg));
	}
	if (err) {
		bar_clear(&c->u);
		cmd_error("%s: %s", c->debs[i], err < 0 && err != -EBADMSG && err != -ENOSYS
							? strerror(-err) : msg);
		c->u.counts[SYMUP_FAILED]++;
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		return 0;
	}
	if (c->u.tty && !c->json && cmd_verbosity >= 0) {
		bar_clear(&c->u);
		fprintf(stderr, "zt symbols: package %zu of %zu: %s: %u debug file%s\n", i + 1,
			c->nr_debs, c->debs[i], k.n, k.n == 1 ? "" : "s");
	}
	symup_list_init(&l);
	err = k.n ? symup_list_add(&l, files, msg, sizeof(msg)) : 0;
	if (!err && l.n) {
		o->jobs = jobs < l.n ? jobs : (unsigned)l.n;
		err = symup_run(o, &l, msg, sizeof(msg));
		bar_clear(&c->u);
		if (err && err != -ENOMEM)
			say_stopped(c, err, msg);
	}
	if (err == -ENOMEM)
		cmd_error("out of memory");
	symup_list_release(&l);
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return err;
}

/* The uploads (or, with -n, what they would be) and the summary. An exit
 * code. */
static int upload_run(struct upload_cmd *c)
{
	struct symup_opts o;
	char msg[PATH_MAX + 512];
	int err;

	c->so.use_debuginfod = 0;
	c->so.use_cache = 0;
	if (symopts_init(&c->so, "symbols"))
		return UP_EXIT_FAILED;
	c->so.mo.no_dwarf = c->no_dwarf;
	memset(&o, 0, sizeof(o));
	o.mo = &c->so.mo;
	o.http.base_url = c->server;
	o.http.token = c->token;
	o.http.tries = c->retries + 1;
	o.http.low_speed_s = c->timeout;
	o.http.connect_timeout_ms = 10000;
	o.http.cainfo = c->ca.file;
	o.http.capath = c->ca.dir;
	o.force = c->force;
	o.dry_run = c->dry_run;
	o.with_debuginfo = c->with_debuginfo;
	o.description = c->description;
	o.jobs = c->jobs ? (unsigned)c->jobs : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	if (!o.jobs)
		o.jobs = 1;
	if (o.jobs > c->l.n && c->l.n)
		o.jobs = (unsigned)c->l.n;
	o.done = upload_done;
	o.ctx = &c->u;
	c->u.json = c->json;
	c->u.tty = isatty(2);
	err = c->l.n ? symup_run(&o, &c->l, msg, sizeof(msg)) : 0;
	bar_clear(&c->u);
	if (err == -ENOMEM) {
		cmd_error("out of memory");
		return UP_EXIT_FAILED;
	}
	if (err)
		say_stopped(c, err, msg);
	/* then each package's debug files, one package at a time */
	if (!err && c->nr_debs) {
		unsigned jobs = c->jobs ? (unsigned)c->jobs : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
		size_t i;

		o.debug_files = 1;
		for (i = 0; i < c->nr_debs && !err; i++)
			err = upload_deb(c, &o, i, jobs ? jobs : 1);
		if (err == -ENOMEM)
			return UP_EXIT_FAILED;
	}
	if (c->json) {
		json_summary(c->server, &c->l, &c->u, c->dry_run);
	} else if (cmd_verbosity >= 0) {
		char size[32];

		human(size, sizeof(size), c->u.bytes);
		fprintf(stderr, "zt symbols: %zu %s (%s), %zu skipped, %zu failed\n",
			c->u.counts[c->dry_run ? SYMUP_WOULD_UPLOAD : SYMUP_UPLOADED],
			c->dry_run ? "would be uploaded" : "uploaded", size,
			c->u.counts[SYMUP_SKIPPED], c->u.counts[SYMUP_FAILED]);
	}
	if (err && remote_unreachable(err))
		return UP_EXIT_UNREACHABLE;
	return c->u.counts[SYMUP_FAILED] || err ? UP_EXIT_FAILED : UP_EXIT_OK;
}

static int cmd_symbols_upload(int argc, char **argv)
{
	struct upload_cmd c = {.retries = 3, .timeout = 30};
	struct remote_args ra = {0};
	int rest, ret;

	if (remote_scrub_token(argc, argv, &ra)) { /* before anything else */
		fprintf(stderr, "zt symbols: out of memory\n");
		return UP_EXIT_FAILED;
	}
	symup_list_init(&c.l);
	ret = upload_parse_options(&c, argc, argv, &rest);
	cmd_setup("symbols", c.quiet ? -1 : c.verbose);
	if (ret) {
		ret = ret == OPTS_HELP ? UP_EXIT_OK : UP_EXIT_USAGE;
		goto out;
	}
	ret = upload_check_options(&c, argc, rest);
	if (ret >= 0)
		goto out;
	ret = UP_EXIT_FAILED;
	if (upload_collect(&c, argc, argv, rest))
		goto out;
	ret = upload_run(&c);
out:
	symup_list_release(&c.l);
	for (size_t i = 0; i < c.nr_debs; i++)
		free(c.debs[i]);
	free(c.debs);
	push_config_release(&c.cfg);
	symopts_release(&c.so);
	remote_args_release(&ra);
	return cmd_finish(ret);
}

int cmd_symbols(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "extract"))
		return cmd_symbols_extract(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "upload"))
		return cmd_symbols_upload(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: zt symbols extract [<options>] FILE... -o DIR\n"
		       "   or: zt symbols upload --server URL [<options>] PATH...\n\n"
		       "  extract   write the GSYM symbol tables of FILEs into DIR\n"
		       "  upload    send the symbols of the ELF files under PATHs to a zt serve\n");
		return ZT_EXIT_OK;
	}
	fprintf(stderr, "zt symbols: give a subcommand: extract or upload (see 'zt symbols -h')\n");
	return ZT_EXIT_USAGE;
}
