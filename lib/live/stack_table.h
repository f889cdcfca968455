/* stack_table.h - lock-free interning of call stacks.
 *
 * Contract: stack_table_intern() maps a sequence of return addresses to a
 * small stable id; the same stack gives the same id (two threads racing on
 * a new stack may rarely create two ids for it, which readers merge by
 * content).  Entries live in chunks that are never moved or freed, so an
 * id stays valid for the life of the process.  The hash index starts sized
 * for STACK_TABLE_INITIAL stacks and doubles at 75 % load until the
 * configured maximum; past the maximum, new stacks get STACK_ID_NONE.
 */
#ifndef SPPROF_STACK_TABLE_H
#define SPPROF_STACK_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <spprof/memprof.h>

#define STACK_TABLE_INITIAL (1u << 12)
#define STACK_TABLE_MAX_DEFAULT (1u << 16)
#define STACK_TABLE_CHUNK (1u << 12) /* entries per storage chunk */
#define STACK_ID_NONE UINT32_MAX

struct stack_entry {
	_Atomic uint64_t hash; /* 0 until the entry is complete */
	uint32_t depth;
	uint32_t flags;
	uint64_t frames[MEMPROF_MAX_STACK_DEPTH];
};

struct stack_index; /* private: open-addressing array of id + 1 */

struct stack_table {
	_Atomic(struct stack_index *) index;
	_Atomic(struct stack_entry *) *chunks; /* max / STACK_TABLE_CHUNK */
	uint32_t max_entries;
	_Atomic uint32_t next_id;
	_Atomic int growing;
	_Atomic uint64_t collisions;
	_Atomic uint64_t drops;
	_Atomic uint64_t duplicates;
	_Atomic(struct stack_index *) retired; /* older indexes, kept */
};

/* max_entries is rounded up to a multiple of STACK_TABLE_CHUNK. */
int stack_table_init(struct stack_table *t, uint32_t max_entries);
void stack_table_destroy(struct stack_table *t);

uint64_t stack_hash(const uint64_t *frames, uint32_t depth);

uint32_t stack_table_intern(struct stack_table *t, const uint64_t *frames,
			    uint32_t depth);

/* The entry of an id, or NULL when the id was never completed. */
const struct stack_entry *stack_table_get(struct stack_table *t, uint32_t id);

/* Ids handed out so far (some may be incomplete: check stack_table_get). */
uint32_t stack_table_count(struct stack_table *t);

/* Stacks the current index is sized for. */
uint32_t stack_table_capacity(struct stack_table *t);

#endif /* SPPROF_STACK_TABLE_H */
