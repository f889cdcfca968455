/* ctl-top.c - the top sites of a running process (see ctl-top.h). */
#include "config.h"

#include "ctl-top.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define TOP_SITES "15"
#define CLEAR_SCREEN "\033[H\033[2J"

static volatile sig_atomic_t interrupted;

static void on_signal(int signal)
{
	(void)signal;
	interrupted = 1;
}

void ctl_report_program(char *out, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			snprintf(out, size, "%.*s/memprof-report",
				 (int)(slash - self), self);
			if (access(out, X_OK) == 0)
				return;
		}
	}
	snprintf(out, size, "memprof-report");
}

/* One report of the streamed file, into out (NUL-terminated, cut at
 * size); its warnings (the file is not finalised: it never is while it
 * runs) are not kept.  -1, with a message on stderr, when it cannot be run
 * or fails: its output is then no report. */
static int run_report(const char *program, const char *part, char *out,
		      size_t size)
{
	char drain[4096];
	size_t used = 0;
	ssize_t n;
	pid_t child;
	int pipe_fds[2], status = -1;

	if (pipe(pipe_fds) < 0)
		goto failed;
	child = fork();
	if (child == 0) {
		dup2(pipe_fds[1], STDOUT_FILENO);
		close(pipe_fds[0]);
		close(pipe_fds[1]);
		if (!freopen("/dev/null", "w", stderr))
			_exit(127);
		execlp(program, program, "--at", "end", "--growth", "--top",
		       TOP_SITES, part, (char *)NULL);
		_exit(127);
	}
	close(pipe_fds[1]);
	while (child > 0) {
		size_t room = size - 1 - used;

		/* Past the room, the rest is read and dropped. */
		n = read(pipe_fds[0], room ? out + used : drain,
			 room ? room : sizeof(drain));
		if (n > 0 && room)
			used += (size_t)n;
		else if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
	out[used] = '\0';
	close(pipe_fds[0]);
	while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
failed:
	fprintf(stderr, "memprof-ctl: %s could not report on %s "
		"(run it for the reason)\n", program, part);
	return -1;
}

/* Waits up to `seconds` for a key: true when it was q.  Without a
 * keyboard, only waits. */
static bool quit_typed(unsigned seconds, bool keyboard)
{
	struct pollfd in = { .fd = STDIN_FILENO, .events = POLLIN };
	char key;

	if (!keyboard) {
		sleep(seconds);
		return false;
	}
	if (poll(&in, 1, (int)seconds * 1000) <= 0)
		return false;
	return read(STDIN_FILENO, &key, 1) == 1 && (key == 'q' || key == 'Q');
}

static bool still_recording(const struct ctl_process *p, char *part,
			    size_t size)
{
	struct ctl_process now;
	char why[256];

	if (ctl_registry_find(p->pid, &now, why, sizeof(why)) < 0 ||
	    now.page.state != CONTROL_RECORDING || !now.page.part[0])
		return false;
	snprintf(part, size, "%s", now.page.part);
	return true;
}

int ctl_top(const struct ctl_process *p, unsigned interval)
{
	struct sigaction stop = { .sa_handler = on_signal };
	struct termios saved, keys;
	bool terminal = isatty(STDOUT_FILENO);
	bool keyboard = terminal && tcgetattr(STDIN_FILENO, &saved) == 0;
	char program[PATH_MAX], part[PATH_MAX];
	static char report[1 << 16];
	bool failed;

	ctl_report_program(program, sizeof(program));
	if (!still_recording(p, part, sizeof(part))) {
		fprintf(stderr, "memprof-ctl: process %ld is not recording "
			"(memprof-ctl start %ld begins)\n", p->pid, p->pid);
		return 1;
	}
	if (!terminal) {
		if (run_report(program, part, report, sizeof(report)) < 0)
			return 1;
		fputs(report, stdout);
		return 0;
	}
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	if (keyboard) {
		keys = saved;
		keys.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		tcsetattr(STDIN_FILENO, TCSANOW, &keys);
	}
	do {
		failed = run_report(program, part, report, sizeof(report)) < 0;
		if (failed)
			break;
		/* Drawn at once, so that the screen is never blank. */
		printf(CLEAR_SCREEN "memprof-ctl top: process %ld, every %u s; "
		       "q quits\n\n%s", p->pid, interval, report);
		fflush(stdout);
	} while (!interrupted && !quit_typed(interval, keyboard) && !interrupted &&
		 still_recording(p, part, sizeof(part)));
	if (keyboard)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	return failed ? 1 : 0;
}
