/* attach-deepbind-plugin - a plugin with an allocator of its own, which
 * attach-program loads with RTLD_DEEPBIND so that its calls of the malloc
 * family reach its own functions while the rest of the program's reach
 * the C library's: a program bound to two allocators, for attach.sh.
 * The allocator hands out an arena that nothing gives back. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#define ARENA (4 << 20)

static char arena[ARENA] __attribute__((aligned(4096)));
static size_t used;

void *plugin_alloc(size_t size);

void *memalign(size_t alignment, size_t size)
{
	size_t start = (used + alignment - 1) & ~(alignment - 1);

	if (size > ARENA || start > ARENA - size) {
		errno = ENOMEM;
		return NULL;
	}
	used = start + size;
	return arena + start;
}

void *malloc(size_t size)
{
	return memalign(16, size);
}

void *calloc(size_t count, size_t size)
{
	return count && size > ARENA / count ? NULL : malloc(count * size);
}

void *realloc(void *block, size_t size)
{
	void *moved = malloc(size);

	size_t room = block ? (size_t)(arena + ARENA - (char *)block) : 0;

	if (block && moved)
		memmove(moved, block, size < room ? size : room);
	return moved;
}

void free(void *block)
{
	(void)block;
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
	return (*out = memalign(alignment, size)) ? 0 : ENOMEM;
}

void *aligned_alloc(size_t alignment, size_t size)
{
	return memalign(alignment, size);
}

size_t malloc_usable_size(void *block)
{
	(void)block;
	return 0;
}

void *plugin_alloc(size_t size)
{
	void *block = malloc(size);

	free(block);
	return block;
}
