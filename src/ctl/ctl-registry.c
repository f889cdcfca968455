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

#include "process_start.h"

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

enum entry_check {
	ENTRY_LIVE,
	ENTRY_UNREADABLE, /* not ours to read, or not an entry */
	ENTRY_GONE,       /* its process has ended */
	ENTRY_REUSED,     /* its pid belongs to another process now */
};

/* Reads the entry at path for pid and checks it against /proc. */
static enum entry_check read_entry(const char *path, long pid,
				   struct ctl_process *p)
{
	uint64_t ticks;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return ENTRY_UNREADABLE;
	n = pread(fd, &p->page, sizeof(p->page), 0);
	close(fd);
	if (n != (ssize_t)sizeof(p->page) || p->page.magic != CONTROL_MAGIC ||
	    p->page.version != CONTROL_VERSION || p->page.pid != pid)
		return ENTRY_UNREADABLE;
	p->pid = pid;
	snprintf(p->entry, sizeof(p->entry), "%s", path);
	ticks = process_start_ticks(pid);
	if (!ticks)
		return ENTRY_GONE;
	if (ticks != p->page.start_ticks)
		return ENTRY_REUSED;
	read_command(pid, p->command, sizeof(p->command));
	return ENTRY_LIVE;
}

static bool pid_name(const char *name, long *pid)
{
	char *end;

	errno = 0;
	*pid = strtol(name, &end, 10);
	return !errno && *name && !*end && *pid > 0;
}

static int by_pid(const void *a, const void *b)
{
	long x = ((const struct ctl_process *)a)->pid;
	long y = ((const struct ctl_process *)b)->pid;

	return (x > y) - (x < y);
}

/* Adds the live entries of one registry directory; removes stale ones. */
static int scan(const char *dir, struct ctl_process **out, size_t *count,
		size_t *capacity)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	long pid;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!pid_name(e->d_name, &pid))
			continue;
		if (*count == *capacity) {
			size_t more = *capacity ? 2 * *capacity : 16;
			struct ctl_process *grown =
				realloc(*out, more * sizeof(**out));

			if (!grown)
				break;
			*out = grown;
			*capacity = more;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		switch (read_entry(path, pid, &(*out)[*count])) {
		case ENTRY_LIVE:
			++*count;
			break;
		case ENTRY_GONE:
		case ENTRY_REUSED:
			unlink(path);
			break;
		case ENTRY_UNREADABLE:
			break;
		}
	}
	closedir(d);
	return 0;
}

/* As root: every user's registry too. */
static void scan_users(struct ctl_process **out, size_t *count,
		       size_t *capacity)
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
			scan(dir, out, count, capacity);
	}
	closedir(d);
}

int ctl_registry_list(struct ctl_process **out, size_t *count, char *why,
		      size_t size)
{
	const char *own = ctl_registry_own();
	size_t capacity = 0;
	int found = 0;

	*out = NULL;
	*count = 0;
	found |= scan(own, out, count, &capacity) == 0;
	if (geteuid() == 0) {
		char system[PATH_MAX];

		snprintf(system, sizeof(system), "/run/%s",
			 CONTROL_REGISTRY_NAME);
		if (strcmp(system, own) != 0)
			found |= scan(system, out, count, &capacity) == 0;
		scan_users(out, count, &capacity);
	}
	if (!found && errno != ENOENT) {
		snprintf(why, size, "%s: %s", own, strerror(errno));
		return -1;
	}
	qsort(*out, *count, sizeof(**out), by_pid);
	return 0;
}

static void explain_missing(long pid, char *why, size_t size)
{
	struct stat st;

	if (stat(ctl_registry_own(), &st) < 0)
		snprintf(why, size, "process %ld is not in the registry, and "
			 "the registry directory %s is gone (%s); processes "
			 "register again when they start after it is back",
			 pid, ctl_registry_own(), strerror(errno));
	else
		snprintf(why, size, "process %ld is not running the "
			 "profiler's runtime (start it under memprof-wrap "
			 "--dormant, or with SPPROF_DORMANT=1), or it belongs "
			 "to another user", pid);
}

int ctl_registry_find(long pid, struct ctl_process *out, char *why,
		      size_t size)
{
	struct ctl_process *all;
	char path[PATH_MAX];
	size_t count;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%ld", ctl_registry_own(), pid);
	switch (read_entry(path, pid, out)) {
	case ENTRY_LIVE:
		return 0;
	case ENTRY_GONE:
		unlink(path);
		snprintf(why, size, "process %ld has exited", pid);
		return -1;
	case ENTRY_REUSED:
		unlink(path);
		snprintf(why, size, "process %ld has exited, and its pid now "
			 "names another process, which is not profiled", pid);
		return -1;
	case ENTRY_UNREADABLE:
		break;
	}
	/* Root finds other users' processes in their registries. */
	if (geteuid() == 0 &&
	    ctl_registry_list(&all, &count, why, size) == 0) {
		for (size_t i = 0; i < count; i++)
			if (all[i].pid == pid)
				*out = all[i];
		free(all);
		if (out->pid == pid)
			return 0;
	}
	if (process_start_ticks(pid) == 0)
		snprintf(why, size, "no process %ld", pid);
	else
		explain_missing(pid, why, size);
	return -1;
}
