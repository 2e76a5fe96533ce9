/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jitdump: files built record by record in both byte orders; the header,
 * loads replacing code over time, debug line entries ("\xff" = same file),
 * moves, unknown/bad/partial records, every truncation of a valid file.
 * With ZT_JITDUMP_CORPUS=DIR it also writes the fuzz seed corpus there.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libprof/zbuf.h"
#include "symbolizer/jitdump.h"

/* ---- a jitdump writer ---- */

struct w {
	struct zbuf b;
	int be; /* write big-endian (the byte-swapped case on x86) */
	size_t rec; /* offset of the open record */
};

static void put(struct w *w, uint64_t v, int bytes)
{
	uint8_t o[8];
	int i;

	for (i = 0; i < bytes; i++)
		o[w->be ? bytes - 1 - i : i] = (uint8_t)(v >> (8 * i));
	zbuf_put(&w->b, o, (size_t)bytes);
}

static void put32(struct w *w, uint32_t v) { put(w, v, 4); }
static void put64(struct w *w, uint64_t v) { put(w, v, 8); }

static void w_init(struct w *w, int be, uint64_t flags, uint32_t extra_header)
{
	memset(w, 0, sizeof(*w));
	zbuf_init(&w->b);
	w->be = be;
	put32(w, JITDUMP_MAGIC);
	put32(w, 1);
	put32(w, 40 + extra_header);
	put32(w, 62); /* EM_X86_64 */
	put32(w, 0);
	put32(w, 4242);
	put64(w, 1000);
	put64(w, flags);
	while (extra_header--)
		zbuf_put_u8(&w->b, 0xee);
}

static void rec_begin(struct w *w, uint32_t id, uint64_t ts)
{
	w->rec = w->b.len;
	put32(w, id);
	put32(w, 0); /* size, patched by rec_end */
	put64(w, ts);
}

static void rec_end(struct w *w)
{
	uint32_t n = (uint32_t)(w->b.len - w->rec);
	uint8_t o[4];
	int i;

	for (i = 0; i < 4; i++)
		o[w->be ? 3 - i : i] = (uint8_t)(n >> (8 * i));
	memcpy(w->b.data + w->rec + 4, o, 4);
}

static void load(struct w *w, uint64_t ts, uint64_t addr, uint64_t size, uint64_t idx,
		 const char *name)
{
	uint64_t i;

	rec_begin(w, JIT_CODE_LOAD, ts);
	put32(w, 4242);
	put32(w, 4243);
	put64(w, addr); /* vma */
	put64(w, addr);
	put64(w, size);
	put64(w, idx);
	zbuf_put(&w->b, name, strlen(name) + 1);
	for (i = 0; i < size; i++)
		zbuf_put_u8(&w->b, 0xc3);
	rec_end(w);
}

static void move(struct w *w, uint64_t ts, uint64_t from, uint64_t to, uint64_t size, uint64_t idx)
{
	rec_begin(w, JIT_CODE_MOVE, ts);
	put32(w, 4242);
	put32(w, 4243);
	put64(w, to);
	put64(w, from);
	put64(w, to);
	put64(w, size);
	put64(w, idx);
	rec_end(w);
}

struct ent {
	uint64_t addr;
	int line;
	const char *file; /* "\xff": same as before */
};

static void debug_info(struct w *w, uint64_t ts, uint64_t code, const struct ent *e, size_t n)
{
	size_t i;

	rec_begin(w, JIT_CODE_DEBUG_INFO, ts);
	put64(w, code);
	put64(w, n);
	for (i = 0; i < n; i++) {
		put64(w, e[i].addr);
		put32(w, (uint32_t)e[i].line);
		put32(w, 0);
		zbuf_put(&w->b, e[i].file, strlen(e[i].file) + 1);
	}
	/* padding to 8, as the JVMTI agent writes it: ignored thanks to nr_entry */
	while ((w->b.len - w->rec) % 8)
		zbuf_put_u8(&w->b, 0);
	rec_end(w);
}

static void unwinding(struct w *w, uint64_t ts)
{
	rec_begin(w, JIT_CODE_UNWINDING_INFO, ts);
	put64(w, 16);
	put64(w, 8);
	put64(w, 16);
	put64(w, 0);
	put64(w, 0);
	rec_end(w);
}

static void simple(struct w *w, uint32_t id, uint64_t ts)
{
	rec_begin(w, id, ts);
	rec_end(w);
}

static const struct ent ents[] = {
	{ 0x2008, 10, "a.js" },
	{ 0x2040, 11, "\xff" },
	{ 0x2080, 20, "b.js" },
};
static const struct ent mover_ent[] = { { 0x3008, 10, "a.js" } };

