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

/* Global entropy for seeding (read once) and re-seeding after fork.  A
 * non-zero seed (SPPROF_SEED) makes the samples repeat from run to run
 * of a program that allocates alike; 0 draws the entropy at random. */
void sampler_init_entropy(uint64_t seed);
void sampler_reseed_thread(void);
/* The calling thread's id, asked of the kernel at its first sample. */
uint32_t sampler_thread_id(void);

/* The hot path: 1 when no sample falls inside the next `size` bytes of
 * this thread (the common case), 0 when sampler_slow_path() must decide.
 * The budget is spent before it is tested, and given back when the block
 * crosses it, so that on x86-64 the common case is one subtraction in
 * thread-local memory and a branch on its borrow, which the compiler does
 * not produce by itself (it loads, subtracts and stores): every malloc()
 * pays for this path. */
static inline int sampler_within_budget(size_t size)
{
	struct sampler_thread *t = &sampler_tls;

#if defined(__x86_64__) && defined(__GNUC__) && defined(__PIC__)
	_Static_assert(offsetof(struct sampler_thread, bytes_until_sample) == 0,
		       "the budget is the first field of the thread state");
	__asm__ goto("movq sampler_tls@gottpoff(%%rip), %%rax\n\t"
		     "subq %0, %%fs:(%%rax)\n\t"
		     "jb %l[crossed]"
		     : /* no outputs */
		     : "r"(size)
		     : "rax", "cc", "memory"
		     : crossed);
	return 1;
crossed:
#else
	if (likely(!__builtin_sub_overflow(t->bytes_until_sample, size,
					   &t->bytes_until_sample)))
		return 1;
#endif
	t->bytes_until_sample += size;
	return 0;
}

/* 1 when the allocation of `size` bytes is to be sampled.  Seeds a new
 * thread first; never samples while the thread runs runtime code. */
int sampler_slow_path(size_t size);

#endif /* SPPROF_SAMPLER_H */
