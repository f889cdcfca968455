/* heap_map.c - the live sampled-block table (see heap_map.h). */
#include "config.h"

#include "heap_map.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "compiler.h"
#include "rawmem.h"
#include "spinlock.h"

#define relaxed memory_order_relaxed

#define GATE_CLOSED ((uint64_t)1 << 63)
/* How long a rebuild waits for the calls in progress (a call lasts a few
 * hundred instructions unless its thread was preempted or scans the
 * table), and how many insertions go by before a rebuild that could not
 * wait is tried again.  A table too full to take more waits longer,
 * sleeping to let the threads it waits for run; if they still do not
 * leave, the insertion goes into the table past its limit, which is only
 * a limit on probe lengths. */
#define REBUILD_SPINS 1024
#define REBUILD_URGENT_WAIT_NS 200000000ull
#define REBUILD_HOLDOFF 64
/* A rebuild gives the old table back to the system in steps this long. */
#define RELEASE_SLOTS ((size_t)4096)

static unsigned log2_of(size_t power_of_two)
{
	return (unsigned)__builtin_ctzll(power_of_two);
}

static size_t home_slot(uintptr_t address, unsigned shift)
{
	uint64_t h = (uint64_t)address ^ ((uint64_t)address >> 12);

	return (size_t)((h * 0x9E3779B97F4A7C15ull) >> shift);
}

static size_t next_slot(size_t i, size_t capacity)
{
	return (i + 1) & (capacity - 1);
}

static size_t capacity_of(const struct heap_map *map)
{
	return atomic_load_explicit(&map->capacity, relaxed);
}

static void *slots_of(const struct heap_map *map)
{
	return atomic_load_explicit(&map->slots, relaxed);
}

/* Slot i of the array `slots` laid out as map's. */
static struct heap_slot *slot_in(const struct heap_map *map, void *slots,
				 size_t i)
{
	return (struct heap_slot *)((char *)slots + i * map->slot_bytes);
}

static struct heap_slot *slot_at(const struct heap_map *map, size_t i)
{
	return slot_in(map, slots_of(map), i);
}

static unsigned shift_of(const struct heap_map *map)
{
	return atomic_load_explicit(&map->shift, relaxed);
}

