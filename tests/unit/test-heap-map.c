/* Unit tests of the live heap map, single-threaded and under stress. */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "heap_map.h"

Suite *test_suite(void);

static struct heap_record record_for(uintptr_t address)
{
	/* Every field derives from the address, so a torn read shows. */
	return (struct heap_record){
		.size = address * 3,
		.sampling_rate = address ^ 0x5555,
		.estimate = address * 5,
		.timestamp_ns = address + 7,
		.stack_id = (uint32_t)(address >> 4),
		.thread_id = (uint32_t)(address >> 12),
	};
}

static void insert(struct heap_map *m, uintptr_t address)
{
	struct heap_record r = record_for(address);
	long slot = heap_map_reserve(m, address);

	ck_assert_int_ge(slot, 0);
	ck_assert_int_eq(heap_map_finalize(m, slot, address, &r), 1);
}

static void check_whole(uintptr_t address, const struct heap_record *r)
{
	struct heap_record expected = record_for(address);

	ck_assert_uint_eq(r->size, expected.size);
	ck_assert_uint_eq(r->sampling_rate, expected.sampling_rate);
	ck_assert_uint_eq(r->estimate, expected.estimate);
	ck_assert_uint_eq(r->timestamp_ns, expected.timestamp_ns);
	ck_assert_uint_eq(r->stack_id, expected.stack_id);
	ck_assert_uint_eq(r->thread_id, expected.thread_id);
}

static void count_visit(void *ctx, uintptr_t address,
			const struct heap_record *r)
{
	check_whole(address, r);
	(*(size_t *)ctx)++;
}

static size_t live_records(struct heap_map *m)
{
	size_t n = 0;

	heap_map_for_each(m, count_visit, &n);
	return n;
}

START_TEST(insert_remove)
{
	struct heap_map m;
	struct heap_record out;

	ck_assert_int_eq(heap_map_init(&m, 1024), 0);
	insert(&m, 0x10000);
	insert(&m, 0x20000);
	ck_assert_uint_eq(live_records(&m), 2);
	ck_assert_int_eq(heap_map_remove(&m, 0x10000, &out), 1);
	ck_assert_uint_eq(out.size, record_for(0x10000).size);
	ck_assert_uint_eq(out.stack_id, record_for(0x10000).stack_id);
	ck_assert_int_eq(heap_map_remove(&m, 0x10000, &out), 0);
	ck_assert_int_eq(heap_map_remove(&m, 0x30000, &out), 0);
	ck_assert_uint_eq(live_records(&m), 1);
	ck_assert_uint_eq(atomic_load(&m.live), 1);
	heap_map_destroy(&m);
}
END_TEST

/* With every block sampled, the table holds a record per live block of
 * the program: compact slots take 16 bytes (24 where an address takes
 * the whole key), full ones 56. */
START_TEST(slot_sizes)
{
	struct heap_map full, compact;

	ck_assert_int_eq(heap_map_init(&full, 1024), 0);
	ck_assert_int_eq(heap_map_init_compact(&compact, 1024), 0);
	ck_assert_uint_eq(full.slot_bytes, 56);
	ck_assert_uint_eq(compact.slot_bytes,
			  sizeof(uintptr_t) == 8 ? 16 : 24);
	heap_map_destroy(&full);
	heap_map_destroy(&compact);
}
END_TEST

static struct heap_record in_place_record(const struct heap_map *m,
					  uint64_t n)
{
	return (struct heap_record){
		.size = (n * 24 + 1) % 65536,
		.sampling_rate = 1 + n % 3,
		.timestamp_ns = m->time_base_ns + n * 5000000 + 1023,
		.stack_id = (uint32_t)(n % 5000),
		.thread_id = 0x30000 + (uint32_t)n % 7,
		.slack = 7,
	};
}

/* A compact record gives back what the profile needs of a block left in
 * place; birth times lose what is below 2^25 ns, thread ids what is
 * above 16 bits. */
START_TEST(compact_records_round_trip)
{
	struct heap_map m;
	struct heap_record out;
	const uint64_t count = 50000;

	ck_assert_int_eq(heap_map_init_compact(&m, 1 << 17), 0);
	for (uint64_t n = 1; n <= count; n++) {
		struct heap_record r = in_place_record(&m, n);
		long slot;

		ck_assert(heap_map_fits(&m, n << 4, &r));
		slot = heap_map_reserve(&m, n << 4);
		ck_assert_int_ge(slot, 0);
		ck_assert_int_eq(heap_map_finalize(&m, slot, n << 4, &r), 1);
	}
	ck_assert_uint_eq(atomic_load(&m.capacity), 1 << 17);
	for (uint64_t n = 1; n <= count; n++) {
		struct heap_record r = in_place_record(&m, n);

		ck_assert_int_eq(heap_map_remove(&m, n << 4, &out), 1);
		ck_assert_uint_eq(out.size, r.size);
		ck_assert_uint_eq(out.sampling_rate, r.sampling_rate);
		ck_assert_uint_eq(out.stack_id, r.stack_id);
		ck_assert_uint_eq(out.thread_id, r.thread_id & 0xffff);
		ck_assert_uint_le(out.timestamp_ns, r.timestamp_ns);
		ck_assert_uint_lt(r.timestamp_ns - out.timestamp_ns,
				  UINT64_C(1) << 25);
		ck_assert_uint_eq(out.offset, 0);
		ck_assert_uint_eq(out.estimate, 0);
	}
	ck_assert_uint_eq(atomic_load(&m.live), 0);
	heap_map_destroy(&m);
}
END_TEST

