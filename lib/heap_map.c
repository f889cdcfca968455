/* heap_map.c - the live sampled-block table (see heap_map.h). */
#include "config.h"

#include "heap_map.h"

#include <errno.h>

#include "compiler.h"
#include "rawmem.h"

#define relaxed memory_order_relaxed

/* Birth sequence numbers only need to differ between the records a slot
 * holds over time; each thread numbers its own from a block of 2^32 taken
 * once, so inserting touches no shared counter. */
static _Atomic uint64_t next_seq_block = 1;
static INITIAL_EXEC_TLS uint64_t thread_seq;

static uint64_t next_seq(void)
{
	if ((thread_seq & 0xffffffffu) == 0)
		thread_seq = atomic_fetch_add_explicit(&next_seq_block, 1,
						       relaxed)
			     << 32;
	return ++thread_seq;
}

static size_t home_slot(const struct heap_map *map, uintptr_t address)
{
	uint64_t h = (uint64_t)address ^ ((uint64_t)address >> 12);

	return (size_t)((h * 0x9E3779B97F4A7C15ull) >> map->shift);
}

static size_t next_slot(const struct heap_map *map, size_t i)
{
	return (i + 1) & (map->capacity - 1);
}

static void add(_Atomic uint64_t *counter, uint64_t n)
{
	atomic_fetch_add_explicit(counter, n, relaxed);
}

static void note_probe_length(struct heap_map *map, uint64_t probes)
{
	uint64_t seen = atomic_load_explicit(&map->max_probe, relaxed);

	while (probes > seen &&
	       !atomic_compare_exchange_weak_explicit(&map->max_probe, &seen,
						      probes, relaxed, relaxed))
		;
}

int heap_map_init(struct heap_map *map, size_t capacity)
{
	unsigned log2 = 0;

	if (capacity < 2 || (capacity & (capacity - 1))) {
		errno = EINVAL;
		return -1;
	}
	while (((size_t)1 << log2) < capacity)
		log2++;
	*map = (struct heap_map){ .capacity = capacity, .shift = 64 - log2 };
	map->slots = rawmem_map(capacity * sizeof(struct heap_slot));
	return map->slots ? 0 : -1;
}

void heap_map_destroy(struct heap_map *map)
{
	rawmem_unmap(map->slots, map->capacity * sizeof(struct heap_slot));
	map->slots = NULL;
}

static int table_too_full(struct heap_map *map)
{
	uint64_t live = atomic_load_explicit(&map->live, relaxed);

	return live * 100 >= (uint64_t)map->capacity * HEAP_MAP_MAX_LOAD_PERCENT;
}

long heap_map_reserve(struct heap_map *map, uintptr_t address)
{
	size_t i = home_slot(map, address);

	if (table_too_full(map) || (address & HEAP_SLOT_DEAD_BITS))
		goto full;
	for (unsigned probe = 0; probe < HEAP_MAP_MAX_PROBE; probe++) {
		struct heap_slot *s = &map->slots[i];
		uintptr_t key = atomic_load_explicit(&s->key, relaxed);

		if ((key == HEAP_SLOT_EMPTY || key == HEAP_SLOT_TOMBSTONE) &&
		    atomic_compare_exchange_strong_explicit(
			    &s->key, &key, address | HEAP_SLOT_RESERVED_BIT,
			    memory_order_acq_rel, relaxed)) {
			if (key == HEAP_SLOT_TOMBSTONE)
				add(&map->tombstones_recycled, 1);
			if (probe)
				add(&map->collisions, probe);
			note_probe_length(map, probe + 1);
			atomic_fetch_add_explicit(&map->live, 1, relaxed);
			return (long)i;
		}
		i = next_slot(map, i);
	}
full:
	add(&map->full_drops, 1);
	return -1;
}

int heap_map_finalize(struct heap_map *map, long slot, uintptr_t address,
		      const struct heap_record *r)
{
	struct heap_slot *s = &map->slots[slot];
	uintptr_t expected = address | HEAP_SLOT_RESERVED_BIT;
	uint64_t seq = next_seq();

	/* Pairs with the acquire fence of read_live_slot(): a reader that
	 * sees any of the stores below also sees the key as reserved, so it
	 * never accepts a record being rewritten under it.  The slot stays
	 * ours until the CAS below, even if the block dies meanwhile. */
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&s->size, r->size, relaxed);
	atomic_store_explicit(&s->sampling_rate, r->sampling_rate, relaxed);
	atomic_store_explicit(&s->timestamp_ns, r->timestamp_ns, relaxed);
	atomic_store_explicit(&s->stack_id, r->stack_id, relaxed);
	atomic_store_explicit(&s->thread_id, r->thread_id, relaxed);
	atomic_store_explicit(&s->offset, r->offset, relaxed);
	atomic_store_explicit(&s->birth_seq, seq, memory_order_release);
	if (atomic_compare_exchange_strong_explicit(&s->key, &expected, address,
						    memory_order_release,
						    relaxed))
		return 1;
	/* A free() marked the reservation dead meanwhile: give the slot up. */
	atomic_store_explicit(&s->key, HEAP_SLOT_TOMBSTONE, memory_order_release);
	add(&map->death_during_birth, 1);
	return 0;
}

