/* process_owner.h - whether the runtime's state belongs to this process.
 *
 * The runtime's state (its streamed file, its registry entry, its
 * tables) belongs to one process.  fork() hands a copy to the child
 * through the atfork handlers, which give the child a state of its own.
 * A child made by the clone system call itself runs no atfork handler:
 * sandboxes make their children so (chromium's zygote, in new
 * namespaces), and such a child must do none of the runtime's work,
 * which is its parent's: not even a system call, which its seccomp
 * filter may punish with death.  A child that shares our memory (vfork,
 * posix_spawn, clone with CLONE_VM) may even run on thread-local storage
 * of its own making, so the _exit and exec hooks ask before they touch
 * any.
 *
 * Contract: process_owner_init() at load and process_owner_after_fork()
 * in a child the atfork handler saw write this process's id into a page
 * the kernel empties in every child that does not share our memory
 * (MADV_WIPEONFORK, Linux 4.14; where the kernel lacks it, the page is
 * left as the parent wrote it, as if the child were the parent's copy).
 * process_is_owner() reads it: one load, no system call, no thread-local
 * variable.  process_is_owner_exactly() also compares the process's id,
 * by one raw getpid system call, for children sharing our memory.
 * Neither allocates, and both are safe in any process.
 */
#ifndef SPPROF_PROCESS_OWNER_H
#define SPPROF_PROCESS_OWNER_H

#include <stdatomic.h>
#include <sys/types.h>

extern _Atomic pid_t *process_owner_word;

void process_owner_init(void);
void process_owner_after_fork(void);

static inline int process_is_owner(void)
{
	_Atomic pid_t *word = process_owner_word;

	/* No page (it could not be mapped): as before, every process is. */
	return !word || atomic_load_explicit(word, memory_order_relaxed) != 0;
}

int process_is_owner_exactly(void);

#endif /* SPPROF_PROCESS_OWNER_H */
