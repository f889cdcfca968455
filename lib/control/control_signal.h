/* control_signal.h - how a request of memprof-ctl reaches a process that
 * does not allocate.
 *
 * Requests are taken on the sampler's slow path (control.h), which a
 * process that stops calling malloc (memcached once its slabs are full, a
 * daemon asleep in epoll_wait) never reaches.  Something of the runtime
 * must then run without the program's help, and only a thread or a
 * signal can.  A thread standing by would be there all the time (in
 * /proc, in a debugger, in every fork); one made for a request would have
 * to be made by code already running in the process, which is the
 * problem itself.  So memprof-ctl queues a signal once a request it
 * posted is not taken within a short time, and the runtime's handler
 * answers it on whichever thread the kernel picked.
 *
 * Which signal: SIGURG, whose default action is to ignore it, so that
 * a process whose handler is gone (replaced by a raw rt_sigaction, or a
 * runtime never loaded) loses nothing, and which few programs use (out
 * of band data on a socket they own).  Its handler is the runtime's from
 * the time the library loads, but the program sees its own: sigaction()
 * and signal() of SIGURG read and set the program's action, which the
 * handler calls for every SIGURG that is not a request (by its queued
 * value), with the program's flags and mask; a program without one
 * ignores it, as it would have.  The program notices nothing at other
 * times; while a request is brought, a call it was blocked in may return
 * early, as for any handled signal (EINTR from epoll_wait, nanosleep's
 * time left).
 *
 * Why it is safe to answer in a handler: the answer is the same work the
 * slow path does inside malloc, which the runtime already writes to run
 * on any thread at any time (it allocates nothing, takes only its own
 * locks, and tolerates a handler interrupting its tables).  A thread
 * interrupted inside the runtime itself (its re-entrancy guard set) may
 * hold those locks, and one on an alternate signal stack may have too
 * little room: there the handler leaves the request, and memprof-ctl
 * queues the signal again a little later (it goes to any thread that
 * does not block it).  A process under a seccomp filter runs the same
 * system calls as on its slow path, plus rt_sigreturn, which every
 * filter that lets a process handle signals allows.
 *
 * Not seen: a program that sets SIGURG's action by raw system call, or
 * through bsd_signal(), sysv_signal() or sigset(), replaces the handler;
 * one that blocks SIGURG in every thread keeps it pending.  memprof-ctl
 * then says the request was not taken, and the slow path still answers
 * when the program allocates.
 *
 * Contract: control_signal_install() puts the handler in place once
 * (returns 0 when it stands, -1 when it could not be set); the program's
 * action is the one that stood before.  control_signal_is_ours() says
 * whether a signal's action is kept for the program;
 * control_signal_program_action() is sigaction() of that signal as the
 * program sees it.  Nothing here allocates.
 */
#ifndef SPPROF_CONTROL_SIGNAL_H
#define SPPROF_CONTROL_SIGNAL_H

#include <signal.h>

int control_signal_install(void);
int control_signal_is_ours(int signal);
int control_signal_program_action(const struct sigaction *action,
				  struct sigaction *old);

#endif /* SPPROF_CONTROL_SIGNAL_H */
