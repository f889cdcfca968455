/* wrap-publish.h - the files memprof-wrap makes for profiled processes.
 *
 * Contract: a process that started as another user (su, setpriv, a
 * server's own switch before an exec) may not create files in the profile
 * directory at all: wrap_create_part() creates its "<name>.part" for it,
 * named by the runtime's rules from memprof-wrap's PATTERN with the
 * process's id, gives it to the process's user and group (known from the
 * socket REQUESTER it sent, SO_PEERCRED) and sends it there open, with
 * its name.  When it cannot, it says why and sends nothing: closing
 * REQUESTER tells the process.  Other users can see memprof-wrap's
 * socket: only a process of the command's tree is answered.
 *
 * A process that changed its user may no longer create files in
 * the profile directory; the runtime then sends memprof-wrap its final
 * profile as an open descriptor, with the name of its streamed file
 * ("<name>.part"), which must be a file of the SENDER's user in the
 * directory of PATTERN.  wrap_publish() copies it to the first free final name
 * for that streamed file, by the runtime's own naming rules (never over an
 * existing file, never a half-written file under the final name), removes
 * the streamed file and returns the final name; or NULL after saying why.
 * The file handed over must be a regular file of the SENDER's (unless root
 * sent it) no larger than SIZE_MAX (0: no limit), and its holes stay
 * holes: handing a file over fills the disk no more than writing it did.
 */
#ifndef SPPROF_WRAP_PUBLISH_H
#define SPPROF_WRAP_PUBLISH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

void wrap_create_part(int requester, const char *pattern, bool descendant);

char *wrap_publish(const char *part, int fd, uid_t sender,
		   const char *pattern, uint64_t size_max);

#endif
