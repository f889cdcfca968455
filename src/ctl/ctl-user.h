/* ctl-user.h - whose a process is, and acting as that user.
 *
 * Contract: ctl_identify() says who process pid is: its user and group
 * (from /proc/PID/status) and its start time (process_start.h), all read
 * from one process, however soon its pid is reused.  A process whose
 * real, effective, saved and filesystem ids are not all one user (a
 * set-user-ID program, one changing users) belongs to nobody here:
 * CTL_MIXED_IDS (with its real ids and start time in *out).
 *
 * What another user wrote is opened as that user: ctl_open_as() opens a
 * path with the calling thread's filesystem ids set to uid and gid
 * (setfsuid(2): per thread, so a server's other requests are unaffected)
 * and set back before it returns, so that root follows no path the user
 * could not (ctl_as_user() does the same around any function); ctl_open_users_file() then takes only a regular file owned
 * by uid, opened without following a final symbolic link or blocking,
 * and says nothing of a file it refuses but that it is not one (its
 * existence included).  ctl_become() is for a child about to run a
 * program on a user's files: it drops every id and the supplementary
 * groups to that user's.  A caller that is that user already (root for
 * root's processes) stays as it is.
 */
#ifndef SPPROF_CTL_USER_H
#define SPPROF_CTL_USER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct ctl_identity {
	uid_t uid;
	gid_t gid;
	uint64_t start_ticks;
};

enum { CTL_GONE = -1, CTL_MIXED_IDS = -2 };

/* 0, CTL_GONE or CTL_MIXED_IDS. */
int ctl_identify(long pid, struct ctl_identity *out);

/* fn(ctx) run with this thread's filesystem ids and groups those of
 * uid and gid: what it returns, or -1 with errno EPERM when they cannot
 * be taken. */
int ctl_as_user(uid_t uid, gid_t gid, int (*fn)(void *ctx), void *ctx);

/* A descriptor, or -1 with errno set. */
int ctl_open_as(uid_t uid, gid_t gid, int dir, const char *path, int flags);

/* A descriptor of a regular file of uid's at path, with *st; or -1 with
 * why set, in words that are the same whatever is at path. */
int ctl_open_users_file(uid_t uid, gid_t gid, const char *path,
			struct stat *st, char *why, size_t size);

/* Removes path as uid, when it still names the file st describes: 0, or
 * -1 with errno set. */
int ctl_remove_users_file(uid_t uid, gid_t gid, const char *path,
			  const struct stat *st);

/* 0, or -1 with errno set (then the child must not go on). */
int ctl_become(uid_t uid, gid_t gid);

#endif /* SPPROF_CTL_USER_H */
