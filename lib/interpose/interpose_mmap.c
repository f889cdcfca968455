/* interpose_mmap.c - anonymous mappings, as seen by the program.
 *
 * Programs that run their own heaps (PHP's Zend heap, pixel caches,
 * pool and arena allocators, CPython's arenas) take their memory from
 * mmap(), where malloc never sees it.  Anonymous mappings that hold
 * memory (private or shared, not PROT_NONE reservations, nor file
 * mappings) spend the thread's sampling budget by their length, as a
 * malloc() of that size does, so that they are sampled by the same law
 * and charged to the stacks that made them; munmap(), mremap() and
 * mmap(MAP_FIXED) forget what they take of a sampled mapping
 * (mapping_table.h).  The call itself is always the C library's.
 *
 * What is not seen here: the C library's own mappings (malloc's large
 * blocks, which are counted as heap, thread stacks, the dynamic loader's
 * files) are made by calls inside the C library, which do not go through
 * its exported mmap; nor are mappings made by a program's own system call
 * instructions (Go).  Those that another allocator behind the runtime
 * (jemalloc, tcmalloc) makes through it for its blocks are heap too, and
 * left out here (real_alloc_is_allocator_code).  The runtime's own mappings are made with the
 * thread's re-entrancy guard set (rawmem.h), and pass straight through.
 * A program that never maps pays nothing on any other call; one that
 * maps pays one subtraction per mmap() and mremap() and one load per
 * munmap() while no mapping of it is sampled.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "compiler.h"
#include "interpose.h"
#include "process_memory.h"
#include "profiler.h"
#include "real_alloc.h"
#include "sampler.h"

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
#if UINTPTR_MAX != UINT64_MAX
typedef void *(*mmap64_fn)(void *, size_t, int, int, int, off64_t);
#endif
typedef int (*munmap_fn)(void *, size_t);
typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);

static struct {
	mmap_fn mmap;
	munmap_fn munmap;
	mremap_fn mremap;
#if UINTPTR_MAX != UINT64_MAX
	mmap64_fn mmap64;
#endif
} next;

/* A library's constructor may map before this one runs: looked up at
 * first use too. */
static void find_mapping_functions(void)
{
	*(void **)&next.mmap = dlsym(RTLD_NEXT, "mmap");
	*(void **)&next.munmap = dlsym(RTLD_NEXT, "munmap");
#if UINTPTR_MAX != UINT64_MAX
	*(void **)&next.mmap64 = dlsym(RTLD_NEXT, "mmap64");
#endif
	*(void **)&next.mremap = dlsym(RTLD_NEXT, "mremap");
}

__attribute__((constructor)) static void find_at_load(void)
{
	if (!next.mmap)
		find_mapping_functions();
}

static int found(void)
{
	if (unlikely(!next.mremap))
		find_mapping_functions();
	if (next.mremap)
		return 1;
	errno = ENOSYS;
	return 0;
}

/* Whether a new mapping holds memory of the program's: anonymous, and
 * not a reservation of address space (PROT_NONE). */
static int holds_memory(int prot, int flags)
{
	return (flags & MAP_ANONYMOUS) && prot != PROT_NONE;
}

SLOW_PATH static void sample_mapping(void *start, size_t length)
{
	if (interpose_decide(length) > 0)
		profiler_record_mapping(start, length);
}

/* A new mapping made by the program (by the code at `caller`): sampled by
 * its length, unless the allocator behind the runtime made it for the
 * blocks malloc hands out, which are sampled as heap already; asked
 * before the budget is spent, which that mapping must not take from the
 * heap's samples. */
static void *new_mapping(void *start, size_t length, int prot, int flags,
			 const void *caller)
{
	if (start != MAP_FAILED && holds_memory(prot, flags) &&
	    !sampler_tls.in_runtime &&
	    !real_alloc_is_allocator_code(caller) &&
	    !sampler_within_budget(length))
		sample_mapping(start, length);
	return start;
}

