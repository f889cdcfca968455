/* rawmem.c - mmap-backed memory for the runtime's tables. */
#include "config.h"

#include "rawmem.h"

#include <sys/mman.h>

void *rawmem_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void rawmem_unmap(void *addr, size_t bytes)
{
	if (addr)
		munmap(addr, bytes);
}

void rawmem_release(void *addr, size_t bytes)
{
	madvise(addr, bytes, MADV_DONTNEED);
}
