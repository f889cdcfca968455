/* report-memory.h - the process's resident memory over time, next to the
 * malloc heap the samples estimate.
 *
 * Contract: keeps the MEMORY readings of a profile (resident and
 * anonymous bytes, mlyze(5)), each with the estimated live malloc heap at
 * its moment, as a series of bounded length that always holds the
 * reading of most resident memory; and says, in plain words, how much of
 * that memory malloc explains.  The readings count everything the process
 * holds in RAM: code, thread stacks, and the heaps that do not come from
 * malloc (a JavaScript, Go or JVM heap, a garbage collector's arenas).
 */
#ifndef SPPROF_REPORT_MEMORY_H
#define SPPROF_REPORT_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Readings kept of one profile: enough for a chart; a longer run keeps
 * every other one, then every fourth... */
#define MEMORY_POINTS_MAX 2048

struct memory_point {
	uint64_t time_us;
	uint64_t resident, anonymous; /* bytes */
	double malloc_bytes; /* the estimated live malloc heap then */
};

struct memory_series {
	struct memory_point *points; /* in time order */
	size_t count, capacity;
	size_t stride;            /* readings per point kept */
	uint64_t readings;        /* readings seen */
	struct memory_point peak; /* of most resident memory */
};

void memory_series_add(struct memory_series *series,
		       const struct memory_point *point);
void memory_series_free(struct memory_series *series);

/* Adds the peak of `series` to *peaks (which then has the latest time of
 * them); false, and nothing added, when it has no readings. */
bool memory_peak_add(struct memory_point *peaks,
		     const struct memory_series *series);

/* "malloc accounts for 8 % of resident memory at the peak; the rest ...",
 * of the sum of the peaks of `processes` series, or NULL when none had a
 * reading.  Belongs to the caller. */
char *memory_explained_note(const struct memory_point *peaks,
			    size_t processes);

#endif /* SPPROF_REPORT_MEMORY_H */