/* The reference file: replaced code, debug lines, a move, the other records. */
static void build_main(struct w *w, int be)
{
	w_init(w, be, 0, 0);
	load(w, 100, 0x1000, 0x100, 1, "foo");
	load(w, 200, 0x1000, 0x80, 2, "bar");
	debug_info(w, 250, 0x2000, ents, 3);
	load(w, 260, 0x2000, 0x100, 3, "withlines");
	unwinding(w, 270);
	debug_info(w, 290, 0x3000, mover_ent, 1);
	load(w, 300, 0x3000, 0x40, 7, "mover");
	move(w, 400, 0x3000, 0x5000, 0x40, 7);
	simple(w, 99, 450); /* unknown type */
	simple(w, JIT_CODE_CLOSE, 500);
	assert_int_equal(w->b.err, 0);
}

static const char *name_at(const struct jitdump *j, uint64_t addr, uint64_t ts)
{
	const struct jitdump_region *r = jitdump_lookup(j, addr, ts, NULL);

	return r ? r->name : NULL;
}

static void check_main(const struct jitdump *j, int swapped)
{
	const struct jitdump_header *h = jitdump_header(j);
	const struct jitdump_region *r;
	const struct jitdump_line *l;
	struct jitdump_stats st;

	assert_int_equal(h->version, 1);
	assert_int_equal(h->elf_mach, 62);
	assert_int_equal(h->pid, 4242);
	assert_int_equal(h->timestamp, 1000);
	assert_int_equal(h->flags, 0);
	assert_int_equal(h->swapped, swapped);
	jitdump_stats(j, &st);
	assert_int_equal(st.records, 10);
	assert_int_equal(st.bad_records, 0);
	assert_int_equal(st.unknown, 1);
	assert_int_equal(st.truncated, 0);
	assert_int_equal(st.closed, 1);
	assert_int_equal(jitdump_count(j), 5);

	/* code replaced over time: the latest load at or before ts */
	assert_null(name_at(j, 0x1010, 50));
	assert_string_equal(name_at(j, 0x1010, 100), "foo");
	assert_string_equal(name_at(j, 0x1010, 199), "foo");
	assert_string_equal(name_at(j, 0x1010, 200), "bar");
	assert_string_equal(name_at(j, 0x1010, UINT64_MAX), "bar");
	assert_string_equal(name_at(j, 0x1090, 250), "foo"); /* bar is shorter */
	assert_string_equal(name_at(j, 0x10ff, UINT64_MAX), "foo");
	assert_null(name_at(j, 0x1100, UINT64_MAX));
	assert_null(name_at(j, 0xfff, UINT64_MAX));
	r = jitdump_lookup(j, 0x1000, 150, NULL);
	assert_non_null(r);
	assert_int_equal(r->start, 0x1000);
	assert_int_equal(r->size, 0x100);
	assert_int_equal(r->ts, 100);
	assert_int_equal(r->code_index, 1);
	assert_int_equal(r->pid, 4242);
	assert_int_equal(r->tid, 4243);
	assert_int_equal(r->nr_lines, 0);

	/* debug lines, "\xff" meaning the previous file */
	r = jitdump_lookup(j, 0x2000, UINT64_MAX, &l);
	assert_non_null(r);
	assert_string_equal(r->name, "withlines");
	assert_int_equal(r->nr_lines, 3);
	assert_null(l); /* before the first entry */
	jitdump_lookup(j, 0x2010, UINT64_MAX, &l);
	assert_non_null(l);
	assert_int_equal(l->line, 10);
	assert_string_equal(l->file, "a.js");
	jitdump_lookup(j, 0x2040, UINT64_MAX, &l);
	assert_int_equal(l->line, 11);
	assert_string_equal(l->file, "a.js");
	jitdump_lookup(j, 0x20ff, UINT64_MAX, &l);
	assert_int_equal(l->line, 20);
	assert_string_equal(l->file, "b.js");
	l = jitdump_region_line(r, 0x207f);
	assert_int_equal(l->line, 11);

	/* a move: the old place ends, the new one carries name and lines */
	assert_string_equal(name_at(j, 0x3010, 300), "mover");
	assert_string_equal(name_at(j, 0x3010, 399), "mover");
	assert_null(name_at(j, 0x3010, 400));
	assert_null(name_at(j, 0x3010, UINT64_MAX));
	assert_null(name_at(j, 0x5010, 399));
	r = jitdump_lookup(j, 0x5010, 400, &l);
	assert_non_null(r);
	assert_string_equal(r->name, "mover");
	assert_true(r->moved);
	assert_int_equal(r->code_index, 7);
	assert_int_equal(r->nr_lines, 1);
	assert_non_null(l);
	assert_int_equal(l->addr, 0x5008);
	assert_int_equal(l->line, 10);
	assert_non_null(jitdump_lookup(j, 0x503f, UINT64_MAX, NULL));
	assert_null(jitdump_lookup(j, 0x5040, UINT64_MAX, NULL));
	r = jitdump_region(j, 3);
	assert_int_equal(r->start, 0x3000);
	assert_int_equal(r->end_ts, 400);
	assert_null(jitdump_region(j, 5));
}

