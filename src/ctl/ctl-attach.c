/* ctl-attach.c - load the runtime into a running process with gdb (see
 * ctl-attach.h). */
#include "config.h"

#include "ctl-attach.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CAP_SYS_PTRACE_BIT 19
#define GDB_OUTPUT_MAX 4096
#define ARGS_MAX 64
#define COMMAND_MAX 4096

extern char **environ;

/* gdb stops the process anywhere: the thread it calls dlopen() on may be
 * inside the allocator (the C library's, whose main arena a
 * single-threaded program does not lock, or jemalloc's, tcmalloc's,
 * mimalloc's), the dynamic loader or setenv(), which the calls would
 * enter again.  This gdb Python script first lets the thread run until
 * none of its frames is one of those (`finish`, frame by frame). */
static const char safe_point_script[] =
	"python\n"
	"import re\n"
	"unsafe = re.compile(r'^(__GI_|__)*(libc_)?(malloc|calloc|realloc|"
	"free|cfree|_int_\\w+|tcache_\\w+|sysmalloc|malloc_\\w+|memalign|"
	"posix_memalign|aligned_alloc|valloc|pvalloc|arena_\\w+|_dl_\\w+|"
	"dl_\\w+|\\w*dlopen\\w*|\\w*dlsym\\w*|setenv|unsetenv|"
	"add_to_environ|je_\\w+|tc_\\w+|mi_\\w+|_mi_\\w+)$')\n"
	"def inside_unsafe():\n"
	"    frame, depth = gdb.newest_frame(), 0\n"
	"    while frame is not None and depth < 40:\n"
	"        if unsafe.match(frame.name() or ''):\n"
	"            return True\n"
	"        frame, depth = frame.older(), depth + 1\n"
	"    return False\n"
	"steps = 0\n"
	"try:\n"
	"    while inside_unsafe() and steps < 200:\n"
	"        gdb.execute('finish', to_string=True)\n"
	"        steps += 1\n"
	"except gdb.error:\n"
	"    pass\n"
	"end\n";

/* The script in a temporary file, named in path; 0, or -1. */
static int write_script(char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, size, "%s/memprof-ctl.XXXXXX",
		 dir && dir[0] == '/' ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		return -1;
	if (write(fd, safe_point_script, sizeof(safe_point_script) - 1) !=
	    (ssize_t)sizeof(safe_point_script) - 1) {
		close(fd);
		unlink(path);
		return -1;
	}
	return close(fd);
}

/* gdb on PATH: 1, else 0. */
static int gdb_found(void)
{
	const char *path = getenv("PATH");
	char candidate[COMMAND_MAX];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(candidate, sizeof(candidate), "%.*s/gdb", (int)n, path);
		if (n && access(candidate, X_OK) == 0)
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}

static int can_trace_anyone(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long caps = 0;

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "CapEff: %llx", &caps);
	if (f)
		fclose(f);
	return (caps >> CAP_SYS_PTRACE_BIT) & 1;
}

static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	int scope = 0;

	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	return scope;
}

/* What would make the kernel refuse ptrace, with its fix; 0 when nothing
 * is known to. */
static int refused_why(const struct ctl_attach_request *r, char *why,
		       size_t size)
{
	char status_file[64];
	int scope = yama_scope(), privileged = can_trace_anyone();
	struct stat st;

	snprintf(status_file, sizeof(status_file), "/proc/%ld/status", r->pid);
	/* The files of an undumpable process belong to root, but not its
	 * directory. */
	if (r->identified == CTL_GONE || stat(status_file, &st) < 0)
		return snprintf(why, size, "no process %ld", r->pid), -1;
	if (scope == 3)
		return snprintf(why, size, "ptrace is disabled on this host "
				"(kernel.yama.ptrace_scope is 3, until the next "
				"boot): start the program under memprof-wrap "
				"--dormant instead"), -1;
	if (privileged)
		return 0;
	if (scope == 2)
		return snprintf(why, size, "only a process with CAP_SYS_PTRACE "
				"may attach (kernel.yama.ptrace_scope is 2): run "
				"memprof-ctl as root"), -1;
	if (r->identified == CTL_MIXED_IDS || st.st_uid != r->process.uid)
		return snprintf(why, size, "process %ld runs a set-user-ID or "
				"set-group-ID program, or made itself "
				"undumpable: the kernel lets only a process with "
				"CAP_SYS_PTRACE attach; run memprof-ctl as root",
				r->pid), -1;
	if (r->process.uid != geteuid())
		return snprintf(why, size, "process %ld belongs to user %u: "
				"run memprof-ctl as that user or as root", r->pid,
				(unsigned)r->process.uid), -1;
	if (scope == 1)
		return snprintf(why, size, "kernel.yama.ptrace_scope is 1: only "
				"a process's ancestors may attach to it; run "
				"memprof-ctl as root, or allow it with 'sysctl "
				"kernel.yama.ptrace_scope=0'"), -1;
	return 0;
}

