/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof: a profile built in memory over a program compiled here (with an
 * inlined function) and a kallsyms snapshot, written, gunzip'ed and decoded
 * with protobuf-c; then read again by an independent decoder
 * (tests/e2e/pprof-decode, pprof-format under node).
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "tests/unit/testutil.h"

#include "formats/pprof.h"
#include "formats/profile.pb-c.h"
#include "libprof/gpu.h"
#include "libprof/gpuframes.h"
#include "libprof/gpuview.h"
#include "libprof/log.h"
#include "symbolizer/elfsym.h"
#include "session/session.h"
#include "symbolizer/resolve.h"

#define BASE 0x555555554000ull /* where the program is mapped */
#define PID 42
#define DECODER "tests/e2e/pprof-decode/decode.sh"

static char tmpdir[] = "/tmp/zt-test-pprof.XXXXXX";
static char prog[512];
static struct prof_build_id prog_bid;
static uint64_t off_alpha, off_beta, off_main, off_outer, size_outer;

static const char prog_src[] =
	"static inline __attribute__((always_inline)) int zt_pp_inl(int x)\n"
	"{\n"
	"	volatile int v = x;\n"
	"	return v * v + 7;\n"
	"}\n"
	"__attribute__((noinline)) int zt_pp_outer(int x) { return zt_pp_inl(x) + zt_pp_inl(x + 1); }\n"
	"__attribute__((noinline)) int zt_pp_alpha(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int zt_pp_beta(int x) { return zt_pp_alpha(x) ^ 0x55; }\n"
	"int main(int argc, char **argv) { return zt_pp_beta(argc) + zt_pp_outer(argc); }\n";

static const char kallsyms_text[] = "ffffffff81000000 T _text\n"
				    "ffffffff81001000 T zt_kfunc\n"
				    "ffffffff81002000 T _etext\n";

static const uint8_t kernel_bid[20] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
					0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
					0xff, 0x00, 0x01, 0x02, 0x03, 0x04 };

static int setup(void **state)
{
	char path[600];
	FILE *f;

	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/prog.c", tmpdir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(prog_src, f);
	fclose(f);
	snprintf(prog, sizeof(prog), "%s/prog", tmpdir);
	if (run("cd %s && cc -O2 -g -fPIE -pie -Wl,--build-id=sha1 -o prog prog.c", tmpdir))
		return -1;
	if (elf_read_build_id(prog, &prog_bid) || !prog_bid.len)
		return -1;
	if (file_offset(prog, "zt_pp_alpha", &off_alpha, NULL) ||
	    file_offset(prog, "zt_pp_beta", &off_beta, NULL) ||
	    file_offset(prog, "main", &off_main, NULL) ||
	    file_offset(prog, "zt_pp_outer", &off_outer, &size_outer))
		return -1;
	snprintf(path, sizeof(path), "%s/cache", tmpdir);
	setenv("ZT_CACHE_DIR", path, 1);
	return 0;
}

static int teardown(void **state)
{
	run("rm -rf %s", tmpdir);
	return 0;
}

struct ctx {
	struct profile p;
	struct proctree *pt;
	struct resolver *r;       /* for finding addresses */
	struct session_source *ss; /* the frames pprof_write() gets */
	struct frametab ft;
};

static void add_comm(struct profile *p, uint32_t pid, uint32_t tid, const char *comm)
{
	struct prof_task t = { .ts = 1, .kind = PROF_TASK_COMM, .pid = pid, .tid = tid };

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	assert_int_equal(profile_add_task(p, &t), 0);
}

static void add_sample(struct profile *p, uint32_t tid, uint64_t ts, uint64_t weight,
		       const uint64_t *ips, unsigned nk, unsigned nu)
{
	struct prof_sample s = { .ts = ts, .weight = weight, .pid = PID, .tid = tid };

	assert_int_equal(profile_intern_stack(p, ips, nk, nu, &s.stack), 0);
	assert_int_equal(profile_add_sample(p, &s), 0);
}

static void open_ctx(struct ctx *c)
{
	assert_int_equal(proctree_new(&c->p, &c->pt), 0);
	struct frametab_source src;

	assert_int_equal(resolver_new(&c->p, c->pt, &c->r), 0);
	assert_int_equal(session_source_new(NULL, &c->ss), 0);
	assert_int_equal(session_source_follow(c->ss, &c->p, c->pt), 0);
	session_source_get(c->ss, &src);
	frametab_init(&c->ft, c->pt, &src);
}

