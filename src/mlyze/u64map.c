/* u64map.c - hash map from 64-bit keys to pairs of words (see u64map.h). */
#include "config.h"

#include "u64map.h"

#include <stdlib.h>

#define MIN_BITS 4 /* 16 slots */

/* The keys we see (aligned addresses, small consecutive ids) have little
 * entropy, and some in their low bits only: mix every bit into the top
 * ones, which pick the slot (the first half of MurmurHash3's finalizer;
 * a single multiplication clusters keys that are themselves multiples of
 * a similar constant). */
static size_t home_slot(const struct u64map *map, uint64_t key)
{
	key ^= key >> 33;
	key *= UINT64_C(0xff51afd7ed558ccd);
	key ^= key >> 33;
	return (size_t)(key >> map->shift);
}

static bool in_use(const struct u64map *map, size_t i)
{
	return (map->used[i / 64] >> (i % 64)) & 1;
}

static void mark(struct u64map *map, size_t i, bool used)
{
	if (used)
		map->used[i / 64] |= UINT64_C(1) << (i % 64);
	else
		map->used[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

void u64map_init(struct u64map *map)
{
	map->slots = NULL;
	map->used = NULL;
	map->mask = 0;
	map->count = 0;
	map->shift = 64;
}

void u64map_free(struct u64map *map)
{
	free(map->slots);
	free(map->used);
	u64map_init(map);
}

/* Store an entry known to be absent, into a table with room for it. */
static void place(struct u64map *map, uint64_t key, struct u64map_value value)
{
	size_t i = home_slot(map, key);

	while (in_use(map, i))
		i = (i + 1) & map->mask;
	map->slots[i].key = key;
	map->slots[i].value = value;
	mark(map, i, true);
}

static int grow(struct u64map *map)
{
	unsigned bits = map->slots ? 64 - map->shift + 1 : MIN_BITS;
	size_t n = (size_t)1 << bits;
	struct u64map old = *map;
	struct u64map_slot *slots = malloc(n * sizeof(*slots));
	uint64_t *used = calloc(n / 64 + 1, sizeof(*used));

	if (!slots || !used) {
		free(slots);
		free(used);
		return -1;
	}
	map->slots = slots;
	map->used = used;
	map->mask = n - 1;
	map->shift = 64 - bits;
	for (size_t i = 0; old.slots && i <= old.mask; i++)
		if (in_use(&old, i))
			place(map, old.slots[i].key, old.slots[i].value);
	free(old.slots);
	free(old.used);
	return 0;
}

static size_t find(const struct u64map *map, uint64_t key)
{
	if (!map->slots)
		return SIZE_MAX;
	for (size_t i = home_slot(map, key); in_use(map, i);
	     i = (i + 1) & map->mask)
		if (map->slots[i].key == key)
			return i;
	return SIZE_MAX;
}

struct u64map_value *u64map_insert(struct u64map *map, uint64_t key,
				   bool *existed)
{
	size_t i;

	if ((map->count + 1) * 2 > map->mask + 1 && grow(map) < 0)
		return NULL;
	for (i = home_slot(map, key); in_use(map, i); i = (i + 1) & map->mask) {
		if (map->slots[i].key == key) {
			*existed = true;
			return &map->slots[i].value;
		}
	}
	map->slots[i].key = key;
	mark(map, i, true);
	map->count++;
	*existed = false;
	return &map->slots[i].value;
}

int u64map_put(struct u64map *map, uint64_t key, struct u64map_value value)
{
	bool existed;
	struct u64map_value *slot = u64map_insert(map, key, &existed);

	if (!slot)
		return -1;
	*slot = value;
	return existed;
}

void u64map_prefetch(const struct u64map *map, uint64_t key)
{
	size_t i;

	if (!map->slots)
		return;
	i = home_slot(map, key);
	__builtin_prefetch(&map->slots[i]);
	__builtin_prefetch(&map->used[i / 64]);
}

const struct u64map_value *u64map_get(const struct u64map *map, uint64_t key)
{
	size_t i = find(map, key);

	return i == SIZE_MAX ? NULL : &map->slots[i].value;
}

/* Backward-shift deletion: move later members of the probe run into the
 * hole when their home slot allows it, so no run is ever broken. */
bool u64map_take(struct u64map *map, uint64_t key, struct u64map_value *value)
{
	size_t hole = find(map, key);

	if (hole == SIZE_MAX)
		return false;
	*value = map->slots[hole].value;
	for (size_t i = (hole + 1) & map->mask; in_use(map, i);
	     i = (i + 1) & map->mask) {
		size_t home = home_slot(map, map->slots[i].key);

		/* Entry i may fill the hole if its home is not in (hole, i]. */
		if (((i - home) & map->mask) >= ((i - hole) & map->mask)) {
			map->slots[hole] = map->slots[i];
			hole = i;
		}
	}
	mark(map, hole, false);
	map->count--;
	return true;
}

const struct u64map_slot *u64map_next(const struct u64map *map,
				      size_t *cursor)
{
	for (; map->slots && *cursor <= map->mask; ++*cursor)
		if (in_use(map, *cursor))
			return &map->slots[(*cursor)++];
	return NULL;
}
