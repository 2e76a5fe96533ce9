// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for symbolizer/cficache: unwind tables of real binaries through
 * the cache format and back, lookup for lookup the same; the segments
 * against readelf; the cache files, and what a planted link or FIFO does;
 * every corruption and truncation of a small table refused.
 *
 * ZT_CFICACHE_SEEDS=DIR writes the fuzz target's seed corpus to DIR. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <gelf.h>

#include "libprof/hash.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/cficache.h"
#include "symbolizer/cfitab.h"
#include "testutil.h"

#ifndef LIBC_PATH
#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"
#endif

#define HDR_LEN 40

static char tmpdir[] = "/tmp/zt-cficache.XXXXXX";

static const struct prof_build_id bid = {
	20, {0xcf, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}};

/* ---- helpers ---- */

struct img {
	int fd;
	Elf *elf;
};

static void img_open(struct img *m, const char *path)
{
	elf_version(EV_CURRENT);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(m->fd >= 0);
	m->elf = elf_begin(m->fd, ELF_C_READ, NULL);
	assert_non_null(m->elf);
}

static void img_close(struct img *m)
{
	elf_end(m->elf);
	close(m->fd);
}

/* path's table in pages, and its code segments. */
static void build(const char *path, struct cfitab *t, struct cfipages *p, struct cfi_seg *segs,
		  unsigned *nr_segs)
{
	struct img m;
	int n;

	img_open(&m, path);
	cfitab_init(t);
	cfipages_init(p);
	assert_int_equal(cfitab_build(m.elf, t), 0);
	assert_int_equal(cfipages_build(t, p), 0);
	n = cficache_segs(m.elf, segs, CFICACHE_MAX_SEGS);
	assert_true(n >= 1);
	*nr_segs = (unsigned)n;
	img_close(&m);
}

static void assert_empty(const struct cfipages *p)
{
	assert_int_equal(p->nr_pages, 0);
	assert_int_equal(p->nr_entries, 0);
	assert_int_equal(p->nr_rules, 0);
	assert_null(p->pages);
	assert_null(p->entries);
	assert_null(p->rules);
}

/* The same rule (or none) from both tables. */
static void same_lookup(const struct cfipages *a, const struct cfipages *b, uint64_t addr)
{
	const struct cfipage_rule *x = cfipages_lookup(a, addr), *y = cfipages_lookup(b, addr);

	if (!x || !y) {
		assert_true(!x && !y);
		return;
	}
	assert_memory_equal(x, y, sizeof(*x));
}

/* b is a, array for array, and looks up the same everywhere near t's rows
 * and across its range. */
static void same_tables(const struct cfitab *t, const struct cfipages *a, const struct cfipages *b)
{
	uint64_t lo, hi, step, addr;
	size_t i;

	assert_int_equal(a->nr_pages, b->nr_pages);
	assert_int_equal(a->nr_entries, b->nr_entries);
	assert_int_equal(a->nr_rules, b->nr_rules);
	if (a->nr_pages)
		assert_memory_equal(a->pages, b->pages, a->nr_pages * sizeof(*a->pages));
	if (a->nr_entries)
		assert_memory_equal(a->entries, b->entries, a->nr_entries * sizeof(*a->entries));
	if (a->nr_rules)
		assert_memory_equal(a->rules, b->rules, a->nr_rules * sizeof(*a->rules));
	for (i = 0; t && i < t->nr; i++) {
		same_lookup(a, b, t->rows[i].addr);
		same_lookup(a, b, t->rows[i].addr - 1);
		same_lookup(a, b, t->rows[i].addr + 1);
	}
	lo = t && t->nr ? t->rows[0].addr : 0;
	hi = t && t->nr ? t->rows[t->nr - 1].addr + 0x20000 : 0x100000;
	step = (hi - lo) / 100000 + 1;
	for (addr = lo > 0x20000 ? lo - 0x20000 : 0; addr < hi; addr += step)
		same_lookup(a, b, addr);
	same_lookup(a, b, 0);
	same_lookup(a, b, UINT64_MAX);
}

