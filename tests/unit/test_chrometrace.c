/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * chrome-trace: a profile built in memory (fake frames, tests/unit/fakesrc.h)
 * with GPU records, written and checked: valid JSON (a small strict parser
 * here), events in time order, slices merged and nested, escapes of hostile
 * names, GPU tracks and lanes, launches and their flows.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/fakesrc.h"

#include "formats/chrometrace.h"
#include "libprof/gpu.h"
#include "libprof/gpuview.h"

#define PID 10
#define MS  1000000ull
#define U   (1.0 / 1024) /* a time unit of the trace, in us: slices end one early */

/* ---- a strict JSON checker: 1 when s is one valid JSON value ---- */

struct jp {
	const char *p, *end;
	int depth;
};

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

static int jvalue(struct jp *j);

static int jstring(struct jp *j)
{
	if (j->p >= j->end || *j->p != '"')
		return 0;
	for (j->p++; j->p < j->end; j->p++) {
		unsigned char c = (unsigned char)*j->p;

		if (c == '"') {
			j->p++;
			return 1;
		}
		if (c < 0x20)
			return 0; /* raw control characters are not allowed */
		if (c == '\\') {
			if (++j->p >= j->end)
				return 0;
			if (*j->p == 'u') {
				int k;

				for (k = 0; k < 4; k++)
					if (++j->p >= j->end ||
					    !strchr("0123456789abcdefABCDEF", *j->p) || !*j->p)
						return 0;
			} else if (!strchr("\"\\/bfnrt", *j->p) || !*j->p) {
				return 0;
			}
		} else if (c >= 0x80) { /* UTF-8: a lead byte and its continuations */
			int n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : -1, k;

			if (n < 0 || c > 0xf4)
				return 0;
			for (k = 0; k < n; k++)
				if (++j->p >= j->end || ((unsigned char)*j->p & 0xc0) != 0x80)
					return 0;
		}
	}
	return 0;
}

static int jnumber(struct jp *j)
{
	const char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return 0;
	if (*j->p == '0' && j->p + 1 < j->end && j->p[1] >= '0' && j->p[1] <= '9')
		return 0; /* no leading zeros */
	while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || *j->p == '.' || *j->p == 'e' ||
				 *j->p == 'E' || *j->p == '+' || *j->p == '-'))
		j->p++;
	return j->p > s && j->p[-1] != '.';
}

static int jvalue(struct jp *j)
{
	int first = 1;

	ws(j);
	if (j->p >= j->end || ++j->depth > 64)
		return 0;
	if (*j->p == '{' || *j->p == '[') {
		char close = *j->p == '{' ? '}' : ']';
		int obj = close == '}';

		j->p++;
		for (;;) {
			ws(j);
			if (j->p < j->end && *j->p == close && first) {
				j->p++;
				break;
			}
			if (obj) {
				if (!jstring(j))
					return 0;
				ws(j);
				if (j->p >= j->end || *j->p++ != ':')
					return 0;
			}
			if (!jvalue(j))
				return 0;
			ws(j);
			first = 0;
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == close) {
				j->p++;
				break;
			}
			return 0;
		}
	} else if (*j->p == '"') {
		if (!jstring(j))
			return 0;
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
		j->p += 4;
	} else if (!strncmp(j->p, "false", 5)) {
		j->p += 5;
	} else if (!jnumber(j)) {
		return 0;
	}
	j->depth--;
	return 1;
}

static int json_valid(const char *s, size_t n)
{
	struct jp j = {s, s + n, 0};

	if (!jvalue(&j))
		return 0;
	ws(&j);
	return j.p == j.end;
}

static void test_json_checker(void **state)
{
	(void)state;
	assert_true(json_valid("{\"a\":[1,2.5,-3e2,\"x\\u00e9\\n\",true,null,{}]}",
			       strlen("{\"a\":[1,2.5,-3e2,\"x\\u00e9\\n\",true,null,{}]}")));
	assert_false(json_valid("{\"a\":1,}", strlen("{\"a\":1,}")));
	assert_false(json_valid("{\"a\":\"\x01\"}", strlen("{\"a\":\"\x01\"}")));
	assert_false(json_valid("{\"a\":\"\xff\"}", strlen("{\"a\":\"\xff\"}")));
	assert_false(json_valid("[01]", strlen("[01]")));
	assert_false(json_valid("{\"a\":1} x", strlen("{\"a\":1} x")));
}

