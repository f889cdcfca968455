/* interpose_exec.c - the exec family, as seen by the program.
 *
 * An exec replaces the process image without running its exit handlers,
 * so the profile of the image being replaced is finished here, marked as
 * replaced by the program named; the new image, started under the same
 * environment, records a profile of its own.  When the exec fails, the
 * process goes on and the next event starts a new profile.  The C
 * library's own functions are looked up once, at load time, so that a
 * child forked from a threaded program never calls dlsym() before it
 * execs.  The execl* forms gather their arguments and take the path of
 * execve() or execvpe().
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include "compiler.h"
#include "profiler.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

static struct {
	execve_fn execve, execvpe;
	execv_fn execv, execvp;
	fexecve_fn fexecve;
} next;

__attribute__((constructor)) static void find_exec_functions(void)
{
	*(void **)&next.execve = dlsym(RTLD_NEXT, "execve");
	*(void **)&next.execvpe = dlsym(RTLD_NEXT, "execvpe");
	*(void **)&next.execv = dlsym(RTLD_NEXT, "execv");
	*(void **)&next.execvp = dlsym(RTLD_NEXT, "execvp");
	*(void **)&next.fexecve = dlsym(RTLD_NEXT, "fexecve");
}

/* What every exec returns when it returns at all. */
static int exec_failed(void)
{
	int saved_errno = errno;

	profiler_exec_failed();
	errno = saved_errno;
	return -1;
}

static int missing(void)
{
	errno = ENOSYS;
	return -1;
}

MEMPROF_PUBLIC int execve(const char *path, char *const argv[],
			  char *const envp[])
{
	if (!next.execve)
		return missing();
	profiler_before_exec(path);
	next.execve(path, argv, envp);
	return exec_failed();
}

MEMPROF_PUBLIC int execvpe(const char *file, char *const argv[],
			   char *const envp[])
{
	if (!next.execvpe)
		return missing();
	profiler_before_exec(file);
	next.execvpe(file, argv, envp);
	return exec_failed();
}

MEMPROF_PUBLIC int execv(const char *path, char *const argv[])
{
	if (!next.execv)
		return missing();
	profiler_before_exec(path);
	next.execv(path, argv);
	return exec_failed();
}

MEMPROF_PUBLIC int execvp(const char *file, char *const argv[])
{
	if (!next.execvp)
		return missing();
	profiler_before_exec(file);
	next.execvp(file, argv);
	return exec_failed();
}

MEMPROF_PUBLIC int fexecve(int fd, char *const argv[], char *const envp[])
{
	if (!next.fexecve)
		return missing();
	profiler_before_exec(argv[0] ? argv[0] : "(descriptor)");
	next.fexecve(fd, argv, envp);
	return exec_failed();
}

/* How many arguments an execl* call has, the first included. */
static size_t count_arguments(va_list ap)
{
	va_list copy;
	size_t n = 1;

	va_copy(copy, ap);
	while (va_arg(copy, const char *) != NULL)
		n++;
	va_end(copy);
	return n;
}

/* Runs exec(name, argv, envp) with the arguments of an execl* call:
 * first, then those in ap up to the NULL that ends them, and after that
 * NULL the environment when with_envp (execle), else the process's. */
static int exec_listed(execve_fn exec, const char *name, const char *first,
		       va_list ap, int with_envp)
{
	size_t n = count_arguments(ap);
	char *argv[n + 1];
	char **envp;

	argv[0] = (char *)first;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
	envp = with_envp ? va_arg(ap, char **) : environ;
	return exec(name, argv, envp);
}

MEMPROF_PUBLIC int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_listed(execve, path, arg, ap, 0);
	va_end(ap);
	return r;
}

MEMPROF_PUBLIC int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_listed(execvpe, file, arg, ap, 0);
	va_end(ap);
	return r;
}

MEMPROF_PUBLIC int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_listed(execve, path, arg, ap, 1);
	va_end(ap);
	return r;
}
