/* mlyze-symbols.c - the symbols a profile carries for its native frames.
 *
 * Contract: SYMBOL events (mlyze(5)) say what a module's address is in
 * source terms, as the binary's symbols and debug information said when
 * the profile was symbolized.  Each (module, address) is stored once, in
 * the reader's arena, and found again by mlyze_find_symbols(); a second
 * SYMBOL for it must say the same (as any redefinition in a profile).
 * The text is kept as the bytes it was (no NUL), since it is what the
 * binary held: the reading of a symbolized profile must not differ from
 * that of the binary.
 */
#include "config.h"

#include "mlyze-internal.h"

#include <inttypes.h>
#include <string.h>

/* The symbols of one (module, address); those of the same address in
 * other modules follow in `next`. */
struct symbol_entry {
	const struct mlyze_module *module;
	struct symbol_entry *next;
	size_t count;
	struct mlyze_symbol symbols[];
};

static const struct symbol_entry *find_entry(const struct mlyze_tables *t,
					     const struct mlyze_module *module,
					     uint64_t address)
{
	const struct u64map_value *first = u64map_get(&t->symbols, address);
	const struct symbol_entry *e =
		first ? (const struct symbol_entry *)(uintptr_t)first->a : NULL;

	while (e && e->module != module)
		e = e->next;
	return e;
}

/* Text of `length` bytes as the entry keeps it: NULL when empty. */
static bool same_bytes(const char *stored, const char *text, size_t length)
{
	if (!stored)
		return length == 0;
	return strlen(stored) == length && memcmp(stored, text, length) == 0;
}

static bool same_symbols(const struct symbol_entry *e,
			 const struct symbol_text *symbols, size_t count)
{
	if (e->count != count)
		return false;
	for (size_t i = 0; i < count; i++)
		if (!same_bytes(e->symbols[i].function, symbols[i].function,
				symbols[i].function_length) ||
		    !same_bytes(e->symbols[i].file, symbols[i].file,
				symbols[i].file_length) ||
		    e->symbols[i].line != symbols[i].line)
			return false;
	return true;
}

static int check_text(struct mlyze_reader *r, uint64_t offset,
		      const char *text, size_t length, const char *field)
{
	if (memchr(text, '\0', length))
		return input_fail(&r->in, offset,
				  "SYMBOL %s contains a NUL byte", field);
	return 0;
}

/* A copy in the arena, NULL for empty text; false when out of memory. */
static bool keep_text(struct arena *arena, const char *text, size_t length,
		      const char **kept)
{
	*kept = length ? arena_strndup(arena, text, length) : NULL;
	return length == 0 || *kept != NULL;
}

static struct symbol_entry *new_entry(struct mlyze_reader *r,
				      const struct mlyze_module *module,
				      const struct symbol_text *symbols,
				      size_t count)
{
	struct arena *arena = &r->tables.arena;
	struct symbol_entry *e = arena_alloc(
		arena, sizeof(*e) + count * sizeof(e->symbols[0]));

	if (!e)
		return NULL;
	e->module = module;
	e->count = count;
	for (size_t i = 0; i < count; i++) {
		struct mlyze_symbol *s = &e->symbols[i];

		if (!keep_text(arena, symbols[i].function,
			       symbols[i].function_length, &s->function) ||
		    !keep_text(arena, symbols[i].file, symbols[i].file_length,
			       &s->file))
			return NULL;
		s->line = symbols[i].line;
		/* Each but the last is inlined into the one after it. */
		s->inlined = i + 1 < count;
	}
	return e;
}

const struct mlyze_symbol *define_symbols(struct mlyze_reader *r,
					  uint64_t offset,
					  const struct mlyze_module *module,
					  uint64_t address,
					  const struct symbol_text *symbols,
					  size_t count)
{
	const struct symbol_entry *old = find_entry(&r->tables, module, address);
	struct u64map_value *first;
	struct symbol_entry *e;
	bool existed;

	for (size_t i = 0; i < count; i++)
		if (check_text(r, offset, symbols[i].function,
			       symbols[i].function_length, "function") < 0 ||
		    check_text(r, offset, symbols[i].file,
			       symbols[i].file_length, "file") < 0)
			return NULL;
	if (old) {
		if (same_symbols(old, symbols, count))
			return old->symbols;
		input_fail(&r->in, offset, "SYMBOL of module %" PRIu64
			   " address 0x%" PRIx64 " redefined with different "
			   "content", module->id, address);
		return NULL;
	}
	e = new_entry(r, module, symbols, count);
	first = e ? u64map_insert(&r->tables.symbols, address, &existed) : NULL;
	if (!first) {
		input_fail_system(&r->in, NULL);
		return NULL;
	}
	e->next = existed ? (struct symbol_entry *)(uintptr_t)first->a : NULL;
	first->a = (uint64_t)(uintptr_t)e;
	return e->symbols;
}

MLYZE_PUBLIC int mlyze_find_symbols(const mlyze_reader *r,
				    const struct mlyze_module *module,
				    uint64_t offset,
				    const struct mlyze_symbol **symbols)
{
	const struct symbol_entry *e = find_entry(&r->tables, module, offset);

	if (!e)
		return -1;
	*symbols = e->symbols;
	return (int)e->count;
}
