/* report-blocks.c - the lives, sizes and threads of the sampled blocks
 * (see report-blocks.h). */
#include "config.h"

#include "report-blocks.h"
#include "report-util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const block_view_keys[BLOCK_VIEWS] = {
	[BLOCKS_TEMPORARY] = "temporary",
	[BLOCKS_SIZES] = "histogram",
	[BLOCKS_THREADS] = "threads",
};

/* The upper limits of the lifetime buckets of freed blocks, in
 * microseconds; the last freed bucket has none, and the blocks still live
 * at the end make the last. */
static const uint64_t lifetime_limits_us[LIFETIME_BUCKETS - 2] = {
	100, 1000, 10000, 100000, 1000000, 10000000,
};

/* The classes of the temporary view: the temporary blocks, then the
 * lifetime buckets. */
enum { TEMPORARY_CLASS = 0, FIRST_LIFETIME_CLASS = 1 };
/* The classes of the threads view. */
enum { THREAD_FREED = 0, THREAD_LIVE_AT_END = 1 };

/* One table of columns per view: titles for people, keys for JSON. */
struct view_columns {
	const char *row_title;
	const char *const *titles, *const *keys;
	size_t count, numeric;
};

/* Each lifetime bucket holds the blocks that lived from the previous
 * limit up to its own, not every block younger than its limit: the
 * titles name both ends, so that shares that sum to 100 % do not read as
 * cumulative.  The JSON keys stay as they were, for the readers that know
 * them (memprof-report(1) says what they hold). */
static const char *const temporary_titles[] = {
	"TEMPORARY", "0-100us", "100us-1ms", "1-10ms", "10-100ms",
	"100ms-1s", "1-10s", ">=10s", "still live",
};
static const char *const temporary_keys[] = {
	"temporary", "under_100us", "under_1ms", "under_10ms",
	"under_100ms", "under_1s", "under_10s", "10s_or_more", "live_at_end",
};
static const char *const size_titles[] = { "ALLOCS" };
static const char *const size_keys[] = { "allocated" };
static const char *const thread_titles[] = { "ALLOCS", "LIVE AT END" };
static const char *const thread_keys[] = { "allocated", "live_at_end" };

static const struct view_columns view_columns[BLOCK_VIEWS] = {
	[BLOCKS_TEMPORARY] = { "SITE", temporary_titles, temporary_keys,
			       FIRST_LIFETIME_CLASS + LIFETIME_BUCKETS, 1 },
	[BLOCKS_SIZES] = { "SIZE", size_titles, size_keys, 1, 1 },
	[BLOCKS_THREADS] = { "THREAD", thread_titles, thread_keys, 2, 2 },
};

_Static_assert(sizeof(temporary_titles) / sizeof(temporary_titles[0]) ==
		       FIRST_LIFETIME_CLASS + LIFETIME_BUCKETS,
	       "a title for every lifetime bucket");

static uint32_t lifetime_bucket(const struct block_life *life)
{
	uint64_t lived = life->died_us - life->born_us;
	uint32_t bucket = 0;

	if (life->live_at_end)
		return LIFETIME_BUCKETS - 1;
	while (bucket < LIFETIME_BUCKETS - 2 &&
	       lived >= lifetime_limits_us[bucket])
		bucket++;
	return bucket;
}

/* Class k holds the sizes from 2^k to 2^(k+1) - 1. */
static uint32_t size_class(uint64_t size)
{
	return size ? 63u - (uint32_t)__builtin_clzll(size) : 0;
}

void blocks_collect(void *ctx, const struct block_life *life)
{
	struct block_collector *c = ctx;
	struct class_table *t = &c->cells;

	switch (c->options->view) {
	case BLOCKS_TEMPORARY:
		class_table_add_weight(t, life->stack,
				       FIRST_LIFETIME_CLASS +
					       lifetime_bucket(life),
				       &life->weight);
		if (!life->live_at_end &&
		    life->died_us - life->born_us <= c->options->temporary_us)
			class_table_add_weight(t, life->stack, TEMPORARY_CLASS,
					       &life->weight);
		break;
	case BLOCKS_SIZES:
		class_table_add_weight(t, life->stack, size_class(life->size),
				       &life->weight);
		break;
	default:
		/* A thread's blocks, whatever their stacks: the thread takes
		 * the place of the stack. */
		class_table_add_weight(t, life->thread,
				       life->live_at_end ? THREAD_LIVE_AT_END
							 : THREAD_FREED,
				       &life->weight);
		break;
	}
}

