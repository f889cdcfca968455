/* mlyze-tables.c - the stacks, modules and names of one profile.
 *
 * Contract: entries are defined from the metadata or from definition events
 * and never change or move afterwards, so the reader can hand out pointers.
 * Redefining an id with identical content is allowed (a finalised profile
 * may repeat what the stream said); with different content it is an error.
 * Text must be UTF-8 without NUL bytes, so every consumer can print it.
 */
#include "config.h"

#include "mlyze-internal.h"
#include "utf8.h"

#include <inttypes.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK_SIZE (64u * 1024u)

struct arena_chunk {
	struct arena_chunk *older;
	max_align_t data[];
};

void *arena_alloc(struct arena *a, size_t size)
{
	size_t aligned = (size + alignof(max_align_t) - 1) &
			 ~(alignof(max_align_t) - 1);
	struct arena_chunk *chunk;

	if (aligned < size)
		return NULL;
	if (!a->chunks || a->capacity - a->used < aligned) {
		size_t capacity = aligned > ARENA_CHUNK_SIZE ? aligned
							     : ARENA_CHUNK_SIZE;

		chunk = malloc(sizeof(*chunk) + capacity);
		if (!chunk)
			return NULL;
		chunk->older = a->chunks;
		a->chunks = chunk;
		a->used = 0;
		a->capacity = capacity;
	}
	void *p = (char *)a->chunks->data + a->used;

	a->used += aligned;
	return p;
}

char *arena_strndup(struct arena *a, const char *text, size_t length)
{
	char *copy = arena_alloc(a, length + 1);

	if (copy) {
		memcpy(copy, text, length);
		copy[length] = '\0';
	}
	return copy;
}

static void arena_free(struct arena *a)
{
	while (a->chunks) {
		struct arena_chunk *older = a->chunks->older;

		free(a->chunks);
		a->chunks = older;
	}
	a->used = a->capacity = 0;
}

#define DENSE_MIN 64
/* The dense array covers ids below twice the entry count (and 2^24), so
 * its size stays proportional to the table's. */
#define DENSE_MAX ((uint64_t)1 << 24)

/* The id of any entry: stacks, modules and strings all start with it. */
_Static_assert(offsetof(struct mlyze_stack, id) == 0 &&
		       offsetof(struct mlyze_module, id) == 0 &&
		       offsetof(struct mlyze_string, id) == 0,
	       "table entries start with their id");

static uint64_t entry_id(const void *entry)
{
	return *(const uint64_t *)entry;
}

static void table_init(struct id_table *table)
{
	u64map_init(&table->by_id);
	table->entries = NULL;
	table->count = table->capacity = 0;
	table->dense = NULL;
	table->dense_length = 0;
}

static void table_free(struct id_table *table)
{
	u64map_free(&table->by_id);
	free(table->entries);
	free(table->dense);
	table_init(table);
}

void tables_init(struct mlyze_tables *t)
{
	t->entries.chunks = t->arena.chunks = NULL;
	t->entries.used = t->entries.capacity = 0;
	t->arena.used = t->arena.capacity = 0;
	table_init(&t->stacks);
	table_init(&t->modules);
	table_init(&t->strings[MLYZE_TABLE_FILES]);
	table_init(&t->strings[MLYZE_TABLE_FUNCTIONS]);
	t->ranges = NULL;
	t->range_count = t->range_capacity = 0;
	u64map_init(&t->symbols);
}

void tables_free(struct mlyze_tables *t)
{
	table_free(&t->stacks);
	table_free(&t->modules);
	table_free(&t->strings[MLYZE_TABLE_FILES]);
	table_free(&t->strings[MLYZE_TABLE_FUNCTIONS]);
	free(t->ranges);
	u64map_free(&t->symbols);
	arena_free(&t->entries);
	arena_free(&t->arena);
	tables_init(t);
}

const void *table_find_sparse(const struct id_table *table, uint64_t id)
{
	const struct u64map_value *v = u64map_get(&table->by_id, id);

	return v ? (const void *)(uintptr_t)v->a : NULL;
}

const char *table_name(enum mlyze_table table)
{
	return table == MLYZE_TABLE_FILES ? "file" : "function";
}

