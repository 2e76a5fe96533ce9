// SPDX-License-Identifier: GPL-2.0-or-later
/* A received zt.data or pprof body reduced to stacks of frame keys. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/pprofread.h"
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
	zs_tagg_init(&n->tagg);
	n->format = "";
}

void zs_norm_release(struct zs_norm *n)
{
	free(n->host);
	free(n->command);
	free(n->event);
	free(n->ptype);
	free(n->unit);
	zs_tagg_release(&n->tagg);
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

static int set_str(char **dst, const char *src)
{
	char buf[NAME_MAX_LEN];

	zt_clean_name(buf, sizeof(buf), src ? src : "");
	free(*dst);
	*dst = strdup(buf);
	return *dst ? 0 : -ENOMEM;
}

/* n's profile type and unit, from its event and the unit said (NULL: none). */
static int set_type(struct zs_norm *n, const char *unit)
{
	const char *t, *u;
	int ret;

	zs_profile_type(n->event, unit, &t, &u);
	ret = set_str(&n->ptype, t);
	return ret ? ret : set_str(&n->unit, u);
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
	/* a pprof's: its threads' whole names (each sample's stack root),
	 * its samples' counts (NULL: their weights) */
	const struct pprof_body *pp;
	const uint64_t *counts;
	/* the keys each address gave in its address space, made once (the
	 * session's frame table keeps nothing); of those that gave several
	 * (a pprof location's lines), lkeys holds them */
	struct akey *akeys;
	size_t nr_akeys, cap_akeys;
	struct zt_htab ahash;
	/* a pprof's: per location, its index in akeys + 1 (0: not met yet),
	 * as a location's keys depend on nothing else */
	uint32_t *lakey;
	size_t nr_lakey;
	uint32_t *lkeys;
	size_t nr_lkeys, cap_lkeys;
	/* a recording's wall clock at its start (Unix s; 0: unknown) and its
	 * samples' clock then (ns): each sample's time bucket */
	int64_t wall;
	uint64_t t0;
	/* the process of the last sample (sample_tagg) */
	int have_last;
	uint32_t last_pid, last_proc;
	const char *last_name;
};

/* An address in an address space (a process's mappings at an epoch, or
 * the kernel's: pid AKEY_KERNEL) and the n keys of the frames it gave:
 * key itself when one, else where in lkeys they are. */
struct akey {
	uint64_t epoch, addr;
	uint32_t pid, n, key;
};
#define AKEY_KERNEL UINT32_MAX

static inline uint64_t akey_hash(uint64_t epoch, uint64_t addr, uint32_t pid)
{
	return zt_hash_mix(zt_hash_pair(addr, pid), epoch);
}

static inline uint64_t akey_hash_at(const void *ctx, uint32_t i)
{
	const struct akey *a = &((const struct zt_ctx *)ctx)->akeys[i];

	return akey_hash(a->epoch, a->addr, a->pid);
}

static int named(struct zs_norm *n, const char *module, const char *name, uint8_t flags,
		 uint32_t *out)
{
	char buf[NAME_MAX_LEN];
	struct zs_fkey k = { .kind = ZS_FK_NAMED, .flags = flags, .module = module, .name = buf };

	zt_clean_name(buf, sizeof(buf), name);
	return add_frame(n, &k, out);
}

static int unresolved(struct zs_norm *n, const char *module, uint64_t off, uint8_t flags,
		      uint32_t *out)
{
	char buf[NAME_MAX_LEN];
	struct zs_fkey k = { .kind = ZS_FK_UNRESOLVED, .flags = flags, .module = buf, .off = off };

	zt_clean_name(buf, sizeof(buf), module);
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

		zt_clean_name(mod, sizeof(mod), zt_base_name(m->path));
		return add_frame(c->n, &k, out);
	}
	return unresolved(c->n, f->module, f->offset, 0, out);
}

/* The keys of the frames a pprof location's address r resolved to, into
 * keys (room for max; *n of them): its named lines, innermost first (each
 * but the location's last line inlined into the next), or, without, its
 * module and offset: a file's frame by its mapping's build id and file
 * offset, symbolized at query time (ADDR), or without a build id
 * unresolved. */
