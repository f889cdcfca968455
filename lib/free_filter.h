/* free_filter.h - rejects the frees of unsampled blocks in one test.
 *
 * Contract: every sampled block (and every block of the bootstrap heap) is
 * served aligned to SAMPLED_ALIGNMENT, so a pointer that is not so aligned
 * was certainly not sampled and free() hands it to the C library without
 * touching any shared memory.  Aligned pointers (the sampled ones, and
 * the few unsampled blocks that happen to be aligned) are looked up in the
 * heap map when they lie in the pool of pages (sample_pool.h) or where
 * carved_count.h counts a tracked block.  Compared with a Bloom filter,
 * this costs no memory, no cache line and no false positive on ordinary
 * small blocks; its price is alignment padding on sampled blocks only
 * (about one block in SAMPLING_RATE bytes).
 */
#ifndef SPPROF_FREE_FILTER_H
#define SPPROF_FREE_FILTER_H

#include <stdint.h>

#include "compiler.h"

#define SAMPLED_ALIGNMENT ((uintptr_t)4096)

static inline int free_filter_maybe_sampled(const void *p)
{
	return ((uintptr_t)p & (SAMPLED_ALIGNMENT - 1)) == 0;
}

#endif /* SPPROF_FREE_FILTER_H */
