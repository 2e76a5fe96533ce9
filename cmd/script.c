/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt script: every sample of a recording as text in perf script's default
 * format (perf 6.1; what stackcollapse-perf.pl, speedscope and the Firefox
 * Profiler parse), or folded stacks as stackcollapse-perf.pl writes them.
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
#include "formats/ztdata.h"
#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/proctree.h"
#include "libprof/sgroup.h"
#include "libprof/profile.h"

#define NAME_MAX_LEN 1024      /* longest symbol or module name shown */
#define OUT_BUF_SIZE (1 << 20) /* stdout buffer */

/* perf script's -F fields that apply to zt's samples */
enum {
	F_COMM = 1 << 0,
	F_TID = 1 << 1,
	F_PID = 1 << 2,
	F_TIME = 1 << 3,
	F_CPU = 1 << 4,
	F_EVENT = 1 << 5,
	F_IP = 1 << 6,
	F_SYM = 1 << 7,
	F_SYMOFF = 1 << 8,
	F_DSO = 1 << 9,
	F_PERIOD = 1 << 10,
};

static const struct {
	const char *name;
	unsigned bit;
} field_names[] = {
	{ "comm", F_COMM },	{ "tid", F_TID },     { "pid", F_PID },	      { "time", F_TIME },
	{ "cpu", F_CPU },	{ "event", F_EVENT }, { "ip", F_IP },	      { "sym", F_SYM },
	{ "symoff", F_SYMOFF }, { "dso", F_DSO },     { "period", F_PERIOD },
};

/* perf's other field names: known, but nothing in a zt recording to show */
static const char *const perf_only_fields[] = {
	"trace",       "addr",		 "srcline",	   "iregs",
	"uregs",       "brstack",	 "brstacksym",	   "flags",
	"bpf-output",  "brstackinsn",	 "brstackinsnlen", "brstackoff",
	"callindent",  "insn",		 "insnlen",	   "synth",
	"phys_addr",   "metric",	 "misc",	   "srccode",
	"ipc",	       "data_page_size", "code_page_size", "ins_lat",
	"machine_pid", "vcpu",		 "cgroup",	   "retire_lat",
	"tod",	       "weight",	 "dsoff",	   "disasm",
	"brcntr",      "data_src",
};

/* A growing byte buffer. */
struct sbuf {
	char *buf;
	size_t len, cap;
};

/* Samples that resolve alike: same stack, process and mappings (and, for
 * --folded, thread name). Their frames are resolved and formatted once. */
struct group {
	uint32_t stack, pid, tid; /* tid: --folded, of a thread without a name */
	const char *comm;	  /* --folded only */
	uint64_t epoch, ts;	  /* ts: of the first sample, to resolve with */
	uint64_t nr;
	size_t off, len; /* the formatted frame lines in script.text */
};

struct script {
	const char *input, *fields, *event_opt;
	int hide_cg, demangle, show_inline, folded, force, quiet, ns;
	unsigned flds;
	int fields_set, cpu_removed; /* -F gave a list; -F -cpu */
	int callchain;		     /* frames on their own lines (else one line per sample) */
	struct symopts so;
	struct session ses;
	struct zt_frange *ranges; /* a stack's frames */
	size_t cap_ranges;
	char event[256];
	struct group *groups;
	size_t nr_groups, cap_groups;
	struct sgroups sg; /* the keys of groups[] */
	struct sbuf text;    /* frame lines of all groups */
	int write_error;
};

static int sbuf_grow(struct sbuf *b, size_t more)
{
	size_t ncap;
	char *n;

	if (b->len + more <= b->cap)
		return 0;
	if (more > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	ncap = b->cap ? b->cap : 4096;
	while (ncap < b->len + more)
		ncap *= 2;
	n = realloc(b->buf, ncap);
	if (!n)
		return -ENOMEM;
	b->buf = n;
	b->cap = ncap;
	return 0;
}

static int sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (sbuf_grow(b, n + 1))
		return -ENOMEM;
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = 0;
	return 0;
}

