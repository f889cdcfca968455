/* control.h - the runtime's side of memprof-ctl (see control_page.h).
 *
 * Contract: control_register() makes this process's registry entry when
 * the library loads (nothing when there is no registry directory);
 * control_poll() runs on the sampler's slow path, and in the handler of
 * the control signal (control_signal.h) of a thread outside the runtime,
 * and answers a waiting request through profiler_control(), and else
 * refreshes the page's
 * stats at most once every STATS_REFRESH_NS, so that a reader of the
 * registry sees them recent without asking; control_unregister() removes the
 * entry when the process ends.  A fork() child inherits its parent's
 * mapping and leaves it alone: control_after_fork() gives it its own.
 * What the entry says of the process is written through control_notes.h.
 * Nothing here holds a descriptor between calls or allocates.
 */
#ifndef SPPROF_CONTROL_H
#define SPPROF_CONTROL_H

#include <stdatomic.h>
#include <stddef.h>

#include "compiler.h"
#include "control_notes.h"

void control_register(void);
void control_unregister(void);
void control_after_fork(void);
/* Forgets the page without a system call: in a process the runtime
 * leaves alone, which may share it with its parent. */
void control_forget(void);

void control_answer(void);
void control_refresh_stats(void);

#define STATS_REFRESH_NS 1000000000ull

static inline void control_poll(void)
{
	struct control_page *page = control_page;

	if (unlikely(page && atomic_load_explicit(&page->pending,
						  memory_order_acquire)))
		control_answer();
	else if (page)
		control_refresh_stats();
}

/* Carries out one request (the profiler's side, profiler_control.c):
 * 0, or an errno value with answer saying why when it can. */
int profiler_control(enum control_request request, const char *argument,
		     char *answer, size_t size);

#endif /* SPPROF_CONTROL_H */
