/* interpose_sandbox.c - the calls by which a process sandboxes itself, as
 * seen by the program.
 *
 * Once a process runs under a seccomp filter, in new namespaces or under
 * another root, the runtime's work may fail or kill it (see sandbox.h):
 * its profile cannot be created or written where it was to go, its
 * messages cannot reach memprof-wrap, and a system call the filter does
 * not expect ends the process with SIGSYS.  So before such a call, while
 * the process still can, the runtime finishes its profile and leaves the
 * process alone (profiler_before_sandbox); the call itself is the C
 * library's, unchanged.  libseccomp and systemd install their filters
 * through syscall(), bubblewrap and others through prctl(); xz (5.6 and
 * later) restricts its own file access with Landlock through syscall(),
 * after which the runtime's profile can no longer be created.  Programs
 * that make these system calls by their own instructions are not seen
 * here; the children they make so are (process_owner.h).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compiler.h"
#include "profiler.h"

/* Linux 5.13; new system calls have one number on every architecture. */
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

typedef long (*syscall_fn)(long, ...);
typedef int (*prctl_fn)(int, ...);
typedef int (*unshare_fn)(int);
typedef int (*chroot_fn)(const char *);
typedef int (*setns_fn)(int, int);

static struct {
	syscall_fn syscall;
	prctl_fn prctl;
	unshare_fn unshare;
	chroot_fn chroot;
	setns_fn setns;
} next;

/* The runtime makes system calls through syscall() itself, maybe before
 * this library's constructors have all run: so it is looked up at its
 * first use too. */
static void find_sandbox_functions(void)
{
	*(void **)&next.syscall = dlsym(RTLD_NEXT, "syscall");
	*(void **)&next.prctl = dlsym(RTLD_NEXT, "prctl");
	*(void **)&next.unshare = dlsym(RTLD_NEXT, "unshare");
	*(void **)&next.chroot = dlsym(RTLD_NEXT, "chroot");
	*(void **)&next.setns = dlsym(RTLD_NEXT, "setns");
}

__attribute__((constructor)) static void find_at_load(void)
{
	if (!next.syscall)
		find_sandbox_functions();
}

static int missing(void)
{
	errno = ENOSYS;
	return -1;
}

/* The namespaces after which the runtime's files and memprof-wrap's
 * socket may be out of reach. */
#define NAMESPACES_AWAY (CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWNET)

/* What a system call with these arguments makes of the process, or NULL
 * when it leaves it as it is. */
static const char *sandboxing_call(long number, const long *arg)
{
	switch (number) {
	case SYS_seccomp:
		return (arg[0] == SECCOMP_SET_MODE_STRICT ||
			(arg[0] == SECCOMP_SET_MODE_FILTER && arg[2]))
			       ? "installs a seccomp filter"
			       : NULL;
	case SYS_prctl:
		return arg[0] == PR_SET_SECCOMP &&
				       (arg[1] == SECCOMP_MODE_STRICT || arg[2])
			       ? "installs a seccomp filter"
			       : NULL;
	case SYS_unshare:
		return arg[0] & NAMESPACES_AWAY ? "enters new namespaces"
						: NULL;
	case SYS_setns:
		return "enters other namespaces";
	case SYS_chroot:
	case SYS_pivot_root:
		return "changes its root directory";
	case SYS_landlock_restrict_self:
		return "restricts itself with Landlock";
	default:
		return NULL;
	}
}

static void before(long number, const long *arg)
{
	const char *what = sandboxing_call(number, arg);

	if (what)
		profiler_before_sandbox(what);
}

MEMPROF_PUBLIC long syscall(long number, ...)
{
	long arg[6];
	va_list ap;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		arg[i] = va_arg(ap, long);
	va_end(ap);
	if (!next.syscall)
		find_sandbox_functions();
	if (unlikely(number == SYS_seccomp || number == SYS_prctl ||
		     number == SYS_unshare || number == SYS_setns ||
		     number == SYS_chroot || number == SYS_pivot_root ||
		     number == SYS_landlock_restrict_self))
		before(number, arg);
	return next.syscall(number, arg[0], arg[1], arg[2], arg[3], arg[4],
			    arg[5]);
}

MEMPROF_PUBLIC int prctl(int option, ...)
{
	long arg[5] = { option };
	va_list ap;

	va_start(ap, option);
	for (int i = 1; i < 5; i++)
		arg[i] = (long)va_arg(ap, unsigned long);
	va_end(ap);
	if (!next.prctl)
		return missing();
	before(SYS_prctl, arg);
	return next.prctl(option, arg[1], arg[2], arg[3], arg[4]);
}

MEMPROF_PUBLIC int unshare(int flags)
{
	long arg[1] = { flags };

	if (!next.unshare)
		return missing();
	before(SYS_unshare, arg);
	return next.unshare(flags);
}

MEMPROF_PUBLIC int setns(int fd, int type)
{
	long arg[2] = { fd, type };

	if (!next.setns)
		return missing();
	before(SYS_setns, arg);
	return next.setns(fd, type);
}

MEMPROF_PUBLIC int chroot(const char *path)
{
	long arg[1] = { (long)path };

	if (!next.chroot)
		return missing();
	before(SYS_chroot, arg);
	return next.chroot(path);
}
