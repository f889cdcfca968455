/* ctl-serve-profile.c - the gzip pprof of a live profile (see
 * ctl-serve-profile.h). */
#include "config.h"

#include "ctl-serve-profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl-stream.h"
#include "ctl-top.h"

/* memprof-report sees the base reading as this descriptor (the stream
 * is CTL_STREAM_FD). */
#define BASE_FD 4
#define BASE_PATH "/proc/self/fd/4"
/* The longest a report may take. */
#define REPORT_SECONDS 120

enum { HTTP_INTERNAL_ERROR = 500, HTTP_UNAVAILABLE = 503 };

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

/* A streamed file is extended ahead of its writer, and the zero bytes
 * past what was written, its unwritten tail (mlyze(5)), are written into
 * later: the stream as it was is its bytes up to the last non-zero one,
 * then zeros.  The tail is looked for this far back (a writer's window
 * is 1 MiB), and at most this many of its zeros are given to the report,
 * fewer than its reader buffers, so that it knows them as the tail. */
#define TAIL_SCAN (2 << 20)
#define TAIL_ZEROS (64 << 10)

/* Where the written part of the stream's first `length` bytes ends. */
static off_t written_length(int stream, off_t length)
{
	unsigned char chunk[4096];
	off_t end = length, floor = length > TAIL_SCAN ? length - TAIL_SCAN : 0;

	while (end > floor) {
		size_t want = (size_t)(end - floor) < sizeof(chunk)
				      ? (size_t)(end - floor)
				      : sizeof(chunk);

		if (pread(stream, chunk, want, end - (off_t)want) != (ssize_t)want)
			return end;
		for (size_t i = want; i > 0; i--)
			if (chunk[i - 1])
				return end - (off_t)want + (off_t)i;
		end -= (off_t)want;
	}
	return floor;
}

/* Writes n bytes of buffer to `to`: 0, or -1. */
static int write_all(int to, const char *buffer, size_t n)
{
	ssize_t written;

	for (size_t done = 0; done < n; done += (size_t)written)
		if ((written = write(to, buffer + done, n - done)) <= 0)
			return -1;
	return 0;
}

/* Writes the stream as it was to `to`: its first `written` bytes, then
 * `zeros` zero bytes. */
static void feed(int to, off_t written, size_t zeros)
{
	static char buffer[65536];
	off_t at = 0;
	ssize_t n = 1;

	while (at < written && n > 0) {
		size_t want = (size_t)(written - at) < sizeof(buffer)
				      ? (size_t)(written - at)
				      : sizeof(buffer);

		n = pread(CTL_STREAM_FD, buffer, want, at);
		if (n > 0 && write_all(to, buffer, (size_t)n) < 0)
			return;
		at += n > 0 ? n : 0;
	}
	memset(buffer, 0, sizeof(buffer));
	for (size_t k = 0; at == written && k < zeros; k += sizeof(buffer))
		if (write_all(to, buffer, zeros - k < sizeof(buffer)
						 ? zeros - k
						 : sizeof(buffer)) < 0)
			return;
}

/* The stream as it was when a request came. */
struct reading {
	off_t written; /* its bytes up to here */
	size_t zeros;  /* then its unwritten tail, as far as it matters */
};

/* In the report's child, as the user: BASE_FD is a pipe that a child of
 * its own fills with the stream as it was.  0, or -1. */
static int base_pipe(const struct reading *base)
{
	int ends[2];
	pid_t feeder;

	if (pipe(ends) < 0)
		return -1;
	feeder = fork();
	if (feeder == 0) {
		close(ends[0]);
		feed(ends[1], base->written, base->zeros);
		_exit(0);
	}
	close(ends[1]);
	if (feeder < 0 || dup2(ends[0], BASE_FD) < 0)
		return -1;
	if (ends[0] != BASE_FD)
		close(ends[0]);
	return 0;
}

/* The last line memprof-report wrote on its standard error, in why,
 * with the stream's own name. */
static void last_error_line(const struct ctl_process *p, int err, char *why,
			    size_t size)
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
	ctl_stream_named(p, line ? line + 1 : text, why, size);
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

