/* ctl-top.c - the top sites of a running process (see ctl-top.h). */
#include "config.h"

#include "ctl-top.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "ctl-stream.h"
#include "ctl-text.h"

#define TOP_SITES "15"
#define CLEAR_SCREEN "\033[H\033[2J"

static volatile sig_atomic_t interrupted;
/* The most of a report shown. */
#define REPORT_SIZE (1 << 16)

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

/* The report's child: the stream as CTL_STREAM_FD, the user's ids, its
 * output to the pipe and its messages (warnings: the stream is not
 * finalised, it never is while it runs) to nowhere. */
static void report_child(const char *program, const struct ctl_process *p,
			 int stream, int output)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (null < 0 || dup2(output, STDOUT_FILENO) < 0 ||
	    dup2(null, STDERR_FILENO) < 0 || ctl_stream_child(p, stream) < 0)
		_exit(127);
	execlp(program, program, "--running", "--at", "end", "--growth",
	       "--top", TOP_SITES, CTL_STREAM_PATH, (char *)NULL);
	_exit(127);
}

/* One report of process p's stream, open at `stream`, into out
 * (NUL-terminated, cut at size).  -1, with a message on stderr, when it
 * cannot be run or fails: its output is then no report. */
static int run_report(const char *program, const struct ctl_process *p,
		      int stream, char *out, size_t size)
{
	char drain[4096], shown[CTL_ESCAPED_SIZE(PATH_MAX)];
	size_t used = 0;
	ssize_t n;
	pid_t child;
	int pipe_fds[2], status = -1;

	if (pipe2(pipe_fds, O_CLOEXEC) < 0)
		goto failed;
	child = fork();
	if (child == 0)
		report_child(program, p, stream, pipe_fds[1]);
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
	fprintf(stderr, "memprof-ctl: %s could not report on %s, the stream "
		"of process %ld (run it for the reason)\n", program,
		ctl_escaped(p->page.part, shown, sizeof(shown)), p->pid);
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

static bool still_recording(const struct ctl_process *p)
{
	struct ctl_process now;
	char why[256];

	return ctl_registry_find(p->pid, &now, why, sizeof(why)) == 0 &&
	       now.page.state == CONTROL_RECORDING;
}

/* The process's entry as it is now, in now, and its stream opened
 * (ctl-stream.h); -1 with a message on stderr when it stopped recording
 * or its stream is refused, -2 when it records but has taken no sample
 * yet (its stream is made with the first). */
static int open_stream(const struct ctl_process *p, struct ctl_process *now)
{
	char why[512], shown[CTL_ESCAPED_SIZE(512)];
	struct stat st;
	int stream;

	if (ctl_registry_find(p->pid, now, why, sizeof(why)) < 0 ||
	    now->page.state != CONTROL_RECORDING) {
		fprintf(stderr, "memprof-ctl: process %ld is not recording "
			"(memprof-ctl start %ld begins)\n", p->pid, p->pid);
		return -1;
	}
	if (!now->page.part[0])
		return -2;
	if ((stream = ctl_stream_open(now, &st, why, sizeof(why))) < 0)
		fprintf(stderr, "memprof-ctl: %s\n",
			ctl_escaped(why, shown, sizeof(shown)));
	return stream;
}

/* One report of what the process's stream holds now; -1 when there is
 * none (the message said why). */
static int report_now(const char *program, const struct ctl_process *p,
		      char *out, size_t size)
{
	static char said[REPORT_SIZE];
	struct ctl_process now;
	int stream = open_stream(p, &now), rc;

	if (stream == -2) {
		snprintf(out, size, "process %ld is recording, and has taken "
			 "no sample yet\n", p->pid);
		return 0;
	}
	if (stream < 0)
		return -1;
	rc = run_report(program, &now, stream, said, sizeof(said));
	close(stream);
	ctl_stream_named(&now, said, out, size);
	return rc;
}

int ctl_top(const struct ctl_process *p, unsigned interval)
{
	struct sigaction stop = { .sa_handler = on_signal };
	struct termios saved, keys;
	bool terminal = isatty(STDOUT_FILENO);
	bool keyboard = terminal && tcgetattr(STDIN_FILENO, &saved) == 0;
	char program[PATH_MAX];
	static char report[REPORT_SIZE];
	bool failed;

	ctl_report_program(program, sizeof(program));
	if (!terminal) {
		if (report_now(program, p, report, sizeof(report)) < 0)
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
		failed = report_now(program, p, report, sizeof(report)) < 0;
		if (failed)
			break;
		/* Drawn at once, so that the screen is never blank. */
		printf(CLEAR_SCREEN "memprof-ctl top: process %ld, every %u s; "
		       "q quits\n\n%s", p->pid, interval, report);
		fflush(stdout);
	} while (!interrupted && !quit_typed(interval, keyboard) && !interrupted &&
		 still_recording(p));
	if (keyboard)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	return failed ? 1 : 0;
}