/* ---- the writer ---- */

struct fx {
	struct profile p;
	struct proctree *pt;
	struct fakesrc src;
	struct frametab ft;
	struct gpu_view gv;
	char *out;
	size_t len;
};

static void add_sample(struct fx *x, uint32_t tid, uint64_t ts, const uint64_t *ips, unsigned nu)
{
	assert_int_equal(fake_sample(&x->p, ts, MS, PID, tid, 0, ips, 0, nu), 0);
}

/* Samples of two threads; a kernel with a launch, a second one overlapping it, a copy. */
static void build(struct fx *x, int gpu)
{
	const uint64_t fm[2] = {0x1000, 0x3000}, gm[2] = {0x2000, 0x3000}, in[2] = {0x4000, 0x3000};
	struct prof_gpu *g;
	uint32_t name, stack;

	memset(x, 0, sizeof(*x));
	profile_init(&x->p);
	profile_set_meta(&x->p, "event", "cpu-clock");
	profile_set_meta(&x->p, "cmdline", "app \"quoted\"");
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, PID, PID, "app"), 0);
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, PID, PID + 1, "q\"\\\x01\xff<"), 0);
	/* thread PID: main;f1 for 2 ms, then main;f2 for 1 ms */
	add_sample(x, PID, 1 * MS, fm, 2);
	add_sample(x, PID, 2 * MS, fm, 2);
	add_sample(x, PID, 3 * MS, gm, 2);
	/* thread PID+1: the inline chain, alone 3 ms later */
	add_sample(x, PID + 1, 6 * MS, in, 2);
	if (gpu) {
		struct prof_gpu_kernel k = {.start = 1500000,
					    .end = 1600000,
					    .pid = PID,
					    .corr = 5,
					    .context = 1,
					    .stream = 7,
					    .grid = {16, 1, 1},
					    .block = {256, 1, 1},
					    .regs = 32};
		struct prof_gpu_memop m = {.start = 2500000,
					   .end = 2600000,
					   .bytes = 4096,
					   .pid = PID,
					   .corr = 7,
					   .context = 1,
					   .stream = 7,
					   .kind = PROF_GPU_MEMCPY,
					   .copy_kind = 1,
					   .src_kind = 1,
					   .dst_kind = 3};
		struct prof_gpu_launch l = {.ts = 1200000,
					    .pid = PID,
					    .tid = PID,
					    .corr = 5,
					    .flags = PROF_GPU_L_STACK};

		g = x->p.gpu = prof_gpu_new();
		assert_non_null(g);
		assert_int_equal(prof_gpu_intern(g, "k\"<\n", 4, &name), 0);
		k.name = name;
		assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
		k.start = 1550000, k.end = 1700000, k.corr = 6; /* overlaps: a lane of its own */
		assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
		assert_int_equal(prof_gpu_add_memop(g, &m), 0);
		assert_int_equal(profile_intern_stack(&x->p, fm, 0, 2, &stack), 0);
		l.stack = stack;
		assert_int_equal(prof_gpu_add_launch(g, &l), 0);
		/* the copy's, without a stack */
		l = (struct prof_gpu_launch){.ts = 2300000,
					     .pid = PID,
					     .tid = PID,
					     .corr = 7,
					     .flags = PROF_GPU_L_RATELIMITED,
					     .stack = PROF_GPU_NO_STACK};
		assert_int_equal(prof_gpu_add_launch(g, &l), 0);
	}
	assert_int_equal(proctree_new(&x->p, &x->pt), 0);
	fakesrc_init(&x->src);
	{
		struct frametab_source s = fakesrc_source(&x->src, 0);

		frametab_init(&x->ft, x->pt, &s);
	}
	if (gpu)
		assert_int_equal(gpu_view_init(&x->gv, x->p.gpu), 0);
}

/* The process tree and frame table again, after x->p got more records. */
static void rebuild(struct fx *x)
{
	struct frametab_source s;

	frametab_release(&x->ft);
	proctree_free(x->pt);
	assert_int_equal(proctree_new(&x->p, &x->pt), 0);
	s = fakesrc_source(&x->src, 0);
	frametab_init(&x->ft, x->pt, &s);
}

