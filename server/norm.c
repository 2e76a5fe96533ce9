// SPDX-License-Identifier: GPL-2.0-or-later
/* A received zt.data or pprof body reduced to stacks of frame keys. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/profile.pb-c.h"
#include "formats/stackgroups.h"
#include "formats/ztdata.h"
#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/log.h"
#include "libprof/text.h"
#include "server/norm.h"
#include "session/session.h"

#define NAME_MAX_LEN 4096 /* longer names are cut */
#define STR_MAX 65536     /* strings in a key */
#define DEFAULT_MAX_DECODED (512ull << 20)

/* ---- frame keys ------------------------------------------------------------ */

static void put_str0(struct zbuf *b, const char *s)
{
	size_t n = strlen(s);

	zbuf_put_uv(b, n);
	zbuf_put(b, s, n);
	zbuf_put_u8(b, 0);
}

int zs_fkey_encode(struct zbuf *b, const struct zs_fkey *k)
{
	zbuf_put_u8(b, k->kind);
	zbuf_put_u8(b, k->flags);
	switch (k->kind) {
	case ZS_FK_ADDR:
		if (k->bid.len > ZT_BUILD_ID_MAX)
			return -EINVAL;
		zbuf_put_u8(b, k->bid.len);
		zbuf_put(b, k->bid.data, k->bid.len);
		zbuf_put_uv(b, k->off);
		if (strlen(k->module) >= STR_MAX)
			return -EINVAL;
		put_str0(b, k->module);
		break;
	case ZS_FK_NAMED:
		if (strlen(k->module) >= STR_MAX || strlen(k->name) >= STR_MAX)
			return -EINVAL;
		put_str0(b, k->module);
		put_str0(b, k->name);
		break;
	case ZS_FK_UNRESOLVED:
		if (strlen(k->module) >= STR_MAX)
			return -EINVAL;
		put_str0(b, k->module);
		zbuf_put_uv(b, k->off);
		break;
	default:
		return -EINVAL;
	}
	return b->err ? -ENOMEM : 0;
}

static int get_str0(struct zcur *c, const char **s)
{
	const uint8_t *p;
	uint64_t n;

	if (zcur_uv(c, &n) || n >= STR_MAX || zcur_left(c) < n + 1)
		return -EBADMSG;
	p = c->p;
	if (p[n] || memchr(p, 0, n))
		return -EBADMSG;
	c->p += n + 1;
	*s = (const char *)p;
	return 0;
}

int zs_fkey_decode(const void *p, size_t n, struct zs_fkey *k)
{
	struct zcur c;
	uint8_t len;

	memset(k, 0, sizeof(*k));
	zcur_init(&c, p, n);
	if (zcur_u8(&c, &k->kind) || zcur_u8(&c, &k->flags))
		return -EBADMSG;
	switch (k->kind) {
	case ZS_FK_ADDR:
		if (zcur_u8(&c, &len) || len > ZT_BUILD_ID_MAX || zcur_raw(&c, k->bid.data, len) ||
		    zcur_uv(&c, &k->off) || get_str0(&c, &k->module))
			return -EBADMSG;
		k->bid.len = len;
		break;
	case ZS_FK_NAMED:
		if (get_str0(&c, &k->module) || get_str0(&c, &k->name))
			return -EBADMSG;
		break;
	case ZS_FK_UNRESOLVED:
		if (get_str0(&c, &k->module) || zcur_uv(&c, &k->off))
			return -EBADMSG;
		break;
	default:
		return -EBADMSG;
	}
	return zcur_left(&c) ? -EBADMSG : 0;
}

/* ---- the normalized profile ------------------------------------------------ */

void zs_norm_init(struct zs_norm *n)
{
	memset(n, 0, sizeof(*n));
	zbuf_init(&n->keys);
	n->format = "";
}

void zs_norm_release(struct zs_norm *n)
{
	free(n->host);
	free(n->command);
	free(n->event);
	zbuf_release(&n->keys);
	free(n->key_off);
	free(n->sframes);
	free(n->stacks);
	free(n->bids);
	zt_htab_release(&n->fhash);
	zt_htab_release(&n->shash);
	zs_norm_init(n);
}

static inline uint64_t key_hash_at(const void *ctx, uint32_t i)
{
	const struct zs_norm *n = ctx;
	size_t len;
	const uint8_t *k = zs_norm_key(n, i, &len);

	return zt_hash_bytes(k, len);
}

