/* Unit tests of the pool of pages for sampled blocks.  Check runs each
 * test in a child process of its own, so each starts with an empty pool. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "sample_pool.h"

Suite *test_suite(void);

#define PAGE ((size_t)SAMPLED_ALIGNMENT)
#define MAX_RUN_PAGES (POOL_BLOCK_MAX / PAGE)
/* What the pool may map: 64 MiB, as sample_pool.c says. */
#define MAP_LIMIT ((size_t)64 << 20)

static int overlaps(const char *a, size_t a_bytes, const char *b,
		    size_t b_bytes)
{
	return a < b + b_bytes && b < a + a_bytes;
}

START_TEST(run_sizes_are_whole_pages)
{
	ck_assert_uint_eq(pool_run_bytes(0), PAGE);
	ck_assert_uint_eq(pool_run_bytes(1), PAGE);
	ck_assert_uint_eq(pool_run_bytes(PAGE), PAGE);
	ck_assert_uint_eq(pool_run_bytes(PAGE + 1), 2 * PAGE);
	ck_assert_uint_eq(pool_run_bytes(POOL_BLOCK_MAX), POOL_BLOCK_MAX);
}
END_TEST

/* Runs of every length are aligned, usable to their last byte, and never
 * share a byte while taken. */
START_TEST(runs_are_aligned_and_apart)
{
	enum { TAKEN = 3 * MAX_RUN_PAGES };
	char *runs[TAKEN];
	size_t sizes[TAKEN];

	for (size_t i = 0; i < TAKEN; i++) {
		sizes[i] = (i % MAX_RUN_PAGES) * PAGE + 1 + i;
		if (sizes[i] > POOL_BLOCK_MAX)
			sizes[i] = POOL_BLOCK_MAX;
		runs[i] = pool_alloc(sizes[i]);
		ck_assert_ptr_nonnull(runs[i]);
		ck_assert_uint_eq((uintptr_t)runs[i] % PAGE, 0);
		memset(runs[i], (int)i, pool_run_bytes(sizes[i]));
	}
	for (size_t i = 0; i < TAKEN; i++) {
		size_t bytes = pool_run_bytes(sizes[i]);

		ck_assert_int_eq(runs[i][0], (char)i);
		ck_assert_int_eq(runs[i][bytes - 1], (char)i);
		for (size_t j = 0; j < i; j++)
			ck_assert(!overlaps(runs[i], bytes, runs[j],
					    pool_run_bytes(sizes[j])));
	}
	for (size_t i = 0; i < TAKEN; i++)
		pool_free(runs[i], sizes[i]);
}
END_TEST

/* Free pages are reused lowest first: what stays in use stays packed. */
START_TEST(lowest_free_pages_are_reused_first)
{
	char *a = pool_alloc(3 * PAGE);
	char *b = pool_alloc(3 * PAGE);

	ck_assert_ptr_eq(b, a + 3 * PAGE);
	pool_free(b, 3 * PAGE - 10); /* any size of the same run length */
	pool_free(a, 3 * PAGE);
	ck_assert_ptr_eq(pool_alloc(2 * PAGE + 1), a);
	ck_assert_ptr_eq(pool_alloc(3 * PAGE), b);
}
END_TEST

/* Runs given back join their free neighbours, and a longer free stretch
 * serves shorter runs one after the other. */
START_TEST(free_pages_join_and_split)
{
	char *a = pool_alloc(3 * PAGE);
	char *b = pool_alloc(5 * PAGE);
	char *c = pool_alloc(PAGE);

	ck_assert_ptr_eq(c, b + 5 * PAGE);
	pool_free(a, 3 * PAGE);
	pool_free(b, 5 * PAGE);
	ck_assert_ptr_eq(pool_alloc(8 * PAGE), a);
	pool_free(a, 8 * PAGE);
	ck_assert_ptr_eq(pool_alloc(PAGE), a);
	ck_assert_ptr_eq(pool_alloc(3 * PAGE), a + PAGE);
	ck_assert_ptr_eq(pool_alloc(5 * PAGE), c + PAGE); /* 4 left: too few */
	ck_assert_ptr_eq(pool_alloc(4 * PAGE), a + 4 * PAGE);
}
END_TEST