static int sbuf_adds(struct sbuf *b, const char *s)
{
	return sbuf_add(b, s, strlen(s));
}

/* Number formatting without printf: each writes at p and returns the end. */
/* "%Nu": decimal padded on the left to width */
static char *put_dec(char *p, uint64_t v, int width)
{
	char tmp[24];
	int n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = n; i < width; i++)
		*p++ = ' ';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* "%-Nd": decimal padded on the right to width */
static char *put_dec_left(char *p, uint64_t v, int width)
{
	char *s = p, *e = put_dec(p, v, 0);

	while (e - s < width)
		*e++ = ' ';
	return e;
}

/* "%16" PRIx64 */
static char *put_hex16(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0, i;

	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	for (i = n; i < 16; i++)
		*p++ = ' ';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* "0x%lx" */
static char *put_0x(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	*p++ = '0';
	*p++ = 'x';
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* Read the input; exit code or -1 to go on. */
static int load(struct script *s)
{
	struct session_opts o;
	struct cmd_progress prog;

	/* names as perf script shows them: demangled without parameter
	 * lists (with --full-signature: with), unless --no-demangle */
	cmd_session_opts(&s->so, &prog, &o);
	o.force = s->force;
	o.event = s->event_opt;
	o.no_demangle = !s->demangle;
	return session_open(&s->ses, s->input, &o) ? ZT_EXIT_FAIL : -1;
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
	int ret = 0;
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
		if (strcmp(str, "sw") && strcmp(str, "hw") && strcmp(str, "raw")) {
			cmd_error("-F: invalid event type '%s' (use sw: or hw:, or none)", str);
			free(list);
			return -EINVAL;
		}
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
			s->flds = 0;
			s->fields_set = 1;
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
					  "event, "
					  "ip, sym, symoff, dso, period",
					  tok);
			ret = -EINVAL;
			break;
		}
		if (sign == '-' && bit == F_CPU)
			s->cpu_removed = 1;
		if (sign == '-')
			s->flds &= ~bit;
		else
			s->flds |= bit;
	}
	free(list);
	return ret;
}

/* The group of a sample (created if new), counted once more. */
static int group_of(struct script *s, const struct prof_sample *smp, const char *comm, uint32_t tid,
		    uint32_t *out)
{
	struct sgroup_key k = { smp->stack, smp->pid, tid, comm,
				proctree_epoch(s->ses.pt, smp->pid, smp->ts) };
	int is_new;

	/* JIT code replaced over time (jitdump): each sample by its own time */
	if (frametab_time_sensitive(&s->ses.ft, smp->pid))
		k.epoch = zt_hash_mix(k.epoch, smp->ts);
	if (sgroups_find(&s->sg, &k, out, &is_new))
		return -ENOMEM;
	if (is_new) {
		if (ZT_GROW(s->groups, s->cap_groups, s->sg.nr))
			return -ENOMEM;
		s->groups[*out] = (struct group){ smp->stack, smp->pid, tid, comm, k.epoch, smp->ts,
						  0, SIZE_MAX, 0 };
		s->nr_groups = s->sg.nr;
	}
	s->groups[*out].nr++;
	return 0;
}

/* The frames of group g's first addresses (at most max): s->ranges[i]
 * those of the stack's address i; *n how many. 0 or a negative errno. */
static int resolve_stack(struct script *s, const struct group *g, unsigned max, unsigned *n)
{
	const struct prof_stack *st = &s->ses.prof.stacks[g->stack];

	*n = (unsigned)st->nk + st->nu;
	if (*n > max)
		*n = max;
	if (ZT_GROW(s->ranges, s->cap_ranges, *n ? *n : 1))
		return -ENOMEM;
	return frametab_resolve(&s->ses.ft, g->pid, g->ts, g->epoch,
				profile_stack_ips(&s->ses.prof, g->stack), st->nk, *n, s->ranges);
}