/* Grow an array of `size`-byte elements to hold at least `needed`. */
static int reserve(void **array, size_t *capacity, size_t needed, size_t size)
{
	size_t n = *capacity ? *capacity : 16;
	void *grown;

	if (needed <= *capacity)
		return 0;
	while (n < needed)
		n *= 2;
	grown = realloc(*array, n * size);
	if (!grown)
		return -1;
	*array = grown;
	*capacity = n;
	return 0;
}

/* Extend the dense array over `id`, filling it from the entries. */
static int cover(struct id_table *table, uint64_t id)
{
	size_t length = table->dense_length ? table->dense_length : DENSE_MIN;
	void **dense;

	while (length <= id)
		length *= 2;
	dense = realloc(table->dense, length * sizeof(*dense));
	if (!dense)
		return -1;
	for (size_t i = table->dense_length; i < length; i++)
		dense[i] = NULL;
	for (size_t i = 0; i < table->count; i++) {
		uint64_t entry = entry_id(table->entries[i]);

		if (entry >= table->dense_length && entry < length)
			dense[entry] = table->entries[i];
	}
	table->dense = dense;
	table->dense_length = length;
	return 0;
}

static int table_add(struct mlyze_reader *r, struct id_table *table,
		     uint64_t id, void *entry)
{
	struct u64map_value v = { .a = (uintptr_t)entry };

	if (!entry ||
	    reserve((void **)&table->entries, &table->capacity,
		    table->count + 1, sizeof(*table->entries)) < 0 ||
	    u64map_put(&table->by_id, id, v) < 0)
		return input_fail_system(&r->in, NULL);
	table->entries[table->count++] = entry;
	if (id < table->dense_length)
		table->dense[id] = entry;
	else if (id < DENSE_MAX && id < 2 * table->count + DENSE_MIN &&
		 cover(table, id) < 0)
		return input_fail_system(&r->in, NULL);
	return 0;
}

/* kind, id and field name the bytes in messages: "module 3 path". */
static int check_no_nul(struct mlyze_reader *r, uint64_t offset,
			const char *bytes, size_t length, const char *kind,
			uint64_t id, const char *field)
{
	if (memchr(bytes, '\0', length))
		return input_fail(&r->in, offset, "%s %" PRIu64
				   " %s contains a NUL byte", kind, id, field);
	return 0;
}

static int check_text(struct mlyze_reader *r, uint64_t offset,
		      const char *text, size_t length, const char *kind,
		      uint64_t id, const char *field)
{
	if (check_no_nul(r, offset, text, length, kind, id, field) < 0)
		return -1;
	if (!utf8_valid(text, length))
		return input_fail(&r->in, offset, "%s %" PRIu64
				   " %s is not valid UTF-8", kind, id, field);
	return 0;
}

static bool same_text(const char *stored, const char *text, size_t length)
{
	return strlen(stored) == length && memcmp(stored, text, length) == 0;
}

static void *redefined(struct mlyze_reader *r, uint64_t offset,
		       const char *kind, uint64_t id)
{
	input_fail(&r->in, offset, "%s %" PRIu64 " redefined with different content",
		    kind, id);
	return NULL;
}

const struct mlyze_string *define_string(struct mlyze_reader *r,
					 uint64_t offset,
					 enum mlyze_table table, uint64_t id,
					 const char *text, size_t length)
{
	struct id_table *strings = &r->tables.strings[table];
	const struct mlyze_string *old = table_find(strings, id);
	struct mlyze_string *entry;

	if (check_text(r, offset, text, length, table_name(table), id,
		       "name") < 0)
		return NULL;
	if (old)
		return same_text(old->text, text, length)
			       ? old
			       : redefined(r, offset, table_name(table), id);
	entry = arena_alloc(&r->tables.entries, sizeof(*entry));
	if (entry) {
		entry->id = id;
		entry->text = arena_strndup(&r->tables.arena, text, length);
	}
	if (table_add(r, strings, id, entry && entry->text ? entry : NULL) < 0)
		return NULL;
	return entry;
}

