/* flat-program - a program that allocates in main itself: its stacks are
 * as short as complete stacks get (main and the C library's frame that
 * called it, when walked by frame pointers), and memprof-report must have
 * nothing to say about them (runtime.sh).  Every block is 64 KiB, sampled
 * for sure at a sampling rate of 1 byte (see alloc-program.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#define BLOCKS 8
#define BLOCK_SIZE 65536

static void *volatile last_block;

int main(void)
{
	void *blocks[BLOCKS];

	for (int i = 0; i < BLOCKS; i++) {
		blocks[i] = malloc(BLOCK_SIZE);
		last_block = memset(blocks[i], 1, BLOCK_SIZE);
	}
	for (int i = 0; i < BLOCKS; i++)
		free(blocks[i]);
	return 0;
}
