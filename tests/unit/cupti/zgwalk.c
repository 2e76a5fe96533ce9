/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A strict test reader of the GPU files (see zgwalk.h). */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/unit/cupti/zgwalk.h"

static int fail(struct zgw_file *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
	return -1;
}

size_t zgwalk_rec_size(uint32_t type)
{
	switch (type) {
	case ZG_KERNEL:
		return sizeof(struct zg_kernel);
	case ZG_MEMOP:
		return sizeof(struct zg_memop);
	case ZG_LAUNCH:
		return sizeof(struct zg_launch);
	case ZG_PCS:
		return sizeof(struct zg_pcs);
	case ZG_STALLS:
		return sizeof(struct zg_stall);
	case ZG_COUNTERS:
		return sizeof(struct zg_counters);
	case ZG_OVERHEAD:
		return sizeof(struct zg_overhead);
	}
	return 0;
}

/* the (off, len) string of a record at rec of a type with a pool */
static int rec_str(uint32_t type, const uint8_t *rec, uint32_t *off, uint32_t *len)
{
	size_t o;

	switch (type) {
	case ZG_KERNEL:
		o = offsetof(struct zg_kernel, name_off);
		break;
	case ZG_PCS:
		o = offsetof(struct zg_pcs, name_off);
		break;
	case ZG_STALLS:
		o = offsetof(struct zg_stall, name_off);
		break;
	default:
		return 0;
	}
	memcpy(off, rec + o, 4);
	memcpy(len, rec + o + 4, 4);
	return 1;
}

static int check_frame(struct zgw_file *f, const struct zgw_fr *fr, size_t at)
{
	size_t esz = zgwalk_rec_size(fr->type), i, pos;

	switch (fr->type) {
	case ZG_INFO:
		for (i = 0, pos = 0; i < fr->count; i++) {
			const uint8_t *k = memchr(fr->p + pos, 0, fr->len - pos), *v;

			if (!k)
				return fail(f, "frame at %zu: info %zu: key without NUL", at, i);
			v = memchr(k + 1, 0, fr->len - (size_t)(k + 1 - fr->p));
			if (!v)
				return fail(f, "frame at %zu: info %zu: value without NUL", at, i);
			pos = (size_t)(v + 1 - fr->p);
		}
		if (pos != fr->len)
			return fail(f, "frame at %zu: %zu info bytes left over", at, fr->len - pos);
		return 0;
	case ZG_STACK:
		for (i = 0, pos = 0; i < fr->count; i++) {
			uint32_t hd[2];

			if (fr->len - pos < 8)
				return fail(f, "frame at %zu: stack %zu cut", at, i);
			memcpy(hd, fr->p + pos, 8);
			if (hd[1] == 0 || (fr->len - pos - 8) / 8 < hd[1])
				return fail(f, "frame at %zu: stack %zu: %u ips", at, i, hd[1]);
			pos += 8 + 8 * (size_t)hd[1];
		}
		if (pos != fr->len)
			return fail(f, "frame at %zu: %zu stack bytes left over", at,
				    fr->len - pos);
		return 0;
	case ZG_CUBIN: {
		struct zg_cubin c;

		if (fr->count != 1 || fr->len < sizeof(c))
			return fail(f, "frame at %zu: cubin count %u len %u", at, fr->count,
				    fr->len);
		memcpy(&c, fr->p, sizeof(c));
		if (c.size != fr->len - sizeof(c))
			return fail(f, "frame at %zu: cubin size %llu, %zu bytes", at,
				    (unsigned long long)c.size, fr->len - sizeof(c));
		if (c.size < 4 || memcmp(fr->p + sizeof(c), "\177ELF", 4))
			return fail(f, "frame at %zu: cubin not ELF", at);
		return 0;
	}
	case ZG_COUNTERS:
		if (fr->count != 1 || fr->len != sizeof(struct zg_counters))
			return fail(f, "frame at %zu: counters count %u len %u", at, fr->count,
				    fr->len);
		return 0;
	}
	if (!esz)
		return fail(f, "frame at %zu: unknown type %u", at, fr->type);
	if (fr->count == 0 || (size_t)fr->count * esz > fr->len)
		return fail(f, "frame at %zu: type %u: %u records in %u bytes", at, fr->type,
			    fr->count, fr->len);
	if (fr->type == ZG_MEMOP || fr->type == ZG_LAUNCH || fr->type == ZG_OVERHEAD) {
		if ((size_t)fr->count * esz != fr->len)
			return fail(f, "frame at %zu: type %u has a pool", at, fr->type);
		return 0;
	}
	/* every pool byte is some record's string, every string in the pool */
	{
		size_t plen = fr->len - (size_t)fr->count * esz;
		uint8_t *used = calloc(plen + 1, 1);

		for (i = 0; i < fr->count; i++) {
			uint32_t off = 0, len = 0;

			rec_str(fr->type, fr->p + i * esz, &off, &len);
			if (len == 0)
				continue;
			if (off > plen || len > plen - off) {
				free(used);
				return fail(f,
					    "frame at %zu: record %zu: string %u+%u past the pool "
					    "(%zu)",
					    at, i, off, len, plen);
			}
			memset(used + off, 1, len);
		}
		for (i = 0; i < plen; i++)
			if (!used[i]) {
				free(used);
				return fail(f, "frame at %zu: pool byte %zu unused", at, i);
			}
		free(used);
	}
	return 0;
}

