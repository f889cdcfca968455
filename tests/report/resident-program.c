/* resident-program - heaps whose resident memory the readings alone
 * misjudge, for runtime.sh:
 *  - "between": 64 MiB written and freed between two readings of the
 *    process's memory (they come with sampled allocations at most every
 *    250 ms, and one at the end), then small blocks: the largest reading
 *    is small, and only the kernel's high-water mark sees the peak;
 *  - "untouched": 256 MiB allocated and never written, live at the end:
 *    the heap is far more than resident memory, since untouched pages
 *    take no RAM.
 * Every block is sampled at a sampling rate of 1 byte (see
 * alloc-program.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site.h"

#define WRITTEN_BYTES (64u << 20)
#define UNTOUCHED_BYTES (256u << 20)
#define SMALL_BLOCKS 16
#define SMALL_SIZE 4096

SITE static void write_and_free(void)
{
	free(touch(memset(malloc(WRITTEN_BYTES), 1, WRITTEN_BYTES)));
}

SITE static void *small_block(void)
{
	return touch(memset(malloc(SMALL_SIZE), 1, SMALL_SIZE));
}

SITE static void *untouched(void)
{
	return touch(malloc(UNTOUCHED_BYTES));
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "between")) {
		write_and_free();
		for (int i = 0; i < SMALL_BLOCKS; i++)
			small_block();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "untouched"))
		return untouched() ? 0 : 1;
	fprintf(stderr, "usage: resident-program between|untouched\n");
	return 2;
}
