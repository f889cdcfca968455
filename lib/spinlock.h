/* spinlock.h - the short lock of the runtime's sampled paths.
 *
 * Contract: guards work of a few hundred instructions (appending an
 * event, interning a name, taking a pool page).  A waiter spins briefly
 * with the CPU's pause hint, then sleeps in the kernel (a futex) until
 * the holder lets go: when threads outnumber CPUs the holder may be
 * preempted, and waiters that keep running (spinning or yielding) only
 * delay its return.  Nothing here allocates; the futex calls are system
 * calls, safe in a signal handler, and leave errno as it was.  Never
 * taken twice by one thread: the runtime's re-entrancy guard keeps hooks
 * from nesting.  The lock word is 0 (free), 1 (held) or 2 (held, with
 * waiters perhaps asleep), so that letting go makes a system call only
 * when someone may sleep.
 */
#ifndef SPPROF_SPINLOCK_H
#define SPPROF_SPINLOCK_H

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SPIN_BEFORE_YIELD 128

enum { LOCK_FREE, LOCK_HELD, LOCK_CONTENDED };

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static inline void lock_futex(_Atomic int *lock, int op, int value)
{
	int saved_errno = errno;

	syscall(SYS_futex, (int *)lock, op | FUTEX_PRIVATE_FLAG, value, NULL,
		NULL, 0);
	errno = saved_errno;
}

static inline int spin_trylock(_Atomic int *lock)
{
	int expected = LOCK_FREE;

	return atomic_compare_exchange_strong_explicit(
		lock, &expected, LOCK_HELD, memory_order_acquire,
		memory_order_relaxed);
}

static inline void spin_lock(_Atomic int *lock)
{
	if (spin_trylock(lock))
		return;
	for (unsigned spins = 0; spins < SPIN_BEFORE_YIELD; spins++) {
		cpu_relax();
		if (atomic_load_explicit(lock, memory_order_relaxed) ==
			    LOCK_FREE &&
		    spin_trylock(lock))
			return;
	}
	/* Held as contended from here on, so that its holder wakes us. */
	while (atomic_exchange_explicit(lock, LOCK_CONTENDED,
					memory_order_acquire) != LOCK_FREE)
		lock_futex(lock, FUTEX_WAIT, LOCK_CONTENDED);
}

static inline void spin_unlock(_Atomic int *lock)
{
	if (atomic_exchange_explicit(lock, LOCK_FREE, memory_order_release) ==
	    LOCK_CONTENDED)
		lock_futex(lock, FUTEX_WAKE, 1);
}

#endif /* SPPROF_SPINLOCK_H */