/* The index of the frame whose key was just encoded at the end of
 * n->keys (from n->key_off[nr_frames]): an existing one (the bytes are
 * dropped) or a new one. -ENOMEM. */
static int intern_last_key(struct zs_norm *n, uint32_t *out)
{
	size_t start = n->key_off[n->nr_frames], len = n->keys.len - start, j;
	uint64_t h = zt_hash_bytes(n->keys.data + start, len);
	uint32_t i;

	if (zt_htab_reserve(&n->fhash, 1, key_hash_at, n))
		return -ENOMEM;
	for (j = zt_htab_first(&n->fhash, h); zt_htab_get(&n->fhash, j, &i);
	     j = zt_htab_next(&n->fhash, j)) {
		size_t il;
		const uint8_t *ik = zs_norm_key(n, i, &il);

		if (il == len && !memcmp(ik, n->keys.data + start, len)) {
			n->keys.len = start;
			*out = i;
			return 0;
		}
	}
	if (n->nr_frames + 2 > UINT32_MAX || n->keys.len > UINT32_MAX ||
	    ZT_GROW(n->key_off, n->cap_off, n->nr_frames + 2))
		return -ENOMEM;
	n->key_off[n->nr_frames + 1] = (uint32_t)n->keys.len;
	zt_htab_set(&n->fhash, j, (uint32_t)n->nr_frames);
	*out = (uint32_t)n->nr_frames++;
	return 0;
}

static int add_bid(struct zs_norm *n, const struct prof_build_id *b)
{
	size_t i;

	for (i = 0; i < n->nr_bids; i++)
		if (n->bids[i].len == b->len && !memcmp(n->bids[i].data, b->data, b->len))
			return 0;
	if (ZT_GROW(n->bids, n->cap_bids, n->nr_bids + 1))
		return -ENOMEM;
	n->bids[n->nr_bids++] = *b;
	return 0;
}

static int add_frame(struct zs_norm *n, const struct zs_fkey *k, uint32_t *out)
{
	size_t before = n->nr_frames;
	int ret;

	if (!n->key_off) {
		if (ZT_GROW(n->key_off, n->cap_off, 2))
			return -ENOMEM;
		n->key_off[0] = 0;
	}
	ret = zs_fkey_encode(&n->keys, k);
	if (ret) {
		n->keys.len = n->key_off[n->nr_frames];
		n->keys.err = 0;
		return ret;
	}
	ret = intern_last_key(n, out);
	if (!ret && n->nr_frames > before && k->kind == ZS_FK_ADDR)
		ret = add_bid(n, &k->bid);
	return ret;
}

static inline uint64_t stack_hash(const uint32_t *f, uint32_t nf)
{
	uint64_t h = nf;
	uint32_t i;

	for (i = 0; i < nf; i++)
		h = zt_hash_mix(h, f[i]);
	return zt_hash_mix(h, 0x51);
}

static inline uint64_t stack_hash_at(const void *ctx, uint32_t i)
{
	const struct zs_norm *n = ctx;

	return stack_hash(n->sframes + n->stacks[i].off, n->stacks[i].n);
}

/* Count a sample of stack f[0 .. nf) (leaf first, root last). */
static int add_stack(struct zs_norm *n, const uint32_t *f, uint32_t nf, uint64_t count,
		     uint64_t weight, uint32_t *idx)
{
	uint64_t h = stack_hash(f, nf);
	uint32_t i;
	size_t j;

	if (zt_htab_reserve(&n->shash, 1, stack_hash_at, n))
		return -ENOMEM;
	for (j = zt_htab_first(&n->shash, h); zt_htab_get(&n->shash, j, &i);
	     j = zt_htab_next(&n->shash, j)) {
		struct zs_nstack *s = &n->stacks[i];

		if (s->n == nf && !memcmp(n->sframes + s->off, f, nf * sizeof(*f))) {
			s->count += count;
			s->weight += weight;
			if (idx)
				*idx = i;
			goto done;
		}
	}
	if (n->nr_sframes + nf > UINT32_MAX || n->nr_stacks >= UINT32_MAX - 1 ||
	    ZT_GROW(n->sframes, n->cap_sframes, n->nr_sframes + nf) ||
	    ZT_GROW(n->stacks, n->cap_stacks, n->nr_stacks + 1))
		return -ENOMEM;
	memcpy(n->sframes + n->nr_sframes, f, nf * sizeof(*f));
	n->stacks[n->nr_stacks] = (struct zs_nstack){ (uint32_t)n->nr_sframes, nf, count, weight };
	n->nr_sframes += nf;
	if (idx)
		*idx = (uint32_t)n->nr_stacks;
	zt_htab_set(&n->shash, j, (uint32_t)n->nr_stacks++);
done:
	n->samples += count;
	n->weight += weight;
	return 0;
}

