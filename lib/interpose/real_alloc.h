/* real_alloc.h - the C library's allocator, found behind the interposer.
 *
 * Contract: real_alloc_init() looks the next definitions of the malloc
 * family up with dlsym(RTLD_NEXT) exactly once; it is safe to call from
 * any hook and from several threads.  While dlsym runs (it may allocate),
 * allocations are served from a small static bootstrap heap, whose blocks
 * are never returned (free ignores them, realloc copies them out) and are
 * aligned like sampled blocks.  When
 * the lookup fails, which happens in statically linked programs, the
 * process stops at once with a message saying so.
 */
#ifndef SPPROF_REAL_ALLOC_H
#define SPPROF_REAL_ALLOC_H

#include <stddef.h>
#include <stdint.h>

struct real_alloc {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	size_t (*malloc_usable_size)(void *);
	void (*_exit)(int) __attribute__((noreturn));
};

extern struct real_alloc real;

/* Returns 1 when `real` is usable, 0 while the lookup is in progress on
 * this or another thread (use the bootstrap heap meanwhile). */
int real_alloc_init(void);

/* Whether `name` is one of the allocator's functions in `real` (malloc,
 * free, ... not _exit). */
int real_alloc_is_allocator_function(const char *name);
/* The function of that name in `real`, or NULL. */
void *real_alloc_function(const char *name);
/* For a runtime loaded late into a program that allocates with another
 * allocator than the C library's (see late_binding.h): `real` takes that
 * allocator's functions, found by dlsym() from `handle` and defined in
 * the object mapped at `base`, before any call reaches the runtime.
 * NULL, or the name of a function the allocator lacks (then `real` is
 * left as it was). */
const char *real_alloc_take_from(void *handle, const void *base);

/* Whether `code` lies in the object that defines the allocator in `real`,
 * when that is not the C library (jemalloc or tcmalloc linked by the
 * program): the mappings such an allocator makes through the exported
 * mmap() hold the blocks malloc hands out, which are counted as heap
 * already.  Lock-free and allocation-free (glibc's _dl_find_object); 0
 * where the C library lacks it, or while `real` is not known yet. */
int real_alloc_is_allocator_code(const void *code);

void *bootstrap_alloc(size_t size, size_t alignment);
size_t bootstrap_usable_size(const void *p);

extern char bootstrap_heap[];
#define BOOTSTRAP_HEAP_SIZE (256 * 1024) /* static: costs nothing untouched */

static inline int is_bootstrap(const void *p)
{
	return (uintptr_t)p - (uintptr_t)bootstrap_heap < BOOTSTRAP_HEAP_SIZE;
}

#endif /* SPPROF_REAL_ALLOC_H */
