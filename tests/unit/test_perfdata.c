// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of formats/perfdata.c: real `perf record` files of a workload
 * compiled here, checked against perf's own dump (perf report -D) and perf
 * script; crafted files for every sample field; truncation and corruption.
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
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <zstd.h>
#include <cmocka.h>

#include "formats/perfdata.h"
#include "tests/unit/testutil.h"

/*
 * perf 6.1 (Debian 12) often dies in its build-id post-processing
 * ("assertion failed at util/build-id.c:1010", then "stack smashing
 * detected" or "buffer overflow detected"), leaving a file with data size 0:
 * with or without -N (--no-buildid-cache), short or long recordings alike,
 * more often with two events or --call-graph dwarf. -B (--no-buildid) skips
 * that pass and always records cleanly; --buildid-mmap then still gives
 * build ids, in the MMAP2 records. So: plain.data and all.data try perf's
 * build-id table (-N) a few times, then fall back; the others use
 * -B --buildid-mmap.
 */
#define PERF_REC "perf record -q -e cpu-clock -F 999"

static char dir[64];

static const char wl_src[] =
	"#include <stdlib.h>\n"
	"static volatile unsigned long sink;\n"
	"__attribute__((noinline)) void pd_leaf(void)\n"
	"{\n"
	"	volatile unsigned long x = 0; /* on the stack: the leaf keeps its frame */\n"
	"	for (unsigned long i = 0; i < 200000; i++)\n"
	"		x = x * 3 + i;\n"
	"	sink = x;\n"
	"}\n"
	"__attribute__((noinline)) void pd_mid(void) { pd_leaf(); }\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	long n = argc > 1 ? atol(argv[1]) : 1000;\n"
	"	for (long i = 0; i < n; i++)\n"
	"		pd_mid();\n"
	"	return 0;\n"
	"}\n";

/* perf record in dir; with_table: perf's build-id table if perf manages */
static int record(const char *args, int with_table)
{
	int i;

	for (i = 0; with_table && i < 5; i++)
		if (!run("cd %s && " PERF_REC " -N %s 2>>log", dir, args))
			return 0;
	return run("cd %s && " PERF_REC " -B --buildid-mmap %s 2>>log", dir, args) ? -1 : 0;
}

static int group_setup(void **state)
{
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/zt-perfdata-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/wl.c", dir);
		f = fopen(path, "w");
		if (!f)
			return -1;
		fputs(wl_src, f);
		fclose(f);
	}
	if (run("cd %s && gcc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer "
		"-fno-inline -o wl wl.c", dir))
		return -1;
	/* ~0.1 s of work per 1000 rounds */
	if (record("-g -o plain.data -- ./wl 300", 1) ||
	    record("-g -z -o z.data -- ./wl 300", 0) ||
	    record("-g -a -o all.data -- sh -c 'dd if=/dev/zero of=/dev/null bs=1M count=500 "
		   "2>/dev/null & ./wl 200; wait'", 1) ||
	    record("-e task-clock -g -o two.data -- ./wl 300", 0) ||
	    record("--call-graph dwarf,512 -o dwarf.data -- ./wl 100", 0) ||
	    record("-g -o - -- ./wl 300 > pipe.data", 0) ||
	    record("-e task-clock -g -z -o - -- ./wl 300 > pipe2.data", 0)) {
		fprintf(stderr, "test_perfdata: perf record failed: see %s/log\n", dir);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	if (dir[0] && !getenv("ZT_KEEP"))
		run("rm -rf %s", dir);
	return 0;
}

/* ---- helpers ----------------------------------------------------------- */

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

static uint8_t *slurp(const char *name, size_t *len)
{
	char path[128];
	struct stat st;
	uint8_t *b;
	FILE *f;

	path_of(path, sizeof(path), name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	b = malloc((size_t)st.st_size + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*len = (size_t)st.st_size;
	return b;
}

static void load(const char *name, struct profile *p, const struct perfdata_opts *o,
		 struct perfdata_info *info)
{
	char path[128];
	int ret;

	path_of(path, sizeof(path), name);
	profile_init(p);
	ret = perfdata_read_file(path, p, o, info);
	if (ret || info->msg[0])
		fprintf(stderr, "%s: %d %s\n", name, ret, info->msg);
	assert_int_equal(ret, 0);
	assert_false(info->truncated);
}

/* A sample as perf's raw dump (perf report -D) prints it. */
struct dsample {
	uint64_t ts, period, ip;
	uint32_t pid, tid, cpu;
	int has_cpu;
	unsigned nr;
	uint64_t chain[1024];
};

static struct dsample *perf_dump(const char *name, size_t *nr)
{
	struct dsample *v = NULL, *cur = NULL;
	size_t n = 0, cap = 0;
	char cmd[256], line[4096];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "perf report -D -i %s/%s 2>/dev/null", dir, name);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *s = strstr(line, ": PERF_RECORD_SAMPLE(");
		unsigned long long a, b;

		if (s) {
			char *tok[4], *t, *save = NULL;
			int nt = 0;

			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				v = realloc(v, cap * sizeof(*v));
				assert_non_null(v);
			}
			cur = &v[n++];
			memset(cur, 0, sizeof(*cur));
			/* "[cpu ]ts 0xoff [0xsize]: PERF_RECORD_SAMPLE(IP, 0x2): pid/tid: 0xip period: N" */
			*s = 0;
			for (t = strtok_r(line, " ", &save); t && nt < 4; t = strtok_r(NULL, " ", &save))
				tok[nt++] = t;
			assert_true(nt == 3 || nt == 4);
			cur->has_cpu = nt == 4;
			cur->cpu = nt == 4 ? (uint32_t)strtoul(tok[0], NULL, 10) : 0;
			cur->ts = strtoull(tok[nt - 3], NULL, 10);
			s = strstr(s + 1, "): ");
			assert_non_null(s);
			assert_int_equal(sscanf(s + 3, "%llu/%llu: 0x%llx period: %llu", &a, &b,
						(unsigned long long *)&cur->ip,
						(unsigned long long *)&cur->period), 4);
			cur->pid = (uint32_t)a;
			cur->tid = (uint32_t)b;
		} else if (cur && sscanf(line, ".....  %llu: %llx", &a, &b) == 2 && a == cur->nr &&
			   cur->nr < 1024) {
			cur->chain[cur->nr++] = b;
		} else if (!strncmp(line, "... FP chain", 12) || line[0] == '\n') {
			continue;
		} else if (line[0] != '.') {
			cur = NULL;
		}
	}
	pclose(f);
	*nr = n;
	return v;
}

