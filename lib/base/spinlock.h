/* spinlock.h - the short lock of the runtime's sampled paths.
 *
 * Contract: guards work of a few hundred instructions (appending an
 * event, interning a name, taking a pool page).  It spins briefly with the
 * CPU's pause hint, then yields, so a preempted holder is not waited for
 * at full speed.  Never taken twice by one thread: the runtime's
 * re-entrancy guard keeps hooks from nesting.
 */
#ifndef SPPROF_SPINLOCK_H
#define SPPROF_SPINLOCK_H

#include <sched.h>
#include <stdatomic.h>

#define SPIN_BEFORE_YIELD 128

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static inline int spin_trylock(_Atomic int *lock)
{
	return !atomic_exchange_explicit(lock, 1, memory_order_acquire);
}

static inline void spin_lock(_Atomic int *lock)
{
	unsigned spins = 0;

	while (!spin_trylock(lock)) {
		while (atomic_load_explicit(lock, memory_order_relaxed)) {
			if (++spins < SPIN_BEFORE_YIELD)
				cpu_relax();
			else
				sched_yield();
		}
	}
}

static inline void spin_unlock(_Atomic int *lock)
{
	atomic_store_explicit(lock, 0, memory_order_release);
}

#endif /* SPPROF_SPINLOCK_H */