int zgwalk_load(struct zgw_file *f, const char *path)
{
	FILE *fp;
	size_t pos, cap = 0;
	long n;

	memset(f, 0, sizeof(*f));
	fp = fopen(path, "rb");
	if (!fp)
		return fail(f, "cannot open '%s'", path);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	f->data = malloc(n > 0 ? (size_t)n : 1);
	f->len = n > 0 ? (size_t)n : 0;
	if (f->len && fread(f->data, 1, f->len, fp) != f->len) {
		fclose(fp);
		return fail(f, "short read");
	}
	fclose(fp);
	if (f->len < sizeof(f->hdr))
		return fail(f, "%zu bytes: no header", f->len);
	memcpy(&f->hdr, f->data, sizeof(f->hdr));
	if (memcmp(f->hdr.magic, ZG_MAGIC, 8) || f->hdr.version != ZG_VERSION ||
	    f->hdr.hdr_size != sizeof(f->hdr) || f->hdr.reserved)
		return fail(f, "bad file header");
	for (pos = f->hdr.hdr_size; pos < f->len;) {
		struct zg_frame_hdr h;
		struct zgw_fr fr;

		if (f->len - pos < sizeof(h))
			return fail(f, "%zu bytes trail the last frame", f->len - pos);
		memcpy(&h, f->data + pos, sizeof(h));
		if (h.len > ZG_FRAME_MAX || h.len > f->len - pos - sizeof(h))
			return fail(f, "frame at %zu: len %u past the end", pos, h.len);
		fr = (struct zgw_fr){h.type, h.len, h.crc, h.count, f->data + pos + sizeof(h)};
		if ((uint32_t)crc32(0, fr.p, h.len) != h.crc)
			return fail(f, "frame at %zu: bad crc", pos);
		if (check_frame(f, &fr, pos))
			return -1;
		if (f->nfr == cap) {
			cap = cap ? 2 * cap : 64;
			f->fr = realloc(f->fr, cap * sizeof(*f->fr));
		}
		f->fr[f->nfr++] = fr;
		pos += sizeof(h) + h.len;
	}
	return 0;
}

void zgwalk_free(struct zgw_file *f)
{
	free(f->data);
	free(f->fr);
	memset(f, 0, sizeof(*f));
}

int zgwalk_find(const char *dir, char *path, size_t n)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int found = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > 3 && !strcmp(e->d_name + l - 3, ".zg")) {
			snprintf(path, n, "%s/%s", dir, e->d_name);
			found++;
		}
	}
	closedir(d);
	return found == 1 ? 0 : -1;
}