/* The checksum of an image, as cficache.h defines it (header fields
 * patched by a test are then covered again). */
static void fix_checksum(uint8_t *d, size_t len)
{
	uint64_t h = zt_hash_pair(zt_hash_bytes(d, 32), zt_hash_bytes(d + HDR_LEN, len - HDR_LEN));

	for (int i = 0; i < 8; i++)
		d[32 + i] = (uint8_t)(h >> (8 * i));
}

/* A small table by hand: three pages (one of them two pages after the
 * first), four rules, nine entries, two segments. */
static void small_table(struct cfipages *p, struct cfi_seg *segs, unsigned *nr_segs)
{
	static const struct cfipage_rule rules[] = {
		{0, 0, CFITAB_NONE, 0, 0, 0, 0},
		{8, 0, CFITAB_CFA, CFITAB_REG_SP, CFITAB_FP_SAME, CFITAB_FP_SAME, 0},
		{16, -16, CFITAB_CFA, CFITAB_REG_SP, CFITAB_FP_AT, CFITAB_FP_AT, -24},
		{16, -16, CFITAB_CFA, CFITAB_REG_BX, CFITAB_FP_AT, CFITAB_FP_UNDEF, 0},
	};
	static const struct cfipage pages[] = {
		{0x40, 0, 4},
		{0x41, 4, 2},
		{0x43, 6, 3},
	};
	static const struct cfipage_entry entries[] = {
		{0, 0}, {0x1000, 1}, {0x1001, 2}, {0x1004, 3}, /* page 0x40 */
		{0, 3}, {0x80, 0},			       /* 0x41 */
		{0, 0}, {0x10, 1},   {0xfff0, 2},	       /* 0x43 */
	};

	cfipages_init(p);
	p->rules = malloc(sizeof(rules));
	p->pages = malloc(sizeof(pages));
	p->entries = malloc(sizeof(entries));
	assert_true(p->rules && p->pages && p->entries);
	memcpy(p->rules, rules, sizeof(rules));
	memcpy(p->pages, pages, sizeof(pages));
	memcpy(p->entries, entries, sizeof(entries));
	p->nr_rules = p->cap_rules = 4;
	p->nr_pages = p->cap_pages = 3;
	p->nr_entries = p->cap_entries = 9;
	segs[0] = (struct cfi_seg){0x1000, 0x401000, 0x3000};
	segs[1] = (struct cfi_seg){0x9000, 0x40a000, 0x100};
	*nr_segs = 2;
}

static void encode(const struct cfipages *p, const struct cfi_seg *segs, unsigned nr_segs,
		   uint8_t **d, size_t *len)
{
	void *v;

	assert_int_equal(cficache_encode(p, segs, nr_segs, &v, len), 0);
	*d = v;
}

/* decode must refuse d (len bytes) and leave p empty */
static void refused(const uint8_t *d, size_t len)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	struct cfipages p;
	unsigned ns = 99;

	cfipages_init(&p);
	assert_int_equal(cficache_decode(d, len, &p, segs, &ns), -EINVAL);
	assert_int_equal(ns, 0);
	assert_empty(&p);
	cfipages_release(&p);
}

/* the same, naming what was wrong when it is taken */
static void refused_what(const uint8_t *d, size_t len, const char *what)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	struct cfipages p;
	unsigned ns;
	int ret;

	cfipages_init(&p);
	ret = cficache_decode(d, len, &p, segs, &ns);
	cfipages_release(&p);
	if (ret != -EINVAL)
		fail_msg("%s: decode returned %d", what, ret);
	refused(d, len);
}

/* ---- round trips ---- */