static void read_record(struct heap_slot *s, struct heap_record *out)
{
	out->size = atomic_load_explicit(&s->size, relaxed);
	out->sampling_rate = atomic_load_explicit(&s->sampling_rate, relaxed);
	out->timestamp_ns = atomic_load_explicit(&s->timestamp_ns, relaxed);
	out->stack_id = atomic_load_explicit(&s->stack_id, relaxed);
	out->thread_id = atomic_load_explicit(&s->thread_id, relaxed);
	out->offset = atomic_load_explicit(&s->offset, relaxed);
}

/* Ends a block's life: a live key becomes a TOMBSTONE, a reserved one
 * is marked dead for its owner to clear. */
static int bury(struct heap_map *map, struct heap_slot *s, uintptr_t key,
		uintptr_t buried)
{
	if (!atomic_compare_exchange_strong_explicit(&s->key, &key, buried,
						     memory_order_acq_rel,
						     relaxed))
		return 0;
	atomic_fetch_sub_explicit(&map->live, 1, relaxed);
	return 1;
}

int heap_map_remove(struct heap_map *map, uintptr_t address,
		    struct heap_record *out)
{
	size_t i = home_slot(map, address);

	for (unsigned probe = 0; probe < HEAP_MAP_MAX_PROBE; probe++) {
		struct heap_slot *s = &map->slots[i];
		uintptr_t key = atomic_load_explicit(&s->key,
						     memory_order_acquire);

		if (key == HEAP_SLOT_EMPTY)
			return 0;
		if (key == address) {
			read_record(s, out);
			if (bury(map, s, key, HEAP_SLOT_TOMBSTONE))
				return 1;
		} else if (key == (address | HEAP_SLOT_RESERVED_BIT)) {
			if (bury(map, s, key, address | HEAP_SLOT_DEAD_BITS))
				return 2;
		}
		i = next_slot(map, i);
	}
	return 0;
}

int heap_map_find(struct heap_map *map, uintptr_t address,
		  struct heap_record *out)
{
	size_t i = home_slot(map, address);

	for (unsigned probe = 0; probe < HEAP_MAP_MAX_PROBE; probe++) {
		uintptr_t key = atomic_load_explicit(&map->slots[i].key,
						     memory_order_acquire);

		if (key == HEAP_SLOT_EMPTY)
			return 0;
		if (key == address) {
			read_record(&map->slots[i], out);
			return 1;
		}
		i = next_slot(map, i);
	}
	return 0;
}

/* Reads one slot consistently; 1 when it held a live record. */
static int read_live_slot(struct heap_slot *s, uintptr_t *address,
			  struct heap_record *out)
{
	uintptr_t key = atomic_load_explicit(&s->key, memory_order_acquire);
	uint64_t seq;

	if (key == HEAP_SLOT_EMPTY || key == HEAP_SLOT_TOMBSTONE ||
	    (key & HEAP_SLOT_RESERVED_BIT))
		return 0;
	seq = atomic_load_explicit(&s->birth_seq, memory_order_acquire);
	read_record(s, out);
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&s->birth_seq, relaxed) != seq ||
	    atomic_load_explicit(&s->key, relaxed) != key)
		return 0; /* freed or reused while we read: not live as read */
	*address = key;
	return 1;
}

size_t heap_map_for_each(struct heap_map *map,
			 void (*fn)(void *ctx, uintptr_t address,
				    const struct heap_record *record),
			 void *ctx)
{
	size_t visited = 0;

	for (size_t i = 0; i < map->capacity; i++) {
		struct heap_record r;
		uintptr_t address;

		if (read_live_slot(&map->slots[i], &address, &r)) {
			fn(ctx, address, &r);
			visited++;
		}
	}
	return visited;
}

unsigned heap_map_load_percent(const struct heap_map *map)
{
	uint64_t live = atomic_load_explicit(&map->live, relaxed);

	return (unsigned)(live * 100 / map->capacity);
}
