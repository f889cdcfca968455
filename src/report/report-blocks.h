/* report-blocks.h - what the lives, sizes and threads of the sampled
 * blocks say: --temporary, --histogram and --group-by thread.
 *
 * Contract: a replay tells blocks_collect() the life of every sampled
 * block (report-heap.h); it sums their weights by stack and class
 * (report-classes.h): by how long the block lived, by its size class, or
 * by its thread.  Each sum is a Horvitz-Thompson estimate like every
 * other (estimator.h): unbiased, with its variance, because a block's
 * life, size and thread are its own, whether it was sampled or not.
 * Then the classes of the report's stacks become a table of rows (sites,
 * size classes, threads) by columns (classes), which the text and JSON
 * views write.  Only blocks whose ALLOC the profile holds count: not the
 * totals a checkpoint carries (report-heap.h).
 */
#ifndef SPPROF_REPORT_BLOCKS_H
#define SPPROF_REPORT_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "report-classes.h"
#include "report-heap.h"
#include "report-sites.h"

enum block_view {
	BLOCKS_TEMPORARY, /* sites by their blocks freed young */
	BLOCKS_SIZES,     /* size classes, of every site or of some */
	BLOCKS_THREADS,   /* threads */
	BLOCK_VIEWS
};

/* "temporary", "histogram", "threads": the JSON key of each view. */
extern const char *const block_view_keys[BLOCK_VIEWS];

/* Blocks freed within this time of their birth are temporary by default:
 * see memprof-report(1), --temporary. */
#define TEMPORARY_DEFAULT_US 10000

/* The lifetimes of blocks, short to still live: each bucket holds the
 * blocks freed before its limit (and after the previous one's). */
enum { LIFETIME_BUCKETS = 8 };

struct block_options {
	enum block_view view;
	uint64_t temporary_us; /* BLOCKS_TEMPORARY */
	bool by_bytes;         /* BLOCKS_TEMPORARY: sites ranked by the bytes
				* of their temporary allocations, not their
				* number (--sort allocated) */
	const char *site;      /* BLOCKS_SIZES: the sites whose name holds
				* this text; NULL: every site */
};

/* A replay's blocks, by stack and class (the ctx of blocks_collect). */
struct block_collector {
	const struct block_options *options;
	struct class_table cells;
};

/* A replay_block_ended for a struct block_collector. */
void blocks_collect(void *ctx, const struct block_life *life);

struct block_row {
	char *label;
	char *name;             /* of a thread, when it has one */
	uint64_t key;           /* the thread or the size class */
	struct estimate *cells; /* by column */
};

struct block_table {
	enum block_view view;
	const struct block_options *options;
	const char *row_title;           /* "SITE", "SIZE", "THREAD" */
	const char *const *columns;      /* titles, for people */
	const char *const *column_keys;  /* for JSON */
	size_t column_count;
	/* The first columns are estimates of their own; the others split
	 * the allocations of the first (the lifetimes of a site's blocks). */
	size_t numeric_columns;
	struct block_row *rows;
	size_t row_count, capacity;
	struct block_row total;
	/* With --site: the sites whose stacks the histogram counts. */
	size_t sites_matched;
};

/* A table of `view` without rows. */
void block_table_init(struct block_table *t, const struct block_options *o);
void block_table_free(struct block_table *t);
/* The rows of the temporary and sizes views from the report's cells
 * (class_table_merge() of every profile's): sites ranked by their
 * temporary allocations (those with any, or every one with `all`), or
 * the size classes. */
void blocks_tabulate(struct block_table *t, const struct class_table *cells,
		     const struct site_table *sites,
		     const struct stack_table *stacks, bool all);
/* The threads of one profile (its cells by thread), named by
 * thread_names (report-heap.h; may be NULL); `pid` labels them when the
 * report has several profiles (else 0). */
void blocks_add_threads(struct block_table *t, const struct class_table *cells,
			char *const *thread_names, uint64_t pid);
/* The threads, most bytes allocated first. */
void blocks_sort_threads(struct block_table *t);

/* DURATION of --temporary: a number and a unit, us, ms or s ("10ms",
 * "0.5s"), in microseconds; -1 when it is not one. */
int64_t blocks_parse_duration(const char *text);

#endif /* SPPROF_REPORT_BLOCKS_H */
