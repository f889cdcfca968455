/* attach-dlopen - a program that loads a plugin after the runtime was
 * attached to it, for attach.sh.
 *
 * Usage: attach-dlopen GO_FILE STOP_FILE
 * Says "ready".  Once GO_FILE exists (the runtime is attached meanwhile),
 * loads libattach-dlopen-plugin.so by its bare name, which only the
 * program's run path finds; hands the plugin blocks of its own to free
 * (some sampled by the runtime: the C library's free() would abort on
 * them); holds 8 MiB the plugin allocates; says "loaded".  Once STOP_FILE
 * exists, gives those back through the plugin, says "done", exits 0.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PLUGIN "libattach-dlopen-plugin.so"
#define HANDED 1024
#define HANDED_BLOCK (16 * 1024)

static void wait_for(const char *file)
{
	struct timespec t = { 0, 10000000 };

	while (access(file, F_OK) != 0)
		nanosleep(&t, NULL);
}

static void *symbol(void *plugin, const char *name)
{
	void *found = dlsym(plugin, name);

	if (!found) {
		fprintf(stderr, "attach-dlopen: %s\n", dlerror());
		exit(3);
	}
	return found;
}

int main(int argc, char **argv)
{
	static void *handed[HANDED];
	void (*free_all)(void **, size_t);
	void *(*hold)(void);
	void (*release)(void *);
	void *plugin, *held;

	if (argc != 3)
		return 2;
	printf("ready\n");
	fflush(stdout);
	wait_for(argv[1]);
	plugin = dlopen(PLUGIN, RTLD_NOW);
	if (!plugin) {
		fprintf(stderr, "attach-dlopen: %s\n", dlerror());
		return 3;
	}
	*(void **)&free_all = symbol(plugin, "plugin_free_all");
	*(void **)&hold = symbol(plugin, "plugin_hold");
	*(void **)&release = symbol(plugin, "plugin_release");
	for (size_t i = 0; i < HANDED; i++) {
		if (!(handed[i] = malloc(HANDED_BLOCK)))
			return 4;
		memset(handed[i], 1, HANDED_BLOCK);
	}
	free_all(handed, HANDED);
	if (!(held = hold()))
		return 5;
	printf("loaded\n");
	fflush(stdout);
	wait_for(argv[2]);
	release(held);
	printf("done\n");
	return 0;
}