static const char *shown(void *ctx, uint32_t id)
{
	(void)id;
	return ctx;
}

/* Write x as a trace into x->out (NUL-terminated). */
static int write_trace(struct fx *x, int gpu, const char *(*name)(void *, uint32_t), void *ctx)
{
	struct chrometrace_in in = {.rs = &(struct rstacks){&x->p, x->pt, &x->ft},
				    .gv = gpu ? &x->gv : NULL,
				    .gpu_name = name,
				    .ctx = ctx};
	FILE *f = tmpfile();
	long n;
	int ret;

	assert_non_null(f);
	ret = chrometrace_write(&in, fileno(f));
	n = ftell(f) >= 0 ? lseek(fileno(f), 0, SEEK_END) : -1;
	assert_true(n >= 0);
	x->out = malloc((size_t)n + 1);
	assert_non_null(x->out);
	assert_int_equal(pread(fileno(f), x->out, (size_t)n, 0), n);
	x->out[n] = '\0';
	x->len = (size_t)n;
	fclose(f);
	return ret;
}

static void release(struct fx *x)
{
	free(x->out);
	gpu_view_release(&x->gv);
	frametab_release(&x->ft);
	proctree_free(x->pt);
	profile_release(&x->p);
}

/* The line of out holding all of the given pieces (NULL-terminated), or NULL. */
static const char *line_with(const char *out, ...)
{
	const char *l = out;

	while (l && *l) {
		const char *e = strchr(l, '\n'), *piece;
		size_t n = e ? (size_t)(e - l) : strlen(l);
		char *line = strndup(l, n);
		int all = 1;
		va_list ap;

		assert_non_null(line);
		va_start(ap, out);
		while ((piece = va_arg(ap, const char *)))
			if (!strstr(line, piece))
				all = 0;
		va_end(ap);
		free(line);
		if (all)
			return l;
		l = e ? e + 1 : NULL;
	}
	return NULL;
}

/* The "ts" values of out's events, in order, must not decrease. */
static void assert_time_order(const char *out)
{
	const char *p = out;
	double last = -1;
	int n = 0;

	while ((p = strstr(p, "\"ts\":"))) {
		double v = strtod(p + 5, NULL);

		assert_true(v >= last);
		last = v;
		p += 5;
		n++;
	}
	assert_true(n > 0);
}

/* A line's field: the text after "key": up to the next unescaped '"' (a string,
 * quotes kept out) or ',' / '}' (a number), into buf. 1 when found. */
static int field(const char *line, const char *key, char *buf, size_t n)
{
	char k[64];
	const char *p, *e;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(line, k);
	if (!p || p > strchr(line, '\n'))
		return 0;
	p += strlen(k);
	if (*p == '"') {
		for (e = ++p; *e && *e != '"'; e++)
			if (*e == '\\' && e[1])
				e++;
	} else {
		e = p + strcspn(p, ",}");
	}
	snprintf(buf, n, "%.*s", (int)(e - p), p);
	return 1;
}

/*
 * The "X" events of out, per thread in file order, nest: each starts at or
 * after the one before and ends within every enclosing one, the ends
 * computed as a reader does (ts + dur in doubles). *found: [ts, end] in us
 * of the first slice of thread tid named name (escaped as in the file), -1
 * when none.
 */
static void slices(const char *out, const char *tid, const char *name, double found[2])
{
	struct {
		char tid[16];
		double end;
	} st[64];
	const char *l;
	int n = 0;

	found[0] = found[1] = -1;
	for (l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char ph[4], t[16], nm[256], ts[40], dur[40];
		double b, e;
		int i;

		if (!field(l, "ph", ph, sizeof(ph)) || strcmp(ph, "X"))
			continue;
		assert_true(field(l, "tid", t, sizeof(t)) && field(l, "name", nm, sizeof(nm)) &&
			    field(l, "ts", ts, sizeof(ts)) && field(l, "dur", dur, sizeof(dur)));
		b = strtod(ts, NULL);
		e = b + strtod(dur, NULL);
		/* close the thread's slices that ended by b; the innermost left encloses it */
		for (i = n - 1; i >= 0; i--) {
			if (strcmp(st[i].tid, t))
				continue;
			if (st[i].end > b)
				break;
			memmove(&st[i], &st[i + 1], (size_t)(n - i - 1) * sizeof(st[0]));
			n--;
		}
		if (i >= 0 && e > st[i].end)
			fail_msg("slice %s of tid %s at %s ends after the one enclosing it", nm, t,
				 ts);
		assert_true(n < 64);
		snprintf(st[n].tid, sizeof(st[n].tid), "%s", t);
		st[n++].end = e;
		if (!strcmp(t, tid) && !strcmp(nm, name) && found[0] < 0)
			found[0] = b, found[1] = e;
	}
}

