/* code_map.c - the executable segments of the loaded objects (see
 * code_map.h). */
#include "config.h"

#include "code_map.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

#include "compiler.h"
#include "keeps_frame_pointers.h"
#include "loaded_objects.h"
#include "rawmem.h"
#include "spinlock.h"

#define CODE_RANGES_MAX 8192
/* Ranges each thread remembers: a stack's return addresses lie in a few
 * objects, mostly the same ones from one sample to the next. */
#define CACHED_RANGES 4
/* A lookup that keeps meeting a rebuild gives up rather than wait. */
#define LOOKUP_ATTEMPTS 64

#define relaxed memory_order_relaxed

struct code_range {
	uintptr_t start, end;
	enum code_kind kind;
	uintptr_t eh_frame_hdr; /* the object's, or 0 */
};

/* The published array is read while a rebuild may rewrite it (a sequence
 * lock: readers retry when the sequence moved), so its words are atomic. */
struct published_range {
	_Atomic uintptr_t start, end, eh_frame_hdr;
	_Atomic int kind;
};

struct tables {
	struct published_range published[CODE_RANGES_MAX];
	struct code_range scratch[CODE_RANGES_MAX]; /* the rebuild's own */
};

static struct {
	_Atomic(struct tables *) tables;
	_Atomic uint32_t sequence; /* odd while the array is rewritten */
	_Atomic uint32_t count;
	_Atomic int rebuilding;
	/* The dynamic linker's counters of loads and unloads when the array
	 * was built (only the rebuilding thread touches them). */
	int built;
	unsigned long long adds, subs;
} map;

/* The published range that overlaps (start, end], if any: the first one
 * that ends after start, when it starts before end; NULL if none.  A torn
 * read gives a wrong answer, never a wild access: the indices stay inside
 * the array. */
static const struct published_range *
search(const struct published_range *r, uint32_t n, uintptr_t start,
       uintptr_t end)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (atomic_load_explicit(&r[mid].end, relaxed) <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && atomic_load_explicit(&r[lo].start, relaxed) < end)
		return &r[lo];
	return NULL;
}

/* What a lookup found: the range and what it holds (kind NOT_CODE and
 * an empty range when none), under the array's sequence `sequence`. */
struct found_range {
	uint32_t sequence;
	uintptr_t start, end;
	struct code_info info;
};

/* 1 and *found set when the array was read whole (no rebuild ran): what
 * the array says of the range holding a byte of (start, end]. */
static int lookup(uintptr_t start, uintptr_t end, struct found_range *found)
{
	const struct published_range *r;
	struct tables *t = atomic_load_explicit(&map.tables,
						memory_order_acquire);
	uint32_t seq = atomic_load_explicit(&map.sequence,
					    memory_order_acquire);
	uint32_t n = atomic_load_explicit(&map.count, relaxed);

	*found = (struct found_range){ .sequence = seq,
				       .info = { NOT_CODE, 0 } };
	if (!t)
		return 1;
	if (seq & 1)
		return 0;
	r = search(t->published, n < CODE_RANGES_MAX ? n : 0, start, end);
	if (r) {
		found->start = atomic_load_explicit(&r->start, relaxed);
		found->end = atomic_load_explicit(&r->end, relaxed);
		found->info.kind = (enum code_kind)atomic_load_explicit(
			&r->kind, relaxed);
		found->info.eh_frame_hdr =
			atomic_load_explicit(&r->eh_frame_hdr, relaxed);
	}
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&map.sequence, relaxed) == seq;
}

static struct found_range range_of(uintptr_t start, uintptr_t end)
{
	struct found_range found;

	for (int i = 0; i < LOOKUP_ATTEMPTS; i++) {
		if (lookup(start, end, &found))
			return found;
		cpu_relax();
	}
	return (struct found_range){ .info = { NOT_CODE, 0 } };
}

static struct code_info info_of(uintptr_t start, uintptr_t end)
{
	return range_of(start, end).info;
}

/* The ranges this thread found last, each valid while the array keeps the
 * sequence it was found under (the first build makes it non-zero, so an
 * empty entry never matches).  `busy` keeps a signal handler that looks
 * up an address from an entry being rewritten: it reads the array. */
static INITIAL_EXEC_TLS struct {
	struct found_range ranges[CACHED_RANGES];
	unsigned next; /* the entry replaced next */
	int busy;
} cache;

static const struct found_range *cached_range(uintptr_t address)
{
	uint32_t seq = atomic_load_explicit(&map.sequence,
					    memory_order_acquire);

	for (int i = 0; i < CACHED_RANGES; i++) {
		const struct found_range *r = &cache.ranges[i];

		if (r->sequence == seq && r->start < address &&
		    address <= r->end)
			return r;
	}
	return NULL;
}

static void remember_range(const struct found_range *found)
{
	if (found->info.kind == NOT_CODE) /* or the array was never read */
		return;
	cache.ranges[cache.next] = *found;
	cache.next = (cache.next + 1) % CACHED_RANGES;
}

struct scan {
	struct code_range *ranges;
	uint32_t count;
};

static int collect(const struct dl_phdr_info *info, void *data)
{
	struct scan *s = data;
	enum code_kind kind = object_keeps_frame_pointers(info)
				      ? CODE_WITH_FRAME_POINTERS
				      : CODE_WITHOUT_FRAME_POINTERS;
	struct object_segment segment;
	uintptr_t eh_frame_hdr = 0;
	int next = 0;

	if (object_next_segment(info, PT_GNU_EH_FRAME, &next, &segment))
		eh_frame_hdr = segment.start;
	next = 0;
	while (object_next_segment(info, PT_LOAD, &next, &segment)) {
		if (!(segment.flags & PF_X) || s->count == CODE_RANGES_MAX)
			continue;
		s->ranges[s->count++] = (struct code_range){
			segment.start, segment.end, kind, eh_frame_hdr
		};
	}
	return 0;
}

