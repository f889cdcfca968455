/* real_alloc.c - dlsym bootstrap of the underlying allocator. */
#include "config.h"

#include "real_alloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

struct real_alloc real;

/* Each bootstrap block is preceded by its size, for realloc and
 * malloc_usable_size, and aligned like a sampled block, so that free()
 * needs no range test on its fast path (see free_filter.h). */
#define BOOTSTRAP_HEADER 16
#define BOOTSTRAP_ALIGNMENT 4096

char bootstrap_heap[BOOTSTRAP_HEAP_SIZE] __attribute__((aligned(4096)));
static _Atomic size_t bootstrap_used;

enum { LOOKUP_NOT_STARTED, LOOKUP_RUNNING, LOOKUP_DONE };
static _Atomic int lookup_state;

void *bootstrap_alloc(size_t size, size_t alignment)
{
	size_t start, end;

	if (alignment < BOOTSTRAP_ALIGNMENT)
		alignment = BOOTSTRAP_ALIGNMENT;
	if (size > BOOTSTRAP_HEAP_SIZE || alignment > BOOTSTRAP_HEAP_SIZE / 4) {
		errno = ENOMEM;
		return NULL;
	}
	size_t used = atomic_load(&bootstrap_used);
	do {
		start = (used + BOOTSTRAP_HEADER + alignment - 1) &
			~(alignment - 1);
		end = start + ((size + 15) & ~(size_t)15);
		if (end > BOOTSTRAP_HEAP_SIZE) {
			errno = ENOMEM;
			return NULL;
		}
	} while (!atomic_compare_exchange_weak(&bootstrap_used, &used, end));
	*(size_t *)(bootstrap_heap + start - BOOTSTRAP_HEADER) = size;
	return bootstrap_heap + start; /* static storage: already zero */
}

size_t bootstrap_usable_size(const void *p)
{
	return *(const size_t *)((const char *)p - BOOTSTRAP_HEADER);
}

static void die_without_dynamic_linking(void)
{
	static const char msg[] =
		"libspprof-alloc: cannot find the C library's malloc "
		"(dlsym(RTLD_NEXT) failed).\n"
		"The program is probably statically linked; the heap profiler "
		"only works with dynamically linked programs.\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
		/* nothing else can be done: we are about to abort */
	}
	abort();
}

#define LOOK_UP(name) (real.name = (__typeof__(real.name))dlsym(RTLD_NEXT, #name))

int real_alloc_init(void)
{
	int state = atomic_load_explicit(&lookup_state, memory_order_acquire);

	if (state == LOOKUP_DONE)
		return 1;
	if (state == LOOKUP_RUNNING ||
	    !atomic_compare_exchange_strong(&lookup_state, &state,
					    LOOKUP_RUNNING))
		return 0;
	LOOK_UP(malloc);
	LOOK_UP(calloc);
	LOOK_UP(realloc);
	LOOK_UP(free);
	LOOK_UP(posix_memalign);
	LOOK_UP(aligned_alloc);
	LOOK_UP(memalign);
	LOOK_UP(valloc);
	LOOK_UP(malloc_usable_size);
	LOOK_UP(_exit);
	if (!real.malloc || !real.calloc || !real.realloc || !real.free ||
	    !real.posix_memalign || !real.memalign || !real.malloc_usable_size ||
	    !real._exit)
		die_without_dynamic_linking();
	atomic_store_explicit(&lookup_state, LOOKUP_DONE, memory_order_release);
	return 1;
}
