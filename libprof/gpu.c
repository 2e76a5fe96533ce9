/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The GPU part of a profile: owned record arrays, interned strings, cubins by crc. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/gpu.h"
#include "libprof/hash.h"

#define GROW(g, field) ZT_GROW((g)->field, (g)->cap_##field, (g)->nr_##field + 1)

struct prof_gpu *prof_gpu_new(void)
{
	struct prof_gpu *g = calloc(1, sizeof(*g));

	if (!g)
		errno = ENOMEM;
	return g;
}

static void free_records(struct prof_gpu *g)
{
	size_t i;

	for (i = 0; i < g->nr_cubins; i++)
		free(g->cubins[i].data);
	g->nr_kernels = g->nr_memops = g->nr_launches = g->nr_pcs = g->nr_stalls = 0;
	g->nr_cubins = g->nr_overheads = g->nr_counters = g->nr_infos = 0;
}

void prof_gpu_free(struct prof_gpu *g)
{
	if (!g)
		return;
	free_records(g);
	free(g->kernels);
	free(g->memops);
	free(g->launches);
	free(g->pcs);
	free(g->stalls);
	free(g->cubins);
	free(g->overheads);
	free(g->counters);
	free(g->infos);
	zt_strtab_release(&g->strs);
	zt_htab_release(&g->cubin_hash);
	zt_htab_release(&g->stall_hash);
	zt_htab_release(&g->counter_hash);
	free(g);
}

void prof_gpu_clear(struct prof_gpu *g)
{
	free_records(g);
	zt_strtab_clear(&g->strs);
	zt_htab_clear(&g->cubin_hash);
	zt_htab_clear(&g->stall_hash);
	zt_htab_clear(&g->counter_hash);
}

int prof_gpu_empty(const struct prof_gpu *g)
{
	return !(g->nr_kernels || g->nr_memops || g->nr_launches || g->nr_pcs || g->nr_stalls ||
		 g->nr_cubins || g->nr_overheads || g->nr_counters || g->nr_infos);
}

/* ---- strings ------------------------------------------------------------- */

int prof_gpu_intern(struct prof_gpu *g, const char *s, size_t len, uint32_t *id)
{
	return zt_strtab_intern(&g->strs, s, s ? strnlen(s, len) : 0, id);
}

const char *prof_gpu_str(const struct prof_gpu *g, uint32_t id)
{
	return zt_strtab_str(&g->strs, id);
}

/* ---- records ------------------------------------------------------------- */

int prof_gpu_add_kernel(struct prof_gpu *g, const struct prof_gpu_kernel *k)
{
	if (k->name >= prof_gpu_nr_strs(g))
		return -EINVAL;
	if (GROW(g, kernels))
		return -ENOMEM;
	g->kernels[g->nr_kernels++] = *k;
	return 0;
}

int prof_gpu_add_memop(struct prof_gpu *g, const struct prof_gpu_memop *m)
{
	if (GROW(g, memops))
		return -ENOMEM;
	g->memops[g->nr_memops++] = *m;
	return 0;
}

int prof_gpu_add_launch(struct prof_gpu *g, const struct prof_gpu_launch *l)
{
	if (GROW(g, launches))
		return -ENOMEM;
	g->launches[g->nr_launches++] = *l;
	return 0;
}

int prof_gpu_add_pcs(struct prof_gpu *g, const struct prof_gpu_pcs *s)
{
	if (s->function >= prof_gpu_nr_strs(g))
		return -EINVAL;
	if (GROW(g, pcs))
		return -ENOMEM;
	g->pcs[g->nr_pcs++] = *s;
	return 0;
}

static uint64_t stall_key_hash(uint32_t pid, uint32_t context, uint32_t index)
{
	return zt_hash_mix(zt_hash_pair(pid, context), index);
}

static inline uint64_t stall_hash_at(const void *ctx, uint32_t i)
{
	const struct prof_gpu_stall *s = &((const struct prof_gpu *)ctx)->stalls[i];

	return stall_key_hash(s->pid, s->context, s->index);
}

/* The probe for (pid, context, index): the stall's index and 1, or 0 with
 * *slot the empty slot it ended on. The table has slots. */
static int find_stall(const struct prof_gpu *g, uint32_t pid, uint32_t context, uint32_t index,
		      size_t *slot, uint32_t *at)
{
	const struct zt_htab *t = &g->stall_hash;
	size_t j;
	uint32_t i;

	for (j = zt_htab_first(t, stall_key_hash(pid, context, index)); zt_htab_get(t, j, &i);
	     j = zt_htab_next(t, j)) {
		const struct prof_gpu_stall *s = &g->stalls[i];

		if (s->pid == pid && s->context == context && s->index == index) {
			*at = i;
			return 1;
		}
	}
	*slot = j;
	return 0;
}

int prof_gpu_add_stall(struct prof_gpu *g, const struct prof_gpu_stall *s)
{
	size_t j;
	uint32_t i;

	if (s->name >= prof_gpu_nr_strs(g))
		return -EINVAL;
	if (zt_htab_reserve(&g->stall_hash, 1, stall_hash_at, g))
		return -ENOMEM;
	if (find_stall(g, s->pid, s->context, s->index, &j, &i)) {
		g->stalls[i].name = s->name;
		return 0;
	}
	if (g->nr_stalls >= UINT32_MAX - 1)
		return -E2BIG;
	if (GROW(g, stalls))
		return -ENOMEM;
	g->stalls[g->nr_stalls] = *s;
	zt_htab_set(&g->stall_hash, j, (uint32_t)g->nr_stalls++);
	return 0;
}