/* What a compact slot cannot hold goes to a full table. */
START_TEST(compact_refuses_what_does_not_fit)
{
	struct heap_map m, full;
	struct heap_record r;

	ck_assert_int_eq(heap_map_init_compact(&m, 1024), 0);
	ck_assert_int_eq(heap_map_init(&full, 1024), 0);
	r = in_place_record(&m, 1);
	ck_assert(heap_map_fits(&m, 0x1000, &r));
	r.size = 65536;
	ck_assert(!heap_map_fits(&m, 0x1000, &r));
	ck_assert(heap_map_fits(&full, 0x1000, &r));
	r = in_place_record(&m, 1);
	r.stack_id = 1u << 20;
	ck_assert(!heap_map_fits(&m, 0x1000, &r));
	r = in_place_record(&m, 1);
	r.offset = 64;
	ck_assert(!heap_map_fits(&m, 0x1000, &r));
	r = in_place_record(&m, 1);
	r.sampling_rate = 0;
	ck_assert(!heap_map_fits(&m, 0x1000, &r));
	r = in_place_record(&m, 1);
	r.timestamp_ns = m.time_base_ns + (UINT64_C(1) << 50);
	ck_assert(!heap_map_fits(&m, 0x1000, &r));
	if (sizeof(uintptr_t) == 8) { /* the key's top bits hold the thread */
		r = in_place_record(&m, 1);
		ck_assert(!heap_map_fits(&m, (uintptr_t)(UINT64_C(1) << 48), &r));
	}
	heap_map_destroy(&m);
	heap_map_destroy(&full);
}
END_TEST

START_TEST(rejects_bad_capacity)
{
	struct heap_map m;

	ck_assert_int_eq(heap_map_init(&m, 1000), -1);
	ck_assert_int_eq(heap_map_init(&m, 0), -1);
	ck_assert(!heap_map_ready(&m));
}
END_TEST

START_TEST(death_during_birth)
{
	struct heap_map m;
	struct heap_record out;
	struct heap_record r = record_for(0x40000);
	long slot;

	ck_assert_int_eq(heap_map_init(&m, 1024), 0);
	slot = heap_map_reserve(&m, 0x40000);
	ck_assert_int_ge(slot, 0);
	ck_assert_int_eq(heap_map_remove(&m, 0x40000, &out), 2);
	ck_assert_int_eq(heap_map_finalize(&m, slot, 0x40000, &r), 0);
	ck_assert_uint_eq(atomic_load(&m.death_during_birth), 1);
	ck_assert_uint_eq(live_records(&m), 0);
	ck_assert_uint_eq(atomic_load(&m.live), 0);
	ck_assert_int_eq(heap_map_remove(&m, 0x40000, &out), 0);
	heap_map_destroy(&m);
}
END_TEST

START_TEST(tombstones_are_reused)
{
	struct heap_map m;
	struct heap_record out;

	ck_assert_int_eq(heap_map_init(&m, 1024), 0);
	for (int round = 0; round < 100; round++) {
		insert(&m, 0x50000);
		ck_assert_int_eq(heap_map_remove(&m, 0x50000, &out), 1);
	}
	ck_assert_uint_eq(atomic_load(&m.tombstones_recycled), 99);
	/* reuse keeps the probe sequence short */
	ck_assert_uint_le(atomic_load(&m.max_probe), 2);
	heap_map_destroy(&m);
}
END_TEST

START_TEST(full_table_drops_and_counts)
{
	struct heap_map m;
	unsigned inserted = 0;

	ck_assert_int_eq(heap_map_init(&m, 64), 0);
	for (uintptr_t a = 1; a <= 64; a++) {
		struct heap_record r = record_for(a << 12);
		long slot = heap_map_reserve(&m, a << 12);

		if (slot >= 0) {
			heap_map_finalize(&m, slot, a << 12, &r);
			inserted++;
		}
	}
	ck_assert_uint_eq(inserted, 64 * HEAP_MAP_MAX_LOAD_PERCENT / 100 + 1);
	ck_assert_uint_eq(atomic_load(&m.full_drops), 64 - inserted);
	ck_assert_uint_eq(live_records(&m), inserted);
	ck_assert_uint_ge(heap_map_load_percent(&m), 79);
	heap_map_destroy(&m);
}
END_TEST