static void close_ctx(struct ctx *c)
{
	frametab_release(&c->ft);
	session_source_free(c->ss);
	resolver_free(c->r);
	proctree_free(c->pt);
	profile_release(&c->p);
}

/* An address in zt_pp_outer that resolves to an inline chain. */
static uint64_t inline_site(struct ctx *c)
{
	uint64_t o;

	for (o = 0; o < size_outer; o++) {
		struct resolve_frame f;

		assert_int_equal(resolver_resolve(c->r, PID, 10, BASE + off_outer + o, 0, &f), 0);
		if (f.nr_locs >= 2 && !strcmp(f.locs[0].name, "zt_pp_inl"))
			return BASE + off_outer + o;
	}
	fail_msg("no address of zt_pp_outer resolves to the inlined zt_pp_inl");
	return 0;
}

/* Write c's profile to path; returns pprof_write()'s result. */
static int write_file(struct ctx *c, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), ret;

	assert_true(fd >= 0);
	ret = pprof_write(&(struct rstacks){&c->p, c->pt, &c->ft}, NULL, fd);
	assert_int_equal(close(fd), 0);
	return ret;
}

/* Gunzip and unpack path with protobuf-c. */
static Perftools__Profiles__Profile *read_file(const char *path)
{
	Perftools__Profiles__Profile *prof;
	uint8_t in[4096];
	uint8_t *out = NULL;
	size_t cap = 0, len = 0;
	z_stream z = { 0 };
	FILE *f = fopen(path, "rb");
	int zr = Z_OK;

	assert_non_null(f);
	assert_int_equal(fgetc(f), 0x1f); /* gzip magic */
	assert_int_equal(fgetc(f), 0x8b);
	rewind(f);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	while (zr != Z_STREAM_END) {
		size_t n = fread(in, 1, sizeof(in), f);

		assert_true(n > 0); /* not truncated */
		z.next_in = in;
		z.avail_in = (uInt)n;
		do {
			if (cap - len < 4096) {
				cap = cap ? 2 * cap : 65536;
				out = realloc(out, cap);
				assert_non_null(out);
			}
			z.next_out = out + len;
			z.avail_out = (uInt)(cap - len);
			zr = inflate(&z, Z_NO_FLUSH);
			assert_true(zr == Z_OK || zr == Z_STREAM_END || zr == Z_BUF_ERROR);
			len = cap - z.avail_out;
		} while (z.avail_in && zr != Z_STREAM_END);
	}
	inflateEnd(&z);
	fclose(f);
	prof = perftools__profiles__profile__unpack(NULL, len, out);
	free(out);
	assert_non_null(prof);
	return prof;
}

static const char *S(const Perftools__Profiles__Profile *prof, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < prof->n_string_table);
	return prof->string_table[i];
}

