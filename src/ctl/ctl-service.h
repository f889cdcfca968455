/* ctl-service.h - the service a profiled process belongs to, by name.
 *
 * Contract: ctl_service_of() names the service of process pid, the first
 * of: the value of `variable` (SPPROF_SERVICE unless memprof-ctl serve
 * is told another) in the environment the process started with; the
 * systemd service unit it runs in (the last component of its cgroup
 * that ends in ".service", e.g. "mariadb.service"); the name of its
 * command (/proc/PID/comm).  "" when none can be read (the process is
 * gone).  It only reads /proc/PID; the names come from other users'
 * processes and are to be escaped wherever they are written.  A name
 * that stays the same when the process restarts lets a collector ask
 * for the service, not for a pid.
 */
#ifndef SPPROF_CTL_SERVICE_H
#define SPPROF_CTL_SERVICE_H

#include <stddef.h>

void ctl_service_of(long pid, const char *variable, char *out, size_t size);

#endif /* SPPROF_CTL_SERVICE_H */
