/* hold-program - a long-running program with a known live heap, for the
 * tests of memprof-ctl.
 *
 * Usage: hold-program LIVE_KIB STOP_FILE [idle|leak]
 * Holds LIVE_KIB KiB in blocks of 16 KiB from its start to its end, says
 * so on stdout ("holding N bytes"), then allocates and frees small blocks
 * on every thread (unless "idle": then it only sleeps) until STOP_FILE
 * exists; prints "done" and exits 0.  With "leak", it also never frees
 * LEAK_RATE bytes a second from leak_steadily(), by the clock, so that
 * the site's live bytes grow at that rate however busy the machine is.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (16 * 1024)
#define THREADS 3
#define LEAK_RATE (512 * 1024)
#define LEAK_BLOCK (8 * 1024)

static const char *stop_file;
static volatile int stopping;

static void nap(long ns)
{
	struct timespec t = { 0, ns };

	nanosleep(&t, NULL);
}

static void *churn(void *arg)
{
	(void)arg;
	while (!stopping) {
		for (int i = 0; i < 64; i++) {
			char *p = malloc(512 + (size_t)i * 64);

			if (p)
				memset(p, i, 16);
			free(p);
		}
		nap(200000);
	}
	return NULL;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) +
	       (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Leaks what LEAK_RATE asks for by now; returns the bytes leaked so far. */
static __attribute__((noinline)) size_t
leak_steadily(const struct timespec *start, size_t leaked)
{
	double due = seconds_since(start) * LEAK_RATE;

	for (; (double)leaked + LEAK_BLOCK <= due; leaked += LEAK_BLOCK) {
		char *p = malloc(LEAK_BLOCK);

		if (p)
			memset(p, 2, 16);
	}
	return leaked;
}

int main(int argc, char **argv)
{
	pthread_t threads[THREADS];
	size_t blocks, i;
	char **held;
	int idle = argc > 3 && !strcmp(argv[3], "idle");
	int leak = argc > 3 && !strcmp(argv[3], "leak");
	struct timespec leak_start;
	size_t leaked = 0;

	if (argc < 3) {
		fprintf(stderr,
			"usage: hold-program LIVE_KIB STOP_FILE [idle|leak]\n");
		return 2;
	}
	blocks = strtoul(argv[1], NULL, 10) * 1024 / BLOCK;
	stop_file = argv[2];
	held = calloc(blocks, sizeof(*held));
	for (i = 0; i < blocks; i++) {
		held[i] = malloc(BLOCK);
		memset(held[i], 1, BLOCK);
	}
	printf("holding %zu bytes\n", blocks * BLOCK);
	fflush(stdout);
	for (i = 0; !idle && i < THREADS; i++)
		pthread_create(&threads[i], NULL, churn, NULL);
	clock_gettime(CLOCK_MONOTONIC, &leak_start);
	while (access(stop_file, F_OK) != 0) {
		if (leak)
			leaked = leak_steadily(&leak_start, leaked);
		nap(20000000);
	}
	stopping = 1;
	for (i = 0; !idle && i < THREADS; i++)
		pthread_join(threads[i], NULL);
	for (i = 0; i < blocks; i++)
		free(held[i]);
	free(held);
	printf("done\n");
	return 0;
}
