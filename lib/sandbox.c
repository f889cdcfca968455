/* sandbox.c - the seccomp mode of this process (see sandbox.h). */
#include "config.h"

#include "sandbox.h"

#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int sandbox_seccomp_mode(void)
{
	static const char field[] = "\nSeccomp:";
	char text[4096];
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/status",
			  O_RDONLY | O_CLOEXEC);
	long length;
	const char *p;

	if (fd < 0)
		return 0;
	length = syscall(SYS_read, fd, text, sizeof(text) - 1);
	syscall(SYS_close, fd);
	if (length <= 0)
		return 0;
	text[length] = '\0';
	p = strstr(text, field);
	if (!p)
		return 0;
	p += strlen(field);
	p += strspn(p, " \t");
	return *p >= '0' && *p <= '9' ? *p - '0' : 0;
}
