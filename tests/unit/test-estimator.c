/* Unit tests of the estimator (common/estimator.h) against simulated
 * sampling: a known population of blocks is sampled as the runtime's
 * Poisson sampler would, many times with fixed seeds, and the estimates,
 * their 95 % intervals and the difference test are held to the truth. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "estimator.h"
#include "prng.h"

Suite *test_suite(void);

#define BLOCKS 2000
#define RATE 65536
#define RUNS 2000

/* Block sizes from 16 bytes to 256 KiB, evenly on a log scale. */
static void make_population(uint64_t *sizes, size_t n, uint64_t seed)
{
	struct prng p;

	prng_seed(&p, seed, 1, 2);
	for (size_t i = 0; i < n; i++)
		sizes[i] = (uint64_t)(16.0 * pow(16384.0, prng_next_double(&p)));
}

static double total_bytes(const uint64_t *sizes, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += (double)sizes[i];
	return sum;
}

struct sum {
	double bytes, variance;
};

/* One sampled estimate of the population, as a profile would give. */
static struct sum sample_once(const uint64_t *sizes, size_t n, struct prng *p)
{
	struct sum s = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct estimator_weight w;

		if (prng_next_double(p) >= estimator_probability(sizes[i], RATE))
			continue;
		w = estimator_weigh(sizes[i], RATE);
		s.bytes += w.bytes;
		s.variance += w.bytes_variance;
	}
	return s;
}

static bool covers(double estimate, double variance, double truth)
{
	return fabs(estimate - truth) <= estimator_interval95(variance);
}

START_TEST(weights_are_the_horvitz_thompson_ones)
{
	struct estimator_weight w = estimator_weigh(4096, 4096);
	double p = 1.0 - exp(-1.0);

	ck_assert_double_eq_tol(w.count, 1.0 / p, 1e-12);
	ck_assert_double_eq_tol(w.bytes, 4096.0 / p, 1e-9);
	ck_assert_double_eq_tol(w.bytes_variance,
				(4096.0 / p) * (4096.0 / p - 4096.0), 1e-3);
	ck_assert_double_eq_tol(w.count_variance, (1 / p) * (1 / p - 1), 1e-12);
	/* Tiny blocks: p = s/S to first order, not 0 by cancellation. */
	ck_assert_double_eq_tol(estimator_probability(1, 1ull << 40) *
					(double)(1ull << 40), 1.0, 1e-9);
	/* Without sampling (rate 0) a block stands for itself alone. */
	w = estimator_weigh(100, 0);
	ck_assert_double_eq(w.count, 1.0);
	ck_assert_double_eq(w.bytes_variance, 0.0);
	/* A replay rebuilds the same weight from the count. */
	w = estimator_weight_of_count(4096, estimator_weigh(4096, 4096).count);
	ck_assert_double_eq_tol(w.bytes_variance,
				estimator_weigh(4096, 4096).bytes_variance, 1e-6);
	/* A block of no bytes is never sampled: it stands for nothing. */
	w = estimator_weigh(0, 4096);
	ck_assert(w.count == 0 && w.bytes == 0 && w.count_variance == 0 &&
		  w.bytes_variance == 0);
}
END_TEST

/* The halves of the cross-fitted peak are independent samples at twice
 * the interval: among the sampled blocks of one size, a block is in each
 * half with chance q = 1 - exp(-s/2S) over p, and in both with chance q^2
 * over p.  Dealt over many blocks (as a replay deals them, by address and
 * time), the shares keep within 4 standard errors of those chances. */
START_TEST(halves_are_independent_samples)
{
	static const uint64_t sizes[] = { 64, 4096, RATE, 4 * RATE };
	const int blocks = 200000;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		double q = estimator_probability(sizes[k], 2 * RATE);
		double p = estimator_probability(sizes[k], RATE);
		double want[3] = { q * (1 - q) / p, q * (1 - q) / p, q * q / p };
		int got[3] = { 0 };

		for (int i = 0; i < blocks; i++) {
			unsigned halves = estimator_halves_of(
				sizes[k], RATE,
				estimator_block_key(4096u * (unsigned)i,
						    1000000u + 37u * i));

			got[halves - 1]++;
		}
		for (int h = 0; h < 3; h++) {
			double error = sqrt(want[h] * (1 - want[h]) / blocks);

			ck_assert_msg(fabs(got[h] / (double)blocks - want[h]) <=
					      4 * error + 1e-12,
				      "size %llu, halves %d: %.4f, expected %.4f",
				      (unsigned long long)sizes[k], h + 1,
				      got[h] / (double)blocks, want[h]);
		}
		ck_assert_double_eq_tol(estimator_weigh_half(sizes[k], RATE).count,
					1 / q, 1e-9);
	}
}
END_TEST

