/* wrap-publish.c - publishing a profile a process handed over.
 * See wrap-publish.h for the contract. */
#include "config.h"

#include "wrap-output.h"
#include "wrap-publish.h"
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

/* Whether process pid descends from this one (it is of the command's
 * tree, orphans adopted here included). */
static bool in_tree(pid_t pid)
{
	for (int depth = 0; pid > 1 && depth < 4096; depth++) {
		char path[64], stat[512];
		const char *close_paren;
		ssize_t n;
		int fd;

		if (pid == getpid())
			return true;
		snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? read(fd, stat, sizeof stat - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return false;
		stat[n] = '\0';
		/* "pid (name) state ppid ...": the name may hold anything. */
		close_paren = strrchr(stat, ')');
		if (close_paren == NULL ||
		    sscanf(close_paren + 1, " %*c %d", &pid) != 1)
			return false;
	}
	return false;
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
	    !in_tree(who.pid) || strlen(pattern) >= sizeof files.pattern)
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
		   const char *pattern)
{
	static const char suffix[] = ".part";
	struct profile_files files = { .attempt = 0 };
	size_t length = strlen(part);
	char final[PATH_MAX];
	int unnamed, err;

	if (length <= sizeof suffix - 1 || length >= sizeof files.part ||
	    strcmp(part + length - (sizeof suffix - 1), suffix) != 0 ||
	    !part_of(part, pattern, sender)) {
		wrap_error("a process handed over a profile it does not "
			   "write: %s", part);
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
