/* report-classes.h - estimates of sampled blocks by stack and class.
 *
 * Contract: sums the weights of sampled blocks into cells named by a
 * stack and a class (a lifetime bucket, a size class, a thread: small
 * integers that a view defines), keeping only the cells that blocks
 * fill: memory grows with the pairs seen, not with stacks times classes.
 * A table of one profile's stacks (by mlyze_stack.index) merges into a
 * table of the report's through the map stacks_add_profile() returns.
 */
#ifndef SPPROF_REPORT_CLASSES_H
#define SPPROF_REPORT_CLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "estimator.h"
#include "report-heap.h"
#include "u64map.h"

struct class_cell {
	size_t stack;
	uint32_t class_id;
	struct estimate sum;
};

struct class_table {
	struct u64map index; /* stack << 32 | class -> index in cells */
	struct class_cell *cells;
	size_t count, capacity;
};

void class_table_init(struct class_table *t);
void class_table_free(struct class_table *t);
/* Adds one sample's weight to the cell (stack, class_id). */
void class_table_add_weight(struct class_table *t, size_t stack,
			    uint32_t class_id,
			    const struct estimator_weight *w);
/* The cell's sum, or NULL when no block fell in it. */
const struct estimate *class_table_get(const struct class_table *t,
				       size_t stack, uint32_t class_id);
/* Adds every cell of `from` into `into`, its stack s as stack_map[s]
 * (cells of a stack mapped to SIZE_MAX are left out). */
void class_table_merge(struct class_table *into, const struct class_table *from,
		       const size_t *stack_map);

#endif /* SPPROF_REPORT_CLASSES_H */
