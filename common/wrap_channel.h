/* wrap_channel.h - the lines the runtime sends to memprof-wrap.
 *
 * Contract: SPPROF_MANIFEST names where the runtime reports its profiles
 * (profile_files.h) and its messages.  "@NAME#KEY" is the datagram socket
 * memprof-wrap listens on, in the abstract namespace: no file and no
 * permission stand in the way, so a process that changed its user, its
 * group or its root still reaches it.  Every local user sees the name;
 * each datagram starts with KEY and a space, which only the processes
 * memprof-wrap runs know (from their environment).  Anything else is a file the lines
 * are appended to (a program run without memprof-wrap).  Each line goes
 * whole, in one datagram or one append; over the socket a descriptor may
 * go with it, and a request may wait for an answer.  The channel's own
 * descriptors are open only inside a call,
 * close-on-exec, so the program never sees it.  Nothing here allocates.
 */
#ifndef SPPROF_WRAP_CHANNEL_H
#define SPPROF_WRAP_CHANNEL_H

#include <stddef.h>

/* Whether target is memprof-wrap's socket. */
int channel_is_wrap(const char *target);

/* Sends line (n bytes, ending in '\n') to target, with the descriptor
 * pass_fd when it is not -1 (only to memprof-wrap).  0, or an errno value:
 * ECONNREFUSED once memprof-wrap has ended. */
int channel_send(const char *target, const char *line, size_t n,
		 int pass_fd);

/* Sends line to memprof-wrap with one end of a new socket pair, and waits
 * (a few seconds at most) for its answer on the other: a line of text
 * into reply (NUL-terminated) and a descriptor into *reply_fd (-1 when
 * none came).  memprof-wrap learns who asks from the pair itself
 * (SO_PEERCRED).  0, or an errno value. */
int channel_request(const char *target, const char *line, size_t n,
		    char *reply, size_t reply_size, int *reply_fd);

/* memprof-wrap's side: answers a request on the socket that came with
 * it.  0, or an errno value. */
int channel_answer(int requester, const char *text, int pass_fd);

#endif /* SPPROF_WRAP_CHANNEL_H */
