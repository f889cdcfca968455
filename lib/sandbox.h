/* sandbox.h - what the runtime can tell of a sandbox it runs in.
 *
 * A process under a seccomp filter may be killed (SIGSYS) for any system
 * call the filter does not expect; the runtime's work needs many (files,
 * sockets, mmap, /proc), and the filter cannot be read back.  So a
 * process that starts under a filter (systemd's SystemCallFilter=,
 * firejail, bwrap --seccomp) is left alone, and one that installs a
 * filter or moves into new namespaces or another root while the runtime
 * records (interpose_sandbox.c) finishes its profile first, while it
 * still can, and is left alone from then on.
 *
 * Contract: sandbox_seccomp_mode() reads the Seccomp field of
 * /proc/self/status with raw openat, read and close, the calls the
 * dynamic loader itself made to load us: 0 when there is no filter (or
 * /proc cannot be read), else the mode (1 strict, 2 filter).  Nothing
 * here allocates.
 */
#ifndef SPPROF_SANDBOX_H
#define SPPROF_SANDBOX_H

int sandbox_seccomp_mode(void);

#endif /* SPPROF_SANDBOX_H */
