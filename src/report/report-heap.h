/* report-heap.h - replay a profile's events into estimates per stack.
 *
 * Contract: follows the sampled heap through the ALLOC and FREE events of
 * one profile (a block is live when no FREE of its address follows; a FREE
 * of an unknown address is ignored; an ALLOC at a live address replaces
 * the block there) and sums, for every stack, the unbiased estimates of
 * everything allocated and of what was live at two moments: the peak (the
 * first moment the estimated live heap of the whole profile reached its
 * maximum) and the end.  One pass over the events; memory grows with the
 * live sampled blocks and the stacks, not with the events.
 */
#ifndef SPPROF_REPORT_HEAP_H
#define SPPROF_REPORT_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "spprof/mlyze.h"

/* A sum of sample weights (see mlyze_weigh). */
struct estimate {
	uint64_t samples;
	double bytes, bytes_variance;
	double count, count_variance;
};

void estimate_add(struct estimate *into, const struct estimate *from);
/* Half-width of the 95 % interval of a sum with this variance. */
double interval95(double variance);

/* The moments at which a report counts live memory. */
enum moment {
	AT_PEAK, /* when the estimated live heap was largest */
	AT_END,  /* when the profile ends: what was never freed */
	MOMENTS
};

/* "peak", "end", by enum moment. */
extern const char *const moment_names[MOMENTS];

/* What a stack, a site or a whole profile allocated over the profile,
 * and held at each moment. */
struct heap_estimates {
	struct estimate allocated;
	struct estimate live[MOMENTS];
};

void heap_estimates_add(struct heap_estimates *into,
			const struct heap_estimates *from);

struct heap_replay {
	struct heap_estimates *by_stack; /* by mlyze_stack.index */
	size_t stack_count;
	struct heap_estimates total;     /* of all stacks */
	uint64_t peak_time_us; /* the start time when nothing was live */
	uint64_t events;
	uint64_t last_time_us;
	uint64_t replaced; /* ALLOCs at an address already live */
	uint64_t first_replaced_offset;
	bool rate_changed;
};

/* Called every few thousand events, e.g. to show progress. */
typedef void replay_tick(void *ctx, const mlyze_reader *reader);

/* Read every event of r; returns 0, or -1 when the reader failed. */
int heap_replay(mlyze_reader *r, struct heap_replay *out, replay_tick *tick,
		void *tick_ctx);
void heap_replay_free(struct heap_replay *h);

#endif /* SPPROF_REPORT_HEAP_H */
