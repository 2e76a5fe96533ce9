// SPDX-License-Identifier: GPL-2.0-or-later
/* perf's tracing data: the tracepoint formats of a perf.data file. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/perftrace.h"

#define MAGIC	  "\027\010\104tracing"
#define MAGIC_LEN 10
#define MAX_COUNT 65536 /* formats or systems: the kernel has a few thousand */

struct tcur {
	const uint8_t *p, *end;
};

/* n bytes (4 or 8) of a little-endian number into *v (of that size) */
static int get_num(struct tcur *c, void *v, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return -EBADMSG;
	memcpy(v, c->p, n);
	c->p += n;
	return 0;
}

static int get_u32(struct tcur *c, uint32_t *v)
{
	return get_num(c, v, 4);
}

static int get_u64(struct tcur *c, uint64_t *v)
{
	return get_num(c, v, 8);
}

/* A NUL-terminated string: *s and its length. */
static int get_str(struct tcur *c, const char **s, size_t *n)
{
	const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));

	if (!z)
		return -EBADMSG;
	*s = (const char *)c->p;
	*n = (size_t)(z - c->p);
	c->p = z + 1;
	return 0;
}

/* size bytes of text (size read as a u64, or a u32 with small). */
static int get_text(struct tcur *c, int small, const uint8_t **t, size_t *n)
{
	uint64_t size;
	uint32_t s32;

	if (small ? get_u32(c, &s32) : get_u64(c, &size))
		return -EBADMSG;
	if (small)
		size = s32;
	if (size > (uint64_t)(c->end - c->p))
		return -EBADMSG;
	*t = c->p;
	*n = (size_t)size;
	c->p += size;
	return 0;
}

/* A format as a PROF_BLOB_TRACE_FORMAT blob: the system, a NUL, the text. */
static int add_format(struct profile *p, const char *sys, size_t sn, const uint8_t *t, size_t n,
		      uint8_t **buf, size_t *cap)
{
	size_t need = sn + 1 + n;

	if (need > *cap) {
		uint8_t *b = realloc(*buf, need);

		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = need;
	}
	memcpy(*buf, sys, sn);
	(*buf)[sn] = 0;
	memcpy(*buf + sn + 1, t, n);
	return profile_add_blob(p, PROF_BLOB_TRACE_FORMAT, 0, 0, *buf, need);
}

/* The header: magic, version, byte order, long size, page size, the
 * header_page and header_event texts. */
static int parse_header(struct tcur *c, const uint8_t **hp, size_t *hn)
{
	const char *s;
	const uint8_t *t;
	size_t n;
	uint32_t page;

	if (c->end - c->p < MAGIC_LEN || memcmp(c->p, MAGIC, MAGIC_LEN))
		return -EBADMSG;
	c->p += MAGIC_LEN;
	if (get_str(c, &s, &n) || c->end - c->p < 2)
		return -EBADMSG;
	if (c->p[0] != 0 || c->p[1] != 8)
		return -EPROTONOSUPPORT;
	c->p += 2;
	if (get_u32(c, &page))
		return -EBADMSG;
	if (get_str(c, &s, &n) || strcmp(s, "header_page") || get_text(c, 0, hp, hn))
		return -EBADMSG;
	if (get_str(c, &s, &n) || strcmp(s, "header_event") || get_text(c, 0, &t, &n))
		return -EBADMSG;
	return 0;
}

/* Every format, checked (apply 0) or added to p (apply 1). */
static int parse_formats(struct tcur *c, struct profile *p, int apply, uint8_t **buf, size_t *cap)
{
	const uint8_t *t;
	const char *sys;
	uint32_t nr, nsys, i, k;
	size_t n, sn;
	int ret;

	if (get_u32(c, &nr) || nr > MAX_COUNT)
		return -EBADMSG;
	for (i = 0; i < nr; i++) {
		if (get_text(c, 0, &t, &n))
			return -EBADMSG;
		if (apply && (ret = add_format(p, "ftrace", 6, t, n, buf, cap)))
			return ret;
	}
	if (get_u32(c, &nsys) || nsys > MAX_COUNT)
		return -EBADMSG;
	for (k = 0; k < nsys; k++) {
		if (get_str(c, &sys, &sn) || get_u32(c, &nr) || nr > MAX_COUNT)
			return -EBADMSG;
		for (i = 0; i < nr; i++) {
			if (get_text(c, 0, &t, &n))
				return -EBADMSG;
			if (apply && (ret = add_format(p, sys, sn, t, n, buf, cap)))
				return ret;
		}
	}
	return 0;
}

int perftrace_parse(const void *d, size_t len, struct profile *p)
{
	struct tcur c = {d, (const uint8_t *)d + len}, f;
	const uint8_t *hp, *t;
	uint8_t *buf = NULL;
	size_t hn, n, cap = 0;
	int ret;

	if (len > PERFTRACE_MAX)
		return -EBADMSG;
	if ((ret = parse_header(&c, &hp, &hn)))
		return ret;
	f = c;
	/* all formats checked before any is added */
	if ((ret = parse_formats(&c, p, 0, &buf, &cap)))
		return ret;
	if ((ret = profile_add_blob(p, PROF_BLOB_TRACE_HEADER, 0, 0, hp, hn)) ||
	    (ret = parse_formats(&f, p, 1, &buf, &cap)))
		goto out;
	/* kallsyms (not kept), then the printk formats (bprint's strings) */
	if (!get_text(&c, 1, &t, &n) && !get_text(&c, 1, &t, &n) && n)
		ret = profile_add_blob(p, PROF_BLOB_TRACE_PRINTK, 0, 0, t, n);
out:
	free(buf);
	return ret;
}