/* One frame as perf script shows it: the address (DSO-relative for user
 * code in a file, absolute for kernel, JIT and unmapped code), the symbol
 * ("[unknown]" if none) and the DSO (the mapped file's path). */
struct shown_frame {
	uint64_t addr;
	char sym[NAME_MAX_LEN];
	char dso[NAME_MAX_LEN];
	int has_sym;
	uint64_t off;
};

static void show_frame(uint32_t pid, uint64_t ip, const struct zt_frame *f,
		       const struct prof_mmap *map,
		       struct shown_frame *o)
{
	/* the resolver's names of anonymous executable memory */
	int jit = !f->kernel && f->module &&
		  (!strncmp(f->module, "[JIT]", 5) || !strcmp(f->module, "[anon]"));

	o->has_sym = f->sym != NULL;
	o->off = f->offset;
	if (f->sym)
		prof_sanitize(o->sym, sizeof(o->sym), f->sym);
	else
		strcpy(o->sym, "[unknown]");
	o->addr = ip;
	if (f->kernel) {
		prof_sanitize(o->dso, sizeof(o->dso), f->module ? f->module : "[kernel.kallsyms]");
	} else if (jit) {
		/* perf names anonymous executable memory after its perf map */
		snprintf(o->dso, sizeof(o->dso), "/tmp/perf-%u.map", pid);
	} else if (map) {
		prof_sanitize(o->dso, sizeof(o->dso), map->path);
		o->addr = ip - map->start + map->pgoff;
	} else {
		strcpy(o->dso, "[unknown]");
	}
}

/* Append one frame line: "\t%16x sym+0xoff (dso)\n" with the fields
 * asked for; an inlined frame has " (inlined)" in place of its DSO. */
static int add_frame_line(struct script *s, struct sbuf *b, uint64_t addr, const char *sym,
			  int has_sym, uint64_t off, const char *dso)
{
	char num[48], *e;

	if (sbuf_grow(b, 64))
		return -ENOMEM;
	e = b->buf + b->len;
	if (s->callchain)
		*e++ = '\t';
	if (s->flds & F_IP)
		e = put_hex16(e, addr);
	b->len = (size_t)(e - b->buf);
	if (s->flds & F_SYM) {
		if (sbuf_add(b, " ", 1) || sbuf_adds(b, sym))
			return -ENOMEM;
		if (has_sym && (s->flds & F_SYMOFF)) {
			e = num;
			*e++ = '+';
			e = put_0x(e, off);
			if (sbuf_add(b, num, (size_t)(e - num)))
				return -ENOMEM;
		}
	}
	if (dso && (s->flds & F_DSO)) {
		if (sbuf_add(b, " (", 2) || sbuf_adds(b, dso) || sbuf_add(b, ")", 1))
			return -ENOMEM;
	}
	if (!dso && sbuf_adds(b, " (inlined)"))
		return -ENOMEM;
	if (s->callchain && sbuf_add(b, "\n", 1))
		return -ENOMEM;
	return 0;
}

/* The frame lines of a group into s->text (one line without callchains:
 * the sample's own address, absolute as perf prints it). */
static int format_group(struct script *s, struct group *g)
{
	const uint64_t *ips = profile_stack_ips(&s->ses.prof, g->stack);
	struct shown_frame *sf = malloc(sizeof(*sf));
	char name[NAME_MAX_LEN];
	unsigned i, n;
	int ret;

	if (!sf)
		return -ENOMEM;
	g->off = s->text.len;
	ret = resolve_stack(s, g, s->callchain ? UINT_MAX : 1, &n);
	for (i = 0; i < n && !ret; i++) {
		const struct zt_frange *r = &s->ranges[i];
		const struct zt_frame *f = frametab_frame(&s->ses.ft, r->first + r->n - 1);
		unsigned k;

		show_frame(g->pid, ips[i], f, r->map, sf);
		if (!s->callchain)
			sf->addr = ips[i];
		for (k = 0; s->show_inline && s->callchain && k + 1 < r->n && !ret; k++) {
			prof_sanitize(name, sizeof(name), frametab_frame(&s->ses.ft, r->first + k)->sym);
			ret = add_frame_line(s, &s->text, sf->addr, name, 1, sf->off, NULL);
		}
		if (!ret)
			ret = add_frame_line(s, &s->text, sf->addr, sf->sym, sf->has_sym, sf->off,
					     sf->dso);
	}
	if (!ret && !n && !s->callchain)
		ret = add_frame_line(s, &s->text, 0, "[unknown]", 0, 0, "[unknown]");
	g->len = s->text.len - g->off;
	free(sf);
	return ret;
}

