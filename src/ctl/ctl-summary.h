/* ctl-summary.h - what a running profile holds so far, read from its
 * streamed file.
 *
 * Contract: ctl_summarise() replays the streamed file of a recording
 * process (or any profile), through its descriptor, with memprof-report's
 * engine (report_engine_run(), up to the replay): the samples so far and
 * the estimated live heap with its 95 % interval.
 * It only reads the file; the process is not asked anything.
 * ctl_summary_of() says the same of a profile replayed already.
 */
#ifndef SPPROF_CTL_SUMMARY_H
#define SPPROF_CTL_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "report-engine.h"
#include "report-heap.h"

struct ctl_summary {
	uint64_t samples;  /* ALLOC events so far */
	double live_bytes; /* estimated live heap */
	double live_error; /* half-width of its 95 % interval */
	double allocated_bytes; /* estimated bytes allocated so far */
};

/* The profile open at fd (from its current offset; `name` for messages):
 * 0, or -1 with why set. */
int ctl_summarise(int fd, const char *name, struct ctl_summary *out,
		  char *why, size_t size);

void ctl_summary_of(const struct heap_replay *h, struct ctl_summary *out);

/* One stream read by the report engine, and where what it says goes. */
struct ctl_reading {
	int fd;           /* read from its current offset, not closed */
	const char *name; /* for messages */
	struct ctl_summary *summary;
	char *why; /* why it could not be read */
	size_t size;
};

/* The request that reads it up to step `until` (report-engine.h), its
 * summary and why it failed kept in *reading; the rest is the
 * caller's to set. */
struct report_request ctl_stream_request(struct ctl_reading *reading,
					 enum report_step until);

/* Ignores the warnings of a reader: a streamed file is unfinished by
 * nature, and they say nothing. */
void ctl_ignore_warning(void *ctx, const char *message);

#endif /* SPPROF_CTL_SUMMARY_H */
