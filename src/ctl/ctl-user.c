/* ctl-user.c - whose a process is, and acting as that user (see
 * ctl-user.h). */
#include "config.h"

#include "ctl-user.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "process_start.h"

/* The four ids of a "Uid:" or "Gid:" line (real, effective, saved,
 * filesystem) as one, or false when they differ. */
static bool one_id(const char *status, const char *key, unsigned long *id)
{
	const char *line = strstr(status, key);
	unsigned long ids[4];

	*id = (unsigned long)-1;
	if (!line || sscanf(line + strlen(key), "%lu %lu %lu %lu", &ids[0],
			    &ids[1], &ids[2], &ids[3]) != 4)
		return false;
	*id = ids[0];
	return ids[1] == ids[0] && ids[2] == ids[0] && ids[3] == ids[0];
}

/* /proc/PID/status, through a descriptor of /proc/PID: the file of that
 * very process, or none once it is gone. */
static ssize_t read_status(int process_dir, char *text, size_t size)
{
	int fd = openat(process_dir, "status", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, text, size - 1);
	close(fd);
	if (n >= 0)
		text[n] = '\0';
	return n;
}

int ctl_identify(long pid, struct ctl_identity *out)
{
	char path[64], status[4096];
	unsigned long uid, gid;
	bool one_user;
	int dir;

	snprintf(path, sizeof(path), "/proc/%ld", pid);
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return CTL_GONE;
	if (read_status(dir, status, sizeof(status)) <= 0) {
		close(dir);
		return CTL_GONE;
	}
	one_user = one_id(status, "\nUid:", &uid) &&
		   one_id(status, "\nGid:", &gid);
	out->start_ticks = process_start_ticks(pid);
	/* The status read after the start time is still that process's:
	 * the pid was not reused in between. */
	if (!out->start_ticks || read_status(dir, status, sizeof(status)) <= 0) {
		close(dir);
		return CTL_GONE;
	}
	close(dir);
	out->uid = (uid_t)uid;
	out->gid = (gid_t)gid;
	return one_user ? 0 : CTL_MIXED_IDS;
}

/* The most supplementary groups root may have to act as another user
 * (it sheds them meanwhile). */
#define GROUPS_MAX 64

/* Sets this thread's filesystem ids; false when they are not those
 * asked (no privilege to change them). */
static bool set_fs_ids(uid_t uid, gid_t gid)
{
	setfsgid(gid);
	setfsuid(uid);
	return (uid_t)setfsuid((uid_t)-1) == uid &&
	       (gid_t)setfsgid((gid_t)-1) == gid;
}

/* This thread's supplementary groups, by the system call: the C
 * library's setgroups() would change every thread's. */
static int set_thread_groups(const gid_t *groups, int count)
{
	return (int)syscall(SYS_setgroups, (size_t)count, groups);
}

int ctl_as_user(uid_t uid, gid_t gid, int (*fn)(void *ctx), void *ctx)
{
	uid_t saved_uid = (uid_t)setfsuid((uid_t)-1);
	gid_t saved_gid = (gid_t)setfsgid((gid_t)-1), groups[GROUPS_MAX];
	/* Root sheds its groups too.  A user acting as themselves (root
	 * included) stays as they are: they may not take another group of a
	 * process's, and need not. */
	bool root = geteuid() == 0;
	int count = root ? getgroups(GROUPS_MAX, groups) : 0;
	int rc = -1, error = EPERM;

	if (uid == geteuid())
		return fn(ctx);
	if (count < 0 || (root && set_thread_groups(NULL, 0) < 0)) {
		errno = EPERM;
		return -1;
	}
	if (set_fs_ids(uid, gid)) {
		rc = fn(ctx);
		error = errno;
	}
	/* Going on as another user would be worse than stopping. */
	if (!set_fs_ids(saved_uid, saved_gid) ||
	    (root && set_thread_groups(groups, count) < 0))
		abort();
	errno = error;
	return rc;
}

struct opening {
	int dir;
	const char *path;
	int flags;
};

static int open_it(void *ctx)
{
	const struct opening *o = ctx;

	return openat(o->dir, o->path, o->flags | O_CLOEXEC | O_NOCTTY, 0600);
}

int ctl_open_as(uid_t uid, gid_t gid, int dir, const char *path, int flags)
{
	struct opening o = { dir, path, flags };

	return ctl_as_user(uid, gid, open_it, &o);
}

int ctl_open_users_file(uid_t uid, gid_t gid, const char *path,
			struct stat *st, char *why, size_t size)
{
	int fd = ctl_open_as(uid, gid, AT_FDCWD, path,
			     O_RDONLY | O_NOFOLLOW | O_NONBLOCK);

	if (fd >= 0 && fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
	    st->st_uid == uid)
		return fd;
	if (fd >= 0)
		close(fd);
	snprintf(why, size, "it is not a regular file that its user (uid %u) "
		 "owns and may read", (unsigned)uid);
	return -1;
}

int ctl_become(uid_t uid, gid_t gid)
{
	if (uid == geteuid())
		return 0;
	if (geteuid() == 0 && setgroups(0, NULL) < 0)
		return -1;
	if (setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		return -1;
	return 0;
}

struct removal {
	const char *path;
	const struct stat *st;
};

static int remove_it(void *ctx)
{
	const struct removal *r = ctx;
	struct stat now;

	if (lstat(r->path, &now) < 0)
		return -1;
	if (now.st_dev != r->st->st_dev || now.st_ino != r->st->st_ino) {
		errno = ESTALE;
		return -1;
	}
	return unlink(r->path);
}

int ctl_remove_users_file(uid_t uid, gid_t gid, const char *path,
			  const struct stat *st)
{
	struct removal r = { path, st };

	return ctl_as_user(uid, gid, remove_it, &r);
}
