/* ctl-registry.h - the running profiles of this host, from the runtime's
 * registry (see control_page.h).
 *
 * Contract: ctl_registry_list() gives every process whose entry the caller
 * may read (its own registry; as root also /run/spprof and every user's),
 * checked against /proc: an entry whose process is gone, or whose pid now
 * belongs to another process, is removed on the way.  ctl_registry_find()
 * gives one process's entry, or says in `why` why there is none (no such
 * process, a pid reused, no runtime, a registry directory gone).  Nothing
 * here touches the processes themselves.
 */
#ifndef SPPROF_CTL_REGISTRY_H
#define SPPROF_CTL_REGISTRY_H

#include <limits.h>
#include <stddef.h>

#include "control_page.h"

struct ctl_process {
	long pid;
	char entry[PATH_MAX]; /* the registry file */
	char command[256];    /* from /proc/PID/cmdline, or "?" */
	struct control_page page; /* as read */
};

/* The processes in *out (free() it), in order of pid; -1 with why set
 * when no registry can be read. */
int ctl_registry_list(struct ctl_process **out, size_t *count, char *why,
		      size_t size);

int ctl_registry_find(long pid, struct ctl_process *out, char *why,
		      size_t size);

/* This user's registry directory (for messages). */
const char *ctl_registry_own(void);

#endif /* SPPROF_CTL_REGISTRY_H */