static void assert_slice(const char *out, const char *tid, const char *name, double ts, double end)
{
	double f[2];

	slices(out, tid, name, f);
	if (f[0] != ts || f[1] != end)
		fail_msg("slice %s of tid %s: [%.3f, %.3f], not [%.3f, %.3f]", name, tid, f[0],
			 f[1], ts, end);
}

/*
 * No slice of a thread ends when another of it begins. Readers then never
 * order an end and a start at one time, which speedscope gets wrong when
 * a name ends and begins there at different depths.
 */
static void assert_no_meeting(const char *out)
{
	struct {
		char tid[16];
		double b, e;
	} sl[64];
	const char *l;
	int n = 0, i, j;

	for (l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char ph[4], ts[40], dur[40];

		if (!field(l, "ph", ph, sizeof(ph)) || strcmp(ph, "X"))
			continue;
		assert_true(n < 64);
		assert_true(field(l, "tid", sl[n].tid, sizeof(sl[n].tid)) &&
			    field(l, "ts", ts, sizeof(ts)) && field(l, "dur", dur, sizeof(dur)));
		sl[n].b = strtod(ts, NULL);
		sl[n].e = sl[n].b + strtod(dur, NULL);
		n++;
	}
	assert_true(n > 0);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (!strcmp(sl[i].tid, sl[j].tid) && sl[i].e == sl[j].b)
				fail_msg("tid %s: a slice ends at %.10g, where one begins", sl[i].tid,
					 sl[i].e);
}

static void test_cpu_only(void **state)
{
	struct fx x;

	(void)state;
	build(&x, 0);
	assert_int_equal(write_trace(&x, 0, NULL, NULL), 0);
	assert_true(json_valid(x.out, x.len));
	assert_time_order(x.out);
	assert_no_meeting(x.out);
	assert_non_null(strstr(x.out, "\"displayTimeUnit\":\"ns\""));
	assert_non_null(strstr(x.out, "\"cmdline\":\"app \\\"quoted\\\"\""));
	assert_non_null(
		line_with(x.out, "\"ph\":\"M\"", "\"process_name\"", "\"name\":\"app\"", NULL));
	/* the hostile name: quote, backslash, control character, bad byte */
	assert_non_null(line_with(x.out, "\"thread_name\"", "\"tid\":11",
				  "\"name\":\"q\\\"\\\\\\u0001\\ufffd<\"", NULL));
	/* merged: main over 3 ms, f1 over the first 2, f2 the last; times from the first
	 * sample; slices that nest per thread */
	assert_slice(x.out, "10", "main", 0, 3000 - U);
	assert_slice(x.out, "10", "f1", 0, 2000 - U);
	assert_slice(x.out, "10", "f2", 2000, 3000 - U);
	assert_non_null(line_with(x.out, "\"ph\":\"X\"", "\"ts\":0,\"dur\":1999.9990234375,",
				  "\"cat\":\"cpu\"", "\"name\":\"f1\"", NULL));
	/* a parent before its children at one time */
	assert_true(line_with(x.out, "\"ph\":\"X\"", "\"name\":\"main\"", NULL) <
		    line_with(x.out, "\"ph\":\"X\"", "\"name\":\"f1\"", NULL));
	/* inline frames are slices of their own: outer > middle > leafy */
	assert_slice(x.out, "11", "outer", 5000, 6000 - U);
	assert_slice(x.out, "11", "middle", 5000, 6000 - U);
	assert_slice(x.out, "11", "leafy", 5000, 6000 - U);
	assert_null(strstr(x.out, "GPU"));
	assert_null(strstr(x.out, "\"ph\":\"s\""));
	release(&x);
}

