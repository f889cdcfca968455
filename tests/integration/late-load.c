/* late-load - a program that loads the runtime itself with dlopen(), as
 * memprof-ctl attach makes a program do, while its threads allocate.
 *
 * Usage: late-load RUNTIME
 * Starts threads that allocate and free without pause, loads RUNTIME
 * (RTLD_NOW, as the attach does), lets them go on a little, stops them
 * and exits 0.  The settings (SPPROF_OUTPUT...) come from the
 * environment.  A sample taken by a thread right at the load must land
 * in a profile labelled as started by the attach, like every other.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define THREADS 8

static atomic_int stopping;

static void *churn(void *unused)
{
	(void)unused;
	while (!atomic_load(&stopping)) {
		void *volatile block = malloc(64);

		free(block);
	}
	return NULL;
}

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
	pthread_t threads[THREADS];

	if (argc != 2) {
		fprintf(stderr, "usage: late-load RUNTIME\n");
		return 2;
	}
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&threads[i], NULL, churn, NULL) != 0)
			return 3;
	pause_ms(20);
	if (!dlopen(argv[1], RTLD_NOW)) {
		fprintf(stderr, "late-load: %s\n", dlerror());
		return 3;
	}
	pause_ms(20);
	atomic_store(&stopping, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
