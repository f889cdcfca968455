/* ctl-registry.h - the running profiles of this host, from the runtime's
 * registry (see control_page.h).
 *
 * Contract: ctl_registry_list() gives every process whose entry the caller
 * may read (its own registry; as root also /run/spprof and every user's),
 * ctl_registry_find() one process's entry, or says in `why` why there is
 * none (no such process, a pid reused, no runtime, a registry directory
 * gone).  An entry is written by its process's user, who may forge it: it
 * is believed only when its directory (opened without following a
 * symbolic link) and its file (a regular file, opened without following
 * one or blocking) belong to one user, who is the user of the process it
 * names (ctl-user.h), and when its bytes are an entry for the pid of its
 * name (ctl-entry.h) with the process's start time.  So root's registry
 * speaks only for root's processes, and a user's only for that user's.
 * An entry whose process is gone, or whose pid now belongs to another
 * process, is removed on the way, through the directory's descriptor
 * and only while its name still holds the file checked.
 * ctl_registry_open_entry() opens a process's entry again (to make a
 * request), as its user, and only when it is the file checked.  Nothing
 * here touches the processes themselves.
 */
#ifndef SPPROF_CTL_REGISTRY_H
#define SPPROF_CTL_REGISTRY_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "control_page.h"

struct ctl_process {
	long pid;
	uid_t uid; /* the process's user, who owns its entry */
	gid_t gid;
	char registry[PATH_MAX]; /* the directory of the entry */
	dev_t entry_device;      /* the entry file checked */
	ino_t entry_inode;
	char command[256];        /* from /proc/PID/cmdline, or "?" */
	struct control_page page; /* as read, checked (ctl-entry.h) */
};

/* The processes in *out (free() it), in order of pid; -1 with why set
 * when no registry can be read. */
int ctl_registry_list(struct ctl_process **out, size_t *count, char *why,
		      size_t size);

int ctl_registry_find(long pid, struct ctl_process *out, char *why,
		      size_t size);

/* The entry of p opened with flags (O_RDWR), a descriptor; or -1 with
 * why set. */
int ctl_registry_open_entry(const struct ctl_process *p, int flags, char *why,
			    size_t size);

/* This user's registry directory (for messages). */
const char *ctl_registry_own(void);

#endif /* SPPROF_CTL_REGISTRY_H */