/* Stretches of free pages across the words of the page map are found:
 * after three pages, runs of 32 pages straddle every 64th page. */
START_TEST(free_stretches_cross_map_words)
{
	char *start = pool_alloc(3 * PAGE);

	ck_assert_ptr_nonnull(start);
	for (size_t i = 0; i < 8; i++)
		ck_assert_ptr_eq(pool_alloc(POOL_BLOCK_MAX),
				 start + 3 * PAGE + i * POOL_BLOCK_MAX);
}
END_TEST

/* Runs are first fit, lowest first, whatever the pattern of free pages:
 * random runs taken and given back in one zone are checked against a
 * plain page-by-page search. */
START_TEST(runs_are_the_lowest_that_fit)
{
	enum { ZONE_PAGES = MAP_LIMIT / PAGE / 8, LIVE = 96, STEPS = 20000 };
	static unsigned char used[ZONE_PAGES];
	static struct { char *at; size_t pages; } live[LIVE];
	char *base = pool_alloc(PAGE);
	uint64_t rng = 0x9E3779B97F4A7C15ull;

	pool_free(base, PAGE);
	for (int step = 0; step < STEPS; step++) {
		size_t i, n, expected = 0, slot;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		slot = rng % LIVE;
		if (live[slot].at) {
			n = live[slot].pages;
			pool_free(live[slot].at, n * PAGE);
			memset(used + (live[slot].at - base) / PAGE, 0, n);
			live[slot].at = NULL;
			continue;
		}
		n = 1 + (rng >> 32) % MAX_RUN_PAGES;
		for (i = 0; i < n && expected + n <= ZONE_PAGES; i++)
			if (used[expected + i]) {
				expected += i + 1;
				i = (size_t)-1;
			}
		ck_assert_uint_le(expected + n, ZONE_PAGES);
		live[slot].at = pool_alloc(n * PAGE - (rng >> 40) % PAGE);
		live[slot].pages = n;
		ck_assert_ptr_eq(live[slot].at, base + expected * PAGE);
		memset(used + expected, 1, n);
	}
}
END_TEST

/* A run grows in place over the free pages after it, and only over
 * them; a shorter run gives back its last pages, which serve others. */
START_TEST(runs_resize_in_place)
{
	char *a = pool_alloc(2 * PAGE);
	char *b = pool_alloc(PAGE);

	ck_assert_ptr_eq(b, a + 2 * PAGE);
	ck_assert_int_eq(pool_extend(a, 2 * PAGE, 3 * PAGE), 0); /* b's */
	pool_free(b, PAGE);
	ck_assert_int_eq(pool_extend(a, 2 * PAGE, 4 * PAGE - 1), 1);
	ck_assert_ptr_eq(pool_alloc(PAGE), a + 4 * PAGE); /* a has 4 */
	pool_trim(a, 4 * PAGE - 1, PAGE + 1);
	ck_assert_ptr_eq(pool_alloc(2 * PAGE), a + 2 * PAGE);
	ck_assert_int_eq(pool_extend(a, PAGE + 1, 3 * PAGE), 0);
	pool_trim(a, PAGE + 1, 2 * PAGE); /* the same run: nothing to give */
	ck_assert_int_eq(pool_extend(a, 2 * PAGE, POOL_BLOCK_MAX + 1), 0);
	pool_free(a, 2 * PAGE);
	ck_assert_ptr_eq(pool_alloc(2 * PAGE), a);
}
END_TEST

/* A run never grows into the next zone, which another thread owns,
 * even where that zone's first page is free. */