/* A printable copy of a name from the profile: control characters and
 * bytes that are not UTF-8 become '?', cut at NAME_MAX_LEN bytes. */
static void clean_name(char *out, size_t size, const char *in)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;

	while (*s && o + 5 < size) {
		unsigned c = *s, len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
						      : (c & 0xf8) == 0xf0 ? 4 : 0, k;

		if (len > 1 && c >= 0xc2 && c <= 0xf4) {
			for (k = 1; k < len && (s[k] & 0xc0) == 0x80; k++)
				;
			if (k == len) {
				memcpy(out + o, s, len);
				o += len;
				s += len;
				continue;
			}
		}
		out[o++] = (len == 1 && c >= 0x20 && c != 0x7f) ? (char)c : '?';
		s++;
	}
	out[o] = 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

static int set_str(char **dst, const char *src)
{
	char buf[NAME_MAX_LEN];

	clean_name(buf, sizeof(buf), src ? src : "");
	free(*dst);
	*dst = strdup(buf);
	return *dst ? 0 : -ENOMEM;
}

/* ---- zt.data ----------------------------------------------------------------- */

struct zt_ctx {
	struct zs_norm *n;
	/* the recording read by the session every command uses: kernel and
	 * JIT frames named from the recording (its kallsyms lines, perf maps
	 * and jitdumps), by the same resolver; no file is opened */
	struct session ses;
	/* its samples in groups that normalize alike (one stack, address
	 * space and thread name), each normalized once */
	struct stackgroups sg;
	uint32_t *gstack; /* group -> its normalized stack */
	size_t cap_gstack;
};

static int named(struct zs_norm *n, const char *module, const char *name, uint8_t flags,
		 uint32_t *out)
{
	char buf[NAME_MAX_LEN];
	struct zs_fkey k = { .kind = ZS_FK_NAMED, .flags = flags, .module = module, .name = buf };

	clean_name(buf, sizeof(buf), name);
	return add_frame(n, &k, out);
}

static int unresolved(struct zs_norm *n, const char *module, uint64_t off, uint8_t flags,
		      uint32_t *out)
{
	char buf[NAME_MAX_LEN];
	struct zs_fkey k = { .kind = ZS_FK_UNRESOLVED, .flags = flags, .module = buf, .off = off };

	clean_name(buf, sizeof(buf), module);
	return add_frame(n, &k, out);
}

/* The key of the frame f an address resolved to (the function's, after
 * any inlined ones), mapped by m in the sample's process: a named kernel
 * or JIT frame as named; a file's frame by build id and file offset,
 * symbolized at query time (ADDR), or without a build id its module and
 * offset (UNRESOLVED). */
static int frame_key(struct zt_ctx *c, const struct zt_frame *f, const struct prof_mmap *m,
		     uint32_t *out)
{
	if (f->kernel)
		return f->sym ? named(c->n, f->module, f->sym, ZS_FF_KERNEL, out)
			      : unresolved(c->n, f->module, f->offset, ZS_FF_KERNEL, out);
	if (f->sym) /* a perf map's, a jitdump's or another source's: files are not read */
		return named(c->n, f->module, f->sym, f->jit ? ZS_FF_JIT : 0, out);
	if (m && !prof_path_is_anon(m->path) && m->build_id.len) {
		char mod[NAME_MAX_LEN];
		struct zs_fkey k = { .kind = ZS_FK_ADDR, .bid = m->build_id, .off = f->offset,
				     .module = mod };

		clean_name(mod, sizeof(mod), base_name(m->path));
		return add_frame(c->n, &k, out);
	}
	return unresolved(c->n, f->module, f->offset, 0, out);
}

/* The workload's name from meta "cmdline" ("zt record -g -- ./app x"):
 * the base name of the first word after "--"; "-a" for a system-wide
 * recording without a workload; else NULL. */
