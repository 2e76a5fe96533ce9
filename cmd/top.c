// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt top: live profile of the machine (or of some processes) with the
 * BPF sampler, its hottest functions refreshed every second, on a full
 * screen like perf top, or as text snapshots with --stdio.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "bpf/perfev.h"
#include "bpf/procsynth.h"
#include "bpf/sampler.h"
#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/symopts.h"
#include "symbolizer/ksource.h"
#include "cmd/targetopts.h"
#include "cmd/topstate.h"
#include "cmd/top_tui.h"
#include "cmd/tui.h"
#include "libprof/log.h"
#include "record/kunwind.h"
#include "record/mapfile.h"
#include "session/session.h"
#include "symbolizer/kcache.h"

#define TICK_MS 100 /* rings drained, keys read this often */

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	stop_flag = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- sampling ---- */

/*
 * Events travel from the sampling thread (which drains the rings every
 * TICK_MS, whatever the screen is doing: a dialog, a long first resolve)
 * to the model through a queue of records, taken whole at each refresh.
 */
enum { Q_SAMPLE = 1, Q_TASK, Q_MMAP };
#define QUEUE_MAX (64u << 20) /* past this (no refresh for long), samples are dropped as lost */

struct qrec {
	uint32_t kind, size; /* size of the record, header included, a multiple of 8 */
};

struct qsample {
	uint64_t ts, weight;
	uint32_t pid, tid, cpu;
	uint16_t nk, nu; /* then the addresses */
};

struct queue {
	unsigned char *buf;
	size_t len, cap;
};

struct sampling {
	pthread_t thread;
	pthread_mutex_t lock;
	int running, stop;
	int callchain;
	struct sampler *smp;
	struct kunwind *ku;   /* the kernel unwinder's tables (-g with BPF), kept in step
				 with the side-band on the thread */
	struct mapfile_ids bids; /* build ids the side-band lacked, read from files */
	struct perfev *pev, *sideband;
	struct queue q;       /* filled by the thread, under lock */
	uint64_t lost, lost_events, dropped; /* under lock */
	int err;              /* the thread's first error, under lock */
};

static void *q_reserve(struct sampling *s, uint32_t kind, size_t size)
{
	struct qrec *r;
	size_t need = (sizeof(*r) + size + 7) & ~(size_t)7;

	if (s->q.len + need > QUEUE_MAX)
		return NULL;
	if (s->q.len + need > s->q.cap) {
		size_t cap = s->q.cap ? s->q.cap : 1u << 16;
		unsigned char *b;

		while (cap < s->q.len + need)
			cap *= 2;
		b = realloc(s->q.buf, cap);
		if (!b) {
			if (!s->err)
				s->err = -ENOMEM;
			return NULL;
		}
		s->q.buf = b;
		s->q.cap = cap;
	}
	r = (struct qrec *)(s->q.buf + s->q.len);
	r->kind = kind;
	r->size = (uint32_t)need;
	s->q.len += need;
	return r + 1;
}

static void q_sample(struct sampling *s, uint64_t ts, uint64_t weight, uint32_t pid, uint32_t tid,
		     uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu)
{
	struct qsample *q;

	live_trim(s->callchain, &nk, &nu);
	q = q_reserve(s, Q_SAMPLE, sizeof(*q) + ((size_t)nk + nu) * sizeof(*ips));
	if (!q) {
		s->dropped++;
		return;
	}
	*q = (struct qsample){ ts, weight, pid, tid, cpu, (uint16_t)nk, (uint16_t)nu };
	memcpy(q + 1, ips, ((size_t)nk + nu) * sizeof(*ips));
}

/* The kernel unwinder's side of a task or an executable mapping (its
 * build id read from the file where the side-band has none). */
static void ku_task(struct sampling *s, const struct prof_task *t)
{
	if (s->ku)
		kunwind_task(s->ku, t);
}

static void ku_mmap(struct sampling *s, const struct prof_mmap *m)
{
	struct prof_mmap c;

	if (!s->ku)
		return;
	c = *m;
	mapfile_fill_build_id(&s->bids, &c);
	kunwind_mmap(s->ku, &c);
}

