// SPDX-License-Identifier: GPL-2.0-or-later
/* pprof import: a pushed pprof body validated and read into the profile model. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/pprofread.h"
#include "formats/profile.pb-c.h"
#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/log.h"
#include "libprof/text.h"
#include "libprof/zbuf.h"

typedef Perftools__Profiles__Profile PProfile;

struct pprof_body {
	PProfile *pb;		/* the decoded message: the strings lines and names borrow */
	struct pprof_loc *locs; /* by location index; valid where loc_first[i] >= 0 */
	struct pprof_line *lines;
	size_t nr_lines, cap_lines;
	const char **threads; /* tid - 1 -> its whole name; [0]: the process's */
	size_t nr_threads, cap_threads;
	const char *command;
	const char *unit; /* the weight type's unit ("" when unsaid) */
	uint64_t *counts; /* per sample of the profile: its count, when not its weight */
	size_t nr_locs, nr_frames; /* locations read, and the frames they give */
};

/* A location's address: its index + 1 in the range of its mapping (index
 * + 1; 0 for none), so that the mapping covers it. */
#define LOC_ADDR(mi, li) (((uint64_t)((mi) + 1) << 32) | (uint64_t)((li) + 1))
#define MAP_START(mi)	 ((uint64_t)((mi) + 1) << 32)
#define MAP_LEN		 (1ull << 32)

/* ---- gzip ------------------------------------------------------------------ */

static int gunzip(const void *in, size_t len, uint64_t max, struct zbuf *out, char *msg,
		  size_t msglen)
{
	z_stream z;
	int zr = Z_OK;
	/* room for the next inflate: from a guess by the input's size (a
	 * small body gets a small buffer), doubling up to 1 MiB */
	size_t room = len < (1 << 17) ? len * 8 + 4096 : 1 << 20;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)(len > UINT32_MAX ? UINT32_MAX : len);
	while (zr != Z_STREAM_END) {
		if (out->len && room < (1 << 20))
			room *= 2;
		if (zbuf_reserve(out, room)) {
			inflateEnd(&z);
			return -ENOMEM;
		}
		z.next_out = out->data + out->len;
		z.avail_out = (uInt)room;
		zr = inflate(&z, Z_NO_FLUSH);
		out->len += room - z.avail_out;
		if (out->len > max) {
			inflateEnd(&z);
			zt_say(msg, msglen, "the pprof is larger than %llu bytes decompressed",
			       (unsigned long long)max);
			return -EFBIG;
		}
		if (zr == Z_BUF_ERROR && !z.avail_in && len > z.total_in) {
			size_t used = z.total_in;

			z.next_in = (Bytef *)in + used;
			z.avail_in = (uInt)(len - used > UINT32_MAX ? UINT32_MAX : len - used);
			continue;
		}
		if (zr != Z_OK && zr != Z_STREAM_END) {
			inflateEnd(&z);
			zt_say(msg, msglen, "bad gzip data in the pprof: %s",
			       z.msg ? z.msg : "truncated");
			return zr == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
		}
	}
	inflateEnd(&z);
	return 0;
}

/* ---- reading ---------------------------------------------------------------- */

struct pp_ctx {
	struct pprof_body *b;
	struct profile *p;
	const PProfile *pb;
	char *msg; /* the refusal's sentence: the field and its value */
	size_t msglen;
	struct zt_htab loc_hash, map_hash, fn_hash;
	int64_t *loc_first;	  /* per location: its first line in b->lines, -1: not read yet */
	uint32_t *loc_nf;	  /* per location: the frames it gives (named lines, else 1) */
	uint64_t *loc_addr;	  /* per location: its address in the profile's stacks */
	uint8_t *map_added;	  /* per mapping: in the profile */
	uint32_t *str_tid;	  /* per string: the thread it names (0: none yet) */
	uint64_t samples, weight; /* the count and weight values so far */
};

/* Refuse the pprof: "bad pprof: " and what fmt says (the field and its
 * value), unless a sentence is there already. -EBADMSG. */
