/* sandbox.c - the seccomp filters of this process (see sandbox.h). */
#include "config.h"

#include "sandbox.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The number after "\nNAME:" in text, or -1 when there is none. */
static long field(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p = text;

	while ((p = strchr(p, '\n')) != NULL) {
		p++;
		if (strncmp(p, name, n) == 0 && p[n] == ':') {
			p += n + 1;
			p += strspn(p, " \t");
			return *p >= '0' && *p <= '9' ? strtol(p, NULL, 10) : -1;
		}
	}
	return -1;
}

long sandbox_seccomp_filters(void)
{
	char text[4096];
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/status",
			  O_RDONLY | O_CLOEXEC);
	long length, filters;

	if (fd < 0)
		return 0;
	length = syscall(SYS_read, fd, text, sizeof(text) - 1);
	syscall(SYS_close, fd);
	if (length <= 0)
		return 0;
	text[length] = '\0';
	filters = field(text, "Seccomp_filters");
	if (filters >= 0)
		return filters;
	return field(text, "Seccomp") > 0;
}
