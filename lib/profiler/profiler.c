/* profiler.c - the runtime's public API and its state machine (see
 * spprof/memprof.h and profiler_state.h). */
#include "config.h"

#include "profiler.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <spprof/memprof.h>

#include "estimator.h"
#include "free_filter.h"
#include "modules.h"
#include "names.h"
#include "mapping_table.h"
#include "profiler_state.h"
#include "script_stack.h"
#include "symbols.h"
#include "unwind_arch.h"
#include "writer.h"

#define relaxed memory_order_relaxed

enum state {
	UNINITIALIZED,
	BUSY, /* init() in progress */
	INITIALIZED,
	ACTIVE,
	STOPPED,
	TERMINATED,
};

struct profiler_state prof = { .min_depth = UINT32_MAX };

/* ---- lifecycle ------------------------------------------------------------- */

static int fail(int err)
{
	errno = err;
	return -1;
}

/* errno for a call that is not allowed in `state`. */
static int misuse(int state)
{
	if (state == TERMINATED)
		return fail(ESHUTDOWN);
	if (state == UNINITIALIZED || state == BUSY)
		return fail(EINVAL);
	return fail(EALREADY);
}

/* Moves from one of the `from` states (bit mask) to `to`. */
static int transition(unsigned from, int to)
{
	int state = atomic_load(&prof.state);

	do {
		if (!(from & (1u << state)))
			return misuse(state);
	} while (!atomic_compare_exchange_weak(&prof.state, &state, to));
	return 0;
}

#define STATE(s) (1u << (s))

void profiler_read_settings_once(void)
{
	if (!prof.settings_read)
		settings_read(&prof.settings);
	prof.settings_read = 1;
}

/* Says so once, rather than record stacks the walk cannot follow. */
static int refuse_unsupported_processor(void)
{
	struct utsname machine;

	if (uname(&machine) < 0)
		strcpy(machine.machine, "this processor");
	runtime_message("stack capture is not supported on %s; "
			"recording stopped", machine.machine);
	return fail(ENOSYS);
}

MEMPROF_PUBLIC int memprof_init(uint64_t sampling_rate)
{
	int saved_errno;

	if (!STACK_CAPTURE_SUPPORTED)
		return refuse_unsupported_processor();
	if (sampling_rate == 0)
		return fail(EINVAL);
	if (transition(STATE(UNINITIALIZED), BUSY) < 0)
		return -1;
	profiler_read_settings_once();
	saved_errno = enter_runtime();
	if (heap_map_init(&prof.heap, prof.settings.heap_map_capacity) < 0 ||
	    heap_map_init_compact(&prof.in_place,
				  prof.settings.heap_map_capacity) < 0 ||
	    stack_table_init(&prof.stacks, prof.settings.stack_table_max) < 0 ||
	    modules_init() < 0 || strings_init() < 0) {
		heap_map_destroy(&prof.heap);
		heap_map_destroy(&prof.in_place);
		atomic_store(&prof.state, UNINITIALIZED);
		leave_runtime(ENOMEM);
		return -1;
	}
	atomic_store_explicit(&prof.tables_ready, 1, memory_order_release);
	leave_runtime(saved_errno);
	free_filter_set_rate(sampling_rate);
	sampler_set_rate(sampling_rate);
	atomic_store(&prof.state, INITIALIZED);
	return 0;
}

MEMPROF_PUBLIC int memprof_start(void)
{
	if (transition(STATE(INITIALIZED) | STATE(STOPPED), ACTIVE) < 0)
		return -1;
	atomic_store(&prof.track_frees, 1);
	atomic_store(&prof.track_allocs, 1);
	return 0;
}

MEMPROF_PUBLIC int memprof_stop(void)
{
	if (transition(STATE(ACTIVE), STOPPED) < 0)
		return -1;
	atomic_store(&prof.track_allocs, 0);
	return 0;
}