/* A format blob split: its system (NUL-terminated in the blob) and text. */
static int split_format(const struct prof_blob *b, const char **sys, const char **text, size_t *n)
{
	const uint8_t *z;

	if (b->kind != PROF_BLOB_TRACE_FORMAT || !(z = memchr(b->data, 0, b->len)))
		return -1;
	*sys = (const char *)b->data;
	*text = (const char *)z + 1;
	*n = b->len - (size_t)(z - b->data) - 1;
	return 0;
}

/* The value after "KEY: " at a line start of text (n bytes), up to the line's end. */
static int line_value(const char *text, size_t n, const char *key, const char **v, size_t *vn)
{
	size_t kl = strlen(key), i = 0;

	while (i < n) {
		const char *e = memchr(text + i, '\n', n - i);
		size_t l = e ? (size_t)(e - text) - i : n - i;

		if (l > kl && !memcmp(text + i, key, kl)) {
			*v = text + i + kl;
			*vn = l - kl;
			return 0;
		}
		i += l + 1;
	}
	return -1;
}

int perftrace_event_id(const struct profile *p, const char *name, uint64_t *id)
{
	const char *c = strchr(name, ':'), *sys, *text, *v, *m;
	size_t i, n, vn, sl, nl;

	if (!c)
		return -ENOENT;
	sl = (size_t)(c - name);
	m = strchr(c + 1, ':');
	nl = m ? (size_t)(m - c - 1) : strlen(c + 1);
	for (i = 0; i < p->nr_blobs; i++) {
		char num[24];

		if (split_format(&p->blobs[i], &sys, &text, &n) || strlen(sys) != sl ||
		    memcmp(sys, name, sl) || line_value(text, n, "name: ", &v, &vn) || vn != nl ||
		    memcmp(v, c + 1, nl) || line_value(text, n, "ID: ", &v, &vn) ||
		    vn >= sizeof(num))
			continue;
		memcpy(num, v, vn);
		num[vn] = 0;
		*id = strtoull(num, NULL, 10);
		return 0;
	}
	return -ENOENT;
}

/* perf copies tracefs's events/header_event; its text has not changed in years */
static const char header_event[] = "# compressed entry header\n"
				   "\ttype_len    :    5 bits\n"
				   "\ttime_delta  :   27 bits\n"
				   "\tarray       :   32 bits\n"
				   "\n"
				   "\tpadding     : type == 29\n"
				   "\ttime_extend : type == 30\n"
				   "\ttime_stamp : type == 31\n"
				   "\tdata max type_len  == 28\n";

static void put_text(struct zbuf *out, int small, const void *d, size_t n)
{
	if (small) {
		uint32_t v = (uint32_t)n;

		zbuf_put(out, &v, 4);
	} else {
		uint64_t v = n;

		zbuf_put(out, &v, 8);
	}
	zbuf_put(out, d, n);
}

int perftrace_write(const struct profile *p, struct zbuf *out)
{
	const struct prof_blob *hp = profile_find_blob(p, PROF_BLOB_TRACE_HEADER, UINT32_MAX);
	const struct prof_blob *pk = profile_find_blob(p, PROF_BLOB_TRACE_PRINTK, UINT32_MAX);
	const char *sys, *text, *s2, *t2;
	uint32_t nsys = 0, cnt, page = 4096;
	size_t i, k, n, n2;
	uint8_t *done;
	uint64_t zero = 0;

	if (!profile_find_blob(p, PROF_BLOB_TRACE_FORMAT, UINT32_MAX))
		return -ENOENT;
	done = calloc(p->nr_blobs, 1);
	if (!done)
		return -ENOMEM;
	zbuf_put(out, MAGIC, MAGIC_LEN);
	zbuf_put(out, "0.6", 4);
	zbuf_put(out, "\0\010", 2); /* little-endian, sizeof(long) 8 */
	zbuf_put(out, &page, 4);
	zbuf_put(out, "header_page", 12);
	put_text(out, 0, hp ? hp->data : NULL, hp ? hp->len : 0);
	zbuf_put(out, "header_event", 13);
	put_text(out, 0, header_event, sizeof(header_event) - 1);
	zbuf_put(out, &zero, 4); /* no ftrace formats */
	/* the systems' count is patched in after grouping */
	k = out->len;
	zbuf_put(out, &zero, 4);
	nsys = 0;
	for (i = 0; i < p->nr_blobs; i++) {
		size_t cnt_at, j;

		if (done[i] || split_format(&p->blobs[i], &sys, &text, &n))
			continue;
		nsys++;
		zbuf_put(out, sys, strlen(sys) + 1);
		cnt_at = out->len;
		zbuf_put(out, &zero, 4);
		cnt = 0;
		for (j = i; j < p->nr_blobs; j++) {
			if (done[j] || split_format(&p->blobs[j], &s2, &t2, &n2) || strcmp(s2, sys))
				continue;
			done[j] = 1;
			put_text(out, 0, t2, n2);
			cnt++;
		}
		if (!out->err)
			memcpy(out->data + cnt_at, &cnt, 4);
	}
	if (!out->err)
		memcpy(out->data + k, &nsys, 4);
	zbuf_put(out, &zero, 4); /* no kallsyms */
	put_text(out, 1, pk ? pk->data : NULL, pk ? pk->len : 0);
	zbuf_put(out, &zero, 8); /* no saved_cmdlines */
	free(done);
	return out->err;
}