static int command_from_cmdline(struct zs_norm *n, const char *cmd)
{
	const char *s, *w;
	char word[NAME_MAX_LEN];
	size_t len;

	if (!cmd)
		return 1;
	for (s = cmd; (s = strstr(s, "--")); s += 2) {
		if ((s == cmd || s[-1] == ' ') && (s[2] == ' ' || !s[2]))
			break;
	}
	if (s) {
		w = s + 2;
		while (*w == ' ')
			w++;
		len = strcspn(w, " ");
		if (!len)
			return 1;
		snprintf(word, sizeof(word), "%.*s", (int)len, w);
		return set_str(&n->command, base_name(word));
	}
	for (s = cmd; *s; s += len) {
		while (*s == ' ')
			s++;
		len = strcspn(s, " ");
		if ((len == 2 && !strncmp(s, "-a", 2)) || (len == 11 && !strncmp(s, "--all-cpus", 10)))
			return set_str(&n->command, "-a");
		if (!len)
			break;
	}
	return 1;
}

static int64_t meta_i64(const struct profile *p, const char *key)
{
	const char *v = profile_get_meta(p, key);

	return v ? strtoll(v, NULL, 10) : 0;
}

/* The metadata of a read recording: host, command, event, times. */
static int zt_meta(struct zs_norm *n, const struct profile *p)
{
	int64_t wall = meta_i64(p, "wallclock_start"), t0 = meta_i64(p, "time_start"),
		t1 = meta_i64(p, "time_end");
	int ret;

	n->format = "zt.data";
	ret = set_str(&n->host, profile_get_meta(p, "hostname"));
	if (!ret)
		ret = set_str(&n->event, profile_get_meta(p, "event"));
	if (ret)
		return ret;
	if (wall > 0) {
		n->time_start = wall;
		n->time_end = wall + (t1 > t0 ? (t1 - t0 + 999999999) / 1000000000 : 0);
	}
	ret = command_from_cmdline(n, profile_get_meta(p, "cmdline"));
	return ret <= 0 ? ret : 1; /* 1: decide from the samples */
}

/* Without a workload in the command line: the name of the thread root
 * with the most samples. */
static int command_from_roots(struct zs_norm *n)
{
	uint64_t best = 0;
	const char *name = "";
	struct zs_fkey k;
	size_t i, len;

	for (i = 0; i < n->nr_stacks; i++) {
		const struct zs_nstack *s = &n->stacks[i];
		const uint8_t *key = zs_norm_key(n, n->sframes[s->off + s->n - 1], &len);

		if (s->count > best && !zs_fkey_decode(key, len, &k) && k.kind == ZS_FK_NAMED) {
			best = s->count;
			name = k.name;
		}
	}
	return set_str(&n->command, name);
}

static void zt_ctx_release(struct zt_ctx *c)
{
	free(c->gstack);
	stackgroups_release(&c->sg);
	session_close(&c->ses);
}

/* A new group's normalized stack: its frames, leaf first, then its
 * thread's name as the root. */
static int norm_group(struct zt_ctx *c, uint32_t g, uint32_t *nstack)
{
	const struct stackgroup *gr = &c->sg.groups[g];
	const struct rstacks *rs = session_stacks(&c->ses);
	const struct zt_frange *r;
	const uint64_t *ips;
	uint32_t frames[2 * ZT_MAX_FRAMES + 1], nf = 0;
	const char *name;
	char buf[32];
	unsigned k, n;
	int ret;

	ret = stackgroups_resolve(&c->sg, g, 2 * ZT_MAX_FRAMES, &ips, &r, &n);
	for (k = 0; k < n && !ret; k++)
		ret = frame_key(c, rstacks_frame(rs, r[k].first + r[k].n - 1), r[k].map,
				&frames[nf++]);
	if (ret)
		return ret;
	name = prof_comm_or_pid(gr->comm, gr->pid, buf, sizeof(buf));
	ret = named(c->n, "", name, ZS_FF_ROOT, &frames[nf++]);
	return ret ? ret : add_stack(c->n, frames, nf, 0, 0, nstack);
}

/* The samples, each group of samples that normalize alike normalized
 * once: a recording has some thousands of distinct stacks for its tens
 * of thousands of samples. */
