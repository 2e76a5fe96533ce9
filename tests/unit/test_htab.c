/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the open-addressing index: find-or-insert, growth, collisions, clear. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/hash.h"
#include "libprof/htab.h"

/* A set of u64 keys: items in keys[], the index over them. hash_bits
 * masks every hash, to force collisions. */
struct set {
	uint64_t *keys;
	size_t nr, cap;
	struct zt_htab t;
	uint64_t hash_mask;
	size_t rehashed; /* calls of the item hash */
};

static uint64_t key_hash(const struct set *s, uint64_t k)
{
	return zt_hash_mix(0, k) & s->hash_mask;
}

static uint64_t item_hash(const void *ctx, uint32_t i)
{
	struct set *s = (struct set *)ctx;

	assert_true(i < s->nr);
	s->rehashed++;
	return key_hash(s, s->keys[i]);
}

static void set_init(struct set *s, uint64_t mask)
{
	memset(s, 0, sizeof(*s));
	zt_htab_init(&s->t);
	s->hash_mask = mask;
}

static void set_release(struct set *s)
{
	free(s->keys);
	zt_htab_release(&s->t);
}

/* find-or-insert: the key's item, *is_new when just added */
static uint32_t set_intern(struct set *s, uint64_t k, int *is_new)
{
	size_t j;
	uint32_t i;

	assert_int_equal(zt_htab_reserve(&s->t, 1, item_hash, s), 0);
	for (j = zt_htab_first(&s->t, key_hash(s, k)); zt_htab_get(&s->t, j, &i);
	     j = zt_htab_next(&s->t, j))
		if (s->keys[i] == k) {
			*is_new = 0;
			return i;
		}
	if (s->nr == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->keys = realloc(s->keys, s->cap * sizeof(*s->keys));
		assert_non_null(s->keys);
	}
	s->keys[s->nr] = k;
	zt_htab_set(&s->t, j, (uint32_t)s->nr);
	*is_new = 1;
	return (uint32_t)s->nr++;
}

/* find only: the key's item, or UINT32_MAX */
static uint32_t set_find(const struct set *s, uint64_t k)
{
	size_t j;
	uint32_t i;

	if (!s->t.cap)
		return UINT32_MAX;
	for (j = zt_htab_first(&s->t, key_hash(s, k)); zt_htab_get(&s->t, j, &i);
	     j = zt_htab_next(&s->t, j))
		if (s->keys[i] == k)
			return i;
	return UINT32_MAX;
}

static void test_empty(void **state)
{
	struct zt_htab t, z = { 0 };

	(void)state;
	zt_htab_init(&t);
	assert_int_equal(t.cap, 0);
	assert_int_equal(t.nr, 0);
	assert_null(t.slots);
	zt_htab_clear(&t); /* nothing to clear */
	zt_htab_release(&t);
	zt_htab_release(&z); /* a zeroed struct is an empty table */
	assert_int_equal(t.cap, 0);
}

static void test_insert_find(void **state)
{
	struct set s;
	int is_new;

	(void)state;
	set_init(&s, UINT64_MAX);
	assert_int_equal(set_find(&s, 5), UINT32_MAX);
	assert_int_equal(set_intern(&s, 5, &is_new), 0);
	assert_true(is_new);
	assert_int_equal(set_intern(&s, 7, &is_new), 1);
	assert_true(is_new);
	assert_int_equal(set_intern(&s, 5, &is_new), 0);
	assert_false(is_new);
	assert_int_equal(set_find(&s, 7), 1);
	assert_int_equal(set_find(&s, 8), UINT32_MAX);
	assert_int_equal(set_intern(&s, 0, &is_new), 2); /* key 0 is a key like any */
	assert_true(is_new);
	assert_int_equal(s.t.nr, 3);
	assert_int_equal(s.t.cap, 64);
	assert_int_equal(s.rehashed, 0);
	set_release(&s);
}

static void test_grow(void **state)
{
	struct set s;
	size_t cap = 0, grows = 0;
	uint64_t k;
	int is_new;

	(void)state;
	set_init(&s, UINT64_MAX);
	for (k = 0; k < 1000; k++) {
		assert_int_equal(set_intern(&s, k * 3 + 1, &is_new), k);
		assert_true(is_new);
		assert_true(s.t.nr * 2 <= s.t.cap); /* load at most 1/2 */
		assert_true((s.t.cap & (s.t.cap - 1)) == 0);
		if (s.t.cap != cap) {
			grows++;
			cap = s.t.cap;
		}
	}
	assert_int_equal(s.t.cap, 2048);
	assert_int_equal(grows, 6); /* 64, 128, ..., 2048 */
	/* every item placed again at each growth: 32 + 64 + ... + 512 */
	assert_int_equal(s.rehashed, 32 + 64 + 128 + 256 + 512);
	for (k = 0; k < 1000; k++)
		assert_int_equal(set_find(&s, k * 3 + 1), k);
	assert_int_equal(set_find(&s, 3), UINT32_MAX);
	set_release(&s);
}

