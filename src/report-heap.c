/* report-heap.c - replay a profile's events into estimates per stack
 * (see report-heap.h).
 *
 * The peak is found in the same single pass.  Every stack keeps its live
 * estimate as the events go by, and the stacks whose estimate moved since
 * the last peak are listed.  When the live total rises above the last
 * peak, only the listed stacks are copied into their peak estimates: every
 * other stack holds the same value as at the last peak.  A stack enters
 * the list at most once per event that changes it, so the copies cost no
 * more than the events, however often the peak moves.
 */
#include "config.h"

#include "report-heap.h"
#include "report-util.h"
#include "u64map.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TICK_EVENTS 65536u

const char *const moment_names[MOMENTS] = { "peak", "end" };

/* The sampled blocks still live: address -> size (value.a), and the
 * stack's index and the block's slot in `counts` (value.b, high and low 32
 * bits).  A slot keeps the count the block stood for when it was weighed
 * (1/p), from which its FREE rebuilds the very weight its ALLOC added,
 * without weighing it again: one double per block stays mostly in cache. */
struct live_blocks {
	struct u64map by_address;
	double *counts;   /* by slot */
	uint32_t *vacant; /* slots free for reuse */
	size_t slot_count, vacant_count, capacity;
};

/* A stack as the events go by; what an ALLOC changes in one place. */
struct stack_now {
	struct estimate allocated, live;
	bool changed; /* since the last peak (then it is in the list) */
};

struct replay_state {
	struct heap_replay *h;
	struct live_blocks blocks;
	struct stack_now *now; /* by stack index, h->stack_count of them */
	size_t *changed;       /* the stacks changed since the last peak */
	size_t changed_count;
	double live_bytes;     /* all stacks together, now */
	uint64_t live_samples;
	double peak_bytes;
};

void estimate_add(struct estimate *into, const struct estimate *from)
{
	into->samples += from->samples;
	into->bytes += from->bytes;
	into->bytes_variance += from->bytes_variance;
	into->count += from->count;
	into->count_variance += from->count_variance;
}

void heap_estimates_add(struct heap_estimates *into,
			const struct heap_estimates *from)
{
	estimate_add(&into->allocated, &from->allocated);
	for (int m = 0; m < MOMENTS; m++)
		estimate_add(&into->live[m], &from->live[m]);
}

/* Adding and taking back large weights may leave a variance a little
 * below zero: it is zero. */
double interval95(double variance)
{
	return variance > 0 ? 1.96 * sqrt(variance) : 0;
}

static void add_weight(struct estimate *e, const struct mlyze_weight *w)
{
	e->samples++;
	e->bytes += w->bytes;
	e->bytes_variance += w->bytes_variance;
	e->count += w->count;
	e->count_variance += w->count_variance;
}

/* An estimate left without samples is exactly zero, not the rounding
 * left over from adding and taking back large weights. */
static void remove_weight(struct estimate *e, const struct mlyze_weight *w)
{
	if (--e->samples == 0) {
		memset(e, 0, sizeof(*e));
		return;
	}
	e->bytes -= w->bytes;
	e->bytes_variance -= w->bytes_variance;
	e->count -= w->count;
	e->count_variance -= w->count_variance;
}

static void *grow_zeroed(void *array, size_t old_count, size_t new_count,
			 size_t size)
{
	char *grown = xrealloc(array, new_count, size);

	memset(grown + old_count * size, 0, (new_count - old_count) * size);
	return grown;
}

/* Room for the stack of this index (called when there is none). */
static void grow_stacks(struct replay_state *st, size_t index)
{
	struct heap_replay *h = st->h;
	size_t n = h->stack_count ? h->stack_count : 256;

	while (n <= index)
		n *= 2;
	h->by_stack = grow_zeroed(h->by_stack, h->stack_count, n,
				  sizeof(*h->by_stack));
	st->now = grow_zeroed(st->now, h->stack_count, n, sizeof(*st->now));
	st->changed = xrealloc(st->changed, n, sizeof(*st->changed));
	h->stack_count = n;
}

/* A slot holding `count`. */
static uint32_t keep_count(struct live_blocks *b, double count)
{
	uint32_t slot;

	if (b->vacant_count) {
		slot = b->vacant[--b->vacant_count];
	} else {
		if (b->slot_count > UINT32_MAX)
			fatal("profile has more than %" PRIu32
			      " sampled blocks live at once", UINT32_MAX);
		if (b->slot_count == b->capacity) {
			b->capacity = b->capacity ? 2 * b->capacity : 1024;
			b->counts = xrealloc(b->counts, b->capacity,
					     sizeof(*b->counts));
			b->vacant = xrealloc(b->vacant, b->capacity,
					     sizeof(*b->vacant));
		}
		slot = (uint32_t)b->slot_count++;
	}
	b->counts[slot] = count;
	return slot;
}

/* The weight of a live block, by the formulas of mlyze_weigh from the
 * count it gave: the same numbers, without a second exponential. */
static void block_weight(const struct live_blocks *b,
			 struct u64map_value block, struct mlyze_weight *w)
{
	double size = (double)block.a;