START_TEST(grows_from_small_keeping_every_record)
{
	struct heap_map m;
	struct heap_record out;
	const uintptr_t count = 20000;

	ck_assert_int_eq(heap_map_init(&m, 1 << 16), 0);
	ck_assert_uint_eq(atomic_load(&m.capacity), HEAP_MAP_INITIAL_CAPACITY);
	for (uintptr_t a = 1; a <= count; a++)
		insert(&m, a << 12);
	/* 20000 live records fill 61 % of 32768 slots: the table grows when
	 * three quarters full, not at half. */
	ck_assert_uint_eq(atomic_load(&m.capacity), 1 << 15);
	ck_assert_uint_eq(atomic_load(&m.full_drops), 0);
	ck_assert_uint_eq(live_records(&m), count);
	for (uintptr_t a = 1; a <= count; a++) {
		ck_assert_int_eq(heap_map_find(&m, a << 12, &out), 1);
		ck_assert_uint_eq(out.size, record_for(a << 12).size);
	}
	for (uintptr_t a = 1; a <= count; a += 2)
		ck_assert_int_eq(heap_map_remove(&m, a << 12, &out), 1);
	ck_assert_uint_eq(live_records(&m), count / 2);
	heap_map_destroy(&m);
}
END_TEST

/* Inserting and removing ever new addresses leaves tombstones behind; the
 * table is rebuilt before they fill it, so that a lookup of an address
 * that is not there still stops at an empty slot at once. */
START_TEST(tombstones_never_fill_the_table)
{
	struct heap_map m;
	struct heap_record out;

	ck_assert_int_eq(heap_map_init(&m, 1 << 16), 0);
	for (uintptr_t a = 1; a <= 100000; a++) {
		insert(&m, a << 12);
		if (a > 8)
			ck_assert_int_eq(heap_map_remove(&m, (a - 8) << 12, &out),
					 1);
	}
	ck_assert_uint_eq(atomic_load(&m.capacity), HEAP_MAP_INITIAL_CAPACITY);
	ck_assert_uint_gt(atomic_load(&m.rebuilds), 0);
	ck_assert_uint_lt(atomic_load(&m.used) * 8,
			  HEAP_MAP_INITIAL_CAPACITY * 7);
	ck_assert_uint_eq(live_records(&m), 8);
	ck_assert_uint_le(atomic_load(&m.max_probe), 64);
	ck_assert_int_eq(heap_map_remove(&m, 0x123000, &out), 0);
	heap_map_destroy(&m);
}
END_TEST

/* While a reservation holds the gate, no rebuild can run and tombstones
 * fill every slot; the rebuild that follows still keeps every record. */
START_TEST(rebuilds_a_table_without_empty_slots)
{
	struct heap_map m;
	struct heap_record out, held = record_for(0x7000);
	uintptr_t a;
	long slot;

	ck_assert_int_eq(heap_map_init(&m, 1024), 0);
	slot = heap_map_reserve(&m, 0x7000);
	ck_assert_int_ge(slot, 0);
	for (a = 1; a < 100000 && atomic_load(&m.used) < 1024; a++) {
		insert(&m, (a + 100) << 12);
		if (a > 4)
			ck_assert_int_eq(heap_map_remove(&m, (a + 96) << 12,
							 &out),
					 1);
	}
	ck_assert_uint_eq(atomic_load(&m.used), 1024);
	ck_assert_uint_eq(atomic_load(&m.rebuilds), 0);
	ck_assert_int_eq(heap_map_finalize(&m, slot, 0x7000, &held), 1);
	insert(&m, 0x8000); /* a full table does not put its rebuild off */
	ck_assert_uint_eq(atomic_load(&m.rebuilds), 1);
	ck_assert_uint_eq(atomic_load(&m.used), 6);
	ck_assert_uint_eq(live_records(&m), 6);
	ck_assert_int_eq(heap_map_find(&m, 0x7000, &out), 1);
	for (uintptr_t b = a - 4; b < a; b++)
		ck_assert_int_eq(heap_map_remove(&m, (b + 100) << 12, &out), 1);
	heap_map_destroy(&m);
}
END_TEST

/* Addresses for a run of live slots as long as a probe, in a table the
 * initial size: address i has its home i slots past the first one's,
 * and the last one the same home as the first.  Each address's home is
 * found by reserving it in an empty table, where a reservation takes its
 * home slot, and letting it go. */