static void roundtrip_file(const char *path)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS], segs2[CFICACHE_MAX_SEGS];
	struct cfipages p, q;
	struct cfitab t;
	unsigned ns, ns2;
	uint8_t *d, *d2;
	size_t len, len2;

	build(path, &t, &p, segs, &ns);
	assert_true(p.nr_pages > 0);
	encode(&p, segs, ns, &d, &len);
	assert_int_equal(len,
			 HDR_LEN + 24 * ns + 16 * p.nr_rules + 16 * p.nr_pages + 4 * p.nr_entries);
	cfipages_init(&q);
	assert_int_equal(cficache_decode(d, len, &q, segs2, &ns2), 0);
	assert_int_equal(ns2, ns);
	assert_memory_equal(segs, segs2, ns * sizeof(*segs));
	same_tables(&t, &p, &q);
	/* and encoded again, the same bytes */
	encode(&q, segs2, ns2, &d2, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(d, d2, len);
	/* decoding into a table that holds one already replaces it */
	assert_int_equal(cficache_decode(d, len, &q, segs2, &ns2), 0);
	same_tables(&t, &p, &q);
	free(d);
	free(d2);
	cfipages_release(&q);
	cfipages_release(&p);
	cfitab_release(&t);
}

static void test_roundtrip_libc(void **state)
{
	(void)state;
	roundtrip_file(LIBC_PATH);
}

static void test_roundtrip_self(void **state)
{
	(void)state;
	roundtrip_file("/proc/self/exe");
}

static void empty_roundtrip(const struct cfipages *p, const struct cfi_seg *segs, unsigned ns)
{
	struct cfi_seg segs2[CFICACHE_MAX_SEGS];
	struct cfipages q;
	unsigned ns2;
	uint8_t *d;
	size_t len;

	encode(p, segs, ns, &d, &len);
	assert_int_equal(len, HDR_LEN + 24 * ns + 16 * p->nr_rules);
	cfipages_init(&q);
	assert_int_equal(cficache_decode(d, len, &q, segs2, &ns2), 0);
	assert_int_equal(ns2, ns);
	if (ns)
		assert_memory_equal(segs, segs2, ns * sizeof(*segs));
	assert_int_equal(q.nr_pages, 0);
	assert_int_equal(q.nr_entries, 0);
	assert_int_equal(q.nr_rules, p->nr_rules);
	assert_null(cfipages_lookup(&q, 0));
	assert_null(cfipages_lookup(&q, 0x401000));
	assert_null(cfipages_lookup(&q, UINT64_MAX));
	free(d);
	cfipages_release(&q);
}

/* A file without CFI (nothing built), and the pages of an empty table (the
 * "no CFI" rule alone), with and without segments. */
static void test_empty(void **state)
{
	struct cfi_seg seg = {0x1000, 0x1000, 0x20};
	struct cfipages p;
	struct cfitab t;

	(void)state;
	cfipages_init(&p);
	empty_roundtrip(&p, NULL, 0);
	empty_roundtrip(&p, &seg, 1);
	cfitab_init(&t);
	assert_int_equal(cfipages_build(&t, &p), 0);
	assert_int_equal(p.nr_rules, 1);
	empty_roundtrip(&p, &seg, 1);
	empty_roundtrip(&p, NULL, 0);
	cfipages_release(&p);
}

/* The small table by hand, its lookups page by page. */
static void test_small(void **state)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS], segs2[CFICACHE_MAX_SEGS];
	struct cfipages p, q;
	unsigned ns, ns2;
	uint8_t *d;
	size_t len;

	(void)state;
	small_table(&p, segs, &ns);
	encode(&p, segs, ns, &d, &len);
	cfipages_init(&q);
	assert_int_equal(cficache_decode(d, len, &q, segs2, &ns2), 0);
	same_tables(NULL, &p, &q);
	assert_int_equal(cfipages_lookup(&q, 0x401000)->cfa_off, 8);
	assert_int_equal(cfipages_lookup(&q, 0x401003)->fp, CFITAB_FP_AT);
	assert_int_equal(cfipages_lookup(&q, 0x410000)->cfa_reg, CFITAB_REG_BX);
	assert_int_equal(cfipages_lookup(&q, 0x410000)->bx, CFITAB_FP_UNDEF);
	assert_int_equal(cfipages_lookup(&q, 0x401001)->bx, CFITAB_FP_AT);
	assert_int_equal(cfipages_lookup(&q, 0x401001)->bx_off, -24);
	assert_int_equal(cfipages_lookup(&q, 0x410080)->kind, CFITAB_NONE);
	assert_null(cfipages_lookup(&q, 0x420000));
	assert_int_equal(cfipages_lookup(&q, 0x43ffff)->fp_off, -16);
	free(d);
	cfipages_release(&q);
	cfipages_release(&p);
}

