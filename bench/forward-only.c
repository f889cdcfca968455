/* forward-only.c - a preload that only hands the malloc family to the C
 * library.
 *
 * Contract: preloaded, malloc(), free(), calloc() and realloc() jump
 * straight to the C library's own, so that `make bench` can measure what
 * interposition itself costs: the extra indirect jump of every call, which
 * any preloaded profiler pays before it does anything.  Built with -fno-plt,
 * each is one jump through the global offset table, as the runtime's own
 * hot paths are.
 */
#include <stddef.h>
#include <stdlib.h>

/* glibc's names for its allocator, whoever interposes malloc. */
extern void *__libc_malloc(size_t size);
extern void __libc_free(void *block);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *block, size_t size);

void *malloc(size_t size)
{
	return __libc_malloc(size);
}

void free(void *block)
{
	__libc_free(block);
}

void *calloc(size_t count, size_t size)
{
	return __libc_calloc(count, size);
}

void *realloc(void *block, size_t size)
{
	return __libc_realloc(block, size);
}
