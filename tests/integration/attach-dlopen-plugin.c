/* attach-dlopen-plugin - the plugin attach-dlopen loads after the attach:
 * it frees blocks its program allocated, and holds blocks of its own. */
#include <stdlib.h>
#include <string.h>

#define HELD_BLOCKS 512
#define HELD_BLOCK (16 * 1024)

void plugin_free_all(void **blocks, size_t count);
void *plugin_hold(void);
void plugin_release(void *held);

void plugin_free_all(void **blocks, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(blocks[i]);
}

static __attribute__((noinline)) void **plugin_hold_blocks(void)
{
	void **held = calloc(HELD_BLOCKS, sizeof(*held));

	for (size_t i = 0; held && i < HELD_BLOCKS; i++)
		if ((held[i] = malloc(HELD_BLOCK)))
			memset(held[i], 2, HELD_BLOCK);
	return held;
}

void *plugin_hold(void)
{
	return plugin_hold_blocks();
}

void plugin_release(void *held)
{
	void **blocks = held;

	for (size_t i = 0; i < HELD_BLOCKS; i++)
		free(blocks[i]);
	free(blocks);
}