/* ---- segments ---- */

/* libc's executable segments, as readelf -lW lists them */
static void test_segs_libc(void **state)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS], want[CFICACHE_MAX_SEGS];
	unsigned nwant = 0;
	char cmd[512], line[512];
	struct img m;
	FILE *f;
	int n;

	(void)state;
	snprintf(cmd, sizeof(cmd), "readelf -lW %s", LIBC_PATH);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long off, va, pa, fsz, msz;
		char rest[128];

		if (sscanf(line, " LOAD %llx %llx %llx %llx %llx %127[^\n]", &off, &va, &pa, &fsz,
			   &msz, rest) == 6 &&
		    strchr(rest, 'E') && fsz) {
			assert_true(nwant < CFICACHE_MAX_SEGS);
			want[nwant++] = (struct cfi_seg){off, va, fsz};
		}
	}
	assert_int_equal(pclose(f), 0);
	assert_true(nwant >= 1);

	img_open(&m, LIBC_PATH);
	n = cficache_segs(m.elf, segs, CFICACHE_MAX_SEGS);
	assert_int_equal(n, (int)nwant);
	assert_memory_equal(segs, want, nwant * sizeof(*segs));
	for (int i = 0; i < n; i++) {
		assert_true(segs[i].offset && segs[i].vaddr && segs[i].filesz);
		assert_int_equal(segs[i].offset % 4096, segs[i].vaddr % 4096);
	}
	/* room for fewer than there are */
	assert_int_equal(cficache_segs(m.elf, segs, (unsigned)n - 1), -E2BIG);
	img_close(&m);
}

/* Not an ELF file, not x86-64, no program headers: -EINVAL. */
static void test_segs_refused(void **state)
{
	static const uint8_t junk[64] = "not an elf file at all";
	static const uint8_t text[] = {0xc3};
	char tmpl[] = "/tmp/zt-cficache-elf.XXXXXX";
	struct test_scn scns[2] = {
		{1, SHT_STRTAB, 0, 0, "\0.shstrtab\0.text\0", 18, 0, 0, 0},
		{11, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, text, 1, 0, 0, 0},
	};
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	uint16_t machines[] = {EM_X86_64, EM_AARCH64};
	char path[4096];
	GElf_Ehdr eh;
	Elf *e;
	int fd;

	(void)state;
	elf_version(EV_CURRENT);
	assert_int_equal(cficache_segs(NULL, segs, CFICACHE_MAX_SEGS), -EINVAL);
	e = elf_memory((char *)junk, sizeof(junk));
	assert_non_null(e);
	assert_int_equal(cficache_segs(e, segs, CFICACHE_MAX_SEGS), -EINVAL);
	elf_end(e);
	/* relocatable objects of both machines: no program headers */
	for (int i = 0; i < 2; i++) {
		fd = mkstemp(tmpl);
		assert_true(fd >= 0);
		unlink(tmpl);
		assert_int_equal(test_write_elf(fd, ET_REL, machines[i], scns, 2), 0);
		e = elf_begin(fd, ELF_C_READ, NULL);
		assert_non_null(e);
		assert_int_equal(cficache_segs(e, segs, CFICACHE_MAX_SEGS), -EINVAL);
		elf_end(e);
		close(fd);
		strcpy(tmpl + strlen(tmpl) - 6, "XXXXXX");
	}
	/* libc as an AArch64 file: its program headers, another machine */
	assert_int_equal(run("cp %s %s/arm && printf '\\267\\000' | "
			     "dd of=%s/arm bs=1 seek=18 conv=notrunc status=none",
			     LIBC_PATH, tmpdir, tmpdir),
			 0);
	snprintf(path, sizeof(path), "%s/arm", tmpdir);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_true(gelf_getehdr(e, &eh) && eh.e_machine == EM_AARCH64);
	assert_int_equal(cficache_segs(e, segs, CFICACHE_MAX_SEGS), -EINVAL);
	elf_end(e);
	close(fd);
	unlink(path);
}

