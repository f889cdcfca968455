/* carved_count.h - which aligned addresses outside the pool may be tracked.
 *
 * Contract: a tracked block (a sample, or a block remembered as carved)
 * lies either in the pool of pages (sample_pool.h) or in a block of the C
 * library, carved or aligned.  The C library also hands out unsampled
 * blocks that happen to be aligned: about one small block in 256.  This
 * counts the tracked blocks outside the pool per page number, folded into
 * CARVED_COUNTERS counters, so that the free() of such an unsampled block
 * is told apart by reading one counter that only the sampled path writes,
 * rather than by a lookup in the live-block table, whose gate every
 * lookup writes.  A zero counter means that no tracked block lies at that
 * address; any other value, that the table must be asked.
 *
 * carved_count_add(block, 1) is called before the block is handed to the
 * program, carved_count_add(block, -1) once its record has left the
 * table.  Both are lock-free and async-signal-safe.
 */
#ifndef SPPROF_CARVED_COUNT_H
#define SPPROF_CARVED_COUNT_H

#include <stdint.h>

#define CARVED_COUNTERS 16384 /* 64 KiB, in pages never written when unused */

void carved_count_add(const void *block, int delta);
int carved_count_may_hold(const void *block);

#endif /* SPPROF_CARVED_COUNT_H */
