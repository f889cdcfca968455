/* ctl-metrics.h - the profiles of this host as Prometheus metrics.
 *
 * Contract: ctl_metrics_render() writes, for every recording process
 * given, what its streamed file holds so far as Prometheus text
 * exposition (format 0.0.4): one metric family per name, each with its
 * HELP and TYPE lines, one series per process labelled with its pid,
 * command and service.  Label values come from other users' processes:
 * they are escaped (backslash, double quote, newline), anything that is
 * not printable UTF-8 becomes '?', and they are cut to a bounded length.
 * A process's sites are named and ranked as memprof-report names them
 * (ctl-sites.h); its runtime statistics (memprof-stats.def) are those
 * its registry entry holds, which the runtime refreshes about once a
 * second while it samples.  A process that is not recording is left out.
 * With a cache of replays (ctl-follow.h), a rendering reads what the
 * streams gained since the last one, and says what a rendering without
 * would.  It only reads files (the profiles, the registry entries as given,
 * /proc/PID/environ); the processes are not asked anything.  A stream
 * is reached only through ctl-stream.h, and replayed and symbolized as
 * its process's user; the modules one user's streams name are never
 * read again for another's.
 */
#ifndef SPPROF_CTL_METRICS_H
#define SPPROF_CTL_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl-follow.h"
#include "ctl-registry.h"

struct ctl_metrics_options {
	unsigned top_sites;           /* live bytes of the N largest sites per process */
	const char *service_variable; /* environment variable naming a process's service
	                                 (read from /proc/PID/environ), e.g. "SPPROF_SERVICE" */
	uint64_t now_us; /* the moment of the scrape, microseconds since the
	                    epoch, to which the trends run; 0: the clock's */
	/* The trends are taken over the last growth_window_us before the
	 * scrape (ctl_sites_read()), so that a site that stopped growing
	 * stops being shown growing; 0: over the whole profile.  The
	 * follow cache's replays must have the same (ctl-follow.h). */
	uint64_t growth_window_us;
	/* The replays kept from one rendering to the next (ctl-follow.h),
	 * or NULL: every stream replayed from its start. */
	struct ctl_follow_cache *follow;
};

/* Writes the Prometheus text exposition (format 0.0.4) for the processes
 * given (as ctl_registry_list() returns them) to out.  A process whose
 * profile cannot be read is skipped with a comment line, never fatal.
 * 0, or -1 with why set (an output error). */
int ctl_metrics_render(FILE *out, const struct ctl_process *procs,
		       size_t count, const struct ctl_metrics_options *opt,
		       char *why, size_t size);

#endif /* SPPROF_CTL_METRICS_H */