/* ---- the cache files ---- */

static int setup(void **state)
{
	(void)state;
	unsetenv("XDG_CACHE_HOME");
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	if (!mkdtemp(tmpdir))
		return -1;
	setenv("ZT_CACHE_DIR", tmpdir, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	run("rm -rf %s", tmpdir);
	return 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("cficache_load hung");
}

/* load b's entry, expecting ret (and then an empty table) */
static void load_fails(const struct buildid_cache *c, int ret)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	struct cfipages p;
	unsigned ns = 7;

	cfipages_init(&p);
	alarm(10);
	assert_int_equal(cficache_load(c, &bid, &p, segs, &ns), ret);
	alarm(0);
	assert_int_equal(ns, 0);
	assert_empty(&p);
	cfipages_release(&p);
}

static void load_ok(const struct buildid_cache *c, const struct cfitab *t, const struct cfipages *p,
		    const struct cfi_seg *segs, unsigned ns)
{
	struct cfi_seg segs2[CFICACHE_MAX_SEGS];
	struct cfipages q;
	unsigned ns2;

	cfipages_init(&q);
	assert_int_equal(cficache_load(c, &bid, &q, segs2, &ns2), 0);
	assert_int_equal(ns2, ns);
	if (ns)
		assert_memory_equal(segs, segs2, ns * sizeof(*segs));
	same_tables(t, p, &q);
	cfipages_release(&q);
}