static const struct profile *sort_p;
static const struct dsample *sort_v;

/* perf's dump by time, then dump order */
static int dump_by_time(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t tx = sort_v[x].ts, ty = sort_v[y].ts;

	return tx < ty ? -1 : tx > ty ? 1 : x < y ? -1 : x > y;
}

/* By time, then file order: perf's ordered-events queue. */
static int by_time(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t tx = sort_p->samples[x].ts, ty = sort_p->samples[y].ts;

	return tx < ty ? -1 : tx > ty ? 1 : x < y ? -1 : x > y;
}

/* Does zt's sample s equal perf's dump entry d: ids, period, cpu, and the
 * callchain split at its context markers? */
static int same_sample(const struct profile *p, const struct prof_sample *s,
		       const struct dsample *d, int dwarf)
{
	const struct prof_stack *st = &p->stacks[s->stack];
	const uint64_t *ips = profile_stack_ips(p, s->stack);
	uint64_t k[1024], u[1024];
	unsigned nk = 0, nu = 0, j, ctx = 0;

	if (s->ts != d->ts || s->pid != d->pid || s->tid != d->tid || s->weight != d->period ||
	    s->cpu != (d->has_cpu ? d->cpu : UINT32_MAX))
		return 0;
	for (j = 0; j < d->nr; j++) {
		uint64_t x = d->chain[j];

		if (x == (uint64_t)PERF_CONTEXT_KERNEL)
			ctx = 1;
		else if (x == (uint64_t)PERF_CONTEXT_USER)
			ctx = 2;
		else if (ctx == 1)
			k[nk++] = x;
		else if (ctx == 2)
			u[nu++] = x;
	}
	if (dwarf && !nk && !nu)
		u[nu++] = d->ip; /* user-mode sample: no chain, the ip is the leaf */
	return st->nk == nk && st->nu == nu && !memcmp(ips, k, nk * sizeof(*k)) &&
	       !memcmp(ips + nk, u, nu * sizeof(*u));
}

/* Every sample of p equals one of perf's dump (perf -D prints them as it
 * reads them, in file order; zt's and perf's, each sorted by time, are
 * matched as sets among samples of the same time, which come from several
 * CPUs): time, ids, period, and the callchain split at its context
 * markers. */
static void check_against_dump(const struct profile *p, const char *name, int dwarf)
{
	size_t i, n, g = 0, k;
	struct dsample *v = perf_dump(name, &n);
	uint32_t *ord, *vord;
	char *used;

	assert_true(n > 0);
	assert_int_equal(p->nr_samples, n);
	ord = malloc(n * sizeof(*ord));
	vord = malloc(n * sizeof(*vord));
	used = calloc(n, 1);
	assert_non_null(ord);
	assert_non_null(vord);
	assert_non_null(used);
	for (i = 0; i < n; i++)
		ord[i] = vord[i] = (uint32_t)i;
	sort_p = p;
	qsort(ord, n, sizeof(*ord), by_time);
	sort_v = v;
	qsort(vord, n, sizeof(*vord), dump_by_time);
	for (i = 0; i < n; i++) {
		const struct prof_sample *s = &p->samples[ord[i]];

		/* g: the first of perf's samples at this time */
		while (g < n && v[vord[g]].ts < s->ts)
			g++;
		for (k = g; k < n && v[vord[k]].ts == s->ts; k++)
			if (!used[k] && same_sample(p, s, &v[vord[k]], dwarf))
				break;
		if (k == n || v[vord[k]].ts != s->ts) { /* what differs, for the log */
			const struct prof_stack *st = &p->stacks[s->stack];
			size_t q;

			fprintf(stderr, "zt: ts %llu pid %u tid %u cpu %u w %llu nk %u nu %u\n",
				(unsigned long long)s->ts, s->pid, s->tid, s->cpu,
				(unsigned long long)s->weight, st->nk, st->nu);
			for (q = 0; q < n; q++)
				if (v[q].ts == s->ts)
					fprintf(stderr, "perf[%zu]: pid %u tid %u cpu %u w %llu nr %u\n", q,
						v[q].pid, v[q].tid, v[q].cpu, (unsigned long long)v[q].period,
						v[q].nr);
		}
		if (k == n || v[vord[k]].ts != s->ts)
			fail_msg("sample %zu (time %llu, pid %u, tid %u): not in perf's dump", i,
				 (unsigned long long)s->ts, s->pid, s->tid);
		used[k] = 1;
	}
	free(used);
	free(vord);
	free(ord);
	free(v);
}