static size_t max_capacity_of(const struct heap_map *map)
{
	return atomic_load_explicit(&map->max_capacity, relaxed);
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

/* ---- the gate ------------------------------------------------------------- */

/* Lets the thread being waited for run.  A short sleep rather than
 * sched_yield(): a waiter that yields may be picked again at once, while
 * the thread it waits for, having run longer, waits for a CPU. */
static void pause_briefly(void)
{
	struct timespec pause = { .tv_nsec = 20000 };

	nanosleep(&pause, NULL);
}

/* How deep this thread is inside the gate of `map`: a call made inside
 * another one (a free() in a signal handler, say) must not wait for a
 * rebuild, which waits for it.  The depth counts only calls already
 * inside, so a handler that interrupts enter() or leave() at worst waits
 * for a rebuild to give up.  A thread is inside one map at a time. */
static INITIAL_EXEC_TLS struct {
	const struct heap_map *map;
	unsigned depth;
} inside;

/* Waits while a rebuild runs: spins, then sleeps. */
static void enter(struct heap_map *map)
{
	unsigned spins = 0;

	if (inside.depth && inside.map == map) {
		atomic_fetch_add(&map->gate, 1);
		inside.depth++;
		return;
	}
	while (atomic_fetch_add(&map->gate, 1) & GATE_CLOSED) {
		atomic_fetch_sub(&map->gate, 1);
		while (atomic_load_explicit(&map->gate, relaxed) &
		       GATE_CLOSED) {
			if (++spins < SPIN_BEFORE_YIELD)
				cpu_relax();
			else
				pause_briefly();
		}
	}
	inside.map = map;
	inside.depth++;
}

static void leave(struct heap_map *map)
{
	inside.depth--;
	atomic_fetch_sub_explicit(&map->gate, 1, memory_order_release);
}

/* One step of a rebuild's wait: 0 when it should give up. */
static int keep_waiting(unsigned *spins, uint64_t *deadline, int urgent)
{
	if ((*spins)++ < REBUILD_SPINS) {
		cpu_relax();
		return 1;
	}
	if (!urgent)
		return 0;
	if (!*deadline)
		*deadline = monotonic_ns() + REBUILD_URGENT_WAIT_NS;
	else if (monotonic_ns() > *deadline)
		return 0;
	pause_briefly();
	return 1;
}

/* Closes the gate once no call is in progress; 0 when the calls in
 * progress (or another rebuild, unless this one is urgent) did not let
 * it in time. */
static int close_gate(struct heap_map *map, int urgent)
{
	uint64_t deadline = 0;
	unsigned spins = 0;

	while (atomic_fetch_or(&map->gate, GATE_CLOSED) & GATE_CLOSED)
		if (!urgent || !keep_waiting(&spins, &deadline, urgent))
			return 0;
	/* Closed first and checked then, as heap_map_prefork() does it the
	 * other way round: one of the two sees the other. */
	if (atomic_load(&map->forking)) {
		atomic_fetch_and(&map->gate, ~GATE_CLOSED);
		return 0;
	}
	while (atomic_load(&map->gate) != GATE_CLOSED)
		if (!keep_waiting(&spins, &deadline, urgent)) {
			atomic_fetch_and(&map->gate, ~GATE_CLOSED);
			atomic_store_explicit(&map->rebuild_holdoff,
					      REBUILD_HOLDOFF, relaxed);
			return 0;
		}
	return 1;
}

static void open_gate(struct heap_map *map)
{
	atomic_fetch_and_explicit(&map->gate, ~GATE_CLOSED,
				  memory_order_release);
}

/* ---- how a record is packed ---------------------------------------------- */

/* Full: six words, size, sampling_rate, estimate, timestamp_ns, stack_id |
 * thread_id << 32, offset | slack << 32; the key is the address.
 *
 * Compact: one word, size | stack_id << 16 | rate index << 36 | birth <<
 * 39 (birth in units of 2^25 ns, about 34 ms, since time_base_ns), and
 * the thread id modulo 2^16 in the key's top 16 bits (user addresses are
 * below 2^48), or in a second word where an address takes the whole key
 * (32-bit systems).  16 bytes a slot on 64-bit systems: with every block
 * sampled the table is a good part of the process's memory. */
#define FULL_WORDS 6
#define COMPACT_SIZE_BITS 16
#define COMPACT_STACK_BITS 20
#define COMPACT_RATE_BITS 3
#define COMPACT_BIRTH_BITS 25
#define COMPACT_TIME_SHIFT 25
#define COMPACT_THREAD_BITS 16
#define COMPACT_RATES (1u << COMPACT_RATE_BITS)
#if UINTPTR_MAX > 0xffffffffu
#define KEY_EXTRA_SHIFT 48
#define COMPACT_WORDS 1
#else
#define KEY_EXTRA_SHIFT 0 /* no room: the thread takes a word */
#define COMPACT_WORDS 2
#endif

static unsigned words_of(const struct heap_map *map)
{
	return map->compact ? COMPACT_WORDS : FULL_WORDS;
}

static uint64_t low_bits(uint64_t value, unsigned bits)
{
	return value & ((UINT64_C(1) << bits) - 1);
}

/* The address a live key of map's stands for. */
static uintptr_t key_address(const struct heap_map *map, uintptr_t key)
{
#if KEY_EXTRA_SHIFT
	if (map->compact)
		return key & (((uintptr_t)1 << KEY_EXTRA_SHIFT) - 1);
#else
	(void)map;
#endif
	return key;
}

/* The key of a live compact record at address: the address, with the
 * thread id in its top bits where it has room. */
static uintptr_t live_key(const struct heap_map *map, uintptr_t address,
			  const struct heap_record *r)
{
#if KEY_EXTRA_SHIFT
	if (map->compact)
		return address | (uintptr_t)low_bits(r->thread_id,
						     COMPACT_THREAD_BITS)
					 << KEY_EXTRA_SHIFT;
#else
	(void)map;
	(void)r;
#endif
	return address;
}

/* The sampling rates of compact records, by index (0: none); a process
 * samples at a handful, each added once. */
static _Atomic uint64_t compact_rates[COMPACT_RATES];

/* The index of rate, added if new; 0 when the list is full. */
static unsigned rate_index(uint64_t rate)
{
	for (unsigned i = 1; i < COMPACT_RATES; i++) {
		uint64_t seen = atomic_load_explicit(&compact_rates[i],
						     relaxed);

		if (!seen && atomic_compare_exchange_strong_explicit(
				     &compact_rates[i], &seen, rate, relaxed,
				     relaxed))
			return i;
		if (seen == rate)
			return i;
	}
	return 0;
}

static uint64_t compact_birth(const struct heap_map *map, uint64_t ns)
{
	return (ns - map->time_base_ns) >> COMPACT_TIME_SHIFT;
}

int heap_map_fits(const struct heap_map *map, uintptr_t address,
		  const struct heap_record *r)
{
	if (!map->compact)
		return 1;
	return r->offset == 0 && r->sampling_rate &&
	       key_address(map, address) == address &&
	       r->size >> COMPACT_SIZE_BITS == 0 &&
	       r->stack_id >> COMPACT_STACK_BITS == 0 &&
	       r->timestamp_ns >= map->time_base_ns &&
	       compact_birth(map, r->timestamp_ns) >> COMPACT_BIRTH_BITS == 0 &&
	       rate_index(r->sampling_rate) != 0;
}

/* A compact record must fit (heap_map_fits()). */
static void pack(const struct heap_map *map, const struct heap_record *r,
		 uint64_t *words)
{
	if (map->compact) {
		words[0] = r->size |
			   (uint64_t)r->stack_id << COMPACT_SIZE_BITS |
			   (uint64_t)rate_index(r->sampling_rate)
				   << (COMPACT_SIZE_BITS + COMPACT_STACK_BITS) |
			   compact_birth(map, r->timestamp_ns)
				   << (64 - COMPACT_BIRTH_BITS);
		if (COMPACT_WORDS > 1)
			words[COMPACT_WORDS - 1] =
				low_bits(r->thread_id, COMPACT_THREAD_BITS);
		return;
	}
	words[0] = r->size;
	words[1] = r->sampling_rate;
	words[2] = r->estimate;
	words[3] = r->timestamp_ns;
	words[4] = r->stack_id | (uint64_t)r->thread_id << 32;
	words[5] = r->offset | (uint64_t)r->slack << 32;
}

/* The record of a live key and its words. */
static void unpack(const struct heap_map *map, uintptr_t key,
		   const uint64_t *words, struct heap_record *out)
{
	if (map->compact) {
		uint64_t w = words[0];

		*out = (struct heap_record){
			.size = low_bits(w, COMPACT_SIZE_BITS),
			.stack_id = (uint32_t)low_bits(w >> COMPACT_SIZE_BITS,
						       COMPACT_STACK_BITS),
			.sampling_rate = atomic_load_explicit(
				&compact_rates[low_bits(
					w >> (COMPACT_SIZE_BITS +
					      COMPACT_STACK_BITS),
					COMPACT_RATE_BITS)],
				relaxed),
			.timestamp_ns = map->time_base_ns +
					(w >> (64 - COMPACT_BIRTH_BITS)
					 << COMPACT_TIME_SHIFT),
			.thread_id = (uint32_t)(COMPACT_WORDS > 1
						? words[COMPACT_WORDS - 1]
						: (uint64_t)key >> KEY_EXTRA_SHIFT),
		};
		return;
	}
	*out = (struct heap_record){
		.size = words[0],
		.sampling_rate = words[1],
		.estimate = words[2],
		.timestamp_ns = words[3],
		.stack_id = (uint32_t)words[4],
		.thread_id = (uint32_t)(words[4] >> 32),
		.offset = (uint32_t)words[5],
		.slack = (uint32_t)(words[5] >> 32),
	};
}

/* ---- life of the table ------------------------------------------------------ */

static void *map_slots(const struct heap_map *map, size_t capacity)
{
	return rawmem_map(capacity * map->slot_bytes);
}

static void unmap_slots(const struct heap_map *map, void *slots,
			size_t capacity)
{
	rawmem_unmap(slots, capacity * map->slot_bytes);
}

static int init_layout(struct heap_map *map, size_t max_capacity,
		       int compact)
{
	size_t capacity = max_capacity < HEAP_MAP_INITIAL_CAPACITY
				  ? max_capacity
				  : HEAP_MAP_INITIAL_CAPACITY;

	*map = (struct heap_map){ .slots = NULL };
	if (max_capacity < 2 || (max_capacity & (max_capacity - 1))) {
		errno = EINVAL;
		return -1;
	}
	*map = (struct heap_map){
		.shift = 64 - log2_of(capacity),
		.capacity = capacity,
		.max_capacity = max_capacity,
		.compact = compact,
		.slot_bytes = sizeof(struct heap_slot) +
			      (compact ? COMPACT_WORDS : FULL_WORDS) *
				      sizeof(uint64_t),
		.time_base_ns = monotonic_ns(),
	};
	atomic_store(&map->slots, map_slots(map, capacity));
	if (!slots_of(map)) {
		atomic_store(&map->max_capacity, 0);
		return -1;
	}
	return 0;
}

int heap_map_init(struct heap_map *map, size_t max_capacity)
{
	return init_layout(map, max_capacity, 0);
}

int heap_map_init_compact(struct heap_map *map, size_t max_capacity)
{
	return init_layout(map, max_capacity, 1);
}

void heap_map_destroy(struct heap_map *map)
{
	unmap_slots(map, slots_of(map), capacity_of(map));
	atomic_store(&map->slots, NULL);
	atomic_store(&map->max_capacity, 0);
}

void heap_map_prefork(struct heap_map *map)
{
	atomic_store(&map->forking, 1);
	while (atomic_load(&map->gate) & GATE_CLOSED)
		pause_briefly();
}

void heap_map_postfork_parent(struct heap_map *map)
{
	atomic_store(&map->forking, 0);
}

void heap_map_after_fork(struct heap_map *map)
{
	atomic_store(&map->gate, 0);
	atomic_store(&map->forking, 0);
}

/* The size the table should be rebuilt at, or 0 when it is fine: twice
 * as large when HEAP_MAP_GROW_PERCENT of it is live, the same when
 * tombstones leave less than an eighth of it empty (a rebuild then frees
 * at least an eighth, as live records are fewer than the share that
 * grows it) or none at all. */
static size_t rebuild_capacity(const struct heap_map *map)
{
	size_t capacity = capacity_of(map);
	uint64_t live = atomic_load_explicit(&map->live, relaxed);
	uint64_t used = atomic_load_explicit(&map->used, relaxed);

	if (live * 100 >= (uint64_t)capacity * HEAP_MAP_GROW_PERCENT &&
	    capacity < max_capacity_of(map))
		return capacity * 2;
	if (used >= capacity || used * 8 >= (uint64_t)capacity * 7)
		return capacity;
	return 0;
}

/* As rebuild_capacity(), but twice as large as well when an insertion
 * found no free slot within a probe while the table was `crowded` slots
 * large (0: none did) and it has not been rebuilt since. */
static size_t capacity_wanted(const struct heap_map *map, size_t crowded)
{
	size_t capacity = capacity_of(map);

	if (crowded == capacity && capacity < max_capacity_of(map))
		return capacity * 2;
	return rebuild_capacity(map);
}

/* Where a rebuild puts the record of key: the first EMPTY slot of its
 * probe sequence in `slots`, or `stop` if the sequence reaches it first. */
static size_t settled_slot(const struct heap_map *map, void *slots,
			   size_t capacity, uintptr_t key, size_t stop)
{
	size_t j = home_slot(key_address(map, key), 64 - log2_of(capacity));

	while (j != stop && atomic_load_explicit(&slot_in(map, slots, j)->key,
						 relaxed) != HEAP_SLOT_EMPTY)
		j = next_slot(j, capacity);
	return j;
}

static void copy_slot(const struct heap_map *map, struct heap_slot *to,
		      const struct heap_slot *from)
{
	memcpy(to, from, map->slot_bytes);
}

/* Copies the live records into a new table: no call is in progress, so
 * every key is EMPTY, a TOMBSTONE or a live address.  The old table's
 * pages go back to the system as soon as their records are copied, so
 * that the process never holds both tables whole: with every block
 * sampled, the table is a good part of the process's memory. */
static void copy_live(const struct heap_map *map, void *to, size_t capacity)
{
	size_t released = 0;

	for (size_t i = 0; i < capacity_of(map); i++) {
		const struct heap_slot *from = slot_at(map, i);
		uintptr_t key = atomic_load_explicit(&from->key, relaxed);

		if (key != HEAP_SLOT_EMPTY && key != HEAP_SLOT_TOMBSTONE)
			copy_slot(map,
				  slot_in(map, to,
					  settled_slot(map, to, capacity, key,
						       capacity)),
				  from);
		if (i + 1 - released == RELEASE_SLOTS) {
			rawmem_release(slot_at(map, released),
				       RELEASE_SLOTS * map->slot_bytes);
			released = i + 1;
		}
	}
}

/* Where a slot is EMPTY; 0 when every slot is taken (rebuilds that
 * could not run in time let tombstones fill the table). */
static int find_empty(const struct heap_map *map, size_t *where)
{
	for (size_t i = 0; i < capacity_of(map); i++)
		if (atomic_load_explicit(&slot_at(map, i)->key, relaxed) ==
		    HEAP_SLOT_EMPTY) {
			*where = i;
			return 1;
		}
	return 0;
}

/* A rebuild at the same size, in place: tombstones become EMPTY, then
 * each record moves to the first EMPTY slot of its probe sequence.
 * Slots are visited in order from `start`, which was EMPTY before and so
 * was crossed by no probe sequence: every slot between a record's home
 * and its own has been settled when it is visited. */
static void compact(struct heap_map *map, size_t start)
{
	size_t capacity = capacity_of(map);
	void *slots = slots_of(map);

	for (size_t i = 0; i < capacity; i++)
		if (atomic_load_explicit(&slot_at(map, i)->key, relaxed) ==
		    HEAP_SLOT_TOMBSTONE)
			atomic_store_explicit(&slot_at(map, i)->key,
					      HEAP_SLOT_EMPTY, relaxed);
	for (size_t n = 1; n < capacity; n++) {
		size_t i = (start + n) & (capacity - 1), j;
		struct heap_slot *s = slot_at(map, i);
		uintptr_t key = atomic_load_explicit(&s->key, relaxed);

		if (key == HEAP_SLOT_EMPTY)
			continue;
		j = settled_slot(map, slots, capacity, key, i);
		if (j != i) {
			copy_slot(map, slot_at(map, j), s);
			atomic_store_explicit(&s->key, HEAP_SLOT_EMPTY,
					      relaxed);
		}
	}
}

/* Moves the records to a new table of the given size; 0 without memory. */
static int move_records(struct heap_map *map, size_t capacity)
{
	void *old = slots_of(map), *fresh = map_slots(map, capacity);
	size_t old_capacity = capacity_of(map);

	if (!fresh)
		return 0;
	copy_live(map, fresh, capacity);
	atomic_store_explicit(&map->slots, fresh, relaxed);
	atomic_store_explicit(&map->shift, 64 - log2_of(capacity), relaxed);
	atomic_store_explicit(&map->capacity, capacity, relaxed);
	unmap_slots(map, old, old_capacity);
	return 1;
}

/* Called with the gate closed; opens it. */
static void rebuild(struct heap_map *map, size_t capacity)
{
	size_t start;

	if (capacity == capacity_of(map) && find_empty(map, &start)) {
		compact(map, start);
	} else if (!move_records(map, capacity)) {
		/* no memory: stay at this size */
		atomic_store_explicit(&map->max_capacity, capacity_of(map),
				      relaxed);
		open_gate(map);
		return;
	}
	atomic_store_explicit(&map->used,
			      atomic_load_explicit(&map->live, relaxed),
			      relaxed);
	add(&map->rebuilds, 1);
	open_gate(map);
}

static int table_too_full(const struct heap_map *map)
{
	uint64_t live = atomic_load_explicit(&map->live, relaxed);

	return live * 100 >=
	       (uint64_t)capacity_of(map) * HEAP_MAP_MAX_LOAD_PERCENT;
}

/* Closes the gate and rebuilds, unless another thread did it meanwhile.
 * Signals wait until the gate is open again: a handler on this thread
 * that called the table (a free() in it) would wait at the gate for a
 * rebuild that cannot go on before the handler returns.  A rebuild is
 * rare and bounded, and letting a handler into a table whose records are
 * on the move would take far more than holding it back that long. */
static void rebuild_with_signals_held(struct heap_map *map, int urgent,
				      size_t crowded)
{
	sigset_t all, before;
	size_t capacity;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &before);
	if (close_gate(map, urgent)) {
		/* 0 if done meanwhile */
		capacity = capacity_wanted(map, crowded);
		if (capacity)
			rebuild(map, capacity);
		else
			open_gate(map);
	}
	pthread_sigmask(SIG_SETMASK, &before, NULL);
}

