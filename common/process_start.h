/* process_start.h - when a process started, to tell a reused pid.
 *
 * Contract: process_start_ticks() reads field 22 of /proc/PID/stat (the
 * start time in clock ticks since boot), which two processes that had
 * the same pid in turn never share.  Returns 0 when it cannot be read
 * (no such process).  Nothing here allocates.
 */
#ifndef SPPROF_PROCESS_START_H
#define SPPROF_PROCESS_START_H

#include <stdint.h>

uint64_t process_start_ticks(long pid);

#endif /* SPPROF_PROCESS_START_H */