/* First line of a command's output. */
static void first_line(char *out, size_t n, const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	assert_non_null(f);
	out[0] = 0;
	if (fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = 0;
	pclose(f);
}

static const struct prof_mmap *find_map(const struct profile *p, uint32_t pid, uint64_t ip)
{
	size_t i;

	for (i = p->nr_mmaps; i-- > 0;)
		if (p->mmaps[i].pid == pid && ip >= p->mmaps[i].start &&
		    ip - p->mmaps[i].start < p->mmaps[i].len)
			return &p->mmaps[i];
	return NULL;
}

static const struct prof_mmap *find_map_path(const struct profile *p, const char *suffix)
{
	size_t i, l = strlen(suffix);

	for (i = 0; i < p->nr_mmaps; i++) {
		size_t pl = strlen(p->mmaps[i].path);

		if (pl >= l && !strcmp(p->mmaps[i].path + pl - l, suffix))
			return &p->mmaps[i];
	}
	return NULL;
}

/* The workload: its EXEC, its mapping with the build id readelf reports
 * (when perf has one: perf 6.1 writes an empty one into its table with -z),
 * and pd_leaf as the user leaf of most samples. */
static void check_workload(const struct profile *p, const char *name)
{
	const struct prof_mmap *m;
	char want[128], hex[2 * ZT_BUILD_ID_MAX + 1], line[256], path[128];
	unsigned long long sym = 0, size = 0;
	uint32_t pid = 0;
	size_t i, in_leaf = 0, of_wl = 0;

	/* this test's wl: a system-wide recording also holds what other tests
	 * run meanwhile (the unit tests run side by side) */
	snprintf(path, sizeof(path), "%s/wl", dir);
	m = find_map_path(p, path);
	assert_non_null(m);
	for (i = 0; i < p->nr_tasks; i++)
		if (p->tasks[i].kind == PROF_TASK_EXEC && !strcmp(p->tasks[i].comm, "wl") &&
		    p->tasks[i].pid == m->pid)
			pid = p->tasks[i].pid;
	assert_int_not_equal(pid, 0);
	first_line(want, sizeof(want),
		   "readelf -n %s/wl | sed -n 's/.*Build ID: *\\([0-9a-f]*\\).*/\\1/p'", dir);
	assert_true(strlen(want) == 40);
	first_line(line, sizeof(line), "perf buildid-list -i %s/%s 2>/dev/null | grep ' %s/wl$'", dir,
		   name, dir);
	/* perf lists none for a pipe, whose build ids come in MMAP2 records
	 * (--buildid-mmap): one zt has must still be the file's */
	if (strspn(line, "0123456789abcdef") == 40 || m->build_id.len)
		assert_string_equal(prof_build_id_hex(&m->build_id, hex), want);
	first_line(line, sizeof(line), "nm -S %s/wl | grep ' pd_leaf$'", dir);
	assert_int_equal(sscanf(line, "%llx %llx", &sym, &size), 2);
	for (i = 0; i < p->nr_samples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const struct prof_stack *st = &p->stacks[s->stack];
		const struct prof_mmap *mm;
		uint64_t leaf, off;

		if (s->pid != pid || !st->nu)
			continue;
		of_wl++;
		leaf = profile_stack_ips(p, s->stack)[st->nk];
		mm = find_map(p, pid, leaf);
		if (mm == m) {
			/* gcc's PIE: the text segment's vaddr equals its file offset */
			off = leaf - m->start + m->pgoff;
			in_leaf += off >= sym && off < sym + size;
		}
	}
	assert_true(of_wl > 10);
	assert_true(in_leaf * 2 > of_wl);
}

/* perf script prints user frames DSO-relative (ip - map start + pgoff),
 * kernel frames absolute: the first samples, matched by time, through our
 * mappings. */
static void check_against_script(const struct profile *p, const char *name)
{
	char cmd[256], line[512];
	const struct prof_sample *s = NULL;
	unsigned frame = 0, checked = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "perf script -i %s/%s -F time,ip --ns 2>/dev/null | head -400",
		 dir, name);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long sec, ns, x;
		size_t i;

		if (sscanf(line, " %llu.%llu:", &sec, &ns) == 2 && strchr(line, ':')) {
			uint64_t ts = sec * 1000000000ull + ns;

			if (s)
				assert_int_equal(frame, p->stacks[s->stack].nk + p->stacks[s->stack].nu);
			s = NULL;
			for (i = 0; i < p->nr_samples; i++)
				if (p->samples[i].ts == ts)
					s = &p->samples[i];
			assert_non_null(s);
			frame = 0;
			checked++;
		} else if (s && sscanf(line, " %llx", &x) == 1) {
			const struct prof_stack *st = &p->stacks[s->stack];
			uint64_t ip = profile_stack_ips(p, s->stack)[frame];

			assert_true(frame < (unsigned)st->nk + st->nu);
			if (frame < st->nk) {
				assert_int_equal(ip, x);
			} else {
				const struct prof_mmap *m = find_map(p, s->pid, ip);

				/* in no mapping (a frame pointer chain gone astray, the
				 * vdso before its MMAP): perf prints the address itself */
				if (m)
					assert_int_equal(ip - m->start + m->pgoff, x);
				else
					assert_int_equal(ip, x);
			}
			frame++;
		}
	}
	pclose(f);
	assert_true(checked >= 10);
}

static void check_common_meta(const struct profile *p)
{
	struct utsname u;

	assert_int_equal(uname(&u), 0);
	assert_string_equal(profile_get_meta(p, "sampler"), "perf");
	assert_string_equal(profile_get_meta(p, "hostname"), u.nodename);
	assert_string_equal(profile_get_meta(p, "os_release"), u.release);
	assert_string_equal(profile_get_meta(p, "arch"), "x86_64");
	assert_non_null(profile_get_meta(p, "nr_cpus"));
	assert_non_null(strstr(profile_get_meta(p, "cmdline"), "perf record"));
	assert_non_null(profile_get_meta(p, "time_start"));
	assert_non_null(profile_get_meta(p, "time_end"));
	assert_string_equal(profile_get_meta(p, "freq"), "999");
}

/* ---- real recordings --------------------------------------------------- */

static void test_plain(void **state)
{
	struct perfdata_info info;
	struct profile p;

	load("plain.data", &p, NULL, &info);
	check_common_meta(&p);
	assert_string_equal(profile_get_meta(&p, "event"), "cpu-clock");
	assert_string_equal(profile_get_meta(&p, "events"), "cpu-clock");
	assert_string_equal(profile_get_meta(&p, "callchain"), "fp");
	assert_int_equal(info.nr_events, 1);
	assert_int_equal(info.event, 0);
	assert_int_equal(info.samples, p.nr_samples);
	assert_int_equal(info.good_end, info.data_offset + info.data_size);
	assert_int_equal(info.compressed, 0);
	assert_false(info.dwarf);
	check_against_dump(&p, "plain.data", 0);
	check_against_script(&p, "plain.data");
	check_workload(&p, "plain.data");
	/* perf's kernel map, pid -1 (not written with --buildid-mmap) */
	if (!strstr(profile_get_meta(&p, "cmdline"), "--buildid-mmap")) {
		assert_non_null(find_map_path(&p, "[kernel.kallsyms]"));
		assert_int_equal(find_map_path(&p, "[kernel.kallsyms]")->pid, ZT_PID_KERNEL);
	}
	profile_release(&p);
}