/* Rebuilds the table when it is due.  One that is too full to take an
 * insertion (or has no EMPTY slot left) is urgent: it waits longer and is
 * never put off.  Inline: its first test is on every insertion's path. */
static inline void maybe_rebuild(struct heap_map *map, int urgent)
{
	if (!rebuild_capacity(map) || inside.depth)
		return; /* a rebuild would wait for this very thread */
	urgent |= atomic_load_explicit(&map->used, relaxed) >= capacity_of(map);
	if (!urgent && atomic_load_explicit(&map->rebuild_holdoff, relaxed)) {
		atomic_fetch_sub_explicit(&map->rebuild_holdoff, 1, relaxed);
		return;
	}
	rebuild_with_signals_held(map, urgent, 0);
}

/* ---- calls ------------------------------------------------------------------- */

/* Claims slot s for address if it is free; 1 when done. */
static int claim(struct heap_map *map, struct heap_slot *s, uintptr_t address)
{
	uintptr_t key = atomic_load_explicit(&s->key, relaxed);

	if ((key != HEAP_SLOT_EMPTY && key != HEAP_SLOT_TOMBSTONE) ||
	    !atomic_compare_exchange_strong_explicit(
		    &s->key, &key, address | HEAP_SLOT_RESERVED_BIT,
		    memory_order_acq_rel, relaxed))
		return 0;
	add(key == HEAP_SLOT_TOMBSTONE ? &map->tombstones_recycled
				       : &map->used,
	    1);
	add(&map->live, 1);
	return 1;
}