static void test_gpu(void **state)
{
	char gpid[32];
	struct fx x;

	(void)state;
	snprintf(gpid, sizeof(gpid), "\"pid\":%u", CHROMETRACE_GPU_PID);
	build(&x, 1);
	assert_int_equal(write_trace(&x, 1, NULL, NULL), 0);
	assert_true(json_valid(x.out, x.len));
	assert_time_order(x.out);
	assert_no_meeting(x.out);
	assert_non_null(line_with(x.out, gpid, "\"process_name\"", "\"name\":\"GPU 0\"", NULL));
	assert_non_null(line_with(x.out, gpid, "\"tid\":1,", "\"thread_name\"",
				  "\"name\":\"stream 7\"", NULL));
	assert_non_null(line_with(x.out, gpid, "\"tid\":2,", "\"thread_name\"",
				  "\"name\":\"stream 7 overlap 1\"", NULL));
	/* the kernel, its name escaped, its args */
	assert_non_null(line_with(x.out, gpid, "\"tid\":1,\"ts\":500,\"dur\":100,",
				  "\"cat\":\"cuda\"", "\"name\":\"k\\\"<\\u000a\"",
				  "\"grid\":\"16,1,1\"", "\"block\":\"256,1,1\"", "\"regs\":32",
				  "\"corr\":5", "\"stream\":7", NULL));
	/* the overlapping one on the second lane */
	assert_non_null(
		line_with(x.out, gpid, "\"tid\":2,\"ts\":550,\"dur\":150,", "\"corr\":6", NULL));
	assert_non_null(line_with(x.out, gpid, "\"tid\":1,\"ts\":1500,\"dur\":100,",
				  "\"name\":\"memcpy HtoD\"", "\"bytes\":4096", "\"kind\":\"HtoD\"",
				  "\"src\":\"pageable\"", "\"dst\":\"device\"", NULL));
	/* the launch: 1 us on its thread (inside the sample [0, 1000) us), its stack */
	assert_non_null(line_with(x.out, "\"ph\":\"X\",\"pid\":10,\"tid\":10,\"ts\":200,\"dur\":0.9990234375,",
				  "\"cat\":\"cuda\"", "\"name\":\"launch k\\\"<\\u000a\"",
				  "\"stack\":[\"f1 (a.so)\",\"main (prog)\"]", NULL));
	assert_slice(x.out, "10", "launch k\\\"<\\u000a", 200, 201 - U);
	/* one flow: s at the launch, f at the kernel bound to its enclosing slice */
	assert_non_null(line_with(x.out, "\"ph\":\"s\",\"pid\":10,\"tid\":10,\"ts\":200,",
				  "\"cat\":\"cuda\"", "\"id\":1", NULL));
	assert_non_null(line_with(x.out, "\"ph\":\"f\"", gpid, "\"tid\":1,\"ts\":500,",
				  "\"cat\":\"cuda\"", "\"id\":1", "\"bp\":\"e\"", NULL));
	/* the copy's launch: named after it, no stack; its flow */
	assert_non_null(line_with(x.out,
				  "\"ph\":\"X\",\"pid\":10,\"tid\":10,\"ts\":1300,\"dur\":0.9990234375,",
				  "\"name\":\"launch memcpy HtoD\"", "\"corr\":7",
				  "\"stack\":\"ratelimited\"", NULL));
	assert_slice(x.out, "10", "launch memcpy HtoD", 1300, 1301 - U);
	assert_non_null(line_with(x.out, "\"ph\":\"s\"", "\"ts\":1300,", "\"id\":2", NULL));
	assert_non_null(line_with(x.out, "\"ph\":\"f\"", "\"ts\":1500,", "\"id\":2", NULL));
	assert_null(line_with(x.out, "\"id\":3", NULL)); /* the other kernel had no launch */
	free(x.out);
	/* names as the caller shows them; the recorded one kept in args */
	assert_int_equal(write_trace(&x, 1, shown, "kern(float*)"), 0);
	assert_true(json_valid(x.out, x.len));
	assert_non_null(line_with(x.out, gpid, "\"name\":\"kern(float*)\"",
				  "\"mangled\":\"k\\\"<\\u000a\"", NULL));
	release(&x);
}