START_TEST(runs_grow_only_inside_their_zone)
{
	enum { ZONE_BYTES = MAP_LIMIT / 8, RUN_PAGES = POOL_BLOCK_MAX / PAGE };
	char *first = pool_alloc(POOL_BLOCK_MAX), *last = first, *tail;

	while (last != first + ZONE_BYTES - POOL_BLOCK_MAX)
		ck_assert_ptr_nonnull(last = pool_alloc(POOL_BLOCK_MAX));
	pool_trim(last, POOL_BLOCK_MAX, PAGE);
	tail = pool_alloc((RUN_PAGES - 1) * PAGE); /* to the zone's end */
	ck_assert_ptr_eq(tail, last + PAGE);
	ck_assert_int_eq(pool_extend(tail, (RUN_PAGES - 1) * PAGE,
				     POOL_BLOCK_MAX), 0);
	pool_trim(tail, (RUN_PAGES - 1) * PAGE, (RUN_PAGES - 2) * PAGE);
	ck_assert_int_eq(pool_extend(tail, (RUN_PAGES - 2) * PAGE,
				     (RUN_PAGES - 1) * PAGE), 1);
}
END_TEST

START_TEST(oversized_blocks_are_refused)
{
	ck_assert_ptr_null(pool_alloc(POOL_BLOCK_MAX + 1));
	ck_assert_ptr_null(pool_alloc(SIZE_MAX));
}
END_TEST

/* The pool stops at its limit, wasting little below it, and serves again
 * once a run is given back. */
START_TEST(the_pool_is_bounded)
{
	size_t taken = 0;
	char *run, *last = NULL;

	while ((run = pool_alloc(POOL_BLOCK_MAX))) {
		taken += POOL_BLOCK_MAX;
		last = run;
		ck_assert_uint_le(taken, MAP_LIMIT);
	}
	ck_assert_uint_ge(taken, MAP_LIMIT - MAP_LIMIT / 16);
	ck_assert_ptr_null(pool_alloc(POOL_BLOCK_MAX));
	pool_free(last, POOL_BLOCK_MAX);
	ck_assert_ptr_eq(pool_alloc(PAGE), last);
	ck_assert_ptr_eq(pool_alloc(PAGE), last + PAGE);
}
END_TEST

/* The pool knows the addresses it serves, from its first byte (the first
 * run of a new pool) to its last, and no other: nothing, before it has
 * served a block. */
START_TEST(the_pool_knows_its_addresses)
{
	static char outside[PAGE];
	char *first;

	ck_assert(!pool_contains(outside));
	first = pool_alloc(PAGE);
	ck_assert_ptr_nonnull(first);
	ck_assert(pool_contains(first));
	ck_assert(pool_contains(first + MAP_LIMIT - 1));
	ck_assert(!pool_contains(first - 1));
	ck_assert(!pool_contains(first + MAP_LIMIT));
	ck_assert(!pool_contains(outside));
	pool_free(first, PAGE);
}
END_TEST

/* ---- several threads at once ---------------------------------------- */

enum { THREADS = 4, ROUNDS = 20000, HELD = 16, MAILBOX = 8 };

struct held_run {
	uint64_t *run;
	size_t size;
};

static _Atomic(struct held_run *) mailbox[MAILBOX];
static struct held_run parcels[THREADS][ROUNDS / 64 + 1];
static _Atomic unsigned overlaps_seen;

/* Every page of a run carries its tag in its first and last words. */
static void tag_run(uint64_t *run, size_t size, uint64_t tag)
{
	size_t words = PAGE / sizeof(uint64_t);

	for (size_t page = 0; page < pool_run_bytes(size) / PAGE; page++) {
		run[page * words] = tag;
		run[page * words + words - 1] = tag;
	}
}

static int run_tagged(const uint64_t *run, size_t size, uint64_t tag)
{
	size_t words = PAGE / sizeof(uint64_t);

	for (size_t page = 0; page < pool_run_bytes(size) / PAGE; page++)
		if (run[page * words] != tag ||
		    run[page * words + words - 1] != tag)
			return 0;
	return 1;
}

