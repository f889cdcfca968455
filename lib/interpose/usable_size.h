/* usable_size.h - what the C library's malloc_usable_size() would say of a
 * block it gave for a given size.
 *
 * Contract: usable_size_of(size, alignment) is that number for a block of
 * size bytes at that alignment (0 for malloc's own):
 * a sampled block offers its program the bytes it would have had without
 * the runtime, whatever the allocator (programs size themselves by it, as
 * Redis counts its memory, and may write up to it).  For small blocks of
 * glibc's heap it is glibc's own chunk arithmetic, once a probe of a few
 * sizes against the allocator in `real` found that arithmetic to hold
 * (again whenever `real` changes); otherwise, and for larger blocks, the
 * allocator is asked, with a block taken and given back at once; so are
 * blocks aligned beyond malloc's.  Safe from any thread; errno is kept.
 */
#ifndef SPPROF_USABLE_SIZE_H
#define SPPROF_USABLE_SIZE_H

#include <stddef.h>

size_t usable_size_of(size_t size, size_t alignment);

#endif /* SPPROF_USABLE_SIZE_H */