static void *map_fixed(void *addr, size_t length, int prot, int flags,
		       int fd, off_t offset)
{
	int touches = profiler_begin_unmap(addr, length);
	void *start = next.mmap(addr, length, prot, flags, fd, offset);

	if (touches)
		profiler_end_unmap(addr, length, start != MAP_FAILED);
	return start;
}

MEMPROF_PUBLIC void *mmap(void *addr, size_t length, int prot, int flags,
			  int fd, off_t offset)
{
	void *start;

	if (!found())
		return MAP_FAILED;
	/* MAP_FIXED replaces what was there; MAP_FIXED_NOREPLACE fails
	 * instead. */
	if (unlikely((flags & MAP_FIXED) && !sampler_tls.in_runtime))
		start = map_fixed(addr, length, prot, flags, fd, offset);
	else
		start = next.mmap(addr, length, prot, flags, fd, offset);
	return new_mapping(start, length, prot, flags,
			   __builtin_return_address(0));
}

#if UINTPTR_MAX == UINT64_MAX /* off_t is off64_t: one function */
MEMPROF_PUBLIC void *mmap64(void *addr, size_t length, int prot, int flags,
			    int fd, off_t offset)
	__attribute__((alias("mmap")));
#else
MEMPROF_PUBLIC void *mmap64(void *addr, size_t length, int prot, int flags,
			    int fd, off64_t offset)
{
	void *start;

	if (!found())
		return MAP_FAILED;
	if (unlikely((flags & MAP_FIXED) && !sampler_tls.in_runtime)) {
		int touches = profiler_begin_unmap(addr, length);

		start = next.mmap64(addr, length, prot, flags, fd, offset);
		if (touches)
			profiler_end_unmap(addr, length, start != MAP_FAILED);
	} else {
		start = next.mmap64(addr, length, prot, flags, fd, offset);
	}
	return new_mapping(start, length, prot, flags,
			   __builtin_return_address(0));
}
#endif

MEMPROF_PUBLIC int munmap(void *addr, size_t length)
{
	int touches, rc;

	if (!found())
		return -1;
	touches = !sampler_tls.in_runtime &&
		  profiler_begin_unmap(addr, length);
	rc = next.munmap(addr, length);
	if (touches)
		profiler_end_unmap(addr, length, rc == 0);
	return rc;
}

/* A range that held no sampled mapping, moved or resized by mremap():
 * a new mapping of its new length too, when it holds memory, so that a
 * mapping grown from a size seldom sampled is sampled by the size it
 * grew to (were only a sampled mapping's successor followed, a mapping
 * would count with the chance of its first size times that of its last,
 * weighed by the last alone).  Whether it is anonymous and not PROT_NONE
 * cannot be told here: the kernel is asked, only once it is to be
 * sampled and the runtime records. */
static void *untracked_successor(void *start, size_t length)
{
	if (start != MAP_FAILED && !sampler_within_budget(length) &&
	    interpose_decide(length) > 0 &&
	    process_memory_anonymous_at((uintptr_t)start))
		profiler_record_mapping(start, length);
	return start;
}

/* A moved or resized mapping is a new mapping of its new length, as a
 * realloc() is a new block of its new size; the old range is forgotten
 * as by munmap().  Its protection is not known here: it is taken as
 * holding memory when the old range touched a sampled mapping (a
 * reservation is never sampled), else the kernel is asked
 * (untracked_successor). */
MEMPROF_PUBLIC void *mremap(void *old, size_t old_length, size_t new_length,
			    int flags, ...)
{
	void *wanted = NULL, *start;
	int touches;
	va_list ap;

	if (!found())
		return MAP_FAILED;
	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		wanted = va_arg(ap, void *);
		va_end(ap);
	}
	if (sampler_tls.in_runtime)
		return next.mremap(old, old_length, new_length, flags, wanted);
	touches = profiler_begin_unmap(old, old_length);
	start = next.mremap(old, old_length, new_length, flags, wanted);
	if (!touches)
		return untracked_successor(start, new_length);
	profiler_end_unmap(old, old_length, start != MAP_FAILED);
	return new_mapping(start, new_length, PROT_READ | PROT_WRITE,
			   MAP_ANONYMOUS, __builtin_return_address(0));
}
