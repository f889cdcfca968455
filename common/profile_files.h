/* profile_files.h - where a profile is written: names and the manifest.
 *
 * Contract: a profile streams to "<name>.part" and is published under
 * <name>, the SPPROF_OUTPUT pattern with %p expanded to the process id (a
 * descendant's name gets its pid even when the pattern has none, so that
 * the processes of one tree never share a name).  A name that is taken,
 * by a finished profile or a streamed one, is never reused or replaced:
 * "name.1.mlyze", "name.2.mlyze"... are taken instead, the next number
 * after those in use (found in a few lookups however many there are), and
 * the final name starts from the streamed file's.  Each step is
 * announced in the manifest memprof-wrap reads (SPPROF_MANIFEST), one
 * whole line per append:
 *
 *   P <part>\t<pid>           streaming started, by that process
 *   F <part>\t<final>         published under its final name
 *   X <part>\t<program>       the process image was replaced by an exec
 *   N <part>                  ... or not: that exec failed, and the
 *                             process goes on in a new profile
 *   E <part>\t<reason>        recording stopped: the stream could not go on
 *   W <part>\t<reason>        the final file could not be written: the
 *                             streamed one holds every event
 *   C <descendant>            a request, with a socket for the answer:
 *                             create this process's "<name>.part"
 *                             (profile_files_create_part_by_wrap)
 *   H <part>                  the process may no longer create files in
 *                             the directory (it changed its user): the
 *                             final file goes with the line, in a
 *                             descriptor, for memprof-wrap to publish
 *                             and to remove the streamed one
 *   S <pid>\t<name>           a process ended without taking a sample,
 *                             so without a profile: its title or
 *                             command line
 *   A <pid>\t<why>            the runtime left the process alone (a
 *                             sandbox, a tight limit): it records no
 *                             more (profiler_events.c)
 *
 * The manifest is memprof-wrap's socket or a file (wrap_channel.h).
 * Nothing here allocates; descriptors are open only inside a call.
 */
#ifndef SPPROF_PROFILE_FILES_H
#define SPPROF_PROFILE_FILES_H

#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct profile_files {
	char pattern[PATH_MAX];  /* SPPROF_OUTPUT */
	char manifest[PATH_MAX]; /* SPPROF_MANIFEST, or "" */
	char base[PATH_MAX];     /* final name, before any collision suffix */
	char part[PATH_MAX];     /* the streamed file, "" until created */
	unsigned attempt;        /* its number: 0 for the bare name */
	int descendant;
	long owner_pid;          /* whose profile (%p): 0 for this process */
};

/* A profile checkpoints when its streamed file reaches this many bytes
 * (SPPROF_MAX_SIZE).  256 MiB holds an hour of a service that allocates
 * 1 GB/s at the default rate (some 4,000 events a second), is read in
 * about a second, and is never reached by most runs, whose profiles stay
 * as they were. */
#define PROFILE_MAX_SIZE_DEFAULT (UINT64_C(256) << 20)
/* The smallest limit taken: a checkpoint needs room to be worth it. */
#define PROFILE_MAX_SIZE_MIN (UINT64_C(64) << 10)

/* How the runtime creates every file: a new one (never an existing file,
 * never through a symbolic link, however the directory's other users
 * prepared it), read-write, closed on exec. */
#define PROFILE_FILES_CREATE \
	(O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)

/* Creates path anew, as PROFILE_FILES_CREATE does; a regular file of this
 * process's user already there (left by a process killed in the middle)
 * is removed first, anything else makes it fail with EEXIST.  The
 * descriptor, or -1 with errno set. */
int profile_files_create_fresh(const char *path);

/* Creates a new, empty "<name>.part" (read-write, close-on-exec) and
 * returns its descriptor, or -1 with errno set. */
int profile_files_create_part(struct profile_files *f);

/* The streamed file before it has a name: an unnamed file (O_TMPFILE,
 * read-write) in the directory the name will be in, so that its header
 * can be written before profile_files_name_part() gives it the first
 * free "<name>.part": a process killed at any moment leaves no .part
 * without one.  -1 with errno set, where the file system has none. */
int profile_files_open_unnamed_part(struct profile_files *f);
int profile_files_name_part(struct profile_files *f, int fd);

/* For a process that may not create files in the directory (it started
 * as another user): memprof-wrap creates "<name>.part" for it, gives it
 * to its user, and sends it open ("C <descendant>").  Its descriptor, or
 * -1 with errno set. */
int profile_files_create_part_by_wrap(struct profile_files *f);

/* Renames tmp to the first free final name, copied into final; never
 * replaces an existing file.  0 or an errno value. */
int profile_files_publish(const struct profile_files *f, const char *tmp,
			  char *final, size_t size);

/* An unnamed file (O_TMPFILE) for writing, in the streamed file's
 * directory: it vanishes with the process, unless published first.  -1
 * with errno set, where the file system has none. */
int profile_files_open_unnamed(const struct profile_files *f);

/* Gives the unnamed file open on fd the first free final name, as
 * profile_files_publish() does.  0 or an errno value. */
int profile_files_publish_unnamed(const struct profile_files *f, int fd,
				  char *final, size_t size);

/* Appends "<kind> <part>[\t<detail>]" to the manifest, if there is one. */
void profile_files_announce(const struct profile_files *f, char kind,
			    const char *detail);

/* Appends "P <part>\t<pid>" to the manifest, if there is one. */
void profile_files_announce_start(const struct profile_files *f);

/* Appends "S <pid>\t<name>" to the manifest, if there is one. */
void profile_files_announce_unsampled(const struct profile_files *f,
				      const char *name);

/* Whether memprof-wrap listens, and can publish a final file. */
int profile_files_can_hand_over(const struct profile_files *f);

/* Hands the final file open on fd to memprof-wrap ("H <part>"), which
 * publishes it under the first free final name.  0 or an errno value. */
int profile_files_hand_over(const struct profile_files *f, int fd);

#endif /* SPPROF_PROFILE_FILES_H */