void heap_map_prefetch(const struct heap_map *map, uintptr_t address)
{
	size_t home = home_slot(address, shift_of(map));

	__builtin_prefetch(&map->gate, 1);
	__builtin_prefetch(slot_at(map, home), 1);
}

static int at_largest_size(const struct heap_map *map)
{
	return capacity_of(map) >= max_capacity_of(map);
}

/* Called inside the gate, which it leaves, when an insertion found no
 * free slot within a probe: a long run of live slots, as linear probing
 * makes now and then in a table near its limit, which the table breaks
 * up by growing, its records spreading over twice the slots.  Urgent, as
 * the insertion is otherwise lost.  1 when the table grew, so that the
 * insertion can be tried again.  Out of line, to keep the common path
 * short. */
static __attribute__((cold, noinline)) int grow_crowded(struct heap_map *map)
{
	size_t crowded = capacity_of(map);

	leave(map);
	if (at_largest_size(map) || inside.depth)
		return 0; /* inside: the rebuild would wait for this thread */
	rebuild_with_signals_held(map, 1, crowded);
	return capacity_of(map) > crowded;
}

/* An insertion is dropped only when the table cannot grow: at its
 * largest size and too full, or with no free slot near the address even
 * after the rebuild this asked for.  A table too full whose rebuild
 * could not run (it waited in vain for a preempted thread, or this
 * thread is inside the table already, in a signal handler) takes the
 * insertion past its limit, which only lengthens probes. */
