/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: zt serve's samples by time and process (server/tagg.h), as
 * read back from the catalogue: any bytes decode to entries whose process
 * index is one of the processes, or to -EBADMSG; what decodes encodes
 * again to a tagg that decodes to the same entries.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/tagg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ctx {
	struct zs_tagg *a;
	uint32_t *map; /* tagg process -> rebuilt one */
	size_t n;
};

static int proc_cb(void *p, uint32_t idx, uint32_t pid, const char *comm, size_t len)
{
	struct ctx *c = p;
	char b[64];

	if (idx != c->n || len > (size_t)1 << 30)
		abort();
	if (len >= sizeof(b))
		len = sizeof(b) - 1;
	memcpy(b, comm, len);
	b[len] = 0;
	c->map = realloc(c->map, (c->n + 1) * sizeof(*c->map));
	if (!c->map || zs_tagg_proc(c->a, pid, b, &c->map[c->n]))
		return -ENOMEM;
	c->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zs_tagg a;
	struct zs_tcur c;
	struct zs_tent e;
	struct ctx x;
	uint64_t sum = 0, sum2 = 0;
	struct zbuf out;
	int r;

	zs_tagg_init(&a);
	x.a = &a;
	x.map = NULL;
	x.n = 0;
	r = zs_tagg_open(&c, data, size, proc_cb, &x);
	while (!r && (r = zs_tagg_next(&c, &e)) == 1) {
		if (e.proc >= x.n || e.t % ZS_BUCKET_S)
			abort();
		sum += e.count;
		if (zs_tagg_add(&a, e.t, e.stack, x.map[e.proc], e.count, e.value))
			break;
	}
	if (r == 0 && a.nr < 100000) {
		zbuf_init(&out);
		if (!zs_tagg_encode(&a, NULL, &out)) {
			if (zs_tagg_open(&c, out.data, out.len, NULL, NULL))
				abort();
			while ((r = zs_tagg_next(&c, &e)) == 1)
				sum2 += e.count;
			if (r || sum2 != sum)
				abort();
		}
		zbuf_release(&out);
	}
	free(x.map);
	zs_tagg_release(&a);
	return 0;
}
