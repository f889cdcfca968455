/* mlyze-weights.c - what one sample of a Poisson sampler stands for.
 *
 * Contract: the Horvitz-Thompson weights of mlyze(5).  A block of size s,
 * sampled at mean interval S, was sampled with probability
 * p = 1 - exp(-s/S); it stands for s/p bytes and 1/p blocks, with
 * variances w(w - s) and (1/p)(1/p - 1).  expm1 keeps p exact for blocks
 * far smaller than S, where 1 - exp() would cancel to nothing.
 */
#include "config.h"

#include "spprof/mlyze.h"

#include <math.h>

MLYZE_PUBLIC void mlyze_weigh(uint64_t size, uint64_t sampling_rate,
			      struct mlyze_weight *weight)
{
	double s = (double)size;
	double p = size && sampling_rate
			   ? -expm1(-s / (double)sampling_rate)
			   : 1.0;

	weight->count = 1.0 / p;
	weight->count_variance = weight->count * (weight->count - 1.0);
	weight->bytes = s * weight->count;
	weight->bytes_variance = weight->bytes * (weight->bytes - s);
}
