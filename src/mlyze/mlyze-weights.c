/* mlyze-weights.c - what one sample of a Poisson sampler stands for.
 *
 * Contract: the Horvitz-Thompson weights of mlyze(5), as estimator.h
 * states them for the runtime and the report alike.
 */
#include "config.h"

#include "estimator.h"
#include "spprof/mlyze.h"

MLYZE_PUBLIC void mlyze_weigh(uint64_t size, uint64_t sampling_rate,
			      struct mlyze_weight *weight)
{
	struct estimator_weight w = estimator_weigh(size, sampling_rate);

	weight->count = w.count;
	weight->count_variance = w.count_variance;
	weight->bytes = w.bytes;
	weight->bytes_variance = w.bytes_variance;
}
