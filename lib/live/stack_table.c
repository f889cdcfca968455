/* stack_table.c - call-stack interning (see stack_table.h). */
#include "config.h"

#include "stack_table.h"

#include <errno.h>
#include <string.h>

#include "rawmem.h"

#define relaxed memory_order_relaxed

struct stack_index {
	uint32_t capacity;   /* stacks this index is sized for */
	uint32_t mask;       /* slots - 1; slots = 2 * capacity */
	struct stack_index *older;
	_Atomic uint32_t slots[];
};

static size_t index_bytes(uint32_t capacity)
{
	return sizeof(struct stack_index) +
	       2 * (size_t)capacity * sizeof(_Atomic uint32_t);
}

static struct stack_index *index_new(uint32_t capacity)
{
	struct stack_index *x = rawmem_map(index_bytes(capacity));

	if (x) {
		x->capacity = capacity;
		x->mask = 2 * capacity - 1;
	}
	return x;
}

uint64_t stack_hash(const uint64_t *frames, uint32_t depth)
{
	uint64_t h = 0xCBF29CE484222325ull ^ depth;

	/* One multiply-mix per frame: stacks are hashed on every sample. */
	for (uint32_t i = 0; i < depth; i++) {
		h ^= (uint64_t)frames[i];
		h *= 0x9E3779B97F4A7C15ull;
		h ^= h >> 29;
	}
	return h ? h : 1; /* 0 marks an incomplete entry */
}

