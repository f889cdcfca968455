/* trend-program - a heap whose changes are known, for the tests of
 * memprof-report --base (compare.sh) and --leaks (leaks.sh).
 *
 * Usage: trend-program base|grown|leak [die]
 *
 * Every mode holds 1 MiB at hold_steady for the whole run and churns
 * memory at steady levels at churn_small, churn_large and scratch_buffers,
 * for STEPS steps, each begun by a marker "step" when the runtime is there.
 * grow_me holds 1 MiB through the steps (base, leak) or 3 MiB (grown):
 * exactly 2 MiB more.  In leak mode, leak_me also keeps LEAK_BLOCKS blocks
 * of LEAK_SIZE bytes at every step and never frees them: it grows by
 * LEAK_BLOCKS * LEAK_SIZE bytes per marker.  The churn rings are full
 * before the first marker, so that their levels are steady from it on.
 * Nothing is freed at the end.  With "die", the program kills itself
 * (SIGKILL) after its steps, leaving a profile that was never finalised.
 */
#include "config.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keep each site a function of its own name: no inlining, no clones. */
#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noinline, noipa))
#endif

#define STEPS 200
#define HELD_BLOCK 4096
#define HELD_BLOCKS 256 /* 1 MiB */
#define SMALL_RING 512
#define LARGE_RING 32
#define LEAK_BLOCKS 4
#define LEAK_SIZE 1000

static void *volatile last_block;

static void *touch(void *block)
{
	if (!block)
		abort();
	last_block = block;
	return memset(block, 1, 1);
}

SITE static void *hold_steady(size_t size) { return touch(malloc(size)); }
SITE static void *grow_me(size_t size) { return touch(malloc(size)); }
SITE static void *churn_small(size_t size) { return touch(malloc(size)); }
SITE static void *churn_large(size_t size) { return touch(malloc(size)); }
SITE static void *leak_me(size_t size) { return touch(malloc(size)); }

SITE static void scratch_buffers(void)
{
	void *blocks[16];

	for (int i = 0; i < 16; i++)
		blocks[i] = touch(malloc(8192 + 512 * (size_t)i));
	for (int i = 0; i < 16; i++)
		free(blocks[i]);
}

/* A new block in place of the oldest of a ring, of the size of its
 * slot, so that the ring holds the same bytes at every step. */
static void replace(void **ring, size_t *next, size_t count,
		    void *(*site)(size_t), size_t smallest, size_t stride)
{
	free(ring[*next]);
	ring[*next] = site(smallest + stride * (*next % 48));
	*next = (*next + 1) % count;
}

static void hold(void *(*site)(size_t), int blocks)
{
	for (int i = 0; i < blocks; i++)
		site(HELD_BLOCK);
}

int main(int argc, char **argv)
{
	static void *small[SMALL_RING], *large[LARGE_RING];
	int (*marker)(const char *) =
		(int (*)(const char *))dlsym(RTLD_DEFAULT, "memprof_marker");
	const char *mode = argc > 1 ? argv[1] : "base";
	size_t next_small = 0, next_large = 0;

	if (strcmp(mode, "base") && strcmp(mode, "grown") &&
	    strcmp(mode, "leak")) {
		fputs("usage: trend-program base|grown|leak\n", stderr);
		return 2;
	}
	hold(hold_steady, HELD_BLOCKS);
	hold(grow_me, strcmp(mode, "grown") ? HELD_BLOCKS : 3 * HELD_BLOCKS);
	for (size_t i = 0; i < SMALL_RING; i++)
		replace(small, &next_small, SMALL_RING, churn_small, 64, 16);
	for (size_t i = 0; i < LARGE_RING; i++)
		replace(large, &next_large, LARGE_RING, churn_large, 16384,
			1024);
	for (int step = 0; step < STEPS; step++) {
		if (marker)
			marker("step");
		for (int i = 0; i < 64; i++)
			replace(small, &next_small, SMALL_RING, churn_small,
				64, 16);
		for (int i = 0; i < 4; i++)
			replace(large, &next_large, LARGE_RING, churn_large,
				16384, 1024);
		scratch_buffers();
		for (int i = 0; strcmp(mode, "leak") == 0 && i < LEAK_BLOCKS; i++)
			leak_me(LEAK_SIZE);
	}
	if (argc > 2 && strcmp(argv[2], "die") == 0)
		raise(SIGKILL);
	return 0;
}
