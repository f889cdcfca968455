/* estimator.h - what a sample stands for, how sure an estimate is, and
 * whether two estimates differ.
 *
 * Contract: the one statement of the statistics shared by the runtime,
 * libmlyze, memprof-report and the Python module (header only: static
 * inline functions, no state, no allocation, safe inside the runtime).
 *
 * The sampler is a Poisson process over allocated bytes with mean interval
 * S (the sampling rate): a block of s bytes is sampled with probability
 * p = 1 - exp(-s/S), independently of every other block.  Each sample then
 * stands for w = s/p bytes and 1/p blocks (the Horvitz-Thompson weights),
 * which makes every sum of weights an unbiased estimate of the true sum.
 * Its variance is estimated, without bias, by the sum over the samples of
 * w(w - s) for bytes and (1/p)(1/p - 1) for blocks.  Sums of many samples
 * are close to normal: the 95 % interval is 1.96 standard deviations
 * either side.  Two estimates from independent runs differ significantly
 * when their difference lies farther from zero than its own interval,
 * whose variance is the sum of theirs (the z test).
 */
#ifndef SPPROF_ESTIMATOR_H
#define SPPROF_ESTIMATOR_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* The largest sampling rate the runtime takes (one sample per TiB). */
#define ESTIMATOR_MAX_SAMPLING_RATE (UINT64_C(1) << 40)
/* Standard deviations either side of an estimate in its 95 % interval. */
#define ESTIMATOR_Z95 1.96

/* What one sample stands for, and the variance it adds to a sum. */
struct estimator_weight {
	double count, count_variance;
	double bytes, bytes_variance;
};

/* The chance that a block of `size` bytes is sampled; 1 when every block
 * is (a rate of 0).  expm1 keeps it exact for blocks far smaller than the
 * rate, where 1 - exp() would cancel to nothing. */
static inline double estimator_probability(uint64_t size,
					   uint64_t sampling_rate)
{
	if (!sampling_rate || !size)
		return 1.0;
	return -expm1(-(double)size / (double)sampling_rate);
}

/* The weight of a block of `size` bytes that stood for `count` blocks
 * (1/p): what a replay rebuilds without a second exponential. */
static inline struct estimator_weight estimator_weight_of_count(uint64_t size,
								double count)
{
	double s = (double)size;
	struct estimator_weight w = { .count = count };

	w.count_variance = count * (count - 1.0);
	w.bytes = s * count;
	w.bytes_variance = w.bytes * (w.bytes - s);
	return w;
}

/* The weight of one sampled block of `size` bytes. */
static inline struct estimator_weight estimator_weigh(uint64_t size,
						      uint64_t sampling_rate)
{
	return estimator_weight_of_count(
		size, 1.0 / estimator_probability(size, sampling_rate));
}

/* Half-width of the 95 % interval of a sum with this variance.  Adding
 * and taking back large weights may leave a variance a little below
 * zero: it is zero. */
static inline double estimator_interval95(double variance)
{
	return variance > 0 ? ESTIMATOR_Z95 * sqrt(variance) : 0.0;
}

/* The chance of a difference at least this far from zero (either way)
 * when the truth is none: the two-sided p-value of the z test of
 * `difference` with `variance` (the sum of the variances of the two
 * estimates).  A difference without variance is certain: 0 unless it is
 * 0 itself. */
static inline double estimator_p_value(double difference, double variance)
{
	if (!(variance > 0))
		return difference == 0 ? 1.0 : 0.0;
	return erfc(fabs(difference) / sqrt(2.0 * variance));
}

/* Holm's correction for testing many estimates at once: given the
 * p-values of n tests in ascending order, how many of the first ones are
 * significant at level `alpha` for all n together (the chance that any of
 * them is a false alarm stays below alpha).  The i-th smallest (from 0)
 * must be at most alpha / (n - i), and so must every one before it. */
static inline size_t estimator_holm(const double *sorted_p_values, size_t n,
				    double alpha)
{
	size_t i = 0;

	while (i < n && sorted_p_values[i] <= alpha / (double)(n - i))
		i++;
	return i;
}

#endif /* SPPROF_ESTIMATOR_H */