	w->count = b->counts[block.b & UINT32_MAX];
	w->count_variance = w->count * (w->count - 1.0);
	w->bytes = size * w->count;
	w->bytes_variance = w->bytes * (w->bytes - size);
}

static void mark_changed(struct replay_state *st, size_t stack)
{
	if (!st->now[stack].changed) {
		st->now[stack].changed = true;
		st->changed[st->changed_count++] = stack;
	}
}

/* The heap is larger than ever: the changed stacks hold their peak now. */
static void record_peak(struct replay_state *st, uint64_t time_us)
{
	for (size_t i = 0; i < st->changed_count; i++) {
		size_t stack = st->changed[i];

		st->h->by_stack[stack].live[AT_PEAK] = st->now[stack].live;
		st->now[stack].changed = false;
	}
	st->changed_count = 0;
	st->peak_bytes = st->live_bytes;
	st->h->peak_time_us = time_us;
}

/* A live block is freed (or replaced). */
static void release_block(struct replay_state *st, struct u64map_value block)
{
	size_t stack = block.b >> 32;
	struct mlyze_weight w;

	block_weight(&st->blocks, block, &w);
	remove_weight(&st->now[stack].live, &w);
	st->live_bytes = --st->live_samples ? st->live_bytes - w.bytes : 0;
	mark_changed(st, stack);
	st->blocks.vacant[st->blocks.vacant_count++] =
		(uint32_t)(block.b & UINT32_MAX);
}

static void on_alloc(struct replay_state *st, const struct mlyze_event *ev)
{
	size_t stack = ev->alloc.stack->index;
	struct u64map_value block = { .a = ev->alloc.size };
	const struct u64map_value *replaced;
	struct mlyze_weight w;

	if (stack > UINT32_MAX)
		fatal("profile has more than %" PRIu32 " stacks", UINT32_MAX);
	if (stack >= st->h->stack_count)
		grow_stacks(st, stack);
	mlyze_weigh(ev->alloc.size, ev->alloc.sampling_rate, &w);
	add_weight(&st->now[stack].allocated, &w);
	replaced = u64map_get(&st->blocks.by_address, ev->alloc.address);
	if (replaced) {
		if (!st->h->replaced++)
			st->h->first_replaced_offset = ev->offset;
		release_block(st, *replaced);
	}
	block.b = (uint64_t)stack << 32 | keep_count(&st->blocks, w.count);
	if (u64map_put(&st->blocks.by_address, ev->alloc.address, block) < 0)
		out_of_memory();
	add_weight(&st->now[stack].live, &w);
	st->live_bytes += w.bytes;
	st->live_samples++;
	mark_changed(st, stack);
	if (st->live_bytes > st->peak_bytes)
		record_peak(st, ev->time_us);
}

static void replay_event(struct replay_state *st, const struct mlyze_event *ev,
			 uint64_t first_rate)
{
	struct u64map_value freed;

	switch (ev->type) {
	case MLYZE_EVENT_ALLOC:
		on_alloc(st, ev);
		break;
	case MLYZE_EVENT_FREE:
		if (u64map_take(&st->blocks.by_address, ev->free.address,
				&freed))
			release_block(st, freed);
		break;
	case MLYZE_EVENT_RATE:
		st->h->rate_changed |= ev->rate.sampling_rate != first_rate;
		break;
	default:
		break;
	}
}

/* What was allocated, what is still live at the end, and the totals. */
static void finish(struct replay_state *st)
{
	struct heap_replay *h = st->h;
	const struct u64map_slot *slot;
	struct mlyze_weight w;
	size_t cursor = 0;

	while ((slot = u64map_next(&st->blocks.by_address, &cursor))) {
		block_weight(&st->blocks, slot->value, &w);
		add_weight(&h->by_stack[slot->value.b >> 32].live[AT_END], &w);
	}
	for (size_t i = 0; i < h->stack_count; i++) {
		h->by_stack[i].allocated = st->now[i].allocated;
		heap_estimates_add(&h->total, &h->by_stack[i]);
	}
}

static void free_state(struct replay_state *st)
{
	u64map_free(&st->blocks.by_address);
	free(st->blocks.counts);
	free(st->blocks.vacant);
	free(st->now);
	free(st->changed);
}

int heap_replay(mlyze_reader *r, struct heap_replay *h, replay_tick *tick,
		void *tick_ctx)
{
	struct replay_state st = { .h = h };
	struct mlyze_event ev;
	uint64_t first_rate = mlyze_info(r)->sampling_rate;
	int rc;

	memset(h, 0, sizeof(*h));
	u64map_init(&st.blocks.by_address);
	h->last_time_us = h->peak_time_us = mlyze_info(r)->start_time_us;
	while ((rc = mlyze_next(r, &ev)) > 0) {
		replay_event(&st, &ev, first_rate);
		h->last_time_us = ev.time_us;
		if (++h->events % TICK_EVENTS == 0 && tick)
			tick(tick_ctx, r);
	}
	if (rc == 0)
		finish(&st);
	free_state(&st);
	return rc;
}

void heap_replay_free(struct heap_replay *h)
{
	free(h->by_stack);
	memset(h, 0, sizeof(*h));
}
