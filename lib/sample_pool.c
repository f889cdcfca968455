/* sample_pool.c - runs of pages for sampled blocks (see sample_pool.h).
 *
 * One reservation of POOL_MAX_BYTES, mapped at the first use, and a bitmap
 * of its pages.  A run is the lowest free stretch long enough (first fit),
 * so freed pages join their free neighbours at once and the pages in use
 * stay packed at the low end: the pool's resident memory follows the peak
 * of the sampled blocks live at once.  The bitmap lives apart from the
 * pages, so taking or giving back a run touches none of its memory.
 */
#include "config.h"

#include "sample_pool.h"

#include <stdatomic.h>

#include "rawmem.h"
#include "spinlock.h"

#define PAGE_BYTES SAMPLED_ALIGNMENT
#define POOL_MAX_BYTES ((size_t)64 << 20)
#define POOL_PAGES (POOL_MAX_BYTES / PAGE_BYTES)
#define WORD_BITS 64
#define MAP_WORDS (POOL_PAGES / WORD_BITS)

static _Atomic int busy;
static char *pages;	  /* the reservation, NULL until first used */
static int unavailable;	  /* mmap refused it: the pool serves nothing */
static uint64_t used[MAP_WORDS]; /* bit set: page in use */
static size_t lowest_free_word;	 /* no free page below this word */

/* Sets (in_use 1) or clears the bits of pages [first, first + count). */
static void mark(size_t first, size_t count, int in_use)
{
	while (count) {
		size_t word = first / WORD_BITS, bit = first % WORD_BITS;
		size_t n = WORD_BITS - bit < count ? WORD_BITS - bit : count;
		uint64_t mask = (n == WORD_BITS ? ~(uint64_t)0
						: (((uint64_t)1 << n) - 1))
				<< bit;

		if (in_use)
			used[word] |= mask;
		else
			used[word] &= ~mask;
		first += n;
		count -= n;
	}
}

/* The first page of the lowest stretch of `count` free pages, or
 * POOL_PAGES when there is none.  Steps over whole stretches of free or
 * used pages at a time, not over single pages. */
static size_t find_free_pages(size_t count)
{
	size_t start = 0, found = 0;

	for (size_t word = lowest_free_word; word < MAP_WORDS; word++) {
		uint64_t free_bits = ~used[word];
		unsigned bit = 0;

		while (bit < WORD_BITS) {
			uint64_t ahead = free_bits >> bit;
			unsigned stretch;

			if (!ahead) { /* used to the end of the word */
				found = 0;
				break;
			}
			if (!(ahead & 1)) { /* skip used pages */
				found = 0;
				bit += (unsigned)__builtin_ctzll(ahead);
				continue;
			}
			stretch = ~ahead ? (unsigned)__builtin_ctzll(~ahead)
					 : WORD_BITS - bit;
			if (!found)
				start = word * WORD_BITS + bit;
			found += stretch;
			if (found >= count)
				return start;
			bit += stretch;
		}
	}
	return POOL_PAGES;
}

static int reserve(void)
{
	if (!pages && !unavailable) {
		/* mmap returns page-aligned memory, which SAMPLED_ALIGNMENT
		 * (one page) needs. */
		pages = rawmem_map(POOL_MAX_BYTES);
		unavailable = !pages;
	}
	return pages != NULL;
}

void *pool_alloc(size_t size)
{
	size_t count, first = POOL_PAGES;

	if (size > POOL_BLOCK_MAX)
		return NULL;
	count = pool_run_bytes(size) / PAGE_BYTES;
	spin_lock(&busy);
	if (reserve())
		first = find_free_pages(count);
	if (first < POOL_PAGES) {
		mark(first, count, 1);
		while (lowest_free_word < MAP_WORDS &&
		       used[lowest_free_word] == ~(uint64_t)0)
			lowest_free_word++;
	}
	spin_unlock(&busy);
	return first < POOL_PAGES ? pages + first * PAGE_BYTES : NULL;
}

void pool_free(void *block, size_t size)
{
	size_t first = (size_t)((char *)block - pages) / PAGE_BYTES;

	spin_lock(&busy);
	mark(first, pool_run_bytes(size) / PAGE_BYTES, 0);
	if (first / WORD_BITS < lowest_free_word)
		lowest_free_word = first / WORD_BITS;
	spin_unlock(&busy);
}

void pool_prefork(void)
{
	spin_lock(&busy);
}

void pool_postfork(void)
{
	spin_unlock(&busy);
}
