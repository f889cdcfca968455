/* interpose.h - what the interposers of the program's calls share.
 *
 * Contract: interpose_decide() is the one decision to sample, for a
 * malloc-family block (interpose.c) or an anonymous mapping
 * (interpose_mmap.c) of `size` bytes whose size crossed the thread's
 * sampling budget: 1 sample it; 0 do not; -1 the C library's allocator is
 * being looked up right now (use the bootstrap heap; a mapping is not
 * sampled).  One function for both, so that the sampler's slow path has
 * one caller, where the compiler keeps it inline.
 */
#ifndef SPPROF_INTERPOSE_H
#define SPPROF_INTERPOSE_H

#include <stddef.h>

int interpose_decide(size_t size);

#endif /* SPPROF_INTERPOSE_H */
