/* report-heap.c - replay a profile's events into estimates per stack
 * (see report-heap.h). */
#include "config.h"

#include "report-heap.h"
#include "report-util.h"
#include "u64map.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TICK_EVENTS 65536u

/* The sampled blocks still live: address -> size (value.a), and the
 * stack's index and the sampling rate's index in `rates` (value.b, high and
 * low 32 bits).  Keeping all of it in the map's slot costs one cache miss
 * per ALLOC or FREE. */
struct live_blocks {
	struct u64map by_address;
	uint64_t *rates; /* every rate in force so far, the current last */
	size_t rate_count, rate_capacity;
};

void estimate_add(struct estimate *into, const struct estimate *from)
{
	into->samples += from->samples;
	into->bytes += from->bytes;
	into->bytes_variance += from->bytes_variance;
	into->count += from->count;
	into->count_variance += from->count_variance;
}

double interval95(double variance)
{
	return 1.96 * sqrt(variance);
}

static void add_sample(struct estimate *e, uint64_t size, uint64_t rate)
{
	struct mlyze_weight w;

	mlyze_weigh(size, rate, &w);
	e->samples++;
	e->bytes += w.bytes;
	e->bytes_variance += w.bytes_variance;
	e->count += w.count;
	e->count_variance += w.count_variance;
}

static void ensure_stack(struct heap_replay *h, size_t index)
{
	size_t n = h->stack_count ? h->stack_count : 256;

	if (index < h->stack_count)
		return;
	while (n <= index)
		n *= 2;
	h->by_stack = xrealloc(h->by_stack, n, sizeof(*h->by_stack));
	memset(h->by_stack + h->stack_count, 0,
	       (n - h->stack_count) * sizeof(*h->by_stack));
	h->stack_count = n;
}

/* Index of the rate in force, added to the list when it is new. */
static uint32_t rate_index(struct live_blocks *live, uint64_t rate)
{
	if (live->rate_count == 0 || live->rates[live->rate_count - 1] != rate) {
		if (live->rate_count == UINT32_MAX)
			fatal("profile changes its sampling rate too often");
		if (live->rate_count == live->rate_capacity) {
			live->rate_capacity = live->rate_capacity
						      ? 2 * live->rate_capacity
						      : 8;
			live->rates = xrealloc(live->rates, live->rate_capacity,
					       sizeof(*live->rates));
		}
		live->rates[live->rate_count++] = rate;
	}
	return (uint32_t)(live->rate_count - 1);
}

static void on_alloc(struct heap_replay *h, struct live_blocks *live,
		     const struct mlyze_event *ev)
{
	size_t stack = ev->alloc.stack->index;
	struct u64map_value block = { .a = ev->alloc.size };

	if (stack > UINT32_MAX)
		fatal("profile has more than %" PRIu32 " stacks", UINT32_MAX);
	ensure_stack(h, stack);
	add_sample(&h->by_stack[stack].allocated, ev->alloc.size,
		   ev->alloc.sampling_rate);
	block.b = (uint64_t)stack << 32 |
		  rate_index(live, ev->alloc.sampling_rate);
	switch (u64map_put(&live->by_address, ev->alloc.address, block)) {
	case 1:
		if (!h->replaced++)
			h->first_replaced_offset = ev->offset;
		break;
	case -1:
		out_of_memory();
	}
}

/* What is still live at the end goes into the live estimates. */
static void count_live(struct heap_replay *h, const struct live_blocks *live)
{
	const struct u64map_slot *slot;
	size_t cursor = 0;

	while ((slot = u64map_next(&live->by_address, &cursor))) {
		uint64_t stack = slot->value.b >> 32;
		uint64_t rate = live->rates[slot->value.b & UINT32_MAX];

		add_sample(&h->by_stack[stack].live, slot->value.a, rate);
	}
}

static void replay_event(struct heap_replay *h, struct live_blocks *live,
			 const struct mlyze_event *ev, uint64_t first_rate)
{
	struct u64map_value freed;

	switch (ev->type) {
	case MLYZE_EVENT_ALLOC:
		on_alloc(h, live, ev);
		break;
	case MLYZE_EVENT_FREE:
		u64map_take(&live->by_address, ev->free.address, &freed);
		break;
	case MLYZE_EVENT_RATE:
		h->rate_changed |= ev->rate.sampling_rate != first_rate;
		break;
	default:
		break;
	}
}

int heap_replay(mlyze_reader *r, struct heap_replay *h, replay_tick *tick,
		void *tick_ctx)
{
	struct live_blocks live = { .rates = NULL };
	struct mlyze_event ev;
	uint64_t first_rate = mlyze_info(r)->sampling_rate;
	int rc;

	memset(h, 0, sizeof(*h));
	u64map_init(&live.by_address);
	h->last_time_us = mlyze_info(r)->start_time_us;
	while ((rc = mlyze_next(r, &ev)) > 0) {
		replay_event(h, &live, &ev, first_rate);
		h->last_time_us = ev.time_us;
		if (++h->events % TICK_EVENTS == 0 && tick)
			tick(tick_ctx, r);
	}
	if (rc == 0) {
		ensure_stack(h, mlyze_stack_count(r));
		count_live(h, &live);
	}
	u64map_free(&live.by_address);
	free(live.rates);
	return rc;
}

void heap_replay_free(struct heap_replay *h)
{
	free(h->by_stack);
	memset(h, 0, sizeof(*h));
}