static const Perftools__Profiles__Location *loc_by_id(const Perftools__Profiles__Profile *prof,
						       uint64_t id)
{
	size_t i;

	for (i = 0; i < prof->n_location; i++)
		if (prof->location[i]->id == id)
			return prof->location[i];
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

static const Perftools__Profiles__Function *func_by_id(const Perftools__Profiles__Profile *prof,
						       uint64_t id)
{
	size_t i;

	for (i = 0; i < prof->n_function; i++)
		if (prof->function[i]->id == id)
			return prof->function[i];
	fail_msg("no function %llu", (unsigned long long)id);
	return NULL;
}

static const Perftools__Profiles__Mapping *map_by_id(const Perftools__Profiles__Profile *prof,
						     uint64_t id)
{
	size_t i;

	for (i = 0; i < prof->n_mapping; i++)
		if (prof->mapping[i]->id == id)
			return prof->mapping[i];
	fail_msg("no mapping %llu", (unsigned long long)id);
	return NULL;
}

/* The function name of line j of location id. */
static const char *fname(const Perftools__Profiles__Profile *prof, uint64_t id, size_t j)
{
	const Perftools__Profiles__Location *l = loc_by_id(prof, id);

	assert_true(j < l->n_line);
	return S(prof, func_by_id(prof, l->line[j]->function_id)->name);
}

/* The sample of thread tid whose leaf is function leaf. */
static const Perftools__Profiles__Sample *find_sample(const Perftools__Profiles__Profile *prof,
						      int64_t tid, const char *leaf)
{
	size_t i, j;

	for (i = 0; i < prof->n_sample; i++) {
		const Perftools__Profiles__Sample *s = prof->sample[i];
		int64_t t = -1;

		for (j = 0; j < s->n_label; j++)
			if (!strcmp(S(prof, s->label[j]->key), "tid"))
				t = s->label[j]->num;
		if (t == tid && s->n_location_id && !strcmp(fname(prof, s->location_id[0], 0), leaf))
			return s;
	}
	fail_msg("no sample of tid %lld with leaf %s", (long long)tid, leaf);
	return NULL;
}

static const char *label_str(const Perftools__Profiles__Profile *prof,
			     const Perftools__Profiles__Sample *s, const char *key)
{
	size_t j;

	for (j = 0; j < s->n_label; j++)
		if (!strcmp(S(prof, s->label[j]->key), key))
			return S(prof, s->label[j]->str);
	return NULL;
}

/* The program, kallsyms, two threads, meta of a cpu-clock recording. */
static void make_profile(struct ctx *c, uint64_t *inl)
{
	struct prof_mmap m = { .ts = 1, .pid = PID, .tid = PID, .start = BASE, .len = 0x10000,
			       .pgoff = 0, .prot = 5, .path = prog, .build_id = prog_bid };

	profile_init(&c->p);
	assert_int_equal(profile_add_mmap(&c->p, &m), 0);
	assert_int_equal(profile_add_blob(&c->p, PROF_BLOB_KALLSYMS, 0, 0, kallsyms_text,
					  strlen(kallsyms_text)), 0);
	assert_int_equal(profile_add_blob(&c->p, PROF_BLOB_KERNEL_BUILD_ID, 0, 0, kernel_bid,
					  sizeof(kernel_bid)), 0);
	add_comm(&c->p, PID, PID, "zt-prog");
	add_comm(&c->p, PID, PID + 1, "work\x01\xff");
	profile_set_meta(&c->p, "event", "cpu-clock");
	profile_set_meta(&c->p, "freq", "1000");
	profile_set_meta(&c->p, "time_start", "5");
	profile_set_meta(&c->p, "time_end", "2000000005");
	profile_set_meta(&c->p, "wallclock_start", "1700000000");
	profile_set_meta(&c->p, "cmdline", "zt record -F 1000 ./prog");
	open_ctx(c);
	*inl = inline_site(c);
}

static void test_write_and_unpack(void **state)
{
	Perftools__Profiles__Profile *prof;
	const Perftools__Profiles__Sample *s;
	const Perftools__Profiles__Location *l;
	const Perftools__Profiles__Mapping *pm, *km;
	char path[600], hex[2 * ZT_BUILD_ID_MAX + 1];
	uint64_t inl, a[3], b[2];
	struct ctx c;
	size_t i, nl;
	int64_t cnt = 0, w = 0;

	make_profile(&c, &inl);
	a[0] = BASE + off_alpha + 2, a[1] = BASE + off_beta + 1, a[2] = BASE + off_main + 1;
	b[0] = 0xffffffff81001010ull, b[1] = inl;
	for (i = 0; i < 3; i++)
		add_sample(&c.p, PID, 10 + i, 1000000, a, 0, 3);
	add_sample(&c.p, PID + 1, 20, 1000000, b, 1, 1);
	add_sample(&c.p, PID + 1, 21, 3000000, b, 1, 1);
	add_sample(&c.p, PID + 1, 22, 1000000, a, 0, 3);
	snprintf(path, sizeof(path), "%s/out.pb.gz", tmpdir);
	assert_int_equal(write_file(&c, path), 0);
	prof = read_file(path);

	assert_true(prof->n_string_table > 0);
	assert_string_equal(prof->string_table[0], "");
	assert_int_equal(prof->n_sample_type, 2);
	assert_string_equal(S(prof, prof->sample_type[0]->type), "samples");
	assert_string_equal(S(prof, prof->sample_type[0]->unit), "count");
	assert_string_equal(S(prof, prof->sample_type[1]->type), "cpu");
	assert_string_equal(S(prof, prof->sample_type[1]->unit), "nanoseconds");
	assert_non_null(prof->period_type);
	assert_string_equal(S(prof, prof->period_type->type), "cpu");
	assert_int_equal(prof->period, 1000000);
	assert_int_equal(prof->time_nanos, 1700000000ll * 1000000000ll);
	assert_int_equal(prof->duration_nanos, 2000000000ll);
	assert_int_equal(prof->n_comment, 1);
	assert_string_equal(S(prof, prof->comment[0]), "zt record -F 1000 ./prog");

	/* one sample per (stack, thread); values summed */
	assert_int_equal(prof->n_sample, 3);
	for (i = 0; i < prof->n_sample; i++) {
		assert_int_equal(prof->sample[i]->n_value, 2);
		cnt += prof->sample[i]->value[0];
		w += prof->sample[i]->value[1];
	}
	assert_int_equal(cnt, 6);
	assert_int_equal(w, 8000000);

	s = find_sample(prof, PID, "zt_pp_alpha");
	assert_int_equal(s->value[0], 3);
	assert_int_equal(s->value[1], 3000000);
	assert_int_equal(s->n_location_id, 3);
	assert_string_equal(fname(prof, s->location_id[1], 0), "zt_pp_beta");
	assert_string_equal(fname(prof, s->location_id[2], 0), "main");
	assert_string_equal(label_str(prof, s, "thread"), "zt-prog");
	for (i = 0; i < s->n_label; i++)
		if (!strcmp(S(prof, s->label[i]->key), "pid"))
			assert_int_equal(s->label[i]->num, PID);
	l = loc_by_id(prof, s->location_id[0]);
	assert_int_equal(l->address, a[0]);
	assert_int_equal(l->n_line, 1);
	assert_true(l->line[0]->line > 0);
	{
		const Perftools__Profiles__Function *f = func_by_id(prof, l->line[0]->function_id);
		const char *file = S(prof, f->filename);

		assert_true(strlen(file) > 7 && !strcmp(file + strlen(file) - 7, "/prog.c"));
		assert_string_equal(S(prof, f->system_name), "zt_pp_alpha");
	}
	/* the other thread's identical stack: the same locations */
	{
		const Perftools__Profiles__Sample *s2 = find_sample(prof, PID + 1, "zt_pp_alpha");

		assert_int_equal(s2->value[0], 1);
		assert_memory_equal(s2->location_id, s->location_id, 3 * sizeof(uint64_t));
		/* control characters and invalid UTF-8 in names: '?' */
		assert_string_equal(label_str(prof, s2, "thread"), "work??");
	}
	pm = map_by_id(prof, l->mapping_id);
	assert_string_equal(S(prof, pm->filename), prog);
	assert_string_equal(S(prof, pm->build_id), prof_build_id_hex(&prog_bid, hex));
	assert_int_equal(pm->memory_start, BASE);
	assert_int_equal(pm->memory_limit, BASE + 0x10000);
	assert_int_equal(pm->file_offset, 0);
	assert_true(pm->has_functions && pm->has_filenames && pm->has_line_numbers &&
		    pm->has_inline_frames);
	assert_ptr_equal(prof->mapping[0], pm); /* the main binary first */

	/* kernel frame first, then the inline chain: innermost first */
	s = find_sample(prof, PID + 1, "zt_kfunc");
	assert_int_equal(s->value[0], 2);
	assert_int_equal(s->value[1], 4000000);
	assert_int_equal(s->n_location_id, 2);
	l = loc_by_id(prof, s->location_id[0]);
	assert_int_equal(l->address, b[0]);
	km = map_by_id(prof, l->mapping_id);
	assert_string_equal(S(prof, km->filename), "[kernel.kallsyms]");
	assert_string_equal(S(prof, km->build_id), "112233445566778899aabbccddeeff0001020304");
	assert_true(km->memory_start <= b[0] && b[0] < km->memory_limit);
	assert_true(km->has_functions && !km->has_line_numbers);
	l = loc_by_id(prof, s->location_id[1]);
	assert_int_equal(l->address, inl);
	assert_int_equal(l->mapping_id, pm->id);
	nl = l->n_line;
	assert_true(nl >= 2);
	assert_string_equal(fname(prof, l->id, 0), "zt_pp_inl");
	assert_string_equal(fname(prof, l->id, nl - 1), "zt_pp_outer");
	for (i = 0; i < nl; i++)
		assert_true(l->line[i]->line > 0);

	/* tables without duplicates: alpha, beta, main, kfunc, the inline site */
	assert_int_equal(prof->n_location, 5);
	assert_int_equal(prof->n_mapping, 2);
	assert_int_equal(prof->n_function, 6);
	for (i = 0; i < prof->n_function; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			assert_false(prof->function[i]->name == prof->function[j]->name &&
				     prof->function[i]->filename == prof->function[j]->filename);
	}
	perftools__profiles__profile__free_unpacked(prof, NULL);
	close_ctx(&c);
}

static void test_other_event_and_unknown(void **state)
{
	Perftools__Profiles__Profile *prof;
	const Perftools__Profiles__Location *l;
	uint64_t ips[2] = { 0x1234, BASE + 0x10 }; /* in no mapping; in no function */
	char path[600];
	struct ctx c;

	profile_init(&c.p);
	{
		struct prof_mmap m = { .ts = 1, .pid = PID, .tid = PID, .start = BASE,
				       .len = 0x10000, .prot = 5, .path = prog,
				       .build_id = prog_bid };

		assert_int_equal(profile_add_mmap(&c.p, &m), 0);
	}
	profile_set_meta(&c.p, "event", "cycles");
	profile_set_meta(&c.p, "freq", "4000");
	open_ctx(&c);
	add_sample(&c.p, PID, 10, 100, ips, 0, 2);
	add_sample(&c.p, PID, 11, 300, ips, 0, 2);
	snprintf(path, sizeof(path), "%s/cycles.pb.gz", tmpdir);
	assert_int_equal(write_file(&c, path), 0);
	prof = read_file(path);
	assert_string_equal(S(prof, prof->sample_type[1]->type), "cycles");
	assert_string_equal(S(prof, prof->sample_type[1]->unit), "count");
	assert_int_equal(prof->period, 200); /* no fixed period: the mean */
	assert_int_equal(prof->n_sample, 1);
	/* no thread name known: ":pid" */
	assert_string_equal(label_str(prof, prof->sample[0], "thread"), ":42");
	l = loc_by_id(prof, prof->sample[0]->location_id[0]);
	assert_int_equal(l->mapping_id, 0);
	assert_string_equal(fname(prof, l->id, 0), "[unknown]");
	l = loc_by_id(prof, prof->sample[0]->location_id[1]);
	assert_string_equal(fname(prof, l->id, 0), "[prog+0x10]");
	assert_int_equal(map_by_id(prof, l->mapping_id)->memory_start, BASE);
	perftools__profiles__profile__free_unpacked(prof, NULL);
	close_ctx(&c);
}

/* Several events: two sample types each, a sample's values in its
 * event's columns (a stack sampled by both has both), the first event's
 * period. */
static void test_several_events(void **state)
{
	struct prof_event clk = {.name = "cpu-clock",
				 .type = 1,
				 .period = 1000,
				 .flags = PROF_EV_FREQ},
			  pf = {.name = "page-faults", .type = 1, .period = 1};
	uint64_t ips_a[1] = {0x1234}, ips_b[1] = {0x5678};
	Perftools__Profiles__Profile *prof;
	static const char *const want[8] = {
		"cpu-clock_samples",   "count", "cpu-clock",   "nanoseconds",
		"page-faults_samples", "count", "page-faults", "count"};
	uint32_t idx;
	char path[600];
	struct ctx c;
	size_t i, k;

	(void)state;
	profile_init(&c.p);
	assert_int_equal(profile_add_event(&c.p, &clk, &idx), 0);
	assert_int_equal(profile_add_event(&c.p, &pf, &idx), 0);
	open_ctx(&c);
	add_sample(&c.p, PID, 10, 1000000, ips_a, 0, 1); /* cpu-clock */
	add_sample(&c.p, PID, 11, 1000000, ips_a, 0, 1);
	add_sample(&c.p, PID, 12, 3, ips_a, 0, 1); /* page-faults */
	add_sample(&c.p, PID, 13, 5, ips_b, 0, 1);
	c.p.samples[2].event = c.p.samples[3].event = 1;
	snprintf(path, sizeof(path), "%s/events.pb.gz", tmpdir);
	assert_int_equal(write_file(&c, path), 0);
	prof = read_file(path);
	assert_int_equal(prof->n_sample_type, 4);
	for (i = 0; i < 4; i++) {
		assert_string_equal(S(prof, prof->sample_type[i]->type), want[2 * i]);
		assert_string_equal(S(prof, prof->sample_type[i]->unit), want[2 * i + 1]);
	}
	assert_string_equal(S(prof, prof->period_type->type), "cpu-clock");
	assert_int_equal(prof->period, 1000000); /* 1e9 / 1000 Hz */
	assert_string_equal(S(prof, prof->default_sample_type), "cpu-clock");
	assert_int_equal(prof->n_sample, 2);
	for (i = 0; i < prof->n_sample; i++) {
		const Perftools__Profiles__Sample *sm = prof->sample[i];
		int is_a = loc_by_id(prof, sm->location_id[0])->address == 0x1234;
		static const int64_t a[4] = {2, 2000000, 1, 3}, b[4] = {0, 0, 1, 5};

		assert_int_equal(sm->n_value, 4);
		for (k = 0; k < 4; k++)
			assert_int_equal(sm->value[k], is_a ? a[k] : b[k]);
	}
	perftools__profiles__profile__free_unpacked(prof, NULL);
	close_ctx(&c);
}

static void test_empty_and_errors(void **state)
{
	Perftools__Profiles__Profile *prof;
	char path[600];
	struct ctx c;
	int fd;

	profile_init(&c.p);
	open_ctx(&c);
	snprintf(path, sizeof(path), "%s/empty.pb.gz", tmpdir);
	assert_int_equal(write_file(&c, path), 0);
	prof = read_file(path);
	assert_int_equal(prof->n_sample, 0);
	assert_string_equal(prof->string_table[0], "");
	assert_int_equal(prof->n_sample_type, 2);
	perftools__profiles__profile__free_unpacked(prof, NULL);
	/* write errors come back */
	assert_int_equal(pprof_write(&(struct rstacks){&c.p, c.pt, &c.ft}, NULL, -1), -EBADF);
	fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		assert_int_equal(pprof_write(&(struct rstacks){&c.p, c.pt, &c.ft}, NULL, fd), -ENOSPC);
		close(fd);
	}
	close_ctx(&c);
}

