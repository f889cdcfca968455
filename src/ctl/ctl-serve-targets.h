/* ctl-serve-targets.h - memprof-ctl serve's targets for Prometheus' HTTP
 * service discovery (http_sd_config), one per service.
 *
 * Contract: ctl_serve_targets() writes, as the JSON list http_sd_config
 * reads, one target group per service (ctl-service.h) among the
 * recording processes given (those the client may read): the server's
 * own address (`address`, HOST:PORT as the client reached it) with the
 * labels `service` and `__param_service`, so that a scrape of the
 * target asks for /metrics?service=NAME (or, with a metrics_path of
 * /debug/pprof/heap, for that service's profile), whatever the pids of
 * its processes.  A name that is not UTF-8 cannot be a label and is left
 * out.  0, or -1 on an output error.
 */
#ifndef SPPROF_CTL_SERVE_TARGETS_H
#define SPPROF_CTL_SERVE_TARGETS_H

#include <stddef.h>
#include <stdio.h>

#include "ctl-registry.h"

int ctl_serve_targets(FILE *out, const char *address,
		      const struct ctl_process *procs, size_t count,
		      const char *service_variable);

#endif /* SPPROF_CTL_SERVE_TARGETS_H */
