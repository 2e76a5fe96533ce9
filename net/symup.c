// SPDX-License-Identifier: GPL-2.0-or-later
/* zt symbols upload: the files, and their symbols to a zt serve, in parallel. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/htab.h"
#include "libprof/zbuf.h"
#include "net/push.h"
#include "net/symup.h"
#include "symbolizer/debugfind.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/fileid.h"
#include "symbolizer/srcfiles.h"

#define MAX_DEPTH 64
#define MAX_SOURCE (64u << 20) /* a larger "source file" is not one */

void symup_list_init(struct symup_list *l)
{
	memset(l, 0, sizeof(*l));
}

void symup_list_release(struct symup_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	free(l->seen);
	zt_htab_release(&l->seen_idx);
	memset(l, 0, sizeof(*l));
}

static inline uint64_t devino_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ ino;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static inline uint64_t seen_hash(const void *ctx, uint32_t i)
{
	const struct symup_list *l = ctx;

	return devino_hash(l->seen[i].dev, l->seen[i].ino);
}

/* Whether (dev, ino) was seen; records it when not. -ENOMEM. */
static int seen(struct symup_list *l, const struct stat *st)
{
	uint64_t dev = (uint64_t)st->st_dev, ino = (uint64_t)st->st_ino;
	uint32_t i;
	size_t j;

	if (zt_htab_reserve(&l->seen_idx, 1, seen_hash, l))
		return -ENOMEM;
	for (j = zt_htab_first(&l->seen_idx, devino_hash(dev, ino)); zt_htab_get(&l->seen_idx, j, &i);
	     j = zt_htab_next(&l->seen_idx, j))
		if (l->seen[i].dev == dev && l->seen[i].ino == ino)
			return 1;
	if (l->nr_seen == l->cap_seen) {
		size_t c = l->cap_seen ? 2 * l->cap_seen : 256;
		void *n = realloc(l->seen, c * sizeof(*l->seen));

		if (!n)
			return -ENOMEM;
		l->seen = n;
		l->cap_seen = c;
	}
	l->seen[l->nr_seen].dev = dev;
	l->seen[l->nr_seen].ino = ino;
	zt_htab_set(&l->seen_idx, j, (uint32_t)l->nr_seen++);
	return 0;
}

/* An executable or shared object (by its ELF header): 1, else 0. */
static int elf_exec_or_dyn(int fd)
{
	unsigned char h[20];
	unsigned type;

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h, "\177ELF", 4))
		return 0;
	if (h[5] == 1) /* ELFDATA2LSB */
		type = h[16] | (unsigned)h[17] << 8;
	else if (h[5] == 2)
		type = (unsigned)h[16] << 8 | h[17];
	else
		return 0;
	return type == ET_EXEC || type == ET_DYN;
}

static int add_file(struct symup_list *l, const char *path)
{
	struct prof_build_id b = {0};
	struct symup_file *f;
	struct zt_fileid fid;
	int fd, ok;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0; /* unreadable: skipped */
	ok = elf_exec_or_dyn(fd);
	if (ok && elf_read_build_id_fd(fd, &b))
		b.len = 0;
	if (ok && !b.len && fileid_from_fd(fd, &fid))
		ok = 0;
	close(fd);
	if (!ok)
		return 0;
	if (l->n == l->cap) {
		size_t c = l->cap ? 2 * l->cap : 64;
		void *n = realloc(l->v, c * sizeof(*l->v));

		if (!n)
			return -ENOMEM;
		l->v = n;
		l->cap = c;
	}
	f = &l->v[l->n];
	memset(f, 0, sizeof(*f));
	f->server_q = f->replaced = -1;
	if (!(f->path = strdup(path)))
		return -ENOMEM;
	if (b.len) {
		prof_build_id_hex(&b, f->id);
	} else {
		fileid_hex(&fid, f->id);
		f->is_fileid = 1;
	}
	l->n++;
	return 0;
}

