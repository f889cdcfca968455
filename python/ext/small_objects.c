/* small_objects.c - Python's small objects through malloc, for a while
 * (see small_objects.h). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>

#include "small_objects.h"

static const PyMemAllocatorDomain domains[] = { PYMEM_DOMAIN_MEM,
						PYMEM_DOMAIN_OBJ };
#define DOMAINS (sizeof(domains) / sizeof(*domains))

/* Each domain's allocator before routing; the context of our functions. */
static PyMemAllocatorEx before[DOMAINS];
static int routed;

/* As Python's own allocators do: a request for no bytes gets one. */
static void *routed_malloc(void *ctx, size_t size)
{
	(void)ctx;
	return malloc(size ? size : 1);
}

static void *routed_calloc(void *ctx, size_t count, size_t size)
{
	(void)ctx;
	return count && size ? calloc(count, size) : calloc(1, 1);
}

static void *routed_realloc(void *ctx, void *block, size_t size)
{
	const PyMemAllocatorEx *previous = ctx;

	if (!block)
		return routed_malloc(NULL, size);
	return previous->realloc(previous->ctx, block, size);
}

static void routed_free(void *ctx, void *block)
{
	const PyMemAllocatorEx *previous = ctx;

	previous->free(previous->ctx, block);
}

void small_objects_route(int through_malloc)
{
	if (through_malloc == routed)
		return;
	for (size_t i = 0; i < DOMAINS; i++) {
		PyMemAllocatorEx routing = {
			.ctx = &before[i],
			.malloc = routed_malloc,
			.calloc = routed_calloc,
			.realloc = routed_realloc,
			.free = routed_free,
		};

		if (through_malloc) {
			PyMem_GetAllocator(domains[i], &before[i]);
			PyMem_SetAllocator(domains[i], &routing);
		} else {
			PyMem_SetAllocator(domains[i], &before[i]);
		}
	}
	routed = through_malloc;
}
