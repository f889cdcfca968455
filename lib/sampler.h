/* sampler.h - per-thread Poisson sampling of allocated bytes.
 *
 * Contract: decides, for the allocation of `size` bytes about to be made by
 * this thread, whether the Poisson process of mean sampling_rate bytes puts
 * a sample inside it.  The hot path is one
 * thread-local compare and subtract; sampled blocks are then recorded by the
 * profiler.  The process keeps running while the profiler is stopped, so
 * that start() finds every thread in its stationary state.
 *
 * The thread state also carries the re-entrancy guard: while a thread runs
 * runtime code (in_runtime != 0) its own allocations are never sampled.
 */
#ifndef SPPROF_SAMPLER_H
#define SPPROF_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "prng.h"

struct sampler_thread {
	/* Bytes this thread may still allocate before the next sample.
	 * Unsigned, so one compare handles every size_t; a new thread
	 * starts at 0 and takes the slow path that seeds it. */
	uint64_t bytes_until_sample;
	struct prng prng;
	uint32_t tid;
	uint8_t seeded;
	uint8_t in_runtime;
	uintptr_t stack_top; /* upper bound for the frame-pointer walk */
};

extern INITIAL_EXEC_TLS struct sampler_thread sampler_tls;

/* Mean sampling interval in bytes (read relaxed on the slow path only). */
void sampler_set_rate(uint64_t bytes);
uint64_t sampler_rate(void);

/* Global entropy for seeding (read once) and re-seeding after fork. */
void sampler_init_entropy(void);
void sampler_reseed_thread(void);

/* The hot path: 1 when no sample falls inside the next `size` bytes of
 * this thread (the common case), 0 when sampler_slow_path() must decide. */
static inline int sampler_within_budget(size_t size)
{
	struct sampler_thread *t = &sampler_tls;

	if (likely(size < t->bytes_until_sample)) {
		t->bytes_until_sample -= size;
		return 1;
	}
	return 0;
}

/* 1 when the allocation of `size` bytes is to be sampled.  Seeds a new
 * thread first; never samples while the thread runs runtime code. */
int sampler_slow_path(size_t size);

#endif /* SPPROF_SAMPLER_H */
