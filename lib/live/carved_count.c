/* carved_count.c - tracked blocks outside the pool, counted per page
 * number (see carved_count.h). */
#include "config.h"

#include "carved_count.h"

#include <stdatomic.h>

#include "free_filter.h"

/* The program orders a block's free after its allocation, and so after
 * the count that the allocation added: relaxed operations suffice. */
static _Atomic uint32_t counters[CARVED_COUNTERS];

static _Atomic uint32_t *counter_of(const void *block)
{
	uintptr_t page = (uintptr_t)block / SAMPLED_ALIGNMENT;

	return &counters[page % CARVED_COUNTERS];
}

void carved_count_add(const void *block, int delta)
{
	atomic_fetch_add_explicit(counter_of(block), (uint32_t)delta,
				  memory_order_relaxed);
}

int carved_count_may_hold(const void *block)
{
	return atomic_load_explicit(counter_of(block),
				    memory_order_relaxed) != 0;
}