/* The name perf shows for a thread. */
static const char *comm_of(const char *comm, uint32_t pid, uint32_t tid, char *buf, size_t n)
{
	if (comm)
		return comm;
	if (!pid && !tid)
		return "swapper";
	snprintf(buf, n, ":%u", tid);
	return buf;
}

/* The header line of a sample, perf_sample__fprintf_start() and the
 * period and event name after it. Returns its length. */
static size_t format_header(const struct script *s, const struct prof_sample *smp, const char *comm,
			    char *out)
{
	char *p = out;
	size_t l = strlen(comm);

	if (s->flds & F_COMM) {
		/* "%16s " unless frames follow on their own lines: "%s " */
		for (; l < 16 && !(s->callchain && (s->flds & F_IP)); l++)
			*p++ = ' ';
		l = strlen(comm);
		memcpy(p, comm, l);
		p += l;
		*p++ = ' ';
	}
	if ((s->flds & (F_PID | F_TID)) == (F_PID | F_TID)) {
		p = put_dec(p, smp->pid, 5);
		*p++ = '/';
		p = put_dec_left(p, smp->tid, 5);
		*p++ = ' ';
	} else if (s->flds & (F_PID | F_TID)) {
		p = put_dec(p, s->flds & F_PID ? smp->pid : smp->tid, 5);
		*p++ = ' ';
	}
	if (s->flds & F_CPU) {
		*p++ = '[';
		p = put_dec(p, smp->cpu, 3);
		/* %03d: zeros, not spaces */
		for (char *q = p - 3; q < p && *q == ' '; q++)
			*q = '0';
		*p++ = ']';
		*p++ = ' ';
	}
	if (s->flds & F_TIME) {
		uint64_t sec = smp->ts / 1000000000ull, ns = smp->ts % 1000000000ull;
		char t[40], *e = t;
		int i;

		if (s->ns) {
			p = put_dec(p, sec, 5);
			*p++ = '.';
			for (i = 100000000; i; i /= 10)
				*p++ = (char)('0' + ns / (uint64_t)i % 10);
		} else {
			e = put_dec(e, sec, 0);
			*e++ = '.';
			for (i = 100000; i; i /= 10)
				*e++ = (char)('0' + ns / 1000 / (uint64_t)i % 10);
			for (i = (int)(e - t); i < 12; i++)
				*p++ = ' ';
			memcpy(p, t, (size_t)(e - t));
			p += e - t;
		}
		*p++ = ':';
		*p++ = ' ';
	}
	if (s->flds & F_PERIOD) {
		p = put_dec(p, smp->weight, 10);
		*p++ = ' ';
	}
	if (s->flds & F_EVENT) {
		l = strlen(s->event);
		memcpy(p, s->event, l);
		p += l;
		*p++ = ':';
		*p++ = ' ';
	}
	if (s->flds & F_IP)
		*p++ = s->callchain ? '\n' : ' ';
	return (size_t)(p - out);
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

/* perf script's default output, sample by sample. */
static int print_samples(struct script *s)
{
	char hdr[2048], cbuf[32], comm[64];
	uint32_t *order = time_order(&s->ses.prof);
	size_t i;
	int ret = 0;

	for (i = 0; i < s->ses.prof.nr_samples; i++) {
		const struct prof_sample *smp = &s->ses.prof.samples[order ? order[i] : i];
		const char *c = proctree_comm(s->ses.pt, smp->pid, smp->tid, smp->ts);
		struct group *g;
		uint32_t gi;
		size_t n;

		prof_sanitize(comm, sizeof(comm),
			      comm_of(c, smp->pid, smp->tid, cbuf, sizeof(cbuf)));
		ret = group_of(s, smp, NULL, 0, &gi);
		if (ret)
			break;
		g = &s->groups[gi];
		if ((s->flds & F_IP) && g->off == SIZE_MAX) {
			ret = format_group(s, g);
			if (ret)
				break;
		}
		n = format_header(s, smp, comm, hdr);
		if (out_write(s, hdr, n))
			break;
		if ((s->flds & F_IP) && out_write(s, s->text.buf + g->off, g->len))
			break;
		if (out_write(s, "\n", 1))
			break;
	}
	free(order);
	return ret;
}

/* stackcollapse-perf.pl's name for a process: the text before the first
 * " DIGITS[/DIGITS] " of the header, at least two characters, spaces made
 * '_'. */
static void folded_comm(const char *comm, char *out, size_t n)
{
	size_t l = strlen(comm), i, j;

	for (i = 2; i < l; i++) {
		j = i;
		if (comm[j] != ' ' && comm[j] != '\t')
			continue;
		while (comm[j] == ' ' || comm[j] == '\t' || comm[j] == '\n' || comm[j] == '\r' ||
		       comm[j] == '\f' || comm[j] == '\v')
			j++;
		if (comm[j] < '0' || comm[j] > '9')
			continue;
		while (comm[j] >= '0' && comm[j] <= '9')
			j++;
		while (comm[j] == '/')
			j++;
		while (comm[j] >= '0' && comm[j] <= '9')
			j++;
		if (comm[j] == ' ' || comm[j] == '\t')
			break;
	}
	if (i < l)
		l = i;
	if (l >= n)
		l = n - 1;
	for (i = 0; i < l; i++)
		out[i] = comm[i] == ' ' ? '_' : comm[i];
	out[l] = 0;
}

/* One function name tidied as stackcollapse-perf.pl does by default,
 * appended to b as ";name". inl: not the first of a "a->b" split. */
static int sc_func(struct sbuf *b, const char *func, size_t fl, const char *mod, int java, int inl)
{
	char *f = malloc(fl + strlen(mod) + 8), *p, *d;
	int ret;

	if (!f)
		return -ENOMEM;
	if (fl == 9 && !memcmp(func, "[unknown]", 9)) {
		/* the module's base name in brackets, when known */
		const char *base = strrchr(mod, '/');

		if (strcmp(mod, "[unknown]"))
			sprintf(f, "[%s]", base ? base + 1 : mod);
		else
			strcpy(f, "[unknown]");
	} else {
		memcpy(f, func, fl);
		f[fl] = 0;
	}
	for (p = f; *p; p++)
		if (*p == ';')
			*p = ':';
	/* from the first '(' on is noise, unless the name looks like a Go
	 * method (m/\.\(.*\)\./) or the '(' opens "(anonymous namespace)" */
	p = strstr(f, ".(");
	if (!(p && strstr(p + 2, ")."))) {
		for (p = f; (p = strchr(p, '(')); p++)
			if (strncmp(p + 1, "anonymous namespace)", 20)) {
				*p = 0;
				break;
			}
	}
	for (d = p = f; *p; p++)
		if (*p != '"' && *p != '\'')
			*d++ = *p;
	*d = 0;
	p = java && f[0] == 'L' && strchr(f, '/') ? f + 1 : f;
	ret = sbuf_add(b, ";", 1);
	if (!ret)
		ret = sbuf_adds(b, p);
	if (!ret && inl && !strstr(p, "_[i]"))
		ret = sbuf_adds(b, "_[i]");
	free(f);
	return ret;
}

/* One frame line's "SYM+0xOFF (DSO)" (what follows the address) as
 * stackcollapse-perf.pl reads it: split at the last " (" (its greedy
 * regex), offset stripped, "a->b" split, each piece appended to b. */
static int sc_line(struct sbuf *b, char *text, int java)
{
	char *close = strrchr(text, ')'), *sp = NULL, *q, *mod, *pieces[64];
	size_t fl, np = 0, k;
	int ret = 0;

	for (q = close ? close - 1 : NULL; q && q > text; q--)
		if (q[0] == ' ' && q[1] == '(') {
			sp = q;
			break;
		}
	if (!sp)
		return 0; /* "Unrecognized line": the script skips it */
	*sp = 0;
	*close = 0;
	mod = sp + 2;
	/* s/\+0x[\da-f]+$// */
	fl = strlen(text);
	q = text + fl;
	while (q > text && ((q[-1] >= '0' && q[-1] <= '9') || (q[-1] >= 'a' && q[-1] <= 'f')))
		q--;
	if (q < text + fl && q - text >= 3 && !memcmp(q - 3, "+0x", 3))
		q[-3] = 0;
	if (text[0] == '(')
		return 0; /* "skip process names" */
	/* split /\->/: empty trailing pieces dropped */
	for (q = text; np < sizeof(pieces) / sizeof(pieces[0]);) {
		pieces[np++] = q;
		q = strstr(q, "->");
		if (!q)
			break;
		*q = 0;
		q += 2;
	}
	while (np && !*pieces[np - 1])
		np--;
	for (k = 0; k < np && !ret; k++)
		ret = sc_func(b, pieces[k], strlen(pieces[k]), mod, java, k > 0);
	return ret;
}

struct fold_entry {
	char *key;
	uint64_t count;
};

static int cmp_fold(const void *a, const void *b)
{
	return strcmp(((const struct fold_entry *)a)->key, ((const struct fold_entry *)b)->key);
}

/* Append one default-format frame text "SYM[+0xOFF] (DSO)" to lines,
 * NUL-terminated, and its offset to *offs. */
static int add_line(struct sbuf *lines, size_t **offs, size_t *nr, size_t *cap, const char *sym,
		    int with_off, uint64_t off, const char *dso)
{
	char num[24], *e = num;

	if (ZT_GROW(*offs, *cap, *nr + 1))
		return -ENOMEM;
	(*offs)[(*nr)++] = lines->len;
	*e++ = '+';
	e = put_0x(e, off);
	*e = 0;
	if (sbuf_adds(lines, sym) || (with_off && sbuf_adds(lines, num)) ||
	    sbuf_add(lines, " (", 2) || sbuf_adds(lines, dso) ||
	    sbuf_add(lines, ")", 2)) /* with its NUL: lines are strings */
		return -ENOMEM;
	return 0;
}

/* The folded stack of a group into b: "comm;outermost;...;leaf", what
 * stackcollapse-perf.pl makes of the group's sample in the default output
 * (with --inline: of that output with inline frames). */
static int fold_group(struct script *s, const struct group *g, struct sbuf *b)
{
	const uint64_t *ips = profile_stack_ips(&s->ses.prof, g->stack);
	unsigned i, n = 0;
	struct shown_frame *sf = malloc(sizeof(*sf));
	struct sbuf lines = { 0 };
	size_t *offs = NULL, nr = 0, cap = 0, k;
	char cbuf[32], comm[64], pname[64], name[NAME_MAX_LEN];
	int ret = 0, java;

	if (!sf)
		return -ENOMEM;
	prof_sanitize(comm, sizeof(comm), comm_of(g->comm, g->pid, g->tid, cbuf, sizeof(cbuf)));
	folded_comm(comm, pname, sizeof(pname));
	java = !strncmp(pname, "java", 4);
	b->len = 0;
	ret = sbuf_adds(b, pname);
	if (!ret)
		ret = resolve_stack(s, g, UINT_MAX, &n);
	for (i = 0; i < n && !ret; i++) {
		const struct zt_frange *r = &s->ranges[i];
		const struct zt_frame *f = frametab_frame(&s->ses.ft, r->first + r->n - 1);
		unsigned j;

		show_frame(g->pid, ips[i], f, r->map, sf);
		for (j = 0; s->show_inline && j + 1 < r->n && !ret; j++) {
			prof_sanitize(name, sizeof(name), frametab_frame(&s->ses.ft, r->first + j)->sym);
			ret = add_line(&lines, &offs, &nr, &cap, name, 1, sf->off, "inlined");
		}
		if (!ret)
			ret = add_line(&lines, &offs, &nr, &cap, sf->sym, sf->has_sym, sf->off,
				       sf->dso);
	}
	/* printed leaf first; the script prepends each line: root first */
	for (k = nr; k-- > 0 && !ret;)
		ret = sc_line(b, lines.buf + offs[k], java);
	free(offs);
	free(lines.buf);
	free(sf);
	return ret;
}

/* --folded: one line per distinct stack with its number of samples,
 * sorted as stackcollapse-perf.pl sorts (byte order). */
static int print_folded(struct script *s)
{
	struct fold_entry *fe = NULL;
	uint32_t *fhash = NULL;
	size_t nfe = 0, cap = 0, hcap = 0, i;
	struct sbuf b = { 0 };
	char line[32], *e;
	int ret = 0;

	for (i = 0; i < s->ses.prof.nr_samples && !ret; i++) {
		const struct prof_sample *smp = &s->ses.prof.samples[i];
		const char *c = proctree_comm(s->ses.pt, smp->pid, smp->tid, smp->ts);
		uint32_t gi;

		ret = group_of(s, smp, c, c ? 0 : smp->tid, &gi);
	}
	cmd_info("%zu samples in %zu groups to resolve", s->ses.prof.nr_samples, s->nr_groups);
	for (i = 0; i < s->nr_groups && !ret; i++) {
		uint64_t h;
		size_t j;

		ret = fold_group(s, &s->groups[i], &b);
		if (ret)
			break;
		if ((nfe + 1) * 2 > hcap) {
			size_t ncap = hcap ? hcap * 2 : 4096, k;
			uint32_t *t = calloc(ncap, sizeof(*t));

			if (!t) {
				ret = -ENOMEM;
				break;
			}
			for (k = 0; k < nfe; k++) {
				j = zt_hash_str(fe[k].key) & (ncap - 1);
				while (t[j])
					j = (j + 1) & (ncap - 1);
				t[j] = (uint32_t)k + 1;
			}
			free(fhash);
			fhash = t;
			hcap = ncap;
		}
		h = zt_hash_str(b.buf);
		for (j = h & (hcap - 1); fhash[j]; j = (j + 1) & (hcap - 1))
			if (!strcmp(fe[fhash[j] - 1].key, b.buf))
				break;
		if (fhash[j]) {
			fe[fhash[j] - 1].count += s->groups[i].nr;
			continue;
		}
		if (ZT_GROW(fe, cap, nfe + 1) || !(fe[nfe].key = strdup(b.buf))) {
			ret = -ENOMEM;
			break;
		}
		fe[nfe].count = s->groups[i].nr;
		fhash[j] = (uint32_t)++nfe;
	}
	if (!ret) {
		qsort(fe, nfe, sizeof(*fe), cmp_fold);
		for (i = 0; i < nfe; i++) {
			e = line;
			*e++ = ' ';
			e = put_dec(e, fe[i].count, 0);
			*e++ = '\n';
			if (out_write(s, fe[i].key, strlen(fe[i].key)) ||
			    out_write(s, line, (size_t)(e - line)))
				break;
		}
	}
	for (i = 0; i < nfe; i++)
		free(fe[i].key);
	free(fe);
	free(fhash);
	free(b.buf);
	return ret;
}

static void script_release(struct script *s)
{
	session_close(&s->ses);
	free(s->ranges);
	free(s->groups);
	sgroups_release(&s->sg);
	free(s->text.buf);
	symopts_release(&s->so);
}

static const char *const script_usage[] = {
	"zt script [<options>]",
	"zt script --folded [<options>]",
	NULL,
};

int cmd_script(int argc, char **argv)
{
	struct script s = { .input = "zt.data",
			    .demangle = 1,
			    .so = { .use_debuginfod = 1, .use_cache = 1 } };
	const struct opt opts[] = {
		{ OPT_STRING, 'i', "input", &s.input, "file",
		  "input file name (default: zt.data)" },
		{ OPT_STRING, 0, "event", &s.event_opt, "name", "the event to show of a perf.data file with several" },
		{ OPT_STRING, 'F', "fields", &s.fields, "fields",
		  "comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,period; +f,-f: change "
		  "the defaults" },
		{ OPT_BOOL, 'G', "hide-call-graph", &s.hide_cg, NULL,
		  "one line per sample: the sampled address only" },
		{ OPT_BOOL, 0, "inline", &s.show_inline, NULL,
		  "show inlined functions as frames of their own" },
		{ OPT_BOOL, 0, "ns", &s.ns, NULL, "show times in nanoseconds" },
		{ OPT_BOOL, 0, "folded", &s.folded, NULL,
		  "folded stacks (comm;root;...;leaf COUNT), as stackcollapse-perf.pl "
		  "writes them" },
		{ OPT_BOOL, 'f', "force", &s.force, NULL,
		  "show the readable part of a damaged file" },
		{ OPT_BOOL, 0, "demangle", &s.demangle, NULL,
		  "demangle C++ and Rust names (default); --no-demangle: keep them raw" },
		{ OPT_BOOL, 'q', "quiet", &s.quiet, NULL, "no warnings" },
		SYMOPTS_NAME_OPTIONS(s.so),
		SYMOPTS_OPTIONS(s.so),
		SYMOPTS_KERNEL_OPTIONS(s.so),
		OPT_EOL,
	};
	static char obuf[OUT_BUF_SIZE]; /* stdout's buffer until exit */
	int rest, ret;

	ret = opts_parse("script", script_usage, opts, argc, argv, &rest);
	cmd_setup("script", s.quiet ? -1 : s.so.verbose);
	if (ret == OPTS_HELP || ret == OPTS_ERROR) {
		ret = ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
		goto out;
	}
	ret = ZT_EXIT_USAGE;
	if (rest < argc) {
		cmd_error("unexpected argument '%s': the input is given with -i", argv[rest]);
		goto out;
	}
	/* parse -F before reading, against defaults without the CPU: it is
	 * added below when the recording has it and -F did not say */
	s.flds = F_COMM | F_TID | F_TIME | F_PERIOD | F_EVENT | F_IP | F_SYM | F_SYMOFF | F_DSO;
	if (parse_fields(&s))
		goto out;
	if (symopts_init(&s.so, "script"))
		goto out;
	ret = load(&s);
	if (ret >= 0)
		goto out;
	if (!s.ses.prof.nr_samples)
		cmd_warn("'%s' has no samples", s.input);
	if (!s.fields_set && !s.cpu_removed && recorded_cpu(&s.ses.prof))
		s.flds |= F_CPU;
	s.callchain = !s.hide_cg && profile_has_callchains(&s.ses.prof);
	if (s.folded)
		s.callchain = 1;
	{
		const char *ev = profile_get_meta(&s.ses.prof, "event");

		prof_sanitize(s.event, sizeof(s.event), ev && *ev ? ev : "[unknown]");
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	ret = s.folded ? print_folded(&s) : print_samples(&s);
	if (ret) {
		cmd_error("cannot show the samples: %s", strerror(-ret));
		ret = ZT_EXIT_FAIL;
	} else {
		ret = ZT_EXIT_OK;
	}
	if (fflush(stdout) && !s.write_error)
		s.write_error = errno;
	if (s.write_error && s.write_error != EPIPE) {
		cmd_error("cannot write the output: %s", strerror(s.write_error));
		ret = ZT_EXIT_FAIL;
	}
	/* reported here; a closed pipe (zt script | head) is a normal end */
	clearerr(stdout);
out:
	script_release(&s);
	return ret;
}
