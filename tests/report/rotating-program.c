/* rotating-program - a heap that holds one level while its blocks are
 * replaced, for peak.sh: two threads each hold 16 MiB in blocks of
 * 256 KiB (keep_large), 6 MiB in blocks of 64 KiB (keep_medium) and 1 MiB
 * in blocks of 16 KiB (keep_small), 46 MiB in all, and replace a block at
 * random, freeing it before allocating its successor, so that every block
 * lives about 0.6 s.  The one argument is how many whole seconds to run
 * (2 by default). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIFETIME_NS 600000000L

enum { LARGE, MEDIUM, SMALL, SITES };

static const size_t block_size[SITES] = { 256 << 10, 64 << 10, 16 << 10 };
static const size_t block_count[SITES] = { 64, 96, 64 };
static int seconds;

/* One function per site, so that each is a site of its own (built
 * without sibling calls: they call malloc() themselves). */
static __attribute__((noinline)) void *keep_large(void)
{
	return malloc(block_size[LARGE]);
}

static __attribute__((noinline)) void *keep_medium(void)
{
	return malloc(block_size[MEDIUM]);
}

static __attribute__((noinline)) void *keep_small(void)
{
	return malloc(block_size[SMALL]);
}

static void *(*const keep[SITES])(void) = { keep_large, keep_medium,
					    keep_small };

static void *filled(int site)
{
	void *block = keep[site]();

	if (!block)
		abort();
	return memset(block, site + 1, block_size[site]);
}

static void *hold(void *seed_arg)
{
	unsigned seed = (unsigned)(size_t)seed_arg;
	void **blocks[SITES];
	size_t total = 0;
	struct timespec pause, now, end;

	for (int s = 0; s < SITES; s++) {
		blocks[s] = calloc(block_count[s], sizeof(*blocks[s]));
		if (!blocks[s])
			abort();
		for (size_t i = 0; i < block_count[s]; i++)
			blocks[s][i] = filled(s);
		total += block_count[s];
	}
	/* One replacement every LIFETIME / total: each block lives about
	 * LIFETIME (longer when the system oversleeps). */
	pause = (struct timespec){ 0, LIFETIME_NS / (long)total };
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)seconds;
	for (now = (struct timespec){ 0 }; now.tv_sec < end.tv_sec ||
					    (now.tv_sec == end.tv_sec &&
					     now.tv_nsec < end.tv_nsec);
	     clock_gettime(CLOCK_MONOTONIC, &now)) {
		size_t pick = (size_t)rand_r(&seed) % total;
		int s = 0;

		while (pick >= block_count[s])
			pick -= block_count[s++];
		free(blocks[s][pick]);
		blocks[s][pick] = filled(s);
		nanosleep(&pause, NULL);
	}
	for (int s = 0; s < SITES; s++) {
		for (size_t i = 0; i < block_count[s]; i++)
			free(blocks[s][i]);
		free(blocks[s]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[2];

	seconds = argc > 1 ? atoi(argv[1]) : 2;
	for (size_t i = 0; i < 2; i++)
		if (pthread_create(&threads[i], NULL, hold, (void *)(i + 1)))
			return 1;
	for (size_t i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
