/* report-weights.c - the weights of a sampled block, remembered by its
 * size and sampling rate (see report-weights.h).
 *
 * The table is direct-mapped: a pair has one entry it may occupy, so a
 * lookup is one comparison.  Every entry starts as the weights of the
 * pair (0, 0), which are then right for that pair wherever it lands: no
 * entry is ever empty, and a lookup needs no test of that.
 */
#include "config.h"

#include "report-weights.h"
#include "report-util.h"

#include <stdlib.h>

#define MEMO_BITS 10 /* 1024 entries, about 90 KiB */

static void weigh(struct block_weights *e, uint64_t size,
		  uint64_t sampling_rate)
{
	e->size = size;
	e->sampling_rate = sampling_rate;
	e->whole = estimator_weigh(size, sampling_rate);
	e->half_probability = estimator_probability(
		size, estimator_half_rate(sampling_rate));
	e->half = estimator_weigh_probability(size, e->half_probability);
}

void weight_memo_init(struct weight_memo *memo)
{
	memo->entries = xrealloc(NULL, (size_t)1 << MEMO_BITS,
				 sizeof(*memo->entries));
	for (size_t i = 0; i < (size_t)1 << MEMO_BITS; i++)
		weigh(&memo->entries[i], 0, 0);
}

void weight_memo_free(struct weight_memo *memo)
{
	free(memo->entries);
	memo->entries = NULL;
}

/* Sizes are often multiples of 8 or 16, and the rate the same for every
 * block: a multiplication mixes both into the top bits, which choose. */
static size_t entry_of(uint64_t size, uint64_t sampling_rate)
{
	uint64_t key = (size ^ sampling_rate * UINT64_C(0x9e3779b97f4a7c15)) *
		       UINT64_C(0xff51afd7ed558ccd);

	return (size_t)(key >> (64 - MEMO_BITS));
}

const struct block_weights *weights_of(struct weight_memo *memo,
				       uint64_t size, uint64_t sampling_rate)
{
	struct block_weights *e =
		&memo->entries[entry_of(size, sampling_rate)];

	if (e->size != size || e->sampling_rate != sampling_rate)
		weigh(e, size, sampling_rate);
	return e;
}