/* The same file read by another implementation: pprof-format under node. */
static void test_independent_decoder(void **state)
{
	char path[600], out[700], cmd[2048], line[4096];
	uint64_t inl, a[3], b[2];
	struct ctx c;
	int ret, seen = 0;
	FILE *f;

	if (access(DECODER, X_OK)) {
		fail_msg("%s not found: run the unit tests from the top of the source tree", DECODER);
		return;
	}
	make_profile(&c, &inl);
	a[0] = BASE + off_alpha + 2, a[1] = BASE + off_beta + 1, a[2] = BASE + off_main + 1;
	b[0] = 0xffffffff81001010ull, b[1] = inl;
	add_sample(&c.p, PID, 10, 1000000, a, 0, 3);
	add_sample(&c.p, PID, 11, 1000000, a, 0, 3);
	add_sample(&c.p, PID + 1, 20, 2000000, b, 1, 1);
	snprintf(path, sizeof(path), "%s/indep.pb.gz", tmpdir);
	snprintf(out, sizeof(out), "%s/indep.txt", tmpdir);
	assert_int_equal(write_file(&c, path), 0);
	close_ctx(&c);

	snprintf(cmd, sizeof(cmd), "%s %s > %s", DECODER, path, out);
	ret = system(cmd);
	if (WIFEXITED(ret) && WEXITSTATUS(ret) == 2)
		fail_msg("the independent pprof decoder cannot run (node/npm: see above)");
	assert_int_equal(ret, 0);
	f = fopen(out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "sample_type samples/count cpu/nanoseconds") ||
		    !strcmp(line, "samples 2") || !strcmp(line, "value[0] 3") ||
		    !strcmp(line, "value[1] 4000000") || !strcmp(line, "period 1000000") ||
		    !strcmp(line, "function zt_kfunc -") ||
		    !strcmp(line, "stack pid=42 tid=42 thread=zt-prog 2 2000000 "
				  "main;zt_pp_beta;zt_pp_alpha") ||
		    !strcmp(line, "stack pid=42 tid=43 thread=work?? 1 2000000 "
				  "zt_pp_outer;zt_pp_inl;zt_kfunc") ||
		    !strcmp(line, "mapping [kernel.kallsyms] "
				  "112233445566778899aabbccddeeff0001020304 F"))
			seen++;
		else if (!strncmp(line, "mapping /", 9))
			assert_non_null(strstr(line, " Ffli"));
		else if (!strncmp(line, "function zt_pp_inl ", 19))
			assert_non_null(strstr(line, "/prog.c"));
	}
	fclose(f);
	if (seen != 9)
		run("cat %s >&2", out);
	assert_int_equal(seen, 9);
}