static void addresses_for_a_run(uintptr_t *addresses)
{
	const size_t capacity = HEAP_MAP_INITIAL_CAPACITY;
	struct heap_map scratch;
	struct heap_record r = record_for(0);
	size_t found = 0, run_start = 0;

	memset(addresses, 0, (HEAP_MAP_MAX_PROBE + 1) * sizeof(*addresses));
	ck_assert_int_eq(heap_map_init(&scratch, capacity), 0);
	for (uintptr_t a = 0x100000; found < HEAP_MAP_MAX_PROBE + 1; a += 16) {
		long slot = heap_map_reserve(&scratch, a);
		size_t past_start;

		ck_assert_int_ge(slot, 0);
		ck_assert_int_eq(heap_map_remove(&scratch, a, &r), 2);
		ck_assert_int_eq(heap_map_finalize(&scratch, slot, a, &r), 0);
		if (a == 0x100000)
			run_start = (size_t)slot;
		past_start = ((size_t)slot - run_start) & (capacity - 1);
		if (past_start >= HEAP_MAP_MAX_PROBE)
			continue;
		if (past_start == 0 && addresses[0])
			past_start = HEAP_MAP_MAX_PROBE;
		if (!addresses[past_start]) {
			addresses[past_start] = a;
			found++;
		}
	}
	heap_map_destroy(&scratch);
}

/* Linear probing now and then makes a run of live slots longer than a
 * probe, even in a table well below its limit: the insertion that meets
 * one grows the table, where the run's records spread out, rather than
 * being dropped. */
START_TEST(a_crowded_probe_grows_the_table)
{
	uintptr_t addresses[HEAP_MAP_MAX_PROBE + 1];
	struct heap_map m;
	struct heap_record out;

	addresses_for_a_run(addresses);
	ck_assert_int_eq(heap_map_init(&m, 1 << 16), 0);
	for (size_t i = 0; i <= HEAP_MAP_MAX_PROBE; i++)
		insert(&m, addresses[i]);
	ck_assert_uint_eq(atomic_load(&m.full_drops), 0);
	ck_assert_uint_eq(atomic_load(&m.capacity),
			  2 * HEAP_MAP_INITIAL_CAPACITY);
	for (size_t i = 0; i <= HEAP_MAP_MAX_PROBE; i++)
		ck_assert_int_eq(heap_map_find(&m, addresses[i], &out), 1);
	heap_map_destroy(&m);
}
END_TEST

START_TEST(lookups_of_untracked_addresses_change_nothing)
{
	struct heap_map m;
	struct heap_record out;

	ck_assert_int_eq(heap_map_init(&m, 1024), 0);
	insert(&m, 0x60000);
	for (uintptr_t a = 1; a < 5000; a++)
		ck_assert_int_eq(heap_map_remove(&m, a << 4, &out), 0);
	ck_assert_uint_eq(atomic_load(&m.live), 1);
	heap_map_destroy(&m);
}
END_TEST

/* Blocks freed and allocated from inside a scan, as by a handler that
 * interrupted a snapshot: the scan sees every block that lasts through
 * it exactly once, and those that came and went meanwhile at most once. */
#define LASTING 100
#define COMING_AND_GOING 100

struct churning_scan {
	struct heap_map *map;
	uintptr_t next, oldest; /* of the blocks coming and going */
	unsigned lasting_seen[LASTING + 1];
	/* a scan reads each of the table's slots once */
	unsigned char other_seen[COMING_AND_GOING + HEAP_MAP_INITIAL_CAPACITY];
};

static uintptr_t churn_address(uintptr_t k)
{
	return (uintptr_t)0x10000000 + (k << 12);
}

static void visit_and_churn(void *ctx, uintptr_t address,
			    const struct heap_record *r)
{
	struct churning_scan *scan = ctx;
	struct heap_record out;

	check_whole(address, r);
	if (address <= LASTING << 12) {
		scan->lasting_seen[address >> 12]++;
	} else {
		uintptr_t k = (address - churn_address(0)) >> 12;

		ck_assert_uint_lt(k, sizeof(scan->other_seen));
		ck_assert_uint_eq(scan->other_seen[k]++, 0);
	}
	ck_assert_int_eq(heap_map_remove(scan->map,
					 churn_address(scan->oldest++), &out),
			 1);
	insert(scan->map, churn_address(scan->next++));
}

START_TEST(scan_while_blocks_come_and_go)
{
	struct heap_map m;
	struct churning_scan scan = { .map = &m };

	ck_assert_int_eq(heap_map_init(&m, 1024), 0);
	for (uintptr_t a = 1; a <= LASTING; a++)
		insert(&m, a << 12);
	while (scan.next < COMING_AND_GOING)
		insert(&m, churn_address(scan.next++));
	heap_map_for_each(&m, visit_and_churn, &scan);
	for (uintptr_t a = 1; a <= LASTING; a++)
		ck_assert_uint_eq(scan.lasting_seen[a], 1);
	ck_assert_uint_eq(live_records(&m), LASTING + COMING_AND_GOING);
	heap_map_destroy(&m);
}
END_TEST

