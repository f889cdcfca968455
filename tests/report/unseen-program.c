/* unseen-program - a heap the runtime cannot see, for runtime.sh: it
 * keeps UNSEEN_BYTES in an anonymous mapping of its own, as a JavaScript
 * or Go heap would, and MALLOC_BLOCKS blocks of BLOCK_SIZE from malloc,
 * every byte touched so that all of it is resident until the end.  The
 * report must say that malloc explains only a small part of its resident
 * memory, and count exactly the blocks it holds (at a sampling rate of 1
 * byte, see alloc-program.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "site.h"

#define UNSEEN_BYTES (64u << 20)
#define MALLOC_BLOCKS 16
#define BLOCK_SIZE 65536 /* under glibc's mmap threshold */

SITE static void *own_heap(void)
{
	void *heap = mmap(NULL, UNSEEN_BYTES, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (heap == MAP_FAILED)
		exit(99);
	return touch(memset(heap, 1, UNSEEN_BYTES));
}

SITE static void *make_block(void)
{
	return touch(memset(malloc(BLOCK_SIZE), 1, BLOCK_SIZE));
}

int main(void)
{
	own_heap();
	for (int i = 0; i < MALLOC_BLOCKS; i++)
		make_block();
	return 0;
}
