/* real_alloc.c - dlsym bootstrap of the underlying allocator. */
#include "config.h"

#include "real_alloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"

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

/* The allocator's functions, as `real` holds them; aligned_alloc and
 * valloc may be missing (the interposer falls back to memalign). */
static const struct allocator_function {
	const char *name;
	size_t offset;
	int required;
} allocator_functions[] = {
	{ "malloc", offsetof(struct real_alloc, malloc), 1 },
	{ "calloc", offsetof(struct real_alloc, calloc), 1 },
	{ "realloc", offsetof(struct real_alloc, realloc), 1 },
	{ "free", offsetof(struct real_alloc, free), 1 },
	{ "posix_memalign", offsetof(struct real_alloc, posix_memalign), 1 },
	{ "aligned_alloc", offsetof(struct real_alloc, aligned_alloc), 0 },
	{ "memalign", offsetof(struct real_alloc, memalign), 1 },
	{ "valloc", offsetof(struct real_alloc, valloc), 0 },
	{ "malloc_usable_size", offsetof(struct real_alloc, malloc_usable_size),
	  1 },
};

#define ALLOCATOR_FUNCTIONS \
	(sizeof(allocator_functions) / sizeof(allocator_functions[0]))

static const struct allocator_function *allocator_function(const char *name)
{
	for (size_t i = 0; i < ALLOCATOR_FUNCTIONS; i++)
		if (!strcmp(name, allocator_functions[i].name))
			return &allocator_functions[i];
	return NULL;
}

int real_alloc_is_allocator_function(const char *name)
{
	return allocator_function(name) != NULL;
}

void *real_alloc_function(const char *name)
{
	const struct allocator_function *f = allocator_function(name);
	void *function = NULL;

	if (f)
		memcpy(&function, (const char *)&real + f->offset,
		       sizeof(function));
	return function;
}

/* The definition of `name` that dlsym() finds from `handle`, when it is
 * in the object mapped at `base` (any object when base is NULL); else
 * NULL. */
static void *defined_in(void *handle, const char *name, const void *base)
{
	void *found = dlsym(handle, name);
	Dl_info info;

	if (!found || !base)
		return found;
	return dladdr(found, &info) && info.dli_fbase == base ? found : NULL;
}

/* The allocator's functions into `into`: NULL, or the name of a required
 * one that is missing (then `into` is partly filled). */
static const char *look_up(void *handle, const void *base,
			   struct real_alloc *into)
{
	for (size_t i = 0; i < ALLOCATOR_FUNCTIONS; i++) {
		const struct allocator_function *f = &allocator_functions[i];
		void *function = defined_in(handle, f->name, base);

		if (!function && f->required)
			return f->name;
		memcpy((char *)into + f->offset, &function, sizeof(function));
	}
	return NULL;
}

/* The link map of the object that defines real.malloc when it is not the
 * C library's, found once `real` is known (NULL until then); the address
 * of this variable itself while the allocator is the C library's. */
static void *_Atomic allocator_object;

const char *real_alloc_take_from(void *handle, const void *base)
{
	struct real_alloc taken = real;
	const char *missing = look_up(handle, base, &taken);

	if (!missing) {
		real = taken;
		atomic_store(&allocator_object, NULL); /* found again */
	}
	return missing;
}

int real_alloc_init(void)
{
	int state = atomic_load_explicit(&lookup_state, memory_order_acquire);

	if (state == LOOKUP_DONE)
		return 1;
	if (state == LOOKUP_RUNNING ||
	    !atomic_compare_exchange_strong(&lookup_state, &state,
					    LOOKUP_RUNNING))
		return 0;
	*(void **)&real._exit = dlsym(RTLD_NEXT, "_exit");
	if (look_up(RTLD_NEXT, NULL, &real) || !real._exit)
		die_without_dynamic_linking();
	atomic_store_explicit(&lookup_state, LOOKUP_DONE, memory_order_release);
	return 1;
}

#ifdef HAVE__DL_FIND_OBJECT

static void *find_allocator_object(void)
{
	struct dl_find_object allocator, libc;
	void *object = &allocator_object;

	if (_dl_find_object((void *)real.malloc, &allocator) == 0 &&
	    !(_dl_find_object((void *)real._exit, &libc) == 0 &&
	      libc.dlfo_link_map == allocator.dlfo_link_map))
		object = allocator.dlfo_link_map;
	atomic_store_explicit(&allocator_object, object, memory_order_relaxed);
	return object;
}

int real_alloc_is_allocator_code(const void *code)
{
	void *object = atomic_load_explicit(&allocator_object,
					    memory_order_relaxed);
	struct dl_find_object found;

	if (unlikely(!object)) {
		if (atomic_load(&lookup_state) != LOOKUP_DONE || !real.malloc ||
		    !real._exit)
			return 0;
		object = find_allocator_object();
	}
	return object != &allocator_object &&
	       _dl_find_object((void *)code, &found) == 0 &&
	       found.dlfo_link_map == object;
}
#else
int real_alloc_is_allocator_code(const void *code)
{
	(void)code;
	return 0;
}
#endif
