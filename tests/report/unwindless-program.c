/* unwindless-program - a program whose stacks cannot be walked past its
 * own code: report.mk builds it without unwind tables and without frame
 * pointers.  Profiled with SPPROF_UNWIND=dwarf in runtime.sh, every stack
 * stops in make_block, and memprof-report must say that stacks end in this
 * program.  Every block is 64 KiB, sampled for sure at a sampling rate of
 * 1 byte (see alloc-program.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "site.h"

#define BLOCKS 8
#define BLOCK_SIZE 65536

SITE static void *make_block(void)
{
	return touch(memset(malloc(BLOCK_SIZE), 1, BLOCK_SIZE));
}

int main(void)
{
	void *blocks[BLOCKS];

	for (int i = 0; i < BLOCKS; i++)
		blocks[i] = make_block();
	for (int i = 0; i < BLOCKS; i++)
		free(blocks[i]);
	return 0;
}