/* ---- a signal handler that uses the table while its thread rebuilds it */

/* The table takes its memory from mmap(), which resolves to this one in
 * this program: it can raise a signal at the moment a rebuild asks for a
 * larger table, as one may arrive then in any program. */
static volatile sig_atomic_t signal_in_next_mmap;

void *mmap(void *addr, size_t length, int prot, int flags, int fd,
	   off_t offset)
{
	if (signal_in_next_mmap) {
		signal_in_next_mmap = 0;
		raise(SIGUSR1);
	}
#if defined(__s390x__) /* its SYS_mmap takes its arguments in memory */
	unsigned long arguments[6] = {
		(unsigned long)addr, length, (unsigned long)prot,
		(unsigned long)flags, (unsigned long)fd, (unsigned long)offset,
	};

	return (void *)syscall(SYS_mmap, arguments);
#elif defined(SYS_mmap2) /* 32-bit systems: so does their SYS_mmap */
	return (void *)syscall(SYS_mmap2, addr, length, prot, flags, fd,
			       (long)(offset / 4096));
#else
	return (void *)syscall(SYS_mmap, addr, length, prot, flags, fd, offset);
#endif
}

#define HANDLER_FREES 0x1000
#define HANDLER_FINDS 0x2000
#define HANDLER_ALLOCATES 0x7777000

static struct heap_map handler_map;
static struct {
	volatile sig_atomic_t ran;
	int removed, found, inserted;
	struct heap_record freed;
} handler_saw;

/* What a handler that frees one sampled block, reallocs another and
 * mallocs a third asks of the table. */
static void use_the_table(int sig)
{
	struct heap_record r = record_for(HANDLER_ALLOCATES), found;
	long slot = heap_map_reserve(&handler_map, HANDLER_ALLOCATES);

	(void)sig;
	handler_saw.inserted =
		slot >= 0 &&
		heap_map_finalize(&handler_map, slot, HANDLER_ALLOCATES, &r);
	handler_saw.removed =
		heap_map_remove(&handler_map, HANDLER_FREES, &handler_saw.freed);
	handler_saw.found = heap_map_find(&handler_map, HANDLER_FINDS, &found);
	handler_saw.ran = 1;
}

/* The handler runs once this thread's rebuild has finished (it cannot
 * run inside it: the rebuild holds the gate that every call waits at),
 * and finds the table whole. */
START_TEST(signal_handler_during_its_threads_rebuild)
{
	struct sigaction use = { .sa_handler = use_the_table };
	struct heap_record out;
	const uintptr_t count = HEAP_MAP_INITIAL_CAPACITY;

	ck_assert_int_eq(sigaction(SIGUSR1, &use, NULL), 0);
	ck_assert_int_eq(heap_map_init(&handler_map, 1 << 12), 0);
	signal_in_next_mmap = 1;
	for (uintptr_t a = 1; a <= count; a++)
		insert(&handler_map, a << 12);
	ck_assert(handler_saw.ran);
	ck_assert_uint_gt(atomic_load(&handler_map.capacity),
			  HEAP_MAP_INITIAL_CAPACITY);
	ck_assert_int_eq(handler_saw.inserted, 1);
	ck_assert_int_eq(handler_saw.removed, 1);
	ck_assert_uint_eq(handler_saw.freed.size, record_for(HANDLER_FREES).size);
	ck_assert_int_eq(handler_saw.found, 1);
	ck_assert_uint_eq(live_records(&handler_map), count);
	ck_assert_int_eq(heap_map_find(&handler_map, HANDLER_ALLOCATES, &out), 1);
	ck_assert_int_eq(heap_map_find(&handler_map, HANDLER_FREES, &out), 0);
	heap_map_destroy(&handler_map);
}
END_TEST

#define STRESS_THREADS 4
#define STRESS_ROUNDS 20000

static struct heap_map stress_map;
static uintptr_t stress_window; /* live blocks per writer */
static _Atomic int writers_done;
static _Atomic uint64_t stress_births_cut_short;
/* Per writer: the blocks whose insertion has begun, the rounds done. */
static _Atomic uintptr_t stress_begun[STRESS_THREADS];
static _Atomic uintptr_t stress_rounds_done[STRESS_THREADS];

/* Inserts block i of a writer (every 7th dies during its birth); 1 when
 * it is live afterwards.  An insertion the table had to drop is allowed:
 * the caller counts drops. */
