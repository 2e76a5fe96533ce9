/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sample filters (perf's --comm, --pid, --tid, --dsos, --symbols, --cpu,
 * --time): parsing, and the verdict on a sample.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/rfilter.h"

void rfilter_init(struct rfilter *f)
{
	memset(f, 0, sizeof(*f));
	f->pct_start = f->pct_end = -1;
}

static void free_strs(char **l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

void rfilter_release(struct rfilter *f)
{
	free_strs(f->comms, f->nr_comms);
	free_strs(f->dsos, f->nr_dsos);
	free_strs(f->syms, f->nr_syms);
	free(f->addrs);
	free_strs(f->addr_strs, f->nr_addrs);
	free(f->pids);
	free(f->tids);
	free(f->cpus);
	free(f->times);
	rfilter_init(f);
}

int rfilter_add_strs(char ***list, size_t *nr, const char *arg, char *err, size_t errlen)
{
	const char *p = arg;
	size_t cap = *nr, nr0 = *nr;

	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len) {
			char *s = strndup(p, len);

			if (!s || ZT_GROW(*list, cap, *nr + 1)) {
				free(s);
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			(*list)[(*nr)++] = s;
		}
		p += len + (e ? 1 : 0);
	}
	if (*nr == nr0) {
		snprintf(err, errlen, "'%s' names nothing: give a comma-separated list", arg);
		return -EINVAL;
	}
	return 0;
}

/* perf's setup_addrlist(): strtoul(s, 16) with nothing but spaces after. */
static int hex_addr(const char *s, uint64_t *v)
{
	char *e;

	errno = 0;
	*v = strtoull(s, &e, 16);
	if (errno || e == s)
		return 0;
	while (isspace((unsigned char)*e))
		e++;
	return !*e;
}

