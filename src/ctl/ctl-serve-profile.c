/* ctl-serve-profile.c - the gzip pprof of a live profile (see
 * ctl-serve-profile.h). */
#include "config.h"

#include "ctl-serve-profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl-stream.h"
#include "ctl-top.h"
#include "ctl-user.h"
#include "report-util.h"
#include "report-view.h"
#include "report-wrappers.h"

/* memprof-report sees the base reading as this descriptor (the stream
 * is CTL_STREAM_FD), and nothing of the server's from the next on. */
#define BASE_FD 4
#define BASE_PATH "/proc/self/fd/4"
#define UNUSED_FD 5
/* The longest a report may take. */
#define REPORT_SECONDS 120

enum {
	HTTP_CONFLICT = 409,
	HTTP_INTERNAL_ERROR = 500,
	HTTP_UNAVAILABLE = 503
};

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
	/* Out of the way of the descriptors it is to become. */
	int moved = fcntl(stream, F_DUPFD, UNUSED_FD);

	if (null < 0 || moved < 0 || dup2(null, STDIN_FILENO) < 0 ||
	    dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0 ||
	    ctl_stream_child(p, moved) < 0 ||
	    (base && base_pipe(base) < 0)) {
		dprintf(err, "cannot prepare memprof-report: %s\n",
			strerror(errno));
		_exit(127);
	}
	/* Nothing else of the server's (its clients' sockets). */
	close_range(UNUSED_FD, ~0u, 0);
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

/* What one report reads, and how it writes it. */
struct report_job {
	enum ctl_profile_format format;
	int stream;
	const struct reading *base;  /* the stream as it was, or NULL */
};

/* memprof-report OPTION [--base=BASE] STREAM, its output in out and its
 * messages in err.  0, or -1 with why set. */
