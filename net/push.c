// SPDX-License-Identifier: GPL-2.0-or-later
/* zt push below the command: the unwound image, sampled modules, their symbols, the API calls. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "formats/ztdata.h"
#include "libprof/text.h"
#include "net/push.h"
#include "net/secfile.h"
#include "symbolizer/gsym.h"

#define FLUSH_AT (32u << 20) /* buffered records written out past this */
#define MAX_SEGS 16	     /* the server's limit on X-ZT-Symbol-Load */

/* ---- the unwound image ----------------------------------------------------- */

/* The blob kinds that name frames; anything else stays home. */
static int blob_travels(uint32_t kind)
{
	switch (kind) {
	case PROF_BLOB_KALLSYMS:
	case PROF_BLOB_MODULES:
	case PROF_BLOB_PERFMAP:
	case PROF_BLOB_KERNEL_BUILD_ID:
	case PROF_BLOB_JITDUMP:
		return 1;
	default:
		return 0;
	}
}

/* ev: the one event to write (as event 0), or PUSH_ALL_EVENTS. */
static int write_records(struct ztdata_writer *w, const struct profile *p, uint32_t ev)
{
	const char *evname = ev == PUSH_ALL_EVENTS ? NULL : profile_event_name(p, ev);
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < p->nr_meta; i++)
		ret = ztdata_write_meta(
			w, p->meta[i].key,
			evname && !strcmp(p->meta[i].key, "event") ? evname : p->meta[i].value);
	for (i = 0; !ret && i < p->nr_events; i++)
		if (ev == PUSH_ALL_EVENTS || i == ev)
			ret = ztdata_write_event(w, &p->events[i]);
	for (i = 0; !ret && i < p->nr_tasks; i++)
		ret = ztdata_write_task(w, &p->tasks[i]);
	for (i = 0; !ret && i < p->nr_mmaps; i++)
		ret = ztdata_write_mmap(w, &p->mmaps[i]);
	for (i = 0; !ret && i < p->nr_blobs; i++) {
		const struct prof_blob *b = &p->blobs[i];

		if (blob_travels(b->kind))
			ret = ztdata_write_blob(w, b->kind, b->pid, b->ts, b->data, b->len);
		if (!ret && ztdata_writer_pending(w) > FLUSH_AT)
			ret = ztdata_writer_flush(w);
	}
	/* the Python code objects, in order: the stacks' Python frames keep
	 * their indexes */
	for (i = 0; !ret && i < p->nr_pycodes; i++) {
		uint32_t idx;

		ret = ztdata_write_pycode(w, &p->pycodes[i], &idx);
		if (!ret && idx != i)
			ret = -EPROTO;
	}
	/* samples with their (unwound) stacks only: ztdata_write_ustack() is
	 * never called, so no snapshot can reach the image */
	for (i = 0; !ret && i < p->nr_samples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const struct prof_stack *st = &p->stacks[s->stack];

		if (ev != PUSH_ALL_EVENTS && s->event != ev)
			continue;
		ret = ztdata_write_sample_ev(w, ev == PUSH_ALL_EVENTS ? s->event : 0, s->ts,
					     s->weight, s->pid, s->tid, s->cpu, p->ips + st->off,
					     st->nk, st->nu);
		if (!ret && ztdata_writer_pending(w) > FLUSH_AT)
			ret = ztdata_writer_flush(w);
	}
	if (!ret && (p->lost_samples || p->lost_events))
		ret = ztdata_write_lost(w, p->lost_samples, p->lost_events);
	return ret ? ret : ztdata_writer_finish(w);
}

int push_image(const struct profile *p, struct zbuf *out)
{
	return push_image_event(p, PUSH_ALL_EVENTS, out);
}

