// SPDX-License-Identifier: GPL-2.0-or-later
/* zt push: a recording, unwound, with the symbols the server lacks (or has worse ones of),
 * to a zt serve. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"
#include "cmd/remote.h"
#include "cmd/symopts.h"
#include "net/client.h"
#include "net/push.h"

/* Exit codes a script can rely on (besides 0, 1 and 129). */
enum { PUSH_EXIT_REFUSED = 3, PUSH_EXIT_UNREACHABLE = REMOTE_EXIT_UNREACHABLE };

#define MAX_LABELS 64

static const char *const push_usage[] = {
	"zt push [-i FILE] [--server URL] [--label KEY=VALUE]... [<options>]",
	NULL,
};

struct push_cmd {
	const char *in, *server, *token, *event, *cacert;
	struct remote_ca ca; /* the CA certificates of an https server */
	const char *labels[MAX_LABELS];
	int nr_labels;
	int symbols, retries, timeout, quiet;
	struct symopts so;
	/* the progress bar of an upload */
	uint64_t bar_start_ns;
	int bar_shown, bar_on;
	const char *bar_what;
};

static int add_label(const struct opt *o, const char *arg)
{
	struct push_cmd *c = o->value;

	if (c->nr_labels >= MAX_LABELS) {
		fprintf(stderr, "zt push: at most %d labels\n", MAX_LABELS);
		return -1;
	}
	if (!strchr(arg, '=') || arg[0] == '=') {
		fprintf(stderr, "zt push: '%s' is not a label: give --label KEY=VALUE\n", arg);
		return -1;
	}
	c->labels[c->nr_labels++] = arg;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A bar on a terminal for uploads that take more than half a second. */
static void on_progress(void *ctx, uint64_t sent, uint64_t total)
{
	struct push_cmd *c = ctx;
	char bar[31];
	unsigned k, i;

	if (!c->bar_on || now_ns() - c->bar_start_ns < 500000000ull)
		return;
	k = total ? (unsigned)(30.0 * (double)sent / (double)total) : 30;
	for (i = 0; i < 30; i++)
		bar[i] = i < k ? '#' : ' ';
	bar[30] = 0;
	fprintf(stderr, "\rzt push: %s [%s] %3.0f%% %.1f/%.1f MB", c->bar_what, bar,
		total ? 100.0 * (double)sent / (double)total : 100.0, (double)sent / 1e6,
		(double)total / 1e6);
	c->bar_shown = 1;
}

static void bar_start(struct push_cmd *c, const char *what, size_t len)
{
	c->bar_what = what;
	c->bar_start_ns = now_ns();
	c->bar_shown = 0;
	c->bar_on = !c->quiet && isatty(2) && len >= (1u << 20);
}

static void bar_end(struct push_cmd *c)
{
	if (c->bar_shown)
		fputs("\r\033[K", stderr);
	c->bar_on = c->bar_shown = 0;
}

static void on_retry(void *ctx, int attempt, unsigned delay_ms, const char *why)
{
	struct push_cmd *c = ctx;

	bar_end(c);
	cmd_warn("%s: trying again in %.1f s (attempt %d of %d)", why, delay_ms / 1000.0,
		 attempt + 1, c->retries + 1);
}

/* An answer that was not a success, as an exit code after a message. */
static int answer_failed(const struct push_cmd *c, int ret, const struct zt_http_resp *r,
			 const char *what, const char *server, const char *msg)
{
	char why[512];
	int k;

	if (ret == -ENOMEM) {
		cmd_error("out of memory");
		return ZT_EXIT_FAIL;
	}
	if ((k = remote_tls_failed(ret, server, &c->ca, msg)))
		return k;
	if (ret) {
		cmd_error("cannot send %s to %s: %s (%d attempt%s)", what, server, msg, r->tries,
			  r->tries == 1 ? "" : "s");
		return ret == -EINVAL ? ZT_EXIT_FAIL : PUSH_EXIT_UNREACHABLE;
	}
	push_answer_error(r, why, sizeof(why));
	if (zt_http_retryable(r->status)) {
		cmd_error("%s keeps failing (%ld: %s) after %d attempt%s: cannot send %s", server,
			  r->status, why, r->tries, r->tries == 1 ? "" : "s", what);
		return PUSH_EXIT_UNREACHABLE;
	}
	cmd_error("the server refused %s (%ld): %s", what, r->status, why);
	return PUSH_EXIT_REFUSED;
}

/* "zt push: ..." on stderr, unless -q: what the symbol uploads did. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	if (cmd_verbosity < 0)
		return;
	va_start(ap, fmt);
	fputs("zt push: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The line of symbols the server took: their quality, what they replaced. */
static void say_sent(const struct push_module *m, const char *hex, const struct push_sent *s)
{
	int q = s->a.stored >= 0 ? s->a.stored : s->here;
	char repl[64] = "";

	if (s->a.replaced >= 0)
		snprintf(repl, sizeof(repl), ", replacing the server's %s ones",
			 push_quality_name(s->a.replaced));
	if (q == SYMQ_FULL)
		say("sent the full symbols of '%s' (%s)%s", m->path, hex, repl);
	else
		say("sent the %s symbols of '%s' (%s)%s: function names only (%s); 'zt symbols "
		    "upload' of the binary with its debug info replaces them",
		    push_quality_name(q), m->path, hex, repl, s->why);
}

static void before_upload(void *ctx, size_t len)
{
	bar_start(ctx, "uploading symbols", len);
}

/* Send the symbols of module m (the server has have: -1 none, else their
 * quality) when they are better (push_send_module()): 1 sent, 0 not, or an
 * exit code (< 0 as -code) when the server cannot be reached. */
static int send_module(struct push_cmd *c, struct zt_http *h, const struct push_module *m, int have,
		       struct zt_http_resp *r)
{
	struct push_sent s;
	char msg[512], hex[2 * ZT_BUILD_ID_MAX + 1];
	int err;

	prof_build_id_hex(&m->id, hex);
	err = push_send_module(h, &c->so.mo, m, have, before_upload, c, &s, r, msg, sizeof(msg));
	bar_end(c);
	if (err == -ENOMEM) {
		cmd_error("out of memory");
		return -ZT_EXIT_FAIL;
	}
	if (err) /* unreachable, or failing after the retries: so would the profile */
		return -answer_failed(c, err == -EAGAIN ? 0 : err, r, "symbols", zt_http_base(h),
				      msg);
	switch (s.what) {
	case PUSH_SENT:
		say_sent(m, hex, &s);
		return 1;
	case PUSH_KEPT_FULL: /* nothing here can be better: not even looked at */
		cmd_info("kept the server's full symbols of '%s' (%s)", m->path, hex);
		break;
	case PUSH_NONE_HERE:
		if (have < 0)
			cmd_info("no symbols to send for '%s' (%s): %s", m->path, hex, s.why);
		else
			cmd_info("kept the server's %s symbols of '%s' (%s): none here (%s)",
				 push_quality_name(have), m->path, hex, s.why);
		break;
	case PUSH_NOT_BETTER:
		if (s.here == have)
			cmd_info("the server has the %s symbols of '%s' (%s) already", s.quality,
				 m->path, hex);
		else
			cmd_info("kept the server's %s symbols of '%s' (%s) (this upload: %s)",
				 push_quality_name(have), m->path, hex, s.quality);
		break;
	case PUSH_HAD: /* stored meanwhile, as good or better */
		if (s.a.kept >= 0)
			cmd_info("kept the server's %s symbols of '%s' (%s) (this upload: %s)",
				 push_quality_name(s.a.kept), m->path, hex, s.quality);
		else
			cmd_info("the server had the symbols of '%s' (%s) already", m->path, hex);
		break;
	case PUSH_REFUSED:
		cmd_warn("the server refused the symbols of '%s' (%ld): %s", m->path, r->status,
			 s.why);
		break;
	}
	return 0;
}

/* Upload the symbols the server lacks, or has worse ones of; a failure here
 * is a warning (the profile is still worth storing), unless the server is
 * unreachable. */
static int send_symbols(struct push_cmd *c, struct zt_http *h, const struct session *ses)
{
	struct push_module *mods = NULL;
	struct zt_http_resp r;
	int8_t *have = NULL;
	size_t n = 0, i, sent = 0;
	char msg[512];
	int ret;

	zt_http_resp_init(&r);
	if (push_modules(session_stacks(ses), &mods, &n)) {
		cmd_error("out of memory");
		return ZT_EXIT_FAIL;
	}
	ret = 0;
	if (!n)
		goto out;
	have = calloc(n, sizeof(*have));
	if (!have) {
		cmd_error("out of memory");
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	ret = push_missing(h, mods, n, have, &r, msg, sizeof(msg));
	if (ret || r.status != 200) {
		ret = answer_failed(c, ret, &r, "the request for missing symbols", zt_http_base(h),
				    msg);
		goto out;
	}
	for (i = 0; i < n; i++) {
		int k;

		zt_http_resp_release(&r);
		zt_http_resp_init(&r);
		k = send_module(c, h, &mods[i], have[i], &r);
		if (k < 0) {
			ret = -k;
			goto out;
		}
		sent += (size_t)k;
	}
	if (sent)
		cmd_info("sent the symbols of %zu module%s", sent, sent == 1 ? "" : "s");
out:
	zt_http_resp_release(&r);
	free(have);
	free(mods);
	return ret;
}

static int run(struct push_cmd *c)
{
	struct zt_http_opts ho = {0};
	struct zt_http *h = NULL;
	struct zt_http_resp r;
	struct push_result res;
	struct session ses = {0};
	struct zbuf img;
	char msg[512];
	size_t ev, nev;
	int ret, err;

	zt_http_resp_init(&r);
	zbuf_init(&img);
	ho.base_url = c->server;
	ho.token = c->token;
	ho.connect_timeout_ms = (long)c->timeout * 1000;
	ho.low_speed_s = c->timeout;
	ho.tries = c->retries + 1;
	ho.on_retry = on_retry;
	ho.retry_ctx = c;
	ho.progress = on_progress;
	ho.progress_ctx = c;
	ho.cainfo = c->ca.file;
	ho.capath = c->ca.dir;
	err = zt_http_new(&ho, &h, msg, sizeof(msg));
	if (err) {
		cmd_error("%s", msg);
		ret = err == -EINVAL ? ZT_EXIT_USAGE : ZT_EXIT_FAIL;
		goto out;
	}
	ret = ZT_EXIT_FAIL;
	if (symopts_init(&c->so, "push"))
		goto out;
	/* the server keeps one event a profile: several, several profiles */
	if (cmd_open_session_events(&ses, c->in, &c->so, 0, c->event, 1, !c->event))
		goto out;
	nev = profile_nr_events(&ses.prof);
	if (nev > 1) {
		char raw[512], list[512];

		profile_event_list(&ses.prof, raw, sizeof(raw));
		prof_sanitize(list, sizeof(list), raw);
		cmd_note("'%s' has %zu events (%s): each goes as a profile of its own (one with "
			 "--event NAME)",
			 c->in, nev, list);
	}
	if (c->symbols && (ret = send_symbols(c, h, &ses)))
		goto out;
	ret = ZT_EXIT_FAIL;
	for (ev = 0; ev < nev; ev++) {
		zbuf_reset(&img);
		zt_http_resp_release(&r);
		zt_http_resp_init(&r);
		err = push_image_event(&ses.prof, nev > 1 ? (uint32_t)ev : PUSH_ALL_EVENTS, &img);
		if (err) {
			cmd_error("cannot write the unwound profile of '%s': %s", c->in,
				  strerror(-err));
			goto out;
		}
		cmd_info("'%s': %zu samples, %zu bytes unwound", c->in,
			 nev > 1 ? profile_event_samples(&ses.prof, (uint32_t)ev, NULL)
				 : ses.prof.nr_samples,
			 img.len);
		bar_start(c, "uploading", img.len);
		err = push_profile(h, img.data, img.len, c->labels, (size_t)c->nr_labels, &res, &r,
				   msg, sizeof(msg));
		bar_end(c);
		if (err == -EINVAL && !r.tries) {
			cmd_error("%s", msg);
			ret = ZT_EXIT_USAGE;
			goto out;
		}
		if (err == -EBADMSG) {
			cmd_error("%s: %s", zt_http_base(h), msg);
			ret = PUSH_EXIT_UNREACHABLE;
			goto out;
		}
		if (err || (r.status != 200 && r.status != 201)) {
			ret = answer_failed(c, err, &r, "the profile", zt_http_base(h), msg);
			goto out;
		}
		if (res.stored)
			printf("zt push: stored %s (%llu samples) on %s\n", res.id,
			       (unsigned long long)res.samples, zt_http_base(h));
		else if (res.labels_added > 0)
			printf("zt push: already stored: %s (labels added: %d)\n", res.id,
			       res.labels_added);
		else
			printf("zt push: already stored: %s\n", res.id);
		if (!res.stored && res.labels_added < 0 && c->nr_labels && cmd_verbosity >= 0)
			cmd_warn("%s keeps the labels of the profile's first push: this push's "
				 "were not added (a zt serve older than this zt)",
				 zt_http_base(h));
	}
	ret = ZT_EXIT_OK;
out:
	zbuf_release(&img);
	zt_http_resp_release(&r);
	session_close(&ses);
	zt_http_free(h);
	return ret;
}

int cmd_push(int argc, char **argv)
{
	struct push_cmd c = {.in = "zt.data", .symbols = 1, .retries = 5, .timeout = 30};
	struct push_config cfg = {0};
	struct remote_args ra;
	int rest, ret;

	if (remote_scrub_token(argc, argv, &ra)) { /* before anything else */
		fprintf(stderr, "zt push: out of memory\n");
		return ZT_EXIT_FAIL;
	}
	c.so.use_debuginfod = 1;
	c.so.use_cache = 1;
	{
		const struct opt opts[] = {
			{OPT_STRING, 'i', "input", &c.in, "file",
			 "the recording: zt.data or perf.data (default zt.data)"},
			{OPT_STRING, 0, "event", &c.event, "name",
			 "the event to push of a recording with several (default: each as a "
			 "profile)"},
			{OPT_STRING, 0, "server", &c.server, "url",
			 "the zt serve to push to (default: ZT_SERVER, or server.url of zt "
			 "config)"},
			{OPT_CALLBACK, 0, "label", &c, "key=value",
			 "a label of the profile on the server (repeatable)", add_label},
			{OPT_STRING, 0, "token", &c.token, "token",
			 "the push token (better: ZT_TOKEN, or server.token of zt config, in a "
			 "file of mode 0600)"},
			{OPT_STRING, 0, "cacert", &c.cacert, "file",
			 "verify an https server with the CA certificates of this PEM file "
			 "(default: server.cacert of zt config, CURL_CA_BUNDLE, SSL_CERT_FILE, "
			 "the system's)"},
			{OPT_BOOL, 0, "symbols", &c.symbols, NULL,
			 "send the symbols the server lacks or has worse ones of (default); "
			 "--no-symbols: do not"},
			{OPT_INT, 0, "retries", &c.retries, "n",
			 "tries again this many times on network errors, 5xx and 429 (default 5)"},
			{OPT_INT, 0, "timeout", &c.timeout, "s",
			 "give up a connection silent for S seconds (default 30)"},
			{OPT_BOOL, 'q', "quiet", &c.quiet, NULL, "no warnings, no progress bar"},
			SYMOPTS_OPTIONS(c.so),
			SYMOPTS_KERNEL_OPTIONS(c.so),
			OPT_EOL,
		};

		ret = opts_parse("push", push_usage, opts, argc, argv, &rest);
	}
	cmd_setup("push", c.quiet ? -1 : c.so.verbose);
	if (ret) {
		ret = ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
		goto out;
	}
	ret = ZT_EXIT_USAGE;
	if (rest < argc) {
		cmd_error("unexpected argument '%s': give the recording with -i (see 'zt push -h')",
			  argv[rest]);
		goto out;
	}
	if (c.retries < 0 || c.retries > 100 || c.timeout <= 0 || c.timeout > 86400) {
		cmd_error("--retries takes 0 to 100, --timeout 1 to 86400 seconds");
		goto out;
	}
	ret = remote_settings(&c.server, &c.token, &cfg, "the push");
	if (ret)
		goto out;
	ret = remote_ca(c.cacert, c.server, &c.ca);
	if (ret)
		goto out;
	ret = run(&c);
out:
	push_config_release(&cfg);
	symopts_release(&c.so);
	remote_args_release(&ra);
	return ret;
}
