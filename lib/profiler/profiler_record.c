/* profiler_record.c - the path of every sampled and released block: the
 * stack capture, the heap-map record, the profile event and the counters
 * they update (see profiler.h). */
#include "config.h"

#include "profiler.h"

#include <math.h>
#include <stdatomic.h>

#include <spprof/memprof.h>

#include "carved_count.h"
#include "clock.h"
#include "control.h"
#include "free_filter.h"
#include "profiler_state.h"
#include "sample_pool.h"
#include "script_stack.h"
#include "unwind.h"
#include "writer.h"

#define relaxed memory_order_relaxed
#define SHALLOW_STACK_DEPTH 3

static void count_n(unsigned counter, uint64_t n)
{
	counters_add(&prof.counters, counter, n);
}

static void count(unsigned counter)
{
	count_n(counter, 1);
}

int profiler_wants_sample(void)
{
	if (sampler_tls.in_runtime || unlikely(!profiler_may_work_here()))
		return 0;
	/* Requests of memprof-ctl are answered here, where a dormant
	 * runtime passes about once per sampling interval of each thread. */
	control_poll();
	return atomic_load_explicit(&prof.track_allocs, relaxed);
}

/* depth: native frames captured; merged: frames once script frames are
 * in.  A stack counts as shallow (callers lost to missing frame pointers)
 * only when script frames do not make up for it. */
static void note_stack_health(uint32_t depth, uint32_t merged, int truncated)
{
	uint32_t min = atomic_load_explicit(&prof.min_depth, relaxed);

	count_n(COUNT_NATIVE_FRAMES, depth);
	if (merged < SHALLOW_STACK_DEPTH)
		count(COUNT_SHALLOW);
	if (truncated)
		count(COUNT_TRUNCATED);
	while (depth < min &&
	       !atomic_compare_exchange_weak_explicit(&prof.min_depth, &min,
						      depth, relaxed, relaxed))
		;
}

uint32_t profiler_capture_stack(void)
{
	uint64_t frames[MEMPROF_MAX_STACK_DEPTH];
	struct unwind_result r = unwind_capture(frames,
						MEMPROF_MAX_STACK_DEPTH);
	uint32_t merged = script_stack_merge(frames, r.depth,
					     MEMPROF_MAX_STACK_DEPTH);

	count(r.method == UNWIND_DWARF ? COUNT_DWARF_STACKS : COUNT_FP_STACKS);
	note_stack_health(r.depth, merged, r.truncated);
	return stack_table_intern(&prof.stacks, frames, merged);
}

/* A sampled block's share of the live-heap estimate, in whole bytes. */
static uint64_t estimate_of(uint64_t size, uint64_t sampling_rate)
{
	return (uint64_t)llround(memprof_estimate_bytes(size, sampling_rate,
							NULL));
}

/* Whether the tables may hold a record for block: a pool block, or one
 * outside the pool at an address where one was counted. */
static int may_be_tracked(const void *block)
{
	return pool_contains(block) || carved_count_may_hold(block);
}

/* The table a record goes to: samples left in place take compact
 * records when they fit, all else full ones. */
static struct heap_map *table_for(const void *block,
				  const struct heap_record *r)
{
	if (sampled_blocks_in_place() &&
	    heap_map_fits(&prof.in_place, (uintptr_t)block, r))
		return &prof.in_place;
	return &prof.heap;
}

/* A block the C library gave as it is (offset 0) at an address the
 * tables still hold: the block there before was freed past the runtime
 * (by code bound to the C library's free(): a library opened with
 * dlmopen(), or with RTLD_DEEPBIND where the runtime cannot rebind it).
 * Its record goes, with its free, so that no address is live twice. */
static void forget_freed_past_us(void *block)
{
	struct heap_record stale;

	profiler_release(block, &stale);
}

/* Enters a record in a heap map (and the profile when it is a sample);
 * 0 when the table has no room for it. */