/* Index of the first range that ends after `address`. */
static size_t first_range_ending_after(const struct mlyze_tables *t,
				       uint64_t address)
{
	size_t low = 0, high = t->range_count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (t->ranges[mid]->end <= address)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

/* Make `module` own its address range, dropping the ranges it covers. */
static int map_range(struct mlyze_reader *r, const struct mlyze_module *module)
{
	struct mlyze_tables *t = &r->tables;
	size_t first, last;

	if (module->start == module->end)
		return 0;
	if (reserve((void **)&t->ranges, &t->range_capacity,
		    t->range_count + 1, sizeof(*t->ranges)) < 0)
		return input_fail_system(&r->in, NULL);
	first = first_range_ending_after(t, module->start);
	last = first;
	while (last < t->range_count && t->ranges[last]->start < module->end)
		last++;
	memmove(&t->ranges[first + 1], &t->ranges[last],
		(t->range_count - last) * sizeof(*t->ranges));
	t->ranges[first] = module;
	t->range_count = t->range_count - (last - first) + 1;
	return 0;
}

void native_frame(const struct mlyze_tables *t, uint64_t address,
		  struct mlyze_frame *frame)
{
	size_t i = first_range_ending_after(t, address);

	memset(frame, 0, sizeof(*frame));
	if (i < t->range_count && t->ranges[i]->start <= address) {
		frame->form = MLYZE_FORM_MODULE;
		frame->module = t->ranges[i];
		frame->offset = address - t->ranges[i]->load_bias;
	} else {
		frame->form = MLYZE_FORM_ADDRESS;
		frame->offset = address;
	}
}

static bool same_optional_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

const struct mlyze_module *define_module(struct mlyze_reader *r,
					 uint64_t offset,
					 const struct mlyze_module *module,
					 size_t path_length)
{
	struct arena *arena = &r->tables.arena;
	const struct mlyze_module *old = table_find(&r->tables.modules,
						    module->id);
	struct mlyze_module *entry;

	/* A path is the bytes the file system knows the file by (mlyze(5)),
	 * which need not be UTF-8: the symbolizer opens the file by them. */
	if (check_no_nul(r, offset, module->path, path_length, "module",
			 module->id, "path") < 0)
		return NULL;
	if (module->end < module->start) {
		input_fail(&r->in, offset, "module %" PRIu64 " ends before it starts",
			    module->id);
		return NULL;
	}
	if (old) {
		bool same = same_text(old->path, module->path, path_length) &&
			    old->start == module->start &&
			    old->end == module->end &&
			    old->load_bias == module->load_bias &&
			    same_optional_text(old->build_id, module->build_id);

		return same ? old : redefined(r, offset, "module", module->id);
	}
	entry = arena_alloc(&r->tables.entries, sizeof(*entry));
	if (entry) {
		*entry = *module;
		entry->path = arena_strndup(arena, module->path, path_length);
		if (module->build_id)
			entry->build_id = arena_strndup(
				arena, module->build_id,
				strlen(module->build_id));
		if (!entry->path || (module->build_id && !entry->build_id))
			entry = NULL;
	}
	if (table_add(r, &r->tables.modules, module->id, entry) < 0 ||
	    map_range(r, entry) < 0)
		return NULL;
	return entry;
}

int python_frame(struct mlyze_reader *r, uint64_t offset, uint64_t stack_id,
		 uint64_t file_id, uint64_t function_id, uint64_t line,
		 struct mlyze_frame *frame)
{
	memset(frame, 0, sizeof(*frame));
	frame->form = MLYZE_FORM_PYTHON;
	frame->file = table_find(&r->tables.strings[MLYZE_TABLE_FILES],
				 file_id);
	frame->function = table_find(
		&r->tables.strings[MLYZE_TABLE_FUNCTIONS], function_id);
	frame->line = line;
	if (!frame->file)
		return input_fail(&r->in, offset, "stack %" PRIu64
				   " references undefined file %" PRIu64,
				   stack_id, file_id);
	if (!frame->function)
		return input_fail(&r->in, offset, "stack %" PRIu64
				   " references undefined function %" PRIu64,
				   stack_id, function_id);
	return 0;
}

static bool same_frames(const struct mlyze_frame *a,
			const struct mlyze_frame *b, size_t depth)
{
	for (size_t i = 0; i < depth; i++)
		if (a[i].form != b[i].form || a[i].module != b[i].module ||
		    a[i].offset != b[i].offset || a[i].file != b[i].file ||
		    a[i].function != b[i].function || a[i].line != b[i].line)
			return false;
	return true;
}

static const struct mlyze_stack *add_stack(struct mlyze_reader *r,
					   uint64_t offset, uint64_t id,
					   const struct mlyze_frame *frames,
					   size_t depth, bool damaged)
{
	struct arena *arena = &r->tables.arena;
	const struct mlyze_stack *old = table_find(&r->tables.stacks, id);
	struct mlyze_stack *entry;
	struct mlyze_frame *copy = NULL;

	if (old)
		return old->depth == depth && !old->damaged == !damaged &&
			       same_frames(old->frames, frames, depth)
			       ? old
			       : redefined(r, offset, "stack", id);
	entry = arena_alloc(&r->tables.entries, sizeof(*entry));
	if (depth && depth <= SIZE_MAX / sizeof(*copy))
		copy = arena_alloc(arena, depth * sizeof(*copy));
	if (entry && (copy || !depth)) {
		if (depth)
			memcpy(copy, frames, depth * sizeof(*copy));
		entry->id = id;
		entry->index = r->tables.stacks.count;
		entry->depth = depth;
		entry->frames = copy;
		entry->damaged = damaged;
	} else {
		entry = NULL;
	}
	if (table_add(r, &r->tables.stacks, id, entry) < 0)
		return NULL;
	return entry;
}

bool stack_depth_allowed(struct mlyze_reader *r, uint64_t offset,
			 uint64_t id, uint64_t depth)
{
	if (depth <= MLYZE_STACK_DEPTH_MAX)
		return true;
	input_fail(&r->in, offset,
		   "stack %" PRIu64 " has %" PRIu64 " frames, more than the %d "
		   "a profile may hold", id, depth, MLYZE_STACK_DEPTH_MAX);
	return false;
}

const struct mlyze_stack *define_stack(struct mlyze_reader *r, uint64_t offset,
				       uint64_t id,
				       const struct mlyze_frame *frames,
				       size_t depth)
{
	return add_stack(r, offset, id, frames, depth, false);
}

const struct mlyze_stack *define_damaged_stack(struct mlyze_reader *r,
					       uint64_t offset, uint64_t id)
{
	size_t count = r->tables.stacks.count;
	char *problem = input_take_error(&r->in);
	const struct mlyze_stack *stack;

	if (!problem)
		return NULL;
	stack = add_stack(r, offset, id, NULL, 0, true);
	if (stack && r->tables.stacks.count > count) {
		r->info.damaged_stacks++;
		if (!r->first_damage) {
			r->first_damage = problem;
			problem = NULL;
		}
	}
	free(problem);
	return stack;
}

/* ---- public access ---- */

static const void *entry_at(const struct id_table *table, size_t index)
{
	return index < table->count ? table->entries[index] : NULL;
}

static bool known_table(enum mlyze_table table)
{
	return table == MLYZE_TABLE_FILES || table == MLYZE_TABLE_FUNCTIONS;
}

MLYZE_PUBLIC size_t mlyze_stack_count(const mlyze_reader *r)
{
	return r->tables.stacks.count;
}

MLYZE_PUBLIC const struct mlyze_stack *mlyze_stack_at(const mlyze_reader *r,
						      size_t index)
{
	return entry_at(&r->tables.stacks, index);
}

MLYZE_PUBLIC const struct mlyze_stack *mlyze_find_stack(const mlyze_reader *r,
							uint64_t id)
{
	return table_find(&r->tables.stacks, id);
}

MLYZE_PUBLIC size_t mlyze_module_count(const mlyze_reader *r)
{
	return r->tables.modules.count;
}

MLYZE_PUBLIC const struct mlyze_module *mlyze_module_at(const mlyze_reader *r,
							size_t index)
{
	return entry_at(&r->tables.modules, index);
}

MLYZE_PUBLIC const struct mlyze_module *
mlyze_find_module(const mlyze_reader *r, uint64_t id)
{
	return table_find(&r->tables.modules, id);
}

MLYZE_PUBLIC size_t mlyze_string_count(const mlyze_reader *r,
				       enum mlyze_table table)
{
	return known_table(table) ? r->tables.strings[table].count : 0;
}

MLYZE_PUBLIC const struct mlyze_string *
mlyze_string_at(const mlyze_reader *r, enum mlyze_table table, size_t index)
{
	return known_table(table) ? entry_at(&r->tables.strings[table], index)
				  : NULL;
}

MLYZE_PUBLIC const struct mlyze_string *
mlyze_find_string(const mlyze_reader *r, enum mlyze_table table, uint64_t id)
{
	return known_table(table) ? table_find(&r->tables.strings[table], id)
				  : NULL;
}
