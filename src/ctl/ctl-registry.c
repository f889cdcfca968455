/* ctl-registry.c - the running profiles of this host (see ctl-registry.h). */
#include "config.h"

#include "ctl-registry.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl-entry.h"
#include "ctl-user.h"
#include "process_start.h"

/* The runtime's shared object, as a process's maps name it
 * (libspprof-alloc.so.0, installed or in a build tree). */
#define RUNTIME_SONAME_STEM "libspprof-alloc.so"

static char own_registry[PATH_MAX];

/* The same rule as the runtime's (control.c). */
const char *ctl_registry_own(void)
{
	const char *runtime_dir = getenv("XDG_RUNTIME_DIR");

	if (runtime_dir && runtime_dir[0] == '/')
		snprintf(own_registry, sizeof(own_registry), "%s/%s",
			 runtime_dir, CONTROL_REGISTRY_NAME);
	else if (geteuid() == 0)
		snprintf(own_registry, sizeof(own_registry), "/run/%s",
			 CONTROL_REGISTRY_NAME);
	else
		snprintf(own_registry, sizeof(own_registry), "/run/user/%u/%s",
			 (unsigned)geteuid(), CONTROL_REGISTRY_NAME);
	return own_registry;
}

static void read_command(long pid, char *out, size_t size)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, out, size - 1);
		close(fd);
	}
	if (n <= 0) {
		snprintf(out, size, "?");
		return;
	}
	out[n] = '\0';
	for (ssize_t i = 0; i < n - 1; i++)
		if (out[i] == '\0')
			out[i] = ' ';
}

/* A registry directory, open; its owner speaks for their processes. */
struct registry {
	const char *path;
	int fd;
	uid_t owner;
};

/* 0, or -1 with errno set (a symbolic link is refused: ELOOP). */
static int open_registry(const char *path, struct registry *r)
{
	struct stat st;

	r->path = path;
	r->fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r->fd < 0)
		return -1;
	if (fstat(r->fd, &st) < 0) {
		close(r->fd);
		return -1;
	}
	r->owner = st.st_uid;
	return 0;
}

enum entry_check {
	ENTRY_LIVE,
	ENTRY_UNREADABLE, /* not an entry, not ours, or not its user's */
	ENTRY_GONE,       /* its process has ended */
	ENTRY_REUSED,     /* its pid belongs to another process now */
};

/* The file `name` of r, when it is a regular file of r's owner, read
 * into bytes; *file says which file it was.  The number of bytes, or
 * -1. */
static ssize_t read_entry_file(const struct registry *r, const char *name,
			       void *bytes, size_t size, struct stat *file)
{
	/* O_NONBLOCK: a FIFO planted here must not hold the reader. */
	int fd = openat(r->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
					     O_NOCTTY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, file) == 0 && S_ISREG(file->st_mode) &&
	    file->st_uid == r->owner)
		n = pread(fd, bytes, size, 0);
	close(fd);
	return n;
}

/* Reads the entry `name` of r for pid and checks it against its file,
 * its directory and /proc. */
static enum entry_check read_entry(const struct registry *r, const char *name,
				   long pid, struct ctl_process *p,
				   struct stat *file)
{
	static _Thread_local unsigned char bytes[sizeof(struct control_page)];
	struct ctl_identity id;
	char problem[128];
	ssize_t n = read_entry_file(r, name, bytes, sizeof(bytes), file);
	int who;

	if (n < 0 || ctl_entry_parse(bytes, (size_t)n, pid, &p->page, problem,
				     sizeof(problem)) < 0)
		return ENTRY_UNREADABLE;
	who = ctl_identify(pid, &id);
	if (who == CTL_GONE)
		return ENTRY_GONE;
	if (id.start_ticks != p->page.start_ticks)
		return ENTRY_REUSED;
	if (who == CTL_MIXED_IDS || id.uid != r->owner)
		return ENTRY_UNREADABLE;
	p->pid = pid;
	p->uid = id.uid;
	p->gid = id.gid;
	snprintf(p->registry, sizeof(p->registry), "%s", r->path);
	p->entry_device = file->st_dev;
	p->entry_inode = file->st_ino;
	read_command(pid, p->command, sizeof(p->command));
	return ENTRY_LIVE;
}

