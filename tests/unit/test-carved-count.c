/* Unit tests of the counts of tracked blocks outside the pool. */
#include "config.h"

#include <check.h>
#include <stdint.h>

#include "carved_count.h"
#include "free_filter.h"

Suite *test_suite(void);

#define PAGE SAMPLED_ALIGNMENT

static const void *at(uintptr_t page)
{
	return (const void *)(page * PAGE);
}

START_TEST(nothing_counted_holds_nothing)
{
	for (uintptr_t page = 1; page < 3 * CARVED_COUNTERS; page += 97)
		ck_assert_int_eq(carved_count_may_hold(at(page)), 0);
}
END_TEST

/* A block counted twice and released once is still there; its page's
 * neighbours never were. */
START_TEST(counts_follow_adds_and_removals)
{
	const void *block = at(0x7f123);

	carved_count_add(block, 1);
	carved_count_add(block, 1);
	ck_assert_int_eq(carved_count_may_hold(block), 1);
	ck_assert_int_eq(carved_count_may_hold(at(0x7f122)), 0);
	ck_assert_int_eq(carved_count_may_hold(at(0x7f124)), 0);
	carved_count_add(block, -1);
	ck_assert_int_eq(carved_count_may_hold(block), 1);
	carved_count_add(block, -1);
	ck_assert_int_eq(carved_count_may_hold(block), 0);
}
END_TEST

/* Pages CARVED_COUNTERS apart share a counter: a block counted at one
 * makes the other worth a look in the table (never the reverse mistake). */
START_TEST(pages_that_share_a_counter_are_asked_about)
{
	const void *block = at(5), *alias = at(5 + CARVED_COUNTERS);

	carved_count_add(block, 1);
	ck_assert_int_eq(carved_count_may_hold(alias), 1);
	carved_count_add(alias, 1);
	carved_count_add(block, -1);
	ck_assert_int_eq(carved_count_may_hold(alias), 1);
	carved_count_add(alias, -1);
	ck_assert_int_eq(carved_count_may_hold(block), 0);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("carved_count");
	TCase *tc = tcase_create("carved_count");

	tcase_add_test(tc, nothing_counted_holds_nothing);
	tcase_add_test(tc, counts_follow_adds_and_removals);
	tcase_add_test(tc, pages_that_share_a_counter_are_asked_about);
	suite_add_tcase(s, tc);
	return s;
}
