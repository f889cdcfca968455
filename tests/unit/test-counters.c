/* Unit tests of the striped counters: concurrent adds sum exactly, and
 * threads add to copies on different cache lines. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdint.h>

#include "counters.h"

Suite *test_suite(void);

#define THREADS 4
#define ADDS 100000

static struct counters counters;

static void *add_many(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < ADDS; i++) {
		counters_add(&counters, 0, 1);
		counters_add(&counters, 1, 3);
		counters_add(&counters, 1, (uint64_t)-1); /* subtracts */
	}
	return (void *)(uintptr_t)counter_stripe_plus_one;
}

START_TEST(concurrent_adds_sum_exactly)
{
	pthread_t threads[THREADS];
	uintptr_t stripe[THREADS];

	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL, add_many,
						NULL), 0);
	for (int i = 0; i < THREADS; i++) {
		void *result;

		ck_assert_int_eq(pthread_join(threads[i], &result), 0);
		stripe[i] = (uintptr_t)result;
	}
	ck_assert_uint_eq(counters_sum(&counters, 0), (uint64_t)THREADS * ADDS);
	ck_assert_uint_eq(counters_sum(&counters, 1),
			  (uint64_t)THREADS * ADDS * 2);
	ck_assert_uint_eq(counters_sum(&counters, 2), 0);
	/* Up to COUNTER_STRIPES threads, each has a copy of its own. */
	for (int i = 0; i < THREADS; i++)
		for (int j = 0; j < i; j++)
			ck_assert_uint_ne(stripe[i], stripe[j]);
	counters_clear(&counters, 0);
	ck_assert_uint_eq(counters_sum(&counters, 0), 0);
	ck_assert_uint_eq(counters_sum(&counters, 1),
			  (uint64_t)THREADS * ADDS * 2);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("counters");
	TCase *tc = tcase_create("counters");

	tcase_add_test(tc, concurrent_adds_sum_exactly);
	suite_add_tcase(s, tc);
	return s;
}