/* A launch right before a sample boundary: its slice ends there (one unit early, as its frames). */
static void test_launch_fits(void **state)
{
	struct prof_gpu_launch l;
	struct fx x;

	(void)state;
	build(&x, 1);
	gpu_view_release(&x.gv);
	l = x.p.gpu->launches[0];
	l.ts = 2 * MS - 300; /* 300 ns before the second sample */
	l.corr = 6;
	assert_int_equal(prof_gpu_add_launch(x.p.gpu, &l), 0);
	assert_int_equal(gpu_view_init(&x.gv, x.p.gpu), 0);
	assert_int_equal(write_trace(&x, 1, NULL, NULL), 0);
	assert_true(json_valid(x.out, x.len));
	/* 999.7 us is 1023692.8 / 1024: 1023693 / 1024, exact in a double; the
	 * end one unit before 1000 us exactly, as the sample's frames end */
	assert_non_null(line_with(x.out, "\"ph\":\"X\"", "\"ts\":999.7001953125,",
				  "\"dur\":0.298828125,", "\"cat\":\"cuda\"", "\"corr\":6", NULL));
	assert_true(999.7001953125 + 0.298828125 == 1000.0 - U);
	/* and the slices still nest */
	assert_slice(x.out, "10", "f1", 0, 2000 - U);
	assert_slice(x.out, "10", "main", 0, 3000 - U);
	assert_non_null(line_with(x.out, "\"ph\":\"s\"", "\"ts\":999.7001953125,", NULL));
	release(&x);
}

/*
 * [unknown] > [unknown] > main > f1, then [unknown] > main > f2 (a stack
 * unwound one frame shorter): main and [unknown] end and begin at one time,
 * at other depths. Seen as speedscope warnings on a system-wide recording.
 */
static void test_stack_shift(void **state)
{
	const uint64_t a[4] = {0x1000, 0x3000, 0x7000, 0x7100}, b[3] = {0x2000, 0x3000, 0x7000};
	struct fx x;

	(void)state;
	build(&x, 0);
	add_sample(&x, PID, 4 * MS, a, 4);
	add_sample(&x, PID, 5 * MS, b, 3);
	rebuild(&x);
	assert_int_equal(write_trace(&x, 0, NULL, NULL), 0);
	assert_true(json_valid(x.out, x.len));
	assert_no_meeting(x.out);
	assert_slice(x.out, "10", "f1", 0, 2000 - U); /* nest, every thread */
	release(&x);
}

/* Several events: each one's samples of a thread on a lane of their own
 * (their slices nest apart), named with the event, which is their cat. */
static void test_events(void **state)
{
	struct prof_event
		clk = {.name = "cpu-clock", .type = 1, .period = 1000, .flags = PROF_EV_FREQ},
		pf = {.name = "page-faults", .type = 1, .period = 1000, .flags = PROF_EV_FREQ};
	const uint64_t gm[2] = {0x2000, 0x3000};
	char lane[32];
	uint32_t idx;
	struct fx x;

	(void)state;
	build(&x, 0);
	assert_int_equal(profile_add_event(&x.p, &clk, &idx), 0);
	assert_int_equal(profile_add_event(&x.p, &pf, &idx), 0);
	/* a page fault in f2 between the cpu-clock samples of thread PID */
	assert_int_equal(fake_sample(&x.p, 2500000, 1, PID, PID, 0, gm, 0, 2), 0);
	x.p.samples[x.p.nr_samples - 1].event = 1;
	rebuild(&x);
	assert_int_equal(write_trace(&x, 0, NULL, NULL), 0);
	assert_true(json_valid(x.out, x.len));
	assert_time_order(x.out);
	assert_no_meeting(x.out);
	/* cpu-clock's slices as with one event; the page fault's 1 ms (1000 Hz) apart */
	assert_slice(x.out, "10", "main", 0, 3000 - U);
	assert_slice(x.out, "10", "f1", 0, 2000 - U);
	snprintf(lane, sizeof(lane), "%u", PID + CHROMETRACE_EVENT_TIDS);
	assert_slice(x.out, lane, "main", 1500, 2500 - U);
	assert_slice(x.out, lane, "f2", 1500, 2500 - U);
	assert_non_null(
		line_with(x.out, "\"tid\":10,", "\"cat\":\"cpu-clock\"", "\"name\":\"f1\"", NULL));
	snprintf(lane, sizeof(lane), "\"tid\":%u,", PID + CHROMETRACE_EVENT_TIDS);
	assert_non_null(line_with(x.out, lane, "\"cat\":\"page-faults\"", "\"name\":\"f2\"", NULL));
	assert_null(strstr(x.out, "\"cat\":\"cpu\""));
	assert_non_null(line_with(x.out, "\"thread_name\"", "\"tid\":10,",
				  "\"name\":\"app [cpu-clock]\"", NULL));
	assert_non_null(
		line_with(x.out, "\"thread_name\"", lane, "\"name\":\"app [page-faults]\"", NULL));
	release(&x);
}

