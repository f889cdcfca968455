/* ctl-serve-targets.c - targets for Prometheus' HTTP service discovery
 * (see ctl-serve-targets.h). */
#include "config.h"

#include "ctl-serve-targets.h"

#include <jansson.h>

#include "ctl-service.h"

/* The longest service name kept. */
#define SERVICE_SIZE 256

static json_t *target_group(const char *address, const char *service)
{
	return json_pack("{s:[s], s:{s:s, s:s}}", "targets", address, "labels",
			 "service", service, "__param_service", service);
}

int ctl_serve_targets(FILE *out, const char *address,
		      const struct ctl_process *procs, size_t count,
		      const char *service_variable)
{
	json_t *groups = json_array(), *seen = json_object(), *group;
	char service[SERVICE_SIZE];
	int rc;

	for (size_t i = 0; i < count; i++) {
		if (procs[i].page.state != CONTROL_RECORDING ||
		    !procs[i].page.part[0])
			continue;
		ctl_service_of(procs[i].pid, service_variable, service,
			       sizeof(service));
		if (!service[0] || json_object_get(seen, service))
			continue;
		/* NULL for a name that is not UTF-8. */
		group = target_group(address, service);
		if (group && json_object_set_new(seen, service, json_true()) == 0)
			json_array_append_new(groups, group);
		else
			json_decref(group);
	}
	rc = json_dumpf(groups, out, JSON_INDENT(1)) < 0 ? -1 : 0;
	fputc('\n', out);
	json_decref(groups);
	json_decref(seen);
	return rc || ferror(out) ? -1 : 0;
}
