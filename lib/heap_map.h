/* heap_map.h - lock-free table of the sampled blocks that are still live.
 *
 * Contract: open addressing with linear probing over a fixed mmap'd array,
 * keyed by block address (a multiple of 4).  Insertion is two-phase:
 * reserve() claims an EMPTY or TOMBSTONE slot as reserved for that address
 * (the key holds the address with its low bit set), finalize() publishes
 * the record (after the stack has been captured).  A remove() that finds
 * the address still reserved marks the reservation dead ("death during
 * birth", low two bits set); the later finalize() turns it into a
 * TOMBSTONE and reports it.  Until then the slot stays the reserving
 * thread's own, so no other thread can write its record meanwhile.
 * remove() only reads until it finds its key, so looking up an address
 * that is not tracked writes no shared memory.  Readers (snapshots) see
 * each record whole or not at all: every record carries a birth sequence
 * number that is checked before and after reading it.
 */
#ifndef SPPROF_HEAP_MAP_H
#define SPPROF_HEAP_MAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define HEAP_SLOT_EMPTY ((uintptr_t)0)
#define HEAP_SLOT_RESERVED_BIT ((uintptr_t)1) /* key = address | bit */
#define HEAP_SLOT_DEAD_BITS ((uintptr_t)3)     /* died during birth */
#define HEAP_SLOT_TOMBSTONE (~(uintptr_t)0)

#define HEAP_MAP_MAX_PROBE 128
/* 128K slots hold ~100K live samples (about 50 GiB of live heap at the
 * default rate) in 7 MiB, which sampled addresses touch page by page. */
#define HEAP_MAP_DEFAULT_CAPACITY (1u << 17)
/* Inserts beyond this share of live slots are dropped, keeping probes short. */
#define HEAP_MAP_MAX_LOAD_PERCENT 80

/* What the profiler records about one sampled block. */
struct heap_record {
	uint64_t size;
	uint64_t sampling_rate;
	uint64_t timestamp_ns;
	uint32_t stack_id;
	uint32_t thread_id;
	uint32_t offset; /* from the C library's block to the program's */
};

struct heap_slot {
	_Atomic uintptr_t key; /* EMPTY, TOMBSTONE, address | RESERVED_BIT, or
				* the address of a live record */
	_Atomic uint64_t birth_seq;
	_Atomic uint64_t size;
	_Atomic uint64_t sampling_rate;
	_Atomic uint64_t timestamp_ns;
	_Atomic uint32_t stack_id;
	_Atomic uint32_t thread_id;
	_Atomic uint32_t offset;
};

struct heap_map {
	struct heap_slot *slots;
	size_t capacity; /* power of two */
	unsigned shift;  /* 64 - log2(capacity), for the hash */
	_Atomic uint64_t live;
	_Atomic uint64_t full_drops;
	_Atomic uint64_t collisions;
	_Atomic uint64_t death_during_birth;
	_Atomic uint64_t tombstones_recycled;
	_Atomic uint64_t max_probe;
};

/* capacity must be a power of two; returns 0, or -1 with errno. */
int heap_map_init(struct heap_map *map, size_t capacity);
void heap_map_destroy(struct heap_map *map);

/* Phase 1: a slot index, or -1 when the table is too full (counted) or
 * the address is not a multiple of 4. */
long heap_map_reserve(struct heap_map *map, uintptr_t address);

/* Phase 2: 1 when published, 0 when the block died during its birth. */
int heap_map_finalize(struct heap_map *map, long slot, uintptr_t address,
		      const struct heap_record *record);

/* Forget a freed block: 1 and *out filled when it was live, 2 when it
 * died during birth (no record yet), 0 when it is not tracked. */
int heap_map_remove(struct heap_map *map, uintptr_t address,
		    struct heap_record *out);

/* Reads the record of a live block without removing it: 1 when found. */
int heap_map_find(struct heap_map *map, uintptr_t address,
		  struct heap_record *out);

/* Calls fn for every live record; returns the number visited. */
size_t heap_map_for_each(struct heap_map *map,
			 void (*fn)(void *ctx, uintptr_t address,
				    const struct heap_record *record),
			 void *ctx);

unsigned heap_map_load_percent(const struct heap_map *map);

#endif /* SPPROF_HEAP_MAP_H */