static void q_task(void *ctx, const struct prof_task *t)
{
	struct prof_task *q = q_reserve(ctx, Q_TASK, sizeof(*t));

	ku_task(ctx, t);
	if (q)
		*q = *t;
}

static void q_mmap(void *ctx, const struct prof_mmap *m)
{
	size_t n = strlen(m->path) + 1;
	struct prof_mmap *q;

	if (!(m->prot & PROT_EXEC))
		return;
	ku_mmap(ctx, m);
	q = q_reserve(ctx, Q_MMAP, sizeof(*m) + n);
	if (q) {
		*q = *m;
		q->path = NULL;
		memcpy(q + 1, m->path, n);
	}
}

static void q_lost(void *ctx, uint64_t lost_samples, uint64_t lost_events)
{
	struct sampling *s = ctx;

	s->lost += lost_samples;
	s->lost_events += lost_events;
}

static void on_bpf_sample(void *ctx, const struct zt_sample_event *e, size_t size)
{
	q_sample(ctx, e->ts, e->period, e->pid, e->tid, e->cpu, (const uint64_t *)e->ips, e->nk, e->nu);
}

static void on_perf_sample(void *ctx, const struct perfev_sample *e)
{
	q_sample(ctx, e->ts, e->period, e->pid, e->tid, e->cpu, e->ips, e->nk, e->nu);
}

static void *sampling_main(void *arg)
{
	struct sampling *s = arg;
	struct timespec tick = { 0, TICK_MS * 1000000L };

	for (;;) {
		int err = 0;

		if (s->pev)
			perfev_wait(s->pev, TICK_MS);
		else
			nanosleep(&tick, NULL);
		pthread_mutex_lock(&s->lock);
		if (s->smp)
			err = sampler_poll(s->smp, 0);
		if (err < 0 && err != -EINTR && !s->err)
			s->err = err;
		if (s->pev)
			perfev_drain(s->pev);
		if (s->sideband)
			perfev_drain(s->sideband);
		err = s->stop;
		pthread_mutex_unlock(&s->lock);
		if (err)
			return NULL;
	}
}

/* Feed what the queue holds into the model, in order. */
static int replay(struct live *l, const struct queue *q)
{
	size_t off = 0;
	int ret = 0;

	while (off < q->len && !ret) {
		const struct qrec *r = (const struct qrec *)(q->buf + off);

		if (r->kind == Q_SAMPLE) {
			const struct qsample *s = (const struct qsample *)(r + 1);

			ret = live_sample(l, s->ts, s->weight, s->pid, s->tid, s->cpu,
					  (const uint64_t *)(s + 1), s->nk, s->nu);
		} else if (r->kind == Q_TASK) {
			ret = live_task(l, (const struct prof_task *)(r + 1));
		} else {
			struct prof_mmap m = *(const struct prof_mmap *)(r + 1);

			m.path = (char *)((const struct prof_mmap *)(r + 1) + 1);
			ret = live_mmap(l, &m);
		}
		off += r->size;
	}
	return ret;
}

/* For the processes already there (procsynth), straight into the model
 * (and the kernel unwinder's tables), before the sampling thread starts. */
struct direct {
	struct top *t;
	struct sampling *s;
};

static void direct_task(void *ctx, const struct prof_task *task)
{
	struct direct *d = ctx;

	ku_task(d->s, task);
	if (live_task(&d->t->live, task))
		d->t->live_err = -ENOMEM;
}

static void direct_mmap(void *ctx, const struct prof_mmap *m)
{
	struct direct *d = ctx;

	if (!(m->prot & PROT_EXEC))
		return;
	ku_mmap(d->s, m);
	if (live_mmap(&d->t->live, m))
		d->t->live_err = -ENOMEM;
}

/* The kernel's symbols for the live model: the per-boot cache, else
 * /proc/kallsyms (once: kernel frames then resolve like any other); with
 * --kallsyms or --vmlinux, that file instead, moved to this boot's _text. */
