/* lock-hazards-plugin.c - a library that lock-hazards opens and closes
 * again and again: loading it, calling it and unloading it allocate. */
#include <stdlib.h>
#include <string.h>

static char *loaded_note;

void *lock_hazards_make(size_t size);

void *lock_hazards_make(size_t size)
{
	char *block = malloc(size);

	if (block)
		memset(block, 1, size);
	return block;
}

__attribute__((constructor)) static void plugin_loaded(void)
{
	loaded_note = malloc(100);
}

__attribute__((destructor)) static void plugin_unloading(void)
{
	free(loaded_note);
}
