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

static int get_u32(struct tcur *c, uint32_t *v)
{
	if (c->end - c->p < 4)
		return -EBADMSG;
	memcpy(v, c->p, 4);
	c->p += 4;
	return 0;
}

static int get_u64(struct tcur *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return -EBADMSG;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
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