static int publish(void *block, const struct heap_record *r)
{
	int outside_pool = r->offset != POOL_OFFSET;
	struct heap_map *map;
	long slot;

	if (r->offset == 0)
		forget_freed_past_us(block);
	map = table_for(block, r);
	if (outside_pool)
		carved_count_add(block, 1);
	slot = heap_map_reserve(map, (uintptr_t)block);
	if (slot < 0 || !heap_map_finalize(map, slot, (uintptr_t)block, r)) {
		if (outside_pool)
			carved_count_add(block, -1);
		return 0;
	}
	if (!is_sample(r)) {
		count(COUNT_CARVED_ONLY);
	} else {
		count(COUNT_SAMPLES);
		count_n(COUNT_LIVE_ESTIMATE, r->estimate);
		writer_alloc((uintptr_t)block, r);
	}
	return 1;
}

/* The stack is captured before the block enters the table, so that a
 * reservation (which holds the table's gate) lasts a few instructions. */
int profiler_record_alloc(void *block, size_t size, size_t slack,
			  uint32_t offset, int sample)
{
	int saved_errno = enter_runtime();
	uint64_t rate = sample ? sampler_rate() : 0;
	struct heap_record r;

	/* The program's own work has usually evicted these since the last
	 * sample: let them load while the stack is captured. */
	heap_map_prefetch(sampled_blocks_in_place() ? &prof.in_place
						    : &prof.heap,
			  (uintptr_t)block);
	r = (struct heap_record){
		.size = size,
		.sampling_rate = rate,
		.estimate = sample ? estimate_of(size, rate) : 0,
		.stack_id = sample ? profiler_capture_stack() : STACK_ID_NONE,
		.thread_id = sampler_thread_id(),
		.timestamp_ns = monotonic_ns(),
		.offset = offset,
		.slack = (uint32_t)slack,
	};
	int tracked = publish(block, &r);

	leave_runtime(saved_errno);
	return tracked;
}

int profiler_restore(void *block, const struct heap_record *record)
{
	int saved_errno = enter_runtime();
	int tracked = publish(block, record);

	leave_runtime(saved_errno);
	return tracked;
}

void profiler_unsample(void *block)
{
	struct heap_record r;

	if (!profiler_find(block, &r) || !is_sample(&r) ||
	    !profiler_release(block, &r) || r.offset == 0)
		return; /* the C library's own block needs no record */
	r.sampling_rate = 0;
	r.estimate = 0;
	r.stack_id = STACK_ID_NONE;
	profiler_restore(block, &r);
}

/* Calls lookup on the table of compact records (which only samples left
 * in place fill), then on the full one while the block is not found;
 * compact records get their estimate back.  What lookup returns. */
static int look_up(void *block, struct heap_record *record,
		   int (*lookup)(struct heap_map *, uintptr_t,
				 struct heap_record *))
{
	int found = 0;

	if (!may_be_tracked(block) || !profiler_tables_ready())
		return 0;
	if (sampled_blocks_in_place()) {
		found = lookup(&prof.in_place, (uintptr_t)block, record);
		if (found == 1)
			record->estimate = estimate_of(record->size,
						       record->sampling_rate);
	}
	return found ? found : lookup(&prof.heap, (uintptr_t)block, record);
}

/* Whether the free of a sample is to be written out. */
int profiler_recording_frees(void)
{
	return atomic_load_explicit(&prof.track_frees, relaxed) &&
	       profiler_may_work_here();
}

int profiler_release(void *block, struct heap_record *record)
{
	int saved_errno;

	/* Looked up in every state, wherever a record may be: the C
	 * library's pointer of a sampled block is only known from it. */
	if (look_up(block, record, heap_map_remove) != 1)
		return 0;
	if (record->offset != POOL_OFFSET)
		carved_count_add(block, -1);
	if (!is_sample(record)) {
		count_n(COUNT_CARVED_ONLY, (uint64_t)-1);
		return 1;
	}
	count(COUNT_FREED);
	count_n(COUNT_LIVE_ESTIMATE, -record->estimate);
	if (sampler_tls.in_runtime) {
		/* A signal handler's free: its thread may hold the writer's
		 * lock, so the FREE is written by the next event. */
		if (profiler_recording_frees() && writer_free_later((uintptr_t)block) < 0)
			count(COUNT_SKIPPED_REENTRANT);
	} else if (profiler_recording_frees()) {
		saved_errno = enter_runtime();
		writer_free((uintptr_t)block);
		leave_runtime(saved_errno);
	}
	return 1;
}

int profiler_find(void *block, struct heap_record *record)
{
	return look_up(block, record, heap_map_find) == 1;
}
