/* wrap-child.c - running COMMAND as a child of memprof-wrap.
 * See wrap-child.h for the contract. */
#include "config.h"

#include "wrap-child.h"
#include "wrap-util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define FORWARDED_COUNT (sizeof forwarded_signals / sizeof *forwarded_signals)

/* What execvp() does with a file the kernel cannot execute (ENOEXEC). */
static void exec_with_shell(const char *path, char *const argv[])
{
	size_t count = 0;
	char **shell_argv;

	while (argv[count] != NULL)
		count++;
	shell_argv = wrap_alloc((count + 2) * sizeof *shell_argv);
	shell_argv[0] = (char *)"/bin/sh";
	shell_argv[1] = (char *)path;
	memcpy(shell_argv + 2, argv + 1, count * sizeof *shell_argv);
	execv(shell_argv[0], shell_argv);
}

/* In the child: give back what memprof-wrap changed, then become COMMAND. */
static _Noreturn void exec_command(const char *path, char *const argv[],
				   const sigset_t *mask,
				   const struct sigaction *child_action)
{
	int problem;

	sigaction(SIGCHLD, child_action, NULL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execv(path, argv);
	if (errno == ENOEXEC)
		exec_with_shell(path, argv);
	problem = errno;
	wrap_error("%s: %s", path, strerror(problem));
	_exit(problem == ENOENT ? 127 : 126);
}

/* A terminal sends INT, QUIT and HUP to its whole foreground process
 * group; a child still in our group has had its own copy already. */
static void forward(int number, int code, pid_t child)
{
	if (code == SI_KERNEL && getpgid(child) == getpgrp())
		return;
	kill(child, number);
}

/* Reap every finished process of the tree, noting CHILD's status when it
 * is among them; true while some process of the tree still runs. */
static bool reap_finished(pid_t child, int *child_status, bool *child_ended)
{
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == child) {
			*child_status = status;
			*child_ended = true;
		}
	}
	return pid == 0;
}

/* Waits for CHILD, forwarding signals (read from SIGNALS, a signalfd) and
 * taking what the runtime sends meanwhile, so that no process waits for
 * room in the manifest's queue and messages show as they come. */
static int wait_for(pid_t child, int signals, struct wrap_manifest *manifest,
		    bool *descendants_running)
{
	struct pollfd ready[2] = { { .fd = signals, .events = POLLIN },
				   { .fd = manifest->socket, .events = POLLIN } };
	bool child_ended = false;
	int status = 0;

	while (!child_ended) {
		struct signalfd_siginfo info;

		if (poll(ready, 2, -1) < 0)
			continue;
		if (ready[1].revents)
			wrap_manifest_receive(manifest);
		if (!ready[0].revents ||
		    read(signals, &info, sizeof info) != sizeof info)
			continue;
		if (info.ssi_signo == SIGCHLD)
			*descendants_running = reap_finished(child, &status,
							     &child_ended);
		else
			forward((int)info.ssi_signo, info.ssi_code, child);
	}
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status)
				   : WEXITSTATUS(status);
}

int wrap_run(const char *path, char *const argv[],
	     struct wrap_manifest *manifest, bool *descendants_running)
{
	struct sigaction default_action = { .sa_handler = SIG_DFL };
	struct sigaction child_action;
	sigset_t waited, mask;
	pid_t child;
	int signals, status;

	sigemptyset(&waited);
	for (size_t i = 0; i < FORWARDED_COUNT; i++)
		sigaddset(&waited, forwarded_signals[i]);
	sigaddset(&waited, SIGCHLD);
	/* An inherited SIG_IGN would have the kernel reap children unseen. */
	sigaction(SIGCHLD, &default_action, &child_action);
	/* Without it, orphans go to init and we cannot know they still run. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* Signals wait, blocked, to be read from a signalfd: no handler, no
	 * race. */
	sigprocmask(SIG_BLOCK, &waited, &mask);
	signals = signalfd(-1, &waited, SFD_CLOEXEC);
	if (signals < 0) {
		wrap_error("cannot wait for signals: %s", strerror(errno));
		return 1;
	}
	child = fork();
	if (child < 0) {
		wrap_error("cannot start %s: %s", path, strerror(errno));
		close(signals);
		return 1;
	}
	if (child == 0)
		exec_command(path, argv, &mask, &child_action);
	status = wait_for(child, signals, manifest, descendants_running);
	close(signals);
	return status;
}