static int run_report(const struct ctl_process *p,
		      const struct report_job *job, int out, int err,
		      int stop_fd, char *why, size_t size)
{
	char program[PATH_MAX];
	char *argv[5] = { program, (char *)report_options[job->format] };
	size_t n = 2;
	pid_t child;
	int status;

	if (job->base)
		argv[n++] = "--base=" BASE_PATH;
	argv[n++] = CTL_STREAM_PATH;
	ctl_report_program(program, sizeof(program));
	child = fork();
	if (child < 0) {
		snprintf(why, size, "cannot run %s: %s", program,
			 strerror(errno));
		return -1;
	}
	if (child == 0)
		report_child(p, job->stream, job->base, out, err, argv);
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

/* The profile of the streams into out, with the base reading when there
 * is one.  0, or an HTTP status with why set. */
static int render(const struct ctl_process *p, const struct report_job *job,
		  int stop_fd, struct ctl_served_profile *out, char *why,
		  size_t size)
{
	int err = unnamed_file(why, size);
	int fd = err < 0 ? -1 : unnamed_file(why, size);
	int rc = HTTP_INTERNAL_ERROR;

	if (fd >= 0 && run_report(p, job, fd, err, stop_fd, why, size) == 0) {
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
	struct report_job job = { format, stream, NULL };
	struct reading base;
	struct stat st;

	if (seconds == 0)
		return render(p, &job, stop_fd, out, why, size);
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
	job.base = &base;
	return render(p, &job, stop_fd, out, why, size);
}

/* What the replays of one request make: the stacks of its streams,
 * merged as memprof-report merges them, and what the header of a pprof
 * file says of each profile. */
struct followed_profiles {
	struct ctl_follow_cache *cache;
	const struct ctl_process *process; /* the one replayed now */
	int stream;
	struct stat st;
	struct frame_namer *namer; /* of its user */
	bool by_process;
	struct stack_table stacks;
	struct profile_summary *profiles;
	size_t count;
	char *why;
	size_t size;
};

/* As memprof-report's reading of one profile, for the pprof view. */
static void add_profile(void *ctx, const mlyze_reader *r,
			const struct heap_replay *h)
{
	struct followed_profiles *f = ctx;
	const struct mlyze_info *info = mlyze_info(r);
	uint64_t end = heap_replay_end_us(r, h);
	struct profile_summary *s = &f->profiles[f->count++];

	s->start_time_us = info->start_time_us;
	s->duration_s = end > info->start_time_us
				? (double)(end - info->start_time_us) / 1e6
				: 0.0;
	s->sampling_rate = info->sampling_rate;
	if (f->by_process)
		f->stacks.pid = info->pid;
	free(stacks_add_profile(&f->stacks, f->namer, r, h));
}

/* For ctl_as_user(): the replay of the stream of f->process. */
static int replay_followed(void *ctx)
{
	struct followed_profiles *f = ctx;

	return ctl_follow_replay(f->cache, f->process, f->stream, &f->st, 0,
				 add_profile, f, f->why, f->size);
}

/* The pprof view of what f gathered (its wrappers marked) into a new
 * unnamed file: 0, or an HTTP status with why set. */
static int write_pprof(struct followed_profiles *f,
		       struct ctl_served_profile *out, char *why, size_t size)
{
	/* memprof-report --format=pprof's defaults: live bytes at the
	 * peak. */
	struct report report = { .profiles = f->profiles,
				 .profile_count = f->count,
				 .stacks = &f->stacks,
				 .sort = SORT_BY_LIVE,
				 .at = AT_PEAK };
	int fd = unnamed_file(why, size);
	/* The FILE closes a descriptor of its own: fd is the answer's. */
	int copy = fd < 0 ? -1 : dup(fd);
	FILE *file = copy < 0 ? NULL : fdopen(copy, "w");
	bool failed = !file || view_pprof(file, &report) < 0;

	if (fd < 0)
		return HTTP_INTERNAL_ERROR;
	if (file)
		failed |= fclose(file) != 0;
	else if (copy >= 0)
		close(copy);
	out->fd = fd;
	out->size = lseek(fd, 0, SEEK_END);
	if (!failed && out->size >= 0)
		return 0;
	snprintf(why, size, "cannot write the profile: %s", strerror(errno));
	close(fd);
	return HTTP_INTERNAL_ERROR;
}

int ctl_serve_followed(struct ctl_follow_cache *c,
		       const struct ctl_process *procs, const int *streams,
		       size_t count, bool by_process,
		       struct ctl_served_profile *out, char *why, size_t size)
{
	struct followed_profiles f = {
		.cache = c, .by_process = by_process, .why = why,
		.size = size,
		.profiles = xcalloc(count ? count : 1, sizeof(*f.profiles)),
	};
	int rc = 0;

	why[0] = '\0';
	if (count == 0 || count > CTL_SERVE_STREAMS_MAX) {
		snprintf(why, size, "%zu processes: 1 to %d are merged", count,
			 CTL_SERVE_STREAMS_MAX);
		rc = HTTP_CONFLICT;
	}
	stacks_init(&f.stacks);
	for (size_t i = 0; i < count && rc == 0; i++) {
		f.process = &procs[i];
		f.stream = streams[i];
		/* The modules one user could read are named for that user's
		 * processes only, and read as that user. */
		f.namer = ctl_follow_namer(c, procs[i].uid, procs[i].gid);
		if (fstat(streams[i], &f.st) < 0) {
			snprintf(why, size, "the stream of process %ld: %s",
				 procs[i].pid, strerror(errno));
			rc = HTTP_INTERNAL_ERROR;
		} else if (ctl_as_user(procs[i].uid, procs[i].gid,
				       replay_followed, &f) < 0) {
			if (errno == EPERM && !why[0])
				snprintf(why, size, "cannot act as uid %u",
					 (unsigned)procs[i].uid);
			rc = HTTP_INTERNAL_ERROR;
		}
	}
	if (rc == 0) {
		wrappers_mark(&f.stacks);
		rc = write_pprof(&f, out, why, size);
	}
	stacks_free(&f.stacks);
	free(f.profiles);
	return rc;
}
