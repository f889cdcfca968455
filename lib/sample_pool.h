/* sample_pool.h - pages of the runtime's own for small sampled blocks.
 *
 * Contract: a sampled block must sit at an aligned address of its own
 * (see free_filter.h).  Small blocks get one page each from this pool
 * instead of a padded block from the C library, which would upset its
 * small-block caches.  pool_alloc() returns a SAMPLED_ALIGNMENT-aligned
 * page with stale contents (or NULL), pool_free() keeps a page for reuse.
 * Pages come from mmap and are never returned to the system; the pool
 * holds at most as many pages as small sampled blocks were ever live at
 * once.  A short spin lock serialises the sampled path only.
 */
#ifndef SPPROF_SAMPLE_POOL_H
#define SPPROF_SAMPLE_POOL_H

#include <stdint.h>

#include "free_filter.h"

/* Sampled blocks up to this size come from the pool. */
#define POOL_BLOCK_MAX 512
/* The record offset that marks a pool block (real offsets are smaller). */
#define POOL_OFFSET UINT32_MAX

void *pool_alloc(void);
void pool_free(void *page);

#endif /* SPPROF_SAMPLE_POOL_H */
