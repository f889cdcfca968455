/* profiler_mappings.c - the path of every sampled anonymous mapping, and
 * of every unmap that may touch one (see profiler.h): the stack capture,
 * the mapping table's records and the profile's MAP and UNMAP events. */
#include "config.h"

#include "profiler.h"

#include <stdatomic.h>

#include "clock.h"
#include "mapping_table.h"
#include "profiler_state.h"
#include "writer.h"

static void write_unmap(void *ctx, const struct sampled_mapping *m);
static void write_remainder(void *ctx, const struct sampled_mapping *piece);

void profiler_record_mapping(void *start, size_t length)
{
	int saved_errno = enter_runtime();
	struct sampled_mapping m = {
		.start = (uintptr_t)start,
		.length = length,
		.sampling_rate = sampler_rate(),
		.stack_id = profiler_capture_stack(),
		.thread_id = sampler_thread_id(),
		.timestamp_ns = monotonic_ns(),
	};

	mapping_table_lock();
	/* A sampled mapping still listed where the new one is was unmapped
	 * past the runtime (by a system call of the program's own). */
	mapping_table_cut(m.start, m.length, write_unmap, write_remainder,
			  NULL);
	if (mapping_table_add(&m))
		writer_map(&m, 0);
	mapping_table_unlock();
	leave_runtime(saved_errno);
}

/* The table's lock is held under the re-entrancy guard, also across
 * the program's system call: a signal handler that maps or unmaps while
 * its thread holds the lock passes straight through, and never waits
 * for it.  errno is the call's. */
int profiler_begin_unmap(const void *start, size_t length)
{
	if (likely(mapping_table_empty()))
		return 0;
	sampler_tls.in_runtime = 1;
	mapping_table_lock();
	if (mapping_table_touches((uintptr_t)start, length))
		return 1;
	mapping_table_unlock();
	sampler_tls.in_runtime = 0;
	return 0;
}

static void write_unmap(void *ctx, const struct sampled_mapping *m)
{
	(void)ctx;
	if (profiler_recording_frees())
		writer_unmap(m->start, m->length);
}

static void write_remainder(void *ctx, const struct sampled_mapping *piece)
{
	(void)ctx;
	if (profiler_recording_frees())
		writer_map(piece, 1);
}

void profiler_end_unmap(const void *start, size_t length, int unmapped)
{
	int saved_errno = errno;

	if (unmapped)
		mapping_table_cut((uintptr_t)start, length, write_unmap,
				  write_remainder, NULL);
	mapping_table_unlock();
	leave_runtime(saved_errno);
}