/* Appends to the argument list (strings live in `store`). */
struct gdb_command {
	char *argv[ARGS_MAX];
	int argc;
	char store[ARGS_MAX][COMMAND_MAX];
};

static int add(struct gdb_command *c, const char *format, const char *a,
	       const char *b)
{
	char *s = c->store[c->argc];

	if (c->argc >= ARGS_MAX - 1 ||
	    (size_t)snprintf(s, COMMAND_MAX, format, a, b) >= COMMAND_MAX)
		return -1;
	c->argv[c->argc++] = s;
	c->argv[c->argc] = NULL;
	return 0;
}

/* -ex 'call (int)setenv("NAME", "VALUE", 1)', and its unsetenv() for
 * after the load.  Both strings go inside C string literals of gdb's. */
static int add_setting(struct gdb_command *set, struct gdb_command *unset,
		       const char *name, const char *value)
{
	if (strpbrk(value, "\"\\\n") || strpbrk(name, "\"\\\n"))
		return -1;
	return add(set, "-ex", NULL, NULL) < 0 ||
			       add(set, "call (int)setenv(\"%s\", \"%s\", 1)",
				   name, value) < 0 ||
			       add(unset, "-ex", NULL, NULL) < 0 ||
			       add(unset, "call (int)unsetenv(\"%s\")", name,
				   NULL) < 0
		       ? -1
		       : 0;
}

/* The caller's SPPROF_* settings, and the ones of this attach. */
static int add_settings(const struct ctl_attach_request *r,
			struct gdb_command *set, struct gdb_command *unset)
{
	char name[256];

	for (char **e = environ; *e; e++) {
		size_t n = strcspn(*e, "=");

		if (strncmp(*e, "SPPROF_", 7) || !(*e)[n] || n >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)n, *e);
		if (!strcmp(name, "SPPROF_OUTPUT") ||
		    !strcmp(name, "SPPROF_PYTHON_WALKER") ||
		    !strcmp(name, "SPPROF_RUNTIME"))
			continue;
		if (add_setting(set, unset, name, *e + n + 1) < 0)
			return -1;
	}
	if (add_setting(set, unset, "SPPROF_OUTPUT", r->output) < 0)
		return -1;
	return r->python_walker ? add_setting(set, unset, "SPPROF_PYTHON_WALKER",
					      r->python_walker)
				: 0;
}

/* gdb runs the program's threads while it calls setenv() and dlopen() in
 * it.  A signal the program takes meanwhile (its timers, its own
 * SIGUSR1) would stop gdb in the middle of the call by default, and the
 * call, finished after gdb has detached, would return into gdb's dummy
 * frame and crash the program.  So signals go to the program as they
 * would without gdb, but for the faults: a call that one interrupts is
 * unwound, leaving the program as it was. */
static int build_command(const struct ctl_attach_request *r,
			 const char *script, struct gdb_command *c)
{
	static struct gdb_command unset;
	char pid[32];

	snprintf(pid, sizeof(pid), "%ld", r->pid);
	c->argc = unset.argc = 0;
	if (add(c, "gdb", NULL, NULL) < 0 || add(c, "-p", NULL, NULL) < 0 ||
	    add(c, "%s", pid, NULL) < 0 || add(c, "-batch", NULL, NULL) < 0 ||
	    add(c, "-nx", NULL, NULL) < 0 || add(c, "-iex", NULL, NULL) < 0 ||
	    add(c, "set debuginfod enabled off", NULL, NULL) < 0 ||
	    add(c, "-iex", NULL, NULL) < 0 ||
	    add(c, "handle all nostop noprint pass", NULL, NULL) < 0 ||
	    add(c, "-iex", NULL, NULL) < 0 ||
	    add(c, "handle SIGSEGV SIGBUS SIGILL SIGFPE SIGABRT stop print",
		NULL, NULL) < 0 ||
	    add(c, "-iex", NULL, NULL) < 0 ||
	    add(c, "set unwindonsignal on", NULL, NULL) < 0 ||
	    add(c, "-x", NULL, NULL) < 0 || add(c, "%s", script, NULL) < 0 ||
	    add_settings(r, c, &unset) < 0 || strpbrk(r->runtime, "\"\\") ||
	    add(c, "-ex", NULL, NULL) < 0 ||
	    add(c, "call (void *)dlopen(\"%s\", 2)", r->runtime, NULL) < 0 ||
	    add(c, "-ex", NULL, NULL) < 0 ||
	    add(c, "call (char *)dlerror()", NULL, NULL) < 0)
		return -1;
	for (int i = 0; i < unset.argc; i++)
		if (add(c, "%s", unset.argv[i], NULL) < 0)
			return -1;
	return 0;
}