static void load_kernel_symbols(struct top *t)
{
	struct ksource_opts ko = { .kallsyms = t->so.kallsyms,
				   .vmlinux = t->so.kallsyms ? NULL : t->so.vmlinux };
	struct ksource_info info;
	char *text, *ftext;
	size_t len, flen;
	int cached, err;

	err = kcache_read(t->so.have_cache ? &t->so.cache : NULL, NULL, 0, &text, &len, &cached);
	if (err) {
		cmd_warn("cannot read /proc/kallsyms: %s: kernel frames stay unresolved", strerror(-err));
		return;
	}
	if (len <= 16 || !strncmp(text, "0000000000000000", 16)) {
		cmd_warn("kernel addresses are hidden (kernel.kptr_restrict): kernel frames stay unresolved");
		free(text);
		return;
	}
	if (ko.kallsyms || ko.vmlinux) {
		char a[2 * ZT_BUILD_ID_MAX + 1], b[2 * ZT_BUILD_ID_MAX + 1];

		err = ksource_live(&ko, ksyms_text_addr(text, len), &ftext, &flen, &info);
		if (!err) {
			free(text);
			text = ftext;
			len = flen;
		} else if (err == -EKEYREJECTED) {
			cmd_warn("'%s' has build id %s, the running kernel %s: not used, kernel symbols "
				 "from /proc/kallsyms", info.source,
				 info.src_bid.len ? prof_build_id_hex(&info.src_bid, a) : "none",
				 prof_build_id_hex(&info.rec_bid, b));
		} else {
			cmd_warn("cannot use '%s': %s: kernel symbols from /proc/kallsyms", info.source,
				 err == -ENOENT && !ko.kallsyms ? "no _text symbol (not a vmlinux?)"
				 : err == -ENOEXEC ? "not an ELF file with a symbol table"
				 : err == -EACCES ? "its addresses are all zero" : strerror(-err));
		}
	}
	if (live_kernel_symbols(&t->live, text, len))
		cmd_warn("out of memory for the kernel symbols: kernel frames stay unresolved");
	free(text);
}

static int parse_sort(struct top *t, struct live_opts *lo)
{
	char *list = strdup(t->sort), *tok, *save = NULL;
	int ret = 0;

	if (!list)
		return -ENOMEM;
	for (tok = strtok_r(list, ", ", &save); tok && !ret; tok = strtok_r(NULL, ", ", &save)) {
		enum hist_key k;

		if (hist_key_parse(!strcmp(tok, "symbol") ? "sym" : tok, &k)) {
			cmd_error("unknown sort key '%s': use comm, pid, tid, dso, sym, cpu, srcline or symq", tok);
			ret = -EINVAL;
		} else if (lo->nr_keys < HIST_MAX_KEYS) {
			lo->keys[lo->nr_keys++] = k;
		}
	}
	if (!ret && !lo->nr_keys) {
		cmd_error("--sort needs at least one key: comm, pid, dso or sym");
		ret = -EINVAL;
	}
	free(list);
	return ret;
}

/* The terminal's height, 0 when stdout is not one. */
static int term_rows(void)
{
	struct winsize ws;

	return isatty(1) && !ioctl(1, TIOCGWINSZ, &ws) ? ws.ws_row : 0;
}

/* One snapshot on stdout: on a terminal the screen is cleared first and
 * only as many rows as fit are printed, as perf top --stdio does. */
static void print_snapshot(struct top *t)
{
	int rows = term_rows();
	size_t max = (size_t)(t->entries > 0 ? t->entries : 0);

	if (rows) {
		fputs("\033[H\033[2J", stdout);
		if (!max || max > (size_t)(rows > 8 ? rows - 7 : 1))
			max = (size_t)(rows > 8 ? rows - 7 : 1);
	}
	top_print(t, stdout, max);
	if (fflush(stdout) && errno == EPIPE)
		t->epipe = 1;
}