static void test_main_file(void **state)
{
	struct jitdump *j;
	struct w w;

	build_main(&w, 0);
	assert_int_equal(jitdump_parse(w.b.data, w.b.len, &j), 0);
	check_main(j, 0);
	jitdump_free(j);
	zbuf_release(&w.b);
}

static void test_swapped(void **state)
{
	struct jitdump *j;
	struct w w;

	build_main(&w, 1);
	assert_memory_equal(w.b.data, "JiTD", 4); /* big-endian magic reads "JiTD" */
	assert_int_equal(jitdump_parse(w.b.data, w.b.len, &j), 0);
	check_main(j, 1);
	jitdump_free(j);
	zbuf_release(&w.b);
}

static void test_header(void **state)
{
	struct jitdump *j = (struct jitdump *)1;
	struct jitdump_stats st;
	struct w w;

	/* a longer header than we know: its extra bytes are skipped */
	w_init(&w, 0, JITDUMP_FLAGS_ARCH_TIMESTAMP, 24);
	load(&w, 5, 0x100, 0x10, 1, "f");
	assert_int_equal(jitdump_parse(w.b.data, w.b.len, &j), 0);
	assert_int_equal(jitdump_header(j)->flags, JITDUMP_FLAGS_ARCH_TIMESTAMP);
	assert_string_equal(name_at(j, 0x100, 5), "f");
	jitdump_stats(j, &st);
	assert_int_equal(st.records, 1);
	jitdump_free(j);
	/* header size beyond the file, below 40, bad magic, too short */
	assert_int_equal(jitdump_parse(w.b.data, 60, &j), -EBADMSG);
	assert_null(j);
	w.b.data[8] = 39;
	assert_int_equal(jitdump_parse(w.b.data, w.b.len, &j), -EBADMSG);
	w.b.data[8] = 64;
	w.b.data[0] ^= 1;
	assert_int_equal(jitdump_parse(w.b.data, w.b.len, &j), -EBADMSG);
	w.b.data[0] ^= 1;
	assert_int_equal(jitdump_parse(w.b.data, 39, &j), -EBADMSG);
	zbuf_release(&w.b);
	/* flags perf does not know */
	w_init(&w, 0, 2, 0);
	assert_int_equal(jitdump_parse(w.b.data, w.b.len, &j), -ENOTSUP);
	zbuf_release(&w.b);
	/* header only: fine, nothing in it */
	w_init(&w, 0, 0, 0);
	assert_int_equal(jitdump_parse(w.b.data, w.b.len, &j), 0);
	assert_int_equal(jitdump_count(j), 0);
	assert_null(jitdump_lookup(j, 0, UINT64_MAX, NULL));
	jitdump_free(j);
	zbuf_release(&w.b);
	jitdump_free(NULL);
}

