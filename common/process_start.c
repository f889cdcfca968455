/* process_start.c - when a process started (see process_start.h). */
#include "config.h"

#include "process_start.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define START_TIME_FIELD 22

uint64_t process_start_ticks(long pid)
{
	char path[64], text[1024];
	const char *p;
	uint64_t ticks = 0;
	int proc, fd, field;
	ssize_t n;

	/* Opened by a name relative to a descriptor of /proc: a user-mode
	 * emulator (qemu-user) answers for "/proc/self/..." and
	 * "/proc/<its pid>/..." itself, with a start time of its own
	 * reckoning, which another process reading the kernel's would take
	 * for that of a process that reused the pid. */
	proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc < 0)
		return 0;
	snprintf(path, sizeof(path), "%ld/stat", pid);
	fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
	close(proc);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	/* The command name, field 2, is in parentheses and may hold spaces
	 * or parentheses itself: count fields from the last ')'. */
	p = strrchr(text, ')');
	if (!p)
		return 0;
	for (field = 2; *p && field < START_TIME_FIELD; p++)
		if (*p == ' ')
			field++;
	while (*p >= '0' && *p <= '9')
		ticks = ticks * 10 + (uint64_t)(*p++ - '0');
	return ticks;
}