static int stress_insert(uintptr_t a, uintptr_t i)
{
	struct heap_record r = record_for(a), out;
	long slot = heap_map_reserve(&stress_map, a);
	int dies = i % 7 == 0;

	if (slot < 0)
		return 0;
	if (dies) {
		ck_assert_int_eq(heap_map_remove(&stress_map, a, &out), 2);
		atomic_fetch_add(&stress_births_cut_short, 1);
	}
	ck_assert_int_eq(heap_map_finalize(&stress_map, slot, a, &r), !dies);
	return !dies;
}

/* The top bits of an address tell the writer (or churner) it is of. */
#define WRITER_SHIFT (sizeof(uintptr_t) * CHAR_BIT - 4)

/* Block i of writer w lives at its own address, never reused. */
static uintptr_t stress_address(uintptr_t w, uintptr_t i)
{
	return ((w + 1) << WRITER_SHIFT) + (i << 12);
}

/* Round i inserts block i and removes block i - window. */
static void *stress_writer(void *arg)
{
	uintptr_t w = (uintptr_t)arg;
	unsigned char *live = calloc(STRESS_ROUNDS, 1);
	struct heap_record out;

	ck_assert_ptr_nonnull(live);
	for (uintptr_t i = 0; i < STRESS_ROUNDS; i++) {
		uintptr_t a = stress_address(w, i);

		atomic_store(&stress_begun[w], i + 1);
		live[i] = (unsigned char)stress_insert(a, i);
		if (i >= stress_window) {
			uintptr_t old = a - (stress_window << 12);
			int expect = live[i - stress_window];

			ck_assert_int_eq(heap_map_remove(&stress_map, old, &out),
					 expect);
			if (expect)
				ck_assert_uint_eq(out.size, old * 3);
		}
		atomic_store(&stress_rounds_done[w], i + 1);
	}
	free(live);
	atomic_fetch_add(&writers_done, 1);
	return NULL;
}

/* A scan is not an instant: the writers go on while it runs, so it may
 * see both a block removed after it passed its slot and one inserted
 * ahead of it meanwhile: more blocks in all than were ever live at once.
 * What it must see: each block at most once, none that died during its
 * birth, none removed before the scan began, none inserted after it
 * ended. */
struct stress_scan {
	uint32_t number;
	uintptr_t rounds_done[STRESS_THREADS]; /* before the scan */
	uintptr_t seen_end[STRESS_THREADS];    /* highest block seen, + 1 */
};

static uint32_t stress_last_scan_of[STRESS_THREADS][STRESS_ROUNDS];

static void check_scanned(void *ctx, uintptr_t address,
			  const struct heap_record *r)
{
	struct stress_scan *scan = ctx;
	uintptr_t w = (address >> WRITER_SHIFT) - 1,
		  i = (address & (((uintptr_t)1 << WRITER_SHIFT) - 1)) >> 12;

	check_whole(address, r);
	ck_assert_uint_lt(w, STRESS_THREADS);
	ck_assert_uint_lt(i, STRESS_ROUNDS);
	ck_assert_uint_eq(address, stress_address(w, i));
	ck_assert_uint_ne(i % 7, 0); /* died during its birth */
	/* removed by round i + window */
	ck_assert_uint_ge(i + stress_window, scan->rounds_done[w]);
	ck_assert_uint_ne(stress_last_scan_of[w][i], scan->number);
	stress_last_scan_of[w][i] = scan->number;
	if (i >= scan->seen_end[w])
		scan->seen_end[w] = i + 1;
}

static void *stress_reader(void *arg)
{
	struct stress_scan scan = { 0 };

	(void)arg;
	while (atomic_load(&writers_done) < STRESS_THREADS) {
		scan.number++;
		for (int w = 0; w < STRESS_THREADS; w++) {
			scan.rounds_done[w] = atomic_load(&stress_rounds_done[w]);
			scan.seen_end[w] = 0;
		}
		heap_map_for_each(&stress_map, check_scanned, &scan);
		for (int w = 0; w < STRESS_THREADS; w++)
			ck_assert_uint_le(scan.seen_end[w],
					  atomic_load(&stress_begun[w]));
	}
	return NULL;
}

/* Writers insert, kill during birth and remove blocks while a reader
 * scans; with a wide window the table grows under them.  Every record
 * must be found whole, in the numbers inserted. */
static void stress(uintptr_t window)
{
	pthread_t writers[STRESS_THREADS], reader;
	size_t left;

	stress_window = window;
	atomic_store(&writers_done, 0);
	atomic_store(&stress_births_cut_short, 0);
	for (int w = 0; w < STRESS_THREADS; w++) {
		atomic_store(&stress_begun[w], 0);
		atomic_store(&stress_rounds_done[w], 0);
	}
	ck_assert_int_eq(heap_map_init(&stress_map, 1 << 14), 0);
	pthread_create(&reader, NULL, stress_reader, NULL);
	for (uintptr_t t = 0; t < STRESS_THREADS; t++)
		pthread_create(&writers[t], NULL, stress_writer, (void *)t);
	for (int t = 0; t < STRESS_THREADS; t++)
		pthread_join(writers[t], NULL);
	pthread_join(reader, NULL);
	left = live_records(&stress_map);
	ck_assert_uint_le(left, STRESS_THREADS * (window + 1));
	ck_assert_uint_eq(left, atomic_load(&stress_map.live));
	ck_assert_uint_eq(atomic_load(&stress_map.death_during_birth),
			  atomic_load(&stress_births_cut_short));
}

