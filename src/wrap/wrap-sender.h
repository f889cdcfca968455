/* wrap-sender.h - who may talk to memprof-wrap's socket.
 *
 * Contract: the socket is in the abstract namespace, which every local
 * user sees.  A datagram is heard only from the command's processes: it
 * carries the key of SPPROF_MANIFEST (wrap-message.h), which only they and
 * their users can read in their environment, and the kernel's credentials
 * of its sender (SCM_CREDENTIALS), whose process, while it runs, must
 * descend from memprof-wrap (the command's tree, orphans adopted here
 * included).  A sender that has ended (a short process's last lines
 * arrive after it) is judged by the key alone.
 */
#ifndef SPPROF_WRAP_SENDER_H
#define SPPROF_WRAP_SENDER_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Whether process PID descends from this one. */
bool wrap_sender_in_tree(pid_t pid);

/* Whether a datagram with the right key, sent by SENDER (pid 0 when the
 * kernel gave no credentials), is heard. */
bool wrap_sender_heard(const struct ucred *sender);

#endif
