/* sample_pool.h - runs of pages of the runtime's own for sampled blocks.
 *
 * Contract: a sampled block must sit at an aligned address of its own
 * (see free_filter.h).  Sampled blocks up to POOL_BLOCK_MAX get a run of
 * whole pages from this pool instead of a padded block from the C
 * library.  Padded blocks would change the C library's heap: its caches
 * for small blocks, and how often it gives memory back to the system,
 * which in a threaded program makes every other CPU flush its TLB.
 *
 * pool_alloc(size) returns a SAMPLED_ALIGNMENT-aligned run of
 * pool_run_bytes(size) bytes with stale contents, or NULL when the pool is
 * at its limit (the caller then falls back to the C library).
 * pool_free(block, size) gives the run back; size must be the one the run
 * was taken for, or any size with the same pool_run_bytes().  The pool is
 * one mapping of at most 64 MiB whose pages are never given back to the
 * system, but are reused lowest first (each thread in a zone of its own
 * while it has room), so the pages it touches stay about as many as the
 * pool's blocks ever live at once.  Both calls are lock-free and safe
 * from any thread, and across fork().
 */
#ifndef SPPROF_SAMPLE_POOL_H
#define SPPROF_SAMPLE_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "free_filter.h"

/* Sampled blocks up to this size come from the pool.  Larger ones are
 * served by the C library with mmap anyway (its default threshold). */
#define POOL_BLOCK_MAX ((size_t)128 * 1024)
/* The record offset that marks a pool block (real offsets are smaller). */
#define POOL_OFFSET UINT32_MAX

static inline size_t pool_run_bytes(size_t size)
{
	size_t page = SAMPLED_ALIGNMENT;

	return size ? (size + page - 1) & ~(page - 1) : page;
}

void *pool_alloc(size_t size);
void pool_free(void *block, size_t size);
/* Resizing a run in place, so that realloc() need not copy a sampled
 * block, as the C library grows and shrinks its own blocks in place.
 * pool_extend() makes the run of a block taken for `size` bytes long
 * enough for new_size (whose run is longer) by claiming the pages right
 * after it: 1 when they were free, 0 (nothing changed) when they are not,
 * lie past the block's zone, or new_size is over POOL_BLOCK_MAX.
 * pool_trim() gives back the pages that new_size (whose run is no longer)
 * does not need.  Either way, the block's size is new_size from then on. */
int pool_extend(void *block, size_t size, size_t new_size);
void pool_trim(void *block, size_t size, size_t new_size);
/* 1 when p lies in the pool (a block it gave out, or may give out). */
int pool_contains(const void *p);

#endif /* SPPROF_SAMPLE_POOL_H */