/* Removes a stale entry: through the directory's descriptor, and only
 * while its name still holds the file that was checked. */
static void remove_stale(const struct registry *r, const char *name,
			 const struct stat *file)
{
	struct stat now;

	if (fstatat(r->fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_dev == file->st_dev && now.st_ino == file->st_ino)
		unlinkat(r->fd, name, 0);
}

/* read_entry(), and a stale entry removed. */
static enum entry_check check_entry(const struct registry *r, const char *name,
				    long pid, struct ctl_process *p)
{
	struct stat file;
	enum entry_check verdict = read_entry(r, name, pid, p, &file);

	if (verdict == ENTRY_GONE || verdict == ENTRY_REUSED)
		remove_stale(r, name, &file);
	return verdict;
}

static bool pid_name(const char *name, long *pid)
{
	char *end;

	errno = 0;
	*pid = strtol(name, &end, 10);
	return !errno && *name >= '1' && *name <= '9' && !*end && *pid > 0;
}

/* Something to do in each registry directory. */
typedef void registry_visit(const struct registry *r, void *ctx);

/* Opens and visits one directory: 0, or -1 with errno set. */
static int visit(const char *path, registry_visit *fn, void *ctx)
{
	struct registry r;

	if (open_registry(path, &r) < 0)
		return -1;
	fn(&r, ctx);
	close(r.fd);
	return 0;
}

/* As root: every user's registry too. */
static void visit_users(registry_visit *fn, void *ctx)
{
	DIR *d = opendir("/run/user");
	struct dirent *e;
	char dir[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "/run/user/%s/%s", e->d_name,
			 CONTROL_REGISTRY_NAME);
		if (strcmp(dir, ctl_registry_own()) != 0)
			visit(dir, fn, ctx);
	}
	closedir(d);
}

/* Visits the registries the caller may read: 0, or -1 with errno set
 * when none could be opened. */
static int visit_registries(registry_visit *fn, void *ctx)
{
	const char *own = ctl_registry_own();
	char system[PATH_MAX];
	int error, found = visit(own, fn, ctx) == 0;

	error = errno;
	if (geteuid() == 0) {
		snprintf(system, sizeof(system), "/run/%s",
			 CONTROL_REGISTRY_NAME);
		if (strcmp(system, own) != 0)
			found |= visit(system, fn, ctx) == 0;
		visit_users(fn, ctx);
	}
	errno = error;
	return found ? 0 : -1;
}

struct listing {
	struct ctl_process *all;
	size_t count, capacity;
};

/* Adds the live entries of one registry directory; removes stale ones. */
static void scan(const struct registry *r, void *ctx)
{
	struct listing *l = ctx;
	int fd = dup(r->fd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	long pid;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (!pid_name(e->d_name, &pid))
			continue;
		if (l->count == l->capacity) {
			size_t more = l->capacity ? 2 * l->capacity : 16;
			struct ctl_process *grown =
				realloc(l->all, more * sizeof(*l->all));

			if (!grown)
				break;
			l->all = grown;
			l->capacity = more;
		}
		if (check_entry(r, e->d_name, pid, &l->all[l->count]) ==
		    ENTRY_LIVE)
			l->count++;
	}
	closedir(d);
}

static int by_pid(const void *a, const void *b)
{
	long x = ((const struct ctl_process *)a)->pid;
	long y = ((const struct ctl_process *)b)->pid;

	return (x > y) - (x < y);
}

int ctl_registry_list(struct ctl_process **out, size_t *count, char *why,
		      size_t size)
{
	struct listing l = { NULL, 0, 0 };

	if (visit_registries(scan, &l) < 0 && errno != ENOENT) {
		snprintf(why, size, "%s: %s", ctl_registry_own(),
			 strerror(errno));
		free(l.all);
		return -1;
	}
	qsort(l.all, l.count, sizeof(*l.all), by_pid);
	*out = l.all;
	*count = l.count;
	return 0;
}

