/* wrap-child.h - running COMMAND as a child of memprof-wrap.
 *
 * Contract: wrap_run() starts PATH with ARGV in the current environment,
 * searching nothing (PATH is already resolved) but running a file that is
 * neither ELF nor #! script with /bin/sh, as execvp() does.  It forwards
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to memprof-wrap to the child,
 * waits for it and returns the status memprof-wrap exits with: the child's
 * exit status, or 128+N when signal N killed it.  memprof-wrap adopts the
 * orphans of the command's process tree, so it can tell in
 * *DESCENDANTS_RUNNING whether some of them outlive the command.  While it
 * waits, it takes what the runtime sends to MANIFEST.
 */
#ifndef SPPROF_WRAP_CHILD_H
#define SPPROF_WRAP_CHILD_H

#include <stdbool.h>

#include "wrap-manifest.h"

int wrap_run(const char *path, char *const argv[],
	     struct wrap_manifest *manifest, bool *descendants_running);

#endif