static void test_reserve_many(void **state)
{
	struct set s;
	int is_new;

	(void)state;
	set_init(&s, UINT64_MAX);
	assert_int_equal(zt_htab_reserve(&s.t, 5000, item_hash, &s), 0);
	assert_int_equal(s.t.cap, 16384);
	for (uint64_t k = 0; k < 5000; k++)
		set_intern(&s, k, &is_new);
	assert_int_equal(s.t.cap, 16384); /* room was made up front */
	assert_int_equal(s.rehashed, 0);
	set_release(&s);
}

static void test_many(void **state)
{
	struct set s;
	uint32_t n = 200000, i;
	int is_new;

	(void)state;
	set_init(&s, UINT64_MAX);
	for (i = 0; i < n; i++)
		assert_int_equal(set_intern(&s, zt_hash_mix(1, i), &is_new), i);
	for (i = 0; i < n; i++) {
		assert_int_equal(set_intern(&s, zt_hash_mix(1, i), &is_new), i);
		assert_false(is_new);
	}
	assert_int_equal(s.t.nr, n);
	assert_int_equal(set_find(&s, zt_hash_mix(1, n)), UINT32_MAX);
	set_release(&s);
}

static void test_collisions(void **state)
{
	struct set s;
	uint64_t k;
	int is_new;

	(void)state;
	/* every key hashes to one of 2 values: long probes, wrapping at the end */
	set_init(&s, 1);
	for (k = 0; k < 300; k++)
		assert_int_equal(set_intern(&s, k, &is_new), k);
	for (k = 0; k < 300; k++)
		assert_int_equal(set_find(&s, k), k);
	assert_int_equal(set_find(&s, 300), UINT32_MAX);
	set_release(&s);

	/* hashes past the end of the slots wrap to slot 0 */
	set_init(&s, UINT64_MAX);
	assert_int_equal(zt_htab_reserve(&s.t, 1, item_hash, &s), 0);
	zt_htab_add(&s.t, 63, 0);
	zt_htab_add(&s.t, 63, 1);
	assert_int_equal(s.t.slots[63], 1);
	assert_int_equal(s.t.slots[0], 2);
	assert_int_equal(s.t.nr, 2);
	zt_htab_release(&s.t);
}

static void test_reset_room(void **state)
{
	struct zt_htab t;
	uint32_t i, k;

	(void)state;
	zt_htab_init(&t);
	assert_false(zt_htab_room(&t, 1));
	assert_int_equal(zt_htab_reset(&t, 0), 0);
	assert_int_equal(t.cap, 64);
	assert_true(zt_htab_room(&t, 32));
	assert_false(zt_htab_room(&t, 33));
	/* items that are not 0 .. nr - 1 (offsets, say): the caller rebuilds */
	for (k = 0; k < 32; k++)
		zt_htab_add(&t, zt_hash_mix(0, k * 10), k * 10);
	assert_false(zt_htab_room(&t, 1));
	assert_int_equal(zt_htab_reset(&t, t.nr + 1), 0);
	assert_int_equal(t.cap, 128);
	assert_int_equal(t.nr, 0);
	for (k = 0; k < 33; k++)
		zt_htab_add(&t, zt_hash_mix(0, k * 10), k * 10);
	for (k = 0; k < 33; k++) {
		size_t j;
		int found = 0;

		for (j = zt_htab_first(&t, zt_hash_mix(0, k * 10)); !found && zt_htab_get(&t, j, &i);
		     j = zt_htab_next(&t, j))
			found = i == k * 10;
		assert_true(found);
	}
	/* the same size again: emptied in place */
	assert_int_equal(zt_htab_reset(&t, 40), 0);
	assert_int_equal(t.cap, 128);
	assert_int_equal(t.nr, 0);
	for (k = 0; k < t.cap; k++)
		assert_int_equal(t.slots[k], 0);
	zt_htab_release(&t);
}

static void test_clear(void **state)
{
	struct set s;
	uint64_t k;
	int is_new;

	(void)state;
	set_init(&s, UINT64_MAX);
	for (k = 0; k < 100; k++)
		set_intern(&s, k, &is_new);
	assert_int_equal(s.t.cap, 256);
	zt_htab_clear(&s.t);
	s.nr = 0;
	assert_int_equal(s.t.nr, 0);
	assert_int_equal(s.t.cap, 256); /* the slots are kept */
	for (k = 0; k < 100; k++)
		assert_int_equal(set_find(&s, k), UINT32_MAX);
	/* and used again, from item 0 */
	assert_int_equal(set_intern(&s, 42, &is_new), 0);
	assert_true(is_new);
	assert_int_equal(set_find(&s, 42), 0);
	assert_int_equal(set_find(&s, 41), UINT32_MAX);
	set_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),	    cmocka_unit_test(test_insert_find),
		cmocka_unit_test(test_grow),	    cmocka_unit_test(test_reserve_many),
		cmocka_unit_test(test_many),	    cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_reset_room), cmocka_unit_test(test_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
