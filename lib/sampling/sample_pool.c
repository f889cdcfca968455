/* sample_pool.c - runs of pages for sampled blocks (see sample_pool.h).
 *
 * One reservation of POOL_MAX_BYTES, mapped at the first use, and a bitmap
 * of its pages, kept apart from the pages so that taking or giving back a
 * run touches none of its memory.  The bitmap is split into zones, and
 * each thread takes its runs from a zone of its own while there is room
 * there: two threads then seldom write the same word of the bitmap, and
 * need no lock between them (a run is claimed by compare-and-swap on the
 * one or two words that hold its bits).  Within a zone a run is the lowest
 * free stretch long enough (first fit), so freed pages join their free
 * neighbours at once and the pages in use stay packed at the zone's low
 * end: the resident memory follows the peak of the blocks live at once.
 */
#include "config.h"

#include "sample_pool.h"

#include <stdatomic.h>

#include "compiler.h"
#include "rawmem.h"

#define PAGE_BYTES SAMPLED_ALIGNMENT
#define POOL_MAX_BYTES ((size_t)64 << 20)
#define WORD_BITS 64
#define ZONES 8
#define ZONE_WORDS (POOL_MAX_BYTES / PAGE_BYTES / WORD_BITS / ZONES)
#define ZONE_PAGES (ZONE_WORDS * WORD_BITS)
#define NO_RUN SIZE_MAX

#define relaxed memory_order_relaxed

struct zone {
	_Atomic uint64_t used[ZONE_WORDS]; /* bit set: page in use */
	/* A hint: the lowest word that may have a free page.  Kept low by
	 * every free, so a stale value costs a longer scan, not a lost page. */
	_Atomic size_t lowest_free_word;
} __attribute__((aligned(64)));

static _Atomic(char *) pages; /* the reservation, NULL until first used */
static _Atomic int unavailable; /* mmap refused it: the pool serves nothing */
static struct zone zones[ZONES];
static _Atomic unsigned zones_given;
static INITIAL_EXEC_TLS unsigned char own_zone; /* zone number + 1 */

/* The bits of pages [first, first + count) that fall in word `word`. */
static uint64_t bits_in_word(size_t first, size_t count, size_t word)
{
	size_t lo = word * WORD_BITS, hi = lo + WORD_BITS;
	size_t from = first > lo ? first : lo;
	size_t to = first + count < hi ? first + count : hi;
	size_t n = to - from;

	if (from >= to)
		return 0;
	return (n == WORD_BITS ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1))
	       << (from - lo);
}

static void release_bits(struct zone *z, size_t word, uint64_t mask)
{
	atomic_fetch_and_explicit(&z->used[word], ~mask,
				  memory_order_release);
}

/* Sets `mask` in a word where all of it is clear; 0 when some of it is
 * taken. */
static int claim_bits(struct zone *z, size_t word, uint64_t mask)
{
	uint64_t old = atomic_load_explicit(&z->used[word], relaxed);

	do {
		if (old & mask)
			return 0;
	} while (!atomic_compare_exchange_weak_explicit(
		&z->used[word], &old, old | mask, memory_order_acquire,
		relaxed));
	return 1;
}

/* Claims pages [first, first + count) of a zone (at most two words);
 * 0, claiming nothing, when another thread took one of them first. */
static int claim(struct zone *z, size_t first, size_t count)
{
	size_t word = first / WORD_BITS, last = (first + count - 1) / WORD_BITS;
	uint64_t low = bits_in_word(first, count, word);

	if (!claim_bits(z, word, low))
		return 0;
	if (last != word &&
	    !claim_bits(z, last, bits_in_word(first, count, last))) {
		release_bits(z, word, low);
		return 0;
	}
	return 1;
}

_Static_assert(POOL_BLOCK_MAX / PAGE_BYTES <= WORD_BITS,
	       "a run fits in one word of the page map, or straddles two");

/* The bits of x that start a stretch of n set bits lying wholly in x
 * (1 <= n <= WORD_BITS): each step doubles the length checked, so a word
 * costs a few shifts however its free pages are scattered. */
static uint64_t stretch_starts(uint64_t x, size_t n)
{
	for (size_t have = 1; have < n && x;) {
		size_t step = have < n - have ? have : n - have;

		x &= x >> step;
		have += step;
	}
	return x;
}

/* Whether the n lowest bits of x (1 <= n < WORD_BITS) are all set. */
static int low_bits_set(uint64_t x, size_t n)
{
	uint64_t mask = ((uint64_t)1 << n) - 1;

	return (x & mask) == mask;
}

/* The first page of the lowest stretch of `count` free pages of a zone,
 * from word `start` on, or NO_RUN. */
static size_t find_free_pages(struct zone *z, size_t start, size_t count)
{
	size_t carried = 0; /* free pages at the end of the word before */

	for (size_t word = start; word < ZONE_WORDS; word++) {
		uint64_t free_bits =
			~atomic_load_explicit(&z->used[word], relaxed);
		uint64_t starts;

		/* A stretch from the word before starts lower than any in
		 * this word (had it fitted there, it would have been found). */
		if (carried && low_bits_set(free_bits, count - carried))
			return word * WORD_BITS - carried;
		starts = stretch_starts(free_bits, count);
		if (starts)
			return word * WORD_BITS + (size_t)__builtin_ctzll(starts);
		/* Not all free, or a stretch would have been found. */
		carried = (size_t)__builtin_clzll(~free_bits);
	}
	return NO_RUN;
}