static int map_cmp(const void *x, const void *y)
{
	const struct prof_mmap *a = *(const struct prof_mmap *const *)x;
	const struct prof_mmap *b = *(const struct prof_mmap *const *)y;
	int c = strcmp(a->path, b->path);

	if (c)
		return c;
	if (a->pgoff != b->pgoff)
		return a->pgoff < b->pgoff ? -1 : 1;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* p's mappings other than the kernel's into out (at most max), sorted by
 * path, file offset and length; their number. */
static size_t user_maps(const struct profile *p, const struct prof_mmap **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < p->nr_mmaps; i++)
		if (p->mmaps[i].pid != ZT_PID_KERNEL) {
			assert_true(n < max);
			out[n++] = &p->mmaps[i];
		}
	qsort(out, n, sizeof(*out), map_cmp);
	return n;
}

static void test_compressed(void **state)
{
	struct perfdata_info info, pinfo;
	struct profile p, plain;
	size_t i;

	load("z.data", &p, NULL, &info);
	load("plain.data", &plain, NULL, &pinfo);
	assert_true(info.compressed > 0);
	assert_true(info.decompressed > 0);
	check_common_meta(&p);
	assert_string_equal(profile_get_meta(&p, "compression"), "zstd");
	check_against_dump(&p, "z.data", 0);
	check_against_script(&p, "z.data");
	check_workload(&p, "z.data");
	/* the same structure as the plain recording of the same run length:
	 * the same tasks and mappings (other addresses: ASLR) and stack shapes */
	assert_int_equal(p.nr_tasks, plain.nr_tasks);
	/* the same kinds and names; their order between CPUs' rings varies per run */
	for (i = 0; i < p.nr_tasks; i++) {
		size_t a = 0, b = 0, k;

		for (k = 0; k < p.nr_tasks; k++) {
			a += p.tasks[k].kind == p.tasks[i].kind && !strcmp(p.tasks[k].comm, p.tasks[i].comm);
			b += plain.tasks[k].kind == p.tasks[i].kind &&
			     !strcmp(plain.tasks[k].comm, p.tasks[i].comm);
		}
		assert_int_equal(a, b);
	}
	/* the process's mappings (--buildid-mmap has perf leave out its kernel
	 * map), as sets: their order between CPUs' rings varies per run too */
	{
		const struct prof_mmap *a[256], *b[256];
		size_t na = user_maps(&p, a, 256), nb = user_maps(&plain, b, 256);

		assert_int_equal(na, nb);
		for (i = 0; i < na; i++) {
			assert_string_equal(a[i]->path, b[i]->path);
			assert_int_equal(a[i]->len, b[i]->len);
			assert_int_equal(a[i]->pgoff, b[i]->pgoff);
		}
	}
	/* about as many samples: the two runs' CPU time differs with the
	 * machine's load (within 10 on an idle one; a quarter allowed) */
	{
		size_t hi = p.nr_samples > plain.nr_samples ? p.nr_samples : plain.nr_samples;
		size_t lo = p.nr_samples + plain.nr_samples - hi, slack = hi / 4 > 10 ? hi / 4 : 10;

		if (lo + slack < hi)
			fail_msg("compressed %zu samples, plain %zu: more apart than %zu",
				 p.nr_samples, plain.nr_samples, slack);
	}
	profile_release(&p);
	profile_release(&plain);
}

static void test_system_wide(void **state)
{
	struct perfdata_info info;
	struct profile p;
	const struct prof_blob *b;
	const struct prof_mmap *k;
	char want[128], hex[2 * ZT_BUILD_ID_MAX + 1];
	size_t i, kernel = 0;

	load("all.data", &p, NULL, &info);
	check_common_meta(&p);
	/* cpu-clock and perf's side-band dummy:HG */
	assert_int_equal(info.nr_events, 2);
	assert_string_equal(profile_get_meta(&p, "event"), "cpu-clock");
	assert_string_equal(profile_get_meta(&p, "events"), "cpu-clock");
	check_against_dump(&p, "all.data", 0);
	check_workload(&p, "all.data");
	for (i = 0; i < p.nr_samples; i++)
		kernel += p.stacks[p.samples[i].stack].nk > 0;
	assert_true(kernel > 0);
	k = find_map_path(&p, "[kernel.kallsyms]");
	if (!strstr(profile_get_meta(&p, "cmdline"), "--buildid-mmap")) {
		assert_non_null(k);
		assert_int_equal(k->pid, ZT_PID_KERNEL);
	}
	/* the kernel's build id, as perf lists it */
	first_line(want, sizeof(want),
		   "perf buildid-list -i %s/all.data 2>/dev/null | sed -n 's/ \\[kernel.kallsyms\\]$//p'",
		   dir);
	b = profile_find_blob(&p, PROF_BLOB_KERNEL_BUILD_ID, UINT32_MAX);
	if (strlen(want) == 40) {
		assert_non_null(b);
		assert_non_null(k);
		assert_int_equal(b->len, 20);
		assert_string_equal(prof_build_id_hex(&k->build_id, hex), want);
	} else {
		/* perf failed its build-id pass, recorded with -B */
		assert_null(b);
	}
	profile_release(&p);
}

/* perf report --stats: "<event> stats:" then "SAMPLE events: N" */
static unsigned long stat_samples(const char *name, const char *event)
{
	char line[256];

	first_line(line, sizeof(line),
		   "perf report -i %s/%s --stats 2>/dev/null | sed -n '/^%s stats:/,/SAMPLE/p' | "
		   "sed -n 's/.*SAMPLE events: *\\([0-9]*\\).*/\\1/p'", dir, name, event);
	return strtoul(line, NULL, 10);
}

