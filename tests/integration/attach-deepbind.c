/* attach-deepbind - a program bound to two allocators, for attach.sh.
 *
 * Usage: attach-deepbind PLUGIN STOP_FILE
 * Loads PLUGIN (attach-deepbind-plugin.c) with RTLD_DEEPBIND, says
 * "ready", and allocates through the C library and through the plugin's
 * allocator until STOP_FILE exists; says "done" and exits 0.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 1000000 };
	void *(*plugin_alloc)(size_t);
	void *plugin;

	if (argc != 3)
		return 2;
	plugin = dlopen(argv[1], RTLD_NOW | RTLD_DEEPBIND);
	if (!plugin || !(*(void **)&plugin_alloc = dlsym(plugin, "plugin_alloc"))) {
		fprintf(stderr, "attach-deepbind: %s\n", dlerror());
		return 3;
	}
	printf("ready\n");
	fflush(stdout);
	while (access(argv[2], F_OK) != 0) {
		char *block = malloc(100);

		if (block)
			memset(block, 1, 100);
		free(block);
		if (!plugin_alloc(16))
			return 4;
		nanosleep(&nap, NULL);
	}
	printf("done\n");
	return 0;
}
