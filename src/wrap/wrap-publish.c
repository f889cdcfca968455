/* wrap-publish.c - publishing a profile a process handed over.
 * See wrap-publish.h for the contract. */
#include "config.h"

#include "wrap-publish.h"
#include "wrap-util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "outbuf.h"
#include "profile_files.h"
#include "wrap_channel.h"

/* Copies all of file `from` into `to`: 0 or an errno value. */
static int copy_file(int from, int to)
{
	char buffer[1 << 16];
	off_t offset = 0;
	ssize_t n;
	int err = 0;

	while (err == 0 &&
	       (n = pread(from, buffer, sizeof buffer, offset)) != 0) {
		if (n < 0)
			return errno;
		err = write_all(to, buffer, (size_t)n);
		offset += n;
	}
	return err;
}

void wrap_create_part(int requester, const char *pattern, bool descendant)
{
	struct profile_files files = { .descendant = descendant };
	struct ucred who;
	socklen_t size = sizeof who;
	int fd, err;

	if (getsockopt(requester, SOL_SOCKET, SO_PEERCRED, &who, &size) != 0 ||
	    strlen(pattern) >= sizeof files.pattern)
		return;
	strcpy(files.pattern, pattern);
	files.owner_pid = who.pid;
	fd = profile_files_create_part(&files);
	err = fd < 0				     ? errno
	      : fchown(fd, who.uid, who.gid) != 0 ? errno
						     : channel_answer(requester,
								      files.part, fd);
	if (err != 0) {
		wrap_error("cannot create the profile %s of process %ld: %s",
			   files.part[0] != '\0' ? files.part : pattern,
			   (long)who.pid, strerror(err));
		if (fd >= 0)
			unlink(files.part);
	}
	if (fd >= 0)
		close(fd);
}

char *wrap_publish(const char *part, int fd)
{
	static const char suffix[] = ".part";
	struct profile_files files = { .attempt = 0 };
	size_t length = strlen(part);
	char final[PATH_MAX];
	int unnamed, err;

	if (length <= sizeof suffix - 1 || length >= sizeof files.part ||
	    strcmp(part + length - (sizeof suffix - 1), suffix) != 0) {
		wrap_error("a process handed over a profile with a strange "
			   "name: %s", part);
		return NULL;
	}
	memcpy(files.part, part, length + 1);
	memcpy(files.base, part, length - (sizeof suffix - 1));
	unnamed = profile_files_open_unnamed(&files);
	err = unnamed < 0 ? errno : copy_file(fd, unnamed);
	if (err == 0)
		err = profile_files_publish_unnamed(&files, unnamed, final,
						    sizeof final);
	if (unnamed >= 0)
		close(unnamed);
	if (err != 0) {
		wrap_error("cannot write the profile of %s: %s", part,
			   strerror(err));
		return NULL;
	}
	unlink(part);
	return wrap_format("%s", final);
}
