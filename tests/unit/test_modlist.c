/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modlist: a recording's modules as perf buildid-list lists them: the
 * kernel first, the files by first mapping in time order, build ids, and
 * hits of the samples' own addresses only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/modlist.h"

static void add_map(struct profile *p, uint32_t pid, uint64_t ts, uint64_t start, const char *path,
		    uint8_t bid)
{
	struct prof_mmap m = {.ts = ts,
			      .pid = pid,
			      .tid = pid,
			      .start = start,
			      .len = 0x1000,
			      .prot = 5,
			      .path = (char *)path};

	if (bid) {
		m.build_id.len = 20;
		memset(m.build_id.data, bid, 20);
	}
	assert_int_equal(profile_add_mmap(p, &m), 0);
}

/* A sample at ts of pid whose own address is ips[0] (nk kernel frames first). */
static void add_sample(struct profile *p, uint32_t pid, uint64_t ts, const uint64_t *ips,
		       unsigned nk, unsigned nu)
{
	struct prof_sample s = {.ts = ts, .weight = 1, .pid = pid, .tid = pid};

	assert_int_equal(profile_intern_stack(p, ips, nk, nu, &s.stack), 0);
	assert_int_equal(profile_add_sample(p, &s), 0);
}

static void test_order_bids_hits(void **state)
{
	static const uint64_t in_lib[] = {0x5010, 0x1010}; /* lib, called from app */
	static const uint64_t in_kernel[] = {0xffffffff81000010ull, 0x1020};
	struct profile p;
	struct proctree *pt;
	struct modlist l = {0};

	(void)state;
	profile_init(&p);
	/* file order is not time order: /lib was mapped first */
	add_map(&p, 100, 20, 0x1000, "/app", 0xaa);
	add_map(&p, 100, 10, 0x5000, "/lib", 0xbb);
	add_map(&p, 100, 30, 0x9000, "/unused", 0);
	add_map(&p, 200, 40, 0x1000, "/app", 0xaa); /* a second process: one entry */
	add_sample(&p, 100, 50, in_lib, 0, 2);
	add_sample(&p, 100, 60, in_kernel, 1, 1);
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_int_equal(modlist_build(&l, &(struct rstacks){&p, pt, NULL}), 0);

	assert_int_equal(l.nr, 4);
	assert_string_equal(l.e[0].path, "[kernel.kallsyms]");
	assert_int_equal(l.e[0].bid.len, 0); /* none recorded */
	assert_true(l.e[0].hit);
	assert_string_equal(l.e[1].path, "/lib");
	assert_int_equal(l.e[1].bid.data[0], 0xbb);
	assert_true(l.e[1].hit);
	assert_string_equal(l.e[2].path, "/app");
	assert_int_equal(l.e[2].bid.len, 20);
	assert_false(l.e[2].hit); /* only in call chains */
	assert_string_equal(l.e[3].path, "/unused");
	assert_false(l.e[3].hit);
	modlist_release(&l);
	proctree_free(pt);
	profile_release(&p);
}

static void test_kernel_build_id_user_only(void **state)
{
	static const uint8_t kbid[20] = {1, 2, 3};
	static const uint64_t ip[] = {0x1010};
	struct profile p;
	struct proctree *pt;
	struct modlist l = {0};

	(void)state;
	profile_init(&p);
	add_map(&p, 7, 1, 0x1000, "/bin/x", 0);
	add_sample(&p, 7, 2, ip, 0, 1);
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_int_equal(modlist_build(&l, &(struct rstacks){&p, pt, NULL}), 0);
	assert_int_equal(l.nr, 1); /* no kernel frames, mappings or build id: no kernel */
	assert_true(l.e[0].hit);
	modlist_release(&l);
	proctree_free(pt);
	assert_int_equal(profile_add_blob(&p, PROF_BLOB_KERNEL_BUILD_ID, 0, 0, kbid, 20), 0);
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_int_equal(modlist_build(&l, &(struct rstacks){&p, pt, NULL}), 0);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.e[0].path, "[kernel.kallsyms]");
	assert_memory_equal(l.e[0].bid.data, kbid, 20);
	assert_false(l.e[0].hit);
	modlist_release(&l);
	proctree_free(pt);
	profile_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_bids_hits),
		cmocka_unit_test(test_kernel_build_id_user_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
