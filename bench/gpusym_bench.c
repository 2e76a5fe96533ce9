// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * GPU PC symbolization: zt's cubin symbolizer against CUPTI's own offline
 * answer (cuptiGetSassToSourceCorrelation, which parses the cubin at every
 * call), on PC buckets spread uniformly over every 16-byte PC of every
 * kernel of the cubins in DIR.
 *   gpusym_bench DIR PCS CUPTI_PCS
 * (a) cold: cubin_open() of every cubin from its bytes in memory, then one
 *     cubin_resolve() per bucket (no deduplication: each bucket resolved);
 * (b) cached: cubincache_open() of every cubin from a filled symbol cache
 *     (the files in the page cache; SHA-256 of the bytes included), then
 *     every bucket;
 * (c) warm: every bucket again on the open cubins (PCs/s), also in random
 *     order;
 * (d) CUPTI: CUPTI_PCS buckets spread over all, one call each, extrapolated
 *     to PCS; and whether zt's innermost file:line equals CUPTI's there.
 * Buckets are resolved in the order a report walks them: by cubin,
 * function and PC.
 * Each time is the best of REPS runs (the machine may be shared).
 */
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libprof/fileio.h"
#include "symbolizer/cubincache.h"

#define REPS 3 /* each time the best of */

struct kern {
	char *name;
	uint64_t size;
};

struct cub {
	char *path;
	char *data;
	size_t len;
	struct kern *k;
	size_t nr_k;
	struct cubin *c;
};

struct bucket {
	uint32_t cub, kern;
	uint64_t pc;
};