START_TEST(interval_covers_the_truth_95_times_in_100)
{
	static uint64_t sizes[BLOCKS];
	double truth, mean = 0;
	int covered = 0;
	struct prng p;

	make_population(sizes, BLOCKS, 7);
	truth = total_bytes(sizes, BLOCKS);
	prng_seed(&p, 11, 12, 13);
	for (int run = 0; run < RUNS; run++) {
		struct sum s = sample_once(sizes, BLOCKS, &p);

		mean += s.bytes / RUNS;
		covered += covers(s.bytes, s.variance, truth);
	}
	printf("estimator: 95 %% interval covers the bytes in %.1f %% of "
	       "%d runs\n", 100.0 * covered / RUNS, RUNS);
	ck_assert_int_ge(covered, 0.93 * RUNS);
	ck_assert_int_le(covered, 0.97 * RUNS);
	/* Unbiased: the mean of the runs is within 4 standard errors. */
	ck_assert_double_eq_tol(mean, truth, 0.02 * truth);
}
END_TEST

/* Two independent runs over populations `a` and `b`: how often the 95 %
 * interval of their difference (variance: the sum of theirs) covers the
 * true difference. */
static int difference_covered(const uint64_t *a, size_t na, const uint64_t *b,
			      size_t nb, uint64_t seed)
{
	double truth = total_bytes(b, nb) - total_bytes(a, na);
	int covered = 0;
	struct prng p;

	prng_seed(&p, seed, 3, 4);
	for (int run = 0; run < RUNS; run++) {
		struct sum base = sample_once(a, na, &p);
		struct sum now = sample_once(b, nb, &p);

		covered += covers(now.bytes - base.bytes,
				  now.variance + base.variance, truth);
	}
	return covered;
}

START_TEST(difference_test_keeps_its_level)
{
	static uint64_t sizes[BLOCKS + BLOCKS / 10];
	int same, grown;

	make_population(sizes, BLOCKS + BLOCKS / 10, 21);
	same = difference_covered(sizes, BLOCKS, sizes, BLOCKS, 31);
	grown = difference_covered(sizes, BLOCKS, sizes, BLOCKS + BLOCKS / 10,
				   41);
	printf("estimator: difference of equal runs called significant in "
	       "%.1f %%; interval of a known growth covers it in %.1f %%\n",
	       100.0 * (RUNS - same) / RUNS, 100.0 * grown / RUNS);
	ck_assert_int_ge(same, 0.93 * RUNS);
	ck_assert_int_le(same, 0.97 * RUNS);
	ck_assert_int_ge(grown, 0.93 * RUNS);
	ck_assert_int_le(grown, 0.97 * RUNS);
}
END_TEST

START_TEST(p_values_of_the_z_test)
{
	/* 1.96 standard deviations away: p = 0.05 */
	ck_assert_double_eq_tol(estimator_p_value(ESTIMATOR_Z95 * 3, 9), 0.05,
				1e-4);
	ck_assert_double_eq_tol(estimator_p_value(-ESTIMATOR_Z95 * 3, 9), 0.05,
				1e-4);
	ck_assert_double_eq(estimator_p_value(0, 4), 1.0);
	/* Without variance a difference is certain. */
	ck_assert_double_eq(estimator_p_value(5, 0), 0.0);
	ck_assert_double_eq(estimator_p_value(0, 0), 1.0);
}
END_TEST

START_TEST(holm_stops_at_the_first_test_it_keeps)
{
	const double p[] = { 0.001, 0.012, 0.013, 0.04, 0.5 };

	/* Thresholds 0.01, 0.0125, 0.0167, 0.025, 0.05 */
	ck_assert_uint_eq(estimator_holm(p, 5, 0.05), 3);
	ck_assert_uint_eq(estimator_holm(p, 1, 0.05), 1);
	ck_assert_uint_eq(estimator_holm(p + 4, 1, 0.05), 0);
	ck_assert_uint_eq(estimator_holm(p, 0, 0.05), 0);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("estimator");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, weights_are_the_horvitz_thompson_ones);
	tcase_add_test(tc, halves_are_independent_samples);
	tcase_add_test(tc, interval_covers_the_truth_95_times_in_100);
	tcase_add_test(tc, difference_test_keeps_its_level);
	tcase_add_test(tc, p_values_of_the_z_test);
	tcase_add_test(tc, holm_stops_at_the_first_test_it_keeps);
	suite_add_tcase(s, tc);
	return s;
}