static void test_store_load(void **state)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	char path[4096], want[4096], other[4200];
	struct buildid_cache c;
	struct cfipages p;
	struct cfitab t;
	struct stat st;
	unsigned ns;
	uint8_t *d;
	size_t len;
	int fd;

	(void)state;
	signal(SIGALRM, on_alarm);
	assert_int_equal(buildid_cache_init(&c), 0);
	assert_string_equal(c.dir, tmpdir);
	assert_int_equal(cficache_path(&c, &bid, path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/cfi/cf0102030405060708090a0b0c0d0e0f10111213.cfi", tmpdir);
	assert_string_equal(path, want);
	assert_int_equal(cficache_path(&c, &bid, path, 20), -ENAMETOOLONG);
	assert_int_equal(cficache_path(&c, &(struct prof_build_id){1, {1}}, path, sizeof(path)),
			 -EINVAL);
	assert_int_equal(cficache_path(&c, &bid, path, sizeof(path)), 0);

	load_fails(&c, -ENOENT);
	build(LIBC_PATH, &t, &p, segs, &ns);
	assert_int_equal(cficache_store(&c, &bid, &p, segs, ns, NULL), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	load_ok(&c, &t, &p, segs, ns);

	/* a damaged entry: malformed, p left empty */
	encode(&p, segs, ns, &d, &len);
	d[len / 2] ^= 0x10;
	assert_int_equal(write_bytes(path, d, len, 0644), 0);
	load_fails(&c, -EINVAL);
	assert_int_equal(write_bytes(path, d, 10, 0644), 0);
	load_fails(&c, -EINVAL);
	assert_int_equal(write_bytes(path, d, 0, 0644), 0);
	load_fails(&c, -EINVAL);
	d[len / 2] ^= 0x10;

	/* a link to a good table is not followed */
	snprintf(other, sizeof(other), "%s/elsewhere.cfi", tmpdir);
	assert_int_equal(write_bytes(other, d, len, 0644), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(other, path), 0);
	load_fails(&c, -ELOOP);
	/* and storing replaces the link, not what it points to */
	assert_int_equal(cficache_store(&c, &bid, &p, segs, 1, NULL), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(other, &st), 0);
	assert_int_equal((size_t)st.st_size, len);

	/* a FIFO without a writer: refused at once */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0644), 0);
	load_fails(&c, -ESPIPE);
	assert_int_equal(cficache_store(&c, &bid, &p, segs, ns, NULL), 0);
	load_ok(&c, &t, &p, segs, ns);

	/* a directory, a file too big to be one */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	load_fails(&c, -EISDIR);
	assert_int_equal(rmdir(path), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)CFICACHE_MAX_FILE + 1), 0);
	close(fd);
	load_fails(&c, -EFBIG);

	/* an empty table is stored and loaded like any other */
	cfipages_release(&p);
	assert_int_equal(cficache_store(&c, &bid, &p, NULL, 0, NULL), 0);
	load_ok(&c, NULL, &p, NULL, 0);

	/* nothing to store: bad segments, no cache directory */
	segs[0].filesz = 0;
	assert_int_equal(cficache_store(&c, &bid, &p, segs, 1, NULL), -EINVAL);
	assert_int_equal(cficache_store(&c, &bid, &p, segs, CFICACHE_MAX_SEGS + 1, NULL), -EINVAL);
	free(c.dir);
	c.dir = NULL;
	assert_int_equal(cficache_store(&c, &bid, &p, NULL, 0, NULL), -EINVAL);
	load_fails(&c, -EINVAL);

	free(d);
	cfipages_release(&p);
	cfitab_release(&t);
	buildid_cache_release(&c);
	signal(SIGALRM, SIG_DFL);
}

/* ---- bad bytes ---- */

/* Every byte of the small table changed to every other value, every
 * truncation, a byte more: all refused. */
static void test_corruption(void **state)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	struct cfipages p;
	unsigned ns;
	uint8_t *d, *m;
	size_t len, i;

	(void)state;
	small_table(&p, segs, &ns);
	encode(&p, segs, ns, &d, &len);
	m = malloc(len + 1);
	assert_non_null(m);
	for (i = 0; i < len; i++)
		for (unsigned v = 1; v < 256; v++) {
			memcpy(m, d, len);
			m[i] ^= (uint8_t)v;
			refused(m, len);
		}
	for (i = 0; i < len; i++)
		refused(d, i);
	memcpy(m, d, len);
	m[len] = 0;
	refused(m, len + 1);
	free(m);
	free(d);
	cfipages_release(&p);
}

