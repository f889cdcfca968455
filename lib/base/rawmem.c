/* rawmem.c - mmap-backed memory for the runtime's tables. */
#include "config.h"

#include "rawmem.h"

#include <stdint.h>
#include <sys/mman.h>

#include "sampler.h"

/* The runtime's mappings are made under the re-entrancy guard, which
 * the interposed mmap() and munmap() let pass untouched
 * (interpose_mmap.c): they are never sampled, nor spend the budget of
 * the program's allocations.  The guard may be set already. */
void *rawmem_map(size_t bytes)
{
	uint8_t was_in_runtime = sampler_tls.in_runtime;
	void *p;

	sampler_tls.in_runtime = 1;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	sampler_tls.in_runtime = was_in_runtime;
	return p == MAP_FAILED ? NULL : p;
}

void rawmem_unmap(void *addr, size_t bytes)
{
	uint8_t was_in_runtime = sampler_tls.in_runtime;

	if (!addr)
		return;
	sampler_tls.in_runtime = 1;
	munmap(addr, bytes);
	sampler_tls.in_runtime = was_in_runtime;
}

void rawmem_release(void *addr, size_t bytes)
{
	madvise(addr, bytes, MADV_DONTNEED);
}