/* One refresh: take the queue, feed the model, fold the interval in. */
static int refresh(struct top *t, struct sampling *s, struct queue *spare, uint64_t now)
{
	struct queue q;
	uint64_t lost;
	int ret;

	pthread_mutex_lock(&s->lock);
	q = s->q;
	s->q = *spare;
	lost = s->lost + s->dropped;
	s->lost = s->dropped = 0;
	t->lost_events += s->lost_events;
	s->lost_events = 0;
	ret = s->err;
	pthread_mutex_unlock(&s->lock);
	if (s->smp) {
		struct sampler_stats st;

		sampler_get_stats(s->smp, &st);
		lost += st.lost - t->bpf_lost;
		t->bpf_lost = st.lost;
	}
	t->lost_last = lost;
	t->lost_total += lost;
	t->secs = (double)(now - t->live.iv_start) / 1e9;
	t->when = time(NULL);
	if (!ret)
		ret = replay(&t->live, &q);
	q.len = 0;
	*spare = q;
	if (!ret)
		ret = live_refresh(&t->live, t->zero, now);
	return ret;
}

/* ---- the command ---- */

/* One zt top: what is shown (the views' too), the sampling behind it, and
 * what the steps of cmd_top() settle for the next ones. */
struct top_run {
	struct top t;
	struct sampling s;
	struct queue spare;    /* the queue's other buffer, swapped at each refresh */
	struct live_opts lo;
	struct session_live *sl; /* the model's symbolizer and stacks */
	struct perfev_cbs qcbs; /* the side-band (and perf_event samples) into the queue */
	const char *cgmode;    /* --call-graph */
	bool fp_only;          /* --call-graph fp: frame pointers, not the kernel unwinder */
	bool privileged;       /* root, or CAP_BPF with CAP_PERFMON */
	bool use_bpf;          /* the BPF sampler, else perf_event's ring buffer */
	uint64_t t_start;      /* when the model began */
	bool tui_on;           /* the screen is ours */
	int sig;               /* the quit signal the screen caught, or 0 */
};

static const char *const top_usage[] = {
	"zt top [<options>]",
	NULL,
};

/* The options into run. What opts_parse() returns. */
static int parse_options(struct top_run *run, int argc, char **argv, int *rest)
{
	struct top *t = &run->t;
	const struct opt options[] = {
		{ OPT_BOOL, 'a', "all-cpus", &t->tg.all_cpus, NULL, "system-wide collection from all CPUs (default)" },
		TARGET_OPTIONS(t->tg, "profile"),
		{ OPT_U64, 'c', "count", &t->tg.period, "n", "event period to sample (ns for cpu-clock)" },
		{ OPT_DOUBLE, 'd', "delay", &t->delay, "secs", "number of seconds to delay between refreshes (default 1)" },
		{ OPT_BOOL, 'g', NULL, &t->callgraph, NULL, "sample call graphs (walked in the kernel with unwind tables): Children and Self" },
		{ OPT_STRING, 0, "call-graph", &run->cgmode, "mode", "fp: the same as -g (zt top unwinds frame pointers only)" },
		{ OPT_BOOL, 0, "children", &t->children, NULL, "show Children (callees included) next to Self (default with -g)" },
		{ OPT_BOOL, 'K', "hide_kernel_symbols", &t->hide_kernel, NULL, "hide kernel symbols" },
		{ OPT_BOOL, 'U', "hide_user_symbols", &t->hide_user, NULL, "hide user symbols" },
		{ OPT_BOOL, 'z', "zero", &t->zero, NULL, "zero history across updates (else it decays by 1/8 each)" },
		{ OPT_STRING, 's', "sort", &t->sort, "key[,key...]", "sort by keys: comm, pid, tid, dso, sym, cpu, srcline, symq (default: dso,sym)" },
		{ OPT_INT, 'E', "entries", &t->entries, "n", "display this many functions" },
		{ OPT_U64, 'f', "count-filter", &t->count_filter, "n", "only display functions with more samples than this" },
		{ OPT_BOOL, 'n', "show-nr-samples", &t->show_nr, NULL, "show a column with the number of samples" },
		{ OPT_DOUBLE, 0, "percent-limit", &t->percent_limit, "pct", "don't show entries under that percent" },
		{ OPT_BOOL, 0, "stdio", &t->stdio, NULL, "text snapshots on stdout (the default when it is not a terminal)" },
		{ OPT_BOOL, 0, "tui", &t->tui, NULL, "the full-screen interface (the default on a terminal)" },
		{ OPT_DOUBLE, 0, "duration", &t->duration, "secs", "stop after this many seconds" },
		{ OPT_BOOL, 0, "demangle", &t->demangle, NULL, "demangle C++ and Rust names (default); --no-demangle: keep them raw" },
		{ OPT_BOOL, 'q', "quiet", &t->quiet, NULL, "no warnings" },
		SYMOPTS_NAME_OPTIONS(t->so),
		SYMOPTS_OPTIONS(t->so),
		SYMOPTS_SYMDB_OPTIONS(t->so),
		SYMOPTS_KERNEL_OPTIONS(t->so),
		OPT_EOL,
	};

	return opts_parse("top", top_usage, options, argc, argv, rest);
}

