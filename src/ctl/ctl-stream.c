/* ctl-stream.c - the streamed profile of a recording process (see
 * ctl-stream.h). */
#include "config.h"

#include "ctl-stream.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl-text.h"
#include "ctl-user.h"

int ctl_stream_open(const struct ctl_process *p, struct stat *st, char *why,
		    size_t size)
{
	char problem[256];
	int fd;

	if (p->page.state != CONTROL_RECORDING || !p->page.part[0]) {
		snprintf(why, size, "process %ld is not recording (memprof-ctl "
			 "start %ld)", p->pid, p->pid);
		return -1;
	}
	fd = ctl_open_users_file(p->uid, p->gid, p->page.part, st, problem,
				 sizeof(problem));
	if (fd < 0)
		snprintf(why, size, "the stream of process %ld is refused: %s",
			 p->pid, problem);
	return fd;
}

int ctl_stream_child(const struct ctl_process *p, int stream)
{
	/* dup2() leaves the copy open across exec; the descriptor that is
	 * the number already must be told so. */
	if (stream != CTL_STREAM_FD ? dup2(stream, CTL_STREAM_FD) < 0
				    : fcntl(stream, F_SETFD, 0) < 0)
		return -1;
	return ctl_become(p->uid, p->gid);
}

void ctl_stream_named(const struct ctl_process *p, const char *text,
		      char *out, size_t size)
{
	char name[CTL_ESCAPED_SIZE(PATH_MAX)];
	const char *at = strstr(text, CTL_STREAM_PATH);

	if (!at) {
		snprintf(out, size, "%s", text);
		return;
	}
	snprintf(out, size, "%.*s%s%s", (int)(at - text), text,
		 ctl_escaped(p->page.part, name, sizeof(name)),
		 at + strlen(CTL_STREAM_PATH));
}
