/* ctl-serve-profile.h - the gzip pprof of a live profile, or the profile
 * with its symbols inside, for one HTTP request of memprof-ctl serve.
 *
 * Contract: ctl_serve_profile() writes the profile of a recording
 * process's stream, open at `stream` (ctl-stream.h), exactly as
 * `memprof-report --format=pprof` does (or `memprof-report --symbolize`,
 * the stream as it is with the symbols of its frames, as the process's
 * user can read its binaries), by running memprof-report on that
 * descriptor as the process's user, into an unnamed temporary file: the
 * replay and the symbolization happen in that child, which replays the
 * whole stream.  A pprof of the stream now is better made by
 * ctl_serve_followed(), below, which takes up the replay kept since the
 * last request; these serve what that cannot: with seconds > 0 it
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

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ctl-follow.h"
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

/* The most processes of one service merged into one profile. */
#define CTL_SERVE_STREAMS_MAX 64

/* The same profile as ctl_serve_profile() with CTL_PROFILE_PPROF and no
 * seconds (count 1, by_process false), or that of the processes of one
 * service (by_process true: as `memprof-report --label-pid` on all their
 * streams, merged by symbol, each sample labelled with its process's
 * pid; at most CTL_SERVE_STREAMS_MAX, all of one user), made in this
 * process from the replays that c keeps
 * (ctl-follow.h), each taken up where the last request, of a profile or
 * of the metrics, left it, and symbolized with the namer c keeps for its
 * user, as that user: a request reads what the streams gained since the
 * last one, not the whole run.  The stacks are merged and written by
 * memprof-report's own code (report-stacks.h, report-pprof.c), so the
 * file is the one memprof-report writes of the streams now.  The
 * streams are not closed; one caller at a time uses c. */
int ctl_serve_followed(struct ctl_follow_cache *c,
		       const struct ctl_process *procs, const int *streams,
		       size_t count, bool by_process,
		       struct ctl_served_profile *out, char *why, size_t size);

#endif /* SPPROF_CTL_SERVE_PROFILE_H */
