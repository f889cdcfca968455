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

/* The symbols of one (module, address). */
struct symbol_entry {
	size_t count;
	struct mlyze_symbol symbols[];
};

/* The key of (module, address) in the map; false when either is past
 * what the format allows. */
static bool symbol_key(const struct mlyze_module *module, uint64_t address,
		       uint64_t *key)
{
	if (module->id >> MLYZE_SYMBOL_MODULE_ID_BITS ||
	    address >> MLYZE_SYMBOL_ADDRESS_BITS)
		return false;
	*key = module->id << MLYZE_SYMBOL_ADDRESS_BITS | address;
	return true;
}

static const struct symbol_entry *find_entry(const struct mlyze_tables *t,
					     const struct mlyze_module *module,
					     uint64_t address)
{
	const struct u64map_value *found;
	uint64_t key;

	if (!symbol_key(module, address, &key) ||
	    !(found = u64map_get(&t->symbols, key)))
		return NULL;
	return (const struct symbol_entry *)(uintptr_t)found->a;
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
				      const struct symbol_text *symbols,
				      size_t count)
{
	struct arena *arena = &r->tables.arena;
	struct symbol_entry *e = arena_alloc(
		arena, sizeof(*e) + count * sizeof(e->symbols[0]));

	if (!e)
		return NULL;
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
	struct symbol_entry *e;
	uint64_t key;

	for (size_t i = 0; i < count; i++)
		if (check_text(r, offset, symbols[i].function,
			       symbols[i].function_length, "function") < 0 ||
		    check_text(r, offset, symbols[i].file,
			       symbols[i].file_length, "file") < 0)
			return NULL;
	if (!symbol_key(module, address, &key)) {
		input_fail(&r->in, offset, "SYMBOL of module %" PRIu64
			   " address 0x%" PRIx64 " is out of bounds (module "
			   "ids below 2^%d, addresses below 2^%d)", module->id,
			   address, MLYZE_SYMBOL_MODULE_ID_BITS,
			   MLYZE_SYMBOL_ADDRESS_BITS);
		return NULL;
	}
	if (old) {
		if (same_symbols(old, symbols, count))
			return old->symbols;
		input_fail(&r->in, offset, "SYMBOL of module %" PRIu64
			   " address 0x%" PRIx64 " redefined with different "
			   "content", module->id, address);
		return NULL;
	}
	e = new_entry(r, symbols, count);
	if (!e || u64map_put(&r->tables.symbols, key,
			     (struct u64map_value){ .a = (uintptr_t)e }) < 0) {
		input_fail_system(&r->in, NULL);
		return NULL;
	}
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