static int norm_samples(struct zt_ctx *c, char *msg, size_t msglen)
{
	const struct profile *p = &c->ses.prof;
	const struct rstacks *rs = session_stacks(&c->ses);
	size_t i;
	int ret = 0;

	stackgroups_init(&c->sg, rs);
	for (i = 0; i < p->nr_samples && !ret; i++) {
		const struct prof_sample *s = &p->samples[i];
		struct zs_nstack *ns;
		uint32_t g;
		int added;

		if (s->stack >= p->nr_stacks) {
			zt_say(msg, msglen,
			       "bad zt.data: sample %zu refers to stack %" PRIu32
			       ", and the recording has %zu stacks",
			       i, s->stack, p->nr_stacks);
			return -EBADMSG;
		}
		if (s->weight > (uint64_t)INT64_MAX - c->n->weight) {
			zt_say(msg, msglen,
			       "bad zt.data: sample %zu has weight %" PRIu64
			       ": the samples' weights add up past %" PRId64,
			       i, s->weight, INT64_MAX);
			return -EBADMSG;
		}
		ret = stackgroups_add(&c->sg, s, rstacks_comm(rs, s->pid, s->tid, s->ts), 0, &g,
				      &added);
		if (!ret && added) {
			if (ZT_GROW(c->gstack, c->cap_gstack, c->sg.nr))
				return -ENOMEM;
			ret = norm_group(c, g, &c->gstack[g]);
		}
		if (ret)
			break;
		ns = &c->n->stacks[c->gstack[g]];
		ns->count++;
		ns->weight += s->weight;
		c->n->samples++;
		c->n->weight += s->weight;
	}
	return ret;
}

static int norm_ztdata(struct zs_norm *n, const void *body, size_t len, char *msg, size_t msglen)
{
	struct zt_ctx c = { .n = n };
	struct session_opts so = { .sources = n->sources, .nr_sources = n->nr_sources };
	int ret, need_cmd;

	ret = session_open_pushed(&c.ses, body, len, &so, msg, msglen);
	if (ret)
		return ret;
	ret = need_cmd = zt_meta(n, &c.ses.prof);
	if (ret >= 0)
		ret = norm_samples(&c, msg, msglen);
	if (!ret && need_cmd)
		ret = command_from_roots(n);
	zt_ctx_release(&c);
	return ret;
}

/* ---- pprof ------------------------------------------------------------------- */

static int gunzip(const void *in, size_t len, uint64_t max, struct zbuf *out, char *msg,
		  size_t msglen)
{
	z_stream z;
	int zr = Z_OK;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)(len > UINT32_MAX ? UINT32_MAX : len);
	while (zr != Z_STREAM_END) {
		size_t room = 1 << 20;

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
			zt_say(msg, msglen, "bad gzip data in the pprof: %s", z.msg ? z.msg : "truncated");
			return zr == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
		}
	}
	inflateEnd(&z);
	return 0;
}

typedef Perftools__Profiles__Profile PProfile;

