/* deepbind-plugin - a library that deepbind.c opens with RTLD_DEEPBIND,
 * so that its calls of the malloc family bind to the C library's, as
 * PHP's extensions do: it frees the program's blocks, and allocates
 * blocks the program frees. */
#include <stdlib.h>
#include <string.h>

void plugin_free_all(void **blocks, size_t count);
void *plugin_alloc(size_t size);

void plugin_free_all(void **blocks, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(blocks[i]);
		blocks[i] = NULL;
	}
}

void *plugin_alloc(size_t size)
{
	char *block = malloc(size);

	if (block)
		memset(block, 1, size);
	return block;
}
