/* free_filter.c - the mask of the free filter (see free_filter.h). */
#include "config.h"

#include "free_filter.h"

/* Named by the free filter's assembly: kept, whatever the optimiser sees. */
__attribute__((used)) uintptr_t free_filter_mask = SAMPLED_ALIGNMENT - 1;

void free_filter_set_rate(uint64_t sampling_rate)
{
	if (sampling_rate < IN_PLACE_RATE_MAX)
		free_filter_mask = 0;
}
