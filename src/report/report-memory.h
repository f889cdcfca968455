/* report-memory.h - the process's resident memory over time, next to the
 * malloc heap the samples estimate.
 *
 * Contract: keeps the MEMORY readings of a profile (resident and
 * anonymous bytes, and the kernel's high-water mark, mlyze(5)), each with
 * the estimated live malloc heap at its moment, as a series of bounded
 * length that always holds the reading of most resident memory and the
 * most resident memory of the process; and says, in plain words, how much
 * of that memory malloc explains, comparing the two peaks.  The readings count everything the process
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
	/* The most resident bytes so far, as the kernel kept them (its
	 * high-water mark); 0 when unknown. */
	uint64_t resident_peak;
	double malloc_bytes; /* the estimated live malloc heap then */
	double mapped_bytes; /* and the anonymous mappings counted */
};

struct memory_series {
	struct memory_point *points; /* in time order */
	size_t count, capacity;
	size_t stride;            /* readings per point kept */
	uint64_t readings;        /* readings seen */
	struct memory_point peak; /* of most resident memory */
	/* The most resident memory of the process: the kernel's high-water
	 * mark, or the largest reading when that is more (or unknown).  A
	 * peak may fall between readings: this one misses none. */
	uint64_t resident_high;
};

void memory_series_add(struct memory_series *series,
		       const struct memory_point *point);
void memory_series_free(struct memory_series *series);

/* Adds the reading of most resident memory of `series` to *peaks (which
 * then has the latest time of them), and its resident_high to
 * peaks->resident_peak; false, and nothing added, when it has no
 * readings. */
bool memory_peak_add(struct memory_point *peaks,
		     const struct memory_series *series);

/* The share of the most resident memory that the peak of the malloc heap
 * (`heap_peak` bytes) makes: like with like, two peaks, which need not
 * fall at one moment.  Negative when the heap's peak is more than the
 * resident one (blocks allocated and never touched take no RAM), where
 * no share can be given. */
double memory_heap_share(const struct memory_point *peaks, double heap_peak);

/* The profiles whose program allocated through a malloc that was not the
 * runtime's (mlyze_info.malloc_defined_by), unseen. */
struct unseen_malloc {
	const char *defined_by; /* the first one's; NULL when none */
	size_t profiles;
	size_t of;              /* profiles in all */
};

/* "malloc accounts for 8 % of resident memory at the peak: ...", of the
 * sums of the peaks of `processes` series (see memory_peak_add()) and of
 * the peaks of their heaps (`heap_peak` bytes, of which `mapped_peak`
 * are anonymous mappings, when the report counts any: "malloc accounts
 * for 3 % and anonymous mappings for 85 % ..."); or, when the heap's peak
 * is more than the resident one, what that means; or, when a program
 * allocated through a malloc of its own (`unseen`), that the profile
 * cannot say; NULL when there is nothing to say (no reading).  Belongs
 * to the caller. */
char *memory_explained_note(const struct memory_point *peaks,
			    size_t processes, double heap_peak,
			    double mapped_peak,
			    const struct unseen_malloc *unseen);

#endif /* SPPROF_REPORT_MEMORY_H */
