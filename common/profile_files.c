/* profile_files.c - profile names and the manifest (see profile_files.h). */
#include "config.h"

#include "profile_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outbuf.h"
#include "wrap_channel.h"

/* Names past the first free one that are tried when others take them at
 * the same moment. */
#define NAME_ATTEMPTS 1000
/* Numbered names tried at most: the search takes about 2 log2(n) steps. */
#define NAME_NUMBER_MAX (1u << 30)

/* Copies base into out with ".tag" inserted before a trailing ".mlyze"
 * (or appended); returns -1 when it does not fit. */
static int name_with_tag(char *out, size_t size, const char *base,
			 const char *tag)
{
	static const char ext[] = ".mlyze";
	size_t len = strlen(base), stem = len;
	int n;

	if (len >= sizeof(ext) - 1 &&
	    !strcmp(base + len - (sizeof(ext) - 1), ext))
		stem = len - (sizeof(ext) - 1);
	n = snprintf(out, size, "%.*s.%s%s", (int)stem, base, tag,
		     base + stem);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static int candidate_name(const struct profile_files *f, char *out,
			  size_t size, unsigned attempt)
{
	char tag[16];

	if (attempt == 0)
		return snprintf(out, size, "%s", f->base) < (int)size ? 0 : -1;
	snprintf(tag, sizeof(tag), "%u", attempt);
	return name_with_tag(out, size, f->base, tag);
}

/* Expands %p and %% into f->base. */
static int expand_pattern(struct profile_files *f)
{
	char expanded[PATH_MAX], pid[16];
	size_t n = 0;
	int has_pid = 0;

	snprintf(pid, sizeof(pid), "%ld",
		 f->owner_pid ? f->owner_pid : (long)getpid());
	for (const char *p = f->pattern; *p && n < sizeof(expanded) - 16;
	     p++) {
		if (p[0] == '%' && p[1] == 'p') {
			n += (size_t)snprintf(expanded + n, 16, "%s", pid);
			has_pid = 1;
			p++;
		} else {
			expanded[n++] = *p;
			if (p[0] == '%' && p[1] == '%')
				p++;
		}
	}
	expanded[n] = '\0';
	if (f->descendant && !has_pid)
		return name_with_tag(f->base, sizeof(f->base), expanded, pid);
	memcpy(f->base, expanded, n + 1);
	return 0;
}

/* Whether attempt k's name is taken, by a finished profile or a streamed
 * one; the name goes to candidate and its .part to f->part.  -1 when it
 * does not fit. */
static int name_taken(struct profile_files *f, unsigned k, char *candidate,
		      size_t size)
{
	if (candidate_name(f, candidate, size, k) < 0 ||
	    (size_t)snprintf(f->part, sizeof(f->part), "%s.part", candidate) >=
		    sizeof(f->part))
		return -1;
	return access(candidate, F_OK) == 0 || access(f->part, F_OK) == 0;
}

/* The first attempt whose name is free, on the assumption that the taken
 * ones come first (as this search makes them): doubling, then halving, so
 * that a directory with thousands of profiles of one name costs a few
 * dozen lookups, not thousands.  -1 when names do not fit. */
static long first_free_attempt(struct profile_files *f, char *candidate,
			       size_t size)
{
	unsigned lo = 0, hi = 1; /* lo taken; hi taken or not */
	int taken = name_taken(f, 0, candidate, size);

	if (taken <= 0)
		return taken;
	while ((taken = name_taken(f, hi, candidate, size)) > 0 &&
	       hi < NAME_NUMBER_MAX) {
		lo = hi;
		hi *= 2;
	}
	if (taken < 0)
		return -1;
	while (hi - lo > 1) { /* lo taken, hi free */
		unsigned mid = lo + (hi - lo) / 2;

		taken = name_taken(f, mid, candidate, size);
		if (taken < 0)
			return -1;
		if (taken)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* Gives a file the name `name` unless a file has it: 0, EEXIST (try the
 * next name) or another errno value. */
typedef int place_fn(const void *file, const char *name);

/* Places a file (made by place) under the first free .part name, in
 * f->part: 0 or an errno value. */
static int claim_part(struct profile_files *f, place_fn *place,
		      const void *file)
{
	char candidate[PATH_MAX];
	long first;
	int err = EEXIST;

	if (expand_pattern(f) < 0 ||
	    (first = first_free_attempt(f, candidate, sizeof(candidate))) < 0)
		return ENAMETOOLONG;
	/* Another process may take the same name meanwhile: the next. */
	for (unsigned k = (unsigned)first;
	     k - first < NAME_ATTEMPTS && err == EEXIST; k++) {
		int taken = name_taken(f, k, candidate, sizeof(candidate));

		if (taken < 0)
			return ENAMETOOLONG;
		if (taken)
			continue; /* never reuse the name of a finished profile */
		err = place(file, f->part);
		f->attempt = k;
	}
	return err;
}

static int create_new(const void *file, const char *name)
{
	int *fd = (int *)file;

	*fd = open(name, PROFILE_FILES_CREATE, 0666);
	return *fd < 0 ? errno : 0;
}

/* Removes `path` when it is a regular file of this process's user, left
 * by a process of ours killed before it could: 0, or -1 with errno set
 * (EEXIST when the file is someone else's, or a link, or not a file).
 * Opened, not followed, to tell: a symbolic link fails with ELOOP, and
 * O_NONBLOCK keeps a FIFO from blocking the program. */
static int remove_own_leftover(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				    O_CLOEXEC);
	int ours = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		   st.st_uid == geteuid();

	if (fd >= 0)
		close(fd);
	if (!ours) {
		errno = EEXIST;
		return -1;
	}
	/* Another entry put there meanwhile is removed, never followed:
	 * the directory is one its putter may remove entries from anyway. */
	return unlink(path);
}

int profile_files_create_fresh(const char *path)
{
	int fd = open(path, PROFILE_FILES_CREATE, 0666);

	if (fd < 0 && errno == EEXIST && remove_own_leftover(path) == 0)
		fd = open(path, PROFILE_FILES_CREATE, 0666);
	return fd;
}

int profile_files_create_part(struct profile_files *f)
{
	int fd = -1, err = claim_part(f, create_new, &fd);

	errno = err;
	return err ? -1 : fd;
}

int profile_files_create_part_by_wrap(struct profile_files *f)
{
	static const char suffix[] = ".part";
	char line[8], part[PATH_MAX];
	size_t length;
	int fd, err;

	snprintf(line, sizeof(line), "C %d\n", f->descendant ? 1 : 0);
	err = channel_request(f->manifest, line, strlen(line), part,
			      sizeof(part), &fd);
	length = strlen(part);
	if (!err && (fd < 0 || length <= sizeof(suffix) - 1))
		err = EPROTO;
	if (err) {
		if (fd >= 0)
			close(fd);
		errno = err;
		return -1;
	}
	memcpy(f->part, part, length + 1);
	memcpy(f->base, part, length - (sizeof(suffix) - 1));
	f->base[length - (sizeof(suffix) - 1)] = '\0';
	f->attempt = 0;
	return fd;
}

/* Places a file under the first free final name, copied into final. */
static int publish(const struct profile_files *f, place_fn *place,
		   const void *file, char *final, size_t size)
{
	for (unsigned k = f->attempt; k - f->attempt < NAME_ATTEMPTS; k++) {
		int err;

		if (candidate_name(f, final, size, k) < 0)
			return ENAMETOOLONG;
		err = place(file, final);
		if (err != EEXIST)
			return err;
	}
	return EEXIST;
}

static int rename_no_replace(const void *file, const char *name)
{
	const char *tmp = file;

	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, name, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return errno;
	/* No RENAME_NOREPLACE on this file system: link + unlink. */
	if (link(tmp, name) < 0)
		return errno;
	unlink(tmp);
	return 0;
}

int profile_files_publish(const struct profile_files *f, const char *tmp,
			  char *final, size_t size)
{
	return publish(f, rename_no_replace, tmp, final, size);
}

/* Links an unnamed file by its /proc entry, or, without /proc, by its
 * descriptor (which needs a privilege). */
static int link_unnamed(const void *file, const char *name)
{
	int fd = *(const int *)file;
	char proc[32];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != ENOENT)
		return errno;
	return linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) == 0 ? 0 : errno;
}