long heap_map_reserve(struct heap_map *map, uintptr_t address)
{
	size_t i;

	if (address & HEAP_SLOT_DEAD_BITS)
		goto drop;
	maybe_rebuild(map, 0);
enter_again:
	enter(map);
	if (table_too_full(map)) {
		leave(map);
		maybe_rebuild(map, 1);
		enter(map);
		if (table_too_full(map) && at_largest_size(map))
			goto full;
	}
	i = home_slot(address, shift_of(map));
	for (unsigned probe = 0; probe < HEAP_MAP_MAX_PROBE; probe++) {
		if (claim(map, slot_at(map, i), address)) {
			if (probe)
				add(&map->collisions, probe);
			note_probe_length(map, probe + 1);
			return (long)i; /* the gate stays passed until finalize */
		}
		i = next_slot(i, capacity_of(map));
	}
	if (grow_crowded(map))
		goto enter_again; /* at most once per doubling */
	goto drop;
full:
	leave(map);
drop:
	add(&map->full_drops, 1);
	return -1;
}

int heap_map_finalize(struct heap_map *map, long slot, uintptr_t address,
		      const struct heap_record *r)
{
	struct heap_slot *s = slot_at(map, (size_t)slot);
	uintptr_t expected = address | HEAP_SLOT_RESERVED_BIT;
	uint64_t words[FULL_WORDS];
	unsigned word_count = words_of(map);
	int published = 1;

	pack(map, r, words);
	/* Pairs with the acquire fence of read_live_slot(): a reader that
	 * sees any of the stores below also sees the key as reserved, so it
	 * never accepts a record being rewritten under it.  The slot stays
	 * ours until the CAS below, even if the block dies meanwhile. */
	atomic_thread_fence(memory_order_release);
	for (unsigned i = 0; i < word_count; i++)
		atomic_store_explicit(&s->word[i], words[i], relaxed);
	if (!atomic_compare_exchange_strong_explicit(&s->key, &expected,
						     live_key(map, address, r),
						     memory_order_release,
						     relaxed)) {
		/* A free() marked the reservation dead meanwhile: give the
		 * slot up. */
		atomic_store_explicit(&s->key, HEAP_SLOT_TOMBSTONE,
				      memory_order_release);
		add(&map->death_during_birth, 1);
		published = 0;
	}
	leave(map);
	return published;
}