START_TEST(concurrent_reserve_finalize_remove)
{
	stress(64);
	ck_assert_uint_eq(atomic_load(&stress_map.full_drops), 0);
	ck_assert_uint_eq(atomic_load(&stress_map.death_during_birth),
			  STRESS_THREADS * ((STRESS_ROUNDS + 6) / 7));
	ck_assert_uint_eq(atomic_load(&stress_map.capacity),
			  HEAP_MAP_INITIAL_CAPACITY);
	heap_map_destroy(&stress_map);
}
END_TEST

/* A rebuild waits a bounded time for the calls in progress; while one
 * waits in vain (a thread preempted inside a call for that long) the
 * table takes insertions past its limit, and drops one (counted) only
 * when no free slot is within its probe and the table cannot grow. */
START_TEST(concurrent_growth)
{
	stress(1500);
	ck_assert_uint_le(atomic_load(&stress_map.full_drops),
			  STRESS_THREADS * STRESS_ROUNDS / 1000);
	ck_assert_uint_ge(atomic_load(&stress_map.capacity), 8192);
	heap_map_destroy(&stress_map);
}
END_TEST

/* A writer preempted between reserve() and finalize() keeps the table
 * from being rebuilt for longer than a rebuild waits, while another
 * thread fills it past its limit: the table takes those insertions, and
 * grows once the writer is done. */
static struct heap_map held_map;
static _Atomic int held_reserved, held_released;

static void *held_writer(void *arg)
{
	struct heap_record r = record_for(0x7000);
	long slot = heap_map_reserve(&held_map, 0x7000);
	const struct timespec pause = { 0, 1000000 };

	(void)arg;
	ck_assert_int_ge(slot, 0);
	atomic_store(&held_reserved, 1);
	while (!atomic_load(&held_released))
		nanosleep(&pause, NULL);
	ck_assert_int_eq(heap_map_finalize(&held_map, slot, 0x7000, &r), 1);
	return NULL;
}

START_TEST(a_held_writer_makes_no_insertion_drop)
{
	/* two insertions past the limit, each waiting for a rebuild */
	const uintptr_t count = HEAP_MAP_INITIAL_CAPACITY *
					HEAP_MAP_MAX_LOAD_PERCENT / 100 + 2;
	struct heap_record out;
	pthread_t writer;

	ck_assert_int_eq(heap_map_init(&held_map, 1 << 16), 0);
	pthread_create(&writer, NULL, held_writer, NULL);
	while (!atomic_load(&held_reserved))
		sched_yield();
	for (uintptr_t a = 1; a <= count; a++)
		insert(&held_map, a << 12);
	ck_assert_uint_eq(atomic_load(&held_map.capacity),
			  HEAP_MAP_INITIAL_CAPACITY);
	atomic_store(&held_released, 1);
	pthread_join(writer, NULL);
	insert(&held_map, (count + 1) << 12);
	ck_assert_uint_eq(atomic_load(&held_map.capacity),
			  2 * HEAP_MAP_INITIAL_CAPACITY);
	ck_assert_uint_eq(atomic_load(&held_map.full_drops), 0);
	ck_assert_uint_eq(live_records(&held_map), count + 2);
	ck_assert_int_eq(heap_map_find(&held_map, 0x7000, &out), 1);
	heap_map_destroy(&held_map);
}
END_TEST

/* fork() while other threads insert and remove without pause, so that
 * calls are in progress and rebuilds run at every moment: the child must
 * get a table with the records live at the fork (and no rebuild moving
 * them), where a call the other threads had under way leaves at most its
 * reservation, and that works on. */
#define FORK_STABLE 100
#define FORK_CHURNERS 2
#define FORK_WINDOW 300
#define FORKS 200

static struct heap_map fork_map;
static _Atomic int fork_stop;

static uintptr_t stable_address(uintptr_t i)
{
	return 0x10000 + i * 16;
}

static void *fork_churner(void *arg)
{
	uintptr_t base = ((uintptr_t)arg + 1) << WRITER_SHIFT;
	struct heap_record out;

	for (uintptr_t i = 0; !atomic_load(&fork_stop); i++) {
		uintptr_t address = base + i * 16;
		struct heap_record r = record_for(address);
		long slot = heap_map_reserve(&fork_map, address);

		if (slot >= 0)
			heap_map_finalize(&fork_map, slot, address, &r);
		if (i >= FORK_WINDOW)
			heap_map_remove(&fork_map, address - FORK_WINDOW * 16,
					&out);
	}
	return NULL;
}

