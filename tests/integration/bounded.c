/* bounded.c - a program for the bounded-profile tests: it allocates and
 * frees steadily around a live set of known size, and leaks at a known
 * rate, for a given time (longer if it cannot keep the pace).
 *
 *   bounded SECONDS STEPS_PER_SECOND LEAK_BYTES_PER_SECOND [LIVE_BLOCKS]
 *
 * The live set is LIVE_BLOCKS blocks (default 2048) of CHURN_BYTES; each
 * step frees one of them at random and allocates another in its place
 * (in churn_block()), and steps are paced by the clock; a block is
 * leaked every so many steps (in leak_block(), a site of its own), so
 * that the leak is as steady as the steps.  At the end it
 * prints "live BYTES" (allocated and not freed, the leaked blocks
 * included), "allocations N" (every malloc) and "leak BYTES_PER_SECOND".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHURN_BYTES 4096
#define LEAK_BYTES 1024
#define STEPS_PER_PAUSE 8

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Where the leaked blocks go, so that the compiler keeps them. */
static void *volatile sink;

__attribute__((noinline)) static void *churn_block(void)
{
	return malloc(CHURN_BYTES);
}

__attribute__((noinline)) static void leak_block(void)
{
	sink = malloc(LEAK_BYTES);
}

static void pause_until(double t)
{
	double left = t - now_seconds();
	struct timespec ts;

	if (left <= 0)
		return;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	double seconds, steps_per_second, leak_rate, start, elapsed = 0;
	uint64_t steps = 0, leaked = 0, state = 88172645463325252ull;
	size_t live_blocks = 2048;
	void **live;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: bounded SECONDS STEPS_PER_SECOND "
				"LEAK_BYTES_PER_SECOND [LIVE_BLOCKS]\n");
		return 2;
	}
	seconds = atof(argv[1]);
	steps_per_second = atof(argv[2]);
	leak_rate = atof(argv[3]);
	if (argc == 5)
		live_blocks = strtoul(argv[4], NULL, 10);
	live = calloc(live_blocks, sizeof(*live));
	if (!live || !live_blocks)
		return 1;
	for (size_t i = 0; i < live_blocks; i++)
		live[i] = churn_block();
	start = now_seconds();
	/* Every step is taken, however long a loaded machine makes them
	 * take: the profile's size, and so its checkpoints, follow the
	 * steps, and the leak rate printed is the one the clock saw. */
	while (elapsed < seconds ||
	       (double)steps < seconds * steps_per_second) {
		for (int step = 0; step < STEPS_PER_PAUSE; step++) {
			size_t i;

			state ^= state << 13; /* xorshift64 */
			state ^= state >> 7;
			state ^= state << 17;
			i = (size_t)(state % live_blocks);
			free(live[i]);
			live[i] = churn_block();
			if ((double)leaked < leak_rate * (double)steps /
						    steps_per_second) {
				leak_block();
				leaked += LEAK_BYTES;
			}
			steps++;
		}
		pause_until(start + (double)steps / steps_per_second);
		elapsed = now_seconds() - start;
	}
	printf("live %llu\n",
	       (unsigned long long)(live_blocks * CHURN_BYTES + leaked));
	printf("allocations %llu\n",
	       (unsigned long long)(live_blocks + steps + leaked / LEAK_BYTES));
	printf("leak %.0f\n", (double)leaked / elapsed);
	return 0;
}
