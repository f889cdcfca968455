/* ctl-stream.h - the streamed profile of a recording process, opened
 * once and checked: the one way memprof-ctl reaches a stream.
 *
 * Contract: the registry entry names the stream, and the process's user
 * writes both, so the name is only a suggestion.  ctl_stream_open()
 * opens it as that user (ctl-user.h), without following a final
 * symbolic link or blocking, and keeps it only when it is a regular file
 * of that user's; everything after works through the descriptor, never
 * by the name again.  A report on it runs in a child: ctl_stream_child()
 * makes the descriptor CTL_STREAM_FD there and drops the child to the
 * process's user, so that memprof-report reads CTL_STREAM_PATH, and what
 * the stream names (the modules it symbolizes), as that user;
 * ctl_stream_named() gives the stream its name back in what the report
 * says.
 */
#ifndef SPPROF_CTL_STREAM_H
#define SPPROF_CTL_STREAM_H

#include <stddef.h>
#include <sys/stat.h>

#include "ctl-registry.h"

#define CTL_STREAM_FD 3
#define CTL_STREAM_PATH "/proc/self/fd/3"

/* A descriptor of p's stream, with *st; or -1 with why set. */
int ctl_stream_open(const struct ctl_process *p, struct stat *st, char *why,
		    size_t size);

/* In a child: 0, or -1 with errno set (it must not go on then). */
int ctl_stream_child(const struct ctl_process *p, int stream);

/* text, what memprof-report said of CTL_STREAM_PATH, into out with the
 * stream's own name (escaped) in its place. */
void ctl_stream_named(const struct ctl_process *p, const char *text,
		      char *out, size_t size);

#endif /* SPPROF_CTL_STREAM_H */