static void count_whole(void *ctx, uintptr_t address,
			const struct heap_record *r)
{
	struct heap_record expected = record_for(address);

	if (r->size == expected.size && r->estimate == expected.estimate &&
	    r->stack_id == expected.stack_id)
		(*(size_t *)ctx)++;
}

/* In the child: 0 when the table is as it must be. */
static int child_finds_the_table_whole(void)
{
	struct heap_record r;
	size_t whole = 0;

	heap_map_after_fork(&fork_map);
	for (uintptr_t i = 0; i < FORK_STABLE; i++)
		if (!heap_map_find(&fork_map, stable_address(i), &r) ||
		    r.size != record_for(stable_address(i)).size)
			return 1;
	heap_map_for_each(&fork_map, count_whole, &whole);
	if (whole > atomic_load(&fork_map.live) ||
	    atomic_load(&fork_map.live) - whole > FORK_CHURNERS)
		return 2; /* more than one call in progress per thread */
	for (uintptr_t i = 0; i < 4 * FORK_WINDOW; i++) {
		uintptr_t address = ((uintptr_t)9 << WRITER_SHIFT) + i * 16;
		struct heap_record rec = record_for(address);
		long slot = heap_map_reserve(&fork_map, address);

		if (slot < 0 ||
		    !heap_map_finalize(&fork_map, slot, address, &rec) ||
		    heap_map_remove(&fork_map, address, &r) != 1)
			return 3;
	}
	return 0;
}

START_TEST(fork_while_calls_and_rebuilds_run)
{
	pthread_t churners[FORK_CHURNERS];
	uint64_t rebuilds_before;
	int status;

	ck_assert_int_eq(heap_map_init(&fork_map, 1 << 14), 0);
	for (uintptr_t i = 0; i < FORK_STABLE; i++)
		insert(&fork_map, stable_address(i));
	atomic_store(&fork_stop, 0);
	for (uintptr_t t = 0; t < FORK_CHURNERS; t++)
		pthread_create(&churners[t], NULL, fork_churner, (void *)t);
	rebuilds_before = atomic_load(&fork_map.rebuilds);
	for (int f = 0; f < FORKS; f++) {
		pid_t pid;

		heap_map_prefork(&fork_map);
		pid = fork();
		if (pid == 0)
			_exit(child_finds_the_table_whole());
		heap_map_postfork_parent(&fork_map);
		ck_assert_int_gt(pid, 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "fork %d: child status %#x", f, status);
	}
	atomic_store(&fork_stop, 1);
	for (int t = 0; t < FORK_CHURNERS; t++)
		pthread_join(churners[t], NULL);
	/* the forks came between rebuilds, not after them all */
	ck_assert_uint_gt(atomic_load(&fork_map.rebuilds), rebuilds_before);
	heap_map_destroy(&fork_map);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("heap_map");
	TCase *tc = tcase_create("single thread");
	TCase *sig = tcase_create("signals");
	TCase *mt = tcase_create("threads");

	tcase_add_test(tc, insert_remove);
	tcase_add_test(tc, slot_sizes);
	tcase_add_test(tc, compact_records_round_trip);
	tcase_add_test(tc, compact_refuses_what_does_not_fit);
	tcase_add_test(tc, rejects_bad_capacity);
	tcase_add_test(tc, death_during_birth);
	tcase_add_test(tc, tombstones_are_reused);
	tcase_add_test(tc, full_table_drops_and_counts);
	tcase_add_test(tc, grows_from_small_keeping_every_record);
	tcase_add_test(tc, tombstones_never_fill_the_table);
	tcase_add_test(tc, rebuilds_a_table_without_empty_slots);
	tcase_add_test(tc, a_crowded_probe_grows_the_table);
	tcase_add_test(tc, lookups_of_untracked_addresses_change_nothing);
	tcase_add_test(tc, scan_while_blocks_come_and_go);
	tcase_add_test(sig, signal_handler_during_its_threads_rebuild);
	tcase_add_test(mt, concurrent_reserve_finalize_remove);
	tcase_add_test(mt, concurrent_growth);
	tcase_add_test(mt, a_held_writer_makes_no_insertion_drop);
	tcase_add_test(mt, fork_while_calls_and_rebuilds_run);
	tcase_set_timeout(mt, 60);
	tcase_set_timeout(sig, 2); /* a handler that waits for its thread hangs */
	suite_add_tcase(s, tc);
	suite_add_tcase(s, sig);
	suite_add_tcase(s, mt);
	return s;
}