MEMPROF_PUBLIC int memprof_shutdown(void)
{
	memprof_stats stats;
	int saved_errno;

	if (transition(STATE(UNINITIALIZED) | STATE(INITIALIZED) |
			       STATE(ACTIVE) | STATE(STOPPED),
		       TERMINATED) < 0)
		return -1;
	atomic_store(&prof.track_allocs, 0);
	saved_errno = enter_runtime();
	if (writer_enabled()) {
		memprof_get_stats(&stats);
		writer_finalise(&stats);
	}
	leave_runtime(saved_errno);
	/* The tables stay mapped: a hook may still be running on another
	 * thread, and the process is about to end anyway. */
	atomic_store(&prof.track_frees, 0);
	return 0;
}

static int initialized(void)
{
	int state = atomic_load(&prof.state);

	return state == INITIALIZED || state == ACTIVE || state == STOPPED;
}

MEMPROF_PUBLIC int memprof_set_sampling_rate(uint64_t sampling_rate)
{
	int saved_errno;

	if (sampling_rate == 0)
		return fail(EINVAL);
	if (!initialized())
		return misuse(atomic_load(&prof.state));
	free_filter_set_rate(sampling_rate);
	sampler_set_rate(sampling_rate);
	saved_errno = enter_runtime();
	writer_rate(sampling_rate);
	leave_runtime(saved_errno);
	return 0;
}

/* ---- reading the tables ------------------------------------------------------ */

struct snapshot_fill {
	memprof_sample *samples;
	size_t count, capacity;
};

static void add_to_snapshot(void *ctx, uintptr_t address,
			    const struct heap_record *r)
{
	struct snapshot_fill *f = ctx;

	if (f->count == f->capacity || !is_sample(r))
		return;
	f->samples[f->count++] = (memprof_sample){
		.address = address,
		.size = r->size,
		.sampling_rate = r->sampling_rate,
		.timestamp_ns = r->timestamp_ns,
		.stack_id = r->stack_id,
		.thread_id = r->thread_id,
	};
}

MEMPROF_PUBLIC int memprof_get_snapshot(memprof_sample **out_samples,
					size_t *out_count)
{
	struct snapshot_fill f = { 0 };

	if (!out_samples || !out_count)
		return fail(EINVAL);
	if (!initialized() && atomic_load(&prof.state) != TERMINATED)
		return misuse(atomic_load(&prof.state));
	/* Blocks sampled while we scan are included only if there is room. */
	f.capacity = atomic_load(&prof.heap.live) +
		     atomic_load(&prof.in_place.live) + 64;
	f.samples = malloc(f.capacity * sizeof(*f.samples));
	if (!f.samples)
		return fail(ENOMEM);
	heap_map_for_each(&prof.heap, add_to_snapshot, &f);
	heap_map_for_each(&prof.in_place, add_to_snapshot, &f);
	*out_samples = f.samples;
	*out_count = f.count;
	return 0;
}

MEMPROF_PUBLIC void memprof_free_snapshot(memprof_sample *samples)
{
	free(samples);
}

static uint64_t load(_Atomic uint64_t *counter)
{
	return atomic_load_explicit(counter, relaxed);
}

static uint64_t sum(unsigned counter)
{
	return counters_sum(&prof.counters, counter);
}

/* Where each statistic goes, and the counter that keeps it (-1: worked
 * out below). */
