/* ctl-service.c - the service a profiled process belongs to (see
 * ctl-service.h). */
#include "config.h"

#include "ctl-service.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of `variable` in the environment the process started with. */
static bool from_environment(long pid, const char *variable, char *out,
			     size_t size)
{
	char path[64], *entry = NULL;
	size_t capacity = 0, prefix = strlen(variable);
	bool found = false;
	FILE *environ_file;

	snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
	environ_file = prefix ? fopen(path, "r") : NULL;
	if (!environ_file)
		return false;
	while (!found && getdelim(&entry, &capacity, '\0', environ_file) > 0) {
		if (strncmp(entry, variable, prefix) == 0 &&
		    entry[prefix] == '=' && entry[prefix + 1]) {
			snprintf(out, size, "%s", entry + prefix + 1);
			found = true;
		}
	}
	free(entry);
	fclose(environ_file);
	return found;
}

/* The systemd service unit of its cgroup (of any hierarchy). */
static bool from_unit(long pid, char *out, size_t size)
{
	static const char suffix[] = ".service";
	char path[64], line[4096];
	bool found = false;
	FILE *cgroup;

	snprintf(path, sizeof(path), "/proc/%ld/cgroup", pid);
	if (!(cgroup = fopen(path, "r")))
		return false;
	while (!found && fgets(line, sizeof(line), cgroup)) {
		line[strcspn(line, "\n")] = '\0';
		/* The innermost unit: a service's own cgroups lie below it. */
		for (char *part = strtok(strchr(line, '/'), "/"); part;
		     part = strtok(NULL, "/")) {
			size_t n = strlen(part);

			if (n > strlen(suffix) &&
			    strcmp(part + n - strlen(suffix), suffix) == 0) {
				snprintf(out, size, "%s", part);
				found = true;
			}
		}
	}
	fclose(cgroup);
	return found;
}

/* The name of its command. */
static bool from_command(long pid, char *out, size_t size)
{
	char path[64];
	FILE *comm;
	bool found;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (!(comm = fopen(path, "r")))
		return false;
	found = fgets(out, (int)size, comm) != NULL;
	fclose(comm);
	out[strcspn(out, "\n")] = '\0';
	return found && out[0];
}

void ctl_service_of(long pid, const char *variable, char *out, size_t size)
{
	out[0] = '\0';
	if (!from_environment(pid, variable ? variable : "", out, size) &&
	    !from_unit(pid, out, size) && !from_command(pid, out, size))
		out[0] = '\0';
}
