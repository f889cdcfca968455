/* clock.h - timestamps for samples and events (vDSO clocks, no allocation). */
#ifndef SPPROF_CLOCK_H
#define SPPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

#endif /* SPPROF_CLOCK_H */