const char *prof_gpu_stall_name(const struct prof_gpu *g, uint32_t pid, uint32_t context,
				uint32_t index)
{
	size_t j;
	uint32_t i;

	if (!g->stall_hash.cap)
		return NULL;
	return find_stall(g, pid, context, index, &j, &i) ? prof_gpu_str(g, g->stalls[i].name)
							  : NULL;
}

int prof_gpu_stall_name_is_subset(const char *name)
{
	static const char sfx[] = "_not_issued";
	size_t n = name ? strlen(name) : 0;

	return n > sizeof(sfx) - 1 && !strcmp(name + n - (sizeof(sfx) - 1), sfx);
}

int prof_gpu_stall_is_subset(const struct prof_gpu *g, uint32_t pid, uint32_t context,
			     uint32_t index)
{
	return prof_gpu_stall_name_is_subset(prof_gpu_stall_name(g, pid, context, index));
}

static inline uint64_t cubin_hash_at(const void *ctx, uint32_t i)
{
	return zt_hash_mix(0, ((const struct prof_gpu *)ctx)->cubins[i].crc);
}

static int find_cubin(const struct prof_gpu *g, uint64_t crc, size_t *slot, uint32_t *at)
{
	const struct zt_htab *t = &g->cubin_hash;
	size_t j;
	uint32_t i;

	for (j = zt_htab_first(t, zt_hash_mix(0, crc)); zt_htab_get(t, j, &i);
	     j = zt_htab_next(t, j)) {
		if (g->cubins[i].crc == crc) {
			*at = i;
			return 1;
		}
	}
	*slot = j;
	return 0;
}

int prof_gpu_add_cubin(struct prof_gpu *g, uint64_t crc, uint32_t pid, uint32_t module_id,
		       uint32_t context, const void *data, size_t len)
{
	uint8_t *copy;
	size_t j;
	uint32_t i;

	if (len && !data)
		return -EINVAL;
	if (zt_htab_reserve(&g->cubin_hash, 1, cubin_hash_at, g))
		return -ENOMEM;
	if (find_cubin(g, crc, &j, &i))
		return 1;
	if (g->nr_cubins >= UINT32_MAX - 1)
		return -E2BIG;
	copy = malloc(len ? len : 1);
	if (!copy || GROW(g, cubins)) {
		free(copy);
		return -ENOMEM;
	}
	if (len)
		memcpy(copy, data, len);
	g->cubins[g->nr_cubins] = (struct prof_gpu_cubin){crc, pid, module_id, context, copy, len};
	zt_htab_set(&g->cubin_hash, j, (uint32_t)g->nr_cubins++);
	return 0;
}

const struct prof_gpu_cubin *prof_gpu_find_cubin(const struct prof_gpu *g, uint64_t crc)
{
	size_t j;
	uint32_t i;

	if (!g->cubin_hash.cap)
		return NULL;
	return find_cubin(g, crc, &j, &i) ? &g->cubins[i] : NULL;
}

int prof_gpu_add_overhead(struct prof_gpu *g, const struct prof_gpu_overhead *o)
{
	if (GROW(g, overheads))
		return -ENOMEM;
	g->overheads[g->nr_overheads++] = *o;
	return 0;
}

static inline uint64_t counter_hash_at(const void *ctx, uint32_t i)
{
	return zt_hash_mix(0, ((const struct prof_gpu *)ctx)->counters[i].pid);
}

static int find_counters(const struct prof_gpu *g, uint32_t pid, size_t *slot, uint32_t *at)
{
	const struct zt_htab *t = &g->counter_hash;
	size_t j;
	uint32_t i;

	for (j = zt_htab_first(t, zt_hash_mix(0, pid)); zt_htab_get(t, j, &i);
	     j = zt_htab_next(t, j)) {
		if (g->counters[i].pid == pid) {
			*at = i;
			return 1;
		}
	}
	*slot = j;
	return 0;
}

int prof_gpu_set_counters(struct prof_gpu *g, const struct prof_gpu_counters *c)
{
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&g->counter_hash, 1, counter_hash_at, g))
		return -ENOMEM;
	if (find_counters(g, c->pid, &j, &i)) {
		g->counters[i] = *c;
		return 0;
	}
	if (g->nr_counters >= UINT32_MAX - 1)
		return -E2BIG;
	if (GROW(g, counters))
		return -ENOMEM;
	g->counters[g->nr_counters] = *c;
	zt_htab_set(&g->counter_hash, j, (uint32_t)g->nr_counters++);
	return 0;
}

const struct prof_gpu_counters *prof_gpu_find_counters(const struct prof_gpu *g, uint32_t pid)
{
	size_t j;
	uint32_t i;

	if (!g->counter_hash.cap)
		return NULL;
	return find_counters(g, pid, &j, &i) ? &g->counters[i] : NULL;
}

int prof_gpu_add_info(struct prof_gpu *g, uint32_t pid, const char *key, const char *value)
{
	struct prof_gpu_info in = {.pid = pid};
	int ret;

	if (!key || !value)
		return -EINVAL;
	ret = prof_gpu_intern(g, key, strlen(key), &in.key);
	if (!ret)
		ret = prof_gpu_intern(g, value, strlen(value), &in.value);
	if (ret)
		return ret;
	if (GROW(g, infos))
		return -ENOMEM;
	g->infos[g->nr_infos++] = in;
	return 0;
}
