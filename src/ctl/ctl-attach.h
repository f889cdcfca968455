/* ctl-attach.h - load the runtime into a running process with gdb.
 *
 * Contract: ctl_attach() makes process `pid` (which has no runtime yet)
 * load `runtime` with dlopen(), through gdb in batch mode, with the
 * settings the runtime reads at load put into its environment around the
 * call and taken out again: the SPPROF_* settings of the caller's
 * environment, SPPROF_OUTPUT=output (an absolute pattern), and
 * SPPROF_PYTHON_WALKER=python_walker when there is one.  Before running gdb it checks what would make
 * ptrace fail (gdb missing, another user's process, a set-user-ID
 * program, Yama's ptrace_scope) and says so with the fix; right before
 * gdb it checks that the pid still names the process that was meant
 * (its start time and user), not one that reused it; gdb's own
 * complaint is shown when it fails anyway.  Returns 0, or -1 with why.
 */
#ifndef SPPROF_CTL_ATTACH_H
#define SPPROF_CTL_ATTACH_H

#include <stddef.h>

#include "ctl-user.h"

struct ctl_attach_request {
	long pid;
	/* Who the process was when the command began (ctl_identify()):
	 * gdb runs only while it is still that process, of that user. */
	int identified;
	struct ctl_identity process;
	const char *runtime;
	const char *python_walker; /* NULL: none */
	const char *output;
};

int ctl_attach(const struct ctl_attach_request *r, char *why, size_t size);

#endif /* SPPROF_CTL_ATTACH_H */