/* A thread renamed between its samples (an exec): named as at its last. */
static void test_exec_name(void **state)
{
	struct fx x;

	(void)state;
	build(&x, 0);
	assert_int_equal(fake_task(&x.p, PROF_TASK_COMM, 2500000, PID, PID, "execd"), 0);
	rebuild(&x);
	assert_int_equal(write_trace(&x, 0, NULL, NULL), 0);
	assert_non_null(line_with(x.out, "\"thread_name\"", "\"tid\":10,", "\"name\":\"execd\"", NULL));
	assert_null(line_with(x.out, "\"thread_name\"", "\"tid\":10,", "\"name\":\"app\"", NULL));
	assert_non_null(line_with(x.out, "\"process_name\"", "\"name\":\"execd\"", NULL));
	release(&x);
}

/* The idle task (pid 0, tid 0) of a system-wide recording, with several
 * samples and first in order: its process is named too. */
static void test_pid0(void **state)
{
	const uint64_t st[1] = {0x3000};
	struct fx x;

	(void)state;
	memset(&x, 0, sizeof(x));
	profile_init(&x.p);
	profile_set_meta(&x.p, "event", "cpu-clock");
	assert_int_equal(fake_sample(&x.p, 1 * MS, MS, 0, 0, 0, st, 0, 1), 0);
	assert_int_equal(fake_sample(&x.p, 2 * MS, MS, 0, 0, 0, st, 0, 1), 0);
	assert_int_equal(fake_sample(&x.p, 3 * MS, MS, PID, PID, 0, st, 0, 1), 0);
	assert_int_equal(proctree_new(&x.p, &x.pt), 0);
	fakesrc_init(&x.src);
	{
		struct frametab_source s = fakesrc_source(&x.src, 0);

		frametab_init(&x.ft, x.pt, &s);
	}
	assert_int_equal(write_trace(&x, 0, NULL, NULL), 0);
	assert_non_null(line_with(x.out, "\"process_name\"", "\"pid\":0,", NULL));
	assert_non_null(line_with(x.out, "\"thread_name\"", "\"pid\":0,", NULL));
	assert_non_null(line_with(x.out, "\"process_name\"", "\"pid\":10,", NULL));
	release(&x);
}

static void test_errors(void **state)
{
	struct chrometrace_in in;
	struct fx x;
	int fd;

	(void)state;
	build(&x, 1);
	in = (struct chrometrace_in){.rs = &(struct rstacks){&x.p, x.pt, &x.ft}, .gv = &x.gv};
	assert_int_equal(chrometrace_write(&in, -1), -EBADF);
	fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		assert_int_equal(chrometrace_write(&in, fd), -ENOSPC);
		close(fd);
	}
	release(&x);
	/* an empty profile: an empty, valid trace */
	memset(&x, 0, sizeof(x));
	profile_init(&x.p);
	assert_int_equal(proctree_new(&x.p, &x.pt), 0);
	fakesrc_init(&x.src);
	{
		struct frametab_source s = fakesrc_source(&x.src, 0);

		frametab_init(&x.ft, x.pt, &s);
	}
	assert_int_equal(write_trace(&x, 0, NULL, NULL), 0);
	assert_true(json_valid(x.out, x.len));
	assert_non_null(strstr(x.out, "\"traceEvents\":[\n\n]"));
	release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_checker), cmocka_unit_test(test_cpu_only),
		cmocka_unit_test(test_gpu),	     cmocka_unit_test(test_launch_fits),
		cmocka_unit_test(test_stack_shift),  cmocka_unit_test(test_events),
		cmocka_unit_test(test_exec_name),    cmocka_unit_test(test_pid0),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
