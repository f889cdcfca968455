/* run_totals.h - what a bounded profile keeps across its checkpoints.
 *
 * Contract: a profile with a size limit discards its older events at
 * each checkpoint (writer.h), so what they summed is kept here instead:
 * for every stack, the sample weights (estimator.h) of everything sampled
 * since the start, and the live heap at each checkpoint so far, a coarse
 * series of at most RUN_TOTALS_POINTS points (when full, every other one
 * goes, so they stay evenly spread over the run).  Memory is one entry per
 * stack the table can hold, taken from mmap at init; nothing here
 * allocates or locks: the writer's lock serialises every call.
 */
#ifndef SPPROF_RUN_TOTALS_H
#define SPPROF_RUN_TOTALS_H

#include <stdint.h>

#include "estimator.h"

#define RUN_TOTALS_POINTS 256

/* Sums of sample weights. */
struct run_sum {
	uint64_t samples;
	double bytes, bytes_variance;
	double count, count_variance;
};

/* The estimated live heap at one checkpoint. */
struct run_point {
	uint64_t time_us; /* since the start of the profile */
	struct run_sum live;
};

struct run_totals {
	struct run_sum *by_stack; /* by stack id; the last for no stack */
	uint32_t stacks;          /* entries of by_stack */
	struct run_point points[RUN_TOTALS_POINTS];
	uint32_t point_count;
};

/* Room for stack ids below max_stacks (and the id of no stack); 0, or -1
 * with errno set. */
int run_totals_init(struct run_totals *t, uint32_t max_stacks);

/* Adds the weight of one sample (estimator_weigh()). */
void run_sum_add(struct run_sum *sum, const struct estimator_weight *w);

/* The sums of stack id (STACK_ID_NONE included). */
struct run_sum *run_totals_of(struct run_totals *t, uint32_t stack_id);

void run_totals_add_point(struct run_totals *t, const struct run_point *p);

/* Forgets every sum and point (a new profile starts). */
void run_totals_clear(struct run_totals *t);

#endif /* SPPROF_RUN_TOTALS_H */
