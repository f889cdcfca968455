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

#define NAME_ATTEMPTS 1000

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

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
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

int profile_files_create_part(struct profile_files *f)
{
	char candidate[PATH_MAX];
	int fd = -1;

	if (expand_pattern(f) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (unsigned k = 0; k < NAME_ATTEMPTS && fd < 0; k++) {
		if (candidate_name(f, candidate, sizeof(candidate), k) < 0 ||
		    (size_t)snprintf(f->part, sizeof(f->part), "%s.part",
				     candidate) >= sizeof(f->part)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (access(candidate, F_OK) == 0)
			continue; /* never reuse the name of a finished profile */
		fd = open(f->part, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0)
		errno = EEXIST;
	return fd;
}

/* Gives a file the name `name` unless a file has it: 0, EEXIST (try the
 * next name) or another errno value. */
typedef int place_fn(const void *file, const char *name);

/* Places a file under the first free final name, copied into final. */
static int publish(const struct profile_files *f, place_fn *place,
		   const void *file, char *final, size_t size)
{
	for (unsigned k = 0; k < NAME_ATTEMPTS; k++) {
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

int profile_files_open_unnamed(const struct profile_files *f)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(f->part, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s",
			 (int)(slash == f->part ? 1 : slash - f->part), f->part);
	return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
}

int profile_files_publish_unnamed(const struct profile_files *f, int fd,
				  char *final, size_t size)
{
	return publish(f, link_unnamed, &fd, final, size);
}

void profile_files_announce(const struct profile_files *f, char kind,
			    const char *detail)
{
	char line[3 * PATH_MAX];
	struct stat st;
	int fd, n;

	if (!f->manifest[0])
		return;
	n = snprintf(line, sizeof(line), "%c %s%s%s\n", kind, f->part,
		     detail ? "\t" : "", detail ? detail : "");
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	fd = open(f->manifest, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 &&
	    (uint64_t)st.st_size + (uint64_t)n <= file_size_limit())
		write_all(fd, line, (size_t)n);
	close(fd);
}