/* --call-graph fp: frame pointers only, as perf. 0, or -1 after a
 * message. */
static int parse_callgraph(struct top_run *run, const char *mode)
{
	if (!strcmp(mode, "fp")) {
		run->t.callgraph = 1;
		run->fp_only = true;
		return 0;
	}
	if (!strncmp(mode, "dwarf", 5) || !strcmp(mode, "lbr"))
		cmd_error("--call-graph %s is not supported: zt top walks stacks in the kernel "
			  "(use -g, or record with 'zt record --call-graph dwarf')", mode);
	else
		cmd_error("unknown --call-graph mode '%s': zt top takes fp only (-g: the kernel "
			  "unwinder)", mode);
	return -1;
}

/* Whether the options go together, and what they settle (the ids of -p,
 * -t and -C among them). ZT_EXIT_OK, or the exit code after a message. */
static int check_options(struct top_run *run, int argc, char **argv, int rest)
{
	struct top *t = &run->t;
	struct target *tg = &t->tg;
	int ret;

	if (rest < argc) {
		cmd_error("unexpected argument '%s': zt top takes no command (see 'zt top -h')", argv[rest]);
		return ZT_EXIT_USAGE;
	}
	if (run->cgmode && parse_callgraph(run, run->cgmode))
		return ZT_EXIT_USAGE;
	if (!(t->delay >= 0.1 && t->delay <= 3600)) {
		cmd_error("bad delay %g: give seconds between 0.1 and 3600", t->delay);
		return ZT_EXIT_USAGE;
	}
	if (t->duration < 0 || t->entries < 0 || t->percent_limit < 0 || t->percent_limit > 100) {
		cmd_error("--duration, -E and --percent-limit take positive numbers (a percentage up to 100)");
		return ZT_EXIT_USAGE;
	}
	if (t->stdio && t->tui) {
		cmd_error("give only one of --stdio and --tui");
		return ZT_EXIT_USAGE;
	}
	if (!!tg->pids + !!tg->tids > 1) {
		cmd_error("give only one of -p and -t");
		return ZT_EXIT_USAGE;
	}
	if (target_parse_event(tg) || parse_sort(t, &run->lo))
		return ZT_EXIT_USAGE;
	if (!t->stdio && !t->tui)
		t->stdio = !isatty(0) || !isatty(1);
	if (t->tui && (!isatty(0) || !isatty(1))) {
		cmd_error("--tui needs a terminal: use --stdio");
		return ZT_EXIT_USAGE;
	}
	ret = target_ids_exit(target_parse_ids(tg));
	if (ret != ZT_EXIT_OK)
		return ret;
	t->tui = !t->stdio;
	if (t->children < 0)
		t->children = t->callgraph;
	run->lo.callchain = run->s.callchain = t->callgraph;
	/* Children and Self only: no call-chain view (yet) to show chains in */
	run->lo.chain = HIST_CHAIN_NONE;
	return ZT_EXIT_OK;
}

/* Privileges: the same rules and words as zt record. 0, or -1 after a
 * message. */