/* Times of one event's samples, from perf script (sorted by time). */
static size_t script_times(const char *name, const char *event, uint64_t *t, size_t max)
{
	char cmd[256], line[256], ev[64];
	unsigned long long sec, ns;
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "perf script -i %s/%s -F event,time --ns -G 2>/dev/null", dir,
		 name);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %llu.%llu: %63[^:]:", &sec, &ns, ev) == 3 && !strcmp(ev, event) &&
		    n < max)
			t[n++] = sec * 1000000000ull + ns;
	pclose(f);
	return n;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void check_event(const char *event, const struct perfdata_opts *o)
{
	struct perfdata_info info;
	struct profile p;
	uint64_t want[4096], have[4096];
	size_t n, i;

	load("two.data", &p, o, &info);
	assert_int_equal(info.nr_events, 2);
	assert_string_equal(profile_get_meta(&p, "event"), event);
	assert_string_equal(profile_get_meta(&p, "events"), "cpu-clock,task-clock");
	assert_int_equal(p.nr_samples, stat_samples("two.data", event));
	assert_int_equal(info.samples_other, stat_samples("two.data",
		!strcmp(event, "cpu-clock") ? "task-clock" : "cpu-clock"));
	n = script_times("two.data", event, want, 4096);
	assert_int_equal(n, p.nr_samples);
	for (i = 0; i < n; i++)
		have[i] = p.samples[i].ts;
	qsort(have, n, sizeof(*have), u64_cmp);
	assert_memory_equal(have, want, n * sizeof(*want));
	check_workload(&p, "two.data");
	profile_release(&p);
}

static void test_two_events(void **state)
{
	struct perfdata_opts o = { -1, NULL };
	struct perfdata_info info;
	struct profile p;
	char path[128];

	check_event("cpu-clock", NULL);
	o.event_name = "task-clock";
	check_event("task-clock", &o);
	o.event_name = NULL;
	o.event = 1;
	check_event("task-clock", &o);
	o.event = 0;
	check_event("cpu-clock", &o);

	path_of(path, sizeof(path), "two.data");
	profile_init(&p);
	o.event_name = "cycles";
	assert_int_equal(perfdata_read_file(path, &p, &o, &info), -ENOENT);
	assert_non_null(strstr(info.msg, "cycles"));
	assert_non_null(strstr(info.msg, "task-clock"));
	o.event_name = NULL;
	o.event = 2;
	assert_int_equal(perfdata_read_file(path, &p, &o, &info), -ENOENT);
	profile_release(&p);

	/* all: both events' samples, each with its index, as the two reads give */
	{
		struct perfdata_opts one = { -1, NULL }, all = { -1, NULL, 1 };
		struct profile a, b;
		size_t i, n[2] = { 0, 0 };

		profile_init(&p);
		assert_int_equal(perfdata_read_file(path, &p, &all, &info), 0);
		assert_int_equal(p.nr_events, 2);
		assert_string_equal(p.events[0].name, "cpu-clock");
		assert_string_equal(p.events[1].name, "task-clock");
		assert_int_equal(info.samples_other, 0);
		for (i = 0; i < p.nr_samples; i++) {
			assert_true(p.samples[i].event < 2);
			n[p.samples[i].event]++;
		}
		profile_init(&a);
		profile_init(&b);
		one.event = 0;
		assert_int_equal(perfdata_read_file(path, &a, &one, &info), 0);
		one.event = 1;
		assert_int_equal(perfdata_read_file(path, &b, &one, &info), 0);
		assert_int_equal(n[0], a.nr_samples);
		assert_int_equal(n[1], b.nr_samples);
		assert_int_equal(a.nr_events, 1);
		assert_string_equal(profile_event_name(&b, 0), "task-clock");
		profile_release(&a);
		profile_release(&b);
		profile_release(&p);
	}
}

/* perf record -o -: the header comes as records (ATTR, EVENT_UPDATE,
 * FEATURE), the rest as in a file */
static void test_pipe(void **state)
{
	struct perfdata_opts o = { -1, "task-clock" };
	static uint64_t want[4096], have[4096];
	struct perfdata_info info;
	struct profile p;
	size_t n, i;

	(void)state;
	load("pipe.data", &p, NULL, &info);
	check_common_meta(&p);
	assert_string_equal(profile_get_meta(&p, "event"), "cpu-clock");
	assert_string_equal(profile_get_meta(&p, "callchain"), "fp");
	assert_int_equal(info.data_offset, 16);
	assert_int_equal(info.good_end, info.size);
	assert_int_equal(info.samples, p.nr_samples);
	check_against_dump(&p, "pipe.data", 0);
	check_against_script(&p, "pipe.data");
	check_workload(&p, "pipe.data");
	profile_release(&p);

	/* two events and zstd: the one asked for, by the name perf gave it */
	load("pipe2.data", &p, &o, &info);
	assert_string_equal(profile_get_meta(&p, "event"), "task-clock");
	assert_true(info.compressed > 0);
	/* perf report --stats prints nothing for a pipe: perf script's samples */
	n = script_times("pipe2.data", "task-clock", want, 4096);
	assert_int_equal(n, p.nr_samples);
	for (i = 0; i < n; i++)
		have[i] = p.samples[i].ts;
	qsort(have, n, sizeof(*have), u64_cmp);
	assert_memory_equal(have, want, n * sizeof(*want));
	check_workload(&p, "pipe2.data");
	profile_release(&p);
}

static void test_dwarf(void **state)
{
	struct perfdata_info info;
	struct profile p;

	load("dwarf.data", &p, NULL, &info);
	assert_true(info.dwarf);
	assert_string_equal(profile_get_meta(&p, "callchain"), "dwarf");
	check_against_dump(&p, "dwarf.data", 1);
	profile_release(&p);
}