struct pp_ctx {
	struct zs_norm *n;
	const PProfile *pb;
	char *msg; /* the refusal's sentence: the field and its value */
	size_t msglen;
	struct zt_htab loc_hash, map_hash, fn_hash;
	int64_t *loc_frames; /* per location: first index into lframes, -1: not yet */
	uint32_t *loc_nf;
	uint32_t *lframes;
	size_t nr_lframes, cap_lframes;
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
#define FIND_ID(h, arr, id_)                                                                \
	({                                                                                  \
		long r_ = -1;                                                               \
		size_t j_;                                                                  \
		uint32_t o_;                                                                \
		if ((h).cap)                                                                \
			for (j_ = zt_htab_first(&(h), zt_hash_mix(0, (id_)));               \
			     zt_htab_get(&(h), j_, &o_); j_ = zt_htab_next(&(h), j_))       \
				if ((arr)[o_]->id == (id_)) {                               \
					r_ = o_;                                            \
					break;                                              \
				}                                                           \
		r_;                                                                         \
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
	size_t n = s ? strlen(s) : 0;

	b->len = 0;
	if (n < 2 || n > 2 * ZT_BUILD_ID_MAX || n % 2 || zt_hex_decode(s, n / 2, b->data))
		return;
	b->len = (uint8_t)(n / 2);
}

/* The frames of location li (leaf first) into c->lframes. */
static int pp_location(struct pp_ctx *c, size_t li)
{
	const PProfile *pb = c->pb;
	const Perftools__Profiles__Location *l = pb->location[li];
	const Perftools__Profiles__Mapping *m = NULL;
	const char *module = "";
	uint32_t f;
	size_t i, named_lines = 0;
	int ret;

	if (l->mapping_id) {
		long mi = FIND_ID(c->map_hash, pb->mapping, l->mapping_id);

		if (mi < 0)
			return pp_bad(c,
				      "location[%zu] (id %" PRIu64 ") refers to mapping id %" PRIu64
				      ", which no mapping has",
				      li, l->id, l->mapping_id);
		m = pb->mapping[mi];
		if ((ret = pp_string(c, m->filename, &module, "mapping[%ld].filename", mi)))
			return ret;
		module = base_name(module);
	}
	c->loc_frames[li] = (int64_t)c->nr_lframes;
	for (i = 0; i < l->n_line; i++) {
		long fi = FIND_ID(c->fn_hash, pb->function, l->line[i]->function_id);
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
		if (!name[0])
			continue;
		ret = named(c->n, module, name, i + 1 < l->n_line ? ZS_FF_INLINED : 0, &f);
		if (ret)
			return ret;
		if (ZT_GROW(c->lframes, c->cap_lframes, c->nr_lframes + 1))
			return -ENOMEM;
		c->lframes[c->nr_lframes++] = f;
		named_lines++;
	}
	if (!named_lines) {
		uint64_t off = l->address;

		if (m && l->address >= m->memory_start && l->address < m->memory_limit)
			off = l->address - m->memory_start + m->file_offset;
		if (m) {
			char mod[NAME_MAX_LEN];
			struct zs_fkey k = { .kind = ZS_FK_ADDR, .off = off, .module = mod };

			clean_name(mod, sizeof(mod), module[0] ? module : "[unknown]");

			parse_bid(pp_str(pb, m->build_id), &k.bid);
			ret = k.bid.len ? add_frame(c->n, &k, &f)
					: unresolved(c->n, module[0] ? module : "[unknown]", off, 0, &f);
		} else {
			ret = unresolved(c->n, "[unknown]", off, 0, &f);
		}
		if (ret)
			return ret;
		if (ZT_GROW(c->lframes, c->cap_lframes, c->nr_lframes + 1))
			return -ENOMEM;
		c->lframes[c->nr_lframes++] = f;
	}
	c->loc_nf[li] = (uint32_t)(c->nr_lframes - (size_t)c->loc_frames[li]);
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

static int pp_meta(struct zs_norm *n, const PProfile *pb, size_t wi)
{
	const char *cmd = "pprof";
	int ret;

	n->format = "pprof";
	if (pb->n_mapping) {
		const char *f = pp_str(pb, pb->mapping[0]->filename);

		if (f && f[0] && f[0] != '[')
			cmd = base_name(f);
	}
	ret = set_str(&n->command, cmd);
	if (!ret)
		ret = set_str(&n->host, "");
	if (!ret)
		ret = set_str(&n->event, pp_str(pb, pb->sample_type[wi]->type));
	if (pb->time_nanos > 0) {
		n->time_start = pb->time_nanos / 1000000000;
		n->time_end = (pb->time_nanos + (pb->duration_nanos > 0 ? pb->duration_nanos : 0) +
			       999999999) / 1000000000;
	}
	return ret;
}

static int pp_samples(struct pp_ctx *c, size_t ci, size_t wi)
{
	const PProfile *pb = c->pb;
	uint32_t *frames = NULL;
	size_t cap = 0, i, k;
	int ret = 0;

	for (i = 0; i < pb->n_sample && !ret; i++) {
		const Perftools__Profiles__Sample *s = pb->sample[i];
		const char *root = c->n->command;
		size_t nf = 0;

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
		if ((uint64_t)s->value[ci] > (uint64_t)INT64_MAX - c->n->samples ||
		    (uint64_t)s->value[wi] > (uint64_t)INT64_MAX - c->n->weight) {
			k = (uint64_t)s->value[ci] > (uint64_t)INT64_MAX - c->n->samples ? ci : wi;
			ret = pp_bad(c,
				     "sample[%zu].value[%zu] is %" PRId64
				     ": the samples' value[%zu] add up past %" PRId64,
				     i, k, s->value[k], k, INT64_MAX);
			break;
		}
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
				root = v;
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
			if (c->loc_frames[li] < 0 && (ret = pp_location(c, (size_t)li)))
				break;
			if (nf + c->loc_nf[li] + 1 > 2 * ZT_MAX_FRAMES + 1)
				continue; /* too deep: cut, as the recorder does */
			if (ZT_GROW(frames, cap, nf + c->loc_nf[li] + 1)) {
				ret = -ENOMEM;
				break;
			}
			memcpy(frames + nf, c->lframes + c->loc_frames[li],
			       c->loc_nf[li] * sizeof(*frames));
			nf += c->loc_nf[li];
		}
		if (ret)
			break;
		if (ZT_GROW(frames, cap, nf + 1)) {
			ret = -ENOMEM;
			break;
		}
		ret = named(c->n, "", root, ZS_FF_ROOT, &frames[nf++]);
		if (!ret)
			ret = add_stack(c->n, frames, (uint32_t)nf, (uint64_t)s->value[ci],
					(uint64_t)s->value[wi], NULL);
	}
	free(frames);
	return ret;
}

static int norm_pprof_raw(struct zs_norm *n, const uint8_t *data, size_t len, int gz, char *msg,
			  size_t msglen)
{
	struct pp_ctx c = {.n = n, .msg = msg, .msglen = msglen};
	PProfile *pb = perftools__profiles__profile__unpack(NULL, len, data);
	const char *why = NULL, *t;
	char first[48];
	size_t ci, wi, i;
	int ret;

	if (!pb)
		why = "it is not a profile.proto message";
	else if (!pb->n_sample_type)
		why = "it has no sample_type";
	else if (!pb->n_string_table)
		why = "its string_table is empty";
	else if (pb->string_table[0][0]) {
		clean_name(first, sizeof(first), pb->string_table[0]);
		why = first;
	}
	if (why) {
		/* raw bytes are taken for a pprof only when they look like one */
		if (gz)
			zt_say(msg, msglen,
			       why == first ? "bad pprof: string_table[0] is '%s', not \"\""
					    : "bad pprof: the gzip data is not a pprof profile: %s",
			       why);
		else
			zt_say(msg, msglen, "not a zt.data or pprof file");
		ret = gz ? -EBADMSG : -EMEDIUMTYPE;
		goto out;
	}
	c.pb = pb;
	for (i = 0; i < pb->n_sample_type; i++)
		if ((ret = pp_string(&c, pb->sample_type[i]->type, &t, "sample_type[%zu].type", i)))
			goto bad;
	pp_value_index(pb, &ci, &wi);
	ret = pp_index(&c);
	if (ret)
		goto bad;
	c.loc_frames = malloc((pb->n_location + 1) * sizeof(*c.loc_frames));
	c.loc_nf = calloc(pb->n_location + 1, sizeof(*c.loc_nf));
	if (!c.loc_frames || !c.loc_nf) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < pb->n_location; i++)
		c.loc_frames[i] = -1;
	ret = pp_meta(n, pb, wi);
	if (!ret)
		ret = pp_samples(&c, ci, wi);
bad:
	if (ret == -EBADMSG)
		pp_bad(&c, "a sample, location or mapping refers to what is not there");
out:
	free(c.loc_frames);
	free(c.loc_nf);
	free(c.lframes);
	zt_htab_release(&c.loc_hash);
	zt_htab_release(&c.map_hash);
	zt_htab_release(&c.fn_hash);
	if (pb)
		perftools__profiles__profile__free_unpacked(pb, NULL);
	return ret;
}

static int norm_pprof(struct zs_norm *n, const uint8_t *body, size_t len, uint64_t max, char *msg,
		      size_t msglen)
{
	struct zbuf raw;
	int ret;

	if (len < 2 || body[0] != 0x1f || body[1] != 0x8b)
		return norm_pprof_raw(n, body, len, 0, msg, msglen);
	zbuf_init(&raw);
	ret = gunzip(body, len, max, &raw, msg, msglen);
	if (!ret)
		ret = norm_pprof_raw(n, raw.data, raw.len, 1, msg, msglen);
	zbuf_release(&raw);
	return ret;
}

int zs_norm_body(struct zs_norm *n, const void *body, size_t len, uint64_t max_decoded, char *msg,
		 size_t msglen)
{
	int ret;

	zt_say(msg, msglen, "%s", "");
	if (!max_decoded)
		max_decoded = DEFAULT_MAX_DECODED;
	if (ztdata_probe(body, len))
		ret = norm_ztdata(n, body, len, msg, msglen);
	else
		ret = norm_pprof(n, body, len, max_decoded, msg, msglen);
	if (ret == -ENOMEM)
		zt_say(msg, msglen, "out of memory");
	if (!ret && (!n->host || !n->command || !n->event))
		ret = -ENOMEM;
	return ret;
}