static int pp_range_keys(struct zt_ctx *c, const struct rstacks *rs, const struct zt_frange *r,
			 uint32_t *keys, uint32_t max, uint32_t *n)
{
	const struct zt_frame *f = rstacks_frame(rs, r->first + r->n - 1);
	uint32_t i;
	int ret = 0;

	*n = 0;
	if (!f->sym) {
		char mod[NAME_MAX_LEN];
		struct zs_fkey k = { .kind = ZS_FK_ADDR, .off = f->offset, .module = mod };

		*n = 1;
		if (!r->map || !r->map->build_id.len)
			return unresolved(c->n, f->module, f->offset, 0, &keys[0]);
		zt_clean_name(mod, sizeof(mod), f->module);
		k.bid = r->map->build_id;
		return add_frame(c->n, &k, &keys[0]);
	}
	for (i = 0; i < r->n && *n < max && !ret; i++) {
		f = rstacks_frame(rs, r->first + i);
		if (f->sym[0]) /* a line without a name names nothing */
			ret = named(c->n, f->module, f->sym, f->inlined ? ZS_FF_INLINED : 0,
				    &keys[(*n)++]);
	}
	return ret;
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
		return set_str(&n->command, zt_base_name(word));
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
	if (!ret)
		ret = set_type(n, NULL);
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
	free(c->lkeys);
	free(c->akeys);
	free(c->lakey);
	zt_htab_release(&c->ahash);
	stackgroups_release(&c->sg);
	session_close(&c->ses);
}

/* The keys of the frames address k of group g gave (of ips, the first
 * nk kernel ones), resolved the first time it is met in its address
 * space: a recording's address its function's, a pprof location's its
 * named lines. */
static int resolve_keys(struct zt_ctx *c, uint32_t g, unsigned k, uint32_t *keys, uint32_t max,
			uint32_t *n)
{
	const struct rstacks *rs = session_stacks(&c->ses);
	const struct zt_frange *r;
	int ret = stackgroups_resolve_one(&c->sg, g, k, &r);

	if (ret)
		return ret;
	if (c->pp)
		return pp_range_keys(c, rs, r, keys, max, n);
	*n = 1;
	return frame_key(c, rstacks_frame(rs, r->first + r->n - 1), r->map, keys);
}

/* The keys of group g's address k (of ips, the first nk kernel ones)
 * appended to frames[*nf ..] (at most max in all): those it gave before
 * in its address space, else resolved now. */
static int addr_keys(struct zt_ctx *c, uint32_t g, const uint64_t *ips, unsigned nk, unsigned k,
		     uint32_t *frames, uint32_t *nf, uint32_t max)
{
	const struct stackgroup *gr = &c->sg.groups[g];
	uint64_t epoch = k < nk ? 0 : gr->epoch, addr = ips[k];
	uint32_t pid = k < nk ? AKEY_KERNEL : gr->pid, i, n, keys[2 * ZT_MAX_FRAMES];
	const struct akey *a;
	const uint32_t *at;
	uint32_t *slot = NULL;
	size_t j = 0;
	int ret;

	if (c->lakey) {
		size_t li = pprof_body_loc_index(c->pp, addr);

		if (li < c->nr_lakey)
			slot = &c->lakey[li];
	}
	if (slot && *slot) {
		a = &c->akeys[*slot - 1];
		goto found;
	}
	if (!slot) {
		if (zt_htab_reserve(&c->ahash, 1, akey_hash_at, c))
			return -ENOMEM;
		for (j = zt_htab_first(&c->ahash, akey_hash(epoch, addr, pid));
		     zt_htab_get(&c->ahash, j, &i); j = zt_htab_next(&c->ahash, j)) {
			a = &c->akeys[i];
			if (a->addr == addr && a->pid == pid && a->epoch == epoch)
				goto found;
		}
	}
	ret = resolve_keys(c, g, k, keys, 2 * ZT_MAX_FRAMES, &n);
	if (ret)
		return ret;
	if (c->nr_akeys >= UINT32_MAX - 1 || ZT_GROW(c->akeys, c->cap_akeys, c->nr_akeys + 1))
		return -ENOMEM;
	c->akeys[c->nr_akeys] = (struct akey){ epoch, addr, pid, n, n == 1 ? keys[0] : 0 };
	if (n != 1) {
		if (c->nr_lkeys + n > UINT32_MAX || ZT_GROW(c->lkeys, c->cap_lkeys, c->nr_lkeys + n))
			return -ENOMEM;
		c->akeys[c->nr_akeys].key = (uint32_t)c->nr_lkeys;
		memcpy(c->lkeys + c->nr_lkeys, keys, n * sizeof(*keys));
		c->nr_lkeys += n;
	}
	if (slot)
		*slot = (uint32_t)++c->nr_akeys;
	else
		zt_htab_set(&c->ahash, j, (uint32_t)c->nr_akeys++);
	at = keys;
	goto copy;
found:
	n = a->n;
	at = n == 1 ? &a->key : c->lkeys + a->key;
copy:
	if (n > max - *nf)
		n = max - *nf;
	if (n == 1) /* most addresses: one key, no call */
		frames[*nf] = *at;
	else
		memcpy(frames + *nf, at, n * sizeof(*frames));
	*nf += n;
	return 0;
}

