/* report-progress.h - "reading FILE: 42 %" on stderr while a long report
 * is read.
 *
 * Contract: shows nothing unless stderr is a terminal, nothing during the
 * first half second of a file, and redraws at most ten times a second;
 * progress_done() erases the line so that the report starts clean.
 */
#ifndef SPPROF_REPORT_PROGRESS_H
#define SPPROF_REPORT_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "spprof/mlyze.h"

struct progress {
	bool enabled;
	bool shown;
	const char *file;
	uint64_t size; /* 0 when unknown */
	double started, drawn; /* seconds */
};

void progress_start(struct progress *p, const char *file);
/* Matches replay_tick (report-heap.h). */
void progress_tick(void *p, const mlyze_reader *reader);
void progress_done(struct progress *p);

#endif /* SPPROF_REPORT_PROGRESS_H */
