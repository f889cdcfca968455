/* lock-hazards.c - programs that allocate while they hold a lock of the
 * C library or of the dynamic loader, which the runtime's sampled path
 * must never wait for (see lock-hazards.sh).  Each case runs a few
 * threads for a fixed number of rounds and exits 0; a deadlock shows as
 * a hang.
 *
 *   lock-hazards getattr   threads ask for their own attributes, which the
 *                          C library allocates under the thread's lock
 *   lock-hazards dlopen LIB...  threads open and use the LIBs (copies
 *                          of a library that allocates, each loaded at
 *                          a new address), then close them, while others
 *                          walk the loaded objects with a callback that
 *                          allocates
 *   lock-hazards fork      threads fork while others read lines (stdio
 *                          allocates under the stream's lock) and flush
 *                          every stream (the stream list's lock)
 *   lock-hazards environ   threads set and unset variables (the environment's lock
 *                          held while it allocates) and allocate between
 *   lock-hazards stdio     threads print into streams of their own and a
 *                          shared one, opening and closing them
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 4
#define ROUNDS 2000

static char **libraries;
static int library_count;

static void start_all(void *(*body)(void *), int n)
{
	pthread_t threads[THREADS * 2];

	for (long i = 0; i < n; i++)
		if (pthread_create(&threads[i], NULL, body, (void *)i) != 0) {
			perror("pthread_create");
			exit(1);
		}
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
}

/* Allocates and frees blocks of sizes that vary with i. */
static void churn(long i)
{
	void *blocks[16];

	for (int k = 0; k < 16; k++)
		blocks[k] = malloc((size_t)(16 + (i * 37 + k * 101) % 3000));
	for (int k = 0; k < 16; k++)
		free(blocks[k]);
}

static void *own_attributes(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		pthread_attr_t attr;

		if (pthread_getattr_np(pthread_self(), &attr) != 0) {
			fprintf(stderr, "pthread_getattr_np failed\n");
			exit(1);
		}
		pthread_attr_destroy(&attr);
		churn(r);
	}
	return NULL;
}

static int allocating_callback(struct dl_phdr_info *info, size_t size,
			       void *data)
{
	char *copy = strdup(info->dlpi_name);

	(void)size;
	*(size_t *)data += strlen(copy);
	free(copy);
	return 0;
}

static _Atomic int loaders_left = THREADS / 2;

/* Loads its share of the libraries, each at a new address (the earlier
 * ones stay open), calls each, and closes them all at the end. */
static void *load_libraries(void *arg)
{
	long id = (long)arg;
	void *handles[256];
	int n = 0;

	for (int i = (int)id / 2; i < library_count && n < 256;
	     i += THREADS / 2) {
		void *(*make)(size_t);

		handles[n] = dlopen(libraries[i], RTLD_NOW | RTLD_LOCAL);
		if (!handles[n]) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			exit(1);
		}
		*(void **)&make = dlsym(handles[n++], "lock_hazards_make");
		if (!make) {
			fprintf(stderr, "dlsym: %s\n", dlerror());
			exit(1);
		}
		free(make((size_t)(64 + i)));
		churn(i);
	}
	while (n > 0)
		dlclose(handles[--n]);
	loaders_left--;
	return NULL;
}

/* Walks the loaded objects, allocating in the callback, while the
 * loaders load and unload. */
static void *walk_objects(void *arg)
{
	size_t names = 0;

	for (long r = 0; loaders_left > 0; r++) {
		dl_iterate_phdr(allocating_callback, &names);
		churn(r + (long)arg);
	}
	return NULL;
}

static void *two_kinds(void *arg)
{
	long id = (long)arg;

	return id % 2 ? walk_objects(arg) : load_libraries(arg);
}

static FILE *lines_stream(void)
{
	static char text[64 * 1024];

	for (size_t i = 0; i + 1 < sizeof(text); i++)
		text[i] = i % 61 == 60 ? '\n' : (char)('a' + i % 26);
	return fmemopen(text, sizeof(text) - 1, "r");
}

static void *read_lines(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS / 20; r++) {
		FILE *f = lines_stream();
		char *line = NULL;
		size_t capacity = 0;

		while (getline(&line, &capacity, f) > 0) {
			free(line); /* every line grows a new buffer */
			line = NULL;
			capacity = 0;
		}
		free(line);
		fclose(f);
	}
	return NULL;
}

static void *fork_or_flush(void *arg)
{
	long id = (long)arg;

	for (int r = 0; r < ROUNDS / 10; r++) {
		if (id % 2) {
			fflush(NULL);
			churn(r);
			continue;
		}
		pid_t child = fork();

		if (child == 0) {
			churn(r);
			_exit(0);
		}
		if (child < 0 || waitpid(child, NULL, 0) != child) {
			perror("fork");
			exit(1);
		}
	}
	return NULL;
}

static void *forks_and_lines(void *arg)
{
	long id = (long)arg;

	return id < THREADS ? fork_or_flush(arg) : read_lines(arg);
}

static void *set_and_get(void *arg)
{
	long id = (long)arg;
	char name[32], value[64];

	for (int r = 0; r < ROUNDS; r++) {
		snprintf(name, sizeof(name), "LOCK_HAZARDS_%ld_%d", id, r % 50);
		snprintf(value, sizeof(value), "%d-%ld", r, id);
		/* No getenv(): it reads the environment without the lock
		 * and crashes beside a setenv() that moves it. */
		setenv(name, value, 1);
		if (id % 2 && r % 3 == 0)
			unsetenv(name);
		else
			churn(r);
	}
	return NULL;
}

static void *print_to_streams(void *arg)
{
	long id = (long)arg;
	char *text;
	size_t size;

	for (int r = 0; r < ROUNDS / 4; r++) {
		FILE *own = open_memstream(&text, &size);

		fprintf(own, "%ld %d %s\n", id, r, "some words");
		fclose(own);
		free(text);
		fprintf(stdout, "%ld\n", id);
		churn(r);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (!strcmp(which, "getattr")) {
		start_all(own_attributes, THREADS);
	} else if (!strcmp(which, "dlopen") && argc > 2) {
		libraries = argv + 2;
		library_count = argc - 2;
		start_all(two_kinds, THREADS);
	} else if (!strcmp(which, "fork")) {
		start_all(forks_and_lines, THREADS * 2);
	} else if (!strcmp(which, "environ")) {
		start_all(set_and_get, THREADS);
	} else if (!strcmp(which, "stdio")) {
		start_all(print_to_streams, THREADS);
	} else {
		fprintf(stderr, "usage: lock-hazards getattr|dlopen LIB...|fork|"
				"environ|stdio\n");
		return 2;
	}
	fflush(stdout);
	fprintf(stderr, "done\n");
	return 0;
}