/* A new group's normalized stack: its frames, leaf first, then its
 * thread's name as the root. */
static int norm_group(struct zt_ctx *c, uint32_t g, uint32_t *nstack)
{
	const struct stackgroup *gr = &c->sg.groups[g];
	const uint64_t *ips;
	uint32_t frames[2 * ZT_MAX_FRAMES + 1], nf = 0;
	const char *name;
	char buf[32];
	unsigned k, n, nk;
	int ret = 0;

	stackgroups_addrs(&c->sg, g, 2 * ZT_MAX_FRAMES, &ips, &nk, &n);
	for (k = 0; k < n && !ret; k++)
		ret = addr_keys(c, g, ips, nk, k, frames, &nf, 2 * ZT_MAX_FRAMES);
	if (ret)
		return ret;
	name = prof_comm_or_pid(gr->comm, gr->pid, buf, sizeof(buf));
	ret = named(c->n, "", name, ZS_FF_ROOT, &frames[nf++]);
	return ret ? ret : add_stack(c->n, frames, nf, 0, 0, nstack);
}

/* Count sample s (of normalized stack nst) by its time bucket and process. */
static int sample_tagg(struct zt_ctx *c, const struct rstacks *rs, const struct prof_sample *s,
		       uint32_t nst, uint64_t count)
{
	int64_t t = c->n->time_start;
	const char *comm;
	char buf[32];
	uint32_t proc;
	int ret;

	if (!c->pp) {
		/* names are interned: the last sample's process, looked up once
		 * for a run of its samples */
		const char *name = rstacks_comm(rs, s->pid, s->pid, s->ts);

		t = c->wall;
		if (c->wall > 0 && s->ts > c->t0)
			t += (int64_t)((s->ts - c->t0) / 1000000000u);
		if (c->have_last && s->pid == c->last_pid && name == c->last_name) {
			proc = c->last_proc;
			ret = 0;
		} else {
			comm = prof_comm_or_pid(name, s->pid, buf, sizeof(buf));
			ret = zs_tagg_proc(&c->n->tagg, s->pid, comm, &proc);
			c->have_last = !ret;
			c->last_pid = s->pid;
			c->last_name = name;
			c->last_proc = proc;
		}
	} else {
		ret = zs_tagg_proc(&c->n->tagg, 0, c->n->command, &proc);
	}
	return ret ? ret : zs_tagg_add(&c->n->tagg, t, nst, proc, count, s->weight);
}

/* The samples, each group of samples that normalize alike normalized
 * once: a recording has some thousands of distinct stacks for its tens
 * of thousands of samples. */
