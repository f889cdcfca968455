/* report-weights.h - the weights of a sampled block, remembered by its
 * size and sampling rate.
 *
 * Contract: for a block of `size` bytes sampled at `sampling_rate`, the
 * very values estimator.h computes (its weight among all the samples, the
 * chance that a half of the samples holds it and its weight there), each
 * pair computed once while it stays in a small table: a profile's sizes
 * repeat, and its rate seldom changes, so most blocks are weighed without
 * an exponential or a division.  The table has a fixed size (a pair that
 * collides with another replaces it), so memory does not grow with the
 * sizes seen.
 */
#ifndef SPPROF_REPORT_WEIGHTS_H
#define SPPROF_REPORT_WEIGHTS_H

#include <stdint.h>

#include "estimator.h"

struct block_weights {
	uint64_t size, sampling_rate;
	struct estimator_weight whole; /* among all the samples */
	struct estimator_weight half;  /* in a half it joins */
	double half_probability;       /* that a half holds the block */
};

struct weight_memo {
	struct block_weights *entries;
};

void weight_memo_init(struct weight_memo *memo);
void weight_memo_free(struct weight_memo *memo);

/* The weights of a block of `size` bytes at `sampling_rate`: valid until
 * the next call. */
const struct block_weights *weights_of(struct weight_memo *memo,
				       uint64_t size, uint64_t sampling_rate);

#endif /* SPPROF_REPORT_WEIGHTS_H */