int stack_table_init(struct stack_table *t, uint32_t max_entries)
{
	uint32_t chunks;

	if (max_entries < STACK_TABLE_CHUNK)
		max_entries = STACK_TABLE_CHUNK;
	chunks = (max_entries + STACK_TABLE_CHUNK - 1) / STACK_TABLE_CHUNK;
	memset(t, 0, sizeof(*t));
	t->max_entries = chunks * STACK_TABLE_CHUNK;
	t->chunks = rawmem_map(chunks * sizeof(*t->chunks));
	atomic_init(&t->index, index_new(STACK_TABLE_INITIAL < t->max_entries
						 ? STACK_TABLE_INITIAL
						 : t->max_entries));
	if (!t->chunks || !atomic_load(&t->index)) {
		stack_table_destroy(t);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static void free_index_chain(struct stack_index *x)
{
	while (x) {
		struct stack_index *older = x->older;

		rawmem_unmap(x, index_bytes(x->capacity));
		x = older;
	}
}

void stack_table_destroy(struct stack_table *t)
{
	uint32_t chunks = t->max_entries / STACK_TABLE_CHUNK;

	free_index_chain(atomic_load(&t->index));
	free_index_chain(atomic_load(&t->retired));
	for (uint32_t c = 0; t->chunks && c < chunks; c++)
		rawmem_unmap(atomic_load(&t->chunks[c]),
			     STACK_TABLE_CHUNK * sizeof(struct stack_entry));
	rawmem_unmap(t->chunks, chunks * sizeof(*t->chunks));
	memset(t, 0, sizeof(*t));
}

static struct stack_entry *entry_of(struct stack_table *t, uint32_t id)
{
	struct stack_entry *chunk = atomic_load_explicit(
		&t->chunks[id / STACK_TABLE_CHUNK], memory_order_acquire);

	return chunk ? &chunk[id % STACK_TABLE_CHUNK] : NULL;
}

static struct stack_entry *entry_for_new_id(struct stack_table *t, uint32_t id)
{
	_Atomic(struct stack_entry *) *slot = &t->chunks[id / STACK_TABLE_CHUNK];
	struct stack_entry *chunk = atomic_load_explicit(slot,
							 memory_order_acquire);
	size_t bytes = STACK_TABLE_CHUNK * sizeof(struct stack_entry);

	if (!chunk) {
		struct stack_entry *fresh = rawmem_map(bytes);

		if (!fresh)
			return NULL;
		if (atomic_compare_exchange_strong_explicit(
			    slot, &chunk, fresh, memory_order_acq_rel,
			    memory_order_acquire))
			chunk = fresh;
		else
			rawmem_unmap(fresh, bytes); /* another thread won */
	}
	return &chunk[id % STACK_TABLE_CHUNK];
}

const struct stack_entry *stack_table_get(struct stack_table *t, uint32_t id)
{
	struct stack_entry *e;

	if (id >= atomic_load_explicit(&t->next_id, memory_order_acquire) ||
	    id >= t->max_entries)
		return NULL;
	e = entry_of(t, id);
	if (!e || !atomic_load_explicit(&e->hash, memory_order_acquire))
		return NULL;
	return e;
}

uint32_t stack_table_count(struct stack_table *t)
{
	uint32_t n = atomic_load_explicit(&t->next_id, memory_order_acquire);

	return n < t->max_entries ? n : t->max_entries;
}

uint32_t stack_table_capacity(struct stack_table *t)
{
	return atomic_load_explicit(&t->index, memory_order_acquire)->capacity;
}

static int entry_matches(const struct stack_entry *e, uint64_t hash,
			 const uint64_t *frames, uint32_t depth)
{
	return atomic_load_explicit(&e->hash, memory_order_acquire) == hash &&
	       e->depth == depth &&
	       memcmp(e->frames, frames, depth * sizeof(uint64_t)) == 0;
}

/* Places id + 1 in the first free slot of its probe sequence, unless an
 * equal stack is found first; returns the id that now stands for it. */
static uint32_t index_place(struct stack_table *t, struct stack_index *x,
			    uint64_t hash, uint32_t id)
{
	const struct stack_entry *mine = entry_of(t, id);

	for (uint32_t i = (uint32_t)hash & x->mask, n = 0; n <= x->mask;
	     i = (i + 1) & x->mask, n++) {
		uint32_t v = atomic_load_explicit(&x->slots[i],
						  memory_order_acquire);

		if (v == 0 &&
		    atomic_compare_exchange_strong_explicit(
			    &x->slots[i], &v, id + 1, memory_order_acq_rel,
			    memory_order_acquire))
			return id;
		if (v - 1 == id)
			return id; /* placed already (by a grower's re-scan) */
		if (v != 0 &&
		    entry_matches(entry_of(t, v - 1), hash, mine->frames,
				  mine->depth)) {
			atomic_fetch_add_explicit(&t->duplicates, 1, relaxed);
			return v - 1;
		}
	}
	return id; /* cannot happen: an index is never more than half full */
}

static void place_completed(struct stack_table *t, struct stack_index *x,
			    uint32_t from, uint32_t to)
{
	for (uint32_t id = from; id < to; id++) {
		const struct stack_entry *e = stack_table_get(t, id);

		if (e)
			index_place(t, x, atomic_load(&e->hash), id);
	}
}

/* Builds an index twice the size, with every completed entry, publishes
 * it, then adds the entries completed meanwhile.  An interning thread that
 * finds the index replaced under it places its id again (see
 * stack_table_intern), so both sides cover the switch. */
static void grow(struct stack_table *t, struct stack_index *old)
{
	struct stack_index *bigger;
	uint32_t count;
	int idle = 0;

	if (old->capacity >= t->max_entries ||
	    !atomic_compare_exchange_strong(&t->growing, &idle, 1))
		return;
	if (atomic_load(&t->index) != old)
		goto done;
	bigger = index_new(old->capacity * 2);
	if (!bigger)
		goto done;
	count = stack_table_count(t);
	place_completed(t, bigger, 0, count);
	/* Readers may still hold the old index: keep it until destroy. */
	old->older = atomic_load(&t->retired);
	atomic_store(&t->retired, old);
	atomic_store_explicit(&t->index, bigger, memory_order_release);
	place_completed(t, bigger, count, stack_table_count(t));
done:
	atomic_store(&t->growing, 0);
}

static uint32_t lookup(struct stack_table *t, struct stack_index *x,
		       uint64_t hash, const uint64_t *frames, uint32_t depth)
{
	for (uint32_t i = (uint32_t)hash & x->mask, n = 0; n <= x->mask;
	     i = (i + 1) & x->mask, n++) {
		uint32_t v = atomic_load_explicit(&x->slots[i],
						  memory_order_acquire);

		if (v == 0)
			return STACK_ID_NONE;
		if (entry_matches(entry_of(t, v - 1), hash, frames, depth))
			return v - 1;
		atomic_fetch_add_explicit(&t->collisions, 1, relaxed);
	}
	return STACK_ID_NONE;
}

uint32_t stack_table_intern(struct stack_table *t, const uint64_t *frames,
			    uint32_t depth)
{
	struct stack_index *x = atomic_load_explicit(&t->index,
						      memory_order_acquire);
	uint64_t hash;
	uint32_t id, found;
	struct stack_entry *e;

	if (depth > MEMPROF_MAX_STACK_DEPTH)
		depth = MEMPROF_MAX_STACK_DEPTH;
	hash = stack_hash(frames, depth);
	found = lookup(t, x, hash, frames, depth);
	if (found != STACK_ID_NONE)
		return found;

	/* Checked before the increment so that a full table stops counting
	 * (ids must never wrap around). */
	if (atomic_load_explicit(&t->next_id, relaxed) >= t->max_entries)
		id = t->max_entries;
	else
		id = atomic_fetch_add_explicit(&t->next_id, 1,
					       memory_order_acq_rel);
	if (id >= t->max_entries || !(e = entry_for_new_id(t, id))) {
		atomic_fetch_add_explicit(&t->drops, 1, relaxed);
		return STACK_ID_NONE;
	}
	e->depth = depth;
	e->flags = 0;
	memcpy(e->frames, frames, depth * sizeof(uint64_t));
	atomic_store_explicit(&e->hash, hash, memory_order_release);

	found = index_place(t, x, hash, id);
	if ((uint64_t)(id + 1) * 4 > (uint64_t)x->capacity * 3)
		grow(t, x);
	/* The index may have been replaced while we placed the id. */
	for (struct stack_index *now;
	     (now = atomic_load_explicit(&t->index, memory_order_acquire)) != x;
	     x = now)
		found = index_place(t, now, hash, found);
	return found;
}