/* With the checksum made right again, each thing the checks look at. */
static void test_structure(void **state)
{
	enum {
		SEGS = HDR_LEN,
		RULES = SEGS + 2 * 24,
		PAGES = RULES + 4 * 16,
		ENTRIES = PAGES + 3 * 16
	};
	static const struct {
		const char *what;
		size_t off;
		int n;
		uint64_t v;
	} bad[] = {
		{"magic", 0, 1, 'X'},
		{"version", 6, 2, 1},
		{"page shift", 8, 4, 12},
		{"reserved", 28, 4, 1},
		{"seg filesz 0", SEGS + 16, 8, 0},
		{"seg offset wraps", SEGS + 0, 8, UINT64_MAX - 0x10},
		{"seg vaddr wraps", SEGS + 24 + 8, 8, UINT64_MAX},
		{"rule kind", RULES + 16 + 8, 1, CFITAB_NKINDS},
		{"rule kind 255", RULES + 8, 1, 255},
		{"rule cfa_reg", RULES + 16 + 9, 1, CFITAB_REG_BX + 1},
		{"rule fp", RULES + 32 + 10, 1, CFITAB_FP_UNDEF + 1},
		{"rule bx", RULES + 48 + 11, 1, CFITAB_FP_UNDEF + 1},
		{"page order", PAGES + 16, 8, 0x40},
		{"page order 2", PAGES + 32, 8, 0x3f},
		{"page past 64-bit addresses", PAGES + 32, 8, (UINT64_MAX >> 16) + 1},
		{"page first 0 again", PAGES + 16 + 8, 4, 0},
		{"page first gap", PAGES + 16 + 8, 4, 5},
		{"first page not at 0", PAGES + 8, 4, 1},
		{"page nr 0", PAGES + 12, 4, 0},
		{"page nr past entries", PAGES + 32 + 12, 4, 4},
		{"page nr huge", PAGES + 32 + 12, 4, UINT32_MAX},
		{"pages short of entries", PAGES + 32 + 12, 4, 2},
		{"first lo not 0", ENTRIES + 0, 2, 1},
		{"first lo of page 2 not 0", ENTRIES + 4 * 4, 2, 0x80},
		{"lo not increasing", ENTRIES + 2 * 4, 2, 0x1000},
		{"lo decreasing", ENTRIES + 3 * 4, 2, 0x0fff},
		{"rule index", ENTRIES + 8 * 4 + 2, 2, 4},
		{"rule index max", ENTRIES + 2, 2, 0xffff},
	};
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	struct cfipages p;
	unsigned ns;
	uint8_t *d, *m;
	size_t len, i;

	(void)state;
	small_table(&p, segs, &ns);
	encode(&p, segs, ns, &d, &len);
	assert_int_equal(len, ENTRIES + 9 * 4);
	m = malloc(len);
	assert_non_null(m);
	/* the patching itself keeps a good table good */
	memcpy(m, d, len);
	fix_checksum(m, len);
	assert_memory_equal(m, d, len);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(m, d, len);
		for (int k = 0; k < bad[i].n; k++)
			m[bad[i].off + k] = (uint8_t)(bad[i].v >> (8 * k));
		fix_checksum(m, len);
		refused_what(m, len, bad[i].what);
	}
	/* counts that do not match the size, or past the limits */
	for (i = 12; i < 28; i += 4) {
		for (uint64_t v = 0; v < 8; v++) {
			memcpy(m, d, len);
			if (v == m[i])
				continue;
			m[i] = (uint8_t)v;
			fix_checksum(m, len);
			refused(m, len);
		}
		memcpy(m, d, len);
		memset(m + i, 0xff, 4);
		fix_checksum(m, len);
		refused(m, len);
	}
	free(m);
	free(d);
	cfipages_release(&p);
}

/* The encoder writes only what the decoder takes. */
static void test_encode_refused(void **state)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS + 1];
	struct cfipages p;
	unsigned ns;
	void *d = (void *)1;
	size_t len = 1;

	(void)state;
	small_table(&p, segs, &ns);
	segs[2] = segs[3] = segs[4] = segs[0];
	assert_int_equal(cficache_encode(&p, segs, CFICACHE_MAX_SEGS + 1, &d, &len), -EINVAL);
	assert_null(d);
	assert_int_equal(len, 0);
	assert_int_equal(cficache_encode(&p, segs, CFICACHE_MAX_SEGS, &d, &len), 0);
	free(d);
	p.rules[2].kind = CFITAB_NKINDS;
	assert_int_equal(cficache_encode(&p, segs, ns, &d, &len), -EINVAL);
	p.rules[2].kind = CFITAB_CFA;
	p.entries[5].lo = 0;
	assert_int_equal(cficache_encode(&p, segs, ns, &d, &len), -EINVAL);
	p.entries[5].lo = 0x80;
	p.pages[1].nr = 3;
	assert_int_equal(cficache_encode(&p, segs, ns, &d, &len), -EINVAL);
	cfipages_release(&p);
}

