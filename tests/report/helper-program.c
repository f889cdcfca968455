/* helper-program - a program whose blocks come from a static helper that
 * an exported function calls, for runtime.sh: stripped, the helper is
 * known by its address only while its caller keeps its name (the dynamic
 * symbol table holds it: -rdynamic), as in a stripped library or
 * interpreter (lua5.4's lua_pcallk calling its own static code).  The
 * helper, not its named caller, must be the site, and a note must say
 * that symbols are missing.  Every block is sampled for sure at a
 * sampling rate of 1 byte (see alloc-program.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "site.h"

#define BLOCKS 8
#define BLOCK_SIZE 65536

SITE static void *make_block(void)
{
	return touch(memset(malloc(BLOCK_SIZE), 1, BLOCK_SIZE));
}

/* Exported, so that it keeps its name when the program is stripped. */
SITE void *helper_program_run(void);
SITE void *helper_program_run(void)
{
	void *last = NULL;

	for (int i = 0; i < BLOCKS; i++)
		last = make_block();
	return last;
}

int main(void)
{
	return helper_program_run() ? 0 : 1;
}