int rfilter_add_syms(struct rfilter *f, const char *arg, char *err, size_t errlen)
{
	size_t i, nr0 = f->nr_syms, keep = nr0, cap = f->nr_addrs, cap_s = f->nr_addrs;
	uint64_t v;
	int ret = rfilter_add_strs(&f->syms, &f->nr_syms, arg, err, errlen);

	if (ret)
		return ret;
	for (i = nr0; i < f->nr_syms; i++) {
		if (!hex_addr(f->syms[i], &v)) {
			f->syms[keep++] = f->syms[i];
			continue;
		}
		if (ZT_GROW(f->addrs, cap, f->nr_addrs + 1) ||
		    ZT_GROW(f->addr_strs, cap_s, f->nr_addrs + 1)) {
			while (i < f->nr_syms)
				free(f->syms[i++]);
			f->nr_syms = keep;
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		f->addrs[f->nr_addrs] = v;
		f->addr_strs[f->nr_addrs++] = f->syms[i];
	}
	f->nr_syms = keep;
	return 0;
}

static int parse_u32(const char *s, const char *end, uint32_t *v)
{
	char *e;
	unsigned long long x;

	if (s == end || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &e, 10);
	if (errno || e != end || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/* "1,2,5-7" into *list; ranges only when allow_range. */
static int add_ids(uint32_t **list, size_t *nr, const char *arg, int allow_range, char *err,
		   size_t errlen)
{
	const char *p = arg;
	size_t cap = *nr, nr0 = *nr;

	while (*p) {
		const char *e = strchr(p, ','), *end = e ? e : p + strlen(p), *dash;
		uint32_t a, b, v;

		dash = allow_range ? memchr(p, '-', (size_t)(end - p)) : NULL;
		if (dash ? parse_u32(p, dash, &a) || parse_u32(dash + 1, end, &b) || b < a
			 : parse_u32(p, end, &a)) {
			snprintf(err, errlen, "'%.*s' is not a %s", (int)(end - p), p,
				 allow_range ? "number or range (like 0-3)" : "number");
			return -EINVAL;
		}
		if (!dash)
			b = a;
		if (b - a > 65536) {
			snprintf(err, errlen, "range '%.*s' is too large", (int)(end - p), p);
			return -EINVAL;
		}
		for (v = a;; v++) {
			if (ZT_GROW(*list, cap, *nr + 1)) {
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			(*list)[(*nr)++] = v;
			if (v == b)
				break;
		}
		p = e ? e + 1 : end;
	}
	if (*nr == nr0) {
		snprintf(err, errlen, "'%s' names nothing: give a comma-separated list", arg);
		return -EINVAL;
	}
	return 0;
}

int rfilter_add_ids(uint32_t **list, size_t *nr, const char *arg, char *err, size_t errlen)
{
	return add_ids(list, nr, arg, 0, err, errlen);
}

int rfilter_add_cpus(struct rfilter *f, const char *arg, char *err, size_t errlen)
{
	return add_ids(&f->cpus, &f->nr_cpus, arg, 1, err, errlen);
}

/* perf's parse_nsec_time(): "SEC[.NSEC]", at most 9 digits after the dot. */
static int parse_nsec(const char *s, uint64_t *ns)
{
	unsigned long long sec, frac = 0;
	const char *p;
	char *end;
	int i;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	sec = strtoull(s, &end, 10);
	if (errno || (*end != '.' && *end) || sec > UINT64_MAX / 1000000000ull)
		return -EINVAL;
	if (*end == '.') {
		p = end + 1;
		for (i = 0; i < 9; i++) {
			frac *= 10;
			if (isdigit((unsigned char)*p))
				frac += (unsigned long long)(*p++ - '0');
		}
		if (*p)
			return -EINVAL;
	}
	*ns = sec * 1000000000ull + frac;
	return 0;
}

/* perf_time__parse_str(): "START,END", either empty. */
static int parse_range(char *s, struct rtime *t)
{
	char *comma = strchr(s, ',');

	memset(t, 0, sizeof(*t));
	if (comma)
		*comma = 0;
	if ((*s && parse_nsec(s, &t->start)) ||
	    (comma && comma[1] && parse_nsec(comma + 1, &t->end)))
		return -EINVAL;
	return t->end && t->end < t->start ? -EINVAL : 0;
}

/* perf's parse_percent(): "P%" into 0..1 (P may be empty: 0). */
static int parse_pct(char *s, double *v)
{
	char *c = strchr(s, '%'), *e;

	if (!c)
		return -EINVAL;
	*c = 0;
	*v = strtod(s, &e);
	if (*e)
		return -EINVAL;
	*v /= 100.0;
	return 0;
}

static int pct_range(struct rtime *t, double a, double b)
{
	if (!(a >= 0.0 && a <= 1.0 && b >= 0.0 && b <= 1.0))
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->pct = 1;
	t->a = a;
	t->b = b;
	return 0;
}

/* "P%/N": the Nth slice of P%. */
static int pct_slash(char *s, struct rtime *t)
{
	char *slash = strchr(s, '/'), *e;
	double p;
	long n;

	if (!slash)
		return -EINVAL;
	*slash = 0;
	if (parse_pct(s, &p))
		return -EINVAL;
	errno = 0;
	n = strtol(slash + 1, &e, 10);
	if (*e || errno || p <= 0.0 || n < -1000000 || n > 1000000)
		return -EINVAL;
	return pct_range(t, p * (double)(n - 1), p * (double)n);
}

/* "A%-B%" */
static int pct_dash(char *s, struct rtime *t)
{
	char *dash = strchr(s, '-');
	double a, b;

	if (!dash)
		return -EINVAL;
	*dash = 0;
	if (parse_pct(s, &a) || parse_pct(dash + 1, &b))
		return -EINVAL;
	return pct_range(t, a, b);
}

static int parse_times(char *s, struct rtime *t, size_t cap, size_t *nr)
{
	char *p, *item;
	size_t n = 0, i;

	if (strchr(s, '%')) {
		/* perf takes the form of the whole list from its first '/' or '-' */
		int (*one)(char *, struct rtime *) = strchr(s, '/')   ? pct_slash
						     : strchr(s, '-') ? pct_dash
								      : NULL;
		char *pc = strchr(s, '%');

		if (!one) {
			/* "P%": the first slice, '%' last */
			if (pc[1])
				return -EINVAL;
			strcat(s, "/1");
			one = pct_slash;
		}
		for (item = s; item; item = p) {
			p = strchr(item, ',');
			if (p)
				*p++ = 0;
			if (n >= cap || one(item, &t[n]))
				return -EINVAL;
			n++;
		}
		*nr = n;
		return 0;
	}
	/* seconds: one range per comma, separated by spaces */
	p = s;
	while (*p) {
		char *c = strchr(p, ','), *q;

		if (!c || n >= cap)
			return -EINVAL;
		/* the END: up to the next space; no comma in it */
		for (q = c + 1; *q && !isspace((unsigned char)*q); q++)
			if (*q == ',')
				return -EINVAL;
		item = p;
		p = q;
		while (isspace((unsigned char)*p))
			p++;
		*q = 0;
		if (parse_range(item, &t[n]))
			return -EINVAL;
		n++;
	}
	if (!n)
		return -EINVAL;
	for (i = 0; i + 1 < n; i++)
		if (t[i].end >= t[i + 1].start)
			return -EINVAL;
	*nr = n;
	return 0;
}

int rfilter_set_time(struct rfilter *f, const char *arg, char *err, size_t errlen)
{
	size_t cap = 1, len = strlen(arg), nr = 0;
	struct rtime *t;
	char *s;
	const char *c;

	for (c = arg; *c; c++)
		cap += *c == ',';
	t = calloc(cap, sizeof(*t));
	s = malloc(len + 3); /* room for "/1" */
	if (!t || !s) {
		free(t);
		free(s);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(s, arg, len + 1);
	if (parse_times(s, t, cap, &nr)) {
		free(t);
		free(s);
		snprintf(err, errlen,
			 "bad --time '%s': use START,END in seconds as zt script prints them "
			 "(either may be empty; several ranges separated by spaces), A%%-B%% or "
			 "P%%/N of the recording (several separated by commas)",
			 arg);
		return -EINVAL;
	}
	free(s);
	free(f->times);
	f->times = t;
	f->nr_times = nr;
	f->time_start = f->time_end = 0;
	f->pct_start = f->pct_end = -1;
	if (t[0].pct) {
		f->pct_start = t[0].a * 100.0;
		f->pct_end = t[0].b * 100.0;
	} else {
		f->time_start = t[0].start;
		f->time_end = t[0].end;
	}
	return 0;
}

void rfilter_time_range(const struct rtime *t, uint64_t first, uint64_t last, uint64_t *start,
			uint64_t *end)
{
	uint64_t total = last > first ? last - first : 0;

	if (!t->pct) {
		*start = t->start;
		*end = t->end;
		return;
	}
	/* perf's set_percent_time() */
	*start = first + (uint64_t)(t->a * (double)total + 0.5); /* round() of non-negatives */
	*end = first + (uint64_t)(t->b * (double)total + 0.5);
	if (*end > *start && *end != last)
		*end -= 1;
}

int rfilter_time_pass(const struct rfilter *f, uint64_t ts, uint64_t first, uint64_t last)
{
	uint64_t s, e;
	size_t i;

	if (!f || !f->nr_times || !ts)
		return 1;
	if (f->nr_times == 1) {
		rfilter_time_range(&f->times[0], first, last, &s, &e);
		return !((s && ts < s) || (e && ts > e));
	}
	for (i = 0; i < f->nr_times; i++) {
		rfilter_time_range(&f->times[i], first, last, &s, &e);
		if (ts >= s && (ts <= e || !e))
			return 1;
	}
	return 0;
}

int rfilter_time_overlap(const struct rfilter *f, uint64_t start, uint64_t end, uint64_t first,
			 uint64_t last)
{
	uint64_t s, e;
	size_t i;

	if (!f || !f->nr_times || (!start && !end))
		return 1;
	if (end < start)
		end = start;
	for (i = 0; i < f->nr_times; i++) {
		const struct rtime *t = &f->times[i];

		rfilter_time_range(t, first, last, &s, &e);
		/* a range from 0% or to 100% goes on past the samples' span */
		if (t->pct && t->a <= 0.0)
			s = 0;
		if (t->pct && t->b >= 1.0)
			e = 0;
		if (end >= s && (!e || start <= e))
			return 1;
	}
	return 0;
}

/* ns as seconds with 6 to 9 decimals ("" for 0: open) */
static void put_secs(char *buf, size_t n, uint64_t ns)
{
	int d = 9;
	uint64_t frac = ns % 1000000000ull;

	if (!ns) {
		buf[0] = 0;
		return;
	}
	while (d > 6 && frac % 10 == 0) {
		frac /= 10;
		d--;
	}
	snprintf(buf, n, "%llu.%0*llu", (unsigned long long)(ns / 1000000000ull), d,
		 (unsigned long long)frac);
}

void rfilter_time_text(const struct rfilter *f, char *buf, size_t n)
{
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; f && i < f->nr_times && len + 1 < n; i++) {
		const struct rtime *t = &f->times[i];
		char a[32], b[32];

		if (t->pct) {
			len += (size_t)snprintf(buf + len, n - len, "%s%g%%-%g%%", i ? "," : "",
						t->a * 100.0, t->b * 100.0);
		} else {
			put_secs(a, sizeof(a), t->start);
			put_secs(b, sizeof(b), t->end);
			len += (size_t)snprintf(buf + len, n - len, "%s%s,%s", i ? " " : "", a, b);
		}
	}
}

int rfilter_active(const struct rfilter *f)
{
	return f && (f->nr_comms || f->nr_pids || f->nr_tids || f->nr_dsos || f->nr_syms ||
		     f->nr_addrs || f->nr_cpus || f->nr_times);
}

static int has_str(char *const *l, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(l[i], s))
			return 1;
	return 0;
}

static int has_id(const uint32_t *l, size_t n, uint32_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i] == v)
			return 1;
	return 0;
}

static int name_in(char *const *l, size_t n, const char *name)
{
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = strlen(l[i]);
		if (!strncmp(name, l[i], len) && (!name[len] || !strcmp(name + len, " (inlined)")))
			return 1;
	}
	return 0;
}