/* ---- the fuzz target's seeds ---- */

static void write_seed(const char *dir, const char *name, const struct cfipages *p,
		       const struct cfi_seg *segs, unsigned ns)
{
	char path[4096];
	uint8_t *d;
	size_t len;

	encode(p, segs, ns, &d, &len);
	assert_true(len < 64 * 1024);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(write_bytes(path, d, len, 0644), 0);
	free(d);
}

/* A binary's table cut down to its first pages (the seeds stay small). */
static void write_cut(const char *dir, const char *name, const char *path, size_t max_entries)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	struct cfipages p;
	struct cfitab t;
	unsigned ns;
	size_t np = 0;

	build(path, &t, &p, segs, &ns);
	while (np < p.nr_pages && p.pages[np].first + p.pages[np].nr <= max_entries)
		np++;
	assert_true(np > 0);
	p.nr_pages = np;
	p.nr_entries = p.pages[np - 1].first + p.pages[np - 1].nr;
	write_seed(dir, name, &p, segs, ns);
	cfipages_release(&p);
	cfitab_release(&t);
}

/* Under sudo, the table of a binary only root may read stays out of the
 * user's cache; one they may read goes in, owned by them. */
static void test_store_sudo(void **state)
{
	struct buildid_cache c;
	struct prof_build_id sbid = {20, {0xcf, 0xee}};
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	struct cfipages p;
	struct stat st;
	char home[300], bin[300], path[700];
	unsigned ns;
	int fd;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(tmpdir, 0755), 0);
	snprintf(home, sizeof(home), "%s/home-sudo", tmpdir);
	assert_int_equal(mkdir(home, 0755), 0);
	assert_int_equal(chown(home, 65534, 65534), 0);
	snprintf(bin, sizeof(bin), "%s/rootonly", tmpdir);
	fd = open(bin, O_WRONLY | O_CREAT | O_EXCL, 0700);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	snprintf(path, sizeof(path), "%s/zt", home);
	setenv("ZT_CACHE_DIR", path, 1);
	assert_int_equal(buildid_cache_init(&c), 0);
	assert_int_equal(cficache_path(&c, &sbid, path, sizeof(path)), 0);
	small_table(&p, segs, &ns);
	assert_int_equal(cficache_store(&c, &sbid, &p, segs, ns, bin), -EACCES);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(chmod(bin, 0755), 0);
	assert_int_equal(cficache_store(&c, &sbid, &p, segs, ns, bin), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	cfipages_release(&p);
	buildid_cache_release(&c);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	setenv("ZT_CACHE_DIR", tmpdir, 1);
}

static void test_seeds(void **state)
{
	const char *dir = getenv("ZT_CFICACHE_SEEDS");
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	struct cfipages p;
	struct cfitab t;
	unsigned ns;

	(void)state;
	if (!dir || !*dir)
		skip();
	small_table(&p, segs, &ns);
	write_seed(dir, "small", &p, segs, ns);
	cfipages_release(&p);
	write_seed(dir, "nocfi", &p, NULL, 0);
	cfitab_init(&t);
	assert_int_equal(cfipages_build(&t, &p), 0);
	write_seed(dir, "empty", &p, segs, 1);
	cfipages_release(&p);
	write_cut(dir, "libc", LIBC_PATH, 3000);
	write_cut(dir, "self", "/proc/self/exe", 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_libc), cmocka_unit_test(test_roundtrip_self),
		cmocka_unit_test(test_empty),	       cmocka_unit_test(test_small),
		cmocka_unit_test(test_segs_libc),      cmocka_unit_test(test_segs_refused),
		cmocka_unit_test(test_store_load),     cmocka_unit_test(test_corruption),
		cmocka_unit_test(test_structure),      cmocka_unit_test(test_encode_refused),
		cmocka_unit_test(test_store_sudo),     cmocka_unit_test(test_seeds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
