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
 * whose variance is the sum of theirs (the z test).  A block of no bytes
 * is never sampled (no point of the process falls inside it): should one
 * be recorded, it stands for nothing.
 *
 * The peak (the largest live heap of a run) is estimated by cross-fitting.
 * The moment at which the estimated live heap is largest is where the noise
 * of the estimate happened to be most favourable: on a heap whose level
 * stays the same while its blocks are replaced, the largest estimate
 * overstates the level by about two standard deviations, and an interval
 * drawn around it rarely holds the truth.  So the sampled blocks are dealt
 * into two halves that are themselves independent Poisson samples of mean
 * interval 2S (every point of the process of rate 1/S goes to one half or
 * the other at random; a block joins each half that received a point
 * inside it, so a block may join both).  Half A chooses its moment (where
 * its own estimate is largest) and half B, which knows nothing of that
 * choice, estimates the live heap at it, without bias; then the other way
 * round.  The peak estimate is the mean of the two: it estimates the true
 * heap at two moments the data found highest, never more than the true
 * peak, and where both halves agree on the moment it is the estimate from
 * every sample at that moment.  Its variance is the mean of the two
 * halves' variances halved.
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

/* The weight of one sampled block of `size` bytes, sampled with
 * `probability` (nothing for 0 bytes). */
static inline struct estimator_weight
estimator_weigh_probability(uint64_t size, double probability)
{
	if (!size)
		return (struct estimator_weight){ 0 };
	return estimator_weight_of_count(size, 1.0 / probability);
}

/* The weight of one sampled block of `size` bytes (nothing for 0 bytes). */
static inline struct estimator_weight estimator_weigh(uint64_t size,
						      uint64_t sampling_rate)
{
	return estimator_weigh_probability(
		size, estimator_probability(size, sampling_rate));
}

/* The halves of the samples that cross-fit the peak, as bits. */
enum estimator_half {
	ESTIMATOR_HALF_A = 1,
	ESTIMATOR_HALF_B = 2,
	ESTIMATOR_HALVES = 2,
};

/* The mean interval of a half: twice the rate (saturated, for the rates a
 * damaged profile may carry). */
static inline uint64_t estimator_half_rate(uint64_t sampling_rate)
{
	return sampling_rate > UINT64_MAX / 2 ? UINT64_MAX : 2 * sampling_rate;
}

/* What deals a sampled block into the halves: its address and the time it
 * was allocated, which differ from block to block.  Not its rank among
 * the samples: with a fixed sequence of draws dealt out by rank, the
 * number of B samples between two A samples would be fixed too, and the
 * halves would no longer be independent (B thins out where A is dense,
 * which biases the peak low). */
static inline uint64_t estimator_block_key(uint64_t address, uint64_t time_us)
{
	return address ^ (time_us * UINT64_C(0x9e3779b97f4a7c15));
}

/* Which halves a sampled block joins: a deterministic draw from its `key`
 * (estimator_block_key()), so that every reading of a profile deals it
 * the same way.  With q = 1 - exp(-size/2S), the chance of a point of
 * either half inside the block, it is in A only or B only each with
 * chance (1-q)/(2-q), and in both with chance q/(2-q). */
static inline unsigned estimator_halves_of_probability(double q,
						       uint64_t key)
{
	double one_only = (1.0 - q) / (2.0 - q), u;

	/* splitmix64: every bit of the key stirs every bit of the draw. */
	key += UINT64_C(0x9e3779b97f4a7c15);
	key = (key ^ (key >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	key = (key ^ (key >> 27)) * UINT64_C(0x94d049bb133111eb);
	key ^= key >> 31;
	u = (double)(key >> 11) * (1.0 / 9007199254740992.0);
	if (u < one_only)
		return ESTIMATOR_HALF_A;
	if (u < 2.0 * one_only)
		return ESTIMATOR_HALF_B;
	return ESTIMATOR_HALF_A | ESTIMATOR_HALF_B;
}

/* The same for a block of `size` bytes sampled at `sampling_rate`. */
static inline unsigned estimator_halves_of(uint64_t size,
					   uint64_t sampling_rate,
					   uint64_t key)
{
	return estimator_halves_of_probability(
		estimator_probability(size, estimator_half_rate(sampling_rate)),
		key);
}

/* The weight of a block in one half, a sample at the mean interval 2S. */
static inline struct estimator_weight estimator_weigh_half(
	uint64_t size, uint64_t sampling_rate)
{
	return estimator_weigh(size, estimator_half_rate(sampling_rate));
}

/* The peak from the two cross-fitted estimates: half B at the moment half
 * A chose, and half A at the moment half B chose. */
static inline struct estimator_weight estimator_cross_fit(
	const struct estimator_weight *b_at_a, const struct estimator_weight *a_at_b)
{
	return (struct estimator_weight){
		.count = (b_at_a->count + a_at_b->count) / 2,
		.count_variance =
			(b_at_a->count_variance + a_at_b->count_variance) / 4,
		.bytes = (b_at_a->bytes + a_at_b->bytes) / 2,
		.bytes_variance =
			(b_at_a->bytes_variance + a_at_b->bytes_variance) / 4,
	};
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