/* Runs gdb with its output in `output`; its exit status, or -1. */
static int run_gdb(struct gdb_command *c, char *output, size_t size)
{
	int channel[2], status;
	size_t used = 0;
	ssize_t n;
	pid_t child;

	if (pipe(channel) < 0 || (child = fork()) < 0)
		return -1;
	if (child == 0) {
		dup2(channel[1], STDOUT_FILENO);
		dup2(channel[1], STDERR_FILENO);
		close(channel[0]);
		execvp("gdb", c->argv);
		_exit(127);
	}
	close(channel[1]);
	while ((n = read(channel[0], output + used, size - 1 - used)) > 0)
		used += (size_t)n;
	output[used] = '\0';
	close(channel[0]);
	if (waitpid(child, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Whether gdb can call a function in a process on this machine.  gdb 13
 * writes back a register area sized from the features it knows, and on a
 * processor with AMX the kernel refuses that write: the call fails after
 * gdb has interrupted the process, whose system call then fails in the
 * program.  So the call is tried first on a child of ours. */
static bool gdb_can_call_here(void)
{
	static struct gdb_command probe;
	char output[GDB_OUTPUT_MAX], pid[32];
	pid_t child = fork();

	if (child < 0)
		return true; /* the attach itself will say what is wrong */
	if (child == 0)
		for (;;)
			pause();
	snprintf(pid, sizeof(pid), "%ld", (long)child);
	probe.argc = 0;
	if (add(&probe, "gdb", NULL, NULL) < 0 ||
	    add(&probe, "-p", NULL, NULL) < 0 ||
	    add(&probe, "%s", pid, NULL) < 0 ||
	    add(&probe, "-batch", NULL, NULL) < 0 ||
	    add(&probe, "-nx", NULL, NULL) < 0 ||
	    add(&probe, "-iex", NULL, NULL) < 0 ||
	    add(&probe, "set debuginfod enabled off", NULL, NULL) < 0 ||
	    add(&probe, "-ex", NULL, NULL) < 0 ||
	    add(&probe, "call (int)getpid()", NULL, NULL) < 0)
		output[0] = '\0';
	else
		run_gdb(&probe, output, sizeof(output));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return !strstr(output, "Couldn't write extended state");
}

/* gdb's last lines, for a message. */
static const char *last_lines(const char *output)
{
	size_t n = strlen(output);
	int lines = 0;

	while (n > 0 && lines < 4)
		if (output[--n] == '\n' && n + 1 < strlen(output))
			lines++;
	return output + n + (output[n] == '\n');
}

/* The pid names the process of the request still: the same start time
 * and the same user. */
static bool still_the_process(const struct ctl_attach_request *r)
{
	struct ctl_identity now;

	return ctl_identify(r->pid, &now) == r->identified &&
	       now.start_ticks == r->process.start_ticks &&
	       now.uid == r->process.uid && now.gid == r->process.gid;
}

int ctl_attach(const struct ctl_attach_request *r, char *why, size_t size)
{
	static struct gdb_command command;
	char output[GDB_OUTPUT_MAX], script[PATH_MAX];
	int status;

	if (!gdb_found())
		return snprintf(why, size, "attach needs gdb, which is not on "
				"PATH: install it (Debian, Ubuntu: apt-get "
				"install gdb; Fedora: dnf install gdb)"), -1;
	if (refused_why(r, why, size) < 0)
		return -1;
	if (!gdb_can_call_here())
		return snprintf(why, size, "this gdb cannot call a function in "
				"a process on this processor (it does not know "
				"its AMX registers, and the kernel refuses their "
				"write); process %ld was left alone: gdb 14 or "
				"later can attach", r->pid), -1;
	if (write_script(script, sizeof(script)) < 0)
		return snprintf(why, size, "%s: %s", script, strerror(errno)), -1;
	if (build_command(r, script, &command) < 0) {
		unlink(script);
		return snprintf(why, size, "a setting, the profile name or the "
				"runtime's path is too long or has a '\"' or "
				"'\\' in it"), -1;
	}
	if (!still_the_process(r)) {
		unlink(script);
		return snprintf(why, size, "process %ld ended, or changed its "
				"user, while memprof-ctl looked at it: nothing "
				"was attached", r->pid), -1;
	}
	status = run_gdb(&command, output, sizeof(output));
	unlink(script);
	if (strstr(output, "ptrace: Operation not permitted"))
		return snprintf(why, size, "the kernel refused ptrace on process "
				"%ld (in a container: it needs CAP_SYS_PTRACE, "
				"e.g. docker run --cap-add=SYS_PTRACE; or a "
				"security module forbids it)", r->pid), -1;
	if (status != 0)
		return snprintf(why, size, "gdb failed on process %ld: %s",
				r->pid, last_lines(output)), -1;
	if (strstr(output, "= (void *) 0x0\n"))
		return snprintf(why, size, "process %ld could not load %s: %s",
				r->pid, r->runtime, last_lines(output)), -1;
	return 0;
}
