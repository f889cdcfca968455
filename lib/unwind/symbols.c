/* symbols.c - dladdr() names for interned stacks (see symbols.h). */
#include "config.h"

#include "symbols.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>

#include "frames.h"
#include "rawmem.h"
#include "names.h"

#define NAMES_CHUNK STACK_TABLE_CHUNK
#define MAX_CHUNKS ((1u << 24) / NAMES_CHUNK)

static struct stack_names *chunks[MAX_CHUNKS];
static uint32_t resolved; /* stacks [0, resolved) have names */

static struct stack_names *names_slot(uint32_t id, int create)
{
	struct stack_names **chunk = &chunks[id / NAMES_CHUNK];

	if (!*chunk && create)
		*chunk = rawmem_map(NAMES_CHUNK * sizeof(struct stack_names));
	return *chunk ? &(*chunk)[id % NAMES_CHUNK] : NULL;
}

static void name_stack(const struct stack_entry *e, struct stack_names *n)
{
	for (uint32_t i = 0; i < e->depth; i++) {
		Dl_info info;
		/* Return addresses point after the call; look up the call. */
		uintptr_t pc = e->frames[i] - (i > 0);

		if (frame_is_script(e->frames[i])) {
			uint64_t f = e->frames[i];

			n->functions[i] = strings_get(STRINGS_FUNCTIONS,
						      script_frame_function(f));
			n->files[i] = strings_get(STRINGS_FILES,
						  script_frame_file(f));
			n->lines[i] = script_frame_line(f);
		} else if (dladdr((void *)pc, &info)) {
			n->functions[i] = info.dli_sname;
			n->modules[i] = info.dli_fname;
		}
	}
}

int symbols_resolve(struct stack_table *stacks)
{
	uint32_t count = stack_table_count(stacks);
	int named = 0;

	for (; resolved < count && resolved / NAMES_CHUNK < MAX_CHUNKS;
	     resolved++) {
		const struct stack_entry *e = stack_table_get(stacks, resolved);
		struct stack_names *n;

		if (!e)
			break; /* still being interned: next call */
		n = names_slot(resolved, 1);
		if (!n) {
			errno = ENOMEM;
			return -1;
		}
		name_stack(e, n);
		named++;
	}
	return named;
}

const struct stack_names *symbols_get(uint32_t stack_id)
{
	if (stack_id >= resolved || stack_id / NAMES_CHUNK >= MAX_CHUNKS)
		return NULL;
	return names_slot(stack_id, 0);
}