/* ---- damaged files ----------------------------------------------------- */

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int read_copy(const uint8_t *d, size_t len, struct perfdata_info *info, size_t *samples)
{
	uint8_t *c = malloc(len ? len : 1);
	struct profile p;
	int ret;

	assert_non_null(c);
	memcpy(c, d, len);
	profile_init(&p);
	ret = perfdata_read_mem(c, len, &p, NULL, info);
	*samples = p.nr_samples;
	profile_release(&p);
	free(c);
	return ret;
}

static void test_truncated(void **state)
{
	const char *names[] = { "plain.data", "z.data" };
	unsigned f;

	for (f = 0; f < 2; f++) {
		size_t len, n, full, i, prev = 0;
		uint8_t *d = slurp(names[f], &len);
		struct perfdata_info info;
		uint64_t doff = get64(d + 40), dend = doff + get64(d + 48);
		int ret;

		assert_int_equal(read_copy(d, len, &info, &full), 0);
		for (i = 0; i < len; i++) {
			ret = read_copy(d, i, &info, &n);
			if (i < 104) {
				assert_int_equal(ret, -EBADMSG);
				assert_true(info.msg[0]);
				continue;
			}
			if (i < doff) /* attrs or ids cut: a corrupt header */
				continue;
			assert_int_equal(ret, 0);
			assert_true(n <= full);
			assert_true(n >= prev); /* more bytes, never fewer samples */
			prev = n;
			if (i < dend) {
				assert_true(info.truncated);
				assert_non_null(strstr(info.msg, "offset"));
				assert_true(info.good_end <= i);
			} else {
				assert_int_equal(n, full); /* only features cut */
			}
		}
		free(d);
	}
}

static void test_crafted_headers(void **state)
{
	size_t len, n, full, i;
	uint8_t *d = slurp("plain.data", &len), *c;
	struct perfdata_info info;
	uint64_t dend = get64(d + 40) + get64(d + 48);
	uint8_t pipe_hdr[16];

	assert_int_equal(read_copy(d, len, &info, &full), 0);
	assert_true(perfdata_probe(d, len));
	assert_false(perfdata_probe(d, 7));
	assert_false(perfdata_probe("PERFILE3", 8));
	c = malloc(len);
	assert_non_null(c);

	/* the other byte order */
	memcpy(c, d, len);
	put64(c, __builtin_bswap64(get64(d)));
	assert_true(perfdata_probe(c, len));
	assert_int_equal(read_copy(c, len, &info, &n), -ENOTSUP);
	assert_non_null(strstr(info.msg, "other byte order"));

	/* pipe mode without any record: no event to read */
	memcpy(pipe_hdr, d, 8);
	put64(pipe_hdr + 8, 16);
	assert_int_equal(read_copy(pipe_hdr, 16, &info, &n), -EBADMSG);
	assert_non_null(strstr(info.msg, "pipe mode"));

	/* not perf.data */
	assert_int_equal(read_copy((const uint8_t *)"hello, world, this is text", 26, &info, &n),
			 -EBADMSG);

	/* another architecture: HEADER_ARCH says so */
	memcpy(c, d, len);
	for (i = dend; i + 6 <= len; i++)
		if (!memcmp(c + i, "x86_64", 7))
			break;
	assert_true(i + 6 <= len);
	memcpy(c + i, "arm64", 6);
	assert_int_equal(read_copy(c, len, &info, &n), -ENOTSUP);
	assert_non_null(strstr(info.msg, "'arm64'"));

	/* a killed perf record: data size 0, nothing after the data */
	memcpy(c, d, len);
	put64(c + 48, 0);
	assert_int_equal(read_copy(c, dend, &info, &n), 0);
	assert_true(info.unfinished);
	assert_int_equal(n, full);
	/* ... and unwritten zeros at its end */
	memset(c + dend, 0, len - dend);
	assert_int_equal(read_copy(c, len, &info, &n), 0);
	assert_true(info.unfinished && info.truncated);
	assert_int_equal(n, full);

	/* a record of size 4 in the data section: corrupt, the records before kept */
	memcpy(c, d, len);
	c[get64(d + 40) + 6] = 4;
	c[get64(d + 40) + 7] = 0;
	assert_int_equal(read_copy(c, len, &info, &n), -EBADMSG);
	assert_non_null(strstr(info.msg, "offset"));

	/* attrs section not a multiple of attr_size */
	memcpy(c, d, len);
	put64(c + 32, get64(d + 32) - 1);
	assert_int_equal(read_copy(c, len, &info, &n), -EBADMSG);
	free(c);
	free(d);
}

/* Random byte flips anywhere: no crash, no leak (ASan), some return. */
static void test_flips(void **state)
{
	size_t len, n, i;
	uint8_t *d = slurp("all.data", &len), *c = malloc(len);
	struct perfdata_info info;
	uint32_t rng = 12345;

	assert_non_null(c);
	for (i = 0; i < 3000; i++) {
		unsigned k;

		memcpy(c, d, len);
		for (k = 0; k < 4; k++) {
			rng = rng * 1103515245u + 12345u;
			c[(rng >> 4) % len] ^= (uint8_t)(1u << (rng % 8));
		}
		(void)read_copy(c, len, &info, &n);
	}
	free(c);
	free(d);
}

/* ---- crafted files: every sample field -------------------------------- */

struct fb {
	uint8_t *d;
	size_t len, cap;
};

static void fb_put(struct fb *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->d = realloc(b->d, b->cap);
		assert_non_null(b->d);
	}
	memcpy(b->d + b->len, p, n);
	b->len += n;
}

static void fb_u64(struct fb *b, uint64_t v)
{
	fb_put(b, &v, 8);
}

static void fb_u32(struct fb *b, uint32_t v)
{
	fb_put(b, &v, 4);
}

static void fb_hdr(struct fb *b, uint32_t type, uint16_t misc, size_t size)
{
	uint16_t s = (uint16_t)size;

	fb_u32(b, type);
	fb_put(b, &misc, 2);
	fb_put(b, &s, 2);
}

