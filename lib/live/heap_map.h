/* heap_map.h - lock-free table of the sampled blocks that are still live.
 *
 * Contract: open addressing with linear probing over an mmap'd array,
 * keyed by block address (a multiple of 4).  Insertion is two-phase:
 * reserve() claims an EMPTY or TOMBSTONE slot as reserved for that address
 * (the key holds the address with its low bit set), finalize() publishes
 * the record (after the stack has been captured).  A remove() that finds
 * the address still reserved marks the reservation dead ("death during
 * birth", low two bits set); the later finalize() turns it into a
 * TOMBSTONE and reports it.  Until then the slot stays the reserving
 * thread's own, so no other thread can write its record meanwhile.
 * remove() only reads until it finds its key, so looking up an address
 * that is not tracked writes no slot.  A scan (for a snapshot) sees each
 * record whole or not at all: it reads a record's key and words twice,
 * and takes the record only when both reads agree (a record written
 * between them is fenced after its reservation and before its
 * publication, so one of the two reads sees the change).  A scan is not an
 * instant: it sees every record that lasts through it once, and a record
 * inserted or removed meanwhile at most once, so it may count more
 * records than were ever live at one time.
 *
 * The table starts small, so that a program with few live samples touches
 * a few pages of it, and is rebuilt twice as large when three quarters
 * full (up to the capacity given to init), or at the same size when
 * tombstones fill it; a rebuild gives the old table's pages back as it
 * goes, so that the two tables are never both whole in memory.  Operations pass a gate that a rebuild closes: between reserve()
 * and finalize(), and within every other call, the table cannot move.
 * Calls wait only while a rebuild moves the live records; a rebuild
 * waits only briefly for the calls in progress and is otherwise retried
 * a few insertions later, so a thread stopped inside a call (or a signal
 * handler that interrupted one) delays growth but never blocks the
 * program; meanwhile the table takes insertions past the share of live
 * slots that grows it, as far as probes reach.  An insertion that finds
 * no free slot within a probe (a long run of live slots, which linear
 * probing makes now and then) grows the table too.  A thread holds its
 * signals while it closes the gate and rebuilds, so that a handler
 * calling in (a free() in it) never waits for the rebuild it interrupted.
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
/* 1024 slots take 64 KiB, enough for a program with up to 750 live
 * samples (about 375 MiB of live heap at the default rate). */
#define HEAP_MAP_INITIAL_CAPACITY (1u << 10)
/* The table grows when this share of its slots is live: with every block
 * sampled it is a good part of the process's memory, so it stays mostly
 * full, while linear probes stay a few slots long. */
#define HEAP_MAP_GROW_PERCENT 75
/* 4M slots hold ~3M live samples, 1.5 TiB of live heap at the default
 * rate or 3M live blocks when every block is sampled. */
#define HEAP_MAP_DEFAULT_MAX_CAPACITY (1u << 22)
/* At the largest size, inserts beyond this share of live slots are
 * dropped, keeping probes short.  Below it, a table this full waits for
 * its rebuild, and takes the insert if the rebuild cannot run. */
#define HEAP_MAP_MAX_LOAD_PERCENT 80

/* What the profiler records about one sampled block. */
struct heap_record {
	uint64_t size;
	uint64_t sampling_rate;
	uint64_t estimate; /* live bytes this sample stands for */
	uint64_t timestamp_ns;
	uint32_t stack_id;
	uint32_t thread_id;
	uint32_t offset; /* from the C library's block to the program's */
	/* Bytes past size that the program may use: what the C library
	 * would have given it beyond size (malloc_usable_size). */
	uint32_t slack;
};

/* A slot: the key, then the record packed in words (how many, and how,
 * is the table's layout).  A full slot takes 56 bytes; a compact one 16
 * (24 on 32-bit systems). */
struct heap_slot {
	_Atomic uintptr_t key; /* EMPTY, TOMBSTONE, address | RESERVED_BIT, or
				* the address of a live record (with part of
				* a compact record in its top bits) */
	_Atomic uint64_t word[];
};

