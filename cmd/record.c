// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt record: sample CPU stacks (BPF sampler, or perf_event's own ring buffer
 * without privileges) plus the kernel's side-band into zt.data. The options,
 * the messages, when to stop and the files of --switch-output are here; the
 * engine is record/recorder.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/sampler.h"
#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/outfile.h"
#include "cmd/remote.h"
#include "cmd/symopts.h"
#include "cmd/targetopts.h"
#include "formats/ztdata.h"
#include "libprof/array.h"
#include "libprof/units.h"
#include "net/agentq.h"
#include "net/push.h"
#include "record/agent.h"
#include "record/gpurec.h"
#include "record/recorder.h"
#include "record/target.h"
#include "record/workload.h"
#include "session/session.h"
#include "symbolizer/buildid_cache.h"

#define FLUSH_NS 1000000000ull
#define PUSH_LABELS_MAX	   64
#define PUSH_QUEUE_DEFAULT (64ull << 20)
#define PUSH_WAIT_MS	   10000 /* at the end, for the last pieces */

/* zt push's exit code for a server that refuses the token */
enum { RECORD_EXIT_REFUSED = 3 };

/* --push: the agent mode's options and state (record/agent.h). */
struct push_opts {
	const char *url;	   /* --push */
	double interval;	   /* --push-interval, seconds */
	const char *labels[PUSH_LABELS_MAX + 1]; /* --label, then agent=HOST unless given */
	int nr_labels;
	const char *queue_size;	   /* --push-queue-size */
	uint64_t queue_bytes;	   /* ... in bytes */
	const char *spool;	   /* --push-spool */
	int symbols;		   /* --push-symbols (default), --no-push-symbols */
	char agent_label[128];	   /* "agent=HOST" */
	const char *token;
	const char *cacert;	   /* --cacert */
	struct remote_ca ca;	   /* the CA certificates of an https server */
	struct push_config cfg;	   /* the configuration file's, when read */
	struct symopts so;	   /* the symbol sources of the pieces' uploads */
	struct session_opts sopts; /* how the agent opens pieces */
	struct agent *agent;
	bool fatal;		   /* the server refused the token */
};

struct record {
	/* options */
	struct target tg; /* -a -p -t -C -e -F -c, and what they settle */
	int verbose, quiet;
	const char *callgraph_mode;
	double duration;
	int gpu;             /* --gpu */
	int timestamp;       /* -T: accepted, zt always records times */
	int no_buildid;      /* -B: no build-id cache either (as perf) */
	int no_buildid_cache; /* -N: binaries not copied to the build-id cache */
	int no_python;        /* --no-python: no Python frames */
	int stat;            /* -s: accepted, zt report -T counts any recording's threads */
	int data_addr;       /* -d: accepted, zt records no data addresses */
	const char *zlevel;  /* -z: accepted, zt.data is always compressed */
	const char *mmap_pages;    /* -m pages[,aux]: ring size per CPU */
	const char *max_size_str;  /* --max-size */
	const char *switch_output; /* --switch-output[=signal|SIZE|TIME] */
	int switch_max_files;      /* --switch-max-files */
	uint64_t max_size;         /* bytes; 0: none */
	uint64_t sw_size, sw_time; /* --switch-output at this size (bytes) or time (ns) */
	bool sw_signal;            /* ... on SIGUSR2 */
	uint64_t sw_last;          /* when the current file was started */
	char **sw_files;           /* the files written so far (--switch-max-files) */
	size_t nr_sw_files, cap_sw_files;
	uint64_t total_samples, total_bytes; /* of the files already switched out */
	struct gpurec_opts gpu_opts;
	struct push_opts push;

	/* the recording: -g, --call-graph, -i, -m, --exclude-perf, -u and -o
	 * are set in it (see record/recorder.h) */
	struct recorder rec;
	int fd;
	struct outfile out;    /* the output file, its new copy until sampling runs */
	bool output_given;     /* -o */
	bool started;          /* sampling ran: the output is worth keeping */

	/* the workload */
	char **command;        /* after the options, NULL-terminated; NULL: none */
	struct workload wl;
	int child_status;      /* valid when child_done */
	bool child_done;       /* it exited and was waited for */
};

static volatile sig_atomic_t stop_flag;
static volatile sig_atomic_t child_exited;
static volatile sig_atomic_t switch_flag; /* SIGUSR2 with --switch-output */
static volatile sig_atomic_t stop_again;  /* a second one: --push waits no longer */

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		child_exited = 1;
	else if (sig == SIGUSR2)
		switch_flag = 1;
	else {
		if (stop_flag)
			stop_again = 1;
		stop_flag = 1;
	}
}

/* ---- --push: the agent -------------------------------------------------- */

