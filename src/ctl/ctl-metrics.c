/* ctl-metrics.c - the Prometheus exposition (see ctl-metrics.h): only the
 * number of processes for now. */
#include "config.h"

#include "ctl-metrics.h"

int ctl_metrics_render(FILE *out, const struct ctl_process *procs,
		       size_t count, const struct ctl_metrics_options *opt,
		       char *why, size_t size)
{
	(void)procs;
	(void)opt;
	fprintf(out, "# TYPE spprof_processes gauge\nspprof_processes %zu\n",
		count);
	if (ferror(out)) {
		snprintf(why, size, "cannot write the metrics");
		return -1;
	}
	return 0;
}
