/* deepbind.c - blocks cross a library opened with RTLD_DEEPBIND, whose
 * free() is the C library's, for deepbind.sh.
 *
 * Usage: deepbind PLUGIN
 * The program allocates blocks of 100 KiB (which a sampled block takes
 * from the runtime's pool) and of 4 MiB (sampled almost surely at the
 * default rate, and carved out of larger ones), the plugin frees them;
 * the plugin allocates blocks, the program frees them.  It prints what
 * it counted and exits with status 0.
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

int main(int argc, char **argv)
{
	void (*free_all)(void **, size_t);
	void *(*alloc)(size_t);
	size_t total = 0;
	void *plugin;

	if (argc != 2)
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
	printf("%zu bytes crossed the library\n", total);
	return 0;
}
