/* profiler.h - the profiler's state machine and the sampled-block records.
 *
 * Contract: the interposer asks profiler_wants_sample() after the sampler
 * has picked an allocation, serves the block page-aligned (see
 * free_filter.h), then calls profiler_record_alloc().  Page-aligned frees
 * go through profiler_forget() before the block is returned to the C
 * library, so an address is never reused while it is still in the tables.
 * Both run under the thread's re-entrancy guard and keep errno intact.
 */
#ifndef SPPROF_PROFILER_H
#define SPPROF_PROFILER_H

#include <stddef.h>
#include <stdint.h>

#include "heap_map.h"

int profiler_wants_sample(void);
void profiler_record_alloc(void *block, size_t size);

/* 1 and *record filled when block was a live sampled block. */
int profiler_forget(void *block, struct heap_record *record);

/* Puts back a block forgotten by a realloc() that then failed. */
void profiler_restore(void *block, const struct heap_record *record);

/* Called once when the library is loaded. */
void profiler_load(void);
void profiler_unload(void);

#endif /* SPPROF_PROFILER_H */