static int choose_sampler(struct top_run *run)
{
	struct target *tg = &run->t.tg;
	const char *missing;

	run->privileged = target_privileged(&missing);
	if (!run->privileged && !tg->pids && !tg->tids) {
		target_privileges_error(tg->cpu_list ? "system-wide profiling (-C)"
						      : "system-wide profiling (-a)", missing);
		return -1;
	}
	run->use_bpf = run->privileged && target_bpf_loadable();
	if (!run->privileged)
		cmd_warn("not root and no CAP_BPF/CAP_PERFMON: user-space samples of the given processes only, "
			 "through perf_event (run with sudo for kernel symbols and -a)");
	return 0;
}

/* The empty live model, and the target's name for the title. 0, or -1
 * after a message. */
static int init_model(struct top_run *run)
{
	struct top *t = &run->t;
	struct target *tg = &t->tg;
	struct session_opts so = { 0 };

	if (symopts_init(&t->so, "top"))
		return -1;
	so.mo = &t->so.mo;
	so.no_demangle = !t->demangle;
	so.full_signature = t->so.full_signature;
	run->t_start = now_ns();
	if (session_live_new(&so, &run->sl)) {
		cmd_error("out of memory");
		return -1;
	}
	run->lo.stacks = session_live_stacks(run->sl);
	if (live_init(&t->live, &run->lo, run->t_start)) {
		cmd_error("out of memory");
		return -1;
	}
	if (tg->pids)
		snprintf(t->target, sizeof(t->target), "pid %s", tg->pids);
	else if (tg->tids)
		snprintf(t->target, sizeof(t->target), "tid %s", tg->tids);
	else if (tg->cpu_list)
		snprintf(t->target, sizeof(t->target), "CPUs %s", tg->cpu_list);
	else
		snprintf(t->target, sizeof(t->target), "all, %d CPU%s", tg->nr_cpus,
			 tg->nr_cpus == 1 ? "" : "s");
	return 0;
}

/* The sampler, falling back to another event as target_fallback() says.
 * 0, or -1 after a message. */
static int open_sampler(struct top_run *run)
{
	struct sampling *s = &run->s;
	struct target *tg = &run->t.tg;
	struct sampler_opts so = { 0 };
	char msg[256];
	int err;

	run->qcbs = (struct perfev_cbs){ on_perf_sample, q_task, q_mmap, q_lost, s };
	target_sampler_opts(tg, &so);
	so.filter_mode = tg->tids ? ZT_FILTER_TID : tg->pids ? ZT_FILTER_TGID : ZT_FILTER_ALL;
	so.callchain = run->t.callgraph;
	if (run->use_bpf && run->t.callgraph && !run->fp_only)
		kunwind_sampler_opts(&so);
	do {
		so.type = tg->ev->type;
		so.config = tg->ev->config;
		if (run->use_bpf) {
			err = sampler_open(&so, on_bpf_sample, s, &s->smp, msg, sizeof(msg));
			if (err == -EINVAL && so.kunwind) {
				/* as zt record: a verifier that refuses the walk */
				cmd_warn("the kernel unwinder cannot load here (%s): call graphs by "
					 "frame pointers, as --call-graph fp", msg);
				so.kunwind = false;
				err = sampler_open(&so, on_bpf_sample, s, &s->smp, msg, sizeof(msg));
			}
		} else {
			struct perfev_opts po = {
				.type = tg->ev->type, .config = tg->ev->config, .freq = so.freq,
				.freq_or_period = so.freq_or_period,
				.exclude_kernel = !run->privileged,
				.callchain = run->t.callgraph != 0, .sideband = true,
				.inherit = tg->pids != NULL,
				.ring_pages = run->privileged ? 256 : 64,
			};

			msg[0] = 0;
			err = perfev_new(&po, &run->qcbs, &s->pev);
			if (!err)
				err = tg->pids || tg->tids ? target_open_threads(tg, s->pev)
							   : target_open_cpus(tg, s->pev, -1);
			if (err) {
				perfev_free(s->pev);
				s->pev = NULL;
			}
		}
	} while (err && target_fallback(tg, err));
	if (err) {
		target_open_error(tg, err, msg, "sample");
		return -1;
	}
	snprintf(run->t.event_name, sizeof(run->t.event_name), "%s", tg->ev->name);
	if (s->smp && so.kunwind) {
		err = kunwind_for_sampler(s->smp, run->t.so.have_cache ? &run->t.so.cache : NULL,
					  &s->ku);
		if (err) {
			cmd_error("cannot set up the kernel unwinder's tables: %s", strerror(-err));
			return -1;
		}
	}
	return 0;
}

