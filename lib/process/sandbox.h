/* sandbox.h - what the runtime can tell of a sandbox it runs in.
 *
 * A process under a seccomp filter may be killed (SIGSYS) for any system
 * call the filter does not expect; the runtime's work needs many (files,
 * sockets, mmap, /proc), and the filter cannot be read back.  The filters
 * the first profiled process of a tree ran under (a container's, a
 * service's) let the runtime work there, and so in every process that
 * has no other; a process under more filters than that (firejail,
 * bwrap --seccomp, a program's own sandbox before it executes a helper)
 * is left alone.  One that installs a filter, or moves into new
 * namespaces or another root, while the runtime records
 * (interpose_sandbox.c) finishes its profile first, while it still can,
 * and is left alone from then on.
 *
 * Contract: sandbox_seccomp_filters() reads how many seccomp filters the
 * process runs under from /proc/self/status (its Seccomp_filters field,
 * Linux 5.9; before that, 1 for any filter, from its Seccomp field), with
 * raw openat, read and close, the calls the dynamic loader itself made to
 * load us: 0 when there is none or /proc cannot be read.  Nothing here
 * allocates.
 */
#ifndef SPPROF_SANDBOX_H
#define SPPROF_SANDBOX_H

/* The environment variable that hands the first process's count on to
 * the processes it starts. */
#define SANDBOX_FILTERS_VARIABLE "SPPROF_SECCOMP_FILTERS"

long sandbox_seccomp_filters(void);

#endif /* SPPROF_SANDBOX_H */
