/* reported_blocks.c - the blocks of allocators the runtime cannot see,
 * which they report through spprof/memprof-pool.h.
 *
 * They are sampled by the thread's Poisson process over bytes, the one
 * malloc's blocks draw from (the bytes of both make one stream, so each
 * block is sampled with the same law), and kept in the same tables under
 * their key, MEMPROF_POOL_KEY(address), which no malloc block has: a
 * pool's first block shares its chunk's address.  Keys need a spare top
 * bit, which 32-bit addresses lack: there the gates stay closed and the
 * reports do nothing. */
#include "config.h"

#include <spprof/memprof-pool.h>

#include <stdatomic.h>

#include "carved_count.h"
#include "compiler.h"
#include "free_filter.h"
#include "profiler.h"
#include "profiler_state.h"
#include "sampler.h"

#define KEYS_FIT (UINTPTR_MAX > 0xFFFFFFFFu)

/* Set at the first sampled report and never cleared: until then no
 * report of a free need call in. */
static _Atomic int reported_sampled;
static const int closed;

MEMPROF_PUBLIC const struct memprof_gates *memprof_report_gates(void)
{
	/* The header reads the _Atomic ints as ints: the same object
	 * representation on every processor the runtime supports. */
	static const struct memprof_gates open = {
		.allocs = (const int *)&prof.track_allocs,
		.frees = (const int *)&reported_sampled,
	};
	static const struct memprof_gates shut = {&closed, &closed};

	return KEYS_FIT ? &open : &shut;
}

static void *key_of(void *block)
{
	return (void *)(uintptr_t)MEMPROF_POOL_KEY(block);
}

MEMPROF_PUBLIC void memprof_report_alloc(void *block, size_t size)
{
	if (!KEYS_FIT || !block || likely(sampler_within_budget(size)))
		return;
	if (!sampler_slow_path(size) || !profiler_wants_sample())
		return;
	/* Before the block is published: its free may follow at once. */
	atomic_store_explicit(&reported_sampled, 1, memory_order_relaxed);
	profiler_record_alloc(key_of(block), size, 0, 0, 1);
}

/* A key lies outside the pool of pages, where one counter tells whether
 * the tables may hold it: most frees need ask no more. */
MEMPROF_PUBLIC void memprof_report_free(void *block)
{
	struct heap_record record;
	void *key = key_of(block);

	if (KEYS_FIT && block && carved_count_may_hold(key))
		profiler_release(key, &record);
}

MEMPROF_PUBLIC void memprof_report_chunk(void *chunk)
{
	if (chunk && free_filter_maybe_sampled(chunk))
		profiler_unsample(chunk);
}