/* Moves the hint of a zone past the full words from `hint` on, unless a
 * free has moved it meanwhile. */
static void skip_full_words(struct zone *z, size_t hint)
{
	size_t word = hint;

	while (word < ZONE_WORDS &&
	       atomic_load_explicit(&z->used[word], relaxed) == ~(uint64_t)0)
		word++;
	if (word != hint)
		atomic_compare_exchange_strong_explicit(
			&z->lowest_free_word, &hint, word, relaxed, relaxed);
}

/* Takes `count` pages of a zone: its lowest free stretch long enough,
 * looked for again when another thread claims it first.  NO_RUN when the
 * zone has no such stretch. */
static size_t take_from_zone(struct zone *z, size_t count)
{
	size_t hint = atomic_load_explicit(&z->lowest_free_word, relaxed);
	size_t first;

	for (;;) {
		first = find_free_pages(z, hint, count);
		if (first == NO_RUN && hint) /* the hint may be stale */
			first = find_free_pages(z, hint = 0, count);
		if (first == NO_RUN || claim(z, first, count))
			break;
	}
	if (first != NO_RUN)
		skip_full_words(z, hint);
	return first;
}

static char *reservation(void)
{
	char *p = atomic_load_explicit(&pages, memory_order_acquire);
	char *expected = NULL;

	if (p || atomic_load_explicit(&unavailable, relaxed))
		return p;
	/* mmap returns page-aligned memory, which SAMPLED_ALIGNMENT (one
	 * page) needs.  Of two threads mapping at once, one keeps its map. */
	p = rawmem_map(POOL_MAX_BYTES);
	if (!p) {
		atomic_store_explicit(&unavailable, 1, relaxed);
		return NULL;
	}
	if (!atomic_compare_exchange_strong_explicit(&pages, &expected, p,
						     memory_order_acq_rel,
						     memory_order_acquire)) {
		rawmem_unmap(p, POOL_MAX_BYTES);
		p = expected;
	}
	return p;
}

/* This thread's zone: given out in turn as threads first take a run. */
static unsigned zone_of_this_thread(void)
{
	if (!own_zone)
		own_zone = (unsigned char)(1 +
			atomic_fetch_add_explicit(&zones_given, 1, relaxed) %
				ZONES);
	return own_zone - 1u;
}

void *pool_alloc(size_t size)
{
	char *base;
	unsigned zone;

	if (size > POOL_BLOCK_MAX || !(base = reservation()))
		return NULL;
	zone = zone_of_this_thread();
	for (unsigned i = 0; i < ZONES; i++) {
		unsigned z = (zone + i) % ZONES;
		size_t first = take_from_zone(&zones[z],
					      pool_run_bytes(size) / PAGE_BYTES);

		if (first != NO_RUN)
			return base + (z * ZONE_PAGES + first) * PAGE_BYTES;
	}
	return NULL;
}

/* The page number of a block in the whole pool. */
static size_t page_of(const void *block)
{
	return (size_t)((const char *)block -
			atomic_load_explicit(&pages, relaxed)) /
	       PAGE_BYTES;
}

/* Gives back `count` pages from page `page` of the pool (at most two
 * words of one zone), and lowers the zone's hint to them. */
static void give_back(size_t page, size_t count)
{
	struct zone *z = &zones[page / ZONE_PAGES];
	size_t first = page % ZONE_PAGES, word = first / WORD_BITS;
	size_t last = (first + count - 1) / WORD_BITS;
	size_t hint = atomic_load_explicit(&z->lowest_free_word, relaxed);

	release_bits(z, word, bits_in_word(first, count, word));
	if (last != word)
		release_bits(z, last, bits_in_word(first, count, last));
	while (word < hint &&
	       !atomic_compare_exchange_weak_explicit(
		       &z->lowest_free_word, &hint, word, relaxed, relaxed))
		;
}

void pool_free(void *block, size_t size)
{
	give_back(page_of(block), pool_run_bytes(size) / PAGE_BYTES);
}

int pool_extend(void *block, size_t size, size_t new_size)
{
	size_t page = page_of(block);
	size_t had = pool_run_bytes(size) / PAGE_BYTES;
	size_t wanted = pool_run_bytes(new_size) / PAGE_BYTES;
	size_t first = page % ZONE_PAGES + had;

	if (new_size > POOL_BLOCK_MAX || first + (wanted - had) > ZONE_PAGES)
		return 0;
	return claim(&zones[page / ZONE_PAGES], first, wanted - had);
}

void pool_trim(void *block, size_t size, size_t new_size)
{
	size_t had = pool_run_bytes(size) / PAGE_BYTES;
	size_t kept = pool_run_bytes(new_size) / PAGE_BYTES;

	if (kept < had)
		give_back(page_of(block) + kept, had - kept);
}

int pool_contains(const void *p)
{
	const char *base = atomic_load_explicit(&pages, relaxed);

	return base && (const char *)p >= base &&
	       (const char *)p < base + POOL_MAX_BYTES;
}
