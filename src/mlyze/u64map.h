/* u64map.h - hash map from 64-bit keys to pairs of 64-bit words.
 *
 * Contract: open addressing with linear probing over a power-of-two table
 * kept at most half full, plus a bitmap of the slots in use (small enough
 * to stay in cache, and it leaves every key and value usable).  Deletion
 * shifts entries back, so there are no tombstones and lookups stay short
 * however many keys come and go.  Not thread-safe.
 */
#ifndef SPPROF_U64MAP_H
#define SPPROF_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a key maps to: two words the owner uses as it likes. */
struct u64map_value {
	uint64_t a, b;
};

struct u64map_slot {
	uint64_t key;
	struct u64map_value value;
};

struct u64map {
	struct u64map_slot *slots;
	uint64_t *used; /* bit i: slot i holds an entry */
	size_t mask;    /* slot count - 1 */
	size_t count;
	unsigned shift; /* 64 - log2(slot count) */
};

void u64map_init(struct u64map *map);
void u64map_free(struct u64map *map);

/* Insert or replace: returns 0 when key was new, 1 when its value was
 * replaced, -1 when out of memory. */
int u64map_put(struct u64map *map, uint64_t key, struct u64map_value value);
/* Where key's value is kept, entered when absent (*existed tells): one
 * lookup for a caller that reads the old value before storing the new
 * one.  Valid until the map next changes; NULL when out of memory. */
struct u64map_value *u64map_insert(struct u64map *map, uint64_t key,
				   bool *existed);
/* The value stored for key, or NULL. */
const struct u64map_value *u64map_get(const struct u64map *map, uint64_t key);
/* Starts loading where key's entry would be, so that a lookup of it a
 * little later finds it in cache. */
void u64map_prefetch(const struct u64map *map, uint64_t key);
/* Remove key, copying its value to *value; false when absent. */
bool u64map_take(struct u64map *map, uint64_t key, struct u64map_value *value);
/* Every entry, in no particular order: start with *cursor = 0; returns
 * NULL after the last. */
const struct u64map_slot *u64map_next(const struct u64map *map,
				      size_t *cursor);

#endif /* SPPROF_U64MAP_H */
