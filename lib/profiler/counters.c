/* counters.c - striped counters (see counters.h). */
#include "config.h"

#include "counters.h"

INITIAL_EXEC_TLS unsigned char counter_stripe_plus_one;
static _Atomic unsigned stripes_given;

unsigned counters_new_stripe(void)
{
	unsigned s = atomic_fetch_add_explicit(&stripes_given, 1,
					       memory_order_relaxed) %
		     COUNTER_STRIPES;

	counter_stripe_plus_one = (unsigned char)(s + 1);
	return s;
}

uint64_t counters_sum(struct counters *c, unsigned which)
{
	uint64_t sum = 0;

	for (unsigned s = 0; s < COUNTER_STRIPES; s++)
		sum += atomic_load_explicit(&c->stripe[s].value[which],
					    memory_order_relaxed);
	return sum;
}

void counters_clear(struct counters *c, unsigned which)
{
	for (unsigned s = 0; s < COUNTER_STRIPES; s++)
		atomic_store_explicit(&c->stripe[s].value[which], 0,
				      memory_order_relaxed);
}
