/* report-blocks.c - the sampled blocks live during a replay, by address
 * (see report-blocks.h). */
#include "config.h"

#include "report-blocks.h"
#include "u64map.h"

#include <stdlib.h>

#define MIN_BITS 4 /* 16 slots, as a u64map */

static size_t home_slot(const struct live_blocks *b, uint64_t address)
{
	return (size_t)(u64map_hash(address) >> b->shift);
}

static bool in_use(const struct live_blocks *b, size_t i)
{
	return b->slots[i].halves != 0;
}

/* The slot after slot i, in probing order. */
static size_t after(const struct live_blocks *b, size_t i)
{
	return (i + 1) & b->mask;
}

void live_blocks_init(struct live_blocks *b)
{
	*b = (struct live_blocks){ .shift = 64 };
}

void live_blocks_free(struct live_blocks *b)
{
	free(b->slots);
	live_blocks_init(b);
}

/* Twice the slots, each block moved in the order of the old slots. */
static int grow(struct live_blocks *b)
{
	unsigned bits = b->slots ? 64 - b->shift + 1 : MIN_BITS;
	size_t n = (size_t)1 << bits;
	struct live_blocks old = *b;
	struct live_block *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	b->slots = slots;
	b->mask = n - 1;
	b->shift = 64 - bits;
	for (size_t i = 0; old.slots && i <= old.mask; i++) {
		size_t j;

		if (!in_use(&old, i))
			continue;
		for (j = home_slot(b, old.slots[i].address); in_use(b, j);
		     j = after(b, j))
			;
		b->slots[j] = old.slots[i];
	}
	free(old.slots);
	return 0;
}

struct live_block *live_blocks_insert(struct live_blocks *b,
				      uint64_t address)
{
	size_t i;

	if ((b->count + 1) * 2 > b->mask + 1 && grow(b) < 0)
		return NULL;
	for (i = home_slot(b, address); in_use(b, i); i = after(b, i))
		if (b->slots[i].address == address)
			return &b->slots[i];
	b->slots[i].address = address;
	b->count++;
	return &b->slots[i];
}

void live_blocks_prefetch(const struct live_blocks *b, uint64_t address)
{
	if (b->slots)
		__builtin_prefetch(&b->slots[home_slot(b, address)]);
}

/* Backward-shift deletion, as in u64map_take(). */
bool live_blocks_take(struct live_blocks *b, uint64_t address,
		      struct live_block *block)
{
	size_t hole = b->slots ? home_slot(b, address) : 0;

	while (b->slots && in_use(b, hole) &&
	       b->slots[hole].address != address)
		hole = after(b, hole);
	if (!b->slots || !in_use(b, hole))
		return false;
	*block = b->slots[hole];
	for (size_t i = after(b, hole); in_use(b, i); i = after(b, i)) {
		if (u64map_fills_hole(home_slot(b, b->slots[i].address), hole,
				      i, b->mask)) {
			b->slots[hole] = b->slots[i];
			hole = i;
		}
	}
	b->slots[hole].halves = 0;
	b->count--;
	return true;
}

const struct live_block *live_blocks_next(const struct live_blocks *b,
					  size_t *cursor)
{
	while (b->slots && *cursor <= b->mask && !in_use(b, *cursor))
		++*cursor;
	return b->slots && *cursor <= b->mask ? &b->slots[(*cursor)++] : NULL;
}
