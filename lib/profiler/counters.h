/* counters.h - counters that many threads add to without sharing a line.
 *
 * Contract: a set of up to COUNTERS_MAX 64-bit counters, kept in
 * COUNTER_STRIPES copies on cache lines of their own.  A thread adds to
 * the copy of its stripe (given out in turn as threads first add), so
 * threads on different CPUs seldom pull a line from each other, as they
 * would with one shared counter on every sample; a reader sums the
 * copies.  Counters wrap modulo 2^64, so subtracting is adding the
 * negation.  A sum is exact once the adding threads are quiet; meanwhile
 * it may miss an add in flight.  Adds are relaxed atomic operations: safe
 * in signal handlers and across fork(); nothing allocates.
 */
#ifndef SPPROF_COUNTERS_H
#define SPPROF_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

#include "compiler.h"

#define COUNTERS_MAX 16
#define COUNTER_STRIPES 16

struct counters {
	struct {
		_Atomic uint64_t value[COUNTERS_MAX];
	} stripe[COUNTER_STRIPES] __attribute__((aligned(64)));
};

extern INITIAL_EXEC_TLS unsigned char counter_stripe_plus_one;
unsigned counters_new_stripe(void);

static inline void counters_add(struct counters *c, unsigned which,
				uint64_t n)
{
	unsigned s = counter_stripe_plus_one ? counter_stripe_plus_one - 1u
					     : counters_new_stripe();

	atomic_fetch_add_explicit(&c->stripe[s].value[which], n,
				  memory_order_relaxed);
}

uint64_t counters_sum(struct counters *c, unsigned which);

/* Sets a counter to zero; adds made meanwhile may be lost. */
void counters_clear(struct counters *c, unsigned which);

#endif /* SPPROF_COUNTERS_H */
