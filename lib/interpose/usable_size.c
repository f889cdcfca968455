/* usable_size.c - the usable size of a C-library block (usable_size.h). */
#include "config.h"

#include "usable_size.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

#include "real_alloc.h"

/* glibc's heap: a chunk holds the block and one size_t of header, rounded
 * up to the 16-byte alignment of malloc, and is at least four size_ts
 * (its links while free) so rounded.  Blocks below its smallest mmap
 * threshold (128 KiB, which only grows unless the program lowers it)
 * come from that heap; this limit leaves room below it. */
#define CHUNK_ALIGN ((size_t)16)
#define CHUNK_HEADER sizeof(size_t)
#define CHUNK_MIN ((4 * sizeof(size_t) + CHUNK_ALIGN - 1) & ~(CHUNK_ALIGN - 1))
#define ARITHMETIC_MAX ((size_t)64 * 1024)

/* Sizes that tell glibc's arithmetic from other allocators' size classes
 * (which part from it above a few KiB) and from a debugging malloc
 * (which gives the bytes asked for). */
static const size_t probe_sizes[] = { 1, 24, 25, 100, 1000, 4097, 20000,
				      ARITHMETIC_MAX - 1 };

/* The allocator whose usable sizes follow the arithmetic, or NULL. */
static _Atomic(void *) arithmetic_holds_for;
/* The allocator last probed (for a verdict either way). */
static _Atomic(void *) probed;

static size_t glibc_usable_size(size_t size)
{
	size_t chunk = (size + CHUNK_HEADER + CHUNK_ALIGN - 1) &
		       ~(CHUNK_ALIGN - 1);

	return (chunk < CHUNK_MIN ? CHUNK_MIN : chunk) - CHUNK_HEADER;
}

/* Asked of the allocator: a block taken and given back at once. */
static size_t probed_usable_size(size_t size, size_t alignment)
{
	int saved_errno = errno;
	void *probe = alignment > CHUNK_ALIGN ? real.memalign(alignment, size)
					      : real.malloc(size);
	size_t usable = probe ? real.malloc_usable_size(probe) : size;

	real.free(probe);
	errno = saved_errno;
	return usable > size ? usable : size;
}

/* glibc may hand over a free chunk up to a minimum chunk larger than the
 * arithmetic says (a smaller rest could not be a chunk of its own): a
 * probe's answer within that holds too. */
static int arithmetic_holds(void)
{
	for (size_t i = 0; i < sizeof(probe_sizes) / sizeof(*probe_sizes); i++) {
		size_t size = probe_sizes[i], expected = glibc_usable_size(size);
		size_t usable = probed_usable_size(size, 0);

		if (usable < expected || usable >= expected + CHUNK_MIN)
			return 0;
	}
	return 1;
}

size_t usable_size_of(size_t size, size_t alignment)
{
	void *allocator = (void *)real.malloc_usable_size;

	if (size >= ARITHMETIC_MAX || alignment > CHUNK_ALIGN)
		return probed_usable_size(size, alignment);
	if (atomic_load_explicit(&probed, memory_order_relaxed) != allocator) {
		if (arithmetic_holds())
			atomic_store(&arithmetic_holds_for, allocator);
		atomic_store(&probed, allocator);
	}
	if (atomic_load_explicit(&arithmetic_holds_for,
				 memory_order_relaxed) == allocator)
		return glibc_usable_size(size);
	return probed_usable_size(size, alignment);
}