/* With BPF, the kernel's side-band comes from perf_event apart, and the
 * sampler learns which processes to keep. 0, or -1 after a message. */
static int open_sideband(struct top_run *run)
{
	struct sampling *s = &run->s;

	if (!run->use_bpf)
		return 0;
	return target_sideband(&run->t.tg, &run->qcbs, s->smp, true, false, &s->sideband);
}

/* The signals caught; the side-band first, then the processes already
 * there, then the samples, drained by the sampling thread. 0, or -1 after
 * a message. */
static int start_sampling(struct top_run *run)
{
	struct top *t = &run->t;
	struct target *tg = &t->tg;
	struct sampling *s = &run->s;
	struct direct d = { t, s };
	struct perfev_cbs dcbs = { NULL, direct_task, direct_mmap, NULL, &d };
	struct sigaction sa;
	int err, i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	/* side-band first, then the processes already there, then samples */
	if (s->sideband)
		perfev_enable(s->sideband);
	if (!tg->pids && !tg->tids)
		procsynth_all(run->t_start, &dcbs);
	for (i = 0; i < tg->nr_pids; i++)
		procsynth_pid(tg->pid_list[i], run->t_start, &dcbs);
	for (i = 0; i < tg->nr_tids; i++)
		procsynth_pid(target_tgid(tg->tid_list[i]), run->t_start, &dcbs);
	err = t->live_err;
	if (!err)
		err = run->use_bpf ? sampler_start(s->smp) : perfev_enable(s->pev);
	if (err) {
		cmd_error("cannot start sampling: %s", strerror(-err));
		return -1;
	}
	err = pthread_create(&s->thread, NULL, sampling_main, s);
	if (err) {
		cmd_error("cannot start the sampling thread: %s", strerror(err));
		return -1;
	}
	s->running = 1;
	return 0;
}

/* The full screen, unless --stdio. 0, or -1 after a message. */
static int start_screen(struct top_run *run)
{
	int err;

	if (!run->t.tui)
		return 0;
	err = top_tui_start(&run->t);
	if (err) {
		cmd_error("cannot use the terminal (%s): use --stdio", strerror(-err));
		return -1;
	}
	run->tui_on = true;
	return 0;
}

/* The terminal given back, if the screen is ours. */
static void end_screen(struct top_run *run)
{
	if (run->tui_on)
		run->sig = top_tui_end(&run->t);
	run->tui_on = false;
}

/* Until the next refresh (at most TICK_MS): keys on the screen, else a
 * sleep. 1 when the user quits. */
static int wait_tick(struct top_run *run, uint64_t ns)
{
	uint64_t ms = ns / 1000000 + 1;
	struct timespec ts;

	if (ms > TICK_MS)
		ms = TICK_MS;
	if (run->tui_on)
		return top_tui_wait(&run->t, (int)ms);
	ts = (struct timespec){ 0, (long)ms * 1000000L };
	nanosleep(&ts, NULL);
	return 0;
}

/* A refresh every --delay seconds, shown on the screen or as text, until
 * a signal, the user quits, the end of --duration, or (text) every target
 * or the reader is gone. 0, or -1 after a message. */
