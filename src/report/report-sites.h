/* report-sites.h - allocation sites: stacks grouped by what they name.
 *
 * Contract: attributes the estimates of every stack of the report to its
 * site, named for the grouping, and merges sites by name.  The site of a
 * stack is its innermost frame that is not an allocator, named or known
 * by its address only in a module (stripped code: "libfoo.so+0x1234"),
 * unless a Python frame calls that stripped code; by stack, every frame
 * past the allocators is shown.  Cumulatively, every function of a
 * stack is a site, and holds what everything it calls holds.  Also keeps
 * the totals of all stacks, and which stacks make each site.
 */
#ifndef SPPROF_REPORT_SITES_H
#define SPPROF_REPORT_SITES_H

#include "report-index.h"
#include "report-stacks.h"

/* Fewer samples than this make a site "low_samples" in JSON. */
#define FEW_SAMPLES 10
/* An estimate whose 95 % interval is wider than this fraction of it, on
 * either side, is rough. */
#define ROUGH_INTERVAL 0.5
/* Code known by address only that carries more than this share of the
 * samples is worth a note. */
#define UNNAMED_SITES_LIMIT 0.05

enum sort_key {
	SORT_BY_LIVE,      /* estimated live bytes */
	SORT_BY_ALLOCATED, /* estimated bytes allocated */
	SORT_BY_COUNT,     /* estimated number of allocations */
};

/* "live", "allocated", "count", by enum sort_key. */
extern const char *const sort_names[3];

/* The kind of memory a site holds, by its enum memory_kind bits:
 * "heap", "mapped" or "heap and mapped". */
const char *site_kind_name(unsigned kinds);

struct site {
	char *key;
	char *text;
	char **callers; /* by stack: the frames that led to the site */
	size_t caller_count;
	/* By stack: the site's frame and its callers, as indexes in the
	 * stack table's frames (caller_count + 1 of them). */
	size_t *frames;
	struct heap_estimates heap;
	unsigned kinds; /* enum memory_kind bits of its stacks */
	/* The stacks that add to the site, as indexes in the stack table. */
	size_t *stacks;
	size_t stack_count, stack_capacity;
};

struct site_table {
	enum grouping grouping;
	bool cumulative;
	struct text_index keys; /* key -> index in sites, until sorted */
	struct site *sites;
	size_t count, capacity;
	struct heap_estimates heap; /* all stacks */
	/* By module: the samples carried by a frame of it known by its
	 * address only, though its file was read (the site, or a frame the
	 * site was chosen past); and the samples of every stack with a
	 * site. */
	uint64_t *unnamed;
	uint64_t samples_with_site;
};

/* The sites of every stack of `stacks`. */
void sites_build(struct site_table *table, const struct stack_table *stacks,
		 enum grouping grouping, bool cumulative);
void sites_free(struct site_table *table);
/* A note naming the modules whose code, known by its address only, is the
 * site of more than UNNAMED_SITES_LIMIT of the samples, or lies between
 * the allocator and their site, and what to do
 * about it; else NULL.  Belongs to the caller. */
char *sites_unnamed_note(const struct site_table *table,
			 const struct stack_table *stacks);
/* Order sites from the largest to the smallest by `key`, live bytes
 * counted at moment `at`. */
void sites_sort(struct site_table *table, enum sort_key key, enum moment at);
/* The estimate a site is ranked by for `key` (at moment `at`). */
const struct estimate *site_measure(const struct site *site,
				    enum sort_key key, enum moment at);
/* Its bytes (blocks for SORT_BY_COUNT), and their variance in *variance
 * unless NULL. */
double site_value(const struct site *site, enum sort_key key,
		  enum moment at, double *variance);
/* Whether that estimate is rough (see ROUGH_INTERVAL). */
bool site_rough(const struct site *site, enum sort_key key, enum moment at);

#endif /* SPPROF_REPORT_SITES_H */
