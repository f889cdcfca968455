/* ctl-metrics.h - the Prometheus text exposition of the profiled
 * processes (the /metrics of memprof-ctl serve).
 *
 * Contract: ctl_metrics_render() writes the exposition (format 0.0.4) of
 * the processes given, as ctl_registry_list() returns them, to out; a
 * process whose profile cannot be read is skipped with a comment line,
 * never fatal.
 */
#ifndef SPPROF_CTL_METRICS_H
#define SPPROF_CTL_METRICS_H

#include <stddef.h>
#include <stdio.h>

#include "ctl-registry.h"

struct ctl_metrics_options {
	unsigned top_sites;           /* live bytes of the N largest sites per process */
	const char *service_variable; /* environment variable naming a process's service
	                                 (read from /proc/PID/environ), e.g. "SPPROF_SERVICE" */
};

/* 0, or -1 with why set (an output error). */
int ctl_metrics_render(FILE *out, const struct ctl_process *procs,
		       size_t count, const struct ctl_metrics_options *opt,
		       char *why, size_t size);

#endif /* SPPROF_CTL_METRICS_H */
