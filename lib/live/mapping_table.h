/* mapping_table.h - the sampled anonymous mappings still mapped.
 *
 * Contract: a fixed table of the mappings the sampler picked (start,
 * length, the sampling rate each piece is weighed at, stack, thread),
 * guarded by one spin lock.  The program's munmap(), mremap() and
 * mmap(MAP_FIXED) may give back part of a sampled mapping or several
 * at once: mapping_table_cut() forgets every mapping the range touches
 * and hands each to a callback with the pieces of it left on either
 * side, which stay tracked.  A piece keeps the probability with which its
 * mapping was picked: its rate is scaled by its share of the mapping
 * (the probability 1 - exp(-length/rate) depends on their ratio only),
 * so that it is weighed as the whole mapping was.
 *
 * The caller holds the lock (mapping_table_lock) around the system call
 * that changes the mappings and the cut that follows it, so that no
 * other thread's new mapping at a freed address is recorded before the
 * old one is forgotten.  mapping_table_empty() is one relaxed load: the
 * path of a program that never had a mapping sampled.
 */
#ifndef SPPROF_MAPPING_TABLE_H
#define SPPROF_MAPPING_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct sampled_mapping {
	uintptr_t start;
	uint64_t length;
	uint64_t sampling_rate; /* of this piece (see above) */
	uint32_t stack_id;
	uint32_t thread_id;
	uint64_t timestamp_ns;
};

/* How many sampled mappings may be live at once; more are not recorded
 * (mapping_table_drops(), which the statistics add to
 * heap_map_full_drops). */
#define MAPPINGS_MAX 4096

uint64_t mapping_table_drops(void);

int mapping_table_empty(void);
void mapping_table_lock(void);
void mapping_table_unlock(void);

/* Under the lock.  0 when the table is full. */
int mapping_table_add(const struct sampled_mapping *m);

/* Under the lock: whether [start, start + length) touches a sampled
 * mapping. */
int mapping_table_touches(uintptr_t start, uint64_t length);

/* Under the lock: forgets every sampled mapping that [start, start +
 * length) touches, calling gone(ctx, mapping) for each, then left(ctx,
 * piece) for each of its pieces outside the range, which stay in the
 * table. */
void mapping_table_cut(uintptr_t start, uint64_t length,
		       void (*gone)(void *ctx,
				    const struct sampled_mapping *m),
		       void (*left)(void *ctx,
				    const struct sampled_mapping *piece),
		       void *ctx);

/* In the child after fork(): the lock is not held across fork(). */
void mapping_table_postfork_child(void);

#endif /* SPPROF_MAPPING_TABLE_H */
