/* wrap-publish.c - publishing a profile a process handed over.
 * See wrap-publish.h for the contract. */
#include "config.h"

#include "wrap-output.h"
#include "wrap-publish.h"
#include "wrap-sender.h"
#include "wrap-util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outbuf.h"
#include "profile_files.h"
#include "wrap_channel.h"

/* Copies bytes [start, end) of file `from` to the same place in `to`:
 * 0 or an errno value. */
static int copy_range(int from, int to, off_t start, off_t end)
{
	char buffer[1 << 16];
	ssize_t n;
	int err = 0;

	for (off_t offset = start; err == 0 && offset < end; offset += n) {
		size_t most = (size_t)(end - offset) < sizeof buffer
				      ? (size_t)(end - offset) : sizeof buffer;

		n = pread(from, buffer, most, offset);
		if (n <= 0)
			return n < 0 ? errno : 0; /* cut short meanwhile */
		err = pwrite_all(to, buffer, (size_t)n, (uint64_t)offset);
	}
	return err;
}

/* Copies the first SIZE bytes of file `from` into `to`, its holes left
 * holes, so that a sparse file costs no more disk than it holds data:
 * 0 or an errno value. */
static int copy_file(int from, int to, off_t size)
{
	off_t offset = 0;
	int err = 0;

	while (err == 0 && offset < size) {
		off_t data = lseek(from, offset, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break; /* a hole to the end */
		if (data < 0) /* no SEEK_DATA here: all of it is data */
			data = offset, hole = size;
		else if ((hole = lseek(from, data, SEEK_HOLE)) < 0 || hole > size)
			hole = size;
		err = copy_range(from, to, data, hole);
		offset = hole;
	}
	if (err == 0 && ftruncate(to, size) != 0)
		err = errno;
	return err;
}

/* Why the file open on fd cannot be a profile that user UID hands over,
 * or NULL: it must be a regular file of that user's (root may hand over
 * any), within the profile's size limit SIZE_MAX (0: none). */
static const char *handed_file_problem(int fd, uid_t uid, uint64_t size_max,
				       off_t *size)
{
	struct stat status;

	if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode))
		return "not a regular file";
	if (status.st_uid != uid && uid != 0)
		return "a file of another user";
	if (size_max != 0 && (uint64_t)status.st_size > size_max)
		return "larger than the profile's size limit";
	*size = status.st_size;
	return NULL;
}

/* Whether part lies in the profiles' directory, the one of pattern, and
 * is a file of user uid's (the sender's real user, which the kernel
 * vouches for; root may hand over any). */
static bool part_of(const char *part, const char *pattern, uid_t uid)
{
	const char *slash = strrchr(pattern, '/');
	char *directory = slash != NULL
				  ? wrap_literal_path(pattern,
						      (size_t)(slash - pattern))
				  : NULL;
	size_t length = directory != NULL ? strlen(directory) : 0;
	struct stat status;
	bool ok = directory != NULL && strncmp(part, directory, length) == 0 &&
		  part[length] == '/' && strchr(part + length + 1, '/') == NULL &&
		  lstat(part, &status) == 0 && S_ISREG(status.st_mode) &&
		  (status.st_uid == uid || uid == 0);

	free(directory);
	return ok;
}

void wrap_create_part(int requester, const char *pattern, bool descendant)
{
	struct profile_files files = { .descendant = descendant };
	struct ucred who;
	socklen_t size = sizeof who;
	int fd, err;

	/* Only for the command's processes, which wait for the answer. */
	if (getsockopt(requester, SOL_SOCKET, SO_PEERCRED, &who, &size) != 0 ||
	    !wrap_sender_in_tree(who.pid) || strlen(pattern) >= sizeof files.pattern)
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

char *wrap_publish(const char *part, int fd, uid_t sender,
		   const char *pattern, uint64_t size_max)
{
	static const char suffix[] = ".part";
	struct profile_files files = { .attempt = 0 };
	size_t length = strlen(part);
	char final[PATH_MAX];
	const char *problem;
	off_t size = 0;
	int unnamed, err;

	if (length <= sizeof suffix - 1 || length >= sizeof files.part ||
	    strcmp(part + length - (sizeof suffix - 1), suffix) != 0 ||
	    !part_of(part, pattern, sender)) {
		wrap_error("a process handed over a profile it does not "
			   "write: %s", part);
		return NULL;
	}
	problem = handed_file_problem(fd, sender, size_max, &size);
	if (problem != NULL) {
		wrap_error("the profile handed over for %s is %s; it is not "
			   "published", part, problem);
		return NULL;
	}
	memcpy(files.part, part, length + 1);
	memcpy(files.base, part, length - (sizeof suffix - 1));
	unnamed = profile_files_open_unnamed(&files);
	err = unnamed < 0 ? errno : copy_file(fd, unnamed, size);
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
