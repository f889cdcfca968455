/* report-blocks.h - the sampled blocks live during a replay, by address.
 *
 * Contract: the table of u64map.h (open addressing with linear probing,
 * at most half full, backward-shift deletion, the same hash), with all a
 * block keeps in its slot: the lookup of a FREE ends where everything it
 * needs is, with no second table to visit.  A block joins one half of the
 * samples or both, so a slot without halves is empty, and no bitmap says
 * which slots are in use.  Blocks are listed in the order a u64map holding
 * the same addresses would list them.  Not thread-safe.
 */
#ifndef SPPROF_REPORT_BLOCKS_H
#define SPPROF_REPORT_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report-trend.h"

struct live_block {
	uint64_t address;
	uint64_t size;
	/* The count it stood for when it was weighed (1/p), from which its
	 * FREE rebuilds the very weight its ALLOC added without weighing it
	 * again; the same in each half it joined. */
	double count, half_count;
	double born[AXES]; /* where, on the axes of growth */
	uint32_t stack;    /* its index */
	uint8_t halves;    /* enum estimator_half bits; 0: an empty slot */
	/* Listed by a checkpoint: its ALLOC may still follow (written by a
	 * thread that waited while the checkpoint was taken). */
	bool listed;
};

struct live_blocks {
	struct live_block *slots;
	size_t mask;  /* slot count - 1 */
	size_t count;
	unsigned shift; /* 64 - log2(slot count) */
};

void live_blocks_init(struct live_blocks *b);
void live_blocks_free(struct live_blocks *b);
/* The slot of the block at address, which a new block fills when its
 * halves are 0 (the block at address, when there is one, is still there
 * to read before it is replaced).  Valid until the table next changes;
 * NULL when out of memory. */
struct live_block *live_blocks_insert(struct live_blocks *b,
				      uint64_t address);
/* Starts loading where the block at address would be. */
void live_blocks_prefetch(const struct live_blocks *b, uint64_t address);
/* Remove the block at address, copied to *block; false when none. */
bool live_blocks_take(struct live_blocks *b, uint64_t address,
		      struct live_block *block);
/* Every block: start with *cursor = 0; NULL after the last. */
const struct live_block *live_blocks_next(const struct live_blocks *b,
					  size_t *cursor);

#endif /* SPPROF_REPORT_BLOCKS_H */