void block_table_init(struct block_table *t, const struct block_options *o)
{
	const struct view_columns *v = &view_columns[o->view];

	memset(t, 0, sizeof(*t));
	t->view = o->view;
	t->options = o;
	t->row_title = v->row_title;
	t->columns = v->titles;
	t->column_keys = v->keys;
	t->column_count = v->count;
	t->numeric_columns = v->numeric;
	t->total.cells = xcalloc(v->count, sizeof(struct estimate));
}

void block_table_free(struct block_table *t)
{
	for (size_t i = 0; i < t->row_count; i++) {
		free(t->rows[i].label);
		free(t->rows[i].name);
		free(t->rows[i].cells);
	}
	free(t->rows);
	free(t->total.cells);
	memset(t, 0, sizeof(*t));
}

static struct block_row *add_row(struct block_table *t, char *label,
				 uint64_t key)
{
	struct block_row *row;

	t->rows = xgrow(t->rows, &t->capacity, t->row_count + 1,
			sizeof(*t->rows));
	row = &t->rows[t->row_count++];
	row->label = label;
	row->name = NULL;
	row->key = key;
	row->cells = xcalloc(t->column_count, sizeof(*row->cells));
	return row;
}

/* A site's row: the sum of its stacks' cells. */
static void add_site_row(struct block_table *t, const struct class_table *cells,
			 const struct site *site, bool all)
{
	struct estimate sums[FIRST_LIFETIME_CLASS + LIFETIME_BUCKETS] = { 0 };
	struct block_row *row;

	for (size_t i = 0; i < site->stack_count; i++)
		for (size_t c = 0; c < t->column_count; c++) {
			const struct estimate *e = class_table_get(
				cells, site->stacks[i], (uint32_t)c);

			if (e)
				estimate_add(&sums[c], e);
		}
	if (sums[TEMPORARY_CLASS].samples == 0 && !all)
		return;
	row = add_row(t, xstrdup(site->text), 0);
	memcpy(row->cells, sums, t->column_count * sizeof(*row->cells));
}

/* Rows, largest first. */
static int descending(double x, double y)
{
	return (x < y) - (x > y);
}

static int by_temporary_count(const void *a, const void *b)
{
	return descending(
		((const struct block_row *)a)->cells[TEMPORARY_CLASS].count,
		((const struct block_row *)b)->cells[TEMPORARY_CLASS].count);
}

static int by_temporary_bytes(const void *a, const void *b)
{
	return descending(
		((const struct block_row *)a)->cells[TEMPORARY_CLASS].bytes,
		((const struct block_row *)b)->cells[TEMPORARY_CLASS].bytes);
}

static void tabulate_temporary(struct block_table *t,
			       const struct class_table *cells,
			       const struct site_table *sites, bool all)
{
	for (size_t i = 0; i < sites->count; i++)
		add_site_row(t, cells, &sites->sites[i], all);
	qsort(t->rows, t->row_count, sizeof(*t->rows),
	      t->options->by_bytes ? by_temporary_bytes : by_temporary_count);
	/* Every stack once: a cumulative site shares its stacks. */
	for (size_t i = 0; i < cells->count; i++)
		estimate_add(&t->total.cells[cells->cells[i].class_id],
			     &cells->cells[i].sum);
}

/* By stack of the report: whether the histogram counts it. */
static bool *stacks_of_sites(struct block_table *t,
			     const struct site_table *sites,
			     const struct stack_table *stacks)
{
	bool *chosen = xcalloc(stacks->stack_count + 1, sizeof(bool));
	const char *text = t->options->site;

	for (size_t i = 0; i < sites->count; i++) {
		const struct site *s = &sites->sites[i];

		if (text && !strstr(s->text, text))
			continue;
		t->sites_matched++;
		for (size_t k = 0; k < s->stack_count; k++)
			chosen[s->stacks[k]] = true;
	}
	return chosen;
}