int rfilter_sample(const struct rfilter *f, const struct prof_sample *s, const char *comm,
		   uint64_t first, uint64_t last)
{
	if (!f)
		return RFILTER_SHOW;
	if (!rfilter_time_pass(f, s->ts, first, last) ||
	    (f->nr_cpus && !has_id(f->cpus, f->nr_cpus, s->cpu)))
		return RFILTER_DROP;
	if ((f->nr_pids && !has_id(f->pids, f->nr_pids, s->pid)) ||
	    (f->nr_tids && !has_id(f->tids, f->nr_tids, s->tid)) ||
	    (f->nr_comms && (!comm || !has_str(f->comms, f->nr_comms, comm))))
		return RFILTER_HIDE;
	return RFILTER_SHOW;
}

int rfilter_has_leaf(const struct rfilter *f)
{
	return f && (f->nr_dsos || f->nr_syms || f->nr_addrs);
}

static int addr_in(const struct rfilter *f, uint64_t ip)
{
	size_t i;

	for (i = 0; i < f->nr_addrs; i++)
		if (ip == f->addrs[i] ||
		    (f->addr_range && ip > f->addrs[i] && ip - f->addrs[i] < f->addr_range))
			return 1;
	return 0;
}

int rfilter_leaf_at(const struct rfilter *f, const char *dso, const char *path, const char *sym,
		    uint64_t ip, int mapped)
{
	if (!f)
		return 1;
	if (f->nr_dsos && !((dso && has_str(f->dsos, f->nr_dsos, dso)) ||
			    (path && has_str(f->dsos, f->nr_dsos, path))))
		return 0;
	if (!f->nr_syms && !f->nr_addrs)
		return 1;
	return (sym &&
		(name_in(f->syms, f->nr_syms, sym) || name_in(f->addr_strs, f->nr_addrs, sym))) ||
	       (mapped && addr_in(f, ip));
}

int rfilter_leaf(const struct rfilter *f, const char *dso, const char *path, const char *sym)
{
	return rfilter_leaf_at(f, dso, path, sym, 0, 0);
}