static int walk(struct symup_list *l, const char *path, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int err = 0;

	if (stat(path, &st))
		return 0; /* gone, or a dangling link: skipped */
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return 0;
	err = seen(l, &st);
	if (err)
		return err < 0 ? err : 0;
	if (S_ISREG(st.st_mode))
		return add_file(l, path);
	if (depth >= MAX_DEPTH || !(d = opendir(path)))
		return 0;
	while (!err && (e = readdir(d))) {
		char child[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(child, sizeof(child), "%s%s%s", path,
			     path[strlen(path) - 1] == '/' ? "" : "/", e->d_name) >= (int)sizeof(child))
			continue;
		err = walk(l, child, depth + 1);
	}
	closedir(d);
	return err;
}

int symup_list_add(struct symup_list *l, const char *path, char *msg, size_t msglen)
{
	struct stat st;

	msg[0] = 0;
	if (stat(path, &st)) {
		int e = errno;

		snprintf(msg, msglen, "cannot read '%s': %s", path, strerror(e));
		return -e;
	}
	return walk(l, path, 0);
}

unsigned symup_parse_has(const char *s)
{
	unsigned k = 0;

	while (s && *s) {
		size_t n = strcspn(s, ", ");

		if (n == 4 && !strncmp(s, "gsym", 4))
			k |= SYMUP_GSYM;
		else if (n == 9 && !strncmp(s, "debuginfo", 9))
			k |= SYMUP_DEBUGINFO;
		else if (n == 10 && !strncmp(s, "executable", 10))
			k |= SYMUP_EXECUTABLE;
		s += n;
		s += strspn(s, ", ");
	}
	return k;
}

/* ---- the run ------------------------------------------------------------------ */

struct run {
	const struct symup_opts *o;
	struct symup_list *l;
	pthread_mutex_t lock;
	size_t next, done, total;
	int stop;      /* the rest is not tried */
	int stop_err;
	char why[640];
};

static void finish(struct run *r, struct symup_file *f)
{
	pthread_mutex_lock(&r->lock);
	r->done++;
	if (r->o->done)
		r->o->done(r->o->ctx, f, r->done, r->total);
	pthread_mutex_unlock(&r->lock);
}

static void stop_run(struct run *r, int err, const char *why)
{
	pthread_mutex_lock(&r->lock);
	if (!r->stop) {
		r->stop = 1;
		r->stop_err = err;
		snprintf(r->why, sizeof(r->why), "%s", why);
	}
	pthread_mutex_unlock(&r->lock);
}

static int stopped(struct run *r)
{
	int s;

	pthread_mutex_lock(&r->lock);
	s = r->stop;
	pthread_mutex_unlock(&r->lock);
	return s;
}

static void fail(struct symup_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct symup_file *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
	f->st = SYMUP_FAILED;
}

/*
 * An answer that is not what was hoped for, as the file's failure. A
 * refused token or an unreachable server stops the run (every other file
 * would fail the same way). Returns -1.
 */
static int bad_answer(struct run *r, struct symup_file *f, int ret, const struct zt_http_resp *a,
		      const char *what, const char *msg)
{
	char why[256];

	if (ret) {
		fail(f, "cannot reach %s: %s", r->o->http.base_url, msg);
		if (ret != -ENOMEM)
			stop_run(r, ret, f->err);
		return -1;
	}
	push_answer_error(a, why, sizeof(why));
	fail(f, "%s: %ld %s", what, a->status, why);
	if (a->status == 401 || a->status == 403) {
		char s[sizeof(r->why)];

		snprintf(s, sizeof(s), "the server refused the token (%ld %s): uploads need a token "
			 "with the symbols scope (zt serve token create --scope symbols)",
			 a->status, why);
		stop_run(r, -EACCES, s);
	}
	return -1;
}

/* A file mapped for sending. */
struct body {
	void *p;
	size_t len;
};

static int body_map(const char *path, struct body *b)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	b->p = NULL;
	b->len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		e = S_ISREG(st.st_mode) ? errno : EINVAL;
		close(fd);
		return -e;
	}
	if (st.st_size > 0) {
		b->p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (b->p == MAP_FAILED) {
			e = errno;
			b->p = NULL;
			close(fd);
			return -e;
		}
		b->len = (size_t)st.st_size;
	}
	close(fd);
	return 0;
}

static void body_unmap(struct body *b)
{
	if (b->p)
		munmap(b->p, b->len);
	b->p = NULL;
}

