/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf script's default text: header and frame lines formatted without
 * printf (zt script writes millions of them).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "formats/perfscript.h"

#define NAME_MAX_LEN 1024 /* longest symbol or module name shown */

/* Number formatting: each writes at p and returns the end. */
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

const char *perfscript_comm(const char *comm, uint32_t pid, uint32_t tid, char *buf, size_t n)
{
	if (comm)
		return comm;
	if (!pid && !tid)
		return "swapper";
	snprintf(buf, n, ":%u", tid);
	return buf;
}

size_t perfscript_header(const struct perfscript_fmt *f, const struct prof_sample *smp,
			 const char *comm, char *out)
{
	unsigned flds = f->fields;
	char *p = out;
	size_t l = strlen(comm);

	if (flds & PERFSCRIPT_F_COMM) {
		/* "%16s " unless frames follow on their own lines: "%s " */
		for (; l < 16 && !(f->callchain && (flds & PERFSCRIPT_F_IP)); l++)
			*p++ = ' ';
		l = strlen(comm);
		memcpy(p, comm, l);
		p += l;
		*p++ = ' ';
	}
	if ((flds & (PERFSCRIPT_F_PID | PERFSCRIPT_F_TID)) ==
	    (PERFSCRIPT_F_PID | PERFSCRIPT_F_TID)) {
		p = put_dec(p, smp->pid, 5);
		*p++ = '/';
		p = put_dec_left(p, smp->tid, 5);
		*p++ = ' ';
	} else if (flds & (PERFSCRIPT_F_PID | PERFSCRIPT_F_TID)) {
		p = put_dec(p, flds & PERFSCRIPT_F_PID ? smp->pid : smp->tid, 5);
		*p++ = ' ';
	}
	if (flds & PERFSCRIPT_F_CPU) {
		*p++ = '[';
		p = put_dec(p, smp->cpu, 3);
		/* %03d: zeros, not spaces */
		for (char *q = p - 3; q < p && *q == ' '; q++)
			*q = '0';
		*p++ = ']';
		*p++ = ' ';
	}
	if (flds & PERFSCRIPT_F_TIME) {
		uint64_t ts = smp->ts, sec, ns;
		char t[40], *e = t;
		int i;

		if (f->t0) { /* perf's --reltime: from the first time it shows */
			if (!*f->t0)
				*f->t0 = ts;
			ts -= *f->t0;
		}
		sec = ts / 1000000000ull;
		ns = ts % 1000000000ull;

		if (f->ns) {
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
	if (flds & PERFSCRIPT_F_PERIOD) {
		p = put_dec(p, smp->weight, 10);
		*p++ = ' ';
	}
	if (flds & PERFSCRIPT_F_EVENT) {
		l = strlen(f->event);
		for (size_t k = l; k < (size_t)f->event_width && k < 255; k++)
			*p++ = ' ';
		memcpy(p, f->event, l);
		p += l;
		*p++ = ':';
		*p++ = ' ';
	}
	if (flds & PERFSCRIPT_F_IP)
		*p++ = f->callchain ? '\n' : ' ';
	return (size_t)(p - out);
}

/* The function frame f of address ip (covered by map in process pid) as
 * perf script shows it, its strings in sym and dso (NAME_MAX_LEN each). */
static void show_frame(uint32_t pid, uint64_t ip, const struct zt_frame *f,
		       const struct prof_mmap *map, struct perfscript_frame *o, char *sym,
		       char *dso, char *src)
{
	/* the resolver's names of anonymous executable memory */
	int jit = !f->kernel && f->module &&
		  (!strncmp(f->module, "[JIT]", 5) || !strcmp(f->module, "[anon]"));

	o->ip = o->addr = ip;
	o->off = f->offset;
	o->has_sym = f->sym != NULL;
	if (f->sym)
		prof_sanitize(sym, NAME_MAX_LEN, f->sym);
	else
		strcpy(sym, "[unknown]");
	o->sym = sym;
	o->dso = dso;
	if (f->kernel) {
		prof_sanitize(dso, NAME_MAX_LEN, f->module ? f->module : "[kernel.kallsyms]");
	} else if (jit) {
		/* perf names anonymous executable memory after its perf map */
		snprintf(dso, NAME_MAX_LEN, "/tmp/perf-%u.map", pid);
	} else if (map) {
		prof_sanitize(dso, NAME_MAX_LEN, map->path);
		o->addr = prof_mmap_offset(map, ip);
	} else if (prof_is_py(ip) && f->file) {
		/* a Python frame: its source file, as a binary's path */
		char tmp[NAME_MAX_LEN];

		snprintf(tmp, sizeof(tmp), "%s%s%s", f->dir ? f->dir : "",
			 f->dir && *f->dir && strcmp(f->dir, "/") ? "/" : "", f->file);
		prof_sanitize(dso, NAME_MAX_LEN, tmp);
	} else if (prof_is_py(ip)) {
		prof_sanitize(dso, NAME_MAX_LEN, f->module ? f->module : "[python]");
	} else {
		strcpy(dso, "[unknown]");
	}
	/* perf's map__fprintf_srcline(): the file's base name and line, else
	 * the module's short name and the address perf shows */
	if (f->sfile) {
		char tmp[NAME_MAX_LEN];

		zt_frame_srcline(f, tmp, sizeof(tmp));
		prof_sanitize(src, NAME_MAX_LEN, tmp);
	} else {
		char tmp[NAME_MAX_LEN];

		snprintf(tmp, sizeof(tmp), "%s[%llx]", f->module ? f->module : "[unknown]",
			 (unsigned long long)o->addr);
		prof_sanitize(src, NAME_MAX_LEN, tmp);
	}
	o->srcline = src;
}

int perfscript_walk(const struct frametab *ft, uint32_t pid, const uint64_t *ips,
		    const struct zt_frange *r, unsigned n, int inline_frames,
		    perfscript_frame_fn fn, void *ctx)
{
	char sym[NAME_MAX_LEN], dso[NAME_MAX_LEN], name[NAME_MAX_LEN], src[NAME_MAX_LEN];
	struct perfscript_frame fr, in;
	unsigned i, k;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		const struct zt_frame *f = frametab_frame(ft, r[i].first + r[i].n - 1);

		show_frame(pid, ips[i], f, r[i].map, &fr, sym, dso, src);
		for (k = 0; inline_frames && k + 1 < r[i].n && !ret; k++) {
			const char *s = frametab_frame(ft, r[i].first + k)->sym;

			prof_sanitize(name, sizeof(name), s ? s : "[unknown]");
			in = fr;
			in.sym = name;
			in.dso = NULL;
			in.has_sym = 1;
			ret = fn(ctx, &in);
		}
		if (!ret)
			ret = fn(ctx, &fr);
	}
	return ret;
}

int perfscript_frame_text(struct zbuf *b, const struct perfscript_fmt *f,
			  const struct perfscript_frame *fr)
{
	char num[24], *e;

	if (zbuf_reserve(b, 24))
		return b->err;
	e = (char *)b->data + b->len;
	if (f->callchain)
		*e++ = '\t';
	if (f->fields & PERFSCRIPT_F_IP)
		e = put_hex16(e, f->callchain ? fr->addr : fr->ip);
	b->len = (size_t)(e - (char *)b->data);
	if (f->fields & PERFSCRIPT_F_SYM) {
		zbuf_put(b, " ", 1);
		zbuf_put(b, fr->sym, strlen(fr->sym));
		if (fr->has_sym && (f->fields & PERFSCRIPT_F_SYMOFF)) {
			e = num;
			*e++ = '+';
			e = put_0x(e, fr->off);
			zbuf_put(b, num, (size_t)(e - num));
		}
	}
	if (fr->dso && (f->fields & PERFSCRIPT_F_DSO)) {
		zbuf_put(b, " (", 2);
		zbuf_put(b, fr->dso, strlen(fr->dso));
		zbuf_put(b, ")", 1);
	}
	if (!fr->dso)
		zbuf_put(b, " (inlined)", 10);
	if (f->callchain)
		zbuf_put(b, "\n", 1);
	if ((f->fields & PERFSCRIPT_F_SRCLINE) && fr->srcline) {
		/* on a line of its own: after the frame's, or the sample's */
		zbuf_put(b, f->callchain ? "  " : "\n  ", f->callchain ? 2 : 3);
		zbuf_put(b, fr->srcline, strlen(fr->srcline));
		if (f->callchain)
			zbuf_put(b, "\n", 1);
	}
	return b->err;
}

struct stack_ctx {
	struct zbuf *b;
	const struct perfscript_fmt *f;
};

static int add_frame(void *ctx, const struct perfscript_frame *fr)
{
	struct stack_ctx *c = ctx;

	return perfscript_frame_text(c->b, c->f, fr);
}

int perfscript_stack(struct zbuf *b, const struct perfscript_fmt *f, const struct rstacks *rs,
		     uint32_t pid, const uint64_t *ips, const struct zt_frange *r, unsigned n)
{
	struct stack_ctx c = {b, f};
	static const struct perfscript_frame unknown = {0, 0, 0, "[unknown]", "[unknown]", 0};

	if (!f->callchain && n > 1)
		n = 1;
	if (!f->callchain && !n)
		return perfscript_frame_text(b, f, &unknown);
	return perfscript_walk(rs->ft, pid, ips, r, n, f->callchain && f->inline_frames, add_frame,
			       &c);
}

size_t perfscript_task(const struct prof_task *t, char *out, size_t n)
{
	char comm[64];
	int l;

	switch (t->kind) {
	case PROF_TASK_COMM:
	case PROF_TASK_EXEC:
		prof_sanitize(comm, sizeof(comm), t->comm);
		l = snprintf(out, n, "PERF_RECORD_COMM%s: %s:%u/%u\n",
			     t->kind == PROF_TASK_EXEC ? " exec" : "", comm, t->pid, t->tid);
		break;
	case PROF_TASK_FORK:
	case PROF_TASK_EXIT:
		l = snprintf(out, n, "PERF_RECORD_%s(%u:%u):(%u:%u)\n",
			     t->kind == PROF_TASK_FORK ? "FORK" : "EXIT", t->pid, t->tid, t->ppid,
			     t->ptid);
		break;
	default:
		l = snprintf(out, n, "PERF_RECORD_UNKNOWN(%u)\n", t->kind);
	}
	return l < 0 ? 0 : (size_t)l >= n ? n - 1 : (size_t)l;
}

size_t perfscript_mmap(const struct prof_mmap *m, char *out, size_t n)
{
	char path[4096];
	int l;

	prof_sanitize(path, sizeof(path), m->path ? m->path : "");
	if (m->pid == ZT_PID_KERNEL) {
		/* perf's kernel map is named after its _text symbol */
		l = snprintf(out, n, "PERF_RECORD_MMAP -1/0: [%#llx(%#llx) @ %#llx]: %c %s%s\n",
			     (unsigned long long)m->start, (unsigned long long)m->len,
			     (unsigned long long)m->pgoff, m->prot & 4 ? 'x' : 'r', path,
			     strcmp(path, "[kernel.kallsyms]") ? "" : "_text");
	} else {
		l = snprintf(
			out, n,
			"PERF_RECORD_MMAP2 %u/%u: [%#llx(%#llx) @ %#llx 00:00 0 0]: %c%c%c%c %s\n",
			m->pid, m->tid, (unsigned long long)m->start, (unsigned long long)m->len,
			(unsigned long long)m->pgoff, m->prot & 1 ? 'r' : '-',
			m->prot & 2 ? 'w' : '-', m->prot & 4 ? 'x' : '-', m->flags & 1 ? 's' : 'p',
			path);
	}
	return l < 0 ? 0 : (size_t)l >= n ? n - 1 : (size_t)l;
}