static struct cub *cubs;
static size_t nr_cubs;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int add_kern(void *ctx, const char *name, uint64_t size, int kernel)
{
	struct cub *c = ctx;

	if (!kernel || size < 16)
		return 0;
	c->k = realloc(c->k, (c->nr_k + 1) * sizeof(*c->k));
	if (!c->k || !(c->k[c->nr_k].name = strdup(name)))
		return -ENOMEM;
	c->k[c->nr_k++].size = size;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;

	if (!d) {
		fprintf(stderr, "gpusym_bench: cannot open '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > 6 && !strcmp(e->d_name + l - 6, ".cubin")) {
			names = realloc(names, (n + 1) * sizeof(*names));
			if (asprintf(&names[n++], "%s/%s", dir, e->d_name) < 0)
				return -1;
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	cubs = calloc(n ? n : 1, sizeof(*cubs));
	for (i = 0; i < n; i++) {
		struct cub *c = &cubs[nr_cubs];
		struct cubin *cb;

		c->path = names[i];
		if (zt_read_file(c->path, 1u << 30, &c->data, &c->len) ||
		    cubin_open(c->data, c->len, &cb)) {
			fprintf(stderr, "gpusym_bench: '%s' is no readable cubin\n", c->path);
			return -1;
		}
		if (cubin_functions(cb, add_kern, c))
			return -1;
		cubin_free(cb);
		nr_cubs++;
	}
	free(names);
	return nr_cubs ? 0 : -1;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int bucket_cmp(const void *pa, const void *pb)
{
	const struct bucket *a = pa, *b = pb;

	if (a->cub != b->cub)
		return a->cub < b->cub ? -1 : 1;
	if (a->kern != b->kern)
		return a->kern < b->kern ? -1 : 1;
	return a->pc < b->pc ? -1 : a->pc > b->pc;
}

/* n buckets, each a uniform pick among all kernel PCs */
static struct bucket *make_buckets(size_t n, uint64_t *slots)
{
	struct bucket *b = malloc(n * sizeof(*b)), *all;
	size_t i, j, k, m = 0;

	*slots = 0;
	for (i = 0; i < nr_cubs; i++)
		for (j = 0; j < cubs[i].nr_k; j++)
			*slots += cubs[i].k[j].size / 16;
	all = malloc(*slots * sizeof(*all));
	if (!b || !all)
		return NULL;
	for (i = 0; i < nr_cubs; i++)
		for (j = 0; j < cubs[i].nr_k; j++)
			for (k = 0; k < cubs[i].k[j].size / 16; k++)
				all[m++] = (struct bucket){(uint32_t)i, (uint32_t)j, k * 16};
	for (i = 0; i < n; i++)
		b[i] = all[next() % m];
	free(all);
	/* in the order a report walks them: the view's (cubin, function, PC) */
	qsort(b, n, sizeof(*b), bucket_cmp);
	return b;
}

/* every bucket resolved on the open cubins: a checksum of what came back */
static uint64_t resolve_all(const struct bucket *b, size_t n)
{
	struct cubin_frame f[64];
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct cub *c = &cubs[b[i].cub];
		int r = cubin_resolve(c->c, c->k[b[i].kern].name, b[i].pc, f, 64);

		if (r > 0)
			sum += (uint64_t)r * 1000003 + f[0].line;
		else
			sum += 7;
	}
	return sum;
}

static void close_all(void)
{
	for (size_t i = 0; i < nr_cubs; i++) {
		cubin_free(cubs[i].c);
		cubs[i].c = NULL;
	}
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "";
}

/* CUPTI's line for bucket b (0: none); its file name to *file (or NULL:
 * freed here) */
static int cupti_line(const struct bucket *b, char **file)
{
	const struct cub *c = &cubs[b->cub];
	CUpti_GetSassToSourceCorrelationParams p = {
		.size = CUpti_GetSassToSourceCorrelationParamsSize,
		.cubin = c->data,
		.cubinSize = c->len,
		.functionName = c->k[b->kern].name,
		.pcOffset = b->pc};
	int line = cuptiGetSassToSourceCorrelation(&p) == CUPTI_SUCCESS && p.fileName
			   ? (int)p.lineNumber
			   : 0;

	if (file)
		*file = p.fileName;
	else
		free(p.fileName);
	free(p.dirName);
	return line;
}

int main(int argc, char **argv)
{
	size_t pcs, cpcs, stride, i, agree = 0, cupti_ok = 0, zt_lines = 0, loaded = 0;
	double t0, t, t_key = 1e30, t_rand = 1e30, t_cupti1 = 0, t_open1 = 0, t_load1 = 0, t_open,
		      t_cold, t_load, t_cached, t_warm, t_cupti, cupti_est;
	struct buildid_cache bc;
	uint64_t slots, s1 = 0, s2 = 0, s3 = 0, s4 = 0, bytes = 0;
	struct bucket *b;
	char cdir[4096];
	int ret, rep;

	if (argc != 4) {
		fprintf(stderr, "usage: gpusym_bench DIR PCS CUPTI_PCS\n");
		return 1;
	}
	pcs = strtoull(argv[2], NULL, 10);
	cpcs = strtoull(argv[3], NULL, 10);
	if (load_dir(argv[1]) || !pcs)
		return 1;
	if (cpcs > pcs)
		cpcs = pcs;
	b = make_buckets(pcs, &slots);
	if (!b)
		return 1;
	for (i = 0; i < nr_cubs; i++)
		bytes += cubs[i].len;
	printf("gpusym: %zu cubins (%.1f MB), %" PRIu64 " kernel PCs, %zu buckets "
	       "(uniform over those PCs, each resolved)\n",
	       nr_cubs, bytes / 1e6, slots, pcs);

	/* (a) cold */
	t_open = t_cold = t_load = t_cached = t_warm = t_cupti = 1e30;
	for (rep = 0; rep < REPS; rep++) {
		t0 = now();
		for (i = 0; i < nr_cubs; i++)
			if (cubin_open(cubs[i].data, cubs[i].len, &cubs[i].c))
				return 1;
		t = now() - t0;
		t_open1 = rep ? t_open1 : t;
		t_open = t < t_open ? t : t_open;
		s1 = resolve_all(b, pcs);
		t = now() - t0;
		t_cold = t < t_cold ? t : t_cold;
		close_all();
	}

	/* (b) cached: fill the cache, then open everything from it */
	snprintf(cdir, sizeof(cdir), "%s/../cache", argv[1]);
	setenv("ZT_CACHE_DIR", cdir, 1);
	if (buildid_cache_init(&bc))
		return 1;
	for (i = 0; i < nr_cubs; i++) {
		if (cubincache_open(cubs[i].data, cubs[i].len, &bc, &cubs[i].c, NULL))
			return 1;
	}
	close_all();
	for (rep = 0; rep < REPS; rep++) {
		close_all();
		loaded = 0;
		t0 = now();
		for (i = 0; i < nr_cubs; i++) {
			enum cubincache_how how;

			if (cubincache_open(cubs[i].data, cubs[i].len, &bc, &cubs[i].c, &how))
				return 1;
			loaded += how == CUBINCACHE_LOADED;
		}
		t = now() - t0;
		t_load1 = rep ? t_load1 : t;
		t_load = t < t_load ? t : t_load;
		s2 = resolve_all(b, pcs);
		t = now() - t0;
		t_cached = t < t_cached ? t : t_cached;
	}

	/* what of (b) is the key: SHA-256 of every cubin's bytes */
	for (rep = 0; rep < REPS; rep++) {
		uint8_t key[CUBINCACHE_KEY_LEN];

		t0 = now();
		for (i = 0; i < nr_cubs; i++)
			cubincache_key(cubs[i].data, cubs[i].len, key);
		t = now() - t0;
		t_key = t < t_key ? t : t_key;
	}

	/* (c) warm, on the cubins loaded from the cache */
	for (rep = 0; rep < REPS; rep++) {
		t0 = now();
		s3 = resolve_all(b, pcs);
		t = now() - t0;
		t_warm = t < t_warm ? t : t_warm;
	}
	/* (c') the same buckets in random order: no locality at all */
	{
		struct bucket *r = malloc(pcs * sizeof(*r));

		if (!r)
			return 1;
		memcpy(r, b, pcs * sizeof(*r));
		for (i = pcs - 1; i > 0; i--) {
			size_t j = next() % (i + 1);
			struct bucket x = r[i];

			r[i] = r[j];
			r[j] = x;
		}
		for (rep = 0; rep < REPS; rep++) {
			t0 = now();
			s4 = resolve_all(r, pcs);
			t = now() - t0;
			t_rand = t < t_rand ? t : t_rand;
		}
		free(r);
	}
	if (s1 != s2 || s2 != s3 || s3 != s4) {
		fprintf(stderr, "gpusym_bench: cached answers differ from decoded ones\n");
		return 1;
	}

	/* (d) CUPTI, per PC, on cpcs buckets spread over all of them (every
	 * pcs/cpcs-th), after one call that pays its start-up. CUPTI keeps
	 * what it parsed of a cubin (by its address): the first pass parses
	 * each cubin once, as a run over all buckets would, the next ones do
	 * not. So the estimate for all buckets is that one-time cost (first
	 * pass - best later pass) plus the later per-PC cost for each bucket. */
	stride = pcs / cpcs;
	cupti_line(&b[0], NULL);
	for (rep = 0; rep <= REPS; rep++) {
		t0 = now();
		for (i = 0; i < cpcs; i++)
			cupti_line(&b[i * stride], NULL);
		t = now() - t0;
		if (!rep)
			t_cupti1 = t;
		else
			t_cupti = t < t_cupti ? t : t_cupti;
	}
	/* and whether zt's innermost file:line is CUPTI's there */
	for (i = 0; i < cpcs; i++) {
		const struct bucket *q = &b[i * stride];
		const struct cub *c = &cubs[q->cub];
		struct cubin_frame f[64];
		int n = cubin_resolve(c->c, c->k[q->kern].name, q->pc, f, 64);
		int zl = n > 0 && f[0].file && f[0].line;
		uint32_t line;
		char *file = NULL;

		ret = cupti_line(&b[i * stride], &file);
		line = (uint32_t)(ret > 0 ? ret : 0);
		cupti_ok += ret > 0;
		zt_lines += zl;
		if (ret > 0 ? zl && f[0].line == line && !strcmp(base(f[0].file), base(file)) : !zl)
			agree++;
		free(file);
	}
	close_all();
	buildid_cache_release(&bc);

	cupti_est = (t_cupti1 > t_cupti ? t_cupti1 - t_cupti : 0) +
		    t_cupti / (double)cpcs * (double)pcs;
	printf("  (a) zt cold:   %8.1f ms  (cubin_open %.1f ms, %.1f ms the first time; + %zu "
	       "resolves)\n",
	       t_cold * 1e3, t_open * 1e3, t_open1 * 1e3, pcs);
	printf("  (b) zt cached: %8.1f ms  (cubincache_open %.1f ms, %.1f ms the first time: %zu "
	       "of "
	       "%zu cubins from the symbol cache%s)\n",
	       t_cached * 1e3, t_load * 1e3, t_load1 * 1e3, loaded, nr_cubs,
	       loaded ? "" : ": cubin_save/cubin_load missing, decoded instead");
	printf("                (the cache's key, SHA-256 of the cubins' bytes: %.1f ms of it)\n",
	       t_key * 1e3);
	printf("  (c) zt warm:   %8.1f ms  = %.2f M PCs/s (in random order: %.2f M PCs/s)\n",
	       t_warm * 1e3, pcs / t_warm / 1e6, pcs / t_rand / 1e6);
	printf("  (d) CUPTI:     %8.1f ms for %zu PCs, first pass (each cubin parsed once), %.1f "
	       "ms "
	       "later (%.2f us/PC)\n"
	       "                -> %.2f s for %zu (extrapolated: first-pass extra + later per "
	       "PC)\n",
	       t_cupti1 * 1e3, cpcs, t_cupti * 1e3, t_cupti / (double)cpcs * 1e6, cupti_est, pcs);
	printf("  agreement on those %zu PCs: %zu (CUPTI has a line at %zu, zt at %zu)\n", cpcs,
	       agree, cupti_ok, zt_lines);
	printf("  ratio CUPTI / zt cold:   %.0fx (goal >= 10x)\n", cupti_est / t_cold);
	printf("  ratio CUPTI / zt cached: %.0fx (goal >= 10x)\n", cupti_est / t_cached);
	printf("  warm rate: %.2f M PCs/s, %.2f M in random order (goal >= 1 M PCs/s)\n",
	       pcs / t_warm / 1e6, pcs / t_rand / 1e6);
	return 0;
}
