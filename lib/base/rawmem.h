/* rawmem.h - the runtime's own memory, taken straight from mmap.
 *
 * Contract: the runtime never uses malloc for its tables, so that the
 * allocation hooks can never recurse into themselves.  Pages come back
 * zero-filled; failures return NULL with errno set by mmap.
 */
#ifndef SPPROF_RAWMEM_H
#define SPPROF_RAWMEM_H

#include <stddef.h>

void *rawmem_map(size_t bytes);
void rawmem_unmap(void *addr, size_t bytes);
/* Gives back the pages of a mapped range (page-aligned start) that the
 * runtime no longer reads, keeping the range mapped: it reads as zeros. */
void rawmem_release(void *addr, size_t bytes);

#endif /* SPPROF_RAWMEM_H */