static int pp_bad(struct pp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int pp_bad(struct pp_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (!c->msg || !c->msglen || c->msg[0])
		return -EBADMSG;
	k = snprintf(c->msg, c->msglen, "bad pprof: ");
	if (k > 0 && (size_t)k < c->msglen) {
		va_start(ap, fmt);
		vsnprintf(c->msg + k, c->msglen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

/* Index the messages with ids; ids must be distinct and nonzero. */
#define INDEX_IDS(c, h, arr, nr, what)                                                             \
	do {                                                                                       \
		size_t i_, j_;                                                                     \
		uint32_t o_;                                                                       \
		if ((nr) > UINT32_MAX / 4 || zt_htab_reset(&(h), (nr)))                            \
			return -ENOMEM;                                                            \
		for (i_ = 0; i_ < (nr); i_++) {                                                    \
			uint64_t id_ = (arr)[i_]->id;                                              \
			if (!id_)                                                                  \
				return pp_bad(c, "%s[%zu] has id 0: ids are 1 or more", what, i_); \
			for (j_ = zt_htab_first(&(h), zt_hash_mix(0, id_));                        \
			     zt_htab_get(&(h), j_, &o_); j_ = zt_htab_next(&(h), j_))              \
				if ((arr)[o_]->id == id_)                                          \
					return pp_bad(c,                                           \
						      "%s[%zu] has id %" PRIu64 ", as %s[%" PRIu32 \
						      "] has",                                     \
						      what, i_, id_, what, o_);                    \
			zt_htab_set(&(h), j_, (uint32_t)i_);                                       \
		}                                                                                  \
	} while (0)

static int pp_index(struct pp_ctx *c)
{
	const PProfile *pb = c->pb;

	INDEX_IDS(c, c->loc_hash, pb->location, pb->n_location, "location");
	INDEX_IDS(c, c->map_hash, pb->mapping, pb->n_mapping, "mapping");
	INDEX_IDS(c, c->fn_hash, pb->function, pb->n_function, "function");
	return 0;
}

/* The index of the message with this id, or -1. */
#define FIND_ID(h, arr, id_)                                                          \
	({                                                                            \
		long r_ = -1;                                                         \
		size_t j_;                                                            \
		uint32_t o_;                                                          \
		if ((h).cap)                                                          \
			for (j_ = zt_htab_first(&(h), zt_hash_mix(0, (id_)));         \
			     zt_htab_get(&(h), j_, &o_); j_ = zt_htab_next(&(h), j_)) \
				if ((arr)[o_]->id == (id_)) {                         \
					r_ = o_;                                      \
					break;                                        \
				}                                                     \
		r_;                                                                   \
	})

static const char *pp_str(const PProfile *pb, int64_t i)
{
	return i >= 0 && (uint64_t)i < pb->n_string_table ? pb->string_table[i] : NULL;
}

/* The string at index i of the string table into *out, or a refusal
 * naming the field (fmt) and i. */
static int pp_string(struct pp_ctx *c, int64_t i, const char **out, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int pp_string(struct pp_ctx *c, int64_t i, const char **out, const char *fmt, ...)
{
	char field[96];
	va_list ap;

	*out = pp_str(c->pb, i);
	if (*out)
		return 0;
	va_start(ap, fmt);
	vsnprintf(field, sizeof(field), fmt, ap);
	va_end(ap);
	return pp_bad(c, "%s is %" PRId64 ", past the %zu strings of string_table", field, i,
		      c->pb->n_string_table);
}

/* A build id given as hex (2..40 digits, even), else len 0. */
static void parse_bid(const char *s, struct prof_build_id *b)
{
	b->len = 0;
	if (s)
		prof_build_id_from_hex(s, strlen(s), b);
}

/* Mapping mi (path: its file name) in the profile, once. */
static int pp_add_map(struct pp_ctx *c, long mi, const char *path)
{
	const Perftools__Profiles__Mapping *m = c->pb->mapping[mi];
	struct prof_mmap pm = {.pid = PPROF_PID,
			       .tid = PPROF_PID,
			       .start = MAP_START(mi),
			       .len = MAP_LEN,
			       .prot = 4 /* PROT_EXEC */,
			       .path = (char *)path};

	if (c->map_added[mi])
		return 0;
	parse_bid(pp_str(c->pb, m->build_id), &pm.build_id);
	c->map_added[mi] = 1;
	return profile_add_mmap(c->p, &pm);
}

/* Location li read into the body: its lines, or its module and offset. */
static int pp_location(struct pp_ctx *c, size_t li)
{
	const PProfile *pb = c->pb;
	const Perftools__Profiles__Location *l = pb->location[li];
	const Perftools__Profiles__Mapping *m = NULL;
	struct pprof_body *b = c->b;
	struct pprof_loc *loc = &b->locs[li];
	const char *module = "", *path = NULL;
	size_t i, first = b->nr_lines;
	long mi = -1;
	int ret;

	if (l->mapping_id) {
		mi = FIND_ID(c->map_hash, pb->mapping, l->mapping_id);
		if (mi < 0)
			return pp_bad(c,
				      "location[%zu] (id %" PRIu64 ") refers to mapping id %" PRIu64
				      ", which no mapping has",
				      li, l->id, l->mapping_id);
		m = pb->mapping[mi];
		if ((ret = pp_string(c, m->filename, &path, "mapping[%ld].filename", mi)))
			return ret;
		module = zt_base_name(path);
	}
	if (ZT_GROW(b->lines, b->cap_lines, b->nr_lines + l->n_line))
		return -ENOMEM;
	loc->named = 0;
	for (i = 0; i < l->n_line; i++) {
		long fi = FIND_ID(c->fn_hash, pb->function, l->line[i]->function_id);
		struct pprof_line *pl = &b->lines[b->nr_lines];
		const char *name;

		if (fi < 0)
			return pp_bad(c,
				      "location[%zu] (id %" PRIu64
				      ").line[%zu] refers to function id "
				      "%" PRIu64 ", which no function has",
				      li, l->id, i, l->line[i]->function_id);
		if ((ret = pp_string(c, pb->function[fi]->name, &name, "function[%ld].name", fi)) ||
		    (!name[0] && (ret = pp_string(c, pb->function[fi]->system_name, &name,
						  "function[%ld].system_name", fi))))
			return ret;
		pl->name = name;
		pl->file = pp_str(pb, pb->function[fi]->filename);
		if (!pl->file)
			pl->file = "";
		pl->line = l->line[i]->line > 0 && l->line[i]->line <= UINT32_MAX
				   ? (uint32_t)l->line[i]->line
				   : 0;
		b->nr_lines++;
		if (name[0])
			loc->named++;
	}
	loc->module = module;
	loc->offset = l->address;
	loc->nr_lines = (uint32_t)(b->nr_lines - first);
	if (!loc->named) {
		/* a frame of a module and offset: its lines, if any, name nothing */
		b->nr_lines = first;
		loc->nr_lines = 0;
		if (m && l->address >= m->memory_start && l->address < m->memory_limit)
			loc->offset = l->address - m->memory_start + m->file_offset;
		if (!module[0])
			loc->module = "[unknown]";
		/* its frame is its mapping's (build id, offset) */
		if (m && (ret = pp_add_map(c, mi, path)))
			return ret;
	}
	c->loc_first[li] = (int64_t)first;
	c->loc_addr[li] = LOC_ADDR(mi, li);
	c->loc_nf[li] = loc->named ? loc->named : 1;
	b->nr_locs++;
	b->nr_frames += loc->nr_lines ? loc->nr_lines : 1;
	return 0;
}

/* Which values are the sample count and the weight: the "samples" type
 * (else the first) and the default type (else the last). */
static void pp_value_index(const PProfile *pb, size_t *ci, size_t *wi)
{
	const char *def = pb->default_sample_type ? pp_str(pb, pb->default_sample_type) : NULL;
	size_t i;

	*ci = 0;
	*wi = pb->n_sample_type - 1;
	for (i = 0; i < pb->n_sample_type; i++) {
		const char *t = pp_str(pb, pb->sample_type[i]->type);

		if (t && !strcmp(t, "samples"))
			*ci = i;
		if (t && def && !strcmp(t, def))
			*wi = i;
	}
}

/* The thread named by string si (a "thread" label's value): made the
 * first time. */
static int pp_thread(struct pp_ctx *c, int64_t si, uint32_t *tid)
{
	struct pprof_body *b = c->b;
	struct prof_task t = {.kind = PROF_TASK_COMM, .pid = PPROF_PID};
	const char *name = c->pb->string_table[si];

	if (!c->str_tid && !(c->str_tid = calloc(c->pb->n_string_table, sizeof(*c->str_tid))))
		return -ENOMEM;
	if (c->str_tid[si]) {
		*tid = c->str_tid[si];
		return 0;
	}
	if (b->nr_threads >= UINT32_MAX - 1 ||
	    ZT_GROW(b->threads, b->cap_threads, b->nr_threads + 1))
		return -ENOMEM;
	b->threads[b->nr_threads++] = name;
	t.tid = (uint32_t)b->nr_threads;
	snprintf(t.comm, sizeof(t.comm), "%s", name);
	c->str_tid[si] = *tid = t.tid;
	return profile_add_task(c->p, &t);
}

/* The process and its thread, named after the main binary. */
static int pp_process(struct pp_ctx *c)
{
	const PProfile *pb = c->pb;
	struct prof_task t = {.kind = PROF_TASK_COMM, .pid = PPROF_PID, .tid = PPROF_PID};
	const char *cmd = "pprof";

	if (pb->n_mapping) {
		const char *f = pp_str(pb, pb->mapping[0]->filename);

		if (f && f[0] && f[0] != '[')
			cmd = zt_base_name(f);
	}
	c->b->command = cmd;
	if (ZT_GROW(c->b->threads, c->b->cap_threads, 1))
		return -ENOMEM;
	c->b->threads[c->b->nr_threads++] = cmd;
	snprintf(t.comm, sizeof(t.comm), "%s", cmd);
	return profile_add_task(c->p, &t);
}

/* The profile's event: the weight type. Room for the samples (and
 * their counts, when the count type is another) and their stacks, at
 * most one each, grown once. */
static int pp_events(struct pp_ctx *c, size_t ci, size_t wi)
{
	struct prof_event e = {.name = (char *)pp_str(c->pb, c->pb->sample_type[wi]->type)};
	struct profile *p = c->p;
	size_t n = c->pb->n_sample;

	c->b->unit = pp_str(c->pb, c->pb->sample_type[wi]->unit);
	if (ZT_GROW(p->samples, p->cap_samples, n + 1) ||
	    ZT_GROW(p->stacks, p->cap_stacks, n + 1) ||
	    (ci != wi && !(c->b->counts = malloc((n + 1) * sizeof(*c->b->counts)))))
		return -ENOMEM;
	return profile_add_event(c->p, &e, NULL);
}

static int pp_samples(struct pp_ctx *c, size_t ci, size_t wi)
{
	const PProfile *pb = c->pb;
	uint64_t *ips = NULL;
	size_t cap = 0, i, k;
	int ret = 0;

	for (i = 0; i < pb->n_sample && !ret; i++) {
		const Perftools__Profiles__Sample *s = pb->sample[i];
		struct prof_sample ps = {.pid = PPROF_PID, .tid = PPROF_PID};
		int64_t thread = -1;
		size_t nf = 0, na = 0;

		if (s->n_value != pb->n_sample_type) {
			ret = pp_bad(c, "sample[%zu] has %zu values for %zu sample types", i,
				     s->n_value, pb->n_sample_type);
			break;
		}
		for (k = 0; k < s->n_value; k++)
			if (s->value[k] < 0) {
				ret = pp_bad(c,
					     "sample[%zu].value[%zu] is %" PRId64
					     ": values are 0 or more",
					     i, k, s->value[k]);
				break;
			}
		if (ret)
			break;
		/* the totals are kept as signed 64-bit numbers */
		if ((uint64_t)s->value[ci] > (uint64_t)INT64_MAX - c->samples ||
		    (uint64_t)s->value[wi] > (uint64_t)INT64_MAX - c->weight) {
			k = (uint64_t)s->value[ci] > (uint64_t)INT64_MAX - c->samples ? ci : wi;
			ret = pp_bad(c,
				     "sample[%zu].value[%zu] is %" PRId64
				     ": the samples' value[%zu] add up past %" PRId64,
				     i, k, s->value[k], k, INT64_MAX);
			break;
		}
		c->samples += (uint64_t)s->value[ci];
		c->weight += (uint64_t)s->value[wi];
		if (!s->value[ci] && !s->value[wi])
			continue;
		for (k = 0; k < s->n_label; k++) {
			const char *key, *v;

			if ((ret = pp_string(c, s->label[k]->key, &key,
					     "sample[%zu].label[%zu].key", i, k)) ||
			    (ret = pp_string(c, s->label[k]->str, &v, "sample[%zu].label[%zu].str",
					     i, k)))
				break;
			if (!strcmp(key, "thread") && v[0])
				thread = s->label[k]->str;
		}
		if (ret)
			break;
		for (k = 0; k < s->n_location_id; k++) {
			long li = FIND_ID(c->loc_hash, pb->location, s->location_id[k]);

			if (li < 0) {
				ret = pp_bad(c,
					     "sample[%zu].location_id[%zu] is %" PRIu64
					     ", which no location has",
					     i, k, s->location_id[k]);
				break;
			}
			if (c->loc_first[li] < 0 && (ret = pp_location(c, (size_t)li)))
				break;
			if (nf + c->loc_nf[li] + 1 > 2 * ZT_MAX_FRAMES + 1)
				continue; /* too deep: cut, as the recorder does */
			if (ZT_GROW(ips, cap, na + 1)) {
				ret = -ENOMEM;
				break;
			}
			ips[na++] = c->loc_addr[li];
			nf += c->loc_nf[li];
		}
		if (!ret && thread >= 0)
			ret = pp_thread(c, thread, &ps.tid);
		if (!ret)
			ret = profile_intern_ustack(c->p, ips, (unsigned)na, &ps.stack);
		if (!ret && c->b->counts)
			c->b->counts[c->p->nr_samples] = (uint64_t)s->value[ci];
		if (!ret) {
			ps.weight = (uint64_t)s->value[wi];
			ret = profile_add_sample(c->p, &ps);
		}
	}
	free(ips);
	return ret;
}

/* A decoded message read into the profile. */
static int pp_read(struct pp_ctx *c)
{
	const PProfile *pb = c->pb;
	const char *t;
	size_t ci, wi, i;
	int ret;

	for (i = 0; i < pb->n_sample_type; i++)
		if ((ret = pp_string(c, pb->sample_type[i]->type, &t, "sample_type[%zu].type", i)))
			return ret;
	pp_value_index(pb, &ci, &wi);
	ret = pp_index(c);
	if (ret)
		return ret;
	c->loc_first = malloc((pb->n_location + 1) * sizeof(*c->loc_first));
	c->loc_nf = calloc(pb->n_location + 1, sizeof(*c->loc_nf));
	c->loc_addr = malloc((pb->n_location + 1) * sizeof(*c->loc_addr));
	c->map_added = calloc(pb->n_mapping + 1, 1);
	c->b->locs = calloc(pb->n_location + 1, sizeof(*c->b->locs));
	if (!c->loc_first || !c->loc_nf || !c->loc_addr || !c->map_added || !c->b->locs)
		return -ENOMEM;
	for (i = 0; i < pb->n_location; i++)
		c->loc_first[i] = -1;
	ret = pp_process(c);
	if (!ret)
		ret = pp_events(c, ci, wi);
	if (!ret)
		ret = pp_samples(c, ci, wi);
	if (ret)
		return ret;
	/* the lines are where they stay: point the locations at them */
	for (i = 0; i < pb->n_location; i++)
		if (c->loc_first[i] >= 0)
			c->b->locs[i].lines = c->b->lines + c->loc_first[i];
	return 0;
}

/* The message in data (len bytes; gz: the bytes of a gzip body, in raw,
 * which goes once decoded: the message has copies of its strings) read. */
static int read_raw(struct pprof_body *b, struct profile *p, const uint8_t *data, size_t len,
		    struct zbuf *gz, char *msg, size_t msglen)
{
	struct pp_ctx c = {.b = b, .p = p, .msg = msg, .msglen = msglen};
	PProfile *pb = perftools__profiles__profile__unpack(NULL, len, data);
	const char *why = NULL;
	char first[48];
	int ret;

	if (gz)
		zbuf_release(gz);
	b->pb = pb;
	if (!pb)
		why = "it is not a profile.proto message";
	else if (!pb->n_sample_type)
		why = "it has no sample_type";
	else if (!pb->n_string_table)
		why = "its string_table is empty";
	else if (pb->string_table[0][0]) {
		zt_clean_name(first, sizeof(first), pb->string_table[0]);
		why = first;
	}
	if (why) {
		/* raw bytes are taken for a pprof only when they look like one */
		if (gz)
			zt_say(msg, msglen,
			       why == first ? "bad pprof: string_table[0] is '%s', not \"\""
					    : "bad pprof: the gzip data is not a pprof profile: %s",
			       why);
		return gz ? -EBADMSG : -EMEDIUMTYPE;
	}
	c.pb = pb;
	ret = pp_read(&c);
	if (ret == -EBADMSG)
		pp_bad(&c, "a sample, location or mapping refers to what is not there");
	free(c.loc_first);
	free(c.loc_nf);
	free(c.loc_addr);
	free(c.map_added);
	free(c.str_tid);
	zt_htab_release(&c.loc_hash);
	zt_htab_release(&c.map_hash);
	zt_htab_release(&c.fn_hash);
	return ret;
}

int pprof_read_mem(const void *data, size_t len, uint64_t max_decoded, struct profile *p,
		   struct pprof_body **out, char *msg, size_t msglen)
{
	const uint8_t *body = data;
	struct pprof_body *b = calloc(1, sizeof(*b));
	struct zbuf raw;
	int ret;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	if (!max_decoded)
		max_decoded = PPROF_DEFAULT_MAX_DECODED;
	if (len < 2 || body[0] != 0x1f || body[1] != 0x8b) {
		ret = read_raw(b, p, body, len, NULL, msg, msglen);
	} else {
		zbuf_init(&raw);
		ret = gunzip(body, len, max_decoded, &raw, msg, msglen);
		if (!ret)
			ret = read_raw(b, p, raw.data, raw.len, &raw, msg, msglen);
		zbuf_release(&raw);
	}
	if (ret) {
		pprof_body_free(b);
		return ret;
	}
	*out = b;
	return 0;
}

void pprof_body_free(struct pprof_body *b)
{
	if (!b)
		return;
	if (b->pb)
		perftools__profiles__profile__free_unpacked(b->pb, NULL);
	free(b->locs);
	free(b->lines);
	free(b->threads);
	free(b->counts);
	free(b);
}

const struct pprof_loc *pprof_body_loc(const struct pprof_body *b, uint64_t addr)
{
	uint64_t li = (addr & 0xffffffffu) - 1;
	const struct pprof_loc *l;

	if (li >= b->pb->n_location)
		return NULL;
	l = &b->locs[li];
	return l->module ? l : NULL; /* read: every read location has a module */
}

size_t pprof_body_loc_index(const struct pprof_body *b, uint64_t addr)
{
	const struct pprof_loc *l = pprof_body_loc(b, addr);

	return l ? (size_t)(l - b->locs) : SIZE_MAX;
}

size_t pprof_body_nr_locs(const struct pprof_body *b)
{
	return b->pb->n_location;
}

void pprof_body_size(const struct pprof_body *b, size_t *locs, size_t *frames)
{
	*locs = b->nr_locs;
	*frames = b->nr_frames;
}

const uint64_t *pprof_body_counts(const struct pprof_body *b)
{
	return b->counts;
}

const char *pprof_body_thread(const struct pprof_body *b, uint32_t tid)
{
	return tid && tid <= b->nr_threads ? b->threads[tid - 1] : NULL;
}

const char *pprof_body_unit(const struct pprof_body *b)
{
	return b->unit ? b->unit : "";
}

const char *pprof_body_command(const struct pprof_body *b)
{
	return b->command;
}

void pprof_body_times(const struct pprof_body *b, int64_t *time_nanos, int64_t *duration_nanos)
{
	*time_nanos = b->pb->time_nanos;
	*duration_nanos = b->pb->duration_nanos;
}
