/* ctl-serve-profile.h - the gzip pprof of a live profile, for one HTTP
 * request of memprof-ctl serve.
 *
 * Contract: ctl_serve_profile() writes the profile of a streamed file
 * (a recording process's .part) exactly as `memprof-report
 * --format=pprof` does, by running memprof-report on it, into an
 * unnamed temporary file: the replay and the symbolization happen in that
 * child, so the server's memory stays the same whatever the size of the
 * profile, and a stream that breaks the reader cannot break the server.
 * With seconds > 0 it is the difference between two readings `seconds`
 * apart (what was allocated meanwhile, and the change of what is live),
 * as a profile with a base (`memprof-report --base`): the first reading
 * is a copy of the stream as it was.  The wait ends early, with 503,
 * when stop_fd becomes readable; a report is killed then, or after 120 s.
 * The stream is only read; the process is not asked anything.
 */
#ifndef SPPROF_CTL_SERVE_PROFILE_H
#define SPPROF_CTL_SERVE_PROFILE_H

#include <stddef.h>
#include <sys/types.h>

struct ctl_served_profile {
	int fd;     /* the gzip pprof, from offset 0 */
	off_t size;
};

/* 0 with *out set (close out->fd), or an HTTP status (4xx, 5xx) with a
 * one-line reason in why. */
int ctl_serve_profile(const char *part, unsigned seconds, int stop_fd,
		      struct ctl_served_profile *out, char *why, size_t size);

#endif /* SPPROF_CTL_SERVE_PROFILE_H */
