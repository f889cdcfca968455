/* symbols.h - in-process symbol names of interned stacks, via dladdr().
 *
 * Contract: symbols_resolve() names every frame of every stack interned so
 * far that has not been named yet: native frames through dladdr() (names
 * point into the loaded modules' string tables, valid while those modules
 * stay loaded), script frames from the interned strings.  It takes the
 * dynamic linker's lock, so it runs only when a program asks for it,
 * never inside an allocation hook.
 */
#ifndef SPPROF_SYMBOLS_H
#define SPPROF_SYMBOLS_H

#include <stdint.h>

#include "stack_table.h"

struct stack_names {
	const char *functions[MEMPROF_MAX_STACK_DEPTH];
	const char *modules[MEMPROF_MAX_STACK_DEPTH];
	const char *files[MEMPROF_MAX_STACK_DEPTH];
	uint32_t lines[MEMPROF_MAX_STACK_DEPTH];
};

/* Returns the number of stacks named by this call, or -1 with errno. */
int symbols_resolve(struct stack_table *stacks);

/* The names of a stack, or NULL when it has not been resolved. */
const struct stack_names *symbols_get(uint32_t stack_id);

#endif /* SPPROF_SYMBOLS_H */
