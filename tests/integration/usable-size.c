/* usable-size.c - prints what malloc_usable_size() says of blocks of many
 * sizes from every allocation function, after writing every usable byte
 * of each: the output is the same with the runtime as without it, every
 * block sampled or not (see usable-size.sh). */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void show(const char *how, size_t size, void *block)
{
	size_t usable;

	if (!block) {
		printf("%s %zu: no memory\n", how, size);
		return;
	}
	usable = malloc_usable_size(block);
	memset(block, 0x5a, usable); /* the program may use all of it */
	printf("%s %zu: %zu\n", how, size, usable);
	free(block);
}

static void *aligned(size_t alignment, size_t size)
{
	void *block = NULL;

	return posix_memalign(&block, alignment, size) == 0 ? block : NULL;
}

static void *resized(size_t from, size_t size)
{
	char *block = malloc(from);

	if (block)
		memset(block, 1, from);
	return realloc(block, size);
}

static void every_function(size_t size)
{
	char *block;

	show("malloc", size, malloc(size));
	show("calloc", size, calloc(1, size));
	show("realloc-up", size, resized(size / 2 + 1, size));
	show("realloc-down", size, resized(size * 2 + 1, size));
	show("memalign-64", size, memalign(64, size));
	show("memalign-4096", size, memalign(4096, size));
	/* Larger blocks come from mmap, where an alignment beyond the
	 * page's depends on the address the kernel picked. */
	if (size < 65536)
		show("memalign-8192", size, memalign(8192, size));
	show("posix_memalign-32", size, aligned(32, size));
	show("aligned_alloc-256", size, aligned_alloc(256, (size + 255) & ~(size_t)255));
	show("valloc", size, valloc(size));
	show("pvalloc", size, pvalloc(size));
	/* a block resized twice, sampled or not at each step */
	block = malloc(size + 1);
	block = realloc(block, size * 3 + 1);
	show("realloc-twice", size, realloc(block, size + 7));
}

int main(void)
{
	static const size_t larger[] = {
		4064, 4072, 4080, 4088, 4090, 4096, 4104, 8176, 8192, 12288,
		65520, 65536, 100000, 131056, 131072, 131073, 140000, 262144,
		1 << 20,
	};

	for (size_t size = 0; size <= 1100; size++)
		every_function(size);
	for (size_t i = 0; i < sizeof(larger) / sizeof(larger[0]); i++)
		every_function(larger[i]);
	return 0;
}
