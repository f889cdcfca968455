/* ctl-serve-profile.h - the gzip pprof of a live profile, or the profile
 * with its symbols inside, for one HTTP request of memprof-ctl serve.
 *
 * Contract: ctl_serve_profile() writes the profile of a recording
 * process's stream, open at `stream` (ctl-stream.h), exactly as
 * `memprof-report --format=pprof` does (or `memprof-report --symbolize`,
 * the stream as it is with the symbols of its frames, as the process's
 * user can read its binaries), by running memprof-report on that
 * descriptor as the process's user, into an unnamed temporary file: the
 * replay and the symbolization happen in that child, so the server's
 * memory stays the same whatever the size of the profile, and a stream
 * that breaks the reader cannot break the server.  With seconds > 0 it
 * is the difference between two readings `seconds` apart (what was
 * allocated meanwhile, and the change of what is live), as a profile
 * with a base (`memprof-report --base`): the first reading is the
 * stream as it was when the request came, its bytes up to where its
 * writer had written (remembered by their length) then zeros for its
 * unwritten tail, fed to the report through a pipe when it runs, so that
 * a request holds no copy of the stream, in memory or on disk, however
 * large it is (what the runtime wrote stays as it is, and a stream
 * replaced by a checkpoint stays open here as it was).  The wait ends early, with 503, when
 * stop_fd becomes readable; a report is killed then, or after 120 s.
 * The stream is only read; the process is not asked anything.
 */
#ifndef SPPROF_CTL_SERVE_PROFILE_H
#define SPPROF_CTL_SERVE_PROFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "ctl-registry.h"

/* What is served: memprof-report's output with one of its options. */
enum ctl_profile_format {
	CTL_PROFILE_PPROF, /* --format=pprof */
	CTL_PROFILE_MLYZE, /* --symbolize: a .mlyze carrying its symbols */
};

struct ctl_served_profile {
	int fd;     /* the gzip pprof, from offset 0 */
	off_t size;
};

/* 0 with *out set (close out->fd), or an HTTP status (4xx, 5xx) with a
 * one-line reason in why.  The stream is not closed.  seconds > 0 is for
 * CTL_PROFILE_PPROF only. */
int ctl_serve_profile(const struct ctl_process *p, int stream,
		      enum ctl_profile_format format, unsigned seconds,
		      int stop_fd,
		      struct ctl_served_profile *out, char *why, size_t size);

#endif /* SPPROF_CTL_SERVE_PROFILE_H */
