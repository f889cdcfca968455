/* Unit tests of the free fast-path filter. */
#include "config.h"

#include <check.h>
#include <malloc.h>
#include <stdlib.h>

#include "free_filter.h"

Suite *test_suite(void);

START_TEST(aligned_blocks_may_be_sampled)
{
	void *p = memalign(SAMPLED_ALIGNMENT, 24);

	ck_assert(free_filter_maybe_sampled(p));
	ck_assert(free_filter_maybe_sampled((void *)(SAMPLED_ALIGNMENT * 9)));
	free(p);
}
END_TEST

START_TEST(ordinary_blocks_are_rejected)
{
	unsigned passed = 0;
	void *blocks[1000];

	for (int i = 0; i < 1000; i++) {
		blocks[i] = malloc(8 + (size_t)(i % 257));
		passed += free_filter_maybe_sampled(blocks[i]);
	}
	for (int i = 0; i < 1000; i++)
		free(blocks[i]);
	/* heap blocks are 16-byte aligned: about 1 in 256 is page-aligned */
	ck_assert_uint_le(passed, 20);
	ck_assert(!free_filter_maybe_sampled((void *)(SAMPLED_ALIGNMENT + 16)));
	ck_assert(!free_filter_maybe_sampled((void *)(SAMPLED_ALIGNMENT - 8)));
}
END_TEST

/* Below IN_PLACE_RATE_MAX, sampled blocks stay where the C library put
 * them: every pointer may then be one, at any rate set later too.  (Each
 * test runs in a process of its own.) */
START_TEST(small_rates_let_every_block_through)
{
	ck_assert(!sampled_blocks_in_place());
	free_filter_set_rate(IN_PLACE_RATE_MAX);
	ck_assert(!sampled_blocks_in_place());
	free_filter_set_rate(IN_PLACE_RATE_MAX - 1);
	ck_assert(sampled_blocks_in_place());
	ck_assert(free_filter_maybe_sampled((void *)(SAMPLED_ALIGNMENT + 16)));
	free_filter_set_rate(512 * 1024);
	ck_assert(sampled_blocks_in_place());
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("free_filter");
	TCase *tc = tcase_create("free_filter");

	tcase_add_test(tc, aligned_blocks_may_be_sampled);
	tcase_add_test(tc, ordinary_blocks_are_rejected);
	tcase_add_test(tc, small_rates_let_every_block_through);
	suite_add_tcase(s, tc);
	return s;
}
