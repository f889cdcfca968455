/* callers.c - allocation sites at the end of known chains of callers.
 *
 * Built twice: as a distribution builds programs (-O2, no frame pointers)
 * and with frame pointers; native-stacks.sh runs each mode under the
 * runtime and checks that the profile names every caller, in order:
 *
 *   library  library_site < library_inner < library_outer (a shared
 *            library) < run_library < main
 *   threads  thread_site < thread_body, on two threads
 *   signal   signal_site < on_segv < (signal frame) < touch_guarded_page
 *            < run_signal < main
 *   plugin   plugin_leaf < plugin_outer (a plugin loaded with dlopen)
 *            < run_plugin < main
 *   dlopen-race  threads allocating while another loads and unloads the
 *            plugin, which allocates when loaded: must not deadlock
 *   methods  many samples at method_site < method_caller < main, then
 *            prints how many stacks each unwinding method took
 *   deep     a sample 100 calls deep, then prints how many stacks were
 *            cut at the depth limit
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "callers.h"
#include "runtime-api.h"

#define RACE_THREADS 2
#define RACE_ALLOCATIONS 20000
#define RACE_LOADS 200
#define METHOD_SAMPLES 1000

static void *kept[8];
static unsigned n_kept;
static char *guarded_page;
static long page_size;

static void keep(void *block)
{
	if (!block) {
		fputs("callers: out of memory\n", stderr);
		exit(1);
	}
	kept[n_kept++ % 8] = block;
}

KEEP_FRAME static void method_site(void)
{
	void *volatile block = malloc(SITE_BYTES);

	free(block);
}

KEEP_FRAME static void library_site(void)
{
	keep(malloc(SITE_BYTES));
}

/* Allocations through code with frame pointers first, after which the
 * frame-pointer walk can be trusted up to the thread's outermost frame;
 * then through a library without: the walk must not skip its callers. */
KEEP_FRAME static void run_library(void)
{
	for (int i = 0; i < 16; i++)
		method_site();
	library_outer(library_site);
	AFTER_CALL();
}

KEEP_FRAME static void thread_site(void)
{
	keep(malloc(SITE_BYTES));
}

KEEP_FRAME static void *thread_body(void *arg)
{
	thread_site();
	AFTER_CALL();
	return arg;
}

static void run_threads(void)
{
	pthread_t threads[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&threads[i], NULL, thread_body, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
}

KEEP_FRAME static void signal_site(void)
{
	keep(malloc(SITE_BYTES));
}

/* The fault comes at a known place, outside malloc: allocating in the
 * handler is safe here. */
KEEP_FRAME static void on_segv(int signal)
{
	(void)signal;
	signal_site();
	mprotect(guarded_page, (size_t)page_size, PROT_READ | PROT_WRITE);
}

KEEP_FRAME static void touch_guarded_page(void)
{
	*(volatile char *)guarded_page = 1;
	AFTER_CALL();
}

KEEP_FRAME static void run_signal(void)
{
	struct sigaction action = { .sa_handler = on_segv };

	guarded_page = mmap(NULL, (size_t)page_size, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sigaction(SIGSEGV, &action, NULL);
	touch_guarded_page();
	AFTER_CALL();
}

static void *load_plugin(void)
{
	void *plugin = dlopen(CALLERS_PLUGIN, RTLD_NOW | RTLD_LOCAL);

	if (!plugin) {
		fprintf(stderr, "callers: %s\n", dlerror());
		exit(1);
	}
	return plugin;
}

KEEP_FRAME static void run_plugin(void)
{
	void *plugin = load_plugin();
	site_function *outer;

	*(void **)&outer = dlsym(plugin, "plugin_outer");
	outer();
	AFTER_CALL();
}

static void *allocate_many(void *arg)
{
	for (int i = 0; i < RACE_ALLOCATIONS; i++) {
		void *volatile block = malloc(64 + (size_t)i % 512);

		free(block);
	}
	return arg;
}

static void run_dlopen_race(void)
{
	pthread_t threads[RACE_THREADS];

	for (int i = 0; i < RACE_THREADS; i++)
		pthread_create(&threads[i], NULL, allocate_many, NULL);
	for (int i = 0; i < RACE_LOADS; i++)
		dlclose(load_plugin());
	for (int i = 0; i < RACE_THREADS; i++)
		pthread_join(threads[i], NULL);
}

KEEP_FRAME static void method_caller(void)
{
	for (int i = 0; i < METHOD_SAMPLES; i++)
		method_site();
	AFTER_CALL();
}

static memprof_stats runtime_stats(void)
{
	struct runtime_api api;
	memprof_stats stats;

	if (runtime_api_load(&api) < 0 || api.get_stats(&stats) < 0) {
		fputs("callers: no runtime\n", stderr);
		exit(1);
	}
	return stats;
}

static void run_methods(void)
{
	static char out[BUFSIZ];
	memprof_stats stats;

	/* stdout's own buffer would otherwise be allocated by the printf
	 * below, after the counts are taken, and could be sampled: the
	 * finished profile would then count one stack more. */
	setvbuf(stdout, out, _IOFBF, sizeof(out));
	method_caller();
	stats = runtime_stats();
	printf("fp_stacks=%llu dwarf_stacks=%llu\n",
	       (unsigned long long)stats.fp_stacks,
	       (unsigned long long)stats.dwarf_stacks);
}

KEEP_FRAME static int deep_site(int depth)
{
	if (depth > 0) {
		int r = deep_site(depth - 1);

		AFTER_CALL();
		return r + 1;
	}
	keep(malloc(SITE_BYTES));
	return 0;
}

static void run_deep(void)
{
	deep_site(100);
	printf("truncated_stacks=%llu\n",
	       (unsigned long long)runtime_stats().truncated_stacks);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} modes[] = {
		{ "library", run_library }, { "threads", run_threads },
		{ "signal", run_signal },   { "plugin", run_plugin },
		{ "dlopen-race", run_dlopen_race }, { "methods", run_methods },
		{ "deep", run_deep },
	};

	page_size = sysconf(_SC_PAGESIZE);
	for (size_t i = 0; argc == 2 && i < sizeof(modes) / sizeof(modes[0]);
	     i++) {
		if (!strcmp(argv[1], modes[i].name)) {
			modes[i].run();
			return 0;
		}
	}
	fputs("usage: callers library|threads|signal|plugin|dlopen-race|"
	      "methods|deep\n",
	      stderr);
	return 2;
}