static void read_words(const struct heap_map *map, struct heap_slot *s,
		       uint64_t *words)
{
	unsigned word_count = words_of(map);

	for (unsigned i = 0; i < word_count; i++)
		words[i] = atomic_load_explicit(&s->word[i], relaxed);
}

static void read_record(const struct heap_map *map, struct heap_slot *s,
			uintptr_t key, struct heap_record *out)
{
	uint64_t words[FULL_WORDS];

	read_words(map, s, words);
	unpack(map, key, words, out);
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

/* The slot holding address (live or reserved), or NULL; called inside
 * the gate.  Stops at the first EMPTY slot, writing nothing. */
static struct heap_slot *lookup(struct heap_map *map, uintptr_t address,
				uintptr_t *key_out)
{
	size_t capacity = capacity_of(map);
	size_t i = home_slot(address, shift_of(map));

	for (unsigned probe = 0; probe < HEAP_MAP_MAX_PROBE; probe++) {
		struct heap_slot *s = slot_at(map, i);
		uintptr_t key = atomic_load_explicit(&s->key,
						     memory_order_acquire);

		if (key == HEAP_SLOT_EMPTY)
			return NULL;
		if (key == (address | HEAP_SLOT_RESERVED_BIT) ||
		    (!(key & HEAP_SLOT_RESERVED_BIT) &&
		     key_address(map, key) == address)) {
			*key_out = key;
			return s;
		}
		i = next_slot(i, capacity);
	}
	return NULL;
}

int heap_map_remove(struct heap_map *map, uintptr_t address,
		    struct heap_record *out)
{
	struct heap_slot *s;
	uintptr_t key;
	int result = 0;

	enter(map);
	s = lookup(map, address, &key);
	if (s && !(key & HEAP_SLOT_RESERVED_BIT)) {
		read_record(map, s, key, out);
		if (bury(map, s, key, HEAP_SLOT_TOMBSTONE))
			result = 1;
	} else if (s) {
		if (bury(map, s, key, address | HEAP_SLOT_DEAD_BITS))
			result = 2;
	}
	leave(map);
	return result;
}

int heap_map_find(struct heap_map *map, uintptr_t address,
		  struct heap_record *out)
{
	struct heap_slot *s;
	uintptr_t key;
	int found;

	enter(map);
	s = lookup(map, address, &key);
	found = s && !(key & HEAP_SLOT_RESERVED_BIT);
	if (found)
		read_record(map, s, key, out);
	leave(map);
	return found;
}

/* Reads one slot consistently; 1 when it held a live record.  The key
 * and words are read twice: a record rewritten in between (freed, and
 * its slot taken again) shows a key that is not live, or other words. */
static int read_live_slot(const struct heap_map *map, struct heap_slot *s,
			  uintptr_t *address, struct heap_record *out)
{
	uintptr_t key = atomic_load_explicit(&s->key, memory_order_acquire);
	uint64_t first[FULL_WORDS], again[FULL_WORDS];

	if (key == HEAP_SLOT_EMPTY || key == HEAP_SLOT_TOMBSTONE ||
	    (key & HEAP_SLOT_RESERVED_BIT))
		return 0;
	read_words(map, s, first);
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&s->key, memory_order_acquire) != key)
		return 0;
	read_words(map, s, again);
	if (memcmp(first, again, words_of(map) * sizeof(uint64_t)))
		return 0; /* freed or reused while we read: not live as read */
	unpack(map, key, first, out);
	*address = key_address(map, key);
	return 1;
}

size_t heap_map_for_each(struct heap_map *map,
			 void (*fn)(void *ctx, uintptr_t address,
				    const struct heap_record *record),
			 void *ctx)
{
	size_t visited = 0;

	enter(map);
	for (size_t i = 0; i < capacity_of(map); i++) {
		struct heap_record r;
		uintptr_t address;

		if (read_live_slot(map, slot_at(map, i), &address, &r)) {
			fn(ctx, address, &r);
			visited++;
		}
	}
	leave(map);
	return visited;
}

unsigned heap_map_load_percent(const struct heap_map *map)
{
	uint64_t live = atomic_load_explicit(&map->live, relaxed);

	return (unsigned)(live * 100 / capacity_of(map));
}