#define ST_ALL                                                                                 \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |          \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |       \
	 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |             \
	 PERF_SAMPLE_WEIGHT)

/* The sample_id_all trailer of ST_ALL: tid, time, id, stream_id, cpu, identifier. */
static void fb_trailer(struct fb *b, uint32_t pid, uint64_t ts, uint64_t id)
{
	fb_u32(b, pid);
	fb_u32(b, pid);
	fb_u64(b, ts);
	fb_u64(b, id);
	fb_u64(b, 7);
	fb_u64(b, 1); /* cpu 1 */
	fb_u64(b, id);
}

/* A sample with every field; regs/stack present when full. */
static void fb_sample(struct fb *b, uint64_t id, uint64_t ts, uint32_t pid, int full)
{
	static const uint64_t chain[] = {
		PERF_CONTEXT_KERNEL, 0xffffffff81000100, 0xffffffff81000200,
		PERF_CONTEXT_USER,   0x401100,           0x401200, 0x401300,
	};
	size_t size = 8 + 8 * 9 /* identifier..period */ + 8 * 6 /* read group of 2 */ +
		      8 + sizeof(chain) + 4 + 12 /* raw */ + 8 + 8 + 2 * 24 /* branches */ +
		      (full ? 8 + 3 * 8 : 8) + (full ? 8 + 64 + 8 : 8) + 8 /* weight */;
	uint32_t raw = 12;
	uint8_t rawd[12] = "raw-payload";
	uint8_t stack[64] = { 0 };

	fb_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, size);
	fb_u64(b, id);            /* IDENTIFIER */
	fb_u64(b, 0x401100);      /* IP */
	fb_u32(b, pid);           /* TID */
	fb_u32(b, pid + 1);
	fb_u64(b, ts);            /* TIME */
	fb_u64(b, 0xdead);        /* ADDR */
	fb_u64(b, id);            /* ID */
	fb_u64(b, 7);             /* STREAM_ID */
	fb_u32(b, 1);             /* CPU */
	fb_u32(b, 0);
	fb_u64(b, 5000);          /* PERIOD */
	fb_u64(b, 2);             /* READ: group, nr 2, time enabled, {value, id} x2 */
	fb_u64(b, 99);
	fb_u64(b, 1); fb_u64(b, id);
	fb_u64(b, 2); fb_u64(b, id + 1);
	fb_u64(b, sizeof(chain) / 8); /* CALLCHAIN */
	fb_put(b, chain, sizeof(chain));
	fb_u32(b, raw);           /* RAW */
	fb_put(b, rawd, raw);
	fb_u64(b, 2);             /* BRANCH_STACK: nr, hw_idx, 2 entries */
	fb_u64(b, 0);
	for (int i = 0; i < 6; i++)
		fb_u64(b, 0x1000 + i);
	if (full) {               /* REGS_USER: abi, 3 registers */
		fb_u64(b, 2);
		fb_u64(b, 1); fb_u64(b, 2); fb_u64(b, 3);
		fb_u64(b, 64);    /* STACK_USER: size, data, dyn_size */
		fb_put(b, stack, 64);
		fb_u64(b, 32);
	} else {
		fb_u64(b, 0);
		fb_u64(b, 0);
	}
	fb_u64(b, 77);            /* WEIGHT */
}

static void fb_comm(struct fb *b, uint32_t pid, const char *comm, int exec, uint64_t ts,
		    uint64_t id)
{
	char name[16] = { 0 };

	strncpy(name, comm, 15);
	fb_hdr(b, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, 8 + 8 + 16 + 48);
	fb_u32(b, pid);
	fb_u32(b, pid);
	fb_put(b, name, 16);
	fb_trailer(b, pid, ts, id);
}

static void fb_mmap2(struct fb *b, uint32_t pid, uint64_t start, const char *path, uint64_t ts,
		     uint64_t id)
{
	char name[32] = { 0 };
	uint8_t bid[24] = { 20 };

	for (int i = 0; i < 20; i++)
		bid[4 + i] = (uint8_t)(0xa0 + i);
	strncpy(name, path, 31);
	fb_hdr(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID,
	       8 + 64 + 32 + 48);
	fb_u32(b, pid);
	fb_u32(b, pid);
	fb_u64(b, start);
	fb_u64(b, 0x10000);
	fb_u64(b, 0x1000);
	fb_put(b, bid, 24);
	fb_u32(b, 5); /* r-x */
	fb_u32(b, 2);
	fb_put(b, name, 32);
	fb_trailer(b, pid, ts, id);
}

/* A file: header, the attr (ids 42 and 43 of one event, 44 of a second),
 * then data. */
static void fb_file(struct fb *f, const struct fb *data)
{
	struct perf_event_attr a;
	uint64_t ids[3] = { 42, 43, 44 };
	size_t attr_off = 104 + sizeof(ids), i;

	memset(f, 0, sizeof(*f));
	fb_put(f, "PERFILE2", 8);
	fb_u64(f, 104);
	fb_u64(f, sizeof(a) + 16);
	fb_u64(f, attr_off);                   /* attrs */
	fb_u64(f, 2 * (sizeof(a) + 16));
	fb_u64(f, attr_off + 2 * (sizeof(a) + 16)); /* data */
	fb_u64(f, data->len);
	fb_u64(f, 0);                          /* event_types */
	fb_u64(f, 0);
	for (i = 0; i < 4; i++)                /* no features */
		fb_u64(f, 0);
	fb_put(f, ids, sizeof(ids));
	for (i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_SOFTWARE;
		a.size = sizeof(a);
		a.config = i ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK;
		a.sample_period = 5000;
		a.sample_type = ST_ALL;
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
		a.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_ANY;
		a.sample_regs_user = 0x7;
		a.sample_stack_user = 64;
		a.sample_id_all = 1;
		fb_put(f, &a, sizeof(a));
		fb_u64(f, i ? 104 + 16 : 104);     /* ids */
		fb_u64(f, i ? 8 : 16);
	}
	fb_put(f, data->d, data->len);
}

