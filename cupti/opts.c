/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ZT_GPU_OPTS parsing: comma-separated key=value pairs, unknown keys ignored. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti/opts.h"

void zc_opts_default(struct zc_opts *o)
{
	*o = (struct zc_opts){
		.pcs = ZC_PCS_CONTINUOUS,
		.pcs_period = 0,
		.stacks = ZC_STACKS_AUTO,
		.stack_rate = 100,
		.flush_ms = 500,
		.mem_mb = 64,
		.verbose = 0,
	};
}

const char *zc_pcs_mode_name(enum zc_pcs_mode m)
{
	switch (m) {
	case ZC_PCS_CONTINUOUS:
		return "continuous";
	case ZC_PCS_SERIALIZED:
		return "serialized";
	case ZC_PCS_OFF:
		break;
	}
	return "off";
}

const char *zc_stacks_name(enum zc_stacks s)
{
	switch (s) {
	case ZC_STACKS_AUTO:
		return "auto";
	case ZC_STACKS_USDT:
		return "usdt";
	case ZC_STACKS_UNWIND:
		return "unwind";
	case ZC_STACKS_OFF:
		break;
	}
	return "off";
}

/* v (len n, not NUL-terminated) as a decimal in [lo, hi]: 0, or -1 */
static int parse_uint(const char *v, size_t n, unsigned long lo, unsigned long hi,
		      unsigned long *out)
{
	char tmp[24], *end;
	unsigned long x;

	if (n == 0 || n >= sizeof(tmp) || v[0] < '0' || v[0] > '9')
		return -1;
	memcpy(tmp, v, n);
	tmp[n] = 0;
	errno = 0;
	x = strtoul(tmp, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int is(const char *v, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(v, word, n) == 0;
}

/* one key=value; 0, or -1 for a bad value of a known key */
static int parse_one(struct zc_opts *o, const char *k, size_t kn, const char *v, size_t vn)
{
	unsigned long x;

	if (is(k, kn, "pcs")) {
		if (is(v, vn, "continuous"))
			o->pcs = ZC_PCS_CONTINUOUS;
		else if (is(v, vn, "serialized"))
			o->pcs = ZC_PCS_SERIALIZED;
		else if (is(v, vn, "off"))
			o->pcs = ZC_PCS_OFF;
		else
			return -1;
	} else if (is(k, kn, "pcs_period")) {
		if (parse_uint(v, vn, 0, 31, &x) || (x != 0 && x < 5))
			return -1;
		o->pcs_period = (unsigned)x;
	} else if (is(k, kn, "pcs_hwbuf_mb")) {
		if (parse_uint(v, vn, 0, 16384, &x))
			return -1;
		o->pcs_hwbuf_mb = (unsigned)x;
	} else if (is(k, kn, "pcs_scratch_mb")) {
		if (parse_uint(v, vn, 0, 4096, &x))
			return -1;
		o->pcs_scratch_mb = (unsigned)x;
	} else if (is(k, kn, "pcs_sleep_ms")) {
		if (parse_uint(v, vn, 0, 10000, &x))
			return -1;
		o->pcs_sleep_ms = (unsigned)x;
	} else if (is(k, kn, "stacks")) {
		if (is(v, vn, "usdt"))
			o->stacks = ZC_STACKS_USDT;
		else if (is(v, vn, "unwind"))
			o->stacks = ZC_STACKS_UNWIND;
		else if (is(v, vn, "off"))
			o->stacks = ZC_STACKS_OFF;
		else if (is(v, vn, "auto"))
			o->stacks = ZC_STACKS_AUTO;
		else
			return -1;
	} else if (is(k, kn, "stack_rate")) {
		if (parse_uint(v, vn, 0, 1000000, &x))
			return -1;
		o->stack_rate = (unsigned)x;
	} else if (is(k, kn, "flush_ms")) {
		if (parse_uint(v, vn, 1, (unsigned long)-1 / 2, &x))
			return -1;
		if (x > ZC_FLUSH_MS_MAX) {
			o->flush_ms = ZC_FLUSH_MS_MAX;
			return -1;
		}
		o->flush_ms = (unsigned)x;
	} else if (is(k, kn, "mem_mb")) {
		if (parse_uint(v, vn, ZC_MEM_MB_MIN, 65536, &x))
			return -1;
		o->mem_mb = (unsigned)x;
	} else if (is(k, kn, "verbose")) {
		if (parse_uint(v, vn, 0, 1, &x))
			return -1;
		o->verbose = (int)x;
	}
	return 0;
}

int zc_opts_parse(struct zc_opts *o, const char *s, char *bad, size_t badlen)
{
	size_t used = 0;
	int nbad = 0;

	zc_opts_default(o);
	if (bad && badlen)
		bad[0] = 0;
	while (s && *s) {
		const char *end = strchr(s, ','), *eq;
		size_t n = end ? (size_t)(end - s) : strlen(s);

		eq = memchr(s, '=', n);
		if (n && parse_one(o, s, eq ? (size_t)(eq - s) : n, eq ? eq + 1 : s + n,
				   eq ? n - (size_t)(eq + 1 - s) : 0)) {
			nbad++;
			if (bad && used + 1 < badlen) {
				int w = snprintf(bad + used, badlen - used, "%s'%.*s'",
						 used ? ", " : "", (int)n, s);

				used = w < 0 ? used : used + (size_t)w;
				if (used >= badlen)
					used = badlen - 1;
			}
		}
		s = end ? end + 1 : NULL;
	}
	return nbad;
}