static double mb(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

/* What the agent says of a module's symbols (with -v): zt push's words. */
static void say_symbols(const struct agent_event *ev)
{
	const struct push_sent *s = ev->sent;
	char hex[2 * ZT_BUILD_ID_MAX + 1];
	int q;

	if (!ev->mod) {
		cmd_warn("the server at %s refused the request for missing symbols (%ld): %s; "
			 "no symbols sent",
			 ev->url, ev->status, s->why);
		return;
	}
	prof_build_id_hex(&ev->mod->id, hex);
	switch (s->what) {
	case PUSH_SENT:
		q = s->a.stored >= 0 ? s->a.stored : s->here;
		if (q == SYMQ_FULL)
			cmd_info("sent the full symbols of '%s' (%s)", ev->mod->path, hex);
		else
			cmd_info("sent the %s symbols of '%s' (%s): function names only (%s)",
				 push_quality_name(q), ev->mod->path, hex, s->why);
		break;
	case PUSH_KEPT_FULL:
		cmd_info("kept the server's full symbols of '%s' (%s)", ev->mod->path, hex);
		break;
	case PUSH_NONE_HERE:
		cmd_info("no symbols to send for '%s' (%s): %s", ev->mod->path, hex, s->why);
		break;
	case PUSH_NOT_BETTER:
	case PUSH_HAD:
		cmd_info("the server has symbols of '%s' (%s) as good as these already",
			 ev->mod->path, hex);
		break;
	case PUSH_REFUSED:
		cmd_warn("the server at %s refused the symbols of '%s' (%ld): %s", ev->url,
			 ev->mod->path, ev->status, s->why);
		break;
	}
}

/* The agent's events (from its thread): quiet but for trouble; each push
 * with -v. */
static void on_agent_event(void *ctx, const struct agent_event *ev)
{
	struct record *r = ctx;
	const struct agent_stats *st = &ev->st;

	flockfile(stderr); /* whole lines among the recorder's */
	switch (ev->kind) {
	case AGENT_PUSHED:
		cmd_info("pushed piece %llu: %llu samples from %llu to %llu ns, %zu bytes, %s %s; "
			 "pushed %llu pieces (%llu samples), dropped %llu (%llu samples), "
			 "queued %zu",
			 (unsigned long long)ev->seq, (unsigned long long)ev->samples,
			 (unsigned long long)ev->t_start, (unsigned long long)ev->t_end, ev->bytes,
			 ev->stored ? "stored as" : "already stored:", ev->id,
			 (unsigned long long)st->pushed_pieces,
			 (unsigned long long)st->pushed_samples,
			 (unsigned long long)st->dropped_pieces,
			 (unsigned long long)st->dropped_samples, ev->queued_pieces);
		break;
	case AGENT_AWAY:
		if (ev->status)
			cmd_warn("the server at %s is away (%ld: %s): keeping the pieces "
				 "(%zu queued, %.1f of %.1f MB) and trying again",
				 ev->url, ev->status, ev->why, ev->queued_pieces,
				 mb(ev->queued_bytes), mb(ev->queue_bytes));
		else
			cmd_warn("the server at %s is away (%s): keeping the pieces (%zu queued, "
				 "%.1f of %.1f MB) and trying again",
				 ev->url, ev->why, ev->queued_pieces, mb(ev->queued_bytes),
				 mb(ev->queue_bytes));
		break;
	case AGENT_BACK:
		cmd_warn("the server at %s is back after %.1f s: pushing the queued pieces",
			 ev->url, (double)ev->away_ms / 1000.0);
		break;
	case AGENT_DROPPED:
		cmd_warn("the server at %s %s: dropped %llu oldest piece%s (%llu samples), "
			 "the queue holds %zu (%.1f of %.1f MB; --push-queue-size)",
			 ev->url, ev->away ? "is away" : "takes the pieces slower than they come",
			 (unsigned long long)ev->dropped_pieces, ev->dropped_pieces == 1 ? "" : "s",
			 (unsigned long long)ev->dropped_samples, ev->queued_pieces,
			 mb(ev->queued_bytes), mb(ev->queue_bytes));
		break;
	case AGENT_TOO_BIG:
		cmd_warn("a piece of %.1f MB (%llu samples) is larger than the whole queue (%s): "
			 "dropped; give a larger --push-queue-size or a shorter --push-interval",
			 mb(ev->bytes), (unsigned long long)ev->samples,
			 r->push.queue_size ? r->push.queue_size : "64M");
		break;
	case AGENT_REFUSED:
		cmd_warn("the server at %s refused piece %llu (%ld: %s): dropped (%llu samples)",
			 ev->url, (unsigned long long)ev->seq, ev->status, ev->why,
			 (unsigned long long)ev->samples);
		break;
	case AGENT_FATAL:
		cmd_error("the server at %s refused the agent's token (%ld): %s; stopping", ev->url,
			  ev->status, ev->why);
		break;
	case AGENT_BAD_PIECE:
		cmd_warn("a piece of %llu samples is dropped: %s", (unsigned long long)ev->samples,
			 ev->why);
		break;
	case AGENT_SYMBOLS:
		say_symbols(ev);
		break;
	}
	funlockfile(stderr);
}

/* --push: the server's token as zt push takes it, the spool, the agent,
 * and whether the server takes the token (before anything is recorded).
 * ZT_EXIT_OK, or an exit code after a message. */
static int start_agent(struct record *r)
{
	struct push_opts *p = &r->push;
	struct agent_opts ao = {0};
	struct agent_stats st;
	char msg[1024];
	long status;
	int ret, err, spool = -1;

	if (!p->url)
		return ZT_EXIT_OK;
	ret = remote_settings(&p->url, &p->token, &p->cfg, "the pieces");
	if (!ret)
		ret = remote_ca(p->cacert, p->url, &p->ca);
	if (ret)
		return ret;
	if (p->spool && (spool = agentq_open_spool(p->spool, msg, sizeof(msg))) < 0) {
		cmd_error("%s", msg);
		return ZT_EXIT_FAIL;
	}
	/* the uploads' symbols: the GSYM cache and this host's files (the
	 * server asks debuginfod itself); no progress lines */
	p->so.use_cache = 1;
	p->so.verbose = -1;
	if (symopts_init(&p->so, "record")) {
		if (spool >= 0)
			close(spool);
		return ZT_EXIT_FAIL;
	}
	p->sopts.mo = &p->so.mo;
	p->sopts.kcache = p->so.have_cache ? &p->so.cache : NULL;
	ao.url = p->url;
	ao.token = p->token;
	ao.cainfo = p->ca.file;
	ao.capath = p->ca.dir;
	ao.labels = p->labels;
	ao.nr_labels = (size_t)p->nr_labels;
	ao.interval_ms = (unsigned)(p->interval * 1000);
	ao.queue_bytes = p->queue_bytes;
	ao.spool_fd = spool;
	ao.so = &p->sopts;
	ao.no_symbols = !p->symbols;
	ao.on_event = on_agent_event;
	ao.ctx = r;
	err = agent_new(&ao, &p->agent, msg, sizeof(msg));
	if (err) {
		cmd_error("%s", msg);
		return err == -EINVAL ? ZT_EXIT_USAGE : ZT_EXIT_FAIL;
	}
	err = agent_check(p->agent, &status, msg, sizeof(msg));
	if (err == -EACCES) {
		cmd_error("the server at %s refused the agent%s (%ld): %s", p->url,
			  status == 401 || status == 403 ? "'s token" : "", status, msg);
		p->fatal = true;
		return RECORD_EXIT_REFUSED;
	}
	/* a certificate not verified, CA files that cannot be used: not
	 * something waiting mends */
	if (err && (ret = remote_tls_failed(err, p->url, &p->ca, msg)))
		return ret;
	if (err)
		cmd_warn("the server at %s cannot be reached now (%s): recording anyway, "
			 "the pieces are kept until it can",
			 p->url, msg);
	agent_stats(p->agent, &st);
	if (st.spooled_pieces)
		cmd_note("%llu pieces of an earlier run (%llu samples) in '%s' go first",
			 (unsigned long long)st.spooled_pieces,
			 (unsigned long long)st.spooled_samples, p->spool);
	err = agent_start(p->agent);
	if (err) {
		cmd_error("cannot start the agent's thread: %s", strerror(-err));
		return ZT_EXIT_FAIL;
	}
	if (!r->quiet)
		fprintf(stderr, "[ zt record: pushing to %s every %g s ]\n", p->url, p->interval);
	return ZT_EXIT_OK;
}

/* A finished piece to the agent. */
static void hand_piece(struct record *r, const struct ztdata_stats *zst, uint64_t t_end)
{
	int fd = r->fd;

	r->fd = -1;
	/* -ENOMEM: dropped and counted */
	agent_put(r->push.agent, fd, (size_t)zst->bytes, zst->samples, r->sw_last, t_end);
}

/* The last pieces pushed, within a bounded wait, and the counts. */
static void finish_agent(struct record *r)
{
	struct push_opts *p = &r->push;
	struct agent_stats st;

	/* a signal (a second one, when one ended the recording) waits no longer */
	agent_finish(p->agent, PUSH_WAIT_MS, stop_flag ? &stop_again : &stop_flag);
	if (agent_fatal(p->agent))
		p->fatal = true;
	agent_stats(p->agent, &st);
	if (r->quiet)
		return;
	fprintf(stderr, "[ zt record: pushed %llu of %llu pieces (%llu of %llu samples) to %s",
		(unsigned long long)st.pushed_pieces, (unsigned long long)st.recorded_pieces,
		(unsigned long long)st.pushed_samples, (unsigned long long)st.recorded_samples,
		p->url);
	if (st.dropped_pieces)
		fprintf(stderr, "; dropped %llu (%llu samples)",
			(unsigned long long)st.dropped_pieces,
			(unsigned long long)st.dropped_samples);
	if (st.refused_pieces)
		fprintf(stderr, "; refused %llu (%llu samples)",
			(unsigned long long)st.refused_pieces,
			(unsigned long long)st.refused_samples);
	if (st.left_pieces)
		fprintf(stderr, "; %llu not pushed (%llu samples)%s",
			(unsigned long long)st.left_pieces, (unsigned long long)st.left_samples,
			p->spool ? ", kept in the spool" : ", lost");
	if (st.symbols_sent)
		fprintf(stderr, "; symbols of %llu modules sent",
			(unsigned long long)st.symbols_sent);
	fprintf(stderr, " ]\n");
}

/* ---- the main loop ----------------------------------------------------- */

/* The recording is made 0600 next to the output path and renamed into
 * place once sampling runs (see outfile.h): stack copies and the
 * addresses in it are for root and the sudo user alone. */
static int open_output(struct record *r)
{
	if (r->push.url) {
		/* --push: each piece in an anonymous file, handed to the agent
		 * when done (hand_piece()) */
		r->fd = memfd_create("zt-piece", MFD_CLOEXEC);
		if (r->fd < 0) {
			cmd_error("cannot make a piece in memory: %s", strerror(errno));
			return -1;
		}
		r->rec.w = ztdata_writer_new(r->fd);
		if (!r->rec.w) {
			cmd_error("cannot write a piece in memory: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (outfile_create(&r->out, r->rec.output, 0600, OUTFILE_STDOUT_OK))
		return -1;
	r->fd = r->out.fd;
	r->rec.w = ztdata_writer_new(r->fd);
	if (!r->rec.w) {
		cmd_error("cannot write '%s': %s", r->rec.output, strerror(errno));
		return -1;
	}
	return 0;
}

/* --call-graph fp | dwarf[,SIZE], as perf: SIZE rounded up to a multiple
 * of 8, from 8 to 65528. 0, or -1 after a message. */
static int parse_callgraph(struct record *r, const char *arg)
{
	const char *sz;
	unsigned long long v;
	char *end;

	if (!strcmp(arg, "fp")) {
		r->rec.callgraph = 1;
		r->rec.fp_only = true;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ',')) {
		if (!strcmp(arg, "lbr"))
			cmd_error("--call-graph lbr is not supported: use fp or dwarf");
		else
			cmd_error("unknown --call-graph mode '%s': use fp or dwarf[,size]", arg);
		return -1;
	}
	r->rec.callgraph = 1;
	r->rec.stack_size = 8192;
	if (!arg[5])
		return 0;
	sz = arg + 6;
	errno = 0;
	v = strtoull(sz, &end, 0);
	if (!*sz || *end || errno || sz[0] == '-' || sz[0] == '+' || v == 0 || v > PROF_USTACK_MAX) {
		cmd_error("bad stack dump size '%s' in --call-graph %s: give 1 to %u bytes "
			  "(rounded up to a multiple of 8; default 8192)", sz, arg, PROF_USTACK_MAX);
		return -1;
	}
	r->rec.stack_size = (uint32_t)((v + 7) & ~7ull);
	return 0;
}

static const char *const record_usage[] = {
	"zt record [<options>] [<command> [<args>]]",
	"zt record [<options>] -- <command> [<args>]",
	NULL,
};

/* An option whose value may be left out: "" then. */
static int opt_optional_string(const struct opt *o, const char *arg)
{
	*(const char **)o->value = arg ? arg : "";
	return 0;
}

static int opt_switch_output(const struct opt *o, const char *arg)
{
	*(const char **)o->value = arg ? arg : "signal";
	return 0;
}

/* --label KEY=VALUE, as zt push takes it. */
static int opt_push_label(const struct opt *o, const char *arg)
{
	struct push_opts *p = o->value;

	if (p->nr_labels >= PUSH_LABELS_MAX) {
		fprintf(stderr, "zt record: at most %d labels\n", PUSH_LABELS_MAX);
		return -1;
	}
	if (!strchr(arg, '=') || arg[0] == '=') {
		fprintf(stderr, "zt record: '%s' is not a label: give --label KEY=VALUE\n", arg);
		return -1;
	}
	p->labels[p->nr_labels++] = arg;
	return 0;
}

/* The options into r; the workload's command starts at argv[*rest]. What
 * opts_parse() returns. */
static int parse_options(struct record *r, int argc, char **argv, int *rest)
{
	const struct opt options[] = {
		{ OPT_BOOL, 'a', "all-cpus", &r->tg.all_cpus, NULL, "system-wide collection from all CPUs" },
		TARGET_OPTIONS(r->tg, "record"),
		{ OPT_U64, 'c', "count", &r->tg.period, "n", "sample every n events (ns for cpu-clock)" },
		{ OPT_BOOL, 'g', NULL, &r->rec.callgraph, NULL, "record call graphs (frame pointers)" },
		{ OPT_BOOL, 0, "all-user", &r->tg.all_user, NULL,
		  "sample in user space only (every event, as :u)" },
		{ OPT_BOOL, 0, "all-kernel", &r->tg.all_kernel, NULL,
		  "sample in the kernel only (every event, as :k)" },
		{ OPT_STRING, 0, "call-graph", &r->callgraph_mode, "mode",
		  "fp (frame pointers, as -g), or dwarf[,size]: also the user registers and size "
		  "bytes of user stack per sample (default 8192, at most 65528), to unwind code "
		  "without frame pointers" },
		{ OPT_STRING, 'o', "output", &r->rec.output, "file", "output file name (default zt.data; an existing one becomes FILE.old)" },
		{ OPT_DOUBLE, 0, "duration", &r->duration, "secs", "stop after this many seconds" },
		{ OPT_BOOL, 0, "gpu", &r->gpu, NULL,
		  "also record CUDA programs' GPU side: kernels with their launch stacks, memory "
		  "copies, PC samples with stall reasons and cubins (through CUPTI; with -a or -p, "
		  "prints the variables to start CUDA programs with)" },
		{ OPT_STRING, 0, "gpu-pcs", &r->gpu_opts.pcs, "mode",
		  "GPU PC sampling: continuous (default: kernels run concurrently), serialized "
		  "(samples tied to each launch; kernels serialized) or off" },
		{ OPT_INT, 0, "gpu-pcs-period", &r->gpu_opts.pcs_period, "n",
		  "GPU PC sampling period: one sample every 2^n cycles per SM (5 to 31; default CUPTI's)" },
		{ OPT_STRING, 0, "gpu-opts", &r->gpu_opts.extra, "key=n,...",
		  "more of the GPU library's settings: pcs_hwbuf_mb, pcs_scratch_mb and "
		  "pcs_sleep_ms (CUPTI's PC-sampling buffers and worker sleep), mem_mb (its "
		  "memory cap, default 64), flush_ms (default 500)" },
		{ OPT_INT, 0, "gpu-stack-rate", &r->gpu_opts.stack_rate, "n",
		  "launch stacks per second and thread (default 100; launches past it have no stack)" },
		{ OPT_STRING, 0, "gpu-stacks", &r->gpu_opts.stacks, "how",
		  "launch stacks: usdt (zt's BPF sampler at the library's probe), unwind (libunwind "
		  "in the process) or off; default usdt when recording with BPF, else unwind" },
		{ OPT_BOOL, 'i', "no-inherit", &r->rec.no_inherit, NULL,
		  "child tasks do not inherit counters: only the threads there at the start "
		  "(the command's first thread, or those of -p), not threads or processes created later" },
		{ OPT_STRING, 'm', "mmap-pages", &r->mmap_pages, "pages[,pages]",
		  "ring buffer data pages per CPU (a power of two, or a size such as 512K); "
		  "a second value (perf's AUX area) is ignored" },
		{ OPT_STRING, 0, "max-size", &r->max_size_str, "size",
		  "stop when the output reaches this size (B/K/M/G)" },
		{ OPT_CALLBACK, 0, "switch-output", &r->switch_output, "signal|size|time",
		  "write the recording in pieces, FILE.YYYYMMDDhhmmssNN each: on SIGUSR2 (signal, "
		  "the default), at a size (10M) or every period (30s, 5m, 1h, 1d)",
		  opt_switch_output, 1 },
		{ OPT_INT, 0, "switch-max-files", &r->switch_max_files, "n",
		  "with --switch-output: keep only the n newest files" },
		{ OPT_STRING, 0, "push", &r->push.url, "url",
		  "agent mode: record until stopped, pushing the recording to this zt serve in "
		  "pieces (the token: ZT_TOKEN, or server.token of zt config)" },
		{ OPT_DOUBLE, 0, "push-interval", &r->push.interval, "secs",
		  "with --push: the length of a piece (default 10)" },
		{ OPT_CALLBACK, 0, "label", &r->push, "key=value",
		  "with --push: a label of every piece on the server (repeatable; default "
		  "agent=HOST)", opt_push_label },
		{ OPT_STRING, 0, "push-queue-size", &r->push.queue_size, "size",
		  "with --push: the bytes of pieces kept while the server is away (default 64M); "
		  "past it the oldest are dropped" },
		{ OPT_STRING, 0, "push-spool", &r->push.spool, "dir",
		  "with --push: keep the queue in this directory (made 0700; root's own), not in "
		  "memory: pieces outlive a restart" },
		{ OPT_STRING, 0, "cacert", &r->push.cacert, "file",
		  "with --push: verify an https server with the CA certificates of this PEM file "
		  "(default: server.cacert of zt config, CURL_CA_BUNDLE, SSL_CERT_FILE, the "
		  "system's)" },
		{ OPT_BOOL, 0, "push-symbols", &r->push.symbols, NULL,
		  "with --push: send the symbols the server lacks (default); --no-push-symbols: "
		  "do not" },
		{ OPT_BOOL, 'T', "timestamp", &r->timestamp, NULL,
		  "accepted as perf's: zt always records sample times" },
		{ OPT_STRING, 'u', "uid", &r->rec.uid_str, "user",
		  "record the processes of this user (name or number) only, on every CPU" },
		{ OPT_CALLBACK, 0, "filter", &r->tg, "filter",
		  "a filter for the tracepoint of the -e before it (perf's and the kernel's "
		  "syntax: 'prev_pid != 0 && prev_prio < 100')", target_opt_filter },
		{ OPT_BOOL, 0, "exclude-perf", &r->rec.exclude_perf, NULL,
		  "leave out the samples of zt record itself" },
		{ OPT_BOOL, 'B', "no-buildid", &r->no_buildid, NULL,
		  "as perf's: binaries are not copied to the build-id cache (build ids still come "
		  "with the mappings: zt has no build-id pass at the end)" },
		{ OPT_BOOL, 0, "no-python", &r->no_python, NULL,
		  "do not read Python functions and lines from CPython 3.11-3.13 processes (-g)" },
		{ OPT_BOOL, 'N', "no-buildid-cache", &r->no_buildid_cache, NULL,
		  "do not copy the sampled binaries to the build-id cache" },
		{ OPT_BOOL, 's', "stat", &r->stat, NULL,
		  "accepted as perf's: zt report -T shows each thread's count of any recording" },
		{ OPT_BOOL, 'd', "data", &r->data_addr, NULL,
		  "accepted as perf's, without effect: zt records no data addresses" },
		{ OPT_CALLBACK, 'z', "compression-level", &r->zlevel, "n",
		  "accepted as perf's: zt.data is always compressed (zstd)", opt_optional_string, 1 },
		{ OPT_COUNT, 'v', "verbose", &r->verbose, NULL, "be more verbose (show the sampler chosen, libbpf messages)" },
		{ OPT_BOOL, 'q', "quiet", &r->quiet, NULL, "do not print any message" },
		OPT_EOL
	};

	return opts_parse("record", record_usage, options, argc, argv, rest);
}

/* -m pages[,aux]: a power of two, or a size rounded up to one, as perf. */
static int parse_mmap_pages(struct record *r)
{
	long psz = sysconf(_SC_PAGESIZE);
	char buf[64], *comma;
	uint64_t v;

	snprintf(buf, sizeof(buf), "%s", r->mmap_pages);
	if ((comma = strchr(buf, ',')))
		*comma = 0;
	if (!zt_parse_size(buf, ZT_SIZE_NEED_UNIT, &v)) {
		v = (v + (uint64_t)psz - 1) / (uint64_t)psz;
		while (v & (v - 1))
			v += v & -v; /* up to a power of two */
	} else if (zt_parse_size(buf, 0, &v) || !v || (v & (v - 1))) {
		cmd_error("-m '%s': give a number of pages that is a power of two, or a size "
			  "such as 512K", r->mmap_pages);
		return -1;
	}
	if (v > 65536) {
		cmd_error("-m '%s': at most 65536 pages per CPU", r->mmap_pages);
		return -1;
	}
	r->rec.ring_pages = v ? (unsigned)v : 1;
	if (comma)
		cmd_info("-m: the second value (perf's AUX area pages) is ignored: zt uses no AUX area");
	return 0;
}

/* -m, --max-size, --switch-output and their partners. 0, or -1 after a
 * message. */
static int check_output_options(struct record *r)
{
	const char *so = r->switch_output;
	int ret;

	if (r->mmap_pages && parse_mmap_pages(r))
		return -1;
	if (r->max_size_str && (zt_parse_size(r->max_size_str, 0, &r->max_size) || !r->max_size)) {
		cmd_error("--max-size '%s': give a size such as 100M (B, K, M or G)", r->max_size_str);
		return -1;
	}
	if (!so) {
		if (r->switch_max_files) {
			cmd_error("--switch-max-files goes with --switch-output");
			return -1;
		}
		return 0;
	}
	if (!strcmp(r->rec.output, "-")) {
		cmd_error("--switch-output writes files: give -o FILE, not standard output");
		return -1;
	}
	if (r->gpu) {
		cmd_error("--switch-output with --gpu is not supported yet: record the GPU side "
			  "in one file");
		return -1;
	}
	if (r->switch_max_files < 0) {
		cmd_error("--switch-max-files %d: give a number of files, 1 or more",
			  r->switch_max_files);
		return -1;
	}
	if (!strcmp(so, "signal"))
		r->sw_signal = true;
	else if ((ret = zt_parse_size(so, ZT_SIZE_NEED_UNIT, &r->sw_size)) != -EINVAL)
		ret = ret || !r->sw_size ? -1 : 0;
	else
		ret = zt_parse_duration(so, &r->sw_time) || !r->sw_time ? -1 : 0;
	if (!r->sw_signal && ret) {
		cmd_error("--switch-output '%s': give signal, a size (such as 100M) or a time "
			  "(such as 30s, 5m, 1h)", so);
		return -1;
	}
	return 0;
}

/* --push and its partners: 0, or -1 after a message. */
static int check_push_options(struct record *r)
{
	struct push_opts *p = &r->push;
	struct utsname u;
	int i;

	if (!p->url) {
		if (p->interval || p->nr_labels || p->queue_size || p->spool || !p->symbols ||
		    p->cacert) {
			cmd_error("--push-interval, --label, --push-queue-size, --push-spool, "
				  "--cacert and --no-push-symbols go with --push URL");
			return -1;
		}
		return 0;
	}
	if (!*p->url) {
		cmd_error("--push: give the URL of a zt serve (http://HOST:PORT)");
		return -1;
	}
	if (r->output_given || r->switch_output || r->max_size_str) {
		cmd_error("--push sends the recording to the server in pieces: not with %s",
			  r->output_given	 ? "-o"
			  : r->switch_output ? "--switch-output"
					     : "--max-size");
		return -1;
	}
	if (r->gpu) {
		cmd_error("--push with --gpu is not supported yet: record the GPU side into a file "
			  "and 'zt push' it");
		return -1;
	}
	if (r->tg.nr_evs > 1) {
		cmd_error("--push sends one event: give one -e (the server keeps one event a "
			  "profile)");
		return -1;
	}
	if (!p->interval)
		p->interval = 10;
	if (!(p->interval >= 1 && p->interval <= 86400)) {
		cmd_error("--push-interval %g: give 1 to 86400 seconds", p->interval);
		return -1;
	}
	r->sw_time = (uint64_t)(p->interval * 1e9);
	p->queue_bytes = PUSH_QUEUE_DEFAULT;
	if (p->queue_size &&
	    (zt_parse_size(p->queue_size, ZT_SIZE_LONG_UNIT, &p->queue_bytes) || !p->queue_bytes)) {
		cmd_error("--push-queue-size '%s': give a size such as 64M (B, K, M or G)",
			  p->queue_size);
		return -1;
	}
	/* the agent's own label, unless one is given */
	for (i = 0; i < p->nr_labels && strncmp(p->labels[i], "agent=", 6); i++)
		;
	if (i == p->nr_labels) {
		uname(&u);
		snprintf(p->agent_label, sizeof(p->agent_label), "agent=%s", u.nodename);
		p->labels[p->nr_labels++] = p->agent_label;
	}
	r->rec.output = "the piece";
	return 0;
}

/* -u USER: a name, or the number of a user (perf's parse_uid()); the
 * user's processes on every CPU. 0, or -1 after a message. */
static int check_uid(struct record *r)
{
	struct passwd *pw = getpwnam(r->rec.uid_str);
	char *end;
	long v;

	if (!pw) {
		errno = 0;
		v = strtol(r->rec.uid_str, &end, 10);
		if (!errno && end != r->rec.uid_str && !*end && v >= 0 && v <= INT_MAX)
			pw = getpwuid((uid_t)v);
	}
	if (!pw) {
		cmd_error("-u '%s': no such user: give a user name or number", r->rec.uid_str);
		return -1;
	}
	if (r->tg.pids || r->tg.tids || r->tg.cpu_list) {
		cmd_error("-u goes alone: not with -p, -t or -C (perf's rule)");
		return -1;
	}
	r->rec.uid = pw->pw_uid;
	r->tg.all_cpus = 1;
	return 0;
}

/* What the options settle, and whether they go together: ZT_EXIT_OK, or
 * ZT_EXIT_USAGE after a message. */
static int check_options(struct record *r)
{
	struct target *tg = &r->tg;

	if (r->callgraph_mode && parse_callgraph(r, r->callgraph_mode))
		return ZT_EXIT_USAGE;
	if (target_parse_event(tg))
		return ZT_EXIT_USAGE;
	if (tg->pids && tg->tids) {
		cmd_error("give only one of -p and -t");
		return ZT_EXIT_USAGE;
	}
	if (r->rec.uid_str && check_uid(r))
		return ZT_EXIT_USAGE;
	/* perf's rule: no target and no command is the whole system, until
	 * Ctrl-C (or --duration) */
	if (!tg->all_cpus && !tg->cpu_list && !tg->pids && !tg->tids && !r->command)
		tg->all_cpus = 1;
	if (!r->gpu && (r->gpu_opts.pcs || r->gpu_opts.pcs_period || r->gpu_opts.stack_rate ||
			r->gpu_opts.stacks || r->gpu_opts.extra)) {
		cmd_error("the --gpu-* options go with --gpu");
		return ZT_EXIT_USAGE;
	}
	if (r->gpu && gpurec_check(&r->gpu_opts))
		return ZT_EXIT_USAGE;
	if (check_output_options(r) || check_push_options(r))
		return ZT_EXIT_USAGE;
	if (r->timestamp)
		cmd_info("-T: zt always records sample times");
	if (r->zlevel)
		cmd_info("-z: zt.data is always compressed (zstd)");
	if (r->stat)
		cmd_note("-s has no effect: 'zt report -T' shows each thread's count of any "
			 "recording");
	if (r->data_addr)
		cmd_note("-d has no effect: zt records no data addresses (cpu-clock has none: "
			 "perf records 0)");
	r->rec.self_pid = (uint32_t)getpid();
	return ZT_EXIT_OK;
}

/* Privileges decide the sampler before anything starts. 0, or -1 after a
 * message. */
static int choose_sampler(struct record *r)
{
	struct target *tg = &r->tg;
	const char *missing;

	r->rec.privileged = target_privileged(&missing);
	if (!r->rec.privileged && (tg->all_cpus || tg->cpu_list)) {
		target_privileges_error(r->rec.uid_str     ? "recording a user's processes (-u)"
					: tg->all_cpus ? "system-wide recording (-a)"
						       : "system-wide recording (-C)",
					missing);
		return -1;
	}
	for (size_t k = 0; !r->rec.privileged && k < tg->nr_evs; k++) {
		if (tg->evs[k].exclude_user || evsel_is_tracepoint(&tg->evs[k])) {
			target_privileges_error(tg->evs[k].exclude_user
							? "kernel-only sampling (:k, --all-kernel)"
							: "tracepoint sampling",
						missing);
			return -1;
		}
	}
	if (target_check_events(tg))
		return -1;
	/* several events, tracepoints, kernel-only: perf_event's ring buffer */
	r->rec.use_bpf = r->rec.privileged && target_bpf_events(tg) && target_bpf_loadable();
	if (!r->rec.privileged)
		cmd_warn("not root and no CAP_BPF/CAP_PERFMON: recording user-space stacks of %s only, through perf_event "
			 "(run with sudo for kernel stacks and -a)",
			 r->command ? "the command" : "the given processes");
	r->rec.path_kind = r->rec.use_bpf ? "bpf" : "perf_event";
	r->rec.want_kernel = r->rec.privileged;
	r->rec.filtered = !tg->all_cpus && !tg->cpu_list;
	return 0;
}

/* The command is what is recorded (perf's rule: with -p or -t it only
 * bounds the recording, as `-p PID -- sleep 5` does). */
static bool workload_traced(const struct record *r)
{
	return r->wl.pid > 0 && !r->tg.pids && !r->tg.tids;
}

/* The output file, the build-id cache, and whether the file may show
 * kernel addresses. 0, or -1 after a message. */
static int prepare_output(struct record *r)
{
	if (open_output(r))
		return -1;
	/* -B and -N: perf leaves its cache alone with either */
	r->rec.cache_ok = !r->no_buildid && !r->no_buildid_cache && !buildid_cache_init(&r->rec.cache);
	r->rec.python = !r->no_python;
	/* the file goes to the sudo user (or, a stream, to whoever reads it):
	 * kernel addresses only if they may see them */
	r->rec.hide_kaddr = r->rec.privileged &&
			    recorder_must_hide_kaddr(r->out.handed_over, r->out.stream);
	if (r->rec.hide_kaddr) {
		cmd_info("'%s' goes to the sudo user, who may not read kernel addresses: kernel "
			 "frames are stored as symbol slots, not addresses (see zt-data(5))",
			 r->rec.output);
		/* the symbols are needed before the first sample (0.2 s, less from the cache) */
		recorder_read_kernel(&r->rec);
	}
	return 0;
}

/* The workload forked (held until sampling runs), and the processes to
 * track. 0, or -1 after a message. */
static int prepare_workload(struct record *r)
{
	int err, i;

	signal(SIGPIPE, SIG_IGN);
	if (r->gpu) {
		r->gpu_opts.workload = r->command && !r->tg.pids && !r->tg.tids;
		r->gpu_opts.verbose = r->verbose > 0;
		/* without BPF the library unwinds launches itself (libunwind);
		 * with it, zt's sampler takes them at the probe, as samples */
		if (!r->gpu_opts.stacks && !r->rec.use_bpf)
			r->gpu_opts.stacks = "unwind";
		if (gpurec_new(&r->gpu_opts, &r->rec.gr))
			return -1;
		gpurec_export(r->rec.gr);
		r->rec.gpu_stacks = r->gpu_opts.stacks;
	}
	if (r->command &&
	    (err = workload_prepare(&r->wl, r->command, !strcmp(r->rec.output, "-")))) {
		cmd_error("cannot start '%s': %s", r->command[0], strerror(-err));
		return -1;
	}
	if (workload_traced(r)) {
		r->rec.traced = r->wl.pid;
		recorder_track(&r->rec, (uint32_t)r->wl.pid);
	}
	for (i = 0; i < r->tg.nr_pids; i++)
		recorder_track(&r->rec, (uint32_t)r->tg.pid_list[i]);
	return 0;
}

/* The header (argc, argv: zt record's own, for its command line), the
 * signals caught, then the side-band, the processes already there, and
 * the samples. 0, or -1 after a message. */
static int start_sampling(struct record *r, int argc, char **argv)
{
	struct sigaction sa;

	r->rec.t_start = r->sw_last = recorder_now();
	r->rec.argc = argc;
	r->rec.argv = argv;
	recorder_write_header(&r->rec, r->rec.t_start);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	if (r->sw_signal)
		sigaction(SIGUSR2, &sa, NULL);
	return recorder_start(&r->rec);
}

/* Let the workload exec (perf_event sampling starts with it). 0, or -1
 * after a message. */
static int start_workload(struct record *r)
{
	int err;

	if (r->wl.pid <= 0)
		return 0;
	err = workload_start(&r->wl);
	if (err) {
		cmd_error("cannot run '%s': %s", r->command[0], strerror(-err));
		waitpid(r->wl.pid, NULL, 0);
		r->wl.pid = -1;
		return -1;
	}
	return 0;
}

static bool switch_due(struct record *r, uint64_t t);
static int switch_output(struct record *r);
static bool size_limit(struct record *r);

/* Drain the rings until a signal, the end of --duration, of the workload
 * or of every target, or a write error; settle the side-band and flush
 * the file every FLUSH_NS. */
static void run_loop(struct record *r)
{
	struct target *tg = &r->tg;
	uint64_t last_flush, deadline = 0;

	if (r->duration > 0)
		deadline = r->rec.t_start + (uint64_t)(r->duration * 1e9);
	last_flush = recorder_now();

	while (!stop_flag) {
		uint64_t t;

		if (recorder_drain(&r->rec))
			break;
		if (r->push.agent && agent_fatal(r->push.agent))
			break;
		if (child_exited && r->wl.pid > 0 && !r->child_done) {
			child_exited = 0;
			if (waitpid(r->wl.pid, &r->child_status, WNOHANG) == r->wl.pid) {
				r->child_done = true;
				break;
			}
		}
		t = recorder_now();
		if (deadline && t >= deadline)
			break;
		if (switch_due(r, t) && switch_output(r))
			break;
		if (t - last_flush >= FLUSH_NS || recorder_flush_due(&r->rec)) {
			recorder_flush(&r->rec);
			last_flush = t;
			if (r->rec.err || size_limit(r))
				break;
			/* like perf: stop when every target is gone */
			if ((tg->nr_pids || tg->nr_tids) && !target_alive(tg))
				break;
		}
	}
}

/* Stop the workload if it still runs, then the sampling, and drain what
 * is still queued. */
static void stop_sampling(struct record *r)
{
	/* Interrupted, timed out or failed with the workload still running:
	 * end it, as perf does, so zt does not wait for it. */
	if (r->wl.pid > 0 && !r->child_done)
		kill(r->wl.pid, SIGTERM);
	recorder_stop(&r->rec);
}

/* ---- --switch-output ---------------------------------------------------- */

/* The finished piece goes to FILE.YYYYMMDDhhmmssNN (perf's names: local
 * time, then hundredths of a second); the oldest go past
 * --switch-max-files. 0, or -1 after a message. */
static int commit_piece(struct record *r)
{
	char ts[32], dt[24], *name;
	struct timespec now;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &tm);
	snprintf(ts, sizeof(ts), "%s%02u", dt, (unsigned)(now.tv_nsec / 10000000));
	if (asprintf(&name, "%s.%s", r->rec.output, ts) < 0 || outfile_rename(&r->out, name)) {
		cmd_error("out of memory");
		return -1;
	}
	if (outfile_commit(&r->out, false)) {
		free(name);
		return -1;
	}
	if (!r->quiet)
		fprintf(stderr, "[ zt record: Dump %s ]\n", name);
	if (ZT_GROW(r->sw_files, r->cap_sw_files, r->nr_sw_files + 1)) {
		free(name);
		return 0;
	}
	r->sw_files[r->nr_sw_files++] = name;
	if (r->switch_max_files && r->nr_sw_files > (size_t)r->switch_max_files) {
		/* rotate: the oldest goes (a file zt named and made) */
		if (unlink(r->sw_files[0]) && errno != ENOENT)
			cmd_warn("cannot remove '%s': %s", r->sw_files[0], strerror(errno));
		free(r->sw_files[0]);
		memmove(r->sw_files, r->sw_files + 1, --r->nr_sw_files * sizeof(*r->sw_files));
	}
	return 0;
}

/* End the current file and go on in a new one, which starts with the
 * header and the processes as they are now (perf synthesizes them
 * again too). 0, or -1 after a message: the recording stops. */
static int switch_output(struct record *r)
{
	struct ztdata_stats zst;
	uint64_t t = recorder_now();

	if (recorder_end_file(&r->rec, false, t))
		return -1;
	ztdata_writer_stats(r->rec.w, &zst);
	r->total_samples += zst.samples;
	r->total_bytes += zst.bytes;
	ztdata_writer_free(r->rec.w);
	r->rec.w = NULL;
	if (r->push.url)
		hand_piece(r, &zst, t);
	else if (commit_piece(r))
		return -1;
	outfile_release(&r->out);
	if (open_output(r))
		return -1;
	r->sw_last = t;
	recorder_new_file(&r->rec, t);
	return 0;
}

/* Whether the current file is due to be switched out. */
static bool switch_due(struct record *r, uint64_t t)
{
	struct ztdata_stats zst;

	if (!r->switch_output && !r->push.url)
		return false;
	if (switch_flag) {
		switch_flag = 0;
		return true;
	}
	if (r->sw_time)
		return t - r->sw_last >= r->sw_time;
	if (r->sw_size) {
		ztdata_writer_stats(r->rec.w, &zst);
		return zst.bytes >= r->sw_size;
	}
	return false;
}

/* --max-size reached (checked after each flush). */
static bool size_limit(struct record *r)
{
	struct ztdata_stats zst;

	if (!r->max_size)
		return false;
	ztdata_writer_stats(r->rec.w, &zst);
	if (r->total_bytes + zst.bytes < r->max_size)
		return false;
	if (!r->quiet)
		fprintf(stderr, "[ zt record: size limit reached (%llu KB), stopping ]\n",
			(unsigned long long)((r->total_bytes + zst.bytes) / 1024));
	return true;
}

static int finish_output(struct record *r)
{
	struct ztdata_stats zst;

	if (recorder_end_file(&r->rec, true, r->rec.t_end))
		return -1;
	if (r->push.url) {
		ztdata_writer_stats(r->rec.w, &zst);
		hand_piece(r, &zst, r->rec.t_end);
		return 0;
	}
	return r->switch_output ? commit_piece(r) : 0;
}

/* perf's closing lines on stderr, and with -v the sampler's costs. */
static void print_summary(struct record *r)
{
	const struct sampler_stats *sst = &r->rec.sst;
	struct ztdata_stats zst;

	ztdata_writer_stats(r->rec.w, &zst);
	if (r->quiet)
		return;
	if (!r->push.url)
		fprintf(stderr, "[ zt record: Captured and wrote %.3f MB %s (%llu samples) ]\n",
			(double)(r->total_bytes + zst.bytes) / (1024.0 * 1024.0),
			r->nr_sw_files ? r->sw_files[r->nr_sw_files - 1] : r->rec.output,
			(unsigned long long)(r->total_samples + zst.samples));
	if (r->rec.gr)
		gpurec_summary(r->rec.gr);
	if (r->rec.lost_samples || r->rec.lost_events)
		fprintf(stderr, "[ zt record: lost %llu samples and %llu side-band events ]\n",
			(unsigned long long)r->rec.lost_samples, (unsigned long long)r->rec.lost_events);
	else
		fprintf(stderr, "[ zt record: no samples lost ]\n");
	if (r->rec.use_bpf && sst->run_cnt)
		cmd_info("BPF program: %llu runs, %.3f us per run, %.3f us per sample sent",
			 (unsigned long long)sst->run_cnt,
			 (double)sst->run_ns / 1000.0 / (double)sst->run_cnt,
			 sst->samples ? (double)sst->run_ns / 1000.0 / (double)sst->samples : 0.0);
	if (r->rec.stack_size)
		cmd_info("stack snapshots: %llu of %llu samples, %.1f KiB of stack each on average "
			 "(%.3f MB in all); the file: %.1f bytes per sample",
			 (unsigned long long)r->rec.ustacks, (unsigned long long)zst.samples,
			 r->rec.ustacks ? (double)r->rec.ustack_bytes / 1024.0 / (double)r->rec.ustacks : 0.0,
			 (double)r->rec.ustack_bytes / (1024.0 * 1024.0),
			 zst.samples ? (double)zst.bytes / (double)zst.samples : 0.0);
}

/* The workload waited for: ended first when it still runs after a failure,
 * and never run when it was held. Returns ret, or after a success the
 * workload's exit status, which zt record passes on. */
static int end_workload(struct record *r, int ret)
{
	if (r->wl.pid > 0 && !r->child_done) {
		if (r->wl.go_fd >= 0) {
			/* never started: let it die without running */
			close(r->wl.go_fd);
			r->wl.go_fd = -1;
		}
		if (ret != ZT_EXIT_OK)
			kill(r->wl.pid, SIGTERM);
		while (waitpid(r->wl.pid, &r->child_status, 0) < 0 && errno == EINTR)
			;
		r->child_done = true;
	}
	if (r->child_done && ret == ZT_EXIT_OK) {
		/* pass the workload's status on */
		if (WIFEXITED(r->child_status))
			ret = WEXITSTATUS(r->child_status);
		else if (WIFSIGNALED(r->child_status))
			ret = 128 + WTERMSIG(r->child_status);
	}
	return ret;
}

static void record_release(struct record *r)
{
	if (r->wl.go_fd >= 0)
		close(r->wl.go_fd);
	if (r->wl.err_fd >= 0)
		close(r->wl.err_fd);
	/* the writer first: outfile_release() removes its file when nothing
	 * was recorded (the old one stays as it was) */
	recorder_release(&r->rec);
	gpurec_free(r->rec.gr);
	outfile_release(&r->out);
	if (r->push.url && r->fd >= 0)
		close(r->fd); /* a piece not handed over */
	agent_free(r->push.agent);
	symopts_release(&r->push.so);
	push_config_release(&r->push.cfg);
	for (size_t k = 0; k < r->nr_sw_files; k++)
		free(r->sw_files[k]);
	free(r->sw_files);
	target_release(&r->tg);
}

int cmd_record(int argc, char **argv)
{
	struct record r = { .fd = -1, .tg = { .event = "cycles", .multi = 1 },
			    .out = { .fd = -1, .dirfd = -1 }, .wl = { -1, -1, -1 } };
	int rest, ret;

	recorder_init(&r.rec, &r.tg);
	r.push.symbols = 1;
	switch (parse_options(&r, argc, argv, &rest)) {
	case OPTS_HELP:
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		return ZT_EXIT_USAGE;
	}
	r.output_given = r.rec.output != NULL;
	if (!r.output_given)
		r.rec.output = "zt.data";
	cmd_setup("record", r.quiet ? -1 : r.verbose);
	r.command = rest < argc ? argv + rest : NULL;
	ret = check_options(&r);
	if (ret != ZT_EXIT_OK)
		return ret;
	ret = target_ids_exit(target_parse_ids(&r.tg));
	if (ret != ZT_EXIT_OK)
		goto out;
	ret = ZT_EXIT_FAIL;
	if (choose_sampler(&r))
		goto out;
	ret = start_agent(&r);
	if (ret != ZT_EXIT_OK)
		goto out;
	ret = ZT_EXIT_FAIL;
	if (prepare_output(&r) || prepare_workload(&r) ||
	    recorder_open(&r.rec) || recorder_open_sideband(&r.rec) ||
	    start_sampling(&r, argc, argv) || start_workload(&r))
		goto out;
	/* running: the new recording replaces the old one (which becomes .old);
	 * --switch-output names each file when it is done */
	if (!r.switch_output && !r.push.url && outfile_commit(&r.out, true))
		goto out;
	r.started = true;
	run_loop(&r);
	stop_sampling(&r);
	if (finish_output(&r))
		goto out;
	if (r.push.agent)
		finish_agent(&r);
	print_summary(&r);
	ret = r.push.fatal ? RECORD_EXIT_REFUSED : ZT_EXIT_OK;
out:
	/* after a failure with the workload held or running, it is ended */
	ret = end_workload(&r, ret);
	record_release(&r);
	return ret;
}