/*
 * PUT the file at path to /api/v1/symbols/ID/<kind> (kind: "debuginfo",
 * "executable", "source/<escaped path>"). 1 when stored, 0 when the server
 * had it (412), 2 when a source is past the server's limits (413: f->note
 * says so; the other files still go), -1 after fail().
 */
static int put_file(struct run *r, struct zt_http *h, struct symup_file *f, const char *kind,
		    const char *path)
{
	const char *hdrs[3] = {"Content-Type: application/octet-stream", NULL, NULL};
	struct zt_http_resp a;
	struct body b;
	struct zbuf url;
	char msg[512], what[64];
	int err, ret;

	err = body_map(path, &b);
	if (err) {
		fail(f, "cannot read '%s': %s", path, strerror(-err));
		return -1;
	}
	f->bytes += b.len;
	if (r->o->dry_run) {
		body_unmap(&b);
		return 1;
	}
	if (!r->o->force)
		hdrs[1] = "If-None-Match: *";
	zbuf_init(&url);
	zbuf_put(&url, "/api/v1/symbols/", 16);
	zbuf_put(&url, f->id, strlen(f->id));
	zbuf_put_u8(&url, '/');
	if (!strncmp(kind, "source/", 7)) {
		zbuf_put(&url, "source/", 7);
		zt_http_escape(&url, kind + 7 + (kind[7] == '/'), "/+");
		snprintf(what, sizeof(what), "source file");
	} else {
		zbuf_put(&url, kind, strlen(kind));
		snprintf(what, sizeof(what), "%s", kind);
	}
	zbuf_put_u8(&url, 0);
	if (url.err) {
		zbuf_release(&url);
		body_unmap(&b);
		fail(f, "out of memory");
		return -1;
	}
	{
		struct zt_http_req req = {"PUT", (const char *)url.data, hdrs, b.p, b.len, 0};

		zt_http_resp_init(&a);
		err = zt_http_request(h, &req, &a, msg, sizeof(msg));
	}
	if (!err && (a.status == 200 || a.status == 201))
		ret = 1;
	else if (!err && a.status == 412)
		ret = 0;
	else if (!err && a.status == 413 && !strncmp(kind, "source/", 7)) {
		char why[256];

		push_answer_error(&a, why, sizeof(why));
		snprintf(f->note, sizeof(f->note), "not every source file: %.130s", why);
		ret = 2;
	} else {
		char w[PATH_MAX + 80];

		snprintf(w, sizeof(w), "uploading %s '%s'", what, path);
		ret = bad_answer(r, f, err, &a, w, msg);
	}
	zt_http_resp_release(&a);
	zbuf_release(&url);
	body_unmap(&b);
	return ret;
}

/* Whether the ELF file at path carries DWARF. */
static int has_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found;

	if (fd < 0)
		return 0;
	found = elf_fd_has_dwarf(fd);
	close(fd);
	return found;
}

