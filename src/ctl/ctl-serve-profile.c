/* ctl-serve-profile.c - the gzip pprof of a live profile (see
 * ctl-serve-profile.h). */
#include "config.h"

#include "ctl-serve-profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl-top.h"

extern char **environ;

/* memprof-report sees the base reading as this descriptor. */
#define BASE_FD 3
#define BASE_PATH "/proc/self/fd/3"
/* The longest a report may take. */
#define REPORT_SECONDS 120

enum { HTTP_CONFLICT = 409, HTTP_INTERNAL_ERROR = 500,
       HTTP_UNAVAILABLE = 503 };

/* An unnamed file in $TMPDIR (or /tmp), gone when closed; -1 with why
 * set. */
static int unnamed_file(char *why, size_t size)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!dir || dir[0] != '/')
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		snprintf(why, size, "cannot make a temporary file in %s: %s",
			 dir, strerror(errno));
	return fd;
}

/* A copy of the stream as it is now, the first of two readings. */
static int copy_stream(const char *part, char *why, size_t size)
{
	struct stat st;
	off_t offset = 0;
	ssize_t n = 1;
	int in = open(part, O_RDONLY | O_CLOEXEC);
	int copy = in < 0 ? -1 : unnamed_file(why, size);

	if (in < 0)
		snprintf(why, size, "%s: %s", part, strerror(errno));
	if (copy < 0 || fstat(in, &st) < 0) {
		if (in >= 0)
			close(in);
		return -1;
	}
	/* Only what was there at the start: the stream goes on growing. */
	while (offset < st.st_size && n > 0)
		n = sendfile(copy, in, &offset, (size_t)(st.st_size - offset));
	close(in);
	if (n < 0) {
		snprintf(why, size, "cannot copy %s: %s", part,
			 strerror(errno));
		close(copy);
		return -1;
	}
	return copy;
}

/* The last line memprof-report wrote on its standard error, in why. */
static void last_error_line(int err, char *why, size_t size)
{
	char text[4096];
	ssize_t n = pread(err, text, sizeof(text) - 1, 0);
	char *line;

	if (n <= 0) {
		snprintf(why, size, "memprof-report failed");
		return;
	}
	text[n] = '\0';
	n = (ssize_t)strlen(text);
	while (n > 0 && text[n - 1] == '\n')
		text[--n] = '\0';
	line = strrchr(text, '\n');
	snprintf(why, size, "%s", line ? line + 1 : text);
}

/* The exit status of memprof-report in *status: 0, or -1 when it was
 * killed, after REPORT_SECONDS or at a stop (stop_fd readable). */
static int wait_report(pid_t child, int stop_fd, int *status)
{
	struct pollfd stop = { .fd = stop_fd, .events = POLLIN };

	for (int waited = 0; waited < REPORT_SECONDS * 10; waited++) {
		pid_t done = waitpid(child, status, WNOHANG);

		if (done == child)
			return 0;
		if ((done < 0 && errno != EINTR) || poll(&stop, 1, 100) > 0)
			break;
	}
	kill(child, SIGKILL);
	while (waitpid(child, status, 0) < 0 && errno == EINTR)
		;
	return -1;
}

/* memprof-report --format=pprof [--base=BASE] part, its output in out and
 * its messages in err.  0, or -1 with why set. */
static int run_report(const char *part, int base, int out, int err,
		      int stop_fd, char *why, size_t size)
{
	char program[PATH_MAX];
	char *argv[] = { program, "--format=pprof",
			 base >= 0 ? "--base=" BASE_PATH : NULL, NULL, NULL };
	posix_spawn_file_actions_t actions;
	pid_t child;
	int status, rc;

	argv[base >= 0 ? 3 : 2] = (char *)part;
	ctl_report_program(program, sizeof(program));
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
					 O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
	if (base >= 0)
		posix_spawn_file_actions_adddup2(&actions, base, BASE_FD);
	rc = posix_spawnp(&child, program, &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (rc != 0) {
		snprintf(why, size, "cannot run %s: %s", program, strerror(rc));
		return -1;
	}
	if (wait_report(child, stop_fd, &status) < 0) {
		snprintf(why, size, "memprof-report took more than %d s, or "
			 "the server is stopping", REPORT_SECONDS);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	last_error_line(err, why, size);
	return -1;
}

/* Waits `seconds`, or until stop_fd is readable: 0, or -1 then. */
static int wait_unless_stopped(unsigned seconds, int stop_fd)
{
	struct pollfd stop = { .fd = stop_fd, .events = POLLIN };
	int n;

	while ((n = poll(&stop, 1, (int)seconds * 1000)) < 0 && errno == EINTR)
		;
	return n == 0 ? 0 : -1;
}

/* The profile of `part` into out, with the base reading when base >= 0.
 * 0, or an HTTP status with why set. */
static int render(const char *part, int base, int stop_fd,
		  struct ctl_served_profile *out, char *why, size_t size)
{
	int err = unnamed_file(why, size);
	int fd = err < 0 ? -1 : unnamed_file(why, size);
	int rc = HTTP_INTERNAL_ERROR;

	if (fd >= 0 && run_report(part, base, fd, err, stop_fd, why, size) == 0) {
		out->fd = fd;
		out->size = lseek(fd, 0, SEEK_END);
		rc = out->size < 0 ? HTTP_INTERNAL_ERROR : 0;
	} else if (access(part, R_OK) < 0) {
		/* The window ended meanwhile: its stream was renamed. */
		snprintf(why, size, "the process stopped recording");
		rc = HTTP_CONFLICT;
	}
	if (rc != 0 && fd >= 0)
		close(fd);
	if (err >= 0)
		close(err);
	return rc;
}

int ctl_serve_profile(const char *part, unsigned seconds, int stop_fd,
		      struct ctl_served_profile *out, char *why, size_t size)
{
	int base, rc;

	if (seconds == 0)
		return render(part, -1, stop_fd, out, why, size);
	if ((base = copy_stream(part, why, size)) < 0)
		return HTTP_INTERNAL_ERROR;
	if (wait_unless_stopped(seconds, stop_fd) < 0) {
		close(base);
		snprintf(why, size, "the server is stopping");
		return HTTP_UNAVAILABLE;
	}
	rc = render(part, base, stop_fd, out, why, size);
	close(base);
	return rc;
}
