/* blocks-program - a program whose temporary allocations, threads and
 * sizes are known, for the coverage of memprof-report's --temporary,
 * --group-by thread and --histogram (tests/report/blocks.sh, and
 * bench/blocks-coverage.sh over many runs).
 *
 * Usage: blocks-program SCALE.  The main thread allocates 1 GiB / SCALE
 * in blocks it frees at once (churn_main) and 64 MiB / SCALE that it
 * keeps to the end (hold_main); then the thread "worker-churn" allocates
 * 256 MiB / SCALE freed at once (churn_worker), and "worker-hold" 32 MiB
 * / SCALE that it keeps (hold_worker).  Every block's size is drawn from
 * a fixed mix, 16 bytes to 64 KiB, the same in every run.  What the
 * program did is printed on standard output as JSON, per site, per
 * thread and per size class: the truth the estimates must hold.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "site.h"

#define MiB (UINT64_C(1) << 20)
#define SIZE_CLASSES 64

struct tally {
	uint64_t count, bytes;
	uint64_t count_by_class[SIZE_CLASSES], bytes_by_class[SIZE_CLASSES];
};

enum site_id { CHURN_MAIN, HOLD_MAIN, CHURN_WORKER, HOLD_WORKER, SITES };

static const char *const site_names[SITES] = {
	"churn_main", "hold_main", "churn_worker", "hold_worker",
};

static struct tally tallies[SITES];

/* The mix of sizes: log-uniform from 16 bytes to 64 KiB, from a fixed
 * sequence (each site its own, so that the runs repeat). */
static uint64_t next_size(uint64_t *state)
{
	*state = *state * 6364136223846793005u + 1442695040888963407u;
	return (uint64_t)16 << ((*state >> 33) % 13) |
	       ((*state >> 20) & 15);
}

static void count_block(struct tally *t, uint64_t size)
{
	unsigned k = 63u - (unsigned)__builtin_clzll(size);

	t->count++;
	t->bytes += size;
	t->count_by_class[k]++;
	t->bytes_by_class[k] += size;
}

/* The body of each site, which calls malloc itself (a function, even
 * inlined, would be the site). */
#define CHURN(t, total, seed)                                   \
	for (uint64_t state = (seed); (t)->bytes < (total);) {  \
		uint64_t size = next_size(&state);             \
								\
		free(touch(malloc(size)));                      \
		count_block((t), size);                         \
	}

#define HOLD(t, total, seed)                                    \
	for (uint64_t state = (seed); (t)->bytes < (total);) {  \
		uint64_t size = next_size(&state);             \
								\
		if (!touch(malloc(size)))                       \
			abort();                                \
		count_block((t), size);                         \
	}

SITE static void churn_main(uint64_t total)
{
	CHURN(&tallies[CHURN_MAIN], total, 1);
}

SITE static void churn_worker(uint64_t total)
{
	CHURN(&tallies[CHURN_WORKER], total, 3);
}

SITE static void hold_main(uint64_t total)
{
	HOLD(&tallies[HOLD_MAIN], total, 2);
}

SITE static void hold_worker(uint64_t total)
{
	HOLD(&tallies[HOLD_WORKER], total, 4);
}

static uint64_t scale;

static void *worker(void *arg)
{
	const char *name = arg;

	/* Named before it allocates, as threads that name themselves do. */
	pthread_setname_np(pthread_self(), name);
	if (name[7] == 'c')
		churn_worker(256 * MiB / scale);
	else
		hold_worker(32 * MiB / scale);
	return NULL;
}

static void run_thread(const char *name)
{
	pthread_t thread;

	if (pthread_create(&thread, NULL, worker, (void *)name) != 0 ||
	    pthread_join(thread, NULL) != 0)
		abort();
}

static void print_classes(const uint64_t *values)
{
	const char *separator = "";

	putchar('[');
	for (unsigned k = 0; k < SIZE_CLASSES; k++) {
		printf("%s%llu", separator, (unsigned long long)values[k]);
		separator = ",";
	}
	putchar(']');
}

static void print_truth(void)
{
	printf("{");
	for (int s = 0; s < SITES; s++) {
		const struct tally *t = &tallies[s];

		printf("%s\"%s\":{\"count\":%llu,\"bytes\":%llu,"
		       "\"count_by_class\":",
		       s ? "," : "", site_names[s],
		       (unsigned long long)t->count,
		       (unsigned long long)t->bytes);
		print_classes(t->count_by_class);
		printf(",\"bytes_by_class\":");
		print_classes(t->bytes_by_class);
		printf("}");
	}
	printf("}\n");
}

int main(int argc, char **argv)
{
	scale = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
	if (scale == 0)
		scale = 1;
	churn_main(1024 * MiB / scale);
	hold_main(64 * MiB / scale);
	run_thread("worker-churn");
	run_thread("worker-hold");
	print_truth();
	return 0;
}
