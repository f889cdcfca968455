/* control_signal.c - requests brought by a signal (see control_signal.h). */
#include "config.h"

#include "control_signal.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "control.h"
#include "profiler.h"
#include "sampler.h"
#include "spinlock.h"

typedef int (*sigaction_fn)(int, const struct sigaction *,
			    struct sigaction *);

static sigaction_fn c_sigaction; /* the C library's */
static _Atomic int installed;

/* The program's action, in two slots: a setter fills the one not in use
 * and then switches, so that a handler on another thread copies a whole
 * action.  Setters take turns, with their signals held (sigaction() may
 * be called from a handler). */
static struct sigaction program_actions[2];
static _Atomic unsigned program_slot;
static _Atomic int setting;

static struct sigaction program_action(void)
{
	return program_actions[atomic_load(&program_slot)];
}

static void keep_program_action(const struct sigaction *action)
{
	unsigned next = !atomic_load(&program_slot);

	program_actions[next] = *action;
	atomic_store(&program_slot, next);
}

static int program_has_handler(const struct sigaction *program)
{
	return program->sa_handler != SIG_DFL &&
	       program->sa_handler != SIG_IGN;
}

/* What the program asked for that the kernel applies before any handler
 * runs: the mask, and where and how the interrupted call goes on. */
#define PROGRAM_FLAGS (SA_ONSTACK | SA_RESTART | SA_NODEFER)

static void on_control_signal(int signal, siginfo_t *info, void *context);

static int set_kernel_action(const struct sigaction *program)
{
	struct sigaction mine = { .sa_sigaction = on_control_signal,
				  .sa_flags = SA_SIGINFO | SA_RESTART };

	sigemptyset(&mine.sa_mask);
	if (program_has_handler(program)) {
		mine.sa_flags = SA_SIGINFO | (program->sa_flags & PROGRAM_FLAGS);
		mine.sa_mask = program->sa_mask;
	}
	return c_sigaction(CONTROL_SIGNAL, &mine, NULL);
}

static int on_alternate_stack(void)
{
	stack_t stack;

	return sigaltstack(NULL, &stack) == 0 && (stack.ss_flags & SS_ONSTACK);
}

static int is_request(const siginfo_t *info)
{
	return info && info->si_code == SI_QUEUE &&
	       info->si_value.sival_int == CONTROL_SIGNAL_VALUE;
}

/* As the program's action would have: SIGURG's default is to ignore it. */
static void forward(int signal, siginfo_t *info, void *context)
{
	struct sigaction program = program_action();

	if (!program_has_handler(&program))
		return;
	if (program.sa_flags & SA_RESETHAND) {
		struct sigaction reset = { .sa_handler = SIG_DFL };

		keep_program_action(&reset);
	}
	if (program.sa_flags & SA_SIGINFO)
		program.sa_sigaction(signal, info, context);
	else
		program.sa_handler(signal);
}

static void on_control_signal(int signal, siginfo_t *info, void *context)
{
	int saved_errno = errno;

	if (!is_request(info))
		forward(signal, info, context);
	else if (!sampler_tls.in_runtime && !on_alternate_stack() &&
		 profiler_may_work_here())
		control_poll();
	errno = saved_errno;
}

int control_signal_install(void)
{
	struct sigaction program;

	if (atomic_load(&installed))
		return 0;
	*(void **)&c_sigaction = dlsym(RTLD_NEXT, "sigaction");
	if (!c_sigaction || c_sigaction(CONTROL_SIGNAL, NULL, &program) < 0)
		return -1;
	keep_program_action(&program);
	if (set_kernel_action(&program) < 0)
		return -1;
	atomic_store(&installed, 1);
	return 0;
}

int control_signal_is_ours(int signal)
{
	return signal == CONTROL_SIGNAL && atomic_load(&installed);
}

int control_signal_program_action(const struct sigaction *action,
				  struct sigaction *old)
{
	struct sigaction before;
	sigset_t all, mask;
	int rc = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &mask);
	spin_lock(&setting);
	before = program_action();
	if (action) {
		keep_program_action(action);
		rc = set_kernel_action(action);
	}
	spin_unlock(&setting);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	if (old && rc == 0)
		*old = before;
	return rc;
}