#define STAT_INDEX_OWN (-1)
#define STAT_INDEX_COUNTED(name) COUNT_##name
static const struct {
	size_t offset;
	int counter;
} stat_sources[] = {
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	{ offsetof(memprof_stats, field), STAT_INDEX_##source },
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
};

static void sum_counted(memprof_stats *out)
{
	for (size_t i = 0; i < sizeof(stat_sources) / sizeof(*stat_sources);
	     i++)
		if (stat_sources[i].counter >= 0)
			*(uint64_t *)((char *)out + stat_sources[i].offset) =
				sum((unsigned)stat_sources[i].counter);
}

static uint64_t max_of(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* The two tables of live blocks, counted as one. */
static void heap_map_stats(memprof_stats *out)
{
	struct heap_map *h = &prof.heap, *p = &prof.in_place;
	uint64_t live = load(&h->live) + load(&p->live);

	out->live_samples = live - sum(COUNT_CARVED_ONLY);
	out->heap_map_capacity = atomic_load_explicit(&h->capacity, relaxed) +
				 atomic_load_explicit(&p->capacity, relaxed);
	out->heap_map_full_drops = load(&h->full_drops) + load(&p->full_drops) +
				   mapping_table_drops();
	out->heap_map_collisions = load(&h->collisions) + load(&p->collisions);
	out->death_during_birth =
		load(&h->death_during_birth) + load(&p->death_during_birth);
	out->tombstones_recycled =
		load(&h->tombstones_recycled) + load(&p->tombstones_recycled);
	out->max_probe_length = max_of(load(&h->max_probe),
				       load(&p->max_probe));
	out->heap_map_load_percent =
		(unsigned)(live * 100 / out->heap_map_capacity);
}

MEMPROF_PUBLIC int memprof_get_stats(memprof_stats *out)
{
	uint32_t min_depth = atomic_load_explicit(&prof.min_depth, relaxed);

	if (!out)
		return fail(EINVAL);
	memset(out, 0, sizeof(*out));
	out->sampling_rate = sampler_rate();
	if (!profiler_tables_ready())
		return 0;
	sum_counted(out);
	out->unique_stacks = stack_table_count(&prof.stacks);
	out->stack_table_capacity = stack_table_capacity(&prof.stacks);
	out->stack_table_drops = load(&prof.stacks.drops);
	heap_map_stats(out);
	out->events_written = writer_events_written();
	out->events_dropped = writer_events_dropped();
	out->native_stacks = out->total_samples; /* one capture per sample */
	out->min_native_depth = min_depth == UINT32_MAX ? 0 : min_depth;
	out->estimated_live_bytes = (double)sum(COUNT_LIVE_ESTIMATE);
	return 0;
}

MEMPROF_PUBLIC int memprof_get_stack(uint32_t stack_id, memprof_stack *out)
{
	const struct stack_entry *e;
	const struct stack_names *names;

	if (!out || !profiler_tables_ready())
		return fail(EINVAL);
	e = stack_table_get(&prof.stacks, stack_id);
	if (!e)
		return fail(ENOENT);
	names = symbols_get(stack_id);
	out->depth = e->depth;
	out->frames = e->frames;
	out->functions = names ? names->functions : NULL;
	out->modules = names ? names->modules : NULL;
	out->files = names ? names->files : NULL;
	out->lines = names ? names->lines : NULL;
	return 0;
}

MEMPROF_PUBLIC int memprof_set_frame_walker(memprof_frame_walker walker,
					    const void *interpreter_code)
{
	return script_stack_set_walker(walker, interpreter_code);
}

MEMPROF_PUBLIC int memprof_resolve_symbols(void)
{
	if (!profiler_tables_ready())
		return misuse(atomic_load(&prof.state));
	return symbols_resolve(&prof.stacks);
}

MEMPROF_PUBLIC int memprof_marker(const char *name)
{
	int saved_errno, r;

	if (!name)
		return fail(EINVAL);
	if (!writer_enabled())
		return fail(ENOTCONN);
	saved_errno = enter_runtime();
	r = writer_marker(name);
	leave_runtime(r < 0 ? errno : saved_errno);
	return r;
}

MEMPROF_PUBLIC int memprof_gc_event(uint64_t objects, uint64_t bytes)
{
	int saved_errno;

	if (!writer_enabled())
		return fail(ENOTCONN);
	saved_errno = enter_runtime();
	writer_gc(objects, bytes);
	leave_runtime(saved_errno);
	return 0;
}

MEMPROF_PUBLIC double memprof_estimate_bytes(uint64_t size,
					     uint64_t sampling_rate,
					     double *count)
{
	struct estimator_weight w = estimator_weigh(size, sampling_rate);

	if (count)
		*count = w.count;
	return w.bytes;
}

MEMPROF_PUBLIC double memprof_estimate_variance(uint64_t size,
						uint64_t sampling_rate)
{
	return estimator_weigh(size, sampling_rate).bytes_variance;
}

MEMPROF_PUBLIC double memprof_estimate_interval95(double variance)
{
	return estimator_interval95(variance);
}