struct search {
	long pid;
	struct ctl_process *out;
	enum entry_check verdict; /* the best so far */
};

static void look_up(const struct registry *r, void *ctx)
{
	struct search *s = ctx;
	char name[32];
	enum entry_check verdict;

	if (s->verdict == ENTRY_LIVE)
		return;
	snprintf(name, sizeof(name), "%ld", s->pid);
	verdict = check_entry(r, name, s->pid, s->out);
	if (verdict != ENTRY_UNREADABLE)
		s->verdict = verdict;
}

/* Whether process pid has the runtime's shared object mapped: 1, 0, or -1
 * when its maps cannot be read (another user's process). */
static int maps_runtime(long pid)
{
	char path[64], *line = NULL;
	size_t size = 0;
	int found = 0;
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	if (!(maps = fopen(path, "re")))
		return -1;
	while (!found && getline(&line, &size, maps) > 0)
		found = strstr(line, "/" RUNTIME_SONAME_STEM) != NULL;
	free(line);
	fclose(maps);
	return found;
}

static void explain_missing(long pid, char *why, size_t size)
{
	struct stat st;
	bool missing = stat(ctl_registry_own(), &st) < 0;
	int error = errno, n;

	/* A process that runs the runtime registered in the directory, which
	 * was removed under it.  Where no process has registered yet there
	 * is no directory, and a process without the runtime is told how to
	 * load it all the same. */
	if (missing && maps_runtime(pid) == 1) {
		snprintf(why, size, "process %ld is not in the registry, and "
			 "the registry directory %s is gone (%s); processes "
			 "register again when they start after it is back",
			 pid, ctl_registry_own(), strerror(error));
		return;
	}
	n = snprintf(why, size, "process %ld is not running the profiler's "
		     "runtime (load it into the running process with "
		     "memprof-ctl attach %ld, or start it under memprof-wrap "
		     "--dormant, or with SPPROF_DORMANT=1), or it belongs to "
		     "another user", pid, pid);
	if (missing && n > 0 && (size_t)n < size)
		snprintf(why + n, size - (size_t)n, "; no process has "
			 "registered in %s (%s)", ctl_registry_own(),
			 strerror(error));
}

int ctl_registry_find(long pid, struct ctl_process *out, char *why,
		      size_t size)
{
	struct search s = { pid, out, ENTRY_UNREADABLE };

	memset(out, 0, sizeof(*out));
	visit_registries(look_up, &s);
	switch (s.verdict) {
	case ENTRY_LIVE:
		return 0;
	case ENTRY_GONE:
		snprintf(why, size, "process %ld has exited", pid);
		return -1;
	case ENTRY_REUSED:
		snprintf(why, size, "process %ld has exited, and its pid now "
			 "names another process, which is not profiled", pid);
		return -1;
	case ENTRY_UNREADABLE:
		break;
	}
	if (process_start_ticks(pid) == 0)
		snprintf(why, size, "no process %ld", pid);
	else
		explain_missing(pid, why, size);
	return -1;
}

int ctl_registry_open_entry(const struct ctl_process *p, int flags, char *why,
			    size_t size)
{
	struct registry r;
	struct stat st;
	char name[32];
	int fd = -1;

	snprintf(name, sizeof(name), "%ld", p->pid);
	if (open_registry(p->registry, &r) == 0) {
		fd = ctl_open_as(p->uid, p->gid, r.fd, name,
				 flags | O_NOFOLLOW | O_NONBLOCK);
		close(r.fd);
	}
	/* A file cut shorter than a page would fault a client mapping it. */
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == p->entry_device &&
	    st.st_ino == p->entry_inode &&
	    st.st_size >= (off_t)sizeof(struct control_page))
		return fd;
	if (fd >= 0)
		close(fd);
	snprintf(why, size, "the registry entry of process %ld changed: it "
		 "may have exited", p->pid);
	return -1;
}
