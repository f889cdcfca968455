/* ctl-serve-index.h - the index page of memprof-ctl serve: the processes
 * it serves, with links to their profiles.
 *
 * Contract: ctl_serve_index() writes the processes given (those the
 * server may read) to out, as an HTML page for a person or, with json,
 * as {"processes": [{"pid", "command", "state", "heap", "allocs"}]} for
 * a program; the links are paths on the server ("/debug/pprof/heap?pid=N"),
 * null for a process that is not recording.  Every text that comes from
 * a process (its command line) is escaped.  0, or -1 on an output error.
 */
#ifndef SPPROF_CTL_SERVE_INDEX_H
#define SPPROF_CTL_SERVE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ctl-registry.h"

int ctl_serve_index(FILE *out, const struct ctl_process *procs, size_t count,
		    bool json);

#endif /* SPPROF_CTL_SERVE_INDEX_H */
