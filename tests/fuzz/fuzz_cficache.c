/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary bytes as a cached unwind table (cficache.h).
 * What decodes encodes again to the very same bytes, and its lookups find
 * each entry's rule. The input is tried as it is, and with its checksum
 * made right, so that mutations reach the checks behind the checksum. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/hash.h"
#include "symbolizer/cficache.h"

#define HDR_LEN	   40
#define MAX_CHECKS 2048 /* entries looked up, each input: the target stays cheap */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void try_decode(const uint8_t *data, size_t size)
{
	struct cfi_seg segs[CFICACHE_MAX_SEGS];
	struct cfipages p;
	unsigned ns = 0;
	void *out;
	size_t len, i, step;
	int ret;

	cfipages_init(&p);
	ret = cficache_decode(data, size, &p, segs, &ns);
	if (ret) {
		if (p.nr_pages || p.nr_entries || p.nr_rules || p.pages || p.entries || p.rules ||
		    ns)
			abort();
		cfipages_release(&p);
		return;
	}
	if (ns > CFICACHE_MAX_SEGS)
		abort();
	if (cficache_encode(&p, segs, ns, &out, &len))
		abort();
	if (len != size || memcmp(out, data, size))
		abort();
	free(out);
	/* each entry's start gives its rule, and just below it the one
	 * before (none below a page) */
	step = p.nr_entries / MAX_CHECKS + 1;
	for (i = 0; i < p.nr_pages; i++) {
		const struct cfipage *pg = &p.pages[i];

		for (uint32_t j = 0; j < pg->nr; j += (uint32_t)step) {
			const struct cfipage_entry *e = &p.entries[pg->first + j];
			uint64_t addr = pg->page << CFIPAGE_SHIFT | e->lo;
			const struct cfipage_rule *r = cfipages_lookup(&p, addr);

			if (r != &p.rules[e->rule])
				abort();
			if (!addr)
				continue;
			r = cfipages_lookup(&p, addr - 1);
			if (j ? r != &p.rules[e[-1].rule]
			      : r && (i == 0 || p.pages[i - 1].page != pg->page - 1))
				abort();
		}
	}
	cfipages_lookup(&p, 0);
	cfipages_lookup(&p, UINT64_MAX);
	cfipages_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *m;
	uint64_t h;

	try_decode(data, size);
	if (size < HDR_LEN)
		return 0;
	m = malloc(size);
	if (!m)
		return 0;
	memcpy(m, data, size);
	h = zt_hash_pair(zt_hash_bytes(m, 32), zt_hash_bytes(m + HDR_LEN, size - HDR_LEN));
	for (int i = 0; i < 8; i++)
		m[32 + i] = (uint8_t)(h >> (8 * i));
	try_decode(m, size);
	free(m);
	return 0;
}
