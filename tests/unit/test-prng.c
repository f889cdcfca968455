/* Unit tests of the PRNG and of the exponential sampling intervals. */
#include "config.h"

#include <check.h>
#include <math.h>

#include "prng.h"

Suite *test_suite(void);

#define DRAWS 200000
#define MEAN 4096

START_TEST(uniform_doubles_stay_in_range)
{
	struct prng p;
	double sum = 0;

	prng_seed(&p, 1, 2, 3);
	for (int i = 0; i < DRAWS; i++) {
		double u = prng_next_double(&p);

		ck_assert(u >= 0.0 && u < 1.0);
		sum += u;
	}
	/* mean of U(0,1) is 1/2 with standard error 0.29/sqrt(n) */
	ck_assert_double_eq_tol(sum / DRAWS, 0.5, 4 * 0.29 / sqrt(DRAWS));
}
END_TEST

START_TEST(seeds_give_different_sequences)
{
	struct prng a, b, zero;

	prng_seed(&a, 1, 100, 7);
	prng_seed(&b, 2, 100, 7);
	ck_assert_uint_ne(prng_next(&a), prng_next(&b));
	/* a seed mixing to the all-zero state must still produce numbers */
	prng_seed(&zero, 0, 0, 0);
	ck_assert(prng_next(&zero) != 0 || prng_next(&zero) != 0);
}
END_TEST

START_TEST(exponential_mean)
{
	struct prng p;
	double sum = 0;

	prng_seed(&p, 42, 4242, 424242);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t x = prng_exponential(&p, MEAN);

		ck_assert_uint_ge(x, 1);
		sum += (double)x;
	}
	/* the exponential's standard deviation equals its mean */
	ck_assert_double_eq_tol(sum / DRAWS, MEAN, 4.0 * MEAN / sqrt(DRAWS));
}
END_TEST

START_TEST(exponential_distribution)
{
	static const double quantiles[] = { 0.05, 0.1, 0.25, 0.5,
					    0.75, 0.9, 0.99 };
	unsigned below[sizeof(quantiles) / sizeof(quantiles[0])] = { 0 };
	struct prng p;

	prng_seed(&p, 7, 77, 777);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t x = prng_exponential(&p, MEAN);

		for (size_t q = 0; q < sizeof(quantiles) / sizeof(quantiles[0]);
		     q++)
			/* +1: draws are truncated to whole bytes */
			below[q] += (double)x + 1 <= -MEAN * log(1 - quantiles[q]);
	}
	for (size_t q = 0; q < sizeof(quantiles) / sizeof(quantiles[0]); q++) {
		double share = (double)below[q] / DRAWS;
		double se = sqrt(quantiles[q] * (1 - quantiles[q]) / DRAWS);

		ck_assert_double_eq_tol(share, quantiles[q], 5 * se + 1e-4);
	}
}
END_TEST

START_TEST(exponential_bounds)
{
	struct prng p;

	prng_seed(&p, 3, 3, 3);
	for (int i = 0; i < 1000; i++) {
		ck_assert_uint_ge(prng_exponential(&p, 1), 1);
		ck_assert_uint_le(prng_exponential(&p, 1ull << 40), 1ull << 40);
	}
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("prng");
	TCase *tc = tcase_create("prng");

	tcase_add_test(tc, uniform_doubles_stay_in_range);
	tcase_add_test(tc, seeds_give_different_sequences);
	tcase_add_test(tc, exponential_mean);
	tcase_add_test(tc, exponential_distribution);
	tcase_add_test(tc, exponential_bounds);
	suite_add_tcase(s, tc);
	return s;
}
