/* own-malloc - a malloc family of its own, for own-malloc.sh: built into a
 * program (which then allocates through it, as chromium does through the
 * malloc it exports) and into a library to preload before the runtime.
 * Either way it comes before the runtime's in symbol lookup, and the
 * runtime must say so rather than write a profile that reads as a
 * program that does not allocate.
 *
 * A bump allocator over a static arena: blocks are never reused, which a
 * short test does not need.  The program allocates ALLOCATED_BYTES in
 * blocks of BLOCK_SIZE, every byte written, and prints "done".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ARENA_BYTES (64u << 20)
#define ALIGNMENT 16

static _Alignas(ALIGNMENT) unsigned char arena[ARENA_BYTES];
static size_t used;

/* Each block starts ALIGNMENT bytes after its size, for realloc. */
void *malloc(size_t size)
{
	size_t start = __atomic_fetch_add(
		&used, ALIGNMENT + ((size + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1)),
		__ATOMIC_RELAXED);

	if (size > ARENA_BYTES || start + ALIGNMENT + size > ARENA_BYTES) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(arena + start, &size, sizeof(size));
	return arena + start + ALIGNMENT;
}

void free(void *block)
{
	(void)block; /* never reused */
}

void *calloc(size_t count, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(count, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	return malloc(bytes); /* the arena is zero until first used */
}

void *realloc(void *block, size_t size)
{
	size_t old = 0;
	void *moved = malloc(size);

	if (block)
		memcpy(&old, (unsigned char *)block - ALIGNMENT, sizeof(old));
	if (moved && block)
		memcpy(moved, block, old < size ? old : size);
	return moved;
}

#ifndef OWN_MALLOC_LIBRARY
#define ALLOCATED_BYTES (16u << 20)
#define BLOCK_SIZE 65536

int main(void)
{
	for (size_t i = 0; i < ALLOCATED_BYTES / BLOCK_SIZE; i++) {
		void *block = malloc(BLOCK_SIZE);

		if (!block)
			return 1;
		memset(block, 1, BLOCK_SIZE);
		free(block);
	}
	puts("done");
	return 0;
}
#endif
