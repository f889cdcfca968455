/* profiler_state.h - what the profiler's three parts share.
 *
 * Contract: the runtime's profiler is split by when its code runs:
 * profiler.c holds the public API and the state machine, profiler_record.c
 * the path of every sampled or released block, profiler_events.c what
 * happens when the library loads, the process forks, executes or exits.
 * They share one state, `prof`, defined in profiler.c, and the
 * re-entrancy guard below.  Nothing here is exported.
 */
#ifndef SPPROF_PROFILER_STATE_H
#define SPPROF_PROFILER_STATE_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

#include "counters.h"
#include "heap_map.h"
#include "sampler.h"
#include "settings.h"
#include "stack_table.h"

struct profiler_state {
	_Atomic int state;
	_Atomic int track_allocs;
	_Atomic int track_frees;
	struct runtime_config settings;
	int settings_read;
	struct heap_map heap;
	/* Samples left in place (free_filter.h), in compact records: with
	 * every block sampled, one per live block of the program. */
	struct heap_map in_place;
	struct stack_table stacks;
	struct counters counters; /* what every sample updates: COUNT_* */
	_Atomic uint32_t min_depth; /* seldom written */
	/* Set once memprof_init() has made every table above: a table is
	 * made in steps (the heap map knows its size before its slots are
	 * mapped), and another thread's hook or request must not touch one
	 * before all are whole (profiler_tables_ready). */
	_Atomic int tables_ready;
};

/* The counters of prof.counters: the statistics memprof-stats.def says
 * are COUNTED(NAME), as COUNT_NAME, then the runtime's own. */
#define STAT_COUNTER_OWN
#define STAT_COUNTER_COUNTED(name) COUNT_##name,
enum {
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	STAT_COUNTER_##source
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
	COUNT_LIVE_ESTIMATE, /* whole bytes, kept as blocks come and go */
	COUNT_CARVED_ONLY,   /* heap-map records that are not samples */
	COUNT_KINDS
};
_Static_assert(COUNT_KINDS <= COUNTERS_MAX, "the counters fit");

extern struct profiler_state prof;

static inline int profiler_tables_ready(void)
{
	return atomic_load_explicit(&prof.tables_ready, memory_order_acquire);
}

/* Settings are read when the library loads; a program that links the
 * runtime's objects without its loader reads them at init instead. */
void profiler_read_settings_once(void);

/* The hooks' work runs under the re-entrancy guard and leaves errno as
 * the C library set it. */
static inline int enter_runtime(void)
{
	sampler_tls.in_runtime = 1;
	return errno;
}

static inline void leave_runtime(int saved_errno)
{
	sampler_tls.in_runtime = 0;
	errno = saved_errno;
}

/* The calling thread's stack, interned (profiler_record.c). */
uint32_t profiler_capture_stack(void);

/* Whether the end of a sample (a free, an unmap) is to be written. */
int profiler_recording_frees(void);

/* Records of carved blocks that are not samples (see profiler.h) have
 * no sampling rate: they only remember where the block was carved. */
static inline int is_sample(const struct heap_record *r)
{
	return r->sampling_rate != 0;
}

#endif /* SPPROF_PROFILER_STATE_H */