/* The report's child: its descriptors, the user's ids, the program. */
static void report_child(const struct ctl_process *p, int stream,
			 const struct reading *base, int out, int err,
			 char **argv)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (null < 0 || dup2(null, STDIN_FILENO) < 0 ||
	    dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0 ||
	    ctl_stream_child(p, stream) < 0 ||
	    (base && base_pipe(base) < 0)) {
		dprintf(err, "cannot prepare memprof-report: %s\n",
			strerror(errno));
		_exit(127);
	}
	/* Nothing else of the server's (its clients' sockets). */
	close_range(BASE_FD + 1, ~0u, 0);
	execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

/* The option of memprof-report that writes each format. */
static const char *const report_options[] = {
	[CTL_PROFILE_PPROF] = "--format=pprof",
	[CTL_PROFILE_MLYZE] = "--symbolize",
};

/* memprof-report OPTION [--base=BASE] STREAM, its output in out and its
 * messages in err; the base is the stream as it was (none when NULL).
 * 0, or -1 with why set. */
static int run_report(const struct ctl_process *p, int stream,
		      enum ctl_profile_format format,
		      const struct reading *base, int out, int err,
		      int stop_fd, char *why, size_t size)
{
	char program[PATH_MAX];
	char *argv[] = { program, (char *)report_options[format],
			 base ? "--base=" BASE_PATH : NULL, NULL, NULL };
	pid_t child;
	int status;

	argv[base ? 3 : 2] = CTL_STREAM_PATH;
	ctl_report_program(program, sizeof(program));
	child = fork();
	if (child < 0) {
		snprintf(why, size, "cannot run %s: %s", program,
			 strerror(errno));
		return -1;
	}
	if (child == 0)
		report_child(p, stream, base, out, err, argv);
	if (wait_report(child, stop_fd, &status) < 0) {
		snprintf(why, size, "memprof-report took more than %d s, or "
			 "the server is stopping", REPORT_SECONDS);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	last_error_line(p, err, why, size);
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

/* The profile of the stream into out, with the base reading when there
 * is one.  0, or an HTTP status with why set. */
static int render(const struct ctl_process *p, int stream,
		  enum ctl_profile_format format, const struct reading *base,
		  int stop_fd, struct ctl_served_profile *out, char *why,
		  size_t size)
{
	int err = unnamed_file(why, size);
	int fd = err < 0 ? -1 : unnamed_file(why, size);
	int rc = HTTP_INTERNAL_ERROR;

	if (fd >= 0 && run_report(p, stream, format, base, fd, err, stop_fd,
				  why, size) == 0) {
		out->fd = fd;
		out->size = lseek(fd, 0, SEEK_END);
		rc = out->size < 0 ? HTTP_INTERNAL_ERROR : 0;
	}
	if (rc != 0 && fd >= 0)
		close(fd);
	if (err >= 0)
		close(err);
	return rc;
}

int ctl_serve_profile(const struct ctl_process *p, int stream,
		      enum ctl_profile_format format, unsigned seconds,
		      int stop_fd,
		      struct ctl_served_profile *out, char *why, size_t size)
{
	struct reading base;
	struct stat st;

	if (seconds == 0)
		return render(p, stream, format, NULL, stop_fd, out, why,
			      size);
	/* The first reading: only what there is now. */
	if (fstat(stream, &st) < 0) {
		snprintf(why, size, "the stream of process %ld: %s", p->pid,
			 strerror(errno));
		return HTTP_INTERNAL_ERROR;
	}
	base.written = written_length(stream, st.st_size);
	base.zeros = (size_t)(st.st_size - base.written) < TAIL_ZEROS
			     ? (size_t)(st.st_size - base.written)
			     : TAIL_ZEROS;
	if (wait_unless_stopped(seconds, stop_fd) < 0) {
		snprintf(why, size, "the server is stopping");
		return HTTP_UNAVAILABLE;
	}
	return render(p, stream, format, &base, stop_fd, out, why, size);
}
