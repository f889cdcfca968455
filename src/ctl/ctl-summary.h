/* ctl-summary.h - what a running profile holds so far, read from its
 * streamed file.
 *
 * Contract: ctl_summarise() replays the streamed file of a recording
 * process (or any profile) with the same estimator as memprof-report:
 * the samples so far and the estimated live heap with its 95 % interval.
 * It only reads the file; the process is not asked anything.
 */
#ifndef SPPROF_CTL_SUMMARY_H
#define SPPROF_CTL_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

struct ctl_summary {
	uint64_t samples;  /* ALLOC events so far */
	double live_bytes; /* estimated live heap */
	double live_error; /* half-width of its 95 % interval */
};

/* 0, or -1 with why set. */
int ctl_summarise(const char *profile, struct ctl_summary *out, char *why,
		  size_t size);

#endif /* SPPROF_CTL_SUMMARY_H */
