/* interpose_signal.c - the action of the control signal, as the program
 * sees it (see control_signal.h): sigaction() and signal() of
 * CONTROL_SIGNAL read and set the program's action, which the runtime's
 * handler calls; every other signal goes to the C library unchanged.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>

#include "compiler.h"
#include "control_signal.h"

typedef int (*sigaction_fn)(int, const struct sigaction *,
			    struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);

static struct {
	sigaction_fn sigaction;
	signal_fn signal;
} next;

/* A library's constructor may set an action before ours have run. */
static int find_signal_functions(void)
{
	if (!next.sigaction) {
		*(void **)&next.signal = dlsym(RTLD_NEXT, "signal");
		*(void **)&next.sigaction = dlsym(RTLD_NEXT, "sigaction");
	}
	if (next.sigaction && next.signal)
		return 0;
	errno = ENOSYS;
	return -1;
}

MEMPROF_PUBLIC int sigaction(int signal, const struct sigaction *action,
			     struct sigaction *old)
{
	if (control_signal_is_ours(signal))
		return control_signal_program_action(action, old);
	if (find_signal_functions() < 0)
		return -1;
	return next.sigaction(signal, action, old);
}

/* The C library's signal(): BSD semantics, the signal held while its
 * handler runs and interrupted calls restarted. */
MEMPROF_PUBLIC sighandler_t signal(int signal, sighandler_t handler)
{
	struct sigaction action = { .sa_handler = handler,
				    .sa_flags = SA_RESTART },
			 old;

	if (!control_signal_is_ours(signal))
		return find_signal_functions() < 0
			       ? SIG_ERR
			       : next.signal(signal, handler);
	sigemptyset(&action.sa_mask);
	sigaddset(&action.sa_mask, signal);
	if (control_signal_program_action(&action, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}