static int norm_samples(struct zt_ctx *c, char *msg, size_t msglen)
{
	const struct profile *p = &c->ses.prof;
	const struct rstacks *rs = session_stacks(&c->ses);
	size_t i, ng, na, nf;
	int ret = 0;

	stackgroups_init(&c->sg, rs);
	/* the arrays made once, not grown by copies (in the connection
	 * thread's arena, each copy faults its pages in): a pprof's samples
	 * are mostly a stack each, a recording has about a group a stack;
	 * a recording's addresses are at most its stacks', a pprof's its
	 * locations (the array's untouched end costs nothing) */
	ng = (c->pp || p->nr_stacks > p->nr_samples ? p->nr_samples : p->nr_stacks) + 1;
	na = p->nr_ips;
	if (c->pp) { /* a pprof's addresses are its locations */
		pprof_body_size(c->pp, &na, &nf);
		c->nr_lakey = pprof_body_nr_locs(c->pp);
		if (!(c->lakey = calloc(c->nr_lakey + 1, sizeof(*c->lakey))))
			return -ENOMEM;
	}
	if (ZT_GROW(c->gstack, c->cap_gstack, ng) || stackgroups_reserve(&c->sg, ng) ||
	    ZT_GROW(c->akeys, c->cap_akeys, na + 1))
		return -ENOMEM;
	for (i = 0; i < p->nr_samples && !ret; i++) {
		const struct prof_sample *s = &p->samples[i];
		struct zs_nstack *ns;
		uint64_t count;
		uint32_t g;
		int added;

		if (s->stack >= p->nr_stacks) {
			zt_say(msg, msglen,
			       "bad zt.data: sample %zu refers to stack %" PRIu32
			       ", and the recording has %zu stacks",
			       i, s->stack, p->nr_stacks);
			return -EBADMSG;
		}
		if (!c->pp && s->weight > (uint64_t)INT64_MAX - c->n->weight) {
			zt_say(msg, msglen,
			       "bad zt.data: sample %zu has weight %" PRIu64
			       ": the samples' weights add up past %" PRId64,
			       i, s->weight, INT64_MAX);
			return -EBADMSG;
		}
		ret = stackgroups_add(&c->sg, s,
				      c->pp ? pprof_body_thread(c->pp, s->tid)
					    : rstacks_comm(rs, s->pid, s->tid, s->ts),
				      0, &g, &added);
		if (!ret && added) {
			if (ZT_GROW(c->gstack, c->cap_gstack, c->sg.nr))
				return -ENOMEM;
			ret = norm_group(c, g, &c->gstack[g]);
		}
		if (ret)
			break;
		ns = &c->n->stacks[c->gstack[g]];
		count = !c->pp ? 1 : c->counts ? c->counts[i] : s->weight;
		ns->count += count;
		ns->weight += s->weight;
		c->n->samples += count;
		c->n->weight += s->weight;
		ret = sample_tagg(c, rs, s, c->gstack[g], count);
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
	c.wall = meta_i64(&c.ses.prof, "wallclock_start");
	c.t0 = (uint64_t)meta_i64(&c.ses.prof, "time_start");
	ret = need_cmd = zt_meta(n, &c.ses.prof);
	if (ret >= 0)
		ret = norm_samples(&c, msg, msglen);
	if (!ret && need_cmd)
		ret = command_from_roots(n);
	zt_ctx_release(&c);
	return ret;
}

/* ---- pprof ------------------------------------------------------------------- */

/* The metadata of a read pprof: its command, the weight type as the
 * event, its times. */
static int pp_meta(struct zs_norm *n, const struct profile *p, const struct pprof_body *b)
{
	int64_t t, d;
	int ret;

	n->format = "pprof";
	ret = set_str(&n->command, pprof_body_command(b));
	if (!ret)
		ret = set_str(&n->host, "");
	if (!ret)
		ret = set_str(&n->event, profile_event_name(p, 0));
	if (!ret)
		ret = set_type(n, pprof_body_unit(b));
	pprof_body_times(b, &t, &d);
	if (t > 0) {
		n->time_start = t / 1000000000;
		n->time_end = (t + (d > 0 ? d : 0) + 999999999) / 1000000000;
	}
	return ret;
}

static int norm_pprof(struct zs_norm *n, const void *body, size_t len, uint64_t max, char *msg,
		      size_t msglen)
{
	struct zt_ctx c = { .n = n };
	struct session_opts so = { .sources = n->sources, .nr_sources = n->nr_sources };
	int ret;

	ret = session_open_pushed_pprof(&c.ses, body, len, max, &so, msg, msglen);
	if (ret == -EMEDIUMTYPE)
		zt_say(msg, msglen, "not a zt.data or pprof file");
	if (ret)
		return ret;
	c.pp = session_pprof(&c.ses);
	c.counts = pprof_body_counts(c.pp);
	ret = pp_meta(n, &c.ses.prof, c.pp);
	if (!ret)
		ret = norm_samples(&c, msg, msglen);
	zt_ctx_release(&c);
	return ret;
}

int zs_norm_body(struct zs_norm *n, const void *body, size_t len, uint64_t max_decoded, char *msg,
		 size_t msglen)
{
	int ret;

	zt_say(msg, msglen, "%s", "");
	if (ztdata_probe(body, len))
		ret = norm_ztdata(n, body, len, msg, msglen);
	else
		ret = norm_pprof(n, body, len, max_decoded, msg, msglen);
	if (ret == -ENOMEM)
		zt_say(msg, msglen, "out of memory");
	if (!ret && (!n->host || !n->command || !n->event || !n->ptype || !n->unit))
		ret = -ENOMEM;
	return ret;
}

void zs_profile_type(const char *event, const char *unit, const char **type, const char **out_unit)
{
	size_t n = strcspn(event ? event : "", ":/");

	if (!event || !*event) {
		*type = "unknown";
		*out_unit = unit && *unit ? unit : "count";
	} else if ((n == 9 && !strncmp(event, "cpu-clock", 9)) ||
		   (n == 10 && !strncmp(event, "task-clock", 10)) || !strcmp(event, "cpu")) {
		*type = "cpu";
		*out_unit = unit && *unit ? unit : "nanoseconds";
	} else {
		*type = event;
		*out_unit = unit && *unit ? unit : "count";
	}
}
