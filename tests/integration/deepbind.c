/* deepbind.c - blocks cross a library opened with RTLD_DEEPBIND, whose
 * free() is the C library's, for deepbind.sh.
 *
 * Usage: deepbind PLUGIN [past]
 * The program allocates blocks of 100 KiB (which a sampled block takes
 * from the runtime's pool) and of 4 MiB (sampled almost surely at the
 * default rate, and carved out of larger ones), the plugin frees them;
 * the plugin allocates blocks, the program frees them.  With "past",
 * it then frees small blocks with the C library's own free(), past any
 * interposer (safe only where sampled blocks are the C library's own:
 * with every block sampled), and allocates as many again.  It prints
 * what it counted and exits with status 0.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 300
#define LARGE 16

static void *blocks[SMALL + LARGE];

static size_t fill(size_t first, size_t count, size_t size)
{
	for (size_t i = first; i < first + count; i++) {
		blocks[i] = malloc(size);
		if (!blocks[i])
			exit(3);
		memset(blocks[i], (int)i, size);
	}
	return count * size;
}

/* Blocks freed by the C library's free() itself, whose addresses its
 * next blocks take again. */
static size_t free_past_interposer(void)
{
	void *c_library = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void (*c_free)(void *);
	size_t total = 0;

	*(void **)&c_free = c_library ? dlsym(c_library, "free") : NULL;
	if (!c_free)
		exit(2);
	for (int round = 0; round < 2; round++) {
		total += fill(0, SMALL, 1000);
		for (size_t i = 0; i < SMALL; i++)
			c_free(blocks[i]);
	}
	total += fill(0, SMALL, 1000);
	for (size_t i = 0; i < SMALL; i++)
		free(blocks[i]);
	return total;
}

int main(int argc, char **argv)
{
	void (*free_all)(void **, size_t);
	void *(*alloc)(size_t);
	size_t total = 0;
	void *plugin;

	if (argc != 2 && argc != 3)
		return 2;
	plugin = dlopen(argv[1], RTLD_NOW | RTLD_DEEPBIND);
	if (!plugin) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	*(void **)&free_all = dlsym(plugin, "plugin_free_all");
	*(void **)&alloc = dlsym(plugin, "plugin_alloc");
	if (!free_all || !alloc)
		return 2;
	for (int round = 0; round < 3; round++) {
		total += fill(0, SMALL, 100 * 1024);
		total += fill(SMALL, LARGE, 4 << 20);
		free_all(blocks, SMALL + LARGE);
		for (size_t i = 0; i < SMALL; i++) {
			char *block = alloc(1000 + i);

			total += block ? (size_t)block[i] : 0;
			free(block);
		}
	}
	if (argc == 3 && strcmp(argv[2], "past") == 0)
		total += free_past_interposer();
	printf("%zu bytes crossed the library\n", total);
	return 0;
}