size_t zgwalk_count(const struct zgw_file *f, uint32_t type)
{
	size_t i, n = 0;

	for (i = 0; i < f->nfr; i++)
		if (f->fr[i].type == type)
			n += f->fr[i].count;
	return n;
}

size_t zgwalk_frames(const struct zgw_file *f, uint32_t type)
{
	size_t i, n = 0;

	for (i = 0; i < f->nfr; i++)
		n += f->fr[i].type == type;
	return n;
}

void zgwalk_each(const struct zgw_file *f, uint32_t type,
		 void (*fn)(const struct zgw_fr *fr, const void *rec, void *arg), void *arg)
{
	size_t esz = zgwalk_rec_size(type), i, j;

	for (i = 0; i < f->nfr; i++)
		if (f->fr[i].type == type)
			for (j = 0; j < f->fr[i].count; j++)
				fn(&f->fr[i], f->fr[i].p + j * esz, arg);
}

const char *zgwalk_str(const struct zgw_fr *fr, uint32_t off)
{
	return (const char *)fr->p + (size_t)fr->count * zgwalk_rec_size(fr->type) + off;
}

const char *zgwalk_info(const struct zgw_file *f, const char *key, int nth)
{
	size_t i, j;

	for (i = 0; i < f->nfr; i++) {
		const char *p = (const char *)f->fr[i].p;

		if (f->fr[i].type != ZG_INFO)
			continue;
		for (j = 0; j < f->fr[i].count; j++) {
			const char *v = p + strlen(p) + 1;

			if (!strcmp(p, key) && nth-- == 0)
				return v;
			p = v + strlen(v) + 1;
		}
	}
	return NULL;
}

int zgwalk_counters(const struct zgw_file *f, struct zg_counters *c)
{
	size_t i;
	int found = -1;

	for (i = 0; i < f->nfr; i++)
		if (f->fr[i].type == ZG_COUNTERS) {
			memcpy(c, f->fr[i].p, sizeof(*c));
			found = 0;
		}
	return found;
}

uint32_t zgwalk_stack(const struct zgw_file *f, uint32_t id, uint64_t *ips, uint32_t max)
{
	size_t i, j, pos;

	for (i = 0; i < f->nfr; i++) {
		if (f->fr[i].type != ZG_STACK)
			continue;
		for (j = 0, pos = 0; j < f->fr[i].count; j++) {
			uint32_t hd[2];

			memcpy(hd, f->fr[i].p + pos, 8);
			if (hd[0] == id) {
				memcpy(ips, f->fr[i].p + pos + 8,
				       8 * (size_t)(hd[1] < max ? hd[1] : max));
				return hd[1];
			}
			pos += 8 + 8 * (size_t)hd[1];
		}
	}
	return 0;
}

char *zgwalk_tmpdir(char *buf, size_t n)
{
	snprintf(buf, n, "/tmp/zt-cupti-test.XXXXXX");
	return mkdtemp(buf);
}

void zgwalk_rmdir(const char *dir)
{
	struct dirent *e;
	char p[4096];
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	closedir(d);
	rmdir(dir);
}

void zgwalk_get_launch(const struct zgw_fr *fr, const void *rec, void *arg)
{
	struct zgw_launches *ls = arg;

	if (ls->n < ZGW_KEEP)
		memcpy(&ls->l[ls->n], rec, sizeof(ls->l[0]));
	ls->n++;
}

void zgwalk_get_pcs(const struct zgw_fr *fr, const void *rec, void *arg)
{
	struct zgw_pcs_list *l = arg;

	if (l->n < ZGW_KEEP) {
		memcpy(&l->p[l->n], rec, sizeof(l->p[0]));
		snprintf(l->name[l->n], sizeof(l->name[0]), "%.*s", (int)l->p[l->n].name_len,
			 zgwalk_str(fr, l->p[l->n].name_off));
	}
	l->n++;
}