static char *size_class_label(uint32_t class_id)
{
	char from[32], to[32];

	format_size(from, ldexp(1.0, (int)class_id));
	format_size(to, ldexp(1.0, (int)class_id + 1));
	return xasprintf("%s to %s", from, to);
}

static void tabulate_sizes(struct block_table *t,
			   const struct class_table *cells,
			   const struct site_table *sites,
			   const struct stack_table *stacks)
{
	struct estimate by_class[64] = { 0 };
	bool *chosen = stacks_of_sites(t, sites, stacks);

	for (size_t i = 0; i < cells->count; i++)
		if (chosen[cells->cells[i].stack])
			estimate_add(&by_class[cells->cells[i].class_id],
				     &cells->cells[i].sum);
	for (uint32_t k = 0; k < 64; k++) {
		if (by_class[k].samples == 0)
			continue;
		add_row(t, size_class_label(k), k)->cells[0] = by_class[k];
		estimate_add(&t->total.cells[0], &by_class[k]);
	}
	free(chosen);
}

void blocks_tabulate(struct block_table *t, const struct class_table *cells,
		     const struct site_table *sites,
		     const struct stack_table *stacks, bool all)
{
	if (t->view == BLOCKS_TEMPORARY)
		tabulate_temporary(t, cells, sites, all);
	else if (t->view == BLOCKS_SIZES)
		tabulate_sizes(t, cells, sites, stacks);
}

static char *thread_label(uint64_t thread, const char *name, uint64_t pid)
{
	char process[40] = "";

	if (pid)
		snprintf(process, sizeof(process), "pid %llu: ",
			 (unsigned long long)pid);
	return name ? xasprintf("%s%s (thread %llu)", process, name,
				(unsigned long long)thread)
		    : xasprintf("%sthread %llu", process,
				(unsigned long long)thread);
}

void blocks_add_threads(struct block_table *t, const struct class_table *cells,
			char *const *thread_names, uint64_t pid)
{
	/* By thread: 1 + the index of its row, 0 before it has one. */
	size_t *row_of = xcalloc(THREAD_IDS, sizeof(*row_of));

	for (size_t i = 0; i < cells->count; i++) {
		const struct class_cell *c = &cells->cells[i];
		const char *name = thread_names ? thread_names[c->stack] : NULL;
		struct block_row *row;

		if (!row_of[c->stack]) {
			add_row(t, thread_label(c->stack, name, pid), c->stack)
				->name = name ? xstrdup(name) : NULL;
			row_of[c->stack] = t->row_count;
		}
		row = &t->rows[row_of[c->stack] - 1];
		estimate_add(&row->cells[0], &c->sum);
		estimate_add(&t->total.cells[0], &c->sum);
		if (c->class_id == THREAD_LIVE_AT_END) {
			estimate_add(&row->cells[1], &c->sum);
			estimate_add(&t->total.cells[1], &c->sum);
		}
	}
	free(row_of);
}

static int by_bytes_allocated(const void *a, const void *b)
{
	return descending(((const struct block_row *)a)->cells[0].bytes,
			  ((const struct block_row *)b)->cells[0].bytes);
}

void blocks_sort_threads(struct block_table *t)
{
	qsort(t->rows, t->row_count, sizeof(*t->rows), by_bytes_allocated);
}

int64_t blocks_parse_duration(const char *text)
{
	static const struct {
		const char *unit;
		double us;
	} units[] = { { "us", 1 }, { "ms", 1e3 }, { "s", 1e6 } };
	char *end;
	double value;

	errno = 0;
	value = strtod(text, &end);
	if (errno || end == text || !(value >= 0) || !isfinite(value))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0 &&
		    value * units[i].us < 9.2e18)
			return (int64_t)llround(value * units[i].us);
	return -1;
}