static void test_bad_records(void **state)
{
	struct jitdump_stats st;
	struct jitdump *j;
	struct w w;
	size_t at;

	w_init(&w, 0, 0, 0);
	load(&w, 1, 0x100, 0x10, 1, "ok1");
	/* code_size larger than the record */
	at = w.b.len;
	load(&w, 2, 0x200, 0x10, 2, "bad");
	w.b.data[at + 16 + 24] = 0xff;
	/* debug info claiming more entries than fit, then a load that must not get them */
	at = w.b.len;
	debug_info(&w, 3, 0x300, ents, 3);
	w.b.data[at + 16 + 8] = 200;
	load(&w, 4, 0x300, 0x10, 3, "nolines");
	/* a load whose name has no NUL before the code: cut at the code */
	rec_begin(&w, JIT_CODE_LOAD, 5);
	put32(&w, 1);
	put32(&w, 1);
	put64(&w, 0x400);
	put64(&w, 0x400);
	put64(&w, 2);
	put64(&w, 4);
	zbuf_put(&w.b, "abc", 3);
	zbuf_put(&w.b, "\xc3\xc3", 2);
	rec_end(&w);
	/* records too short for their type */
	simple(&w, JIT_CODE_LOAD, 6);
	simple(&w, JIT_CODE_MOVE, 6);
	simple(&w, JIT_CODE_DEBUG_INFO, 6);
	simple(&w, JIT_CODE_UNWINDING_INFO, 6);
	/* a move of code never loaded */
	move(&w, 7, 0x9000, 0xa000, 0x10, 99);
	load(&w, 8, 0x500, 0x10, 5, "ok2");
	/* finally a size below the prefix: parsing stops */
	rec_begin(&w, JIT_CODE_LOAD, 9);
	rec_end(&w);
	w.b.data[w.b.len - 16 + 4] = 8;
	load(&w, 10, 0x600, 0x10, 6, "unreached");
	assert_int_equal(jitdump_parse(w.b.data, w.b.len, &j), 0);
	jitdump_stats(j, &st);
	assert_int_equal(st.bad_records, 6);
	assert_int_equal(st.truncated, 1);
	assert_string_equal(name_at(j, 0x100, 10), "ok1");
	assert_null(name_at(j, 0x200, 10));
	assert_string_equal(name_at(j, 0x300, 10), "nolines");
	assert_int_equal(jitdump_lookup(j, 0x300, 10, NULL)->nr_lines, 0);
	assert_string_equal(name_at(j, 0x401, 10), "abc");
	assert_string_equal(name_at(j, 0xa000, 10), "");
	assert_string_equal(name_at(j, 0x500, 10), "ok2");
	assert_null(name_at(j, 0x600, 10));
	jitdump_free(j);
	zbuf_release(&w.b);
}

static void test_truncations(void **state)
{
	struct jitdump_stats st;
	struct jitdump *j;
	size_t n, last = 0;
	struct w w;

	build_main(&w, 0);
	for (n = 40; n <= w.b.len; n++) {
		/* a copy of exactly n bytes, so ASan sees any overread */
		uint8_t *c = malloc(n);

		memcpy(c, w.b.data, n);
		assert_int_equal(jitdump_parse(c, n, &j), 0);
		jitdump_stats(j, &st);
		assert_true(jitdump_count(j) >= last);
		last = jitdump_count(j);
		if (n == w.b.len)
			assert_int_equal(st.truncated, 0);
		jitdump_free(j);
		free(c);
	}
	assert_int_equal(last, 5);
	zbuf_release(&w.b);
}

static void test_open(void **state)
{
	char path[] = "/tmp/zt-test-jitdump.XXXXXX";
	struct jitdump *j;
	struct w w;
	int fd;

	build_main(&w, 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, w.b.data, w.b.len), (ssize_t)w.b.len);
	close(fd);
	assert_int_equal(jitdump_open(path, &j), 0);
	unlink(path);
	check_main(j, 0);
	jitdump_free(j);
	assert_int_equal(jitdump_open(path, &j), -ENOENT);
	zbuf_release(&w.b);
}

/* ZT_JITDUMP_CORPUS=DIR: write the fuzz seeds (each < 4 KiB) */
static void write_seed(const char *dir, const char *name, const struct w *w)
{
	char path[1024];
	FILE *f;

	assert_true(w->b.len < 4096);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(w->b.data, 1, w->b.len, f), w->b.len);
	fclose(f);
}

static void write_corpus(void **state)
{
	const char *dir = getenv("ZT_JITDUMP_CORPUS");
	struct w w;

	build_main(&w, 0);
	write_seed(dir, "main-le.dump", &w);
	zbuf_release(&w.b);
	build_main(&w, 1);
	write_seed(dir, "main-be.dump", &w);
	zbuf_release(&w.b);
	w_init(&w, 0, JITDUMP_FLAGS_ARCH_TIMESTAMP, 8);
	load(&w, 1, 0x7f0000001000, 0x20, 1, "LazyCompile:~main /app/x.js:1");
	load(&w, 2, 0x7f0000001010, 0x20, 2, "LazyCompile:*main /app/x.js:1");
	debug_info(&w, 3, 0x7f0000002000, ents, 3);
	load(&w, 3, 0x7f0000002000, 0x100, 3, "Interpreted:foo");
	move(&w, 4, 0x7f0000002000, 0x7f0000003000, 0x100, 3);
	move(&w, 5, 0x7f0000003000, 0x7f0000002000, 0x100, 3);
	write_seed(dir, "moves.dump", &w);
	zbuf_release(&w.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_main_file),
		cmocka_unit_test(test_swapped),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_open),
	};
	const struct CMUnitTest corpus[] = { cmocka_unit_test(write_corpus) };

	if (getenv("ZT_JITDUMP_CORPUS"))
		return cmocka_run_group_tests(corpus, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
