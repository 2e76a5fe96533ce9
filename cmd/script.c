/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt script: every sample of a recording as text in perf script's default
 * format (perf 6.1; what stackcollapse-perf.pl, speedscope and the Firefox
 * Profiler parse), or folded stacks as stackcollapse-perf.pl writes them:
 * options and messages here, the text from formats/perfscript.h and
 * formats/folded.h over the samples grouped by formats/stackgroups.h.
 * The GPU records of a zt record --gpu recording come interleaved by time
 * (kernels with their launch stacks, resolved through the same frame
 * table), then PC samples, cubins and the processes' reports
 * (formats/gpuscript.h over libprof/gpuview.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"
#include "cmd/symopts.h"
#include "formats/folded.h"
#include "formats/gpufolded.h"
#include "formats/gpuscript.h"
#include "formats/perfscript.h"
#include "formats/stackgroups.h"
#include "formats/tracefmt.h"
#include "libprof/array.h"
#include "libprof/gpu.h"
#include "libprof/gpuframes.h"
#include "libprof/gpuview.h"
#include "libprof/profile.h"
#include "libprof/rfilter.h"
#include "libprof/zbuf.h"

#define OUT_BUF_SIZE (1 << 20) /* stdout buffer */

static const struct {
	const char *name;
	unsigned bit;
} field_names[] = {
	{"comm", PERFSCRIPT_F_COMM},	 {"tid", PERFSCRIPT_F_TID},
	{"pid", PERFSCRIPT_F_PID},	 {"time", PERFSCRIPT_F_TIME},
	{"cpu", PERFSCRIPT_F_CPU},	 {"event", PERFSCRIPT_F_EVENT},
	{"ip", PERFSCRIPT_F_IP},	 {"sym", PERFSCRIPT_F_SYM},
	{"symoff", PERFSCRIPT_F_SYMOFF}, {"dso", PERFSCRIPT_F_DSO},
	{"period", PERFSCRIPT_F_PERIOD}, {"srcline", PERFSCRIPT_F_SRCLINE},
	{"trace", PERFSCRIPT_F_TRACE},
};

/* perf's other field names: known, but nothing in a zt recording to show */
static const char *const perf_only_fields[] = {
	"addr",		  "iregs",	  "uregs",	 "brstack",
	"brstacksym",	  "flags",	    "bpf-output", "brstackinsn", "brstackinsnlen",
	"brstackoff",	  "callindent",	    "insn",	  "insnlen",	 "synth",
	"phys_addr",	  "metric",	    "misc",	  "srccode",	 "ipc",
	"data_page_size", "code_page_size", "ins_lat",	  "machine_pid", "vcpu",
	"cgroup",	  "retire_lat",	    "tod",	  "weight",	 "dsoff",
	"disasm",	  "brcntr",	    "data_src",
};

/* A group's frame text in script.text (--folded: unused). */
struct group_text {
	size_t off, len;
};

/* Launch stacks: grouped and formatted apart from the samples' (they are
 * shown with their frames even when the samples have none). */
struct launch_text {
	struct stackgroups sg;
	struct group_text *gtext;
	size_t cap_gtext;
	struct zbuf text;
};

/* A side-band record to show (--show-task-events, --show-mmap-events). */
struct sband {
	uint64_t ts;
	uint16_t mmap; /* prof.mmaps[idx], else prof.tasks[idx] */
	uint16_t kmap; /* a kernel map */
	uint32_t idx;
};

struct script {
	const char *input, *fields, *event_opt, *gpu_weight;
	struct cmd_filter_args fa;
	struct rfilter filt;
	int addr_range;		  /* --addr-range */
	uint64_t t_first, t_last; /* the samples' time span (--time A%-B%) */
	uint8_t *gpass;		  /* per group: 0 not known yet, 1 passes --dsos/-S, 2 not */
	size_t nr_gpass, cap_gpass;
	int max_stack; /* -1: all */
	int header, header_only, show_task, show_mmap;
	struct sband *sb;
	size_t nr_sb, next_sb;
	int hide_cg, demangle, folded, force, quiet;
	int reltime;  /* --reltime: times from the first sample's */
	uint64_t t0;  /* ... that time, once shown */
	int only_gpu, only_cpu;	     /* --gpu, --cpu */
	int fields_set, cpu_removed; /* -F gave a list; -F -cpu */
	struct perfscript_fmt fmt;
	/* tracepoint events: perf's fields for them (output[PERF_TYPE_TRACEPOINT]) */
	unsigned tp_fields;
	int tp_fields_set; /* -F gave them a list */
	struct tracefmt *tf; /* their formats, NULL: fields not shown */
	struct zbuf tline;   /* one sample's fields */
	struct symopts so;
	struct session ses;
	const struct rstacks *rs; /* ses's resolved stacks, once loaded */
	char event[256];
	char (*evnames)[256]; /* several events: each one's name, sanitized */
	struct stackgroups sg;
	struct group_text *gtext; /* per group of sg */
	size_t cap_gtext;
	struct zbuf text; /* frame lines of all groups */
	int write_error;
	/* GPU records */
	struct session_gpu gs; /* the selected records, their frames and names */
	struct gpuscript_fmt gfmt;
	struct perfscript_fmt lfmt; /* of launch stacks */
	struct launch_text lt;
	struct zbuf line; /* one GPU record */
	size_t next_ev;	  /* the next of gs.v.ev to show */
};

/* Read the input; exit code or -1 to go on. */
static int load(struct script *s)
{
	/* names as perf script shows them: demangled without parameter
	 * lists (with --full-signature: with), unless --no-demangle */
	/* every event's samples, each with its name, as perf script */
	if (cmd_open_session_events(&s->ses, s->input, &s->so, s->force, s->event_opt,
				    s->demangle, !s->folded))
		return ZT_EXIT_FAIL;
	s->rs = session_stacks(&s->ses);
	return -1;
}

/* Whether perf would have sampled the CPU: only system-wide or per-CPU
 * recordings (-a, -C) have it, so only they show [CPU] by default. A
 * reader may say so in the meta "sample_cpu"; else the command line tells. */
static int recorded_cpu(const struct profile *p)
{
	const char *v = profile_get_meta(p, "sample_cpu"), *cl;
	char *copy, *tok, *save = NULL;
	int i = 0, found = 0;

	if (v)
		return strcmp(v, "0") != 0;
	cl = profile_get_meta(p, "cmdline");
	if (!cl || !(copy = strdup(cl)))
		return 0;
	/* "zt record OPTIONS [--] CMD": skip the program and command names */
	for (tok = strtok_r(copy, " ", &save); tok && !found;
	     tok = strtok_r(NULL, " ", &save), i++) {
		const char *c;

		if (i < 2 || tok[0] != '-')
			continue;
		if (!strcmp(tok, "--"))
			break;
		if (!strcmp(tok, "--all-cpus") || !strncmp(tok, "--cpu", 5)) {
			found = 1;
			continue;
		}
		/* a cluster of short options ("-ag"), up to one that takes a value */
		for (c = tok + 1; tok[1] != '-' && *c && !strchr("eoFcptmuj", *c); c++)
			if (*c == 'a' || *c == 'C')
				found = 1;
	}
	free(copy);
	return found;
}

/* -F as perf parses it: "a,b" sets the fields, "+a,-b" changes the
 * defaults; an optional "sw:"/"hw:" type prefix is accepted. */
static int parse_fields(struct script *s)
{
	char *list, *tok, *save = NULL, *str;
	enum { DEFAULT, SET, CHANGE } mode = DEFAULT;
	int ret = 0, for_tp = 1, for_other = 1;
	unsigned other = s->fmt.fields;
	size_t i;

	if (!s->fields)
		return 0;
	list = strdup(s->fields);
	if (!list)
		return -ENOMEM;
	str = list;
	tok = strchr(str, ':');
	if (tok) {
		*tok = 0;
		if (strcmp(str, "sw") && strcmp(str, "hw") && strcmp(str, "raw") &&
		    strcmp(str, "trace")) {
			cmd_error("-F: invalid event type '%s' (use sw:, hw: or trace:, or none)",
				  str);
			free(list);
			return -EINVAL;
		}
		/* perf's per-type fields: trace: sets the tracepoints', the others
		 * the rest; without a type, both */
		if (!strcmp(str, "trace"))
			for_other = 0;
		else
			for_tp = 0;
		str = tok + 1;
	}
	if (!*str) {
		cmd_error("-F: no fields given");
		free(list);
		return -EINVAL;
	}
	for (tok = strtok_r(str, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int sign = *tok == '+' || *tok == '-' ? *tok : 0;
		unsigned bit = 0;

		if (sign)
			tok++;
		if ((sign && mode == SET) || (!sign && mode == CHANGE)) {
			cmd_error("-F: cannot mix +-field with overridden fields");
			ret = -EINVAL;
			break;
		}
		if (!sign && mode == DEFAULT) {
			if (for_other) {
				other = 0;
				s->fields_set = 1;
			}
			if (for_tp) {
				s->tp_fields = 0;
				s->tp_fields_set = 1;
			}
		}
		mode = sign ? CHANGE : SET;
		for (i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
			if (!strcmp(tok, field_names[i].name))
				bit = field_names[i].bit;
		if (!bit) {
			for (i = 0; i < sizeof(perf_only_fields) / sizeof(perf_only_fields[0]); i++)
				if (!strcmp(tok, perf_only_fields[i]))
					break;
			if (i < sizeof(perf_only_fields) / sizeof(perf_only_fields[0]))
				cmd_error("-F: field '%s' is not available in zt recordings", tok);
			else
				cmd_error("-F: unknown field '%s': use comm, tid, pid, time, cpu, "
					  "event, ip, sym, symoff, dso, period, srcline, trace",
					  tok);
			ret = -EINVAL;
			break;
		}
		if (sign == '-' && bit == PERFSCRIPT_F_CPU && for_other)
			s->cpu_removed = 1;
		if (sign == '-') {
			other &= for_other ? ~bit : ~0u;
			s->tp_fields &= for_tp ? ~bit : ~0u;
		} else {
			other |= for_other ? bit : 0;
			s->tp_fields |= for_tp ? bit : 0;
		}
	}
	/* a tracepoint's fields are no other event's (perf: "not valid for
	 * software events. Ignoring.") */
	s->fmt.fields = other & ~PERFSCRIPT_F_TRACE;
	free(list);
	return ret;
}

/* A kernel function for tracepoint fields printed as one (%ps), named as
 * the session names kernel frames. */
static const char *script_ksym(void *ctx, uint64_t addr, uint64_t *start)
{
	struct script *s = ctx;
	const struct zt_frame *f;
	struct zt_frange r;

	if (rstacks_kernel_frames(s->rs, addr, &r) || !r.n)
		return NULL;
	f = rstacks_frame(s->rs, r.first + r.n - 1);
	if (!f->sym || !f->kernel || f->offset > addr)
		return NULL;
	*start = addr - f->offset;
	return f->sym;
}

/* The tracepoint formats, when samples have raw records to show. */
static void open_tracefmt(struct script *s)
{
	const struct profile *p = &s->ses.prof;
	int ret;

	if (!p->nr_raws)
		return;
	ret = tracefmt_new(p, &s->tf);
	if (ret == -ENOTSUP)
		cmd_warn("tracepoint fields are not shown: this zt was built without "
			 "libtraceevent (install libtraceevent-dev and rebuild)");
	else if (ret == -ENOENT)
		cmd_warn("'%s' has tracepoint records but not their formats: their fields are "
			 "not shown", s->input);
	else if (ret)
		cmd_warn("tracepoint fields are not shown: %s", strerror(-ret));
	else if (tracefmt_nr_bad(s->tf))
		cmd_warn("%u tracepoint format%s of '%s' did not parse: %s fields are not shown",
			 tracefmt_nr_bad(s->tf), tracefmt_nr_bad(s->tf) == 1 ? "" : "s", s->input,
			 tracefmt_nr_bad(s->tf) == 1 ? "its" : "their");
	if (s->tf)
		tracefmt_set_ksym(s->tf, script_ksym, s);
}

static int by_time(const void *a, const void *b, void *arg)
{
	const struct prof_sample *smp = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (smp[x].ts != smp[y].ts)
		return smp[x].ts < smp[y].ts ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Sample indices in time order (perf script's order); NULL when the
 * samples already are (or on no memory: then file order). */
static uint32_t *time_order(const struct profile *p)
{
	uint32_t *idx;
	size_t i;

	for (i = 1; i < p->nr_samples; i++)
		if (p->samples[i].ts < p->samples[i - 1].ts)
			break;
	if (i >= p->nr_samples || p->nr_samples > UINT32_MAX)
		return NULL;
	idx = malloc(p->nr_samples * sizeof(*idx));
	if (!idx)
		return NULL;
	for (i = 0; i < p->nr_samples; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, p->nr_samples, sizeof(*idx), by_time, p->samples);
	return idx;
}

static int out_write(struct script *s, const void *buf, size_t n)
{
	if (n && fwrite_unlocked(buf, 1, n, stdout) != n) {
		s->write_error = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

/* The addresses of a stack shown: --max-stack's, or all. */
static unsigned max_frames(const struct script *s)
{
	return s->max_stack < 0 ? UINT_MAX : (unsigned)s->max_stack;
}

/* Whether group gi's sample function passes --dsos and -S (perf: the
 * function of the sampled address, not an inlined one): 1, 0, or a
 * negative errno. */
static int group_leaf_pass(struct script *s, uint32_t gi)
{
	const struct zt_frange *r;
	const uint64_t *ips;
	unsigned n;
	int ret;

	if (!rfilter_has_leaf(&s->filt))
		return 1;
	if (s->nr_gpass < s->sg.nr) {
		if (ZT_GROW(s->gpass, s->cap_gpass, s->sg.nr))
			return -ENOMEM;
		memset(s->gpass + s->nr_gpass, 0, s->sg.nr - s->nr_gpass);
		s->nr_gpass = s->sg.nr;
	}
	if (!s->gpass[gi]) {
		int pass = 0;

		ret = stackgroups_resolve(&s->sg, gi, 1, &ips, &r, &n);
		if (ret)
			return ret;
		if (n) {
			const struct zt_frame *f =
				rstacks_frame(s->rs, r[0].first + r[0].n - 1);

			pass = rfilter_leaf_at(&s->filt, f->module, f->map ? f->map->path : NULL,
					       f->sym, ips[0], r[0].map || f->kernel);
		}
		s->gpass[gi] = pass ? 1 : 2;
	}
	return s->gpass[gi] == 1;
}

/* Whether sample smp of thread name c is shown: the filters' verdict. */
static int sample_shown(struct script *s, const struct prof_sample *smp, const char *c)
{
	return rfilter_sample(&s->filt, smp, c, s->t_first, s->t_last) == RFILTER_SHOW;
}

/* The frame lines of group gi into s->text (one line without callchains:
 * the sample's own address, absolute as perf prints it). */
static int format_group(struct script *s, uint32_t gi)
{
	const struct zt_frange *r;
	const uint64_t *ips;
	unsigned n;
	int ret;

	s->gtext[gi].off = s->text.len;
	ret = stackgroups_resolve(&s->sg, gi, s->fmt.callchain ? max_frames(s) : 1, &ips, &r, &n);
	if (!ret)
		ret = perfscript_stack(&s->text, &s->fmt, s->rs, s->sg.groups[gi].pid, ips, r,
				       n);
	s->gtext[gi].len = s->text.len - s->gtext[gi].off;
	return ret;
}

/* ---- side-band records ---- */

static int by_sband_time(const void *a, const void *b)
{
	const struct sband *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* in file order otherwise; tasks before maps of the same time */
	if (x->mmap != y->mmap) /* perf synthesizes the kernel's map first */
		return x->mmap ? (x->kmap ? -1 : 1) : (y->kmap ? 1 : -1);
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The records --show-task-events and --show-mmap-events ask for, by time. */
static int collect_sband(struct script *s)
{
	const struct profile *p = &s->ses.prof;
	size_t i, n = (s->show_task ? p->nr_tasks : 0) + (s->show_mmap ? p->nr_mmaps : 0);

	if (!n)
		return 0;
	s->sb = calloc(n, sizeof(*s->sb));
	if (!s->sb)
		return -ENOMEM;
	for (i = 0; s->show_task && i < p->nr_tasks; i++)
		s->sb[s->nr_sb++] = (struct sband){p->tasks[i].ts, 0, 0, (uint32_t)i};
	for (i = 0; s->show_mmap && i < p->nr_mmaps; i++)
		s->sb[s->nr_sb++] = (struct sband){p->mmaps[i].ts, 1,
						   p->mmaps[i].pid == ZT_PID_KERNEL, (uint32_t)i};
	qsort(s->sb, s->nr_sb, sizeof(*s->sb), by_sband_time);
	return 0;
}

/* The side-band records up to time ts (all: UINT64_MAX), each as perf
 * script prints it: the sample header's start (thread name, tid, time),
 * then the record. */
static int print_sband_until(struct script *s, uint64_t ts)
{
	struct perfscript_fmt f = s->fmt;
	char hdr[PERFSCRIPT_HEADER_ROOM + 64], body[4400], cbuf[32], comm[64];

	/* [CPU] is not known for side-band records here */
	f.fields &= PERFSCRIPT_F_COMM | PERFSCRIPT_F_TID | PERFSCRIPT_F_PID | PERFSCRIPT_F_TIME |
		    PERFSCRIPT_F_IP;
	while (s->next_sb < s->nr_sb && s->sb[s->next_sb].ts <= ts) {
		const struct sband *b = &s->sb[s->next_sb++];
		struct prof_sample smp = {.ts = b->ts};
		const char *c;
		size_t n, m;

		if (b->mmap) {
			const struct prof_mmap *mm = &s->ses.prof.mmaps[b->idx];

			smp.pid = mm->pid == ZT_PID_KERNEL ? 0 : mm->pid;
			smp.tid = mm->pid == ZT_PID_KERNEL ? 0 : mm->tid;
			m = perfscript_mmap(mm, body, sizeof(body));
		} else {
			const struct prof_task *t = &s->ses.prof.tasks[b->idx];

			/* perf shows the thread that ran it: a fork's parent */
			smp.pid = t->pid;
			smp.tid = t->kind == PROF_TASK_FORK ? t->ptid : t->tid;
			m = perfscript_task(t, body, sizeof(body));
		}
		c = smp.pid || smp.tid ? rstacks_comm(s->rs, smp.pid, smp.tid, smp.ts) : NULL;
		/* perf shows a thread by the name a COMM record just gave it */
		if (!b->mmap && s->ses.prof.tasks[b->idx].kind != PROF_TASK_FORK &&
		    s->ses.prof.tasks[b->idx].kind != PROF_TASK_EXIT)
			c = s->ses.prof.tasks[b->idx].comm;
		prof_sanitize(comm, sizeof(comm),
			      perfscript_comm(c, smp.pid, smp.tid, cbuf, sizeof(cbuf)));
		if (!b->ts) /* synthesized at the start: perf shows tid 0 */
			smp.tid = smp.pid = 0;
		f.event = "";
		n = perfscript_header(&f, &smp, comm, hdr);
		if (n && (f.fields & PERFSCRIPT_F_IP))
			n--; /* the frames' newline or space: not here */
		if (out_write(s, hdr, n) || out_write(s, body, m))
			return -EPIPE;
	}
	return 0;
}

/* ---- GPU records ---- */

/* The header of a GPU record of pid (thread tid, named at ts) into s->line. */
static void gpu_header(struct script *s, uint32_t pid, uint32_t tid, uint64_t name_ts,
		       uint64_t ts)
{
	char cbuf[32], comm[64];
	const char *c = rstacks_comm(s->rs, pid, tid, name_ts);

	prof_sanitize(comm, sizeof(comm), perfscript_comm(c, pid, tid, cbuf, sizeof(cbuf)));
	gpuscript_header(&s->line, &s->gfmt, comm, pid, tid, ts);
}

/* The frame lines of launch l's stack into s->line, through the session's
 * frame table (grouped like samples: each distinct stack formatted once). */
static int launch_stack(struct script *s, const struct prof_gpu_launch *l)
{
	struct launch_text *lt = &s->lt;
	struct prof_sample smp = { .ts = l->ts, .pid = l->pid, .tid = l->tid, .stack = l->stack };
	const struct zt_frange *r;
	const uint64_t *ips;
	uint32_t gi;
	unsigned n;
	int is_new, ret;

	ret = stackgroups_add(&lt->sg, &smp, NULL, 0, &gi, &is_new);
	if (!ret && is_new && ZT_GROW(lt->gtext, lt->cap_gtext, lt->sg.nr))
		ret = -ENOMEM;
	if (ret)
		return ret;
	if (is_new) {
		lt->gtext[gi].off = lt->text.len;
		ret = stackgroups_resolve(&lt->sg, gi, UINT_MAX, &ips, &r, &n);
		if (!ret)
			ret = perfscript_stack(&lt->text, &s->lfmt, s->rs, l->pid, ips, r, n);
		lt->gtext[gi].len = lt->text.len - lt->gtext[gi].off;
		if (ret)
			return ret;
	}
	zbuf_put(&s->line, lt->text.data + lt->gtext[gi].off, lt->gtext[gi].len);
	return s->line.err;
}

/* A kernel or memory operation: its line, then (unless -G) its launch's
 * frames and a blank line. */
static int gpu_launched(struct script *s, const struct gpu_ev *e)
{
	const struct prof_gpu *g = s->ses.prof.gpu;
	const struct prof_gpu_kernel *k = e->kind == GPU_EV_KERNEL ? &g->kernels[e->idx] : NULL;
	const struct prof_gpu_memop *m = k ? NULL : &g->memops[e->idx];
	uint32_t pid = k ? k->pid : m->pid, corr = k ? k->corr : m->corr;
	const struct prof_gpu_launch *l =
		gpu_view_launch(&s->gs.v, pid, corr, k ? k->graph_id : m->graph_id, e->ts);
	int stack = l && l->stack != PROF_GPU_NO_STACK, ret = 0;
	const char *note = NULL;

	gpu_header(s, pid, l ? l->tid : pid, l ? l->ts : e->ts, e->ts);
	if (k) {
		if (!l)
			note = "launch=none";
		else if (!stack)
			note = l->flags & PROF_GPU_L_RATELIMITED ? "launch=ratelimited"
								 : "launch=nostack";
		gpuscript_kernel(&s->line, k, session_gpu_name(&s->gs, k->name), note);
	} else {
		gpuscript_memop(&s->line, m);
	}
	if (!s->lfmt.callchain)
		return 0;
	if (stack && (s->lfmt.fields & PERFSCRIPT_F_IP))
		ret = launch_stack(s, l);
	zbuf_put_u8(&s->line, '\n');
	return ret;
}

/* The timed GPU records before ts (all of them: UINT64_MAX). */
static int print_gpu_until(struct script *s, uint64_t ts)
{
	int ret = 0;

	while (!ret && s->next_ev < s->gs.v.nr_ev && s->gs.v.ev[s->next_ev].ts < ts) {
		const struct gpu_ev *e = &s->gs.v.ev[s->next_ev++];

		zbuf_reset(&s->line);
		if (e->kind == GPU_EV_OVERHEAD) {
			const struct prof_gpu_overhead *o = &s->ses.prof.gpu->overheads[e->idx];

			gpu_header(s, o->pid, o->pid, e->ts, e->ts);
			gpuscript_overhead(&s->line, o);
		} else {
			ret = gpu_launched(s, e);
		}
		if (!ret && !(ret = s->line.err) && out_write(s, s->line.data, s->line.len))
			return -EPIPE; /* reported as s->write_error */
	}
	return ret;
}

/* The GPU records without a time, after all the others: PC samples summed
 * per (process, cubin, function, PC, stall reason), cubins, what the
 * processes reported. */
static int print_gpu_rest(struct script *s)
{
	const struct prof_gpu *g = s->ses.prof.gpu;
	struct zbuf *b = &s->line;
	size_t i;

	zbuf_reset(b);
	for (i = 0; i < s->gs.v.nr_pcs; i++) {
		const struct gpu_pcsum *p = &s->gs.v.pcs[i];

		gpu_header(s, p->pid, p->pid, UINT64_MAX, GPUSCRIPT_NO_TIME);
		gpuscript_pcsample(b, p, session_gpu_name(&s->gs, p->function),
				   prof_gpu_stall_name(g, p->pid, p->context, p->stall));
		if (s->lfmt.callchain) {
			uint32_t n;
			const struct gpu_frame *f = gpu_frametab_pc(&s->gs.ft, i, &n);

			if (f && (s->lfmt.fields & PERFSCRIPT_F_IP))
				gpuscript_pcframes(b, p, f, n);
			zbuf_put_u8(b, '\n');
		}
		if (b->len >= OUT_BUF_SIZE / 2) {
			if (b->err || out_write(s, b->data, b->len))
				return b->err ? b->err : -EPIPE;
			zbuf_reset(b);
		}
	}
	for (i = 0; i < g->nr_cubins; i++) {
		gpu_header(s, g->cubins[i].pid, g->cubins[i].pid, UINT64_MAX, GPUSCRIPT_NO_TIME);
		gpuscript_cubin(b, &g->cubins[i]);
	}
	for (i = 0; i < g->nr_infos; i++) {
		gpu_header(s, g->infos[i].pid, g->infos[i].pid, UINT64_MAX, GPUSCRIPT_NO_TIME);
		gpuscript_info(b, prof_gpu_str(g, g->infos[i].key),
			       prof_gpu_str(g, g->infos[i].value));
	}
	for (i = 0; i < g->nr_counters; i++) {
		gpu_header(s, g->counters[i].pid, g->counters[i].pid, UINT64_MAX,
			   GPUSCRIPT_NO_TIME);
		gpuscript_counters(b, &g->counters[i]);
	}
	if (b->err)
		return b->err;
	return out_write(s, b->data, b->len) ? -EPIPE : 0;
}

/* On stderr: what the CUDA processes lost (the records shown are not all). */
static void gpu_losses(const struct script *s)
{
	const struct prof_gpu *g = s->ses.prof.gpu;
	size_t i;

	for (i = 0; g && i < g->nr_counters; i++) {
		const struct prof_gpu_counters *c = &g->counters[i];

		if (c->dropped_records || c->mem_dropped)
			cmd_warn("process %u lost %llu GPU activity records (CUPTI's buffers or the "
				 "library's memory cap): its GPU timeline has gaps",
				 c->pid, (unsigned long long)(c->dropped_records + c->mem_dropped));
		if (c->pc_dropped_samples)
			cmd_warn("process %u lost %llu of %llu PC samples (the sampling buffers "
				 "overflowed): the stall counts are a part of the whole",
				 c->pid, (unsigned long long)c->pc_dropped_samples,
				 (unsigned long long)c->pc_total_samples);
	}
}

/* Ready the GPU side (nothing to do without GPU records or with --cpu). */
static int gpu_init(struct script *s)
{
	const struct prof_gpu *g = s->ses.prof.gpu;
	int ret;

	if (!g || s->only_cpu)
		return 0;
	/* --pid, --tid, --comm, --time: the GPU records they select */
	ret = session_gpu_open(&s->ses, &s->filt, 1, &s->gs);
	s->gfmt = (struct gpuscript_fmt){ s->fmt.fields, s->fmt.ns };
	s->lfmt = s->fmt;
	s->lfmt.callchain = !s->hide_cg;
	stackgroups_init(&s->lt.sg, s->rs);
	return ret;
}

/* Whether smp is of a tracepoint event (perf's PERF_TYPE_TRACEPOINT). */
static int is_tracepoint(const struct script *s, const struct prof_sample *smp)
{
	const struct profile *p = &s->ses.prof;

	return smp->event < p->nr_events && p->events[smp->event].type == 2;
}

/*
 * A tracepoint sample's header as perf prints it: the tracepoint fields
 * (s->tp_fields), its raw record's fields after the event name, then the
 * frames' newline or space; *f: the fields used. 0, -EPIPE (a write error,
 * in s->write_error) or -ENOMEM.
 */
static int print_tp_header(struct script *s, const struct prof_sample *smp, const char *comm,
			   char *hdr, unsigned *f)
{
	struct perfscript_fmt fmt = s->fmt;
	const uint8_t *raw;
	size_t n, len;
	int ret;

	*f = s->tp_fields;
	fmt.fields = s->tp_fields;
	n = perfscript_header(&fmt, smp, comm, hdr);
	if (n && (fmt.fields & PERFSCRIPT_F_IP))
		n--; /* the frames' newline or space: after the fields */
	if (out_write(s, hdr, n))
		return -EPIPE;
	zbuf_reset(&s->tline);
	if ((s->tp_fields & PERFSCRIPT_F_TRACE) && s->tf &&
	    (raw = profile_sample_raw(&s->ses.prof, smp, &len))) {
		ret = tracefmt_print(s->tf, smp->cpu, raw, len, &s->tline);
		if (ret == -ENOMEM)
			return ret;
	}
	if (s->tp_fields & PERFSCRIPT_F_IP)
		zbuf_put_u8(&s->tline, s->fmt.callchain ? '\n' : ' ');
	if (s->tline.err)
		return s->tline.err;
	return out_write(s, s->tline.data, s->tline.len) ? -EPIPE : 0;
}

/* perf script's default output, sample by sample, with the GPU records
 * between them by time, and the untimed GPU records last. */
static int print_samples(struct script *s)
{
	char hdr[PERFSCRIPT_HEADER_ROOM + 64 + sizeof(s->event)], cbuf[32], comm[64];
	uint32_t *order = s->only_gpu ? NULL : time_order(&s->ses.prof);
	size_t i, nr = s->only_gpu ? 0 : s->ses.prof.nr_samples;
	int ret = 0;

	for (i = 0; i < nr; i++) {
		const struct prof_sample *smp = &s->ses.prof.samples[order ? order[i] : i];
		const char *c = rstacks_comm(s->rs, smp->pid, smp->tid, smp->ts);
		unsigned f = s->fmt.fields;
		uint32_t gi;
		int is_new;
		size_t n;

		if ((ret = print_gpu_until(s, smp->ts)) || (ret = print_sband_until(s, smp->ts)))
			break;
		if (!sample_shown(s, smp, c))
			continue;

		prof_sanitize(comm, sizeof(comm),
			      perfscript_comm(c, smp->pid, smp->tid, cbuf, sizeof(cbuf)));
		ret = stackgroups_add(&s->sg, smp, NULL, 0, &gi, &is_new);
		if (!ret && is_new && ZT_GROW(s->gtext, s->cap_gtext, s->sg.nr))
			ret = -ENOMEM;
		if (ret)
			break;
		if ((ret = group_leaf_pass(s, gi)) <= 0) {
			if (!ret && is_new)
				s->gtext[gi].off = SIZE_MAX;
			if (ret)
				break;
			continue;
		}
		ret = 0;
		if (is_new) {
			s->gtext[gi].off = SIZE_MAX;
			if (((s->fmt.fields | s->tp_fields) & PERFSCRIPT_F_IP) &&
			    (ret = format_group(s, gi)))
				break;
		}
		if (s->evnames && smp->event < s->ses.prof.nr_events)
			s->fmt.event = s->evnames[smp->event];
		if (is_tracepoint(s, smp)) {
			ret = print_tp_header(s, smp, comm, hdr, &f);
			if (ret)
				break;
		} else {
			n = perfscript_header(&s->fmt, smp, comm, hdr);
			if (out_write(s, hdr, n))
				break;
		}
		if ((f & PERFSCRIPT_F_IP) &&
		    out_write(s, s->text.data + s->gtext[gi].off, s->gtext[gi].len))
			break;
		if (out_write(s, "\n", 1))
			break;
	}
	free(order);
	if (!ret && !s->write_error)
		ret = print_sband_until(s, UINT64_MAX);
	if (!ret && !s->write_error)
		ret = print_gpu_until(s, UINT64_MAX);
	if (!ret && !s->write_error && s->gs.v.g)
		ret = print_gpu_rest(s);
	return ret == -EPIPE && s->write_error ? 0 : ret;
}

static int folded_out(void *ctx, const void *buf, size_t n)
{
	return out_write(ctx, buf, n);
}

/* --folded --gpu: the GPU stacks (formats/gpufolded.h). */
static int print_gpu_folded(struct script *s)
{
	struct gpu_launch_stacks ls;
	struct folded_set fs;
	struct gpufolded_opts o = {.weight = s->gpu_weight && !strcmp(s->gpu_weight, "time")
						     ? GPUFOLDED_TIME
						     : GPUFOLDED_SAMPLES,
				   .prefix = gpu_launch_stacks_prefix,
				   .prefix_ctx = &ls,
				   .kernel_name = session_gpu_name_cb,
				   .name_ctx = &s->gs};
	int ret;

	if (!s->gs.v.g)
		return 0;
	if (o.weight == GPUFOLDED_SAMPLES && !s->gs.had_pcs)
		cmd_warn("'%s' has no PC samples (recorded with --gpu-pcs off?): try --gpu-weight "
			 "time",
			 s->input);
	folded_set_init(&fs);
	gpu_launch_stacks_init(&ls, s->rs, s->fmt.inline_frames);
	ret = gpufolded_build(&fs, &s->gs.v, &s->gs.ft, &o);
	/* it stops at a write error, which cmd_script() reports (s->write_error) */
	if (!ret)
		folded_set_write(&fs, folded_out, s);
	gpu_launch_stacks_release(&ls);
	folded_set_release(&fs);
	return ret;
}

/* --folded: one line per distinct stack with its number of samples,
 * sorted as stackcollapse-perf.pl sorts (byte order). */
static int print_folded(struct script *s)
{
	struct folded_set fs;
	struct zbuf b;
	size_t i;
	int ret = 0;

	if (s->only_gpu)
		return print_gpu_folded(s);
	folded_set_init(&fs);
	zbuf_init(&b);
	for (i = 0; i < s->ses.prof.nr_samples && !ret; i++) {
		const struct prof_sample *smp = &s->ses.prof.samples[i];
		const char *c = rstacks_comm(s->rs, smp->pid, smp->tid, smp->ts);
		uint32_t gi;

		if (!sample_shown(s, smp, c))
			continue;
		ret = stackgroups_add(&s->sg, smp, c, c ? 0 : smp->tid, &gi, NULL);
		/* a group that fails --dsos or -S is skipped below (all its
		 * samples have its function) */
		if (!ret && (ret = group_leaf_pass(s, gi)) > 0)
			ret = 0;
	}
	cmd_info("%zu samples in %zu groups to resolve", s->ses.prof.nr_samples, s->sg.nr);
	for (i = 0; i < s->sg.nr && !ret; i++) {
		const struct stackgroup *g = &s->sg.groups[i];
		const struct zt_frange *r;
		const uint64_t *ips;
		char cbuf[32], comm[64];
		unsigned n;

		if (rfilter_has_leaf(&s->filt) && s->gpass[i] != 1)
			continue;
		prof_sanitize(comm, sizeof(comm),
			      perfscript_comm(g->comm, g->pid, g->tid, cbuf, sizeof(cbuf)));
		ret = stackgroups_resolve(&s->sg, (uint32_t)i, max_frames(s), &ips, &r, &n);
		if (!ret)
			ret = folded_stack(&b, comm, s->rs, g->pid, ips, r, n,
					   s->fmt.inline_frames);
		if (!ret)
			ret = folded_set_add(&fs, (const char *)b.data, g->nr);
	}
	/* it stops at a write error, which cmd_script() reports (s->write_error) */
	if (!ret)
		folded_set_write(&fs, folded_out, s);
	folded_set_release(&fs);
	zbuf_release(&b);
	return ret;
}

static void script_release(struct script *s)
{
	free(s->evnames);
	tracefmt_free(s->tf);
	zbuf_release(&s->tline);
	session_gpu_close(&s->gs);
	stackgroups_release(&s->lt.sg);
	free(s->lt.gtext);
	zbuf_release(&s->lt.text);
	zbuf_release(&s->line);
	stackgroups_release(&s->sg);
	session_close(&s->ses);
	rfilter_release(&s->filt);
	free(s->gpass);
	free(s->sb);
	free(s->gtext);
	zbuf_release(&s->text);
	symopts_release(&s->so);
}

static const char *const script_usage[] = {
	"zt script [<options>]",
	"zt script --folded [<options>]",
	"zt script --gpu [<options>]",
	"zt script --folded --gpu [--gpu-weight samples|time] [<options>]",
	NULL,
};

static int script_parse_options(struct script *s, int argc, char **argv, int *rest)
{
	const struct opt opts[] = {
		{OPT_STRING, 'i', "input", &s->input, "file",
		 "input file name (default: zt.data, or standard input when it is a pipe)"},
		{OPT_STRING, 0, "event", &s->event_opt, "name",
		 "the event to show of a perf.data file with several"},
		{OPT_STRING, 'F', "fields", &s->fields, "fields",
		 "comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,period,srcline,trace; +f,-f: "
		 "change the defaults; trace: (or sw:) for the tracepoints' (the others') only"},
		{OPT_STRING, 'c', "comms", &s->fa.comm, "comm[,comm...]",
		 "only samples of these thread names"},
		{OPT_STRING, 0, "comm", &s->fa.comm, "comm[,comm...]", "the same as --comms"},
		{OPT_STRING, 0, "pid", &s->fa.pid, "pid[,pid...]",
		 "only samples of these processes"},
		{OPT_STRING, 0, "tid", &s->fa.tid, "tid[,tid...]", "only samples of these threads"},
		{OPT_STRING, 'C', "cpus", &s->fa.cpu, "cpus",
		 "only samples on these CPUs (0,2-3); perf's -C (--cpu is zt's: CPU samples only)"},
		{OPT_STRING, 0, "time", &s->fa.time, "start,end",
		 "only samples in these time ranges: START,END in seconds (several: separated "
		 "by spaces), A%-B% or P%/N of the recording (several: by commas)"},
		{OPT_STRING, 'S', "symbols", &s->fa.symbols, "sym[,sym...]",
		 "only samples in these functions, or at these addresses (hexadecimal)"},
		{OPT_INT, 0, "addr-range", &s->addr_range, "n",
		 "with -S's addresses: also the samples up to n-1 bytes above each"},
		{OPT_STRING, 0, "dsos", &s->fa.dso, "dso[,dso...]",
		 "only samples in these modules (name or path)"},
		{OPT_INT, 0, "max-stack", &s->max_stack, "n",
		 "show at most n frames of each call chain (default: all)"},
		{OPT_BOOL, 0, "header", &s->header, NULL, "show the recording's header info first"},
		{OPT_BOOL, 0, "header-only", &s->header_only, NULL,
		 "show only the recording's header info"},
		{OPT_BOOL, 0, "show-task-events", &s->show_task, NULL,
		 "show the COMM, FORK and EXIT records among the samples"},
		{OPT_BOOL, 0, "show-mmap-events", &s->show_mmap, NULL,
		 "show the MMAP records (executable mappings) among the samples"},
		{OPT_BOOL, 'G', "hide-call-graph", &s->hide_cg, NULL,
		 "one line per sample: the sampled address only"},
		{OPT_BOOL, 0, "inline", &s->fmt.inline_frames, NULL,
		 "show inlined functions as frames of their own"},
		{OPT_BOOL, 0, "ns", &s->fmt.ns, NULL, "show times in nanoseconds"},
		{OPT_BOOL, 0, "reltime", &s->reltime, NULL,
		 "show times relative to the first one shown"},
		{OPT_BOOL, 0, "folded", &s->folded, NULL,
		 "folded stacks (comm;root;...;leaf COUNT), as stackcollapse-perf.pl "
		 "writes them; with --gpu: GPU stacks (launch stack;kernel_[g];...;stall_[gs])"},
		{OPT_BOOL, 0, "gpu", &s->only_gpu, NULL,
		 "only the GPU records of a zt record --gpu recording (zt's own), PC samples "
		 "with their device functions and source lines"},
		{OPT_STRING, 0, "gpu-weight", &s->gpu_weight, "samples|time",
		 "--folded --gpu: weigh by PC samples (default) or by kernel time in ns "
		 "(stacks end at the kernel)"},
		{OPT_BOOL, 0, "cpu", &s->only_cpu, NULL,
		 "only the CPU samples, as perf script shows them (zt's own)"},
		{OPT_BOOL, 0, "no-unwind", &s->so.no_unwind, NULL,
		 "a --call-graph dwarf recording's chains as recorded (zt's kernel unwinder's, or "
		 "frame pointers), its stack copies not unwound: to compare the two"},
		{OPT_BOOL, 'f', "force", &s->force, NULL,
		 "show the readable part of a damaged file"},
		{OPT_BOOL, 0, "demangle", &s->demangle, NULL,
		 "demangle C++ and Rust names (default); --no-demangle: keep them raw"},
		{OPT_BOOL, 'q', "quiet", &s->quiet, NULL, "no warnings"},
		SYMOPTS_NAME_OPTIONS(s->so),
		SYMOPTS_OPTIONS(s->so),
		SYMOPTS_SYMDB_OPTIONS(s->so),
		SYMOPTS_KERNEL_OPTIONS(s->so),
		SYMOPTS_PYTHON_OPTIONS(s->so),
		OPT_EOL,
	};

	return opts_parse("script", script_usage, opts, argc, argv, rest);
}

/* The options' values and the arguments after them (argv[rest..]), -F
 * parsed: ZT_EXIT_OK or ZT_EXIT_USAGE (the message shown). */
static int script_check_options(struct script *s, int argc, char **argv, int rest)
{
	if (!s->input)
		s->input = cmd_default_input();
	if (rest < argc) {
		if (rest > 0 && !strcmp(argv[rest - 1], "--cpu"))
			cmd_error(
				"unexpected argument '%s': zt script's --cpu shows the CPU samples "
				"only; to keep some CPUs' samples use -C %s",
				argv[rest], argv[rest]);
		else
			cmd_error("unexpected argument '%s': the input is given with -i",
				  argv[rest]);
		return ZT_EXIT_USAGE;
	}
	if (s->only_gpu && s->only_cpu) {
		cmd_error("--gpu and --cpu cannot be used together: without either, both are shown");
		return ZT_EXIT_USAGE;
	}
	if (s->gpu_weight && strcmp(s->gpu_weight, "samples") && strcmp(s->gpu_weight, "time")) {
		cmd_error("--gpu-weight: '%s' is neither 'samples' nor 'time'", s->gpu_weight);
		return ZT_EXIT_USAGE;
	}
	if (s->gpu_weight && !(s->only_gpu && s->folded)) {
		cmd_error("--gpu-weight weighs the stacks of --folded --gpu: give both");
		return ZT_EXIT_USAGE;
	}
	/* parse -F before reading, against defaults without the CPU: it is
	 * added below when the recording has it and -F did not say */
	s->fmt.fields = PERFSCRIPT_F_COMM | PERFSCRIPT_F_TID | PERFSCRIPT_F_TIME |
			PERFSCRIPT_F_PERIOD | PERFSCRIPT_F_EVENT | PERFSCRIPT_F_IP |
			PERFSCRIPT_F_SYM | PERFSCRIPT_F_SYMOFF | PERFSCRIPT_F_DSO;
	/* perf's for tracepoints; the call chain's fields join below */
	s->tp_fields = PERFSCRIPT_F_COMM | PERFSCRIPT_F_TID | PERFSCRIPT_F_CPU | PERFSCRIPT_F_TIME |
		       PERFSCRIPT_F_EVENT | PERFSCRIPT_F_TRACE;
	if (parse_fields(s))
		return ZT_EXIT_USAGE;
	s->fmt.t0 = s->reltime ? &s->t0 : NULL;
	if (s->max_stack < -1) {
		cmd_error("--max-stack: %d is not a number of frames (0 or more)", s->max_stack);
		return ZT_EXIT_USAGE;
	}
	if ((s->header_only || s->header) && (s->folded || s->only_gpu)) {
		cmd_error("--header shows perf script's header: not with --folded or --gpu");
		return ZT_EXIT_USAGE;
	}
	if ((s->show_task || s->show_mmap) && s->folded) {
		cmd_error("--show-task-events and --show-mmap-events show records among the "
			  "samples: not with --folded");
		return ZT_EXIT_USAGE;
	}
	if (cmd_filters(&s->filt, &s->fa))
		return ZT_EXIT_USAGE;
	if (s->addr_range < 0) {
		cmd_error("--addr-range: %d is not a number of bytes (0 or more)", s->addr_range);
		return ZT_EXIT_USAGE;
	}
	if (s->addr_range && !s->filt.nr_addrs) {
		cmd_error("--addr-range widens the addresses of -S: give -S with an address "
			  "(like -S 0x401136)");
		return ZT_EXIT_USAGE;
	}
	s->filt.addr_range = (uint64_t)s->addr_range;
	return ZT_EXIT_OK;
}

/* The recording's event names, as shown: of the one event, and of each of
 * several (whose longest sets the column's width, as perf aligns them). */
static void event_names(struct script *s)
{
	const char *ev = profile_get_meta(&s->ses.prof, "event");

	prof_sanitize(s->event, sizeof(s->event), ev && *ev ? ev : "[unknown]");
	s->fmt.event = s->event;
	if (s->ses.prof.nr_events > 1 &&
	    (s->evnames = calloc(s->ses.prof.nr_events, sizeof(*s->evnames))))
		for (size_t k = 0; k < s->ses.prof.nr_events; k++) {
			prof_sanitize(s->evnames[k], sizeof(s->evnames[k]),
				      s->ses.prof.events[k].name);
			/* perf aligns the names of several events */
			if ((int)strlen(s->evnames[k]) > s->fmt.event_width)
				s->fmt.event_width = (int)strlen(s->evnames[k]);
		}
}

/* After reading: the side-band records to show among the samples, the
 * warnings of an empty selection, and the fields that depend on what
 * the recording has. 0 or -1 (the message shown). */
static int script_prepare(struct script *s)
{
	profile_time_span(&s->ses.prof, &s->t_first, &s->t_last);
	if (collect_sband(s)) {
		cmd_error("cannot show the samples: %s", strerror(ENOMEM));
		return -1;
	}
	if (s->only_gpu && !s->ses.prof.gpu)
		cmd_warn("'%s' has no GPU records (record with zt record --gpu)", s->input);
	else if (!s->ses.prof.nr_samples && !s->only_gpu && !s->ses.prof.gpu)
		cmd_warn("'%s' has no samples", s->input);
	if (!s->fields_set && !s->cpu_removed && recorded_cpu(&s->ses.prof))
		s->fmt.fields |= PERFSCRIPT_F_CPU;
	s->fmt.callchain = !s->hide_cg && profile_has_callchains(&s->ses.prof);
	if (s->fmt.callchain && !s->tp_fields_set)
		s->tp_fields |=
			PERFSCRIPT_F_IP | PERFSCRIPT_F_SYM | PERFSCRIPT_F_SYMOFF | PERFSCRIPT_F_DSO;
	if (!s->folded && (s->tp_fields & PERFSCRIPT_F_TRACE))
		open_tracefmt(s);
	if (s->folded)
		s->fmt.callchain = 1;
	event_names(s);
	return 0;
}

/* The samples (or folded stacks) and the GPU records to stdout, its
 * write errors turned into a message. An exit code. */
static int script_print(struct script *s)
{
	static char obuf[OUT_BUF_SIZE]; /* stdout's buffer until exit */
	int ret;

	stackgroups_init(&s->sg, s->rs);
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	ret = s->folded && !s->only_gpu ? 0 : gpu_init(s);
	if (!ret)
		ret = s->folded ? print_folded(s) : print_samples(s);
	if (!ret && (!s->folded || s->only_gpu) && !s->only_cpu)
		gpu_losses(s);
	if (ret) {
		cmd_error("cannot show the samples: %s", strerror(-ret));
		ret = ZT_EXIT_FAIL;
	} else {
		ret = ZT_EXIT_OK;
	}
	if (fflush(stdout) && !s->write_error)
		s->write_error = errno;
	if (s->write_error && s->write_error != EPIPE) {
		cmd_error("cannot write the output: %s", strerror(s->write_error));
		ret = ZT_EXIT_FAIL;
	}
	/* reported here; a closed pipe (zt script | head) is a normal end */
	clearerr(stdout);
	return ret;
}

int cmd_script(int argc, char **argv)
{
	struct script s = {.demangle = 1,
			   .max_stack = -1,
			   .so = {.use_debuginfod = 1, .use_cache = 1, .use_symdb = 1}};
	int rest, ret;

	ret = script_parse_options(&s, argc, argv, &rest);
	cmd_setup("script", s.quiet ? -1 : s.so.verbose);
	if (ret == OPTS_HELP || ret == OPTS_ERROR) {
		ret = ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
		goto out;
	}
	ret = script_check_options(&s, argc, argv, rest);
	if (ret != ZT_EXIT_OK)
		goto out;
	if (symopts_init(&s.so, "script")) {
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	ret = load(&s);
	if (ret >= 0)
		goto out;
	ret = ZT_EXIT_FAIL;
	if (cmd_check_cpu_filter(&s.ses, &s.filt))
		goto out;
	if (s.header_only || s.header) {
		cmd_print_header(&s.ses);
		if (s.header_only) {
			ret = fflush(stdout) ? ZT_EXIT_FAIL : ZT_EXIT_OK;
			goto out;
		}
	}
	if (script_prepare(&s))
		goto out;
	ret = script_print(&s);
out:
	script_release(&s);
	return ret;
}