static int run_loop(struct top_run *run)
{
	struct top *t = &run->t;
	struct target *tg = &t->tg;
	uint64_t t_start, next, deadline = 0;
	int err;

	t_start = now_ns();
	next = t_start + (uint64_t)(t->delay * 1e9);
	if (t->duration > 0)
		deadline = t_start + (uint64_t)(t->duration * 1e9);
	t->live.iv_start = t_start;

	while (!stop_flag) {
		uint64_t now = now_ns(), until = deadline && deadline < next ? deadline : next;

		if (now < until) {
			if (wait_tick(run, until - now))
				break;
			continue;
		}
		if (tg->nr_pids || tg->nr_tids)
			t->targets_gone = !target_alive(tg);
		err = refresh(t, &run->s, &run->spare, now);
		if (err) {
			end_screen(run);
			cmd_error("cannot go on: %s", strerror(-err));
			return -1;
		}
		if (run->tui_on)
			top_tui_draw(t);
		else
			print_snapshot(t);
		next += (uint64_t)(t->delay * 1e9);
		if (next <= now)
			next = now + (uint64_t)(t->delay * 1e9);
		if (deadline && now >= deadline)
			break;
		/* like perf: the text output ends when every target is gone */
		if (t->targets_gone && !run->tui_on)
			break;
		if (!run->tui_on && ferror(stdout))
			break;
	}
	return 0;
}

/* -v: what the sampling cost. */
static void print_stats(struct top_run *run)
{
	const struct top *t = &run->t;
	struct sampler_stats st;

	if (!run->use_bpf || !t->so.verbose)
		return;
	sampler_get_stats(run->s.smp, &st);
	if (st.run_cnt)
		cmd_info("BPF program: %llu runs, %.3f us per run", (unsigned long long)st.run_cnt,
			 (double)st.run_ns / 1000.0 / (double)st.run_cnt);
	cmd_info("%llu samples, %llu lost, %llu side-band events lost, %llu compactions",
		 (unsigned long long)t->live.samples_total, (unsigned long long)t->lost_total,
		 (unsigned long long)t->lost_events, (unsigned long long)t->live.compactions);
}

/* The screen, the sampling thread and all run holds; a signal that quit
 * the screen raised again, and errno EPIPE when the reader went away. */
static void top_run_release(struct top_run *run)
{
	struct sampling *s = &run->s;

	end_screen(run);
	if (s->running) {
		pthread_mutex_lock(&s->lock);
		s->stop = 1;
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	kunwind_free(s->ku);
	mapfile_ids_release(&s->bids);
	sampler_free(s->smp);
	perfev_free(s->pev);
	perfev_free(s->sideband);
	free(s->q.buf);
	free(run->spare.buf);
	live_release(&run->t.live);
	session_live_free(run->sl);
	symopts_release(&run->t.so);
	target_release(&run->t.tg);
	if (run->sig && run->sig != SIGINT)
		tui_reraise(run->sig);
	/* zt top --stdio | head: the end of the reader is a normal end, which
	 * cmd_finish() tells by errno */
	if (run->t.epipe)
		errno = EPIPE;
}

int cmd_top(int argc, char **argv)
{
	struct top_run run = {
		.t = { .tg = { .event = "cycles" }, .sort = "dso,sym", .delay = 1.0, .children = -1,
		       .demangle = 1, .so = { .use_debuginfod = 1, .use_cache = 1, .use_symdb = 1 } },
		.s = { .lock = PTHREAD_MUTEX_INITIALIZER },
	};
	int rest, ret;

	switch (parse_options(&run, argc, argv, &rest)) {
	case OPTS_HELP:
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		return ZT_EXIT_USAGE;
	}
	cmd_setup("top", run.t.quiet ? -1 : run.t.so.verbose);
	ret = check_options(&run, argc, argv, rest);
	if (ret != ZT_EXIT_OK)
		goto out;
	ret = ZT_EXIT_FAIL;
	if (choose_sampler(&run) || init_model(&run) || open_sampler(&run) || open_sideband(&run))
		goto out;
	if (run.privileged)
		load_kernel_symbols(&run.t);
	if (start_sampling(&run) || start_screen(&run) || run_loop(&run))
		goto out;
	end_screen(&run);
	print_stats(&run);
	ret = ZT_EXIT_OK;
out:
	top_run_release(&run);
	return ret;
}