int push_image_event(const struct profile *p, uint32_t event, struct zbuf *out)
{
	struct ztdata_writer *w = NULL;
	struct stat st;
	void *map = MAP_FAILED;
	size_t start = out->len;
	int fd, ret;

	/* the writer writes to a descriptor: an anonymous file in memory */
	fd = memfd_create("zt-push", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = ztdata_writer_new(fd);
	if (!w) {
		ret = -errno;
		goto out;
	}
	ret = write_records(w, p, event);
	ztdata_writer_free(w);
	if (ret)
		goto out;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	if (st.st_size <= 0) {
		ret = -EIO;
		goto out;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	zbuf_put(out, map, (size_t)st.st_size);
	if (out->err) {
		out->len = start;
		ret = -ENOMEM;
	}
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	close(fd);
	return ret;
}

/* ---- the modules sampled ---------------------------------------------------- */

static int cmp_module(const void *a, const void *b)
{
	const struct push_module *x = a, *y = b;
	int c = memcmp(x->id.data, y->id.data, x->id.len < y->id.len ? x->id.len : y->id.len);

	if (c)
		return c;
	if (x->id.len != y->id.len)
		return x->id.len < y->id.len ? -1 : 1;
	/* the same id under several paths: the first path by name, for
	 * an order that does not depend on qsort */
	return strcmp(x->path, y->path);
}

int push_modules(const struct rstacks *rs, struct push_module **out, size_t *n)
{
	const struct profile *p = rs->prof;
	const struct proctree *pt = rs->pt;
	struct push_module *mods = NULL;
	uint8_t *used;
	size_t i, k, nr = 0;
	uint32_t last_pid = 0, last_stack = UINT32_MAX;

	*out = NULL;
	*n = 0;
	if (!p->nr_mmaps)
		return 0;
	used = calloc(p->nr_mmaps, 1);
	if (!used)
		return -ENOMEM;
	for (i = 0; i < p->nr_samples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const struct prof_stack *st = &p->stacks[s->stack];
		const uint64_t *ips = p->ips + st->off + st->nk;

		/* runs of one stack in one process: the same modules (a new
		 * mapping between them would only add one, rarely) */
		if (s->pid == last_pid && s->stack == last_stack)
			continue;
		last_pid = s->pid;
		last_stack = s->stack;
		for (k = 0; k < st->nu; k++) {
			const struct prof_mmap *m = proctree_map(pt, s->pid, s->ts, ips[k]);

			if (m && m >= p->mmaps && m < p->mmaps + p->nr_mmaps)
				used[m - p->mmaps] = 1;
		}
	}
	for (i = 0; i < p->nr_mmaps; i++)
		nr += used[i] && p->mmaps[i].build_id.len && p->mmaps[i].pid != ZT_PID_KERNEL;
	if (nr && !(mods = calloc(nr, sizeof(*mods)))) {
		free(used);
		return -ENOMEM;
	}
	for (i = 0, k = 0; i < p->nr_mmaps; i++) {
		const struct prof_mmap *m = &p->mmaps[i];

		if (used[i] && m->build_id.len && m->pid != ZT_PID_KERNEL)
			mods[k++] = (struct push_module){m->build_id, m->path ? m->path : ""};
	}
	free(used);
	if (nr)
		qsort(mods, nr, sizeof(*mods), cmp_module);
	for (i = 0, k = 0; i < nr; i++)
		if (!k || mods[k - 1].id.len != mods[i].id.len ||
		    memcmp(mods[k - 1].id.data, mods[i].id.data, mods[i].id.len))
			mods[k++] = mods[i];
	*out = mods;
	*n = k;
	return 0;
}

/* ---- their symbols ------------------------------------------------------------ */

const char *push_quality_name(int q)
{
	static const char *const names[] = {"none", "basic", "full"};

	return q >= SYMQ_NONE && q <= SYMQ_FULL ? names[q] : "?";
}

int push_quality_parse(const char *s)
{
	if (!strcmp(s, "full"))
		return SYMQ_FULL;
	if (!strcmp(s, "basic") || !strcmp(s, "functions"))
		return SYMQ_BASIC;
	if (!strcmp(s, "none"))
		return SYMQ_NONE;
	return -1;
}

void push_symbols_close(struct push_symbols *s)
{
	symmod_free(s->m);
	memset(s, 0, sizeof(*s));
}

int push_symbols_open(const struct symmod_opts *o, const struct push_module *mod,
		      struct push_symbols *s, char *msg, size_t msglen)
{
	struct symmod_seg segs[MAX_SEGS];
	struct gsym *g = NULL;
	const uint8_t *uuid;
	size_t i, nseg, ulen, off = 0;
	int ret;

	memset(s, 0, sizeof(*s));
	msg[0] = 0;
	ret = symmod_open(o, mod->path, mod->id.len ? &mod->id : NULL, &s->m);
	if (ret) {
		snprintf(msg, msglen, "out of memory");
		goto fail;
	}
	s->q = symmod_quality(s->m);
	if (s->q == SYMQ_NONE || symmod_image(s->m, &s->image, &s->len)) {
		snprintf(msg, msglen, "%s", *symmod_why(s->m) ? symmod_why(s->m) : "no symbols");
		ret = -ENOENT;
		goto fail;
	}
	/* the server takes an image whose UUID is the id it is stored under */
	if (gsym_open_mem(s->image, s->len, &g)) {
		snprintf(msg, msglen, "its GSYM table does not read back");
		ret = -ENOENT;
		goto fail;
	}
	uuid = gsym_uuid(g, &ulen);
	if (!ulen || ulen > sizeof(s->uuid.data) ||
	    (mod->id.len && (ulen != mod->id.len || memcmp(uuid, mod->id.data, ulen)))) {
		gsym_free(g);
		snprintf(msg, msglen, "its GSYM table is not marked with its build id");
		ret = -ENOENT;
		goto fail;
	}
	s->uuid.len = (uint8_t)ulen;
	memcpy(s->uuid.data, uuid, ulen);
	gsym_free(g);
	snprintf(s->quality, sizeof(s->quality), "%s", push_quality_name(s->q));
	nseg = symmod_segments(s->m, segs, MAX_SEGS);
	for (i = 0; i < nseg && i < MAX_SEGS; i++)
		off += (size_t)snprintf(s->load + off, sizeof(s->load) - off, "%s%llx:%llx:%llx",
					i ? "," : "", (unsigned long long)segs[i].off,
					(unsigned long long)segs[i].vaddr,
					(unsigned long long)segs[i].size);
	return 0;
fail:
	push_symbols_close(s);
	return ret;
}

/* ---- the configuration file ----------------------------------------------------- */

int push_config_path(char *out, size_t n)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int k;

	if (x && x[0] == '/')
		k = snprintf(out, n, "%s/zt/config", x);
	else if (home && *home)
		k = snprintf(out, n, "%s/.config/zt/config", home);
	else
		return -ENOENT;
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

void push_config_release(struct push_config *c)
{
	if (c->token) {
		explicit_bzero(c->token, strlen(c->token));
		free(c->token);
	}
	free(c->server);
	free(c->symdb);
	c->server = c->token = c->symdb = NULL;
}

#define CONFIG_MAX (64u << 10)

int push_config_read(const char *path, struct push_config *c, char *msg, size_t msglen)
{
	char *text = NULL, *cur, *key, *val;
	size_t len = 0;
	int ret, lineno = 0;

	memset(c, 0, sizeof(*c));
	ret = zt_secfile_read(path, "a token", CONFIG_MAX, &text, &len, msg, msglen);
	if (ret)
		return ret;
	cur = text;
	while ((ret = zt_secfile_next(&cur, &lineno, &key, &val)) > 0) {
		char **dst = NULL;

		if (!strcmp(key, "server"))
			dst = &c->server;
		else if (!strcmp(key, "token"))
			dst = &c->token;
		else if (!strcmp(key, "symdb"))
			dst = &c->symdb;
		if (!dst)
			continue; /* a key of a later version */
		if (*dst) {
			explicit_bzero(*dst, strlen(*dst));
			free(*dst);
		}
		if (!(*dst = strdup(val))) {
			ret = -ENOMEM;
			break;
		}
	}
	if (ret == -EBADMSG)
		snprintf(msg, msglen, "%s:%d: not a 'key = value' line", path, lineno);
	zt_secfile_free(text, len);
	if (ret) {
		push_config_release(c);
		if (ret == -ENOMEM)
			snprintf(msg, msglen, "out of memory");
	}
	return ret;
}

/* ---- the API ----------------------------------------------------------------------- */

/* The string value of "key" in a flat JSON object into out (escapes
 * decoded, \u to '?' past ASCII, control characters to '?'). 0, or
 * -ENOENT. */
static int json_string(const char *j, size_t n, const char *key, char *out, size_t outn)
{
	char pat[64];
	const char *p, *end = j + n;
	size_t o = 0;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = memmem(j, n, pat, strlen(pat));
	if (!p)
		return -ENOENT;
	p += strlen(pat);
	while (p < end && (*p == ' ' || *p == ':' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (p >= end || *p != '"')
		return -ENOENT;
	for (p++; p < end && *p != '"' && o + 1 < outn; p++) {
		char ch = *p;

		if (ch == '\\' && p + 1 < end) {
			ch = *++p;
			if (ch == 'n' || ch == 't' || ch == 'r')
				ch = ' ';
			else if (ch == 'u') {
				unsigned v = 0;
				int i;

				for (i = 0; i < 4 && p + 1 < end; i++) {
					int d = zt_hexval(*++p);

					v = v * 16 + (unsigned)(d < 0 ? 0 : d);
				}
				ch = v >= 0x20 && v < 0x7f ? (char)v : '?';
			}
		}
		out[o++] = (unsigned char)ch < 0x20 || ch == 0x7f ? '?' : ch;
	}
	out[o] = 0;
	return 0;
}

/* The raw (number or literal) value of "key": its first characters. */
static const char *json_raw(const char *j, size_t n, const char *key)
{
	char pat[64];
	const char *p, *end = j + n;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = memmem(j, n, pat, strlen(pat));
	if (!p)
		return NULL;
	for (p += strlen(pat); p < end && (*p == ' ' || *p == ':' || *p == '\t'); p++)
		;
	return p < end ? p : NULL;
}

void push_answer_error(const struct zt_http_resp *r, char *out, size_t n)
{
	const char *b = (const char *)r->body.data;
	size_t i, len = r->body.len;

	if (len && !json_string(b, len, "error", out, n) && *out)
		return;
	if (len) {
		/* a body that is not our JSON (a proxy's page): its first line */
		for (i = 0; i < len && i + 1 < n && b[i] != '\n'; i++)
			out[i] = (unsigned char)b[i] < 0x20 || b[i] == 0x7f ? '?' : b[i];
		out[i] = 0;
		if (i)
			return;
	}
	snprintf(out, n, "HTTP status %ld", r->status);
}

/* An answer line of symbols/missing, "ID" or "ID QUALITY" (l bytes at p),
 * into have[] of the modules it names. */
static void missing_line(const char *p, size_t l, const struct push_module *mods, size_t n,
			 int8_t *have)
{
	char hex[2 * ZT_BUILD_ID_MAX + 2], q[16] = "";
	const char *sp = memchr(p, ' ', l);
	size_t idl = sp ? (size_t)(sp - p) : l, i;
	int v = -1;

	if (sp) {
		size_t ql = l - idl - 1;

		if (ql >= sizeof(q))
			return;
		memcpy(q, sp + 1, ql);
		q[ql] = 0;
		if ((v = push_quality_parse(q)) < 0)
			return; /* a word of a later server: not understood, not used */
	}
	for (i = 0; idl && i < n; i++) {
		prof_build_id_hex(&mods[i].id, hex);
		if (strlen(hex) == idl && !strncasecmp(hex, p, idl))
			have[i] = (int8_t)v;
	}
}

int push_missing(struct zt_http *h, const struct push_module *mods, size_t n, int8_t *have,
		 struct zt_http_resp *resp, char *msg, size_t msglen)
{
	struct zbuf body;
	static const char *const hdrs[] = {"Content-Type: text/plain", "X-ZT-Want-Quality: full",
					   NULL};
	struct zt_http_req req = {"POST", "/api/v1/symbols/missing", hdrs, NULL, 0, 0};
	char hex[2 * ZT_BUILD_ID_MAX + 2];
	size_t i;
	int ret;

	zbuf_init(&body);
	for (i = 0; i < n; i++) {
		prof_build_id_hex(&mods[i].id, hex);
		zbuf_put(&body, hex, strlen(hex));
		zbuf_put_u8(&body, '\n');
		have[i] = SYMQ_FULL; /* unless the answer names it */
	}
	if (body.err) {
		zbuf_release(&body);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	req.body = body.data;
	req.len = body.len;
	ret = zt_http_request(h, &req, resp, msg, msglen);
	zbuf_release(&body);
	if (ret || resp->status != 200)
		return ret;
	/* the answer: ids, one a line (a few dozen: a linear match is fine) */
	{
		const char *p = (const char *)resp->body.data, *end = p + resp->body.len;

		while (p < end) {
			const char *e = memchr(p, '\n', (size_t)(end - p));
			size_t l;

			if (!e)
				e = end;
			l = (size_t)(e - p);
			while (l && (p[l - 1] == '\r' || p[l - 1] == ' '))
				l--;
			missing_line(p, l, mods, n, have);
			p = e + 1;
		}
	}
	return 0;
}

int push_put_symbols(struct zt_http *h, const struct prof_build_id *id,
		     const struct push_symbols *s, int replace, const char *const *extra,
		     struct zt_http_resp *resp, char *msg, size_t msglen)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1], path[64 + sizeof(hex)], q[64],
		load[sizeof(s->load) + 32];
	const char *hdrs[10] = {"Content-Type: application/octet-stream", q, NULL};
	struct zt_http_req req = {"PUT", path, hdrs, s->image, s->len, 0};
	size_t n = 2, i;

	prof_build_id_hex(id, hex);
	snprintf(path, sizeof(path), "/api/v1/symbols/%s", hex);
	snprintf(q, sizeof(q), "X-ZT-Symbol-Quality: %s", s->quality);
	if (!replace)
		hdrs[n++] = "If-None-Match: *";
	if (s->load[0]) {
		snprintf(load, sizeof(load), "X-ZT-Symbol-Load: %s", s->load);
		hdrs[n++] = load;
	}
	for (i = 0; extra && extra[i] && n < sizeof(hdrs) / sizeof(hdrs[0]) - 1; i++)
		hdrs[n++] = extra[i];
	hdrs[n] = NULL;
	return zt_http_request(h, &req, resp, msg, msglen);
}

void push_put_answer(const struct zt_http_resp *r, struct push_put_answer *a)
{
	const char *b = (const char *)r->body.data;
	char v[16];

	a->stored = a->replaced = a->kept = -1;
	if (r->status == 412) {
		if (!zt_http_header(r, "X-ZT-Symbol-Quality", v, sizeof(v)))
			a->kept = push_quality_parse(v);
		return;
	}
	if (r->status != 200 && r->status != 201)
		return;
	if (r->body.len && !json_string(b, r->body.len, "quality", v, sizeof(v)))
		a->stored = push_quality_parse(v);
	if (r->body.len && !json_string(b, r->body.len, "replaced", v, sizeof(v)))
		a->replaced = push_quality_parse(v);
}

int push_send_module(struct zt_http *h, const struct symmod_opts *mo, const struct push_module *m,
		     int have, void (*before)(void *ctx, size_t len), void *ctx,
		     struct push_sent *out, struct zt_http_resp *resp, char *msg, size_t msglen)
{
	struct push_symbols s;
	int err;

	memset(out, 0, sizeof(*out));
	out->have = have;
	out->here = -1;
	out->a.stored = out->a.replaced = out->a.kept = -1;
	msg[0] = 0;
	if (have == SYMQ_FULL) {
		out->what = PUSH_KEPT_FULL;
		return 0;
	}
	err = push_symbols_open(mo, m, &s, out->why, sizeof(out->why));
	if (err == -ENOMEM)
		return err;
	if (err) {
		out->what = PUSH_NONE_HERE;
		return 0;
	}
	out->here = (int)s.q;
	snprintf(out->quality, sizeof(out->quality), "%s", s.quality);
	if ((int)s.q <= have) {
		out->what = PUSH_NOT_BETTER;
		push_symbols_close(&s);
		return 0;
	}
	if (before)
		before(ctx, s.len);
	err = push_put_symbols(h, &m->id, &s, 0, NULL, resp, msg, msglen);
	if (!err && (resp->status == 200 || resp->status == 201)) {
		out->what = PUSH_SENT;
		push_put_answer(resp, &out->a);
		snprintf(out->why, sizeof(out->why), "%s",
			 *symmod_why(s.m) ? symmod_why(s.m) : "no debug info");
	} else if (!err && resp->status == 412) {
		out->what = PUSH_HAD;
		push_put_answer(resp, &out->a);
	} else if (!err && zt_http_retryable(resp->status)) {
		err = -EAGAIN;
	} else if (!err) {
		out->what = PUSH_REFUSED;
		push_answer_error(resp, out->why, sizeof(out->why));
	}
	push_symbols_close(&s);
	return err;
}

/* A label "k=v": a non-empty key without control characters. */
static int label_ok(const char *l)
{
	const char *eq = strchr(l, '=');
	const char *c;

	if (!eq || eq == l)
		return 0;
	for (c = l; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return 0;
	return 1;
}

int push_profile(struct zt_http *h, const void *image, size_t len, const char *const *labels,
		 size_t nr_labels, struct push_result *r, struct zt_http_resp *resp, char *msg,
		 size_t msglen)
{
	static const char *const hdrs[] = {"Content-Type: application/octet-stream",
					   "Content-Encoding: zstd", NULL};
	struct zt_http_req req = {"POST", NULL, hdrs, NULL, 0, 0};
	struct zbuf path, z;
	size_t i, bound, k;
	const char *v;
	int ret;

	memset(r, 0, sizeof(*r));
	msg[0] = 0;
	zbuf_init(&path);
	zbuf_init(&z);
	zbuf_put(&path, "/api/v1/profiles", 16);
	for (i = 0; i < nr_labels; i++) {
		const char *eq;
		char *key;

		if (!label_ok(labels[i])) {
			snprintf(msg, msglen, "'%s' is not a label: give KEY=VALUE", labels[i]);
			ret = -EINVAL;
			goto out;
		}
		eq = strchr(labels[i], '=');
		key = strndup(labels[i], (size_t)(eq - labels[i]));
		if (!key) {
			ret = -ENOMEM;
			goto nomem;
		}
		zbuf_put(&path, i ? "&label=" : "?label=", 7);
		zt_http_escape(&path, key, NULL);
		zbuf_put_u8(&path, '=');
		zt_http_escape(&path, eq + 1, NULL);
		free(key);
	}
	zbuf_put_u8(&path, 0);
	bound = ZSTD_compressBound(len);
	if (path.err || zbuf_reserve(&z, bound))
		goto nomem;
	k = ZSTD_compress(z.data, bound, image, len, 3);
	if (ZSTD_isError(k)) {
		snprintf(msg, msglen, "cannot compress the profile: %s", ZSTD_getErrorName(k));
		ret = -EIO;
		goto out;
	}
	z.len = k;
	req.path = (const char *)path.data;
	req.body = z.data;
	req.len = z.len;
	ret = zt_http_request(h, &req, resp, msg, msglen);
	if (ret || (resp->status != 200 && resp->status != 201))
		goto out;
	if (json_string((const char *)resp->body.data, resp->body.len, "id", r->id,
			sizeof(r->id)) ||
	    !r->id[0]) {
		snprintf(msg, msglen, "the server's answer has no id");
		ret = -EBADMSG;
		goto out;
	}
	v = json_raw((const char *)resp->body.data, resp->body.len, "stored");
	r->stored = v ? !strncmp(v, "true", 4) : resp->status == 201;
	v = json_raw((const char *)resp->body.data, resp->body.len, "samples");
	if (v) {
		const char *end = (const char *)resp->body.data + resp->body.len;

		for (; v < end && *v >= '0' && *v <= '9'; v++)
			r->samples = r->samples * 10 + (uint64_t)(*v - '0');
	}
	/* a server older than labels_added keeps the first push's labels only */
	r->labels_added = -1;
	v = json_raw((const char *)resp->body.data, resp->body.len, "labels_added");
	if (v) {
		const char *end = (const char *)resp->body.data + resp->body.len;

		for (r->labels_added = 0;
		     v < end && *v >= '0' && *v <= '9' && r->labels_added < 1000000; v++)
			r->labels_added = r->labels_added * 10 + (*v - '0');
	}
	goto out;
nomem:
	ret = -ENOMEM;
	snprintf(msg, msglen, "out of memory");
out:
	zbuf_release(&path);
	zbuf_release(&z);
	return ret;
}