struct heap_map {
	/* Written only by a rebuild, while the gate is closed (atomic only
	 * so that a prefetch may read them from outside). */
	_Atomic(void *) slots;
	_Atomic unsigned shift;  /* 64 - log2(capacity), for the hash */
	_Atomic size_t capacity; /* power of two */
	_Atomic size_t max_capacity; /* 0 until init */
	/* Calls in progress, plus GATE_CLOSED while a rebuild runs; on the
	 * same cache line as the counters every insertion updates. */
	_Atomic uint64_t gate __attribute__((aligned(64)));
	_Atomic uint64_t live;
	_Atomic uint64_t used; /* slots not EMPTY: live, reserved, tombstones */
	_Atomic uint64_t full_drops;
	_Atomic uint64_t collisions;
	_Atomic uint64_t death_during_birth;
	_Atomic uint64_t tombstones_recycled;
	_Atomic uint64_t max_probe;
	_Atomic uint64_t rebuilds;
	_Atomic uint64_t rebuild_holdoff; /* insertions before trying again */
	_Atomic int forking; /* a fork() is under way: no rebuild starts */
	/* The layout, set by init. */
	int compact;
	size_t slot_bytes;
	uint64_t time_base_ns; /* compact birth times count from here */
};

/* max_capacity must be a power of two; returns 0, or -1 with errno.
 * heap_map_init() makes a table of full records.  heap_map_init_compact()
 * makes one whose slots take 16 bytes (24 on 32-bit systems), for the
 * sampled blocks left in place when every few bytes are sampled (offset
 * 0), of which a program may have millions live.  It keeps no slack (the
 * C library's malloc_usable_size() knows it) and no estimate (0: to be
 * computed from size and rate), a record's size below 64 KiB, stack id
 * below 2^20, thread id modulo 2^16, birth time to 2^25 ns (34 ms) within
 * 13 days of init, one of 7 sampling rates and an address below 2^48;
 * heap_map_fits() says whether a record at address fits it (every record
 * fits a full table). */
int heap_map_init(struct heap_map *map, size_t max_capacity);
int heap_map_init_compact(struct heap_map *map, size_t max_capacity);
int heap_map_fits(const struct heap_map *map, uintptr_t address,
		  const struct heap_record *r);
void heap_map_destroy(struct heap_map *map);
static inline int heap_map_ready(const struct heap_map *map)
{
	return atomic_load_explicit(&map->max_capacity,
				    memory_order_relaxed) != 0;
}

/* Phase 1: a slot index, or -1 (counted) when the table is too full at
 * its largest size, has no free slot within a probe of the address and
 * cannot grow, or the address is not a multiple of 4.  A slot index must be passed to
 * heap_map_finalize() by the same thread, soon: the table cannot be
 * rebuilt until then. */
long heap_map_reserve(struct heap_map *map, uintptr_t address);

/* Starts loading what inserting address will touch, so that the caller
 * can do other work (capture a stack) while it arrives. */
void heap_map_prefetch(const struct heap_map *map, uintptr_t address);

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

/* fork(): no rebuild moves the records while the child is made: prefork
 * waits for one under way (which waits for nobody but the calls in
 * progress, briefly) and holds off new ones until postfork.  The gate
 * stays open, so that the other threads' calls go on: one of them may
 * hold a lock of the program that fork() takes after the prefork
 * handlers (a stream's, which the stream list's lock waits for), and
 * must not wait for the thread that forks.  A call in progress on
 * another thread leaves the child at most a reservation nobody
 * finishes, an empty slot's worth.  In the child, where the threads in
 * the middle of a call are gone, the gate opens. */
void heap_map_prefork(struct heap_map *map);
void heap_map_postfork_parent(struct heap_map *map);
void heap_map_after_fork(struct heap_map *map);

#endif /* SPPROF_HEAP_MAP_H */
