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
 * (about one block in SAMPLING_RATE bytes), which small rates cannot
 * afford (see IN_PLACE_RATE_MAX).
 */
#ifndef SPPROF_FREE_FILTER_H
#define SPPROF_FREE_FILTER_H

#include <stdint.h>

#include "compiler.h"

#define SAMPLED_ALIGNMENT ((uintptr_t)4096)

/* Below this many bytes per sample, samples are too many for a page (or
 * a page's padding) each: sampled blocks are then the C library's own
 * blocks, left in place, and every free() takes the filter's slow path,
 * where carved_count.h tells most unsampled blocks apart with one load.
 * The switch is one way: blocks of both kinds may then be live. */
#define IN_PLACE_RATE_MAX ((uint64_t)64 * 1024)

/* SAMPLED_ALIGNMENT - 1, or 0 once sampled blocks are left in place.  A
 * plain word, written before the first block is sampled at a rate that
 * needs it and read by every free() in one instruction. */
extern uintptr_t free_filter_mask;

/* On x86-64 the test reads the mask from memory in one instruction, as
 * it read the constant before: the compiler alone loads the mask and
 * masks a copy of p (two), and every free() pays for this path. */
static inline int free_filter_maybe_sampled(const void *p)
{
#if defined(__x86_64__) && defined(__GNUC__) && defined(__PIC__)
	__asm__ goto("testq %0, free_filter_mask(%%rip)\n\t"
		     "jz %l[maybe]"
		     : /* no outputs */
		     : "r"(p)
		     : "cc"
		     : maybe);
	return 0;
maybe:
	return 1;
#else
	return ((uintptr_t)p & free_filter_mask) == 0;
#endif
}

static inline int sampled_blocks_in_place(void)
{
	return free_filter_mask == 0;
}

/* Called before sampling at a new rate starts. */
void free_filter_set_rate(uint64_t sampling_rate);

#endif /* SPPROF_FREE_FILTER_H */