/* An unnamed file (O_TMPFILE) in the directory of path. */
static int open_unnamed_beside(const char *path, int access_mode)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s",
			 (int)(slash == path ? 1 : slash - path), path);
	return open(dir, O_TMPFILE | access_mode | O_CLOEXEC, 0666);
}

int profile_files_open_unnamed_part(struct profile_files *f)
{
	if (expand_pattern(f) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open_unnamed_beside(f->base, O_RDWR);
}

int profile_files_name_part(struct profile_files *f, int fd)
{
	return claim_part(f, link_unnamed, &fd);
}

int profile_files_open_unnamed(const struct profile_files *f)
{
	return open_unnamed_beside(f->part, O_WRONLY);
}

int profile_files_publish_unnamed(const struct profile_files *f, int fd,
				  char *final, size_t size)
{
	return publish(f, link_unnamed, &fd, final, size);
}

/* The line "<kind> <subject>[\t<detail>]\n" into line; its length, or 0
 * when it does not fit. */
static size_t manifest_line(char kind, const char *subject,
			    const char *detail, char *line, size_t size)
{
	int n = snprintf(line, size, "%c %s%s%s\n", kind, subject,
			 detail ? "\t" : "", detail ? detail : "");

	return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}

void profile_files_announce(const struct profile_files *f, char kind,
			    const char *detail)
{
	char line[3 * PATH_MAX];
	size_t n;

	if (f->manifest[0] &&
	    (n = manifest_line(kind, f->part, detail, line, sizeof(line))))
		channel_send(f->manifest, line, n, -1);
}

/* This process's id, as text. */
struct pid_text {
	char text[24];
};

static struct pid_text own_pid(void)
{
	struct pid_text pid;

	snprintf(pid.text, sizeof(pid.text), "%ld", (long)getpid());
	return pid;
}

void profile_files_announce_start(const struct profile_files *f)
{
	profile_files_announce(f, 'P', own_pid().text);
}

void profile_files_announce_unsampled(const struct profile_files *f,
				      const char *name)
{
	char line[3 * PATH_MAX];
	size_t n;

	if (f->manifest[0] &&
	    (n = manifest_line('S', own_pid().text, name, line, sizeof(line))))
		channel_send(f->manifest, line, n, -1);
}

int profile_files_can_hand_over(const struct profile_files *f)
{
	return channel_is_wrap(f->manifest);
}

int profile_files_hand_over(const struct profile_files *f, int fd)
{
	char line[PATH_MAX + 8];
	size_t n = manifest_line('H', f->part, NULL, line, sizeof(line));

	if (!profile_files_can_hand_over(f))
		return EINVAL;
	return n ? channel_send(f->manifest, line, n, fd) : ENAMETOOLONG;
}