static void give_back(struct held_run *h)
{
	if (!run_tagged(h->run, h->size, (uint64_t)(uintptr_t)h->run))
		atomic_fetch_add(&overlaps_seen, 1);
	pool_free(h->run, h->size);
	h->run = NULL;
}

/* Takes and gives back runs of random lengths, some through a mailbox so
 * that another thread gives them back; a run whose tags change while it
 * is held was handed out twice.  Runs may be refused: the pool is kept
 * nearly full, so that the threads contend for the same pages. */
static void *churn_runs(void *arg)
{
	uintptr_t thread = (uintptr_t)arg;
	uint64_t random = (thread + 1) * 0x9E3779B97F4A7C15ull;
	struct held_run held[HELD] = { { 0 } };
	size_t swaps = 0;

	for (int round = 0; round < ROUNDS; round++) {
		struct held_run *h;

		random ^= random << 13;
		random ^= random >> 7;
		random ^= random << 17;
		h = &held[random % HELD];
		if (h->run)
			give_back(h);
		h->size = 1 + (random >> 16) % POOL_BLOCK_MAX;
		h->run = pool_alloc(h->size);
		if (!h->run)
			continue;
		tag_run(h->run, h->size, (uint64_t)(uintptr_t)h->run);
		if (round % 64 == 0) {
			parcels[thread][swaps] = *h;
			h->run = NULL;
			h = atomic_exchange(&mailbox[(random >> 8) % MAILBOX],
					    &parcels[thread][swaps++]);
			if (h)
				give_back(h);
		}
	}
	for (int i = 0; i < HELD; i++)
		if (held[i].run)
			give_back(&held[i]);
	return NULL;
}

START_TEST(threads_never_share_a_page)
{
	enum { RUNS = MAP_LIMIT / POOL_BLOCK_MAX, FREE_EVERY = 21 };
	static void *filler[RUNS];
	pthread_t threads[THREADS];

	for (size_t i = 0; i < RUNS; i++)
		ck_assert_ptr_nonnull(filler[i] = pool_alloc(POOL_BLOCK_MAX));
	for (size_t i = 0; i < RUNS; i += FREE_EVERY) {
		pool_free(filler[i], POOL_BLOCK_MAX);
		filler[i] = NULL;
	}
	for (uintptr_t t = 0; t < THREADS; t++)
		ck_assert_int_eq(pthread_create(&threads[t], NULL, churn_runs,
						(void *)t),
				 0);
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	for (int i = 0; i < MAILBOX; i++) {
		struct held_run *h = atomic_exchange(&mailbox[i], NULL);

		if (h)
			give_back(h);
	}
	for (size_t i = 0; i < RUNS; i++)
		if (filler[i])
			pool_free(filler[i], POOL_BLOCK_MAX);
	/* Every page is free again: the whole pool can be taken. */
	for (size_t taken = 0; taken < MAP_LIMIT; taken += POOL_BLOCK_MAX)
		ck_assert_ptr_nonnull(pool_alloc(POOL_BLOCK_MAX));
	ck_assert_msg(atomic_load(&overlaps_seen) == 0,
		      "%u runs were handed out while another thread held them",
		      atomic_load(&overlaps_seen));
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("sample_pool");
	TCase *tc = tcase_create("sample_pool");

	tcase_add_test(tc, run_sizes_are_whole_pages);
	tcase_add_test(tc, runs_are_aligned_and_apart);
	tcase_add_test(tc, lowest_free_pages_are_reused_first);
	tcase_add_test(tc, free_pages_join_and_split);
	tcase_add_test(tc, free_stretches_cross_map_words);
	tcase_add_test(tc, runs_are_the_lowest_that_fit);
	tcase_add_test(tc, runs_resize_in_place);
	tcase_add_test(tc, runs_grow_only_inside_their_zone);
	tcase_add_test(tc, oversized_blocks_are_refused);
	tcase_add_test(tc, the_pool_is_bounded);
	tcase_add_test(tc, the_pool_knows_its_addresses);
	tcase_add_test(tc, threads_never_share_a_page);
	suite_add_tcase(s, tc);
	return s;
}