/* Shell sort by start address: no allocation, and quick enough for the
 * few thousand segments of the largest programs. */
static void sort_ranges(struct code_range *r, uint32_t n)
{
	for (uint32_t gap = n / 2; gap > 0; gap /= 2) {
		for (uint32_t i = gap; i < n; i++) {
			struct code_range moving = r[i];
			uint32_t j = i;

			for (; j >= gap && r[j - gap].start > moving.start;
			     j -= gap)
				r[j] = r[j - gap];
			r[j] = moving;
		}
	}
}

static void publish(struct tables *t, uint32_t n)
{
	uint32_t seq = atomic_load_explicit(&map.sequence, relaxed);

	atomic_store_explicit(&map.sequence, seq + 1, relaxed);
	atomic_thread_fence(memory_order_release);
	for (uint32_t i = 0; i < n; i++) {
		atomic_store_explicit(&t->published[i].start,
				      t->scratch[i].start, relaxed);
		atomic_store_explicit(&t->published[i].end, t->scratch[i].end,
				      relaxed);
		atomic_store_explicit(&t->published[i].kind,
				      (int)t->scratch[i].kind, relaxed);
		atomic_store_explicit(&t->published[i].eh_frame_hdr,
				      t->scratch[i].eh_frame_hdr, relaxed);
	}
	atomic_store_explicit(&map.count, n, relaxed);
	atomic_store_explicit(&map.sequence, seq + 2, memory_order_release);
}

static struct tables *tables_mapped(void)
{
	struct tables *t = atomic_load_explicit(&map.tables, relaxed);

	if (!t) {
		t = rawmem_map(sizeof(*t));
		atomic_store_explicit(&map.tables, t, memory_order_release);
	}
	return t;
}

/* 1 when the loaded objects changed since the last build and the array
 * now shows them. */
static int rebuild_if_changed(void)
{
	struct tables *t;
	struct scan s = { NULL, 0 };
	unsigned long long adds, subs;
	int changed = 0;

	if (!spin_trylock(&map.rebuilding))
		return 0;
	t = tables_mapped();
	/* Without the dynamic linker's counters every miss rebuilds. */
	if (t && (!loaded_objects_counts(&adds, &subs) || !map.built ||
		  adds != map.adds || subs != map.subs)) {
		s.ranges = t->scratch;
		loaded_objects_each(collect, &s);
		sort_ranges(s.ranges, s.count);
		publish(t, s.count);
		map.adds = adds;
		map.subs = subs;
		map.built = 1;
		changed = 1;
	}
	spin_unlock(&map.rebuilding);
	return changed;
}

/* Whether an address the array lacks may lie in an object loaded since
 * it was built.  Stray values are common (every walk through code built
 * without frame pointers may end on one): where the C library can tell
 * without a lock that the address is in no object, or in one whose code
 * the array has, the dynamic linker's lock is not taken. */
static int maybe_new_code(uintptr_t address)
{
#ifdef HAVE__DL_FIND_OBJECT
	struct dl_find_object object;

	if (_dl_find_object((void *)address, &object) != 0)
		return 0;
	return info_of((uintptr_t)object.dlfo_map_start,
		       (uintptr_t)object.dlfo_map_end).kind == NOT_CODE;
#else
	(void)address;
	return 1;
#endif
}

static struct found_range uncached_lookup(uintptr_t address)
{
	struct found_range found = range_of(address - 1, address);

	if (found.info.kind == NOT_CODE && maybe_new_code(address) &&
	    rebuild_if_changed())
		found = range_of(address - 1, address);
	return found;
}

struct code_info code_map_lookup(uintptr_t address)
{
	const struct found_range *r;
	struct found_range found;
	struct code_info info;

	if (cache.busy) /* a signal handler's, amid this thread's lookup */
		return uncached_lookup(address).info;
	cache.busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	r = cached_range(address);
	if (r) {
		info = r->info;
	} else {
		found = uncached_lookup(address);
		remember_range(&found);
		info = found.info;
	}
	atomic_signal_fence(memory_order_seq_cst);
	cache.busy = 0;
	return info;
}

uint32_t code_map_generation(void)
{
	return atomic_load_explicit(&map.sequence, memory_order_acquire) / 2;
}

enum code_kind code_map_return_kind(uintptr_t address)
{
	return code_map_lookup(address).kind;
}

void code_map_after_fork(void)
{
	uint32_t seq = atomic_load_explicit(&map.sequence, relaxed);

	if (!atomic_load_explicit(&map.rebuilding, relaxed))
		return;
	if (seq & 1) { /* the parent's rebuild stopped half-way */
		atomic_store_explicit(&map.count, 0, relaxed);
		atomic_store_explicit(&map.sequence, seq + 1, relaxed);
	}
	map.built = 0;
	atomic_store_explicit(&map.rebuilding, 0, relaxed);
}

struct range_query {
	uintptr_t address, lo, hi;
};

static int find_code_range(const struct dl_phdr_info *info, void *data)
{
	struct range_query *r = data;
	struct object_segment load;
	int next = 0;

	while (object_next_segment(info, PT_LOAD, &next, &load)) {
		if ((load.flags & PF_X) && r->address >= load.start &&
		    r->address < load.end) {
			r->lo = load.start;
			r->hi = load.end;
			return 1;
		}
	}
	return 0;
}

int code_range_of(const void *code, uintptr_t *lo, uintptr_t *hi)
{
	struct range_query r = { .address = (uintptr_t)code };

	if (!loaded_objects_each(find_code_range, &r))
		return -1;
	*lo = r.lo;
	*hi = r.hi;
	return 0;
}