static void test_crafted_fields(void **state)
{
	struct fb data = { 0 }, inner = { 0 }, f;
	struct perfdata_opts o = { -1, NULL };
	struct perfdata_info info;
	struct profile p;
	uint8_t z[4096];
	size_t zn, i, half;
	char hex[64];

	fb_comm(&data, 100, "prog", 1, 1000, 42);
	fb_mmap2(&data, 100, 0x400000, "/opt/prog", 1001, 42);
	fb_sample(&data, 42, 2000, 100, 1);
	fb_sample(&data, 44, 2001, 100, 1); /* the second event */
	fb_sample(&data, 43, 2002, 100, 0);
	fb_sample(&data, 999, 2003, 100, 0); /* an id of no event */
	fb_hdr(&data, 200, 0, 16);          /* unknown type: skipped by size */
	fb_u64(&data, 0);
	fb_hdr(&data, PERF_RECORD_LOST, 0, 24 + 48);
	fb_u64(&data, 42);
	fb_u64(&data, 3);
	fb_trailer(&data, 100, 2004, 42);
	fb_hdr(&data, PERF_RECORD_LOST_SAMPLES, 0, 16 + 48);
	fb_u64(&data, 5);
	fb_trailer(&data, 100, 2005, 42);
	/* two compressed records continuing one zstd stream, a record split
	 * between them */
	fb_sample(&inner, 42, 3000, 100, 1);
	fb_sample(&inner, 43, 3001, 100, 1);
	zn = ZSTD_compress(z, sizeof(z), inner.d, inner.len, 3);
	assert_false(ZSTD_isError(zn));
	half = zn / 2;
	fb_hdr(&data, 81, 0, 8 + half);     /* COMPRESSED: unaligned size */
	fb_put(&data, z, half);
	fb_hdr(&data, 83, 0, (16 + (zn - half) + 7) / 8 * 8); /* COMPRESSED2 */
	fb_u64(&data, zn - half);
	fb_put(&data, z + half, zn - half);
	for (i = 16 + (zn - half); i % 8; i++)
		fb_put(&data, "", 1);
	fb_file(&f, &data);

	profile_init(&p);
	assert_int_equal(perfdata_read_mem(f.d, f.len, &p, NULL, &info), 0);
	assert_string_equal(info.msg, "");
	assert_int_equal(info.nr_events, 2);
	assert_int_equal(info.samples, 4);
	assert_int_equal(info.samples_other, 1);
	assert_int_equal(info.samples_unknown, 1);
	assert_int_equal(info.unknown, 1);
	assert_int_equal(info.compressed, 2);
	assert_int_equal(info.decompressed, inner.len);
	assert_true(info.dwarf);
	assert_int_equal(info.good_end, f.len);
	assert_string_equal(profile_get_meta(&p, "event"), "cpu-clock");
	assert_string_equal(profile_get_meta(&p, "events"), "cpu-clock,task-clock");
	assert_string_equal(profile_get_meta(&p, "period"), "5000");
	assert_string_equal(profile_get_meta(&p, "callchain"), "dwarf");
	assert_string_equal(profile_get_meta(&p, "time_start"), "2000");
	assert_string_equal(profile_get_meta(&p, "time_end"), "3001");
	assert_int_equal(p.lost_events, 3);
	assert_int_equal(p.lost_samples, 5);
	assert_int_equal(p.nr_tasks, 1);
	assert_int_equal(p.tasks[0].kind, PROF_TASK_EXEC);
	assert_int_equal(p.tasks[0].ts, 1000);
	assert_string_equal(p.tasks[0].comm, "prog");
	assert_int_equal(p.nr_mmaps, 1);
	assert_int_equal(p.mmaps[0].ts, 1001);
	assert_int_equal(p.mmaps[0].start, 0x400000);
	assert_string_equal(p.mmaps[0].path, "/opt/prog");
	assert_string_equal(prof_build_id_hex(&p.mmaps[0].build_id, hex),
			    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
	assert_int_equal(p.nr_samples, 4);
	assert_int_equal(p.nr_stacks, 1);
	for (i = 0; i < 4; i++) {
		static const uint64_t want[] = { 0xffffffff81000100, 0xffffffff81000200, 0x401100,
						 0x401200, 0x401300 };

		assert_int_equal(p.samples[i].weight, 5000);
		assert_int_equal(p.samples[i].pid, 100);
		assert_int_equal(p.samples[i].tid, 101);
		assert_int_equal(p.samples[i].cpu, 1);
		assert_int_equal(p.stacks[p.samples[i].stack].nk, 2);
		assert_int_equal(p.stacks[p.samples[i].stack].nu, 3);
		assert_memory_equal(profile_stack_ips(&p, p.samples[i].stack), want, sizeof(want));
	}
	assert_int_equal(p.samples[3].ts, 3001);
	profile_release(&p);

	/* the second event by name; the other event's samples skipped */
	profile_init(&p);
	o.event_name = "task-clock";
	assert_int_equal(perfdata_read_mem(f.d, f.len, &p, &o, &info), 0);
	assert_int_equal(info.samples, 1);
	assert_int_equal(info.samples_other, 4);
	assert_int_equal(p.samples[0].ts, 2001);
	profile_release(&p);

	/* every prefix and single-byte damage of the crafted file */
	for (i = 0; i < f.len; i++) {
		uint8_t save = f.d[i];

		profile_init(&p);
		(void)perfdata_read_mem(f.d, i, &p, NULL, &info);
		profile_release(&p);
		f.d[i] ^= 0x5a;
		profile_init(&p);
		(void)perfdata_read_mem(f.d, f.len, &p, NULL, &info);
		profile_release(&p);
		f.d[i] = save;
	}
	free(f.d);
	free(data.d);
	free(inner.d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_system_wide),
		cmocka_unit_test(test_two_events),
		cmocka_unit_test(test_dwarf),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_crafted_headers),
		cmocka_unit_test(test_flips),
		cmocka_unit_test(test_crafted_fields),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