/* A GPU sample: the one of values v2 (PC samples) and v3 (GPU ns), else NULL. */
static const Perftools__Profiles__Sample *gpu_sample(const Perftools__Profiles__Profile *prof,
						     int64_t v2, int64_t v3)
{
	size_t i;

	for (i = 0; i < prof->n_sample; i++)
		if (prof->sample[i]->value[2] == v2 && prof->sample[i]->value[3] == v3)
			return prof->sample[i];
	return NULL;
}

static const char *shown(void *ctx, uint32_t id)
{
	(void)ctx;
	(void)id;
	return "kern(float*)";
}

/*
 * GPU sample types: two launch stacks of one kernel with 300 and 100 ns
 * of GPU time; 8 PC samples without a correlation id (continuous mode)
 * go 6 and 2 to them, 5 with one (serialized) to that launch alone.
 */
static void test_gpu_samples(void **state)
{
	Perftools__Profiles__Profile *prof;
	const Perftools__Profiles__Sample *s;
	const Perftools__Profiles__Location *l;
	struct pprof_gpu pg;
	struct gpu_view gv;
	struct gpu_frametab gft;
	struct prof_gpu *g;
	uint64_t inl, a[3], b[2];
	uint32_t kname, sa, sb;
	char path[600];
	struct ctx c;
	size_t i;
	int64_t sum[4] = {0};

	(void)state;
	make_profile(&c, &inl);
	a[0] = BASE + off_alpha + 2, a[1] = BASE + off_beta + 1, a[2] = BASE + off_main + 1;
	b[0] = BASE + off_beta + 1, b[1] = BASE + off_main + 1;
	add_sample(&c.p, PID, 10, 1000000, a, 0, 3);
	assert_int_equal(profile_intern_stack(&c.p, a, 0, 3, &sa), 0);
	assert_int_equal(profile_intern_stack(&c.p, b, 0, 2, &sb), 0);
	g = c.p.gpu = prof_gpu_new();
	assert_non_null(g);
	assert_int_equal(prof_gpu_intern(g, "_Z4kernPf", 9, &kname), 0);
	{
		struct prof_gpu_kernel k = {.start = 1000,
					    .end = 1300,
					    .pid = PID,
					    .corr = 1,
					    .stream = 7,
					    .name = kname};
		struct prof_gpu_launch la = {.ts = 900,
					     .pid = PID,
					     .tid = PID,
					     .corr = 1,
					     .flags = PROF_GPU_L_STACK,
					     .stack = sa};
		struct prof_gpu_launch lb = {.ts = 950,
					     .pid = PID,
					     .tid = PID + 1,
					     .corr = 2,
					     .flags = PROF_GPU_L_STACK,
					     .stack = sb};
		struct prof_gpu_pcs pc = {.cubin_crc = 0xc0,
					  .pc_offset = 0x40,
					  .samples = 8,
					  .pid = PID,
					  .stall = 3,
					  .function = kname};
		struct prof_gpu_stall st = {.pid = PID, .index = 3};

		assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
		k.start = 1400, k.end = 1500, k.corr = 2;
		assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
		assert_int_equal(prof_gpu_add_launch(g, &la), 0);
		assert_int_equal(prof_gpu_add_launch(g, &lb), 0);
		assert_int_equal(prof_gpu_add_pcs(g, &pc), 0);
		pc.pc_offset = 0x50, pc.samples = 5, pc.corr = 2;
		assert_int_equal(prof_gpu_add_pcs(g, &pc), 0);
		assert_int_equal(prof_gpu_intern(g, "long_scoreboard", 15, &st.name), 0);
		assert_int_equal(prof_gpu_add_stall(g, &st), 0);
	}
	assert_int_equal(gpu_view_init(&gv, g), 0);
	assert_int_equal(gv.nr_pcs, 2);
	/* each bucket: dev_fn (inlined, k.cu:7) in kern (k.cu:12) */
	gpu_frametab_init(&gft);
	assert_int_equal(gpu_frametab_set_pcs(&gft, gv.nr_pcs), 0);
	for (i = 0; i < gv.nr_pcs; i++) {
		struct gpu_frame f1 = {.func = gpu_frametab_str(&gft, "dev_fn"),
				       .file = gpu_frametab_str(&gft, "k.cu"),
				       .line = 7,
				       .inlined = 1,
				       .quality = ZT_FRAME_FULL};
		struct gpu_frame f2 = {.func = gpu_frametab_str(&gft, "kern(float*)"),
				       .file = f1.file,
				       .line = 12,
				       .quality = ZT_FRAME_FULL};

		gft.pcs[i].first = (uint32_t)gft.nr_frames, gft.pcs[i].n = 2;
		assert_int_equal(gpu_frametab_push(&gft, &f1), 0);
		assert_int_equal(gpu_frametab_push(&gft, &f2), 0);
	}
	pg = (struct pprof_gpu){.gv = &gv, .gft = &gft, .gpu_name = shown};
	snprintf(path, sizeof(path), "%s/gpu.pb.gz", tmpdir);
	{
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		assert_true(fd >= 0);
		assert_int_equal(pprof_write(&(struct rstacks){&c.p, c.pt, &c.ft}, &pg, fd), 0);
		assert_int_equal(close(fd), 0);
	}
	prof = read_file(path);
	assert_int_equal(prof->n_sample_type, 4);
	assert_string_equal(S(prof, prof->sample_type[2]->type), "gpu_samples");
	assert_string_equal(S(prof, prof->sample_type[2]->unit), "count");
	assert_string_equal(S(prof, prof->sample_type[3]->type), "gpu_time");
	assert_string_equal(S(prof, prof->sample_type[3]->unit), "nanoseconds");
	assert_string_equal(S(prof, prof->default_sample_type), "cpu");
	for (i = 0; i < prof->n_sample; i++) {
		size_t j;

		assert_int_equal(prof->sample[i]->n_value, 4);
		for (j = 0; j < 4; j++)
			sum[j] += prof->sample[i]->value[j];
	}
	assert_int_equal(sum[0], 1);
	assert_int_equal(sum[2], 13);
	assert_int_equal(sum[3], 400);
	/* a CPU sample: zeros for the GPU types */
	s = find_sample(prof, PID, "zt_pp_alpha");
	assert_int_equal(s->value[0], 1);
	assert_int_equal(s->value[2], 0);
	assert_int_equal(s->value[3], 0);
	/* continuous: 8 split 6/2 by GPU time (300/100 ns) */
	s = gpu_sample(prof, 6, 0);
	assert_non_null(s);
	assert_int_equal(s->n_location_id, 4); /* the inline chain, then the 3 frames of a */
	l = loc_by_id(prof, s->location_id[0]);
	assert_int_equal(l->mapping_id, 0);
	assert_int_equal(l->address, 0x40);
	assert_int_equal(l->n_line, 2);
	assert_string_equal(fname(prof, l->id, 0), "dev_fn");
	assert_int_equal(l->line[0]->line, 7);
	assert_string_equal(fname(prof, l->id, 1), "kern(float*)");
	assert_string_equal(fname(prof, s->location_id[1], 0), "zt_pp_alpha");
	assert_string_equal(fname(prof, s->location_id[3], 0), "main");
	assert_string_equal(label_str(prof, s, "stall"), "long_scoreboard");
	assert_string_equal(label_str(prof, s, "thread"), "zt-prog");
	s = gpu_sample(prof, 2, 0);
	assert_non_null(s);
	assert_int_equal(s->n_location_id, 3);
	assert_string_equal(fname(prof, s->location_id[1], 0), "zt_pp_beta");
	/* serialized: all 5 under launch b, on its thread */
	s = gpu_sample(prof, 5, 0);
	assert_non_null(s);
	assert_int_equal(loc_by_id(prof, s->location_id[0])->address, 0x50);
	assert_string_equal(fname(prof, s->location_id[1], 0), "zt_pp_beta");
	assert_string_equal(label_str(prof, s, "thread"), "work??");
	/* kernel time: the kernel's shown name over its launch stack */
	s = gpu_sample(prof, 0, 300);
	assert_non_null(s);
	assert_int_equal(s->n_location_id, 4);
	assert_string_equal(fname(prof, s->location_id[0], 0), "kern(float*)");
	assert_string_equal(fname(prof, s->location_id[1], 0), "zt_pp_alpha");
	assert_null(label_str(prof, s, "stall"));
	assert_non_null(gpu_sample(prof, 0, 100));
	perftools__profiles__profile__free_unpacked(prof, NULL);
	gpu_frametab_release(&gft);
	gpu_view_release(&gv);
	close_ctx(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_and_unpack),
		cmocka_unit_test(test_other_event_and_unknown),
		cmocka_unit_test(test_several_events),
		cmocka_unit_test(test_empty_and_errors),
		cmocka_unit_test(test_independent_decoder),
		cmocka_unit_test(test_gpu_samples),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
