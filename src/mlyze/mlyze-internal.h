/* mlyze-internal.h - what the parts of libmlyze share.
 *
 * The reader (mlyze-reader.c) decodes the event stream; the metadata
 * parser (mlyze-metadata.c) and the tables (mlyze-tables.c) fill the
 * reader's tables.  All three read through the input (mlyze-input.c),
 * which holds the file, its buffer and the first error, and report
 * problems through input_fail().
 */
#ifndef SPPROF_MLYZE_INTERNAL_H
#define SPPROF_MLYZE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spprof/mlyze.h"
#include "mlyze-input.h"
#include "u64map.h"

/* Memory that lives as long as the reader: table entries and their text. */
struct arena {
	struct arena_chunk *chunks;
	size_t used, capacity; /* within the newest chunk */
};

/* Entries in order of definition, and an index from id to entry. */
struct id_table {
	struct u64map by_id; /* value.a: the entry's address */
	void **entries;
	size_t count, capacity;
	/* Writers number ids from 0, so most lookups (one per ALLOC) can
	 * index an array: dense[id] for every id below dense_length. */
	void **dense;
	size_t dense_length;
};

struct mlyze_tables {
	/* Entries apart from their frames and text, packed together: the
	 * stack of every ALLOC is looked at, and should stay in cache. */
	struct arena entries;
	struct arena arena;
	struct id_table stacks, modules, strings[2];
	/* Modules ordered by start address, without overlaps: a module mapped
	 * over older ones replaces them for the addresses seen afterwards. */
	const struct mlyze_module **ranges;
	size_t range_count, range_capacity;
	/* The symbols of SYMBOL events, by module id and address
	 * (mlyze-symbols.c). */
	struct u64map symbols;
};

/* The most bytes of an event read unsure that a reader keeps. */
#define UNSURE_EVENT_MAX 64

struct mlyze_reader {
	struct mlyze_input in; /* the file, its buffer, the error */
	bool finished;
	bool truncated;
	/* File offset of a non-zero byte seen ahead: zero bytes before it are
	 * not the unwritten tail of a streamed file. */
	uint64_t nonzero_at;
	/* The same, seen in the buffer itself: what zeros_to_end saw after
	 * it says nothing of how fresh the buffered bytes are. */
	uint64_t buffered_nonzero_at;
	/* File offset where the events end, fixed when the reader first
	 * reaches the last one written (see fix_end_of_events); 0 until then. */
	uint64_t end_of_events;
	/* The last event read while its writer may have been writing it
	 * (see note_unsure_event): where, how long (0: none) and, when no
	 * longer than UNSURE_EVENT_MAX, its bytes. */
	uint64_t unsure_at;
	size_t unsure_length;
	uint8_t unsure_bytes[UNSURE_EVENT_MAX];
	uint64_t skip_left; /* payload bytes of an unknown event to discard */
	uint64_t skip_event_offset;
	char skip_event_name[16];

	uint64_t time_us;
	uint64_t sampling_rate;
	struct mlyze_weight event_sum; /* of the TOTALS or HEAP_POINT event */
	/* The name of the THREAD event, repaired (each byte as U+FFFD at
	 * most: three bytes). */
	char thread_name[3 * MLYZE_THREAD_NAME_MAX + 1];
	struct mlyze_frame *scratch_frames; /* decoding a STACK event */
	size_t scratch_capacity;

	struct mlyze_info info;
	char **command_line;
	struct mlyze_tables tables;

	/* "offset N: problem" of the first damaged stack, and whether the
	 * warning about them was given. */
	char *first_damage;
	bool damage_reported;
};

/* Parse the JSON metadata (length bytes at the current position). */
int metadata_read(struct mlyze_reader *r, uint32_t length);

void tables_init(struct mlyze_tables *t);
void tables_free(struct mlyze_tables *t);
void *arena_alloc(struct arena *a, size_t size);
char *arena_strndup(struct arena *a, const char *text, size_t length);

/* An id that no dense array holds. */
const void *table_find_sparse(const struct id_table *table, uint64_t id);

/* The entry of id, or NULL; inline for the ids below dense_length, as
 * the stack of every ALLOC is. */
static inline const void *table_find(const struct id_table *table,
				     uint64_t id)
{
	if (id < table->dense_length)
		return table->dense[id];
	return table_find_sparse(table, id);
}
const char *table_name(enum mlyze_table table); /* "file", "function" */

/* Each define_* checks the entry against an earlier definition of the same
 * id (identical: the earlier one is returned; different: an error) and
 * returns the stored entry, or NULL after input_fail(). */
const struct mlyze_string *define_string(struct mlyze_reader *r,
					 uint64_t offset,
					 enum mlyze_table table, uint64_t id,
					 const char *text, size_t length);
/* module->path holds path_length bytes, not necessarily NUL-terminated. */
const struct mlyze_module *define_module(struct mlyze_reader *r,
					 uint64_t offset,
					 const struct mlyze_module *module,
					 size_t path_length);
/* Whether a stack of `depth` frames may be defined: not deeper than
 * MLYZE_STACK_DEPTH_MAX; else the reader's error says so, naming it. */
bool stack_depth_allowed(struct mlyze_reader *r, uint64_t offset,
			 uint64_t id, uint64_t depth);
const struct mlyze_stack *define_stack(struct mlyze_reader *r, uint64_t offset,
				       uint64_t id,
				       const struct mlyze_frame *frames,
				       size_t depth);
/* The frames of stack `id` could not be read: the reader's error says why.
 * Define the stack as damaged (no frames), count it and clear the error;
 * NULL when the error is not the file's (out of memory) or the id is
 * already a stack that is not damaged. */
const struct mlyze_stack *define_damaged_stack(struct mlyze_reader *r,
					       uint64_t offset, uint64_t id);

/* One function of a SYMBOL event, as its bytes lie in the payload
 * (length 0: unknown). */
struct symbol_text {
	const char *function, *file;
	size_t function_length, file_length;
	uint64_t line;
};

/* The symbols of module's `address` (see mlyze-symbols.c): the stored
 * ones, or NULL after input_fail() (text with a NUL byte, a module id or
 * address out of bounds, a different earlier SYMBOL for the same
 * address, out of memory). */
const struct mlyze_symbol *define_symbols(struct mlyze_reader *r,
					  uint64_t offset,
					  const struct mlyze_module *module,
					  uint64_t address,
					  const struct symbol_text *symbols,
					  size_t count);

/* Frame of a Python code location; fails on undefined ids. */
int python_frame(struct mlyze_reader *r, uint64_t offset, uint64_t stack_id,
		 uint64_t file_id, uint64_t function_id, uint64_t line,
		 struct mlyze_frame *frame);
/* Frame of an absolute native address, mapped through the module ranges. */
void native_frame(const struct mlyze_tables *t, uint64_t address,
		  struct mlyze_frame *frame);

#endif /* SPPROF_MLYZE_INTERNAL_H */
