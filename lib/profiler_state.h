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
	struct stack_table stacks;
	/* The counters every sample updates, in one cache line. */
	_Atomic uint64_t samples __attribute__((aligned(64)));
	_Atomic uint64_t freed;
	_Atomic uint64_t live_estimate; /* whole bytes, kept as blocks come and go */
	_Atomic uint64_t carved_only;   /* heap-map records that are not samples */
	_Atomic uint64_t native_frames, shallow;
	_Atomic uint32_t min_depth;
	_Atomic uint64_t truncated, skipped_reentrant;
	_Atomic uint64_t fp_stacks, dwarf_stacks; /* by the method that took them */
};

extern struct profiler_state prof;

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

/* Records of carved blocks that are not samples (see profiler.h) have
 * no sampling rate: they only remember where the block was carved. */
static inline int is_sample(const struct heap_record *r)
{
	return r->sampling_rate != 0;
}

#endif /* SPPROF_PROFILER_STATE_H */
