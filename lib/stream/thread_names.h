/* thread_names.h - the names of the threads that allocate, for the
 * profile's THREAD events (mlyze(5)).
 *
 * Contract: thread_name_due() runs on the path of a sampled allocation,
 * before the writer's lock is taken, in the thread that allocates.  It
 * says when that thread's name is to be written: at the thread's first
 * sample of a profile, and at a later sample that finds the name changed
 * (pthread_setname_np(), prctl(PR_SET_NAME)), which is looked for at most
 * once a second per thread: a renamed thread is known by its new name
 * from its first sample a second after the rename at the latest.  The
 * name is the kernel's (/proc/thread-self/comm), read by raw system calls
 * as process_memory.c reads /proc: no allocation, no lock, no
 * cancellation point, errno kept.  Without /proc (a chroot), threads stay
 * nameless.  thread_names_restart() makes every thread write its name
 * again at its next sample: a new file (a forked child's, a checkpoint's,
 * a new recording window) holds none of the names written before.
 */
#ifndef SPPROF_THREAD_NAMES_H
#define SPPROF_THREAD_NAMES_H

#include <stdint.h>

#include "spprof/mlyze.h"

/* How long a thread keeps its name unchecked. */
#define THREAD_NAME_CHECK_NS (1000 * UINT64_C(1000000))

/* The length of the calling thread's name, copied to `name`, when it is
 * to be written at monotonic time now_ns; -1 when not. */
int thread_name_due(uint64_t now_ns, char name[MLYZE_THREAD_NAME_MAX]);
/* The name thread_name_due() gave could not be written (the stream
 * failed, the event was dropped): it is due again at the next sample. */
void thread_name_lost(void);
void thread_names_restart(void);

#endif /* SPPROF_THREAD_NAMES_H */
