/* report-sites.h - allocation sites: stacks grouped by what they name.
 *
 * Contract: attributes the estimates of every stack of a profile to its
 * site (the first frame that is not an allocator, named for the grouping)
 * and merges sites by name, so that profiles of different processes (other
 * addresses, same code) add up.  Also keeps the totals of all sites.
 */
#ifndef SPPROF_REPORT_SITES_H
#define SPPROF_REPORT_SITES_H

#include "report-frames.h"
#include "report-heap.h"
#include "u64map.h"

/* Fewer samples than this make a rough estimate. */
#define FEW_SAMPLES 10

enum sort_key {
	SORT_BY_LIVE,      /* estimated live bytes */
	SORT_BY_ALLOCATED, /* estimated bytes allocated */
	SORT_BY_COUNT,     /* estimated number of allocations */
};

/* "live", "allocated", "count", by enum sort_key. */
extern const char *const sort_names[3];

struct site {
	char *key;
	char *text;
	char **callers; /* by stack: the frames that led to the site */
	size_t caller_count;
	struct heap_estimates heap;
};

struct site_table {
	enum grouping grouping;
	struct u64map by_hash; /* hash of the key -> index in sites */
	struct site *sites;
	size_t count, capacity;
	struct heap_estimates heap; /* all sites */
};

void sites_init(struct site_table *table, enum grouping grouping);
void sites_free(struct site_table *table);
/* Add the estimates of one replayed profile (its reader still open). */
void sites_add_profile(struct site_table *table, struct frame_namer *namer,
		       const mlyze_reader *reader,
		       const struct heap_replay *replay);
/* Order sites from the largest to the smallest by `key`, live bytes
 * counted at moment `at`; no profile can be added afterwards. */
void sites_sort(struct site_table *table, enum sort_key key, enum moment at);
/* The samples behind a site's estimate for `key` (at moment `at`). */
uint64_t site_samples(const struct site *site, enum sort_key key,
		      enum moment at);

#endif /* SPPROF_REPORT_SITES_H */