/* The source files the DWARF of dbg names that are on this machine. */
static int send_sources(struct run *r, struct zt_http *h, struct symup_file *f, const char *dbg)
{
	char **v, kind[PATH_MAX + 8];
	size_t n, i;
	int err;

	err = srcfiles_list(dbg, &v, &n);
	if (err == -ENOMEM) {
		fail(f, "out of memory");
		return -1;
	}
	if (err)
		return 0;
	for (i = 0; i < n && !stopped(r); i++) {
		struct stat st;
		int ret;

		if (stat(v[i], &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_SOURCE ||
		    access(v[i], R_OK))
			continue; /* not on this machine: the debugger shows no source */
		snprintf(kind, sizeof(kind), "source/%s", v[i]);
		ret = put_file(r, h, f, kind, v[i]);
		if (ret < 0 || ret == 2) /* 2: the server takes no more of them */
			break;
		f->nr_sources++;
	}
	srcfiles_free(v, n);
	return f->st == SYMUP_FAILED ? -1 : 0;
}

/* --with-debuginfo: the debug file (or the binary when its DWARF is inside),
 * its sources, and the binary. */
static int send_debug(struct run *r, struct zt_http *h, struct symup_file *f, unsigned todo)
{
	char dbg[PATH_MAX];
	int sent = 0, ret;

	if (f->is_fileid) {
		snprintf(f->note, sizeof(f->note),
			 "no GNU build id: debuginfod clients cannot ask for its debug file");
		return 0;
	}
	if (todo & SYMUP_DEBUGINFO) {
		if (debugfind(&r->o->mo->find, f->path, NULL, dbg, sizeof(dbg))) {
			if (has_dwarf(f->path))
				snprintf(dbg, sizeof(dbg), "%s", f->path);
			else
				dbg[0] = 0;
		}
		if (!dbg[0]) {
			snprintf(f->note, sizeof(f->note), "no debug info to upload (build with -g)");
		} else {
			ret = put_file(r, h, f, "debuginfo", dbg);
			if (ret < 0)
				return -1;
			f->kinds |= SYMUP_DEBUGINFO;
			sent += ret;
			if (send_sources(r, h, f, dbg))
				return -1;
		}
	}
	if (todo & SYMUP_EXECUTABLE) {
		ret = put_file(r, h, f, "executable", f->path);
		if (ret < 0)
			return -1;
		f->kinds |= SYMUP_EXECUTABLE;
		sent += ret;
	}
	return sent;
}

/* X-ZT-Description / X-ZT-Symbol-File: %-escaped into line. */
static void escaped_header(char *line, size_t n, const char *name, const char *v)
{
	struct zbuf z;

	zbuf_init(&z);
	zbuf_put(&z, name, strlen(name));
	zbuf_put(&z, ": ", 2);
	zt_http_escape(&z, v, NULL);
	zbuf_put_u8(&z, 0);
	snprintf(line, n, "%s", z.err ? "" : (const char *)z.data);
	zbuf_release(&z);
}

/* The GSYM's PUT and its answer: 1 stored, 0 kept by the server (412), -1 failed. */
static int put_gsym(struct run *r, struct zt_http *h, struct symup_file *f,
		    const struct push_symbols *s)
{
	char msg[512], desc[3 * 1024 + 32], file[3 * 256 + 32];
	const char *extra[3] = {NULL, NULL, NULL};
	const char *base = strrchr(f->path, '/');
	struct push_put_answer pa;
	struct prof_build_id id = s->uuid;
	struct zt_http_resp a;
	int err, ret, k = 0;

	if (r->o->description && *r->o->description) {
		escaped_header(desc, sizeof(desc), "X-ZT-Description", r->o->description);
		extra[k++] = desc;
	}
	escaped_header(file, sizeof(file), "X-ZT-Symbol-File", base ? base + 1 : f->path);
	extra[k++] = file;
	zt_http_resp_init(&a);
	err = push_put_symbols(h, &id, s, r->o->force, extra, &a, msg, sizeof(msg));
	if (!err && (a.status == 200 || a.status == 201 || a.status == 412)) {
		push_put_answer(&a, &pa);
		ret = a.status != 412;
		if (ret) {
			f->replaced = pa.replaced;
			if (pa.stored >= 0)
				f->q = (enum symq)pa.stored; /* what the server made of it */
		} else if (pa.kept >= 0) {
			/* another upload stored as good or better meanwhile */
			f->server_q = pa.kept;
		}
	} else {
		ret = bad_answer(r, f, err, &a, "uploading its symbols", msg);
	}
	zt_http_resp_release(&a);
	return ret;
}

/* The GSYM table, sent when it is better than the server's (f->server_q;
 * -1: none or not asked) or with --force: 1 sent (or would be), 0 not,
 * -1 failed. */
static int send_gsym(struct run *r, struct zt_http *h, struct symup_file *f)
{
	struct push_module mod = {.path = f->path};
	struct push_symbols s;
	char msg[512], hex[2 * ZT_BUILD_ID_MAX + 1];
	int err, ret;

	err = push_symbols_open(r->o->mo, &mod, &s, msg, sizeof(msg));
	if (err == -ENOMEM) {
		fail(f, "out of memory");
		return -1;
	}
	if (err && f->server_q >= 0) {
		f->q = SYMQ_NONE; /* none here: the server's are as good or better */
		f->kept = f->server_q > SYMQ_NONE;
		return 0;
	}
	if (err) {
		fail(f, "no symbols to upload: %s", msg);
		return -1;
	}
	prof_build_id_hex(&s.uuid, hex);
	if (strcmp(hex, f->id)) {
		push_symbols_close(&s);
		fail(f, "the file changed while it was uploaded (its id is now %s)", hex);
		return -1;
	}
	f->q = s.q;
	if (!r->o->force && (int)s.q <= f->server_q) {
		f->kept = (int)s.q < f->server_q;
		push_symbols_close(&s);
		return 0;
	}
	if (s.q != SYMQ_FULL)
		snprintf(f->note, sizeof(f->note), "%s symbols only: %s", push_quality_name(s.q),
			 *symmod_why(s.m) ? symmod_why(s.m) : "no debug info");
	f->bytes += s.len;
	f->kinds |= SYMUP_GSYM;
	ret = r->o->dry_run ? 1 : put_gsym(r, h, f, &s);
	if (ret == 0) {
		f->kinds &= ~SYMUP_GSYM;
		f->bytes -= s.len;
		f->kept = f->server_q > (int)f->q;
	}
	push_symbols_close(&s);
	return ret;
}

/* Whether f's symbols may be full: DWARF in it or in a debug file found
 * for it (and no --no-dwarf). */
static int local_dwarf(struct run *r, const struct symup_file *f)
{
	char dbg[PATH_MAX];

	if (r->o->mo->no_dwarf)
		return 0;
	return has_dwarf(f->path) || !debugfind(&r->o->mo->find, f->path, NULL, dbg, sizeof(dbg));
}

/* HEAD /api/v1/symbols/ID: the kinds the server has (SYMUP_*), the quality
 * of its symbols into f->server_q. 0, or -1 after fail(). */
static int ask_server(struct run *r, struct zt_http *h, struct symup_file *f, unsigned *have)
{
	struct zt_http_resp a;
	char path[96], msg[512], v[128];
	struct zt_http_req req = {"HEAD", path, NULL, NULL, 0, 0};
	int err;

	*have = 0;
	snprintf(path, sizeof(path), "/api/v1/symbols/%s", f->id);
	zt_http_resp_init(&a);
	err = zt_http_request(h, &req, &a, msg, sizeof(msg));
	if (!err && a.status == 200) {
		*have = SYMUP_GSYM;
		if (!zt_http_header(&a, "X-ZT-Has", v, sizeof(v)))
			*have |= symup_parse_has(v);
		/* a server that does not say: as full, never replaced */
		f->server_q = SYMQ_FULL;
		if (!zt_http_header(&a, "X-ZT-Symbol-Quality", v, sizeof(v)) &&
		    push_quality_parse(v) >= 0)
			f->server_q = push_quality_parse(v);
	} else if (err || a.status != 404) {
		bad_answer(r, f, err, &a, "asking whether the server has it", msg);
		zt_http_resp_release(&a);
		return -1;
	}
	zt_http_resp_release(&a);
	return 0;
}

static void do_file(struct run *r, struct zt_http *h, struct symup_file *f)
{
	unsigned want = SYMUP_GSYM | (r->o->with_debuginfo ? SYMUP_DEBUGINFO | SYMUP_EXECUTABLE : 0);
	unsigned have = 0, todo;
	int sent = 0, ret;

	f->server_q = f->replaced = -1;
	if (f->is_fileid && r->o->with_debuginfo)
		want = SYMUP_GSYM;
	if (r->o->debug_files)
		want &= ~(unsigned)SYMUP_EXECUTABLE;
	if (!r->o->force && ask_server(r, h, f, &have))
		return;
	/* symbols below full: this file's may be better; full ones: this
	 * file's are made (cheaply: names only) to be compared when they
	 * cannot be full too, so that what the server keeps is said */
	if ((have & SYMUP_GSYM) && (f->server_q < SYMQ_FULL || !local_dwarf(r, f)))
		have &= ~(unsigned)SYMUP_GSYM;
	todo = want & ~have;
	if (!todo) {
		f->st = SYMUP_SKIPPED;
		snprintf(f->note, sizeof(f->note), "already on the server");
		return;
	}
	if (todo & SYMUP_GSYM) {
		ret = send_gsym(r, h, f);
		if (ret < 0)
			return;
		sent += ret;
	}
	if (todo & (SYMUP_DEBUGINFO | SYMUP_EXECUTABLE)) {
		ret = send_debug(r, h, f, todo);
		if (ret < 0)
			return;
		sent += ret;
	}
	if (f->kept)
		snprintf(f->note, sizeof(f->note), "kept the server's %s symbols (this upload: %s)",
			 push_quality_name(f->server_q), push_quality_name(f->q));
	else if (f->replaced >= 0)
		snprintf(f->note, sizeof(f->note), "replaced the server's %s symbols",
			 push_quality_name(f->replaced));
	if (r->o->dry_run && sent)
		f->st = SYMUP_WOULD_UPLOAD;
	else if (sent)
		f->st = SYMUP_UPLOADED;
	else {
		f->st = SYMUP_SKIPPED;
		if (!f->kept)
			snprintf(f->note, sizeof(f->note), "already on the server");
	}
}

static void *worker(void *arg)
{
	struct run *r = arg;
	struct zt_http *h = NULL;
	char msg[512];
	int err;

	err = zt_http_new(&r->o->http, &h, msg, sizeof(msg));
	if (err)
		stop_run(r, err, msg);
	for (;;) {
		struct symup_file *f;
		size_t i;
		int stop;

		pthread_mutex_lock(&r->lock);
		i = r->next++;
		stop = r->stop;
		pthread_mutex_unlock(&r->lock);
		if (i >= r->l->n)
			break;
		f = &r->l->v[i];
		if (f->st != SYMUP_PENDING)
			continue; /* a duplicate, reported before the run */
		if (stop)
			fail(f, "not tried: %s", r->why);
		else
			do_file(r, h, f);
		finish(r, f);
	}
	zt_http_free(h);
	return NULL;
}

static int cmp_id(const void *a, const void *b)
{
	const struct symup_file *x = *(struct symup_file *const *)a, *y = *(struct symup_file *const *)b;
	int c = strcmp(x->id, y->id);

	return c ? c : (x < y ? -1 : x > y);
}

int symup_run(const struct symup_opts *o, struct symup_list *l, char *msg, size_t msglen)
{
	struct run r = {.o = o, .l = l, .total = l->n};
	struct symup_file **byid;
	pthread_t tid[64];
	unsigned jobs = o->jobs ? o->jobs : 1, started = 0, i;
	size_t k;

	msg[0] = 0;
	pthread_mutex_init(&r.lock, NULL);
	/* the same id twice (a copy, a debug file beside its binary): once */
	byid = malloc((l->n ? l->n : 1) * sizeof(*byid));
	if (!byid)
		return -ENOMEM;
	for (k = 0; k < l->n; k++)
		byid[k] = &l->v[k];
	qsort(byid, l->n, sizeof(*byid), cmp_id);
	for (k = 1; k < l->n; k++) {
		struct symup_file *f = byid[k];

		if (strcmp(f->id, byid[k - 1]->id))
			continue;
		f->st = SYMUP_SKIPPED;
		snprintf(f->note, sizeof(f->note), "the same id as '%.120s'", byid[k - 1]->path);
		while (k + 1 < l->n && !strcmp(byid[k + 1]->id, f->id)) {
			k++;
			byid[k]->st = SYMUP_SKIPPED;
			snprintf(byid[k]->note, sizeof(byid[k]->note), "the same id as '%.120s'",
				 f->path);
		}
	}
	free(byid);
	for (k = 0; k < l->n; k++)
		if (l->v[k].st == SYMUP_SKIPPED)
			finish(&r, &l->v[k]);
	if (jobs > sizeof(tid) / sizeof(tid[0]))
		jobs = sizeof(tid) / sizeof(tid[0]);
	for (i = 0; i < jobs; i++) {
		if (pthread_create(&tid[i], NULL, worker, &r))
			break;
		started++;
	}
	if (!started)
		worker(&r);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&r.lock);
	if (r.stop) {
		snprintf(msg, msglen, "%s", r.why);
		return r.stop_err ? r.stop_err : -EIO;
	}
	return 0;
}
